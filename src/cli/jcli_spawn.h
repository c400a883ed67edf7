/*
 * jcli_spawn — starts a command inside a cgroup, race-free: the child is a
 * member of the cgroup before the command executes its first instruction,
 * so everything it does and every process it forks is accounted there.
 *
 * clone3(CLONE_INTO_CGROUP) (Linux 5.7+) creates the child in the cgroup.
 * Where the kernel (or a seccomp filter) refuses it, a fork()ed child
 * writes itself into the cgroup's cgroup.procs before it calls exec.
 * The environment variable JOULE_CGROUP_NO_CLONE3=1 forces that path
 * (for tests).
 */
#ifndef JCLI_SPAWN_H
#define JCLI_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

typedef enum {
  JCLI_SPAWN_OK,
  JCLI_SPAWN_START,  /* no child: clone3/fork failed */
  JCLI_SPAWN_ATTACH, /* the child could not enter the cgroup */
  JCLI_SPAWN_EXEC,   /* the child could not execute the command */
} jcli_spawn_stage;

typedef struct {
  jcli_spawn_stage stage; /* JCLI_SPAWN_OK: pid runs the command */
  int error;              /* errno of the failed stage */
  pid_t pid;
  bool by_clone3; /* how the child entered the cgroup */
} jcli_spawn_result;

/*
 * Runs argv (searched in PATH) in the cgroup cgfd with the signal mask
 * child_mask, and with stdout_fd as its standard output (-1: ours).  On
 * success ret->pid is the running command, the caller's to wait for; on
 * failure no child is left (it was reaped here).
 */
void jcli_spawn(int cgfd, char *const argv[], const sigset_t *child_mask,
                int stdout_fd, jcli_spawn_result *ret);

#endif
