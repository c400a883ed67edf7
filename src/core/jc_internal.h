/*
 * jc_internal — the collector's state, shared by its modules.
 * jc_collector.c (life cycle and read pass) uses jc_discover.c (walking
 * the tree, keeping the tracked set), jc_managed.c (<Cgroup> blocks,
 * which moves their processes with jc_attach.c), jc_problem.c (what to
 * say when a file fails) and jc_oom.c (OOM kills as notifications);
 * jc_discover.c asks jc_managed.c which paths are managed and tells
 * jc_oom.c which vanished.  Calls go that way only; the log and the clock
 * they share live below them (jc_log, jc_clock).  Nothing outside those
 * files includes this header.
 */
#ifndef JC_INTERNAL_H
#define JC_INTERNAL_H

#include "jc_collector.h"
#include "jc_log.h"
#include "jc_name.h"
#include "jc_proc.h"

#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

/* OOM kills counted by one cgroup (or the top): see jc_oom.h. */
typedef struct {
  uint64_t last;       /* hierarchical oom_kill at the last read */
  bool seen;           /* `last` holds a read: this one counts kills */
  uint64_t growth;     /* this pass */
  uint64_t below;      /* this pass: the nearest counting descendants' growth */
  int64_t owed;        /* kills not told yet; negative: told ahead */
  bool lost_below;     /* a tracked descendant vanished since the last pass */
  uint64_t memory_max; /* effective, at the last read (for the message);
                          read from the files then when limits are not
                          collected */
  uint64_t peak;       /* memory.peak at the last read; JC_VALUE_MAX: none */
} jc_oom_state;

/* One cgroup being reported. */
typedef struct {
  char *relpath;
  char name[JC_INSTANCE_SIZE];     /* its instance name, before collisions */
  char instance[JC_INSTANCE_SIZE]; /* the one it is reported with */
  bool explicit_name; /* the root's or an Instance: never given a suffix */
  bool name_is_path;  /* the instance is the path ('/' as '_') or "root" */
  ino_t ino;      /* a new inode under the same path is a new cgroup */
  int dirfd;      /* -1 when over the fd budget: opened by path */
  int fd[JC_FILE_COUNT]; /* kept stat-file fds, -1 when not kept */
  uint32_t absent;   /* files found missing, skipped until the next walk */
  uint32_t problems; /* problems logged and not yet recovered */
  jc_prior prior;  /* rates and I/O totals */
  jc_limits ancestors; /* the smallest limits above it, as of the last walk */
  jc_oom_state oom;
  bool peak_armed;  /* its memory.peak interval descriptor was reset once */
  bool on_cgroupfs; /* the kernel's files: regular, no type check needed */
  bool gone; /* vanished during this read pass */
  bool starved; /* this pass: a file could not be opened for want of a
                   descriptor (EMFILE, ENFILE) */
  struct jc_energy_share *energy; /* its part of the zones' energy, NULL
                                     until its first read (jc_energy) */
  uint8_t name_tries; /* InstanceFrom "container": lookups that found the
                         runtime's files not written yet; 0: none pending */
} jc_tracked;

/* What to do when the process runs out of descriptors, for messages. */
#define JC_FD_REMEDY                                                           \
  "; raise collectd's descriptor limit (LimitNOFILE= in its systemd unit, "   \
  "or ulimit -n before it starts)"

/* Problem bits: one per file, then one per missing controller. */
#define JC_PROBLEM_FILE(f) (1u << (f))
#define JC_PROBLEM_CTRL(bit) ((bit) << 16)

/* A process a <Cgroup> block moved in, and where it was before. */
typedef struct {
  pid_t pid;
  char *origin; /* its cgroup, relative to CgroupRoot ("" for the root) */
  jc_proc_hold hold; /* from its check to its move (released then) */
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

#define JC_IO_DEVICES_INITIAL 64 /* grows with the devices io.stat lists */

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

  jc_tracked **tracked; /* sorted in walk order (jc_path_cmp) */
  size_t tracked_count;
  size_t unlisted_reported; /* directories the last walks could not list */
  size_t starved_reported;  /* cgroups the last passes could not read for
                               want of descriptors */

  int inotify_fd; /* -1: walk at every read */
  bool rescan_needed;
  uint64_t last_rescan_ns;
  size_t rescans;

  long fd_budget; /* descriptors kept between reads, at most */
  long fds_kept;

  char *buf; /* the one read buffer; grows, never shrinks */
  size_t buf_size;
  jc_sample sample;
  uint64_t pass_ns; /* CLOCK_MONOTONIC at the start of this read pass */
  jc_io_device *io_devices; /* the sample's device table */
  jc_metrics_opts metrics;

  jc_devname *devnames;
  size_t devname_count;

  jc_managed_state *managed;

  struct jc_told_parent *told; /* jc_problem: parents told of a controller */
  size_t told_count;

  jc_notify_fn notify; /* NULL: notifications are dropped */
  void *notify_ctx;
  bool notify_oom;     /* NotifyOOM, and the memory controller is there */
  enum {
    JC_OOM_TOP_NONE,
    JC_OOM_TOP_ROOT_EVENTS, /* CgroupRoot is a cgroup below the kernel's root */
    JC_OOM_TOP_VMSTAT,      /* CgroupRoot is the kernel's root cgroup */
  } oom_top_source;
  jc_oom_state oom_top;
  bool oom_pending; /* a kill or a loss to attribute after this pass */

  struct jc_energy *energy; /* Collect "energy": NULL when off (jc_energy) */

  struct jc_runtime *runtime; /* InstanceFrom "container": NULL when off */
  bool names_pending; /* a tracked cgroup's name_tries is set */
};

/* Where file `name` of t is for openat(): its kept directory, or else
 * the root and "relpath/name" (written to buf). */
static inline const char *jc_tracked_file(const jc_collector *c,
                                          const jc_tracked *t,
                                          const char *name, char *buf,
                                          size_t size, int *ret_dirfd) {
  *ret_dirfd = t->dirfd >= 0 ? t->dirfd : c->rootfd;
  if (t->dirfd >= 0 || !t->relpath[0])
    return name;
  snprintf(buf, size, "%s/%s", t->relpath, name);
  return buf;
}

/* The target of t's value lists.  The meta data travels where the
 * instance does not say the path (PathMetaData: everywhere). */
static inline jc_target jc_tracked_target(const jc_collector *c,
                                          const jc_tracked *t) {
  const char *path = t->relpath[0] ? t->relpath : "/";
  bool meta = c->cfg->path_meta || !t->name_is_path;
  return (jc_target){t->instance, t->relpath, meta ? path : NULL};
}

/* Are all the files t is read for kept open? */
static inline bool jc_tracked_all_kept(const jc_collector *c,
                                       const jc_tracked *t) {
  uint32_t needed = c->files & ~t->absent;
  for (int f = 0; f < JC_FILE_COUNT; f++)
    if ((needed & (1u << f)) && t->fd[f] < 0 &&
        !(!t->relpath[0] && jc_files[f].absent_at_root))
      return false;
  return true;
}

#endif