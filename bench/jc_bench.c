/*
 * jc_bench — what one read pass costs per cgroup, side by side:
 *
 *   (a)  the floor: pread on kept descriptors, no parsing;
 *   (b)  the plugin's core read pass: discovery when nothing changed, read,
 *        parse, diff (jc_collector_read with an emit that does nothing);
 *   (b') the same with MaxOpenFiles too small to keep stat files open
 *        (files opened per read relative to the kept directory);
 *   (c)  a stdio reader: fopen/fgets/sscanf/fclose per file;
 *   (b+) the core read pass of the second release's additions on top of
 *        (b): Collect "limits" (cpu.max, and memory.max/high, pids.max
 *        where those controllers are) and NotifyOOM (memory.events, and
 *        /proc/vmstat once per pass), where the host has them.
 *
 * All four read the same files: cpu.stat and the three pressure files of
 * every cgroup below PARENT (what a cgroup v2 hierarchy offers on any host,
 * and what Collect "cpu" "pressure" reads).  Each is
 * timed REPEATS times, interleaved, and the fastest run counts: on a shared
 * machine the minimum is the figure least disturbed by others.
 *
 *   jc_bench ROOT PARENT PASSES [REPEATS]
 *
 * Prints one line of "key=value" figures for scripts/bench.sh.
 */
#include "jc_collector.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* What Collect "cpu" "pressure" reads; every cgroup v2 directory has them. */
static const char *const bench_files[] = {"cpu.stat", "cpu.pressure",
                                          "memory.pressure", "io.pressure"};
#define FILES 4

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* ---- the cgroups: every directory below parent, found once ------------- */

static char **paths;
static size_t path_count, path_capacity;

static void add_path(const char *p) {
  if (path_count == path_capacity) {
    path_capacity = path_capacity ? 2 * path_capacity : 1024;
    paths = realloc(paths, path_capacity * sizeof(*paths));
  }
  paths[path_count++] = strdup(p);
}

static void find_cgroups(const char *dir) {
  add_path(dir);
  DIR *d = opendir(dir);
  struct dirent *de;
  while (d && (de = readdir(d))) {
    if (de->d_type != DT_DIR || de->d_name[0] == '.')
      continue;
    char child[4096];
    snprintf(child, sizeof(child), "%s/%s", dir, de->d_name);
    find_cgroups(child);
  }
  if (d)
    closedir(d);
}

/* ---- (a) the floor ------------------------------------------------------- */

/* The floor keeps every file open; when RLIMIT_NOFILE cannot hold them all
 * (10,000 cgroups × 4 files on a host whose hard limit is 20,000) it is
 * measured in chunks that fit, and the chunks' times added up. */
static int *floor_fds;
static size_t chunk_first, chunk_count;

static void floor_open(size_t first, size_t count) {
  chunk_first = first;
  chunk_count = count;
  floor_fds = malloc(count * FILES * sizeof(int));
  for (size_t i = 0; i < count; i++)
    for (int f = 0; f < FILES; f++) {
      char p[4200];
      snprintf(p, sizeof(p), "%s/%s", paths[first + i], bench_files[f]);
      floor_fds[i * FILES + f] = open(p, O_RDONLY | O_CLOEXEC);
      if (floor_fds[i * FILES + f] < 0) {
        perror(p);
        exit(1);
      }
    }
}

static void floor_close(void) {
  for (size_t i = 0; i < chunk_count * FILES; i++)
    close(floor_fds[i]);
  free(floor_fds);
}

static volatile size_t sink;

static void floor_pass(void) {
  char buf[4096];
  for (size_t i = 0; i < chunk_count * FILES; i++) {
    ssize_t n = pread(floor_fds[i], buf, sizeof(buf), 0);
    sink += (size_t)n;
  }
}

static double timed(void (*pass)(void), int passes);

/* µs per cgroup per pass over all cgroups, chunk by chunk. */
static double floor_timed(int passes) {
  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  size_t room = ((size_t)rl.rlim_cur - 64) / FILES, total = 0;
  double us = 0;
  for (size_t first = 0; first < path_count; first += room) {
    size_t count = path_count - first < room ? path_count - first : room;
    floor_open(first, count);
    floor_pass();
    us += timed(floor_pass, passes) * (double)path_count;
    total += count;
    floor_close();
  }
  return us / (double)total;
}

/* ---- (c) stdio ------------------------------------------------------------ */

static void stdio_file(const char *dir, const char *name) {
  char p[4200], line[256], key[64];
  snprintf(p, sizeof(p), "%s/%s", dir, name);
  FILE *f = fopen(p, "r");
  if (!f)
    return;
  unsigned long long v;
  double a10, a60, a300;
  while (fgets(line, sizeof(line), f)) {
    if (sscanf(line, "%63s avg10=%lf avg60=%lf avg300=%lf total=%llu", key,
               &a10, &a60, &a300, &v) == 5 ||
        sscanf(line, "%63s %llu", key, &v) == 2)
      sink += v;
  }
  fclose(f);
}

static void stdio_pass(void) {
  for (size_t i = 0; i < path_count; i++)
    for (int f = 0; f < FILES; f++)
      stdio_file(paths[i], bench_files[f]);
}

/* ---- (b) the core ----------------------------------------------------------- */

static void ignore_metric(void *ctx, const jc_target *t, const jc_metric *m) {
  (void)ctx, (void)t, (void)m;
  sink++;
}

static jc_collector *core;

static long sunreclaim_kb(void) {
  char buf[8192];
  int fd = open("/proc/meminfo", O_RDONLY);
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  buf[n > 0 ? n : 0] = '\0';
  const char *s = strstr(buf, "SUnreclaim:");
  return s ? atol(s + 11) : -1;
}

static int count_fds(void) {
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  while (d && readdir(d))
    n++;
  if (d)
    closedir(d);
  return n - 3; /* ".", "..", and the directory's own descriptor */
}

typedef struct {
  size_t heap_per_cgroup;
  int fds;
  long kernel_kb;
  size_t tracked;
} core_figures;

/* The core on every cgroup below parent, Collect "cpu" "pressure", and
 * with `more` also "limits" and NotifyOOM. */
static void core_open(const char *root, const char *parent, long max_open,
                      bool more, core_figures *fig) {
  char err[256], pattern[4200];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, root, err, sizeof(err));
  snprintf(pattern, sizeof(pattern), "%s/**", parent);
  jc_config_add_pattern(cfg, false, pattern, err, sizeof(err));
  jc_config_add_collect(cfg, "cpu", err, sizeof(err));
  jc_config_add_collect(cfg, "pressure", err, sizeof(err));
  if (more)
    jc_config_add_collect(cfg, "limits", err, sizeof(err));
  cfg->notify_oom = more;
  cfg->report_root = false;
  if (max_open >= 0)
    jc_config_set_max_open_files(cfg, (double)max_open, err, sizeof(err));
  jc_config_finish(cfg, err, sizeof(err));
  struct mallinfo2 before = mallinfo2();
  int fds_before = count_fds();
  long kernel_before = sunreclaim_kb();
  core = jc_collector_new(cfg, NULL, NULL);
  if (jc_collector_init(core) < 0) {
    fprintf(stderr, "jc_bench: collector init failed\n");
    exit(1);
  }
  jc_collector_read(core, ignore_metric, NULL); /* warm: opens what it keeps */
  jc_collector_read(core, ignore_metric, NULL);
  jc_collector_stats st;
  jc_collector_get_stats(core, &st);
  struct mallinfo2 after = mallinfo2();
  fig->tracked = st.tracked;
  fig->heap_per_cgroup =
      st.tracked ? (after.uordblks - before.uordblks) / st.tracked : 0;
  fig->fds = count_fds() - fds_before;
  fig->kernel_kb = sunreclaim_kb() - kernel_before;
}

static void core_pass(void) { jc_collector_read(core, ignore_metric, NULL); }

static void core_close(void) {
  jc_collector_free(core);
  core = NULL;
}

/* Fastest of `repeats` runs of `passes` passes, in µs per cgroup per pass. */
static double timed(void (*pass)(void), int passes) {
  double t0 = now_us();
  for (int i = 0; i < passes; i++)
    pass();
  return (now_us() - t0) / passes / (double)path_count;
}

static double min2(double a, double b) { return a < b ? a : b; }

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: jc_bench ROOT PARENT PASSES [REPEATS]\n");
    return 2;
  }
  const char *root = argv[1], *parent = argv[2];
  int passes = atoi(argv[3]), repeats = argc > 4 ? atoi(argv[4]) : 5;
  char top[4200];
  snprintf(top, sizeof(top), "%s/%s", root, parent);
  find_cgroups(top);

  /* As many descriptors as this host allows (the hard limit). */
  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);

  double a = 1e99, b = 1e99, b_small = 1e99, c = 1e99, b_more = 1e99;
  core_figures fig = {0}, fig_small = {0}, fig_more = {0};
  for (int r = 0; r < repeats; r++) {
    a = min2(a, floor_timed(passes));

    core_open(root, parent, -1, false, &fig);
    b = min2(b, timed(core_pass, passes));
    core_close();

    /* Room for the directory descriptors only: stat files are opened per
       read, relative to them. */
    core_open(root, parent, (long)path_count, false, &fig_small);
    b_small = min2(b_small, timed(core_pass, passes));
    core_close();

    core_open(root, parent, -1, true, &fig_more);
    b_more = min2(b_more, timed(core_pass, passes));
    core_close();

    stdio_pass();
    c = min2(c, timed(stdio_pass, passes));
  }
  printf("fd_limit=%lu cgroups=%zu tracked=%zu a=%.3f b=%.3f b_small=%.3f c=%.3f "
         "b_over_a=%.2f bsmall_over_a=%.2f c_over_b=%.2f heap_per_cgroup=%zu "
         "fds=%d fds_small=%d kernel_kb=%ld kernel_kb_small=%ld "
         "b_more=%.3f fds_more=%d\n",
         (unsigned long)rl.rlim_cur, path_count, fig.tracked, a, b, b_small, c, b / a, b_small / a, c / b,
         fig.heap_per_cgroup, fig.fds, fig_small.fds, fig.kernel_kb,
         fig_small.kernel_kb, b_more, fig_more.fds);
  for (size_t i = 0; i < path_count; i++)
    free(paths[i]);
  free(paths);
  return 0;
}
