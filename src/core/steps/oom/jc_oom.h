/*
 * jc_oom — OOM kills as notifications (NotifyOOM, docs/configuration.md).
 *
 * memory.events' oom_kill is hierarchical: a kill counts in its cgroup and
 * in every ancestor.  After each read pass (never after the final reads
 * between passes, jc_end, whose growth waits for the pass, so that a
 * parent that ended first cannot tell its child's kill before the child
 * is read), every kill is told once, by
 * the deepest tracked cgroup that contains it: a cgroup's growth minus
 * the growth of its nearest tracked descendants.  Above every tracked
 * cgroup stands the top: CgroupRoot's own memory.events, or /proc/vmstat's
 * oom_kill when CgroupRoot is the kernel's root cgroup (which has no
 * memory.events).  A kill in a cgroup that vanished before its next read
 * is told by its nearest tracked ancestor (or the top) as a kill below it
 * in a cgroup that no longer exists.
 *
 * Where collectd may read the kernel's log (/dev/kmsg, jc_kmsg), each
 * notification also names the process killed, its cgroup and the cgroup
 * whose limit fired: the reports the log holds at the end of a pass in
 * which a kill counted, paired with the cgroups that tell them (a report
 * at or below the telling cgroup).  Without the log, the message is the
 * same less those facts.
 *
 * Parents are read before their children in a pass, so a kill that lands
 * between the two reads shows in the child first: the parent's share goes
 * negative for one read and is owed back, never told twice.
 *
 * A step of the read pass (jc_step.h), on with NotifyOOM where the memory
 * controller is, which asks the pass for each cgroup's memory.events
 * (whatever the value lists read); its per-cgroup state is its slot in
 * jc_tracked.
 * Nothing here costs anything in a pass unless a kill happened or a
 * tracked cgroup vanished.
 */
#ifndef JC_OOM_H
#define JC_OOM_H

#include "jc_collector.h"
#include "jc_sample.h"

#include <stdbool.h>
#include <stdint.h>

/* The OOM kills one cgroup (or the top) counted. */
typedef struct {
  uint64_t last;       /* hierarchical oom_kill at the last read */
  bool seen;           /* `last` holds a read: this one counts kills */
  uint64_t growth;     /* this pass */
  uint64_t below;      /* this pass: the nearest counting descendants' growth */
  int64_t owed;        /* kills not told yet; negative: told ahead */
  bool lost_below;     /* a tracked descendant vanished since the last pass */
  uint64_t memory_max; /* effective, at the last read (for the message);
                          read from the files then when limits are not
                          collected */
  uint64_t peak;       /* memory.peak at the last read; JC_VALUE_MAX: none */
} jc_oom_state;

/* Reads the kernel's log from path, whose paths put CgroupRoot at
 * root_cgroup ("/": the kernel's root).  The step's init opens /dev/kmsg
 * so; tests open a file beside a copy of a tree.  0 or a negative errno
 * (-EINVAL when NotifyOOM is off). */
int jc_oom_open_log(const jc_collector *c, const char *path,
                    const char *root_cgroup);

/* Is the kernel's log read (for tests)? */
bool jc_oom_has_log(const jc_collector *c);

#endif
