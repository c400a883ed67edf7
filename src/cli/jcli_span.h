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

typedef struct {
  uint64_t start_ns, end_ns;
  size_t ticks;        /* ticks strictly inside */
  bool in_run_seen;    /* a reading counted for the memory ranges */
  jcli_side proc, global;
  jcli_energy_counters energy_first, energy_last; /* at the edges */
  /* cores busy over windows of at least min_window_ns */
  uint64_t min_window_ns, anchor_ns;
  int64_t anchor_usage;
  bool have_anchor, have_cores_max;
  double cores_max;
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

/* The highest cores busy of the span: over each stretch between
 * readings at least min_window_ns apart, and over the span as a whole
 * (so never below its average).  false without CPU figures or time. */
bool jcli_span_cores_max(const jcli_span *s, double *ret);

/* share of the machine's CPU time used by the command: in [0, 1]; false
 * when the machine's is unknown or 0. */
bool jcli_span_share(const jcli_span *s, double *ret);

/* Zone i's energy over the span (jcli_energy_between of its edges). */
void jcli_span_energy(const jcli_span *s, size_t i, jcli_zone_energy *ret);

#endif
