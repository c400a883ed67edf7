/*
 * jc_end — see jc_end.h.
 */
#include "jc_end.h"

#include "jc_clock.h"
#include "jc_hier.h"
#include "jc_internal.h"
#include "jc_parse.h"
#include "jc_tracked.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>

#define MIB (1024.0 * 1024.0)

/* File `file` of t read into text[0..size), and a cursor over it; 0 or a
 * negative errno (the cgroup is gone, or the file is not a cgroup's). */
static int read_flat(const jc_collector *c, const jc_tracked *t,
                     const char *file, char *text, size_t size,
                     jc_cursor *ret) {
  char path[PATH_MAX];
  int dirfd;
  const char *name = jc_tracked_file(c, t, file, path, sizeof(path), &dirfd);
  ssize_t len = jc_hier_read_file_at(dirfd, name, text, size);
  if (len < 0)
    return (int)len;
  jc_parse_cursor_init(ret, text, (size_t)len);
  return 0;
}

/* The populated line of t's cgroup.events (1 or 0; *ret_frozen its
 * frozen line, 0 where the kernel has none), or a negative errno. */
static int read_populated(const jc_collector *c, const jc_tracked *t,
                          bool *ret_frozen) {
  char text[128];
  jc_cursor cur;
  *ret_frozen = false; /* also where the file cannot be read */
  int r = read_flat(c, t, "cgroup.events", text, sizeof(text), &cur);
  if (r < 0)
    return r;
  jc_token key;
  uint64_t value;
  int populated = -EBADMSG;
  while ((r = jc_parse_flat_next(&cur, &key, &value)) != 0)
    if (r > 0 && JC_TOKEN_IS(key, "populated"))
      populated = value != 0;
    else if (r > 0 && JC_TOKEN_IS(key, "frozen"))
      *ret_frozen = value != 0;
  return populated;
}

/* Did a process ever run in t?  Its cpu.stat's usage_usec says so. */
static bool ran(const jc_collector *c, const jc_tracked *t) {
  char text[512];
  jc_cursor cur;
  if (read_flat(c, t, "cpu.stat", text, sizeof(text), &cur) < 0)
    return false;
  jc_token key;
  uint64_t value;
  int r;
  while ((r = jc_parse_flat_next(&cur, &key, &value)) != 0)
    if (r > 0 && JC_TOKEN_IS(key, "usage_usec"))
      return value > 0;
  return false;
}

static void note_populated(jc_tracked *t, bool populated, uint64_t now) {
  if (populated && !t->end.populated)
    t->end.since_ns = now;
  t->end.populated = populated;
}

void jc_end_watch(jc_collector *c, jc_tracked *t) {
  t->end = (jc_end_state){.wd = -1};
  if (c->inotify_fd < 0)
    return; /* no final figures: the INFO of jc_discover said why */
  char path[PATH_MAX];
  jc_hier_join(t->relpath, "cgroup.events", path, sizeof(path));
  char full[PATH_MAX + 16];
  jc_hier_join(c->root, path, full, sizeof(full));
  t->end.wd = inotify_add_watch(c->inotify_fd, full, IN_MODIFY);
  if (t->end.wd < 0 && errno == ENOSPC && !c->end_unwatched_told) {
    c->end_unwatched_told = true;
    jc_logf(&c->log, JC_LOG_NOTICE,
            "cannot watch %s (%s): cgroups that end between two reads are "
            "read at the next one instead (raise sysctl "
            "fs.inotify.max_user_watches)",
            full, JC_STRERROR(errno));
  }
  bool frozen;
  int p = read_populated(c, t, &frozen);
  t->end.frozen = frozen;
  t->end.since_ns = jc_now_ns(); /* if it is empty now: seen from here */
  note_populated(t, p > 0, t->end.since_ns);
  /* Made after init and found empty when processes ran in it already: a
   * job started and ended before the walk came (a loaded host).  Its
   * files still hold its figures: read them as those of an end. */
  if (c->rescans > 0 && p == 0 && ran(c, t)) {
    t->end.changed = true;
    c->end_pending = true;
  }
}

void jc_end_forget(jc_collector *c, jc_tracked *t, bool vanished) {
  if (t->end.wd < 0)
    return;
  /* It emptied and went before its files were read; or its cgroup.events
   * changed since it was last read empty: a job filled and emptied it
   * (inotify merges the two while the first is unread) and it went. */
  if (vanished && (t->end.populated || t->end.changed))
    c->ended_lost++;
  /* Gone with its file already (IN_IGNORED) when it vanished: EINVAL. */
  inotify_rm_watch(c->inotify_fd, t->end.wd);
  t->end.wd = -1;
}

bool jc_end_event(jc_collector *c, int wd) {
  bool found = false;
  for (size_t i = 0; i < c->tracked_count && !found; i++) {
    jc_tracked *t = c->tracked[i];
    if (t->end.wd >= 0 && (wd < 0 || t->end.wd == wd)) {
      t->end.changed = true;
      c->end_pending = true;
      found = wd >= 0;
    }
  }
  return found;
}

void jc_end_unwatch_all(jc_collector *c) {
  for (size_t i = 0; i < c->tracked_count; i++)
    c->tracked[i]->end.wd = -1;
}

bool jc_end_pending(const jc_collector *c) { return c->end_pending; }

bool jc_end_ended(jc_collector *c, jc_tracked *t) {
  t->end.changed = false;
  bool frozen;
  int p = read_populated(c, t, &frozen);
  if (p < 0)
    return false; /* gone already: counted when the walk drops it */
  bool was = t->end.populated, refrozen = frozen != t->end.frozen;
  t->end.frozen = frozen;
  note_populated(t, p > 0, jc_now_ns());
  /* Empty now: it ended, also when its filling and emptying came as one
   * event (inotify merges the two while the first is unread), unless all
   * that changed was `frozen`. */
  return p == 0 && (was || !refrozen);
}

/* The record: its facts for machines and its message, side by side. */
typedef struct {
  jc_note_meta meta[10];
  size_t count;
  char text[400];
  size_t len;
} record;

static void say(record *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(record *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (r->len < sizeof(r->text))
    r->len += (size_t)vsnprintf(r->text + r->len, sizeof(r->text) - r->len,
                                fmt, ap);
  va_end(ap);
}

static void number(record *r, const char *key, double v) {
  r->meta[r->count++] = (jc_note_meta){key, JC_META_NUMBER, NULL, v, 0};
}

static void count(record *r, const char *key, uint64_t v) {
  r->meta[r->count++] = (jc_note_meta){key, JC_META_COUNT, NULL, 0, v};
}

void jc_end_notify(jc_collector *c, const jc_tracked *t,
                   const jc_totals *totals) {
  if (!c->cfg->notify_end || !c->notify)
    return;
  record r = {.count = 0};
  double seen = (double)(jc_now_ns() - t->end.since_ns) / 1e9;
  say(&r, "cgroup %s ended after %.1f s", t->relpath[0] ? t->relpath : "/",
      seen);
  number(&r, "seconds", seen);
  if (totals->have_times) {
    double user = (double)totals->user_usec / 1e6;
    double sys = (double)totals->system_usec / 1e6;
    number(&r, "cpu_user_seconds", user);
    number(&r, "cpu_system_seconds", sys);
    say(&r, ": CPU %.2f s user, %.2f s system", user, sys);
  }
  if (totals->have_memory_peak) {
    count(&r, "memory_peak_bytes", totals->memory_peak);
    say(&r, "; memory peak %.1f MiB", (double)totals->memory_peak / MIB);
  }
  if (totals->have_io) {
    count(&r, "io_read_bytes", totals->io_read_bytes);
    count(&r, "io_write_bytes", totals->io_write_bytes);
    say(&r, "; I/O %.1f MiB read, %.1f MiB written",
        (double)totals->io_read_bytes / MIB,
        (double)totals->io_write_bytes / MIB);
  }
  if (totals->have_oom_kills) {
    count(&r, "oom_kills", totals->oom_kills);
    say(&r, "; %" PRIu64 " OOM kill%s", totals->oom_kills,
        totals->oom_kills == 1 ? "" : "s");
  }
  if (totals->have_energy) {
    number(&r, "energy_joules", totals->energy_joules);
    say(&r, "; energy %.1f J", totals->energy_joules);
  }
  jc_notification n = {JC_NOTIF_OKAY, "cgroup", "ended", r.text, r.meta,
                       r.count, NULL};
  jc_target target = jc_tracked_notify_target(t);
  c->notify(c->notify_ctx, &target, &n);
}

void jc_end_report_lost(jc_collector *c) {
  if (!c->ended_lost)
    return;
  jc_logf(&c->log, JC_LOG_INFO,
          "%zu cgroup%s emptied and %s removed before %s final figures could "
          "be read (docs/metrics.md, final figures)",
          c->ended_lost, c->ended_lost == 1 ? "" : "s",
          c->ended_lost == 1 ? "was" : "were",
          c->ended_lost == 1 ? "its" : "their");
  c->ended_lost = 0;
}
