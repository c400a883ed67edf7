/*
 * jc_attach — see jc_attach.h.
 */
#include "jc_attach.h"

#include "jc_cgwrite.h"
#include "jc_hier.h"
#include "jc_pidfile.h"
#include "jc_proc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where CgroupRoot is in the hierarchy, as /proc/PID/cgroup says it. */
static int root_cgroup(jc_managed_set *set, char *out, size_t size) {
  char real[PATH_MAX];
  int r = realpath(set->env.root, real) ? 0 : -errno;
  if (r == 0)
    r = jc_hier_cgroup_of("/proc/self/mountinfo", real, out, size);
  if (r < 0)
    jc_logf(set->env.log, JC_LOG_ERR,
            "cannot tell where CgroupRoot %s is in the cgroup2 hierarchy "
            "(/proc/self/mountinfo): %s; no process is moved",
            set->env.root, JC_STRERROR(-r));
  return r;
}

/* Remembers the held process, found in cgroup `from` (a hierarchy path
 * in rootcg); takes the hold when it succeeds. */
static int remember(jc_managed_state *st, const jc_proc_hold *hold,
                    const char *from, const char *rootcg) {
  size_t skip = strcmp(rootcg, "/") == 0 ? 1 : strlen(rootcg);
  char *origin = strdup(from + skip + (from[skip] == '/'));
  jc_moved *grown =
      origin ? realloc(st->moved, (st->moved_count + 1) * sizeof(*grown))
             : NULL;
  if (!grown) {
    free(origin);
    return -ENOMEM;
  }
  st->moved = grown;
  st->moved[st->moved_count++] = (jc_moved){hold->pid, origin, *hold};
  return 0;
}

/* "AttachPid 42" or "AttachPidFile "/run/x.pid"": the k-th process of
 * block m, as the configuration names it (AttachPid first). */
static void describe(const jc_managed *m, size_t k, char *out, size_t size) {
  if (k < m->pid_count)
    snprintf(out, size, "AttachPid %d", (int)m->pids[k]);
  else
    snprintf(out, size, "AttachPidFile \"%s\"",
             m->pid_files[k - m->pid_count]);
}

/* May pid be moved?  Remembered, and held until its move, if so; else
 * one ERROR line.  Held first: the checks are then of the process that
 * jc_attach_move finds still there, or refuses to move. */
static int check_one(jc_managed_set *set, size_t b, pid_t pid,
                     const char *source, const char *rootcg) {
  jc_managed_state *st = &set->block[b];
  char why[512] = "", from[PATH_MAX], how[192];
  jc_proc_hold hold = {.pidfd = -1};
  int r = jc_proc_hold_take(pid, &hold);
  if (r == 0)
    r = jc_proc_may_move(pid, rootcg, why, sizeof(why));
  if (r == 0)
    r = jc_proc_cgroup(pid, from, sizeof(from));
  if (r == 0)
    r = remember(st, &hold, from, rootcg);
  if (r == 0) {
    jc_proc_hold_describe(&hold, how, sizeof(how));
    jc_logf(set->env.log, JC_LOG_DEBUG,
            "%s: process %d held by %s from its check to its move", source,
            (int)pid, how);
    return 0;
  }
  jc_proc_hold_release(&hold);
  if (r == -EPERM)
    jc_logf(set->env.log, JC_LOG_ERR, "%s: refusing to move process %d: %s",
            source, (int)pid, why);
  else
    jc_logf(set->env.log, JC_LOG_ERR,
            "%s: cannot move process %d into %s/%s: %s", source, (int)pid,
            set->env.root, set->env.cfg->managed[b].path,
            r == -ESRCH ? "no such process" : JC_STRERROR(-r));
  return r;
}

/* The process a pid file names, if the file is to be trusted. */
static int read_pid_file(jc_managed_set *set, const char *path,
                         const char *source, pid_t *ret_pid) {
  char why[PATH_MAX + 256];
  int r = jc_pidfile_read(path, ret_pid, why, sizeof(why));
  if (r == -EPERM)
    jc_logf(set->env.log, JC_LOG_ERR,
            "%s: not trusted: %s; only a pid file that no one but root or "
            "collectd's user (uid %u) can write, in directories only they "
            "can write, names a process to move",
            source, why, (unsigned)geteuid());
  else if (r < 0)
    jc_logf(set->env.log, JC_LOG_ERR, "%s: %s", source,
            why[0] ? why : JC_STRERROR(-r));
  return r < 0 ? r : 0;
}

int jc_attach_check(jc_managed_set *set, size_t b) {
  const jc_managed *m = &set->env.cfg->managed[b];
  size_t count = m->pid_count + m->pid_file_count;
  if (!count)
    return 0;
  char source[PATH_MAX + 32], rootcg[PATH_MAX];
  int r = root_cgroup(set, rootcg, sizeof(rootcg));
  if (r < 0)
    return r;
  for (size_t k = 0; r == 0 && k < count; k++) {
    describe(m, k, source, sizeof(source));
    pid_t pid = k < m->pid_count ? m->pids[k] : 0;
    if (k >= m->pid_count)
      r = read_pid_file(set, m->pid_files[k - m->pid_count], source, &pid);
    if (r == 0)
      r = check_one(set, b, pid, source, rootcg);
  }
  return r;
}

/* cgroup v2 moves no memory charge with a process: what it had allocated
 * stays with the cgroup it came from, and memory-current of the cgroup
 * it joins counts only what it allocates from now on.  Said once, at the
 * move, or a user who sees a busy process's cgroup near 0 concludes that
 * the plugin is wrong. */
static void tell_charges(jc_managed_set *set, const char *source, pid_t pid,
                         const char *where) {
  uint64_t rss;
  if (jc_proc_resident(pid, &rss) < 0)
    return; /* gone already: nothing to say */
  jc_logf(set->env.log, JC_LOG_INFO,
          "%s: process %d moved into %s; its %.1f MiB resident stay charged "
          "to the cgroup it came from (cgroup v2 moves no memory charges), "
          "so %s counts only the memory it allocates from now on",
          source, (int)pid, where, (double)rss / (1024.0 * 1024.0), where);
}

int jc_attach_move(jc_managed_set *set, size_t b, int cgfd, const char *where) {
  const jc_managed *m = &set->env.cfg->managed[b];
  jc_managed_state *st = &set->block[b];
  for (size_t k = 0; k < st->moved_count; k++) {
    jc_moved *mv = &st->moved[k];
    pid_t pid = mv->pid;
    int held = jc_proc_hold_check(&mv->hold);
    int r = held < 0 ? held : jc_cgwrite_attach(cgfd, pid);
    jc_proc_hold_release(&mv->hold);
    char source[PATH_MAX + 32];
    describe(m, k, source, sizeof(source));
    if (r == 0) {
      tell_charges(set, source, pid, where);
      continue;
    }
    const char *hint =
        held == -ESRCH ? "it exited after it was checked, and its pid may "
                         "be another process's now, which is not moved"
        : r == -ESRCH                 ? "no such process"
        : r == -EACCES || r == -EPERM ? "permission denied; moving "
                                        "processes needs root"
        : r == -EBUSY ? "the cgroup has controllers enabled for its "
                        "children, and cgroup v2 keeps processes in leaf "
                        "cgroups only"
        : r == -EMEDIUMTYPE ? "its cgroup.procs is not the kernel's (a file "
                              "mounted over it?)"
                            : JC_STRERROR(-r);
    jc_logf(set->env.log, JC_LOG_ERR, "%s: cannot move process %d into %s: %s",
            source, (int)pid, where, hint);
    return r;
  }
  return 0;
}

typedef struct {
  const jc_managed_set *set;
  const jc_managed_state *st;
  const char *top; /* the top level we created: never a way out */
  int parentfd;    /* its parent, the last resort */
} evacuation;

/* Moves pid into the cgroup at relpath, unless that is one we remove. */
static int move_to(const evacuation *e, pid_t pid, const char *relpath) {
  if (jc_hier_is_within(relpath, e->top))
    return -EBUSY;
  int fd = jc_hier_open_relpath(e->set->env.rootfd, relpath, NULL, 0);
  int r = fd < 0 ? fd : jc_cgwrite_attach(fd, pid);
  if (fd >= 0)
    close(fd);
  return r;
}

/* Back where it came from, or where the first process we moved came
 * from, or to the parent of what we created. */
static void move_out(pid_t pid, void *ctx) {
  const evacuation *e = ctx;
  const jc_managed_state *st = e->st;
  for (size_t k = 0; k < st->moved_count; k++)
    if (st->moved[k].pid == pid && move_to(e, pid, st->moved[k].origin) == 0)
      return;
  if (st->moved_count && move_to(e, pid, st->moved[0].origin) == 0)
    return;
  if (e->parentfd >= 0)
    (void)jc_cgwrite_attach(e->parentfd, pid); /* may have exited: fine */
}

int jc_attach_evacuate(const jc_managed_set *set, size_t b, int cgfd,
                       const char *top, int parentfd) {
  evacuation e = {set, &set->block[b], top, parentfd};
  return jc_cgwrite_evacuate(cgfd, move_out, &e);
}

void jc_attach_forget(jc_managed_state *st) {
  for (size_t k = 0; k < st->moved_count; k++) {
    jc_proc_hold_release(&st->moved[k].hold);
    free(st->moved[k].origin);
  }
  free(st->moved);
  st->moved = NULL;
  st->moved_count = 0;
}
