/*
 * jcli_span — see jcli_span.h.
 */
#include "jcli_span.h"

#include <math.h>
#include <string.h>

/* Readings of the running command: START (empty cgroup) and END (after
 * its last process) are edges for counters but say nothing about the
 * memory the command used. */
static bool in_run(const jcli_reading *r) {
  return r->kind == JCLI_READ_TICK || r->kind == JCLI_READ_MARK;
}

static void range_add(jcli_range *g, double v) {
  g->min = g->seen ? fmin(g->min, v) : v;
  g->max = g->seen ? fmax(g->max, v) : v;
  g->seen = true;
}

static void side_memory(jcli_side *d, const jcli_figures *f) {
  for (size_t i = 0; i < JCLI_MEMORY_MAX; i++)
    if (f->have_memory[i]) {
      range_add(&d->memory[i], f->memory[i]);
      d->memory_seen = true;
    }
}

/* r's memory values, into both sides' ranges. */
static void memory_of(jcli_span *s, const jcli_reading *r) {
  side_memory(&s->proc, &r->proc);
  side_memory(&s->global, &r->global);
}

/* The same for a reading taken while the command ran. */
static void memory_in_run(jcli_span *s, const jcli_reading *r) {
  if (!in_run(r))
    return;
  memory_of(s, r);
  s->in_run_seen = true;
}

/* A reading after the side's first: interval peak, lifetime peak, and
 * the counters at the latest edge. */
static void side_after_first(jcli_side *d, const jcli_figures *f) {
  d->reads++;
  if (f->have_peak_interval) {
    d->peak_reads++;
    d->peak_interval_max = d->peak_reads == 1
                               ? f->peak_interval
                               : fmax(d->peak_interval_max, f->peak_interval);
  }
  if (f->have_peak) {
    d->have_peak = true;
    d->peak = f->peak;
  }
  d->last = f->counters;
  d->limits = f->limits;
}

/* Cores busy between the anchor and r, once the window is long enough:
 * over the times the cgroup's cpu.stat was read, not those the readings
 * began at (a pass slowed down between the two, in a loaded or emulated
 * machine, would count more CPU time than its window holds: 5.5 CPUs
 * busy of 2 seen so). */
static void cores_window(jcli_span *s, const jcli_reading *r) {
  const jcli_counters *c = &r->proc.counters;
  if (!c->have_usage)
    return;
  uint64_t at = c->usage_ns ? c->usage_ns : r->time_ns;
  if (s->have_anchor && at - s->anchor_ns < s->min_window_ns)
    return;
  if (s->have_anchor && at > s->anchor_ns) {
    double cores = (double)(c->usage_usec - s->anchor_usage) * 1e3 /
                   (double)(at - s->anchor_ns);
    s->cores_max = s->have_cores_max ? fmax(s->cores_max, cores) : cores;
    s->have_cores_max = true;
  }
  s->have_anchor = true;
  s->anchor_ns = at;
  s->anchor_usage = c->usage_usec;
}

/* ---- the GPUs ---------------------------------------------------------- */

/* A GPU read at r: its root lists are there. */
static bool gpu_read(const jcli_reading *r, size_t i) {
  return r->global.gpu[i].have_memory || r->global.gpu[i].have_energy;
}

/* r's figures of each GPU; dt: seconds since the reading before (0 for
 * the span's first). */
static void gpu_add(jcli_span *s, const jcli_reading *r, double dt,
                    bool first) {
  for (size_t i = 0; i < JCLI_GPU_MAX; i++) {
    jcli_gpu_span *g = &s->gpu[i];
    const jcli_gpu_figures *p = &r->proc.gpu[i], *h = &r->global.gpu[i];
    if (!gpu_read(r, i)) {
      if (g->seen)
        g->broken = true;
      continue;
    }
    if (first)
      g->first_read = true;
    else if (!g->seen)
      g->broken = true; /* not read at the first: no edge to count from */
    g->seen = true;
    if (h->have_total) {
      g->have_total = true;
      g->total = h->total;
    }
    double pm = p->have_memory ? p->memory : 0;
    g->proc_memory_max = fmax(g->proc_memory_max, pm);
    g->global_memory_max = fmax(g->global_memory_max, h->memory);
    if (!first && h->have_sm && dt > 0) {
      g->proc_sm_s += (p->have_sm ? p->sm : 0) * dt;
      g->global_sm_s += h->sm * dt;
      g->sm_seconds += dt;
    }
    double pe = p->have_energy ? p->energy_uj : 0;
    if (h->have_energy) {
      if (g->have_energy && (h->energy_uj < g->board_last_uj ||
                             pe < g->proc_last_uj))
        g->broken = true; /* a new epoch: the counters went back */
      if (!g->have_energy) {
        g->proc_first_uj = pe;
        g->board_first_uj = h->energy_uj;
        if (!first)
          g->broken = true;
      }
      g->have_energy = true;
      g->proc_last_uj = pe;
      g->board_last_uj = h->energy_uj;
    }
    if (h->have_idle) {
      if (!g->have_idle)
        g->idle_first_uj = h->idle_uj;
      g->have_idle = true;
      g->idle_last_uj = h->idle_uj;
    }
  }
}

bool jcli_span_gpu(const jcli_span *s, size_t i, jcli_gpu_energy *ret) {
  const jcli_gpu_span *g = &s->gpu[i];
  *ret = (jcli_gpu_energy){0};
  ret->have_sm = g->sm_seconds > 0;
  if (ret->have_sm) {
    ret->proc_sm = g->proc_sm_s / g->sm_seconds;
    ret->global_sm = g->global_sm_s / g->sm_seconds;
  }
  if (!g->have_energy || g->broken || !g->first_read)
    return false;
  ret->proc_uj = g->proc_last_uj - g->proc_first_uj;
  ret->board_uj = g->board_last_uj - g->board_first_uj;
  ret->have_idle = g->have_idle;
  ret->idle_uj = g->idle_last_uj - g->idle_first_uj;
  return true;
}

void jcli_span_open(jcli_span *s, const jcli_reading *first,
                    uint64_t min_window_ns) {
  memset(s, 0, sizeof(*s));
  s->start_ns = s->end_ns = first->time_ns;
  s->min_window_ns = min_window_ns;
  s->proc.first = s->proc.last = first->proc.counters;
  s->proc.limits = first->proc.limits;
  s->global.first = s->global.last = first->global.counters;
  s->have_host_first = s->have_host_last = first->have_host;
  s->host_first = s->host_last = first->host;
  s->host_cpus = first->host_cpus;
  s->energy_first = s->energy_last = first->energy;
  if (first->proc.have_peak) {
    s->proc.have_peak = true;
    s->proc.peak = first->proc.peak;
  }
  memory_in_run(s, first);
  cores_window(s, first);
  gpu_add(s, first, 0, true);
}

void jcli_span_add(jcli_span *s, const jcli_reading *r) {
  gpu_add(s, r,
          r->time_ns > s->end_ns ? (double)(r->time_ns - s->end_ns) / 1e9 : 0,
          false);
  s->end_ns = r->time_ns;
  if (r->kind == JCLI_READ_TICK)
    s->ticks++;
  side_after_first(&s->proc, &r->proc);
  side_after_first(&s->global, &r->global);
  s->have_host_last = r->have_host;
  s->host_last = r->host;
  s->host_cpus = r->host_cpus;
  s->energy_last = r->energy;
  memory_in_run(s, r);
  cores_window(s, r);
}

void jcli_span_close(jcli_span *s, const jcli_reading *last) {
  bool tick = last->kind == JCLI_READ_TICK;
  jcli_span_add(s, last);
  if (tick)
    s->ticks--; /* an edge, not inside */
  /* Nothing read while the command ran (it ended before the first
   * interval): the memory it left at the end is all there is. */
  if (!s->in_run_seen)
    memory_of(s, last);
}

double jcli_span_seconds(const jcli_span *s) {
  return (double)(s->end_ns - s->start_ns) / 1e9;
}

bool jcli_side_cpu(const jcli_side *d, jcli_counters *ret) {
  if (!d->first.have_usage || !d->last.have_usage)
    return false;
  *ret = (jcli_counters){.have_usage = true};
  ret->usage_usec = d->last.usage_usec - d->first.usage_usec;
  if (d->first.have_times && d->last.have_times) {
    ret->have_times = true;
    ret->user_usec = d->last.user_usec - d->first.user_usec;
    ret->system_usec = d->last.system_usec - d->first.system_usec;
  }
  return true;
}

bool jcli_side_io(const jcli_side *d, jcli_counters *ret) {
  if (!d->first.have_io || !d->last.have_io)
    return false;
  *ret = (jcli_counters){.have_io = true};
  ret->read_bytes = d->last.read_bytes - d->first.read_bytes;
  ret->write_bytes = d->last.write_bytes - d->first.write_bytes;
  ret->read_ops = d->last.read_ops - d->first.read_ops;
  ret->write_ops = d->last.write_ops - d->first.write_ops;
  return true;
}

jcli_peak_method jcli_side_method(const jcli_side *d) {
  return d->reads > 0 && d->peak_reads == d->reads ? JCLI_PEAK_INTERVAL
                                                   : JCLI_PEAK_SAMPLED;
}

bool jcli_side_range(const jcli_side *d, const jcli_memory_names *names,
                     size_t i, jcli_range *ret) {
  if (i >= names->count || !d->memory[i].seen)
    return false;
  *ret = d->memory[i];
  if (jcli_side_method(d) == JCLI_PEAK_INTERVAL &&
      strcmp(names->name[i], "current") == 0)
    ret->max = fmax(ret->max, d->peak_interval_max);
  return true;
}

bool jcli_side_peak(const jcli_side *d, bool lifetime, double *ret) {
  if (jcli_side_method(d) == JCLI_PEAK_INTERVAL) {
    *ret = d->peak_interval_max;
    if (lifetime && d->have_peak)
      *ret = fmax(*ret, d->peak);
    return true;
  }
  if (lifetime && d->have_peak) {
    *ret = d->peak;
    return true;
  }
  return false;
}

/* The time between the reads of the command's cpu.stat at the span's
 * edges (its wall time where a read's time is not known). */
static double usage_seconds(const jcli_span *s) {
  const jcli_counters *a = &s->proc.first, *b = &s->proc.last;
  if (a->usage_ns && b->usage_ns && b->usage_ns > a->usage_ns)
    return (double)(b->usage_ns - a->usage_ns) / 1e9;
  return jcli_span_seconds(s);
}

jcli_cores_why jcli_span_cores_busy(const jcli_span *s, bool global,
                                    double *ret) {
  if (!global) {
    double seconds = usage_seconds(s);
    jcli_counters c;
    if (!jcli_side_cpu(&s->proc, &c) || seconds <= 0)
      return JCLI_CORES_NO_CPU;
    *ret = (double)c.usage_usec / 1e6 / seconds;
    return JCLI_CORES_KNOWN;
  }
  jc_cputimes d;
  if (!s->have_host_first || !s->have_host_last ||
      jc_procstat_delta(&s->host_first, &s->host_last, &d) < 0)
    return JCLI_CORES_NO_STAT;
  if (d.total_usec == 0)
    return JCLI_CORES_TOO_SHORT;
  *ret = (double)s->host_cpus * (double)(d.total_usec - d.idle_usec) /
         (double)d.total_usec;
  return JCLI_CORES_KNOWN;
}

bool jcli_span_cores_max(const jcli_span *s, double *ret) {
  jcli_counters c;
  double seconds = usage_seconds(s);
  if (!jcli_side_cpu(&s->proc, &c) || seconds <= 0)
    return false;
  double average = (double)c.usage_usec / 1e6 / seconds;
  *ret = s->have_cores_max ? fmax(s->cores_max, average) : average;
  return true;
}

bool jcli_span_share(const jcli_span *s, double *ret) {
  jcli_counters proc, global;
  if (!jcli_side_cpu(&s->proc, &proc) || !jcli_side_cpu(&s->global, &global) ||
      global.usage_usec <= 0)
    return false;
  /* The root's usage is counted in scheduler ticks (kcpustat), the
   * command's exactly: over a few ticks the command's can be the larger. */
  double share = (double)proc.usage_usec / (double)global.usage_usec;
  *ret = fmin(fmax(share, 0), 1);
  return true;
}

void jcli_span_energy(const jcli_span *s, size_t i, jcli_zone_energy *ret) {
  jcli_energy_between(&s->energy_first.zone[i], &s->energy_last.zone[i], ret);
}
