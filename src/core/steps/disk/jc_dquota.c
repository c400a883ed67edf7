/*
 * jc_dquota — see jc_dquota.h.  quotactl_fd names the file system by a
 * descriptor of any of its files: no block device node is needed (Docker
 * makes one, mknod, to call quotactl), which a read-only host mount and a
 * collectd without CAP_MKNOD could not.
 */
#include "jc_dquota.h"

#include <errno.h>
#include <linux/fs.h>
#include <linux/quota.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int jc_dquota_project(int fd, uint32_t *ret_projid) {
  struct fsxattr fa;
  if (ioctl(fd, FS_IOC_FSGETXATTR, &fa) < 0)
    return -errno;
  *ret_projid = fa.fsx_projid;
  return 0;
}

int jc_dquota_usage(int fd, uint32_t projid, jc_dsize *ret) {
#ifdef SYS_quotactl_fd
  struct if_dqblk q = {0};
  /* QCMD, in unsigned arithmetic: Q_GETQUOTA << 8 overflows an int. */
  unsigned cmd = ((unsigned)Q_GETQUOTA << SUBCMDSHIFT) | (PRJQUOTA & SUBCMDMASK);
  if (syscall(SYS_quotactl_fd, fd, cmd, projid, &q) < 0)
    return -errno;
  if ((q.dqb_valid & (QIF_SPACE | QIF_INODES)) != (QIF_SPACE | QIF_INODES))
    return -ENODATA;
  *ret = (jc_dsize){q.dqb_curspace, q.dqb_curinodes};
  return 0;
#else
  (void)fd, (void)projid, (void)ret;
  return -ENOSYS;
#endif
}
