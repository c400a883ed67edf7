/*
 * jc_disk — see jc_disk.h.
 */
#include "jc_disk.h"

#include "jc_clock.h"
#include "jc_dfind.h"
#include "jc_dlogs.h"
#include "jc_dquota.h"
#include "jc_dwalk.h"
#include "jc_dwatch.h"
#include "jc_fd.h"
#include "jc_hier.h"
#include "jc_internal.h"
#include "jc_rtread.h"
#include "jc_runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEC 1000000000ull
#define RETRY_NS ((uint64_t)JC_RUNTIME_RETRY_S * SEC)
#define SLOW (JC_RUNTIME_TRIES + 1) /* tries: past them, every RETRY_NS */

/* How a tree is sized. */
enum { TREE_NEW, TREE_QUOTA, TREE_WALK };

/* A directory tree sized: a container's layer, one emptyDir volume. */
typedef struct {
  char *rel;  /* below RuntimeRoot */
  char *home; /* the directory of its kind (a project there is shared) */
  int how;
  uint32_t projid;  /* TREE_QUOTA */
  int fd;           /* TREE_QUOTA: its top, kept (jc_tracked_keep); -1 */
  jc_dsize figure;
  bool have;        /* a figure */
  uint64_t since_ns; /* CLOCK_MONOTONIC: the figure is true since (a
                        walk's start; a quota's read) */
  jc_dwalk *walk;   /* in progress */
  uint64_t walk_ns; /* its start */
  uint64_t retry_ns; /* not before (opened or walked too soon after a
                        failure); 0 */
  unsigned fails;   /* opens that failed in a row */
  bool walked_now;  /* walked in this pass */
  bool said;        /* its problem said */
} dtree;

/* What a container (or pod) fills, found. */
typedef struct {
  bool pod;
  dtree layer; /* rel NULL: none */
  char *logs;  /* the directory of its logs, below RuntimeRoot; NULL */
  jc_dlogs *log_files;
  int log_fd;  /* kept; -1 */
  int log_wd;  /* its inotify watch (jc_dwatch); -1: none, looked at each
                  pass */
  unsigned look; /* JC_DLOGS_*: what the watch said since the last pass */
  bool log_gone; /* the watch said its directory went: opened anew */
  uint64_t log_bytes;
  bool have_logs;
  char *volumes; /* a pod: its emptyDirs' directory; NULL */
  dtree *vol;    /* each disk-backed volume */
  char **vol_name;
  size_t vol_count;
  int vol_fd;    /* kept; -1 */
  struct timespec vol_mtime;
  bool vol_listed; /* vol[] is the directory's; false: none seen yet */
} dentity;

/* A cgroup's slot. */
typedef struct {
  dentity *e;
  bool looked;  /* found, or nothing to find: not asked again */
  uint8_t tries; /* lookups that found nothing yet; SLOW: every RETRY_NS */
  uint64_t next_ns; /* SLOW: the next lookup */
} disk_slot;

typedef struct {
  jc_runtime *rt;
  char proc[PATH_MAX]; /* ProcRoot */
  long budget;         /* DiskWalkEntries; JC_DISK_WALK_AUTO */
  unsigned told_wait, told_layer, told_logs; /* causes said, per runtime */
  jc_dwatch *watch; /* the log directories' inotify (its descriptor kept:
                       jc_tracked_keep); NULL: none, each looked at */
  bool watch_tried, said_watches;
  uint64_t passes; /* the step's end hooks so far: the first is init's */
  bool said_budget, said_quota, said_volumes;
  unsigned found; /* containers found: their logs listed again in turn */
  dtree **pick; /* a pass's trees to walk, in order */
  size_t pick_cap;
} disk_self;

static disk_self *self(const jc_collector *c) {
  return jc_step_self(c, JC_STEP_DISK);
}

static disk_slot *slot_of(const jc_collector *c, const jc_tracked *t) {
  return jc_step_slot(c, t, JC_STEP_DISK);
}

/* ---- descriptors kept ------------------------------------------------------- */

static bool keep(void *ctx) { return jc_tracked_keep(ctx); }
static void unkept(void *ctx) { jc_tracked_unkept(ctx); }

/* The directory rel below RuntimeRoot: the one kept at *kept, else one
 * opened now, kept when the budget has room (*ret_fresh when not: the
 * caller closes it).  A negative errno of the open. */
static int dir_fd(jc_collector *c, int *kept, const char *rel,
                  bool *ret_fresh) {
  *ret_fresh = false;
  if (*kept >= 0)
    return *kept;
  char why[256];
  int fd = jc_rtread_open_dir(jc_runtime_rootfd(self(c)->rt), rel, why,
                              sizeof(why));
  if (fd < 0)
    return fd;
  if (jc_tracked_keep(c))
    *kept = fd = jc_fd_above_select(fd);
  else
    *ret_fresh = true;
  return fd;
}

static void tree_stop(jc_collector *c, dtree *tr) {
  jc_dwalk_free(tr->walk);
  tr->walk = NULL;
  jc_tracked_close_kept(c, &tr->fd);
}

static void tree_free(jc_collector *c, dtree *tr) {
  tree_stop(c, tr);
  free(tr->rel);
  free(tr->home);
  *tr = (dtree){.fd = -1};
}

static int tree_init(dtree *tr, const char *rel, const char *home) {
  *tr = (dtree){.fd = -1, .rel = strdup(rel), .home = strdup(home)};
  return tr->rel && tr->home ? 0 : -ENOMEM;
}

/* Everything t keeps open: true when that was anything. */
static bool give_back(jc_collector *c, jc_tracked *t) {
  dentity *e = slot_of(c, t)->e;
  if (!e)
    return false;
  bool any = e->layer.walk || e->layer.fd >= 0;
  tree_stop(c, &e->layer);
  for (size_t i = 0; i < e->vol_count; i++) {
    any |= e->vol[i].walk || e->vol[i].fd >= 0;
    tree_stop(c, &e->vol[i]);
  }
  any |= jc_tracked_close_kept(c, &e->log_fd);
  return jc_tracked_close_kept(c, &e->vol_fd) || any;
}

static void entity_free(jc_collector *c, dentity *e) {
  if (!e)
    return;
  if (e->log_wd >= 0)
    jc_dwatch_remove(self(c)->watch, e->log_wd);
  tree_free(c, &e->layer);
  for (size_t i = 0; i < e->vol_count; i++) {
    tree_free(c, &e->vol[i]);
    free(e->vol_name[i]);
  }
  free(e->vol);
  free(e->vol_name);
  jc_tracked_close_kept(c, &e->log_fd);
  jc_tracked_close_kept(c, &e->vol_fd);
  jc_dlogs_free(e->log_files);
  free(e->logs);
  free(e->volumes);
  free(e);
}

/* ---- a container's storage, found once ------------------------------------- */

static const char *const runtime_names[JC_RUNTIME_DIR_COUNT] = {
    "containerd", "CRI-O", "Docker", "Podman", "the kubelet", "the kubelet"};

/* The first process listed in t's cgroup.procs; 0 when none. */
static pid_t first_pid(jc_collector *c, jc_tracked *t) {
  char path[PATH_MAX], text[64];
  int dirfd;
  const char *name =
      jc_tracked_file(c, t, "cgroup.procs", path, sizeof(path), &dirfd);
  int fd = jc_hier_open_file(dirfd, name, !t->on_cgroupfs);
  if (fd < 0)
    return 0;
  ssize_t len = pread(fd, text, sizeof(text) - 1, 0);
  close(fd);
  if (len <= 0)
    return 0;
  text[len] = '\0';
  long pid = strtol(text, NULL, 10);
  return pid > 0 && pid <= 4194304 ? (pid_t)pid : 0;
}

/* The parent of rel, up `levels` levels (into out). */
static void up(const char *rel, int levels, char *out, size_t size) {
  snprintf(out, size, "%s", rel);
  for (int i = 0; i < levels; i++) {
    char *slash = strrchr(out, '/');
    if (slash)
      *slash = '\0';
    else
      out[0] = '\0';
  }
}

static dentity *entity_new(const jc_dplace *p, bool pod, unsigned phase) {
  dentity *e = calloc(1, sizeof(*e));
  if (!e)
    return NULL;
  e->pod = pod;
  e->layer.fd = e->log_fd = e->vol_fd = e->log_wd = -1;
  char home[PATH_MAX];
  up(p->layer, 2, home, sizeof(home)); /* overlay2/<id>/diff: overlay2 */
  bool ok = !p->layer[0] || tree_init(&e->layer, p->layer, home) == 0;
  if (ok && p->logs[0])
    ok = (e->logs = strdup(p->logs)) &&
         (e->log_files = jc_dlogs_new(p->log_prefix, phase));
  if (ok && p->volumes[0])
    ok = (e->volumes = strdup(p->volumes)) != NULL;
  if (!ok) {
    free(e->layer.rel);
    free(e->layer.home);
    jc_dlogs_free(e->log_files);
    free(e->logs);
    free(e->volumes);
    free(e);
    return NULL;
  }
  return e;
}

/* What is not understood of a runtime's storage, or its logs: said once
 * per runtime and kind of thing. */
static void say_once(jc_collector *c, unsigned *told, jc_runtime_dir k,
                     int level, const jc_tracked *t, const char *what,
                     const char *why) {
  if (*told & (1u << k))
    return;
  *told |= 1u << k;
  jc_logf(&c->log, level,
          "Collect \"disk\": cgroup \"%s\" (%s): %s: %s; said once for every "
          "container of %s (docs/containers.md)",
          t->relpath, runtime_names[k], what, why, runtime_names[k]);
}

/* A lookup that found nothing yet: asked again at the next passes, then
 * every JC_RUNTIME_RETRY_S, saying once why. */
static void wait_more(jc_collector *c, jc_tracked *t, jc_runtime_dir k,
                      const char *why, uint64_t now) {
  disk_slot *s = slot_of(c, t);
  if (s->tries < SLOW && ++s->tries <= JC_RUNTIME_TRIES)
    return;
  if (s->tries == SLOW && s->next_ns == 0)
    say_once(c, &self(c)->told_wait, k, JC_LOG_INFO, t,
             "its storage is not found after 11 reads", why);
  s->tries = SLOW;
  s->next_ns = now + RETRY_NS;
}

/* Where t's container keeps its files, once: its slot's entity. */
static void find(jc_collector *c, jc_tracked *t, uint64_t now) {
  disk_self *d = self(c);
  disk_slot *s = slot_of(c, t);
  jc_container *ctr = malloc(sizeof(*ctr));
  jc_dplace *p = malloc(sizeof(*p));
  char why[PATH_MAX + 256] = "";
  int r = ctr && p ? jc_runtime_container(d->rt, t->relpath, ctr) : -ENOMEM;
  if (r == -ENOENT || (r < 0 && r != -EAGAIN)) {
    s->looked = true; /* no container's, or a file refused (said) */
    goto out;
  }
  if (r == -EAGAIN) {
    snprintf(why, sizeof(why), "its runtime's files are not written");
    wait_more(c, t, ctr->runtime, why, now);
    goto out;
  }
  pid_t pid = ctr->id[0] ? first_pid(c, t) : 0;
  r = jc_dfind(d->rt, ctr, d->proc, pid, p, why, sizeof(why));
  if (r == -EAGAIN) {
    wait_more(c, t, ctr->runtime, why, now);
    goto out;
  }
  if (r < 0)
    say_once(c, &d->told_layer, ctr->runtime, JC_LOG_WARNING, t,
             "its writable layer is not sized", why);
  if (p->why_logs[0])
    say_once(c, &d->told_logs, ctr->runtime, JC_LOG_INFO, t,
             "no log file of its own is sized", p->why_logs);
  s->looked = true;
  if (p->layer[0] || p->logs[0] || p->volumes[0])
    s->e = entity_new(p, !ctr->id[0], d->found++);
  if (s->e)
    jc_logf(&c->log, JC_LOG_DEBUG,
            "Collect \"disk\": cgroup \"%s\": writable layer \"%s\", logs "
            "\"%s\" (\"%s*\"), emptyDir volumes \"%s\" (below RuntimeRoot)",
            t->relpath, p->layer, p->logs, p->log_prefix, p->volumes);
out:
  free(ctr);
  free(p);
}

/* ---- quotas and walks ---------------------------------------------------------- */

static void tree_failed(dtree *tr, uint64_t now) {
  tr->fails++;
  tr->retry_ns = tr->fails > JC_RUNTIME_TRIES ? now + RETRY_NS : 0;
}

/* The project of directory rel: 0 where it has none, or it cannot be
 * looked at. */
static uint32_t project_of(jc_collector *c, const char *rel) {
  char why[256];
  uint32_t projid = 0;
  int fd = jc_rtread_open_dir(jc_runtime_rootfd(self(c)->rt), rel, why,
                              sizeof(why));
  if (fd >= 0) {
    if (jc_dquota_project(fd, &projid) < 0)
      projid = 0;
    close(fd);
  }
  return projid;
}

static void say_quota(jc_collector *c, const dtree *tr, int err) {
  disk_self *d = self(c);
  if (d->said_quota)
    return;
  d->said_quota = true;
  char shown[PATH_MAX + 64];
  jc_logf(&c->log, JC_LOG_INFO,
          "Collect \"disk\": %s has a project quota (project %u) that cannot "
          "be read (%s%s): such trees are walked instead; said once",
          jc_runtime_shown(d->rt, tr->rel, shown, sizeof(shown)), tr->projid,
          JC_STRERROR(-err),
          err == -EPERM ? ": reading a project's usage needs CAP_SYS_ADMIN"
          : err == -ENOSYS ? ": quotactl_fd needs Linux 5.14" : "");
}

/* Reads tr's quota into its figure: 0, or a negative errno. */
static int read_quota(jc_collector *c, dtree *tr, uint64_t now) {
  bool fresh;
  int fd = dir_fd(c, &tr->fd, tr->rel, &fresh);
  if (fd < 0)
    return fd;
  jc_dsize q;
  int r = jc_dquota_usage(fd, tr->projid, &q);
  if (fresh)
    close(fd);
  else if (r < 0)
    jc_tracked_close_kept(c, &tr->fd);
  if (r == 0) {
    tr->figure = q;
    tr->have = true;
    tr->since_ns = now;
  }
  return r;
}

/*
 * A tree first looked at: sized by its project's quota when its directory
 * has a project of its own (not its kind's directory's: a project set on
 * all of /var/lib/docker says nothing of one layer) and the file system
 * answers for it; else walked.
 */
static void choose(jc_collector *c, dtree *tr, uint64_t now) {
  bool fresh;
  int fd = dir_fd(c, &tr->fd, tr->rel, &fresh);
  if (fd < 0) {
    tree_failed(tr, now);
    return;
  }
  tr->fails = 0;
  uint32_t projid = 0;
  bool own = jc_dquota_project(fd, &projid) == 0 && projid != 0 &&
             project_of(c, tr->home) != projid;
  if (fresh)
    close(fd);
  tr->how = TREE_WALK;
  if (!own) {
    jc_tracked_close_kept(c, &tr->fd);
    return;
  }
  tr->projid = projid;
  int r = read_quota(c, tr, now);
  if (r == 0) {
    tr->how = TREE_QUOTA;
    return;
  }
  jc_tracked_close_kept(c, &tr->fd);
  if (r != -ESRCH && r != -ENOENT)
    say_quota(c, tr, r); /* quotas are off there: nothing to say */
}

static void say_budget(jc_collector *c, const dtree *tr, const jc_tracked *t) {
  disk_self *d = self(c);
  if (d->said_budget)
    return;
  d->said_budget = true;
  char shown[PATH_MAX + 64];
  jc_logf(&c->log, JC_LOG_WARNING,
          "Collect \"disk\": the walk of %s (cgroup \"%s\") holds a "
          "descriptor for each directory level it is in, and MaxOpenFiles' "
          "budget has no room for another: its figure is not made, and the "
          "walk is tried again in %d s; raise MaxOpenFiles and collectd's "
          "descriptor limit (docs/configuration.md); said once",
          jc_runtime_shown(d->rt, tr->rel, shown, sizeof(shown)), t->relpath,
          JC_DISK_RETRY_S);
}

/* Walks tr on, within *budget: its figure replaced when the walk ends. */
static void walk(jc_collector *c, jc_tracked *t, dtree *tr, uint64_t *budget,
                 uint64_t now) {
  disk_self *d = self(c);
  tr->walked_now = true;
  if (!tr->walk) {
    char why[256];
    int fd = jc_rtread_open_dir(jc_runtime_rootfd(d->rt), tr->rel, why,
                                sizeof(why));
    jc_dfds fds = {keep, unkept, c};
    if (fd < 0 || !(tr->walk = jc_dwalk_new(fd, &fds))) {
      if (fd >= 0 && errno == EMFILE) {
        say_budget(c, tr, t);
        tr->retry_ns = now + (uint64_t)JC_DISK_RETRY_S * SEC;
      } else {
        tree_failed(tr, now);
      }
      return;
    }
    tr->walk_ns = now;
    (*budget)--; /* the top */
  }
  int r = jc_dwalk_run(tr->walk, budget);
  if (r == 0)
    return;
  if (r == 1) {
    jc_dwalk_result res;
    jc_dwalk_get(tr->walk, &res);
    tr->figure = res.size;
    tr->have = true;
    tr->since_ns = tr->walk_ns;
    if (res.unreadable && !tr->said) {
      tr->said = true;
      char shown[PATH_MAX + 64];
      jc_logf(&c->log, JC_LOG_WARNING,
              "Collect \"disk\": %s (cgroup \"%s\"): %llu entries could not "
              "be looked at (%s): its figure counts the rest; collectd needs "
              "root (or CAP_DAC_READ_SEARCH) to see every file; said once "
              "for the tree",
              jc_runtime_shown(d->rt, tr->rel, shown, sizeof(shown)),
              t->relpath, (unsigned long long)res.unreadable,
              JC_STRERROR(res.unreadable_err));
    }
  } else if (r == -EMFILE) {
    say_budget(c, tr, t);
    tr->retry_ns = now + (uint64_t)JC_DISK_RETRY_S * SEC;
  }
  jc_dwalk_free(tr->walk);
  tr->walk = NULL;
}

/* ---- a pod's emptyDir volumes --------------------------------------------------- */

static int vol_add(dentity *e, const char *name, const char *rel,
                   const char *home) {
  dtree *v = realloc(e->vol, (e->vol_count + 1) * sizeof(*v));
  if (v)
    e->vol = v;
  char **n = realloc(e->vol_name, (e->vol_count + 1) * sizeof(*n));
  if (n)
    e->vol_name = n;
  if (!v || !n || tree_init(&e->vol[e->vol_count], rel, home) < 0)
    return -ENOMEM;
  if (!(e->vol_name[e->vol_count] = strdup(name))) {
    free(e->vol[e->vol_count].rel);
    free(e->vol[e->vol_count].home);
    return -ENOMEM;
  }
  e->vol_count++;
  return 0;
}

static bool listed(const dentity *e, const char *name) {
  for (size_t i = 0; i < e->vol_count; i++)
    if (!strcmp(e->vol_name[i], name))
      return true;
  return false;
}

/* The disk-backed volumes in the pod's emptyDir directory (fd): each one
 * a tree; one of another file system (medium: Memory, a tmpfs mounted
 * there) is memory, counted in the pod's memory, not here.  A volume
 * gone is dropped (a pod's volumes are made when it starts, removed when
 * it goes). */
static void list_volumes(jc_collector *c, dentity *e, int fd,
                         const struct stat *dir) {
  int lfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
  if (!d) {
    if (lfd >= 0)
      close(lfd);
    return;
  }
  bool *present = calloc(e->vol_count + 1, sizeof(*present));
  struct dirent *de;
  while (present && (de = readdir(d))) {
    struct stat st;
    if (de->d_name[0] == '.' ||
        fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
        !S_ISDIR(st.st_mode) || st.st_dev != dir->st_dev)
      continue;
    for (size_t i = 0; i < e->vol_count; i++)
      if (!strcmp(e->vol_name[i], de->d_name))
        present[i] = true;
    char rel[PATH_MAX];
    if (listed(e, de->d_name) ||
        snprintf(rel, sizeof(rel), "%s/%s", e->volumes, de->d_name) >=
            (int)sizeof(rel))
      continue;
    bool *grown = realloc(present, (e->vol_count + 2) * sizeof(*grown));
    if (!grown || vol_add(e, de->d_name, rel, e->volumes) < 0) {
      present = grown;
      break; /* out of memory: the rest at the next listing */
    }
    present = grown;
    present[e->vol_count - 1] = true;
  }
  closedir(d);
  for (size_t i = e->vol_count; present && i-- > 0;) {
    if (present[i])
      continue;
    tree_free(c, &e->vol[i]);
    free(e->vol_name[i]);
    e->vol[i] = e->vol[e->vol_count - 1];
    e->vol_name[i] = e->vol_name[e->vol_count - 1];
    e->vol_count--;
  }
  free(present);
  e->vol_mtime = dir->st_mtim;
  e->vol_listed = true;
}

static void volumes(jc_collector *c, dentity *e) {
  bool fresh;
  int fd = dir_fd(c, &e->vol_fd, e->volumes, &fresh);
  if (fd < 0) {
    if (e->vol_listed) /* the pod's volumes are gone: it is going */
      e->vol_listed = false;
    return; /* a pod without emptyDir volumes has no such directory */
  }
  struct stat st;
  if (fstat(fd, &st) == 0 &&
      (!e->vol_listed || st.st_mtim.tv_sec != e->vol_mtime.tv_sec ||
       st.st_mtim.tv_nsec != e->vol_mtime.tv_nsec))
    list_volumes(c, e, fd, &st);
  if (fresh)
    close(fd);
}

/* ---- the pass ------------------------------------------------------------------ */

/* The log directories' watch, made at the first pass that needs it (its
 * descriptor in the budget: the budget is chosen after the step's init). */
static jc_dwatch *watch_of(jc_collector *c) {
  disk_self *d = self(c);
  if (d->watch_tried)
    return d->watch;
  d->watch_tried = true;
  if (!jc_tracked_keep(c))
    return NULL; /* no room: every log looked at each pass */
  if (!(d->watch = jc_dwatch_new()))
    jc_tracked_unkept(c);
  return d->watch;
}

static void say_watches(jc_collector *c, int err) {
  disk_self *d = self(c);
  if (d->said_watches)
    return;
  d->said_watches = true;
  jc_logf(&c->log, JC_LOG_INFO,
          "Collect \"disk\": a container's log directory cannot be watched "
          "(inotify: %s%s): its log files are looked at every pass instead; "
          "said once",
          JC_STRERROR(-err),
          err == -ENOSPC ? "; raise fs.inotify.max_user_watches" : "");
}

/* What inotify said of a log directory since the last pass (owner NULL:
 * the queue overflowed, any may have changed). */
static void on_event(void *ctx, void *owner, unsigned what) {
  jc_collector *c = ctx;
  unsigned look = (what & JC_DWATCH_WRITTEN ? JC_DLOGS_LOOK : 0) |
                  (what & (JC_DWATCH_CHANGED | JC_DWATCH_GONE) ? JC_DLOGS_LIST
                                                                : 0);
  if (owner) {
    ((dentity *)owner)->look |= look;
    ((dentity *)owner)->log_gone |= (what & JC_DWATCH_GONE) != 0;
    return;
  }
  for (size_t i = 0; i < c->tracked_count; i++) {
    dentity *e = slot_of(c, c->tracked[i])->e;
    if (e)
      e->look |= look;
  }
}

/* A container's log files: what its watch says changed, or, without one,
 * the files written to at every pass. */
static void logs(jc_collector *c, dentity *e) {
  jc_dwatch *w = watch_of(c);
  if (e->log_gone) { /* removed, or renamed: opened anew, watched anew */
    e->log_gone = false;
    jc_tracked_close_kept(c, &e->log_fd);
    jc_dwatch_remove(w, e->log_wd);
    e->log_wd = -1;
  }
  bool fresh;
  int fd = dir_fd(c, &e->log_fd, e->logs, &fresh);
  e->have_logs = false;
  if (fd < 0)
    return; /* not made yet, or going */
  if (w && e->log_wd < 0) {
    int wd = jc_dwatch_add(w, fd, e);
    if (wd < 0)
      say_watches(c, wd);
    e->log_wd = wd < 0 ? -2 : wd; /* -2: tried, looked at each pass */
    e->look |= JC_DLOGS_LIST;     /* anything before the watch */
  }
  unsigned look = e->log_wd >= 0 ? e->look : JC_DLOGS_LOOK;
  e->look = 0;
  int r = jc_dlogs_size(e->log_files, fd, look, &e->log_bytes);
  e->have_logs = r == 0;
  if (fresh)
    close(fd);
  else if (r < 0)
    e->log_gone = true; /* opened and watched anew at the next pass */
}

/* Quotas read, new trees looked at; trees to walk listed in d->pick. */
static size_t size_tree(jc_collector *c, dtree *tr, size_t count,
                        uint64_t now) {
  disk_self *d = self(c);
  tr->walked_now = false;
  if (!tr->rel || now < tr->retry_ns)
    return count;
  if (tr->how == TREE_NEW)
    choose(c, tr, now);
  if (tr->how == TREE_QUOTA && read_quota(c, tr, now) < 0) {
    tr->how = TREE_NEW; /* looked at again at the next pass */
    tr->have = false;
  }
  if (tr->how != TREE_WALK || d->budget == 0)
    return count; /* DiskWalkEntries 0: quotas only */
  if (count == d->pick_cap) {
    size_t cap = d->pick_cap ? d->pick_cap * 2 : 64;
    dtree **grown = realloc(d->pick, cap * sizeof(*grown));
    if (!grown)
      return count;
    d->pick = grown;
    d->pick_cap = cap;
  }
  d->pick[count] = tr;
  return count + 1;
}

/* The entries this pass's walks may look at: DiskWalkEntries, or by
 * default half the cgroups the pass reads (each costs it a few reads of
 * its files; an entry about one read), at least JC_DISK_WALK_LEAST. */
static uint64_t pass_budget(const jc_collector *c, const disk_self *d) {
  if (d->budget != JC_DISK_WALK_AUTO)
    return (uint64_t)d->budget;
  size_t half = c->tracked_count / 2;
  return half > JC_DISK_WALK_LEAST ? half : JC_DISK_WALK_LEAST;
}

/* Which tree to walk first: one never walked (the one being walked
 * before the others), then one being walked, then the oldest figure. */
static int walk_order(const void *a, const void *b) {
  const dtree *x = *(dtree *const *)a, *y = *(dtree *const *)b;
  if (x->have != y->have)
    return x->have ? 1 : -1;
  if ((x->walk != NULL) != (y->walk != NULL))
    return x->walk ? -1 : 1;
  if (x->since_ns != y->since_ns)
    return x->since_ns < y->since_ns ? -1 : 1;
  return 0;
}

/* The cgroup a tree of d->pick is of, for messages. */
static jc_tracked *owner(jc_collector *c, const dtree *tr) {
  for (size_t i = 0; i < c->tracked_count; i++) {
    dentity *e = slot_of(c, c->tracked[i])->e;
    if (!e)
      continue;
    if (&e->layer == tr || (e->vol && tr >= e->vol && tr < e->vol + e->vol_count))
      return c->tracked[i];
  }
  return NULL;
}

static void put(jc_collector *c, jc_collect_fn emit, void *ctx,
                const jc_target *target, jc_list_id id, double v) {
  if (c->cfg->sel.list[id] == JC_SEL_OFF)
    return;
  jc_metric m = {.list = id, .type = jc_lists[id].type,
                 .type_instance = jc_lists[id].type_instance,
                 .kind = JC_GAUGE, .count = 1, .gauge = {v}};
  emit(ctx, target, &m);
}

static double age_s(uint64_t since, uint64_t now) {
  return now > since ? (double)(now - since) / 1e9 : 0.0;
}

static void send(jc_collector *c, const jc_tracked *t, jc_collect_fn emit,
                 void *ctx, uint64_t now) {
  const dentity *e = slot_of(c, t)->e;
  jc_target target = jc_tracked_target(c, t);
  if (e->layer.have) {
    put(c, emit, ctx, &target, JC_LIST_DISK_LAYER, (double)e->layer.figure.bytes);
    put(c, emit, ctx, &target, JC_LIST_DISK_LAYER_FILES,
        (double)e->layer.figure.inodes);
    put(c, emit, ctx, &target, JC_LIST_DISK_LAYER_AGE,
        age_s(e->layer.since_ns, now));
  }
  if (e->have_logs)
    put(c, emit, ctx, &target, JC_LIST_DISK_LOGS, (double)e->log_bytes);
  if (!e->vol_listed)
    return;
  jc_dsize sum = {0, 0};
  uint64_t since = now;
  for (size_t i = 0; i < e->vol_count; i++) {
    if (!e->vol[i].have)
      return; /* the pod's figure when every volume has one */
    sum.bytes += e->vol[i].figure.bytes;
    sum.inodes += e->vol[i].figure.inodes;
    since = e->vol[i].since_ns < since ? e->vol[i].since_ns : since;
  }
  put(c, emit, ctx, &target, JC_LIST_DISK_EMPTYDIR, (double)sum.bytes);
  put(c, emit, ctx, &target, JC_LIST_DISK_EMPTYDIR_FILES, (double)sum.inodes);
  put(c, emit, ctx, &target, JC_LIST_DISK_EMPTYDIR_AGE, age_s(since, now));
}

/*
 * After every cgroup: new containers found, each one's logs and quotas
 * read, the pass's walks made, the lists sent.
 */
static void end(jc_collector *c, jc_collect_fn emit, void *ctx) {
  disk_self *d = self(c);
  uint64_t now = jc_now_ns();
  size_t count = 0;
  uint64_t budget = pass_budget(c, d);
  bool baseline = !d->passes++; /* init's read: every container looked up */
  if (d->watch)
    (void)jc_dwatch_read(d->watch, on_event, c); /* a failed read: nothing
                                                    said, looked at later */
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_tracked *t = c->tracked[i];
    disk_slot *s = slot_of(c, t);
    if (t->gone)
      continue;
    /* A lookup costs JC_DISK_LOOKUP entries of the pass's budget; one a
     * pass at least. */
    if (!s->looked && (s->tries < SLOW || now >= s->next_ns) &&
        (baseline || budget >= JC_DISK_LOOKUP || budget == pass_budget(c, d))) {
      find(c, t, now);
      budget -= budget < JC_DISK_LOOKUP ? budget : JC_DISK_LOOKUP;
    }
    dentity *e = s->e;
    if (!e)
      continue;
    if (e->logs)
      logs(c, e);
    if (e->volumes)
      volumes(c, e);
    count = size_tree(c, &e->layer, count, now);
    for (size_t k = 0; k < e->vol_count; k++)
      count = size_tree(c, &e->vol[k], count, now);
  }
  if (count > 1)
    qsort(d->pick, count, sizeof(*d->pick), walk_order);
  for (size_t k = 0; k < count && budget > 0; k++)
    walk(c, owner(c, d->pick[k]), d->pick[k], &budget, now);
  if (!emit)
    return;
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_tracked *t = c->tracked[i];
    if (!t->gone && slot_of(c, t)->e)
      send(c, t, emit, ctx, now);
  }
}

/* ---- life ------------------------------------------------------------------- */

static void release(jc_collector *c, jc_tracked *t) {
  disk_slot *s = slot_of(c, t);
  entity_free(c, s->e);
  *s = (disk_slot){0};
}

/* The inotify descriptor goes with the collector, and its budget's count
 * with it. */
static void disk_free(const jc_collector *c, void *state) {
  (void)c;
  disk_self *d = state;
  jc_dwatch_free(d->watch);
  jc_runtime_free(d->rt);
  free(d->pick);
  free(d);
}

/* On when a disk list is chosen: the runtimes' state below RuntimeRoot. */
static int init(const jc_collector *c, void **ret_self) {
  const jc_config *cfg = c->cfg;
  if (!jc_lists_any(&cfg->sel, JC_LIST_DISK_LAYER, 7))
    return 0;
  disk_self *d = calloc(1, sizeof(*d));
  if (!d) {
    jc_logf(&c->log, JC_LOG_ERR, "out of memory");
    return -ENOMEM;
  }
  d->rt = jc_runtime_open(cfg->runtime_root,
                          (const char *const *)cfg->runtime_dir, &c->log,
                          "Collect \"disk\"", "has no disk figures");
  if (!d->rt) {
    int e = errno;
    free(d);
    return -e;
  }
  d->budget = cfg->disk_walk_entries;
  snprintf(d->proc, sizeof(d->proc), "%s",
           cfg->proc_root ? cfg->proc_root : "/proc");
  *ret_self = d;
  return 0;
}

const jc_step jc_disk_step = {
    .name = "disk",
    .slot_size = sizeof(disk_slot),
    .life = {.init = init, .init_first = true, .free = disk_free},
    .pass = {.end = end},
    .cgroup_life = {.release = release, .give_back = give_back},
};
