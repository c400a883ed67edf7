/*
 * jc_clock — the one clock the core reads: CLOCK_MONOTONIC in
 * nanoseconds.  Rates are differences of it, so it must never jump with
 * the wall clock.  Inline: the read pass takes it once per pass, and the
 * command once per sample.
 */
#ifndef JC_CLOCK_H
#define JC_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t jc_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The wall clock, in nanoseconds since the epoch: only to stamp figures
 * that are sent later than they were read (jc_metric's time_ns). */
static inline uint64_t jc_wall_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
