/*
 * jcli_span — the figures of a stretch of a run, from the readings taken
 * in it: the whole run (START to END) or one phase (marker to marker).
 *
 * Counters (CPU time, I/O, energy) are differences between the readings
 * at the two edges, so they are exact at the edges whatever the interval,
 * and the phases of a run add up to the run.  Memory values are gauges: a
 * span has the min and max of each over the readings taken while the
 * command ran (ticks, and markers at its edges); "sampled" says whether
 * a tick fell inside it, i.e. whether anything between its edges was
 * looked at.  Where the kernel gives an interval peak (memory-peak_interval,
 * the highest memory.current since the previous read), the maximum of
 * memory.current is the true one: the largest interval peak of the
 * readings after the span's first.
 *
 *   jcli_span_open(&s, first, min_window_ns);
 *   jcli_span_add(&s, reading);          each reading inside
 *   jcli_span_close(&s, last);
 *
 * A span holds no pointers: it is copied freely.
 */
#ifndef JCLI_SPAN_H
#define JCLI_SPAN_H

#include "jcli_reading.h"

typedef struct {
  bool seen;
  double min, max;
} jcli_range;

/* One cgroup's side of a span (proc or global). */
typedef struct {
  jcli_counters first, last;
  jcli_range memory[JCLI_MEMORY_MAX];
  bool memory_seen; /* some memory value was read in the span */
  /* The interval peak: every reading after the first had one. */
  size_t peak_reads, reads;
  double peak_interval_max;
  bool have_peak;   /* memory.peak at the last reading */
  double peak;
  jcli_limits limits; /* at the last reading */
} jcli_side;

/* One GPU over a span (Collect "gpu"): read at a reading when the root
 * has its lists there. */
typedef struct {
  bool seen;       /* read at some reading of the span */
  bool first_read; /* read at the span's first reading */
  bool broken;     /* absent at a reading after it was read, or its
                      board's counter went back (a new epoch): its
                      energy over the span is not known */
  bool have_total;
  double total;    /* the GPU's memory */
  double proc_memory_max, global_memory_max;
  /* Σ sm × seconds over the stretches between readings, and the seconds
   * with a figure: the mean over the span */
  double proc_sm_s, global_sm_s, sm_seconds;
  /* the energy counters (µJ) at the first reading and the latest */
  double proc_first_uj, proc_last_uj, board_first_uj, board_last_uj,
      idle_first_uj, idle_last_uj;
  bool have_energy, have_idle;
} jcli_gpu_span;

typedef struct {
  uint64_t start_ns, end_ns;
  size_t ticks;        /* ticks strictly inside */
  bool in_run_seen;    /* a reading counted for the memory ranges */
  jcli_side proc, global;
  /* the machine's CPU time (/proc/stat) at the edges, its online CPUs at
   * the last */
  bool have_host_first, have_host_last;
  jc_cputimes host_first, host_last;
  unsigned host_cpus;
  jcli_energy_counters energy_first, energy_last; /* at the edges */
  /* cores busy over windows of at least min_window_ns */
  uint64_t min_window_ns, anchor_ns;
  int64_t anchor_usage;
  bool have_anchor, have_cores_max;
  double cores_max;
  jcli_gpu_span gpu[JCLI_GPU_MAX]; /* by index into the reader's GPUs */
} jcli_span;

void jcli_span_open(jcli_span *s, const jcli_reading *first,
                    uint64_t min_window_ns);
void jcli_span_add(jcli_span *s, const jcli_reading *r);
void jcli_span_close(jcli_span *s, const jcli_reading *last);

double jcli_span_seconds(const jcli_span *s);

/* Differences over the span; false when either edge lacks the counter. */
bool jcli_side_cpu(const jcli_side *d, jcli_counters *ret);
bool jcli_side_io(const jcli_side *d, jcli_counters *ret);

/* Memory figures of a side. */
typedef enum { JCLI_PEAK_SAMPLED, JCLI_PEAK_INTERVAL } jcli_peak_method;
jcli_peak_method jcli_side_method(const jcli_side *d);
/* The range of memory value i; the max is the interval peak's where
 * that is known and i is memory.current. */
bool jcli_side_range(const jcli_side *d, const jcli_memory_names *names,
                     size_t i, jcli_range *ret);
/* The span's true peak: the interval peak's max; else, with lifetime,
 * memory.peak at the last reading (right for the whole run only). */
bool jcli_side_peak(const jcli_side *d, bool lifetime, double *ret);

/* Cores busy over the span.  The command's (global false): its
 * usage_usec / the time between the reads of its cpu.stat at the edges
 * (about its wall time), exact.  The machine's: its CPUs ×
 * the busy part of their time over the span (/proc/stat: busy / (busy +
 * idle)), so never more than its CPUs: the root cgroup's usage_usec counts
 * whole scheduler ticks, which over a span of a few ticks can be more
 * than the wall time holds.  false when not known; then *ret_why (global)
 * says why: /proc/stat not read at both edges, or not moved (a span
 * shorter than its resolution). */
typedef enum {
  JCLI_CORES_KNOWN,
  JCLI_CORES_NO_CPU,   /* no usage_usec (the command's), or no wall time */
  JCLI_CORES_NO_STAT,  /* /proc/stat not read at both edges */
  JCLI_CORES_TOO_SHORT /* /proc/stat did not move over the span */
} jcli_cores_why;
jcli_cores_why jcli_span_cores_busy(const jcli_span *s, bool global,
                                    double *ret);

/* The highest cores busy of the span: over each stretch between
 * readings at least min_window_ns apart, and over the span as a whole
 * (so never below its average).  false without CPU figures or time. */
bool jcli_span_cores_max(const jcli_span *s, double *ret);

/* share of the machine's CPU time used by the command: in [0, 1]; false
 * when the machine's is unknown or 0. */
bool jcli_span_share(const jcli_span *s, double *ret);

/* GPU i over the span: the command's part of its energy and the
 * board's (µJ), the idle part; false when not known (not read at both
 * edges, or in another epoch). */
typedef struct {
  double proc_uj, board_uj, idle_uj;
  bool have_idle;
  double proc_sm, global_sm; /* mean SM %, time-weighted */
  bool have_sm;
} jcli_gpu_energy;
bool jcli_span_gpu(const jcli_span *s, size_t i, jcli_gpu_energy *ret);

/* Zone i's energy over the span (jcli_energy_between of its edges). */
void jcli_span_energy(const jcli_span *s, size_t i, jcli_zone_energy *ret);

#endif
