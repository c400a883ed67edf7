/*
 * jc_cgwrite — every change the plugin and joule-cgroup make to the cgroup
 * tree, and nothing else: creating and removing cgroups, moving processes
 * (cgroup.procs), handing controllers down (cgroup.subtree_control), and
 * opening any other control file for writing.
 *
 * The trust boundary of the project.  Every function works relative to a
 * directory descriptor, and
 *   - refuses one that is not a directory on the kernel's cgroup2 file
 *     system (-EMEDIUMTYPE): a copy of a tree (test fixtures, a directory
 *     someone else can write) is never written to;
 *   - opens a single path level with O_NOFOLLOW: nothing is written
 *     through a symlink (-ELOOP);
 *   - checks what it opened: a cgroup is a cgroup2 directory, a control
 *     file a regular file on cgroup2 (-EMEDIUMTYPE otherwise, which is
 *     what a file bind-mounted over a control file gives).
 * Functions return 0 (or an fd) or a negative errno and never log.
 */
#ifndef JC_CGWRITE_H
#define JC_CGWRITE_H

#include <stdint.h>
#include <sys/types.h>

/* 0 when fd is a directory on cgroup2, else -EMEDIUMTYPE or -errno. */
int jc_cgwrite_check_dir(int fd);

/* Opens control file `name` of cgroup cgfd with flags (O_WRONLY, O_RDWR)
 * plus O_NOFOLLOW, O_NONBLOCK and O_CLOEXEC; returns the fd. */
int jc_cgwrite_open(int cgfd, const char *name, int flags);

/* Creates cgroup `name` below parentfd and returns its directory fd;
 * ret_id is its inode number, the kernel's cgroup id (never reused while
 * the system runs), for jc_cgwrite_rmdir.  -EEXIST when it exists. */
int jc_cgwrite_mkdir(int parentfd, const char *name, uint64_t *ret_id);

/* Removes the empty cgroup `name` below parentfd, only if it is still the
 * one whose id is `id` (-ESTALE when it was replaced). */
int jc_cgwrite_rmdir(int parentfd, const char *name, uint64_t id);

/* The cgroup id of directory fd. */
int jc_cgwrite_id(int fd, uint64_t *ret_id);

/* Moves pid into cgroup cgfd. */
int jc_cgwrite_attach(int cgfd, pid_t pid);

/* Enables the JC_CTRL_* controllers of mask for the children of cgfd:
 * writes "+cpu +memory ..." to its cgroup.subtree_control.  A mask of 0
 * writes nothing. */
int jc_cgwrite_enable(int cgfd, unsigned mask);

/* Empties cgroup cgfd: calls move (which moves pid out, with
 * jc_cgwrite_attach) for each process listed in its cgroup.procs (all of
 * them, read whole with jc_hier_each_pid), again while they fork, a
 * bounded number of rounds.  -EBUSY when some stay. */
int jc_cgwrite_evacuate(int cgfd, void (*move)(pid_t pid, void *ctx),
                        void *ctx);

#endif
