/*
 * jc_net_bench — what Collect "network" adds to the core's read pass, on
 * PODS pods of two containers each (a pause process and an app process),
 * each pod with a network namespace of its own holding one veth whose
 * other end is in this namespace, as a container runtime makes them:
 *
 *   PARENT/pN          the pod's cgroup, no process of its own
 *   PARENT/pN/pause    a process that made the namespace (unshare)
 *   PARENT/pN/app      a process that joined it (setns)
 *
 * It makes the cgroups, the processes (killed with this program: they
 * die with it, PR_SET_PDEATHSIG) and the veths (`ip -batch`, as root;
 * each goes with its namespace when the processes end), and times passes
 * of each of these, one of each in turn, PASSES x REPEATS rounds, in this
 * thread's CPU time, each figure the median of its rounds, beside the
 * process's user-mode time over every pass of a set (the step's own code):
 *
 *   default   jc_collector_read, the shipped default (no Collect), with an
 *             emit that counts;
 *   net       the same with Collect "+network";
 *   health    Collect "+network" and Values "protocol_counter-*": the
 *             namespace's net/snmp and net/netstat too;
 *   default_full, net_full  default and net with every pass a full
 *             check (RescanInterval 0: each pass also walks the tree, in
 *             both, so that their difference is the step's full check);
 *             the pass of Interval 10 that falls on a RescanInterval of
 *             60 is one in six;
 *   floor     the kernel's own work for those files, per namespace: open,
 *             read to the end and close /proc/PID/net/dev of the pause
 *             process (floor_health: and its net/snmp and net/netstat), no
 *             parsing;
 *   kept      the same files kept open, read again from their start to
 *             the end (pread at 0, then at the end: what the step makes
 *             the kernel do for them);
 *   stateless what a reader that keeps nothing makes the kernel do per
 *             namespace (cAdvisor's way): each cgroup's cgroup.procs
 *             opened, read and closed, both processes' ns/net links, the
 *             floor's files opened, read and closed;
 *   checks    the kernel's part of what the step does per namespace to
 *             check it at each pass: one pread at 0 of the pod's
 *             cgroup.procs kept open (empty: no process of its own), and
 *             one epoll_wait a pass on the pidfds of every container's
 *             process (did one end?), its share of a namespace;
 *   full      what a full check (every RescanInterval) makes the kernel
 *             do per namespace: one pread at 0 of each cgroup's
 *             cgroup.procs kept open (the pod's, empty; each container's,
 *             its pid: is the process still in its cgroup?) and a readlink
 *             of /proc/PID/ns/net for both containers' processes (still in
 *             its namespace?).
 *
 *   jc_net_bench ROOT PARENT PODS PASSES [REPEATS]
 *
 * With JC_NET_BENCH_SHOW set, the lists of each set's counted read go to
 * stderr, one a line: the cgroup, the type and its instance.
 * Prints one line of "key=value" figures for scripts/bench.sh; removes
 * the cgroups it made.  Exits 1 (and says why) when a pod cannot be made.
 */
#include "jc_collector.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* This thread's CPU time, µs: what a pass costs the machine, whatever
 * else runs beside it (wall time on a shared machine counts the waits for
 * a CPU too; the fastest of several runs cannot always leave them out). */
static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* This process's CPU time in user mode, µs: the plugin's own code, beside
 * the kernel's work it asks for (the tick samples which mode a CPU second
 * was in: summed over every timed pass, the split is good to a few
 * per cent). */
static double user_us(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec;
}

static volatile size_t sink;

/* ---- the pods ------------------------------------------------------------ */

static char top[4096];
static int pods;
static pid_t *pause_pid, *app_pid;

static void die(const char *what) {
  fprintf(stderr, "jc_net_bench: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void join_cgroup(const char *dir) {
  char p[4200];
  snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
  FILE *f = fopen(p, "w");
  if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0)
    _exit(3);
}

/* A child in the cgroup dir: in a new network namespace (ns_of 0), or in
 * that of process ns_of; tells the parent through a pipe, then sleeps. */
static pid_t start_child(const char *dir, pid_t ns_of) {
  int fds[2];
  if (pipe(fds) < 0)
    die("pipe");
  pid_t pid = fork();
  if (pid < 0)
    die("fork");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(fds[0]);
    join_cgroup(dir);
    if (!ns_of) {
      if (unshare(CLONE_NEWNET) < 0)
        _exit(4);
    } else {
      char p[64];
      snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)ns_of);
      int fd = open(p, O_RDONLY | O_CLOEXEC);
      if (fd < 0 || setns(fd, CLONE_NEWNET) < 0)
        _exit(5);
      close(fd);
    }
    if (write(fds[1], "k", 1) != 1)
      _exit(6);
    for (;;)
      pause();
  }
  close(fds[1]);
  char k;
  if (read(fds[0], &k, 1) != 1) {
    errno = ECHILD;
    die(dir);
  }
  close(fds[0]);
  return pid;
}

/* Enables for dir's children every controller dir has, as a runtime does
 * for its pods and containers (the kubelet: cpu, memory, io, pids...), so
 * that the default pass reads what it reads on such a node.  One at a
 * time: one the kernel refuses is left out, and said. */
static void enable_controllers(const char *dir) {
  char p[4300], list[512];
  snprintf(p, sizeof(p), "%s/cgroup.controllers", dir);
  FILE *f = fopen(p, "r");
  if (!f)
    return;
  size_t n = fread(list, 1, sizeof(list) - 1, f);
  fclose(f);
  list[n] = '\0';
  snprintf(p, sizeof(p), "%s/cgroup.subtree_control", dir);
  for (char *save, *w = strtok_r(list, " \n", &save); w;
       w = strtok_r(NULL, " \n", &save)) {
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
      return;
    char plus[64];
    int len = snprintf(plus, sizeof(plus), "+%s", w);
    if (write(fd, plus, (size_t)len) < 0)
      fprintf(stderr, "jc_net_bench: %s: +%s left out: %s\n", p, w,
              strerror(errno));
    close(fd);
  }
}

static void make_pods(void) {
  pause_pid = calloc((size_t)pods, sizeof(pid_t));
  app_pid = calloc((size_t)pods, sizeof(pid_t));
  if (mkdir(top, 0755) < 0)
    die(top);
  enable_controllers(top);
  for (int i = 0; i < pods; i++) {
    char pod[4200], c[4300];
    snprintf(pod, sizeof(pod), "%s/p%d", top, i);
    if (mkdir(pod, 0755) < 0)
      die(pod);
    enable_controllers(pod);
    snprintf(c, sizeof(c), "%s/pause", pod);
    if (mkdir(c, 0755) < 0)
      die(c);
    pause_pid[i] = start_child(c, 0);
    snprintf(c, sizeof(c), "%s/app", pod);
    if (mkdir(c, 0755) < 0)
      die(c);
    app_pid[i] = start_child(c, pause_pid[i]);
  }
  /* One veth per pod: this end here, eth0 in the pod's namespace. */
  char batch[] = "/tmp/jc-net-bench.XXXXXX";
  int fd = mkstemp(batch);
  if (fd < 0)
    die("mkstemp");
  FILE *f = fdopen(fd, "w");
  for (int i = 0; i < pods; i++)
    fprintf(f, "link add jn%d_%d type veth peer name eth0 netns %d\n", i,
            (int)(getpid() % 10000), (int)pause_pid[i]);
  fclose(f);
  char cmd[256];
  snprintf(cmd, sizeof(cmd), "ip -batch %s", batch);
  int rc = system(cmd);
  unlink(batch);
  if (rc != 0) {
    fprintf(stderr, "jc_net_bench: %s failed (%d)\n", cmd, rc);
    exit(1);
  }
}

/* The processes killed (their namespaces, and the veths in them, go with
 * them), the cgroups removed. */
static void drop_pods(void) {
  for (int i = 0; i < pods; i++) {
    kill(pause_pid[i], SIGKILL);
    kill(app_pid[i], SIGKILL);
  }
  while (wait(NULL) > 0 || errno == EINTR)
    ;
  for (int i = 0; i < pods; i++) {
    char p[4300];
    snprintf(p, sizeof(p), "%s/p%d/pause", top, i);
    rmdir(p);
    snprintf(p, sizeof(p), "%s/p%d/app", top, i);
    rmdir(p);
    snprintf(p, sizeof(p), "%s/p%d", top, i);
    rmdir(p);
  }
  rmdir(top);
}

/* ---- the floors ------------------------------------------------------------- */

static int floor_files = 1; /* net/dev; 3: and net/snmp, net/netstat */

static void read_whole(const char *path) {
  char buf[16384];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    die(path);
  ssize_t got;
  while ((got = read(fd, buf, sizeof(buf))) > 0)
    sink += (size_t)got;
  close(fd);
}

static const char *const net_files[] = {"dev", "snmp", "netstat"};

static void floor_pass(void) {
  for (int i = 0; i < pods; i++)
    for (int f = 0; f < floor_files; f++) {
      char p[64];
      snprintf(p, sizeof(p), "/proc/%d/net/%s", (int)pause_pid[i],
               net_files[f]);
      read_whole(p);
    }
}

/* The files kept open: the pause process's net files, each cgroup's
 * cgroup.procs (pod, pause, app). */
static int (*kept_net)[3], (*kept_procs)[3];
/* A pod's three cgroups below its own: itself, pause, app. */
static const char *const levels[] = {"", "/pause", "/app"};
/* Both processes' pidfds, in one epoll set (checks). */
static int (*pidfds)[2], epfd = -1;

static void keep_files(void) {
  kept_net = calloc((size_t)pods, sizeof(*kept_net));
  kept_procs = calloc((size_t)pods, sizeof(*kept_procs));
  for (int i = 0; i < pods; i++)
    for (int f = 0; f < 3; f++) {
      char p[4300];
      snprintf(p, sizeof(p), "/proc/%d/net/%s", (int)pause_pid[i],
               net_files[f]);
      if ((kept_net[i][f] = open(p, O_RDONLY | O_CLOEXEC)) < 0)
        die(p);
      snprintf(p, sizeof(p), "%s/p%d%s/cgroup.procs", top, i, levels[f]);
      if ((kept_procs[i][f] = open(p, O_RDONLY | O_CLOEXEC)) < 0)
        die(p);
    }
}

static void close_kept(void) {
  for (int i = 0; i < pods; i++)
    for (int f = 0; f < 3; f++) {
      close(kept_net[i][f]);
      close(kept_procs[i][f]);
      if (f < 2 && pidfds)
        close(pidfds[i][f]);
    }
  if (epfd >= 0)
    close(epfd);
}

static void kept_pass(void) {
  char buf[16384];
  for (int i = 0; i < pods; i++)
    for (int f = 0; f < floor_files; f++) {
      ssize_t got, have = 0;
      while ((got = pread(kept_net[i][f], buf, sizeof(buf), have)) > 0)
        have += got;
      sink += (size_t)have;
    }
}

static void keep_pidfds(void) {
  pidfds = calloc((size_t)pods, sizeof(*pidfds));
  if (!pidfds || (epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
    die("epoll_create1");
  for (int i = 0; i < pods; i++) {
    pid_t both[2] = {pause_pid[i], app_pid[i]};
    for (int k = 0; k < 2; k++) {
      struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT};
      pidfds[i][k] = (int)syscall(SYS_pidfd_open, both[k], 0);
      if (pidfds[i][k] < 0 ||
          epoll_ctl(epfd, EPOLL_CTL_ADD, pidfds[i][k], &ev) < 0)
        die("pidfd_open");
    }
  }
}

/* The step's checks at a pass: the pod's (empty) list, and whether a
 * container's process ended. */
static void checks_pass(void) {
  char list[4096];
  struct epoll_event ev[64];
  for (int i = 0; i < pods; i++)
    sink += (size_t)pread(kept_procs[i][0], list, sizeof(list), 0);
  sink += (size_t)epoll_wait(epfd, ev, 64, 0);
}

/* A full check: every cgroup's list, both processes' links. */
static void full_pass(void) {
  for (int i = 0; i < pods; i++) {
    char p[64], link[64], list[4096];
    pid_t both[2] = {pause_pid[i], app_pid[i]};
    for (int k = 0; k < 2; k++) {
      snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)both[k]);
      sink += (size_t)readlink(p, link, sizeof(link));
    }
    for (int f = 0; f < 3; f++)
      sink += (size_t)pread(kept_procs[i][f], list, sizeof(list), 0);
  }
}

/* What a reader without state must make the kernel do per namespace at
 * each pass to find it and read it (cAdvisor's way: a pid from the
 * cgroup's cgroup.procs, then that process's net/dev): each cgroup's
 * cgroup.procs opened, read and closed, the ns/net link of both
 * processes, net/dev opened, read to the end and closed. */
static void stateless_pass(void) {
  for (int i = 0; i < pods; i++) {
    char p[4300], link[64];
    for (int f = 0; f < 3; f++) {
      snprintf(p, sizeof(p), "%s/p%d%s/cgroup.procs", top, i, levels[f]);
      read_whole(p);
    }
    pid_t both[2] = {pause_pid[i], app_pid[i]};
    for (int k = 0; k < 2; k++) {
      snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)both[k]);
      sink += (size_t)readlink(p, link, sizeof(link));
    }
    for (int f = 0; f < floor_files; f++) {
      snprintf(p, sizeof(p), "/proc/%d/net/%s", (int)pause_pid[i],
               net_files[f]);
      read_whole(p);
    }
  }
}

/* ---- the core ------------------------------------------------------------------ */

static jc_collector *core; /* the one a core_pass reads */
static size_t lists;

static bool show; /* JC_NET_BENCH_SHOW: the counted read's lists on stderr */

static void count_metric(void *ctx, const jc_target *t, const jc_metric *m) {
  (void)ctx;
  if (show)
    fprintf(stderr, "%s %s-%s\n", t->relpath, m->type,
            m->type_instance ? m->type_instance : "");
  lists++;
}

typedef struct {
  const char *name;
  const char *collect, *values; /* NULL: none */
  bool full;                    /* every pass a full check (and a walk) */
  jc_collector *core;
  double user;                  /* user-mode µs over every timed pass */
  size_t lists, tracked;        /* per pass */
} value_set;

static void core_open(const char *root, const char *parent, value_set *set) {
  char err[256], pattern[4200];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, root, err, sizeof(err));
  snprintf(pattern, sizeof(pattern), "%s/*", parent);
  jc_config_add_pattern(cfg, false, pattern, err, sizeof(err));
  snprintf(pattern, sizeof(pattern), "%s/*/**", parent);
  jc_config_add_pattern(cfg, false, pattern, err, sizeof(err));
  if (set->collect)
    jc_config_add_collect(cfg, set->collect, err, sizeof(err));
  if (set->values)
    jc_config_add_values(cfg, set->values, err, sizeof(err));
  cfg->report_root = false;
  if (jc_config_finish(cfg, err, sizeof(err)) < 0) {
    fprintf(stderr, "jc_net_bench: %s\n", err);
    exit(1);
  }
  if (set->full)
    cfg->rescan_interval = 0; /* below the key's least: the bench's own */
  core = set->core = jc_collector_new(cfg, NULL, NULL);
  if (jc_collector_init(core) < 0) {
    fprintf(stderr, "jc_net_bench: collector init failed\n");
    exit(1);
  }
  jc_collector_read(core, count_metric, NULL); /* the namespaces found */
  jc_collector_read(core, count_metric, NULL);
  lists = 0;
  show = getenv("JC_NET_BENCH_SHOW") != NULL;
  jc_collector_read(core, count_metric, NULL);
  show = false;
  set->lists = lists;
  jc_collector_stats st;
  jc_collector_get_stats(core, &st);
  set->tracked = st.tracked;
}

static void core_pass(void) { jc_collector_read(core, count_metric, NULL); }

/* ---- the rounds ----------------------------------------------------------------- */

/*
 * Each figure is one pass of its kind, and every round takes one of each
 * in turn: on a shared machine (a sibling hyperthread busy or not, another
 * tenant's caches) a pass can cost twice what it costs a second later, and
 * passes taken side by side see the same machine.  A figure is the median
 * of its rounds.
 */
enum {
  F_DEFAULT, F_NET, F_HEALTH, F_DEFAULT_FULL, F_NET_FULL, /* sets[] */
  F_FLOOR_DEV, F_KEPT_DEV, F_STATELESS_DEV,
  F_FLOOR_HEALTH, F_KEPT_HEALTH, F_STATELESS_HEALTH,
  F_CHECKS, F_FULL, F_COUNT
};

#define SETS 5
static value_set sets[SETS] = {
    {"default", NULL, NULL, false, NULL, 0, 0, 0},
    {"net", "+network", NULL, false, NULL, 0, 0, 0},
    {"health", "+network", "protocol_counter-*", false, NULL, 0, 0, 0},
    {"default_full", NULL, NULL, true, NULL, 0, 0, 0},
    {"net_full", "+network", NULL, true, NULL, 0, 0, 0},
};

/* One pass of figure f, in µs of this thread's CPU time. */
static double one(int f) {
  void (*pass)(void) = NULL;
  floor_files = f >= F_FLOOR_HEALTH && f <= F_STATELESS_HEALTH ? 3 : 1;
  switch (f) {
  case F_DEFAULT: case F_NET: case F_HEALTH: case F_DEFAULT_FULL:
  case F_NET_FULL:
    core = sets[f].core; pass = core_pass; break;
  case F_FLOOR_DEV: case F_FLOOR_HEALTH: pass = floor_pass; break;
  case F_KEPT_DEV: case F_KEPT_HEALTH: pass = kept_pass; break;
  case F_STATELESS_DEV: case F_STATELESS_HEALTH: pass = stateless_pass; break;
  case F_CHECKS: pass = checks_pass; break;
  default: pass = full_pass; break;
  }
  double u0 = f < SETS ? user_us() : 0, t0 = now_us();
  pass();
  double us = now_us() - t0;
  if (f < SETS)
    sets[f].user += user_us() - u0;
  return us;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(*v), by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Rounds of figures figs[0..n): each round one pass of each in turn
 * (after one pass of each to warm), into samples[f * rounds + r]. */
static void take_rounds(const int *figs, size_t n, int rounds,
                        double *samples) {
  for (size_t k = 0; k < n; k++)
    one(figs[k]); /* warm: every file read once since the last open */
  for (int r = 0; r < rounds; r++)
    for (size_t k = 0; k < n; k++)
      samples[figs[k] * rounds + r] = one(figs[k]);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: jc_net_bench ROOT PARENT PODS PASSES [REPEATS]\n");
    return 2;
  }
  const char *root = argv[1], *parent = argv[2];
  pods = atoi(argv[3]);
  int passes = atoi(argv[4]), repeats = argc > 5 ? atoi(argv[5]) : 5;
  snprintf(top, sizeof(top), "%s/%s", root, parent);
  /* Three collectors are open at once, and the descriptors kept here for
   * the floors beside them: each collector takes its budget from the soft
   * limit as if it were alone, so room for all (the test VM's limits are
   * 1,024 and 4,096): 65,536 where root may raise the hard limit, else
   * the hard limit. */
  struct rlimit nofile = {65536, 65536};
  if (setrlimit(RLIMIT_NOFILE, &nofile) < 0 &&
      getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
    nofile.rlim_cur = nofile.rlim_max;
    setrlimit(RLIMIT_NOFILE, &nofile);
  }
  make_pods();

  keep_files();
  keep_pidfds();
  int rounds = passes * repeats;
  double *samples = calloc((size_t)(F_COUNT * rounds), sizeof(double));
  if (!samples)
    die("calloc");
  /* Two phases, so that the descriptors of four collectors at most are
   * open at once (where root may not raise the limit, 20,000 may be all):
   * every figure but the full checks', then those beside the default. */
  static const int first[] = {F_DEFAULT, F_NET, F_HEALTH, F_FLOOR_DEV,
                              F_KEPT_DEV, F_STATELESS_DEV, F_FLOOR_HEALTH,
                              F_KEPT_HEALTH, F_STATELESS_HEALTH, F_CHECKS,
                              F_FULL};
  static const int second[] = {F_DEFAULT_FULL, F_NET_FULL};
  for (size_t i = F_DEFAULT; i <= F_HEALTH; i++)
    core_open(root, parent, &sets[i]);
  take_rounds(first, sizeof(first) / sizeof(*first), rounds, samples);
  jc_collector_free(sets[F_HEALTH].core);
  jc_collector_free(sets[F_NET].core);
  for (size_t i = F_DEFAULT_FULL; i <= F_NET_FULL; i++)
    core_open(root, parent, &sets[i]);
  take_rounds(second, sizeof(second) / sizeof(*second), rounds, samples);
  double fig[F_COUNT];
  for (int f = 0; f < F_COUNT; f++)
    fig[f] = median(&samples[f * rounds], rounds);
  free(samples);
  for (size_t i = 0; i < SETS; i++)
    if (i != F_NET && i != F_HEALTH)
      jc_collector_free(sets[i].core);
  close_kept();
  drop_pods();

  double d = fig[F_DEFAULT], n = fig[F_NET], h = fig[F_HEALTH];
  /* The step's cost over a minute at Interval 10, RescanInterval 60: five
     passes of checks, one full. */
  double full_step = fig[F_NET_FULL] - fig[F_DEFAULT_FULL];
  double minute_step = (5 * (n - d) + full_step) / 6;
  double floor_dev = fig[F_FLOOR_DEV], floor_health = fig[F_FLOOR_HEALTH];
  double kept_dev = fig[F_KEPT_DEV], kept_health = fig[F_KEPT_HEALTH];
  double stateless_dev = fig[F_STATELESS_DEV];
  double stateless_health = fig[F_STATELESS_HEALTH];
  double checks = fig[F_CHECKS], full = fig[F_FULL];
  printf("pods=%d namespaces=%d tracked=%zu", pods, pods, sets[0].tracked);
  for (size_t i = 0; i < SETS; i++)
    printf(" %s_us=%.1f %s_lists=%zu", sets[i].name, fig[i], sets[i].name,
           sets[i].lists);
  printf(" net_full_per_ns=%.3f net_minute_per_ns=%.3f", full_step / pods,
         minute_step / pods);
  printf(" net_minute_over_default=%.3f net_minute_over_floor=%.3f",
         (d + minute_step) / d, minute_step / fig[F_FLOOR_DEV]);
  printf(" net_over_default=%.3f health_over_default=%.3f", n / d, h / d);
  printf(" net_per_ns=%.3f health_per_ns=%.3f", (n - d) / pods, (h - d) / pods);
  printf(" floor_dev=%.3f floor_health=%.3f checks=%.3f full=%.3f",
         floor_dev / pods, floor_health / pods, checks / pods, full / pods);
  printf(" net_over_floor=%.3f health_over_floor=%.3f", (n - d) / floor_dev,
         (h - d) / floor_health);
  printf(" net_over_floor_checks=%.3f health_over_floor_checks=%.3f",
         (n - d) / (floor_dev + checks), (h - d) / (floor_health + checks));
  printf(" kept_dev=%.3f kept_health=%.3f", kept_dev / pods, kept_health / pods);
  printf(" stateless_dev=%.3f stateless_health=%.3f", stateless_dev / pods,
         stateless_health / pods);
  printf(" net_over_stateless=%.3f health_over_stateless=%.3f",
         (n - d) / stateless_dev, (h - d) / stateless_health);
  /* The step's own code: its user-mode time per pass less the default's. */
  printf(" net_user_per_ns=%.3f health_user_per_ns=%.3f",
         (sets[1].user - sets[0].user) / rounds / pods,
         (sets[2].user - sets[0].user) / rounds / pods);
  printf(" net_over_kept_checks=%.3f health_over_kept_checks=%.3f\n",
         (n - d) / (kept_dev + checks), (h - d) / (kept_health + checks));
  return 0;
}
