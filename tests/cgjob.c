/*
 * cgjob — a job whose whole life is in one cgroup, and what it used by its
 * own account, for the tests of final figures (tests/kernel_ended.sh,
 * tests/vm_edges.sh).
 *
 *   cgjob [--busy-ms MS] [--mib MIB] [--write DEV MIB] [--read MIB] CGROUP
 *
 * Starts the job in the cgroup directory CGROUP from its first
 * instruction (clone3 with CLONE_INTO_CGROUP, Linux 5.7), so that every
 * microsecond of CPU and every page it uses is charged there and nowhere
 * else; a process moved in after a fork has already run outside.  The
 * job, in this order: maps MIB MiB of private anonymous memory and writes
 * to every page; writes MIB MiB of zeros to DEV from offset 0 and reads
 * MIB MiB back, with O_DIRECT in blocks of 1 MiB (no page cache: the
 * kernel's io.stat counts exactly those bytes); burns MS ms of CPU time
 * (its own CPU clock).  Then it exits, with status 1 if any step fell
 * short.  cgjob waits for it and prints, on one line, what the kernel
 * says it used (wait4's rusage):
 *
 *   cpu_usec U maxrss_kib K status S
 *
 * U is user + system time, K its largest resident set, S its exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (1u << 20)

typedef struct {
  long busy_ms, mib, write_mib, read_mib;
  const char *dev;
} job;

static int usage(void) {
  fprintf(stderr, "usage: cgjob [--busy-ms MS] [--mib MIB] [--write DEV MIB] "
                  "[--read MIB] CGROUP\n");
  return 2;
}

static long number(const char *s) {
  char *end;
  long v = strtol(s, &end, 10);
  return *s && !*end && v >= 0 ? v : -1;
}

static uint64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The job itself: raw system calls and no stdio (it runs after a clone3
 * that glibc knows nothing of). */
static int run(const job *j) {
  size_t size = (size_t)j->mib << 20;
  if (size) {
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return 1;
    for (size_t off = 0; off < size; off += 4096)
      p[off] = 1;
  }
  if (j->dev) {
    char *buf = mmap(NULL, BLOCK, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int fd = open(j->dev, O_RDWR | O_DIRECT | O_CLOEXEC);
    if (buf == MAP_FAILED || fd < 0)
      return 1;
    memset(buf, 0, BLOCK);
    for (long i = 0; i < j->write_mib; i++)
      if (pwrite(fd, buf, BLOCK, (off_t)i * BLOCK) != (ssize_t)BLOCK)
        return 1;
    for (long i = 0; i < j->read_mib; i++)
      if (pread(fd, buf, BLOCK, (off_t)i * BLOCK) != (ssize_t)BLOCK)
        return 1;
    close(fd);
  }
  uint64_t end = cpu_ns() + (uint64_t)j->busy_ms * 1000000u;
  while (cpu_ns() < end)
    ;
  return 0;
}

int main(int argc, char **argv) {
  job j = {0};
  int i = 1;
  for (; i < argc - 1; i++) {
    if (strcmp(argv[i], "--busy-ms") == 0 && i + 2 < argc)
      j.busy_ms = number(argv[++i]);
    else if (strcmp(argv[i], "--mib") == 0 && i + 2 < argc)
      j.mib = number(argv[++i]);
    else if (strcmp(argv[i], "--write") == 0 && i + 3 < argc) {
      j.dev = argv[++i];
      j.write_mib = number(argv[++i]);
    } else if (strcmp(argv[i], "--read") == 0 && i + 2 < argc)
      j.read_mib = number(argv[++i]);
    else
      return usage();
  }
  if (i != argc - 1 || j.busy_ms < 0 || j.mib < 0 || j.write_mib < 0 ||
      j.read_mib < 0 || (j.read_mib && !j.dev))
    return usage();
  int cg = open(argv[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cg < 0) {
    fprintf(stderr, "cgjob: %s: %s\n", argv[i], strerror(errno));
    return 1;
  }
  struct clone_args args = {.flags = CLONE_INTO_CGROUP,
                            .exit_signal = SIGCHLD,
                            .cgroup = (uint64_t)cg};
  long pid = syscall(SYS_clone3, &args, sizeof(args));
  if (pid < 0) {
    fprintf(stderr, "cgjob: clone3 into %s: %s\n", argv[i], strerror(errno));
    return 1;
  }
  if (pid == 0)
    _exit(run(&j));
  close(cg);
  int status;
  struct rusage ru;
  while (wait4((pid_t)pid, &status, 0, &ru) < 0)
    if (errno != EINTR) {
      fprintf(stderr, "cgjob: wait4: %s\n", strerror(errno));
      return 1;
    }
  long long usec = (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
                       1000000 +
                   ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
  printf("cpu_usec %lld maxrss_kib %ld status %d\n", usec, ru.ru_maxrss,
         WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  return 0;
}
