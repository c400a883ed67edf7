/*
 * helper_usr1.h — how the tests' helper processes (memhog, forker) wait to
 * be let go: a test first moves the helper into a cgroup (cgroup v2
 * charges memory where it is allocated, and children start where their
 * parent is), then sends SIGUSR1.
 */
#ifndef JC_HELPER_USR1_H
#define JC_HELPER_USR1_H

#include <signal.h>
#include <stdio.h>

/* Blocks SIGUSR1 before saying "waiting" on stdout (so that the test's
 * signal cannot come too early), then waits for it: 0 once it came. */
static int helper_wait_usr1(void) {
  sigset_t set;
  int sig;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_BLOCK, &set, NULL);
  printf("waiting\n");
  fflush(stdout);
  return sigwait(&set, &sig);
}

#endif
