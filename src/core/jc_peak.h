/*
 * jc_peak — the interval peak (docs/metrics.md, memory-peak_interval):
 * memory.peak read through a descriptor of its own that is reset after
 * each read, so that each read gives the highest memory.current since the
 * one before, from the kernel's own watermark (Linux 6.12 resets it per
 * descriptor; other readers of memory.peak, and the plugin's own
 * lifetime-peak descriptor, are not affected).
 *
 * The descriptor must live from read to read: jc_tracked keeps it first
 * in the descriptor budget.  Only on the kernel's cgroupfs (it is written
 * to, opened with jc_cgwrite_open like every file the plugin writes).
 * Where the kernel refuses the reset (before 6.12: EINVAL) the value is
 * given up for every cgroup, with one INFO line.  Used by jc_tracked.c
 * (open, forget) and jc_collector.c (reset).
 */
#ifndef JC_PEAK_H
#define JC_PEAK_H

#include "jc_collector.h"
#include "jc_sample.h"

#include <stdbool.h>

typedef struct jc_tracked jc_tracked;

/* A cgroup's interval peak. */
typedef struct {
  bool armed; /* its descriptor was reset once: a read gives the interval's */
} jc_peak_state;

/* Opens t's memory.peak for the interval peak (its directory opened for
 * the moment when t keeps none, and checked to be t's); a negative errno
 * (-ENOENT when the kernel will not reset it here). */
int jc_peak_open(jc_collector *c, jc_tracked *t);

/* After memory.peak was read into s through t's kept descriptor:
 * withholds the value when the descriptor was never reset (it is then the
 * lifetime peak), and resets it for the next read. */
void jc_peak_reset(jc_collector *c, jc_tracked *t, jc_sample *s);

/* t is another cgroup now, or its descriptor was closed. */
void jc_peak_forget(jc_tracked *t);

#endif
