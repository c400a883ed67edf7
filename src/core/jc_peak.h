/*
 * jc_peak — the interval peak (SPEC §5): memory.peak read through a
 * descriptor of its own that is reset after each read, so that each read
 * gives the highest memory.current since the one before, from the
 * kernel's own watermark (Linux 6.12 resets it per descriptor; other
 * readers of memory.peak, and the plugin's own lifetime-peak descriptor,
 * are not affected).
 *
 * The descriptor must live from read to read: it is kept like any stat
 * file, but only on the kernel's cgroupfs (it is written to, opened with
 * jc_cgwrite_open like every file the plugin writes) and only within the
 * descriptor budget; otherwise the cgroup has no interval peak.  Where the kernel refuses the reset (before 6.12: EINVAL) the
 * value is given up for every cgroup, with one INFO line.  Used by
 * jc_collector.c.
 */
#ifndef JC_PEAK_H
#define JC_PEAK_H

#include "jc_internal.h"

/* Opens t's memory.peak for the interval peak; a negative errno (-ENOENT
 * when it cannot be had: not cgroupfs, or no descriptor to spare). */
int jc_peak_open(jc_collector *c, jc_tracked *t);

/* After memory.peak was read into c->sample through t's descriptor:
 * withholds the value when the descriptor was never reset (it is then the
 * lifetime peak), and resets it for the next read. */
void jc_peak_reset(jc_collector *c, jc_tracked *t);

#endif
