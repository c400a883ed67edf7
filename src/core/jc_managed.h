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

/* 0, or -1 after one ERROR line; jc_managed_release() undoes a half setup. */
int jc_managed_setup(jc_collector *c);
/* Evacuates and removes the levels setup created (unless kept).  Idempotent. */
void jc_managed_release(jc_collector *c);

bool jc_is_managed_path(const jc_collector *c, const char *relpath);
/* The Instance of a managed path, NULL when none was given. */
const char *jc_managed_instance(const jc_collector *c, const char *relpath);

#endif
