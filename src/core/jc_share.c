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
