/* Unit tests of jc_sample + jc_metrics: the names and values of every
 * value list (Values "*"), the first-sample rule, rates from two samples,
 * a re-created cgroup, values within their types' ranges, I/O totals that
 * never run backwards, and what the default selection sends. */
#include "jc_metrics.h"
#include "jc_totals.h"
#include "tap.h"

#include <errno.h>

#define MAX_SEEN 128
static struct {
  char name[128];
  double v[3];
  size_t count;
  jc_kind kind;
  jc_list_id list;
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
  seen[seen_count].list = m->list;
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
    k.is_event[i] = jc_sample_memstat_key_is_event(names[i]);
    k.derive_instance[i] = derive[i];
  }
  k.count = 4;
  return k;
}

/* Every list's name once in the table, so that a list has one
 * identifier and an identifier one list. */
static void test_list_ids(void) {
  char a[160], b[160];
  int same = 0;
  for (int i = 0; i < JC_LIST_COUNT; i++)
    for (int j = i + 1; j < JC_LIST_COUNT; j++) {
      jc_lists_name(jc_lists[i].type, jc_lists[i].type_instance, a, sizeof(a));
      jc_lists_name(jc_lists[j].type, jc_lists[j].type_instance, b, sizeof(b));
      same += strcmp(a, b) == 0;
    }
  is_int(same, 0, "the %d lists of the table have distinct names, one id each",
         JC_LIST_COUNT);
  ok(strcmp(jc_lists_type(JC_LIST_MEMSTAT), "memory") == 0 &&
         strcmp(jc_lists_type(JC_LIST_MEMSTAT_EVENT), "derive") == 0 &&
         strcmp(jc_lists_type(JC_LIST_DISK_OPS), "disk_ops") == 0,
     "the MemoryStat lists' ids are beside the table's, with their types");
}

/* Each metric just seen carries the id of the list it is: the table's
 * name (a device's series: the list's type), or a MemoryStat key's. */
static void expect_ids(const char *what) {
  size_t wrong = 0;
  for (size_t i = 0; i < seen_count; i++) {
    jc_list_id id = seen[i].list;
    char want[160];
    if (id < JC_LIST_COUNT)
      jc_lists_name(jc_lists[id].type, jc_lists[id].type_instance, want,
                   sizeof(want));
    bool device = (id == JC_LIST_DISK_OCTETS || id == JC_LIST_DISK_OPS) &&
                  strncmp(seen[i].name, want, strlen(want)) == 0 &&
                  seen[i].name[strlen(want)] == '-';
    bool memstat =
        (id == JC_LIST_MEMSTAT && strncmp(seen[i].name, "memory-", 7) == 0) ||
        (id == JC_LIST_MEMSTAT_EVENT &&
         strncmp(seen[i].name, "derive-memory_", 14) == 0);
    if (!(id < JC_LIST_COUNT ? strcmp(seen[i].name, want) == 0 || device
                             : memstat)) {
      printf("# %s: list id %d\n", seen[i].name, (int)id);
      wrong++;
    }
  }
  ok(seen_count > 0 && wrong == 0, "%s: each of the %zu metrics names its list "
     "by id (%zu wrong)", what, seen_count, wrong);
}

/* The selection of Collect groups `collect` with Values patterns. */
static jc_selection choose(jc_memstat_keys *k, unsigned collect,
                           const char *pattern) {
  jc_selection sel;
  char *patterns[] = {(char *)pattern};
  size_t failed;
  char err[256];
  if (jc_lists_select(&sel, k, true, collect, patterns, pattern ? 1 : 0,
                        &failed, err, sizeof(err)) < 0)
    printf("# %s\n", err);
  return sel;
}

#define ALL_GROUPS                                                             \
  (JC_COLLECT_CPU | JC_COLLECT_MEMORY | JC_COLLECT_IO | JC_COLLECT_PRESSURE |  \
   JC_COLLECT_EVENTS | JC_COLLECT_PIDS | JC_COLLECT_LIMITS)

#define PARSE(s, f, text, k)                                                   \
  jc_sample_parse(s, f, text, sizeof(text) - 1, k)

static const char *devname(void *ctx, unsigned major, unsigned minor) {
  (void)ctx;
  return major == 8 && minor == 0 ? "sda" : "253:1";
}

/* Values within the ranges of their types.db types: writers that check
 * ranges (rrdtool) throw the others away. */
static void test_ranges_and_io(jc_memstat_keys *k) {
  jc_io_device dev[4];
  jc_sample s = {.io_device = dev, .io_device_capacity = 4};
  jc_selection every = choose(k, ALL_GROUPS, "*");
  jc_metrics_opts o = {&every, k, 2, false, devname, NULL};
  jc_prior prior = {0};
  jc_limits half = JC_LIMITS_NONE;
  half.cpu_cores = 0.5;

  /* 4 cores busy on a 2-CPU host (the pass's time, not the cgroup's), and
   * under a limit of half a core: 800 % of it. */
  jc_sample_reset(&s);
  PARSE(&s, JC_FILE_CPU_STAT, "usage_usec 0\nuser_usec 0\nsystem_usec 0\n", k);
  s.time_ns = 1000000000ull;
  jc_metrics_emit(&s, &prior, &half, &o, NULL, NULL);
  jc_sample_reset(&s);
  PARSE(&s, JC_FILE_CPU_STAT,
        "usage_usec 4000000\nuser_usec 4000000\nsystem_usec 0\n", k);
  s.time_ns = 2000000000ull;
  seen_count = 0;
  jc_metrics_emit(&s, &prior, &half, &o, record, NULL);
  expect_value("percent-cpu", 0, 100);
  expect_value("gauge-cpu_limit_percent", 0, 800);
  ok(find("percent-cpu_limit") < 0, "the share of a limit is no percent-*");

  /* memory.current above a lowered memory.max: 150 % in a gauge. */
  jc_sample_reset(&s);
  PARSE(&s, JC_FILE_MEMORY_CURRENT, "3072\n", k);
  PARSE(&s, JC_FILE_MEMORY_MAX, "2048\n", k);
  seen_count = 0;
  jc_metrics_emit(&s, &prior, NULL, &o, record, NULL);
  expect_value("gauge-memory_max_percent", 0, 150);
  expect_ids("limits");
  /* A limit beyond what the memory type holds (256 TiB) is no limit. */
  jc_sample_reset(&s);
  PARSE(&s, JC_FILE_MEMORY_CURRENT, "3072\n", k);
  PARSE(&s, JC_FILE_MEMORY_MAX, "1125899906842624\n", k);
  PARSE(&s, JC_FILE_MEMORY_HIGH, "281474976710656\n", k);
  seen_count = 0;
  jc_metrics_emit(&s, &prior, NULL, &o, record, NULL);
  ok(find("memory-max") < 0 && find("memory-high") < 0 &&
         find("gauge-memory_max_percent") < 0,
     "memory.max 1 PiB, memory.high 256 TiB: no limit");

  /* Devices leaving io.stat: the totals never fall. */
  static const char *const reads[] = {
      "8:0 rbytes=1000000 wbytes=2000000 rios=10 wios=20\n"
      "7:0 rbytes=5000000 wbytes=7000000 rios=50 wios=70\n",
      "8:0 rbytes=1100000 wbytes=2100000 rios=11 wios=21\n", /* 7:0 left */
      "8:0 rbytes=1200000 wbytes=2200000 rios=12 wios=22\n"
      "7:0 rbytes=300 wbytes=400 rios=3 wios=4\n", /* a new 7:0 */
      "(unknown) rbytes=5 wbytes=5 rios=1 wios=1\n"
      "8:0 rbytes=1200000 wbytes=2200000 rios=12 wios=22\n"
      "(unknown) rbytes=5 wbytes=5 rios=1 wios=1\n"
      "7:0 rbytes=300 wbytes=400 rios=3 wios=4\n",
  };
  static const double want[][4] = {
      {6000000, 9000000, 60, 90},
      {6100000, 9100000, 61, 91},
      {6200300, 9200400, 65, 96},
      {6200310, 9200410, 67, 98},
  };
  bool monotonic = true, exact = true;
  double last[4] = {0};
  for (size_t r = 0; r < sizeof(reads) / sizeof(*reads); r++) {
    jc_sample_reset(&s);
    jc_sample_parse(&s, JC_FILE_IO_STAT, reads[r], strlen(reads[r]), k);
    seen_count = 0;
    jc_metrics_emit(&s, &prior, NULL, &o, record, NULL);
    int oct = find("disk_octets"), ops = find("disk_ops");
    double got[4] = {oct < 0 ? -1 : seen[oct].v[0], oct < 0 ? -1 : seen[oct].v[1],
                     ops < 0 ? -1 : seen[ops].v[0], ops < 0 ? -1 : seen[ops].v[1]};
    for (int v = 0; v < 4; v++) {
      monotonic &= got[v] >= last[v];
      exact &= got[v] == want[r][v];
      if (got[v] != want[r][v])
        printf("# read %zu value %d: %g, want %g\n", r, v, got[v], want[r][v]);
      last[v] = got[v];
    }
  }
  ok(monotonic, "disk_octets and disk_ops never decrease as devices come and go");
  ok(exact, "each device adds its growth; one that left keeps its part");
  /* A malformed line hides its device for a read: when it is back, its
   * growth counts, not all it counted. */
  static const char *const bad[] = {
      "8:0 rbytes=1200000 wbytes=x rios=12 wios=22\n"
      "7:0 rbytes=310 wbytes=410 rios=4 wios=5\n",
      "8:0 rbytes=1200001 wbytes=2200001 rios=13 wios=23\n"
      "7:0 rbytes=310 wbytes=410 rios=4 wios=5\n",
  };
  for (int r = 0; r < 2; r++) {
    jc_sample_reset(&s);
    jc_sample_parse(&s, JC_FILE_IO_STAT, bad[r], strlen(bad[r]), k);
    seen_count = 0;
    jc_metrics_emit(&s, &prior, NULL, &o, record, NULL);
  }
  int oct = find("disk_octets");
  ok(oct >= 0 && seen[oct].v[0] == 6200321 && seen[oct].v[1] == 9200421,
     "a device hidden by a malformed line for one read adds its growth "
     "(%.0f, %.0f)", oct < 0 ? -1 : seen[oct].v[0], oct < 0 ? -1 : seen[oct].v[1]);
  jc_metrics_io_reset(&prior.io);
}

/* Every u64 the kernel prints is a value (docs/metrics.md): a gauge takes
 * any, a counter beyond 2^63 - 1 is no collectd DERIVE.  Its list is not
 * sent, the parse says -EOVERFLOW (the file said once) and keeps the file:
 * every other list of it goes out, exact. */
static void test_beyond_derive(jc_memstat_keys *k) {
  jc_io_device dev[4];
  jc_sample s = {.io_device = dev, .io_device_capacity = 4};
  jc_selection every = choose(k, ALL_GROUPS, "*");
  jc_metrics_opts o = {&every, k, 2, false, devname, NULL};
  jc_prior prior = {0};

  jc_sample_reset(&s);
  is_int(PARSE(&s, JC_FILE_MEMORY_CURRENT, "18446744073709551615\n", k), 0,
         "memory.current 2^64-1: a value");
  is_int(PARSE(&s, JC_FILE_MEMORY_STAT,
               "anon 14914318128160131214\nfile 4096\n", k),
         0, "memory.stat anon 14914318128160131214: a value, not malformed");
  is_int(PARSE(&s, JC_FILE_CPU_STAT,
               "usage_usec 2000\nuser_usec 1200\nsystem_usec 800\n"
               "nr_periods 41\nnr_throttled 2\n"
               "throttled_usec 9223372036854775808\n", k),
         -EOVERFLOW, "cpu.stat throttled_usec 2^63: beyond DERIVE, said");
  ok(jc_sample_has(&s, JC_FILE_CPU_STAT), "and the file is kept");
  is_int(PARSE(&s, JC_FILE_MEMORY_EVENTS,
               "low 0\nhigh 9223372036854775808\nmax 0\noom 0\n"
               "oom_kill 1\noom_group_kill 0\n", k),
         -EOVERFLOW, "memory.events high 2^63: beyond DERIVE");
  is_int(PARSE(&s, JC_FILE_CPU_PRESSURE,
               "some avg10=1.50 avg60=0.50 avg300=0.10 "
               "total=18446744073709551615\n"
               "full avg10=0.00 avg60=0.00 avg300=0.00 total=9\n", k),
         -EOVERFLOW, "cpu.pressure some total 2^64-1: beyond DERIVE");
  ok(jc_sample_has(&s, JC_FILE_CPU_PRESSURE), "and its averages are kept");
  is_int(PARSE(&s, JC_FILE_IO_STAT,
               "8:0 rbytes=10 wbytes=18446744073709551615 rios=1 wios=2\n"
               "253:1 rbytes=20 wbytes=8192 rios=3 wios=4\n", k),
         -EOVERFLOW, "io.stat whose wbytes add up beyond 2^64: beyond DERIVE");
  ok(jc_sample_has(&s, JC_FILE_IO_STAT) && s.io_wbytes == UINT64_MAX &&
         s.io_rbytes == 30,
     "io.stat kept, its sum saturated, never wrapped (%llu)",
     (unsigned long long)s.io_wbytes);
  seen_count = 0;
  jc_metrics_emit(&s, &prior, NULL, &o, record, NULL);
  expect_value("memory-current", 0, 18446744073709551615.0);
  expect_value("memory-anon", 0, 14914318128160131214.0);
  expect_value("derive-cpu_nr_periods", 0, 41);
  expect_value("ps_cputime", 0, 1200);
  ok(find("derive-cpu_throttled_usec") < 0, "throttled_usec is not sent");
  expect_value("derive-memory_events_oom_kill", 0, 1);
  ok(find("derive-memory_events_high") < 0, "memory.events high is not sent");
  expect_value("load-cpu_some", 0, 1.5);
  expect_value("derive-cpu_full_stall_usec", 0, 9);
  ok(find("derive-cpu_some_stall_usec") < 0, "the some total is not sent");
  expect_value("disk_ops", 1, 6);
  ok(find("disk_octets") < 0, "disk_octets is not sent");
  /* The totals (NotifyEnd, the command's report) follow the same rule. */
  jc_totals t;
  jc_totals_of(&s, &prior.io, false, &t);
  ok(t.have_usage && t.usage_usec == 2000 && t.have_times &&
         t.user_usec == 1200 && t.system_usec == 800 && t.have_oom_kills &&
         t.oom_kills == 1 && !t.have_memory_peak && !t.have_energy,
     "totals: CPU and OOM kills as cpu.stat and memory.events say, no "
     "memory.peak where it was not read");
  ok(!t.have_io, "totals: no I/O where a sum is beyond DERIVE");

  /* The next read: the totals stay beyond (they never run backwards), and
   * never come back as a small number. */
  jc_sample_reset(&s);
  PARSE(&s, JC_FILE_IO_STAT,
        "8:0 rbytes=10 wbytes=18446744073709551615 rios=1 wios=2\n"
        "253:1 rbytes=25 wbytes=16384 rios=4 wios=5\n", k);
  seen_count = 0;
  jc_metrics_emit(&s, &prior, NULL, &o, record, NULL);
  expect_value("disk_ops", 1, 7);
  ok(find("disk_octets") < 0, "disk_octets still not sent, never wrapped");
  is_int(PARSE(&s, JC_FILE_MEMORY_STAT, "anon 1\npgfault 18446744073709551615\n",
               k),
         -EOVERFLOW, "memory.stat pgfault 2^64-1: an event beyond DERIVE");
  seen_count = 0;
  jc_metrics_emit(&s, &prior, NULL, &o, record, NULL);
  expect_value("memory-anon", 0, 1);
  ok(find("derive-memory_pgfault") < 0, "pgfault is not sent");
  jc_metrics_io_reset(&prior.io);

  /* PerDevice keeps no totals: the sums of the devices listed now. */
  jc_sample_reset(&s);
  PARSE(&s, JC_FILE_IO_STAT,
        "8:0 rbytes=10 wbytes=4096 rios=1 wios=2\n"
        "253:1 rbytes=20 wbytes=8192 rios=3 wios=4\n", k);
  PARSE(&s, JC_FILE_MEMORY_PEAK, "123456789\n", k);
  jc_totals_of(&s, &prior.io, true, &t);
  ok(t.have_io && t.io_read_bytes == 30 && t.io_write_bytes == 12288 &&
         t.io_read_ops == 4 && t.io_write_ops == 6 && t.have_memory_peak &&
         t.memory_peak == 123456789 && !t.have_usage && !t.have_times,
     "totals with PerDevice: io.stat's devices added up; memory.peak; no "
     "CPU without cpu.stat");
}

/* The default set: each fact once. */
static void test_default_selection(jc_memstat_keys *k) {
  jc_io_device dev[4];
  jc_sample s = {.io_device = dev, .io_device_capacity = 4};
  jc_memstat_keys none = {0};
  jc_selection def;
  size_t failed;
  char err[256];
  jc_lists_select(&def, k, false, JC_COLLECT_DEFAULT | JC_COLLECT_PRESSURE,
                    NULL, 0, &failed, err, sizeof(err));
  jc_metrics_opts o = {&def, k, 2, false, devname, NULL};
  jc_prior prior = {0};
  const char *text =
      "usage_usec 1000\nuser_usec 600\nsystem_usec 400\nnr_periods 0\n"
      "nr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n";
  for (int r = 0; r < 2; r++) {
    jc_sample_reset(&s);
    jc_sample_parse(&s, JC_FILE_CPU_STAT, text, strlen(text), k);
    s.time_ns = (uint64_t)(r + 1) * 1000000000ull;
    PARSE(&s, JC_FILE_MEMORY_CURRENT, "8192\n", k);
    PARSE(&s, JC_FILE_MEMORY_PEAK, "9000\n", k);
    PARSE(&s, JC_FILE_MEMORY_SWAP_CURRENT, "0\n", k);
    PARSE(&s, JC_FILE_MEMORY_SWAP_PEAK, "0\n", k);
    PARSE(&s, JC_FILE_MEMORY_STAT, "anon 4096\nfile 12288\n", k);
    PARSE(&s, JC_FILE_IO_STAT, "8:0 rbytes=1 wbytes=2 rios=1 wios=1\n", k);
    PARSE(&s, JC_FILE_MEMORY_MAX, "65536\n", k);
    PARSE(&s, JC_FILE_CPU_PRESSURE,
          "some avg10=1.50 avg60=0.50 avg300=0.10 total=999\n"
          "full avg10=0.00 avg60=0.00 avg300=0.00 total=9\n", k);
    seen_count = 0;
    jc_metrics_emit(&s, &prior, NULL, &o, record, NULL);
  }
  static const char *const want[] = {
      "ps_cputime", "gauge-cpu_cores", "memory-current", "memory-peak",
      "disk_octets", "disk_ops", "derive-cpu_some_stall_usec",
      "derive-cpu_full_stall_usec", "memory-max", "gauge-memory_max_percent"};
  bool all = true;
  for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
    if (find(want[i]) < 0) {
      printf("# missing %s\n", want[i]);
      all = false;
    }
  ok(all, "default: CPU time, cores, memory current and peak, I/O, stall "
          "totals, the limit and its share");
  is_int((int)seen_count, (int)(sizeof(want) / sizeof(*want)),
         "and nothing else (no usage_usec, percent-cpu, swap, memory.stat keys, "
         "averages, never-moved throttling counters)");
  for (size_t i = 0; i < seen_count; i++) {
    bool expected = false;
    for (size_t w = 0; w < sizeof(want) / sizeof(*want); w++)
      expected |= strcmp(seen[i].name, want[w]) == 0;
    if (!expected)
      printf("# also %s\n", seen[i].name);
  }
  /* Throttling counters once the cgroup was under a quota. */
  jc_sample_reset(&s);
  PARSE(&s, JC_FILE_CPU_STAT,
        "usage_usec 2000\nuser_usec 1200\nsystem_usec 800\nnr_periods 3\n"
        "nr_throttled 1\nthrottled_usec 50\nnr_bursts 0\nburst_usec 0\n", k);
  s.time_ns = 3000000000ull;
  seen_count = 0;
  jc_metrics_emit(&s, &prior, NULL, &o, record, NULL);
  ok(find("derive-cpu_nr_periods") >= 0 && find("derive-cpu_nr_throttled") >= 0 &&
         find("derive-cpu_throttled_usec") >= 0 && find("derive-cpu_nr_bursts") < 0,
     "throttling counters sent once nr_periods moved; bursts opt-in");
  jc_metrics_io_reset(&prior.io);

  /* Values patterns: a glob adds, "!" removes, nothing matched is an error. */
  jc_selection sel;
  char *pats[] = {"memory-*", "!memory-peak*", "percent-cpu"};
  ok(jc_lists_select(&sel, k, false, JC_COLLECT_DEFAULT, pats, 3, &failed,
                       err, sizeof(err)) == 0 &&
         sel.list[JC_LIST_MEMORY_SWAP_CURRENT] == JC_SEL_ASKED &&
         sel.list[JC_LIST_MEMORY_PEAK] == JC_SEL_OFF &&
         sel.list[JC_LIST_CPU_PERCENT] == JC_SEL_ASKED &&
         sel.list[JC_LIST_MEMORY_MAX] == JC_SEL_ASKED && k->sel[0] == JC_SEL_ASKED,
     "Values in order: memory-* then !memory-peak*, percent-cpu");
  char *typo[] = {"memory-curent"};
  ok(jc_lists_select(&sel, k, false, JC_COLLECT_DEFAULT, typo, 1, &failed,
                       err, sizeof(err)) < 0 && strstr(err, "matches no value list"),
     "a name that matches nothing: %s", err);
  char *uncollected[] = {"load-*"};
  ok(jc_lists_select(&sel, k, false, JC_COLLECT_DEFAULT, uncollected, 1,
                       &failed, err, sizeof(err)) < 0 &&
         strstr(err, "Collect \"pressure\""),
     "lists of a group not collected: %s", err);
  ok(jc_lists_select(&sel, &none, false, JC_COLLECT_DEFAULT, NULL, 0, &failed,
                       err, sizeof(err)) == 0 &&
         !(jc_lists_files(&sel, &none) & (1u << JC_FILE_MEMORY_STAT)),
     "the default reads no memory.stat");
}

int main(void) {
  jc_memstat_keys k = keys();
  test_list_ids();
  jc_io_device dev[4];
  jc_sample s = {.io_device = dev, .io_device_capacity = 4};
  jc_selection every = choose(&k, ALL_GROUPS, "*");
  jc_metrics_opts o = {&every, &k, 4, false, devname, NULL};
  jc_prior rate = {0};

  ok(!jc_sample_memstat_key_is_event("anon") && jc_sample_memstat_key_is_event("pgfault") &&
         jc_sample_memstat_key_is_event("thp_fault_alloc") &&
         jc_sample_memstat_key_is_event("zswpin") &&
         jc_sample_memstat_key_is_event("workingset_refault_file"),
     "event keys: pg*, workingset_*, thp_*, zswp*");
  ok(jc_sample_memstat_key_is_event("swpin_zero") &&
         jc_sample_memstat_key_is_event("swpout_zero") &&
         jc_sample_memstat_key_is_event("numa_hint_faults") &&
         !jc_sample_memstat_key_is_event("swapcached") &&
         !jc_sample_memstat_key_is_event("zswapped") &&
         !jc_sample_memstat_key_is_event("zswap"),
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
  is_int(PARSE(&s, JC_FILE_MEMORY_SWAP_PEAK, "123456789012\n", &k), 0,
         "memory.swap.peak");
  const jc_file_info *swap_peak = &jc_sample_files[JC_FILE_MEMORY_SWAP_PEAK];
  const jc_list_info *swap_peak_list = &jc_lists[JC_LIST_MEMORY_SWAP_PEAK];
  ok(strcmp(swap_peak->name, "memory.swap.peak") == 0 &&
         strcmp(swap_peak->controller, "memory") == 0 && swap_peak->optional &&
         swap_peak->absent_at_root && !swap_peak->reset_after_read &&
         swap_peak_list->files == (1u << JC_FILE_MEMORY_SWAP_PEAK) &&
         swap_peak_list->groups == JC_COLLECT_MEMORY &&
         !swap_peak_list->in_default,
     "memory.swap.peak's row: optional, not at the root, an opt-in list of "
     "Collect \"memory\" made from it alone");
  is_int(PARSE(&s, JC_FILE_PIDS_PEAK, "4194304\n", &k), 0, "pids.peak");
  const jc_file_info *pids_peak = &jc_sample_files[JC_FILE_PIDS_PEAK];
  jc_memstat_keys no_keys = {0};
  jc_selection pids_only = choose(&no_keys, JC_COLLECT_PIDS, NULL);
  ok(strcmp(pids_peak->name, "pids.peak") == 0 &&
         strcmp(pids_peak->controller, "pids") == 0 && pids_peak->optional &&
         pids_peak->absent_at_root && !pids_peak->reset_after_read &&
         jc_lists[JC_LIST_PIDS_PEAK].files == (1u << JC_FILE_PIDS_PEAK) &&
         jc_lists[JC_LIST_PIDS_PEAK].groups == JC_COLLECT_PIDS &&
         pids_only.list[JC_LIST_PIDS_PEAK] == JC_SEL_DEFAULT &&
         pids_only.list[JC_LIST_PIDS_CURRENT] == JC_SEL_DEFAULT,
     "pids.peak's row: optional, not at the root, a list of Collect "
     "\"pids\"'s default beside count-pids, made from it alone");

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
  expect_value("load-cpu_some", 0, 1.5);
  expect_value("load-cpu_some", 1, 0.5);
  expect_value("load-cpu_some", 2, 0.1);
  ok(seen[find("load-cpu_some")].count == 3, "load: three values, avg10 avg60 avg300");
  ok(find("pressure-cpu_full_avg10") < 0, "no full line, no full metrics");
  expect_value("derive-memory_events_oom_kill", 0, 4);
  ok(find("derive-memory_events_oom_group_kill") < 0,
     "memory.events key missing on older kernels is not sent");
  expect_value("count-pids", 0, 7);
  expect_value("memory-swap_peak", 0, 123456789012.0);
  expect_value("count-pids_peak", 0, 4194304);
  expect_ids("a first sample of every file");
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
  ok(find("memory-swap_peak") < 0,
     "no memory.swap.peak in the read (a kernel before 6.5): no "
     "memory-swap_peak");
  ok(find("count-pids_peak") < 0,
     "no pids.peak in the read (a kernel before 6.1): no count-pids_peak");
  expect_ids("the rates");

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
  expect_ids("PerDevice");

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
  jc_metrics_io_reset(&rate.io);
  test_ranges_and_io(&k);
  test_beyond_derive(&k);
  test_default_selection(&k);
  return done_testing();
}
