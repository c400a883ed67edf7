/*
 * jc_hier — the cgroup v2 hierarchy itself: finding it, verifying it, and
 * the few writes the plugin makes into cgroups it manages (mkdir, moving
 * processes through cgroup.procs, rmdir).
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
unsigned jc_ctrl_bit(const char *name); /* 0 for controllers we ignore */

/* The first cgroup2 mount point listed in a mountinfo file. */
int jc_hier_find_mount(const char *mountinfo, char *ret_path, size_t size);

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
 * Opens a file of a cgroup for reading: never blocks (O_NONBLOCK), never
 * follows a symlink (-ELOOP).  With check_type, anything but a regular
 * file (a FIFO, socket or device in a copy of a tree) is refused with
 * -EMEDIUMTYPE; cgroupfs holds regular files only, so its callers may skip
 * the check.
 */
int jc_hier_open_file(int dirfd, const char *name, bool check_type);

/*
 * Opens a cgroupfs file for reading and writing: dirfd must be on the
 * kernel's cgroup2 file system (-EROFS otherwise: a copy of a tree is
 * never written), the file must be a regular file reached without a
 * symlink.  For files the plugin writes to between reads (memory.peak).
 */
int jc_hier_open_file_rw(int dirfd, const char *name);

/* One bounded read of a small regular file relative to dirfd (opened with
 * jc_hier_open_file, type checked); returns its length. */
ssize_t jc_read_file_at(int dirfd, const char *name, char *buf, size_t size);

/* Opens relpath under rootfd as a directory without following symlinks. */
int jc_hier_open_relpath(int rootfd, const char *relpath, char *why,
                         size_t n);

/*
 * Creates the missing levels of relpath under rootfd; *ret_created is the
 * number of trailing levels that did not exist (0 when all did).  On
 * failure, the levels it created are removed again.
 */
int jc_hier_mkdirs(int rootfd, const char *relpath, size_t *ret_created,
                   char *why, size_t n);

/* Removes the last `levels` levels of relpath, deepest first. */
int jc_hier_rmdirs(int rootfd, const char *relpath, size_t levels);

/* Moves pid into the cgroup dirfd (writes cgroup.procs). */
int jc_hier_attach(int cgfd, pid_t pid);

/* Reads the pid held in a pid file. -EINVAL when it holds no pid. */
int jc_hier_read_pid_file(const char *path, pid_t *ret_pid);

/* Moves every process of cgroup cgfd into parentfd, bounded retries. */
int jc_hier_evacuate(int cgfd, int parentfd);

/* Sends sig to every process listed in cgfd's cgroup.procs (one read). */
int jc_hier_signal(int cgfd, int sig);

#endif
