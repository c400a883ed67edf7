/* fixture_util — see fixture_util.h.  Test helper: aborts on any error. */
#include "fixture_util.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

const char *fx_root(const char *controllers) {
  snprintf(root, sizeof(root), "/tmp/jc-unit-XXXXXX");
  if (!mkdtemp(root))
    die("mkdtemp", root);
  fx_write("cgroup.controllers", controllers);
  return root;
}

void fx_mkdir(const char *rel) {
  char p[512];
  if (mkdir(at(rel, p, sizeof(p)), 0755) < 0)
    die("mkdir", p);
}

/* Rewrites in place, as the kernel's files change: a descriptor the
 * collector keeps open sees the new text at its next pread. */
void fx_write(const char *rel, const char *text) {
  char p[512];
  FILE *f = fopen(at(rel, p, sizeof(p)), "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0)
    die("write", p);
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
