/*
 * jc_rtread — see jc_rtread.h.
 *
 * openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) resolves every path as
 * if rootfd were "/": an absolute link, or one climbing with "..", stays
 * in the tree (docs/containers.md#runtime-files).  Without openat2 (before
 * Linux 5.6, or a seccomp filter refusing it), the path is walked a level
 * at a time with O_NOFOLLOW, which refuses every link.  Either way a file
 * is opened O_NOFOLLOW | O_NONBLOCK and checked with fstat before a byte
 * is read, so a FIFO or a device is never waited on.
 */
#include "jc_rtread.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#define CHUNK 16384
#define KEY_MAX 128

#define WHY(...) (snprintf(why, n, __VA_ARGS__))

static int openat2_in_root(int rootfd, const char *rel, int flags) {
#ifdef SYS_openat2
  struct open_how how = {.flags = (unsigned)flags,
                         .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
  long fd = syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
  return fd < 0 ? -errno : (int)fd;
#else
  (void)rootfd, (void)rel, (void)flags;
  return -ENOSYS;
#endif
}

/* The walk without openat2: every level a directory, no link anywhere. */
static int open_walk(int rootfd, const char *rel, int flags) {
  int dir = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
  if (dir < 0)
    return -errno;
  for (const char *p = rel;;) {
    size_t len = strcspn(p, "/");
    char level[256];
    if (len == 0 || len >= sizeof(level) || (len == 2 && !strncmp(p, "..", 2))) {
      close(dir);
      return len == 0 ? -ENOENT : len >= sizeof(level) ? -ENAMETOOLONG : -EXDEV;
    }
    memcpy(level, p, len);
    level[len] = '\0';
    bool last = p[len] == '\0';
    int fd = openat(dir, level,
                    last ? flags | O_NOFOLLOW
                         : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    close(dir);
    if (fd < 0)
      return -e;
    if (last)
      return fd;
    dir = fd;
    p += len + 1;
  }
}

static int open_below(int rootfd, const char *rel, int flags) {
  /* Cleared once, when the kernel (or a seccomp filter) refuses openat2;
   * two collectors racing on it both end up walking, which is safe. */
  static int have_openat2 = 1;
  if (have_openat2) {
    int fd = openat2_in_root(rootfd, rel, flags);
    if (fd != -ENOSYS && fd != -EPERM)
      return fd;
    have_openat2 = 0;
  }
  return open_walk(rootfd, rel, flags);
}

/* A phrase for a refused open. */
static int refused(int e, char *why, size_t n) {
  if (e == -ELOOP)
    WHY(JC_RTREAD_LINK);
  else if (e == -EXDEV)
    WHY("leads out of RuntimeRoot");
  else if (e != -ENOENT)
    WHY("cannot be opened (%s)", strerror(-e));
  return e;
}

int jc_rtread_open_dir(int rootfd, const char *rel, char *why, size_t n) {
  int fd = open_below(rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd == -ENOTDIR)
    fd = -ENOENT; /* not the runtime's directory: not there */
  return fd < 0 ? refused(fd, why, n) : fd;
}

/* Whether the level rel, itself a link, leads to a directory in the tree
 * (with openat2 a link is resolved inside it; the walk follows none). */
static bool link_leads_in(int rootfd, const char *rel) {
  int fd = open_below(rootfd, rel, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return false;
  close(fd);
  return true;
}

/* From rel up, the first level there: a link that leads nowhere is where
 * rel stopped, any other means the levels below it are not written. */
int jc_rtread_find_link(int rootfd, const char *rel, size_t *ret_len) {
  char level[PATH_MAX];
  size_t len = strlen(rel);
  if (len >= sizeof(level))
    return -ENAMETOOLONG;
  memcpy(level, rel, len + 1);
  while (len > 0) {
    level[len] = '\0';
    int fd = open_below(rootfd, level, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      struct stat st;
      bool link = fstat(fd, &st) == 0 && S_ISLNK(st.st_mode);
      close(fd);
      if (!link || link_leads_in(rootfd, level))
        return -ENOENT;
      *ret_len = len;
      return 0;
    }
    char *slash = strrchr(level, '/');
    len = slash ? (size_t)(slash - level) : 0;
  }
  return -ENOENT;
}

static const char *file_kind(mode_t m) {
  return S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
       : S_ISDIR(m)  ? "a directory" : S_ISCHR(m) || S_ISBLK(m) ? "a device"
                     : "not a regular file";
}

static int open_file(int rootfd, const char *rel, char *why, size_t n) {
  int fd = open_below(rootfd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
                                       O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return refused(fd, why, n);
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
    WHY("is %s, not a regular file", file_kind(st.st_mode));
    close(fd);
    return -EINVAL;
  }
  return fd;
}

long jc_rtread_text(int rootfd, const char *rel, char *buf, size_t size,
                    bool *ret_cut, char *why, size_t n) {
  int fd = open_file(rootfd, rel, why, n);
  if (fd < 0)
    return fd;
  size_t len = 0;
  ssize_t r;
  while (len + 1 < size && (r = read(fd, buf + len, size - 1 - len)) > 0)
    len += (size_t)r;
  char more;
  *ret_cut = len + 1 == size && read(fd, &more, 1) == 1;
  close(fd);
  buf[len] = '\0';
  return (long)len;
}

/* ---- JSON, streamed ------------------------------------------------------ */

typedef struct {
  const jc_rtread_json *h;
  void *ctx;
  int depth; /* objects and arrays open */
  char key[JC_RTREAD_DEPTH][KEY_MAX]; /* per level: its current key */
  const char *path[JC_RTREAD_DEPTH];
  bool array[JC_RTREAD_DEPTH];
} walk_state;

static int on_start(walk_state *w, bool array) {
  int d = w->depth++;
  if (d < JC_RTREAD_DEPTH) {
    w->array[d] = array;
    strcpy(w->key[d], array ? "[]" : "");
  }
  return 1;
}

static int on_start_map(void *ctx) { return on_start(ctx, false); }
static int on_start_array(void *ctx) { return on_start(ctx, true); }

static int on_end_map(void *ctx) {
  walk_state *w = ctx;
  w->depth--;
  return !w->h->end_map || w->h->end_map(w->ctx, w->depth);
}

static int on_end_array(void *ctx) {
  ((walk_state *)ctx)->depth--;
  return 1;
}

static int on_key(void *ctx, const unsigned char *key, size_t len) {
  walk_state *w = ctx;
  int d = w->depth - 1;
  if (d < 0 || d >= JC_RTREAD_DEPTH)
    return 1;
  if (len >= KEY_MAX)
    strcpy(w->key[d], "\x01"); /* matches no key a handler asks for */
  else {
    memcpy(w->key[d], key, len);
    w->key[d][len] = '\0';
  }
  return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t len) {
  walk_state *w = ctx;
  if (w->depth < 1 || w->depth > JC_RTREAD_DEPTH)
    return 1;
  for (int i = 0; i < w->depth; i++)
    w->path[i] = w->key[i];
  return w->h->string(w->ctx, w->path, w->depth, (const char *)s, len);
}

static const yajl_callbacks callbacks = {
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_end_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

/* yajl's own words for what is wrong, on one line. */
static void parse_error(yajl_handle y, const unsigned char *text, size_t len,
                        char *why, size_t n) {
  unsigned char *msg = yajl_get_error(y, 0, text, len);
  size_t l = strcspn((const char *)msg, "\n");
  WHY("is not valid JSON (%.*s)", (int)l, (const char *)msg);
  yajl_free_error(y, msg);
}

/*
 * Lone surrogates written as escapes.  yajl decodes a \uD800 that no low
 * surrogate's escape follows as "?" (and pairs it with whatever \u escape
 * follows, another character), and a lone \uDFFF as its three bytes: a
 * name would be wrong yet valid, or bytes that are not UTF-8 said to be
 * UTF-8.  Each lone surrogate's escape is handed to yajl as the three
 * bytes it would be (ED A0 80 for \uD800), which no strict reader takes
 * (jc_utf8): the name is refused, as one that is not UTF-8.  A pair, and
 * every other escape, goes as written.  The state lasts from chunk to
 * chunk, which may cut an escape.
 */
typedef struct {
  bool in_string;
  char held[12]; /* an escape begun: "\", "\uD8", "\uD800\u"...; its
                    first 6 bytes a high surrogate's when it is longer */
  size_t held_len;
} surrogates;

static int hex4(const char *s) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    int d = s[i] >= '0' && s[i] <= '9'   ? s[i] - '0'
            : s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10
            : s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 10
                                         : -1;
    if (d < 0)
      return -1;
    v = v << 4 | d;
  }
  return v;
}

static bool is_hex(char c) {
  return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static void put(unsigned char **o, const char *s, size_t n) {
  memcpy(*o, s, n);
  *o += n;
}

/* The three bytes of surrogate v. */
static void put_surrogate(unsigned char **o, int v) {
  *(*o)++ = (unsigned char)(0xE0 | v >> 12);
  *(*o)++ = (unsigned char)(0x80 | (v >> 6 & 0x3F));
  *(*o)++ = (unsigned char)(0x80 | (v & 0x3F));
}

static void mend_byte(surrogates *m, char c, unsigned char **o);

/* The held high surrogate is lone: its bytes, then what followed it. */
static void lone_high(surrogates *m, unsigned char **o) {
  char rest[6];
  size_t n = m->held_len - 6;
  memcpy(rest, m->held + 6, n);
  put_surrogate(o, hex4(m->held + 2));
  m->held_len = 0;
  for (size_t i = 0; i < n; i++)
    mend_byte(m, rest[i], o);
}

/* One byte of the document, into *o (at most 12 bytes out). */
static void mend_byte(surrogates *m, char c, unsigned char **o) {
  if (!m->held_len) {
    if (m->in_string && c == '\\')
      m->held[m->held_len++] = c;
    else {
      m->in_string ^= c == '"';
      put(o, &c, 1);
    }
    return;
  }
  m->held[m->held_len++] = c;
  size_t k = m->held_len;
  if (k <= 6) { /* "\uXXXX" */
    if ((k == 2 && c != 'u') || (k > 2 && !is_hex(c))) {
      put(o, m->held, k); /* another escape, or yajl's error to tell */
      m->held_len = 0;
    } else if (k == 6) {
      int v = hex4(m->held + 2);
      if (v >= 0xDC00 && v <= 0xDFFF)
        put_surrogate(o, v), m->held_len = 0;
      else if (v < 0xD800 || v > 0xDBFF)
        put(o, m->held, 6), m->held_len = 0;
    }
    return;
  }
  /* After a high surrogate: "\uDC00"-"\uDFFF" makes the pair. */
  if ((k == 7 && c != '\\') || (k == 8 && c != 'u') || (k > 8 && !is_hex(c)))
    lone_high(m, o);
  else if (k == 12 && (hex4(m->held + 8) & 0xFC00) == 0xDC00)
    put(o, m->held, 12), m->held_len = 0;
  else if (k == 12)
    lone_high(m, o);
}

/* Feeds the file to y, chunk by chunk, up to max bytes. */
static int feed(int fd, yajl_handle y, size_t max, char *why, size_t n) {
  unsigned char chunk[CHUNK], mended[CHUNK + 16];
  surrogates m = {0};
  size_t total = 0, mended_len = 0;
  yajl_status s = yajl_status_ok;
  ssize_t len = 0;
  while (total < max) {
    size_t want = max - total < sizeof(chunk) ? max - total : sizeof(chunk);
    len = read(fd, chunk, want);
    if (len < 0) {
      int e = errno;
      WHY("cannot be read (%s)", strerror(e));
      return -e;
    }
    if (len == 0)
      break;
    total += (size_t)len;
    unsigned char *o = mended;
    for (ssize_t i = 0; i < len; i++)
      mend_byte(&m, (char)chunk[i], &o);
    mended_len = (size_t)(o - mended);
    s = yajl_parse(y, mended, mended_len);
    if (s != yajl_status_ok)
      break;
  }
  if (s == yajl_status_ok && m.held_len) /* cut short: yajl says so */
    s = yajl_parse(y, (const unsigned char *)m.held, m.held_len);
  bool syntax = s == yajl_status_error;
  if (s == yajl_status_ok)
    s = yajl_complete_parse(y);
  if (s == yajl_status_client_canceled || s == yajl_status_ok)
    return 0;
  if (!syntax && total >= max) {
    WHY("is longer than %zu KiB, and its first %zu KiB do not end the "
        "document nor name the container (not read further)",
        max / 1024, max / 1024);
    return -EFBIG;
  }
  parse_error(y, mended, len > 0 ? mended_len : 0, why, n);
  return -EBADMSG;
}

int jc_rtread_json_file(int rootfd, const char *rel, size_t max,
                        const jc_rtread_json *h, void *ctx, char *why,
                        size_t n) {
  int fd = open_file(rootfd, rel, why, n);
  if (fd < 0)
    return fd;
  walk_state w = {.h = h, .ctx = ctx};
  yajl_handle y = yajl_alloc(&callbacks, NULL, &w);
  int r = y ? feed(fd, y, max, why, n) : -ENOMEM;
  if (y)
    yajl_free(y);
  close(fd);
  return r;
}
