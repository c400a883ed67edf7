/*
 * jcli_measure — a run just measured (jcli_result) as an outcome: the
 * five figures of the run and of each phase, and its samples.  The
 * figures are the report's, rounded as it prints them, so that an
 * outcome read back from the report (jcli_load) is the same.
 *
 *   jcli_outcome o;
 *   jcli_measure(&info, &result, &o);    0 or -ENOMEM (o then empty)
 *   ... jcli_outcome_release(&o);
 */
#ifndef JCLI_MEASURE_H
#define JCLI_MEASURE_H

#include "jcli_outcome.h"
#include "jcli_report.h"

int jcli_measure(const jcli_run_info *info, const jcli_result *res,
                 jcli_outcome *ret);

#endif
