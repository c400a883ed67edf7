/*
 * jc_oom — see jc_oom.h.
 */
#include "jc_oom.h"

#include "jc_hier.h"
#include "jc_internal.h"
#include "jc_tracked.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024.0 * 1024.0)
/* Deeper than the walk goes (64 levels below the root). */
#define ANCESTORS_MAX 80

void jc_oom_init(jc_collector *c) {
  c->oom_top_source = JC_OOM_TOP_NONE;
  if (!c->notify_oom || !jc_hier_is_cgroupfs(c->rootfd))
    return; /* a copy of a tree: the host's /proc/vmstat is not its top */
  c->oom_top_source = faccessat(c->rootfd, "memory.events", F_OK, AT_EACCESS) == 0
                          ? JC_OOM_TOP_ROOT_EVENTS
                          : JC_OOM_TOP_VMSTAT;
}

/* A new value of a hierarchical counter: its growth since the last one. */
static void counted(jc_collector *c, jc_oom_state *o, uint64_t value) {
  if (o->seen && value > o->last) {
    o->growth = value - o->last;
    c->oom_pending = true;
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

void jc_oom_read_top(jc_collector *c) {
  if (c->oom_top_source == JC_OOM_TOP_NONE)
    return;
  int dirfd = c->oom_top_source == JC_OOM_TOP_ROOT_EVENTS ? c->rootfd
                                                          : AT_FDCWD;
  const char *name = c->oom_top_source == JC_OOM_TOP_ROOT_EVENTS
                         ? "memory.events"
                         : "/proc/vmstat";
  /* To its end: /proc/vmstat is one record per counter, given a page
   * per read(), and each kernel release adds counters. */
  ssize_t len = jc_hier_read_file_at(dirfd, name, c->buf, c->buf_size);
  uint64_t kills;
  if (len > 0 && find_oom_kill(c->buf, (size_t)len, &kills))
    counted(c, &c->oom_top, kills);
}

void jc_oom_note(jc_collector *c, jc_tracked *t, const jc_sample *s,
                 const jc_limits *limits) {
  if (!c->notify_oom || !jc_sample_has(s, JC_FILE_MEMORY_EVENTS) ||
      !(s->events_have & (1u << JC_EVENTS_OOM_KILL)))
    return;
  jc_oom_state *o = &t->oom;
  o->memory_max = limits->memory_max;
  o->peak = jc_sample_has(s, JC_FILE_MEMORY_PEAK) ? s->memory_peak
                                                   : JC_VALUE_MAX;
  counted(c, o, s->events[JC_EVENTS_OOM_KILL]);
}

void jc_oom_forget(jc_tracked *t) { t->oom = (jc_oom_state){0}; }

/* The nearest of candidates[0..n) that counts kills and contains path;
 * NULL for the top. */
static jc_tracked *counting_ancestor(const char *path,
                                     jc_tracked *const *candidates, size_t n) {
  for (size_t i = n; i-- > 0;) {
    jc_tracked *a = candidates[i];
    if (!a->gone && a->oom.seen && jc_hier_is_below(path, a->relpath))
      return a;
  }
  return NULL;
}

void jc_oom_lost(jc_collector *c, const jc_tracked *t,
                 jc_tracked *const *candidates, size_t n) {
  if (!c->notify_oom)
    return;
  jc_tracked *a = counting_ancestor(t->relpath, candidates, n);
  (a ? &a->oom : &c->oom_top)->lost_below = true;
  c->oom_pending = true;
}

/* Each counting cgroup's growth goes to its nearest counting ancestor's
 * `below`; a stack of the ancestors of the current one (walk order is
 * depth first, parents first) finds it in one pass. */
static void sum_below(jc_collector *c) {
  jc_tracked *stack[ANCESTORS_MAX];
  size_t depth = 0;
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_tracked *t = c->tracked[i];
    if (t->gone || !t->oom.seen)
      continue;
    while (depth > 0 && !jc_hier_is_below(t->relpath, stack[depth - 1]->relpath))
      depth--;
    (depth ? &stack[depth - 1]->oom : &c->oom_top)->below += t->oom.growth;
    if (depth < ANCESTORS_MAX)
      stack[depth++] = t;
  }
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

/* The message (docs/metrics.md, OOM notifications) for n kills told by the cgroup at relpath (path
 * as people read it: "/" for the root). */
static void describe(const jc_collector *c, jc_oom_state *o,
                     const jc_target *t, int64_t n, char *out, size_t size) {
  const char *path = t->meta;
  const char *processes = n == 1 ? "process" : "processes";
  if (o->lost_below) {
    snprintf(out, size,
             "%" PRId64 " %s killed by the OOM killer in a cgroup below %s "
             "that no longer exists",
             n, processes, path);
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
  snprintf(out, size, "cgroup %s: %" PRId64 " %s killed by the OOM killer%s%s%s%s",
           path, n, processes, max[0] || peak[0] ? " (" : "", max, peak,
           max[0] || peak[0] ? ")" : "");
}

/* Tells what o owes, if anything, and starts the next pass. */
static void settle(jc_collector *c, jc_oom_state *o, const jc_target *target) {
  o->owed += (int64_t)o->growth - (int64_t)o->below;
  if (o->owed > 0 && c->notify) {
    char message[512];
    describe(c, o, target, o->owed, message, sizeof(message));
    jc_notification n = {JC_NOTIF_FAILURE, "memory", "oom_kill", message,
                         NULL, 0};
    c->notify(c->notify_ctx, target, &n);
  }
  if (o->owed > 0)
    o->owed = 0;
  o->growth = o->below = 0;
  o->lost_below = false;
}

void jc_oom_attribute(jc_collector *c) {
  if (!c->oom_pending)
    return;
  c->oom_pending = false;
  sum_below(c);
  for (size_t i = c->tracked_count; i-- > 0;) {
    jc_tracked *t = c->tracked[i];
    if (t->gone || !t->oom.seen)
      continue;
    jc_target target = jc_tracked_notify_target(t);
    settle(c, &t->oom, &target);
  }
  jc_target top = {"root", "", "/"};
  if (c->oom_top.seen)
    settle(c, &c->oom_top, &top);
}
