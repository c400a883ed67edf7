/*
 * jc_managed — the <Cgroup> blocks of a collector: set up at init
 * (verify or create, hand controllers down, attach processes), released
 * at shutdown (evacuate and remove what was created, only while it is
 * still what was created).  Used by jc_collector.c (life cycle) and
 * jc_discover.c (managed paths are always tracked, with their Instance).
 */
#ifndef JC_MANAGED_H
#define JC_MANAGED_H

#include "jc_internal.h"
#include "jc_proc.h"

#include <sys/types.h>

/* A process a <Cgroup> block moved in, and where it was before. */
typedef struct {
  pid_t pid;
  char *origin; /* its cgroup, relative to CgroupRoot ("" for the root) */
  jc_proc_hold hold; /* from its check to its move (released then) */
} jc_moved;

/* What one <Cgroup> block made (c->managed[i] for cfg->managed[i]). */
typedef struct jc_managed_state {
  size_t created_levels; /* trailing path levels we created at init */
  uint64_t *ids; /* their cgroup ids, top-down: what is ours to remove */
  jc_moved *moved; /* where evacuation sends them back to */
  size_t moved_count;
} jc_managed_state;

/* 0, or a negative errno after one ERROR line; jc_managed_release()
 * undoes a half setup. */
int jc_managed_setup(jc_collector *c);
/* Evacuates and removes the levels setup created (unless kept).  Idempotent. */
void jc_managed_release(jc_collector *c);

bool jc_managed_is_path(const jc_collector *c, const char *relpath);
/* The Instance of a managed path, NULL when none was given. */
const char *jc_managed_instance(const jc_collector *c, const char *relpath);

#endif
