/*
 * jc_dwatch — see jc_dwatch.h.
 */
#include "jc_dwatch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <unistd.h>

#define MASK                                                                   \
  (IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |           \
   IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/* A watch and its owner; open addressing on wd (0 marks a free slot:
 * watch descriptors start at 1). */
typedef struct {
  int wd;
  void *owner;
} watch;

struct jc_dwatch {
  int fd;
  watch *map;
  size_t count, cap, dead; /* dead: slots of removed watches */
};

jc_dwatch *jc_dwatch_new(void) {
  int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0)
    return NULL;
  jc_dwatch *w = calloc(1, sizeof(*w));
  if (!w) {
    close(fd);
    errno = ENOMEM;
    return NULL;
  }
  w->fd = fd;
  return w;
}

int jc_dwatch_fd(const jc_dwatch *w) { return w->fd; }

static size_t slot_of(int wd, size_t cap) {
  return ((size_t)wd * 2654435761u) & (cap - 1);
}

/* wd's slot, or the free one it would take. */
static watch *find(jc_dwatch *w, int wd) {
  size_t s = slot_of(wd, w->cap);
  while (w->map[s].wd && w->map[s].wd != wd)
    s = (s + 1) & (w->cap - 1);
  return &w->map[s];
}

static int grow(jc_dwatch *w) {
  size_t cap = w->cap ? w->cap * 2 : 64;
  watch *old = w->map;
  size_t old_cap = w->cap;
  if (!(w->map = calloc(cap, sizeof(*w->map)))) {
    w->map = old;
    return -ENOMEM;
  }
  w->cap = cap;
  w->count = w->dead = 0;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].wd > 0 && old[i].owner) {
      *find(w, old[i].wd) = old[i];
      w->count++;
    }
  free(old);
  return 0;
}

int jc_dwatch_add(jc_dwatch *w, int dirfd, void *owner) {
  if ((w->count + w->dead + 1) * 2 > w->cap && grow(w) < 0)
    return -ENOMEM;
  char path[48];
  snprintf(path, sizeof(path), "/proc/self/fd/%d", dirfd);
  int wd = inotify_add_watch(w->fd, path, MASK);
  if (wd < 0)
    return -errno;
  watch *s = find(w, wd);
  if (!s->wd)
    w->count++;
  else if (!s->owner) /* a removed watch's number, given again */
    w->dead--, w->count++;
  *s = (watch){wd, owner};
  return wd;
}

void jc_dwatch_remove(jc_dwatch *w, int wd) {
  if (!w || wd <= 0 || !w->cap)
    return;
  watch *s = find(w, wd);
  if (s->wd != wd || !s->owner)
    return;
  inotify_rm_watch(w->fd, wd);
  s->owner = NULL; /* its slot kept: a later one's chain goes through it */
  w->count--;
  w->dead++;
}

int jc_dwatch_read(jc_dwatch *w,
                   void (*fn)(void *ctx, void *owner, unsigned what),
                   void *ctx) {
  char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
  for (;;) {
    ssize_t len = read(w->fd, buf, sizeof(buf));
    if (len < 0 && errno == EINTR)
      continue;
    if (len < 0)
      return errno == EAGAIN ? 0 : -errno;
    if (len == 0)
      return 0;
    for (char *p = buf; p < buf + len;) {
      const struct inotify_event *e = (const struct inotify_event *)p;
      p += sizeof(*e) + e->len;
      if (e->mask & IN_Q_OVERFLOW) {
        fn(ctx, NULL, JC_DWATCH_WRITTEN | JC_DWATCH_CHANGED);
        continue;
      }
      if (e->wd <= 0 || !w->cap)
        continue;
      watch *s = find(w, e->wd);
      if (s->wd != e->wd || !s->owner)
        continue; /* removed since it was queued */
      unsigned what = 0;
      if (e->mask & IN_MODIFY)
        what |= JC_DWATCH_WRITTEN;
      if (e->mask & (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO))
        what |= JC_DWATCH_CHANGED;
      if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
        what |= JC_DWATCH_GONE;
      if (what)
        fn(ctx, s->owner, what);
    }
  }
}

void jc_dwatch_free(jc_dwatch *w) {
  if (!w)
    return;
  close(w->fd);
  free(w->map);
  free(w);
}
