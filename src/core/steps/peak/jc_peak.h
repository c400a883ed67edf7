/*
 * jc_peak — the interval peak (docs/metrics.md, memory-peak_interval), a
 * step of the read pass (jc_step.h): memory.peak read through a
 * descriptor of its own that is reset after each read, so that each read
 * gives the highest memory.current since the one before, from the
 * kernel's own watermark (Linux 6.12 resets it per descriptor; other
 * readers of memory.peak, and the plugin's own lifetime-peak descriptor,
 * are not affected).
 *
 * The descriptor is jc_tracked's: it opens it for writing too (the file's
 * row says reset_after_read), on the kernel's cgroupfs only, and keeps it
 * first in the descriptor budget.  This step only reads what it gives:
 * the first read of a descriptor is the cgroup's lifetime peak and is
 * withheld; each read is followed by the reset.  Where the kernel refuses
 * the reset (before 6.12: EINVAL), or the descriptor cannot be had for
 * writing (not root), the step says so in one INFO line and the collector
 * reads the file no more.
 */
#ifndef JC_PEAK_H
#define JC_PEAK_H

#include "jc_step.h"

/* A cgroup's interval peak (its slot). */
typedef struct {
  bool armed; /* its descriptor was reset once: a read gives the interval's */
} jc_peak_state;

#endif
