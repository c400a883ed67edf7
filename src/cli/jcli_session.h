/*
 * jcli_session — what every measured run of `run` and `compare` shares,
 * set up once per invocation: the root the runs' cgroups go below (and
 * the root cgroup read beside them), the signals (SIGCHLD and the ones
 * forwarded to the command, on a signalfd; we become the child
 * subreaper), the output (--output or stdout), and the reader of the
 * figures with its energy meter.
 *
 *   jcli_session s;
 *   jcli_session_open(&s, &opts);        0, or -errno after one error line
 *   env = s.env; env.command = ...;      jcli_profile_run(&env, ...)
 *   jcli_session_close(&s);              always, also after a failed open
 *
 * The session borrows opts (its strings) for its whole life.
 */
#ifndef JCLI_SESSION_H
#define JCLI_SESSION_H

#include "jcli_opts.h"
#include "jcli_profile.h"

#include <limits.h>
#include <signal.h>

typedef struct {
  char root[PATH_MAX];
  char top[PATH_MAX]; /* the root cgroup */
  int rootfd, sigfd, outfd;
  sigset_t child_mask; /* the mask we started with, for the command */
  bool mask_changed;
  jcli_reader reader;
  jcli_profile_env env; /* command NULL: the caller sets it per run */
} jcli_session;

/* Opens everything the options name; interval 0 means the default.  0,
 * or a negative errno after one error line. */
int jcli_session_open(jcli_session *s, const jcli_opts *opts);
void jcli_session_close(jcli_session *s);

/* Only the output: --output FILE (NULL: stdout), into s->outfd, for a
 * command that runs nothing (compare of reports).  0, or a negative errno
 * after one error line. */
int jcli_session_open_output(jcli_session *s, const char *output);

#endif
