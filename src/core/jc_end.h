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
 * Used by jc_tracked.c (watch, forget, vanished) and jc_collector.c.
 */
#ifndef JC_END_H
#define JC_END_H

#include "jc_collector.h"
#include "jc_totals.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct jc_tracked jc_tracked;

/* A cgroup's end, as inotify and cgroup.events tell it. */
typedef struct {
  int wd;          /* the watch on its cgroup.events; -1: none */
  bool populated;  /* as its cgroup.events said last */
  bool frozen;     /* the same, of its frozen line */
  bool changed;    /* inotify: cgroup.events changed since it was read */
  uint64_t since_ns; /* when it was first seen populated */
} jc_end_state;

/* A new or re-created tracked cgroup: its watch and its populated state. */
void jc_end_watch(jc_collector *c, jc_tracked *t);

/* t is freed or re-created: its watch goes; a cgroup that vanished while
 * populated is counted (vanished: it is gone, not re-created). */
void jc_end_forget(jc_collector *c, jc_tracked *t, bool vanished);

/* An inotify event on watch wd that is not a directory's: marks the
 * cgroup whose cgroup.events it is.  True when it was one. */
bool jc_end_event(jc_collector *c, int wd);

/* The inotify instance is gone: no cgroup has a watch any more. */
void jc_end_unwatch_all(jc_collector *c);

/* Is any tracked cgroup's cgroup.events changed since it was read? */
bool jc_end_pending(const jc_collector *c);

/* t was marked: reads its cgroup.events; true when it has just ended
 * (populated 1 → 0): its files are to be read now. */
bool jc_end_ended(jc_collector *c, jc_tracked *t);

/* After t's final read: the NotifyEnd notification of its totals
 * (jc_totals, from that read; docs/configuration.md, NotifyEnd). */
void jc_end_notify(jc_collector *c, const jc_tracked *t,
                   const jc_totals *totals);

/* After a read pass: the INFO for cgroups lost since the last one. */
void jc_end_report_lost(jc_collector *c);

#endif
