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
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>

#define MIB (1024.0 * 1024.0)

/* A value list held (jc_end_state), its type instance its own. */
struct jc_end_held {
  jc_metric m;
  char type_instance[128];
};

/* The held lists of a cgroup that went, to be sent. */
typedef struct {
  char instance[128];
  char *relpath, *meta;
  struct jc_end_held *held;
  size_t count;
} gone_figures;

/* The step's own state. */
typedef struct {
  bool pending;       /* a tracked cgroup's cgroup.events changed */
  size_t lost;        /* emptied and removed unread since the last pass */
  bool unwatched_told; /* the NOTICE that a watch could not be had */
  gone_figures *gone; /* to send */
  size_t gone_count, gone_capacity;
  bool held;          /* a tracked cgroup holds lists */
} end_self;

static end_self *self(const jc_collector *c) {
  return jc_step_self(c, JC_STEP_END);
}

static jc_end_state *end_of(const jc_collector *c, const jc_tracked *t) {
  return jc_step_slot(c, t, JC_STEP_END);
}

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

/* The CPU time processes have had in t (its cpu.stat's usage_usec):
 * true and *ret when it could be read. */
static bool usage_of(const jc_collector *c, const jc_tracked *t,
                     uint64_t *ret) {
  char text[512];
  jc_cursor cur;
  if (read_flat(c, t, "cpu.stat", text, sizeof(text), &cur) < 0)
    return false;
  jc_token key;
  uint64_t value;
  int r;
  while ((r = jc_parse_flat_next(&cur, &key, &value)) != 0)
    if (r > 0 && JC_TOKEN_IS(key, "usage_usec")) {
      *ret = value;
      return true;
    }
  return false;
}

/* Did a process ever run in t? */
static bool ran(const jc_collector *c, const jc_tracked *t) {
  uint64_t usage;
  return usage_of(c, t, &usage) && usage > 0;
}

static void note_populated(jc_end_state *e, bool populated, uint64_t now) {
  if (populated && !e->populated)
    e->since_ns = now;
  e->populated = populated;
}

/* A new or re-created tracked cgroup: its watch and its populated state. */
static void watch(const jc_collector *c, jc_tracked *t) {
  jc_end_state *e = end_of(c, t);
  *e = (jc_end_state){.wd = -1};
  if (c->inotify_fd < 0)
    return; /* no final figures: the INFO of jc_discover said why */
  char path[PATH_MAX];
  jc_hier_join(t->relpath, "cgroup.events", path, sizeof(path));
  char full[PATH_MAX + 16];
  jc_hier_join(c->root, path, full, sizeof(full));
  e->wd = inotify_add_watch(c->inotify_fd, full, IN_MODIFY);
  if (e->wd < 0 && errno == ENOSPC && !self(c)->unwatched_told) {
    self(c)->unwatched_told = true;
    jc_logf(&c->log, JC_LOG_NOTICE,
            "cannot watch %s (%s): cgroups that end between two reads are "
            "read at the next one instead (raise sysctl "
            "fs.inotify.max_user_watches)",
            full, JC_STRERROR(errno));
  }
  bool frozen;
  int p = read_populated(c, t, &frozen);
  e->frozen = frozen;
  e->since_ns = jc_now_ns(); /* if it is empty now: seen from here */
  note_populated(e, p > 0, e->since_ns);
  /* Made after init and found empty when processes ran in it already: a
   * job started and ended before the walk came (a loaded host).  Its
   * files still hold its figures: read them as those of an end. */
  if (c->rescans > 0 && p == 0 && ran(c, t)) {
    e->changed = true;
    self(c)->pending = true;
  }
}

/* t went with lists held: they are to be sent (at most one cgroup's
 * more than the last time; out of memory, they are dropped). */
static void keep_gone(const jc_collector *c, const jc_tracked *t,
                      jc_end_state *e) {
  end_self *s = self(c);
  if (s->gone_count == s->gone_capacity) {
    size_t cap = s->gone_capacity ? 2 * s->gone_capacity : 8;
    gone_figures *grown = realloc(s->gone, cap * sizeof(*grown));
    if (!grown)
      return;
    s->gone = grown;
    s->gone_capacity = cap;
  }
  jc_target target = jc_tracked_target(c, t);
  gone_figures g = {.relpath = strdup(target.relpath),
                    .meta = target.meta ? strdup(target.meta) : NULL,
                    .held = e->held,
                    .count = e->held_count};
  if (!g.relpath || (target.meta && !g.meta)) {
    free(g.relpath);
    free(g.meta);
    return;
  }
  snprintf(g.instance, sizeof(g.instance), "%s", target.instance);
  s->gone[s->gone_count++] = g;
  e->held = NULL; /* theirs now */
  e->held_count = e->held_capacity = 0;
}

/* t vanished (not re-created): lost, when its final figures were not
 * read.  It was removed during its final read; or it emptied and went
 * before its files were read; or its cgroup.events changed since it was
 * last read empty: a job filled and emptied it (inotify merges the two
 * while the first is unread) and it went. */
static void vanished(const jc_collector *c, const jc_tracked *t, bool recreated,
                     jc_tracked *const *before, size_t n) {
  (void)before;
  (void)n;
  jc_end_state *e = end_of(c, t);
  if (e->held_count)
    keep_gone(c, t, e); /* re-created too: the one that was there went */
  if (recreated)
    return;
  if (e->reading || (e->wd >= 0 && (e->populated || e->changed)))
    self(c)->lost++;
}

/* t is freed or re-created: its held lists and its watch go. */
static void release(jc_collector *c, jc_tracked *t) {
  jc_end_state *e = end_of(c, t);
  free(e->held);
  e->held = NULL;
  e->held_count = e->held_capacity = 0;
  if (e->wd < 0)
    return;
  /* Gone with its file already (IN_IGNORED) when it vanished: EINVAL. */
  inotify_rm_watch(c->inotify_fd, e->wd);
  e->wd = -1;
}

/* An inotify event on watch wd that is not a directory's: marks the
 * cgroup whose cgroup.events it is; every cgroup when events were lost;
 * none has a watch any more when the instance is gone. */
static void event(const jc_collector *c, int wd) {
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_end_state *e = end_of(c, c->tracked[i]);
    if (wd == JC_WATCHES_GONE) {
      e->wd = -1;
    } else if (e->wd >= 0 && (wd < 0 || e->wd == wd)) {
      e->changed = true;
      self(c)->pending = true;
      if (wd >= 0)
        return;
    }
  }
}

static bool take_pending(const jc_collector *c) {
  bool pending = self(c)->pending;
  self(c)->pending = false;
  return pending;
}

/* t was marked: reads its cgroup.events; true when it has just ended
 * (populated 1 → 0): its files are to be read now. */
static bool ended(const jc_collector *c, jc_tracked *t) {
  jc_end_state *e = end_of(c, t);
  if (!e->changed)
    return false;
  e->changed = false;
  bool frozen;
  int p = read_populated(c, t, &frozen);
  if (p < 0)
    return false; /* gone already: counted when the walk drops it */
  bool was = e->populated, refrozen = frozen != e->frozen;
  e->frozen = frozen;
  note_populated(e, p > 0, jc_now_ns());
  /* Empty now: it ended, also when its filling and emptying came as one
   * event (inotify merges the two while the first is unread), unless all
   * that changed was `frozen`, or unless no process has run in it since
   * its last end: the kernel tells the filling and the emptying apart
   * when they are 20 ms apart or more, and a watcher that reads both
   * only after the job ended sees an empty cgroup twice, one job.  (Its
   * CPU time counts every process, a job's shell and its `sleep` alike.) */
  uint64_t usage = 0;
  bool counted = p == 0 && usage_of(c, t, &usage);
  bool ran_since = !counted || usage > e->usage_usec;
  e->reading = p == 0 && (was || (!refrozen && ran_since));
  if (e->reading && counted)
    e->usage_usec = usage;
  if (e->reading)
    e->held_count = 0; /* this read's lists replace those */
  return e->reading;
}

/* A list of t's final read between passes: held, until it goes. */
static void hold(const jc_collector *c, jc_tracked *t, const jc_metric *m) {
  jc_end_state *e = end_of(c, t);
  if (e->held_count == e->held_capacity) {
    size_t cap = e->held_capacity ? 2 * e->held_capacity : 16;
    struct jc_end_held *grown = realloc(e->held, cap * sizeof(*grown));
    if (!grown)
      return; /* out of memory: the list is not sent */
    e->held = grown;
    e->held_capacity = cap;
  }
  self(c)->held = true;
  struct jc_end_held *h = &e->held[e->held_count++];
  h->m = *m;
  snprintf(h->type_instance, sizeof(h->type_instance), "%s",
           m->type_instance);
}

static void free_gone(gone_figures *g) {
  free(g->relpath);
  free(g->meta);
  free(g->held);
}

/* The held lists of the cgroups that went, with the times they were
 * read. */
static void send_gone(const jc_collector *c, jc_collect_fn emit, void *ctx) {
  end_self *s = self(c);
  for (size_t i = 0; i < s->gone_count; i++) {
    gone_figures *g = &s->gone[i];
    jc_target target = {g->instance, g->relpath, g->meta};
    for (size_t j = 0; emit && j < g->count; j++) {
      jc_metric m = g->held[j].m;
      m.type_instance = g->held[j].type_instance;
      emit(ctx, &target, &m);
    }
    free_gone(g);
  }
  /* Given back: the room many that went at once needed is not kept for
   * good (the soak of make bench: the heap in use flat over 100,000). */
  free(s->gone);
  s->gone = NULL;
  s->gone_count = s->gone_capacity = 0;
}

/* The record: its facts for machines and its message, side by side. */
typedef struct {
  jc_note_meta meta[16];
  size_t count;
  char text[640];
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

/* After t's final read: the NotifyEnd notification of its totals
 * (jc_totals, from that read; docs/configuration.md, NotifyEnd). */
static void notify(const jc_collector *c, const jc_tracked *t,
                   const jc_totals *totals) {
  if (!c->cfg->notify_end || !c->notify)
    return;
  record r = {.count = 0};
  double seen = (double)(jc_now_ns() - end_of(c, t)->since_ns) / 1e9;
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
  if (totals->have_gpu) {
    count(&r, "gpu_memory_peak_bytes", totals->gpu_memory_peak);
    number(&r, "gpu_energy_joules", totals->gpu_energy_joules);
    say(&r, "; GPU memory peak %.1f MiB, GPU energy %.1f J",
        (double)totals->gpu_memory_peak / MIB, totals->gpu_energy_joules);
  }
  if (totals->have_net) { /* as of the last pass: the namespace died with
                             the last process */
    count(&r, "net_rx_bytes", totals->net_rx_bytes);
    count(&r, "net_tx_bytes", totals->net_tx_bytes);
    count(&r, "net_rx_packets", totals->net_rx_packets);
    count(&r, "net_tx_packets", totals->net_tx_packets);
    say(&r, "; network %.1f MiB received, %.1f MiB sent",
        (double)totals->net_rx_bytes / MIB, (double)totals->net_tx_bytes / MIB);
  }
  jc_notification n = {JC_NOTIF_OKAY, "cgroup", "ended", r.text, r.meta,
                       r.count, NULL};
  jc_target target = jc_tracked_notify_target(t);
  c->notify(c->notify_ctx, &target, &n);
}

/* After t's final read. */
static void read_final(const jc_collector *c, jc_tracked *t, const jc_read *r) {
  end_of(c, t)->reading = false;
  if (r->totals)
    notify(c, t, r->totals);
}

/* After a read pass: the cgroups still tracked stayed, and the pass sent
 * their figures: what they held goes (those that went were handed to
 * send_gone when the walk dropped them). */
static void drop_held(jc_collector *c) {
  if (!self(c)->held)
    return;
  self(c)->held = false;
  for (size_t i = 0; i < c->tracked_count; i++)
    end_of(c, c->tracked[i])->held_count = 0;
}

/* After a read pass: the held lists of those that stayed go, and the INFO
 * for cgroups lost since the last one. */
static void end_pass(jc_collector *c, jc_collect_fn emit, void *ctx) {
  (void)emit;
  (void)ctx;
  drop_held(c);
  size_t lost = self(c)->lost;
  if (!lost)
    return;
  jc_logf(&c->log, JC_LOG_INFO,
          "%zu cgroup%s emptied and %s removed before %s final figures could "
          "be read (docs/metrics.md, final figures)",
          lost, lost == 1 ? "" : "s", lost == 1 ? "was" : "were",
          lost == 1 ? "its" : "their");
  self(c)->lost = 0;
}

static int init(const jc_collector *c, void **ret_self) {
  (void)c;
  *ret_self = calloc(1, sizeof(end_self));
  if (*ret_self)
    return 0;
  jc_logf(&c->log, JC_LOG_ERR, "out of memory");
  return -ENOMEM;
}

/* NotifyEnd's record is made of the totals of a cgroup's final read. */
static void ask(const jc_collector *c, jc_step_asks *ret) {
  ret->final_totals = c->cfg->notify_end;
}

static void end_free(const jc_collector *c, void *state) {
  (void)c;
  end_self *s = state;
  for (size_t i = 0; i < s->gone_count; i++)
    free_gone(&s->gone[i]);
  free(s->gone);
  free(s);
}

const jc_step jc_end_step = {
    .name = "end",
    .slot_size = sizeof(jc_end_state),
    .life = {.init = init, .free = end_free},
    .asks = {.ask = ask},
    .pass = {.final = ended,
             .ended = read_final,
             .end = end_pass,
             .send = send_gone},
    .between = {.take_pending = take_pending, .hold = hold, .event = event},
    .cgroup_life = {.track = watch, .vanished = vanished, .release = release},
};
