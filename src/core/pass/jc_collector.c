/*
 * jc_collector — life cycle and read pass; see jc_collector.h.
 *
 * The read pass is the hot path: for each tracked cgroup, each wanted file
 * is read with one pread() at offset 0 on a kept descriptor (or one
 * opened for the read when over the descriptor budget: jc_tracked) into
 * the one shared buffer, parsed in place into the one shared sample
 * (handed to each step as an argument), and turned into metrics.  In steady state it makes no heap allocation.
 *
 * One pread is the whole file: each cgroup file read here is one record
 * of the kernel's seq_file, which a read hands over whole when the buffer
 * holds it (the buffer doubles until it does); a copy of a tree holds
 * regular files, where a short read is the end.  Files of many records
 * (cgroup.procs, /proc/vmstat) give a page per read and are read to the
 * end elsewhere (jc_hier).
 */
#include "jc_internal.h"

#include "jc_clock.h"
#include "jc_discover.h"
#include "jc_hier.h"
#include "jc_managed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* PerDevice names: "sda" for 8:0 (device_name). */
struct jc_devname {
  unsigned major, minor;
  char name[32];
};

#define JC_IO_DEVICES_INITIAL 64 /* grows with the devices io.stat lists */
#define BUF_INITIAL (64 * 1024)
#define BUF_MAX (1024 * 1024) /* larger than any kernel stat file */

jc_collector *jc_collector_new(jc_config *cfg, jc_log_fn log, void *log_ctx) {
  jc_collector *c = calloc(1, sizeof(*c));
  if (!c) {
    jc_config_free(cfg);
    return NULL;
  }
  c->cfg = cfg;
  c->log = (jc_log){log, log_ctx};
  c->rootfd = -1;
  c->inotify_fd = -1;
  return c;
}

const char *jc_collector_root(const jc_collector *c) { return c->root; }

void jc_collector_set_notify(jc_collector *c, jc_notify_fn fn, void *ctx) {
  c->notify = fn;
  c->notify_ctx = ctx;
}

void jc_collector_set_totals(jc_collector *c, jc_totals_fn fn, void *ctx) {
  c->totals = fn;
  c->totals_ctx = ctx;
}

void jc_collector_get_stats(const jc_collector *c, jc_collector_stats *ret) {
  *ret = (jc_collector_stats){c->tracked_count, c->rescans, c->fds.kept,
                              c->fds.limit, c->inotify_fd >= 0, c->files};
}

static int resolve_root(jc_collector *c) {
  if (c->cfg->root) {
    snprintf(c->root, sizeof(c->root), "%s", c->cfg->root);
    return 0;
  }
  int r = jc_hier_find_mount("/proc/self/mountinfo", c->root, sizeof(c->root));
  if (r < 0)
    jc_logf(&c->log, JC_LOG_ERR,
            "no cgroup2 file system is mounted (none in /proc/self/mountinfo); "
            "mount one with: mount -t cgroup2 none /sys/fs/cgroup, or set "
            "CgroupRoot");
  return r;
}

static int open_root(jc_collector *c) {
  c->rootfd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (c->rootfd < 0) {
    int e = errno;
    jc_logf(&c->log, JC_LOG_ERR, "CgroupRoot \"%s\": %s%s", c->root, JC_STRERROR(e),
            e == EACCES ? "; run as root, or give this user read access to "
                          "the cgroup tree"
                        : "");
    return -e;
  }
  struct stat st;
  if (fstat(c->rootfd, &st) == 0)
    c->root_dev = st.st_dev;
  c->root_on_cgroupfs = jc_hier_is_cgroupfs(c->rootfd);
  int r = jc_hier_verify_v2(c->rootfd);
  if (r < 0) {
    jc_logf(&c->log, JC_LOG_ERR,
            "CgroupRoot \"%s\" is not a cgroup v2 directory (cgroup v1 or "
            "another file system); set CgroupRoot to the cgroup2 mount point "
            "(the line of type cgroup2 in /proc/self/mountinfo)",
            c->root);
    return r;
  }
  return 0;
}

/* The controllers the host binds to cgroup v1; none for a copy of a tree,
 * which is not the host's hierarchy. */
static unsigned bound_to_v1(const jc_collector *c) {
  unsigned v1 = 0;
  if (!c->root_on_cgroupfs || jc_hier_v1_controllers("/proc/cgroups", &v1) < 0)
    return 0;
  return v1;
}

/* A controller this hierarchy lacks, said once: an INFO when the host
 * binds it to cgroup v1 (a hybrid host is healthy so, docs/compatibility.md)
 * or only the default set wants it, a WARNING when a group named in
 * Collect does (its cgroup.subtree_control above, or the kernel, may be
 * the cause). */
static void say_unavailable(jc_collector *c, const char *controller,
                            bool v1, bool asked, bool limits) {
  const char *what = limits ? "limits are" : "values are";
  if (v1)
    jc_logf(&c->log, JC_LOG_INFO,
            "controller \"%s\" is bound to cgroup v1 on this host "
            "(/proc/cgroups), so %s has none; its %s not collected",
            controller, c->root, what);
  else
    jc_logf(&c->log, asked ? JC_LOG_WARNING : JC_LOG_INFO,
            "controller \"%s\" is not available in %s (not listed in its "
            "cgroup.controllers: the cgroup above does not enable it for its "
            "children, or the kernel has it off); its %s not collected",
            controller, c->root, what);
}

/* The files of the cgroup v2 file table that controller ctrl provides. */
static uint32_t files_of(unsigned ctrl) {
  uint32_t files = 0;
  for (int f = 0; f < JC_FILE_COUNT; f++)
    if (jc_sample_files[f].controller &&
        jc_hier_ctrl_bit(jc_sample_files[f].controller) == ctrl)
      files |= 1u << f;
  return files;
}

/* Which files to read: those of the chosen value lists whose controller
 * this hierarchy has. */
static void choose_files(jc_collector *c) {
  if (jc_hier_controllers(c->rootfd, "cgroup.controllers", &c->available) < 0)
    c->available = 0;
  uint32_t wanted = jc_lists_files(&c->cfg->sel, &c->cfg->memstat);
  for (int f = 0; f < JC_FILE_COUNT; f++) {
    const char *ctrl = jc_sample_files[f].controller;
    if (!ctrl || (c->available & jc_hier_ctrl_bit(ctrl)))
      c->readable |= 1u << f;
  }
  uint32_t asked = jc_lists_files_of(&c->cfg->sel, &c->cfg->memstat,
                                     c->cfg->collect_asked);
  unsigned reported = 0, v1 = bound_to_v1(c);
  for (int f = 0; f < JC_FILE_COUNT; f++) {
    const jc_file_info *fi = &jc_sample_files[f];
    if (!(wanted & (1u << f)))
      continue;
    unsigned ctrl = fi->controller ? jc_hier_ctrl_bit(fi->controller) : 0;
    if (!ctrl || (c->available & ctrl)) {
      c->files |= 1u << f;
      continue;
    }
    if (reported & ctrl)
      continue;
    reported |= ctrl;
    uint32_t lacking = files_of(ctrl) & wanted;
    say_unavailable(c, fi->controller, v1 & ctrl, asked & lacking,
                    !(lacking & ~JC_LIMIT_FILES));
  }
  c->collect_files = c->files;
  const uint32_t psi = (1u << JC_FILE_CPU_PRESSURE) |
                       (1u << JC_FILE_MEMORY_PRESSURE) |
                       (1u << JC_FILE_IO_PRESSURE);
  if ((c->files & psi) &&
      faccessat(c->rootfd, "cpu.pressure", F_OK, AT_EACCESS) < 0) {
    jc_logf(&c->log, JC_LOG_WARNING,
            "%s/cpu.pressure is missing: the kernel has pressure stall "
            "information disabled (boot with psi=1); pressure is not "
            "collected",
            c->root);
    c->files &= ~psi;
    c->collect_files &= ~psi;
  }
}

/* The files read: those Collect asks for, and those the steps that are
 * on ask for (jc_step_asks) where the hierarchy has their controller;
 * at init and whenever a step's answer may have changed. */
static void read_asked(jc_collector *c) {
  c->files =
      (c->collect_files | (c->steps.asked.files & c->readable)) & ~c->given_up;
}

static int alloc_buffers(jc_collector *c) {
  c->buf_size = BUF_INITIAL;
  c->buf = malloc(c->buf_size);
  c->io_devices = calloc(JC_IO_DEVICES_INITIAL, sizeof(*c->io_devices));
  c->sample.io_device = c->io_devices;
  c->sample.io_device_capacity = c->io_devices ? JC_IO_DEVICES_INITIAL : 0;
  c->sample.cpuset = c->cpuset;
  c->sample.cpuset_words = JC_SAMPLE_CPUSET_WORDS;
  return c->buf && c->io_devices ? 0 : -ENOMEM;
}

/* A host with more block devices than the table holds: twice the room. */
static int grow_io_devices(jc_collector *c) {
  size_t cap = 2 * c->sample.io_device_capacity;
  jc_io_device *grown = realloc(c->io_devices, cap * sizeof(*grown));
  if (!grown)
    return -ENOMEM;
  c->io_devices = c->sample.io_device = grown;
  c->sample.io_device_capacity = cap;
  return 0;
}

/* Parses the text of file f in c->buf into s; an io.stat with more
 * devices than the device table holds grows it and is parsed again
 * (every device counts in the totals). */
static int parse_file(jc_collector *c, jc_sample *s, jc_file_id f,
                      size_t len) {
  int r = jc_sample_parse(s, f, c->buf, len, &c->cfg->memstat);
  while (f == JC_FILE_IO_STAT && s->io_devices_truncated &&
         grow_io_devices(c) == 0)
    r = jc_sample_parse(s, f, c->buf, len, &c->cfg->memstat);
  return r;
}

static const char *device_name(void *ctx, unsigned major, unsigned minor);

static void read_all(jc_collector *c, jc_collect_fn emit, void *ctx);

int jc_collector_init(jc_collector *c) {
  int r = resolve_root(c);
  if (r < 0 || (r = open_root(c)) < 0 || (r = alloc_buffers(c)) < 0 ||
      (r = jc_steps_init_first(c)) < 0)
    return r;
  choose_files(c);
  jc_tracked_budget_init(c);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  c->metrics = (jc_metrics_opts){&c->cfg->sel, &c->cfg->memstat,
                                 cpus > 0 ? (unsigned)cpus : 1,
                                 c->cfg->per_device, device_name, c};
  if ((r = jc_steps_init(c)) < 0)
    return r;
  read_asked(c); /* before <Cgroup> blocks: their controllers handed down */
  jc_managed_env managed = {.cfg = c->cfg,
                            .log = &c->log,
                            .root = c->root,
                            .rootfd = c->rootfd,
                            .files = c->files,
                            .collect_files = c->collect_files};
  if ((r = jc_managed_setup(&managed, &c->managed)) < 0) {
    jc_managed_release(c->managed);
    c->managed = NULL;
    return r;
  }
  jc_discover_init(c);
  jc_discover_rescan(c);
  read_all(c, NULL, NULL); /* the baseline: rates from the first read on */
  return 0;
}

/* ---- read pass ---------------------------------------------------------- */

/* Reads file f of t into c->buf; returns its length or a negative errno.
 * *ret_fresh: its descriptor was opened for this read. */
static ssize_t read_file(jc_collector *c, jc_tracked *t, jc_file_id f,
                         bool *ret_fresh) {
  *ret_fresh = t->fd[f] < 0;
  int fd = jc_tracked_fd(c, t, f);
  if (fd < 0)
    return fd;
  ssize_t len;
  while ((len = pread(fd, c->buf, c->buf_size, 0)) == (ssize_t)c->buf_size) {
    char *bigger = c->buf_size < BUF_MAX ? realloc(c->buf, 2 * c->buf_size)
                                         : NULL;
    if (!bigger) {
      len = -EFBIG;
      break;
    }
    c->buf = bigger;
    c->buf_size *= 2;
  }
  if (len < 0 && len != -EFBIG)
    len = -errno;
  jc_tracked_fd_done(c, t, f, fd, len >= 0);
  return len;
}

/* File f is read no more, in any cgroup (its step said so). */
static void stop_reading(jc_collector *c, jc_file_id f) {
  c->given_up |= 1u << f;
  c->files &= ~(1u << f);
  c->collect_files &= ~(1u << f);
  jc_tracked_drop_file(c, f);
}

/* Opening file f failed with err: its step, if it has one, may say that
 * it is read no more (true) rather than being a problem of the file. */
static bool refused(jc_collector *c, jc_file_id f, int err) {
  const jc_step *step = c->steps.of_file[f];
  if (!step || !step->files.refused || step->files.refused(c, f, err) == 0)
    return false;
  stop_reading(c, f);
  return true;
}

/* File f of t was read into s: its step, if it has one, is told (through
 * the descriptor t keeps: a file read by a step is one to keep). */
static void tell_step(jc_collector *c, jc_tracked *t, jc_file_id f,
                      bool fresh, bool in_pass, jc_sample *s) {
  const jc_step *step = c->steps.of_file[f];
  if (t->fd[f] >= 0 &&
      step->files.read(c, t, f, t->fd[f], fresh, in_pass, s) < 0)
    stop_reading(c, f);
}

/* Fills s from t's files (in_pass: a read pass reads it, not a final
 * read between passes).  Returns false when t has vanished. */
static bool sample_cgroup(jc_collector *c, jc_tracked *t, jc_sample *s,
                          bool in_pass) {
  jc_sample_reset(s);
  t->starved = false;
  uint32_t wanted = c->files & ~t->absent;
  /* The wanted files only, in the table's order: a bit at a time. */
  for (uint32_t left = wanted; left; left &= left - 1) {
    int f = __builtin_ctz(left);
    if (!t->relpath[0] && jc_sample_files[f].absent_at_root)
      continue;
    bool fresh;
    ssize_t len = read_file(c, t, (jc_file_id)f, &fresh);
    if (len == -EMFILE || len == -ENFILE) {
      t->starved = true; /* counted and said once for all of them */
      break;
    }
    if (len == -ENOBUFS)
      continue; /* an interval peak without room: counted by jc_tracked */
    if (len < 0 && refused(c, (jc_file_id)f, (int)-len))
      continue;
    if (len < 0) {
      if (!jc_problem_read_failed(c, t, (jc_file_id)f, (int)len))
        return false;
      continue;
    }
    if (f == JC_FILE_CPU_STAT) /* the rates' Δt: this cgroup's own */
      s->time_ns = jc_now_ns();
    int r = parse_file(c, s, (jc_file_id)f, (size_t)len);
    if (r < 0)
      jc_problem_parse_failed(c, t, (jc_file_id)f, s, r);
    else if (t->problems & (1u << f)) /* told: over now */
      jc_problem_over(c, t, (jc_file_id)f);
    if (c->steps.files & (1u << f))
      tell_step(c, t, (jc_file_id)f, fresh, in_pass, s);
  }
  return true;
}

typedef struct {
  jc_collect_fn emit;
  void *ctx;
  const jc_target *target;
} emit_ctx;

static void emit_with_target(void *ctx, const jc_metric *m) {
  const emit_ctx *e = ctx;
  e->emit(e->ctx, e->target, m);
}

/* t's totals from this read's sample s, and what the steps add (the
 * energy charged to it).  Out of line: the plugin's pass makes none, and
 * its loop over the steps would take registers from read_one's path. */
static void totals_of(const jc_collector *c, const jc_tracked *t,
                      const jc_sample *s, jc_totals *ret)
    __attribute__((noinline));
static void totals_of(const jc_collector *c, const jc_tracked *t,
                      const jc_sample *s, jc_totals *ret) {
  jc_totals_of(s, &t->prior.io, c->cfg->per_device, ret);
  jc_steps_totals(c, t, ret);
}

/* Is this t's final read?  Asked of the steps before its files are read
 * (cgroup.events first: figures read after `populated 0` are final). */
static bool final_read(jc_collector *c, jc_tracked *t) {
  bool final = false;
  for (size_t i = 0; i < c->steps.final_count; i++)
    final |= c->steps.final[i]->pass.final(c, t);
  return final;
}

/* Reads t into s, sends its value lists and hands the read to the steps;
 * false when t has vanished.  final: t has just emptied, and these are
 * its final figures; in_pass: a read pass reads it. */
static bool read_one(jc_collector *c, jc_tracked *t, jc_sample *s, bool final,
                     bool in_pass, jc_collect_fn emit, void *ctx) {
  if (!sample_cgroup(c, t, s, in_pass)) {
    t->gone = true;
    return false;
  }
  jc_tracked_trim(c, t);
  jc_limits limits = jc_metrics_limits_effective(s, &t->ancestors);
  jc_target target = jc_tracked_target(c, t);
  emit_ctx e = {emit, ctx, &target};
  jc_metrics_emit(s, &t->prior, &limits, &c->metrics,
                  emit ? emit_with_target : NULL, &e);
  /* Totals only where they are asked for: the plugin's pass makes none. */
  jc_totals totals;
  bool made = emit && (c->totals || (final && c->steps.asked.final_totals));
  if (made)
    totals_of(c, t, s, &totals);
  if (made && c->totals)
    c->totals(c->totals_ctx, &target, &totals);
  jc_read r = {s, &limits, made ? &totals : NULL, final, in_pass};
  for (size_t i = 0; i < c->steps.cgroup_count; i++)
    c->steps.cgroup[i]->pass.cgroup(c, t, &r);
  for (size_t i = 0; final && i < c->steps.ended_count; i++)
    c->steps.ended[i]->pass.ended(c, t, &r);
  return true;
}

static void read_all(jc_collector *c, jc_collect_fn emit, void *ctx) {
  /* The pass's clock, for what is read once a pass (the energy zones).
   * Each cgroup's cpu.stat gets its own reading, taken as it is read: a
   * read thread held up within a pass (a loaded host) would otherwise
   * stretch one interval's usage over another's Δt (one busy thread read
   * as 1.09 cores in a VM).  A vDSO clock_gettime, some 20 ns. */
  c->pass_ns = jc_now_ns();
  c->starved = 0;
  bool finals = jc_steps_take_pending(c); /* else no cgroup has emptied */
  jc_steps_begin(c);
  if (c->steps.asking_count) { /* a step's answer may change at its begin */
    jc_steps_ask(c);
    read_asked(c);
  }
  jc_sample *s = &c->sample;
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_tracked *t = c->tracked[i];
    bool final = finals && final_read(c, t);
    if (read_one(c, t, s, final, true, emit, ctx))
      c->starved += t->starved;
  }
  jc_discover_drop_gone(c);
  jc_tracked_budget_end_pass(c);
  jc_problem_end_pass(c);
  jc_steps_end(c, emit, ctx); /* after every cgroup: the kills' attribution
                                 and the energy's split need all */
  jc_steps_send(c, emit, ctx);
}

/* Walks the tree when inotify (drained here) says it changed, or when
 * the last walk could not see all of it, or when RescanInterval passed. */
static void rescan_if_changed(jc_collector *c) {
  bool changed = jc_discover_changed(c);
  uint64_t now = jc_now_ns();
  if (changed || c->rescan_needed ||
      now - c->last_rescan_ns >= (uint64_t)(c->cfg->rescan_interval * 1e9)) {
    jc_discover_rescan(c);
    jc_problem_walked(c);
  }
}

bool jc_collector_wants_ticks(const jc_collector *c) {
  return jc_steps_ticking(c);
}

int jc_collector_tick_in_ms(const jc_collector *c) {
  uint64_t due = jc_steps_due_ns(c), now = jc_now_ns();
  if (due == UINT64_MAX)
    return -1;
  uint64_t ms = due > now ? (due - now + 999999) / 1000000 : 0;
  return ms > INT_MAX ? INT_MAX : (int)ms;
}

void jc_collector_tick(jc_collector *c) { jc_steps_tick(c, jc_now_ns()); }

int jc_collector_events_fd(const jc_collector *c) { return c->inotify_fd; }

typedef struct {
  jc_collector *c;
  jc_tracked *t;
  uint64_t time_ns;
} hold_ctx;

static void hold_list(void *ctx, const jc_target *target, const jc_metric *m) {
  (void)target; /* t's, as at any read */
  const hold_ctx *h = ctx;
  jc_metric held = *m;
  held.time_ns = h->time_ns;
  jc_steps_hold(h->c, h->t, &held);
}

/* A final read between passes: its value lists are held (jc_step.h,
 * hold), and its rates' baseline stays that of the last pass: should the
 * cgroup stay, the next pass's rates cover the whole interval. */
static void read_final_held(jc_collector *c, jc_tracked *t) {
  hold_ctx h = {c, t, jc_wall_ns()};
  jc_rate_state rate = t->prior.rate;
  if (read_one(c, t, &c->sample, true, false, hold_list, &h))
    t->prior.rate = rate;
}

int jc_collector_handle_events(jc_collector *c, jc_collect_fn emit,
                               void *ctx) {
  if (c->rootfd < 0)
    return -EBADF; /* not initialised */
  rescan_if_changed(c);
  if (!jc_steps_take_pending(c)) {
    jc_steps_send(c, emit, ctx); /* the walk found some gone */
    return 0;
  }
  c->pass_ns = jc_now_ns(); /* the time of these reads */
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_tracked *t = c->tracked[i];
    if (final_read(c, t))
      read_final_held(c, t);
  }
  jc_discover_drop_gone(c); /* the steps count those removed meanwhile */
  jc_steps_send(c, emit, ctx);
  /* No OOM kill is told here: a final read's growth waits for the next
   * pass.  The kernel notifies a cgroup.events change at most every
   * 20 ms per file, so the parent's `populated 0` may come before its
   * child's; told now, the parent would tell the child's kill and the
   * child again (jc_oom: told once, by the deepest, after a pass that read
   * them all). */
  return 0;
}

int jc_collector_read(jc_collector *c, jc_collect_fn emit, void *ctx) {
  if (c->rootfd < 0)
    return -EBADF; /* not initialised */
  rescan_if_changed(c);
  read_all(c, emit, ctx);
  return 0;
}

void jc_collector_each_target(const jc_collector *c, jc_target_fn fn,
                              void *ctx) {
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_target target = jc_tracked_notify_target(c->tracked[i]);
    fn(ctx, &target);
  }
}

/* PerDevice names: "sda" from /sys/dev/block/M:m/uevent, else "M:m". */
static const char *device_name(void *ctx, unsigned major, unsigned minor) {
  jc_collector *c = ctx;
  for (size_t i = 0; i < c->devname_count; i++)
    if (c->devnames[i].major == major && c->devnames[i].minor == minor)
      return c->devnames[i].name;
  struct jc_devname d = {major, minor, ""};
  snprintf(d.name, sizeof(d.name), "%u:%u", major, minor);
  char path[64], text[512];
  snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", major, minor);
  ssize_t len = jc_hier_read_file_at(AT_FDCWD, path, text, sizeof(text) - 1);
  if (len > 0) {
    text[len] = '\0';
    const char *dn = strstr(text, "DEVNAME=");
    if (dn)
      snprintf(d.name, sizeof(d.name), "%.*s", (int)strcspn(dn + 8, "\n"),
               dn + 8);
  }
  struct jc_devname *grown =
      realloc(c->devnames, (c->devname_count + 1) * sizeof(*grown));
  if (!grown)
    return "unknown"; /* out of memory: the next read tries again */
  c->devnames = grown;
  c->devnames[c->devname_count] = d;
  return c->devnames[c->devname_count++].name;
}

void jc_collector_free(jc_collector *c) {
  if (!c)
    return;
  jc_managed_release(c->managed);
  for (size_t i = 0; i < c->tracked_count; i++)
    jc_tracked_free(c, c->tracked[i]); /* the steps release their slots */
  free(c->tracked);
  jc_steps_free(c);
  jc_problem_free(c);
  if (c->inotify_fd >= 0)
    close(c->inotify_fd);
  if (c->rootfd >= 0)
    close(c->rootfd);
  free(c->devnames);
  free(c->io_devices);
  free(c->buf);
  jc_config_free(c->cfg);
  free(c);
}
