/* The read pass allocates nothing in steady state: every malloc, calloc,
 * realloc and strdup made by the core is counted (the test links the core
 * with -Wl,--wrap), over 200 read passes of a 21-cgroup fixture tree with
 * every Collect group, after two warm-up passes; and the same for 200
 * reads of the RAPL zones of a two-socket server and of /proc/stat. */
#include "jc_collector.h"
#include "jc_procstat.h"
#include "jc_rapl.h"
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
  static const char *const groups[] = {"cpu",    "memory", "io",  "pressure",
                                       "events", "pids",   "energy"};
  for (size_t i = 0; i < 7; i++)
    jc_config_add_collect(cfg, groups[i], err, sizeof(err));
  char zones[4096];
  snprintf(zones, sizeof(zones),
           "%s/tests/fixtures/powercap/intel-xeon-2s/sys/class/powercap",
           srcdir ? srcdir : "..");
  char zones_abs[4096];
  if (!realpath(zones, zones_abs))
    return perror(zones), 1;
  jc_config_set_powercap_root(cfg, zones_abs, err, sizeof(err));
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

  snprintf(rel, sizeof(rel),
           "%s/tests/fixtures/powercap/intel-xeon-2s/sys/class/powercap",
           srcdir ? srcdir : "..");
  jc_rapl *r = NULL;
  jc_procstat ps;
  jc_cputimes times;
  ok(jc_rapl_open(rel, NULL, &r) == 0 && jc_rapl_state_of(r) == JC_RAPL_READY,
     "RAPL zones of %s", rel);
  ok(jc_procstat_open(&ps, NULL) == 0, "/proc/stat");
  jc_rapl_read(r, 1);
  before = allocations;
  int fresh = 0, stat_reads = 0;
  for (int i = 0; i < 200; i++) {
    jc_rapl_read(r, 2 + (uint64_t)i);
    fresh += jc_rapl_energy_of(r, 0)->fresh;
    stat_reads += jc_procstat_read(&ps, &times) == 0;
  }
  ok(fresh == 200 && stat_reads == 200, "200 reads of both");
  is_int(allocations - before, 0, "zero heap allocations in 200 energy reads");
  jc_procstat_close(&ps);
  jc_rapl_free(r);
  return done_testing();
}
