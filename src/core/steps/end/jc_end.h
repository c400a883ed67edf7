/*
 * jc_end — the end of a cgroup's work (docs/metrics.md, final figures):
 * when a tracked cgroup empties (its cgroup.events says `populated 0`),
 * its files still hold its last figures until it is removed.  An inotify
 * watch on each tracked cgroup's cgroup.events (in the walk's inotify
 * instance) says when; the collector then reads that cgroup at once
 * (jc_collector_handle_events, or at the start of the next pass) and,
 * with NotifyEnd, sends one notification with its totals.  A cgroup that
 * was populated when it vanished had no final read: counted, and said in
 * one INFO per pass in which it happened.
 *
 * Costs nothing in the read pass but a flag test per cgroup: cgroup.events
 * is read when a walk finds the cgroup and when inotify says it changed
 * (and cpu.stat when a walk after init finds one empty: did a job run
 * there already?).
 * A step of the read pass (jc_step.h): its final hook says which
 * cgroups have just emptied, its ended hook sends their NotifyEnd
 * record, and its pending hook makes the collector read them between
 * passes.  The value lists of such a read are held: a cgroup that empties
 * and stays (a parent whose children come and go) sends only the points
 * of the read passes, at the interval's spacing; one that goes sends its
 * held lists, stamped with the time they were read, as soon as a walk or
 * a pass finds it gone.
 *
 * NotifyEnd's record tells an end from an emptying: it waits, with the
 * totals of the final read, until the cgroup goes (type instance and meta
 * data `end` "removed": a container, a unit that was removed) or a read
 * pass that began after the end finds it still there ("emptied": a
 * parent whose children come and go, a service whose cgroup is reused,
 * each job's accounting as before).  A cgroup told "emptied" that goes
 * later, with no job since, gets one "removed" record more, its totals
 * the same.  The collector freed: a record waiting is told "emptied".
 */
#ifndef JC_END_H
#define JC_END_H

#include "jc_step.h"
#include "jc_totals.h"

#include <stdbool.h>
#include <stdint.h>

/* A cgroup's end, as inotify and cgroup.events tell it (its slot). */
typedef struct {
  int wd;          /* the watch on its cgroup.events; -1: none */
  bool populated;  /* as its cgroup.events said last */
  bool frozen;     /* the same, of its frozen line */
  bool changed;    /* inotify: cgroup.events changed since it was read */
  bool reading;    /* its final read is under way: should it vanish now,
                      its final figures are lost */
  uint64_t since_ns; /* when it was first seen populated */
  uint64_t usage_usec; /* its cpu.stat's usage_usec at its last end told */
  struct jc_end_held *held; /* the value lists of its last final read
                               between passes, until a pass reads it
                               (it stayed) or it goes (they are sent) */
  size_t held_count, held_capacity;
  struct jc_end_record *record; /* NotifyEnd: its last end's record, until
                                   it is told whether the cgroup went
                                   ("removed") or stays ("emptied"); kept
                                   after "emptied", for its removal */
} jc_end_state;

#endif
