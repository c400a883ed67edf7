/* The core's heap: every allocation made by the core is counted
 * (tests/alloccount.c, the core linked with -Wl,--wrap).  The read pass
 * allocates nothing in steady state: over 200 read passes of a 21-cgroup
 * fixture tree with every Collect group, after two warm-up passes; and
 * the same for 200 reads of the RAPL zones of a two-socket server and of
 * /proc/stat.  And the heap in use comes back to what it was when cgroups
 * have come and gone: 40 jobs that end and go at once leave no more
 * behind them than one did (the soak of make bench, 100,000 cgroups in
 * collectd, in the small). */
#include "alloccount.h"
#include "fixture_util.h"
#include "jc_collector.h"
#include "jc_procstat.h"
#include "jc_rapl.h"
#include "tap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long long allocations(void) { return jc_alloccount_now().calls; }

static long metrics;
static void count_metric(void *ctx, const jc_target *t, const jc_metric *m) {
  (void)ctx, (void)t, (void)m;
  metrics++;
}

static void ignore_note(void *ctx, const jc_target *t, const jc_notification *n) {
  (void)ctx, (void)t, (void)n;
}

/* N jobs, PREFIX0 ...: made, filled, found by the walk between passes,
 * emptied (their final figures read and held), removed, and the pass
 * that sends what they held. */
static void jobs(jc_collector *c, const char *prefix, int n) {
  char rel[64];
  for (int i = 0; i < n; i++) {
    snprintf(rel, sizeof(rel), "%s%d", prefix, i);
    fx_cgroup(rel, 1000);
    snprintf(rel, sizeof(rel), "%s%d/cgroup.events", prefix, i);
    fx_write(rel, "populated 1\nfrozen 0\n");
  }
  jc_collector_handle_events(c, count_metric, NULL);
  for (int i = 0; i < n; i++) {
    snprintf(rel, sizeof(rel), "%s%d/cpu.stat", prefix, i);
    fx_write(rel, "usage_usec 9000\nuser_usec 6000\nsystem_usec 3000\n");
    snprintf(rel, sizeof(rel), "%s%d/cgroup.events", prefix, i);
    fx_write(rel, "populated 0\nfrozen 0\n");
  }
  jc_collector_handle_events(c, count_metric, NULL);
  for (int i = 0; i < n; i++) {
    snprintf(rel, sizeof(rel), "%s%d", prefix, i);
    fx_remove(rel);
  }
  jc_collector_read(c, count_metric, NULL);
}

static void test_churn(void) {
  char err[256];
  fx_root("cpu\n");
  fx_write("cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
  fx_cgroup("stays", 1000);
  fx_write("stays/cgroup.events", "populated 1\nfrozen 0\n");
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, fx_path(""), err, sizeof(err));
  jc_config_add_pattern(cfg, false, "*", err, sizeof(err));
  cfg->notify_end = true;
  jc_config_finish(cfg, err, sizeof(err));
  jc_collector *c = jc_collector_new(cfg, NULL, NULL);
  jc_collector_set_notify(c, ignore_note, NULL);
  ok(jc_collector_init(c) == 0 && jc_collector_events_fd(c) >= 0,
     "churn: init, an events descriptor");
  metrics = 0;
  jobs(c, "a", 1);
  jobs(c, "b", 1);
  jc_alloccount one = jc_alloccount_now();
  long sent_one = metrics;
  jobs(c, "c", 40);
  jobs(c, "d", 1);
  jc_alloccount after = jc_alloccount_now();
  jc_collector_stats st;
  jc_collector_get_stats(c, &st);
  ok(st.tracked == 2 && metrics - sent_one > 40,
     "churn: 40 jobs sent their final figures and went (%ld lists; %zu "
     "tracked: the root and the one that stays)",
     metrics - sent_one, st.tracked);
  ok(after.bytes == one.bytes && after.blocks == one.blocks,
     "churn: the heap in use after 40 jobs that went at once as after one: "
     "%lld bytes in %lld blocks, then %lld in %lld",
     one.bytes, one.blocks, after.bytes, after.blocks);
  jc_collector_free(c);
  fx_cleanup();
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
  long long before = allocations();
  metrics = 0;
  for (int i = 0; i < 200; i++)
    jc_collector_read(c, count_metric, NULL);
  jc_collector_stats st;
  jc_collector_get_stats(c, &st);
  ok(st.tracked == 21, "21 cgroups tracked (%zu)", st.tracked);
  ok(metrics > 200 * 22 * 10, "%ld metrics emitted in 200 passes", metrics);
  is_int(allocations() - before, 0, "zero heap allocations in 200 read passes");
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
  before = allocations();
  int fresh = 0, stat_reads = 0;
  for (int i = 0; i < 200; i++) {
    jc_rapl_read(r, 2 + (uint64_t)i);
    fresh += jc_rapl_energy_of(r, 0)->fresh;
    stat_reads += jc_procstat_read(&ps, &times) == 0;
  }
  ok(fresh == 200 && stat_reads == 200, "200 reads of both");
  is_int(allocations() - before, 0, "zero heap allocations in 200 energy reads");
  jc_procstat_close(&ps);
  jc_rapl_free(r);
  test_churn();
  return done_testing();
}
