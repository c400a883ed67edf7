/*
 * fuzz_util.h — what every libFuzzer target of tests/fuzz/ shares.
 *
 * libFuzzer hands a target its input in a buffer that may be larger than
 * the input, so a parser reading one byte too far would go unnoticed.  The
 * targets therefore copy the input into a heap block of exactly `size`
 * bytes, without a NUL terminator, before calling any function that takes
 * (buf, len): AddressSanitizer then reports the first byte read past the
 * end.  Functions that take C strings get an exactly-sized copy with its
 * NUL.
 *
 * Invariant checks call FUZZ_CHECK(), which prints the broken condition and
 * aborts: libFuzzer turns the abort into a crash with its input saved.
 *
 * Each target names the core files it links against in a line
 *   // fuzz-sources: jc_parse.c ...
 * that scripts/fuzz.sh reads.
 */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__,     \
              #cond);                                                          \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/*
 * An exactly-sized, unterminated heap copy of data[0..size); free() it.
 * For size 0 it is malloc(0): a block ASan lets nobody read.
 */
static inline char *fuzz_copy(const uint8_t *data, size_t size) {
  char *p = malloc(size);
  if (!p)
    abort();
  if (size)
    memcpy(p, data, size);
  return p;
}

/* An exactly-sized heap C string of data[0..size) (size + 1 bytes). */
static inline char *fuzz_strndup(const uint8_t *data, size_t size) {
  char *p = malloc(size + 1);
  if (!p)
    abort();
  if (size)
    memcpy(p, data, size);
  p[size] = '\0';
  return p;
}

/* Do the n bytes at p lie inside buf[0..len)? */
static inline int fuzz_within(const char *buf, size_t len, const char *p,
                              size_t n) {
  return p >= buf && p <= buf + len && n <= (size_t)(buf + len - p);
}

#endif
