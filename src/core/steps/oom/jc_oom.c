/*
 * jc_oom — see jc_oom.h.
 */
#include "jc_oom.h"

#include "jc_hier.h"
#include "jc_internal.h"
#include "jc_kmsg.h"
#include "jc_tracked.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024.0 * 1024.0)
/* Deeper than the walk goes (64 levels below the root). */
#define ANCESTORS_MAX 80
/* Reports of the kernel's log kept to pair with kills, the newest. */
#define REPORTS_MAX 16

/*
 * The kernel's log, where collectd may read it: the reports of the kills
 * not paired yet.  The log writes a kill's report (the oom-kill line, or
 * Task in and Kill process) before the kill counts in memory.events, so
 * a kill the pass saw has its report in the log when the pass ends; a
 * report drained in a pass whose reads came before its kill counted
 * waits one pass more for it, then goes.
 */
struct jc_oom_log {
  jc_kmsg *kmsg;
  char root_cgroup[PATH_MAX]; /* CgroupRoot in the hierarchy: "/", "/a/b" */
  struct {
    jc_kmsg_report report;
    unsigned passes; /* ends of passes it has waited */
    bool used;
  } kept[REPORTS_MAX];
  size_t count;
};

/* The step's own state: the top, and the kernel's log. */
typedef struct {
  enum {
    TOP_NONE,
    TOP_ROOT_EVENTS, /* CgroupRoot is a cgroup below the kernel's root */
    TOP_VMSTAT,      /* CgroupRoot is the kernel's root cgroup */
  } top_source;
  jc_oom_state top;
  bool pending; /* a kill or a loss to attribute after this pass */
  struct jc_oom_log *log; /* the kernel's log; NULL unread */
} oom_self;

static oom_self *self(const jc_collector *c) {
  return jc_step_self(c, JC_STEP_OOM);
}

static jc_oom_state *oom_of(const jc_collector *c, const jc_tracked *t) {
  return jc_step_slot(c, t, JC_STEP_OOM);
}

static void close_log(oom_self *o) {
  if (!o->log)
    return;
  jc_kmsg_close(o->log->kmsg);
  free(o->log);
  o->log = NULL;
}

/* Where CgroupRoot is in the kernel's hierarchy, whose paths the log
 * writes.  Seen from collectd's cgroup namespace (docs/metrics.md, OOM
 * notifications: the host's namespace is assumed). */
static int root_cgroup(const jc_collector *c, char *out, size_t size) {
  char real[PATH_MAX];
  if (!realpath(c->root, real))
    return -errno;
  return jc_hier_cgroup_of("/proc/self/mountinfo", real, out, size);
}

int jc_oom_open_log(const jc_collector *c, const char *path,
                    const char *root_cgroup) {
  if (!self(c))
    return -EINVAL; /* NotifyOOM is off */
  struct jc_oom_log *l = calloc(1, sizeof(*l));
  if (!l)
    return -ENOMEM;
  snprintf(l->root_cgroup, sizeof(l->root_cgroup), "%s", root_cgroup);
  int r = jc_kmsg_open(path, &l->kmsg);
  if (r < 0) {
    free(l);
    return r;
  }
  close_log(self(c));
  self(c)->log = l;
  return 0;
}

bool jc_oom_has_log(const jc_collector *c) {
  return self(c) && self(c)->log;
}

static void open_log(const jc_collector *c) {
  char root[PATH_MAX];
  int r = root_cgroup(c, root, sizeof(root));
  if (r == 0)
    r = jc_oom_open_log(c, "/dev/kmsg", root);
  if (r == 0)
    return;
  jc_logf(&c->log, JC_LOG_INFO,
          "OOM notifications do not name the process killed nor the limit "
          "that fired: the kernel log /dev/kmsg cannot be read (%s)%s",
          JC_STRERROR(-r),
          r == -EPERM || r == -EACCES
              ? "; collectd needs CAP_SYSLOG while kernel.dmesg_restrict is "
                "1, and a container seldom has the host's log"
              : "");
}

/* On with NotifyOOM where the memory controller is: chooses the top
 * counter (none on a copy of a tree) and opens the kernel's log, or says
 * in one INFO why it cannot. */
static int init(const jc_collector *c, void **ret_self) {
  if (!c->cfg->notify_oom || !(c->available & JC_CTRL_MEMORY))
    return 0;
  oom_self *o = calloc(1, sizeof(*o));
  if (!o) {
    jc_logf(&c->log, JC_LOG_ERR, "out of memory");
    return -ENOMEM;
  }
  *ret_self = o;
  o->top_source = TOP_NONE;
  if (!jc_hier_is_cgroupfs(c->rootfd))
    return 0; /* a copy of a tree: the host's /proc/vmstat is not its top */
  o->top_source = faccessat(c->rootfd, "memory.events", F_OK, AT_EACCESS) == 0
                      ? TOP_ROOT_EVENTS
                      : TOP_VMSTAT;
  open_log(c); /* nor the host's log a copy's */
  return 0;
}

/* Each cgroup's memory.events, whatever the value lists read. */
static void ask(const jc_collector *c, jc_step_asks *ret) {
  (void)c;
  ret->files = 1u << JC_FILE_MEMORY_EVENTS;
}

static void oom_free(const jc_collector *c, void *state) {
  (void)c;
  close_log(state);
  free(state);
}

/* A new value of a hierarchical counter: its growth since the last one,
 * added to what the reads since the last pass counted (a final read, then
 * the pass's). */
static void counted(const jc_collector *c, jc_oom_state *o, uint64_t value) {
  if (o->seen && value > o->last) {
    o->growth += value - o->last;
    self(c)->pending = true;
  }
  o->last = value;
  o->seen = true;
}

/* oom_kill of a flat-keyed text (memory.events or /proc/vmstat). */
static bool find_oom_kill(const char *buf, size_t len, uint64_t *ret) {
  jc_cursor cur;
  jc_parse_cursor_init(&cur, buf, len);
  jc_token key;
  uint64_t value;
  int r;
  while ((r = jc_parse_flat_next(&cur, &key, &value)) != 0)
    if (r > 0 && JC_TOKEN_IS(key, "oom_kill")) {
      *ret = value;
      return true;
    }
  return false;
}

/* At the start of a read pass (before any cgroup: parents are read
 * first): reads the top counter. */
static void read_top(jc_collector *c) {
  oom_self *o = self(c);
  if (o->top_source == TOP_NONE)
    return;
  int dirfd = o->top_source == TOP_ROOT_EVENTS ? c->rootfd : AT_FDCWD;
  const char *name = o->top_source == TOP_ROOT_EVENTS ? "memory.events"
                                                      : "/proc/vmstat";
  /* To its end: /proc/vmstat is one record per counter, given a page
   * per read(), and each kernel release adds counters. */
  size_t size;
  char *text = jc_step_buffer(c, &size);
  ssize_t len = jc_hier_read_file_at(dirfd, name, text, size);
  uint64_t kills;
  if (len > 0 && find_oom_kill(text, (size_t)len, &kills))
    counted(c, &self(c)->top, kills);
}

/* After t was read: its count, and what the message would need. */
static void note(const jc_collector *c, jc_tracked *t, const jc_read *r) {
  const jc_sample *s = r->sample;
  if (!jc_sample_has(s, JC_FILE_MEMORY_EVENTS) ||
      !(s->keyed_have & (1u << JC_KEY_MEMORY_EVENTS_OOM_KILL)))
    return;
  jc_oom_state *o = oom_of(c, t);
  o->memory_max = r->limits->memory_max;
  o->peak = jc_sample_has(s, JC_FILE_MEMORY_PEAK) ? s->memory_peak
                                                   : JC_VALUE_MAX;
  counted(c, o, s->keyed[JC_KEY_MEMORY_EVENTS_OOM_KILL]);
}

/* t tracked, or its path re-created: no kills counted yet. */
static void track(const jc_collector *c, jc_tracked *t) {
  *oom_of(c, t) = (jc_oom_state){0};
}

/* The nearest of candidates[0..n) that counts kills and contains path;
 * NULL for the top. */
static jc_tracked *counting_ancestor(const jc_collector *c, const char *path,
                                     jc_tracked *const *candidates, size_t n) {
  for (size_t i = n; i-- > 0;) {
    jc_tracked *a = candidates[i];
    if (!a->gone && oom_of(c, a)->seen && jc_hier_is_below(path, a->relpath))
      return a;
  }
  return NULL;
}

/* t vanished (or its path holds another cgroup now): what it did not
 * tell, its nearest tracked ancestor (or the top) will, as kills below it. */
static void lost(const jc_collector *c, const jc_tracked *t, bool recreated,
                 jc_tracked *const *candidates, size_t n) {
  (void)recreated;
  jc_tracked *a = counting_ancestor(c, t->relpath, candidates, n);
  (a ? oom_of(c, a) : &self(c)->top)->lost_below = true;
  self(c)->pending = true;
}

/* Each counting cgroup's growth goes to its nearest counting ancestor's
 * `below`; a stack of the ancestors of the current one (walk order is
 * depth first, parents first) finds it in one pass. */
static void sum_below(const jc_collector *c) {
  jc_tracked *stack[ANCESTORS_MAX];
  size_t depth = 0;
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_tracked *t = c->tracked[i];
    if (t->gone || !oom_of(c, t)->seen)
      continue;
    while (depth > 0 && !jc_hier_is_below(t->relpath, stack[depth - 1]->relpath))
      depth--;
    (depth ? oom_of(c, stack[depth - 1]) : &self(c)->top)->below +=
        oom_of(c, t)->growth;
    if (depth < ANCESTORS_MAX)
      stack[depth++] = t;
  }
}

/* A report of the log: kept, the oldest making room. */
static void keep_report(void *ctx, const jc_kmsg_report *r) {
  struct jc_oom_log *l = ctx;
  if (l->count == REPORTS_MAX)
    memmove(&l->kept[0], &l->kept[1], (REPORTS_MAX - 1) * sizeof(l->kept[0]));
  else
    l->count++;
  l->kept[l->count - 1].report = *r;
  l->kept[l->count - 1].passes = 0;
  l->kept[l->count - 1].used = false;
}

/* After a pass: paired reports go, and those that waited a pass. */
static void age_reports(struct jc_oom_log *l) {
  size_t n = 0;
  for (size_t i = 0; i < l->count; i++)
    if (!l->kept[i].used && l->kept[i].passes++ < 1)
      l->kept[n++] = l->kept[i];
  l->count = n;
}

/* kpath (the kernel's) relative to CgroupRoot; NULL when outside it. */
static const char *below_root(const struct jc_oom_log *l, const char *kpath) {
  const char *root = l->root_cgroup;
  if (strcmp(root, "/") == 0)
    return kpath[0] == '/' ? kpath + 1 : NULL;
  size_t n = strlen(root);
  if (strncmp(kpath, root, n) != 0 || (kpath[n] != '\0' && kpath[n] != '/'))
    return NULL;
  return kpath[n] ? kpath + n + 1 : kpath + n;
}

/*
 * The newest unpaired report of a kill at or below relpath; the n - 1
 * before it (the same kills, told in one notification) are paired too.
 * Cgroups tell deepest first, so a deeper one has taken its own.
 */
static const jc_kmsg_report *pair_report(struct jc_oom_log *l,
                                         const char *relpath, int64_t n) {
  const jc_kmsg_report *newest = NULL;
  for (size_t i = l->count; i-- > 0 && n > 0;) {
    const char *rel = below_root(l, l->kept[i].report.task_memcg);
    if (l->kept[i].used || !rel ||
        !jc_hier_is_within(rel, relpath))
      continue;
    l->kept[i].used = true;
    n--;
    if (!newest)
      newest = &l->kept[i].report;
  }
  return newest;
}

static void size_text(const char *label, uint64_t bytes, char *out,
                      size_t size) {
  snprintf(out, size, "%s%.1f MiB", label, (double)bytes / MIB);
}

/*
 * The effective memory.max of relpath read from its files: the smallest of
 * its own and its ancestors' up to the root (the top's own included).  For
 * the message only, when Collect does not read the limits at every read:
 * a handful of small reads, and only when an OOM kill is told.
 */
static uint64_t read_memory_max(const jc_collector *c, const char *relpath) {
  char path[PATH_MAX], file[PATH_MAX + 16], text[64];
  uint64_t min = JC_VALUE_MAX;
  snprintf(path, sizeof(path), "%s", relpath);
  for (;;) {
    uint64_t v;
    jc_hier_join(path, "memory.max", file, sizeof(file));
    ssize_t len = jc_hier_read_file_at(c->rootfd, file, text, sizeof(text));
    if (len >= 0 && jc_parse_single(text, (size_t)len, &v) == 0 && v < min)
      min = v;
    if (!path[0])
      return min;
    jc_hier_parent_of(path, path, sizeof(path));
  }
}

/* memory.peak of relpath, for the message: JC_VALUE_MAX when it has none
 * (before 5.19, the root) or it is gone. */
static uint64_t read_memory_peak(const jc_collector *c, const char *relpath) {
  char file[PATH_MAX + 16], text[64];
  uint64_t v;
  jc_hier_join(relpath, "memory.peak", file, sizeof(file));
  ssize_t len = jc_hier_read_file_at(c->rootfd, file, text, sizeof(text));
  return len >= 0 && jc_parse_single(text, (size_t)len, &v) == 0 ? v
                                                                   : JC_VALUE_MAX;
}

/* A cgroup of the log as people read it: relative to CgroupRoot ("/" for
 * it), or the kernel's own path above it. */
static const char *place(const struct jc_oom_log *l, const char *kpath) {
  const char *rel = below_root(l, kpath);
  return !rel ? kpath : rel[0] ? rel : "/";
}

/* memory.max of the cgroup whose limit fired, read when the kill is told:
 * JC_VALUE_MAX when it is gone, above CgroupRoot or has none. */
static uint64_t limit_of(const jc_collector *c, const char *kpath) {
  const char *rel = below_root(self(c)->log, kpath);
  char file[PATH_MAX + 16], text[64];
  uint64_t v;
  if (!rel || !rel[0])
    return JC_VALUE_MAX;
  jc_hier_join(rel, "memory.max", file, sizeof(file));
  ssize_t len = jc_hier_read_file_at(c->rootfd, file, text, sizeof(text));
  return len >= 0 && jc_parse_single(text, (size_t)len, &v) == 0 ? v
                                                                   : JC_VALUE_MAX;
}

static jc_oom_victim victim_of(const jc_collector *c,
                               const jc_kmsg_report *r) {
  bool memcg = r->oom_memcg[0] != '\0';
  return (jc_oom_victim){r->pid,
                         r->comm,
                         r->uid,
                         place(self(c)->log, r->task_memcg),
                         memcg ? place(self(c)->log, r->oom_memcg) : NULL,
                         memcg ? limit_of(c, r->oom_memcg) : JC_VALUE_MAX};
}

/* ": memhog (pid 4242, uid 0) in job/worker, at the limit of job
 * (memory.max 64.0 MiB)"; of n kills, the last. */
static void describe_victim(const jc_oom_victim *v, int64_t n, char *out,
                            size_t size) {
  char uid[32] = "", limit[JC_KMSG_PATH_SIZE + 64], max[48];
  if (v->uid >= 0)
    snprintf(uid, sizeof(uid), ", uid %lld", v->uid);
  if (!v->limit_cgroup)
    snprintf(limit, sizeof(limit),
             "at no cgroup's limit (the system was out of memory)");
  else if (v->limit == JC_VALUE_MAX)
    snprintf(limit, sizeof(limit), "at the limit of %s", v->limit_cgroup);
  else {
    size_text("memory.max ", v->limit, max, sizeof(max));
    snprintf(limit, sizeof(limit), "at the limit of %s (%s)", v->limit_cgroup,
             max);
  }
  snprintf(out, size, ": %s%s (pid %d%s) in %s, %s", n > 1 ? "the last, " : "",
           v->command, v->pid, uid, v->cgroup, limit);
}

/* The message (docs/metrics.md, OOM notifications) for n kills told by the
 * cgroup at relpath (path as people read it: "/" for the root), and the
 * process killed when the kernel's log said which. */
static void describe(const jc_collector *c, jc_oom_state *o,
                     const jc_target *t, int64_t n, const jc_oom_victim *v,
                     char *out, size_t size) {
  const char *path = t->meta;
  const char *processes = n == 1 ? "process" : "processes";
  char killed[JC_KMSG_PATH_SIZE * 2 + 256] = "";
  if (v)
    describe_victim(v, n, killed, sizeof(killed));
  if (o->lost_below) {
    snprintf(out, size,
             "%" PRId64 " %s killed by the OOM killer in a cgroup below %s "
             "that no longer exists%s",
             n, processes, path, killed);
    return;
  }
  char max[48] = "", peak[48] = "";
  if (!(c->files & (1u << JC_FILE_MEMORY_MAX))) /* not read at every read */
    o->memory_max = read_memory_max(c, t->relpath);
  if (o->peak == JC_VALUE_MAX) /* memory.peak not read: its list is off */
    o->peak = read_memory_peak(c, t->relpath);
  if (o->memory_max == JC_VALUE_MAX)
    snprintf(max, sizeof(max), "no memory.max");
  else
    size_text("memory.max ", o->memory_max, max, sizeof(max));
  if (o->peak != JC_VALUE_MAX)
    size_text(max[0] ? ", peak " : "peak ", o->peak, peak, sizeof(peak));
  snprintf(out, size,
           "cgroup %s: %" PRId64 " %s killed by the OOM killer%s%s%s%s%s", path,
           n, processes, max[0] || peak[0] ? " (" : "", max, peak,
           max[0] || peak[0] ? ")" : "", killed);
}

/* Tells what o owes, if anything, and starts the next pass. */
static void settle(const jc_collector *c, jc_oom_state *o,
                   const jc_target *target) {
  o->owed += (int64_t)o->growth - (int64_t)o->below;
  struct jc_oom_log *log = self(c)->log;
  if (o->owed > 0 && c->notify) {
    const jc_kmsg_report *r =
        log ? pair_report(log, target->relpath, o->owed) : NULL;
    jc_oom_victim victim = r ? victim_of(c, r) : (jc_oom_victim){0};
    char message[1024];
    describe(c, o, target, o->owed, r ? &victim : NULL, message,
             sizeof(message));
    jc_notification n = {JC_NOTIF_FAILURE, "memory", "oom_kill", message,
                         NULL, 0, r ? &victim : NULL};
    c->notify(c->notify_ctx, target, &n);
  }
  if (o->owed > 0)
    o->owed = 0;
  o->growth = o->below = 0;
  o->lost_below = false;
}

/* What the kernel's log holds now: reports of the kills just counted. */
static void drain_log(const jc_collector *c) {
  struct jc_oom_log *log = self(c)->log;
  int r = jc_kmsg_drain(log->kmsg, keep_report, log);
  if (r < 0)
    jc_logf(&c->log, JC_LOG_DEBUG, "the kernel log /dev/kmsg: %s",
            JC_STRERROR(-r));
}

/* After the pass: attributes the kills and sends the notifications. */
static void attribute(jc_collector *c, jc_collect_fn emit, void *ctx) {
  (void)emit;
  (void)ctx;
  oom_self *o = self(c);
  if (!o->pending) {
    if (o->log && o->log->count)
      age_reports(o->log);
    return;
  }
  o->pending = false;
  if (o->log)
    drain_log(c);
  sum_below(c);
  for (size_t i = c->tracked_count; i-- > 0;) {
    jc_tracked *t = c->tracked[i];
    if (t->gone || !oom_of(c, t)->seen)
      continue;
    jc_target target = jc_tracked_notify_target(t);
    settle(c, oom_of(c, t), &target);
  }
  jc_target top = {"root", "", "/"};
  if (o->top.seen)
    settle(c, &o->top, &top);
  if (o->log)
    age_reports(o->log);
}

const jc_step jc_oom_step = {
    .name = "oom",
    .slot_size = sizeof(jc_oom_state),
    .life = {.init = init, .free = oom_free},
    .asks = {.ask = ask},
    .pass = {.begin = read_top, .cgroup = note, .end = attribute},
    .cgroup_life = {.track = track, .vanished = lost},
};
