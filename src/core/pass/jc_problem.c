/*
 * jc_problem — see jc_problem.h.  Nothing here runs in a healthy read
 * pass: every function is reached only when a file failed, so clarity
 * wins over speed (a few extra system calls to find the right words).
 */
#include "jc_problem.h"

#include "jc_hier.h"
#include "jc_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* Problem bits: one per file, then one per missing controller. */
#define JC_PROBLEM_FILE(f) (1u << (f))
#define JC_PROBLEM_CTRL(bit) ((bit) << JC_FILE_COUNT)
_Static_assert(JC_FILE_COUNT + JC_CTRL_COUNT <= 32, "problem bits fit");

/* A parent whose children lack a controller, and which controllers it was
 * told about: the remedy is one line per parent, not one per child. */
struct jc_told_parent {
  char *relpath;
  unsigned ctrls;
};

/* Logs a problem of t once; its bit stays set until the problem is over. */
static void complain(jc_collector *c, jc_tracked *t, int level, uint32_t bit,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void complain(jc_collector *c, jc_tracked *t, int level, uint32_t bit,
                     const char *fmt, ...) {
  if (t->problems & bit)
    return;
  t->problems |= bit;
  va_list ap;
  va_start(ap, fmt);
  jc_vlogf(&c->log, level, fmt, ap);
  va_end(ap);
}

/* Does the cgroup directory still exist?  (A file of it went missing.)
 * Through its kept descriptor when there is one: a cgroup re-created
 * under the same path is another cgroup. */
static bool still_exists(const jc_collector *c, const jc_tracked *t) {
  char path[PATH_MAX];
  int dirfd;
  const char *procs =
      jc_tracked_file(c, t, "cgroup.procs", path, sizeof(path), &dirfd);
  return faccessat(dirfd, procs, F_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW) == 0;
}

static struct jc_told_parent *told_find(jc_problem_memory *p,
                                        const char *relpath) {
  for (size_t i = 0; i < p->told_count; i++)
    if (strcmp(p->told[i].relpath, relpath) == 0)
      return &p->told[i];
  return NULL;
}

/* Records that relpath was told about ctrl; false when it already was
 * (or when memory is short: then saying it again is the lesser harm). */
static bool told_first_time(jc_collector *c, const char *relpath,
                            unsigned ctrl) {
  jc_problem_memory *ps = &c->problems;
  struct jc_told_parent *p = told_find(ps, relpath);
  if (p) {
    bool first = !(p->ctrls & ctrl);
    p->ctrls |= ctrl;
    return first;
  }
  struct jc_told_parent *grown =
      realloc(ps->told, (ps->told_count + 1) * sizeof(*grown));
  if (!grown)
    return true;
  ps->told = grown;
  char *copy = strdup(relpath);
  if (!copy)
    return true;
  ps->told[ps->told_count++] = (struct jc_told_parent){copy, ctrl};
  return true;
}

/* Is t a threaded cgroup?  Domain controllers (memory, io) have no files
 * in threaded cgroups even when the parent enables them. */
static bool is_threaded(const jc_collector *c, const jc_tracked *t) {
  char type[PATH_MAX], text[32];
  jc_hier_join(t->relpath, "cgroup.type", type, sizeof(type));
  ssize_t len = jc_hier_read_file_at(c->rootfd, type, text, sizeof(text) - 1);
  return len > 0 && strncmp(text, "threaded", 8) == 0;
}

/*
 * A controller file is missing from a cgroup of a hierarchy that has the
 * controller.  The usual reason is that the parent does not enable it for
 * its children: a NOTICE with the remedy, once per parent (healthy systemd
 * hosts look like this: user managers do not hand io down to their
 * session cgroups).  When the parent does enable it, the remedy would be
 * wrong advice: say what else explains it.
 */
static void controller_missing(jc_collector *c, jc_tracked *t, jc_file_id f) {
  const jc_file_info *fi = &jc_sample_files[f];
  unsigned ctrl = jc_hier_ctrl_bit(fi->controller);
  if (t->problems & (JC_PROBLEM_CTRL(ctrl) | JC_PROBLEM_FILE(f)))
    return; /* said already (for this cgroup or its parent) */
  char parent[PATH_MAX], control[PATH_MAX], where[PATH_MAX], file[PATH_MAX];
  jc_hier_parent_of(t->relpath, parent, sizeof(parent));
  jc_hier_join(parent, "cgroup.subtree_control", control, sizeof(control));
  jc_hier_join(c->root, parent, where, sizeof(where));
  jc_hier_join(c->root, t->relpath, file, sizeof(file));
  unsigned enabled = 0;
  int r = jc_hier_controllers(c->rootfd, control, &enabled);
  if (r == -ENOENT)
    r = 0; /* a copy of a tree without the file: nothing is enabled */
  if (r < 0) {
    complain(c, t, JC_LOG_WARNING, JC_PROBLEM_CTRL(ctrl),
             "%s/%s is missing, and %s/cgroup.subtree_control cannot be read "
             "to tell why: %s",
             file, fi->name, where, JC_STRERROR(-r));
  } else if (!(enabled & ctrl)) {
    t->problems |= JC_PROBLEM_CTRL(ctrl);
    if (told_first_time(c, parent, ctrl))
      jc_logf(&c->log, JC_LOG_NOTICE,
              "controller \"%s\" is not enabled for the children of %s; "
              "enable it with: echo \"+%s\" > %s/cgroup.subtree_control",
              fi->controller, where, fi->controller, where);
  } else if (is_threaded(c, t)) {
    complain(c, t, JC_LOG_NOTICE, JC_PROBLEM_CTRL(ctrl),
             "%s is a threaded cgroup and \"%s\" is not a threaded "
             "controller: its values are those of the domain cgroup above",
             file, fi->controller);
  } else {
    complain(c, t, JC_LOG_WARNING, JC_PROBLEM_CTRL(ctrl),
             "%s lacks %s although %s enables \"%s\" for its children: %s",
             file, fi->name, where, fi->controller,
             fi->missing_hint ? fi->missing_hint
                              : "this kernel does not provide it");
  }
}

/* What is where a cgroup file should be, for the warning. */
static const char *kind_of(const jc_collector *c, const jc_tracked *t,
                           jc_file_id f) {
  char path[PATH_MAX];
  struct stat st;
  jc_hier_join(t->relpath, jc_sample_files[f].name, path, sizeof(path));
  if (fstatat(c->rootfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return "not a regular file";
  return S_ISLNK(st.st_mode)    ? "a symlink"
         : S_ISFIFO(st.st_mode) ? "a FIFO"
         : S_ISSOCK(st.st_mode) ? "a socket"
         : S_ISCHR(st.st_mode)  ? "a character device"
         : S_ISBLK(st.st_mode)  ? "a block device"
         : S_ISDIR(st.st_mode)  ? "a directory"
                                : "not a regular file";
}

static bool not_a_file(int err) {
  return err == -ELOOP || err == -ENXIO || err == -EMEDIUMTYPE;
}

bool jc_problem_read_failed(jc_collector *c, jc_tracked *t, jc_file_id f,
                            int err) {
  const jc_file_info *fi = &jc_sample_files[f];
  if (err == -ENODEV || (err == -ENOENT && !still_exists(c, t)))
    return false;
  char where[PATH_MAX];
  jc_hier_join(c->root, t->relpath, where, sizeof(where));
  if (err == -ENOENT) {
    t->absent |= 1u << f;
    /* A file read for NotifyOOM alone (Collect has no memory values): its
     * cgroup simply has no OOM notifications. */
    bool expected = fi->optional || (!t->relpath[0] && fi->absent_at_root) ||
                    !(c->collect_files & (1u << f));
    if (expected)
      return true;
    if (fi->controller)
      controller_missing(c, t, f);
    else
      complain(c, t, JC_LOG_WARNING, JC_PROBLEM_FILE(f), "%s/%s is missing%s%s",
               where, fi->name, fi->missing_hint ? ": " : "",
               fi->missing_hint ? fi->missing_hint : "");
  } else if (not_a_file(err)) {
    complain(c, t, JC_LOG_WARNING, JC_PROBLEM_FILE(f),
             "%s/%s is %s, not a cgroup file; its values are skipped", where,
             fi->name, kind_of(c, t, f));
  } else {
    complain(c, t, JC_LOG_WARNING, JC_PROBLEM_FILE(f),
             "cannot read %s/%s: %s%s", where, fi->name, JC_STRERROR(-err),
             err == -EACCES ? "; run as root, or give this user read access "
                              "to the cgroup tree"
                            : "");
  }
  return true;
}

void jc_problem_parse_failed(jc_collector *c, jc_tracked *t, jc_file_id f,
                             const jc_sample *s, int err) {
  char where[PATH_MAX];
  jc_hier_join(c->root, t->relpath, where, sizeof(where));
  if (err == -EOVERFLOW) {
    /* A valid value, past what DERIVE holds (docs/metrics.md); nothing to
     * say when the file is read for NotifyOOM alone. */
    if (c->collect_files & (1u << f))
      complain(c, t, JC_LOG_WARNING, JC_PROBLEM_FILE(f),
               "%s/%s holds a counter beyond 2^63 - 1, more than collectd's "
               "DERIVE holds (%s): its list is not sent until it is back in "
               "range; the file's other values are",
               where, jc_sample_files[f].name, JC_STRERROR(-err));
    return;
  }
  complain(c, t, JC_LOG_WARNING, JC_PROBLEM_FILE(f),
           "%s/%s is malformed (%s); %s until it is valid again", where,
           jc_sample_files[f].name, JC_STRERROR(-err),
           jc_sample_has(s, f) ? "its malformed lines are skipped"
                                        : "its values are skipped");
}

void jc_problem_over(jc_collector *c, jc_tracked *t, jc_file_id f) {
  t->problems &= ~JC_PROBLEM_FILE(f);
  char where[PATH_MAX];
  jc_hier_join(c->root, t->relpath, where, sizeof(where));
  jc_logf(&c->log, JC_LOG_INFO, "%s/%s can be read again", where,
          jc_sample_files[f].name);
}

void jc_problem_end_pass(jc_collector *c) {
  jc_problem_memory *p = &c->problems;
  if (c->starved == p->starved_reported)
    return;
  if (c->starved) {
    struct rlimit rl;
    long soft = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                    ? (long)rl.rlim_cur
                    : -1;
    jc_logf(&c->log, JC_LOG_WARNING,
            "%zu of %zu cgroups could not be read in full: no file descriptor "
            "to spare (the process has a soft RLIMIT_NOFILE of %ld, the "
            "plugin keeps at most %ld of them open, and its other plugins "
            "use the rest)%s",
            c->starved, c->tracked_count, soft, c->fds.limit, JC_FD_REMEDY);
  } else {
    jc_logf(&c->log, JC_LOG_INFO,
            "every cgroup can be read in full again (descriptors to spare)");
  }
  p->starved_reported = c->starved;
}

/* The memory of what was said stays as small as the tree. */
void jc_problem_walked(jc_collector *c) {
  jc_problem_memory *ps = &c->problems;
  size_t kept = 0;
  for (size_t i = 0; i < ps->told_count; i++) {
    struct jc_told_parent *p = &ps->told[i];
    if (!p->relpath[0] ||
        faccessat(c->rootfd, p->relpath, F_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW) == 0)
      ps->told[kept++] = *p;
    else
      free(p->relpath);
  }
  ps->told_count = kept;
}

void jc_problem_free(jc_collector *c) {
  jc_problem_memory *ps = &c->problems;
  for (size_t i = 0; i < ps->told_count; i++)
    free(ps->told[i].relpath);
  free(ps->told);
  *ps = (jc_problem_memory){0};
}
