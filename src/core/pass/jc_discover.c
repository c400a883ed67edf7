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

#include "jc_clock.h"
#include "jc_hier.h"
#include "jc_managed.h"

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

typedef struct {
  jc_found *entry;
  size_t count, capacity;
  /* Directories that could not be listed (no descriptor to spare, ...):
   * the walk saw only part of the tree, so the merge removes nothing. */
  size_t unlisted;
  int unlisted_error;
  char unlisted_path[256];
} found_list;

static void found_free(found_list *l) {
  for (size_t i = 0; i < l->count; i++)
    free(l->entry[i].relpath);
  free(l->entry);
}

static int found_add(found_list *l, const char *relpath, const struct stat *st,
                     const jc_limits *ancestors) {
  if (l->count == l->capacity) {
    size_t cap = l->capacity ? 2 * l->capacity : 64;
    jc_found *grown = realloc(l->entry, cap * sizeof(*grown));
    if (!grown)
      return -ENOMEM;
    l->entry = grown;
    l->capacity = cap;
  }
  char *copy = strdup(relpath);
  if (!copy)
    return -ENOMEM;
  l->entry[l->count++] =
      (jc_found){copy, st->st_dev, st->st_ino, *ancestors};
  return 0;
}

/* A directory the walk could not open or list: remembered for the
 * warning; ENOMEM alone stops the walk. */
static int unlisted(found_list *l, const char *relpath, int err) {
  if (err == -ENOMEM)
    return err;
  if (l->unlisted++ == 0) {
    l->unlisted_error = -err;
    snprintf(l->unlisted_path, sizeof(l->unlisted_path), "%s",
             relpath[0] ? relpath : "/");
  }
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
  if (jc_managed_is_path(c->cfg, relpath))
    return true;
  return any_pattern(cfg->select, cfg->select_count, relpath) &&
         !any_pattern(cfg->ignore, cfg->ignore_count, relpath);
}

/* Is a managed path strictly below relpath? */
static bool managed_below(const jc_config *cfg, const char *relpath) {
  for (size_t i = 0; i < cfg->managed_count; i++)
    if (jc_hier_is_below(cfg->managed[i].path, relpath))
      return true;
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
  jc_steps_event(c, JC_WATCHES_GONE);
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
 * of the levels above it.  Read at walks only (docs/metrics.md, limits: a cgroup's own
 * limit files are read at every read, its ancestors' when the tree is
 * walked), and only for directories the walk descends into.  A limit file
 * that is missing is no limit; one that cannot be read (no descriptor to
 * spare) makes the result unknown: the negative errno, for unlisted().
 */
static int limits_below(const jc_collector *c, int dirfd,
                        const jc_limits *above, jc_limits *ret) {
  *ret = *above;
  uint32_t wanted = c->files & JC_LIMIT_FILES;
  if (!wanted)
    return 0;
  jc_sample own;
  jc_sample_reset(&own);
  int result = 0;
  for (int f = 0; f < JC_FILE_COUNT; f++) {
    char text[128];
    if (!(wanted & (1u << f)))
      continue;
    ssize_t len = jc_hier_read_file_at(dirfd, jc_sample_files[f].name, text, sizeof(text));
    if (len >= 0)
      (void)jc_sample_parse(&own, (jc_file_id)f, text, (size_t)len, NULL);
    else if (len != -ENOENT && result == 0)
      result = (int)len;
  }
  jc_limits mine = jc_metrics_limits_of(&own);
  jc_metrics_limits_tighten(ret, &mine);
  return result;
}

/* A child that vanished since it was listed, or is not a directory to us
 * (a symlink): not an error. */
static bool not_there(int err) {
  return err == ENOENT || err == ENOTDIR || err == ELOOP;
}

/* Visits one child directory: records it if selected, walks it if useful.
 * Only a directory walked into is opened (one descriptor per level of
 * depth); one merely selected is only stat'ed. */
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
  struct stat st;
  int fd = descend ? openat(dirfd, name,
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                   : -1;
  int r = 0;
  if (descend && fd < 0) {
    if (not_there(errno))
      return 0;
    r = unlisted(out, child, -errno); /* still recorded below if selected */
  }
  if (fd >= 0) {
    jc_limits below;
    int lr = limits_below(c, fd, above, &below);
    r = lr < 0 ? unlisted(out, child, lr) : 0;
    if (r == 0)
      r = walk(c, fd, child, depth + 1, &below, out);
  }
  if (r == 0 && selected) {
    int s = fd >= 0 ? fstat(fd, &st) : fstatat(dirfd, name, &st,
                                               AT_SYMLINK_NOFOLLOW);
    if (s == 0 && S_ISDIR(st.st_mode))
      r = found_add(out, child, &st, above);
  }
  if (fd >= 0)
    close(fd);
  return r;
}

static int walk(jc_collector *c, int dirfd, const char *relpath, int depth,
                const jc_limits *above, found_list *out) {
  char **names = NULL;
  size_t count = 0;
  watch_dir(c, relpath);
  int r = list_subdirs(dirfd, &names, &count);
  if (r < 0 && r != -ENOENT) /* removed under us: churn */
    r = unlisted(out, relpath, r);
  for (size_t i = 0; r == 0 && i < count; i++)
    r = visit(c, dirfd, relpath, names[i], depth, above, out);
  free_names(names, count);
  return r == -ENOENT ? 0 : r;
}

static int cmp_found(const void *a, const void *b) {
  return jc_hier_path_cmp(((const jc_found *)a)->relpath,
                     ((const jc_found *)b)->relpath);
}

/* Merges the walk's result into the tracked set (both in path order).  A
 * walk that could not list every directory removes nothing: the read pass
 * drops what really vanished. */
static int merge(jc_collector *c, found_list *l) {
  bool partial = l->unlisted > 0;
  size_t cap = l->count + (partial ? c->tracked_count : 0);
  jc_tracked **next = malloc((cap ? cap : 1) * sizeof(*next));
  if (!next)
    return -ENOMEM;
  size_t i = 0, j = 0, n = 0;
  bool changed = false;
  while (i < c->tracked_count || j < l->count) {
    int cmp = i == c->tracked_count ? 1
              : j == l->count       ? -1
                                    : jc_hier_path_cmp(c->tracked[i]->relpath,
                                                  l->entry[j].relpath);
    if (cmp < 0 && partial) {
      next[n++] = c->tracked[i++]; /* not seen: perhaps not listed */
    } else if (cmp < 0) {
      jc_logf(&c->log, JC_LOG_DEBUG, "cgroup %s vanished", c->tracked[i]->relpath);
      jc_tracked_vanished(c, c->tracked[i++], next, n);
      changed = true;
    } else if (cmp > 0) {
      jc_tracked *t = jc_tracked_new(c, &l->entry[j++]);
      if (!t)
        continue; /* out of memory: picked up by a later walk */
      next[n++] = t;
      changed = true;
    } else {
      jc_tracked *t = c->tracked[i++];
      const jc_found *e = &l->entry[j++];
      jc_tracked_refound(c, t, e, next, n);
      next[n++] = t;
    }
  }
  free(c->tracked);
  c->tracked = next;
  c->tracked_count = n;
  return changed ? jc_tracked_resolve_collisions(c) : 0;
}

/* The walk could not see the whole tree: said once per change of how
 * many directories it could not list, and when it can again. */
static void report_unlisted(jc_collector *c, const found_list *l) {
  if (l->unlisted == c->unlisted_reported)
    return;
  if (l->unlisted)
    jc_logf(&c->log, JC_LOG_WARNING,
            "walking %s: %zu director%s could not be listed (%s at %s); "
            "cgroups that appear or vanish below %s are not noticed until "
            "they can be%s",
            c->root, l->unlisted, l->unlisted == 1 ? "y" : "ies",
            JC_STRERROR(l->unlisted_error), l->unlisted_path,
            l->unlisted == 1 ? "it" : "them",
            l->unlisted_error == EMFILE || l->unlisted_error == ENFILE
                ? JC_FD_REMEDY
                : "");
  else
    jc_logf(&c->log, JC_LOG_INFO, "walking %s: every directory can be listed "
                                  "again", c->root);
  c->unlisted_reported = l->unlisted;
}

void jc_discover_rescan(jc_collector *c) {
  found_list l = {0};
  int r = 0;
  const jc_limits none = JC_LIMITS_NONE;
  if (c->cfg->report_root) {
    struct stat st;
    r = fstat(c->rootfd, &st) < 0 ? -errno : found_add(&l, "", &st, &none);
  }
  /* CgroupRoot may be a cgroup below the kernel's root, with limits. */
  jc_limits below_root;
  int lr = limits_below(c, c->rootfd, &none, &below_root);
  if (r == 0 && lr < 0)
    r = unlisted(&l, "", lr);
  if (r == 0)
    r = walk(c, c->rootfd, "", 0, &below_root, &l);
  if (r == 0) {
    if (l.count > 1)
      qsort(l.entry, l.count, sizeof(*l.entry), cmp_found);
    r = merge(c, &l);
  }
  if (r == 0)
    report_unlisted(c, &l);
  found_free(&l);
  c->rescan_needed = r < 0 || l.unlisted > 0;
  c->last_rescan_ns = jc_now_ns();
  c->rescans++;
  if (r < 0)
    jc_logf(&c->log, JC_LOG_WARNING, "walking %s failed: %s", c->root,
            JC_STRERROR(-r));
}

void jc_discover_init(jc_collector *c) {
  c->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (c->inotify_fd < 0)
    jc_logf(&c->log, JC_LOG_NOTICE,
            "inotify is not available (%s); the tree is walked at every read",
            JC_STRERROR(errno));
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
         a test does, and that is not a change of the cgroup set.  A
         cgroup.events that changed (jc_end) is not one either. */
      if (ev->mask & (IN_ISDIR | IN_Q_OVERFLOW | IN_DELETE_SELF | IN_IGNORED))
        changed = true;
      if (ev->mask & IN_MODIFY)
        jc_steps_event(c, ev->wd);
      if (ev->mask & IN_Q_OVERFLOW)
        jc_steps_event(c, JC_EVENTS_LOST); /* look at every cgroup */
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
      jc_tracked_vanished(c, t, c->tracked, n); /* [0, n): the survivors before it */
      c->rescan_needed = true;
    } else {
      c->tracked[n++] = t;
    }
  }
  c->tracked_count = n;
}
