/*
 * jcli_run — `joule-cgroup run -- CMD`: the joule-profiler job.  Sets up
 * what every run of CMD shares (the root, the signals, the output, the
 * reader of the figures), runs CMD once or --iterations times
 * (jcli_profile), and prints the report: JSON (jcli_report) or CSV
 * (jcli_csv), after CMD's own output on stdout or into --output.
 *
 * Exit status: CMD's; with --iterations the first status that was not 0.
 * A forwarded signal (SIGINT, SIGTERM, ...) ends the iterations after the
 * run it reached, and the report of the runs made is still printed.
 */
#include "jcli_commands.h"
#include "jcli_common.h"
#include "jcli_csv.h"
#include "jcli_json.h"
#include "jcli_markers.h"
#include "jcli_opts.h"
#include "jcli_profile.h"
#include "jcli_report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_INTERVAL 0.1

typedef struct {
  jcli_opts opts;
  char root[PATH_MAX];
  char top[PATH_MAX]; /* the root cgroup */
  jcli_profile_env env;
  int rootfd, sigfd, outfd;
  sigset_t child_mask; /* the mask we started with, for CMD */
  bool mask_changed;
  jcli_reader reader;
  jcli_result *results; /* the runs made, grown as they are made */
  size_t runs; /* to make: --iterations, or 1 */
  size_t done, cap;
} run_state;

/* ---- setting up ------------------------------------------------------- */

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

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* SIGCHLD and the forwarded signals arrive on a signalfd; CMD gets the
 * mask we started with.  A signal ignored when we started (nohup, `cmd &`
 * in a script) stays ignored: CMD inherits that, and we do not forward.
 * SIGPIPE is blocked, not ignored, so that a closed stdout turns into
 * EPIPE here without CMD inheriting an ignored SIGPIPE. */
static int take_signals(run_state *s) {
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
  const char *below_top;
  s->rootfd = jcli_open_root(s->opts.root, true, s->root, sizeof(s->root));
  if (s->rootfd < 0 || check_writable(s) < 0 ||
      jcli_hierarchy_root(s->root, s->top, sizeof(s->top), &below_top) < 0 ||
      open_output(s) < 0 || take_signals(s) < 0)
    return -1;
  s->runs = s->opts.iterations ? (size_t)s->opts.iterations : 1;
  jcli_reader_init(&s->reader);
  jcli_energy_open(&s->reader.energy, s->opts.powercap_root,
                   s->opts.proc_stat, s->opts.cpu_root);
  const char *pattern = s->opts.token_pattern ? s->opts.token_pattern
                                              : JCLI_MARKERS_DEFAULT;
  s->env = (jcli_profile_env){
      .command = s->opts.command,
      .root = s->root,
      .rootfd = s->rootfd,
      .top = s->top,
      .below_top = below_top,
      .sigfd = s->sigfd,
      .child_mask = &s->child_mask,
      .interval = s->opts.interval > 0 ? s->opts.interval : DEFAULT_INTERVAL,
      .keep = s->opts.keep,
      .token_pattern = s->opts.phases ? pattern : NULL,
      .pass_fd = STDOUT_FILENO,
      .reader = &s->reader,
  };
  return 0;
}

/* ---- the report ----------------------------------------------------------- */

static int print_report(run_state *s) {
  jcli_run_info info = {
      .command = s->opts.command,
      .interval = s->env.interval,
      .global_cgroup = s->top,
      .token_pattern = s->env.token_pattern,
      .names = &s->reader.names,
      .iterations = s->opts.iterations,
      .energy = &s->reader.energy.zones,
  };
  int r;
  if (s->opts.format == JCLI_FORMAT_CSV) {
    r = jcli_csv_write(&info, s->results, s->done, s->outfd);
  } else {
    jcli_json *j = jcli_json_new(true);
    if (!j) {
      jcli_error("out of memory");
      return -1;
    }
    if (s->opts.iterations)
      jcli_report_iterations_json(&info, s->results, s->done, j);
    else
      jcli_report_json(&info, &s->results[0], j);
    r = jcli_json_write(j, s->outfd);
    jcli_json_free(j);
  }
  if (r < 0)
    jcli_error("cannot write the report: %s", strerror(-r));
  jcli_energy_print_notes(&s->reader.energy); /* why energy keys are null */
  return r;
}

/* Room for one more run's result. */
static jcli_result *next_result(run_state *s) {
  jcli_result *grown = jcli_grow(s->results, s->done, &s->cap, sizeof(*grown));
  if (!grown)
    return NULL;
  s->results = grown;
  return &s->results[s->done];
}

/* Every iteration, then the report.  The exit status of `run`. */
static int run_all(run_state *s) {
  int status = 0;
  bool interrupted = false;
  while (s->done < s->runs && !interrupted) {
    jcli_result *res = next_result(s);
    if (!res) {
      jcli_error("out of memory after %zu runs", s->done);
      return JCLI_EXIT_RUN_FAILED;
    }
    int failed = jcli_profile_run(&s->env, res, &interrupted);
    if (failed) { /* the error is said; no report of a partial set */
      jcli_result_release(res);
      return failed;
    }
    s->done++;
    if (status == 0)
      status = res->exit_status;
  }
  return print_report(s) < 0 ? JCLI_EXIT_RUN_FAILED : status;
}

/* ---- cleaning up ------------------------------------------------------ */

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

static void release(run_state *s) {
  close_fd(&s->sigfd);
  if (s->mask_changed) {
    discard_sigpipe();
    sigprocmask(SIG_SETMASK, &s->child_mask, NULL);
  }
  for (size_t i = 0; i < s->done; i++)
    jcli_result_release(&s->results[i]);
  free(s->results);
  jcli_reader_release(&s->reader);
  close_fd(&s->rootfd);
  close_fd(&s->outfd);
  jcli_opts_release(&s->opts);
}

int jcli_run(int argc, char **argv) {
  run_state s = {.rootfd = -1, .sigfd = -1, .outfd = -1,
                 .reader = {.meminfo_fd = -1}};
  int r = jcli_opts_parse(&s.opts,
                          JCLI_OPT_ROOT | JCLI_OPT_INTERVAL | JCLI_OPT_KEEP |
                              JCLI_OPT_OUTPUT | JCLI_OPT_COMMAND |
                              JCLI_OPT_PHASES | JCLI_OPT_ITERATIONS |
                              JCLI_OPT_FORMAT | JCLI_OPT_ENERGY,
                          argc, argv);
  if (r != 0) {
    jcli_opts_release(&s.opts);
    return r > 0 ? JCLI_EXIT_OK : JCLI_EXIT_USAGE;
  }
  int status = set_up(&s) < 0 ? JCLI_EXIT_RUN_FAILED : run_all(&s);
  release(&s);
  return status;
}
