/*
 * jcli_root — see jcli_root.h.
 */
#include "jcli_root.h"

#include "jcli_stderr.h"

#include "jc_hier.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int find_root(const char *given, char *ret_path, size_t size) {
  if (!given) {
    int r = jc_hier_find_mount("/proc/self/mountinfo", ret_path, size);
    if (r < 0)
      jcli_error("no cgroup2 file system is mounted (none in "
                 "/proc/self/mountinfo); mount one with: mount -t cgroup2 "
                 "none /sys/fs/cgroup, or give --root");
    return r;
  }
  char resolved[PATH_MAX];
  if (!realpath(given, resolved)) {
    int e = errno;
    jcli_error("--root \"%s\": %s", given, strerror(e));
    return -e;
  }
  if (strlen(resolved) >= size) {
    jcli_error("--root \"%s\": path too long", given);
    return -ENAMETOOLONG;
  }
  strcpy(ret_path, resolved);
  return 0;
}

int jcli_open_root(const char *given, bool real_only, char *ret_path,
                   size_t size) {
  int r = find_root(given, ret_path, size);
  if (r < 0)
    return r;
  int fd = open(ret_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    jcli_error("cgroup root \"%s\": %s", ret_path, strerror(e));
    return -e;
  }
  if ((r = jc_hier_verify_v2(fd)) < 0 ||
      (real_only && !jc_hier_is_cgroupfs(fd))) {
    jcli_error("\"%s\" is not a cgroup v2 directory%s; give --root the "
               "cgroup2 mount point (the line of type cgroup2 in "
               "/proc/self/mountinfo) or a cgroup below it",
               ret_path, real_only ? " of the kernel's cgroup2 file system" : "");
    close(fd);
    return r < 0 ? r : -EMEDIUMTYPE;
  }
  return fd;
}

int jcli_hierarchy_root(const char *dir, char *ret_root, size_t size,
                        const char **ret_rel) {
  struct stat st, up;
  size_t len = strlen(dir);
  if (len >= size || stat(dir, &st) < 0) {
    int r = len >= size ? -ENAMETOOLONG : -errno;
    jcli_error("cannot find the root cgroup above %s: %s", dir, strerror(-r));
    return r;
  }
  memcpy(ret_root, dir, len + 1);
  /* Up while the parent is the same file system: the mount point's
   * parent (/sys/fs/cgroup of /sys/fs/cgroup/unified, /sys/fs) is not. */
  for (;;) {
    char *slash = strrchr(ret_root, '/');
    if (!slash || slash == ret_root)
      break;
    *slash = '\0';
    if (stat(ret_root, &up) < 0 || up.st_dev != st.st_dev) {
      *slash = '/';
      break;
    }
  }
  len = strlen(ret_root);
  *ret_rel = dir + len + (dir[len] == '/');
  return 0;
}

int jcli_collector_start(jc_config *cfg, const char *root, jc_collector **ret) {
  char why[512];
  *ret = NULL;
  int r = jc_config_set_root(cfg, root, why, sizeof(why));
  if (r == 0)
    r = jc_config_finish(cfg, why, sizeof(why));
  if (r < 0) {
    jcli_error("%s", why);
    jc_config_free(cfg);
    return r;
  }
  jc_collector *c = jc_collector_new(cfg, jcli_log, NULL);
  if (!c) {
    jcli_error("out of memory");
    return -ENOMEM;
  }
  if ((r = jc_collector_init(c)) < 0) { /* the core said why */
    jc_collector_free(c);
    return r;
  }
  *ret = c;
  return 0;
}

int jcli_collector_at(const char *given_root, jc_config *cfg,
                      jc_collector **ret) {
  char root[PATH_MAX];
  *ret = NULL;
  int fd = jcli_open_root(given_root, false, root, sizeof(root));
  if (fd < 0) {
    jc_config_free(cfg);
    return fd;
  }
  close(fd);
  return jcli_collector_start(cfg, root, ret);
}
