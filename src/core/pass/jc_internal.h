/*
 * jc_internal — the collector's state, the pass's own: jc_collector.c
 * (life cycle and read pass) uses jc_discover.c (walking the tree,
 * merging what it finds), which uses jc_tracked.c (a tracked cgroup's
 * life, its name, the descriptor budget); jc_problem.c says what a file
 * that fails means.  The steps of the pass (jc_step.h, listed in
 * jc_step_list.h) see it through a const view, and keep their state
 * behind jc_step_self and jc_step_slot, never in fields of their own
 * here; they write no field of it.  The <Cgroup> blocks (jc_managed) are
 * given what they need of it.  The log and the clock they share live
 * below them (jc_log, jc_clock).  Nothing outside the core includes this
 * header.
 */
#ifndef JC_INTERNAL_H
#define JC_INTERNAL_H

#include "jc_collector.h"
#include "jc_log.h"
#include "jc_problem.h"
#include "jc_step.h"
#include "jc_tracked.h"

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

/* What to do when the process runs out of descriptors, for messages. */
#define JC_FD_REMEDY                                                           \
  "; raise collectd's descriptor limit (LimitNOFILE= in its systemd unit, "   \
  "or ulimit -n before it starts)"

/* The steps of the pass (jc_step.h): each one's state, whether it is on,
 * where its slot is in a tracked cgroup; the ones with per-cgroup hooks,
 * on, listed once at init. */
typedef struct {
  void *self[JC_STEP_COUNT];
  bool on[JC_STEP_COUNT];
  size_t slot_offset[JC_STEP_COUNT];
  size_t slots_size;
  const jc_step *final[JC_STEP_COUNT];
  size_t final_count;
  const jc_step *cgroup[JC_STEP_COUNT];
  size_t cgroup_count;
  const jc_step *ended[JC_STEP_COUNT];
  size_t ended_count;
  const jc_step *of_file[JC_FILE_COUNT]; /* the step told of a file's reads */
  uint32_t files; /* the files that have one */
  const jc_step *asking[JC_STEP_COUNT]; /* asked again after each begin */
  size_t asking_count;
  jc_step_asks asked; /* what the steps that are on ask, together */
} jc_step_table;

struct jc_collector {
  jc_config *cfg;
  jc_log log;

  char root[PATH_MAX];
  int rootfd;
  dev_t root_dev;        /* the root's file system: cgroups on it are */
  bool root_on_cgroupfs; /* on cgroupfs when the root is */
  unsigned available; /* controllers of the root's cgroup.controllers */
  uint32_t files;     /* bit per jc_file_id to read */
  uint32_t collect_files; /* those Collect asks for; the others (a step's
                             alone: jc_step_asks) may be missing silently */
  uint32_t readable;      /* the files whose controller the hierarchy has */
  uint32_t given_up;      /* files read no more (a step said so) */

  jc_tracked **tracked; /* sorted in walk order (jc_hier_path_cmp) */
  size_t tracked_count;
  jc_fd_budget fds;     /* jc_tracked alone changes it */
  size_t unlisted_reported; /* directories the last walks could not list */
  size_t starved;   /* this pass: cgroups not read in full for want of a
                       descriptor (t->starved) */
  jc_problem_memory problems; /* what jc_problem said */

  int inotify_fd; /* -1: walk at every read */
  bool rescan_needed;
  uint64_t last_rescan_ns;
  size_t rescans;

  char *buf; /* the one read buffer; grows, never shrinks */
  size_t buf_size;
  jc_sample sample; /* the one sample, handed to each step of a pass */
  uint64_t cpuset[JC_SAMPLE_CPUSET_WORDS]; /* the sample's cpuset storage */
  uint64_t pass_ns; /* CLOCK_MONOTONIC at the start of this read pass */
  jc_io_device *io_devices; /* the sample's device table */
  jc_metrics_opts metrics;

  struct jc_devname *devnames; /* PerDevice names seen (jc_collector.c) */
  size_t devname_count;

  struct jc_managed_set *managed; /* the <Cgroup> blocks (jc_managed) */

  jc_notify_fn notify; /* NULL: notifications are dropped */
  void *notify_ctx;
  jc_totals_fn totals; /* NULL: no read pass makes totals (the plugin) */
  void *totals_ctx;

  jc_step_table steps; /* the steps' state and slots (jc_steps.c) */
};

/* A step's state (jc_step.h); NULL while it is off. */
static inline void *jc_step_self(const jc_collector *c, jc_step_id id) {
  return c->steps.self[id];
}

/* A step's slot in tracked cgroup t. */
static inline void *jc_step_slot(const jc_collector *c, const jc_tracked *t,
                                 jc_step_id id) {
  return (char *)t->slots + c->steps.slot_offset[id];
}

/* The pass's read buffer, lent to a step for a read of its own (jc_oom's
 * top counter, at begin): its text is not kept from one read to the
 * next, nor are *ret_size bytes more than it holds now. */
static inline char *jc_step_buffer(const jc_collector *c, size_t *ret_size) {
  *ret_size = c->buf_size;
  return c->buf;
}

#endif
