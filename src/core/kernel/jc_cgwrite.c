/*
 * jc_cgwrite — see jc_cgwrite.h.
 */
#include "jc_cgwrite.h"

#include "jc_hier.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int jc_cgwrite_check_dir(int fd) {
  struct stat st;
  if (fstat(fd, &st) < 0)
    return -errno;
  if (!S_ISDIR(st.st_mode) || !jc_hier_is_cgroupfs(fd))
    return -EMEDIUMTYPE;
  return 0;
}

int jc_cgwrite_id(int fd, uint64_t *ret_id) {
  struct stat st;
  if (fstat(fd, &st) < 0)
    return -errno;
  *ret_id = (uint64_t)st.st_ino;
  return 0;
}

int jc_cgwrite_open(int cgfd, const char *name, int flags) {
  int r = jc_cgwrite_check_dir(cgfd);
  if (r < 0)
    return r;
  /* O_NONBLOCK: whatever is there, opening it must not wait (a FIFO). */
  int fd = openat(cgfd, name,
                  flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  struct stat st;
  if (fstat(fd, &st) < 0)
    r = -errno;
  else if (!S_ISREG(st.st_mode) || !jc_hier_is_cgroupfs(fd))
    r = -EMEDIUMTYPE;
  if (r < 0) {
    close(fd);
    return r;
  }
  return fd;
}

int jc_cgwrite_mkdir(int parentfd, const char *name, uint64_t *ret_id) {
  int r = jc_cgwrite_check_dir(parentfd);
  if (r < 0)
    return r;
  if (mkdirat(parentfd, name, 0755) < 0)
    return -errno;
  int fd = jc_hier_open_level(parentfd, name);
  if (fd < 0)
    return fd;
  uint64_t id;
  r = jc_cgwrite_check_dir(fd);
  if (r == 0)
    r = jc_cgwrite_id(fd, &id);
  if (r < 0) {
    close(fd);
    return r;
  }
  *ret_id = id;
  return fd;
}

int jc_cgwrite_rmdir(int parentfd, const char *name, uint64_t id) {
  int r = jc_cgwrite_check_dir(parentfd);
  if (r < 0)
    return r;
  int fd = jc_hier_open_level(parentfd, name);
  if (fd < 0)
    return fd;
  uint64_t now;
  r = jc_cgwrite_id(fd, &now);
  close(fd);
  if (r < 0)
    return r;
  if (now != id)
    return -ESTALE;
  return unlinkat(parentfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

/* Writes text to fd in one write(): the kernel takes one request per
 * write on cgroup control files. */
static int write_all(int fd, const char *text, size_t len) {
  ssize_t w = write(fd, text, len);
  if (w < 0)
    return -errno;
  return (size_t)w == len ? 0 : -EIO;
}

int jc_cgwrite_attach(int cgfd, pid_t pid) {
  int fd = jc_cgwrite_open(cgfd, "cgroup.procs", O_WRONLY);
  if (fd < 0)
    return fd;
  char text[32];
  int len = snprintf(text, sizeof(text), "%d\n", (int)pid);
  int r = write_all(fd, text, (size_t)len);
  close(fd);
  return r;
}

int jc_cgwrite_enable(int cgfd, unsigned mask) {
  if (!mask)
    return 0;
  char line[128];
  jc_hier_ctrl_format(mask, line, sizeof(line));
  int fd = jc_cgwrite_open(cgfd, "cgroup.subtree_control", O_WRONLY);
  if (fd < 0)
    return fd;
  int r = write_all(fd, line, strlen(line));
  close(fd);
  return r;
}

int jc_cgwrite_evacuate(int cgfd, void (*move)(pid_t pid, void *ctx),
                        void *ctx) {
  int r = jc_cgwrite_check_dir(cgfd);
  /* Each round moves every process cgroup.procs lists (the whole list,
   * however many pages it takes); processes may fork while we move them:
   * a bounded number of rounds, until a round finds none. */
  for (int round = 0; r == 0 && round < 16; round++) {
    int found = jc_hier_each_pid(cgfd, move, ctx);
    if (found <= 0)
      return found;
  }
  return r < 0 ? r : -EBUSY;
}
