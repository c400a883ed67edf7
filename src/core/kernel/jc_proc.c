/*
 * jc_proc — see jc_proc.h.
 */
#include "jc_proc.h"

#include "jc_hier.h"
#include "jc_log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WHY(...) (snprintf(why, n, __VA_ARGS__))
#define PF_KTHREAD 0x00200000u /* include/linux/sched.h */

/* <proc_root>/PID/<name> into buf, NUL-terminated; its length. */
static ssize_t read_proc_at(const char *proc_root, pid_t pid, const char *name,
                            char *buf, size_t size) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/%d/%s", proc_root ? proc_root : "/proc",
           (int)pid, name);
  ssize_t len = jc_hier_read_file_at(AT_FDCWD, path, buf, size - 1);
  if (len == -ENOENT)
    return -ESRCH;
  if (len >= 0)
    buf[len] = '\0';
  return len;
}

static ssize_t read_proc(pid_t pid, const char *name, char *buf, size_t size) {
  return read_proc_at(NULL, pid, name, buf, size);
}

int jc_proc_parse_stat_field(const char *buf, int n, uint64_t *ret) {
  /* "pid (comm) state ppid pgrp session tty_nr tpgid flags ...": comm may
   * hold spaces and parentheses, so count from the last ')'. */
  const char *p = strrchr(buf, ')');
  if (!p || n < 3)
    return -EINVAL;
  p++;
  for (int field = 3; field < n; field++) {
    p += strspn(p, " ");
    p += strcspn(p, " ");
  }
  p += strspn(p, " ");
  if (*p < '0' || *p > '9')
    return -EINVAL;
  char *end;
  errno = 0;
  unsigned long long value = strtoull(p, &end, 10);
  if (errno == ERANGE)
    return -ERANGE;
  *ret = value;
  return 0;
}

/* Field n (from 3, "state", on) of /proc/PID/stat as a number. */
static int stat_field_at(const char *proc_root, pid_t pid, int n,
                         uint64_t *ret) {
  char buf[1024];
  ssize_t len = read_proc_at(proc_root, pid, "stat", buf, sizeof(buf));
  if (len < 0)
    return (int)len;
  return jc_proc_parse_stat_field(buf, n, ret);
}

static int stat_field(pid_t pid, int n, uint64_t *ret) {
  return stat_field_at(NULL, pid, n, ret);
}

int jc_proc_resident(pid_t pid, uint64_t *ret_bytes) {
  char buf[256];
  ssize_t len = read_proc(pid, "statm", buf, sizeof(buf));
  if (len < 0)
    return (int)len;
  /* "size resident shared text lib data dt", in pages */
  char *p = buf + strspn(buf, " "), *end;
  p += strcspn(p, " ");
  unsigned long long pages = strtoull(p, &end, 10);
  long page = sysconf(_SC_PAGESIZE);
  if (end == p || page <= 0)
    return -EINVAL;
  *ret_bytes = (uint64_t)pages * (uint64_t)page;
  return 0;
}

int jc_proc_is_kernel_thread(pid_t pid) {
  uint64_t flags;
  int r = stat_field(pid, 9, &flags);
  if (r < 0)
    return r;
  return (flags & PF_KTHREAD) ? 1 : 0;
}

int jc_proc_parse_cgroup(const char *buf, char *ret_path, size_t size) {
  for (const char *line = buf; *line;) {
    size_t linelen = strcspn(line, "\n");
    if (strncmp(line, "0::", 3) == 0) {
      if (linelen - 3 >= size)
        return -ENAMETOOLONG;
      if (linelen == 3 || line[3] != '/')
        return -EINVAL; /* a path is absolute in its namespace */
      memcpy(ret_path, line + 3, linelen - 3);
      ret_path[linelen - 3] = '\0';
      return 0;
    }
    line += linelen + (line[linelen] == '\n');
  }
  return -ENOENT; /* no cgroup v2 line: not on the unified hierarchy */
}

int jc_proc_cgroup_at(const char *proc_root, pid_t pid, char *ret_path,
                      size_t size) {
  char buf[16384];
  ssize_t len = read_proc_at(proc_root, pid, "cgroup", buf, sizeof(buf));
  if (len < 0)
    return (int)len;
  return jc_proc_parse_cgroup(buf, ret_path, size);
}

int jc_proc_cgroup(pid_t pid, char *ret_path, size_t size) {
  return jc_proc_cgroup_at(NULL, pid, ret_path, size);
}

int jc_proc_start_time_at(const char *proc_root, pid_t pid, uint64_t *ret) {
  return stat_field_at(proc_root, pid, JC_PROC_STAT_START_TIME, ret);
}

int jc_proc_may_move(pid_t pid, const char *root_cgroup, char *why, size_t n) {
  if (pid == 1)
    return WHY("it is the init process (PID 1)"), -EPERM;
  int r = jc_proc_is_kernel_thread(pid);
  if (r < 0)
    return r;
  if (r == 1)
    return WHY("it is a kernel thread"), -EPERM;
  char cgroup[4096];
  r = jc_proc_cgroup(pid, cgroup, sizeof(cgroup));
  if (r < 0)
    return r;
  if (!jc_hier_path_within(cgroup, root_cgroup))
    return WHY("it is in cgroup %s, outside CgroupRoot (cgroup %s)", cgroup,
               root_cgroup),
           -EPERM;
  return 0;
}

/* ---- holding a process from its check to its move ---------------------- */

#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
#define HAVE_PIDFD 1
#endif

/* JOULE_CGROUP_NO_PIDFD=1: the start time, as without pidfd_open (tests). */
static bool pidfd_turned_off(void) {
  const char *off = getenv("JOULE_CGROUP_NO_PIDFD");
  return off && strcmp(off, "1") == 0;
}

/* A pidfd of pid, or -errno (-ENOSYS before Linux 5.3). */
static int open_pidfd(pid_t pid) {
#ifdef HAVE_PIDFD
  long fd = syscall(SYS_pidfd_open, pid, 0);
  return fd < 0 ? -errno : (int)fd;
#else
  (void)pid;
  return -ENOSYS;
#endif
}

int jc_proc_hold_take(pid_t pid, jc_proc_hold *ret) {
  jc_proc_hold h = {pid, -1, -1, 0};
  if (!pidfd_turned_off()) {
    int fd = open_pidfd(pid);
    if (fd == -ESRCH)
      return -ESRCH;
    h.pidfd = fd < 0 ? -1 : fd;
    h.no_pidfd = fd < 0 ? -fd : 0;
  }
  if (h.pidfd < 0) {
    int r = stat_field(pid, JC_PROC_STAT_START_TIME, &h.start_time);
    if (r < 0)
      return r;
  }
  *ret = h;
  return 0;
}

/* Is the process of pidfd still there?  Signal 0 sends nothing; EPERM
 * (a process of another user) says it is there all the same. */
static int pidfd_alive(int pidfd) {
#ifdef HAVE_PIDFD
  if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0 || errno == EPERM)
    return 0;
  return -errno;
#else
  (void)pidfd;
  return -ENOSYS;
#endif
}

int jc_proc_hold_check(const jc_proc_hold *h) {
  if (h->pidfd >= 0)
    return pidfd_alive(h->pidfd);
  uint64_t now;
  int r = stat_field(h->pid, JC_PROC_STAT_START_TIME, &now);
  if (r < 0)
    return r;
  return now == h->start_time ? 0 : -ESRCH;
}

void jc_proc_hold_describe(const jc_proc_hold *h, char *out, size_t size) {
  if (h->pidfd >= 0)
    snprintf(out, size, "a pidfd");
  else
    snprintf(out, size, "its start time %llu (no pidfd: %s)",
             (unsigned long long)h->start_time,
             h->no_pidfd < 0 ? "JOULE_CGROUP_NO_PIDFD=1"
                             : JC_STRERROR(h->no_pidfd));
}

void jc_proc_hold_release(jc_proc_hold *h) {
  if (h->pidfd >= 0)
    close(h->pidfd);
  h->pidfd = -1;
}
