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
 *
 * A list that cannot be known is told apart from one absent by nature (no
 * limit): "unknown" names, per cause, why and which chosen lists it
 * leaves out (jcli_why's words), on the line for causes of every cgroup
 * (a controller the host binds to cgroup v1 or the hierarchy lacks; no
 * NVIDIA driver), on a cgroup for its own (its parent does not enable the
 * controller: the lists of its own files, not its effective limits, which
 * are its ancestors'; an energy figure not known over the interval, a
 * null):
 *
 *   "unknown": {"memory": {"why": "the memory controller is bound to
 *               cgroup v1 on this host ...", "lists": ["memory-current",
 *               ...]}}
 *
 * Why no GPU figure at all, or no cgroup's, is said once on stderr too.
 */
#include "jcli_check.h"
#include "jcli_commands.h"
#include "jcli_json.h"
#include "jcli_lists.h"
#include "jcli_opts.h"
#include "jcli_root.h"
#include "jcli_signal.h"
#include "jcli_stderr.h"
#include "jcli_why.h"

#include "jc_clock.h"
#include "jc_gpu.h"
#include "jc_hier.h"
#include "jc_lists.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_INTERVAL 1.0

/* A chosen list's name, for "unknown". */
typedef char list_name[96];

/* At most this many chosen lists of one controller (the catalogue's and
 * 64 MemoryStat keys). */
#define LISTS_PER_CTRL 96

/* What the lines' "unknown" needs, learnt once. */
typedef struct {
  int rootfd;       /* the collector's root; -1: nothing is said */
  char root[4096];
  unsigned v1;      /* bound to cgroup v1 (jcli_why_v1) */
  unsigned available; /* the hierarchy's: its root's cgroup.controllers */
  /* the chosen lists that need each controller (JC_CTRL_* by index), as
   * a cgroup below the root sends them; of those, the ones that need it
   * in the cgroup itself (the others, the limits, are its ancestors' too:
   * a cgroup whose parent does not enable the controller has their
   * effective limits) */
  list_name lists[JC_CTRL_COUNT][LISTS_PER_CTRL];
  size_t count[JC_CTRL_COUNT];
  list_name own[JC_CTRL_COUNT][LISTS_PER_CTRL];
  size_t own_count[JC_CTRL_COUNT];
  unsigned wanted, wanted_own; /* the controllers of a count above 0 */
  list_name gpu_lists[JC_LIST_COUNT]; /* the chosen GPU lists */
  size_t gpu_count;
  char *gpu_library; /* GpuLibrary; NULL: the default */
  char gpu_why[768]; /* why none is read, after the first line; "" */
  bool gpu_said;     /* its line, or the one of no cgroup on a GPU */
} sample_unknown;

/* One line under construction: the cgroup whose values are open. */
typedef struct {
  jcli_json *json;
  const char *open_relpath; /* the open cgroup's, while its lists live */
  sample_unknown *u;
  list_name nulls[8]; /* the open cgroup's lists whose value is null */
  size_t null_count;
  bool gpu_lists, gpu_lists_below; /* GPU lists: root's, another's */
} sample_line;

/* "why" and "lists" of one cause of "unknown". */
static void json_cause(jcli_json *j, const char *key, const char *why,
                       const list_name *lists, size_t count) {
  jcli_json_key(j, key);
  jcli_json_map_open(j);
  jcli_json_key(j, "why");
  jcli_json_string(j, why);
  jcli_json_key(j, "lists");
  jcli_json_array_open(j);
  for (size_t i = 0; i < count; i++)
    jcli_json_string(j, lists[i]);
  jcli_json_array_close(j);
  jcli_json_map_close(j);
}

/* The causes of one cgroup: controllers its parent does not enable
 * (those of every cgroup are the line's), and its null values. */
static void cgroup_unknown(sample_line *l, const char *relpath) {
  sample_unknown *u = l->u;
  unsigned have = 0, lacking = 0;
  char file[4096 + 32];
  jc_hier_join(relpath, "cgroup.controllers", file, sizeof(file));
  if (u->rootfd >= 0 && relpath[0] &&
      jc_hier_controllers(u->rootfd, file, &have) == 0)
    lacking = u->wanted_own & u->available & ~u->v1 & ~have;
  if (!lacking && !l->null_count)
    return;
  jcli_json *j = l->json;
  jcli_json_key(j, "unknown");
  jcli_json_map_open(j);
  char path[4096 + 4096], why[2048];
  jc_hier_join(u->root, relpath, path, sizeof(path));
  for (size_t k = 0; k < JC_CTRL_COUNT; k++) {
    unsigned bit = 1u << k;
    if (!(lacking & bit))
      continue;
    jcli_why_no_controller(path, false, u->v1, bit, why, sizeof(why));
    json_cause(j, jc_hier_ctrl_name(bit), why, u->own[k], u->own_count[k]);
  }
  if (l->null_count)
    json_cause(j, "energy",
               "the energy of this interval is not known: a zone not read, "
               "or an interval that may have held more than one wrap of its "
               "counter (docs/metrics.md, energy gaps)",
               l->nulls, l->null_count);
  jcli_json_map_close(j);
}

static void close_cgroup(sample_line *l) {
  if (!l->open_relpath)
    return;
  jcli_json_map_close(l->json); /* values */
  cgroup_unknown(l, l->open_relpath);
  jcli_json_map_close(l->json); /* the cgroup */
  l->open_relpath = NULL;
  l->null_count = 0;
}

/* The causes of every cgroup of the line: controllers the host binds to
 * cgroup v1 or the hierarchy lacks; no GPU read. */
static void line_unknown(sample_line *l) {
  sample_unknown *u = l->u;
  unsigned lacking = u->wanted & ~(u->available & ~u->v1);
  bool gpu = u->gpu_why[0];
  if ((!lacking || u->rootfd < 0) && !gpu)
    return;
  jcli_json *j = l->json;
  char why[2048];
  jcli_json_key(j, "unknown");
  jcli_json_map_open(j);
  for (size_t k = 0; k < JC_CTRL_COUNT && u->rootfd >= 0; k++) {
    unsigned bit = 1u << k;
    if (!(lacking & bit))
      continue;
    jcli_why_no_controller(u->root, true, u->v1, bit, why, sizeof(why));
    json_cause(j, jc_hier_ctrl_name(bit), why, u->lists[k], u->count[k]);
  }
  if (gpu)
    json_cause(j, "gpu", u->gpu_why, u->gpu_lists, u->gpu_count);
  jcli_json_map_close(j);
}

static bool is_gpu_list(jc_list_id id) {
  return id >= JC_LIST_GPU_MEMORY && id <= JC_LIST_GPU_INSTANCE_TOTAL;
}

/* One list of the open cgroup: its value, and what the line says of GPU
 * lists and null values. */
static void add_metric(sample_line *l, const jcli_lists_cgroup *g,
                       const jc_metric *m) {
  if (is_gpu_list(m->list)) {
    l->gpu_lists = true;
    l->gpu_lists_below |= g->relpath[0] != '\0';
  }
  jcli_json_metric(l->json, m);
  for (size_t i = 0; i < m->count; i++)
    if (m->kind == JC_GAUGE && !isfinite(m->gauge[i]) &&
        l->null_count < sizeof(l->nulls) / sizeof(l->nulls[0])) {
      jc_lists_name(m->type, m->type_instance, l->nulls[l->null_count],
                    sizeof(l->nulls[0]));
      l->null_count++;
      break;
    }
}

/* A read's lists, each cgroup's under it (jcli_lists: those a step sends
 * at the end of the read join their cgroup's), with what it cannot know. */
static void put_cgroups(const jcli_lists *lists, sample_line *l) {
  for (size_t i = 0; i < jcli_lists_cgroups(lists); i++) {
    const jcli_lists_cgroup *g = jcli_lists_at(lists, i);
    jcli_json_map_open(l->json);
    jcli_json_key(l->json, "instance");
    jcli_json_string(l->json, g->instance);
    jcli_json_key(l->json, "cgroup"); /* always: the meta data may be off */
    jcli_json_string(l->json, g->relpath[0] ? g->relpath : "/");
    jcli_json_key(l->json, "values");
    jcli_json_map_open(l->json);
    l->open_relpath = g->relpath;
    for (size_t k = g->first; k < g->first + g->count; k++) {
      jc_metric m = jcli_lists_metric(lists, k);
      add_metric(l, g, &m);
    }
    close_cgroup(l);
  }
}

/* The chosen lists (the catalogue's, then MemoryStat's) by the controller
 * their files need. */
static void learn_lists(sample_unknown *u, const jc_config *cfg) {
  u->rootfd = -1;
  /* out of memory: the default library is asked instead */
  u->gpu_library = cfg->gpu_library ? strdup(cfg->gpu_library) : NULL;
  for (int i = 0; i < JC_LIST_COUNT + JC_MEMSTAT_MAX; i++) {
    uint32_t files;
    char name[sizeof(list_name)];
    if (i < JC_LIST_COUNT) {
      if (cfg->sel.list[i] == JC_SEL_OFF)
        continue;
      files = jc_lists[i].files;
      jc_lists_name(jc_lists[i].type, jc_lists[i].type_instance, name,
                    sizeof(name));
      if (is_gpu_list((jc_list_id)i))
        snprintf(u->gpu_lists[u->gpu_count++], sizeof(list_name), "%s",
                 name);
    } else {
      size_t k = (size_t)(i - JC_LIST_COUNT);
      if (k >= cfg->memstat.count || cfg->memstat.sel[k] == JC_SEL_OFF)
        continue;
      files = 1u << JC_FILE_MEMORY_STAT;
      if (cfg->memstat.is_event[k])
        jc_lists_name("derive", cfg->memstat.derive_instance[k], name,
                      sizeof(name));
      else
        jc_lists_name("memory", cfg->memstat.key[k], name, sizeof(name));
    }
    unsigned ctrls = 0, own = 0;
    for (int f = 0; f < JC_FILE_COUNT; f++)
      if ((files & (1u << f)) && jc_sample_files[f].controller) {
        unsigned bit = jc_hier_ctrl_bit(jc_sample_files[f].controller);
        ctrls |= bit;
        if (!(JC_LIMIT_FILES & (1u << f)))
          own |= bit;
      }
    for (size_t k = 0; k < JC_CTRL_COUNT; k++) {
      if ((ctrls & (1u << k)) && u->count[k] < LISTS_PER_CTRL) {
        snprintf(u->lists[k][u->count[k]++], sizeof(list_name), "%s", name);
        u->wanted |= 1u << k;
      }
      if ((own & (1u << k)) && u->own_count[k] < LISTS_PER_CTRL) {
        snprintf(u->own[k][u->own_count[k]++], sizeof(list_name), "%s", name);
        u->wanted_own |= 1u << k;
      }
    }
  }
}

/* The hierarchy's controllers, and the host's bound to cgroup v1. */
static void learn_hierarchy(sample_unknown *u, const jc_collector *c) {
  snprintf(u->root, sizeof(u->root), "%s", jc_collector_root(c));
  u->rootfd = open(u->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (u->rootfd < 0 ||
      jc_hier_controllers(u->rootfd, "cgroup.controllers", &u->available) <
          0) {
    if (u->rootfd >= 0)
      close(u->rootfd);
    u->rootfd = -1; /* nothing to say about controllers */
    return;
  }
  u->v1 = jcli_why_v1(u->rootfd);
}

/* Unix time: the "time" of each line, what a reader lines samples up by. */
static double wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* After the first line: why no GPU list came, once on stderr (and in
 * every line's "unknown" when no GPU is read at all). */
static void say_gpu(sample_unknown *u, const sample_line *l) {
  if (!u->gpu_count || u->gpu_said)
    return;
  u->gpu_said = true;
  if (!l->gpu_lists) {
    if (jc_gpu_probe(u->gpu_library, NULL, NULL, u->gpu_why,
                     sizeof(u->gpu_why)) == 0 ||
        !u->gpu_why[0]) /* found now, or out of memory */
      snprintf(u->gpu_why, sizeof(u->gpu_why),
               "NVML gave no GPU at the first read");
    jcli_error("gpu: %s: no GPU figure", u->gpu_why);
  } else if (!l->gpu_lists_below) {
    jcli_error("gpu: no process of the selected cgroups is on a GPU: "
               "root's lists alone are sent (the GPUs' own)");
  }
}

static int print_sample(jc_collector *c, jcli_json *j, sample_unknown *u) {
  sample_line l = {.json = j, .u = u};
  jcli_lists *lists = jcli_lists_new();
  double time = round(wall_seconds() * 1000) / 1000;
  if (lists)
    jc_collector_read(c, jcli_lists_add, lists);
  if (!lists || jcli_lists_group(lists) < 0) {
    jcli_lists_free(lists);
    jcli_error("out of memory");
    return -ENOMEM;
  }
  jcli_json_map_open(j);
  jcli_json_key(j, "time");
  jcli_json_double(j, time);
  jcli_json_key(j, "cgroups");
  jcli_json_array_open(j);
  put_cgroups(lists, &l);
  jcli_json_array_close(j);
  say_gpu(u, &l);
  line_unknown(&l);
  jcli_json_map_close(j);
  jcli_lists_free(lists);
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

static int sample_loop(jc_collector *c, double interval, long count,
                       sample_unknown *u) {
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
    r = print_sample(c, j, u);
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
  sample_unknown *u = calloc(1, sizeof(*u));
  if (!u) {
    jcli_error("out of memory");
    jcli_opts_release(&o);
    return JCLI_EXIT_FAILURE;
  }
  learn_lists(u, o.cfg);
  /* --root, else the block's CgroupRoot, else the mount */
  jc_collector *c;
  r = jcli_collector_at(o.root ? o.root : o.cfg->root, o.cfg, &c);
  o.cfg = NULL; /* taken */
  if (c)
    learn_hierarchy(u, c);
  double interval = o.interval > 0 ? o.interval : DEFAULT_INTERVAL;
  if (r == 0)
    r = sample_loop(c, interval, o.count, u);
  jc_collector_free(c);
  if (u->rootfd >= 0)
    close(u->rootfd);
  free(u->gpu_library);
  free(u);
  jcli_opts_release(&o);
  return r < 0 ? JCLI_EXIT_FAILURE : JCLI_EXIT_OK;
}
