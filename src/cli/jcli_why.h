/*
 * jcli_why — why a figure of the command's documents cannot be known, in
 * the words `run`'s notes and `sample`'s "unknown" share
 * (docs/report-schema.md, nulls; joule-cgroup(1), sample): a cgroup that
 * lacks the controller a figure comes from, because the host binds it to
 * cgroup v1, the hierarchy does not have it, or the cgroup's parent does
 * not enable it for its children.  A figure absent by nature (no limit,
 * a kernel without the file) has no reason here: it is not unknown.
 *
 *   v1 = jcli_why_v1(rootfd);                      once
 *   jcli_why_no_controller(cgroup, top, v1, JC_CTRL_MEMORY, why, size);
 */
#ifndef JCLI_WHY_H
#define JCLI_WHY_H

#include <stdbool.h>
#include <stddef.h>

/* The controllers the host binds to cgroup v1 (/proc/cgroups), for a
 * hierarchy open as rootfd on the kernel's cgroup2; 0 for a copy of a
 * tree, which is not the host's. */
unsigned jcli_why_v1(int rootfd);

/*
 * Why cgroup (its path, for the reader) has none of controller bit
 * (JC_CTRL_*): "the memory controller is bound to cgroup v1 on this host
 * (/proc/cgroups), so P, in cgroup v2, has none"; where top (the root of
 * what is read, whose parent is not the command's to name) "... is not
 * available in P ..."; else "... is not enabled for the children of
 * PARENT, so P has none; enable it with: echo "+memory" >
 * PARENT/cgroup.subtree_control".  No trailing period.
 */
void jcli_why_no_controller(const char *cgroup, bool top, unsigned v1,
                            unsigned bit, char *why, size_t size);

#endif
