/*
 * jc_internal — the collector's state, shared by its modules:
 * jc_collector.c (life cycle and read pass) uses jc_discover.c (walking
 * the tree, keeping the tracked set) and jc_managed.c (<Cgroup> blocks),
 * which moves their processes with jc_attach.c; jc_discover.c asks
 * jc_managed.c which paths are managed.  Calls go that way only; the log
 * and the clock they share live below them (jc_log, jc_clock).  Nothing
 * outside those four files includes this header.
 */
#ifndef JC_INTERNAL_H
#define JC_INTERNAL_H

#include "jc_collector.h"
#include "jc_log.h"
#include "jc_name.h"

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

/* One cgroup being reported. */
typedef struct {
  char *relpath;
  char instance[JC_INSTANCE_SIZE];
  ino_t ino;      /* a new inode under the same path is a new cgroup */
  uint64_t serial; /* discovery order: the older of two keeps a name */
  int dirfd;      /* -1 when over the fd budget: opened by path */
  int fd[JC_FILE_COUNT]; /* kept stat-file fds, -1 when not kept */
  uint32_t absent;   /* files found missing, skipped until the next walk */
  uint32_t problems; /* problems logged and not yet recovered */
  jc_rate_state rate;
  bool gone; /* vanished during this read pass */
} jc_tracked;

/* Problem bits: one per file, then one per missing controller. */
#define JC_PROBLEM_FILE(f) (1u << (f))
#define JC_PROBLEM_CTRL(bit) ((bit) << 16)

/* A process a <Cgroup> block moved in, and where it was before. */
typedef struct {
  pid_t pid;
  char *origin; /* its cgroup, relative to CgroupRoot ("" for the root) */
} jc_moved;

typedef struct {
  size_t created_levels; /* trailing path levels we created at init */
  uint64_t *ids; /* their cgroup ids, top-down: what is ours to remove */
  jc_moved *moved; /* where evacuation sends them back to */
  size_t moved_count;
} jc_managed_state;

typedef struct {
  unsigned major, minor;
  char name[32];
} jc_devname;

#define JC_IO_DEVICES_MAX 64

struct jc_collector {
  jc_config *cfg;
  jc_log log;

  char root[PATH_MAX];
  int rootfd;
  unsigned available; /* controllers of the root's cgroup.controllers */
  uint32_t files;     /* bit per jc_file_id to read */

  jc_tracked **tracked; /* sorted in walk order (jc_path_cmp) */
  size_t tracked_count;
  uint64_t next_serial;

  int inotify_fd; /* -1: walk at every read */
  bool rescan_needed;
  uint64_t last_rescan_ns;
  size_t rescans;

  long fd_budget;
  long fds_kept;

  char *buf; /* the one read buffer; grows, never shrinks */
  size_t buf_size;
  jc_sample sample;
  uint64_t pass_ns; /* CLOCK_MONOTONIC at the start of this read pass */
  jc_io_device io_devices[JC_IO_DEVICES_MAX];
  jc_metrics_opts metrics;

  jc_devname *devnames;
  size_t devname_count;

  jc_managed_state *managed;
};

#endif
