/*
 * jc_share — the energy model: how the energy a RAPL zone measured over an
 * interval is split between cgroups, by CPU time.  Pure arithmetic, no
 * state, no I/O.
 *
 * Over an interval the host spent T µs of CPU time (all CPUs, busy and
 * idle: jc_procstat), I of it idle, and the zone measured E µJ:
 *
 *   idle part        E × I / T
 *   a cgroup's part  E × u / T      u: its cpu.stat usage_usec over the
 *                                   interval (a parent's includes its
 *                                   children's, as cpu.stat does)
 *
 * so the parts of cgroups that together cover all the busy time B = T - I
 * (the top-level cgroups, and the root cgroup's own processes) add up with
 * the idle part to E.  The host counts its CPU time in scheduler ticks,
 * a cgroup exactly, so over short intervals the cgroups' time (`covered`:
 * the sum over the cgroups to be charged that are not inside one another)
 * can exceed B; then each is
 * charged E × (B / T) × u / covered instead, and they share the busy part
 * and no more.  Memory and I/O energy are not modelled: a zone's whole
 * energy, a dram zone's included, is split by CPU time (see the docs).
 *
 *   jc_share_split s;
 *   jc_share_split_energy(E, &host_delta, covered_usec, &s);
 *   charged = jc_share_charge(&s, usage_usec);    per cgroup
 */
#ifndef JC_SHARE_H
#define JC_SHARE_H

#include "jc_procstat.h"

#include <stdint.h>

typedef struct {
  double busy_uj;     /* E × B / T: what the cgroups share */
  double idle_uj;     /* E - busy_uj = E × I / T */
  double uj_per_usec; /* a cgroup's charge per µs of its CPU time */
} jc_share_split;

/*
 * Splits energy_uj over an interval in which the host spent *host (a
 * jc_cputimes_delta) and the cgroups to be charged covered_usec in all.
 * -EDOM when the host's CPU time did not move (T = 0: an interval shorter
 * than /proc/stat's resolution) or its idle time exceeds its total;
 * nothing is written then.
 */
int jc_share_split_energy(uint64_t energy_uj, const jc_cputimes *host,
                          uint64_t covered_usec, jc_share_split *ret);

/* The part of a cgroup that used usage_usec of CPU time in the interval. */
static inline double jc_share_charge(const jc_share_split *s,
                                     uint64_t usage_usec) {
  return s->uj_per_usec * (double)usage_usec;
}

#endif
