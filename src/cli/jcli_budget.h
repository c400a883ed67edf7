/*
 * jcli_budget — budgets for CI: `run --max cpu=2.5s,memory=512MiB,...`
 * holds a run (or the median of its iterations) to limits, and `compare
 * --max-ratio cpu=1.05` holds each command to a ratio of the first's.
 * A breach is one line on stderr naming the figure and by how much, a
 * "budget" object in the JSON report, and the exit status
 * JCLI_EXIT_OVER_BUDGET (docs/profiler.md#budgets).
 *
 *   jcli_budget b;
 *   jcli_budget_parse(spec, false, &b, why, sizeof(why));   --max
 *   jcli_budget_check c;
 *   jcli_budget_check_runs(&b, runs, n, &c);       run
 *   jcli_budget_check_ratio(&b, "B", "A", f, &q, &c);   compare, per figure
 *   jcli_budget_print(&c);  jcli_budget_json(&c, json);
 *
 * A figure under a budget that the host does not give (memory without a
 * memory controller) is a breach: a budget that cannot be checked must
 * not pass.
 */
#ifndef JCLI_BUDGET_H
#define JCLI_BUDGET_H

#include "jcli_json.h"
#include "jcli_outcome.h"
#include "jcli_stats.h"

/* The exit status when a budget is exceeded and the commands succeeded. */
#define JCLI_EXIT_OVER_BUDGET 122

typedef struct {
  bool ratio; /* --max-ratio: limits are ratios to the first command */
  bool set[JCLI_FIG_COUNT];
  double limit[JCLI_FIG_COUNT]; /* seconds, bytes, joules, or a ratio */
} jcli_budget;

/* "cpu=2.5s,memory=512MiB": names of jcli_figs, values with a unit of
 * their kind (ratio: plain numbers > 0).  -EINVAL with a message in why
 * naming what is wrong. */
int jcli_budget_parse(const char *spec, bool ratio, jcli_budget *ret, char *why,
                      size_t size);

#define JCLI_BUDGET_LABEL_MAX 8
#define JCLI_BUDGET_ITEMS (26 * JCLI_FIG_COUNT)

typedef struct {
  jcli_fig fig;
  char label[JCLI_BUDGET_LABEL_MAX];   /* compare: the command, "B" */
  char against[JCLI_BUDGET_LABEL_MAX]; /* compare: "A" */
  bool measured;    /* false: the figure (or its interval) is not known */
  double value;     /* the figure, its median, or the ratio */
  double low, high; /* compare: the ratio's interval */
  size_t runs;      /* the runs behind value */
  double limit;
  bool over;
} jcli_budget_item;

typedef struct {
  bool ratio;
  jcli_budget_item item[JCLI_BUDGET_ITEMS];
  size_t count, breaches;
} jcli_budget_check;

/* Every budgeted figure of the runs: the run's, or the median of count. */
void jcli_budget_check_runs(const jcli_budget *b, const jcli_outcome *runs,
                            size_t count, jcli_budget_check *ret);

/* compare: figure f of label against the first command, whose ratio is
 * q (NULL: unknown).  Over when the whole interval is above the limit:
 * B is significantly worse than A by more than it allows.  ret must
 * have been emptied (jcli_budget_check_init) first. */
void jcli_budget_check_init(jcli_budget_check *c, bool ratio);
void jcli_budget_check_ratio(const jcli_budget *b, const char *label,
                             const char *against, jcli_fig f,
                             const jcli_stats_ratio *q, size_t runs,
                             jcli_budget_check *c);

/* The exit status of run and compare once the report is written: the
 * commands' first failure, else JCLI_EXIT_RUN_FAILED when the picture
 * was not drawn, else JCLI_EXIT_OVER_BUDGET when c (NULL: no budget) has
 * a breach, else 0. */
int jcli_budget_exit_status(int command_status, bool drawn,
                            const jcli_budget_check *c);

/* One line on stderr per breach. */
void jcli_budget_print(const jcli_budget_check *c);
/* "budget": {...} as a member of the open map. */
void jcli_budget_json(const jcli_budget_check *c, jcli_json *j);

/* A figure's value for people: "2.81 s", "512.0 MiB", "40.2 J". */
void jcli_budget_format(jcli_fig f, double v, char *buf, size_t size);

#endif
