/*
 * jc_share — see jc_share.h.
 */
#include "jc_share.h"

#include <errno.h>

int jc_share_split_energy(uint64_t energy_uj, const jc_cputimes *host,
                          uint64_t covered_usec, jc_share_split *ret) {
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
  s.uj_per_usec = covered_usec <= busy ? e / (double)total
                                       : s.busy_uj / (double)covered_usec;
  *ret = s;
  return 0;
}

/* ---- stretches ------------------------------------------------------------ */

void jc_share_host_start(jc_share_host *h, bool have, const jc_cputimes *now) {
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

jc_share_rule jc_share_host_end(jc_share_host *h, bool have,
                                const jc_cputimes *now, bool final) {
  jc_cputimes d;
  if (!have || !h->have_base || jc_procstat_delta(&h->base, now, &d) < 0)
    h->rule = JC_SHARE_NONE;
  else
    h->rule = rule_of(h, &d, final);
  if (h->rule == JC_SHARE_OWN) {
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
                        const jc_rapl_energy *now, uint64_t covered_usec,
                        jc_share_split *ret) {
  /* total_uj's difference is all the zone's energy between two reads
   * exactly when both read it and no interval was given up (jc_rapl). */
  bool known = z->have_base && now->read && now->gaps == z->base_gaps;
  uint64_t energy_uj = now->total_uj - z->base_uj;
  if (h->rule != JC_SHARE_WAIT)
    jc_share_zone_start(z, now);
  if (!known || (h->rule != JC_SHARE_OWN && h->rule != JC_SHARE_PREVIOUS))
    return -1;
  return jc_share_split_energy(energy_uj, &h->last, covered_usec, ret) < 0
             ? -1
             : 0;
}
