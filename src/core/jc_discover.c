/*
 * jc_discover — which cgroups are tracked.
 *
 * A walk lists the tree from CgroupRoot, descending only where a Select
 * pattern or a <Cgroup> block could match below, never following
 * symlinks.  Its result, in a fixed order (children sorted by name,
 * parents first), is merged with the tracked set in the same order: kept
 * cgroups keep their state, new ones start a baseline, vanished ones are
 * freed.  inotify watches on every listed directory tell when the tree
 * changed, so a read pass walks only then (or every RescanInterval, as a
 * safety net, or at every read when inotify is not available).
 */
#include "jc_discover.h"
#include "jc_log.h"

#include "jc_clock.h"
#include "jc_hier.h"
#include "jc_managed.h"
#include "jc_oom.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define WALK_MAX_DEPTH 64
#define WATCH_MASK                                                             \
  (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF |      \
   IN_ONLYDIR)

/* Path order of a walk: a parent before its children, and "/" sorting
 * below every other byte so that "a/b" comes before "a-c". */
int jc_path_cmp(const char *a, const char *b) {
  for (;; a++, b++) {
    int ca = *a == '\0' ? -1 : *a == '/' ? 0 : (unsigned char)*a + 1;
    int cb = *b == '\0' ? -1 : *b == '/' ? 0 : (unsigned char)*b + 1;
    if (ca != cb)
      return ca < cb ? -1 : 1;
    if (ca == -1)
      return 0;
  }
}

typedef struct {
  char *relpath;
  ino_t ino;
  int fd;
  jc_limits ancestors; /* the smallest limits of the levels above it */
} found_entry;

typedef struct {
  found_entry *entry;
  size_t count, capacity;
} found_list;

static void found_free(found_list *l) {
  for (size_t i = 0; i < l->count; i++) {
    free(l->entry[i].relpath);
    if (l->entry[i].fd >= 0)
      close(l->entry[i].fd);
  }
  free(l->entry);
}

static int found_add(found_list *l, const char *relpath, ino_t ino, int fd,
                     const jc_limits *ancestors) {
  if (l->count == l->capacity) {
    size_t cap = l->capacity ? 2 * l->capacity : 64;
    found_entry *grown = realloc(l->entry, cap * sizeof(*grown));
    if (!grown)
      return -ENOMEM;
    l->entry = grown;
    l->capacity = cap;
  }
  char *copy = strdup(relpath);
  if (!copy)
    return -ENOMEM;
  l->entry[l->count++] = (found_entry){copy, ino, fd, *ancestors};
  return 0;
}

static bool any_pattern(jc_pattern *const *list, size_t n, const char *path) {
  for (size_t i = 0; i < n; i++)
    if (jc_pattern_match(list[i], path))
      return true;
  return false;
}

static bool is_selected(const jc_collector *c, const char *relpath) {
  const jc_config *cfg = c->cfg;
  if (jc_is_managed_path(c, relpath))
    return true;
  return any_pattern(cfg->select, cfg->select_count, relpath) &&
         !any_pattern(cfg->ignore, cfg->ignore_count, relpath);
}

/* Is a managed path strictly below relpath? */
static bool managed_below(const jc_config *cfg, const char *relpath) {
  size_t n = strlen(relpath);
  for (size_t i = 0; i < cfg->managed_count; i++) {
    const char *p = cfg->managed[i].path;
    if (n == 0 || (strncmp(p, relpath, n) == 0 && p[n] == '/'))
      return true;
  }
  return false;
}

static bool may_descend(const jc_collector *c, const char *relpath) {
  const jc_config *cfg = c->cfg;
  for (size_t i = 0; i < cfg->select_count; i++)
    if (jc_pattern_may_match_below(cfg->select[i], relpath))
      return true;
  return managed_below(cfg, relpath);
}

/* inotify watch on a directory we listed; failure means walking every read. */
static void watch_dir(jc_collector *c, const char *relpath) {
  if (c->inotify_fd < 0)
    return;
  char path[PATH_MAX];
  if (snprintf(path, sizeof(path), "%s%s%s", c->root, relpath[0] ? "/" : "",
               relpath) >= (int)sizeof(path))
    return;
  if (inotify_add_watch(c->inotify_fd, path, WATCH_MASK) >= 0)
    return;
  if (errno == ENOENT)
    return; /* vanished while we walked: its parent's watch saw it */
  jc_logf(&c->log, JC_LOG_NOTICE,
          "cannot watch %s for new cgroups (%s); the tree is walked at every "
          "read instead%s",
          path, JC_STRERROR(errno),
          errno == ENOSPC ? " (raise sysctl fs.inotify.max_user_watches)" : "");
  close(c->inotify_fd);
  c->inotify_fd = -1;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the subdirectories of dirfd (no symlinks), sorted. */
static int list_subdirs(int dirfd, char ***ret_names, size_t *ret_count) {
  int fd = dup(dirfd);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    int e = errno;
    if (fd >= 0)
      close(fd);
    return -e;
  }
  rewinddir(d);
  char **names = NULL;
  size_t count = 0, cap = 0;
  int result = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.' &&
        (de->d_name[1] == '\0' || strcmp(de->d_name, "..") == 0))
      continue;
    struct stat st;
    bool is_dir = de->d_type == DT_DIR ||
                  (de->d_type == DT_UNKNOWN &&
                   fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                   S_ISDIR(st.st_mode));
    if (!is_dir)
      continue;
    if (count == cap) {
      cap = cap ? 2 * cap : 16;
      char **grown = realloc(names, cap * sizeof(*names));
      if (!grown) {
        result = -ENOMEM;
        break;
      }
      names = grown;
    }
    if (!(names[count] = strdup(de->d_name))) {
      result = -ENOMEM;
      break;
    }
    count++;
  }
  closedir(d);
  if (count > 1)
    qsort(names, count, sizeof(*names), cmp_names);
  *ret_names = names;
  *ret_count = count;
  return result;
}

static void free_names(char **names, size_t count) {
  for (size_t i = 0; i < count; i++)
    free(names[i]);
  free(names);
}

static int walk(jc_collector *c, int dirfd, const char *relpath, int depth,
                const jc_limits *above, found_list *out);

/*
 * The limits a directory sets for everything below it, tightening those
 * of the levels above it.  Read at walks only (SPEC §5: a cgroup's own
 * limit files are read at every read, its ancestors' when the tree is
 * walked), and only for directories the walk descends into.
 */
static jc_limits limits_below(const jc_collector *c, int dirfd,
                              const jc_limits *above) {
  jc_limits limits = *above;
  uint32_t wanted = c->files & JC_LIMIT_FILES;
  if (!wanted)
    return limits;
  jc_sample own;
  jc_sample_reset(&own);
  for (int f = 0; f < JC_FILE_COUNT; f++) {
    char text[128];
    ssize_t len;
    if ((wanted & (1u << f)) &&
        (len = jc_read_file_at(dirfd, jc_files[f].name, text, sizeof(text))) >= 0)
      (void)jc_sample_parse(&own, (jc_file_id)f, text, (size_t)len, NULL);
  }
  jc_limits mine = jc_limits_of_sample(&own);
  jc_limits_tighten(&limits, &mine);
  return limits;
}

/* Visits one child directory: records it if selected, walks it if useful. */
static int visit(jc_collector *c, int dirfd, const char *relpath,
                 const char *name, int depth, const jc_limits *above,
                 found_list *out) {
  char child[PATH_MAX];
  if (snprintf(child, sizeof(child), "%s%s%s", relpath, relpath[0] ? "/" : "",
               name) >= (int)sizeof(child))
    return 0;
  bool selected = is_selected(c, child);
  bool descend = depth < WALK_MAX_DEPTH && may_descend(c, child);
  if (!selected && !descend)
    return 0;
  int fd = openat(dirfd, name,
                  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return 0; /* vanished since listed, or a symlink: not ours */
  int r = 0;
  if (descend) {
    jc_limits below = limits_below(c, fd, above);
    r = walk(c, fd, child, depth + 1, &below, out);
  }
  struct stat st;
  if (r == 0 && selected && fstat(fd, &st) == 0) {
    /* Recorded after its children, then re-sorted below: parents first. */
    r = found_add(out, child, st.st_ino, fd, above);
    if (r == 0)
      return 0;
  }
  close(fd);
  return r;
}

static int walk(jc_collector *c, int dirfd, const char *relpath, int depth,
                const jc_limits *above, found_list *out) {
  char **names = NULL;
  size_t count = 0;
  watch_dir(c, relpath);
  int r = list_subdirs(dirfd, &names, &count);
  for (size_t i = 0; r == 0 && i < count; i++)
    r = visit(c, dirfd, relpath, names[i], depth, above, out);
  free_names(names, count);
  return r == -ENOENT ? 0 : r; /* a directory removed under us is churn */
}

static int cmp_found(const void *a, const void *b) {
  return jc_path_cmp(((const found_entry *)a)->relpath,
                     ((const found_entry *)b)->relpath);
}

static void tracked_close_fds(jc_collector *c, jc_tracked *t) {
  for (int f = 0; f < JC_FILE_COUNT; f++)
    if (t->fd[f] >= 0) {
      close(t->fd[f]);
      t->fd[f] = -1;
      c->fds_kept--;
    }
}

void jc_tracked_free(jc_collector *c, jc_tracked *t) {
  if (!t)
    return;
  tracked_close_fds(c, t);
  if (t->dirfd >= 0) {
    close(t->dirfd);
    c->fds_kept--;
  }
  free(t->relpath);
  free(t);
}

/* Gives the walk's directory fd to t, or closes it when over budget. */
static void adopt_dirfd(jc_collector *c, jc_tracked *t, found_entry *e) {
  if (t->dirfd >= 0) {
    close(t->dirfd);
    c->fds_kept--;
  }
  t->dirfd = -1;
  if (c->fds_kept < c->fd_budget) {
    t->dirfd = e->fd;
    c->fds_kept++;
  } else {
    close(e->fd);
  }
  e->fd = -1;
}

static jc_tracked *tracked_new(jc_collector *c, found_entry *e) {
  jc_tracked *t = calloc(1, sizeof(*t));
  if (!t)
    return NULL;
  t->relpath = e->relpath;
  e->relpath = NULL;
  t->ino = e->ino;
  t->serial = c->next_serial++;
  t->dirfd = -1;
  for (int f = 0; f < JC_FILE_COUNT; f++)
    t->fd[f] = -1;
  t->on_cgroupfs = jc_hier_is_cgroupfs(e->fd);
  t->ancestors = e->ancestors;
  adopt_dirfd(c, t, e);
  const char *instance = jc_managed_instance(c, t->relpath);
  if (instance)
    snprintf(t->instance, sizeof(t->instance), "%s", instance);
  else
    jc_name_instance(t->relpath, c->cfg->instance_from, t->instance);
  return t;
}

/* The same path now holds another cgroup: forget everything about the old. */
static void tracked_restart(jc_collector *c, jc_tracked *t, found_entry *e) {
  tracked_close_fds(c, t);
  t->on_cgroupfs = jc_hier_is_cgroupfs(e->fd);
  adopt_dirfd(c, t, e);
  t->ino = e->ino;
  t->rate = (jc_rate_state){0};
  t->oom = (jc_oom_state){0};
  t->peak_armed = false;
  t->absent = 0;
  jc_logf(&c->log, JC_LOG_DEBUG, "cgroup %s was re-created; new baseline",
          t->relpath[0] ? t->relpath : "/");
}

static int cmp_instance(const void *a, const void *b) {
  const jc_tracked *x = *(jc_tracked *const *)a, *y = *(jc_tracked *const *)b;
  int r = strcmp(x->instance, y->instance);
  return r ? r : (x->serial < y->serial ? -1 : x->serial > y->serial);
}

/* Two cgroups with one instance: the newer gets "~hash", and a warning. */
static int resolve_collisions(jc_collector *c) {
  size_t n = c->tracked_count;
  jc_tracked **by_name = malloc((n ? n : 1) * sizeof(*by_name));
  if (!by_name)
    return -ENOMEM;
  memcpy(by_name, c->tracked, n * sizeof(*by_name));
  qsort(by_name, n, sizeof(*by_name), cmp_instance);
  for (size_t i = 1; i < n; i++) {
    jc_tracked *keeper = by_name[i - 1], *t = by_name[i];
    if (strcmp(keeper->instance, t->instance) != 0)
      continue;
    char was[JC_INSTANCE_SIZE];
    memcpy(was, t->instance, sizeof(was));
    jc_name_disambiguate(t->instance, t->relpath);
    jc_logf(&c->log, JC_LOG_WARNING,
            "cgroups \"%s\" and \"%s\" would both be reported as \"%s\"; "
            "\"%s\" is reported as \"%s\"",
            keeper->relpath, t->relpath, was, t->relpath, t->instance);
    by_name[i] = keeper; /* a third one still compares with the keeper */
  }
  free(by_name);
  return 0;
}

/* Merges the walk's result into the tracked set (both in path order). */
static int merge(jc_collector *c, found_list *l) {
  jc_tracked **next = malloc((l->count ? l->count : 1) * sizeof(*next));
  if (!next)
    return -ENOMEM;
  size_t i = 0, j = 0, n = 0;
  bool added = false;
  while (i < c->tracked_count || j < l->count) {
    int cmp = i == c->tracked_count ? 1
              : j == l->count       ? -1
                                    : jc_path_cmp(c->tracked[i]->relpath,
                                                  l->entry[j].relpath);
    if (cmp < 0) {
      jc_logf(&c->log, JC_LOG_DEBUG, "cgroup %s vanished", c->tracked[i]->relpath);
      jc_oom_lost(c, c->tracked[i], next, n);
      jc_tracked_free(c, c->tracked[i++]);
    } else if (cmp > 0) {
      jc_tracked *t = tracked_new(c, &l->entry[j++]);
      if (!t)
        continue; /* out of memory: picked up by a later walk */
      next[n++] = t;
      added = true;
    } else {
      jc_tracked *t = c->tracked[i++];
      found_entry *e = &l->entry[j++];
      if (t->ino != e->ino) {
        jc_oom_lost(c, t, next, n);
        tracked_restart(c, t, e);
      }
      t->ancestors = e->ancestors; /* a walk re-reads the ancestors' limits */
      t->absent = 0; /* a walk retries files found missing */
      next[n++] = t;
    }
  }
  free(c->tracked);
  c->tracked = next;
  c->tracked_count = n;
  return added ? resolve_collisions(c) : 0;
}

int jc_discover_rescan(jc_collector *c) {
  found_list l = {0};
  int r = 0;
  const jc_limits none = JC_LIMITS_NONE;
  if (c->cfg->report_root) {
    struct stat st;
    int fd = fcntl(c->rootfd, F_DUPFD_CLOEXEC, 0);
    r = fd < 0            ? -errno
        : fstat(fd, &st) < 0 ? -errno
                             : found_add(&l, "", st.st_ino, fd, &none);
    if (r < 0 && fd >= 0)
      close(fd);
  }
  /* CgroupRoot may be a cgroup below the kernel's root, with limits. */
  jc_limits below_root = limits_below(c, c->rootfd, &none);
  if (r == 0)
    r = walk(c, c->rootfd, "", 0, &below_root, &l);
  if (r == 0) {
    if (l.count > 1)
      qsort(l.entry, l.count, sizeof(*l.entry), cmp_found);
    r = merge(c, &l);
  }
  found_free(&l);
  c->rescan_needed = r < 0;
  c->last_rescan_ns = jc_now_ns();
  c->rescans++;
  if (r < 0)
    jc_logf(&c->log, JC_LOG_WARNING, "walking %s failed: %s", c->root, JC_STRERROR(-r));
  return r;
}

int jc_discover_init(jc_collector *c) {
  c->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (c->inotify_fd < 0)
    jc_logf(&c->log, JC_LOG_NOTICE,
            "inotify is not available (%s); the tree is walked at every read",
            JC_STRERROR(errno));
  return 0;
}

bool jc_discover_changed(jc_collector *c) {
  if (c->inotify_fd < 0)
    return true;
  bool changed = false;
  char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
  for (;;) {
    ssize_t len = read(c->inotify_fd, buf, sizeof(buf));
    if (len <= 0)
      break; /* EAGAIN: drained */
    for (char *p = buf; p < buf + len;) {
      const struct inotify_event *ev = (const struct inotify_event *)p;
      /* cgroupfs creates no files at run time; a fixture tree rewritten by
         a test does, and that is not a change of the cgroup set. */
      if (ev->mask & (IN_ISDIR | IN_Q_OVERFLOW | IN_DELETE_SELF | IN_IGNORED))
        changed = true;
      p += sizeof(*ev) + ev->len;
    }
  }
  return changed;
}

void jc_discover_drop_gone(jc_collector *c) {
  size_t n = 0;
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_tracked *t = c->tracked[i];
    if (t->gone) {
      jc_logf(&c->log, JC_LOG_DEBUG, "cgroup %s vanished", t->relpath);
      jc_oom_lost(c, t, c->tracked, n); /* [0, n): the survivors before it */
      jc_tracked_free(c, t);
      c->rescan_needed = true;
    } else {
      c->tracked[n++] = t;
    }
  }
  c->tracked_count = n;
}
