/*
 * jc_tracked — see jc_tracked.h.
 */
#include "jc_tracked.h"

#include "jc_cgwrite.h"
#include "jc_fd.h"
#include "jc_hier.h"
#include "jc_internal.h"
#include "jc_managed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define PEAK_FILE JC_FILE_MEMORY_PEAK_INTERVAL

/* ---- the budget ----------------------------------------------------------- */

/* What collectd keeps for itself and its other plugins when MaxOpenFiles
 * is not given: a quarter of the soft limit, at least 256. */
#define FD_HEADROOM_MIN 256L
#define FD_BUDGET_MAX 65536L

static long rlim_long(rlim_t v) {
  return v == RLIM_INFINITY || v > (rlim_t)(1L << 30) ? 1L << 30 : (long)v;
}

/* MaxOpenFiles: raises the soft limit when it leaves too little room,
 * as far as the hard limit allows, and says so.  Returns the soft limit. */
static long raise_for_budget(jc_collector *c, long want, struct rlimit rl) {
  long soft = rlim_long(rl.rlim_cur), hard = rlim_long(rl.rlim_max);
  long need = want + FD_HEADROOM_MIN;
  if (need <= soft)
    return soft;
  long raised = need < hard ? need : hard;
  struct rlimit next = {(rlim_t)raised, rl.rlim_max};
  if (raised <= soft || setrlimit(RLIMIT_NOFILE, &next) < 0)
    return soft;
  jc_logf(&c->log, JC_LOG_INFO,
          "raised collectd's soft descriptor limit (RLIMIT_NOFILE) from %ld "
          "to %ld for MaxOpenFiles %ld (plugins that use select() cannot "
          "use descriptors above 1023)",
          soft, raised, want);
  return raised;
}

/*
 * collectd's limit belongs to collectd and its other plugins: by default
 * the budget is what the soft RLIMIT_NOFILE leaves beside a quarter of it
 * (at least 256), and the limit is never changed; only MaxOpenFiles may
 * raise it.  Past the budget, files are opened at every read.
 */
void jc_tracked_budget_init(jc_collector *c) {
  jc_fd_budget *b = &c->fds;
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
    rl = (struct rlimit){1024, 1024};
  long want = c->cfg->max_open_files;
  if (want < 0) {
    long soft = rlim_long(rl.rlim_cur);
    long headroom = soft / 4 > FD_HEADROOM_MIN ? soft / 4 : FD_HEADROOM_MIN;
    long budget = soft - headroom;
    b->limit = budget < 0 ? 0 : budget > FD_BUDGET_MAX ? FD_BUDGET_MAX : budget;
    jc_logf(&c->log, JC_LOG_INFO,
            "keeping at most %ld descriptors open between reads (the soft "
            "descriptor limit, RLIMIT_NOFILE, is %ld; a quarter of it, at "
            "least 256, is left to the rest of collectd; MaxOpenFiles sets "
            "another budget)",
            b->limit, soft);
    return;
  }
  long soft = raise_for_budget(c, want, rl);
  long room = soft - FD_HEADROOM_MIN > 0 ? soft - FD_HEADROOM_MIN : 0;
  b->limit = want < room ? want : room;
  if (b->limit < want)
    jc_logf(&c->log, JC_LOG_WARNING,
            "MaxOpenFiles %ld: the descriptor limit (RLIMIT_NOFILE, soft %ld, "
            "hard %ld) leaves room for %ld beside collectd's own; keeping at "
            "most %ld open between reads%s",
            want, soft, rlim_long(rl.rlim_max), room, b->limit, JC_FD_REMEDY);
  else
    jc_logf(&c->log, JC_LOG_INFO,
            "keeping at most %ld descriptors open between reads (MaxOpenFiles)",
            b->limit);
}

void jc_tracked_budget_end_pass(jc_collector *c) {
  jc_fd_budget *b = &c->fds;
  size_t missing = b->peaks_missing;
  b->peaks_missing = 0;
  b->peaks_short = missing > 0;
  if (missing == b->peaks_missing_reported)
    return;
  if (missing > b->peaks_missing_reported)
    jc_logf(&c->log, JC_LOG_WARNING,
            "%zu of %zu cgroups send no memory-peak_interval: the interval "
            "peak needs a descriptor kept from read to read, and the plugin "
            "keeps at most %ld (all of them interval peaks now); their other "
            "values are sent; raise MaxOpenFiles and collectd's descriptor "
            "limit (LimitNOFILE= in its systemd unit, or ulimit -n before it "
            "starts) above the number of cgroups",
            missing, c->tracked_count, b->limit);
  else if (missing == 0)
    jc_logf(&c->log, JC_LOG_INFO,
            "every cgroup sends memory-peak_interval again (descriptors to "
            "spare)");
  if (missing == 0 || missing > b->peaks_missing_reported)
    b->peaks_missing_reported = missing;
}

/* May a descriptor other than a peak be kept now? */
static bool may_keep(const jc_collector *c) {
  return c->fds.kept < c->fds.limit && !c->fds.peaks_short;
}

static void close_fd(jc_collector *c, jc_tracked *t, int f) {
  if (t->fd[f] < 0)
    return;
  close(t->fd[f]);
  t->fd[f] = -1;
  c->fds.kept--;
  if (f == PEAK_FILE)
    c->fds.peaks--;
}

static void close_dirfd(jc_collector *c, jc_tracked *t) {
  if (t->dirfd < 0)
    return;
  close(t->dirfd);
  t->dirfd = -1;
  c->fds.kept--;
}

bool jc_tracked_keep(jc_collector *c) {
  if (!may_keep(c))
    return false;
  c->fds.kept++;
  return true;
}

void jc_tracked_unkept(jc_collector *c) { c->fds.kept--; }

bool jc_tracked_close_kept(jc_collector *c, int *fd) {
  if (*fd < 0)
    return false;
  close(*fd);
  *fd = -1;
  jc_tracked_unkept(c);
  return true;
}

/* Gives back what t keeps besides its peak, the steps' descriptors
 * included; true when that was anything. */
static bool give_back(jc_collector *c, jc_tracked *t) {
  long before = c->fds.kept;
  for (int f = 0; f < JC_FILE_COUNT; f++)
    if (f != PEAK_FILE)
      close_fd(c, t, f);
  close_dirfd(c, t);
  jc_steps_give_back(c, t);
  return c->fds.kept < before;
}

/* Room in the budget for one peak: free, or taken from the descriptors
 * other cgroups keep (the last ones first; a cursor goes on from where
 * the last taking stopped, so a pass looks at each cgroup once). */
static bool room_for_peak(jc_collector *c) {
  jc_fd_budget *b = &c->fds;
  if (b->kept < b->limit)
    return true;
  if (b->kept - b->peaks <= 0)
    return false; /* every kept descriptor is a peak */
  for (size_t looked = 0; looked < c->tracked_count; looked++) {
    if (b->give_back_at == 0 || b->give_back_at > c->tracked_count)
      b->give_back_at = c->tracked_count;
    if (give_back(c, c->tracked[--b->give_back_at]))
      return b->kept < b->limit;
  }
  return false;
}

static int open_directory(const jc_collector *c, const jc_tracked *t);

/* The interval peak's descriptor: room in the budget first, then the file
 * opened for writing too (it is reset after each read), relative to t's
 * directory, its kept one or one opened for the moment. */
static int open_peak(jc_collector *c, jc_tracked *t, jc_file_id f) {
  if (!t->on_cgroupfs)
    return -ENOENT; /* a copy of a tree: nothing to reset */
  if (!room_for_peak(c)) {
    c->fds.peaks_missing++;
    c->fds.peaks_short = true;
    return -ENOBUFS;
  }
  int dirfd = t->dirfd >= 0 ? t->dirfd : open_directory(c, t);
  if (dirfd < 0)
    return dirfd;
  int fd = jc_cgwrite_open(dirfd, jc_sample_files[f].name, O_RDWR);
  if (dirfd != t->dirfd)
    close(dirfd);
  return fd;
}

int jc_tracked_fd(jc_collector *c, jc_tracked *t, jc_file_id f) {
  if (t->fd[f] >= 0)
    return t->fd[f];
  if (jc_sample_files[f].reset_after_read)
    return open_peak(c, t, f);
  char path[PATH_MAX];
  int dirfd;
  const char *name = jc_tracked_file(c, t, jc_sample_files[f].name, path,
                                     sizeof(path), &dirfd);
  return jc_hier_open_file(dirfd, name, !t->on_cgroupfs);
}

void jc_tracked_fd_done(jc_collector *c, jc_tracked *t, jc_file_id f, int fd,
                        bool read_ok) {
  if (t->fd[f] == fd)
    return; /* kept already */
  bool peak = jc_sample_files[f].reset_after_read;
  if (read_ok && (peak || may_keep(c))) {
    t->fd[f] = jc_fd_above_select(fd);
    c->fds.kept++;
    c->fds.peaks += peak;
  } else {
    close(fd);
  }
}

/* Are all the files t is read for kept open? */
static bool all_kept(const jc_collector *c, const jc_tracked *t) {
  uint32_t needed = c->files & ~t->absent;
  for (uint32_t left = needed; left; left &= left - 1) {
    int f = __builtin_ctz(left);
    if (t->fd[f] < 0 && !(!t->relpath[0] && jc_sample_files[f].absent_at_root))
      return false;
  }
  return true;
}

void jc_tracked_trim(jc_collector *c, jc_tracked *t) {
  if (t->dirfd >= 0 && all_kept(c, t))
    close_dirfd(c, t);
}

void jc_tracked_drop_file(jc_collector *c, jc_file_id f) {
  for (size_t i = 0; i < c->tracked_count; i++)
    close_fd(c, c->tracked[i], f);
}

/* t's directory opened by path from the root, and checked to be the
 * cgroup the walk found (the walk never follows a symlink, so what is
 * opened must be what it found); a negative errno, -ENOENT when the path
 * holds another cgroup now (the next walk sees it). */
static int open_directory(const jc_collector *c, const jc_tracked *t) {
  int fd = t->relpath[0]
               ? openat(c->rootfd, t->relpath,
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
               : fcntl(c->rootfd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  struct stat st;
  if (fstat(fd, &st) < 0 || st.st_dev != t->dev || st.st_ino != t->ino) {
    close(fd);
    return -ENOENT;
  }
  return fd;
}

/*
 * Gives t a directory descriptor when the budget has room for one: its
 * files are then opened relative to it (one path level to look up, and a
 * re-created cgroup is noticed).  Without room, or without descriptors at
 * all, t is read by path.
 */
static void acquire_dirfd(jc_collector *c, jc_tracked *t) {
  if (t->dirfd >= 0 || !may_keep(c) || all_kept(c, t))
    return;
  int fd = open_directory(c, t);
  if (fd >= 0) {
    t->dirfd = jc_fd_above_select(fd);
    c->fds.kept++;
  }
}

const char *jc_tracked_file(const jc_collector *c, const jc_tracked *t,
                            const char *name, char *buf, size_t size,
                            int *ret_dirfd) {
  *ret_dirfd = t->dirfd >= 0 ? t->dirfd : c->rootfd;
  if (t->dirfd >= 0 || !t->relpath[0])
    return name;
  jc_hier_join(t->relpath, name, buf, size);
  return buf;
}

/* ---- life ----------------------------------------------------------------- */

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

/* Where t is, as a walk found it: a cgroup on the root's file system is
 * on cgroupfs if the root is. */
static void place(jc_collector *c, jc_tracked *t, const jc_found *e) {
  t->ino = e->ino;
  t->dev = e->dev;
  t->on_cgroupfs = c->root_on_cgroupfs && e->dev == c->root_dev;
}

jc_tracked *jc_tracked_new(jc_collector *c, jc_found *e) {
  jc_tracked *t = calloc(1, sizeof(*t) + c->steps.slots_size);
  if (!t)
    return NULL;
  t->relpath = e->relpath;
  e->relpath = NULL;
  t->dirfd = -1;
  for (int f = 0; f < JC_FILE_COUNT; f++)
    t->fd[f] = -1;
  place(c, t, e);
  t->ancestors = e->ancestors;
  acquire_dirfd(c, t);
  const char *instance = jc_managed_instance(c->cfg, t->relpath);
  t->explicit_name = instance || !t->relpath[0];
  if (instance)
    snprintf(t->name, sizeof(t->name), "%s", instance);
  else
    jc_name_instance(t->relpath, c->cfg->instance_from, t->name);
  memcpy(t->instance, t->name, sizeof(t->instance));
  note_name_is_path(t);
  jc_steps_track(c, t); /* a step may name it (jc_tracked_set_name) */
  return t;
}

static void close_all(jc_collector *c, jc_tracked *t) {
  for (int f = 0; f < JC_FILE_COUNT; f++)
    close_fd(c, t, f);
  close_dirfd(c, t);
}

/* The same path now holds another cgroup: forget everything about the old. */
static void restart(jc_collector *c, jc_tracked *t, const jc_found *e,
                    jc_tracked *const *before, size_t n) {
  jc_steps_vanished(c, t, true, before, n);
  close_all(c, t);
  place(c, t, e);
  t->prior.rate = (jc_rate_state){0};
  jc_metrics_io_reset(&t->prior.io);
  jc_steps_release(c, t);
  jc_steps_track(c, t);
  t->absent = 0;
  jc_logf(&c->log, JC_LOG_DEBUG, "cgroup %s was re-created; new baseline",
          t->relpath[0] ? t->relpath : "/");
}

void jc_tracked_refound(jc_collector *c, jc_tracked *t, const jc_found *e,
                        jc_tracked *const *before, size_t n) {
  if (t->ino != e->ino)
    restart(c, t, e, before, n);
  t->ancestors = e->ancestors; /* a walk re-reads the ancestors' limits */
  t->absent = 0;               /* a walk retries files found missing */
  acquire_dirfd(c, t);         /* the budget may have room now */
}

void jc_tracked_free(jc_collector *c, jc_tracked *t) {
  if (!t)
    return;
  jc_steps_release(c, t);
  close_all(c, t);
  jc_metrics_io_reset(&t->prior.io);
  free(t->relpath);
  free(t);
}

void jc_tracked_vanished(jc_collector *c, jc_tracked *t,
                         jc_tracked *const *before, size_t n) {
  jc_steps_vanished(c, t, false, before, n);
  jc_tracked_free(c, t);
}

jc_target jc_tracked_target(const jc_collector *c, const jc_tracked *t) {
  const char *path = t->relpath[0] ? t->relpath : "/";
  bool meta = c->cfg->path_meta || !t->name_is_path;
  return (jc_target){t->instance, t->relpath, meta ? path : NULL};
}

jc_target jc_tracked_notify_target(const jc_tracked *t) {
  return (jc_target){t->instance, t->relpath,
                     t->relpath[0] ? t->relpath : "/"};
}

/* ---- names ---------------------------------------------------------------- */

void jc_tracked_set_name(jc_tracked *t, const char *name) {
  snprintf(t->name, sizeof(t->name), "%s", name);
  memcpy(t->instance, t->name, sizeof(t->instance));
  note_name_is_path(t);
}

static int cmp_name(const void *a, const void *b) {
  const jc_tracked *x = *(jc_tracked *const *)a, *y = *(jc_tracked *const *)b;
  int r = strcmp(x->name, y->name);
  return r ? r : jc_hier_path_cmp(x->relpath, y->relpath);
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

void jc_tracked_say_collision(const jc_collector *c, int level,
                              jc_tracked *const *group, size_t count,
                              const jc_collision_words *w) {
  const jc_tracked *a = group[0], *b = group[1];
  if (count == 2)
    jc_logf(&c->log, level,
            "cgroups \"%s\" and \"%s\" %s \"%s\"%s; %sthey are reported as "
            "\"%s\" and \"%s\"",
            a->relpath, b->relpath, w->share[0], a->name, w->why[0],
            w->during[0], a->instance, b->instance);
  else
    jc_logf(&c->log, level,
            "cgroups \"%s\", \"%s\" and %zu more %s \"%s\"%s; %seach is "
            "reported as that name, \"~\" and the hash of its path (\"%s\" "
            "for \"%s\")",
            a->relpath, b->relpath, count - 2, w->share[1], a->name, w->why[1],
            w->during[1], b->instance, b->relpath);
}

/*
 * One line for a group of cgroups sharing a name, when it changed: a
 * step's, when one tells it (a name it gave them all), else a WARNING:
 * the shared name comes from the configuration, which can be changed.
 */
static void report_collision(jc_collector *c, jc_tracked *const *group,
                             size_t count) {
  static const jc_collision_words words = {
      {"would both be reported as", "would all be reported as"},
      {"", ""},
      {"", ""}};
  if (!jc_steps_collision(c, group, count))
    jc_tracked_say_collision(c, JC_LOG_WARNING, group, count, &words);
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
int jc_tracked_resolve_collisions(jc_collector *c) {
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
