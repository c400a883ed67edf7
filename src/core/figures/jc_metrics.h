/*
 * jc_metrics — turns a jc_sample into the value lists jc_lists names.
 *
 * This is where the figures users query are made: `ps_cputime` (user,
 * syst), `gauge-cpu_cores`, `memory-current`, `disk_octets` ...  Every
 * list goes out through an emit callback, one call per value list, so the
 * collectd glue can dispatch it and the command line tool can print it;
 * only the lists the selection chose are built.  Nothing here allocates
 * but jc_io_totals, when a block device appears that it has not seen.
 */
#ifndef JC_METRICS_H
#define JC_METRICS_H

#include "jc_lists.h"
#include "jc_sample.h"

#include <math.h>

typedef enum { JC_GAUGE, JC_DERIVE } jc_kind;

#define JC_METRIC_VALUES 3

typedef struct {
  jc_list_id list;           /* which list it is: what readers go by */
  const char *type;          /* a type of collectd's standard types.db */
  const char *type_instance; /* "" when none */
  jc_kind kind;
  size_t count; /* 1; 2 for ps_cputime, disk_octets, disk_ops; 3 for load */
  double gauge[JC_METRIC_VALUES];
  int64_t derive[JC_METRIC_VALUES];
  uint64_t time_ns; /* when it was read (CLOCK_REALTIME), for a list sent
                       later than read (a cgroup's final figures, jc_end);
                       0: read now, the sender stamps it */
} jc_metric;

typedef void (*jc_emit_fn)(void *ctx, const jc_metric *m);

/* The rates (cpu_cores and the shares) need two samples.  Zeroed: no
 * baseline yet. */
typedef struct {
  bool valid;
  uint64_t usage_usec;
  uint64_t time_ns;
} jc_rate_state;

/*
 * The I/O totals of one cgroup as counters that never run backwards: the
 * sum of each device's growth since it was first seen.  io.stat sums over
 * the devices it lists, and a device leaves it when it goes away (a
 * volume detached, a loop device freed); a plain sum would then fall, and
 * every receiver would see a counter reset or a huge negative rate.  Here
 * a device that leaves keeps what it contributed.  Owns its device table.
 */
typedef struct {
  unsigned major, minor;
  bool unknown;
  uint64_t last[4]; /* rbytes, wbytes, rios, wios at its last read */
} jc_io_seen;

typedef struct {
  uint64_t total[4];  /* rbytes, wbytes, rios, wios */
  jc_io_seen *seen;   /* the devices of the last read */
  size_t seen_count, seen_capacity;
} jc_io_totals;

/* Advances the totals by the devices of a cleanly parsed io.stat in s.
 * -ENOMEM (totals unchanged) when the table cannot grow. */
int jc_metrics_io_advance(jc_io_totals *io, const jc_sample *s);
/* Frees the table and forgets everything (a re-created cgroup). */
void jc_metrics_io_reset(jc_io_totals *io);

/* What a cgroup's previous reads leave for the next. */
typedef struct {
  jc_rate_state rate;
  jc_io_totals io;
} jc_prior;

typedef struct {
  const jc_selection *sel;
  const jc_memstat_keys *memstat;
  unsigned online_cpus;          /* for percent-cpu */
  bool per_device;               /* io per device instead of summed */
  /* Name of a block device for PerDevice ("sda", or "8:0" if unknown). */
  const char *(*device_name)(void *ctx, unsigned major, unsigned minor);
  void *device_ctx;
} jc_metrics_opts;

/*
 * Limits (docs/metrics.md): a cgroup's own, its ancestors', or the effective ones
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
jc_limits jc_metrics_limits_of(const jc_sample *s);

/* Lowers *acc to the smaller of each of its limits and other's. */
void jc_metrics_limits_tighten(jc_limits *acc, const jc_limits *other);

/* The effective limits: the sample's own, tightened by its ancestors'. */
jc_limits jc_metrics_limits_effective(const jc_sample *s, const jc_limits *ancestors);

/*
 * Emits the chosen lists that sample s has, and the rates against
 * prior->rate, which it then advances (and prior->io).  A counter that
 * went backwards (a re-created cgroup) restarts the baseline instead of
 * producing a negative rate.  With a NULL emit only the prior state
 * advances (the baseline sample taken at init).  effective: the cgroup's
 * effective limits (jc_metrics_limits_effective), or NULL for those of its own
 * files alone.
 */
void jc_metrics_emit(const jc_sample *s, jc_prior *prior,
                     const jc_limits *effective, const jc_metrics_opts *o,
                     jc_emit_fn emit, void *ctx);

#endif
