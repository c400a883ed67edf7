/*
 * jcli_outcome — one run as `compare`, the budgets and the picture see
 * it: five figures of the whole run and of each phase (wall time, CPU
 * time, memory peak, I/O bytes, energy), its phases' names and times,
 * and its samples over time when they were kept.  Made from a run just
 * measured (jcli_measure) or from a report read back (jcli_load), so
 * that both are judged by one piece of code.
 *
 * An outcome owns its arrays: jcli_outcome_release() frees them.
 */
#ifndef JCLI_OUTCOME_H
#define JCLI_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>

/* The figures, in the order reports and summaries give them. */
typedef enum {
  JCLI_FIG_WALL,   /* seconds */
  JCLI_FIG_CPU,    /* seconds of CPU time (cpu.usage_usec) */
  JCLI_FIG_MEMORY, /* bytes: the memory peak */
  JCLI_FIG_IO,     /* bytes read and written */
  JCLI_FIG_ENERGY, /* joules: the command's part of the package zones */
  JCLI_FIG_COUNT
} jcli_fig;

typedef struct {
  const char *key;   /* in JSON and CSV: "cpu_seconds" */
  const char *name;  /* in --max and --max-ratio: "cpu" */
  const char *words; /* in sentences: "CPU time" */
  const char *unit;  /* "s", "B", "J" */
} jcli_fig_info;

extern const jcli_fig_info jcli_figs[JCLI_FIG_COUNT];

typedef struct {
  bool have[JCLI_FIG_COUNT]; /* false where the host does not give it */
  double v[JCLI_FIG_COUNT];
} jcli_figset;

/* Sets figure which: v, or (have false) none. */
void jcli_figset_set(jcli_figset *f, jcli_fig which, bool have, double v);

/* One figure of a sample; have false where the host does not give it. */
typedef struct {
  bool have;
  double v;
} jcli_value;

typedef enum {
  JCLI_POINT_START,
  JCLI_POINT_TICK,
  JCLI_POINT_MARK,
  JCLI_POINT_END,
} jcli_point_kind;

/* A sample: counters since START, gauges at the reading. */
typedef struct {
  double t; /* seconds since START */
  jcli_point_kind kind;
  jcli_value cpu_usec;       /* CPU time since START, µs */
  jcli_value memory_current; /* bytes */
  jcli_value peak_interval;  /* bytes: the highest since the last point */
  jcli_value read_bytes, write_bytes;   /* since START */
  jcli_value energy_uj, host_energy_uj; /* since START, the package zones */
} jcli_point;

typedef struct {
  char *name;         /* "START -> __A__", unique within the run */
  double start, wall; /* seconds: from START to its start; its length */
  jcli_figset fig;
} jcli_outcome_phase;

typedef struct {
  int exit_status;
  double interval; /* seconds between ticks */
  jcli_figset fig; /* the whole run */
  bool phases_on;  /* --phases */
  jcli_outcome_phase *phase;
  size_t phase_count;
  bool series_on; /* the samples were kept */
  jcli_point *point;
  size_t point_count;
} jcli_outcome;

void jcli_outcome_release(jcli_outcome *o); /* NULL-safe */

/* The kind's name in the report: "start", "tick", "mark", "end". */
const char *jcli_point_kind_name(jcli_point_kind kind);

/* The energy figure's zones: the top-level package zones (label
 * "package-N", id "intel-rapl:N"), never their subzones or psys. */
bool jcli_outcome_counts_zone(const char *label, const char *id);

/* The run whose wall time is the median of count runs (the lower of the
 * middle two): the one the picture draws.  count > 0. */
size_t jcli_outcome_median_run(const jcli_outcome *runs, size_t count);

/* The figure of phase name in o (NULL: the whole run); false where o has
 * no such phase or lacks the figure. */
bool jcli_outcome_figure(const jcli_outcome *o, const char *phase, jcli_fig f,
                         double *ret);

#endif
