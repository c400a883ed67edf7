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
#include "jc_energy.h"
#include "jc_hier.h"
#include "jc_managed.h"
#include "jc_oom.h"
#include "jc_runtime.h"

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

/* A cgroup the walk found: its path, identity and the limits above it.
 * The walk keeps no descriptor of it (a tree larger than the descriptor
 * limit must still be found whole); the merge opens what it keeps. */
typedef struct {
  char *relpath;
  dev_t dev;
  ino_t ino;
  jc_limits ancestors; /* the smallest limits of the levels above it */
} found_entry;

typedef struct {
  found_entry *entry;
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
    found_entry *grown = realloc(l->entry, cap * sizeof(*grown));
    if (!grown)
      return -ENOMEM;
    l->entry = grown;
    l->capacity = cap;
  }
  char *copy = strdup(relpath);
  if (!copy)
    return -ENOMEM;
  l->entry[l->count++] =
      (found_entry){copy, st->st_dev, st->st_ino, *ancestors};
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
    ssize_t len = jc_read_file_at(dirfd, jc_files[f].name, text, sizeof(text));
    if (len >= 0)
      (void)jc_sample_parse(&own, (jc_file_id)f, text, (size_t)len, NULL);
    else if (len != -ENOENT && result == 0)
      result = (int)len;
  }
  jc_limits mine = jc_limits_of_sample(&own);
  jc_limits_tighten(ret, &mine);
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

static void tracked_close_dirfd(jc_collector *c, jc_tracked *t);

void jc_tracked_free(jc_collector *c, jc_tracked *t) {
  if (!t)
    return;
  tracked_close_fds(c, t);
  tracked_close_dirfd(c, t);
  jc_io_totals_reset(&t->prior.io);
  jc_energy_forget(t);
  free(t->relpath);
  free(t);
}

/*
 * Gives t a directory descriptor when the budget has room for one: its
 * files are then opened relative to it (one path level to look up, and a
 * re-created cgroup is noticed).  Opened by path from the root; the walk
 * never follows a symlink, so what is opened must be what it found.
 * Without room, or without descriptors at all, t is read by path.
 */
static void acquire_dirfd(jc_collector *c, jc_tracked *t, dev_t dev) {
  if (t->dirfd >= 0 || c->fds_kept >= c->fd_budget ||
      jc_tracked_all_kept(c, t))
    return;
  int fd = t->relpath[0]
               ? openat(c->rootfd, t->relpath,
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
               : fcntl(c->rootfd, F_DUPFD_CLOEXEC, 0);
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev &&
      st.st_ino == t->ino) {
    t->dirfd = fd;
    c->fds_kept++;
  } else if (fd >= 0) {
    close(fd);
  }
}

/* A cgroup on the root's file system is on cgroupfs if the root is. */
static bool on_cgroupfs(const jc_collector *c, const found_entry *e) {
  return c->root_on_cgroupfs && e->dev == c->root_dev;
}

/* Does t's instance say its path ('/' as '_'), so that the `cgroup` meta
 * data would only repeat it?  The root's "root" does; a name hashed for
 * length, given a suffix, taken from the basename or an Instance does not. */
static void note_name_is_path(jc_tracked *t) {
  char flat[JC_INSTANCE_SIZE];
  if (!t->relpath[0]) {
    t->name_is_path = true;
    return;
  }
  jc_name_instance(t->relpath, JC_INSTANCE_FROM_PATH, flat);
  t->name_is_path = !t->explicit_name && strlen(t->relpath) <= JC_INSTANCE_MAX &&
                    strcmp(flat, t->instance) == 0;
}

/*
 * InstanceFrom "container": the name the runtime gave t, when its files
 * say it.  While they are not written yet (a cgroup appears before its
 * bundle is complete), t keeps its path name and is asked again at the
 * next reads (jc_discover_retry_names), JC_RUNTIME_TRIES times at most.
 * True when t->name is the runtime's.
 */
static bool runtime_name(jc_collector *c, jc_tracked *t) {
  int r = jc_runtime_name(c->runtime, t->relpath, t->name);
  if (r != -EAGAIN) {
    t->name_tries = 0;
    return r == 0;
  }
  if (++t->name_tries <= JC_RUNTIME_TRIES) {
    c->names_pending = true;
    return false;
  }
  t->name_tries = 0;
  jc_logf(&c->log, JC_LOG_INFO,
          "cgroup \"%s\" keeps its path name: its container runtime had not "
          "written its name after %d reads (docs/containers.md)",
          t->relpath, JC_RUNTIME_TRIES + 1);
  return false;
}

static jc_tracked *tracked_new(jc_collector *c, found_entry *e) {
  jc_tracked *t = calloc(1, sizeof(*t));
  if (!t)
    return NULL;
  t->relpath = e->relpath;
  e->relpath = NULL;
  t->ino = e->ino;
  t->dirfd = -1;
  for (int f = 0; f < JC_FILE_COUNT; f++)
    t->fd[f] = -1;
  t->on_cgroupfs = on_cgroupfs(c, e);
  t->ancestors = e->ancestors;
  acquire_dirfd(c, t, e->dev);
  const char *instance = jc_managed_instance(c, t->relpath);
  t->explicit_name = instance || !t->relpath[0];
  if (instance)
    snprintf(t->name, sizeof(t->name), "%s", instance);
  else
    jc_name_instance(t->relpath, c->cfg->instance_from, t->name);
  if (c->runtime && !t->explicit_name)
    (void)runtime_name(c, t);
  memcpy(t->instance, t->name, sizeof(t->instance));
  note_name_is_path(t);
  return t;
}

static void tracked_close_dirfd(jc_collector *c, jc_tracked *t) {
  if (t->dirfd >= 0) {
    close(t->dirfd);
    t->dirfd = -1;
    c->fds_kept--;
  }
}

/* The same path now holds another cgroup: forget everything about the old. */
static void tracked_restart(jc_collector *c, jc_tracked *t, found_entry *e) {
  tracked_close_fds(c, t);
  tracked_close_dirfd(c, t);
  t->ino = e->ino;
  t->on_cgroupfs = on_cgroupfs(c, e);
  acquire_dirfd(c, t, e->dev);
  t->prior.rate = (jc_rate_state){0};
  jc_io_totals_reset(&t->prior.io);
  jc_energy_forget(t);
  t->oom = (jc_oom_state){0};
  t->peak_armed = false;
  t->absent = 0;
  jc_logf(&c->log, JC_LOG_DEBUG, "cgroup %s was re-created; new baseline",
          t->relpath[0] ? t->relpath : "/");
}

static int cmp_name(const void *a, const void *b) {
  const jc_tracked *x = *(jc_tracked *const *)a, *y = *(jc_tracked *const *)b;
  int r = strcmp(x->name, y->name);
  return r ? r : jc_path_cmp(x->relpath, y->relpath);
}

/* The instance t gets: its name, or its name and "~hash" when it collides
 * (unless its name was given explicitly).  True when that is a change. */
static bool choose_instance(jc_tracked *t, bool collides) {
  char want[JC_INSTANCE_SIZE];
  memcpy(want, t->name, sizeof(want));
  if (collides && !t->explicit_name)
    jc_name_disambiguate(want, t->relpath);
  if (strcmp(want, t->instance) == 0)
    return false;
  memcpy(t->instance, want, sizeof(t->instance));
  note_name_is_path(t);
  return true;
}

/* One line for a group of cgroups sharing a name, when it changed. */
static void report_collision(jc_collector *c, jc_tracked *const *group,
                             size_t count) {
  const jc_tracked *a = group[0], *b = group[1];
  if (count == 2)
    jc_logf(&c->log, JC_LOG_WARNING,
            "cgroups \"%s\" and \"%s\" would both be reported as \"%s\"; "
            "they are reported as \"%s\" and \"%s\"",
            a->relpath, b->relpath, a->name, a->instance, b->instance);
  else
    jc_logf(&c->log, JC_LOG_WARNING,
            "cgroups \"%s\", \"%s\" and %zu more would all be reported as "
            "\"%s\"; each is reported as that name, \"~\" and the hash of "
            "its path (\"%s\" for \"%s\")",
            a->relpath, b->relpath, count - 2, a->name, b->instance,
            b->relpath);
}

/*
 * Cgroups that would share an instance name each get "~" and the hash of
 * their own path (a name given explicitly, the root's or an Instance,
 * stays as it is).  So an instance is a function of the path and of
 * whether another selected cgroup has the same name: never of the order
 * in which the cgroups appeared, and never a name that another cgroup had
 * (no series goes on with another cgroup's figures, across restarts
 * included).  Recomputed whenever the tracked set changes.
 */
static int resolve_collisions(jc_collector *c) {
  size_t n = c->tracked_count;
  jc_tracked **by_name = malloc((n ? n : 1) * sizeof(*by_name));
  if (!by_name)
    return -ENOMEM;
  memcpy(by_name, c->tracked, n * sizeof(*by_name));
  qsort(by_name, n, sizeof(*by_name), cmp_name);
  for (size_t i = 0, end; i < n; i = end) {
    for (end = i + 1; end < n && strcmp(by_name[end]->name, by_name[i]->name) == 0;)
      end++;
    bool collides = end - i > 1, changed = false;
    for (size_t k = i; k < end; k++)
      changed |= choose_instance(by_name[k], collides);
    if (changed && collides)
      report_collision(c, by_name + i, end - i);
    else if (changed)
      jc_logf(&c->log, JC_LOG_INFO,
              "cgroup \"%s\" is reported as \"%s\" again: no other cgroup "
              "has that name now",
              by_name[i]->relpath, by_name[i]->instance);
  }
  free(by_name);
  return 0;
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
                                    : jc_path_cmp(c->tracked[i]->relpath,
                                                  l->entry[j].relpath);
    if (cmp < 0 && partial) {
      next[n++] = c->tracked[i++]; /* not seen: perhaps not listed */
    } else if (cmp < 0) {
      jc_logf(&c->log, JC_LOG_DEBUG, "cgroup %s vanished", c->tracked[i]->relpath);
      jc_oom_lost(c, c->tracked[i], next, n);
      jc_tracked_free(c, c->tracked[i++]);
      changed = true;
    } else if (cmp > 0) {
      jc_tracked *t = tracked_new(c, &l->entry[j++]);
      if (!t)
        continue; /* out of memory: picked up by a later walk */
      next[n++] = t;
      changed = true;
    } else {
      jc_tracked *t = c->tracked[i++];
      found_entry *e = &l->entry[j++];
      if (t->ino != e->ino) {
        jc_oom_lost(c, t, next, n);
        tracked_restart(c, t, e);
      }
      t->ancestors = e->ancestors; /* a walk re-reads the ancestors' limits */
      t->absent = 0; /* a walk retries files found missing */
      acquire_dirfd(c, t, e->dev); /* the budget may have room now */
      next[n++] = t;
    }
  }
  free(c->tracked);
  c->tracked = next;
  c->tracked_count = n;
  return changed ? resolve_collisions(c) : 0;
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

int jc_discover_rescan(jc_collector *c) {
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
  return r;
}

void jc_discover_retry_names(jc_collector *c) {
  if (!c->names_pending)
    return;
  c->names_pending = false;
  bool renamed = false;
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_tracked *t = c->tracked[i];
    if (!t->name_tries || !runtime_name(c, t))
      continue;
    memcpy(t->instance, t->name, sizeof(t->instance));
    note_name_is_path(t);
    renamed = true;
  }
  if (renamed)
    (void)resolve_collisions(c); /* out of memory: at the next change */
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
