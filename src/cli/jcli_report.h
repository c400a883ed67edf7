/*
 * jcli_report — the figures of one `joule-cgroup run`, gathered from the
 * metrics of the cgroup it created, and the JSON report made of them.
 *
 * The cgroup is new, so its counters are the command's totals: the last
 * sample gives CPU time and I/O, memory.peak the peak; the samples taken
 * while the command ran give the min and max of each memory value.
 *
 *   jcli_report r;  jcli_report_init(&r);
 *   jc_collector_read(c, jcli_report_add, &r);   every interval
 *   jcli_report_sampled(&r, true);               after each read
 *   jcli_report_json(&r, &info, json);
 */
#ifndef JCLI_REPORT_H
#define JCLI_REPORT_H

#include "jc_collector.h"
#include "jcli_json.h"

#include <stdbool.h>
#include <stdint.h>

#define JCLI_REPORT_MEMORY_MAX (JC_MEMSTAT_MAX + 2)

/* One sampled memory value ("current", "anon", ...). */
typedef struct {
  char name[64];
  double min, max;   /* over the samples taken while the command ran */
  double last;       /* the latest sample */
} jcli_memory_range;

typedef struct {
  bool have_cpu, have_usage, have_io, have_peak;
  int64_t user_usec, system_usec, usage_usec;
  double cores_max; /* highest gauge-cpu_cores between two samples */
  bool have_cores_max;
  int64_t read_bytes, write_bytes, read_ops, write_ops;
  double peak;
  jcli_memory_range memory[JCLI_REPORT_MEMORY_MAX];
  size_t memory_count;
  size_t samples;   /* reads taken while the command ran */
  bool in_run;      /* the current read counts toward min and max */
} jcli_report;

void jcli_report_init(jcli_report *r);

/* Starts a read: in_run is false for the final read after the end. */
void jcli_report_begin(jcli_report *r, bool in_run);

/* jc_collect_fn for jc_collector_read(); ctx is the jcli_report. */
void jcli_report_add(void *ctx, const jc_target *t, const jc_metric *m);

/* What `run` knows besides the metrics. */
typedef struct {
  char *const *command;
  const char *cgroup; /* full path of the cgroup */
  bool kept;
  int exit_status;  /* as a shell reports it: code, or 128 + signal */
  int signal;       /* 0 when the command exited */
  double wall_seconds;
  double interval;
} jcli_run_info;

void jcli_report_json(const jcli_report *r, const jcli_run_info *info,
                      jcli_json *j);

#endif
