/*
 * jc_metrics — turns a jc_sample into the value lists of SPEC §3.
 *
 * This is where the names users query live: `ps_cputime` (user, syst),
 * `gauge-cpu_cores`, `memory-current`, `disk_octets` ...  Every metric goes
 * out through an emit callback, one call per value list, so the collectd
 * glue can dispatch it and the command line tool can print it.  Nothing
 * here allocates.
 */
#ifndef JC_METRICS_H
#define JC_METRICS_H

#include "jc_sample.h"

#include <math.h>

typedef enum { JC_GAUGE, JC_DERIVE } jc_kind;

typedef struct {
  const char *type;          /* a type of collectd's standard types.db */
  const char *type_instance; /* "" when none */
  jc_kind kind;
  size_t count; /* 1, or 2 for ps_cputime, disk_octets and disk_ops */
  double gauge[2];
  int64_t derive[2];
} jc_metric;

typedef void (*jc_emit_fn)(void *ctx, const jc_metric *m);

/*
 * What a cgroup's previous read leaves for the next: the rates of SPEC §3
 * (cpu_cores, percent-cpu) need two samples.  Zeroed: no baseline yet.
 */
typedef struct {
  bool valid;
  uint64_t usage_usec;
  uint64_t time_ns;
} jc_rate_state;

typedef struct {
  const jc_memstat_keys *memstat;
  unsigned online_cpus;          /* for percent-cpu */
  bool per_device;               /* io per device instead of summed */
  /* Name of a block device for PerDevice ("sda", or "8:0" if unknown). */
  const char *(*device_name)(void *ctx, unsigned major, unsigned minor);
  void *device_ctx;
  unsigned collect; /* JC_COLLECT_* groups whose metrics go out */
} jc_metrics_opts;

/*
 * Limits (SPEC §5): a cgroup's own, its ancestors', or the effective ones
 * (the smallest of both).  "No limit" is INFINITY for the CPU and
 * JC_VALUE_MAX for the others.
 */
typedef struct {
  double cpu_cores; /* cpu.max quota / period */
  uint64_t memory_max, memory_high, pids_max;
} jc_limits;

#define JC_LIMITS_NONE                                                         \
  ((jc_limits){INFINITY, JC_VALUE_MAX, JC_VALUE_MAX, JC_VALUE_MAX})

/* The limits the sample's own limit files set (files absent: none). */
jc_limits jc_limits_of_sample(const jc_sample *s);

/* Lowers *acc to the smaller of each of its limits and other's. */
void jc_limits_tighten(jc_limits *acc, const jc_limits *other);

/* The effective limits: the sample's own, tightened by its ancestors'. */
jc_limits jc_limits_effective(const jc_sample *s, const jc_limits *ancestors);

/*
 * Emits every metric that sample s has, and the rates against *rate, which
 * it then advances.  A counter that went backwards (a re-created cgroup)
 * restarts the baseline instead of producing a negative rate.  With a NULL
 * emit only the rate state advances (the baseline sample taken at init).
 * effective: the cgroup's effective limits (jc_limits_effective), or NULL
 * for those of its own files alone.
 */
void jc_metrics_emit(const jc_sample *s, jc_rate_state *rate,
                     const jc_limits *effective, const jc_metrics_opts *o,
                     jc_emit_fn emit, void *ctx);

#endif
