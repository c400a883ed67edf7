/*
 * jc_metrics — see jc_metrics.h.  The names come from jc_lists' table;
 * this file decides only when each list has a figure.
 */
#include "jc_metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  jc_emit_fn emit;
  void *ctx;
  const jc_selection *sel;
} sink;

static bool chosen(const sink *k, jc_list_id id) {
  return k->emit && k->sel->list[id] != JC_SEL_OFF;
}

static void put_gauges(const sink *k, jc_list_id id, const char *ti,
                       size_t count, const double *v) {
  jc_metric m = {.list = id, .type = jc_lists_type(id), .type_instance = ti,
                 .kind = JC_GAUGE, .count = count};
  for (size_t i = 0; i < count; i++)
    m.gauge[i] = v[i];
  k->emit(k->ctx, &m);
}

/* The list id with one gauge value. */
static void put_gauge(const sink *k, jc_list_id id, double v) {
  if (chosen(k, id))
    put_gauges(k, id, jc_lists[id].type_instance, 1, &v);
}

/* collectd's derive_t is signed: a counter past INT64_MAX is not sent,
 * never wrapped to a negative number or clamped (docs/metrics.md; the
 * parse of its file says so, jc_sample_parse's -EOVERFLOW). */
static void put_derives(const sink *k, jc_list_id id, const char *ti,
                        size_t count, uint64_t a, uint64_t b) {
  if (a > INT64_MAX || b > INT64_MAX)
    return;
  jc_metric m = {.list = id, .type = jc_lists_type(id), .type_instance = ti,
                 .kind = JC_DERIVE, .count = count,
                 .derive = {(int64_t)a, (int64_t)b}};
  k->emit(k->ctx, &m);
}

static void put_derive(const sink *k, jc_list_id id, uint64_t v) {
  if (chosen(k, id))
    put_derives(k, id, jc_lists[id].type_instance, 1, v, 0);
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

jc_limits jc_metrics_limits_of(const jc_sample *s) {
  jc_limits l = JC_LIMITS_NONE;
  if (jc_sample_has(s, JC_FILE_CPU_MAX) && s->cpu_max_quota != JC_VALUE_MAX)
    l.cpu_cores = (double)s->cpu_max_quota / (double)s->cpu_max_period;
  if (jc_sample_has(s, JC_FILE_MEMORY_MAX) &&
      s->memory_max < JC_MEMORY_TYPE_MAX)
    l.memory_max = s->memory_max;
  if (jc_sample_has(s, JC_FILE_MEMORY_HIGH) &&
      s->memory_high < JC_MEMORY_TYPE_MAX)
    l.memory_high = s->memory_high;
  if (jc_sample_has(s, JC_FILE_PIDS_MAX))
    l.pids_max = s->pids_max;
  return l;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

jc_limits jc_metrics_limits_effective(const jc_sample *s, const jc_limits *ancestors) {
  jc_limits l = jc_metrics_limits_of(s);
  jc_metrics_limits_tighten(&l, ancestors);
  return l;
}

void jc_metrics_limits_tighten(jc_limits *acc, const jc_limits *other) {
  if (other->cpu_cores < acc->cpu_cores)
    acc->cpu_cores = other->cpu_cores;
  acc->memory_max = min_u64(acc->memory_max, other->memory_max);
  acc->memory_high = min_u64(acc->memory_high, other->memory_high);
  acc->pids_max = min_u64(acc->pids_max, other->pids_max);
}

/* cpu_cores, percent-cpu and (under a CPU limit) the share of it from two
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
    put_gauge(k, JC_LIST_CPU_CORES, cores);
    /* The share of the host cannot pass 100 %: a figure above it comes
     * from the time between a cgroup's reads, which differs a little from
     * the pass's (and types.db's percent stops at 100.1). */
    double share = online_cpus > 0 ? 100.0 * cores / online_cpus : 0;
    if (online_cpus > 0)
      put_gauge(k, JC_LIST_CPU_PERCENT, share < 100.0 ? share : 100.0);
    if (isfinite(limit_cores))
      put_gauge(k, JC_LIST_CPU_LIMIT_PERCENT, 100.0 * cores / limit_cores);
  }
  *rate = (jc_rate_state){true, usage, s->time_ns};
}

/* The cpu.stat counters of lists id..: those the catalogue sends under a
 * quota only (JC_WHEN_QUOTA, the throttling ones), when chosen by
 * default, only once the cgroup was under a quota (before, always 0). */
static void emit_cpu_counters(const sink *k, const jc_sample *s) {
  static const struct {
    jc_list_id id;
    int key;
  } counters[] = {
      {JC_LIST_CPU_USAGE_USEC, JC_CPU_USAGE_USEC},
      {JC_LIST_CPU_NR_PERIODS, JC_CPU_NR_PERIODS},
      {JC_LIST_CPU_NR_THROTTLED, JC_CPU_NR_THROTTLED},
      {JC_LIST_CPU_THROTTLED_USEC, JC_CPU_THROTTLED_USEC},
      {JC_LIST_CPU_NR_BURSTS, JC_CPU_NR_BURSTS},
      {JC_LIST_CPU_BURST_USEC, JC_CPU_BURST_USEC},
  };
  bool quota_seen = has_cpu(s, JC_CPU_NR_PERIODS) && s->cpu[JC_CPU_NR_PERIODS];
  for (size_t i = 0; i < sizeof(counters) / sizeof(*counters); i++) {
    jc_list_id id = counters[i].id;
    if (!has_cpu(s, counters[i].key) ||
        (k->sel->list[id] == JC_SEL_DEFAULT && !quota_seen &&
         (jc_lists[id].when & JC_WHEN_QUOTA)))
      continue;
    put_derive(k, id, s->cpu[counters[i].key]);
  }
}

static void emit_cpu(const sink *k, const jc_sample *s, jc_rate_state *rate,
                     unsigned online_cpus, double limit_cores) {
  if (chosen(k, JC_LIST_PS_CPUTIME) && has_cpu(s, JC_CPU_USER_USEC) &&
      has_cpu(s, JC_CPU_SYSTEM_USEC))
    put_derives(k, JC_LIST_PS_CPUTIME, "", 2, s->cpu[JC_CPU_USER_USEC],
                s->cpu[JC_CPU_SYSTEM_USEC]);
  if (k->emit)
    emit_cpu_counters(k, s);
  if (has_cpu(s, JC_CPU_USAGE_USEC))
    emit_cpu_rates(k, s, rate, online_cpus, limit_cores);
  else
    rate->valid = false;
}

/* The single-value files' gauges (jc_sample.h's rows), each sent as the
 * kernel wrote it where the read gave it. */
static void emit_singles(const sink *k, const jc_sample *s) {
#define SINGLE_BIT(ID, ...) | (1u << JC_FILE_##ID)
  if (!(s->have & (0u JC_SINGLE_FILES(SINGLE_BIT))))
    return; /* none read (a host without the memory controller) */
#undef SINGLE_BIT
#define SINGLE_DISPATCH(ID, field, ...)                                        \
  if (jc_sample_has(s, JC_FILE_##ID))                                          \
    put_gauge(k, JC_LIST_##ID, (double)s->field);
  JC_SINGLE_FILES(SINGLE_DISPATCH)
#undef SINGLE_DISPATCH
}

static void emit_memstat(const sink *k, const jc_sample *s,
                         const jc_memstat_keys *keys) {
  for (size_t i = 0; k->emit && keys && i < keys->count; i++) {
    if (keys->sel[i] == JC_SEL_OFF || !(s->memstat_have & (1ull << i)))
      continue;
    if (keys->is_event[i])
      put_derives(k, JC_LIST_MEMSTAT_EVENT, keys->derive_instance[i], 1,
                  s->memstat[i], 0);
    else
      put_gauges(k, JC_LIST_MEMSTAT, keys->key[i], 1,
                 &(double){(double)s->memstat[i]});
  }
}

/* ---- I/O totals ------------------------------------------------------------ */

/* The entry of device (unknown, major, minor) among seen[from, to). */
static jc_io_seen *seen_find(jc_io_seen *seen, size_t from, size_t to,
                             bool unknown, unsigned major, unsigned minor) {
  for (size_t i = from; i < to; i++)
    if (seen[i].unknown == unknown && seen[i].major == major &&
        seen[i].minor == minor)
      return &seen[i];
  return NULL;
}

int jc_metrics_io_advance(jc_io_totals *io, const jc_sample *s) {
  /* Room for the last table, this read's after it and, after a malformed
   * read, the last table's devices carried over once more. */
  size_t want = io->seen_count * (s->io_malformed ? 2 : 1) + s->io_device_count;
  if (want == 0)
    return 0; /* no device yet: nothing to add */
  if (want > io->seen_capacity) {
    jc_io_seen *grown = realloc(io->seen, want * sizeof(*grown));
    if (!grown)
      return -ENOMEM;
    io->seen = grown;
    io->seen_capacity = want;
  }
  /* This read's devices, each once ("(unknown)" lines added up), go after
   * the last read's table [0, old) ... */
  size_t old = io->seen_count, next = old;
  for (size_t i = 0; i < s->io_device_count; i++) {
    const jc_io_device *d = &s->io_device[i];
    uint64_t now[4] = {d->rbytes, d->wbytes, d->rios, d->wios};
    jc_io_seen *e = seen_find(io->seen, old, next, d->unknown, d->major,
                              d->minor);
    if (!e) {
      e = &io->seen[next++];
      *e = (jc_io_seen){d->major, d->minor, d->unknown, {0}};
    }
    for (int v = 0; v < 4; v++)
      e->last[v] = jc_sample_sum(e->last[v], now[v]);
  }
  /* ... and each adds its growth since then: a device seen before its
   * difference, a new one (or one whose counters fell: a device made again
   * under the same number) all it counted.  One that left adds nothing
   * and keeps what it added before. */
  for (size_t j = old; j < next; j++) {
    const jc_io_seen *now = &io->seen[j];
    const jc_io_seen *before =
        seen_find(io->seen, 0, old, now->unknown, now->major, now->minor);
    for (int v = 0; v < 4; v++) {
      uint64_t base =
          before && now->last[v] >= before->last[v] ? before->last[v] : 0;
      io->total[v] = jc_sample_sum(io->total[v], now->last[v] - base);
    }
  }
  /* A malformed file hides the devices of its bad lines: they stay
   * remembered, so that their growth counts when they are back, not all
   * they counted.  (A clean read forgets a device that left: one that
   * comes back under its number is a new one, from 0.) */
  for (size_t i = 0; s->io_malformed && i < old; i++)
    if (!seen_find(io->seen, old, next, io->seen[i].unknown, io->seen[i].major,
                   io->seen[i].minor))
      io->seen[next++] = io->seen[i];
  if (next > old)
    memmove(io->seen, io->seen + old, (next - old) * sizeof(*io->seen));
  io->seen_count = next - old;
  return 0;
}

void jc_metrics_io_reset(jc_io_totals *io) {
  free(io->seen);
  *io = (jc_io_totals){0};
}

static void emit_io(const sink *k, const jc_sample *s, jc_io_totals *io,
                    const jc_metrics_opts *o) {
  if (!jc_lists_any(o->sel, JC_LIST_DISK_OCTETS, 2))
    return;
  if (!o->per_device) {
    if (jc_metrics_io_advance(io, s) < 0 || !k->emit)
      return;
    if (chosen(k, JC_LIST_DISK_OCTETS))
      put_derives(k, JC_LIST_DISK_OCTETS, "", 2, io->total[0], io->total[1]);
    if (chosen(k, JC_LIST_DISK_OPS))
      put_derives(k, JC_LIST_DISK_OPS, "", 2, io->total[2], io->total[3]);
    return;
  }
  for (size_t i = 0; k->emit && i < s->io_device_count; i++) {
    const jc_io_device *d = &s->io_device[i];
    const char *name = d->unknown ? "unknown"
                                  : o->device_name(o->device_ctx, d->major,
                                                   d->minor);
    if (chosen(k, JC_LIST_DISK_OCTETS))
      put_derives(k, JC_LIST_DISK_OCTETS, name, 2, d->rbytes, d->wbytes);
    if (chosen(k, JC_LIST_DISK_OPS))
      put_derives(k, JC_LIST_DISK_OPS, name, 2, d->rios, d->wios);
  }
}

/* ---- pressure, events, pids, limits --------------------------------------- */

static void emit_psi_line(const sink *k, const jc_psi_line *l, int line) {
  put_derive(k, (jc_list_id)(JC_LIST_PSI_STALL + line), l->total_usec);
  double avg[JC_PSI_WINDOWS] = {l->avg10, l->avg60, l->avg300};
  jc_list_id load = (jc_list_id)(JC_LIST_PSI_LOAD + line);
  if (chosen(k, load))
    put_gauges(k, load, jc_lists[load].type_instance, JC_PSI_WINDOWS, avg);
  for (int w = 0; w < JC_PSI_WINDOWS; w++)
    put_gauge(k, (jc_list_id)(JC_LIST_PSI_AVG + line * JC_PSI_WINDOWS + w),
              avg[w]);
}

static void emit_pressure(const sink *k, const jc_sample *s) {
  for (int r = 0; r < 3; r++) {
    if (!jc_sample_has(s, (jc_file_id)(JC_FILE_CPU_PRESSURE + r)))
      continue;
    if (s->psi[r].has_some)
      emit_psi_line(k, &s->psi[r].some, 2 * r);
    if (s->psi[r].has_full)
      emit_psi_line(k, &s->psi[r].full, 2 * r + 1);
  }
}

/* The keys of flat-keyed files (jc_sample.h's rows), each as the kernel
 * wrote it where the read gave it. */
static void emit_keyed(const sink *k, const jc_sample *s) {
  if (!s->keyed_have)
    return;
#define KEYED_DISPATCH(ID, file, key, flags, ...)                              \
  if (s->keyed_have & (1u << JC_KEY_##ID)) {                                   \
    if ((flags) & JC_KEY_COUNTER)                                              \
      put_derive(k, JC_LIST_##ID, s->keyed[JC_KEY_##ID]);                      \
    else                                                                       \
      put_gauge(k, JC_LIST_##ID, (double)s->keyed[JC_KEY_##ID]);               \
  }
  JC_KEYED_FIGURES(KEYED_DISPATCH)
#undef KEYED_DISPATCH
}

/* The effective limits, each only where there is one (docs/metrics.md). */
static void emit_limits(const sink *k, const jc_sample *s, const jc_limits *l) {
  if (isfinite(l->cpu_cores))
    put_gauge(k, JC_LIST_CPU_LIMIT_CORES, l->cpu_cores);
  if (l->memory_max != JC_VALUE_MAX) {
    put_gauge(k, JC_LIST_MEMORY_MAX, (double)l->memory_max);
    if (jc_sample_has(s, JC_FILE_MEMORY_CURRENT) && l->memory_max > 0)
      put_gauge(k, JC_LIST_MEMORY_MAX_PERCENT,
                100.0 * (double)s->memory_current / (double)l->memory_max);
  }
  if (l->memory_high != JC_VALUE_MAX)
    put_gauge(k, JC_LIST_MEMORY_HIGH, (double)l->memory_high);
  if (l->pids_max != JC_VALUE_MAX)
    put_gauge(k, JC_LIST_PIDS_MAX, (double)l->pids_max);
}

void jc_metrics_emit(const jc_sample *s, jc_prior *prior,
                     const jc_limits *effective, const jc_metrics_opts *o,
                     jc_emit_fn emit, void *ctx) {
  const sink k = {emit, ctx, o->sel};
  jc_limits limits = effective ? *effective : jc_metrics_limits_of(s);
  if (jc_sample_has(s, JC_FILE_CPU_STAT))
    emit_cpu(&k, s, &prior->rate, o->online_cpus, limits.cpu_cores);
  else
    prior->rate.valid = false;
  emit_singles(&k, s);
  emit_memstat(&k, s, o->memstat);
  if (jc_sample_has(s, JC_FILE_IO_STAT))
    emit_io(&k, s, &prior->io, o);
  emit_pressure(&k, s);
  emit_keyed(&k, s);
  emit_limits(&k, s, &limits);
}
