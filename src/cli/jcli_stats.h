/*
 * jcli_stats — the statistics of `joule-cgroup compare`: a summary of
 * one command's values (mean, median, standard deviation, spread), and
 * the ratio of two commands' means with its confidence interval.
 *
 * The interval is Fieller's, with Welch's degrees of freedom: the set of
 * ratios r for which mean_B - r mean_A is not significantly different
 * from 0 by a t test whose variance is var_B / n_B + r^2 var_A / n_A.
 * It is exact for normal data, needs no random numbers (the same values
 * give the same interval), holds at small N where a bootstrap interval
 * is too narrow, and says "unbounded" where A's mean cannot be told from
 * 0.  docs/compare-schema.md says why this method and what it assumes.
 *
 *   jcli_stats_summary a, b;  jcli_stats_ratio q;
 *   jcli_stats_summarize(values_a, n_a, &a);       sorts values_a
 *   jcli_stats_summarize(values_b, n_b, &b);
 *   jcli_stats_compare(&a, &b, 0.95, &q);          B against A
 *
 * Pure functions: no allocation, no I/O.
 */
#ifndef JCLI_STATS_H
#define JCLI_STATS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  size_t n;
  double mean, median;
  double sd;       /* sample standard deviation (n - 1); 0 when n is 1 */
  double min, max; /* the spread: the smallest and the largest value */
  double cv;       /* sd / mean; NaN when the mean is 0 */
} jcli_stats_summary;

/* The n values (n >= 1, all finite; sorted here, in place).  -EINVAL when
 * n is 0 or a value is not finite. */
int jcli_stats_summarize(double *values, size_t n, jcli_stats_summary *ret);

typedef struct {
  double ratio;       /* mean B / mean A */
  bool have_interval; /* n >= 2 on both sides */
  bool bounded;       /* the interval is finite (else low, high are NaN) */
  double low, high;   /* the interval at the level asked */
  double df;          /* Welch–Satterthwaite degrees of freedom at ratio */
  double p_value;     /* two-sided, of "the means are equal"; NaN without
                         an interval */
  bool significant;   /* 1 is outside the interval (p < 1 - level) */
} jcli_stats_ratio;

/*
 * B against A at a confidence level in (0, 1), e.g. 0.95.  -EDOM when A's
 * mean is 0 (no ratio), -EINVAL for a level out of range.  Without
 * variation on either side (every value the same) the interval is the
 * ratio itself and significant says whether it is not 1.
 */
int jcli_stats_compare(const jcli_stats_summary *a, const jcli_stats_summary *b,
                       double level, jcli_stats_ratio *ret);

/* Student's t distribution with df > 0 degrees of freedom (not
 * necessarily whole): P(T <= t), and the t with P(T <= t) = p for p in
 * (0, 1).  The normal distribution beyond 1e7 degrees of freedom. */
double jcli_stats_t_cdf(double t, double df);
double jcli_stats_t_quantile(double p, double df);

#endif
