/*
 * jcli_lists — the value lists of one read, cgroup by cgroup, as `sample`
 * prints them and `check` counts them.
 *
 * A cgroup's own lists come together, cgroup after cgroup; those a step
 * sends at the end of the read (Collect "network", "disk") come after
 * every cgroup's.  Each is kept (its strings copied: a cgroup found gone
 * is freed before the read ends) and, once the read is over, put under
 * its cgroup, the cgroups in the order they first came:
 *
 *   jcli_lists *l = jcli_lists_new();
 *   jc_collector_read(c, jcli_lists_add, l);
 *   jcli_lists_group(l);           // sorts: n log n, whatever the order
 *   for (size_t i = 0; i < jcli_lists_cgroups(l); i++) ...
 *   jcli_lists_free(l);
 */
#ifndef JCLI_LISTS_H
#define JCLI_LISTS_H

#include "jc_collector.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct jcli_lists jcli_lists;

/* One cgroup's: its lists are jcli_lists_metric(l, first ... first +
 * count - 1). */
typedef struct {
  const char *instance, *relpath;
  size_t first, count;
} jcli_lists_cgroup;

jcli_lists *jcli_lists_new(void); /* NULL: out of memory */
void jcli_lists_free(jcli_lists *l);   /* NULL-safe */

/* jc_collect_fn, ctx a jcli_lists. */
void jcli_lists_add(void *ctx, const jc_target *t, const jc_metric *m);

/* After the read: groups them; -ENOMEM when a list could not be kept
 * (the read's or now). */
int jcli_lists_group(jcli_lists *l);

size_t jcli_lists_cgroups(const jcli_lists *l);
const jcli_lists_cgroup *jcli_lists_at(const jcli_lists *l, size_t i);
/* The cgroup at relpath, or NULL when it sent nothing (by bisection). */
const jcli_lists_cgroup *jcli_lists_find(const jcli_lists *l,
                                         const char *relpath);
/* List k of the grouped order (jcli_lists_cgroup's first...). */
jc_metric jcli_lists_metric(const jcli_lists *l, size_t k);

#endif
