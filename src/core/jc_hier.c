/*
 * jc_hier — see jc_hier.h.
 */
#include "jc_hier.h"
#include "jc_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define WHY(...) (snprintf(why, n, __VA_ARGS__))

unsigned jc_ctrl_bit(const char *name) {
  static const struct {
    const char *name;
    unsigned bit;
  } known[] = {{"cpu", JC_CTRL_CPU},
               {"memory", JC_CTRL_MEMORY},
               {"io", JC_CTRL_IO},
               {"pids", JC_CTRL_PIDS}};
  for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
    if (strcmp(name, known[i].name) == 0)
      return known[i].bit;
  return 0;
}

int jc_hier_open_file(int dirfd, const char *name, bool check_type) {
  /* O_NONBLOCK: a FIFO where a cgroup file belongs must not hang the
   * caller in open() (a copy of a tree can hold anything). */
  int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    return -errno;
  struct stat st;
  if (check_type && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
    close(fd);
    return -EMEDIUMTYPE;
  }
  return fd;
}

int jc_hier_open_file_rw(int dirfd, const char *name) {
  if (!jc_hier_is_cgroupfs(dirfd))
    return -EROFS;
  int fd = openat(dirfd, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    return -errno;
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return -EMEDIUMTYPE;
  }
  return fd;
}

ssize_t jc_read_file_at(int dirfd, const char *name, char *buf, size_t size) {
  int fd = jc_hier_open_file(dirfd, name, true);
  if (fd < 0)
    return fd;
  ssize_t len = read(fd, buf, size);
  int saved = errno;
  close(fd);
  return len < 0 ? -saved : len;
}

int jc_hier_find_mount(const char *mountinfo, char *ret_path, size_t size) {
  int fd = open(mountinfo, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  /* mountinfo can be long on container hosts: scan it line by line. */
  char buf[8192];
  size_t have = 0;
  int result = -ENOENT;
  for (;;) {
    ssize_t got = read(fd, buf + have, sizeof(buf) - have);
    if (got < 0) {
      result = -errno;
      break;
    }
    have += (size_t)got;
    char *line = buf, *nl;
    while ((nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
      if (jc_parse_mountinfo_line(line, (size_t)(nl - line), ret_path, size) ==
          1) {
        close(fd);
        return 0;
      }
      line = nl + 1;
    }
    have -= (size_t)(line - buf);
    memmove(buf, line, have);
    if (got == 0 || have == sizeof(buf)) /* end, or a line too long */
      break;
  }
  close(fd);
  return result;
}

bool jc_hier_is_cgroupfs(int fd) {
  struct statfs fs;
  return fstatfs(fd, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

int jc_hier_verify_v2(int dirfd) {
  struct statfs fs;
  if (fstatfs(dirfd, &fs) < 0)
    return -errno;
  if (fs.f_type == CGROUP2_SUPER_MAGIC)
    return 0;
  struct stat st;
  if (fstatat(dirfd, "cgroup.controllers", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISREG(st.st_mode))
    return 0;
  return -EMEDIUMTYPE;
}

int jc_hier_controllers(int dirfd, const char *file, unsigned *ret_mask) {
  char buf[512];
  ssize_t len = jc_read_file_at(dirfd, file, buf, sizeof(buf) - 1);
  if (len < 0)
    return (int)len;
  buf[len] = '\0';
  unsigned mask = 0;
  char *save = NULL;
  for (char *w = strtok_r(buf, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
    mask |= jc_ctrl_bit(w);
  *ret_mask = mask;
  return 0;
}

/* Opens (optionally creating) one level below dirfd, explaining failures. */
static int open_level(int dirfd, const char *level, bool create, bool *created,
                      char *why, size_t n) {
  if (create && mkdirat(dirfd, level, 0755) == 0)
    *created = true;
  else if (create && errno != EEXIST)
    return WHY("cannot create \"%s\": %s", level, strerror(errno)), -errno;
  int fd = openat(dirfd, level, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                    O_CLOEXEC);
  if (fd >= 0)
    return fd;
  int e = errno;
  struct stat st;
  if ((e == ELOOP || e == ENOTDIR) &&
      fstatat(dirfd, level, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK(st.st_mode))
    WHY("\"%s\" is a symlink; paths must stay inside CgroupRoot", level);
  else if (e == ENOTDIR)
    WHY("\"%s\" is not a directory", level);
  else
    WHY("cannot open \"%s\": %s", level, strerror(e));
  return -e;
}

/* Opens relpath level by level; creates missing levels when asked. */
static int walk_relpath(int rootfd, const char *relpath, bool create,
                        size_t *created_levels, char *why, size_t n) {
  char copy[4096];
  if (strlen(relpath) >= sizeof(copy))
    return WHY("path too long"), -ENAMETOOLONG;
  strcpy(copy, relpath);
  int fd = dup(rootfd);
  if (fd < 0)
    return WHY("%s", strerror(errno)), -errno;
  char *save = NULL;
  for (char *level = strtok_r(copy, "/", &save); level;
       level = strtok_r(NULL, "/", &save)) {
    bool created = false;
    int next = open_level(fd, level, create, &created, why, n);
    close(fd);
    if (next < 0)
      return next;
    if (created)
      (*created_levels)++;
    fd = next;
  }
  return fd;
}

int jc_hier_open_relpath(int rootfd, const char *relpath, char *why,
                         size_t n) {
  return walk_relpath(rootfd, relpath, false, NULL, why, n);
}

int jc_hier_mkdirs(int rootfd, const char *relpath, size_t *ret_created,
                   char *why, size_t n) {
  size_t created = 0;
  int fd = walk_relpath(rootfd, relpath, true, &created, why, n);
  if (fd < 0) {
    jc_hier_rmdirs(rootfd, relpath, created);
    return fd;
  }
  close(fd);
  *ret_created = created;
  return 0;
}

int jc_hier_rmdirs(int rootfd, const char *relpath, size_t levels) {
  char copy[4096];
  if (strlen(relpath) >= sizeof(copy))
    return -ENAMETOOLONG;
  strcpy(copy, relpath);
  int result = 0;
  for (size_t i = 0; i < levels; i++) {
    if (unlinkat(rootfd, copy, AT_REMOVEDIR) < 0 && result == 0)
      result = -errno;
    char *slash = strrchr(copy, '/');
    if (!slash)
      break;
    *slash = '\0';
  }
  return result;
}

static int write_pid(int cgfd, pid_t pid) {
  int fd = openat(cgfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  char text[32];
  int len = snprintf(text, sizeof(text), "%d\n", (int)pid);
  ssize_t w = write(fd, text, (size_t)len);
  int saved = errno;
  close(fd);
  return w == len ? 0 : -(w < 0 ? saved : EIO);
}

int jc_hier_attach(int cgfd, pid_t pid) { return write_pid(cgfd, pid); }

int jc_hier_read_pid_file(const char *path, pid_t *ret_pid) {
  char buf[64];
  ssize_t len = jc_read_file_at(AT_FDCWD, path, buf, sizeof(buf));
  if (len < 0)
    return (int)len;
  uint64_t pid;
  if (len == (ssize_t)sizeof(buf) || jc_parse_single(buf, (size_t)len, &pid) < 0 ||
      pid < 1 || pid > 4194304)
    return -EINVAL;
  *ret_pid = (pid_t)pid;
  return 0;
}

/* Calls fn for every pid of a cgroup.procs text. */
static void each_pid(const char *buf, size_t len,
                     void (*fn)(pid_t pid, void *ctx), void *ctx) {
  for (const char *p = buf, *end = buf + len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t linelen = nl ? (size_t)(nl - p) : (size_t)(end - p);
    uint64_t pid;
    if (jc_parse_single(p, linelen, &pid) == 0 && pid >= 1 && pid <= 4194304)
      fn((pid_t)pid, ctx);
    p += linelen + 1;
  }
}

static void move_pid(pid_t pid, void *ctx) {
  (void)write_pid(*(const int *)ctx, pid); /* may have exited: fine */
}

int jc_hier_evacuate(int cgfd, int parentfd) {
  /* Processes may fork while we move them: retry a bounded number of times. */
  for (int round = 0; round < 16; round++) {
    char buf[65536];
    ssize_t len = jc_read_file_at(cgfd, "cgroup.procs", buf, sizeof(buf));
    if (len < 0)
      return (int)len;
    if (len == 0)
      return 0;
    each_pid(buf, (size_t)len, move_pid, &parentfd);
  }
  return -EBUSY;
}

static void signal_pid(pid_t pid, void *ctx) {
  (void)kill(pid, *(const int *)ctx); /* may have exited: fine */
}

int jc_hier_signal(int cgfd, int sig) {
  char buf[65536];
  ssize_t len = jc_read_file_at(cgfd, "cgroup.procs", buf, sizeof(buf));
  if (len < 0)
    return (int)len;
  each_pid(buf, (size_t)len, signal_pid, &sig);
  return 0;
}
