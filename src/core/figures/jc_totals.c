/*
 * jc_totals — see jc_totals.h.
 */
#include "jc_totals.h"

/* A DERIVE holds at most INT64_MAX: what cannot be sent is not a total. */
static bool fits(uint64_t v) { return v <= (uint64_t)INT64_MAX; }

static bool has_cpu(const jc_sample *s, int key) {
  return s->cpu_have & (1u << key);
}

static void cpu_of(const jc_sample *s, jc_totals *t) {
  if (!jc_sample_has(s, JC_FILE_CPU_STAT))
    return;
  t->usage_usec = s->cpu[JC_CPU_USAGE_USEC];
  t->usage_ns = s->time_ns;
  t->have_usage = has_cpu(s, JC_CPU_USAGE_USEC) && fits(t->usage_usec);
  t->user_usec = s->cpu[JC_CPU_USER_USEC];
  t->system_usec = s->cpu[JC_CPU_SYSTEM_USEC];
  t->have_times = has_cpu(s, JC_CPU_USER_USEC) &&
                  has_cpu(s, JC_CPU_SYSTEM_USEC) && fits(t->user_usec) &&
                  fits(t->system_usec);
}

static void io_of(const jc_sample *s, const jc_io_totals *io, bool per_device,
                  jc_totals *t) {
  if (!jc_sample_has(s, JC_FILE_IO_STAT))
    return;
  const uint64_t sums[4] = {s->io_rbytes, s->io_wbytes, s->io_rios,
                            s->io_wios};
  const uint64_t *v = per_device ? sums : io->total;
  t->have_io = fits(v[0]) && fits(v[1]) && fits(v[2]) && fits(v[3]);
  t->io_read_bytes = v[0];
  t->io_write_bytes = v[1];
  t->io_read_ops = v[2];
  t->io_write_ops = v[3];
}

void jc_totals_of(const jc_sample *s, const jc_io_totals *io, bool per_device,
                  jc_totals *ret) {
  *ret = (jc_totals){.have_usage = false};
  cpu_of(s, ret);
  if (jc_sample_has(s, JC_FILE_MEMORY_PEAK)) {
    ret->have_memory_peak = true;
    ret->memory_peak = s->memory_peak;
  }
  io_of(s, io, per_device, ret);
  if (jc_sample_has(s, JC_FILE_MEMORY_EVENTS) &&
      (s->keyed_have & (1u << JC_KEY_MEMORY_EVENTS_OOM_KILL)) &&
      fits(s->keyed[JC_KEY_MEMORY_EVENTS_OOM_KILL])) {
    ret->have_oom_kills = true;
    ret->oom_kills = s->keyed[JC_KEY_MEMORY_EVENTS_OOM_KILL];
  }
}
