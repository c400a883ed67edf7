/*
 * jc_names_bench — what InstanceFrom "container" costs the read pass,
 * against InstanceFrom "path" on the same cgroups, with churn.
 *
 * The cgroups are a Kubernetes node's (systemd driver) on this host's
 * cgroup v2: below ROOT/PARENT, kubepods.slice, its QoS slices, a slice
 * per pod and a scope per container (the pause container and one of the
 * pod's own), every scope selected as docs/containers.md selects
 * Kubernetes containers.  Their runtime state, written by
 * bench/make-runtime-state.py in STATE (containerd's bundles, the
 * kubelet's logs), is moved into STATE/root, the RuntimeRoot, when a pod
 * starts, before its cgroups are made, and back when it stops, after its
 * cgroups are gone: in that order a runtime and the kubelet do it.
 *
 * One run: the first LIVE pods start; a collector of each mode starts
 * and reads twice; then PASSES times, as a second of Interval 1 with 10
 * containers created and 10 removed a second: 5 pods start, the 5
 * oldest stop, and each collector's read pass is timed (the walk that
 * the changes start, the new cgroups' first reads and, with
 * "container", their names, are in it); then PASSES passes without a
 * change.  REPEATS runs; the figures are medians over every pass: of
 * each mode's pass, and of the passes' ratios.  Also timed: one
 * jc_runtime_name per container of LIVE pods, its files in the page
 * cache (the cost of naming one container), the fastest of 20 rounds.
 *
 *   jc_names_bench ROOT PARENT STATE LIVE PASSES REPEATS
 *
 * Prints one line of key=value figures for scripts/bench.sh.  Every
 * cgroup it makes is removed; the state goes back to STATE/staged.
 */
#include "jc_collector.h"
#include "jc_runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHURN_PODS 5 /* a second: 10 containers in, 10 out */
#define MAX_STATE 4
#define PATH 1024

typedef struct {
  char slice[PATH];
  char scope[2][PATH];
  char state[MAX_STATE][PATH];
  int states;
} pod;

static const char *root, *parent, *state_dir;
static pod *pods;
static int pod_count;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *what, const char *path) {
  fprintf(stderr, "jc_names_bench: %s %s: %s\n", what, path, strerror(errno));
  exit(1);
}

/* pods.tsv: K, slice, "scope scope", "state ..." per line. */
static void load_pods(void) {
  char path[PATH], line[8 * PATH];
  snprintf(path, sizeof(path), "%s/pods.tsv", state_dir);
  FILE *f = fopen(path, "r");
  if (!f)
    die("open", path);
  while (fgets(line, sizeof(line), f)) {
    pods = realloc(pods, (size_t)(pod_count + 1) * sizeof(*pods));
    pod *p = &pods[pod_count++];
    memset(p, 0, sizeof(*p));
    strtok(line, "\t\n");
    snprintf(p->slice, PATH, "%s", strtok(NULL, "\t\n"));
    char *scopes = strtok(NULL, "\t\n"), *states = strtok(NULL, "\t\n");
    snprintf(p->scope[0], PATH, "%s", strtok(scopes, " "));
    snprintf(p->scope[1], PATH, "%s", strtok(NULL, " "));
    for (char *s = strtok(states, " "); s && p->states < MAX_STATE; s = strtok(NULL, " "))
      snprintf(p->state[p->states++], PATH, "%s", s);
  }
  fclose(f);
}

static void cg_mkdir(const char *rel) {
  char path[3 * PATH];
  snprintf(path, sizeof(path), "%s/%s/%s", root, parent, rel);
  if (mkdir(path, 0755) < 0 && errno != EEXIST)
    die("mkdir", path);
}

static void cg_rmdir(const char *rel) {
  char path[3 * PATH];
  snprintf(path, sizeof(path), "%s/%s/%s", root, parent, rel);
  if (rmdir(path) < 0)
    die("rmdir", path);
}

/* The state of pod k, from staged/ into root/ (in) or back. */
static void move_state(int k, int in) {
  for (int i = 0; i < pods[k].states; i++) {
    char staged[3 * PATH], live[3 * PATH];
    snprintf(staged, sizeof(staged), "%s/staged/%d/%s", state_dir, k, pods[k].state[i]);
    snprintf(live, sizeof(live), "%s/root/%s", state_dir, pods[k].state[i]);
    if (rename(in ? staged : live, in ? live : staged) < 0)
      die("rename", in ? staged : live);
  }
}

static void pod_start(int k) {
  move_state(k, 1);
  cg_mkdir(pods[k].slice);
  cg_mkdir(pods[k].scope[0]);
  cg_mkdir(pods[k].scope[1]);
}

static void pod_stop(int k) {
  cg_rmdir(pods[k].scope[0]);
  cg_rmdir(pods[k].scope[1]);
  cg_rmdir(pods[k].slice);
  move_state(k, 0);
}

static void ignore_metric(void *ctx, const jc_target *t, const jc_metric *m) {
  (void)ctx, (void)t, (void)m;
}

static int log_lines;
static void count_log(void *ctx, int level, const char *msg) {
  (void)ctx;
  if (level <= JC_LOG_WARNING) {
    log_lines++;
    fprintf(stderr, "jc_names_bench: %s\n", msg);
  }
}

static size_t named; /* instances that are not path names */
static void count_named(void *ctx, const jc_target *t) {
  (void)ctx;
  named += strstr(t->instance, "cri-containerd-") == NULL;
}

static jc_collector *collector(int container) {
  char cgroot[2 * PATH], rtroot[2 * PATH], err[256];
  snprintf(cgroot, sizeof(cgroot), "%s/%s", root, parent);
  snprintf(rtroot, sizeof(rtroot), "%s/root", state_dir);
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, cgroot, err, sizeof(err));
  jc_config_add_pattern(cfg, false, "kubepods.slice/**/*.scope", err, sizeof(err));
  cfg->report_root = false;
  if (container) {
    jc_config_set_instance_from(cfg, "container", err, sizeof(err));
    jc_config_set_runtime_root(cfg, rtroot, err, sizeof(err));
  }
  if (jc_config_finish(cfg, err, sizeof(err)) < 0) {
    fprintf(stderr, "jc_names_bench: %s\n", err);
    exit(1);
  }
  jc_collector *c = jc_collector_new(cfg, count_log, NULL);
  if (jc_collector_init(c) < 0) {
    fprintf(stderr, "jc_names_bench: collector init failed\n");
    exit(1);
  }
  jc_collector_read(c, ignore_metric, NULL);
  jc_collector_read(c, ignore_metric, NULL);
  return c;
}

static double timed_read(jc_collector *c) {
  double t0 = now_us();
  jc_collector_read(c, ignore_metric, NULL);
  return now_us() - t0;
}

/* Every pass of every run: µs of each mode's read, with and without churn. */
typedef struct {
  double *us[2];
  size_t count;
} passes_of;

static passes_of churned, quiet;

static void add_pass(passes_of *p, const double us[2]) {
  for (int m = 0; m < 2; m++) {
    p->us[m] = realloc(p->us[m], (p->count + 1) * sizeof(double));
    p->us[m][p->count] = us[m];
  }
  p->count++;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
  qsort(v, n, sizeof(*v), cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median of each mode's passes, µs per cgroup, and the median of the
 * ratios (container over path) of two passes, one of them read by each
 * mode first: each pass is read by both, one right after the other, so
 * that what the machine does meanwhile falls on both alike, and the
 * second reader, which finds the kernel's objects warm, is each mode in
 * turn. */
static void medians(passes_of *p, size_t tracked, double ret[3]) {
  size_t pairs = p->count / 2;
  double *ratio = malloc(pairs * sizeof(double));
  for (size_t i = 0; i < pairs; i++)
    ratio[i] = (p->us[1][2 * i] + p->us[1][2 * i + 1]) /
               (p->us[0][2 * i] + p->us[0][2 * i + 1]);
  ret[2] = median(ratio, pairs);
  for (int m = 0; m < 2; m++)
    ret[m] = median(p->us[m], p->count) / (double)tracked;
  free(ratio);
}

static size_t tracked, named_of[2];

/*
 * One run: both collectors on the same cgroups, each pass read by both,
 * in turn first (the first reader after a change finds the new cgroups'
 * kernel objects cold).  `passes` passes with churn, then as many
 * without.
 */
static void run(int live, int passes) {
  for (int k = 0; k < live; k++)
    pod_start(k);
  jc_collector *c[2] = {collector(0), collector(1)};
  double us[2];
  for (int s = 0; s < passes; s++) {
    for (int i = 0; i < CHURN_PODS; i++)
      pod_start(live + s * CHURN_PODS + i);
    for (int i = 0; i < CHURN_PODS; i++)
      pod_stop(s * CHURN_PODS + i);
    int first = s % 2;
    us[first] = timed_read(c[first]);
    us[!first] = timed_read(c[!first]);
    add_pass(&churned, us);
  }
  for (int s = 0; s < passes; s++) {
    int first = s % 2;
    us[first] = timed_read(c[first]);
    us[!first] = timed_read(c[!first]);
    add_pass(&quiet, us);
  }
  jc_collector_stats st;
  jc_collector_get_stats(c[0], &st);
  tracked = st.tracked;
  for (int m = 0; m < 2; m++) {
    named = 0;
    jc_collector_each_target(c[m], count_named, NULL);
    named_of[m] = named;
    jc_collector_free(c[m]);
  }
  for (int k = passes * CHURN_PODS; k < live + passes * CHURN_PODS; k++)
    pod_stop(k);
}

/* µs per jc_runtime_name of the containers of the first `live` pods. */
static double lookups(int live) {
  char rtroot[2 * PATH], name[JC_INSTANCE_SIZE];
  snprintf(rtroot, sizeof(rtroot), "%s/root", state_dir);
  jc_log log = {count_log, NULL};
  jc_runtime *rt = jc_runtime_new(rtroot, NULL, &log);
  if (!rt)
    die("RuntimeRoot", rtroot);
  for (int k = 0; k < live; k++)
    move_state(k, 1);
  double best = 1e99;
  for (int r = 0; r < 21; r++) { /* the first warms the cache */
    double t0 = now_us();
    for (int k = 0; k < live; k++)
      for (int i = 0; i < 2; i++)
        if (jc_runtime_name(rt, pods[k].scope[i], name) != 0)
          log_lines++;
    double us = (now_us() - t0) / (2.0 * live);
    best = r && us < best ? us : best;
  }
  for (int k = 0; k < live; k++)
    move_state(k, 0);
  jc_runtime_free(rt);
  return best;
}

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: jc_names_bench ROOT PARENT STATE LIVE PASSES REPEATS\n");
    return 2;
  }
  root = argv[1], parent = argv[2], state_dir = argv[3];
  int live = atoi(argv[4]), passes = atoi(argv[5]) / 2 * 2, repeats = atoi(argv[6]);
  load_pods();
  if (pod_count < live + passes * CHURN_PODS) {
    fprintf(stderr, "jc_names_bench: %d pods in %s/pods.tsv, %d needed\n",
            pod_count, state_dir, live + passes * CHURN_PODS);
    return 1;
  }
  cg_mkdir("");
  cg_mkdir("kubepods.slice");
  cg_mkdir("kubepods.slice/kubepods-burstable.slice");
  cg_mkdir("kubepods.slice/kubepods-besteffort.slice");

  for (int r = 0; r < repeats; r++)
    run(live, passes);
  double ch[3], qu[3];
  medians(&churned, tracked, ch);
  medians(&quiet, tracked, qu);
  double lookup = lookups(live);

  cg_rmdir("kubepods.slice/kubepods-burstable.slice");
  cg_rmdir("kubepods.slice/kubepods-besteffort.slice");
  cg_rmdir("kubepods.slice");
  cg_rmdir("");
  printf("containers=%zu named_path=%zu named_container=%zu passes=%zu churn=%d "
         "path=%.3f container=%.3f ratio=%.3f quiet_path=%.3f "
         "quiet_container=%.3f quiet_ratio=%.3f lookup=%.2f problems=%d\n",
         tracked, named_of[0], named_of[1], churned.count, 2 * CHURN_PODS,
         ch[0], ch[1], ch[2], qu[0], qu[1], qu[2], lookup, log_lines);
  for (int m = 0; m < 2; m++) {
    free(churned.us[m]);
    free(quiet.us[m]);
  }
  free(pods);
  return log_lines ? 1 : 0;
}
