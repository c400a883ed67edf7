/* fixture_util — see fixture_util.h.  Test helper: aborts on any error. */
#include "fixture_util.h"

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[256];

static void die(const char *what, const char *path) {
  perror(path);
  fprintf(stderr, "fixture_util: %s failed\n", what);
  exit(99);
}

static const char *at(const char *rel, char *buf, size_t size) {
  snprintf(buf, size, "%s/%s", root, rel);
  return buf;
}

const char *fx_path(const char *rel) {
  static char buf[512];
  snprintf(buf, sizeof(buf), "%s%s%s", root, rel[0] ? "/" : "", rel);
  return buf;
}

const char *fx_source(const char *rel) {
  static char buf[4096];
  const char *top = getenv("top_srcdir"); /* make check sets it */
  snprintf(buf, sizeof(buf), "%s/%s", top ? top : "..", rel);
  return buf;
}

const char *fx_tmpdir(void) {
  snprintf(root, sizeof(root), "/tmp/jc-unit-XXXXXX");
  if (!mkdtemp(root))
    die("mkdtemp", root);
  return root;
}

const char *fx_root(const char *controllers) {
  fx_tmpdir();
  fx_write("cgroup.controllers", controllers);
  return root;
}

void fx_mkdir(const char *rel) {
  char p[512];
  if (mkdir(at(rel, p, sizeof(p)), 0755) < 0)
    die("mkdir", p);
}

void fx_mkdirs(const char *rel) {
  char p[512];
  at(rel, p, sizeof(p));
  for (char *slash = p + strlen(root) + 1;; slash++) {
    slash = strchr(slash, '/');
    if (slash)
      *slash = '\0';
    if (mkdir(p, 0755) < 0 && errno != EEXIST)
      die("mkdir", p);
    if (!slash)
      return;
    *slash = '/';
  }
}

static void write_as(const char *rel, const char *text, const char *how) {
  char p[512];
  FILE *f = fopen(at(rel, p, sizeof(p)), how);
  if (!f || fputs(text, f) < 0 || fclose(f) != 0)
    die("write", p);
}

/* Rewrites in place, as the kernel's files change: a descriptor the
 * collector keeps open sees the new text at its next pread. */
void fx_write(const char *rel, const char *text) { write_as(rel, text, "w"); }

void fx_append(const char *rel, const char *text) { write_as(rel, text, "a"); }

void fx_writef(const char *rel, const char *fmt, ...) {
  char *text;
  va_list ap;
  va_start(ap, fmt);
  int len = vasprintf(&text, fmt, ap);
  va_end(ap);
  if (len < 0)
    die("vasprintf", rel);
  fx_write(rel, text);
  free(text);
}

void fx_write_mode(const char *rel, const char *text, mode_t mode) {
  char p[512];
  fx_write(rel, text);
  if (chmod(at(rel, p, sizeof(p)), mode) < 0)
    die("chmod", p);
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

void fx_remove(const char *rel) {
  char p[512];
  if (nftw(at(rel, p, sizeof(p)), remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
    die("remove", p);
}

void fx_symlink(const char *target, const char *rel) {
  char p[512];
  if (symlink(target, at(rel, p, sizeof(p))) < 0)
    die("symlink", p);
}

void fx_copy(const char *src, const char *rel) {
  char from[4096], to[512];
  struct stat st;
  snprintf(from, sizeof(from), "%s", fx_source(src));
  at(rel, to, sizeof(to));
  if (lstat(to, &st) == 0)
    fx_remove(rel);
  /* cp -a, no shell: the paths are arguments, never quoted text. */
  pid_t pid = fork();
  if (pid < 0)
    die("fork", to);
  if (pid == 0) {
    execlp("cp", "cp", "-a", "--", from, to, (char *)NULL);
    _exit(127);
  }
  int status;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    die("cp -a", from);
}

void fx_cgroup(const char *rel, unsigned long long usage_usec) {
  char p[512], text[256];
  fx_mkdir(rel);
  snprintf(p, sizeof(p), "%s/cgroup.procs", rel);
  fx_write(p, "");
  snprintf(p, sizeof(p), "%s/cpu.stat", rel);
  snprintf(text, sizeof(text), "usage_usec %llu\nuser_usec %llu\nsystem_usec %llu\n",
           usage_usec, usage_usec / 2, usage_usec - usage_usec / 2);
  fx_write(p, text);
}

void fx_cleanup(void) {
  if (root[0] && nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
    perror(root);
  root[0] = '\0';
}
