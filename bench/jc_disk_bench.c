/*
 * jc_disk_bench — what Collect "disk" adds to the core's read pass, and
 * what `du -s` of the same trees costs, on CONTAINERS Docker containers
 * of FILES files each in their writable layers, laid out as Docker's
 * overlay2 lays them out below a RuntimeRoot of the bench's own (STATE):
 *
 *   ROOT/PARENT/docker-<id>.scope             each container's cgroup (made
 *                                             by the caller)
 *   STATE/var/lib/docker/containers/<id>/     config.v2.json, its log
 *   STATE/var/lib/docker/image/overlay2/layerdb/mounts/<id>/mount-id
 *   STATE/var/lib/docker/overlay2/<mount-id>/diff/dNN/fNNNN   its layer:
 *                                             FILES files, 100 a directory
 *
 * File k of a layer holds 6,000 bytes when k % 20 is 0, 300 when k % 7
 * is 0, none otherwise (a layer's mix of small and empty files: 1,000,000
 * of them hold about 750 MB on tmpfs, pages and inodes).
 *
 * ROOT is a tree of files where ROOT/PARENT/docker-<id>.scope are there
 * already (scripts/bench.sh copies a full-controller cgroup of a fixture
 * for each: the default pass reads what it reads on a node with every
 * controller, whatever this host's cgroup v2 has).
 *
 * Between two rounds a tenth of the containers write a line to their
 * logs.  Two collectors on the cgroups, the shipped default set (default) and
 * the same with Collect "+disk" at DiskWalkEntries BUDGET (0: its
 * default), each timed in this thread's CPU time, one pass of each in
 * turn, PASSES rounds (the first includes the lookup of every container:
 * the worst pass is reported with it and without it).  Then `du -s` of
 * every layer (cAdvisor's container_fs_usage_bytes runs it every minute),
 * its CPU time as this process's children's, REPEATS times, the least.
 *
 *   jc_disk_bench ROOT PARENT STATE CONTAINERS FILES PASSES BUDGET REPEATS
 *
 * Prints one line of "key=value" figures for scripts/bench.sh (µs of CPU;
 * per_minute figures at Interval 10: six passes; PASSES rounds of three
 * passes of each).  Exits 1 and says why when a file cannot be made.
 */
#include "jc_collector.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *what) {
  fprintf(stderr, "jc_disk_bench: %s: %s\n", what, strerror(errno));
  exit(1);
}

static char state[4096];
static int containers, files;

static void id_of(int i, char out[65]) {
  snprintf(out, 65, "%064x", 0xd15c0000u + (unsigned)i);
}

static void mount_of(int i, char out[65]) {
  snprintf(out, 65, "%064x", 0xa7e10000u + (unsigned)i);
}

static void mkdirs(const char *path) {
  char p[4300];
  snprintf(p, sizeof(p), "%s", path);
  for (char *s = p + 1; (s = strchr(s, '/')); s++) {
    *s = '\0';
    if (mkdir(p, 0755) < 0 && errno != EEXIST)
      die(p);
    *s = '/';
  }
  if (mkdir(p, 0755) < 0 && errno != EEXIST)
    die(p);
}

static void write_file(const char *path, const char *text, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || (len && write(fd, text, len) != (ssize_t)len) || close(fd) < 0)
    die(path);
}

static char payload[8000];

/* A container's runtime state and its layer of FILES files. */
static void make_container(int i) {
  char id[65], m[65], p[4500], text[600];
  id_of(i, id);
  mount_of(i, m);
  snprintf(p, sizeof(p), "%s/var/lib/docker/containers/%s", state, id);
  mkdirs(p);
  snprintf(p, sizeof(p), "%s/var/lib/docker/containers/%s/config.v2.json",
           state, id);
  int len = snprintf(text, sizeof(text),
                     "{\"ID\":\"%s\",\"Name\":\"/bench-%d\",\"Driver\":"
                     "\"overlay2\",\"LogPath\":\"/var/lib/docker/containers/"
                     "%s/%s-json.log\"}",
                     id, i, id, id);
  write_file(p, text, (size_t)len);
  snprintf(p, sizeof(p), "%s/var/lib/docker/containers/%s/%s-json.log", state,
           id, id);
  write_file(p, payload, 3000);
  snprintf(p, sizeof(p), "%s/var/lib/docker/image/overlay2/layerdb/mounts/%s",
           state, id);
  mkdirs(p);
  snprintf(p, sizeof(p),
           "%s/var/lib/docker/image/overlay2/layerdb/mounts/%s/mount-id", state,
           id);
  write_file(p, m, 64);
  for (int k = 0; k < files; k++) {
    if (k % 100 == 0) {
      snprintf(p, sizeof(p), "%s/var/lib/docker/overlay2/%s/diff/d%02d", state,
               m, k / 100);
      mkdirs(p);
    }
    snprintf(p, sizeof(p), "%s/var/lib/docker/overlay2/%s/diff/d%02d/f%04d",
             state, m, k / 100, k);
    write_file(p, payload, k % 20 == 0 ? 6000 : k % 7 == 0 ? 300 : 0);
  }
}

/* ---- the collectors ------------------------------------------------------------ */

static size_t layer_lists; /* bytes-layer lists of a pass */

static void count(void *ctx, const jc_target *t, const jc_metric *m) {
  (void)ctx, (void)t;
  layer_lists += m->list == JC_LIST_DISK_LAYER;
}

static void quiet(void *ctx, int level, const char *msg) {
  (void)ctx;
  if (level <= 4) /* WARNING and worse: the bench is not what it says */
    fprintf(stderr, "jc_disk_bench: %s\n", msg);
}

static jc_collector *collector(const char *root, const char *parent, bool disk,
                               long budget) {
  char err[512], pattern[600];
  jc_config *cfg = jc_config_new();
  snprintf(pattern, sizeof(pattern), "%s/*", parent);
  if (jc_config_set_root(cfg, root, err, sizeof(err)) < 0 ||
      jc_config_add_pattern(cfg, false, pattern, err, sizeof(err)) < 0 ||
      (disk && (jc_config_add_collect(cfg, "+disk", err, sizeof(err)) < 0 ||
                jc_config_set_runtime_root(cfg, state, err, sizeof(err)) < 0 ||
                (budget > 0 &&
                 jc_config_set_disk_walk_entries(cfg, (double)budget, err,
                                                 sizeof(err)) < 0))) ||
      jc_config_finish(cfg, err, sizeof(err)) < 0) {
    fprintf(stderr, "jc_disk_bench: %s\n", err);
    exit(1);
  }
  cfg->report_root = false;
  jc_collector *c = jc_collector_new(cfg, quiet, NULL);
  if (!c || jc_collector_init(c) < 0)
    exit(1);
  return c;
}

/* Between two rounds a tenth of the containers write a line to their
 * logs (a different tenth each round), as a host's do between reads. */
static void some_write(int round) {
  for (int i = round % 10; i < containers; i += 10) {
    char id[65], p[4500];
    id_of(i, id);
    snprintf(p, sizeof(p), "%s/var/lib/docker/containers/%s/%s-json.log",
             state, id, id);
    int fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0 || write(fd, payload, 120) != 120)
      die(p);
    close(fd);
  }
}

static double timed_pass(jc_collector *c) {
  double t0 = now_us();
  jc_collector_read(c, count, NULL);
  return now_us() - t0;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(*v), by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- du -s ---------------------------------------------------------------------- */

/* `du -s` of every layer, one process: its CPU time, µs. */
static double du_all(void) {
  char **argv = calloc((size_t)containers + 3, sizeof(*argv));
  argv[0] = "du";
  argv[1] = "-s";
  for (int i = 0; i < containers; i++) {
    char m[65];
    mount_of(i, m);
    if (asprintf(&argv[i + 2], "%s/var/lib/docker/overlay2/%s/diff", state,
                 m) < 0)
      die("asprintf");
  }
  struct rusage before, after;
  getrusage(RUSAGE_CHILDREN, &before);
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    execvp("du", argv);
    _exit(127);
  }
  int status;
  waitpid(pid, &status, 0);
  getrusage(RUSAGE_CHILDREN, &after);
  for (int i = 0; i < containers; i++)
    free(argv[i + 2]);
  free(argv);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    errno = ECHILD;
    die("du -s");
  }
  double tv = 0;
  tv += (double)(after.ru_utime.tv_sec - before.ru_utime.tv_sec) * 1e6 +
        (double)(after.ru_utime.tv_usec - before.ru_utime.tv_usec);
  tv += (double)(after.ru_stime.tv_sec - before.ru_stime.tv_sec) * 1e6 +
        (double)(after.ru_stime.tv_usec - before.ru_stime.tv_usec);
  return tv;
}

/* Room for both collectors' descriptors (a walk's levels, each cgroup's
 * files): the hard limit, as a host's collectd unit gives it. */
static void raise_nofile(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

int main(int argc, char **argv) {
  raise_nofile();
  if (argc != 9) {
    fprintf(stderr, "usage: jc_disk_bench ROOT PARENT STATE CONTAINERS FILES "
                    "PASSES BUDGET REPEATS\n");
    return 2;
  }
  snprintf(state, sizeof(state), "%s", argv[3]);
  containers = atoi(argv[4]);
  files = atoi(argv[5]);
  int passes = atoi(argv[6]), repeats = atoi(argv[8]);
  long budget = atol(argv[7]);
  memset(payload, 'x', sizeof(payload));
  for (int i = 0; i < containers; i++)
    make_container(i);
  /* Runtime state as a host has it: written a while ago, not within the
   * second a directory's listing would be taken again (jc_dlogs). */
  sleep(2);
  /* Each one's init (its baseline read: the disk collector's looks every
   * container up there), then a read of each, untimed: the files opened. */
  double t0 = now_us();
  jc_collector *def = collector(argv[1], argv[2], false, 0);
  double def_init = now_us() - t0;
  t0 = now_us();
  jc_collector *disk = collector(argv[1], argv[2], true, budget);
  double disk_init = now_us() - t0;
  jc_collector_read(def, count, NULL);
  jc_collector_read(disk, count, NULL);
  double *d = calloc((size_t)passes, sizeof(*d));
  double *g = calloc((size_t)passes, sizeof(*g));
  double first = 0, walk_sum = 0, def_sum = 0;
  int figures_at = 0; /* the round at which every layer had a figure */
  long timed = 0;
  double one_max = 0; /* the slowest single default pass */
  for (int r = 0; r < passes; r++) {
    /* Three of each in turn, the order alternating; each round's figure
     * the fastest of its three (what the pass costs, less what the
     * machine's other work added to one of them). */
    d[r] = g[r] = 1e18;
    for (int k = 0; k < 3; k++) {
      some_write(3 * r + k);
      layer_lists = 0;
      double dt, gt;
      if ((3 * r + k) % 2) {
        gt = timed_pass(disk);
        dt = timed_pass(def);
      } else {
        dt = timed_pass(def);
        gt = timed_pass(disk);
      }
      if (!figures_at && layer_lists == (size_t)containers)
        figures_at = r + 1;
      if (r == 0 && k == 0)
        first = gt;
      one_max = dt > one_max ? dt : one_max;
      d[r] = dt < d[r] ? dt : d[r];
      g[r] = gt < g[r] ? gt : g[r];
      walk_sum += gt;
      def_sum += dt;
      timed++;
    }
  }
  /* Each round's disk pass against its own default pass: the group's
   * worst pass; the default's own spread (its slowest single pass
   * against its median) says what the machine's other work does. */
  int steady = passes;
  double *pair = calloc((size_t)steady, sizeof(*pair));
  double dmax = 0, gmax = 0;
  for (int r = 0; r < passes; r++) {
    dmax = d[r] > dmax ? d[r] : dmax;
    gmax = g[r] > gmax ? g[r] : gmax;
    pair[r] = g[r] / d[r];
  }
  double dmed = median(d, passes), gmed = median(g, passes);
  qsort(pair, (size_t)steady, sizeof(*pair), by_value);
  double worst = pair[steady - 1], p90 = pair[(steady * 9) / 10];
  double du_best = 0;
  for (int k = 0; k < repeats; k++) {
    double t = du_all();
    du_best = k == 0 || t < du_best ? t : du_best;
  }
  printf("containers=%d files=%d rounds=%d default_median=%.1f "
         "default_max=%.1f default_noise=%.3f disk_median=%.1f "
         "disk_max=%.1f first_pass=%.1f default_init=%.1f disk_init=%.1f "
         "init_ratio=%.3f worst_paired=%.3f p90_paired=%.3f "
         "median_paired=%.3f mean_ratio=%.3f group_per_pass=%.1f "
         "group_per_minute=%.1f du_per_minute=%.1f group_over_du=%.4f "
         "every_figure_at=%d\n",
         containers, files, passes, dmed, dmax, one_max / dmed, gmed, gmax, first,
         def_init, disk_init, disk_init / def_init,
         worst, p90, median(pair, steady), walk_sum / def_sum,
         (walk_sum - def_sum) / (double)timed,
         6 * (walk_sum - def_sum) / (double)timed, du_best,
         6 * (walk_sum / timed - def_sum / timed) / du_best, figures_at);
  free(pair);
  jc_collector_free(def);
  jc_collector_free(disk);
  free(d);
  free(g);
  return 0;
}
