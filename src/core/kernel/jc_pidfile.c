/*
 * jc_pidfile — see jc_pidfile.h.
 *
 * The walk keeps one open directory (O_PATH) and the path it resolved so
 * far, for messages.  A symlink's target replaces it in the path still to
 * walk; ".." goes to the parent of the directory we hold, which was itself
 * checked on the way down.
 */
#include "jc_pidfile.h"
#include "jc_log.h"

#include "jc_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WHY(...) (snprintf(why, n, __VA_ARGS__))
#define SYMLINKS_MAX 32

static bool trusted_uid(uid_t uid) { return uid == 0 || uid == geteuid(); }

/* "uid 65534 (nobody)" */
static void owner_name(uid_t uid, char *out, size_t size) {
  struct passwd pw, *found = NULL;
  char buf[1024];
  if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) == 0 && found)
    snprintf(out, size, "uid %u (%s)", (unsigned)uid, found->pw_name);
  else
    snprintf(out, size, "uid %u", (unsigned)uid);
}

/* The directory `shown` (open as fd) may lead to a pid file: only root
 * or we can change what is in it. */
static int check_dir(int fd, const char *shown, char *why, size_t n) {
  struct stat st;
  if (fstat(fd, &st) < 0)
    return WHY("cannot inspect directory %s: %s", shown, JC_STRERROR(errno)),
           -errno;
  char owner[300];
  owner_name(st.st_uid, owner, sizeof(owner));
  if (!trusted_uid(st.st_uid))
    return WHY("its directory %s is owned by %s, not by root or collectd's "
               "user",
               shown, owner),
           -EPERM;
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
    return WHY("its directory %s is writable by group or others (mode %04o) "
               "and not sticky",
               shown, (unsigned)(st.st_mode & 07777)),
           -EPERM;
  return 0;
}

/* The pid file itself, opened as fd. */
static int check_file(int fd, const char *shown, char *why, size_t n) {
  struct stat st;
  if (fstat(fd, &st) < 0)
    return WHY("cannot inspect %s: %s", shown, JC_STRERROR(errno)), -errno;
  char owner[300];
  owner_name(st.st_uid, owner, sizeof(owner));
  if (!S_ISREG(st.st_mode))
    return WHY("is not a regular file"), -EPERM;
  if (!trusted_uid(st.st_uid))
    return WHY("is owned by %s, not by root or collectd's user", owner),
           -EPERM;
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return WHY("is writable by group or others (mode %04o)",
               (unsigned)(st.st_mode & 07777)),
           -EPERM;
  return 0;
}

/* The walk's state: the directory reached and its path, for messages. */
typedef struct {
  int dirfd;
  char shown[PATH_MAX];
} walk;

static int walk_to_root(walk *w, char *why, size_t n) {
  int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return WHY("cannot open /: %s", JC_STRERROR(errno)), -errno;
  int r = check_dir(fd, "/", why, n);
  if (r < 0) {
    close(fd);
    return r;
  }
  if (w->dirfd >= 0)
    close(w->dirfd);
  w->dirfd = fd;
  w->shown[0] = '\0';
  return 0;
}

static int walk_up(walk *w) {
  int fd = openat(w->dirfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  close(w->dirfd);
  w->dirfd = fd;
  char *slash = strrchr(w->shown, '/');
  if (slash)
    *slash = '\0';
  return 0;
}

static int walk_into(walk *w, const char *name, char *why, size_t n) {
  char shown[PATH_MAX];
  if (snprintf(shown, sizeof(shown), "%s/%s", w->shown, name) >=
      (int)sizeof(shown))
    return WHY("path too long"), -ENAMETOOLONG;
  int fd = openat(w->dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
                                      O_CLOEXEC);
  if (fd < 0)
    return WHY("%s: %s", shown, JC_STRERROR(errno)), -errno;
  int r = check_dir(fd, shown, why, n);
  if (r < 0) {
    close(fd);
    return r;
  }
  close(w->dirfd);
  w->dirfd = fd;
  strcpy(w->shown, shown);
  return 0;
}

/* Replaces the level `name` (a symlink below w) by its target in the rest
 * of the path to walk, todo; the walk restarts at / for an absolute one. */
static int follow(walk *w, const char *name, char *todo, size_t size,
                  char *why, size_t n) {
  struct stat st;
  if (fstatat(w->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return -errno;
  char owner[300];
  owner_name(st.st_uid, owner, sizeof(owner));
  if (!trusted_uid(st.st_uid))
    return WHY("the symlink %s/%s on its path is owned by %s, not by root or "
               "collectd's user",
               w->shown, name, owner),
           -EPERM;
  char target[PATH_MAX], rest[PATH_MAX * 2];
  ssize_t len = readlinkat(w->dirfd, name, target, sizeof(target) - 1);
  if (len < 0)
    return -errno;
  target[len] = '\0';
  int m = snprintf(rest, sizeof(rest), "%s/%s", target, todo);
  if (m < 0 || (size_t)m >= size)
    return WHY("path too long"), -ENAMETOOLONG;
  strcpy(todo, rest);
  return target[0] == '/' ? walk_to_root(w, why, n) : 0;
}

/* Walks every directory level of path; leaves the last level's name in
 * ret_name.  The directory of the pid file is then w->dirfd. */
static int walk_dirs(walk *w, const char *path, char *ret_name, char *why,
                     size_t n) {
  char todo[PATH_MAX * 2];
  if (strlen(path) >= PATH_MAX)
    return WHY("path too long"), -ENAMETOOLONG;
  strcpy(todo, path);
  int r = walk_to_root(w, why, n);
  for (int links = 0; r == 0;) {
    char *p = todo + strspn(todo, "/");
    size_t len = strcspn(p, "/");
    if (len == 0)
      return WHY("is a directory"), -EISDIR;
    char name[NAME_MAX + 1];
    if (len > NAME_MAX)
      return WHY("path too long"), -ENAMETOOLONG;
    memcpy(name, p, len);
    name[len] = '\0';
    char *rest = p + len + strspn(p + len, "/");
    if (p[len] == '\0') {
      strcpy(ret_name, name);
      return 0;
    }
    memmove(todo, rest, strlen(rest) + 1);
    struct stat st;
    if (strcmp(name, ".") == 0)
      continue;
    if (strcmp(name, "..") == 0)
      r = walk_up(w);
    else if (fstatat(w->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
             S_ISLNK(st.st_mode))
      r = ++links > SYMLINKS_MAX ? (WHY("too many symlinks"), -ELOOP)
                                 : follow(w, name, todo, sizeof(todo), why, n);
    else
      r = walk_into(w, name, why, n);
  }
  return r;
}

int jc_pidfile_read(const char *path, pid_t *ret_pid, char *why, size_t n) {
  walk w = {.dirfd = -1};
  char name[NAME_MAX + 1];
  WHY("%s", "");
  int r = walk_dirs(&w, path, name, why, n);
  int fd = -1;
  if (r == 0) {
    fd = openat(w.dirfd, name,
                O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 && errno == ELOOP &&
        fstatat(w.dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode))
      r = (WHY("is a symlink; name the pid file itself"), -EPERM);
    else if (fd < 0)
      r = (WHY("%s", JC_STRERROR(errno)), -errno);
    else
      r = check_file(fd, path, why, n);
  }
  char buf[64];
  ssize_t len = r == 0 ? read(fd, buf, sizeof(buf)) : 0;
  if (r == 0 && len < 0)
    r = (WHY("%s", JC_STRERROR(errno)), -errno);
  uint64_t pid = 0;
  if (r == 0 && (len == (ssize_t)sizeof(buf) ||
                 jc_parse_single(buf, (size_t)len, &pid) < 0 || pid < 1 ||
                 pid > 4194304))
    r = (WHY("does not hold a process id"), -EINVAL);
  if (fd >= 0)
    close(fd);
  if (w.dirfd >= 0)
    close(w.dirfd);
  if (r == 0)
    *ret_pid = (pid_t)pid;
  return r;
}
