/*
 * jc_discover — which cgroups a collector tracks: walking the tree from
 * CgroupRoot, merging the result with the tracked set, and inotify
 * watches that say when to walk again.  Used by jc_collector.c only.
 */
#ifndef JC_DISCOVER_H
#define JC_DISCOVER_H

#include "jc_internal.h"

/* Path order of a walk: parents first, "/" below every other byte. */
int jc_path_cmp(const char *a, const char *b);

/* Sets up change notification (inotify); without it, every read walks. */
int jc_discover_init(jc_collector *c);
/* Drains the notifications; true when the set of cgroups may have changed. */
bool jc_discover_changed(jc_collector *c);
/* Walks the tree and merges what it finds into c->tracked. */
int jc_discover_rescan(jc_collector *c);
/* InstanceFrom "container": asks the runtime again for the names it had
 * not written yet (once per read; nothing to do in steady state). */
void jc_discover_retry_names(jc_collector *c);
/* Frees the cgroups a read pass found gone (t->gone). */
void jc_discover_drop_gone(jc_collector *c);
/* Closes t's descriptors and frees it.  NULL-safe. */
void jc_tracked_free(jc_collector *c, jc_tracked *t);

#endif
