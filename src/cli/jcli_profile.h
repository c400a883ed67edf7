/*
 * jcli_profile — one measured run of the command: the joule-profiler job
 * for one iteration.  Create a fresh cgroup "joule-cgroup-run-<pid>"
 * under the root, take the START reading, start CMD inside it
 * (jcli_spawn), take a reading every interval and at every marker line
 * (--phases, through jcli_passthru), and when CMD and every process it
 * started have exited take the END reading and remove the cgroup (unless
 * --keep).  The readings make a jcli_result.
 *
 * The cgroup is a managed cgroup of the core (<Cgroup ... Create true>)
 * of a collector on the root cgroup with ReportRoot true: creating,
 * reading and removing it is the plugin's own code, and one read pass
 * reads the command's cgroup and the whole machine at the same instant.
 *
 * Waiting is one ppoll() on a signalfd (SIGCHLD, and the signals we
 * forward to CMD), on the cgroup's cgroup.events (the kernel flags it
 * when "populated" changes) and on CMD's output pipe, with the next
 * reading as the timeout.  The caller is the child subreaper, so orphans
 * of CMD are reaped here too.
 */
#ifndef JCLI_PROFILE_H
#define JCLI_PROFILE_H

#include "jcli_reading.h"
#include "jcli_result.h"

#include <signal.h>

/* What every run shares; set up once by `run`. */
typedef struct {
  char *const *command;
  const char *root;      /* --root (or the mount), absolute */
  int rootfd;
  const char *top;       /* the root cgroup: the collector's root */
  const char *below_top; /* root relative to top; "" when the same */
  int sigfd;             /* SIGCHLD and the forwarded signals */
  const sigset_t *child_mask;
  double interval;
  bool keep;
  const char *token_pattern; /* NULL: no --phases */
  int pass_fd;               /* where CMD's output goes on (--phases) */
  jcli_reader *reader;
  bool series; /* keep every reading (--samples, --plot) */
  bool gpu;    /* read the NVIDIA GPUs (Collect "gpu"): run, not compare */
  const char *gpu_library, *proc_root; /* GpuLibrary, ProcRoot; NULL:
                                          the defaults */
} jcli_profile_env;

/* Exit statuses of `run` when the command could not be run. */
enum {
  JCLI_EXIT_RUN_FAILED = 125, /* joule-cgroup's own failure */
  JCLI_EXIT_CANNOT_EXECUTE = 126,
  JCLI_EXIT_NOT_FOUND = 127,
};

/*
 * Runs the command once and fills res (initialized here; the caller
 * releases it).  0 when the command ran: res->exit_status is its status;
 * *ret_interrupted tells whether a forwarded signal arrived (a user
 * stopping the whole run).  Else a JCLI_EXIT_* status, after one error
 * line.
 */
int jcli_profile_run(const jcli_profile_env *env, jcli_result *res,
                     bool *ret_interrupted);

#endif
