/*
 * jcli_profile — see jcli_profile.h.
 */
#include "jcli_profile.h"

#include "jcli_passthru.h"
#include "jcli_root.h"
#include "jcli_spawn.h"
#include "jcli_stderr.h"

#include "jc_clock.h"
#include "jc_hier.h"
#include "jc_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define NAME_PREFIX "joule-cgroup-run-"

typedef struct {
  const jcli_profile_env *env;
  jcli_result *res;
  char name[64];         /* the cgroup, relative to the root */
  char cgroup[PATH_MAX]; /* and its full path */
  jc_collector *collector;
  int cgfd, eventsfd;
  jcli_passthru pass;
  bool piped; /* --phases: pass is open */
  pid_t pid;
  bool cmd_done, empty, interrupted;
  int wstatus;
} profile;

/* ---- setting up ------------------------------------------------------- */

/* A name nobody uses: "joule-cgroup-run-<pid>", or with a suffix when a
 * --keep run (an earlier iteration, or an earlier process with our pid)
 * left its cgroup. */
static int choose_name(profile *p) {
  const jcli_profile_env *env = p->env;
  for (int n = 0; n < 100; n++) {
    if (n == 0)
      snprintf(p->name, sizeof(p->name), NAME_PREFIX "%d", (int)getpid());
    else
      snprintf(p->name, sizeof(p->name), NAME_PREFIX "%d.%d", (int)getpid(), n);
    if (faccessat(env->rootfd, p->name, F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
        errno == ENOENT) {
      snprintf(p->cgroup, sizeof(p->cgroup), "%s/%s", env->root, p->name);
      return 0;
    }
  }
  jcli_error("%s/" NAME_PREFIX "%d and its variants exist already; remove "
             "them with rmdir",
             env->root, (int)getpid());
  return -EEXIST;
}

/* The root cgroup (ReportRoot) and the run's cgroup as a <Cgroup> block
 * below it: created, read, removed (or kept) by the core. */
static int configure(profile *p, jc_config **ret) {
  char why[512], path[PATH_MAX];
  jc_config *cfg = jc_config_new();
  if (!cfg) {
    jcli_error("out of memory");
    return -ENOMEM;
  }
  cfg->report_root = true;
  const char *below = p->env->below_top;
  snprintf(path, sizeof(path), "%s%s%s", below, below[0] ? "/" : "", p->name);
  jc_managed *m = jc_config_add_managed(cfg, path, why, sizeof(why));
  int r =
      m ? jc_config_managed_set_instance(m, "run", why, sizeof(why)) : -EINVAL;
  if (r < 0) {
    jcli_error("%s: %s", path, why);
    jc_config_free(cfg);
    return r;
  }
  m->create = true;
  m->keep = p->env->keep;
  m->without_missing_controllers = true; /* null figures, one line each */
  /* The report is made of every list (CPU usage, the memory.stat keys),
   * not of the plugin's lean default. */
  jc_config_add_values(cfg, "*", why, sizeof(why));
  /* The GPUs, as Collect "gpu" reads them: off, with no line, where no
   * driver or GPU is found (the core says so at INFO, which run does
   * not print). */
  const jcli_profile_env *env = p->env;
  if (env->gpu)
    r = jc_config_add_collect(cfg, "+gpu", why, sizeof(why));
  if (r == 0 && env->gpu && env->gpu_library)
    r = jc_config_set_gpu_library(cfg, env->gpu_library, why, sizeof(why));
  if (r == 0 && env->gpu && env->proc_root)
    r = jc_config_set_proc_root(cfg, env->proc_root, why, sizeof(why));
  if (r < 0) {
    jcli_error("%s", why);
    jc_config_free(cfg);
    return r;
  }
  *ret = cfg;
  return 0;
}

/* Reads "populated" from cgroup.events; also re-arms its notification. */
static int read_populated(int eventsfd, bool *ret_populated) {
  char buf[256];
  ssize_t len = pread(eventsfd, buf, sizeof(buf), 0);
  if (len < 0)
    return -errno;
  jc_cursor cur;
  jc_parse_cursor_init(&cur, buf, (size_t)len);
  jc_token key;
  uint64_t value;
  int r;
  while ((r = jc_parse_flat_next(&cur, &key, &value)) != 0)
    if (r > 0 && jc_parse_token_eq(key, "populated")) {
      *ret_populated = value != 0;
      return 0;
    }
  return -EINVAL;
}

static int open_cgroup(profile *p) {
  p->cgfd = openat(p->env->rootfd, p->name,
                   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (p->cgfd >= 0)
    p->eventsfd = openat(p->cgfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
  int r = p->eventsfd < 0 ? -errno : 0;
  bool populated;
  if (r == 0)
    r = read_populated(p->eventsfd, &populated);
  if (r < 0) {
    jcli_error("cannot read %s/cgroup.events: %s", p->cgroup, strerror(-r));
    return r;
  }
  /* its cpuset says on which packages its CPU time was spent */
  jcli_energy_set_cgroup(&p->env->reader->energy, p->cgfd);
  jcli_result *res = p->res;
  res->controllers_known =
      jc_hier_controllers(p->cgfd, "cgroup.controllers", &res->controllers) ==
      0;
  if (jc_hier_v1_controllers("/proc/cgroups", &res->v1_controllers) < 0)
    res->v1_controllers = 0;
  return 0;
}

/* The run's cgroup made and read, its output piped: 0, or a negative
 * errno after one error line. */
static int set_up(profile *p) {
  jc_config *cfg;
  int r = choose_name(p);
  if (r == 0)
    r = configure(p, &cfg);
  if (r == 0) /* takes cfg */
    r = jcli_collector_start(cfg, p->env->top, &p->collector);
  if (r == 0)
    r = open_cgroup(p);
  if (r < 0)
    return r;
  if (p->env->token_pattern) {
    if ((r = jcli_passthru_open(&p->pass, p->env->token_pattern,
                                p->env->pass_fd)) < 0)
      return r;
    p->piped = true;
  }
  return 0;
}

/* ---- readings ------------------------------------------------------------ */

static void read_now(profile *p, jcli_read_kind kind, jcli_reading *ret) {
  jcli_reader_take(p->env->reader, p->collector, kind, ret);
}

/* jcli_marker_fn: a marker line was read, a phase boundary. */
static void on_marker(void *ctx, const char *token, unsigned long line) {
  profile *p = ctx;
  jcli_reading r;
  read_now(p, JCLI_READ_MARK, &r);
  jcli_result_mark(p->res, &r, token, line);
}

/* ---- running ---------------------------------------------------------- */

static int start_command(profile *p) {
  jcli_spawn_result sp;
  jcli_spawn(p->cgfd, p->env->command, p->env->child_mask,
             p->piped ? p->pass.child_fd : -1, &sp);
  if (p->piped)
    jcli_passthru_started(&p->pass);
  p->pid = sp.pid;
  const char *cmd = p->env->command[0];
  switch (sp.stage) {
  case JCLI_SPAWN_OK:
    return 0;
  case JCLI_SPAWN_START:
    jcli_error("cannot start \"%s\": %s", cmd, strerror(sp.error));
    return JCLI_EXIT_RUN_FAILED;
  case JCLI_SPAWN_ATTACH:
    jcli_error("cannot move \"%s\" into %s: %s", cmd, p->cgroup,
               strerror(sp.error));
    return JCLI_EXIT_RUN_FAILED;
  case JCLI_SPAWN_EXEC:
    jcli_error("cannot execute \"%s\": %s", cmd, strerror(sp.error));
    return sp.error == ENOENT ? JCLI_EXIT_NOT_FOUND : JCLI_EXIT_CANNOT_EXECUTE;
  }
  return JCLI_EXIT_RUN_FAILED;
}

static void check_empty(profile *p) {
  bool populated = true;
  if (read_populated(p->eventsfd, &populated) == 0)
    p->empty = !populated;
}

/* Reaps CMD and any orphan of it that was handed to us. */
static void reap(profile *p) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
    if (pid == p->pid) {
      p->cmd_done = true;
      p->wstatus = status;
    }
  check_empty(p);
}

/*
 * Passes sig on to CMD, unless the terminal sent it to our process group
 * and so to CMD already (Ctrl-C must not arrive twice).  Once CMD is gone,
 * to the processes it left in the cgroup.
 */
static void forward(profile *p, int sig, int code) {
  p->interrupted = true;
  if (p->cmd_done) {
    (void)jc_hier_signal(p->cgfd, sig);
    return;
  }
  bool from_terminal = code == SI_KERNEL && getpgid(p->pid) == getpgrp();
  if (!from_terminal)
    (void)kill(p->pid, sig);
}

static void handle_signals(profile *p) {
  struct signalfd_siginfo si;
  while (read(p->env->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
    if ((int)si.ssi_signo == SIGCHLD)
      reap(p);
    else
      forward(p, (int)si.ssi_signo, si.ssi_code);
  }
}

static bool finished(const profile *p) { return p->cmd_done && p->empty; }

/* One wait: until a signal, a change of cgroup.events, output of CMD, or
 * the deadline.  false when waiting failed. */
static bool wait_once(profile *p, uint64_t deadline) {
  uint64_t now = jc_now_ns(), left = deadline > now ? deadline - now : 0;
  struct timespec ts = {(time_t)(left / 1000000000u),
                        (long)(left % 1000000000u)};
  struct pollfd fds[3] = {{p->env->sigfd, POLLIN, 0},
                          {p->eventsfd, POLLPRI, 0},
                          {p->piped ? p->pass.fd : -1, POLLIN, 0}};
  if (ppoll(fds, 3, &ts, NULL) < 0 && errno != EINTR) {
    jcli_error("cannot wait for the command: %s", strerror(errno));
    return false;
  }
  if (fds[0].revents & POLLIN)
    handle_signals(p);
  if (fds[1].revents & (POLLPRI | POLLERR))
    check_empty(p);
  if (fds[2].revents)
    jcli_passthru_pump(&p->pass, on_marker, p);
  return true;
}

/* Reads every interval until CMD and everything it started are gone; and
 * the energy counters in between where an interval is longer than they
 * may take to wrap twice (jcli_energy). */
static void wait_for_end(profile *p, uint64_t t_start) {
  uint64_t step = (uint64_t)(p->env->interval * 1e9), next = t_start + step;
  jcli_energy_meter *energy = &p->env->reader->energy;
  while (!finished(p)) {
    uint64_t due = jcli_energy_due_ns(energy);
    if (!wait_once(p, due < next ? due : next))
      break; /* run_command() still waits for CMD's status */
    uint64_t now = jc_now_ns();
    jcli_energy_poll(energy, now);
    if (finished(p))
      break;
    if (now >= next) {
      jcli_reading r;
      read_now(p, JCLI_READ_TICK, &r);
      jcli_result_tick(p->res, &r);
      while (next <= now) /* late: skip the missed readings */
        next += step;
    }
  }
}

/* The shell's view of the status: the exit code, or 128 + the signal. */
static int shell_status(int wstatus, int *ret_signal) {
  *ret_signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
  return *ret_signal ? 128 + *ret_signal : WEXITSTATUS(wstatus);
}

static int run_command(profile *p) {
  jcli_reading r;
  read_now(p, JCLI_READ_START, &r);
  jcli_result_start(p->res, &r);
  int failed = start_command(p);
  if (failed)
    return failed;
  wait_for_end(p, r.time_ns);
  while (!p->cmd_done && waitpid(p->pid, &p->wstatus, 0) < 0 && errno == EINTR)
    ;
  if (p->piped) /* markers still in the pipe come before the end */
    jcli_passthru_drain(&p->pass, on_marker, p);
  read_now(p, JCLI_READ_END, &r); /* the totals, after the last process */
  jcli_result_end(p->res, &r);
  p->res->exit_status = shell_status(p->wstatus, &p->res->signal);
  return 0;
}

/* ---- cleaning up ------------------------------------------------------ */

static void close_fd(int *fd) {
  if (*fd >= 0)
    close(*fd);
  *fd = -1;
}

static void release(profile *p) {
  jcli_energy_set_cgroup(&p->env->reader->energy, -1);
  if (p->piped)
    jcli_passthru_close(&p->pass);
  close_fd(&p->eventsfd);
  close_fd(&p->cgfd);
  jc_collector_free(p->collector); /* removes the cgroup unless --keep */
}

int jcli_profile_run(const jcli_profile_env *env, jcli_result *res,
                     bool *ret_interrupted) {
  profile p = {.env = env, .res = res, .cgfd = -1, .eventsfd = -1, .pid = -1};
  jcli_result_init(res, env->token_pattern != NULL,
                   (uint64_t)(env->interval * 0.5e9));
  if (env->series)
    jcli_result_keep_series(res, &env->reader->names,
                            &env->reader->energy.zones);
  int status = set_up(&p) < 0 ? JCLI_EXIT_RUN_FAILED : run_command(&p);
  res->cgroup = strdup(p.cgroup); /* NULL only when out of memory */
  res->kept = env->keep;
  *ret_interrupted = p.interrupted;
  release(&p);
  return status;
}
