/*
 * jc_dlogs — see jc_dlogs.h.
 */
#include "jc_dlogs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct jc_dlogs {
  char *prefix;
  size_t prefix_len;
  char **name; /* the files of the last listing */
  size_t count, cap;
  struct timespec mtime; /* the directory's, at the last listing */
  bool listed;
  bool relist; /* a file listed was gone: list again */
};

jc_dlogs *jc_dlogs_new(const char *prefix) {
  jc_dlogs *l = calloc(1, sizeof(*l));
  if (!l || !(l->prefix = strdup(prefix))) {
    free(l);
    return NULL;
  }
  l->prefix_len = strlen(prefix);
  return l;
}

static void forget(jc_dlogs *l) {
  for (size_t i = 0; i < l->count; i++)
    free(l->name[i]);
  l->count = 0;
}

static int add(jc_dlogs *l, const char *name) {
  if (l->count == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 8;
    char **grown = realloc(l->name, cap * sizeof(*grown));
    if (!grown)
      return -ENOMEM;
    l->name = grown;
    l->cap = cap;
  }
  if (!(l->name[l->count] = strdup(name)))
    return -ENOMEM;
  l->count++;
  return 0;
}

/* The names of dirfd's entries with the prefix (which may not be regular
 * files: each is looked at when it is sized). */
static int list(jc_dlogs *l, int dirfd) {
  int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return -ENOMEM;
  }
  forget(l);
  int r = 0;
  struct dirent *de;
  while (r == 0 && (errno = 0, de = readdir(d)))
    if (de->d_name[0] != '.' &&
        strncmp(de->d_name, l->prefix, l->prefix_len) == 0)
      r = add(l, de->d_name);
  if (r == 0 && errno)
    r = -errno;
  closedir(d);
  return r;
}

/* A listing made in the tick of the directory's last change may have
 * missed a change of that same tick: listed again until a second has
 * passed since it. */
static bool racy(const struct timespec *mtime) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return now.tv_sec <= mtime->tv_sec + 1;
}

int jc_dlogs_size(jc_dlogs *l, int dirfd, uint64_t *ret_bytes) {
  struct stat dir;
  if (fstat(dirfd, &dir) < 0)
    return -errno;
  if (!l->listed || l->relist || racy(&l->mtime) ||
      dir.st_mtim.tv_sec != l->mtime.tv_sec ||
      dir.st_mtim.tv_nsec != l->mtime.tv_nsec) {
    int r = list(l, dirfd);
    if (r < 0)
      return r;
    l->mtime = dir.st_mtim;
    l->listed = true;
    l->relist = false;
  }
  uint64_t bytes = 0;
  for (size_t i = 0; i < l->count; i++) {
    struct stat st;
    if (fstatat(dirfd, l->name[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
      l->relist = true; /* rotated away since the listing */
      continue;
    }
    if (S_ISREG(st.st_mode))
      bytes += (uint64_t)st.st_size;
  }
  *ret_bytes = bytes;
  return 0;
}

size_t jc_dlogs_files(const jc_dlogs *l) { return l->count; }

void jc_dlogs_free(jc_dlogs *l) {
  if (!l)
    return;
  forget(l);
  free(l->name);
  free(l->prefix);
  free(l);
}
