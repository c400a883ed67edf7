/*
 * jc_rtname — InstanceFrom "container" (docs/containers.md), a step of the
 * read pass (jc_step.h): each cgroup a walk finds is given the name its
 * container runtime gave it (jc_runtime), when the runtime's files say it.
 *
 * Its init opens the runtimes' state below RuntimeRoot, first of all the
 * collector's init (jc_step.init_first: an unusable RuntimeRoot fails init
 * with one ERROR line before anything is set up); without InstanceFrom
 * "container" the step is off.  Its track hook asks the runtime once, when
 * a cgroup is first tracked (a path re-created keeps the name it had, as
 * it keeps its place); while the runtime's files are not written yet (a
 * cgroup appears before its bundle is complete), the cgroup keeps its path
 * name and is asked again at the start of each of its next
 * JC_RUNTIME_TRIES read passes (begin; init's baseline pass asks none),
 * then, after one line per cause (which runtime's files, where, the
 * remedy), once every JC_RUNTIME_RETRY_S seconds while it is there.  A
 * name found late is the cgroup's from then on (jc_tracked_set_name), said
 * in one INFO when it came at the slower pace.  Its collision hook says,
 * at INFO, that cgroups share a name their runtime gave them all (a
 * restarted container whose old cgroup is still there, replicas).
 *
 * The command's list and check ask it through jc_collector_names_missing
 * (jc_collector.h), defined here.
 */
#ifndef JC_RTNAME_H
#define JC_RTNAME_H

#include "jc_step.h"

#include <stdbool.h>
#include <stdint.h>

struct jc_runtime;

/* The step's own state (jc_step_self). */
typedef struct {
  struct jc_runtime *runtime; /* the runtimes' state below RuntimeRoot */
  bool baseline_done; /* init's read pass is over: begin retries from now */
  bool pending;       /* a cgroup's lookup is retried at each read pass */
  bool slow;          /* one's is retried every JC_RUNTIME_RETRY_S */
  uint64_t slow_at;   /* when next (CLOCK_MONOTONIC) */
  unsigned told;      /* the causes said (bits of jc_runtime_dir) */
} jc_rtname_self;

/* A cgroup's lookups (its slot). */
typedef struct {
  bool looked; /* asked when first tracked (not again when re-created) */
  bool named;  /* its name is its runtime's */
  uint8_t tries; /* lookups that found the runtime's files not written yet;
                    0: none pending; past JC_RUNTIME_TRIES: looked up every
                    JC_RUNTIME_RETRY_S */
} jc_rtname_state;

#endif
