/*
 * jcli_report — see jcli_report.h.
 *
 * A run and each of its phases print the same body (wall time, cpu,
 * memory, io, limits, energy, global), so a reader handles them with one
 * piece of code.
 */
#include "jcli_report.h"

#include "jcli_why.h"

#include "jc_hier.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ratios for people: six decimals are plenty and print short. */
static double rounded(double v) { return round(v * 1e6) / 1e6; }

static void key_int(jcli_json *j, const char *key, long long v) {
  jcli_json_key(j, key);
  jcli_json_int(j, v);
}

static void key_double(jcli_json *j, const char *key, double v) {
  jcli_json_key(j, key);
  jcli_json_double(j, v);
}

/* key: v, or null when !have. */
static void key_maybe(jcli_json *j, const char *key, bool have, double v) {
  jcli_json_key(j, key);
  if (have)
    jcli_json_double(j, v);
  else
    jcli_json_null(j);
}

static void key_string(jcli_json *j, const char *key, const char *s) {
  jcli_json_key(j, key);
  jcli_json_string(j, s);
}

/* ---- one span ----------------------------------------------------------- */

static void json_cpu(const jcli_span *s, const jcli_side *d, bool proc,
                     jcli_json *j) {
  jcli_counters c;
  jcli_json_key(j, "cpu");
  if (!jcli_side_cpu(d, &c)) {
    jcli_json_null(j);
    return;
  }
  double share, cores = 0;
  bool have_cores = jcli_span_cores_busy(s, !proc, &cores) == JCLI_CORES_KNOWN;
  jcli_json_map_open(j);
  key_int(j, "usage_usec", c.usage_usec);
  key_maybe(j, "user_usec", c.have_times, (double)c.user_usec);
  key_maybe(j, "system_usec", c.have_times, (double)c.system_usec);
  key_maybe(j, "cores_busy", have_cores, rounded(cores));
  if (proc) {
    double cores_max;
    bool have_max = jcli_span_cores_max(s, &cores_max);
    key_maybe(j, "cores_busy_max", have_max, rounded(cores_max));
    bool have_share = jcli_span_share(s, &share);
    key_maybe(j, "share_of_host", have_share, rounded(share));
  }
  jcli_json_map_close(j);
}

static void json_range(jcli_json *j, const jcli_range *r, const char *source) {
  jcli_json_map_open(j);
  key_int(j, "min", (long long)r->min);
  key_int(j, "max", (long long)r->max);
  if (source)
    key_string(j, "source", source);
  jcli_json_map_close(j);
}

/* lifetime: memory.peak may stand for the span's peak (the whole run). */
static void json_memory(const jcli_run_info *info, const jcli_span *s,
                        const jcli_side *d, bool proc, bool lifetime,
                        jcli_json *j) {
  double peak = 0;
  bool have_peak = proc && jcli_side_peak(d, lifetime, &peak);
  jcli_json_key(j, "memory");
  if (!d->memory_seen && !have_peak) {
    jcli_json_null(j); /* no memory controller for this cgroup */
    return;
  }
  jcli_json_map_open(j);
  if (proc)
    key_maybe(j, "peak", have_peak, peak);
  key_string(j, "method", jcli_side_method(d) == JCLI_PEAK_INTERVAL
                              ? "interval_peak"
                              : "sampled");
  jcli_json_key(j, "sampled");
  jcli_json_bool(j, s->ticks > 0);
  for (size_t i = 0; i < info->names->count; i++) {
    jcli_range r;
    if (!jcli_side_range(d, info->names, i, &r))
      continue;
    const char *name = info->names->name[i];
    jcli_json_key(j, name);
    json_range(j, &r,
               !proc && strcmp(name, "current") == 0
                   ? "/proc/meminfo: MemTotal - MemAvailable"
                   : NULL);
  }
  jcli_json_map_close(j);
}

static void json_io(const jcli_side *d, jcli_json *j) {
  jcli_counters c;
  jcli_json_key(j, "io");
  if (!jcli_side_io(d, &c)) {
    jcli_json_null(j); /* no io controller for this cgroup */
    return;
  }
  jcli_json_map_open(j);
  key_int(j, "read_bytes", c.read_bytes);
  key_int(j, "write_bytes", c.write_bytes);
  key_int(j, "read_ops", c.read_ops);
  key_int(j, "write_ops", c.write_ops);
  jcli_json_map_close(j);
}

/* The effective limits of the command's cgroup (docs/metrics.md, limits: the smallest of
 * its own and its ancestors', e.g. a slice --root names); null each where
 * there is none. */
static void json_limits(const jcli_side *d, jcli_json *j) {
  const jcli_limits *l = &d->limits;
  jcli_json_key(j, "limits");
  jcli_json_map_open(j);
  key_maybe(j, "cpu_cores", l->have_cpu_cores, rounded(l->cpu_cores));
  key_maybe(j, "memory_max", l->have_memory_max, l->memory_max);
  key_maybe(j, "memory_high", l->have_memory_high, l->memory_high);
  key_maybe(j, "pids_max", l->have_pids_max, l->pids_max);
  jcli_json_map_close(j);
}

/* ---- energy ---------------------------------------------------------------- */

static size_t zone_count(const jcli_run_info *info) {
  return info->energy ? info->energy->count : 0;
}

/* J from uJ, to the uJ; and the mean power over the span. */
static void json_joules_watts(jcli_json *j, const jcli_span *s, bool have,
                              double uj) {
  double seconds = jcli_span_seconds(s);
  double watts = seconds > 0 ? uj / 1e6 / seconds : 0;
  key_maybe(j, "energy_j", have, rounded(uj / 1e6));
  key_maybe(j, "watts", have && seconds > 0, rounded(watts));
}

/* Each RAPL zone over the span: what it measured and the idle part of it
 * (host), or the command's part of it (the CPU-time model, jc_share);
 * null without RAPL zones. */
static void json_energy(const jcli_run_info *info, const jcli_span *s,
                        bool host, jcli_json *j) {
  jcli_json_key(j, "energy");
  if (zone_count(info) == 0) {
    jcli_json_null(j);
    return;
  }
  jcli_json_map_open(j);
  for (size_t i = 0; i < zone_count(info); i++) {
    jcli_zone_energy e;
    jcli_span_energy(s, i, &e);
    jcli_json_key(j, info->energy->zone[i].label);
    jcli_json_map_open(j);
    if (host) {
      key_string(j, "zone", info->energy->zone[i].id);
      json_joules_watts(j, s, e.have_host, e.host_uj);
      key_maybe(j, "idle_j", e.have_host && e.have_share,
                rounded(e.idle_uj / 1e6));
    } else {
      json_joules_watts(j, s, e.have_host && e.have_share, e.proc_uj);
    }
    jcli_json_map_close(j);
  }
  jcli_json_map_close(j);
}

/* ---- GPUs ------------------------------------------------------------------ */

static size_t gpu_count(const jcli_run_info *info) {
  return info->gpus ? info->gpus->count : 0;
}

/* Each NVIDIA GPU read in the run, by UUID: what the command's processes
 * held at most, their mean SM use and their part of the board's energy
 * (Collect "gpu"'s figures of its cgroup); for the host the GPU's
 * memory, every process's, the board's energy and its idle part.  null
 * where no GPU was read. */
static void json_gpu(const jcli_run_info *info, const jcli_span *s, bool host,
                     jcli_json *j) {
  jcli_json_key(j, "gpu");
  if (gpu_count(info) == 0) {
    jcli_json_null(j);
    return;
  }
  jcli_json_map_open(j);
  for (size_t i = 0; i < gpu_count(info); i++) {
    const jcli_gpu_span *g = &s->gpu[i];
    jcli_gpu_energy e;
    bool have = jcli_span_gpu(s, i, &e);
    jcli_json_key(j, info->gpus->uuid[i]);
    if (!g->seen) {
      jcli_json_null(j);
      continue;
    }
    jcli_json_map_open(j);
    if (host)
      key_maybe(j, "memory_total", g->have_total, g->total);
    key_int(j, "memory_max",
            (long long)(host ? g->global_memory_max : g->proc_memory_max));
    key_maybe(j, "sm_percent", e.have_sm,
              rounded(host ? e.global_sm : e.proc_sm));
    json_joules_watts(j, s, have, host ? e.board_uj : e.proc_uj);
    if (host)
      key_maybe(j, "idle_j", have && e.have_idle, rounded(e.idle_uj / 1e6));
    jcli_json_map_close(j);
  }
  jcli_json_map_close(j);
}

/* The body every span has, the run's and each phase's. */
static void json_span(const jcli_run_info *info, const jcli_span *s,
                      bool lifetime, jcli_json *j) {
  key_double(j, "wall_seconds", rounded(jcli_span_seconds(s)));
  key_int(j, "samples", (long long)s->ticks);
  json_cpu(s, &s->proc, true, j);
  json_memory(info, s, &s->proc, true, lifetime, j);
  json_io(&s->proc, j);
  json_limits(&s->proc, j);
  json_energy(info, s, false, j);
  json_gpu(info, s, false, j);
  jcli_json_key(j, "global");
  jcli_json_map_open(j);
  json_cpu(s, &s->global, false, j);
  json_memory(info, s, &s->global, false, false, j);
  json_io(&s->global, j);
  json_energy(info, s, true, j);
  json_gpu(info, s, true, j);
  jcli_json_map_close(j);
}

/* ---- phases and notes ----------------------------------------------------- */

static void json_edge_line(jcli_json *j, const char *key, const jcli_edge *e) {
  jcli_json_key(j, key);
  if (e->line)
    jcli_json_int(j, (long long)e->line);
  else
    jcli_json_null(j);
}

static void json_phases(const jcli_run_info *info, const jcli_result *res,
                        jcli_json *j) {
  jcli_json_key(j, "phases");
  if (!res->phases_on) {
    jcli_json_null(j);
    return;
  }
  jcli_json_array_open(j);
  for (size_t i = 0; i < res->phase_count; i++) {
    const jcli_phase *p = &res->phases[i];
    char name[2 * JCLI_MARKERS_NAME_MAX + 32];
    jcli_result_phase_name(res, i, name, sizeof(name));
    jcli_json_map_open(j);
    key_string(j, "name", name);
    key_string(j, "start_token", p->start.token);
    key_string(j, "end_token", p->end.token);
    json_edge_line(j, "start_line", &p->start);
    json_edge_line(j, "end_line", &p->end);
    key_double(j, "start_seconds",
               rounded((double)(p->span.start_ns - res->run.start_ns) / 1e9));
    json_span(info, &p->span, false, j);
    jcli_json_map_close(j);
  }
  jcli_json_array_close(j);
}

/* Notes (docs/report-schema.md, nulls): every null of the run object
 * that means "cannot be known" says why in one note, which names the
 * figure as its path in the document and the spans it is null in; a null
 * that means "there is none" (no limit, no signal, no phases) has none. */

typedef struct {
  jcli_json *j;
  char text[2048];
} notes;

static void note(notes *n, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(notes *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(n->text, sizeof(n->text), fmt, ap);
  va_end(ap);
  jcli_json_string(n->j, n->text);
}

/* Why the command's cgroup has no controller bit; the root cgroup's with
 * global. */
static void why_controller(const jcli_run_info *info, const jcli_result *res,
                           bool global, unsigned bit, char *why,
                           size_t size) {
  const char *cgroup = global ? info->global_cgroup
                              : res->cgroup ? res->cgroup : "";
  bool known = global ? res->top_controllers_known : res->controllers_known;
  unsigned have = global ? res->top_controllers : res->controllers;
  const char *name = jc_hier_ctrl_name(bit);
  if (known && !(have & bit))
    jcli_why_no_controller(cgroup, global, res->v1_controllers, bit, why,
                           size);
  else if (known)
    snprintf(why, size,
             "%s has the %s controller, and none of its %s files could be "
             "read",
             cgroup, name, name);
  else
    snprintf(why, size, "none of the %s files of %s could be read", name,
             cgroup);
}

/* A figure of each span, as a test over it: is it null there? */
typedef bool (*span_test)(const jcli_span *s);

/* " (the run)", " (2 of 3 phases)", " (the run and 3 of 3 phases)";
 * false when null in no span. */
static bool where_null(const jcli_result *res, span_test null_in, char *out,
                       size_t size) {
  bool run = null_in(&res->run);
  size_t phases = 0;
  for (size_t i = 0; i < res->phase_count; i++)
    phases += null_in(&res->phases[i].span);
  if (!run && !phases)
    return false;
  if (!phases)
    snprintf(out, size, " (the run)");
  else
    snprintf(out, size, " (%s%zu of %zu phases)", run ? "the run and " : "",
             phases, res->phase_count);
  return true;
}

/* memory.peak null where memory was read; lifetime: the run's, which
 * may take memory.peak. */
static bool peak_null(const jcli_span *s, bool lifetime) {
  double peak;
  return s->proc.memory_seen && !jcli_side_peak(&s->proc, lifetime, &peak);
}

/* Why the machine's cores busy is not known (JCLI_CORES_KNOWN where its
 * CPU time is not either: "global.cpu" is null and says so). */
static jcli_cores_why host_cores(const jcli_span *s) {
  double v;
  jcli_counters c;
  return jcli_side_cpu(&s->global, &c) ? jcli_span_cores_busy(s, true, &v)
                                       : JCLI_CORES_KNOWN;
}
static bool host_cores_unread(const jcli_span *s) {
  return host_cores(s) == JCLI_CORES_NO_STAT;
}
static bool host_cores_short(const jcli_span *s) {
  return host_cores(s) == JCLI_CORES_TOO_SHORT;
}
static bool share_null(const jcli_span *s) {
  double v;
  jcli_counters c;
  return jcli_side_cpu(&s->proc, &c) && !jcli_span_share(s, &v);
}

/* The command's memory, io and limits, and the machine's io and memory:
 * null where a cgroup lacks the controller (or its files). */
static void controller_notes(notes *n, const jcli_run_info *info,
                             const jcli_result *res) {
  char why[1024];
  jcli_counters io;
  double peak;
  const jcli_side *proc = &res->run.proc;
  if (!proc->memory_seen && !jcli_side_peak(proc, true, &peak)) {
    why_controller(info, res, false, JC_CTRL_MEMORY, why, sizeof(why));
    note(n, "\"memory\" is null: %s", why);
  }
  if (peak_null(&res->run, true))
    note(n, "\"memory.peak\" is null (the run): %s has no memory.peak "
            "(Linux 5.19 and later have it) and no interval peak",
         res->cgroup ? res->cgroup : "");
  size_t phases_without = 0;
  for (size_t i = 0; i < res->phase_count; i++)
    phases_without += peak_null(&res->phases[i].span, false);
  if (phases_without)
    note(n, "\"memory.peak\" is null (%zu of %zu phases): a phase's peak is "
            "known from the interval peak only (Linux 6.12 and later); "
            "memory.peak is the cgroup's since it began",
         phases_without, res->phase_count);
  if (!jcli_side_io(proc, &io)) {
    why_controller(info, res, false, JC_CTRL_IO, why, sizeof(why));
    note(n, "\"io\" is null: %s", why);
  }
  /* A limit is null by nature where the host has the controller in
   * cgroup v2 and no cgroup above the command's set one (the effective
   * limit is the smallest of its own and its ancestors': one whose parent
   * does not enable the controller has theirs); where the host binds it
   * to cgroup v1, a v1 limit may hold that cannot be read here. */
  static const struct {
    unsigned bit;
    const char *keys;
  } limits[] = {
      {JC_CTRL_CPU, "\"limits.cpu_cores\" is null"},
      {JC_CTRL_MEMORY, "\"limits.memory_max\" and \"limits.memory_high\" are null"},
      {JC_CTRL_PIDS, "\"limits.pids_max\" is null"},
  };
  const jcli_limits *l = &proc->limits;
  bool have[] = {l->have_cpu_cores, l->have_memory_max || l->have_memory_high,
                 l->have_pids_max};
  for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
    if (have[i] || !res->controllers_known ||
        (res->controllers & limits[i].bit) ||
        !(res->v1_controllers & limits[i].bit))
      continue;
    why_controller(info, res, false, limits[i].bit, why, sizeof(why));
    note(n, "%s: the limit cannot be read, and null does not mean "
            "unlimited here: %s",
         limits[i].keys, why);
  }
  const jcli_side *global = &res->run.global;
  if (!jcli_side_io(global, &io)) {
    why_controller(info, res, true, JC_CTRL_IO, why, sizeof(why));
    note(n, "\"global.io\" is null: %s", why);
  }
  if (!global->memory_seen)
    note(n, "\"global.memory\" is null: neither the root cgroup's "
            "memory.stat nor /proc/meminfo could be read");
}

/* The CPU figures of the spans. */
static void cpu_notes(notes *n, const jcli_run_info *info,
                      const jcli_result *res) {
  char at[64];
  jcli_counters c;
  if (!jcli_side_cpu(&res->run.proc, &c))
    note(n, "\"cpu\" is null: the cpu.stat of %s could not be read",
         res->cgroup ? res->cgroup : "");
  else if (!c.have_times)
    note(n, "\"cpu.user_usec\" and \"cpu.system_usec\" are null: the "
            "cpu.stat of %s has no user_usec and system_usec",
         res->cgroup ? res->cgroup : "");
  if (!jcli_side_cpu(&res->run.global, &c))
    note(n, "\"global.cpu\" is null: the cpu.stat of %s could not be read",
         info->global_cgroup);
  if (where_null(res, host_cores_unread, at, sizeof(at)))
    note(n, "\"global.cpu.cores_busy\" is null%s: /proc/stat could not be "
            "read at both edges",
         at);
  if (where_null(res, host_cores_short, at, sizeof(at)))
    note(n, "\"global.cpu.cores_busy\" is null%s: /proc/stat, whose CPU "
            "times count in 1/100 s, did not move over the span; the "
            "machine's busy cores are its CPUs times the busy part of that "
            "time, never counted from a span that short",
         at);
  if (where_null(res, share_null, at, sizeof(at)))
    note(n, "\"cpu.share_of_host\" is null%s: the machine's CPU time "
            "(global.cpu.usage_usec, counted in scheduler ticks) did not "
            "move over the span",
         at);
}

/* Energy: the meter's lines; a zone's null, and the command's part's. */
static void energy_notes(notes *n, const jcli_run_info *info,
                         const jcli_result *res) {
  for (size_t i = 0; i < info->energy_note_count; i++)
    note(n, "%s%s", zone_count(info) ? "energy: " : "\"energy\" is null: ",
         info->energy_notes[i]);
  for (size_t z = 0; z < zone_count(info); z++) {
    size_t host = 0, share = 0, spans = 1 + res->phase_count;
    for (size_t i = 0; i < spans; i++) {
      jcli_zone_energy e;
      jcli_span_energy(i ? &res->phases[i - 1].span : &res->run, z, &e);
      host += !e.have_host;
      share += e.have_host && !e.have_share;
    }
    const char *label = info->energy->zone[z].label;
    if (host)
      note(n, "\"energy.%s\" and \"global.energy.%s\" are null in %zu of "
              "%zu spans: the zone was not read at both edges, or an "
              "interval between two readings may have held more than one "
              "wrap of its counter (never guessed)",
           label, label, host, spans);
    if (share)
      note(n, "\"energy.%s.energy_j\" and \"global.energy.%s.idle_j\" are "
              "null in %zu of %zu spans: /proc/stat could not be read, or "
              "the run was too short for it to move",
           label, label, share, spans);
  }
}

/* The GPUs: why none was read; or why the command has no GPU figure. */
static void gpu_notes(notes *n, const jcli_run_info *info,
                      const jcli_result *res) {
  if (info->gpu_why) {
    note(n, "\"gpu\" and \"global.gpu\" are null: %s", info->gpu_why);
    return;
  }
  bool used = false;
  for (size_t i = 0; i < gpu_count(info); i++) {
    const jcli_gpu_span *g = &res->run.gpu[i];
    jcli_gpu_energy e;
    bool have = jcli_span_gpu(&res->run, i, &e);
    const char *u = info->gpus->uuid[i];
    used |= g->proc_memory_max > 0;
    if (g->seen && !e.have_sm)
      note(n, "\"gpu.%s.sm_percent\" is null: the driver gives no process "
              "utilisation for this GPU",
           u);
    if (g->seen && !have)
      note(n, "\"gpu.%s.energy_j\" is null: the board has no energy "
              "counter, or the GPU was not read at the run's first reading, "
              "or it was lost or reset within it (docs/gpu.md, energy)",
           u);
  }
  if (gpu_count(info) && !used)
    note(n, "\"gpu\": the command's processes held no memory on any of the "
            "%zu GPUs read: none of them was on a GPU",
         gpu_count(info));
}

static void json_notes(const jcli_run_info *info, const jcli_result *res,
                       jcli_json *j) {
  notes n = {.j = j};
  jcli_json_key(j, "notes");
  jcli_json_array_open(j);
  cpu_notes(&n, info, res);
  controller_notes(&n, info, res);
  energy_notes(&n, info, res);
  gpu_notes(&n, info, res);
  if (res->phases_on && res->markers == 0)
    note(&n,
         "no line of the command's output matched the token pattern "
         "\"%s\": one phase spans the whole run",
         info->token_pattern);
  if (res->markers_lost)
    note(&n, "out of memory: %zu marker lines were not made phase boundaries",
         res->markers_lost);
  if (res->series.lost)
    note(&n, "out of memory: %zu samples were not kept in the series",
         res->series.lost);
  jcli_json_array_close(j);
}

/* ---- documents ------------------------------------------------------------- */

void jcli_report_json(const jcli_run_info *info, const jcli_result *res,
                      jcli_json *j) {
  jcli_json_map_open(j);
  jcli_json_key(j, "command");
  jcli_json_array_open(j);
  for (char *const *a = info->command; *a; a++)
    jcli_json_string(j, *a);
  jcli_json_array_close(j);
  key_int(j, "exit_status", res->exit_status);
  key_maybe(j, "signal", res->signal != 0, res->signal);
  key_string(j, "cgroup", res->cgroup ? res->cgroup : "");
  jcli_json_key(j, "kept");
  jcli_json_bool(j, res->kept);
  key_string(j, "global_cgroup", info->global_cgroup);
  key_double(j, "interval", info->interval);
  json_span(info, &res->run, true, j);
  json_phases(info, res, j);
  json_notes(info, res, j);
  if (res->series_on) {
    jcli_json_key(j, "series");
    jcli_series_json(res->series.point, res->series.count, j);
  }
  if (info->budget && !info->iterations)
    jcli_budget_json(info->budget, j);
  jcli_json_map_close(j);
}

bool jcli_report_run_peak(const jcli_run_info *info, const jcli_result *res,
                          double *ret) {
  if (jcli_side_peak(&res->run.proc, true, ret))
    return true;
  int i = jcli_memory_find(info->names, "current");
  jcli_range r;
  if (i < 0 || !jcli_side_range(&res->run.proc, info->names, (size_t)i, &r))
    return false;
  *ret = r.max;
  return true;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* "key": {min, median, max} of the n values, or null when n is 0. */
static void json_stats(jcli_json *j, const char *key, double *v, size_t n) {
  jcli_json_key(j, key);
  if (n == 0) {
    jcli_json_null(j);
    return;
  }
  qsort(v, n, sizeof(*v), cmp_double);
  double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  jcli_json_map_open(j);
  key_double(j, "min", rounded(v[0]));
  key_double(j, "median", rounded(median));
  key_double(j, "max", rounded(v[n - 1]));
  jcli_json_map_close(j);
}

static void json_summary(const jcli_run_info *info, const jcli_result *results,
                         size_t count, jcli_json *j) {
  double *wall = calloc(count ? count : 1, 3 * sizeof(double));
  jcli_json_key(j, "summary");
  if (!wall) {
    jcli_json_null(j);
    return;
  }
  double *cpu = wall + count, *peak = cpu + count;
  size_t n_cpu = 0, n_peak = 0;
  for (size_t i = 0; i < count; i++) {
    jcli_counters c;
    wall[i] = jcli_span_seconds(&results[i].run);
    if (jcli_side_cpu(&results[i].run.proc, &c))
      cpu[n_cpu++] = (double)c.usage_usec;
    if (jcli_report_run_peak(info, &results[i], &peak[n_peak]))
      n_peak++;
  }
  jcli_json_map_open(j);
  key_int(j, "runs", (long long)count);
  json_stats(j, "wall_seconds", wall, count);
  json_stats(j, "cpu_usage_usec", cpu, n_cpu);
  json_stats(j, "memory_peak", peak, n_peak);
  jcli_json_map_close(j);
  free(wall);
}

void jcli_report_iterations_json(const jcli_run_info *info,
                                 const jcli_result *results, size_t count,
                                 jcli_json *j) {
  jcli_json_map_open(j);
  key_int(j, "iterations", info->iterations);
  jcli_json_key(j, "runs");
  jcli_json_array_open(j);
  for (size_t i = 0; i < count; i++)
    jcli_report_json(info, &results[i], j);
  jcli_json_array_close(j);
  json_summary(info, results, count, j);
  if (info->budget)
    jcli_budget_json(info->budget, j);
  jcli_json_map_close(j);
}
