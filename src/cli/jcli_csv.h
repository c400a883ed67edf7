/*
 * jcli_csv — the report of `joule-cgroup run --format csv`: CSV as RFC
 * 4180 quotes it (lines end with "\n", as Unix tools expect), a header
 * line, then one row per run and one per phase, with the
 * profiler's metric names (proc_cpu_usage_usec, global_cpu_usage_usec,
 * proc_memory_anon_max, ...).  The columns are fixed, whatever the host
 * has: a figure the host does not give is an empty cell.  Every column is
 * described in docs/report-schema.md; keep the two together.
 */
#ifndef JCLI_CSV_H
#define JCLI_CSV_H

#include "jcli_report.h"

/* Writes the whole document to fd.  0, or a negative errno. */
int jcli_csv_write(const jcli_run_info *info, const jcli_result *results,
                   size_t count, int fd);

#endif
