/*
 * memhog — a process whose memory use the real-kernel tests know exactly.
 *
 *   memhog [--wait] [--hold-ms MS] MIB
 *
 * Maps MIB MiB of private anonymous memory and writes to every page, so
 * that the kernel charges exactly that much anon memory to the process's
 * cgroup; prints "allocated MIB" on stdout; then sleeps until a signal
 * ends it, or for MS milliseconds with --hold-ms, unmaps the memory,
 * prints "released SECONDS.MICROS" (CLOCK_REALTIME, as collectd stamps
 * its values) and exits 0.  With
 * --wait it first waits for SIGUSR1: a test moves it into a cgroup, then
 * lets it allocate (cgroup v2 charges memory where it is allocated, and
 * does not move charges with the process).  Under a memory.max it is
 * killed by the OOM killer while it writes; under memory.high it is slowed.
 */
#include "helper_usr1.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int usage(void) {
  fprintf(stderr, "usage: memhog [--wait] [--hold-ms MS] MIB\n");
  return 2;
}

int main(int argc, char **argv) {
  int wait = 0, i = 1;
  long hold_ms = -1;
  for (; i < argc - 1; i++) {
    if (strcmp(argv[i], "--wait") == 0)
      wait = 1;
    else if (strcmp(argv[i], "--hold-ms") == 0 && i + 2 < argc)
      hold_ms = strtol(argv[++i], NULL, 10);
    else
      return usage();
  }
  char *end;
  long mib = i == argc - 1 ? strtol(argv[i], &end, 10) : -1;
  if (mib <= 0 || *end)
    return usage();

  if (wait && helper_wait_usr1() != 0)
    return 1;

  size_t size = (size_t)mib << 20;
  long page = sysconf(_SC_PAGESIZE);
  char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    fprintf(stderr, "memhog: mmap %ld MiB: %s\n", mib, strerror(errno));
    return 1;
  }
  for (size_t off = 0; off < size; off += (size_t)page)
    p[off] = 1;
  printf("allocated %ld\n", mib);
  fflush(stdout);

  if (hold_ms >= 0) {
    struct timespec ts = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
      ;
    /* Given back before the exit, and said when: a test tells a read
     * while the memory was held from the read the plugin makes when the
     * cgroup empties, which comes after this line's time. */
    munmap(p, size);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    printf("released %lld.%06ld\n", (long long)now.tv_sec, now.tv_nsec / 1000);
    fflush(stdout);
    return 0;
  }
  for (;;)
    pause();
}
