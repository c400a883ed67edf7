/*
 * jcli_run — `joule-cgroup run -- CMD`: the joule-profiler job for one
 * command.  Create a fresh cgroup "joule-cgroup-run-<pid>" under the root,
 * start CMD inside it (jcli_spawn), sample it every interval, and when CMD
 * and every process it started have exited, print one JSON report
 * (jcli_report) and remove the cgroup (unless --keep).
 *
 * The cgroup is a managed cgroup of the core (<Cgroup ... Create true>),
 * so creating, sampling and removing it is the plugin's own code.
 *
 * Waiting is one ppoll() on a signalfd (SIGCHLD, and the signals we
 * forward to CMD) and on the cgroup's cgroup.events (the kernel flags it
 * when "populated" changes), with the next sample as the timeout.  We are
 * the child subreaper, so orphans of CMD are reaped here too.
 */
#include "jcli_commands.h"
#include "jcli_common.h"
#include "jcli_json.h"
#include "jcli_opts.h"
#include "jcli_report.h"
#include "jcli_spawn.h"

#include "jc_clock.h"
#include "jc_hier.h"
#include "jc_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_INTERVAL 0.1
#define NAME_PREFIX "joule-cgroup-run-"

/* joule-cgroup's own failure, as env(1), nice(1) and timeout(1) report it:
 * 126 and 127 are the command's (cannot execute, not found). */
enum { EXIT_RUN_FAILED = 125, EXIT_CANNOT_EXECUTE = 126, EXIT_NOT_FOUND = 127 };

typedef struct {
  jcli_opts opts;
  double interval;
  char root[PATH_MAX];
  char name[64];         /* the cgroup, relative to root */
  char cgroup[PATH_MAX]; /* and its full path */
  jc_collector *collector;
  int rootfd, cgfd, eventsfd, sigfd, outfd;
  sigset_t child_mask; /* the mask we started with, for CMD */
  bool mask_changed;
  pid_t pid;
  bool cmd_done, empty;
  int wstatus;
  uint64_t t_start, t_end;
  jcli_report report;
} run_state;

/* ---- setting up ------------------------------------------------------- */

/* A name nobody uses: "joule-cgroup-run-<pid>", or with a suffix when a
 * --keep run of an earlier process with our pid left its cgroup. */
static int choose_name(run_state *s) {
  for (int n = 0; n < 100; n++) {
    if (n == 0)
      snprintf(s->name, sizeof(s->name), NAME_PREFIX "%d", (int)getpid());
    else
      snprintf(s->name, sizeof(s->name), NAME_PREFIX "%d.%d", (int)getpid(), n);
    if (faccessat(s->rootfd, s->name, F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
        errno == ENOENT) {
      snprintf(s->cgroup, sizeof(s->cgroup), "%s/%s", s->root, s->name);
      return 0;
    }
  }
  jcli_error("%s/" NAME_PREFIX "%d and its variants exist already; remove "
             "them with rmdir",
             s->root, (int)getpid());
  return -1;
}

/* The run's cgroup as a <Cgroup "name"> block: created, sampled, removed
 * (or kept) by the core. */
static int configure(run_state *s) {
  char err[512];
  jc_config *cfg = s->opts.cfg;
  cfg->report_root = false;
  jc_managed *m = jc_config_add_managed(cfg, s->name, err, sizeof(err));
  if (!m || jc_managed_set_instance(m, "run", err, sizeof(err)) < 0) {
    jcli_error("%s: %s", s->name, err);
    return -1;
  }
  m->create = true;
  m->keep = s->opts.keep;
  return 0;
}

static int open_output(run_state *s) {
  if (!s->opts.output) {
    s->outfd = STDOUT_FILENO;
    return 0;
  }
  s->outfd = open(s->opts.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                  0666);
  if (s->outfd < 0)
    jcli_error("--output \"%s\": %s", s->opts.output, strerror(errno));
  return s->outfd < 0 ? -1 : 0;
}

/* Reads "populated" from cgroup.events; also re-arms its notification. */
static int read_populated(int eventsfd, bool *ret_populated) {
  char buf[256];
  ssize_t len = pread(eventsfd, buf, sizeof(buf), 0);
  if (len < 0)
    return -errno;
  jc_cursor cur;
  jc_cursor_init(&cur, buf, (size_t)len);
  jc_token key;
  uint64_t value;
  int r;
  while ((r = jc_flat_next(&cur, &key, &value)) != 0)
    if (r > 0 && jc_token_eq(key, "populated")) {
      *ret_populated = value != 0;
      return 0;
    }
  return -EINVAL;
}

static int open_cgroup(run_state *s) {
  s->cgfd = openat(s->rootfd, s->name,
                   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (s->cgfd >= 0)
    s->eventsfd = openat(s->cgfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
  int r = s->eventsfd < 0 ? -errno : 0;
  bool populated;
  if (r == 0)
    r = read_populated(s->eventsfd, &populated);
  if (r < 0)
    jcli_error("cannot read %s/cgroup.events: %s", s->cgroup, strerror(-r));
  return r;
}

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* SIGCHLD and the forwarded signals arrive on a signalfd; CMD gets the
 * mask we started with.  A signal ignored when we started (nohup, `cmd &`
 * in a script) stays ignored: CMD inherits that, and we do not forward. */
static int take_signals(run_state *s) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (size_t i = 0; i < sizeof(forwarded) / sizeof(*forwarded); i++)
    if (!jcli_signal_ignored(forwarded[i]))
      sigaddset(&set, forwarded[i]);
  /* An inherited SIG_IGN for SIGCHLD would reap CMD behind our back and
   * lose its exit status. */
  signal(SIGCHLD, SIG_DFL);
  if (sigprocmask(SIG_BLOCK, &set, &s->child_mask) == 0)
    s->mask_changed = true;
  if (s->mask_changed)
    s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (s->sigfd < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
    jcli_error("cannot watch for signals: %s", strerror(errno));
    return -1;
  }
  return 0;
}

static int check_writable(const run_state *s) {
  if (faccessat(s->rootfd, ".", W_OK, AT_EACCESS) == 0)
    return 0;
  jcli_error("cannot create a cgroup in %s: %s; run joule-cgroup as root, or "
             "give --root a cgroup delegated to you",
             s->root, strerror(errno));
  return -1;
}

static int set_up(run_state *s) {
  s->rootfd = jcli_open_root(s->opts.root, true, s->root, sizeof(s->root));
  if (s->rootfd < 0 || check_writable(s) < 0 || choose_name(s) < 0 ||
      configure(s) < 0 || open_output(s) < 0)
    return -1;
  s->collector = jcli_collector_start(s->opts.cfg, s->root);
  s->opts.cfg = NULL; /* taken */
  if (!s->collector || open_cgroup(s) < 0 || take_signals(s) < 0)
    return -1;
  return 0;
}

/* ---- running ---------------------------------------------------------- */

static int start_command(run_state *s) {
  jcli_spawn_result sp;
  s->t_start = jc_now_ns();
  jcli_spawn(s->cgfd, s->opts.command, &s->child_mask, &sp);
  s->pid = sp.pid;
  const char *cmd = s->opts.command[0];
  switch (sp.stage) {
  case JCLI_SPAWN_OK:
    signal(SIGPIPE, SIG_IGN); /* a closed stdout must not skip cleanup */
    return 0;
  case JCLI_SPAWN_START:
    jcli_error("cannot start \"%s\": %s", cmd, strerror(sp.error));
    return EXIT_RUN_FAILED;
  case JCLI_SPAWN_ATTACH:
    jcli_error("cannot move \"%s\" into %s: %s", cmd, s->cgroup,
               strerror(sp.error));
    return EXIT_RUN_FAILED;
  case JCLI_SPAWN_EXEC:
    jcli_error("cannot execute \"%s\": %s", cmd, strerror(sp.error));
    return sp.error == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE;
  }
  return EXIT_RUN_FAILED;
}

static void check_empty(run_state *s) {
  bool populated = true;
  if (read_populated(s->eventsfd, &populated) == 0)
    s->empty = !populated;
}

/* Reaps CMD and any orphan of it that was handed to us. */
static void reap(run_state *s) {
  int status;
  pid_t p;
  while ((p = waitpid(-1, &status, WNOHANG)) > 0)
    if (p == s->pid) {
      s->cmd_done = true;
      s->wstatus = status;
    }
  check_empty(s);
}

/*
 * Passes sig on to CMD, unless the terminal sent it to our process group
 * and so to CMD already (Ctrl-C must not arrive twice).  Once CMD is gone,
 * to the processes it left in the cgroup.
 */
static void forward(run_state *s, int sig, int code) {
  if (s->cmd_done) {
    (void)jc_hier_signal(s->cgfd, sig);
    return;
  }
  bool from_terminal = code == SI_KERNEL && getpgid(s->pid) == getpgrp();
  if (!from_terminal)
    (void)kill(s->pid, sig);
}

static void handle_signals(run_state *s) {
  struct signalfd_siginfo si;
  while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
    if ((int)si.ssi_signo == SIGCHLD)
      reap(s);
    else
      forward(s, (int)si.ssi_signo, si.ssi_code);
  }
}

static void take_sample(run_state *s, bool in_run) {
  jcli_report_begin(&s->report, in_run);
  jc_collector_read(s->collector, jcli_report_add, &s->report);
}

static bool finished(const run_state *s) { return s->cmd_done && s->empty; }

/* Samples every interval until CMD and everything it started are gone. */
static void wait_for_end(run_state *s) {
  uint64_t step = (uint64_t)(s->interval * 1e9), next = s->t_start + step;
  while (!finished(s)) {
    uint64_t now = jc_now_ns(), left = next > now ? next - now : 0;
    struct timespec ts = {(time_t)(left / 1000000000u),
                          (long)(left % 1000000000u)};
    struct pollfd p[2] = {{s->sigfd, POLLIN, 0}, {s->eventsfd, POLLPRI, 0}};
    if (ppoll(p, 2, &ts, NULL) < 0 && errno != EINTR) {
      jcli_error("cannot wait for the command: %s", strerror(errno));
      break; /* run_command() still waits for CMD's status */
    }
    if (p[0].revents & POLLIN)
      handle_signals(s);
    if (p[1].revents & (POLLPRI | POLLERR))
      check_empty(s);
    now = jc_now_ns();
    if (finished(s))
      break;
    if (now >= next) {
      take_sample(s, true);
      while (next <= now) /* late: skip the missed samples */
        next += step;
    }
  }
  s->t_end = jc_now_ns();
}

/* The shell's view of the status: the exit code, or 128 + the signal. */
static int shell_status(int wstatus, int *ret_signal) {
  *ret_signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
  return *ret_signal ? 128 + *ret_signal : WEXITSTATUS(wstatus);
}

static int print_report(run_state *s, int status, int sig) {
  jcli_run_info info = {
      .command = s->opts.command,
      .cgroup = s->cgroup,
      .kept = s->opts.keep,
      .exit_status = status,
      .signal = sig,
      .wall_seconds = (double)(s->t_end - s->t_start) / 1e9,
      .interval = s->interval,
  };
  jcli_json *j = jcli_json_new(true);
  if (!j) {
    jcli_error("out of memory");
    return -1;
  }
  jcli_report_json(&s->report, &info, j);
  int r = jcli_json_write(j, s->outfd);
  if (r < 0)
    jcli_error("cannot write the report: %s", strerror(-r));
  jcli_json_free(j);
  return r;
}

static int run_command(run_state *s) {
  int failed = start_command(s);
  if (failed)
    return failed;
  wait_for_end(s);
  while (!s->cmd_done && waitpid(s->pid, &s->wstatus, 0) < 0 && errno == EINTR)
    ;
  take_sample(s, false); /* the totals, after the last process exited */
  int sig, status = shell_status(s->wstatus, &sig);
  return print_report(s, status, sig) < 0 ? EXIT_RUN_FAILED : status;
}

/* ---- cleaning up ------------------------------------------------------ */

static void close_fd(int *fd) {
  if (*fd > STDERR_FILENO)
    close(*fd);
  *fd = -1;
}

static void release(run_state *s) {
  close_fd(&s->sigfd);
  if (s->mask_changed)
    sigprocmask(SIG_SETMASK, &s->child_mask, NULL);
  close_fd(&s->eventsfd);
  close_fd(&s->cgfd);
  jc_collector_free(s->collector); /* removes the cgroup unless --keep */
  close_fd(&s->rootfd);
  close_fd(&s->outfd);
  jcli_opts_release(&s->opts);
}

int jcli_run(int argc, char **argv) {
  run_state s = {.rootfd = -1, .cgfd = -1, .eventsfd = -1, .sigfd = -1,
                 .outfd = -1, .pid = -1};
  jcli_report_init(&s.report);
  int r = jcli_opts_parse(&s.opts,
                          JCLI_OPT_ROOT | JCLI_OPT_INTERVAL | JCLI_OPT_KEEP |
                              JCLI_OPT_OUTPUT | JCLI_OPT_COMMAND,
                          argc, argv);
  if (r != 0) {
    jcli_opts_release(&s.opts);
    return r > 0 ? JCLI_EXIT_OK : JCLI_EXIT_USAGE;
  }
  s.interval = s.opts.interval > 0 ? s.opts.interval : DEFAULT_INTERVAL;
  int status = set_up(&s) < 0 ? EXIT_RUN_FAILED : run_command(&s);
  release(&s);
  return status;
}
