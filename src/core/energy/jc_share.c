/*
 * jc_share — see jc_share.h.
 */
#include "jc_share.h"

#include <errno.h>

int jc_share_split_energy(uint64_t energy_uj, const jc_cputimes *host,
                          double covered_usec, jc_share_split *ret) {
  uint64_t total = host->total_usec, idle = host->idle_usec;
  if (total == 0 || idle > total)
    return -EDOM;
  uint64_t busy = total - idle;
  double e = (double)energy_uj;
  jc_share_split s;
  /* The busy part from the busy time itself: exactly 0 on an idle host,
   * whatever the rounding of the idle part. */
  s.busy_uj = e * (double)busy / (double)total;
  if (s.busy_uj > e)
    s.busy_uj = e;
  s.idle_uj = e - s.busy_uj;
  /* E / T as such while the cgroups fit in the busy time, so that a
   * charge is E × u / T to the last bit; else the busy part shared out. */
  s.uj_per_usec = covered_usec <= (double)busy
                      ? e / (double)total
                      : s.busy_uj / covered_usec;
  *ret = s;
  return 0;
}

/* ---- stretches ------------------------------------------------------------ */

void jc_share_host_start(jc_share_host *h, bool have, const jc_share_cpu *now) {
  *h = (jc_share_host){.have_base = have, .rule = JC_SHARE_NONE};
  if (have)
    h->base = *now;
}

/* The rule of a stretch whose CPU time is known: d (from the base). */
static jc_share_rule rule_of(const jc_share_host *h, const jc_cputimes *d,
                             bool final) {
  if (d->total_usec > 0)
    return JC_SHARE_OWN;
  if (h->have_last)
    return JC_SHARE_PREVIOUS;
  return final ? JC_SHARE_NONE : JC_SHARE_WAIT;
}

/* The domains' CPU time over the stretch from the base to now; a domain
 * not known at both ends (their counts differ) or gone back is 0. */
static void domain_deltas(const jc_share_cpu *base, const jc_share_cpu *now,
                          jc_share_cpu *ret) {
  ret->domains = now->domains;
  for (uint32_t d = 0; d < now->domains && d < JC_SHARE_DOMAINS_MAX; d++)
    if (base->domains != now->domains ||
        jc_procstat_delta(&base->domain[d], &now->domain[d],
                          &ret->domain[d]) < 0)
      ret->domain[d] = (jc_cputimes){0, 0};
}

jc_share_rule jc_share_host_end(jc_share_host *h, bool have,
                                const jc_share_cpu *now, bool final) {
  jc_share_cpu d;
  if (!have || !h->have_base ||
      jc_procstat_delta(&h->base.host, &now->host, &d.host) < 0)
    h->rule = JC_SHARE_NONE;
  else
    h->rule = rule_of(h, &d.host, final);
  if (h->rule == JC_SHARE_OWN) {
    domain_deltas(&h->base, now, &d);
    h->have_last = true;
    h->last = d;
  }
  if (h->rule != JC_SHARE_WAIT) {
    h->have_base = have;
    if (have)
      h->base = *now;
  }
  return h->rule;
}

void jc_share_usage_start(jc_share_usage *u, bool have, uint64_t usage_usec) {
  *u = (jc_share_usage){.have_base = have, .base_usec = usage_usec};
}

void jc_share_usage_end(jc_share_usage *u, jc_share_rule rule, bool have,
                        uint64_t usage_usec) {
  bool known = have && u->have_base && usage_usec >= u->base_usec;
  if (rule == JC_SHARE_WAIT && known) {
    u->charged = false;
    return; /* the stretch goes on */
  }
  if (rule == JC_SHARE_OWN) {
    u->have_last = known;
    u->last_usec = known ? usage_usec - u->base_usec : 0;
  } else if (!known) {
    u->have_last = false; /* what it used before may be another's */
  }
  u->charged = (rule == JC_SHARE_OWN || rule == JC_SHARE_PREVIOUS) &&
               u->have_last;
  u->have_base = have;
  u->base_usec = usage_usec;
}

void jc_share_zone_start(jc_share_zone *z, const jc_rapl_energy *now) {
  z->have_base = now->read;
  z->base_uj = now->total_uj;
  z->base_gaps = now->gaps;
}

int jc_share_zone_split(jc_share_zone *z, const jc_share_host *h,
                        const jc_rapl_energy *now, int domain,
                        double covered_usec, jc_share_split *ret) {
  /* total_uj's difference is all the zone's energy between two reads
   * exactly when both read it and no interval was given up (jc_rapl). */
  bool known = z->have_base && now->read && now->gaps == z->base_gaps;
  uint64_t energy_uj = now->total_uj - z->base_uj;
  if (h->rule != JC_SHARE_WAIT)
    jc_share_zone_start(z, now);
  if (!known || (h->rule != JC_SHARE_OWN && h->rule != JC_SHARE_PREVIOUS))
    return -ENODATA;
  const jc_cputimes *times =
      domain < 0 ? &h->last.host
                 : (uint32_t)domain < h->last.domains ? &h->last.domain[domain]
                                                      : NULL;
  if (!times)
    return -ENODATA;
  return jc_share_split_energy(energy_uj, times, covered_usec, ret);
}

/* ---- parties ---------------------------------------------------------------- */

/* How party p's own time (not its children's) spreads over the domains
 * its cpuset allows: weights w[d] summing to 1, or all 0 when it has no
 * CPU in any domain.  By the busy time of each domain over the stretch,
 * else (nothing busy) by its whole time. */
static void spread(const jc_share_cpu *last, uint64_t mask, double *w) {
  uint32_t n = last->domains;
  uint64_t all = n >= 63 ? ~JC_SHARE_OUTSIDE : (UINT64_C(1) << n) - 1;
  uint64_t in = mask ? mask & all : all;
  double sum = 0;
  for (int pass = 0; pass < 2 && sum <= 0; pass++) {
    sum = 0;
    for (uint32_t d = 0; d < n; d++) {
      const jc_cputimes *t = &last->domain[d];
      double busy = t->idle_usec <= t->total_usec
                        ? (double)(t->total_usec - t->idle_usec)
                        : 0;
      w[d] = !(in & (UINT64_C(1) << d)) ? 0
             : pass == 0                ? (busy > 0 ? busy : 0)
                                        : (double)t->total_usec;
      sum += w[d];
    }
  }
  for (uint32_t d = 0; d < n; d++)
    w[d] = sum > 0 ? w[d] / sum : 0;
}

/* The one domain of mask, or -1 when it has none or several (or CPUs
 * outside every domain). */
static int single_domain(uint64_t mask, uint32_t domains) {
  if (mask == 0 || (mask & JC_SHARE_OUTSIDE) || (mask & (mask - 1)))
    return -1;
  int d = __builtin_ctzll(mask);
  return (uint32_t)d < domains ? d : -1;
}

void jc_share_domain_times(const jc_share_host *h, const jc_share_party *p,
                           size_t n, double *ret_on, double *work) {
  uint32_t D = h->last.domains;
  if (D == 0)
    return;
  size_t stride = (size_t)D + 1; /* per party: its children's time per
                                    domain, then their whole time */
  for (size_t k = 0; k < n * stride; k++)
    work[k] = 0;
  double w[JC_SHARE_DOMAINS_MAX];
  /* Children come after their parents: from the last, each party's time
   * is known before its parent's is made. */
  for (size_t i = n; i-- > 0;) {
    double *on = ret_on + i * D, *children = work + i * stride;
    int only = single_domain(p[i].mask, D);
    double own = (double)p[i].usec - children[D];
    spread(&h->last, p[i].mask, w);
    for (uint32_t d = 0; d < D; d++)
      on[d] = only >= 0 ? (d == (uint32_t)only ? (double)p[i].usec : 0)
                        : children[d] + (own > 0 ? own * w[d] : 0);
    if (p[i].parent >= 0 && (size_t)p[i].parent < i) {
      double *up = work + (size_t)p[i].parent * stride;
      for (uint32_t d = 0; d < D; d++)
        up[d] += on[d];
      up[D] += (double)p[i].usec;
    }
  }
}

double jc_share_covered(const jc_share_party *p, size_t n, const double *on,
                        uint32_t domains, int domain) {
  double covered = 0;
  for (size_t i = 0; i < n; i++)
    if (p[i].parent < 0)
      covered += jc_share_time_of(p, i, on, domains, domain);
  return covered;
}
