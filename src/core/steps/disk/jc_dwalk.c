/*
 * jc_dwalk — see jc_dwalk.h.  Depth first: each level is a directory
 * stream (its descriptor held open), listed from where the last call left
 * it; an entry that is a directory on the same file system is counted,
 * opened and becomes the next level.
 */
#include "jc_dwalk.h"
#include "jc_fd.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file with several names, seen in this walk. */
typedef struct {
  dev_t dev;
  ino_t ino;
} inode_key;

struct jc_dwalk {
  jc_dfds fds;
  DIR **level; /* level[0] is the top */
  unsigned depth, cap;
  dev_t dev; /* the top's file system */
  jc_dwalk_result res;
  inode_key *seen; /* open addressing; ino 0 marks a free slot */
  size_t seen_count, seen_cap;
};

static void count(jc_dwalk *w, const struct stat *st) {
  w->res.size.bytes += (uint64_t)st->st_blocks * 512u;
  w->res.size.inodes++;
}

static void unreadable(jc_dwalk *w, int err) {
  w->res.unreadable++;
  w->res.unreadable_err = err;
}

static size_t slot_of(const inode_key *k, size_t cap) {
  uint64_t h = ((uint64_t)k->ino * 0x9E3779B97F4A7C15ull) ^ (uint64_t)k->dev;
  return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static int seen_grow(jc_dwalk *w) {
  size_t cap = w->seen_cap ? w->seen_cap * 2 : 64;
  inode_key *t = calloc(cap, sizeof(*t));
  if (!t)
    return -ENOMEM;
  for (size_t i = 0; i < w->seen_cap; i++) {
    if (!w->seen[i].ino)
      continue;
    size_t s = slot_of(&w->seen[i], cap);
    while (t[s].ino)
      s = (s + 1) & (cap - 1);
    t[s] = w->seen[i];
  }
  free(w->seen);
  w->seen = t;
  w->seen_cap = cap;
  return 0;
}

/* Whether a file of several names was counted already (and now it is):
 * 1 seen before, 0 not, -ENOMEM. */
static int seen_before(jc_dwalk *w, dev_t dev, ino_t ino) {
  if ((w->seen_count + 1) * 2 > w->seen_cap && seen_grow(w) < 0)
    return -ENOMEM;
  inode_key k = {dev, ino ? ino : (ino_t)-1}; /* 0 marks a free slot */
  size_t s = slot_of(&k, w->seen_cap);
  for (; w->seen[s].ino; s = (s + 1) & (w->seen_cap - 1))
    if (w->seen[s].ino == k.ino && w->seen[s].dev == k.dev)
      return 1;
  w->seen[s] = k;
  w->seen_count++;
  return 0;
}

/* Holds directory fd open as the next level (taken): 0, or -EMFILE when
 * the budget has no room, -ENOMEM. */
static int push(jc_dwalk *w, int fd) {
  if (!w->fds.keep(w->fds.ctx)) {
    close(fd);
    return -EMFILE;
  }
  if (w->depth == w->cap) {
    unsigned cap = w->cap ? w->cap * 2 : 16;
    DIR **grown = realloc(w->level, cap * sizeof(*grown));
    if (!grown) {
      close(fd);
      w->fds.unkept(w->fds.ctx);
      return -ENOMEM;
    }
    w->level = grown;
    w->cap = cap;
  }
  fd = jc_fd_above_select(fd);
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    w->fds.unkept(w->fds.ctx);
    return -ENOMEM;
  }
  w->level[w->depth++] = d;
  return 0;
}

static void pop(jc_dwalk *w) {
  closedir(w->level[--w->depth]);
  w->fds.unkept(w->fds.ctx);
}

jc_dwalk *jc_dwalk_new(int dirfd, const jc_dfds *fds) {
  struct stat st;
  int e = 0;
  jc_dwalk *w = NULL;
  if (fstat(dirfd, &st) < 0)
    e = errno;
  else if (!S_ISDIR(st.st_mode))
    e = ENOTDIR;
  else if (!(w = calloc(1, sizeof(*w))))
    e = ENOMEM;
  if (e) {
    close(dirfd);
    errno = e;
    return NULL;
  }
  w->fds = *fds;
  w->dev = st.st_dev;
  count(w, &st);
  w->res.entries = 1;
  int r = push(w, dirfd);
  if (r < 0) {
    free(w->level);
    free(w);
    errno = -r;
    return NULL;
  }
  return w;
}

/* A directory entry looked at: its directory opened as the next level. */
static int enter(jc_dwalk *w, int at, const char *name, const struct stat *st) {
  int fd = openat(at, name,
                  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == EMFILE || e == ENFILE)
      return -EMFILE;
    if (e != ENOENT && e != ENOTDIR && e != ELOOP)
      unreadable(w, e); /* counted, its entries not */
    return 0;           /* else gone, or replaced since it was looked at */
  }
  struct stat now;
  if (fstat(fd, &now) < 0 || now.st_ino != st->st_ino ||
      now.st_dev != st->st_dev) {
    close(fd); /* replaced by another directory since: its own is unseen */
    return 0;
  }
  return push(w, fd);
}

/* One entry of the deepest level. */
static int look(jc_dwalk *w, DIR *d, const char *name) {
  struct stat st;
  w->res.entries++;
  if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
    if (errno != ENOENT)
      unreadable(w, errno);
    return 0; /* ENOENT: removed since its directory was listed */
  }
  if (st.st_dev != w->dev)
    return 0; /* a mount point: another file system's */
  if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
    int r = seen_before(w, st.st_dev, st.st_ino);
    if (r != 0)
      return r < 0 ? r : 0;
  }
  count(w, &st);
  return S_ISDIR(st.st_mode) ? enter(w, dirfd(d), name, &st) : 0;
}

int jc_dwalk_run(jc_dwalk *w, uint64_t *budget) {
  while (w->depth > 0) {
    if (*budget == 0)
      return 0;
    DIR *d = w->level[w->depth - 1];
    errno = 0;
    struct dirent *de = readdir(d);
    if (!de) {
      if (errno)
        unreadable(w, errno); /* the rest of this directory is unseen */
      pop(w);
      continue;
    }
    const char *n = de->d_name;
    if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
      continue;
    (*budget)--;
    int r = look(w, d, n);
    if (r < 0)
      return r;
  }
  return 1;
}

void jc_dwalk_get(const jc_dwalk *w, jc_dwalk_result *ret) {
  *ret = w->res;
}

unsigned jc_dwalk_depth(const jc_dwalk *w) { return w->depth; }

void jc_dwalk_free(jc_dwalk *w) {
  if (!w)
    return;
  while (w->depth > 0)
    pop(w);
  free(w->level);
  free(w->seen);
  free(w);
}
