/*
 * jcli_root — the cgroup v2 directory a subcommand works on, found or
 * checked, and the collector started there.  Each function returns 0 (or
 * a descriptor) or a negative errno, and prints its one error line
 * itself: its callers only stop.
 */
#ifndef JCLI_ROOT_H
#define JCLI_ROOT_H

#include "jc_collector.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The cgroup v2 directory to work on: `given` (--root, made absolute), or
 * the first cgroup2 mount of /proc/self/mountinfo when NULL.  With
 * real_only, a copy of a tree (fixtures) is refused: `run` needs the
 * kernel.  Writes the absolute path; returns an O_DIRECTORY fd, or a
 * negative errno after printing one error line.
 */
int jcli_open_root(const char *given, bool real_only, char *ret_path,
                   size_t size);

/*
 * The root cgroup of the hierarchy that dir (an absolute path from
 * jcli_open_root) is in: the top of its cgroup2 mount, the cgroup that
 * accounts for the whole machine (or, in a cgroup namespace, for the
 * container).  *ret_rel points into dir: its path below that root, ""
 * when dir is the root.  0, or a negative errno after printing one error
 * line.
 */
int jcli_hierarchy_root(const char *dir, char *ret_root, size_t size,
                        const char **ret_rel);

/*
 * Completes cfg with the root (an absolute path from jcli_open_root) and
 * starts a collector on it, into *ret: the baseline sample is taken.
 * Takes cfg.  0, or a negative errno (*ret NULL) after the error was
 * printed (by the core's log where its init failed).
 */
int jcli_collector_start(jc_config *cfg, const char *root, jc_collector **ret);

/* Both steps for list and sample: the root given (or found) checked, then
 * a collector started on it with cfg, which it takes, also on failure. */
int jcli_collector_at(const char *given_root, jc_config *cfg,
                      jc_collector **ret);

#endif
