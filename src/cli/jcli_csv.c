/*
 * jcli_csv — see jcli_csv.h.
 *
 * The header and the rows come from one function, row(), that names each
 * cell as it writes it: in header mode the names are printed, in row mode
 * the values, so the two cannot drift apart.
 */
#include "jcli_csv.h"

#include "jcli_write.h"

#include "jc_config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The memory values that get columns: memory.current, memory.swap.current
 * (the root cgroup has none), then the core's default MemoryStat keys (run
 * has no option to change them: jc_config_default_memstat). */
static const char *const proc_memory[] = {"current", "swap_current"};
static const char *const global_memory[] = {"current"};

typedef struct {
  FILE *out;
  bool header;
  bool first; /* no cell yet on this line */
} csv;

/* One cell: its column name in header mode, else its text. */
static void cell(csv *c, const char *name, const char *text) {
  if (!c->first)
    fputc(',', c->out);
  c->first = false;
  const char *s = c->header ? name : text;
  if (!s[strcspn(s, ",\"\r\n")]) {
    fputs(s, c->out);
    return;
  }
  fputc('"', c->out); /* RFC 4180: quoted, quotes doubled */
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', c->out);
    fputc(*s, c->out);
  }
  fputc('"', c->out);
}

static void cell_int(csv *c, const char *name, bool have, long long v) {
  char text[32] = "";
  if (have)
    snprintf(text, sizeof(text), "%lld", v);
  cell(c, name, text);
}

static void cell_double(csv *c, const char *name, bool have, double v) {
  char text[40] = "";
  if (have && isfinite(v))
    snprintf(text, sizeof(text), "%.15g", round(v * 1e6) / 1e6);
  cell(c, name, text);
}

static void cell_fmt(csv *c, const char *prefix, const char *middle,
                     const char *suffix, const char *text) {
  char name[128];
  snprintf(name, sizeof(name), "%s%s%s", prefix, middle, suffix);
  cell(c, name, text);
}

/* One row: which span, and of which run. */
typedef struct {
  const jcli_run_info *info;
  const jcli_result *res;
  long iteration;
  const jcli_phase *phase; /* NULL: the run's row */
  size_t phase_index;
  const jcli_span *span;
} row_of;

static void cpu_cells(csv *c, const row_of *r, const jcli_side *d,
                      const char *prefix) {
  jcli_counters k;
  bool have = jcli_side_cpu(d, &k);
  bool times = have && k.have_times;
  double cores = 0;
  bool have_cores = have && jcli_span_cores_busy(r->span, d == &r->span->global,
                                                 &cores) == JCLI_CORES_KNOWN;
  char name[64];
#define NAME(suffix) (snprintf(name, sizeof(name), "%s%s", prefix, suffix), name)
  cell_int(c, NAME("cpu_usage_usec"), have, k.usage_usec);
  cell_int(c, NAME("cpu_user_usec"), times, k.user_usec);
  cell_int(c, NAME("cpu_system_usec"), times, k.system_usec);
  cell_double(c, NAME("cpu_cores_busy"), have_cores, cores);
#undef NAME
}

/* A memory value's two columns: its least and its most over the row. */
static void memory_cell(csv *c, const row_of *r, const jcli_side *d,
                        const char *prefix, const char *key) {
  jcli_range g;
  int index = jcli_memory_find(r->info->names, key);
  bool have =
      index >= 0 && jcli_side_range(d, r->info->names, (size_t)index, &g);
  char text[2][32] = {"", ""};
  if (have) {
    snprintf(text[0], sizeof(text[0]), "%.0f", g.min);
    snprintf(text[1], sizeof(text[1]), "%.0f", g.max);
  }
  cell_fmt(c, prefix, key, "_min", text[0]);
  cell_fmt(c, prefix, key, "_max", text[1]);
}

/* The n keys first, then the default MemoryStat keys. */
static void memory_cells(csv *c, const row_of *r, const jcli_side *d,
                         const char *prefix, const char *const *keys,
                         size_t n) {
  for (size_t i = 0; i < n; i++)
    memory_cell(c, r, d, prefix, keys[i]);
  const char *key;
  for (size_t i = 0; (key = jc_config_default_memstat(i)); i++)
    memory_cell(c, r, d, prefix, key);
}

static void io_cells(csv *c, const jcli_side *d, const char *prefix) {
  jcli_counters k;
  bool have = jcli_side_io(d, &k);
  char name[64];
#define NAME(suffix) (snprintf(name, sizeof(name), "%s%s", prefix, suffix), name)
  cell_int(c, NAME("io_read_bytes"), have, k.read_bytes);
  cell_int(c, NAME("io_write_bytes"), have, k.write_bytes);
  cell_int(c, NAME("io_read_ops"), have, k.read_ops);
  cell_int(c, NAME("io_write_ops"), have, k.write_ops);
#undef NAME
}

/* Energy columns: one per kind of zone (package, core, uncore, dram,
 * psys), summed over the host's zones of that kind (package-0 +
 * package-1, ...): the same columns on every host.  Empty where the host
 * has no such zone or one of them lacks the figure. */
#define ENERGY_KINDS JC_RAPL_OTHER

typedef enum { ENERGY_PROC, ENERGY_HOST, ENERGY_IDLE } energy_part;

/* The sum of one part over the zones of one kind, in J. */
static bool energy_sum(const row_of *r, jc_rapl_kind kind, energy_part part,
                       double *ret) {
  const jcli_energy_zones *z = r->info->energy;
  size_t found = 0;
  double sum = 0;
  for (size_t i = 0; z && i < z->count; i++) {
    if (z->zone[i].kind != kind)
      continue;
    jcli_zone_energy e;
    jcli_span_energy(r->span, i, &e);
    if (!e.have_host || (part != ENERGY_HOST && !e.have_share))
      return false;
    sum += part == ENERGY_PROC ? e.proc_uj
           : part == ENERGY_HOST ? e.host_uj
                                 : e.idle_uj;
    found++;
  }
  *ret = sum / 1e6;
  return found > 0;
}

static void energy_cells(csv *c, const row_of *r, const char *prefix,
                         const char *suffix, energy_part part) {
  for (int k = 0; k < ENERGY_KINDS; k++) {
    char name[64];
    double v = 0;
    bool have = energy_sum(r, (jc_rapl_kind)k, part, &v);
    snprintf(name, sizeof(name), "%senergy_%s%s", prefix,
             jc_rapl_kind_name((jc_rapl_kind)k), suffix);
    cell_double(c, name, have, v);
  }
}

static void identity_cells(csv *c, const row_of *r) {
  char name[2 * JCLI_MARKERS_NAME_MAX + 32] = "START -> END";
  if (r->phase)
    jcli_result_phase_name(r->res, r->phase_index, name, sizeof(name));
  cell_int(c, "iteration", true, r->iteration);
  cell(c, "span", r->phase ? "phase" : "run");
  cell_int(c, "phase_index", r->phase != NULL, (long long)r->phase_index);
  cell(c, "phase", name);
  cell(c, "start_token", r->phase ? r->phase->start.token : "START");
  cell(c, "end_token", r->phase ? r->phase->end.token : "END");
  cell_int(c, "start_line", r->phase && r->phase->start.line,
           (long long)(r->phase ? r->phase->start.line : 0));
  cell_int(c, "end_line", r->phase && r->phase->end.line,
           (long long)(r->phase ? r->phase->end.line : 0));
  cell_int(c, "exit_status", true, r->res->exit_status);
  cell_double(c, "start_seconds", true,
              (double)(r->span->start_ns - r->res->run.start_ns) / 1e9);
  cell_double(c, "wall_seconds", true, jcli_span_seconds(r->span));
  cell_int(c, "samples", true, (long long)r->span->ticks);
  cell(c, "memory_sampled", r->span->ticks > 0 ? "true" : "false");
}

static void row(csv *c, const row_of *r) {
  const jcli_span *s = r->span;
  double v = 0;
  c->first = true;
  identity_cells(c, r);
  cpu_cells(c, r, &s->proc, "proc_");
  bool cores = jcli_span_cores_max(s, &v);
  cell_double(c, "proc_cpu_cores_busy_max", cores, v);
  bool share = jcli_span_share(s, &v);
  cell_double(c, "proc_cpu_share_of_host", share, v);
  bool peak = jcli_side_peak(&s->proc, r->phase == NULL, &v);
  cell_double(c, "proc_memory_peak", peak, v);
  cell(c, "proc_memory_method",
       jcli_side_method(&s->proc) == JCLI_PEAK_INTERVAL ? "interval_peak"
                                                        : "sampled");
  memory_cells(c, r, &s->proc, "proc_memory_", proc_memory,
               sizeof(proc_memory) / sizeof(*proc_memory));
  io_cells(c, &s->proc, "proc_");
  energy_cells(c, r, "proc_", "_j", ENERGY_PROC);
  cpu_cells(c, r, &s->global, "global_");
  memory_cells(c, r, &s->global, "global_memory_", global_memory,
               sizeof(global_memory) / sizeof(*global_memory));
  io_cells(c, &s->global, "global_");
  energy_cells(c, r, "global_", "_j", ENERGY_HOST);
  energy_cells(c, r, "global_", "_idle_j", ENERGY_IDLE);
  fputc('\n', c->out);
}

static void rows_of_run(csv *c, const jcli_run_info *info,
                        const jcli_result *res, long iteration) {
  row_of r = {info, res, iteration, NULL, 0, &res->run};
  row(c, &r);
  for (size_t i = 0; i < res->phase_count; i++) {
    r.phase = &res->phases[i];
    r.phase_index = i;
    r.span = &res->phases[i].span;
    row(c, &r);
  }
}

int jcli_csv_write(const jcli_run_info *info, const jcli_result *results,
                   size_t count, int fd) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  if (!out)
    return -errno;
  csv c = {out, true, true};
  if (count > 0) {
    row_of header = {info, &results[0], 1, NULL, 0, &results[0].run};
    row(&c, &header);
  }
  c.header = false;
  for (size_t i = 0; i < count; i++)
    rows_of_run(&c, info, &results[i], (long)i + 1);
  return jcli_write_stream(out, &buf, &len, fd);
}
