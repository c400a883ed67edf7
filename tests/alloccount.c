/*
 * alloccount — the heap a program's own code has in use, counted by
 * wrapping its allocation functions at link time (-Wl,--wrap, every
 * function of ALLOC_WRAP in Makefile.am): malloc, calloc, realloc, free,
 * strdup, strndup, asprintf (__asprintf_chk with _FORTIFY_SOURCE) and
 * realpath (__realpath_chk).  What is in use is counted, the bytes
 * (malloc_usable_size of each block, on the way in and on the way out)
 * and the blocks, and the calls that allocated since the start.  What
 * libc (opendir, regcomp), libyajl or collectd allocate for themselves
 * and give back themselves is not the program's and is not seen.
 *
 * unit_alloc links it with the core: no allocation in a steady read pass,
 * and the heap in use back where it was after cgroups came and went.  The
 * soak of make bench (bench/soak.sh) links it into the plugin built again
 * (bench/counted/joule_cgroup.so), which collectd loads in place of the
 * other: with JC_ALLOCCOUNT_FILE in the environment when collectd loads
 * it, a thread writes "BYTES BLOCKS CALLS" to that file every 100 ms, one
 * line that replaces the one before.
 */
#include "alloccount.h"

#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
char *__real___realpath_chk(const char *path, char *resolved, size_t len);
char *__real_realpath(const char *path, char *resolved);
int __vasprintf_chk(char **out, int flag, const char *fmt, va_list ap);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap___asprintf_chk(char **out, int flag, const char *fmt, ...);
char *__wrap___realpath_chk(const char *path, char *resolved, size_t len);
int __wrap_asprintf(char **out, const char *fmt, ...);
char *__wrap_realpath(const char *path, char *resolved);

static long long bytes, blocks, calls;

static void *counted(void *p) {
  if (p) {
    __atomic_add_fetch(&bytes, (long long)malloc_usable_size(p), __ATOMIC_RELAXED);
    __atomic_add_fetch(&blocks, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
  }
  return p;
}

static void uncount(void *p) {
  if (p) {
    __atomic_sub_fetch(&bytes, (long long)malloc_usable_size(p), __ATOMIC_RELAXED);
    __atomic_sub_fetch(&blocks, 1, __ATOMIC_RELAXED);
  }
}

void *__wrap_malloc(size_t n) { return counted(__real_malloc(n)); }
void *__wrap_calloc(size_t n, size_t m) { return counted(__real_calloc(n, m)); }
char *__wrap_strdup(const char *s) { return counted(__real_strdup(s)); }
char *__wrap_strndup(const char *s, size_t n) { return counted(__real_strndup(s, n)); }

void __wrap_free(void *p) {
  uncount(p);
  __real_free(p);
}

void *__wrap_realloc(void *p, size_t n) {
  size_t before = p ? malloc_usable_size(p) : 0;
  void *q = __real_realloc(p, n);
  if (!q && n)
    return NULL; /* p is untouched */
  if (p) {
    __atomic_sub_fetch(&bytes, (long long)before, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&blocks, 1, __ATOMIC_RELAXED);
  }
  return counted(q);
}

int __wrap___asprintf_chk(char **out, int flag, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = __vasprintf_chk(out, flag, fmt, ap);
  va_end(ap);
  if (r >= 0)
    counted(*out);
  return r;
}

char *__wrap___realpath_chk(const char *path, char *resolved, size_t len) {
  char *r = __real___realpath_chk(path, resolved, len);
  return resolved ? r : counted(r);
}

/* The same without _FORTIFY_SOURCE. */
int __wrap_asprintf(char **out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vasprintf(out, fmt, ap);
  va_end(ap);
  if (r >= 0)
    counted(*out);
  return r;
}

char *__wrap_realpath(const char *path, char *resolved) {
  char *r = __real_realpath(path, resolved);
  return resolved ? r : counted(r);
}

jc_alloccount jc_alloccount_now(void) {
  return (jc_alloccount){__atomic_load_n(&bytes, __ATOMIC_RELAXED),
                         __atomic_load_n(&blocks, __ATOMIC_RELAXED),
                         __atomic_load_n(&calls, __ATOMIC_RELAXED)};
}

static char path[4096];

static void *writer(void *arg) {
  (void)arg;
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return NULL;
  for (;;) {
    char line[96];
    jc_alloccount now = jc_alloccount_now();
    int len = snprintf(line, sizeof(line), "%lld %lld %lld\n", now.bytes,
                       now.blocks, now.calls);
    if (pwrite(fd, line, (size_t)len, 0) == len && ftruncate(fd, len) != 0)
      break;
    nanosleep(&(struct timespec){0, 100000000}, NULL);
  }
  close(fd);
  return NULL;
}

__attribute__((constructor)) static void start(void) {
  const char *file = getenv("JC_ALLOCCOUNT_FILE");
  if (!file || strlen(file) >= sizeof(path))
    return;
  strcpy(path, file);
  pthread_t t;
  if (pthread_create(&t, NULL, writer, NULL) == 0)
    pthread_detach(t);
}
