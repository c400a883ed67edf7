/*
 * jcli_passthru — the command's standard output through a pipe, for
 * `run --phases`: every byte that comes out of the pipe is written on,
 * unchanged and at once, to where the command's output would have gone,
 * and the marker lines are found on the way (jcli_markers).
 *
 *   jcli_passthru_open(&p, pattern, dest_fd)   the pipe; p.child_fd is
 *                                              the command's stdout
 *   jcli_passthru_started(&p)                  after the command started
 *   jcli_passthru_pump(&p, fn, ctx)            when p.fd is readable
 *   jcli_passthru_drain(&p, fn, ctx)           when the command is gone
 *   jcli_passthru_close(&p)
 *
 * A marker's callback runs before the bytes that hold it are written on,
 * so its reading is stamped as early as the line is known.  When the
 * destination refuses a write (a reader that went away: EPIPE), the pipe
 * is closed, and the command meets the same refusal on its next write,
 * as it would have without us.
 */
#ifndef JCLI_PASSTHRU_H
#define JCLI_PASSTHRU_H

#include "jcli_markers.h"

#include <stdbool.h>

typedef struct {
  int fd;       /* our end, non-blocking; -1 at end of file or when closed */
  int child_fd; /* the command's end until it started; then -1 */
  int dest_fd;  /* where the bytes go on */
  jcli_markers *markers;
  bool refused; /* the destination refused a write */
} jcli_passthru;

/* 0, or a negative errno after printing one error line. */
int jcli_passthru_open(jcli_passthru *p, const char *pattern, int dest_fd);
void jcli_passthru_started(jcli_passthru *p);

/* Passes on one chunk that is ready; markers in it call fn. */
void jcli_passthru_pump(jcli_passthru *p, jcli_marker_fn fn, void *ctx);
/* Passes on everything still in the pipe, then ends the last line. */
void jcli_passthru_drain(jcli_passthru *p, jcli_marker_fn fn, void *ctx);

void jcli_passthru_close(jcli_passthru *p); /* idempotent */

#endif
