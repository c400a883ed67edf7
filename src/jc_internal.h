/*
 * jc_internal — the collector's state, shared by its modules
 * (jc_collector.c: life cycle and read pass; jc_discover.c: walking the
 * tree and keeping the tracked set; jc_managed.c: <Cgroup> blocks).
 * Nothing outside those files includes this header.
 */
#ifndef JC_INTERNAL_H
#define JC_INTERNAL_H

#include "jc_collector.h"
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

typedef struct {
  size_t created_levels; /* trailing path levels we created at init */
} jc_managed_state;

typedef struct {
  unsigned major, minor;
  char name[32];
} jc_devname;

#define JC_IO_DEVICES_MAX 64

struct jc_collector {
  jc_config *cfg;
  jc_log_fn log;
  void *log_ctx;

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

void jc_logf(jc_collector *c, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

uint64_t jc_now_ns(void);

/* jc_discover.c */
int jc_path_cmp(const char *a, const char *b);
int jc_discover_init(jc_collector *c);
bool jc_discover_changed(jc_collector *c); /* drains notifications */
int jc_discover_rescan(jc_collector *c);
void jc_tracked_close_fds(jc_collector *c, jc_tracked *t);
void jc_tracked_free(jc_collector *c, jc_tracked *t);
void jc_discover_drop_gone(jc_collector *c);

/* jc_managed.c */
int jc_managed_setup(jc_collector *c);
void jc_managed_release(jc_collector *c);
bool jc_is_managed_path(const jc_collector *c, const char *relpath);
const char *jc_managed_instance(const jc_collector *c, const char *relpath);

#endif
