/*
 * jc_attach — the processes of the <Cgroup> blocks: moved in at init, each
 * only once found safe to move (jc_pidfile for AttachPidFile, jc_proc for
 * every pid), held from that check to its move (jc_proc_hold: a process
 * that exited in between is not moved, nor the one that got its pid) and
 * remembered with the cgroup it came from; moved back there when
 * jc_managed empties a cgroup it created.  Used by jc_managed only.
 */
#ifndef JC_ATTACH_H
#define JC_ATTACH_H

#include "jc_managed.h"

/* Reads block b's pid files and checks each of its processes, before
 * anything is created: 0, or a negative errno after one ERROR line. */
int jc_attach_check(jc_managed_set *set, size_t b);

/* Moves the processes jc_attach_check found into block b's cgroup cgfd
 * (shown as `where`), each only while it is still the process checked,
 * and lets go of each hold.  0, or a negative errno after one ERROR line
 * (at the first that is not moved; jc_attach_forget lets go of the
 * others). */
int jc_attach_move(jc_managed_set *set, size_t b, int cgfd, const char *where);

/*
 * Empties cgfd, a cgroup block b created: each process goes back where it
 * came from, one we did not move where the first one we moved came from,
 * else into parentfd (the parent of what b created).  top, the top level
 * b created, is never a destination.  -EBUSY when some stay.
 */
int jc_attach_evacuate(const jc_managed_set *set, size_t b, int cgfd,
                       const char *top, int parentfd);

/* Forgets what block state st remembers, holds included. */
void jc_attach_forget(jc_managed_state *st);

#endif
