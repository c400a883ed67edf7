/*
 * jcli_signal — what the command asks of a signal before it takes it
 * over (sample's SIGINT, the signals run and compare pass on).
 */
#ifndef JCLI_SIGNAL_H
#define JCLI_SIGNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* Was sig ignored (SIG_IGN) when we started?  A blocked signal is queued
 * even when ignored, so code that blocks signals to wait for them asks
 * this first, to keep the ignoring a parent asked for. */
static inline bool jcli_signal_ignored(int sig) {
  struct sigaction sa;
  return sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
}

#endif
