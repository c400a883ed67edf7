/*
 * heapcount — an LD_PRELOAD library for the soaks: the bytes a process has
 * in use on glibc's heap, written to the file HEAPCOUNT_FILE every 100 ms.
 *
 * A process's RSS is the high-water mark of its heap (glibc gives little
 * back): one moment of a loaded machine, when collectd's writer threads
 * fall behind and its queue of value lists swells, raises it for good,
 * and a soak that compares RSS before and after churn then blames the
 * plugin for collectd's backlog.  The bytes in use go down again when the
 * backlog is written, so a reading taken once collectd has caught up says
 * what is kept, on a loaded machine as on an idle one.
 *
 * Every allocation function is wrapped (glibc makes its own calls to
 * malloc interposable, so strdup and the rest are seen too), and the size
 * counted is malloc_usable_size of the block, on the way in and on the way
 * out.  The variable is removed from the environment at load, so that a
 * process collectd starts is not counted into the same file.
 *
 *   cc -shared -fPIC -O2 -o heapcount.so tests/heapcount.c -lpthread
 *   HEAPCOUNT_FILE=/tmp/h LD_PRELOAD=./heapcount.so collectd -f ...
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* glibc's own allocator, under the names it exports for wrappers. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static long long in_use;
static char path[4096], trim[4096 + 8];

static void *counted(void *p) {
  if (p)
    __atomic_add_fetch(&in_use, (long long)malloc_usable_size(p),
                       __ATOMIC_RELAXED);
  return p;
}

static void uncount(void *p) {
  if (p)
    __atomic_sub_fetch(&in_use, (long long)malloc_usable_size(p),
                       __ATOMIC_RELAXED);
}

void *malloc(size_t n) { return counted(__libc_malloc(n)); }
void *calloc(size_t k, size_t n) { return counted(__libc_calloc(k, n)); }
void *memalign(size_t a, size_t n) { return counted(__libc_memalign(a, n)); }
void *aligned_alloc(size_t a, size_t n) { return memalign(a, n); }
void *valloc(size_t n) { return memalign((size_t)getpagesize(), n); }

void free(void *p) {
  uncount(p);
  __libc_free(p);
}

void *realloc(void *p, size_t n) {
  size_t before = p ? malloc_usable_size(p) : 0;
  void *q = __libc_realloc(p, n);
  if (!q && n)
    return NULL; /* p is untouched */
  __atomic_sub_fetch(&in_use, (long long)before, __ATOMIC_RELAXED);
  return counted(q);
}

int posix_memalign(void **ret, size_t a, size_t n) {
  void *p = memalign(a, n);
  if (!p)
    return 12; /* ENOMEM */
  *ret = p;
  return 0;
}

/* Every 100 ms: the count, as one line that replaces the one before. */
static void *writer(void *arg) {
  (void)arg;
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return NULL;
  for (;;) {
    char line[32];
    int len = snprintf(line, sizeof(line), "%lld\n",
                       __atomic_load_n(&in_use, __ATOMIC_RELAXED));
    if (pwrite(fd, line, (size_t)len, 0) == len)
      (void)ftruncate(fd, len);
    if (access(trim, F_OK) == 0) {
      malloc_trim(0);
      unlink(trim);
    }
    nanosleep(&(struct timespec){0, 100000000}, NULL);
  }
}

__attribute__((constructor)) static void start(void) {
  const char *file = getenv("HEAPCOUNT_FILE");
  if (!file || strlen(file) >= sizeof(path))
    return;
  strcpy(path, file);
  snprintf(trim, sizeof(trim), "%s.trim", path);
  unsetenv("HEAPCOUNT_FILE");
  unsetenv("LD_PRELOAD");
  pthread_t t;
  if (pthread_create(&t, NULL, writer, NULL) == 0)
    pthread_detach(t);
}
