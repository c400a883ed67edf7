/*
 * jcli_passthru — see jcli_passthru.h.
 */
#include "jcli_passthru.h"

#include "jcli_stderr.h"
#include "jcli_write.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* A pipe's default capacity: one read empties a full pipe. */
#define CHUNK 65536

static void close_fd(int *fd) {
  if (*fd >= 0)
    close(*fd);
  *fd = -1;
}

int jcli_passthru_open(jcli_passthru *p, const char *pattern, int dest_fd) {
  char why[256];
  int ends[2];
  *p = (jcli_passthru){.fd = -1, .child_fd = -1, .dest_fd = dest_fd};
  p->markers = jcli_markers_new(pattern, why, sizeof(why));
  if (!p->markers) {
    jcli_error("--token-pattern \"%s\": %s", pattern, why);
    return -EINVAL;
  }
  if (pipe2(ends, O_CLOEXEC) < 0) {
    int e = errno;
    jcli_error("cannot make a pipe for the command's output: %s", strerror(e));
    jcli_passthru_close(p);
    return -e;
  }
  p->fd = ends[0];
  p->child_fd = ends[1];
  /* Non-blocking: the wait loop reads what is there and goes back to
   * sampling. */
  fcntl(p->fd, F_SETFL, fcntl(p->fd, F_GETFL) | O_NONBLOCK);
  return 0;
}

void jcli_passthru_started(jcli_passthru *p) { close_fd(&p->child_fd); }

/* The end of the output: the last line, even without a newline, counts. */
static void at_end(jcli_passthru *p, jcli_marker_fn fn, void *ctx) {
  jcli_markers_finish(p->markers, fn, ctx);
  close_fd(&p->fd);
}

/* Reads one chunk and passes it on.  false when nothing more is there. */
static bool pass_chunk(jcli_passthru *p, jcli_marker_fn fn, void *ctx) {
  char buf[CHUNK];
  if (p->fd < 0)
    return false;
  ssize_t len = read(p->fd, buf, sizeof(buf));
  if (len < 0)
    return errno == EINTR;
  if (len == 0) {
    at_end(p, fn, ctx);
    return false;
  }
  jcli_markers_feed(p->markers, buf, (size_t)len, fn, ctx);
  int r = jcli_write_all(p->dest_fd, buf, (size_t)len);
  if (r < 0) {
    if (r != -EPIPE)
      jcli_error("cannot pass the command's output on: %s", strerror(-r));
    p->refused = true;
    at_end(p, fn, ctx);
    return false;
  }
  return true;
}

void jcli_passthru_pump(jcli_passthru *p, jcli_marker_fn fn, void *ctx) {
  (void)pass_chunk(p, fn, ctx);
}

void jcli_passthru_drain(jcli_passthru *p, jcli_marker_fn fn, void *ctx) {
  while (pass_chunk(p, fn, ctx))
    ;
  /* Not at end of file: a process outside the cgroup still holds the
   * pipe (the command handed it on).  Its last line is not waited for. */
  if (p->fd >= 0)
    at_end(p, fn, ctx);
}

void jcli_passthru_close(jcli_passthru *p) {
  close_fd(&p->fd);
  close_fd(&p->child_fd);
  jcli_markers_free(p->markers);
  p->markers = NULL;
}
