/*
 * tap.h — a few macros that print the Test Anything Protocol, read by
 * automake's tap-driver.sh and by tests/run.sh's summary.
 */
#ifndef JC_TAP_H
#define JC_TAP_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count, tap_failed;

#define ok(cond, ...)                                                          \
  do {                                                                         \
    int ok_ = !!(cond);                                                        \
    tap_count++;                                                               \
    if (!ok_)                                                                  \
      tap_failed++;                                                            \
    printf("%sok %d - ", ok_ ? "" : "not ", tap_count);                        \
    printf(__VA_ARGS__);                                                       \
    printf("\n");                                                              \
    if (!ok_)                                                                  \
      printf("#   at %s:%d\n", __FILE__, __LINE__);                            \
  } while (0)

#define is_u64(got, want, ...)                                                 \
  do {                                                                         \
    uint64_t g_ = (got), w_ = (want);                                          \
    ok(g_ == w_, __VA_ARGS__);                                                 \
    if (g_ != w_)                                                              \
      printf("#   got %" PRIu64 ", want %" PRIu64 "\n", g_, w_);              \
  } while (0)

#define is_int(got, want, ...)                                                 \
  do {                                                                         \
    long long g_ = (got), w_ = (want);                                         \
    ok(g_ == w_, __VA_ARGS__);                                                 \
    if (g_ != w_)                                                              \
      printf("#   got %lld, want %lld\n", g_, w_);                             \
  } while (0)

#define is_str(got, want, ...)                                                 \
  do {                                                                         \
    const char *g_ = (got), *w_ = (want);                                      \
    int same_ = g_ && w_ && strcmp(g_, w_) == 0;                               \
    ok(same_, __VA_ARGS__);                                                    \
    if (!same_)                                                                \
      printf("#   got \"%s\", want \"%s\"\n", g_ ? g_ : "(null)",             \
             w_ ? w_ : "(null)");                                              \
  } while (0)

#define is_near(got, want, tol, ...)                                           \
  do {                                                                         \
    double g_ = (got), w_ = (want);                                            \
    ok(fabs(g_ - w_) <= (tol), __VA_ARGS__);                                   \
    if (!(fabs(g_ - w_) <= (tol)))                                             \
      printf("#   got %g, want %g\n", g_, w_);                                 \
  } while (0)

/*
 * A case whose real part this host cannot run (not root, no kthreadd, no
 * /dev/kmsg), said with what it needs: skipped here, as tests/lib's
 * `need` does; in CI (CI=true) a failure ("required: ..."), since there
 * every case must run.
 */
#define need_unmet(...)                                                        \
  do {                                                                         \
    const char *ci_ = getenv("CI");                                            \
    int required_ = ci_ && strcmp(ci_, "true") == 0;                           \
    tap_count++;                                                               \
    if (required_)                                                             \
      tap_failed++;                                                            \
    printf(required_ ? "not ok %d - required: " : "ok %d - # SKIP ",          \
           tap_count);                                                         \
    printf(__VA_ARGS__);                                                       \
    printf("\n");                                                              \
  } while (0)

static inline int done_testing(void) {
  printf("1..%d\n", tap_count);
  return tap_failed ? 1 : 0;
}

#endif
