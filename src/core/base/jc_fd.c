#include "jc_fd.h"

#include <fcntl.h>
#include <sys/select.h>
#include <unistd.h>

int jc_fd_above_select(int fd) {
  if (fd < JC_FD_LOW_SHARE || fd >= FD_SETSIZE)
    return fd;
  /* EINVAL: the soft limit is FD_SETSIZE or less; EMFILE: none free */
  int high = fcntl(fd, F_DUPFD_CLOEXEC, FD_SETSIZE);
  if (high < 0)
    return fd;
  close(fd);
  return high;
}
