/*
 * jcli_session — see jcli_session.h.
 */
#include "jcli_session.h"

#include "jcli_markers.h"
#include "jcli_root.h"
#include "jcli_signal.h"
#include "jcli_stderr.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_INTERVAL 0.1

int jcli_session_open_output(jcli_session *s, const char *output) {
  if (!output) {
    s->outfd = STDOUT_FILENO;
    return 0;
  }
  s->outfd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (s->outfd >= 0)
    return 0;
  int e = errno;
  jcli_error("--output \"%s\": %s", output, strerror(e));
  return -e;
}

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* SIGCHLD and the forwarded signals arrive on a signalfd; CMD gets the
 * mask we started with.  A signal ignored when we started (nohup, `cmd &`
 * in a script) stays ignored: CMD inherits that, and we do not forward.
 * SIGPIPE is blocked, not ignored, so that a closed stdout turns into
 * EPIPE here without CMD inheriting an ignored SIGPIPE. */
static int take_signals(jcli_session *s) {
  sigset_t set, blocked;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (size_t i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++)
    if (!jcli_signal_ignored(forwarded[i]))
      sigaddset(&set, forwarded[i]);
  blocked = set;
  sigaddset(&blocked, SIGPIPE);
  /* An inherited SIG_IGN for SIGCHLD would reap CMD behind our back and
   * lose its exit status. */
  signal(SIGCHLD, SIG_DFL);
  if (sigprocmask(SIG_BLOCK, &blocked, &s->child_mask) == 0)
    s->mask_changed = true;
  if (s->mask_changed)
    s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (s->sigfd < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
    int e = errno;
    jcli_error("cannot watch for signals: %s", strerror(e));
    return -e;
  }
  return 0;
}

static int check_writable(const jcli_session *s) {
  if (faccessat(s->rootfd, ".", W_OK, AT_EACCESS) == 0)
    return 0;
  int e = errno;
  jcli_error("cannot create a cgroup in %s: %s; run joule-cgroup as root, or "
             "give --root a cgroup delegated to you",
             s->root, strerror(e));
  return -e;
}

int jcli_session_open(jcli_session *s, const jcli_opts *opts) {
  *s = (jcli_session){
      .rootfd = -1, .sigfd = -1, .outfd = -1, .reader = {.meminfo_fd = -1}};
  const char *below_top;
  int r = s->rootfd =
      jcli_open_root(opts->root, true, s->root, sizeof(s->root));
  if (r >= 0)
    r = check_writable(s);
  if (r == 0)
    r = jcli_hierarchy_root(s->root, s->top, sizeof(s->top), &below_top);
  if (r == 0)
    r = jcli_session_open_output(s, opts->output);
  if (r == 0)
    r = take_signals(s);
  if (r < 0)
    return r;
  jcli_reader_init(&s->reader);
  jcli_energy_open(&s->reader.energy, opts->powercap_root, opts->proc_stat,
                   opts->cpu_root);
  const char *pattern =
      opts->token_pattern ? opts->token_pattern : JCLI_MARKERS_DEFAULT;
  s->env = (jcli_profile_env){
      .root = s->root,
      .rootfd = s->rootfd,
      .top = s->top,
      .below_top = below_top,
      .sigfd = s->sigfd,
      .child_mask = &s->child_mask,
      .interval = opts->interval > 0 ? opts->interval : DEFAULT_INTERVAL,
      .keep = opts->keep,
      .token_pattern = opts->phases ? pattern : NULL,
      .pass_fd = STDOUT_FILENO,
      .reader = &s->reader,
      .series = opts->samples || opts->plot,
      .gpu_library = opts->gpu_library,
      .proc_root = opts->proc_root,
  };
  return 0;
}

static void close_fd(int *fd) {
  if (*fd > STDERR_FILENO)
    close(*fd);
  *fd = -1;
}

/* A write to a closed stdout left a SIGPIPE pending: take it before the
 * mask is given back, or it would end us with the wrong status. */
static void discard_sigpipe(void) {
  sigset_t pipe_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  struct timespec zero = {0, 0};
  while (sigtimedwait(&pipe_set, NULL, &zero) > 0)
    ;
}

void jcli_session_close(jcli_session *s) {
  close_fd(&s->sigfd);
  if (s->mask_changed) {
    discard_sigpipe();
    sigprocmask(SIG_SETMASK, &s->child_mask, NULL);
    s->mask_changed = false;
  }
  jcli_reader_release(&s->reader);
  close_fd(&s->rootfd);
  close_fd(&s->outfd);
}
