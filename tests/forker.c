/*
 * forker — thousands of processes in one cgroup, for the tests of a
 * cgroup.procs longer than a page (tests/kernel_crowd.sh, cli_run.sh).
 *
 *   forker --hold N      waits for SIGUSR1, starts N children that pause(),
 *                        prints "forked N", and pauses itself; the children
 *                        die with it (PR_SET_PDEATHSIG), so a SIGKILL to
 *                        forker ends them all
 *   forker --leave FILE N
 *                        starts N children that pause() until SIGINT, which
 *                        each answers by appending its pid as one line to
 *                        FILE and exiting; prints "forked N" and exits 0,
 *                        leaving them behind
 *
 * --hold waits for SIGUSR1 so that a test can first let collectd move it
 * into a managed cgroup: the children start there.
 *
 * The children share forker's memory (clone with CLONE_VM, as posix_spawn
 * does): a fork() copies page tables and costs milliseconds on a virtual
 * machine, such a clone tens of microseconds.  Each is a process all the
 * same, with its own pid and its own line in cgroup.procs.  Sharing the
 * memory, they make only raw system calls (no errno, no stdio).
 */
#include "helper_usr1.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STACK_SIZE (16 * 1024) /* a child's stack: pause() and one handler */

static const char *receipts; /* --leave: FILE */
static pid_t forker_pid;

static int usage(void) {
  fprintf(stderr, "usage: forker --hold N | forker --leave FILE N\n");
  return 2;
}

/* In a --leave child, at SIGINT: one write of "PID\n" with O_APPEND. */
static void record_sigint(int sig) {
  (void)sig;
  char line[16];
  size_t len = sizeof(line);
  line[--len] = '\n';
  for (long v = syscall(SYS_getpid); v && len > 0; v /= 10)
    line[--len] = (char)('0' + v % 10);
  long fd = syscall(SYS_openat, AT_FDCWD, receipts,
                    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) {
    syscall(SYS_write, fd, line + len, sizeof(line) - len);
    syscall(SYS_close, fd);
  }
  syscall(SYS_exit, 0);
}

/* A child: pauses until a signal ends it (--hold: or forker's death). */
static int child(void *hold) {
  if (hold && (syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
               syscall(SYS_getppid) != forker_pid))
    syscall(SYS_exit, 1); /* forker is gone already */
  sigset_t none;
  sigemptyset(&none);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(long));
  for (;;)
    syscall(SYS_pause);
  return 0;
}

static int start_children(long n, int hold) {
  forker_pid = getpid();
  char *stacks = mmap(NULL, (size_t)n * STACK_SIZE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (stacks == MAP_FAILED) {
    perror("forker: mmap");
    return -1;
  }
  for (long i = 0; i < n; i++) {
    char *top = stacks + (size_t)(i + 1) * STACK_SIZE;
    if (clone(child, top, CLONE_VM | SIGCHLD, hold ? (void *)1 : NULL) < 0) {
      fprintf(stderr, "forker: child %ld of %ld: %s\n", i + 1, n,
              strerror(errno));
      return -1;
    }
  }
  printf("forked %ld\n", n);
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  int hold = argc == 3 && strcmp(argv[1], "--hold") == 0;
  int leave = argc == 4 && strcmp(argv[1], "--leave") == 0;
  if (!hold && !leave)
    return usage();
  char *end;
  long n = strtol(argv[argc - 1], &end, 10);
  if (n <= 0 || *end)
    return usage();
  if (leave) {
    receipts = argv[2];
    /* Before the first child: every child has it from its start. */
    struct sigaction sa = {.sa_handler = record_sigint};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) < 0)
      return 1;
    return start_children(n, 0) < 0 ? 1 : 0;
  }
  if (helper_wait_usr1() != 0 || start_children(n, 1) < 0)
    return 1;
  for (;;)
    pause();
}
