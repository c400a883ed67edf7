/*
 * jc_hier — see jc_hier.h.
 */
#include "jc_hier.h"
#include "jc_log.h"
#include "jc_parse.h"

#include <errno.h>
#include <limits.h>
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

/* In the order of JC_CTRL_* bits. */
static const char *const ctrl_names[JC_CTRL_COUNT] = {"cpu", "memory", "io",
                                                      "pids"};

unsigned jc_hier_ctrl_bit(const char *name) {
  for (unsigned i = 0; i < JC_CTRL_COUNT; i++)
    if (strcmp(name, ctrl_names[i]) == 0)
      return 1u << i;
  return 0;
}

const char *jc_hier_ctrl_name(unsigned bit) {
  for (unsigned i = 0; i < JC_CTRL_COUNT; i++)
    if (bit == 1u << i)
      return ctrl_names[i];
  return "?";
}

void jc_hier_ctrl_format(unsigned mask, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (unsigned i = 0; i < JC_CTRL_COUNT && len < size; i++)
    if (mask & (1u << i))
      len += (size_t)snprintf(buf + len, size - len, "%s+%s", len ? " " : "",
                              ctrl_names[i]);
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

/* One read(), again after a signal. */
static ssize_t read_some(int fd, char *buf, size_t size) {
  ssize_t got;
  while ((got = read(fd, buf, size)) < 0 && errno == EINTR)
    ;
  return got < 0 ? -errno : got;
}

/* Reads fd into buf from *have on: 1 at its end, 0 when buf is full
 * first (more may follow). */
static int fill(int fd, char *buf, size_t size, size_t *have) {
  while (*have < size) {
    ssize_t got = read_some(fd, buf + *have, size - *have);
    if (got <= 0)
      return got < 0 ? (int)got : 1;
    *have += (size_t)got;
  }
  return 0;
}

/* After a full buffer: 1 at the end, -EFBIG when more follows. */
static int at_end(int fd) {
  char probe;
  ssize_t got = read_some(fd, &probe, 1);
  return got < 0 ? (int)got : got == 0 ? 1 : -EFBIG;
}

ssize_t jc_hier_read_fd(int fd, char *buf, size_t size) {
  size_t have = 0;
  int r = fill(fd, buf, size, &have);
  if (r == 0)
    r = at_end(fd);
  return r < 0 ? r : (ssize_t)have;
}

ssize_t jc_hier_read_file_at(int dirfd, const char *name, char *buf, size_t size) {
  int fd = jc_hier_open_file(dirfd, name, true);
  if (fd < 0)
    return fd;
  ssize_t len = jc_hier_read_fd(fd, buf, size);
  close(fd);
  return len;
}

/* The whole of fd in a buffer grown to fit, up to max bytes. */
static ssize_t read_fd_grown(int fd, size_t max, char **ret_buf) {
  size_t size = 16384 < max ? 16384 : max, have = 0;
  char *buf = malloc(size);
  if (!buf)
    return -ENOMEM;
  int r;
  while ((r = fill(fd, buf, size, &have)) == 0 && size < max) {
    size_t next = 2 * size < max ? 2 * size : max;
    char *bigger = realloc(buf, next);
    if (!bigger) {
      r = -ENOMEM;
      break;
    }
    buf = bigger;
    size = next;
  }
  if (r == 0)
    r = at_end(fd);
  if (r < 0) {
    free(buf);
    return r;
  }
  *ret_buf = buf;
  return (ssize_t)have;
}

ssize_t jc_hier_read_file_grown(int dirfd, const char *name, size_t max,
                           char **ret_buf) {
  int fd = jc_hier_open_file(dirfd, name, true);
  if (fd < 0)
    return fd;
  ssize_t len = read_fd_grown(fd, max, ret_buf);
  close(fd);
  return len;
}

/* Calls fn for each cgroup2 line of a mountinfo file until it returns
 * non-zero; returns that, or 0 (or -errno) at the end. */
static int each_cgroup2_mount(const char *mountinfo,
                              int (*fn)(const char *root, const char *mnt,
                                        void *ctx),
                              void *ctx) {
  int fd = open(mountinfo, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  /* mountinfo can be long on container hosts: scan it line by line. */
  char buf[8192], root[PATH_MAX], mnt[PATH_MAX];
  size_t have = 0;
  int result = 0;
  while (result == 0) {
    ssize_t got = read(fd, buf + have, sizeof(buf) - have);
    if (got < 0) {
      result = -errno;
      break;
    }
    have += (size_t)got;
    char *line = buf, *nl;
    while (result == 0 &&
           (nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
      if (jc_parse_mountinfo_cgroup2(line, (size_t)(nl - line), root, mnt,
                                     sizeof(mnt)) == 1)
        result = fn(root, mnt, ctx);
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

typedef struct {
  char *path;
  size_t size;
} path_out;

static int take_first(const char *root, const char *mnt, void *ctx) {
  (void)root;
  const path_out *out = ctx;
  if (strlen(mnt) >= out->size)
    return -ENAMETOOLONG;
  strcpy(out->path, mnt);
  return 1;
}

int jc_hier_find_mount(const char *mountinfo, char *ret_path, size_t size) {
  int r = each_cgroup2_mount(mountinfo, take_first,
                             &(path_out){ret_path, size});
  return r == 1 ? 0 : r < 0 ? r : -ENOENT;
}

/* The length of mnt when it is dir or a parent of dir, else 0. */
static size_t holds(const char *mnt, const char *dir) {
  size_t len = strlen(mnt);
  if (strcmp(mnt, "/") == 0)
    return 1;
  return strncmp(dir, mnt, len) == 0 && (dir[len] == '\0' || dir[len] == '/')
             ? len
             : 0;
}

typedef struct {
  const char *dir;
  size_t best; /* length of the longest mount point holding dir */
  char *path;
  size_t size;
  int result;
} cgroup_of_ctx;

static int take_holder(const char *root, const char *mnt, void *ctx) {
  cgroup_of_ctx *q = ctx;
  size_t len = holds(mnt, q->dir);
  if (len <= q->best)
    return 0;
  q->best = len;
  const char *below = q->dir + (strcmp(mnt, "/") == 0 ? 0 : len);
  int n = snprintf(q->path, q->size, "%s%s",
                   strcmp(root, "/") == 0 && below[0] ? "" : root, below);
  q->result = n < 0 || (size_t)n >= q->size ? -ENAMETOOLONG : 0;
  return 0;
}

int jc_hier_cgroup_of(const char *mountinfo, const char *dir, char *ret_path,
                      size_t size) {
  char path[PATH_MAX];
  cgroup_of_ctx q = {dir, 0, path, sizeof(path), -ENOENT};
  int r = each_cgroup2_mount(mountinfo, take_holder, &q);
  if (r < 0)
    return r;
  if (q.result < 0)
    return q.result;
  if (strlen(path) >= size)
    return -ENAMETOOLONG;
  strcpy(ret_path, path);
  return 0;
}

void jc_hier_root_cgroup(int rootfd, const char *root, char *out,
                         size_t size) {
  char real[PATH_MAX];
  if (!jc_hier_is_cgroupfs(rootfd) || !realpath(root, real) ||
      jc_hier_cgroup_of("/proc/self/mountinfo", real, out, size) < 0)
    snprintf(out, size, "/");
}

void jc_hier_parent_of(const char *relpath, char *out, size_t size) {
  const char *slash = strrchr(relpath, '/');
  size_t len = slash ? (size_t)(slash - relpath) : 0;
  if (size == 0)
    return;
  if (len >= size)
    len = size - 1;
  memmove(out, relpath, len); /* out may be relpath itself */
  out[len] = '\0';
}

void jc_hier_join(const char *a, const char *b, char *out, size_t size) {
  snprintf(out, size, "%s%s%s", a, a[0] && b[0] ? "/" : "", b);
}

bool jc_hier_is_below(const char *path, const char *top) {
  size_t n = strlen(top);
  if (n == 0)
    return path[0] != '\0';
  return strncmp(path, top, n) == 0 && path[n] == '/';
}

bool jc_hier_is_within(const char *path, const char *top) {
  return strcmp(path, top) == 0 || jc_hier_is_below(path, top);
}

bool jc_hier_path_within(const char *path, const char *root) {
  /* Outside our cgroup namespace the kernel writes "/../..."; a ".."
   * level never names a cgroup below root. */
  for (const char *p = path; (p = strstr(p, "/..")); p += 3)
    if (p[3] == '\0' || p[3] == '/')
      return false;
  if (path[0] != '/')
    return false;
  if (strcmp(root, "/") == 0)
    return true;
  size_t len = strlen(root);
  return strncmp(path, root, len) == 0 &&
         (path[len] == '\0' || path[len] == '/');
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
  ssize_t len = jc_hier_read_file_at(dirfd, file, buf, sizeof(buf) - 1);
  if (len < 0)
    return (int)len;
  buf[len] = '\0';
  unsigned mask = 0;
  char *save = NULL;
  for (char *w = strtok_r(buf, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
    mask |= jc_hier_ctrl_bit(w);
  *ret_mask = mask;
  return 0;
}

int jc_hier_v1_controllers(const char *proc_cgroups, unsigned *ret_mask) {
  char buf[4096];
  ssize_t len = jc_hier_read_file_at(AT_FDCWD, proc_cgroups, buf,
                                     sizeof(buf) - 1);
  if (len < 0)
    return (int)len;
  buf[len] = '\0';
  unsigned mask = 0;
  char *save = NULL;
  for (char *line = strtok_r(buf, "\n", &save); line;
       line = strtok_r(NULL, "\n", &save)) {
    char name[32];
    unsigned hierarchy, enabled;
    if (line[0] == '#' ||
        sscanf(line, "%31s %u %*u %u", name, &hierarchy, &enabled) != 3 ||
        hierarchy == 0 || !enabled)
      continue;
    mask |= jc_hier_ctrl_bit(strcmp(name, "blkio") == 0 ? "io" : name);
  }
  *ret_mask = mask;
  return 0;
}

/* Opens one level below dirfd, explaining failures. */
static int open_level(int dirfd, const char *level, char *why, size_t n) {
  int fd = jc_hier_open_level(dirfd, level);
  if (fd >= 0 || fd == -ENOENT)
    return fd;
  struct stat st;
  if ((fd == -ELOOP || fd == -ENOTDIR) &&
      fstatat(dirfd, level, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK(st.st_mode))
    WHY("\"%s\" is a symlink; paths must stay inside CgroupRoot", level);
  else if (fd == -ENOTDIR)
    WHY("\"%s\" is not a directory", level);
  else
    WHY("cannot open \"%s\": %s", level, JC_STRERROR(-fd));
  return fd;
}

/* Opens relpath level by level; with stop_at_missing, returns the deepest
 * level that exists and counts the levels in *ret_levels. */
static int walk_relpath(int rootfd, const char *relpath, bool stop_at_missing,
                        size_t *ret_levels, char *why, size_t n) {
  char copy[4096];
  if (strlen(relpath) >= sizeof(copy))
    return WHY("path too long"), -ENAMETOOLONG;
  strcpy(copy, relpath);
  int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0)
    return WHY("%s", JC_STRERROR(errno)), -errno;
  size_t levels = 0;
  char *save = NULL;
  for (char *level = strtok_r(copy, "/", &save); level;
       level = strtok_r(NULL, "/", &save)) {
    int next = open_level(fd, level, why, n);
    if (next == -ENOENT && stop_at_missing)
      break;
    close(fd);
    if (next < 0)
      return next == -ENOENT ? (WHY("\"%s\" does not exist", level), next)
                             : next;
    fd = next;
    levels++;
  }
  if (ret_levels)
    *ret_levels = levels;
  return fd;
}

int jc_hier_open_relpath(int rootfd, const char *relpath, char *why,
                         size_t n) {
  return walk_relpath(rootfd, relpath, false, NULL, why, n);
}

int jc_hier_open_existing(int rootfd, const char *relpath, size_t *ret_levels,
                          char *why, size_t n) {
  return walk_relpath(rootfd, relpath, true, ret_levels, why, n);
}

int jc_hier_open_level(int dirfd, const char *name) {
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return fd < 0 ? -errno : fd;
}

/* cgroup.procs of the most processes a system can have: PID_MAX_LIMIT
 * (4194304) pids of up to 7 digits and a newline each. */
#define PROCS_MAX (4194304u * 8u)

int jc_hier_each_pid(int cgfd, void (*fn)(pid_t pid, void *ctx), void *ctx) {
  /* All of it before the first call: fn may move a process out, and the
   * list is not to change under a reading that has not ended. */
  char *buf;
  ssize_t len = jc_hier_read_file_grown(cgfd, "cgroup.procs", PROCS_MAX, &buf);
  if (len < 0)
    return (int)len;
  int count = 0;
  for (const char *p = buf, *end = buf + len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t linelen = nl ? (size_t)(nl - p) : (size_t)(end - p);
    uint64_t pid;
    if (jc_parse_single(p, linelen, &pid) == 0 && pid >= 1 &&
        pid <= 4194304) {
      fn((pid_t)pid, ctx);
      count++;
    }
    p += linelen + 1;
  }
  free(buf);
  return count;
}

static void signal_pid(pid_t pid, void *ctx) {
  (void)kill(pid, *(const int *)ctx); /* may have exited: fine */
}

int jc_hier_signal(int cgfd, int sig) {
  int r = jc_hier_each_pid(cgfd, signal_pid, &sig);
  return r < 0 ? r : 0;
}

/* Path order of a walk: a parent before its children, and "/" sorting
 * below every other byte so that "a/b" comes before "a-c". */
int jc_hier_path_cmp(const char *a, const char *b) {
  for (;; a++, b++) {
    int ca = *a == '\0' ? -1 : *a == '/' ? 0 : (unsigned char)*a + 1;
    int cb = *b == '\0' ? -1 : *b == '/' ? 0 : (unsigned char)*b + 1;
    if (ca != cb)
      return ca < cb ? -1 : 1;
    if (ca == -1)
      return 0;
  }
}
