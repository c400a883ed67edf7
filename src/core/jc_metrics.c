/*
 * jc_metrics — see jc_metrics.h.  The tables below are the metric names of
 * SPEC §3; keep them in step with the README's metric table.
 */
#include "jc_metrics.h"

#include <math.h>
#include <stdio.h>

static const char *const cpu_derive_instance[JC_CPU_KEY_COUNT] = {
    [JC_CPU_USAGE_USEC] = "cpu_usage_usec",
    [JC_CPU_NR_PERIODS] = "cpu_nr_periods",
    [JC_CPU_NR_THROTTLED] = "cpu_nr_throttled",
    [JC_CPU_THROTTLED_USEC] = "cpu_throttled_usec",
    [JC_CPU_NR_BURSTS] = "cpu_nr_bursts",
    [JC_CPU_BURST_USEC] = "cpu_burst_usec",
};

static const char *const events_instance[JC_EVENTS_KEY_COUNT] = {
    "memory_events_low", "memory_events_high",     "memory_events_max",
    "memory_events_oom", "memory_events_oom_kill", "memory_events_oom_group_kill",
};

/* [resource][some/full][avg10/avg60/avg300/stall] */
static const char *const psi_instance[3][2][4] = {
    {{"cpu_some_avg10", "cpu_some_avg60", "cpu_some_avg300", "cpu_some_stall_usec"},
     {"cpu_full_avg10", "cpu_full_avg60", "cpu_full_avg300", "cpu_full_stall_usec"}},
    {{"memory_some_avg10", "memory_some_avg60", "memory_some_avg300",
      "memory_some_stall_usec"},
     {"memory_full_avg10", "memory_full_avg60", "memory_full_avg300",
      "memory_full_stall_usec"}},
    {{"io_some_avg10", "io_some_avg60", "io_some_avg300", "io_some_stall_usec"},
     {"io_full_avg10", "io_full_avg60", "io_full_avg300", "io_full_stall_usec"}},
};

typedef struct {
  jc_emit_fn emit;
  void *ctx;
} sink;

static void put_gauge(const sink *k, const char *type, const char *ti,
                      double v) {
  if (!k->emit)
    return;
  jc_metric m = {.type = type, .type_instance = ti, .kind = JC_GAUGE,
                 .count = 1, .gauge = {v, 0}};
  k->emit(k->ctx, &m);
}

/* collectd's derive_t is signed: a counter past INT64_MAX is not sent. */
static void put_derive2(const sink *k, const char *type, const char *ti,
                        size_t count, uint64_t a, uint64_t b) {
  if (!k->emit || a > INT64_MAX || b > INT64_MAX)
    return;
  jc_metric m = {.type = type, .type_instance = ti, .kind = JC_DERIVE,
                 .count = count, .derive = {(int64_t)a, (int64_t)b}};
  k->emit(k->ctx, &m);
}

static void put_derive(const sink *k, const char *ti, uint64_t v) {
  put_derive2(k, "derive", ti, 1, v, 0);
}

static bool has_cpu(const jc_sample *s, int key) {
  return s->cpu_have & (1u << key);
}

/*
 * Below this interval a rate is noise: the kernel accounts CPU time in
 * ticks (1-10 ms), so two reads a millisecond apart can show 25 cores busy
 * on a 2-CPU host.  collectd reads right after init, when the baseline was
 * just taken; that read sends no rate and keeps the baseline.
 */
#define RATE_MIN_INTERVAL_NS 20000000u

jc_limits jc_limits_of_sample(const jc_sample *s) {
  jc_limits l = JC_LIMITS_NONE;
  if (jc_sample_has(s, JC_FILE_CPU_MAX) && s->cpu_max_quota != JC_VALUE_MAX)
    l.cpu_cores = (double)s->cpu_max_quota / (double)s->cpu_max_period;
  if (jc_sample_has(s, JC_FILE_MEMORY_MAX))
    l.memory_max = s->memory_max;
  if (jc_sample_has(s, JC_FILE_MEMORY_HIGH))
    l.memory_high = s->memory_high;
  if (jc_sample_has(s, JC_FILE_PIDS_MAX))
    l.pids_max = s->pids_max;
  return l;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

jc_limits jc_limits_effective(const jc_sample *s, const jc_limits *ancestors) {
  jc_limits l = jc_limits_of_sample(s);
  jc_limits_tighten(&l, ancestors);
  return l;
}

void jc_limits_tighten(jc_limits *acc, const jc_limits *other) {
  if (other->cpu_cores < acc->cpu_cores)
    acc->cpu_cores = other->cpu_cores;
  acc->memory_max = min_u64(acc->memory_max, other->memory_max);
  acc->memory_high = min_u64(acc->memory_high, other->memory_high);
  acc->pids_max = min_u64(acc->pids_max, other->pids_max);
}

/* cpu_cores, percent-cpu and (under a CPU limit) percent-cpu_limit from two
 * samples; advances the baseline. */
static void emit_cpu_rates(const sink *k, const jc_sample *s,
                           jc_rate_state *rate, unsigned online_cpus,
                           double limit_cores) {
  uint64_t usage = s->cpu[JC_CPU_USAGE_USEC];
  bool restarted = !rate->valid || usage < rate->usage_usec ||
                   s->time_ns <= rate->time_ns;
  if (!restarted && s->time_ns - rate->time_ns < RATE_MIN_INTERVAL_NS)
    return;
  if (!restarted) {
    double cores = (double)(usage - rate->usage_usec) * 1000.0 /
                   (double)(s->time_ns - rate->time_ns);
    put_gauge(k, "gauge", "cpu_cores", cores);
    if (online_cpus > 0)
      put_gauge(k, "percent", "cpu", 100.0 * cores / online_cpus);
    if (isfinite(limit_cores))
      put_gauge(k, "percent", "cpu_limit", 100.0 * cores / limit_cores);
  }
  *rate = (jc_rate_state){true, usage, s->time_ns};
}

static void emit_cpu(const sink *k, const jc_sample *s, jc_rate_state *rate,
                     unsigned online_cpus, double limit_cores) {
  if (has_cpu(s, JC_CPU_USER_USEC) && has_cpu(s, JC_CPU_SYSTEM_USEC))
    put_derive2(k, "ps_cputime", "", 2, s->cpu[JC_CPU_USER_USEC],
                s->cpu[JC_CPU_SYSTEM_USEC]);
  for (int i = 0; i < JC_CPU_KEY_COUNT; i++)
    if (cpu_derive_instance[i] && has_cpu(s, i))
      put_derive(k, cpu_derive_instance[i], s->cpu[i]);
  if (has_cpu(s, JC_CPU_USAGE_USEC))
    emit_cpu_rates(k, s, rate, online_cpus, limit_cores);
  else
    rate->valid = false;
}

static void emit_memory(const sink *k, const jc_sample *s,
                        const jc_memstat_keys *keys) {
  if (jc_sample_has(s, JC_FILE_MEMORY_CURRENT))
    put_gauge(k, "memory", "current", (double)s->memory_current);
  if (jc_sample_has(s, JC_FILE_MEMORY_PEAK))
    put_gauge(k, "memory", "peak", (double)s->memory_peak);
  if (jc_sample_has(s, JC_FILE_MEMORY_PEAK_INTERVAL))
    put_gauge(k, "memory", "peak_interval", (double)s->memory_peak_interval);
  if (jc_sample_has(s, JC_FILE_MEMORY_SWAP_CURRENT))
    put_gauge(k, "memory", "swap_current", (double)s->memory_swap_current);
  for (size_t i = 0; keys && i < keys->count; i++) {
    if (!(s->memstat_have & (1ull << i)))
      continue;
    if (keys->is_event[i])
      put_derive(k, keys->derive_instance[i], s->memstat[i]);
    else
      put_gauge(k, "memory", keys->key[i], (double)s->memstat[i]);
  }
}

static void emit_io(const sink *k, const jc_sample *s,
                    const jc_metrics_opts *o) {
  if (!o->per_device) {
    put_derive2(k, "disk_octets", "", 2, s->io_rbytes, s->io_wbytes);
    put_derive2(k, "disk_ops", "", 2, s->io_rios, s->io_wios);
    return;
  }
  for (size_t i = 0; i < s->io_device_count; i++) {
    const jc_io_device *d = &s->io_device[i];
    const char *name = d->unknown ? "unknown"
                                  : o->device_name(o->device_ctx, d->major,
                                                   d->minor);
    put_derive2(k, "disk_octets", name, 2, d->rbytes, d->wbytes);
    put_derive2(k, "disk_ops", name, 2, d->rios, d->wios);
  }
}

static void emit_psi_line(const sink *k, const jc_psi_line *l,
                          const char *const names[4]) {
  put_gauge(k, "pressure", names[0], l->avg10);
  put_gauge(k, "pressure", names[1], l->avg60);
  put_gauge(k, "pressure", names[2], l->avg300);
  put_derive(k, names[3], l->total_usec);
}

static void emit_pressure(const sink *k, const jc_sample *s) {
  for (int r = 0; r < 3; r++) {
    if (!jc_sample_has(s, (jc_file_id)(JC_FILE_CPU_PRESSURE + r)))
      continue;
    if (s->psi[r].has_some)
      emit_psi_line(k, &s->psi[r].some, psi_instance[r][0]);
    if (s->psi[r].has_full)
      emit_psi_line(k, &s->psi[r].full, psi_instance[r][1]);
  }
}

static void emit_events(const sink *k, const jc_sample *s) {
  for (int i = 0; i < JC_EVENTS_KEY_COUNT; i++)
    if (s->events_have & (1u << i))
      put_derive(k, events_instance[i], s->events[i]);
}

/* The effective limits, each only where there is one (SPEC §5). */
static void emit_limits(const sink *k, const jc_sample *s, const jc_limits *l,
                        unsigned collect) {
  if (isfinite(l->cpu_cores))
    put_gauge(k, "gauge", "cpu_limit_cores", l->cpu_cores);
  if (l->memory_max != JC_VALUE_MAX) {
    put_gauge(k, "memory", "max", (double)l->memory_max);
    if (jc_sample_has(s, JC_FILE_MEMORY_CURRENT) && l->memory_max > 0)
      put_gauge(k, "percent", "memory_max",
                100.0 * (double)s->memory_current / (double)l->memory_max);
  }
  if (l->memory_high != JC_VALUE_MAX)
    put_gauge(k, "memory", "high", (double)l->memory_high);
  if (l->pids_max != JC_VALUE_MAX && (collect & JC_COLLECT_PIDS))
    put_gauge(k, "count", "pids_max", (double)l->pids_max);
}

void jc_metrics_emit(const jc_sample *s, jc_rate_state *rate,
                     const jc_limits *effective, const jc_metrics_opts *o,
                     jc_emit_fn emit, void *ctx) {
  const sink k = {emit, ctx};
  jc_limits limits = JC_LIMITS_NONE;
  if (o->collect & JC_COLLECT_LIMITS)
    limits = effective ? *effective : jc_limits_of_sample(s);
  if (jc_sample_has(s, JC_FILE_CPU_STAT))
    emit_cpu(&k, s, rate, o->online_cpus, limits.cpu_cores);
  else
    rate->valid = false;
  emit_memory(&k, s, o->memstat);
  if (jc_sample_has(s, JC_FILE_IO_STAT))
    emit_io(&k, s, o);
  emit_pressure(&k, s);
  if (o->collect & JC_COLLECT_EVENTS) /* also read for OOM notifications */
    emit_events(&k, s);
  if (jc_sample_has(s, JC_FILE_PIDS_CURRENT))
    put_gauge(&k, "count", "pids", (double)s->pids_current);
  if (o->collect & JC_COLLECT_LIMITS)
    emit_limits(&k, s, &limits, o->collect);
}
