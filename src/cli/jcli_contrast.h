/*
 * jcli_contrast — what `compare` says of its commands' runs: for each
 * command and figure (the whole run and, with --phases, each phase by
 * name) the summary of its values (jcli_stats), and for each command
 * after the first its ratio to the first with a confidence interval;
 * as JSON (docs/compare-schema.md), as CSV, and as a few lines for
 * people on stderr ("B uses 0.82× (0.79–0.85) the CPU time of A").
 *
 *   jcli_contender c[2] = {{"A", argv_a, NULL, runs_a, n_a}, ...};
 *   jcli_contrast_json(&info, c, 2, json);
 *   jcli_contrast_csv(&info, c, 2, fd);
 *   jcli_contrast_summary(&info, c, 2);
 *   jcli_contrast_ratio(&c[0], &c[1], NULL, JCLI_FIG_CPU, 0.95, &q);
 *
 * Everything is computed from the runs when it is printed: nothing is
 * kept between calls.
 */
#ifndef JCLI_CONTRAST_H
#define JCLI_CONTRAST_H

#include "jcli_budget.h"
#include "jcli_json.h"
#include "jcli_outcome.h"
#include "jcli_stats.h"

typedef struct {
  char label[JCLI_BUDGET_LABEL_MAX]; /* "A", "B", ... */
  char *const *command;              /* NULL-terminated; NULL when not known */
  const char *report; /* the report it was read from; NULL: run here */
  const jcli_outcome *run;
  size_t count;
} jcli_contender;

typedef struct {
  double level;    /* of the intervals: 0.95 */
  long iterations; /* asked; 0 when compared from reports */
  long warmup;
  bool samples; /* --samples: each run's series in the JSON */
  const jcli_budget_check *budget; /* --max-ratio; NULL without */
} jcli_contrast_info;

/*
 * Figure f of b against a over the runs that have it, for the whole run
 * (phase NULL) or a phase.  false when either has no run with the
 * figure, or a's mean is 0.
 */
bool jcli_contrast_ratio(const jcli_contender *a, const jcli_contender *b,
                         const char *phase, jcli_fig f, double level,
                         jcli_stats_ratio *ret);

void jcli_contrast_json(const jcli_contrast_info *info, const jcli_contender *c,
                        size_t n, jcli_json *j);
/* 0 or -errno (write's, or -ENOMEM). */
int jcli_contrast_csv(const jcli_contrast_info *info, const jcli_contender *c,
                      size_t n, int fd);
/* The lines for people, on stderr. */
void jcli_contrast_summary(const jcli_contrast_info *info,
                           const jcli_contender *c, size_t n);

#endif
