/*
 * jcli_stats — see jcli_stats.h.
 */
#include "jcli_stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int jcli_stats_summarize(double *values, size_t n, jcli_stats_summary *ret) {
  if (n == 0)
    return -EINVAL;
  for (size_t i = 0; i < n; i++)
    if (!isfinite(values[i]))
      return -EINVAL;
  qsort(values, n, sizeof(*values), cmp_double);
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += values[i];
  double mean = sum / (double)n, squares = 0;
  for (size_t i = 0; i < n; i++)
    squares += (values[i] - mean) * (values[i] - mean);
  *ret = (jcli_stats_summary){
      .n = n,
      .mean = mean,
      .median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2,
      .sd = n > 1 ? sqrt(squares / (double)(n - 1)) : 0,
      .min = values[0],
      .max = values[n - 1],
  };
  ret->cv = mean != 0 ? ret->sd / fabs(mean) : NAN;
  return 0;
}

/* ---- Student's t -------------------------------------------------------- */

#define TINY 1e-300

/* The continued fraction of the incomplete beta function (modified
 * Lentz), good where x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x) {
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (fabs(d) < TINY ? TINY : d);
  double h = d;
  for (int m = 1; m <= 1000; m++) {
    double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
    for (int k = 0; k < 2; k++) {
      double coef = k == 0 ? even : odd;
      d = 1 + coef * d;
      d = 1 / (fabs(d) < TINY ? TINY : d);
      c = 1 + coef / c;
      if (fabs(c) < TINY)
        c = TINY;
      h *= c * d;
      if (k == 1 && fabs(c * d - 1) < 1e-15)
        return h;
    }
  }
  return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double incomplete_beta(double a, double b, double x) {
  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;
  double front =
      exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
  if (x < (a + 1) / (a + b + 2))
    return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

#define NORMAL_DF 1e7

double jcli_stats_t_cdf(double t, double df) {
  if (isnan(t) || !(df > 0))
    return NAN;
  if (df > NORMAL_DF)
    return 0.5 * erfc(-t / sqrt(2));
  if (isinf(t))
    return t > 0 ? 1 : 0;
  double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

double jcli_stats_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0))
    return NAN;
  if (p < 0.5)
    return -jcli_stats_t_quantile(1 - p, df);
  double lo = 0, hi = 1;
  while (jcli_stats_t_cdf(hi, df) < p) {
    lo = hi;
    hi *= 2;
    if (isinf(hi))
      return INFINITY;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    double mid = (lo + hi) / 2;
    if (jcli_stats_t_cdf(mid, df) < p)
      lo = mid;
    else
      hi = mid;
  }
  return (lo + hi) / 2;
}

/* ---- the ratio of two means ------------------------------------------- */

/* Welch–Satterthwaite: the degrees of freedom of va + vb, variances of
 * means estimated from na and nb values (a side without variation adds
 * none). */
static double welch_df(double va, size_t na, double vb, size_t nb) {
  if (va == 0)
    return (double)(nb - 1);
  if (vb == 0)
    return (double)(na - 1);
  double denominator = va * va / (double)(na - 1) + vb * vb / (double)(nb - 1);
  return (va + vb) * (va + vb) / denominator;
}

/* Fieller: the ratios r with (mb - r ma)^2 <= t^2 (vb + r^2 va). */
static void fieller(double ma, double va, double mb, double vb, double t,
                    jcli_stats_ratio *ret) {
  double a2 = ma * ma - t * t * va;
  ret->bounded = a2 > 0;
  ret->low = ret->high = NAN;
  if (!ret->bounded)
    return; /* A's mean is not told from 0: every ratio fits, or two rays */
  double root = t * sqrt(vb * a2 + mb * mb * va); /* >= 0 when a2 > 0 */
  double r1 = (ma * mb - root) / a2, r2 = (ma * mb + root) / a2;
  ret->low = fmin(r1, r2);
  ret->high = fmax(r1, r2);
}

int jcli_stats_compare(const jcli_stats_summary *a, const jcli_stats_summary *b,
                       double level, jcli_stats_ratio *ret) {
  if (!(level > 0 && level < 1))
    return -EINVAL;
  if (a->mean == 0)
    return -EDOM;
  *ret = (jcli_stats_ratio){.ratio = b->mean / a->mean,
                            .low = NAN,
                            .high = NAN,
                            .df = NAN,
                            .p_value = NAN};
  if (a->n < 2 || b->n < 2)
    return 0;
  ret->have_interval = true;
  double va = a->sd * a->sd / (double)a->n, vb = b->sd * b->sd / (double)b->n;
  if (va + vb == 0) { /* no variation: the values are the means */
    ret->bounded = true;
    ret->low = ret->high = ret->ratio;
    ret->df = INFINITY;
    ret->significant = ret->ratio != 1;
    ret->p_value = ret->significant ? 0 : 1;
    return 0;
  }
  double r = ret->ratio;
  ret->df = welch_df(r * r * va, a->n, vb, b->n);
  double t = jcli_stats_t_quantile(1 - (1 - level) / 2, ret->df);
  fieller(a->mean, va, b->mean, vb, t, ret);
  /* The same test at ratio 1, with the same degrees of freedom: p < 1 -
   * level exactly when 1 is outside the interval. */
  double stat = fabs(b->mean - a->mean) / sqrt(va + vb);
  ret->p_value = 2 * jcli_stats_t_cdf(-stat, ret->df);
  ret->significant = stat > t;
  return 0;
}
