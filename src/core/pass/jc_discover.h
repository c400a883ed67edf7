/*
 * jc_discover — which cgroups a collector tracks: walking the tree from
 * CgroupRoot, merging the result with the tracked set, and inotify
 * watches that say when to walk again.  Used by jc_collector.c only.
 */
#ifndef JC_DISCOVER_H
#define JC_DISCOVER_H

#include "jc_internal.h"

/* Sets up change notification (inotify); without it (said in a NOTICE),
 * every read walks. */
void jc_discover_init(jc_collector *c);
/* Drains the notifications; true when the set of cgroups may have changed. */
bool jc_discover_changed(jc_collector *c);
/* Walks the tree and merges what it finds into c->tracked.  A walk that
 * fails (out of memory) or sees only part of the tree says so and sets
 * c->rescan_needed: the next read walks again. */
void jc_discover_rescan(jc_collector *c);
/* Frees the cgroups a read pass found gone (t->gone). */
void jc_discover_drop_gone(jc_collector *c);

#endif
