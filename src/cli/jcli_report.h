/*
 * jcli_report — the JSON report of `joule-cgroup run`: one document for
 * one run, or, with --iterations, the runs in an array and a summary.
 * docs/report-schema.md describes every key; keep the two together.
 *
 *   jcli_report_json(&info, &result, json);                 one run
 *   jcli_report_iterations_json(&info, results, n, json);   --iterations
 */
#ifndef JCLI_REPORT_H
#define JCLI_REPORT_H

#include "jcli_budget.h"
#include "jcli_json.h"
#include "jcli_result.h"

/* What every run of one `joule-cgroup run` shares. */
typedef struct {
  char *const *command;
  double interval;
  const char *global_cgroup;    /* the root cgroup: the whole machine */
  const char *token_pattern;    /* NULL without --phases */
  const jcli_memory_names *names;
  long iterations;              /* 0 without --iterations */
  const jcli_energy_zones *energy; /* the host's RAPL zones; NULL: none */
  const jcli_gpu_names *gpus;      /* the GPUs read (run); NULL: none */
  const jcli_budget_check *budget; /* --max: the checks; NULL without */
  /* Why figures are null, from outside the spans: the energy meter's
   * lines (why energy is null, or a zone's), and why no GPU was read
   * (NULL: GPUs were read, or not asked for). */
  const char (*energy_notes)[1024];
  size_t energy_note_count;
  const char *gpu_why;
} jcli_run_info;

void jcli_report_json(const jcli_run_info *info, const jcli_result *res,
                      jcli_json *j);
void jcli_report_iterations_json(const jcli_run_info *info,
                                 const jcli_result *results, size_t count,
                                 jcli_json *j);

/* What the summary and the CSV share: the memory peak of a run, the true
 * one where known, else the largest memory.current read. */
bool jcli_report_run_peak(const jcli_run_info *info, const jcli_result *res,
                          double *ret);

#endif
