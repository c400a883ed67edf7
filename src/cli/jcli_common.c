/*
 * jcli_common — see jcli_common.h.
 */
#include "jcli_common.h"

#include "jc_collector.h"
#include "jc_hier.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* One line on stderr in one write, so that lines of two processes never
 * mix; cut (not split) when too long. */
static void put_line(const char *kind, const char *msg) {
  char line[2048];
  int len = snprintf(line, sizeof(line), JCLI_PROGRAM ": %s%s", kind, msg);
  if (len < 0)
    return;
  if (len > (int)sizeof(line) - 2)
    len = (int)sizeof(line) - 2;
  line[len++] = '\n';
  (void)!write(STDERR_FILENO, line, (size_t)len);
}

void jcli_error(const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  put_line("", msg);
}

void jcli_log(void *ctx, int level, const char *msg) {
  (void)ctx;
  if (level <= JC_LOG_ERR)
    put_line("", msg);
  else if (level == JC_LOG_WARNING)
    put_line("warning: ", msg);
}

void jcli_log_info(void *ctx, int level, const char *msg) {
  if (level <= JC_LOG_WARNING)
    jcli_log(ctx, level, msg);
  else if (level <= JC_LOG_INFO)
    put_line("info: ", msg);
}

int jcli_parse_seconds(const char *text, double *ret_seconds) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || end == text || *end || !(v >= 0.01 && v <= 86400))
    return -1;
  *ret_seconds = v;
  return 0;
}

int jcli_parse_count(const char *text, long *ret_count) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < 1)
    return -1;
  *ret_count = v;
  return 0;
}

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
    jcli_error("--root \"%s\": %s", given, strerror(errno));
    return -1;
  }
  if (strlen(resolved) >= size) {
    jcli_error("--root \"%s\": path too long", given);
    return -1;
  }
  strcpy(ret_path, resolved);
  return 0;
}

int jcli_open_root(const char *given, bool real_only, char *ret_path,
                   size_t size) {
  if (find_root(given, ret_path, size) < 0)
    return -1;
  int fd = open(ret_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    jcli_error("cgroup root \"%s\": %s", ret_path, strerror(errno));
    return -1;
  }
  if (jc_hier_verify_v2(fd) < 0 || (real_only && !jc_hier_is_cgroupfs(fd))) {
    jcli_error("\"%s\" is not a cgroup v2 directory%s; give --root the "
               "cgroup2 mount point (the line of type cgroup2 in "
               "/proc/self/mountinfo) or a cgroup below it",
               ret_path, real_only ? " of the kernel's cgroup2 file system" : "");
    close(fd);
    return -1;
  }
  return fd;
}

int jcli_hierarchy_root(const char *dir, char *ret_root, size_t size,
                        const char **ret_rel) {
  struct stat st, up;
  size_t len = strlen(dir);
  if (len >= size || stat(dir, &st) < 0) {
    jcli_error("cannot find the root cgroup above %s: %s", dir,
               len >= size ? "path too long" : strerror(errno));
    return -1;
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

jc_collector *jcli_collector_start(jc_config *cfg, const char *root) {
  char err[512];
  if (jc_config_set_root(cfg, root, err, sizeof(err)) < 0 ||
      jc_config_finish(cfg, err, sizeof(err)) < 0) {
    jcli_error("%s", err);
    jc_config_free(cfg);
    return NULL;
  }
  jc_collector *c = jc_collector_new(cfg, jcli_log, NULL);
  if (!c) {
    jcli_error("out of memory");
    return NULL;
  }
  if (jc_collector_init(c) < 0) { /* the core said why */
    jc_collector_free(c);
    return NULL;
  }
  return c;
}

jc_collector *jcli_collector_at(const char *given_root, jc_config *cfg) {
  char root[PATH_MAX];
  int fd = jcli_open_root(given_root, false, root, sizeof(root));
  if (fd < 0) {
    jc_config_free(cfg);
    return NULL;
  }
  close(fd);
  return jcli_collector_start(cfg, root);
}

bool jcli_signal_ignored(int sig) {
  struct sigaction sa;
  return sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
}

double jcli_wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void *jcli_grow(void *array, size_t count, size_t *cap, size_t size) {
  if (count < *cap)
    return array;
  size_t grown_cap = *cap ? 2 * *cap : 4;
  void *grown = realloc(array, grown_cap * size);
  if (grown)
    *cap = grown_cap;
  return grown;
}

void jcli_command_text(char *const *argv, char *buf, size_t size) {
  size_t len = 0;
  if (size == 0)
    return;
  buf[0] = '\0';
  for (char *const *w = argv; w && *w; w++) {
    const char *word = *w;
    bool plain = word[0] && !word[strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                               "abcdefghijklmnopqrstuvwxyz"
                                               "0123456789_./:=,+@%-")];
    if (len && len + 1 < size)
      buf[len++] = ' ';
    if (!plain && len + 1 < size)
      buf[len++] = '\'';
    for (const char *c = word; *c && len + 4 < size; c++) {
      if (*c == '\'' && !plain) { /* ' ends the quote: '\'' */
        memcpy(buf + len, "'\\''", 4);
        len += 4;
      } else {
        buf[len++] = *c;
      }
    }
    if (!plain && len + 1 < size)
      buf[len++] = '\'';
    buf[len] = '\0';
  }
}

int jcli_write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return -errno;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

int jcli_write_stream(FILE *out, char **buf, size_t *len, int fd) {
  int r = ferror(out) ? -ENOMEM : 0;
  if (fclose(out) != 0 && r == 0)
    r = -ENOMEM;
  if (r == 0)
    r = jcli_write_all(fd, *buf, *len);
  free(*buf);
  *buf = NULL;
  return r;
}
