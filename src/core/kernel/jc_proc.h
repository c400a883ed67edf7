/*
 * jc_proc — what /proc says about a process the plugin is asked to move
 * into a cgroup, and the verdict: never PID 1 (moving init moves the whole
 * system's accounting, and on a container host it is the container), never
 * a kernel thread, never a process outside CgroupRoot's part of the
 * hierarchy (a CgroupRoot below the mount point is a promise to stay
 * there); and the hold that keeps what was checked the process that is
 * moved.
 *
 * Functions return 0 or a negative errno and never log.
 */
#ifndef JC_PROC_H
#define JC_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 1 for a kernel thread (PF_KTHREAD in /proc/PID/stat), 0 if not. */
int jc_proc_is_kernel_thread(pid_t pid);

/* The cgroup v2 path of pid: its "0::" line of /proc/PID/cgroup;
 * jc_proc_cgroup_at: of proc_root/PID/cgroup (NULL: /proc).  -ESRCH when
 * there is no such process. */
int jc_proc_cgroup(pid_t pid, char *ret_path, size_t size);
int jc_proc_cgroup_at(const char *proc_root, pid_t pid, char *ret_path,
                      size_t size);

/* The process's start time (clock ticks since boot: field 22 of
 * proc_root/PID/stat, NULL: /proc), which a pid reused by another
 * process does not share.  -ESRCH when there is no such process. */
#define JC_PROC_STAT_START_TIME 22
int jc_proc_start_time_at(const char *proc_root, pid_t pid, uint64_t *ret);

/* The parsers of those files' text (NUL-terminated), for the fuzz
 * targets: the "0::" line's path (-ENOENT: none; -EINVAL: not absolute;
 * -ENAMETOOLONG), and field n (3: "state", ...) of a stat line as a
 * number (-EINVAL: not one; -ERANGE). */
int jc_proc_parse_cgroup(const char *buf, char *ret_path, size_t size);
int jc_proc_parse_stat_field(const char *buf, int n, uint64_t *ret);

/* The process's resident memory in bytes (/proc/PID/statm). */
int jc_proc_resident(pid_t pid, uint64_t *ret_bytes);

/*
 * May pid be moved into a cgroup of the part of the hierarchy at path
 * root_cgroup (jc_hier_cgroup_of)?  0; -EPERM with the reason in why
 * ("it is a kernel thread"); -ESRCH when there is no such process.
 */
int jc_proc_may_move(pid_t pid, const char *root_cgroup, char *why, size_t n);

/*
 * A hold on a process from its check to its move.  Between the two the
 * process can exit and the kernel give its pid to another, which a move
 * by pid would then move.  The hold is a pidfd (pidfd_open, Linux 5.3),
 * which stays the process's own; where there is none (an older kernel,
 * a seccomp filter, JOULE_CGROUP_NO_PIDFD=1), the start time of the
 * process (field 22 of /proc/PID/stat), which a process that takes the
 * pid over does not share.  The hold owns the pidfd until released.
 */
typedef struct {
  pid_t pid;
  int pidfd;           /* -1: held by its start time */
  int no_pidfd;        /* why not: pidfd_open's errno, or -1 when turned
                          off by JOULE_CGROUP_NO_PIDFD=1 */
  uint64_t start_time; /* clock ticks after boot (without a pidfd) */
} jc_proc_hold;

/* Takes hold of process pid: 0, -ESRCH when there is none. */
int jc_proc_hold_take(pid_t pid, jc_proc_hold *ret);

/* Is the held process still there, under its pid?  0; -ESRCH when it has
 * exited (and its pid may be another process's now).  Right before a
 * move, so that what is moved is what was checked. */
int jc_proc_hold_check(const jc_proc_hold *h);

/* How h holds its process, for the log: "a pidfd", "its start time
 * 123456 (no pidfd: Function not implemented)". */
void jc_proc_hold_describe(const jc_proc_hold *h, char *out, size_t size);

/* Lets go: closes the pidfd.  Safe to call again. */
void jc_proc_hold_release(jc_proc_hold *h);

#endif
