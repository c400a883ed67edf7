/* Unit tests of what `joule-cgroup run` makes of its readings, without a
 * kernel: marker lines cut from output in any pieces, /proc/meminfo, the
 * metrics of the command's cgroup and of the root told apart, phases that
 * add up to the run, the "sampled" flag, the interval peak (memory-
 * peak_interval, Linux 6.12+) giving true maxima, phase names, the share
 * of the host, the energy of each RAPL zone (a fixture tree and a
 * /proc/stat rewritten between readings) and the command's part of it,
 * and the JSON and CSV made of it all; and the figures compare, budgets
 * and pictures judge (jcli_measure), the same read back from the JSON
 * (jcli_load), samples (--samples) included. */
#include "fixture_util.h"
#include "jc_hier.h"
#include "jcli_csv.h"
#include "jcli_load.h"
#include "jcli_markers.h"
#include "jcli_measure.h"
#include "jcli_reading.h"
#include "jcli_report.h"
#include "jcli_result.h"
#include "tap.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- markers ------------------------------------------------------------ */

static char seen_names[16][JCLI_MARKERS_NAME_MAX + 1];
static unsigned long seen_lines[16];
static size_t seen_count;

static void record_marker(void *ctx, const char *name, unsigned long line) {
  (void)ctx;
  if (seen_count < 16) {
    snprintf(seen_names[seen_count], sizeof(seen_names[0]), "%s", name);
    seen_lines[seen_count] = line;
  }
  seen_count++;
}

/* Feeds text one byte at a time (the worst split), then ends it. */
static void feed_bytewise(jcli_markers *m, const char *text, size_t len) {
  for (size_t i = 0; i < len; i++)
    jcli_markers_feed(m, text + i, 1, record_marker, NULL);
  jcli_markers_finish(m, record_marker, NULL);
}

static void test_markers(void) {
  char err[256];
  jcli_markers *m = jcli_markers_new(JCLI_MARKERS_DEFAULT, err, sizeof(err));
  ok(m != NULL, "the default pattern compiles");
  seen_count = 0;
  const char text[] = "he\0llo\n__A__\nx\0x __LOAD_DATA__ yy\r\n__a__\n__B__";
  feed_bytewise(m, text, sizeof(text) - 1);
  is_int(seen_count, 3, "three markers (one after a NUL byte), the last one without a newline");
  is_str(seen_names[0], "__A__", "whole match names a marker");
  is_int(seen_lines[0], 2, "... on line 2");
  is_str(seen_names[1], "__LOAD_DATA__", "found anywhere in a CRLF line");
  is_str(seen_names[2], "__B__", "the last line without newline counts");
  is_int(seen_lines[2], 5, "... on line 5");
  jcli_markers_free(m);

  m = jcli_markers_new("=== ([A-Z]+) ===|(@@)", err, sizeof(err));
  seen_count = 0;
  const char grouped[] = "=== INIT ===\n@@\nnothing\n";
  jcli_markers_feed(m, grouped, sizeof(grouped) - 1, record_marker, NULL);
  jcli_markers_finish(m, record_marker, NULL);
  is_int(seen_count, 2, "capture-group pattern: two markers");
  is_str(seen_names[0], "INIT", "the first group names the marker");
  is_str(seen_names[1], "@@", "whole match when the first group took no part");
  jcli_markers_free(m);

  /* A line far longer than what is kept: no memory growth, and the
   * count of lines goes on. */
  m = jcli_markers_new("^__Z__$", err, sizeof(err));
  seen_count = 0;
  char *big = malloc(3 * JCLI_MARKERS_LINE_MAX);
  memset(big, 'x', 3 * JCLI_MARKERS_LINE_MAX);
  jcli_markers_feed(m, big, 3 * JCLI_MARKERS_LINE_MAX, record_marker, NULL);
  jcli_markers_feed(m, "\n__Z__\n", 7, record_marker, NULL);
  jcli_markers_finish(m, record_marker, NULL);
  free(big);
  is_int(seen_count, 1, "a 192 KiB line, then a marker: found");
  is_int(seen_lines[0], 2, "... on line 2");
  jcli_markers_free(m);

  ok(jcli_markers_new("(", err, sizeof(err)) == NULL && err[0],
     "a pattern that does not compile is refused: %s", err);
}

/* ---- meminfo ------------------------------------------------------------ */

static void test_meminfo(void) {
  const char text[] = "MemTotal:       16000 kB\nMemFree:  1000 kB\n"
                      "MemAvailable:    6000 kB\nBuffers: 5 kB\n";
  uint64_t used = 0;
  ok(jcli_meminfo_used(text, sizeof(text) - 1, &used) == 0 &&
         used == 10000 * 1024ull,
     "meminfo: MemTotal - MemAvailable = %llu", (unsigned long long)used);
  const char old[] = "MemTotal: 16000 kB\nMemFree: 1000 kB\n";
  ok(jcli_meminfo_used(old, sizeof(old) - 1, &used) < 0,
     "meminfo without MemAvailable (before 3.14): no figure");
}

/* ---- readings from metrics ----------------------------------------------- */

static const jc_target proc_target = {"run", "joule/run", "joule/run"};
static const jc_target root_target = {"root", "", "/"};

/* The type strings every metric of a reading carries: the core's, or
 * (renamed) strings the core never sends, to show that the command goes
 * by the list's identifier alone. */
static bool renamed;

static void put(jcli_reader *rd, const jc_target *t, jc_list_id id,
                const char *ti, double a, double b) {
  jc_kind kind = id == JC_LIST_MEMSTAT_EVENT ? JC_DERIVE : JC_GAUGE;
  if (!ti)
    ti = id < JC_LIST_COUNT ? jc_lists[id].type_instance : "";
  jc_metric m = {.list = id, .type = renamed ? "renamed" : jc_lists_type(id),
                 .type_instance = ti, .kind = kind, .count = b < 0 ? 1 : 2,
                 .gauge = {a, b}, .derive = {(int64_t)a, (int64_t)b}};
  if (renamed && ti[0] && id != JC_LIST_MEMSTAT && id != JC_LIST_MEMSTAT_EVENT)
    m.type_instance = "renamed_too"; /* its name, not a key or a device */
  jcli_reader_add(rd, t, &m);
}

typedef struct {
  int64_t usage, read_bytes;
  double current, peak_interval; /* peak_interval < 0: none */
  int64_t root_usage;
} fake;

/* A reading as the collector would deliver it. */
static void make_reading(jcli_reader *rd, jcli_read_kind kind, uint64_t t_ms,
                         const fake *f, jcli_reading *ret) {
  memset(ret, 0, sizeof(*ret));
  ret->kind = kind;
  ret->time_ns = t_ms * 1000000ull;
  rd->filling = ret;
  /* The counters and memory.peak come as the cgroup's totals. */
  jc_totals proc = {.have_usage = true, .have_times = true,
                    .usage_usec = (uint64_t)f->usage,
                    .user_usec = (uint64_t)f->usage * 3 / 4,
                    .system_usec = (uint64_t)f->usage / 4,
                    .have_memory_peak = true, .memory_peak = 900000000,
                    .have_io = true, .io_read_bytes = (uint64_t)f->read_bytes,
                    .io_read_ops = 3, .io_write_ops = 4};
  jcli_reader_totals(rd, &proc_target, &proc);
  jc_totals root = {.have_usage = true, .usage_usec = (uint64_t)f->root_usage};
  jcli_reader_totals(rd, &root_target, &root);
  put(rd, &proc_target, JC_LIST_CPU_CORES, NULL, 0.5, -1);
  put(rd, &proc_target, JC_LIST_MEMORY_CURRENT, NULL, f->current, -1);
  put(rd, &proc_target, JC_LIST_MEMSTAT, "anon", f->current / 2, -1);
  if (f->peak_interval >= 0)
    put(rd, &proc_target, JC_LIST_MEMORY_PEAK_INTERVAL, NULL, f->peak_interval,
        -1);
  put(rd, &proc_target, JC_LIST_MEMSTAT_EVENT, "memory_pgfault", 5, -1);
  put(rd, &proc_target, JC_LIST_MEMORY_MAX, NULL, 67108864, -1);
  put(rd, &proc_target, JC_LIST_CPU_LIMIT_CORES, NULL, 0.5, -1);
  put(rd, &proc_target, JC_LIST_MEMORY_MAX_PERCENT, NULL, 3.0, -1);
  put(rd, &root_target, JC_LIST_MEMSTAT, "anon", 5e9, -1);
  rd->filling = NULL;
  /* /proc/stat of a machine of 2 CPUs, busy what the root's usage says */
  ret->have_host = true;
  ret->host_cpus = 2;
  ret->host.total_usec = 2 * t_ms * 1000 + 10000;
  ret->host.idle_usec = ret->host.total_usec - (uint64_t)f->root_usage;
}

static void test_reading(void) {
  jcli_reader rd = {.meminfo_fd = -1};
  jcli_reading r;
  fake f = {1000, 4096, 2e6, 3e6, 50000};
  make_reading(&rd, JCLI_READ_TICK, 5, &f, &r);
  is_int(r.proc.counters.usage_usec, 1000, "proc usage from its totals");
  is_int(r.proc.counters.user_usec, 750, "proc user time from its totals");
  is_int(r.proc.counters.read_bytes, 4096, "proc io from its totals");
  is_int(r.proc.counters.write_ops, 4, "proc io ops from its totals");
  ok(r.proc.have_peak && r.proc.have_peak_interval && r.proc.peak_interval == 3e6,
     "memory-peak and memory-peak_interval kept apart");
  int cur = jcli_memory_find(&rd.names, "current");
  int anon = jcli_memory_find(&rd.names, "anon");
  ok(cur >= 0 && r.proc.have_memory[cur] && r.proc.memory[cur] == 2e6,
     "memory-current is a value by name");
  ok(jcli_memory_find(&rd.names, "peak") < 0 &&
         jcli_memory_find(&rd.names, "memory_pgfault") < 0,
     "peaks and memory event counters are not values with a range");
  ok(jcli_memory_find(&rd.names, "max") < 0 && r.proc.limits.have_memory_max &&
         r.proc.limits.memory_max == 67108864 && r.proc.limits.have_cpu_cores &&
         r.proc.limits.cpu_cores == 0.5 && !r.proc.limits.have_memory_high &&
         !r.proc.limits.have_pids_max,
     "memory-max and gauge-cpu_limit_cores are limits, not memory values");
  is_int(r.global.counters.usage_usec, 50000, "the root's metrics go to global");
  ok(anon >= 0 && r.global.have_memory[anon] && !r.global.counters.have_io,
     "root: memory.stat values, no io without io.stat");
}

/* Every figure the command reads, from a reading whose type strings are
 * the core's and from one whose strings are all renamed: the same, since
 * the command goes by the lists' identifiers (jc_lists). */
static void reading_of_all(jcli_reader *rd, jcli_reading *r) {
  fake f = {1000, 4096, 2e6, 3e6, 50000};
  make_reading(rd, JCLI_READ_TICK, 5, &f, r);
  rd->filling = r;
  put(rd, &proc_target, JC_LIST_MEMORY_SWAP_CURRENT, NULL, 7e6, -1);
  put(rd, &proc_target, JC_LIST_MEMORY_HIGH, NULL, 5e7, -1);
  put(rd, &proc_target, JC_LIST_PIDS_MAX, NULL, 64, -1);
  rd->filling = NULL;
}

static void test_reading_by_id(void) {
  jcli_reader rd = {.meminfo_fd = -1}, rd_renamed = {.meminfo_fd = -1};
  jcli_reading r, r_renamed;
  reading_of_all(&rd, &r);
  renamed = true;
  reading_of_all(&rd_renamed, &r_renamed);
  renamed = false;
  int swap = jcli_memory_find(&rd.names, "swap_current");
  ok(r.proc.counters.have_usage && r.proc.counters.have_times &&
         r.proc.counters.have_io && r.proc.limits.have_memory_high &&
         r.proc.limits.have_pids_max && r.proc.limits.pids_max == 64 &&
         swap >= 0 && r.proc.memory[swap] == 7e6,
     "every figure the command reads is in the reading");
  ok(memcmp(&r, &r_renamed, sizeof(r)) == 0 &&
         memcmp(&rd.names, &rd_renamed.names, sizeof(rd.names)) == 0,
     "the same reading when every type and type instance is renamed: "
     "the command reads the lists by their identifiers");
}

/* ---- a run with phases ------------------------------------------------------ */

/* run_script keeps every reading as a sample (--samples). */
static bool script_series;

/* START, tick, __A__, tick, tick, __B__ (no tick before the next), __C__,
 * END; usage grows by 100 per 100 ms, the root by twice that. */
static void run_script(jcli_reader *rd, jcli_result *res, bool with_peak) {
  jcli_reading r;
  fake f = {0, 0, 0, with_peak ? 0 : -1, 1000};
#define AT(kind, ms, use, cur, pk)                                             \
  (f.usage = (use), f.read_bytes = (use) * 10, f.current = (cur),              \
   f.peak_interval = with_peak ? (pk) : -1, f.root_usage = 1000 + 2 * (use),   \
   make_reading(rd, kind, ms, &f, &r))
  jcli_result_init(res, true, 50 * 1000000ull);
  if (script_series)
    jcli_result_keep_series(res, &rd->names, NULL);
  AT(JCLI_READ_START, 0, 0, 0, 1e9); /* peak before the start: ignored */
  jcli_result_start(res, &r);
  AT(JCLI_READ_TICK, 100, 100, 10e6, 12e6);
  jcli_result_tick(res, &r);
  AT(JCLI_READ_MARK, 120, 120, 11e6, 11e6);
  jcli_result_mark(res, &r, "__A__", 1);
  AT(JCLI_READ_TICK, 200, 200, 30e6, 64e6); /* a spike between ticks */
  jcli_result_tick(res, &r);
  AT(JCLI_READ_TICK, 300, 300, 20e6, 31e6);
  jcli_result_tick(res, &r);
  AT(JCLI_READ_MARK, 310, 310, 20e6, 20e6);
  jcli_result_mark(res, &r, "__B__", 2);
  AT(JCLI_READ_MARK, 330, 330, 25e6, 26e6);
  jcli_result_mark(res, &r, "__C__", 3);
  AT(JCLI_READ_END, 350, 340, 1e6, 27e6);
  jcli_result_end(res, &r);
#undef AT
}

static double range_max(const jcli_side *d, const jcli_memory_names *names,
                        const char *name) {
  jcli_range g = {0};
  int i = jcli_memory_find(names, name);
  return i >= 0 && jcli_side_range(d, names, (size_t)i, &g) ? g.max : -1;
}

static double range_min(const jcli_side *d, const jcli_memory_names *names,
                        const char *name) {
  jcli_range g = {0};
  int i = jcli_memory_find(names, name);
  return i >= 0 && jcli_side_range(d, names, (size_t)i, &g) ? g.min : -1;
}

static void test_phases(void) {
  jcli_reader rd = {.meminfo_fd = -1};
  jcli_result res;
  run_script(&rd, &res, false);
  is_int(res.phase_count, 4, "three markers: four phases, START to END");
  int64_t sum = 0, global_sum = 0;
  for (size_t i = 0; i < res.phase_count; i++) {
    jcli_counters c, g;
    jcli_side_cpu(&res.phases[i].span.proc, &c);
    jcli_side_cpu(&res.phases[i].span.global, &g);
    sum += c.usage_usec;
    global_sum += g.usage_usec;
  }
  jcli_counters run, run_global, io;
  jcli_side_cpu(&res.run.proc, &run);
  jcli_side_cpu(&res.run.global, &run_global);
  is_int(sum, run.usage_usec, "the phases' CPU time adds up to the run's");
  is_int(global_sum, run_global.usage_usec, "... and the machine's too");
  jcli_side_io(&res.phases[1].span.proc, &io);
  is_int(io.read_bytes, 1900, "io of __A__ -> __B__ is exact at its edges");
  is_near(jcli_span_seconds(&res.phases[1].span), 0.19, 1e-9,
          "phase wall time from edge to edge");
  is_int(res.phases[1].span.ticks, 2, "two ticks inside __A__ -> __B__");
  is_int(res.phases[2].span.ticks, 0, "none inside __B__ -> __C__");
  is_int(res.run.ticks, 3, "three ticks in the run");

  const jcli_memory_names *n = &rd.names;
  ok(jcli_side_method(&res.phases[1].span.proc) == JCLI_PEAK_SAMPLED,
     "no interval peak: method sampled");
  is_near(range_max(&res.phases[1].span.proc, n, "current"), 30e6, 0,
          "sampled max of __A__ -> __B__ is the largest read (misses the spike)");
  is_near(range_min(&res.phases[1].span.proc, n, "current"), 11e6, 0,
          "its min includes the reading at its first edge");
  is_near(range_max(&res.phases[2].span.proc, n, "current"), 25e6, 0,
          "__B__ -> __C__: only its edges were read");
  is_near(range_min(&res.run.proc, n, "current"), 10e6, 0,
          "run: START (empty cgroup) and END (all exited) are not ranges");
  double peak = 0;
  ok(jcli_side_peak(&res.run.proc, true, &peak) && peak == 900e6,
     "run peak: memory.peak");
  ok(!jcli_side_peak(&res.phases[1].span.proc, false, &peak),
     "phase peak unknown without the interval peak");

  char name[600];
  jcli_result_phase_name(&res, 0, name, sizeof(name));
  is_str(name, "START -> __A__", "first phase name");
  jcli_result_phase_name(&res, 3, name, sizeof(name));
  is_str(name, "__C__ -> END", "last phase name");

  double share = 0;
  ok(jcli_span_share(&res.run, &share) && fabs(share - 0.5) < 1e-9,
     "share of host: command's usage / the root's (%g)", share);
  double cores = 0, average = 190e-6 / 0.19;
  ok(jcli_span_cores_max(&res.phases[1].span, &cores) &&
         cores >= average - 1e-12,
     "cores busy max never below the average (%g >= %g)", cores, average);
  jcli_result_release(&res);

  /* The same with the interval peak (Linux 6.12+). */
  run_script(&rd, &res, true);
  const jcli_side *ab = &res.phases[1].span.proc;
  ok(jcli_side_method(ab) == JCLI_PEAK_INTERVAL, "interval peak: method");
  is_near(range_max(ab, n, "current"), 64e6, 0,
          "__A__ -> __B__: the spike between ticks is the max");
  is_near(range_max(&res.phases[0].span.proc, n, "current"), 12e6, 0,
          "START -> __A__: the peak before the start is not counted");
  is_near(range_max(&res.phases[2].span.proc, n, "current"), 26e6, 0,
          "__B__ -> __C__: true max although no tick fell inside");
  ok(jcli_side_peak(&res.phases[3].span.proc, false, &peak) && peak == 27e6,
     "__C__ -> END: peak of the last interval, up to the end");
  ok(jcli_side_peak(&res.run.proc, true, &peak) && peak == 900e6,
     "run peak: the larger of memory.peak and the interval peaks");
  jcli_result_release(&res);
}

static void test_repeated_marker(void) {
  jcli_reader rd = {.meminfo_fd = -1};
  jcli_result res;
  jcli_reading r;
  fake f = {0, 0, 1e6, -1, 0};
  jcli_result_init(&res, true, 0);
  make_reading(&rd, JCLI_READ_START, 0, &f, &r);
  jcli_result_start(&res, &r);
  const char *marks[] = {"__A__", "__B__", "__A__", "__B__"};
  for (unsigned i = 0; i < 4; i++) {
    make_reading(&rd, JCLI_READ_MARK, 10 * (i + 1), &f, &r);
    jcli_result_mark(&res, &r, marks[i], i + 1);
  }
  make_reading(&rd, JCLI_READ_END, 50, &f, &r);
  jcli_result_end(&res, &r);
  char a[600], b[600];
  jcli_result_phase_name(&res, 1, a, sizeof(a));
  jcli_result_phase_name(&res, 3, b, sizeof(b));
  ok(res.phase_count == 5 && strcmp(a, "__A__ -> __B__") == 0 &&
         strcmp(b, "__A__ -> __B__ #2") == 0,
     "a marker pair printed twice: two phases, \"%s\" and \"%s\"", a, b);
  jcli_result_release(&res);
}

/* ---- the documents ------------------------------------------------------------ */

/* What a writer put into fd: read back from the start. */
static char *slurp(FILE *f) {
  static char buf[1 << 18];
  fflush(f);
  size_t len = (size_t)pread(fileno(f), buf, sizeof(buf) - 1, 0);
  buf[len < sizeof(buf) ? len : 0] = '\0';
  return buf;
}

/* ---- outcomes, and the same read back ------------------------------------ */

static bool same(double a, double b) {
  return fabs(a - b) <= 1e-6 * fmax(1, fabs(a));
}

static bool same_figures(const jcli_figset *a, const jcli_figset *b) {
  for (int f = 0; f < JCLI_FIG_COUNT; f++)
    if (a->have[f] != b->have[f] || (a->have[f] && !same(a->v[f], b->v[f])))
      return false;
  return true;
}

static bool same_value(jcli_value a, jcli_value b) {
  return a.have == b.have && (!a.have || same(a.v, b.v));
}

static bool same_points(const jcli_outcome *a, const jcli_outcome *b) {
  if (a->point_count != b->point_count || a->series_on != b->series_on)
    return false;
  for (size_t i = 0; i < a->point_count; i++) {
    const jcli_point *p = &a->point[i], *q = &b->point[i];
    if (!same(p->t, q->t) || p->kind != q->kind ||
        !same_value(p->cpu_usec, q->cpu_usec) ||
        !same_value(p->memory_current, q->memory_current) ||
        !same_value(p->peak_interval, q->peak_interval) ||
        !same_value(p->read_bytes, q->read_bytes) ||
        !same_value(p->write_bytes, q->write_bytes) ||
        !same_value(p->energy_uj, q->energy_uj) ||
        !same_value(p->host_energy_uj, q->host_energy_uj))
      return false;
  }
  return true;
}

static bool same_outcome(const jcli_outcome *a, const jcli_outcome *b) {
  if (a->exit_status != b->exit_status || !same(a->interval, b->interval) ||
      !same_figures(&a->fig, &b->fig) || a->phases_on != b->phases_on ||
      a->phase_count != b->phase_count)
    return false;
  for (size_t i = 0; i < a->phase_count; i++)
    if (strcmp(a->phase[i].name, b->phase[i].name) != 0 ||
        !same(a->phase[i].start, b->phase[i].start) ||
        !same(a->phase[i].wall, b->phase[i].wall) ||
        !same_figures(&a->phase[i].fig, &b->phase[i].fig))
      return false;
  return same_points(a, b);
}

static char *slurp(FILE *f);

/* The report of res (one run, or info->iterations) read back: the same
 * outcomes as jcli_measure makes of res. */
static void roundtrip(const char *what, const jcli_run_info *info,
                      const jcli_result *res, size_t count,
                      jcli_outcome *ret_first) {
  jcli_json *j = jcli_json_new(true);
  if (info->iterations)
    jcli_report_iterations_json(info, res, count, j);
  else
    jcli_report_json(info, &res[0], j);
  FILE *f = tmpfile();
  jcli_json_write(j, fileno(f));
  jcli_json_free(j);
  char *text = slurp(f), err[256] = "";
  jcli_loaded l;
  int r = jcli_load_text(text, strlen(text), &l, err, sizeof(err));
  fclose(f);
  ok(r == 0 && l.count == count && l.iterations == info->iterations &&
         l.command && strcmp(l.command[0], info->command[0]) == 0,
     "%s: the report read back, %zu runs%s%s", what, l.count,
     err[0] ? ": " : "", err);
  for (size_t i = 0; r == 0 && i < count; i++) {
    jcli_outcome o;
    ok(jcli_measure(info, &res[i], &o) == 0 && same_outcome(&o, &l.run[i]),
       "%s, run %zu: the figures, phases and samples read back are the ones "
       "measured",
       what, i + 1);
    if (i == 0 && ret_first)
      *ret_first = o;
    else
      jcli_outcome_release(&o);
  }
  jcli_loaded_release(&l);
}

static void test_documents(void) {
  jcli_reader rd = {.meminfo_fd = -1};
  jcli_result res[2];
  script_series = true;
  run_script(&rd, &res[0], true);
  run_script(&rd, &res[1], false);
  script_series = false;
  res[0].exit_status = 0;
  res[1].exit_status = 3;
  char *argv[] = {"prog", "a,b", NULL};
  jcli_run_info info = {.command = argv,
                        .interval = 0.1,
                        .global_cgroup = "/sys/fs/cgroup",
                        .token_pattern = JCLI_MARKERS_DEFAULT,
                        .names = &rd.names,
                        .iterations = 2};
  jcli_json *j = jcli_json_new(false);
  jcli_report_iterations_json(&info, res, 2, j);
  FILE *f = tmpfile();
  ok(jcli_json_write(j, fileno(f)) == 0, "the JSON document is complete");
  char *text = slurp(f);
  ok(strstr(text, "\"method\":\"interval_peak\"") != NULL,
     "JSON: method interval_peak where the kernel gave it");
  ok(strstr(text, "\"current\":{\"min\":11000000,\"max\":64000000}") != NULL,
     "JSON: the phase's true max of memory.current");
  ok(strstr(text, "\"sampled\":false") != NULL,
     "JSON: a phase without a tick inside says sampled false");
  ok(strstr(text, "\"memory_peak\":{\"min\":900000000,\"median\":900000000") !=
         NULL,
     "JSON summary: memory peak");
  ok(strstr(text, "\"share_of_host\":0.5") != NULL, "JSON: share of host");
  fclose(f);
  jcli_json_free(j);

  f = tmpfile();
  ok(jcli_csv_write(&info, res, 2, fileno(f)) == 0, "CSV written");
  text = slurp(f);
  size_t lines = 0;
  for (char *p = text; *p; p++)
    lines += *p == '\n';
  is_int(lines, 1 + 2 * 5, "CSV: a header, then per run one row and four phases");
  ok(strncmp(text, "iteration,span,phase_index,phase,", 33) == 0,
     "CSV header starts with the row's identity");
  ok(strstr(text, ",proc_cpu_usage_usec,") && strstr(text, ",global_cpu_usage_usec,") &&
         strstr(text, ",proc_memory_anon_max,") && strstr(text, ",global_io_write_ops,") &&
         strstr(text, ",proc_energy_package_j,") &&
         strstr(text, ",global_energy_psys_idle_j\n"),
     "CSV: the profiler's metric names, the energy columns last");
  ok(strstr(text, "\n2,phase,3,__C__ -> END,__C__,END,3,,3,") != NULL,
     "CSV: a phase row of the second run");
  fclose(f);

  jcli_outcome o;
  roundtrip("--iterations 2 --samples", &info, res, 2, &o);
  ok(o.fig.have[JCLI_FIG_CPU] && o.fig.v[JCLI_FIG_CPU] == 340e-6 &&
         o.fig.v[JCLI_FIG_WALL] == 0.35 && o.fig.v[JCLI_FIG_MEMORY] == 900e6 &&
         o.fig.v[JCLI_FIG_IO] == 3400 && !o.fig.have[JCLI_FIG_ENERGY],
     "outcome of the run: 0.35 s, 340 us of CPU, memory.peak 900e6, 3400 "
     "bytes of I/O, no energy");
  ok(o.phase_count == 4 && o.phase[1].fig.v[JCLI_FIG_MEMORY] == 64e6 &&
         o.phase[1].fig.v[JCLI_FIG_CPU] == 190e-6 && o.phase[1].start == 0.12,
     "phase __A__ -> __B__: from 0.12 s, 190 us, its true peak 64e6");
  ok(o.point_count == 8 && o.point[3].kind == JCLI_POINT_TICK &&
         o.point[3].t == 0.2 && o.point[3].cpu_usec.v == 200 &&
         o.point[3].peak_interval.v == 64e6 &&
         o.point[7].kind == JCLI_POINT_END && o.point[7].read_bytes.v == 3400,
     "samples: one per reading, counters since START");
  jcli_outcome_release(&o);
  jcli_run_info one = info;
  one.iterations = 0;
  roundtrip("one run", &one, &res[1], 1, NULL);
  jcli_result_release(&res[0]);
  jcli_result_release(&res[1]);
}


/* ---- energy ---------------------------------------------------------------- */

/* Where the powercap copy's zones are, and our /proc/stat (energy_files). */
static char energy_root[PATH_MAX], stat_path[PATH_MAX];
#define ENERGY_ZONES "intel-xeon-2s/sys/class/powercap"

/* A copy of the two-socket Xeon's powercap tree and a /proc/stat of ours. */
static void energy_files(void) {
  fx_tmpdir();
  fx_copy("tests/fixtures/powercap/intel-xeon-2s", "intel-xeon-2s");
  snprintf(energy_root, sizeof(energy_root), "%s", fx_path(ENERGY_ZONES));
  snprintf(stat_path, sizeof(stat_path), "%s", fx_path("stat"));
}

static void set_uj(const char *id, uint64_t uj) {
  char rel[PATH_MAX], text[32];
  snprintf(rel, sizeof(rel), ENERGY_ZONES "/%s/energy_uj", id);
  snprintf(text, sizeof(text), "%llu\n", (unsigned long long)uj);
  fx_write(rel, text);
}

/* /proc/stat with busy and idle ticks (USER_HZ 100: 10 ms each). */
static void set_stat(uint64_t busy_ticks, uint64_t idle_ticks) {
  char text[256];
  snprintf(text, sizeof(text), "cpu  %llu 0 0 %llu 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n",
           (unsigned long long)busy_ticks, (unsigned long long)idle_ticks);
  fx_write("stat", text);
}

/* A reading as jcli_reader_take() makes it: the collector's, then the
 * energy meter's with the command's usage. */
static void energy_reading(jcli_reader *rd, jcli_energy_meter *m,
                           jcli_read_kind kind, uint64_t t_ms, int64_t usage,
                           jcli_reading *r) {
  fake f = {usage, 0, 1e6, -1, 1000 + 2 * usage};
  make_reading(rd, kind, t_ms, &f, r);
  jcli_energy_edge edge = kind == JCLI_READ_START ? JCLI_ENERGY_START
                          : kind == JCLI_READ_END ? JCLI_ENERGY_END
                                                  : JCLI_ENERGY_INSIDE;
  jcli_energy_take(m, edge, r->time_ns, true, usage, &r->energy);
}

/* The header and the run's row, as TAP comments. */
static void diag_csv(const char *text) {
  const char *second = strchr(text, '\n');
  const char *third = second ? strchr(second + 1, '\n') : NULL;
  if (third)
    printf("# %.*s\n# %.*s\n", (int)(second - text), text,
           (int)(third - second - 1), second + 1);
}

static double joules(const jcli_span *s, size_t zone, int part) {
  jcli_zone_energy e;
  jcli_span_energy(s, zone, &e);
  if (!e.have_host || (part && !e.have_share))
    return -1;
  return (part == 0 ? e.host_uj : part == 1 ? e.proc_uj : e.idle_uj) / 1e6;
}
#define HOST 0
#define PROC 1
#define IDLE 2

/*
 * package-0 of the Xeon, range R, from R - 12 J; 2 CPUs:
 *   START    0 ms                       usage 0
 *   tick  1000 ms  +10 J  cpu +2 s, 1 s idle    usage 0.5 s: 2.5 J, idle 5 J
 *   __A__ 1500 ms  wraps to 3 J: +5 J  cpu +1 s, 0.2 s idle  usage +0.8 s
 *                  (all the busy time): 4 J, idle 1 J
 *   __B__ 1502 ms  +0.1 J, /proc/stat unchanged: split as the stretch
 *                  before: 0.08 J, idle 0.02 J
 *   END   2500 ms  +4.9 J  cpu +2 s, 1.5 s idle  usage +0.299 s:
 *                  4.9 J x 0.299 / 2 = 0.73255 J, idle 3.675 J
 * package-1: +6 J in the tick, nothing after.  dram of socket 0: +2 J in
 * the tick, then the 1000 s after END (a second run) holds two wraps.
 */
static void test_energy(void) {
  energy_files();
  char path[PATH_MAX + 64];
  snprintf(path, sizeof(path), "%s/intel-rapl:0/max_energy_range_uj", energy_root);
  FILE *rf = fopen(path, "r");
  unsigned long long range = 0;
  ok(rf && fscanf(rf, "%llu", &range) == 1, "package-0's range: %llu", range);
  if (rf)
    fclose(rf);
  uint64_t p0 = range - 12000000, p1 = 120972031467ull, d0 = 23450971564ull;
  set_uj("intel-rapl:0", p0);
  set_stat(1000, 5000);

  jcli_reader rd = {.meminfo_fd = -1};
  jcli_energy_meter *m = &rd.energy;
  jcli_energy_open(m, energy_root, stat_path, "/nonexistent/cpu");
  is_int(m->zones.count, 6, "six zones, no note (%zu)", m->notes);
  is_str(m->zones.zone[2].label, "package-0-dram", "labels from the core");
  jcli_result res;
  jcli_reading r;
  jcli_result_init(&res, true, 0);
  jcli_result_keep_series(&res, &rd.names, &m->zones);
  energy_reading(&rd, m, JCLI_READ_START, 0, 0, &r);
  jcli_result_start(&res, &r);
  set_uj("intel-rapl:0", p0 + 10000000);
  set_uj("intel-rapl:1", p1 + 6000000);
  set_uj("intel-rapl:0:1", d0 + 2000000);
  set_stat(1100, 5100);
  energy_reading(&rd, m, JCLI_READ_TICK, 1000, 500000, &r);
  jcli_result_tick(&res, &r);
  set_uj("intel-rapl:0", 3000000); /* wrapped: (R - (R - 2 J)) + 3 J */
  set_stat(1180, 5120);
  energy_reading(&rd, m, JCLI_READ_MARK, 1500, 1300000, &r);
  jcli_result_mark(&res, &r, "__A__", 1);
  set_uj("intel-rapl:0", 3100000);
  energy_reading(&rd, m, JCLI_READ_MARK, 1502, 1301000, &r);
  jcli_result_mark(&res, &r, "__B__", 2);
  set_uj("intel-rapl:0", 8000000);
  set_stat(1230, 5270);
  energy_reading(&rd, m, JCLI_READ_END, 2500, 1600000, &r);
  jcli_result_end(&res, &r);

  const jcli_span *run = &res.run, *a = &res.phases[0].span,
                  *ab = &res.phases[1].span, *b = &res.phases[2].span;
  is_near(joules(a, 0, HOST), 15, 1e-9, "START -> __A__: package-0 10 J + 5 J over the wrap");
  is_near(joules(a, 0, PROC), 6.5, 1e-9, "... the command's: 2.5 J + 4 J");
  is_near(joules(a, 0, IDLE), 6, 1e-9, "... idle: 5 J + 1 J");
  is_near(joules(ab, 0, HOST), 0.1, 1e-9, "__A__ -> __B__ (2 ms): 0.1 J measured");
  is_near(joules(ab, 0, PROC), 0.08, 1e-9,
          "... /proc/stat did not move: split as the stretch before, 0.1 J x 0.8");
  is_near(joules(ab, 0, IDLE), 0.02, 1e-9, "... idle 0.1 J x 0.2");
  is_near(joules(b, 0, HOST), 4.9, 1e-9, "__B__ -> END: 4.9 J");
  is_near(joules(b, 0, PROC), 0.73255, 1e-9, "... the command's: 4.9 J x 0.299 / 2");
  is_near(joules(b, 0, IDLE), 3.675, 1e-9, "... idle 4.9 J x 1.5 / 2");
  is_near(joules(run, 0, HOST), 20, 1e-9, "the run: 20 J = the phases' sum");
  is_near(joules(run, 0, PROC), 7.31255, 1e-9, "the command over the run: 7.31255 J");
  is_near(joules(run, 0, IDLE), 9.695, 1e-9, "idle over the run: 9.695 J");
  is_near(joules(run, 3, HOST), 6, 1e-9, "package-1: 6 J, not added to package-0");
  is_near(joules(run, 3, PROC), 6 * 0.25, 1e-9, "... the command's 0.5 s of 2: 1.5 J");
  is_near(joules(run, 2, HOST), 2, 1e-9, "package-0's dram: its own 2 J");
  is_near(joules(run, 1, HOST), 0, 0, "package-0's core: untouched, 0 J");

  char *argv[] = {"prog", NULL};
  jcli_run_info info = {.command = argv,
                        .interval = 0.1,
                        .global_cgroup = "/sys/fs/cgroup",
                        .token_pattern = JCLI_MARKERS_DEFAULT,
                        .names = &rd.names,
                        .energy = &m->zones};
  jcli_json *j = jcli_json_new(false);
  jcli_report_json(&info, &res, j);
  FILE *f = tmpfile();
  ok(jcli_json_write(j, fileno(f)) == 0, "the JSON document with energy");
  char *text = slurp(f);
  ok(strstr(text, "\"energy\":{\"package-0\":{\"energy_j\":6.5,\"watts\":4.333333}") != NULL,
     "JSON: the command's 6.5 J in 1.5 s: 4.333333 W");
  ok(strstr(text, "\"package-0\":{\"zone\":\"intel-rapl:0\",\"energy_j\":15,"
                  "\"watts\":10,\"idle_j\":6}") != NULL,
     "JSON: the host's package-0 over START -> __A__: 15 J, 10 W, 6 J idle");
  ok(strstr(text, "\"package-0\":{\"zone\":\"intel-rapl:0\",\"energy_j\":20,"
                  "\"watts\":8,\"idle_j\":9.695}") != NULL,
     "JSON: the run: 20 J in 2.5 s, 8 W");
  fclose(f);
  jcli_json_free(j);

  f = tmpfile();
  ok(jcli_csv_write(&info, &res, 1, fileno(f)) == 0, "CSV written");
  text = slurp(f);
  /* package columns: the sum of package-0 and package-1 */
  ok(strstr(text, ",8.81255,0,,0.5,,") != NULL &&
         strstr(text, ",26,0,,2,,12.695,0,,1,\n") != NULL,
     "CSV of the run: packages 7.31255 + 1.5 J of 20 + 6 J, 9.695 + 3 J idle; cores 0; "
     "dram 0.5 J of 2 J, 1 J idle; no uncore, no psys: empty");
  diag_csv(text);
  fclose(f);
  jcli_outcome o;
  roundtrip("energy", &info, &res, 1, &o);
  is_near(o.fig.v[JCLI_FIG_ENERGY], 8.81255, 1e-9,
          "outcome: the command's part of the packages, 7.31255 + 1.5 J (not "
          "the dram or core subzones)");
  ok(o.point_count == 5 && o.point[4].energy_uj.have &&
         same(o.point[4].energy_uj.v, 8.81255e6) &&
         same(o.point[4].host_energy_uj.v, 26e6) &&
         same(o.point[2].host_energy_uj.v, 21e6),
     "samples: the packages' energy since START, the command's and measured");
  jcli_outcome_release(&o);
  jcli_result_release(&res);

  /* A second run: START 1000 s later (dram: beyond its two-wrap time),
   * END 5 ms after a tick, too soon for /proc/stat. */
  jcli_result_init(&res, false, 0);
  energy_reading(&rd, m, JCLI_READ_START, 1000000, 0, &r);
  jcli_result_start(&res, &r);
  set_uj("intel-rapl:0", 10000000);
  set_stat(1330, 5370);
  energy_reading(&rd, m, JCLI_READ_TICK, 1001000, 1000000, &r);
  jcli_result_tick(&res, &r);
  set_uj("intel-rapl:0", 10100000);
  energy_reading(&rd, m, JCLI_READ_END, 1001005, 1000000, &r);
  jcli_result_end(&res, &r);
  is_near(joules(&res.run, 0, PROC), 2.1 * 0.5, 1e-9,
          "an END too soon for /proc/stat: split as the stretch before (1 s of 2)");
  is_near(joules(&res.run, 2, HOST), 0, 0,
          "the dram's 1000 s before START do not count in the run");
  jcli_result_release(&res);

  /* A third: a marker 1 ms after START, before /proc/stat moves: that
   * stretch waits and is split with the next. */
  jcli_result_init(&res, true, 0);
  energy_reading(&rd, m, JCLI_READ_START, 2000000, 0, &r);
  jcli_result_start(&res, &r);
  set_uj("intel-rapl:0", 10200000);
  energy_reading(&rd, m, JCLI_READ_MARK, 2000001, 1000, &r);
  jcli_result_mark(&res, &r, "__A__", 1);
  set_uj("intel-rapl:0", 10400000);
  set_stat(1430, 5470); /* 2 s, 1 s idle */
  energy_reading(&rd, m, JCLI_READ_END, 2001000, 501000, &r);
  jcli_result_end(&res, &r);
  is_near(joules(&res.phases[0].span, 0, PROC), 0, 0,
          "a first stretch too short to split: 0 J for its phase");
  is_near(joules(&res.phases[1].span, 0, PROC), 0.3 * 0.501 / 2, 1e-9,
          "the next phase: both stretches' 0.3 J x 0.501 / 2");
  is_near(joules(&res.run, 0, PROC) + joules(&res.run, 0, IDLE), 0.3 * 0.501 / 2 + 0.15,
          1e-9, "the run has it all, idle 0.3 J x 1 / 2 included");
  jcli_result_release(&res);
  jcli_energy_close(m);
  jcli_energy_close(m);
  ok(!m->opened && m->rapl == NULL, "closed, twice");

  /* No powercap tree: null keys, one note. */
  jcli_energy_open(m, "/nonexistent/powercap", stat_path, NULL);
  ok(m->zones.count == 0 && m->notes == 1 && strstr(m->note[0], "no powercap tree"),
     "no powercap tree: no zones, one note: %s", m->note[0]);
  jcli_result_init(&res, false, 0);
  energy_reading(&rd, m, JCLI_READ_START, 0, 0, &r);
  jcli_result_start(&res, &r);
  energy_reading(&rd, m, JCLI_READ_END, 10, 10, &r);
  jcli_result_end(&res, &r);
  info.energy = &m->zones;
  j = jcli_json_new(false);
  jcli_report_json(&info, &res, j);
  f = tmpfile();
  jcli_json_write(j, fileno(f));
  text = slurp(f);
  ok(strstr(text, "\"limits\":{\"cpu_cores\":0.5,\"memory_max\":67108864,"
                  "\"memory_high\":null,\"pids_max\":null},\"energy\":null,"
                  "\"gpu\":null,\"global\"") &&
         strstr(text, "\"io\":null,\"energy\":null,\"gpu\":null}"),
     "JSON: energy and gpu null for the command and the host");
  fclose(f);
  jcli_json_free(j);
  jcli_result_release(&res);
  jcli_energy_close(m);

  fx_cleanup();
}

/* /proc/stat of the interleaved two-socket fixture (tests/fixtures/cpu/
 * xeon-2s-interleaved: even CPUs package 0, odd package 1, CPU 13
 * offline), every online CPU at TICKS ticks, of them IDLE0 idle on
 * package 0's CPUs and IDLE1 on package 1's. */
static void set_stat_packages(unsigned ticks, unsigned idle0, unsigned idle1) {
  char text[4096];
  size_t len = (size_t)snprintf(text, sizeof(text), "cpu  %u 0 0 %u 0 0 0 0 0 0\n",
                                15 * ticks - 8 * idle0 - 7 * idle1,
                                8 * idle0 + 7 * idle1);
  for (int n = 0; n < 16; n++) {
    unsigned idle = n % 2 ? idle1 : idle0;
    if (n != 13)
      len += (size_t)snprintf(text + len, sizeof(text) - len,
                              "cpu%d %u 0 0 %u 0 0 0 0 0 0\n", n, ticks - idle, idle);
  }
  fx_write("stat", text);
}

/* run on a host of two packages: the command's part of each package by
 * the time of that package's CPUs, with the plugin's rule: its cgroup's
 * cpuset within package 1 gets package 1's energy alone; without a
 * cpuset, the estimate by the packages' busy time. */
static void test_energy_packages(void) {
  energy_files();
  char cpu_root[PATH_MAX], cg[PATH_MAX];
  snprintf(cpu_root, sizeof(cpu_root), "%s",
           fx_source("tests/fixtures/cpu/xeon-2s-interleaved"));
  fx_mkdir("cg");
  snprintf(cg, sizeof(cg), "%s", fx_path("cg"));
  for (int pinned = 1; pinned >= 0; pinned--) {
    if (pinned)
      fx_write("cg/cpuset.cpus.effective", "1,3,5\n");
    else
      fx_remove("cg/cpuset.cpus.effective");
    uint64_t p0 = 1000000000, p1 = 2000000000;
    set_uj("intel-rapl:0", p0);
    set_uj("intel-rapl:1", p1);
    set_stat_packages(1000, 500, 500);
    jcli_energy_meter m;
    jcli_energy_open(&m, energy_root, stat_path, cpu_root);
    int fd = open(cg, O_RDONLY | O_DIRECTORY);
    jcli_energy_set_cgroup(&m, fd);
    ok(m.zones.zone[0].domain == 0 && m.zones.zone[3].domain == 1 &&
           m.zones.zone[4].domain == 1,
       "zones per package: package-0 and package-1 (and its core) mapped");
    jcli_energy_counters a, b;
    jcli_energy_take(&m, JCLI_ENERGY_START, 1000000000, true, 0, &a);
    /* 1 s: package 0 busy 2 s of 8 (16 J), package 1 busy 3.5 s of 7
     * (21 J); the command 1.4 s. */
    set_uj("intel-rapl:0", p0 + 16000000);
    set_uj("intel-rapl:1", p1 + 21000000);
    set_stat_packages(1100, 575, 550);
    jcli_energy_take(&m, JCLI_ENERGY_END, 2000000000, true, 1400000, &b);
    jcli_zone_energy e0, e1;
    jcli_energy_between(&a.zone[0], &b.zone[0], &e0);
    jcli_energy_between(&a.zone[3], &b.zone[3], &e1);
    if (pinned) {
      is_near(e0.proc_uj, 0, 1e-6, "pinned to package 1: none of package 0");
      is_near(e1.proc_uj, 4200000, 1e-3,
              "all its 1.4 s on package 1: 21 J x 1.4 / 7 = 4.2 J");
    } else {
      /* busy 2 : 3.5, so 1.4 s is 0.509 s on 0 and 0.891 s on 1 */
      is_near(e0.proc_uj, 16e6 * (1.4e6 * 2 / 5.5) / 8e6, 1e-3,
              "no cpuset: package 0 by its share of the busy time (%.0f uJ)",
              e0.proc_uj);
      is_near(e1.proc_uj, 21e6 * (1.4e6 * 3.5 / 5.5) / 7e6, 1e-3,
              "and package 1 (%.0f uJ)", e1.proc_uj);
    }
    is_near(e0.idle_uj, 12000000, 1e-3, "package 0's idle part: its CPUs' 6 of 8 s");
    is_near(e1.idle_uj, 10500000, 1e-3, "package 1's: 3.5 of 7 s");
    jcli_energy_close(&m);
    close(fd);
  }
  fx_cleanup();
}

/* A null "memory" or "io" of the command has a note naming the controller
 * its cgroup lacks, and why; figures that are there have none.  (The
 * notes as the JSON text has them: their quotes escaped.) */
static void test_null_notes(void) {
  static const struct {
    bool known;
    unsigned controllers, v1;
    const char *memory_note, *io_note;
  } cases[] = {
      {true, JC_CTRL_CPU, JC_CTRL_MEMORY | JC_CTRL_IO,
       "\\\"memory\\\" is null: the memory controller is bound to cgroup v1 on "
       "this host (/proc/cgroups), so /sys/fs/cgroup/jobs/run-1, in cgroup "
       "v2, has none",
       "\\\"io\\\" is null: the io controller is bound to cgroup v1"},
      {true, JC_CTRL_CPU | JC_CTRL_IO, 0,
       "\\\"memory\\\" is null: the memory controller is not enabled for the "
       "children of /sys/fs/cgroup/jobs, so /sys/fs/cgroup/jobs/run-1 has "
       "none; enable it with: echo \\\"+memory\\\" > "
       "/sys/fs/cgroup/jobs/cgroup.subtree_control",
       "\\\"io\\\" is null: /sys/fs/cgroup/jobs/run-1 has the io controller, "
       "and none of its io files could be read"},
  };
  jcli_reader rd = {.meminfo_fd = -1};
  char *argv[] = {"prog", NULL};
  jcli_run_info info = {.command = argv,
                        .interval = 0.1,
                        .global_cgroup = "/sys/fs/cgroup",
                        .names = &rd.names};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    jcli_result res;
    jcli_result_init(&res, false, 0);
    res.cgroup = strdup("/sys/fs/cgroup/jobs/run-1");
    res.controllers_known = cases[i].known;
    res.controllers = cases[i].controllers;
    res.v1_controllers = cases[i].v1;
    jcli_json *j = jcli_json_new(false);
    jcli_report_json(&info, &res, j);
    FILE *f = tmpfile();
    jcli_json_write(j, fileno(f));
    jcli_json_free(j);
    char *text = slurp(f);
    ok(strstr(text, "\"memory\":null") && strstr(text, "\"io\":null") &&
           strstr(text, cases[i].memory_note) && strstr(text, cases[i].io_note),
       "memory and io null, case %zu: a note for each names its controller "
       "and why", i + 1);
    fclose(f);
    jcli_result_release(&res);
  }
  jcli_result res[1];
  run_script(&rd, &res[0], true);
  res[0].cgroup = strdup("/sys/fs/cgroup/jobs/run-1");
  jcli_json *j = jcli_json_new(false);
  jcli_report_json(&info, &res[0], j);
  FILE *f = tmpfile();
  jcli_json_write(j, fileno(f));
  jcli_json_free(j);
  char *text = slurp(f);
  ok(strstr(text, "\\\"memory\\\" is null") == NULL &&
         strstr(text, "\\\"io\\\" is null") == NULL &&
         strstr(text, "\\\"memory.peak\\\" is null") == NULL,
     "memory and io read: no note says they are null");
  fclose(f);
  jcli_result_release(&res[0]);
}

/* Numbers in their shortest form that reads back as the same double. */
static void test_numbers(void) {
  static const struct {
    double v;
    const char *text;
  } cases[] = {
      {0.95054216909204448, "0.9505421690920445"}, /* 16 digits, not 17 */
      {0.1, "0.1"},
      {1.0 / 3, "0.3333333333333333"},
      {0.30000000000000004, "0.30000000000000004"}, /* 17 are needed */
      {123456789012345678.0, "1.2345678901234568e+17"},
      {1e300, "1e+300"},
      {5e-324, "5e-324"}, /* a subnormal */
      {-2.5, "-2.5"},
      {1048576, "1048576"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    jcli_json *j = jcli_json_new(false);
    jcli_json_array_open(j);
    jcli_json_double(j, cases[i].v);
    jcli_json_array_close(j);
    FILE *f = tmpfile();
    jcli_json_write(j, fileno(f));
    jcli_json_free(j);
    char *text = slurp(f), want[64];
    snprintf(want, sizeof(want), "[%s]", cases[i].text);
    ok(strncmp(text, want, strlen(want)) == 0 &&
           strtod(text + 1, NULL) == cases[i].v,
       "JSON number %s: printed %.*s, reads back the same", cases[i].text,
       (int)strcspn(text, "\n"), text);
    fclose(f);
  }
}

/* ---- GPUs (Collect "gpu"): the lists by UUID, the span's figures ---------- */

#define UUID "GPU-0b5e3a42-7c1d-4f2e-9a8b-1c2d3e4f5a6b"

/* A GPU reading: root's lists when board_uj >= 0 (the GPU read), the
 * command's when proc_bytes >= 0 (its processes used it). */
static void gpu_reading(jcli_reader *rd, jcli_read_kind kind, uint64_t t_ms,
                        double proc_bytes, double proc_sm, double proc_uj,
                        double board_uj, double idle_uj, double all_bytes,
                        double all_sm, jcli_reading *ret) {
  memset(ret, 0, sizeof(*ret));
  ret->kind = kind;
  ret->time_ns = t_ms * 1000000ull;
  rd->filling = ret;
  if (board_uj >= 0) {
    put(rd, &root_target, JC_LIST_GPU_MEMORY, UUID, all_bytes, -1);
    put(rd, &root_target, JC_LIST_GPU_MEMORY_TOTAL, UUID "_total", 8e10, -1);
    put(rd, &root_target, JC_LIST_GPU_SM, UUID "_sm", all_sm, -1);
    put(rd, &root_target, JC_LIST_GPU_ENERGY, "energy_" UUID "_uj", board_uj,
        -1);
    put(rd, &root_target, JC_LIST_GPU_ENERGY_IDLE, "energy_" UUID "_idle_uj",
        idle_uj, -1);
    /* MIG's per instance lists are not the command's figures */
    put(rd, &root_target, JC_LIST_GPU_INSTANCE_MEMORY, UUID "_gi1", 1, -1);
  }
  if (proc_bytes >= 0) {
    put(rd, &proc_target, JC_LIST_GPU_MEMORY, UUID, proc_bytes, -1);
    put(rd, &proc_target, JC_LIST_GPU_SM, UUID "_sm", proc_sm, -1);
    put(rd, &proc_target, JC_LIST_GPU_ENERGY, "energy_" UUID "_uj", proc_uj,
        -1);
  }
  rd->filling = NULL;
}

static void test_gpu(void) {
  jcli_reader rd = {.meminfo_fd = -1};
  jcli_reading r;
  jcli_span s;
  jcli_gpu_energy e;
  /* START (the GPU read, the command not on it yet), two ticks 1 s apart
   * (50 % then 0 %), END 1 s later: the command's part 50 J of 130 J,
   * 80 J idle. */
  gpu_reading(&rd, JCLI_READ_START, 0, -1, 0, 0, 0, 0, 0, 0, &r);
  is_int((int)rd.gpus.count, 1, "one GPU, by the UUID of its lists");
  ok(strcmp(rd.gpus.uuid[0], UUID) == 0 && r.global.gpu[0].have_total &&
         r.global.gpu[0].total == 8e10 && !r.proc.gpu[0].have_memory,
     "each list's UUID out of its type instance; the command has none yet");
  jcli_span_open(&s, &r, 0);
  gpu_reading(&rd, JCLI_READ_TICK, 1000, 1073741824, 50, 50e6, 100e6, 50e6,
              1073741824, 50, &r);
  jcli_span_add(&s, &r);
  gpu_reading(&rd, JCLI_READ_TICK, 2000, 1073741824, 0, 50e6, 120e6, 70e6,
              1073741824, 0, &r);
  jcli_span_add(&s, &r);
  gpu_reading(&rd, JCLI_READ_END, 3000, 0, 0, 50e6, 130e6, 80e6, 0, 0, &r);
  jcli_span_close(&s, &r);
  is_int((int)rd.gpus.count, 1, "the instance list (MIG) is no GPU of its own");
  ok(jcli_span_gpu(&s, 0, &e) && e.proc_uj == 50e6 && e.board_uj == 130e6 &&
         e.have_idle && e.idle_uj == 80e6,
     "the span: the command's 50 J, the board's 130 J, 80 J idle");
  ok(e.have_sm && fabs(e.proc_sm - 50.0 / 3) < 1e-9 &&
         fabs(e.global_sm - 50.0 / 3) < 1e-9,
     "SM: each reading's figure weighted by its stretch: %g %%", e.proc_sm);
  ok(s.gpu[0].proc_memory_max == 1073741824 &&
         s.gpu[0].global_memory_max == 1073741824 && s.gpu[0].have_total,
     "memory: the most held at a reading");

  /* The board's counter goes back (a reset, a new epoch): no energy. */
  gpu_reading(&rd, JCLI_READ_START, 0, -1, 0, 0, 500e6, 0, 0, 0, &r);
  jcli_span_open(&s, &r, 0);
  gpu_reading(&rd, JCLI_READ_TICK, 1000, 4096, 10, 1e6, 3e6, 1e6, 4096, 10, &r);
  jcli_span_add(&s, &r);
  gpu_reading(&rd, JCLI_READ_END, 2000, 0, 0, 1e6, 4e6, 2e6, 0, 0, &r);
  jcli_span_close(&s, &r);
  ok(!jcli_span_gpu(&s, 0, &e) && e.have_sm,
     "a counter that went back: the energy unknown, SM still known");

  /* The GPU not read at one reading (lost): no energy either. */
  gpu_reading(&rd, JCLI_READ_START, 0, -1, 0, 0, 0, 0, 0, 0, &r);
  jcli_span_open(&s, &r, 0);
  gpu_reading(&rd, JCLI_READ_TICK, 1000, -1, 0, 0, -1, 0, 0, 0, &r);
  jcli_span_add(&s, &r);
  gpu_reading(&rd, JCLI_READ_END, 2000, -1, 0, 0, 5e6, 5e6, 0, 0, &r);
  jcli_span_close(&s, &r);
  ok(!jcli_span_gpu(&s, 0, &e) && s.gpu[0].broken,
     "a GPU absent at a reading: its energy over the span unknown");

  /* Not read at the span's first reading (met later): unknown. */
  gpu_reading(&rd, JCLI_READ_START, 0, -1, 0, 0, -1, 0, 0, 0, &r);
  jcli_span_open(&s, &r, 0);
  gpu_reading(&rd, JCLI_READ_END, 1000, -1, 0, 0, 5e6, 5e6, 0, 0, &r);
  jcli_span_close(&s, &r);
  ok(!jcli_span_gpu(&s, 0, &e) && s.gpu[0].seen,
     "a GPU first read inside the span: no edge to count from");
}


/* The report of a result, as JSON text (the notes' quotes escaped). */
static char *report_text(const jcli_run_info *info, const jcli_result *res) {
  jcli_json *j = jcli_json_new(false);
  jcli_report_json(info, res, j);
  FILE *f = tmpfile();
  jcli_json_write(j, fileno(f));
  jcli_json_free(j);
  char *text = slurp(f);
  fclose(f);
  return text;
}

/* The machine's cores busy: its CPUs × the busy part of their time from
 * /proc/stat, never more than its CPUs where the root's usage_usec,
 * counted in whole scheduler ticks, holds more than the wall time; null
 * with a note when /proc/stat did not move over the span. */
static void test_host_cores(void) {
  static const char stat[] =
      "cpu  100 0 100 800 0 0 0 0 0 0\n"
      "cpu0 50 0 50 400 0 0 0 0 0 0\n"
      "cpu2 50 0 50 400 0 0 0 0 0 0\n"
      "intr 12345 0 1 2\nctxt 99\n";
  jc_cputimes t;
  unsigned cpus = 0;
  ok(jcli_procstat_cpus(stat, sizeof(stat) - 1, 100, &t, &cpus) == 0 &&
         cpus == 2 && t.total_usec == 10000000 && t.idle_usec == 8000000,
     "/proc/stat: the sum line, and 2 online CPUs (cpu0, cpu2; cpu1 "
     "offline)");
  ok(jcli_procstat_cpus(stat, 60, 100, &t, &cpus) == 0 && cpus == 1,
     "a text that ends without its newline: its last line counted");
  ok(jcli_procstat_cpus("intr 1\n", 7, 100, &t, &cpus) < 0,
     "no sum line: not known");
  jcli_reading a = {.kind = JCLI_READ_START, .time_ns = 0}, b, c;
  a.global.counters = (jcli_counters){.have_usage = true};
  a.proc.counters = (jcli_counters){.have_usage = true};
  a.have_host = true;
  a.host_cpus = 2;
  a.host = (jc_cputimes){1000000, 500000};
  b = a;
  b.kind = JCLI_READ_END;
  b.time_ns = 6000000; /* 6 ms */
  b.global.counters.usage_usec = 16000; /* 4 ticks of 4 ms: 2.67 cores */
  b.proc.counters.usage_usec = 5000;
  b.host = (jc_cputimes){1000000 + 12000, 500000 + 2000};
  jcli_span s;
  jcli_span_open(&s, &a, 0);
  jcli_span_close(&s, &b);
  double v = -1;
  ok(jcli_span_cores_busy(&s, true, &v) == JCLI_CORES_KNOWN &&
         fabs(v - 2.0 * 10000 / 12000) < 1e-9,
     "the machine's cores busy over 6 ms: 2 CPUs x 10 of 12 ms busy = %.4f, "
     "not the 2.67 of the root's ticks over the wall time",
     v);
  ok(jcli_span_cores_busy(&s, false, &v) == JCLI_CORES_KNOWN &&
         fabs(v - 5000.0 / 6000) < 1e-9,
     "the command's: its exact usage_usec / wall time (%.4f)", v);
  bool bounded = true;
  for (uint64_t busy = 0; busy <= 12000; busy += 1000) {
    b.host.idle_usec = 500000 + (12000 - busy);
    jcli_span_open(&s, &a, 0);
    jcli_span_close(&s, &b);
    bounded &= jcli_span_cores_busy(&s, true, &v) == JCLI_CORES_KNOWN &&
               v >= 0 && v <= 2;
  }
  ok(bounded, "from idle to all busy: never below 0, never above 2 CPUs");
  c = b;
  c.time_ns = 9000000;
  jcli_span_open(&s, &b, 0);
  jcli_span_close(&s, &c);
  ok(jcli_span_cores_busy(&s, true, &v) == JCLI_CORES_TOO_SHORT,
     "/proc/stat did not move over the span: not known");
  c.have_host = false;
  jcli_span_open(&s, &b, 0);
  jcli_span_close(&s, &c);
  ok(jcli_span_cores_busy(&s, true, &v) == JCLI_CORES_NO_STAT,
     "/proc/stat not read at an edge: not known");

  /* The command's cores over the times its cpu.stat was read: a pass
   * slowed down 90 ms between a reading's start and that read (a loaded,
   * emulated machine) does not make one busy CPU look like two. */
  jcli_reading p = {.kind = JCLI_READ_START, .time_ns = 1000000000};
  p.proc.counters = (jcli_counters){.have_usage = true, .usage_ns = 1001000000};
  jcli_reading q = p, e = p;
  q.kind = JCLI_READ_TICK;
  q.time_ns = 1100000000;
  q.proc.counters.usage_ns = 1190000000;
  q.proc.counters.usage_usec = 189000; /* one CPU from 1.001 s to 1.190 s */
  e.kind = JCLI_READ_END;
  e.time_ns = 1200000000;
  e.proc.counters.usage_ns = 1201000000;
  e.proc.counters.usage_usec = 189000 + 11000;
  jcli_span_open(&s, &p, 50000000);
  jcli_span_add(&s, &q);
  jcli_span_close(&s, &e);
  double most = -1;
  ok(jcli_span_cores_max(&s, &most) && fabs(most - 1.0) < 1e-9 &&
         jcli_span_cores_busy(&s, false, &v) == JCLI_CORES_KNOWN &&
         fabs(v - 1.0) < 1e-9,
     "one busy CPU read late by a slow pass: cores busy 1, its most 1 "
     "(%.4f; 1.89 over the readings' starts)", most);

  jcli_reader rd = {.meminfo_fd = -1};
  char *argv[] = {"prog", NULL};
  jcli_run_info info = {.command = argv, .interval = 0.1,
                        .global_cgroup = "/sys/fs/cgroup", .names = &rd.names};
  jcli_result res;
  jcli_result_init(&res, false, 0);
  c = b;
  c.time_ns = 9000000;
  jcli_result_start(&res, &b);
  jcli_result_end(&res, &c);
  char *text = report_text(&info, &res);
  ok(strstr(text, "\"cores_busy\":null") &&
         strstr(text, "\\\"global.cpu.cores_busy\\\" is null (the run): "
                      "/proc/stat, whose CPU times count in 1/100 s, did not "
                      "move over the span"),
     "the report: global.cpu.cores_busy null, and the note that says why");
  jcli_result_release(&res);
}

/* A limit null because its controller is missing says so; one null
 * where the cgroup has the controller is no limit, and says nothing.  No
 * GPU read: the probe's words. */
static void test_limit_and_gpu_notes(void) {
  jcli_reader rd = {.meminfo_fd = -1};
  char *argv[] = {"prog", NULL};
  jcli_run_info info = {.command = argv, .interval = 0.1,
                        .global_cgroup = "/sys/fs/cgroup", .names = &rd.names};
  jcli_result res;
  run_script(&rd, &res, true); /* a memory.max and a CPU limit, no pids.max */
  res.cgroup = strdup("/sys/fs/cgroup/jobs/run-1");
  res.controllers_known = true;
  res.controllers = JC_CTRL_CPU | JC_CTRL_MEMORY | JC_CTRL_IO | JC_CTRL_PIDS;
  char *text = report_text(&info, &res);
  ok(strstr(text, "\"pids_max\":null") && !strstr(text, "limits.pids_max"),
     "pids_max null where the cgroup has the pids controller: no limit, no "
     "note");
  res.controllers = JC_CTRL_CPU | JC_CTRL_MEMORY | JC_CTRL_IO;
  res.v1_controllers = JC_CTRL_PIDS;
  text = report_text(&info, &res);
  ok(strstr(text, "\\\"limits.pids_max\\\" is null: the limit cannot be "
                  "read, and null does not mean unlimited here: the pids "
                  "controller is bound to cgroup v1 on this host "
                  "(/proc/cgroups), so /sys/fs/cgroup/jobs/run-1, in cgroup "
                  "v2, has none") &&
         !strstr(text, "limits.memory_max") && !strstr(text, "limits.cpu"),
     "pids_max null where the pids controller is in cgroup v1: a note that "
     "says it cannot be known; the limits read say nothing");
  res.v1_controllers = 0;
  text = report_text(&info, &res);
  ok(!strstr(text, "limits.pids_max"),
     "... and where its parent does not enable it, none: its effective "
     "limit is its ancestors', and there is none");
  info.gpu_why = "no NVIDIA driver: libnvidia-ml.so.1: cannot open shared "
                 "object file (GpuLibrary libnvidia-ml.so.1)";
  text = report_text(&info, &res);
  ok(strstr(text, "\"gpu\":null") &&
         strstr(text, "\\\"gpu\\\" and \\\"global.gpu\\\" are null: no "
                      "NVIDIA driver: libnvidia-ml.so.1"),
     "no GPU read: gpu null, and the note gives the driver's words");
  jcli_result_release(&res);
}

int main(void) {
  test_markers();
  test_meminfo();
  test_reading();
  test_reading_by_id();
  test_phases();
  test_repeated_marker();
  test_documents();
  test_energy();
  test_energy_packages();
  test_numbers();
  test_null_notes();
  test_host_cores();
  test_limit_and_gpu_notes();
  test_gpu();
  printf("1..%d\n", tap_count);
  return tap_failed != 0;
}
