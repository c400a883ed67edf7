/* Unit tests of jc_sample + jc_metrics: the SPEC §3 names and values, the
 * first-sample rule, rates from two samples, and a re-created cgroup. */
#include "jc_metrics.h"
#include "tap.h"

#include <errno.h>

#define MAX_SEEN 128
static struct {
  char name[128];
  double v[2];
  size_t count;
  jc_kind kind;
} seen[MAX_SEEN];
static size_t seen_count;

static void record(void *ctx, const jc_metric *m) {
  (void)ctx;
  if (seen_count == MAX_SEEN)
    return;
  snprintf(seen[seen_count].name, sizeof(seen[0].name), "%s%s%s", m->type,
           m->type_instance[0] ? "-" : "", m->type_instance);
  for (size_t i = 0; i < m->count; i++)
    seen[seen_count].v[i] =
        m->kind == JC_GAUGE ? m->gauge[i] : (double)m->derive[i];
  seen[seen_count].count = m->count;
  seen[seen_count].kind = m->kind;
  seen_count++;
}

static int find(const char *name) {
  for (size_t i = 0; i < seen_count; i++)
    if (strcmp(seen[i].name, name) == 0)
      return (int)i;
  return -1;
}

static void expect_value(const char *name, int idx, double want) {
  int i = find(name);
  ok(i >= 0, "emits %s", name);
  if (i >= 0)
    is_near(seen[i].v[idx], want, 1e-6, "%s[%d] = %g", name, idx, want);
}

static jc_memstat_keys keys(void) {
  jc_memstat_keys k = {0};
  static char *names[] = {"anon", "file", "pgfault", "workingset_refault_anon"};
  static char *derive[] = {NULL, NULL, "memory_pgfault",
                           "memory_workingset_refault_anon"};
  for (size_t i = 0; i < 4; i++) {
    k.key[i] = names[i];
    k.key_len[i] = (uint8_t)strlen(names[i]);
    k.is_event[i] = jc_memstat_key_is_event(names[i]);
    k.derive_instance[i] = derive[i];
  }
  k.count = 4;
  return k;
}

#define PARSE(s, f, text, k)                                                   \
  jc_sample_parse(s, f, text, sizeof(text) - 1, k)

static const char *devname(void *ctx, unsigned major, unsigned minor) {
  (void)ctx;
  return major == 8 && minor == 0 ? "sda" : "253:1";
}

int main(void) {
  jc_memstat_keys k = keys();
  jc_io_device dev[4];
  jc_sample s = {.io_device = dev, .io_device_capacity = 4};
  jc_metrics_opts o = {&k, 4, false, devname, NULL, ~0u};
  jc_rate_state rate = {0};

  ok(!jc_memstat_key_is_event("anon") && jc_memstat_key_is_event("pgfault") &&
         jc_memstat_key_is_event("thp_fault_alloc") &&
         jc_memstat_key_is_event("zswpin") &&
         jc_memstat_key_is_event("workingset_refault_file"),
     "event keys: pg*, workingset_*, thp_*, zswp*");
  ok(jc_memstat_key_is_event("swpin_zero") &&
         jc_memstat_key_is_event("swpout_zero") &&
         jc_memstat_key_is_event("numa_hint_faults") &&
         !jc_memstat_key_is_event("swapcached") &&
         !jc_memstat_key_is_event("zswapped") &&
         !jc_memstat_key_is_event("zswap"),
     "6.12's counters swpin_zero, swpout_zero, numa_* are events; "
     "swapcached, zswap, zswapped are bytes");

  jc_sample_reset(&s);
  is_int(PARSE(&s, JC_FILE_CPU_STAT,
               "usage_usec 1000000\nuser_usec 600000\nsystem_usec 400000\n"
               "nr_periods 5\nnr_throttled 1\nthrottled_usec 77\n",
               &k),
         0, "cpu.stat parses");
  s.time_ns = 1000000000ull;
  is_int(PARSE(&s, JC_FILE_MEMORY_CURRENT, "8192\n", &k), 0, "memory.current");
  is_int(PARSE(&s, JC_FILE_MEMORY_STAT,
               "anon 4096\nfile 12288\nkernel 100\npgfault 42\n"
               "workingset_refault_anon 3\n",
               &k),
         0, "memory.stat");
  is_int(PARSE(&s, JC_FILE_IO_STAT,
               "8:0 rbytes=100 wbytes=200 rios=1 wios=2 dbytes=0 dios=0\n"
               "253:1 rbytes=1000 wbytes=2000 rios=10 wios=20\n",
               &k),
         0, "io.stat");
  is_int(PARSE(&s, JC_FILE_CPU_PRESSURE,
               "some avg10=1.50 avg60=0.50 avg300=0.10 total=999\n", &k),
         0, "cpu.pressure");
  is_int(PARSE(&s, JC_FILE_MEMORY_EVENTS,
               "low 0\nhigh 1\nmax 2\noom 3\noom_kill 4\n", &k),
         0, "memory.events");
  is_int(PARSE(&s, JC_FILE_PIDS_CURRENT, "7\n", &k), 0, "pids.current");

  seen_count = 0;
  jc_metrics_emit(&s, &rate, NULL, &o, record, NULL);
  expect_value("ps_cputime", 0, 600000);
  expect_value("ps_cputime", 1, 400000);
  expect_value("derive-cpu_usage_usec", 0, 1000000);
  expect_value("derive-cpu_nr_periods", 0, 5);
  expect_value("derive-cpu_nr_throttled", 0, 1);
  expect_value("derive-cpu_throttled_usec", 0, 77);
  ok(find("derive-cpu_nr_bursts") < 0, "no nr_bursts when the file lacks it");
  ok(find("gauge-cpu_cores") < 0 && find("percent-cpu") < 0,
     "first sample: no rates");
  expect_value("memory-current", 0, 8192);
  expect_value("memory-anon", 0, 4096);
  expect_value("memory-file", 0, 12288);
  ok(find("memory-kernel") < 0, "memory.stat keys not chosen are not sent");
  expect_value("derive-memory_pgfault", 0, 42);
  expect_value("derive-memory_workingset_refault_anon", 0, 3);
  expect_value("disk_octets", 0, 1100);
  expect_value("disk_octets", 1, 2200);
  expect_value("disk_ops", 0, 11);
  expect_value("disk_ops", 1, 22);
  expect_value("pressure-cpu_some_avg10", 0, 1.5);
  expect_value("pressure-cpu_some_avg300", 0, 0.1);
  expect_value("derive-cpu_some_stall_usec", 0, 999);
  ok(find("pressure-cpu_full_avg10") < 0, "no full line, no full metrics");
  expect_value("derive-memory_events_oom_kill", 0, 4);
  ok(find("derive-memory_events_oom_group_kill") < 0,
     "memory.events key missing on older kernels is not sent");
  expect_value("count-pids", 0, 7);
  ok(seen[find("ps_cputime")].kind == JC_DERIVE &&
         seen[find("memory-current")].kind == JC_GAUGE,
     "kinds: DERIVE counters, GAUGE levels");

  /* Second sample 2 s later, 1.5 s of CPU: 0.75 cores, 18.75 % of 4 CPUs. */
  jc_sample_reset(&s);
  PARSE(&s, JC_FILE_CPU_STAT,
        "usage_usec 2500000\nuser_usec 1500000\nsystem_usec 1000000\n", &k);
  s.time_ns = 3000000000ull;
  seen_count = 0;
  jc_metrics_emit(&s, &rate, NULL, &o, record, NULL);
  expect_value("gauge-cpu_cores", 0, 0.75);
  expect_value("percent-cpu", 0, 18.75);

  /* The cgroup was re-created: its counter went back. No negative rate. */
  jc_sample_reset(&s);
  PARSE(&s, JC_FILE_CPU_STAT,
        "usage_usec 100\nuser_usec 50\nsystem_usec 50\n", &k);
  s.time_ns = 4000000000ull;
  seen_count = 0;
  jc_metrics_emit(&s, &rate, NULL, &o, record, NULL);
  ok(find("gauge-cpu_cores") < 0, "counter went back: no rate, new baseline");
  jc_sample_reset(&s);
  PARSE(&s, JC_FILE_CPU_STAT,
        "usage_usec 1000100\nuser_usec 50\nsystem_usec 50\n", &k);
  s.time_ns = 5000000000ull;
  seen_count = 0;
  jc_metrics_emit(&s, &rate, NULL, &o, record, NULL);
  expect_value("gauge-cpu_cores", 0, 1.0);

  /* PerDevice: one series per device, named. */
  o.per_device = true;
  jc_sample_reset(&s);
  PARSE(&s, JC_FILE_IO_STAT,
        "8:0 rbytes=100 wbytes=200 rios=1 wios=2\n"
        "253:1 rbytes=1000 wbytes=2000 rios=10 wios=20\n",
        &k);
  seen_count = 0;
  jc_metrics_emit(&s, &rate, NULL, &o, record, NULL);
  expect_value("disk_octets-sda", 1, 200);
  expect_value("disk_ops-253:1", 0, 10);
  ok(find("disk_octets") < 0, "PerDevice: no summed series");

  /* Broken files: what is valid still goes out. */
  jc_sample_reset(&s);
  is_int(PARSE(&s, JC_FILE_MEMORY_STAT, "anon 1\nfile x\npgfault 9\n", &k),
         -EINVAL, "memory.stat with a bad line is reported");
  ok(jc_sample_has(&s, JC_FILE_MEMORY_STAT), "its good lines are kept");
  is_int(PARSE(&s, JC_FILE_CPU_STAT, "nothing useful\n", &k), -EINVAL,
         "cpu.stat without usage_usec is malformed");
  ok(!jc_sample_has(&s, JC_FILE_CPU_STAT), "and yields nothing");
  is_int(PARSE(&s, JC_FILE_MEMORY_CURRENT, "", &k), -EINVAL,
         "empty memory.current is malformed");
  is_int(PARSE(&s, JC_FILE_MEMORY_CURRENT, "18446744073709551616\n", &k),
         -ERANGE, "memory.current past 2^64-1");
  seen_count = 0;
  jc_metrics_emit(&s, &rate, NULL, &o, record, NULL);
  expect_value("memory-anon", 0, 1);
  ok(find("memory-file") < 0, "the bad line's key is not sent");
  ok(find("memory-current") < 0, "the bad file is not sent");

  jc_sample_reset(&s);
  PARSE(&s, JC_FILE_CPU_STAT,
        "usage_usec 18446744073709551615\nuser_usec 1\nsystem_usec 1\n", &k);
  seen_count = 0;
  jc_metrics_emit(&s, &rate, NULL, &o, record, NULL);
  ok(find("derive-cpu_usage_usec") < 0,
     "a counter past INT64_MAX is not sent as a negative derive");
  return done_testing();
}
