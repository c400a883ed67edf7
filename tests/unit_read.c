/* Unit tests of reading files to their end (jc_hier): /proc/cgroups; a kernel seq_file
 * of many records gives about a page per read(), and jc_hier_read_file_at
 * still returns all of it; a file larger than the buffer is -EFBIG, never
 * its first part; cgroup.procs of any length is read whole; a kept
 * memory.stat with a slab beyond 2^63 is read, parsed and sent whole. */
#include "fixture_util.h"
#include "jc_hier.h"
#include "jc_metrics.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Setting the scene must work: a test of nothing proves nothing. */
static void must(int r, const char *what) {
  if (r < 0) {
    perror(what);
    exit(99);
  }
}

/* Static buffers: reading /proc/self/maps twice must not change it (a
 * malloc between the readings could grow the heap's line). */
static char ours[1 << 20], theirs[1 << 20];

/* The independent reading: read() until it returns 0; *ret_first is what
 * the first read() gave. */
static ssize_t read_all_by_hand(const char *path, char *buf, size_t size,
                                ssize_t *ret_first) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  must(fd, path);
  size_t have = 0;
  ssize_t got;
  *ret_first = -1;
  while ((got = read(fd, buf + have, size - have)) > 0) {
    if (*ret_first < 0)
      *ret_first = got;
    have += (size_t)got;
  }
  close(fd);
  return got < 0 ? -1 : (ssize_t)have;
}

/* /proc/self/maps with hundreds of mappings: a seq_file of one record per
 * mapping, many pages long.  Alternate protections keep the kernel from
 * merging neighbours into one record. */
static void test_seq_file(void) {
  long page = sysconf(_SC_PAGESIZE);
  char *area = mmap(NULL, (size_t)page * 400, PROT_READ,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  must(area == MAP_FAILED ? -1 : 0, "mmap");
  for (int i = 0; i < 400; i += 2)
    must(mprotect(area + (size_t)i * page, (size_t)page,
                  PROT_READ | PROT_WRITE),
         "mprotect");
  ssize_t first;
  ssize_t want = read_all_by_hand("/proc/self/maps", theirs, sizeof(theirs),
                                  &first);
  ssize_t got = jc_hier_read_file_at(AT_FDCWD, "/proc/self/maps", ours,
                                sizeof(ours));
  ok(want > 4 * 4096 && first < want,
     "the scene: /proc/self/maps is %zd bytes, one read() gives %zd", want,
     first);
  is_int(got, want, "jc_hier_read_file_at reads all %zd bytes of it", want);
  ok(got == want && memcmp(ours, theirs, (size_t)want) == 0,
     "byte for byte what read() until end of file gives");
  is_int(jc_hier_read_file_at(AT_FDCWD, "/proc/self/maps", ours, 4096), -EFBIG,
         "into 4096 bytes: -EFBIG, not its first page");
  munmap(area, (size_t)page * 400);
}

static void test_bounds(void) {
  memset(theirs, 'x', 100);
  theirs[100] = '\0';
  fx_write("hundred", theirs);
  int dirfd = open(fx_path(""), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  must(dirfd, fx_path(""));
  is_int(jc_hier_read_file_at(dirfd, "hundred", ours, 100), 100,
         "a file of exactly the buffer's size is read");
  is_int(jc_hier_read_file_at(dirfd, "hundred", ours, 99), -EFBIG,
         "one byte more than the buffer: -EFBIG");
  fx_write("empty", "");
  is_int(jc_hier_read_file_at(dirfd, "empty", ours, sizeof(ours)), 0,
         "an empty file: 0 bytes");
  char *buf = NULL;
  is_int(jc_hier_read_file_grown(dirfd, "hundred", 100, &buf), 100,
         "grown: up to max bytes");
  free(buf);
  buf = NULL;
  is_int(jc_hier_read_file_grown(dirfd, "hundred", 99, &buf), -EFBIG,
         "grown: beyond max, -EFBIG");
  ok(buf == NULL, "and nothing to free");
  close(dirfd);
}

static void count_pid(pid_t pid, void *ctx) {
  long *sum = ctx;
  sum[0]++;
  sum[1] += pid;
}

/* A cgroup.procs of 20,000 pids (a copy of one; the real kernel's is
 * tests/kernel_crowd.sh): 118 KiB, more than the 64 KiB of one buffer. */
static void test_long_procs(void) {
  size_t len = 0;
  long want_sum = 0;
  for (int pid = 10000; pid < 30000; pid++) {
    len += (size_t)snprintf(theirs + len, sizeof(theirs) - len, "%d\n", pid);
    want_sum += pid;
  }
  fx_mkdir("cg");
  fx_write("cg/cgroup.procs", theirs);
  int cgfd = open(fx_path("cg"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  must(cgfd, "cg");
  long sum[2] = {0, 0};
  is_int(jc_hier_each_pid(cgfd, count_pid, sum), 20000,
         "jc_hier_each_pid: all 20000 pids of a %zu-byte cgroup.procs", len);
  ok(sum[0] == 20000 && sum[1] == want_sum, "each one once (%ld calls)",
     sum[0]);
  close(cgfd);
}

static double slab_sent = -1;

static void note_slab(void *ctx, const jc_metric *m) {
  (void)ctx;
  if (m->kind == JC_GAUGE && strcmp(m->type, "memory") == 0 &&
      strcmp(m->type_instance, "slab") == 0)
    slab_sent = m->gauge[0];
}

/* tests/fixtures/hostile/u64-slab/memory.stat: a 6.8 kernel's keys with
 * slab 14914318128160131214, the value of below's test data that the
 * kernel's %llu can print.  Every u64 is a gauge's value
 * (docs/metrics.md): the file is no problem and memory-slab is sent. */
static void test_u64_memory_stat(void) {
  const char *path = fx_source("tests/fixtures/hostile/u64-slab/memory.stat");
  ssize_t len = jc_hier_read_file_at(AT_FDCWD, path, ours, sizeof(ours));
  must(len > 0 ? 0 : -1, path);
  jc_memstat_keys k = {.count = 2, .key = {"anon", "slab"}, .key_len = {4, 4}};
  jc_sample s = {0};
  jc_sample_reset(&s);
  is_int(jc_sample_parse(&s, JC_FILE_MEMORY_STAT, ours, (size_t)len, &k), 0,
         "u64-slab/memory.stat (%zd bytes) parses whole, not malformed", len);
  ok((s.memstat_have & 3) == 3 && s.memstat[0] == 9732096 &&
         s.memstat[1] == 14914318128160131214ull,
     "anon 9732096 and slab %llu, as the kernel printed them",
     (unsigned long long)s.memstat[1]);
  jc_selection sel;
  char *all[] = {"*"};
  size_t failed;
  char err[256];
  must(jc_lists_select(&sel, &k, true, JC_COLLECT_MEMORY, all, 1, &failed,
                         err, sizeof(err)),
       err);
  jc_metrics_opts o = {&sel, &k, 1, false, NULL, NULL};
  jc_prior prior = {0};
  jc_metrics_emit(&s, &prior, NULL, &o, note_slab, NULL);
  ok(slab_sent == (double)14914318128160131214ull,
     "memory-slab sent: %.0f", slab_sent);
  jc_metrics_io_reset(&prior.io);
}

/* /proc/cgroups of a hybrid host: the controllers bound to cgroup v1. */
static void test_v1_controllers(void) {
  fx_write("cgroups", "#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
        "cpuset\t3\t1\t1\ncpu\t1\t1\t1\ncpuacct\t2\t1\t1\n"
        "blkio\t7\t1\t1\nmemory\t4\t18\t1\ndevices\t5\t1\t1\n"
        "hugetlb\t0\t1\t1\npids\t0\t1\t0\n");
  unsigned v1 = 0;
  is_int(jc_hier_v1_controllers(fx_path("cgroups"), &v1), 0, "/proc/cgroups read");
  ok(v1 == (JC_CTRL_CPU | JC_CTRL_MEMORY | JC_CTRL_IO),
     "bound to v1: cpu, memory, blkio as io; not pids (hierarchy 0)");
  is_int(jc_hier_v1_controllers(fx_path("none"), &v1), -ENOENT, "no such file");
}

int main(void) {
  fx_tmpdir();
  test_v1_controllers();
  test_seq_file();
  test_bounds();
  test_long_procs();
  test_u64_memory_stat();
  fx_cleanup();
  return done_testing();
}
