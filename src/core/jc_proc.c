/*
 * jc_proc — see jc_proc.h.
 */
#include "jc_proc.h"

#include "jc_hier.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHY(...) (snprintf(why, n, __VA_ARGS__))
#define PF_KTHREAD 0x00200000u /* include/linux/sched.h */

/* /proc/PID/<name> into buf, NUL-terminated; its length. */
static ssize_t read_proc(pid_t pid, const char *name, char *buf, size_t size) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
  ssize_t len = jc_read_file_at(AT_FDCWD, path, buf, size - 1);
  if (len == -ENOENT)
    return -ESRCH;
  if (len >= 0)
    buf[len] = '\0';
  return len;
}

int jc_proc_is_kernel_thread(pid_t pid) {
  char buf[1024];
  ssize_t len = read_proc(pid, "stat", buf, sizeof(buf));
  if (len < 0)
    return (int)len;
  /* "pid (comm) state ppid pgrp session tty_nr tpgid flags ...": comm may
   * hold spaces and parentheses, so count from the last ')'. */
  const char *p = strrchr(buf, ')');
  if (!p)
    return -EINVAL;
  p++;
  for (int field = 0; field < 6; field++) {
    p += strspn(p, " ");
    p += strcspn(p, " ");
  }
  char *end;
  unsigned long flags = strtoul(p, &end, 10);
  if (end == p)
    return -EINVAL;
  return (flags & PF_KTHREAD) ? 1 : 0;
}

int jc_proc_cgroup(pid_t pid, char *ret_path, size_t size) {
  char buf[16384];
  ssize_t len = read_proc(pid, "cgroup", buf, sizeof(buf));
  if (len < 0)
    return (int)len;
  for (const char *line = buf; *line;) {
    size_t linelen = strcspn(line, "\n");
    if (strncmp(line, "0::", 3) == 0) {
      if (linelen - 3 >= size)
        return -ENAMETOOLONG;
      memcpy(ret_path, line + 3, linelen - 3);
      ret_path[linelen - 3] = '\0';
      return 0;
    }
    line += linelen + (line[linelen] == '\n');
  }
  return -ENOENT; /* no cgroup v2 line: not on the unified hierarchy */
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
