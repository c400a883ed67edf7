/*
 * jc_proc — what /proc says about a process the plugin is asked to move
 * into a cgroup, and the verdict: never PID 1 (moving init moves the whole
 * system's accounting, and on a container host it is the container), never
 * a kernel thread, never a process outside CgroupRoot's part of the
 * hierarchy (a CgroupRoot below the mount point is a promise to stay
 * there).
 *
 * Functions return 0 or a negative errno and never log.
 */
#ifndef JC_PROC_H
#define JC_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* 1 for a kernel thread (PF_KTHREAD in /proc/PID/stat), 0 if not. */
int jc_proc_is_kernel_thread(pid_t pid);

/* The cgroup v2 path of pid: its "0::" line of /proc/PID/cgroup. */
int jc_proc_cgroup(pid_t pid, char *ret_path, size_t size);

/*
 * May pid be moved into a cgroup of the part of the hierarchy at path
 * root_cgroup (jc_hier_cgroup_of)?  0; -EPERM with the reason in why
 * ("it is a kernel thread"); -ESRCH when there is no such process.
 */
int jc_proc_may_move(pid_t pid, const char *root_cgroup, char *why, size_t n);

#endif
