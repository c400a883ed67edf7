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
#include <unistd.h>

/* One file of the last listing. */
typedef struct {
  char *name;
  bool current;  /* written to: looked at each call */
  ino_t ino;     /* current: its inode at the listing */
  uint64_t size; /* the others': their size at the listing */
} log_file;

struct jc_dlogs {
  char *prefix;
  size_t prefix_len;
  log_file *file;
  size_t count, cap;
  bool listed;
  bool any_current; /* the listing has a file written to */
  unsigned calls; /* since the listing (from the phase, the first time) */
  unsigned phase;
};

jc_dlogs *jc_dlogs_new(const char *prefix, unsigned phase) {
  jc_dlogs *l = calloc(1, sizeof(*l));
  if (!l || !(l->prefix = strdup(prefix))) {
    free(l);
    return NULL;
  }
  l->prefix_len = strlen(prefix);
  l->phase = phase % JC_DLOGS_RELIST;
  return l;
}

static void forget(jc_dlogs *l) {
  for (size_t i = 0; i < l->count; i++)
    free(l->file[i].name);
  l->count = 0;
  l->listed = false;
}

/* The file being written to: the prefix itself (Docker's <id>-json.log,
 * Podman's ctr.log), or in the kubelet's directory (prefix "") a name
 * ending ".log" (0.log; its rotated files end in a timestamp or .gz). */
static bool is_current(const jc_dlogs *l, const char *name) {
  if (l->prefix_len)
    return strcmp(name, l->prefix) == 0;
  size_t n = strlen(name);
  return n > 4 && strcmp(name + n - 4, ".log") == 0;
}

static int add(jc_dlogs *l, int dirfd, const char *name) {
  struct stat st;
  if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
      !S_ISREG(st.st_mode))
    return 0; /* gone since the listing, or no log */
  if (l->count == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 8;
    log_file *grown = realloc(l->file, cap * sizeof(*grown));
    if (!grown)
      return -ENOMEM;
    l->file = grown;
    l->cap = cap;
  }
  log_file *f = &l->file[l->count];
  if (!(f->name = strdup(name)))
    return -ENOMEM;
  f->current = is_current(l, name);
  l->any_current |= f->current;
  f->ino = st.st_ino;
  f->size = (uint64_t)st.st_size;
  l->count++;
  return 0;
}

/* The regular files of dirfd with the prefix, each looked at once. */
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
  l->any_current = false;
  int r = 0;
  struct dirent *de;
  while (r == 0 && (errno = 0, de = readdir(d)))
    if (de->d_name[0] != '.' &&
        strncmp(de->d_name, l->prefix, l->prefix_len) == 0)
      r = add(l, dirfd, de->d_name);
  if (r == 0 && errno)
    r = -errno;
  closedir(d);
  if (r < 0) {
    forget(l);
    return r;
  }
  l->listed = true;
  l->calls = l->phase;
  l->phase = 0; /* from the next listing on, a whole count */
  return 0;
}

/* The bytes of the files listed, those written to looked at now (look):
 * 0, or -ESTALE when one of them is another inode now, or gone. */
static int sizes(jc_dlogs *l, int dirfd, bool look, uint64_t *ret_bytes) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < l->count; i++) {
    log_file *f = &l->file[i];
    struct stat st;
    if (f->current && look) {
      if (fstatat(dirfd, f->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
          st.st_ino != f->ino || !S_ISREG(st.st_mode))
        return -ESTALE;
      f->size = (uint64_t)st.st_size;
    }
    bytes += f->size;
  }
  *ret_bytes = bytes;
  return 0;
}

int jc_dlogs_size(jc_dlogs *l, int dirfd, unsigned look, uint64_t *ret_bytes) {
  int r = 0;
  bool looks = look & JC_DLOGS_LOOK;
  /* No file written to: one is made at the runtime's next write, listed
   * again until there is one (a moment, at a rotation). */
  if (!l->listed || (look & JC_DLOGS_LIST) || (looks && !l->any_current) ||
      (looks && ++l->calls >= JC_DLOGS_RELIST))
    r = list(l, dirfd); /* sizes of the listing: looked at now */
  else if ((r = sizes(l, dirfd, looks, ret_bytes)) == -ESTALE)
    r = list(l, dirfd);
  else
    return r;
  return r == 0 ? sizes(l, dirfd, false, ret_bytes) : r;
}

size_t jc_dlogs_files(const jc_dlogs *l) { return l->count; }

void jc_dlogs_free(jc_dlogs *l) {
  if (!l)
    return;
  forget(l);
  free(l->file);
  free(l->prefix);
  free(l);
}
