/*
 * jcli_common — what the joule-cgroup subcommands share: the one-line
 * error on stderr, the core's log lines, option values, finding the
 * cgroup v2 root, and clocks.
 *
 * Nothing here writes to stdout on its own: stdout carries the reports
 * (and, with run --phases, the command's own output passed on).
 */
#ifndef JCLI_COMMON_H
#define JCLI_COMMON_H

#include "jc_collector.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JCLI_PROGRAM "joule-cgroup"
/* collectd's own configuration (collectd -h: "Config file"). */
#define JCLI_COLLECTD_CONF "/etc/collectd/collectd.conf"

/* Exit statuses of list and sample; run ends with its command's status. */
enum {
  JCLI_EXIT_OK = 0,
  JCLI_EXIT_FAILURE = 1,
  JCLI_EXIT_USAGE = 2,
};

/* "joule-cgroup: <message>\n" on stderr, in one write. */
void jcli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The core's jc_log_fn: warnings and errors go to stderr as
 * "joule-cgroup: [warning: ]<message>"; notices, info and debug lines are
 * for collectd's log and are dropped here.
 */
void jcli_log(void *ctx, int level, const char *msg);
/* The same with notices and info lines too ("joule-cgroup: info: ..."),
 * for check, whose reader wants every line collectd's log would have. */
void jcli_log_info(void *ctx, int level, const char *msg);

/* "0.5", "2": seconds, 0.01 to 86400.  -1 when not such a number. */
int jcli_parse_seconds(const char *text, double *ret_seconds);
/* A whole number from 1 to LONG_MAX.  -1 when not such a number. */
int jcli_parse_count(const char *text, long *ret_count);

/*
 * The cgroup v2 directory to work on: `given` (--root, made absolute), or
 * the first cgroup2 mount of /proc/self/mountinfo when NULL.  With
 * real_only, a copy of a tree (fixtures) is refused: `run` needs the
 * kernel.  Writes the absolute path; returns an O_DIRECTORY fd, or -1 after
 * printing one error line.
 */
int jcli_open_root(const char *given, bool real_only, char *ret_path,
                   size_t size);

/*
 * The root cgroup of the hierarchy that dir (an absolute path from
 * jcli_open_root) is in: the top of its cgroup2 mount, the cgroup that
 * accounts for the whole machine (or, in a cgroup namespace, for the
 * container).  *ret_rel points into dir: its path below that root, ""
 * when dir is the root.  -1 after printing one error line.
 */
int jcli_hierarchy_root(const char *dir, char *ret_root, size_t size,
                        const char **ret_rel);

/*
 * Completes cfg with the root (an absolute path from jcli_open_root) and
 * starts a collector on it: the baseline sample is taken.  Takes cfg.
 * NULL after printing the error.
 */
jc_collector *jcli_collector_start(jc_config *cfg, const char *root);

/* Both steps for list and sample: the root given (or found) checked, then
 * a collector started on it with cfg, which it takes, also on failure. */
jc_collector *jcli_collector_at(const char *given_root, jc_config *cfg);

/* Was sig ignored (SIG_IGN) when we started?  A blocked signal is queued
 * even when ignored, so code that blocks signals to wait for them asks
 * this first, to keep the ignoring a parent asked for. */
bool jcli_signal_ignored(int sig);

double jcli_wall_seconds(void); /* Unix time */

/*
 * Room for one more element in an array of count elements of size bytes
 * with room for *cap: the array, doubled when full.  NULL when out of
 * memory (the array is then unchanged and still the caller's).
 */
void *jcli_grow(void *array, size_t count, size_t *cap, size_t size);

/* A command line as a shell would take it back: words joined by spaces,
 * a word with other characters than [A-Za-z0-9_./:=,+@%-] in single
 * quotes; cut at size.  argv NULL-terminated, or NULL: "". */
void jcli_command_text(char *const *argv, char *buf, size_t size);

/* Writes all of buf, retrying short writes and EINTR.  0 or -errno. */
int jcli_write_all(int fd, const void *buf, size_t len);

/* A document made in an open_memstream(&buf, &len) `out`: closed, then
 * written whole to fd unless making it failed (-ENOMEM); buf is freed.
 * 0 or -errno. */
int jcli_write_stream(FILE *out, char **buf, size_t *len, int fd);

#endif
