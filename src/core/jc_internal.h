/*
 * jc_internal — the collector's state, shared by its modules.
 * jc_collector.c (life cycle and read pass) uses jc_discover.c (walking
 * the tree, merging what it finds), which uses jc_tracked.c (a tracked
 * cgroup's life, its name, the descriptor budget); jc_managed.c
 * (<Cgroup> blocks, which moves their processes with jc_attach.c),
 * jc_problem.c (what to say when a file fails), jc_oom.c (OOM kills as
 * notifications), jc_peak.c (the interval peak) and jc_energy.c (Collect
 * "energy") keep per-cgroup state in jc_tracked.  The log and the clock
 * they share live below them (jc_log, jc_clock).  Nothing outside the
 * core includes this header.
 */
#ifndef JC_INTERNAL_H
#define JC_INTERNAL_H

#include "jc_collector.h"
#include "jc_log.h"
#include "jc_oom.h"
#include "jc_tracked.h"

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

/* What to do when the process runs out of descriptors, for messages. */
#define JC_FD_REMEDY                                                           \
  "; raise collectd's descriptor limit (LimitNOFILE= in its systemd unit, "   \
  "or ulimit -n before it starts)"

struct jc_collector {
  jc_config *cfg;
  jc_log log;

  char root[PATH_MAX];
  int rootfd;
  dev_t root_dev;        /* the root's file system: cgroups on it are */
  bool root_on_cgroupfs; /* on cgroupfs when the root is */
  unsigned available; /* controllers of the root's cgroup.controllers */
  uint32_t files;     /* bit per jc_file_id to read */
  uint32_t collect_files; /* those Collect asks for; the others (memory.events
                             for NotifyOOM alone) may be missing silently */

  jc_tracked **tracked; /* sorted in walk order (jc_hier_path_cmp) */
  size_t tracked_count;
  jc_fd_budget fds;     /* jc_tracked alone changes it */
  size_t unlisted_reported; /* directories the last walks could not list */
  size_t starved_reported;  /* cgroups the last passes could not read for
                               want of descriptors */

  int inotify_fd; /* -1: walk at every read */
  bool rescan_needed;
  uint64_t last_rescan_ns;
  size_t rescans;

  char *buf; /* the one read buffer; grows, never shrinks */
  size_t buf_size;
  jc_sample sample; /* the one sample, handed to each step of a pass */
  uint64_t pass_ns; /* CLOCK_MONOTONIC at the start of this read pass */
  jc_io_device *io_devices; /* the sample's device table */
  jc_metrics_opts metrics;

  struct jc_devname *devnames; /* PerDevice names seen (jc_collector.c) */
  size_t devname_count;

  struct jc_managed_state *managed; /* per <Cgroup> block (jc_managed) */

  struct jc_told_parent *told; /* jc_problem: parents told of a controller */
  size_t told_count;

  jc_notify_fn notify; /* NULL: notifications are dropped */
  void *notify_ctx;
  jc_totals_fn totals; /* NULL: no read pass makes totals (the plugin) */
  void *totals_ctx;
  bool notify_oom;     /* NotifyOOM, and the memory controller is there */
  enum {
    JC_OOM_TOP_NONE,
    JC_OOM_TOP_ROOT_EVENTS, /* CgroupRoot is a cgroup below the kernel's root */
    JC_OOM_TOP_VMSTAT,      /* CgroupRoot is the kernel's root cgroup */
  } oom_top_source;
  jc_oom_state oom_top;
  bool oom_pending; /* a kill or a loss to attribute after this pass */
  struct jc_oom_log *oom_log; /* jc_oom: the kernel's log; NULL unread */

  bool end_pending;   /* a tracked cgroup's cgroup.events changed (jc_end) */
  size_t ended_lost;  /* emptied and removed unread since the last pass */
  bool end_unwatched_told; /* the NOTICE that a watch could not be had */

  struct jc_energy *energy; /* Collect "energy": NULL when off (jc_energy) */

  struct jc_runtime *runtime; /* InstanceFrom "container": NULL when off */
  bool names_pending; /* a tracked cgroup's name_tries is set */
};

#endif
