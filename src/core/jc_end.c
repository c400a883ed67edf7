/*
 * jc_end — see jc_end.h.
 */
#include "jc_end.h"

#include "jc_clock.h"
#include "jc_energy.h"
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

/* The populated line of t's cgroup.events (1 or 0; *ret_frozen its
 * frozen line, 0 where the kernel has none), or a negative errno (the
 * cgroup is gone, or the file is not a cgroup's). */
static int read_populated(const jc_collector *c, const jc_tracked *t,
                          bool *ret_frozen) {
  char path[PATH_MAX], text[128];
  int dirfd;
  *ret_frozen = false; /* also where the file cannot be read */
  const char *name =
      jc_tracked_file(c, t, "cgroup.events", path, sizeof(path), &dirfd);
  ssize_t len = jc_hier_read_file_at(dirfd, name, text, sizeof(text));
  if (len < 0)
    return (int)len;
  jc_cursor cur;
  jc_parse_cursor_init(&cur, text, (size_t)len);
  jc_token key;
  uint64_t value;
  int r, populated = -EBADMSG;
  while ((r = jc_parse_flat_next(&cur, &key, &value)) != 0)
    if (r > 0 && JC_TOKEN_IS(key, "populated"))
      populated = value != 0;
    else if (r > 0 && JC_TOKEN_IS(key, "frozen"))
      *ret_frozen = value != 0;
  return populated;
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
}

void jc_end_forget(jc_collector *c, jc_tracked *t, bool vanished) {
  if (t->end.wd < 0)
    return;
  if (vanished && t->end.populated)
    c->ended_lost++; /* it emptied and went before its files were read */
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

static void seconds_text(uint64_t usec, char *out, size_t size) {
  snprintf(out, size, "%.2f s", (double)usec / 1e6);
}

/* The record's figures, each where the sample has it. */
typedef struct {
  jc_note_meta meta[10];
  size_t count;
  char text[400];
  size_t len;
} record;

static void add(record *r, const char *key, double value, const char *fmt,
                ...) __attribute__((format(printf, 4, 5)));
static void add(record *r, const char *key, double value, const char *fmt,
                ...) {
  r->meta[r->count++] = (jc_note_meta){key, NULL, value};
  va_list ap;
  va_start(ap, fmt);
  if (r->len < sizeof(r->text))
    r->len += (size_t)vsnprintf(r->text + r->len, sizeof(r->text) - r->len,
                                fmt, ap);
  va_end(ap);
}

void jc_end_notify(jc_collector *c, jc_tracked *t, const jc_sample *s) {
  if (!c->cfg->notify_end || !c->notify)
    return;
  record r = {.count = 0};
  double seen = (double)(jc_now_ns() - t->end.since_ns) / 1e9;
  const char *path = t->relpath[0] ? t->relpath : "/";
  r.len = (size_t)snprintf(r.text, sizeof(r.text), "cgroup %s ended after %.1f s", path, seen);
  r.meta[r.count++] = (jc_note_meta){"seconds", NULL, seen};
  char user[32], sys[32];
  if (jc_sample_has(s, JC_FILE_CPU_STAT)) {
    seconds_text(s->cpu[JC_CPU_USER_USEC], user, sizeof(user));
    seconds_text(s->cpu[JC_CPU_SYSTEM_USEC], sys, sizeof(sys));
    add(&r, "cpu_user_seconds", (double)s->cpu[JC_CPU_USER_USEC] / 1e6,
        ": CPU %s user", user);
    add(&r, "cpu_system_seconds", (double)s->cpu[JC_CPU_SYSTEM_USEC] / 1e6,
        ", %s system", sys);
  }
  if (jc_sample_has(s, JC_FILE_MEMORY_PEAK))
    add(&r, "memory_peak_bytes", (double)s->memory_peak,
        "; memory peak %.1f MiB", (double)s->memory_peak / MIB);
  if (jc_sample_has(s, JC_FILE_IO_STAT)) {
    const uint64_t *io = t->prior.io.total;
    add(&r, "io_read_bytes", (double)io[0], "; I/O %.1f MiB read",
        (double)io[0] / MIB);
    add(&r, "io_write_bytes", (double)io[1], ", %.1f MiB written",
        (double)io[1] / MIB);
  }
  if (jc_sample_has(s, JC_FILE_MEMORY_EVENTS) &&
      (s->events_have & (1u << JC_EVENTS_OOM_KILL)))
    add(&r, "oom_kills", (double)s->events[JC_EVENTS_OOM_KILL],
        "; %" PRIu64 " OOM kill%s", s->events[JC_EVENTS_OOM_KILL],
        s->events[JC_EVENTS_OOM_KILL] == 1 ? "" : "s");
  double uj;
  if (jc_energy_charged(c, t, &uj))
    add(&r, "energy_joules", uj / 1e6, "; energy %.1f J", uj / 1e6);
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
