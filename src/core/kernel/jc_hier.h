/*
 * jc_hier — the cgroup v2 hierarchy itself: finding it, verifying it,
 * walking it and reading it.  What changes it lives in jc_cgwrite.
 *
 * Functions return 0 (or an fd) or a negative errno and never log; where a
 * user-facing explanation is useful they write it to `why`.  All paths
 * below a root are opened component by component with O_NOFOLLOW, so a
 * symlink can never lead outside the root.
 */
#ifndef JC_HIER_H
#define JC_HIER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Controllers whose files we read. */
enum {
  JC_CTRL_CPU = 1u << 0,
  JC_CTRL_MEMORY = 1u << 1,
  JC_CTRL_IO = 1u << 2,
  JC_CTRL_PIDS = 1u << 3,
};
#define JC_CTRL_COUNT 4
unsigned jc_hier_ctrl_bit(const char *name); /* 0 for controllers we ignore */
const char *jc_hier_ctrl_name(unsigned bit); /* "cpu" for JC_CTRL_CPU... */
/* "+cpu +memory": the line that enables mask in cgroup.subtree_control. */
void jc_hier_ctrl_format(unsigned mask, char *buf, size_t size);

/* The first cgroup2 mount point listed in a mountinfo file. */
int jc_hier_find_mount(const char *mountinfo, char *ret_path, size_t size);

/*
 * The path inside the cgroup2 hierarchy ("/", "/system.slice", as
 * /proc/PID/cgroup writes them) of dir, an absolute path without symlinks
 * on a cgroup2 mount listed in mountinfo.  -ENOENT when none holds it.
 */
int jc_hier_cgroup_of(const char *mountinfo, const char *dir, char *ret_path,
                      size_t size);
/* Where CgroupRoot (root, open as rootfd) is in the hierarchy
 * /proc/PID/cgroup writes, from /proc/self/mountinfo: "/" for a tree that
 * is not the kernel's (a copy of a tree, a fixture) or one mountinfo does
 * not place.  Collect "gpu" and "network" place processes with it. */
void jc_hier_root_cgroup(int rootfd, const char *root, char *out,
                         size_t size);

/* Is path (as /proc/PID/cgroup writes it) root itself or below it? */
bool jc_hier_path_within(const char *path, const char *root);

/* Path order of a walk: a parent before its children, "/" below every
 * other byte ("a/b" before "a-c"). */
int jc_hier_path_cmp(const char *a, const char *b);

/* Relative paths below the root ("" is the root itself):
 * "a/b/c" -> "a/b", "a" -> ""; out may be relpath (truncated in place). */
void jc_hier_parent_of(const char *relpath, char *out, size_t size);
/* "a/b", or the one of them that is not empty: relpath/name for
 * openat(rootfd, ...) ("" is the root), root/relpath for messages. */
void jc_hier_join(const char *a, const char *b, char *out, size_t size);
/* Is relative path `path` strictly below `top` ("" is the root: every
 * other path is below it)?  jc_hier_is_within: below it or top itself. */
bool jc_hier_is_below(const char *path, const char *top);
bool jc_hier_is_within(const char *path, const char *top);

/*
 * Is dirfd the directory of a cgroup v2 hierarchy?  True on a cgroup2
 * filesystem, and for a copy of one (test fixtures) that has the v2 file
 * cgroup.controllers.  -EMEDIUMTYPE otherwise (cgroup v1, tmpfs, ...).
 */
int jc_hier_verify_v2(int dirfd);

/* Is fd on the kernel's cgroup2 file system (not a copy of a tree)? */
bool jc_hier_is_cgroupfs(int fd);

/* Parses cgroup.controllers or cgroup.subtree_control of dirfd. */
int jc_hier_controllers(int dirfd, const char *file, unsigned *ret_mask);

/*
 * The controllers a cgroup v1 hierarchy holds, from proc_cgroups (the
 * kernel's /proc/cgroups: a controller with a hierarchy id other than 0
 * is bound to v1 and missing from cgroup v2; "blkio" is v2's io).  On a
 * hybrid host, memory, io and often cpu and pids are.
 */
int jc_hier_v1_controllers(const char *proc_cgroups, unsigned *ret_mask);

/*
 * Opens a file of a cgroup for reading: never blocks (O_NONBLOCK), never
 * follows a symlink (-ELOOP).  With check_type, anything but a regular
 * file (a FIFO, socket or device in a copy of a tree) is refused with
 * -EMEDIUMTYPE; cgroupfs holds regular files only, so its callers may skip
 * the check.
 */
int jc_hier_open_file(int dirfd, const char *name, bool check_type);

/*
 * Reads fd from where it is to its end into buf; returns the length.  The
 * kernel's files of one record per line (cgroup.procs, /proc/vmstat) give
 * about a page per read(), so one read() is not the whole file.  -EFBIG
 * when there is more than size bytes: never a part taken for the whole.
 */
ssize_t jc_hier_read_fd(int fd, char *buf, size_t size);

/* A small regular file relative to dirfd (opened with jc_hier_open_file,
 * type checked), read to its end with jc_hier_read_fd. */
ssize_t jc_hier_read_file_at(int dirfd, const char *name, char *buf, size_t size);

/* The same for a list of any length (cgroup.procs): read into a buffer
 * grown to fit, up to max bytes (-EFBIG beyond), which the caller frees
 * (*ret_buf, set on success only). */
ssize_t jc_hier_read_file_grown(int dirfd, const char *name, size_t max,
                           char **ret_buf);

/* Opens relpath under rootfd as a directory without following symlinks
 * ("" gives a new descriptor of rootfd).  why may be NULL when n is 0. */
int jc_hier_open_relpath(int rootfd, const char *relpath, char *why,
                         size_t n);

/*
 * Opens the deepest level of relpath that exists (a new descriptor of
 * rootfd when the first level is missing); *ret_levels is how many levels
 * exist.  Fails
 * like jc_hier_open_relpath for anything but a missing level.
 */
int jc_hier_open_existing(int rootfd, const char *relpath, size_t *ret_levels,
                          char *why, size_t n);

/* Opens one level `name` below dirfd as a directory, no symlink followed. */
int jc_hier_open_level(int dirfd, const char *name);

/* Calls fn for every pid listed in cgfd's cgroup.procs, read whole
 * first (any length; allocates); returns how many there were. */
int jc_hier_each_pid(int cgfd, void (*fn)(pid_t pid, void *ctx), void *ctx);

/* Sends sig to every process listed in cgfd's cgroup.procs (the whole
 * list, as jc_hier_each_pid reads it). */
int jc_hier_signal(int cgfd, int sig);

#endif
