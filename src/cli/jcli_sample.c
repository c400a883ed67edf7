/*
 * jcli_sample — `joule-cgroup sample`: the values the plugin would
 * dispatch, as one JSON line per sample, without collectd.
 *
 *   {"time": 1712345678.123,
 *    "cgroups": [{"instance": "system.slice_nginx.service",
 *                 "cgroup": "system.slice/nginx.service",
 *                 "values": {"ps_cputime": {"user": 6543000, "syst": 3333000},
 *                            "derive-cpu_usage_usec": 9876000,
 *                            "gauge-cpu_cores": 0.25, ...}}]}
 *
 * The value lists are the plugin's: its default set, or those of
 * --collect and --values, or of the <Plugin joule_cgroup> block of a
 * collectd configuration (--config FILE, read as `check` reads it; its
 * <Cgroup> blocks are read where they exist, never created).  The first
 * line comes one interval after the baseline sample, so that every line
 * has the rates (gauge-cpu_cores) as well.  SIGINT and SIGTERM end the
 * stream between two lines.
 */
#include "jcli_check.h"
#include "jcli_commands.h"
#include "jcli_json.h"
#include "jcli_lists.h"
#include "jcli_opts.h"
#include "jcli_root.h"
#include "jcli_signal.h"
#include "jcli_stderr.h"

#include "jc_clock.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_INTERVAL 1.0

/* A read's lists, each cgroup's under it (jcli_lists: those a step sends
 * at the end of the read join their cgroup's). */
static void put_cgroups(const jcli_lists *l, jcli_json *j) {
  for (size_t i = 0; i < jcli_lists_cgroups(l); i++) {
    const jcli_lists_cgroup *g = jcli_lists_at(l, i);
    jcli_json_map_open(j);
    jcli_json_key(j, "instance");
    jcli_json_string(j, g->instance);
    jcli_json_key(j, "cgroup"); /* always: the meta data may be off */
    jcli_json_string(j, g->relpath[0] ? g->relpath : "/");
    jcli_json_key(j, "values");
    jcli_json_map_open(j);
    for (size_t k = g->first; k < g->first + g->count; k++) {
      jc_metric m = jcli_lists_metric(l, k);
      jcli_json_metric(j, &m);
    }
    jcli_json_map_close(j); /* values */
    jcli_json_map_close(j); /* the cgroup */
  }
}

/* Unix time: the "time" of each line, what a reader lines samples up by. */
static double wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int print_sample(jc_collector *c, jcli_json *j) {
  jcli_lists *l = jcli_lists_new();
  double time = round(wall_seconds() * 1000) / 1000;
  if (l)
    jc_collector_read(c, jcli_lists_add, l);
  if (!l || jcli_lists_group(l) < 0) {
    jcli_lists_free(l);
    jcli_error("out of memory");
    return -ENOMEM;
  }
  jcli_json_map_open(j);
  jcli_json_key(j, "time");
  jcli_json_double(j, time);
  jcli_json_key(j, "cgroups");
  jcli_json_array_open(j);
  put_cgroups(l, j);
  jcli_json_array_close(j);
  jcli_json_map_close(j);
  jcli_lists_free(l);
  int r = jcli_json_write(j, STDOUT_FILENO);
  if (r < 0)
    jcli_error("cannot write the sample: %s", strerror(-r));
  return r;
}

/* Sleeps until deadline (CLOCK_MONOTONIC ns); false when a signal of set
 * (blocked) arrived instead. */
static bool wait_until(uint64_t deadline, const sigset_t *set) {
  for (;;) {
    uint64_t now = jc_now_ns();
    if (now >= deadline)
      return true;
    uint64_t left = deadline - now;
    struct timespec ts = {(time_t)(left / 1000000000u),
                          (long)(left % 1000000000u)};
    int sig = sigtimedwait(set, NULL, &ts);
    if (sig > 0)
      return false;
    if (errno == EAGAIN)
      return true;
  }
}

static int sample_loop(jc_collector *c, double interval, long count) {
  jcli_json *j = jcli_json_new(false);
  if (!j) {
    jcli_error("out of memory");
    return -ENOMEM;
  }
  sigset_t stop;
  sigemptyset(&stop);
  if (!jcli_signal_ignored(SIGINT)) /* `sample &` in a script ignores it */
    sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop, NULL);
  uint64_t step = (uint64_t)(interval * 1e9), next = jc_now_ns();
  int r = 0;
  for (long n = 0; r == 0 && (count == 0 || n < count); n++) {
    next += step;
    if (!wait_until(next, &stop))
      break;
    r = print_sample(c, j);
    uint64_t now = jc_now_ns();
    while (next + step <= now) /* late (suspended): skip, do not burst */
      next += step;
  }
  jcli_json_free(j);
  return r;
}

int jcli_sample(int argc, char **argv) {
  jcli_opts o;
  int r = jcli_opts_parse(&o,
                          JCLI_OPT_ROOT | JCLI_OPT_SELECT |
                              JCLI_OPT_INSTANCE_FROM | JCLI_OPT_COLLECT |
                              JCLI_OPT_VALUES | JCLI_OPT_CONFIG |
                              JCLI_OPT_INTERVAL | JCLI_OPT_COUNT |
                              JCLI_OPT_GPU,
                          argc, argv);
  if (r < 0 || o.help) {
    jcli_opts_release(&o);
    return r < 0 ? JCLI_EXIT_USAGE : JCLI_EXIT_OK;
  }
  char where[1200], why[512];
  if (o.config &&
      jcli_check_load(o.config, o.cfg, where, sizeof(where), NULL) < 0) {
    jcli_opts_release(&o);
    return JCLI_EXIT_FAILURE;
  }
  /* Values and Collect from the options: one they refuse together (a
   * name that is no list, a list of a group not collected) is a bad value
   * of an option, a usage error, as the option alone would be. */
  r = o.config ? 0 : jc_config_finish(o.cfg, why, sizeof(why));
  if (r < 0) {
    jcli_error("%s", why);
    jcli_opts_release(&o);
    return r == -EINVAL ? JCLI_EXIT_USAGE : JCLI_EXIT_FAILURE;
  }
  o.cfg->preview = true; /* sample only reads */
  /* --root, else the block's CgroupRoot, else the mount */
  jc_collector *c;
  r = jcli_collector_at(o.root ? o.root : o.cfg->root, o.cfg, &c);
  o.cfg = NULL; /* taken */
  double interval = o.interval > 0 ? o.interval : DEFAULT_INTERVAL;
  if (r == 0)
    r = sample_loop(c, interval, o.count);
  jc_collector_free(c);
  jcli_opts_release(&o);
  return r < 0 ? JCLI_EXIT_FAILURE : JCLI_EXIT_OK;
}
