/*
 * jc_managed — the <Cgroup> blocks: the profiler's lifecycle on collectd's
 * callbacks.  At init: verify the cgroup, or create its missing levels and
 * hand down to each the controllers Collect needs (as systemd and runc
 * do: the cgroups we create are ours to configure, the ones above them are
 * not, and are only checked); then move the configured processes in, once
 * each has been found safe to move, remembering where each was.  At
 * shutdown: for each level we created, while it is still the cgroup we
 * created, move the processes still inside back where they came from (the
 * ones we did not move, their children, where the first one we moved came
 * from; with none, to the parent of what we created), and remove it.
 *
 * Back, rather than to the parent: a parent that hands controllers down
 * may hold no process (cgroup v2's rule for all but the root), and a job
 * moved back into its service's cgroup stays its service's.
 *
 * Only on the kernel's cgroup2 file system: on a copy of a tree a block
 * that would create or move is refused (and jc_cgwrite refuses to write
 * anywhere else in any case).
 */
#include "jc_managed.h"

#include "jc_attach.h"
#include "jc_cgwrite.h"
#include "jc_hier.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const jc_managed *find_managed(const jc_config *cfg,
                                      const char *relpath) {
  for (size_t i = 0; i < cfg->managed_count; i++)
    if (strcmp(cfg->managed[i].path, relpath) == 0)
      return &cfg->managed[i];
  return NULL;
}

bool jc_managed_is_path(const jc_config *cfg, const char *relpath) {
  return find_managed(cfg, relpath) != NULL;
}

const char *jc_managed_instance(const jc_config *cfg, const char *relpath) {
  const jc_managed *m = find_managed(cfg, relpath);
  return m ? m->instance : NULL;
}

/* ---- paths ---------------------------------------------------------- */

static size_t count_levels(const char *relpath) {
  size_t levels = 1; /* <Cgroup> paths are checked: no empty level */
  for (const char *p = relpath; *p; p++)
    levels += *p == '/';
  return levels;
}

/* The first `levels` levels of relpath ("" for none: the root). */
static void first_levels(const char *relpath, size_t levels, char *out,
                         size_t size) {
  const char *end = relpath;
  for (size_t i = 0; i < levels && *end; i++) {
    end += i > 0; /* past the '/' */
    end += strcspn(end, "/");
  }
  snprintf(out, size, "%.*s", (int)(end - relpath), relpath);
}

static int open_dir(const jc_managed_set *set, const char *relpath) {
  return jc_hier_open_relpath(set->env.rootfd, relpath, NULL, 0);
}

/* ---- controllers ---------------------------------------------------- */

/* Controllers of the files of mask (optional ones too, with
 * optional_too): a cgroup without them misses values. */
static unsigned file_controllers(uint32_t mask, bool optional_too) {
  unsigned ctrls = 0;
  for (int f = 0; f < JC_FILE_COUNT; f++)
    if ((mask & (1u << f)) && jc_sample_files[f].controller &&
        (optional_too || !jc_sample_files[f].optional))
      ctrls |= jc_hier_ctrl_bit(jc_sample_files[f].controller);
  return ctrls;
}

/* What a parent we did not create must hand down: the controllers of the
 * files Collect asks for that are always there (a limit file is optional:
 * a cgroup without one has no limit of its own, its parents' still
 * apply; memory.events read for NotifyOOM alone is not asked for). */
static unsigned required_controllers(const jc_managed_set *set) {
  return file_controllers(set->env.collect_files, false);
}

/* What a level we create hands down: every controller whose files we
 * read, and cpu for Collect "cpu": cpu.stat exists without it, but its
 * throttling keys come from it. */
static unsigned wanted_controllers(const jc_managed_set *set) {
  return file_controllers(set->env.files, true) |
         ((set->env.cfg->collect & JC_COLLECT_CPU) ? JC_CTRL_CPU : 0);
}

/* Block m goes without the controllers of missing, which the parent fd
 * (at `where`) does not hand down: a WARNING for each, with the remedy
 * there, or above it when it does not have the controller itself. */
static void go_without(jc_managed_set *set, const jc_managed *m, int fd,
                       const char *where, unsigned missing) {
  char cgroup[PATH_MAX], remedy[PATH_MAX + 128];
  unsigned own = 0;
  jc_hier_join(set->env.root, m->path, cgroup, sizeof(cgroup));
  (void)jc_hier_controllers(fd, "cgroup.controllers", &own);
  for (unsigned bit = 1; bit <= missing; bit <<= 1) {
    if (!(missing & bit))
      continue;
    const char *name = jc_hier_ctrl_name(bit);
    if (own & bit)
      snprintf(remedy, sizeof(remedy),
               "enable it with: echo \"+%s\" > %s/cgroup.subtree_control",
               name, where);
    else
      snprintf(remedy, sizeof(remedy),
               "%s does not have it either: its parent must hand it down "
               "first",
               where);
    jc_logf(set->env.log, JC_LOG_WARNING,
            "controller \"%s\" is not enabled for the children of %s, so %s "
            "has no %s values; %s",
            name, where, cgroup, name, remedy);
  }
}

/* A cgroup we did not create must already hand down what block m reads. */
static int check_parent_enables(jc_managed_set *set, const jc_managed *m,
                                int fd, const char *relpath) {
  unsigned wanted = required_controllers(set), enabled = 0;
  if (!wanted)
    return 0;
  char where[PATH_MAX];
  jc_hier_join(set->env.root, relpath, where, sizeof(where));
  int r = jc_hier_controllers(fd, "cgroup.subtree_control", &enabled);
  if (r < 0) {
    jc_logf(set->env.log, JC_LOG_ERR,
            "cannot read %s/cgroup.subtree_control: %s", where,
            JC_STRERROR(-r));
    return r;
  }
  unsigned missing = wanted & ~enabled;
  if (!missing)
    return 0;
  if (m->without_missing_controllers) {
    go_without(set, m, fd, where, missing);
    return 0;
  }
  const char *name = jc_hier_ctrl_name(missing & -missing); /* the first */
  jc_logf(set->env.log, JC_LOG_ERR,
          "controller \"%s\" is not enabled for the children of %s; enable "
          "it with: echo \"+%s\" > %s/cgroup.subtree_control",
          name, where, name, where);
  return -EOPNOTSUPP;
}

/* A cgroup we created hands down the wanted controllers it has. */
static int enable_below(jc_managed_set *set, int fd, const char *relpath) {
  unsigned offered = 0;
  int r = jc_hier_controllers(fd, "cgroup.controllers", &offered);
  unsigned mask = wanted_controllers(set) & offered;
  if (r == 0)
    r = jc_cgwrite_enable(fd, mask);
  if (r == 0)
    return 0;
  char where[PATH_MAX], line[128];
  jc_hier_join(set->env.root, relpath, where, sizeof(where));
  jc_hier_ctrl_format(mask, line, sizeof(line));
  jc_logf(set->env.log, JC_LOG_ERR,
          "cannot enable \"%s\" in %s/cgroup.subtree_control: %s", line, where,
          r == -EBUSY ? "it holds processes, and cgroup v2 hands controllers "
                        "down only from cgroups without processes"
                      : JC_STRERROR(-r));
  return r;
}

/* Was the cgroup fd created by one of the first `upto` blocks? */
static bool created_by_us(const jc_managed_set *set, size_t upto, int fd) {
  uint64_t id;
  if (jc_cgwrite_id(fd, &id) < 0)
    return false;
  for (size_t i = 0; i < upto; i++)
    for (size_t k = 0; k < set->block[i].created_levels; k++)
      if (set->block[i].ids[k] == id)
        return true;
  return false;
}

/* The parent of the first level block i creates, or of its cgroup when
 * it exists: configured if ours, checked if not. */
static int prepare_parent(jc_managed_set *set, size_t i, int fd,
                          const char *relpath) {
  return created_by_us(set, i, fd)
             ? enable_below(set, fd, relpath)
             : check_parent_enables(set, &set->env.cfg->managed[i], fd,
                                    relpath);
}

/* ---- creating ------------------------------------------------------- */

static void creation_failed(jc_managed_set *set, const char *relpath, int err) {
  char where[PATH_MAX];
  jc_hier_join(set->env.root, relpath, where, sizeof(where));
  jc_logf(set->env.log, JC_LOG_ERR, "cannot create cgroup %s: %s%s", where,
          JC_STRERROR(-err),
          err == -EACCES || err == -EPERM
              ? "; creating cgroups needs root, or a parent cgroup "
                "delegated to this user"
              : "");
}

/* Creates the levels of block i below the first `have`, which exist (fd is
 * the deepest of them), top-down; each but the first is created in one
 * that we created, which hands the controllers down first. */
static int create_levels(jc_managed_set *set, size_t i, int fd, size_t have) {
  const jc_managed *m = &set->env.cfg->managed[i];
  jc_managed_state *st = &set->block[i];
  size_t total = count_levels(m->path);
  char prefix[PATH_MAX], name[PATH_MAX];
  int cur = fcntl(fd, F_DUPFD_CLOEXEC, 0), r = cur < 0 ? -errno : 0;
  for (size_t level = have; r == 0 && level < total; level++) {
    first_levels(m->path, level, prefix, sizeof(prefix));
    first_levels(m->path, level + 1, name, sizeof(name));
    const char *last = name + (level ? strlen(prefix) + 1 : 0);
    if (level > have && enable_below(set, cur, prefix) < 0)
      r = -1;
    uint64_t id;
    int next = r < 0 ? r : jc_cgwrite_mkdir(cur, last, &id);
    if (next < 0 && r == 0) {
      creation_failed(set, name, next);
      r = -1;
    }
    if (next >= 0) {
      st->ids[st->created_levels++] = id;
      close(cur);
      cur = next;
    }
  }
  if (cur >= 0)
    close(cur);
  return r;
}

/* ---- set up --------------------------------------------------------- */

/* On a copy of a tree the plugin only reads: refuse what would write. */
static int refuse_copy(jc_managed_set *set, const jc_managed *m) {
  if ((!m->create && !m->pid_count && !m->pid_file_count) ||
      jc_hier_is_cgroupfs(set->env.rootfd))
    return 0;
  jc_logf(set->env.log, JC_LOG_ERR,
          "<Cgroup \"%s\">: CgroupRoot %s is not on the kernel's cgroup2 "
          "file system (a copy of a tree?), and the plugin writes only "
          "there: Create, AttachPid and AttachPidFile are refused; set "
          "CgroupRoot to the cgroup2 mount point, or remove them to only "
          "report the cgroup",
          m->path, set->env.root);
  return -EOPNOTSUPP;
}

/* A <Cgroup> without Create true whose cgroup is not there. */
static void missing(jc_managed_set *set, const jc_managed *m,
                    const char *where) {
  jc_logf(set->env.log, JC_LOG_ERR,
          "cgroup %s does not exist; create it (mkdir %s) or set "
          "\"Create true\" in <Cgroup \"%s\">",
          where, where, m->path);
}

static int setup_one(jc_managed_set *set, size_t i) {
  const jc_managed *m = &set->env.cfg->managed[i];
  char why[512], where[PATH_MAX], parent[PATH_MAX];
  jc_hier_join(set->env.root, m->path, where, sizeof(where));
  size_t have, total = count_levels(m->path);
  int fd =
      jc_hier_open_existing(set->env.rootfd, m->path, &have, why, sizeof(why));
  if (fd < 0) {
    jc_logf(set->env.log, JC_LOG_ERR, "<Cgroup \"%s\">: %s", m->path, why);
    return fd;
  }
  if (have < total && !m->create) {
    missing(set, m, where);
    close(fd);
    return -ENOENT;
  }
  int r;
  if (have == total) { /* it exists: what matters is its parent */
    first_levels(m->path, total - 1, parent, sizeof(parent));
    int pfd = open_dir(set, parent);
    r = pfd < 0 ? pfd : prepare_parent(set, i, pfd, parent);
    if (pfd < 0)
      jc_logf(set->env.log, JC_LOG_ERR, "cannot open the parent of %s: %s",
              where, JC_STRERROR(-pfd));
    else
      close(pfd);
  } else {
    first_levels(m->path, have, parent, sizeof(parent));
    r = prepare_parent(set, i, fd, parent);
    if (r == 0)
      r = create_levels(set, i, fd, have);
    if (r == 0)
      jc_logf(set->env.log, JC_LOG_INFO, "created cgroup %s", where);
  }
  close(fd);
  if (r < 0)
    return r;
  fd = open_dir(set, m->path);
  if (fd < 0) {
    jc_logf(set->env.log, JC_LOG_ERR, "cannot open %s: %s", where,
            JC_STRERROR(-fd));
    return fd;
  }
  r = jc_attach_move(set, i, fd, where);
  close(fd);
  return r;
}

/* A preview (jc_config.preview) changes nothing: it reads a block's
 * cgroup where it exists, and says the rest as init would. */
static int preview_one(jc_managed_set *set, size_t i) {
  const jc_managed *m = &set->env.cfg->managed[i];
  char why[512], where[PATH_MAX];
  jc_hier_join(set->env.root, m->path, where, sizeof(where));
  size_t have;
  int fd =
      jc_hier_open_existing(set->env.rootfd, m->path, &have, why, sizeof(why));
  if (fd < 0) {
    jc_logf(set->env.log, JC_LOG_ERR, "<Cgroup \"%s\">: %s", m->path, why);
    return fd;
  }
  close(fd);
  if (have == count_levels(m->path))
    return 0;
  if (!m->create) {
    missing(set, m, where);
    return -ENOENT;
  }
  jc_logf(set->env.log, JC_LOG_INFO,
          "cgroup %s does not exist yet: the plugin creates it at init "
          "(<Cgroup \"%s\"> Create true) and reads it from then on",
          where, m->path);
  return 0;
}

int jc_managed_setup(const jc_managed_env *env, jc_managed_set **ret) {
  const jc_config *cfg = env->cfg;
  jc_managed_set *set = *ret = calloc(1, sizeof(*set));
  if (set) {
    set->env = *env;
    set->block = calloc(cfg->managed_count ? cfg->managed_count : 1,
                        sizeof(*set->block));
  }
  if (!set || !set->block) {
    jc_logf(env->log, JC_LOG_ERR, "out of memory");
    return -ENOMEM;
  }
  /* What may be refused is refused before anything is created. */
  for (size_t i = 0; i < cfg->managed_count; i++) {
    set->block[i].ids =
        calloc(count_levels(cfg->managed[i].path), sizeof(*set->block[i].ids));
    if (!set->block[i].ids) {
      jc_logf(set->env.log, JC_LOG_ERR, "out of memory");
      return -ENOMEM;
    }
    int r = refuse_copy(set, &cfg->managed[i]);
    if (r < 0 || (r = jc_attach_check(set, i)) < 0)
      return r;
  }
  for (size_t i = 0; i < cfg->managed_count; i++) {
    int r = cfg->preview ? preview_one(set, i) : setup_one(set, i);
    if (r < 0)
      return r; /* jc_managed_release() undoes what was done */
  }
  return 0;
}

/* ---- release -------------------------------------------------------- */

/* A level block b created: its relpath (level + 1 levels of the path). */
typedef struct {
  size_t b, level;
  const char *top; /* the top level b created */
  int topparentfd; /* and its parent, where processes go last */
} created_level;

/* Empties the level and removes it, if it is still the cgroup we created.
 * -ENOENT: someone removed it. */
static int remove_level(jc_managed_set *set, const created_level *l) {
  const jc_managed_state *st = &set->block[l->b];
  const char *path = set->env.cfg->managed[l->b].path;
  size_t have = count_levels(path) - st->created_levels;
  uint64_t id = st->ids[l->level - have];
  char parent[PATH_MAX], rel[PATH_MAX];
  first_levels(path, l->level, parent, sizeof(parent));
  first_levels(path, l->level + 1, rel, sizeof(rel));
  const char *name = rel + (l->level ? strlen(parent) + 1 : 0);
  int pfd = open_dir(set, parent);
  if (pfd < 0)
    return pfd;
  int fd = jc_hier_open_level(pfd, name);
  uint64_t now;
  int r = fd < 0 ? fd : jc_cgwrite_id(fd, &now);
  if (r == 0 && now != id)
    r = -ESTALE;
  if (r == 0) /* what stays makes rmdir fail, and is said there */
    (void)jc_attach_evacuate(set, l->b, fd, l->top, l->topparentfd);
  if (fd >= 0)
    close(fd);
  if (r == 0)
    r = jc_cgwrite_rmdir(pfd, name, id);
  close(pfd);
  return r;
}

static void release_one(jc_managed_set *set, size_t b) {
  const jc_managed *m = &set->env.cfg->managed[b];
  jc_managed_state *st = &set->block[b];
  size_t total = count_levels(m->path), have = total - st->created_levels;
  char top[PATH_MAX], parent[PATH_MAX], where[PATH_MAX];
  first_levels(m->path, have + 1, top, sizeof(top));
  first_levels(m->path, have, parent, sizeof(parent));
  created_level l = {b, total, top, open_dir(set, parent)};
  int r = 0;
  while (r == 0 && l.level-- > have) {
    r = remove_level(set, &l);
    if (r == -ENOENT)
      r = 0; /* removed by someone else: the levels above are still ours */
  }
  if (l.topparentfd >= 0)
    close(l.topparentfd);
  st->created_levels = 0;
  first_levels(m->path, l.level + 1, parent, sizeof(parent));
  jc_hier_join(set->env.root, r < 0 ? parent : m->path, where, sizeof(where));
  if (r == -ESTALE)
    jc_logf(set->env.log, JC_LOG_WARNING,
            "cgroup %s is not the one the plugin created (it was removed and "
            "made again while collectd ran); left alone",
            where);
  else if (r < 0)
    jc_logf(set->env.log, JC_LOG_WARNING, "cannot remove cgroup %s: %s%s",
            where, JC_STRERROR(-r),
            r == -EBUSY ? " (it has child cgroups or processes we did not "
                          "put there); left in place"
                        : "");
  else
    jc_logf(set->env.log, JC_LOG_INFO, "removed cgroup %s", where);
}

void jc_managed_release(jc_managed_set *set) {
  if (!set)
    return;
  for (size_t i = set->block ? set->env.cfg->managed_count : 0; i-- > 0;) {
    jc_managed_state *st = &set->block[i];
    if (st->created_levels && !set->env.cfg->managed[i].keep)
      release_one(set, i);
    free(st->ids);
    jc_attach_forget(st);
  }
  free(set->block);
  free(set);
}
