/*
 * jc_bench — what the core's read pass costs per cgroup, for two value
 * sets, each beside the kernel's floor for the same files:
 *
 *   default   the shipped default (no Collect, no Values): the files its
 *             lists need that this hierarchy has (on a hybrid host only
 *             cpu.stat);
 *   pressure  Collect "cpu" "pressure": cpu.stat and the three pressure
 *             files, which every cgroup v2 directory has.
 *
 * For each set:
 *
 *   a       the floor: one pread per file on descriptors kept open, no
 *           parsing (when the descriptor limit cannot hold them all, in
 *           chunks that fit, the chunks' times added up);
 *   b       jc_collector_read with an emit that does nothing: discovery
 *           when nothing changed, read, parse, metrics — with the default
 *           descriptor budget, from the soft RLIMIT_NOFILE as it is (the
 *           plugin no longer raises it);
 *   reopen  the same with MaxOpenFiles = the number of cgroups: one
 *           directory descriptor per cgroup and no room for files, so
 *           every file is opened at every read, relative to it.
 *
 * Each figure is timed REPEATS times, interleaved, and the fastest run
 * counts: on a shared machine the minimum is the least disturbed.
 *
 *   jc_bench ROOT PARENT PASSES [REPEATS]
 *
 * Prints one line of "key=value" figures for scripts/bench.sh.
 */
#include "jc_collector.h"

#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static volatile size_t sink;

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

/* The cgroups below dir, not dir itself (as the core selects them). */
static void find_cgroups(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *de;
  while (d && (de = readdir(d))) {
    if (de->d_type != DT_DIR || de->d_name[0] == '.')
      continue;
    char child[4096];
    snprintf(child, sizeof(child), "%s/%s", dir, de->d_name);
    add_path(child);
    find_cgroups(child);
  }
  if (d)
    closedir(d);
}

/* `passes` passes, in µs per pass over `per` cgroups. */
static double timed_per(void (*pass)(void), int passes, size_t per) {
  double t0 = now_us();
  for (int i = 0; i < passes; i++)
    pass();
  return (now_us() - t0) / passes / (double)per;
}

/* `passes` passes, in µs per cgroup per pass. */
static double timed(void (*pass)(void), int passes) {
  return timed_per(pass, passes, path_count);
}

static double min2(double a, double b) { return a < b ? a : b; }

/* ---- (a) the floor ------------------------------------------------------- */

static const char *floor_names[JC_FILE_COUNT];
static int floor_files;
static int *floor_fds;
static size_t chunk_count;

static bool floor_has(const char *name) {
  for (int i = 0; i < floor_files; i++)
    if (strcmp(floor_names[i], name) == 0)
      return true;
  return false;
}

/* The files the core reads for a set (what jc_collector_get_stats says),
 * each once (memory.peak is there twice when the interval peak is on),
 * that the cgroups have (cpuset.cpus.effective, read for the energy per
 * package, only where the cpuset controller is enabled). */
static void floor_choose(uint32_t files) {
  floor_files = 0;
  for (int f = 0; f < JC_FILE_COUNT; f++) {
    char p[4200];
    snprintf(p, sizeof(p), "%s/%s", paths[0], jc_sample_files[f].name);
    if ((files & (1u << f)) && !floor_has(jc_sample_files[f].name) &&
        access(p, F_OK) == 0)
      floor_names[floor_files++] = jc_sample_files[f].name;
  }
}

static void floor_open(size_t first, size_t count) {
  chunk_count = count;
  floor_fds = malloc(count * (size_t)floor_files * sizeof(int));
  for (size_t i = 0; i < count; i++)
    for (int f = 0; f < floor_files; f++) {
      char p[4200];
      snprintf(p, sizeof(p), "%s/%s", paths[first + i], floor_names[f]);
      int fd = open(p, O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        perror(p);
        exit(1);
      }
      floor_fds[i * (size_t)floor_files + (size_t)f] = fd;
    }
}

static void floor_close(void) {
  for (size_t i = 0; i < chunk_count * (size_t)floor_files; i++)
    close(floor_fds[i]);
  free(floor_fds);
}

static void floor_pass(void) {
  char buf[4096];
  for (size_t i = 0; i < chunk_count * (size_t)floor_files; i++)
    sink += (size_t)pread(floor_fds[i], buf, sizeof(buf), 0);
}

/* µs per cgroup per pass over the first `n` cgroups, chunk by chunk. */
static double floor_timed(int passes, size_t n) {
  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  size_t room = ((size_t)rl.rlim_cur - 64) / (size_t)floor_files;
  double us = 0;
  for (size_t first = 0; first < n; first += room) {
    size_t count = n - first < room ? n - first : room;
    floor_open(first, count);
    floor_pass();
    us += timed_per(floor_pass, passes, 1);
    floor_close();
  }
  return us / (double)n;
}

/* The floor of reading SUBSET_READ of many more cgroups: does a file cost
 * more because the hierarchy is big, or because what is read no longer
 * fits the CPU's caches?  (Only the latter grows with what is read.) */
#define SUBSET_READ 1000

/* ---- (b) the core ----------------------------------------------------------- */

static void ignore_metric(void *ctx, const jc_target *t, const jc_metric *m) {
  (void)ctx, (void)t, (void)m;
  sink++;
}

static jc_collector *core;

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
  size_t tracked;
  size_t heap_per_cgroup;
  int fds;        /* descriptors the core holds between reads */
  uint32_t files; /* what it reads per cgroup */
} core_figures;

typedef struct {
  const char *name;
  const char *const *collect; /* NULL-terminated; NULL: the default */
  double a, a_subset, b, reopen;
  core_figures kept, small;
} value_set;

/* The core on every cgroup below parent with set's Collect; max_open < 0:
 * the default budget. */
static void core_open(const char *root, const char *parent, const value_set *set,
                      long max_open, core_figures *fig) {
  char err[256], pattern[4200];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, root, err, sizeof(err));
  snprintf(pattern, sizeof(pattern), "%s/*", parent); /* not parent itself */
  jc_config_add_pattern(cfg, false, pattern, err, sizeof(err));
  snprintf(pattern, sizeof(pattern), "%s/*/**", parent);
  jc_config_add_pattern(cfg, false, pattern, err, sizeof(err));
  for (const char *const *w = set->collect; w && *w; w++)
    jc_config_add_collect(cfg, *w, err, sizeof(err));
  const char *zones = getenv("JC_BENCH_POWERCAP"); /* the energy sets' */
  if (zones)
    jc_config_set_powercap_root(cfg, zones, err, sizeof(err));
  /* The packages set: the zones split per package, by the CPU topology
   * and the per-CPU /proc/stat of the two-socket host of the fixtures. */
  if (strcmp(set->name, "packages") == 0) {
    jc_config_set_cpu_root(cfg, getenv("JC_BENCH_CPUROOT"), err, sizeof(err));
    jc_config_set_proc_stat(cfg, getenv("JC_BENCH_PROCSTAT"), err, sizeof(err));
  }
  cfg->report_root = false;
  if (max_open >= 0)
    jc_config_set_max_open_files(cfg, (double)max_open, err, sizeof(err));
  if (jc_config_finish(cfg, err, sizeof(err)) < 0) {
    fprintf(stderr, "jc_bench: %s\n", err);
    exit(1);
  }
  struct mallinfo2 before = mallinfo2();
  int fds_before = count_fds();
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
  fig->files = st.files;
}

static void core_pass(void) { jc_collector_read(core, ignore_metric, NULL); }

static void core_close(void) {
  jc_collector_free(core);
  core = NULL;
}

/* One repeat of a set: the core kept, its floor, the core reopening. */
static void measure(const char *root, const char *parent, value_set *s,
                    int passes) {
  core_open(root, parent, s, -1, &s->kept);
  s->b = min2(s->b, timed(core_pass, passes));
  core_close();

  floor_choose(s->kept.files);
  s->a = min2(s->a, floor_timed(passes, path_count));
  if (path_count > SUBSET_READ)
    s->a_subset = min2(s->a_subset,
                       floor_timed(passes * (int)(path_count / SUBSET_READ),
                                   SUBSET_READ));

  core_open(root, parent, s, (long)path_count, &s->small);
  s->reopen = min2(s->reopen, timed(core_pass, passes));
  core_close();
}

static void print_set(const value_set *s) {
  floor_choose(s->kept.files);
  int files = floor_files;
  printf(" %s_files=%d %s_a=%.3f %s_b=%.3f %s_reopen=%.3f %s_b_over_a=%.2f "
         "%s_reopen_over_a=%.2f %s_fds=%d %s_fds_reopen=%d %s_heap=%zu",
         s->name, files, s->name, s->a, s->name, s->b, s->name, s->reopen,
         s->name, s->b / s->a, s->name, s->reopen / s->a, s->name, s->kept.fds,
         s->name, s->small.fds, s->name, s->kept.heap_per_cgroup);
  if (path_count > SUBSET_READ)
    printf(" %s_a_of%d=%.3f", s->name, SUBSET_READ, s->a_subset);
}

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
  if (path_count == 0) {
    fprintf(stderr, "jc_bench: no cgroup below %s\n", top);
    return 1;
  }

  static const char *const pressure[] = {"cpu", "pressure", NULL};
  /* With JC_BENCH_POWERCAP (a powercap tree): Collect "cpu" "energy", whose
   * zones and /proc/stat are read once per pass, not per cgroup. */
  static const char *const energy[] = {"cpu", "energy", NULL};
  value_set sets[] = {
      {"default", NULL, 1e99, 1e99, 1e99, 1e99, {0}, {0}},
      {"pressure", pressure, 1e99, 1e99, 1e99, 1e99, {0}, {0}},
      {"energy", energy, 1e99, 1e99, 1e99, 1e99, {0}, {0}},
      {"packages", energy, 1e99, 1e99, 1e99, 1e99, {0}, {0}},
  };
  size_t set_count = !getenv("JC_BENCH_POWERCAP") ? 2
                     : getenv("JC_BENCH_CPUROOT") && getenv("JC_BENCH_PROCSTAT")
                         ? 4
                         : 3;
  for (int r = 0; r < repeats; r++)
    for (size_t i = 0; i < set_count; i++)
      measure(root, parent, &sets[i], passes);

  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  printf("cgroups=%zu tracked=%zu fd_soft=%lu", path_count, sets[0].kept.tracked,
         (unsigned long)rl.rlim_cur);
  for (size_t i = 0; i < set_count; i++)
    print_set(&sets[i]);
  printf("\n");
  for (size_t i = 0; i < path_count; i++)
    free(paths[i]);
  free(paths);
  return 0;
}
