/*
 * jc_managed — the <Cgroup> blocks: the profiler's lifecycle on collectd's
 * callbacks.  At init: verify or create the cgroup, check that its parent
 * hands the wanted controllers down, move the configured processes in.
 * At shutdown: for the levels we created, move the processes still inside
 * to the parent of what we created, then remove the directories.
 */
#include "jc_managed.h"

#include "jc_hier.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const jc_managed *find_managed(const jc_collector *c,
                                      const char *relpath) {
  for (size_t i = 0; i < c->cfg->managed_count; i++)
    if (strcmp(c->cfg->managed[i].path, relpath) == 0)
      return &c->cfg->managed[i];
  return NULL;
}

bool jc_is_managed_path(const jc_collector *c, const char *relpath) {
  return find_managed(c, relpath) != NULL;
}

const char *jc_managed_instance(const jc_collector *c, const char *relpath) {
  const jc_managed *m = find_managed(c, relpath);
  return m ? m->instance : NULL;
}

/* "a/b/c" → "a/b"; "a" → "" (the root). */
static void parent_of(const char *relpath, char *out, size_t size) {
  const char *slash = strrchr(relpath, '/');
  size_t len = slash ? (size_t)(slash - relpath) : 0;
  snprintf(out, size, "%.*s", (int)len, relpath);
}

static void full_path(const jc_collector *c, const char *relpath, char *out,
                      size_t size) {
  snprintf(out, size, "%s%s%s", c->root, relpath[0] ? "/" : "", relpath);
}

static int open_dir(const jc_collector *c, const char *relpath) {
  char why[256];
  return relpath[0] ? jc_hier_open_relpath(c->rootfd, relpath, why, sizeof(why))
                    : fcntl(c->rootfd, F_DUPFD_CLOEXEC, 0);
}

static const char *const ctrl_names[] = {"cpu", "memory", "io", "pids"};

/* The controllers we read must be enabled in the parent's subtree_control. */
static int check_parent_enables(jc_collector *c, const jc_managed *m) {
  unsigned wanted = 0;
  for (int f = 0; f < JC_FILE_COUNT; f++)
    if ((c->files & (1u << f)) && jc_files[f].controller)
      wanted |= jc_ctrl_bit(jc_files[f].controller);
  if (!wanted)
    return 0;
  char parent[PATH_MAX], where[PATH_MAX];
  parent_of(m->path, parent, sizeof(parent));
  full_path(c, parent, where, sizeof(where));
  int fd = open_dir(c, parent);
  unsigned enabled = 0;
  int r = fd < 0 ? fd : jc_hier_controllers(fd, "cgroup.subtree_control", &enabled);
  if (fd >= 0)
    close(fd);
  if (r < 0) {
    jc_logf(&c->log, JC_LOG_ERR, "cannot read %s/cgroup.subtree_control: %s", where,
            strerror(-r));
    return -1;
  }
  for (unsigned i = 0; i < sizeof(ctrl_names) / sizeof(*ctrl_names); i++) {
    if (!(wanted & (1u << i)) || (enabled & (1u << i)))
      continue;
    jc_logf(&c->log, JC_LOG_ERR,
            "controller \"%s\" is not enabled for the children of %s; enable "
            "it with: echo \"+%s\" > %s/cgroup.subtree_control",
            ctrl_names[i], where, ctrl_names[i], where);
    return -1;
  }
  return 0;
}

static int ensure_exists(jc_collector *c, const jc_managed *m,
                         jc_managed_state *st) {
  char why[512], where[PATH_MAX];
  full_path(c, m->path, where, sizeof(where));
  int fd = jc_hier_open_relpath(c->rootfd, m->path, why, sizeof(why));
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  if (fd != -ENOENT || !m->create) {
    if (fd == -ENOENT)
      jc_logf(&c->log, JC_LOG_ERR,
              "cgroup %s does not exist; create it (mkdir %s) or set "
              "\"Create true\" in <Cgroup \"%s\">",
              where, where, m->path);
    else
      jc_logf(&c->log, JC_LOG_ERR, "<Cgroup \"%s\">: %s", m->path, why);
    return -1;
  }
  int r = jc_hier_mkdirs(c->rootfd, m->path, &st->created_levels, why,
                         sizeof(why));
  if (r < 0) {
    jc_logf(&c->log, JC_LOG_ERR, "cannot create cgroup %s: %s%s", where, why,
            r == -EACCES || r == -EPERM
                ? "; creating cgroups needs root, or a parent cgroup "
                  "delegated to this user"
                : "");
    return -1;
  }
  jc_logf(&c->log, JC_LOG_INFO, "created cgroup %s", where);
  return 0;
}

static int attach_one(jc_collector *c, int fd, const char *where, pid_t pid,
                      const char *source) {
  int r = jc_hier_attach(fd, pid);
  if (r == 0)
    return 0;
  const char *hint =
      r == -ESRCH                   ? "no such process"
      : r == -EACCES || r == -EPERM ? "permission denied; moving processes "
                                      "needs root"
      : r == -EBUSY ? "the cgroup has controllers enabled for its children, "
                      "and cgroup v2 keeps processes in leaf cgroups only"
                    : strerror(-r);
  jc_logf(&c->log, JC_LOG_ERR, "%s: cannot move process %d into %s: %s", source,
          (int)pid, where, hint);
  return -1;
}

static int attach_all(jc_collector *c, const jc_managed *m) {
  char where[PATH_MAX], source[PATH_MAX + 32];
  full_path(c, m->path, where, sizeof(where));
  int fd = open_dir(c, m->path);
  if (fd < 0) {
    jc_logf(&c->log, JC_LOG_ERR, "cannot open %s: %s", where, strerror(-fd));
    return -1;
  }
  int r = 0;
  for (size_t i = 0; r == 0 && i < m->pid_count; i++) {
    snprintf(source, sizeof(source), "AttachPid %d", (int)m->pids[i]);
    r = attach_one(c, fd, where, m->pids[i], source);
  }
  for (size_t i = 0; r == 0 && i < m->pid_file_count; i++) {
    pid_t pid;
    snprintf(source, sizeof(source), "AttachPidFile \"%s\"", m->pid_files[i]);
    int e = jc_hier_read_pid_file(m->pid_files[i], &pid);
    if (e < 0) {
      jc_logf(&c->log, JC_LOG_ERR, "%s: %s", source,
              e == -EINVAL ? "does not hold a process id" : strerror(-e));
      r = -1;
    } else {
      r = attach_one(c, fd, where, pid, source);
    }
  }
  close(fd);
  return r;
}

int jc_managed_setup(jc_collector *c) {
  const jc_config *cfg = c->cfg;
  c->managed = calloc(cfg->managed_count ? cfg->managed_count : 1,
                      sizeof(*c->managed));
  if (!c->managed)
    return -1;
  for (size_t i = 0; i < cfg->managed_count; i++) {
    const jc_managed *m = &cfg->managed[i];
    if (ensure_exists(c, m, &c->managed[i]) < 0 ||
        check_parent_enables(c, m) < 0 || attach_all(c, m) < 0)
      return -1; /* jc_managed_release() undoes what was done */
  }
  return 0;
}

/* Evacuates and removes the levels of one <Cgroup> that we created. */
static void release_one(jc_collector *c, const jc_managed *m, size_t levels) {
  char top[PATH_MAX], parent[PATH_MAX], where[PATH_MAX];
  snprintf(top, sizeof(top), "%s", m->path);
  for (size_t i = 1; i < levels; i++) {
    char *slash = strrchr(top, '/');
    if (slash)
      *slash = '\0';
  }
  parent_of(top, parent, sizeof(parent));
  int cgfd = open_dir(c, m->path), pfd = open_dir(c, parent);
  if (cgfd >= 0 && pfd >= 0)
    (void)jc_hier_evacuate(cgfd, pfd);
  if (cgfd >= 0)
    close(cgfd);
  if (pfd >= 0)
    close(pfd);
  full_path(c, m->path, where, sizeof(where));
  int r = jc_hier_rmdirs(c->rootfd, m->path, levels);
  if (r < 0)
    jc_logf(&c->log, JC_LOG_WARNING, "cannot remove cgroup %s: %s%s", where,
            strerror(-r),
            r == -EBUSY ? " (it has child cgroups or processes we did not "
                          "put there); left in place"
                        : "");
  else
    jc_logf(&c->log, JC_LOG_INFO, "removed cgroup %s", where);
}

void jc_managed_release(jc_collector *c) {
  if (!c->managed)
    return;
  for (size_t i = c->cfg->managed_count; i-- > 0;) {
    size_t levels = c->managed[i].created_levels;
    if (levels && !c->cfg->managed[i].keep)
      release_one(c, &c->cfg->managed[i], levels);
  }
  free(c->managed);
  c->managed = NULL;
}
