/*
 * jcli_result — the figures of one run of the command: the whole run and,
 * with --phases, its phases, built reading by reading.
 *
 * A phase runs from one edge to the next: START (the command starts), a
 * marker line, END (its last process exited).  Every reading goes to the
 * run and to the phase in progress; a marker's reading closes that phase
 * and opens the next, so consecutive phases share their edge reading and
 * their counters add up to the run's exactly.
 *
 *   jcli_result_init(&res, phases, min_window_ns);
 *   jcli_result_keep_series(&res, names, zones);          --samples, --plot
 *   jcli_result_start(&res, &start_reading);
 *   jcli_result_tick(&res, &reading);                    every interval
 *   jcli_result_mark(&res, &reading, token, line);       each marker line
 *   jcli_result_end(&res, &end_reading);
 *   ... read res.run, res.phases ...
 *   jcli_result_release(&res);
 */
#ifndef JCLI_RESULT_H
#define JCLI_RESULT_H

#include "jcli_markers.h"
#include "jcli_series.h"
#include "jcli_span.h"


typedef struct {
  char token[JCLI_MARKERS_NAME_MAX + 1]; /* "START", "END" or the marker */
  unsigned long line; /* the marker's line of output; 0 for START, END */
} jcli_edge;

typedef struct {
  jcli_edge start, end;
  jcli_span span;
} jcli_phase;

typedef struct {
  /* about the run, filled by the caller */
  char *cgroup; /* the command's cgroup; freed by jcli_result_release() */
  bool kept;
  int exit_status; /* as a shell reports it: code, or 128 + signal */
  int signal;      /* 0 when the command exited */
  /* Why a figure may be null (the report's notes): the controllers of
   * the command's cgroup (its cgroup.controllers, JC_CTRL_*: what its
   * parent hands down) and those the host binds to cgroup v1. */
  bool controllers_known;
  unsigned controllers, v1_controllers;
  /* The same of the root cgroup read for "global" (its
   * cgroup.controllers: what the hierarchy has). */
  bool top_controllers_known;
  unsigned top_controllers;

  jcli_span run;
  bool phases_on;          /* --phases: phases are recorded */
  jcli_phase current;      /* the phase in progress */
  jcli_phase *phases;      /* closed, in order */
  size_t phase_count, phase_cap;
  size_t markers;          /* marker lines seen */
  size_t markers_lost;     /* not made boundaries: out of memory */
  uint64_t min_window_ns;
  bool series_on;          /* every reading is kept as a point */
  jcli_series series;
} jcli_result;

void jcli_result_init(jcli_result *res, bool phases, uint64_t min_window_ns);
void jcli_result_release(jcli_result *res); /* NULL-safe */
/* Keeps every reading from now on as a point of res->series (the
 * reader's tables, borrowed for res's life). */
void jcli_result_keep_series(jcli_result *res, const jcli_memory_names *names,
                             const jcli_energy_zones *zones);

void jcli_result_start(jcli_result *res, const jcli_reading *r);
void jcli_result_tick(jcli_result *res, const jcli_reading *r);
void jcli_result_mark(jcli_result *res, const jcli_reading *r,
                      const char *token, unsigned long line);
void jcli_result_end(jcli_result *res, const jcli_reading *r);

/*
 * The name of phase i: "<start> -> <end>" as the profiler prints it
 * ("START -> __A__"), with " #2", " #3"... when an earlier phase of the
 * run has the same name (a marker printed twice).
 */
void jcli_result_phase_name(const jcli_result *res, size_t i, char *buf,
                            size_t size);

#endif
