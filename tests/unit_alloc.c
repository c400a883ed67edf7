/* The read pass allocates nothing in steady state: every malloc, calloc,
 * realloc and strdup made by the core is counted (the test links the core
 * with -Wl,--wrap), over 200 read passes of a 21-cgroup fixture tree with
 * every Collect group, after two warm-up passes. */
#include "jc_collector.h"
#include "tap.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

static long allocations;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

void *__wrap_malloc(size_t n) { allocations++; return __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t m) { allocations++; return __real_calloc(n, m); }
void *__wrap_realloc(void *p, size_t n) { allocations++; return __real_realloc(p, n); }
char *__wrap_strdup(const char *s) { allocations++; return __real_strdup(s); }

static long metrics;
static void count_metric(void *ctx, const jc_target *t, const jc_metric *m) {
  (void)ctx, (void)t, (void)m;
  metrics++;
}

int main(void) {
  const char *srcdir = getenv("top_srcdir");
  char rel[4096], root[4096], err[256];
  snprintf(rel, sizeof(rel), "%s/tests/fixtures/k6.1-systemd",
           srcdir ? srcdir : "..");
  if (!realpath(rel, root))
    return perror(rel), 1;
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, root, err, sizeof(err));
  jc_config_add_pattern(cfg, false, "**", err, sizeof(err));
  static const char *const groups[] = {"cpu",    "memory", "io",
                                       "pressure", "events", "pids"};
  for (size_t i = 0; i < 6; i++)
    jc_config_add_collect(cfg, groups[i], err, sizeof(err));
  jc_config_add_memstat(cfg, "anon", err, sizeof(err));
  jc_config_add_memstat(cfg, "pgfault", err, sizeof(err));
  cfg->per_device = true;
  jc_config_finish(cfg, err, sizeof(err));
  jc_collector *c = jc_collector_new(cfg, NULL, NULL);
  ok(jc_collector_init(c) == 0, "init on %s", root);
  jc_collector_read(c, count_metric, NULL);
  jc_collector_read(c, count_metric, NULL);
  long before = allocations;
  metrics = 0;
  for (int i = 0; i < 200; i++)
    jc_collector_read(c, count_metric, NULL);
  jc_collector_stats st;
  jc_collector_get_stats(c, &st);
  ok(st.tracked == 21, "21 cgroups tracked (%zu)", st.tracked);
  ok(metrics > 200 * 22 * 10, "%ld metrics emitted in 200 passes", metrics);
  is_int(allocations - before, 0, "zero heap allocations in 200 read passes");
  jc_collector_free(c);
  return done_testing();
}
