/*
 * jc_dquota — a directory's project and the usage its file system keeps
 * for that project (Collect "disk": jc_disk; docs/metrics.md, Disk).
 *
 * XFS with project quotas (prjquota) and ext4 with the project feature
 * and quota on count, per project id, the allocated bytes and the inodes
 * of every file that carries the id; a directory with PROJINHERIT hands
 * its id to what is made below it.  Docker's overlay2 (its size option)
 * and containers/storage (Podman, CRI-O: every layer, on such a file
 * system) give each container's layer directory a project of its own, and
 * the kubelet each emptyDir volume (LocalStorageCapacityIsolationFSQuota
 * Monitoring): the file system has the figure exact and at once, where
 * a walk would take passes.
 *
 * Both return 0 or a negative errno and never log.
 */
#ifndef JC_DQUOTA_H
#define JC_DQUOTA_H

#include "jc_dwalk.h"

#include <stdint.h>

/* The project id of the directory open at fd (FS_IOC_FSGETXATTR): 0 with
 * *ret_projid (0: none), -ENOTTY or -EOPNOTSUPP where its file system
 * keeps none. */
int jc_dquota_project(int fd, uint32_t *ret_projid);

/*
 * The usage the file system of fd keeps for project projid
 * (quotactl_fd, Q_GETQUOTA of PRJQUOTA): 0 with *ret (allocated bytes,
 * inodes); -ENOSYS before Linux 5.14, -EPERM without CAP_SYS_ADMIN,
 * -ESRCH where project quotas are not on (or not kept), -ENODATA when the
 * answer has no usage, another negative errno of quotactl_fd.
 */
int jc_dquota_usage(int fd, uint32_t projid, jc_dsize *ret);

#endif
