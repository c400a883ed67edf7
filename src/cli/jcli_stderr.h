/*
 * jcli_stderr — every line joule-cgroup writes on stderr: its own errors
 * and the core's log lines, each "joule-cgroup: ..." in one write.
 *
 * Nothing here writes to stdout: stdout carries the reports (and, with
 * run --phases, the command's own output passed on).
 */
#ifndef JCLI_STDERR_H
#define JCLI_STDERR_H

#define JCLI_PROGRAM "joule-cgroup"

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

#endif
