/*
 * jc_gpu — see jc_gpu.h.
 *
 * The energy model is jc_share's, with SM utilisation in place of CPU
 * time: over an interval a process's utilisation is the mean SM per cent
 * of its samples since the read before (a driver may keep one sample per
 * process, its latest, each at its own time: the real H200 of gpu.md
 * does), in thousandths of a per cent; a cgroup's u is the sum over its
 * processes; the GPU's capacity is T = 100 % and its busy time B the sum
 * over all its processes, at most T.  The board measured E µJ (its
 * counter's increase):
 *
 *   idle part        E × (T - B) / T         under root
 *   a cgroup's part  E × u / T
 *
 * and the parts of the top-level cgroups, the root's own and the
 * unattributed processes' (in B, charged to no cgroup but the root's
 * whole) and the idle part add up to E.  No sample in the interval (the
 * GPU idle): all of E is idle.  jc_share_split_energy and
 * jc_share_covered do the arithmetic, as for the RAPL zones.
 *
 * Counters of an epoch: a GPU lost or gone (NVML_ERROR_GPU_IS_LOST, or
 * missing from the list), or whose counter went back (a reset, a driver
 * loaded again), starts its energy counters again from 0, the root's and
 * every cgroup's: a counter reset to every receiver, as RAPL's.
 */
#include "jc_gpu.h"

#include "jc_internal.h"

#include "jc_hier.h"
#include "jc_nvml.h"
#include "jc_proc.h"
#include "jc_share.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A process on a GPU this pass. */
typedef struct {
  pid_t pid;
  uint64_t bytes;      /* its GPU memory (the larger of its two lists) */
  uint64_t sm_sum;     /* its samples' SM per cent, summed */
  uint64_t sm_count;   /* and how many */
  uint64_t sm;         /* their mean, in thousandths of a per cent */
  const char *relpath; /* its cgroup below CgroupRoot (the pid cache's);
                          NULL: unattributed (the root's alone) */
  int instance;        /* MIG: its GPU instance's slot in the GPU's; -1:
                          none (MIG off, or an instance not listed) */
} gpu_entry;

/* A pid's cgroup, kept while the process lives. */
typedef struct {
  pid_t pid;
  uint64_t start; /* its start time: a reused pid has another */
  char *relpath;  /* NULL: outside CgroupRoot */
  bool seen;      /* listed this pass */
} pid_cgroup;

/* A GPU instance of a GPU in MIG mode, kept by its id while the GPU is
 * read; its slot stays the same. */
typedef struct {
  unsigned id;
  bool present; /* listed this pass */
  bool total_known;
  uint64_t total_bytes;
  char memory[JC_NVML_UUID_MAX + 16]; /* type instances: <gpu>_gi<id> */
  char total[JC_NVML_UUID_MAX + 24];
} gpu_instance;

typedef struct {
  char uuid[JC_NVML_UUID_MAX];
  char memory[JC_NVML_UUID_MAX + 8];  /* type instances */
  char total[JC_NVML_UUID_MAX + 8];
  char sm[JC_NVML_UUID_MAX + 8];
  char energy[JC_NVML_UUID_MAX + 16];
  char idle[JC_NVML_UUID_MAX + 24];
  int minor;
  bool present;     /* read this pass */
  bool was_present; /* read the pass before */
  bool lost;        /* said lost or gone; its epoch restarts on return */
  unsigned restarts;
  /* the pass's figures */
  size_t first, count; /* its entries */
  bool util_known;
  bool total_known;
  uint64_t total_bytes; /* the GPU's memory */
  bool delta_known;
  uint64_t delta_uj;   /* the counter's increase since the pass before */
  bool mig;            /* its MIG mode is on this pass */
  gpu_instance inst[JC_NVML_INSTANCES_MAX];
  size_t instances;    /* slots used (ever) */
  /* across passes */
  uint64_t last_ts_us; /* the newest sample seen */
  bool have_energy;
  uint64_t last_mj;
  double host_uj, idle_uj; /* this epoch's */
} gpu_acct;

struct jc_gpu {
  jc_nvml *nvml;
  char root_cgroup[PATH_MAX]; /* CgroupRoot in the hierarchy: "/", ... */
  gpu_acct g[JC_GPU_MAX];
  size_t gpus;
  bool started; /* NVML answered at the last pass */
  bool full_said, missing_said, start_said;
  bool util_said, energy_said, mig_said;
  gpu_entry *entries;
  size_t entry_count, entry_cap;
  pid_cgroup *cache;
  size_t cache_count, cache_cap;
  jc_share_party *party;
  jc_tracked **party_of;
  size_t party_cap;
};

/* A cgroup's part: what it was charged on each GPU this epoch, and on
 * which GPUs its lists go out (from the first read its processes used
 * it on). */
typedef struct {
  double charged_uj[JC_GPU_MAX];
  bool on[JC_GPU_MAX];
  uint64_t bytes[JC_GPU_MAX], sm[JC_GPU_MAX]; /* this pass, on each GPU:
                          its processes' and its descendants' */
  /* MIG: this pass, on each GPU instance (by slot), and on which its
   * lists go out */
  uint64_t inst_bytes[JC_GPU_MAX][JC_NVML_INSTANCES_MAX];
  bool inst_on[JC_GPU_MAX][JC_NVML_INSTANCES_MAX];
  double before_uj;    /* its parts in epochs that ended */
  uint64_t pass_bytes; /* on every GPU, this pass */
  uint64_t peak_bytes; /* the most of pass_bytes */
} gpu_share;

static struct jc_gpu *self(const jc_collector *c) {
  return jc_step_self(c, JC_STEP_GPU);
}

static gpu_share **share_slot(const jc_collector *c, const jc_tracked *t) {
  return jc_step_slot(c, t, JC_STEP_GPU);
}

static bool chosen(const jc_collector *c, jc_list_id id) {
  return c->cfg->sel.list[id] != JC_SEL_OFF;
}

static const char *library(const jc_collector *c) {
  return c->cfg->gpu_library ? c->cfg->gpu_library : JC_NVML_LIBRARY_DEFAULT;
}

static const char *proc_root(const jc_collector *c) {
  return c->cfg->proc_root ? c->cfg->proc_root : "/proc";
}

static void free_state(struct jc_gpu *e) {
  if (!e)
    return;
  jc_nvml_close(e->nvml);
  for (size_t i = 0; i < e->cache_count; i++)
    free(e->cache[i].relpath);
  free(e->cache);
  free(e->entries);
  free(e->party);
  free(e->party_of);
  free(e);
}

/* ---- init ------------------------------------------------------------------- */

/* What the driver lacks, said once at start. */
static void say_versions(const jc_collector *c, struct jc_gpu *e,
                         unsigned count) {
  jc_logf(&c->log, JC_LOG_INFO,
          "%u GPU%s through %s (process lists: version %d; utilisation: %s; "
          "energy: %s)",
          count, count == 1 ? "" : "s", library(c),
          jc_nvml_version(e->nvml, JC_NVML_FN_COMPUTE),
          jc_nvml_has(e->nvml, JC_NVML_FN_UTILIZATION) ? "yes" : "no",
          jc_nvml_has(e->nvml, JC_NVML_FN_ENERGY) ? "yes" : "no");
  if (!jc_nvml_has(e->nvml, JC_NVML_FN_UTILIZATION))
    jc_logf(&c->log, JC_LOG_INFO,
            "this driver's NVML has no nvmlDeviceGetProcessUtilization: "
            "percent-<gpu>_sm is left out, and the energy of the GPUs is "
            "sent for the board alone (no cgroup's part, no idle part)");
  if (!jc_nvml_has(e->nvml, JC_NVML_FN_ENERGY))
    jc_logf(&c->log, JC_LOG_INFO,
            "this driver's NVML has no nvmlDeviceGetTotalEnergyConsumption: "
            "the GPUs' energy lists are left out");
}

/* On when a GPU list is chosen and NVML finds a GPU; else one INFO line
 * and off. */
static int init(const jc_collector *c, void **ret_self) {
  if (!jc_lists_any(&c->cfg->sel, JC_LIST_GPU_MEMORY, 7))
    return 0;
  struct jc_gpu *e = calloc(1, sizeof(*e));
  if (!e) {
    jc_logf(&c->log, JC_LOG_ERR, "out of memory: GPUs are not read");
    return -ENOMEM;
  }
  char why[512];
  int r = jc_nvml_open(c->cfg->gpu_library, &e->nvml, why, sizeof(why));
  if (r == -ENOMEM) {
    free_state(e);
    jc_logf(&c->log, JC_LOG_ERR, "out of memory: GPUs are not read");
    return r;
  }
  if (r < 0) {
    jc_logf(&c->log, JC_LOG_INFO,
            "no NVIDIA driver: %s (GpuLibrary %s): the GPU lists are not "
            "sent",
            why, library(c));
    free_state(e);
    return 0;
  }
  unsigned count = 0;
  r = jc_nvml_start(e->nvml);
  if (r == 0) {
    r = jc_nvml_count(e->nvml, &count);
    if (r == 0 && count == 0)
      r = -ENODEV;
    if (r == 0)
      say_versions(c, e, count);
    else if (r == -ENODEV)
      jc_logf(&c->log, JC_LOG_INFO,
              "NVML (%s) finds no GPU: the GPU lists are not sent",
              library(c));
    jc_nvml_stop(e->nvml);
  }
  if (r < 0) {
    if (r != -ENODEV)
      jc_logf(&c->log, JC_LOG_INFO,
              "NVML (%s) does not start: %s: the GPU lists are not sent",
              library(c), jc_nvml_last_error(e->nvml));
    free_state(e);
    return 0;
  }
  jc_hier_root_cgroup(c->rootfd, c->root, e->root_cgroup,
                      sizeof(e->root_cgroup));
  e->started = true;
  *ret_self = e;
  return 0;
}

/* ---- one GPU's read ------------------------------------------------------------ */

static gpu_acct *acct_of(jc_collector *c, struct jc_gpu *e,
                         const jc_nvml_device *d) {
  for (size_t i = 0; i < e->gpus; i++)
    if (strcmp(e->g[i].uuid, d->uuid) == 0)
      return &e->g[i];
  if (e->gpus == JC_GPU_MAX) {
    if (!e->full_said)
      jc_logf(&c->log, JC_LOG_INFO,
              "GPU %s is not read: the plugin reads %d GPUs at most",
              d->uuid, JC_GPU_MAX);
    e->full_said = true;
    return NULL;
  }
  gpu_acct *g = &e->g[e->gpus++];
  *g = (gpu_acct){.minor = d->minor};
  snprintf(g->uuid, sizeof(g->uuid), "%s", d->uuid);
  snprintf(g->memory, sizeof(g->memory), "%s", d->uuid);
  snprintf(g->total, sizeof(g->total), "%s_total", d->uuid);
  snprintf(g->sm, sizeof(g->sm), "%s_sm", d->uuid);
  snprintf(g->energy, sizeof(g->energy), "energy_%s_uj", d->uuid);
  snprintf(g->idle, sizeof(g->idle), "energy_%s_idle_uj", d->uuid);
  return g;
}

/* The entry of pid among g's this pass, made when new; NULL when out of
 * memory. */
static gpu_entry *entry_of(struct jc_gpu *e, gpu_acct *g, pid_t pid) {
  for (size_t i = g->first; i < g->first + g->count; i++)
    if (e->entries[i].pid == pid)
      return &e->entries[i];
  if (e->entry_count == e->entry_cap) {
    size_t cap = e->entry_cap * 2 + 16;
    gpu_entry *p = realloc(e->entries, cap * sizeof(*p));
    if (!p)
      return NULL;
    e->entries = p;
    e->entry_cap = cap;
  }
  gpu_entry *x = &e->entries[e->entry_count++];
  *x = (gpu_entry){.pid = pid, .instance = -1};
  g->count++;
  return x;
}

static void say_lost(jc_collector *c, gpu_acct *g, const char *why) {
  if (g->lost)
    return;
  g->lost = true;
  jc_logf(&c->log, JC_LOG_WARNING,
          "GPU %s: %s: its figures stop; when it is back its energy "
          "counters (the board's, the idle part, every cgroup's part) start "
          "again from 0, which receivers take as a counter reset",
          g->uuid, why);
}

/* A new epoch of GPU gi: its energy counters from 0. */
static void restart_epoch(jc_collector *c, size_t gi) {
  gpu_acct *g = &self(c)->g[gi];
  g->host_uj = g->idle_uj = 0;
  for (size_t k = 0; k < c->tracked_count; k++) {
    gpu_share *sh = *share_slot(c, c->tracked[k]);
    if (sh) {
      sh->before_uj += sh->charged_uj[gi];
      sh->charged_uj[gi] = 0;
    }
  }
}

/* MIG: g's GPU instances this pass, each in its slot (kept by id); a
 * GPU whose instances cannot be read is read as a whole, said once. */
static void read_instances(jc_collector *c, struct jc_gpu *e, gpu_acct *g,
                           const jc_nvml_device *d) {
  jc_nvml_instance list[JC_NVML_INSTANCES_MAX];
  size_t n = 0;
  bool mig = false;
  for (size_t k = 0; k < g->instances; k++)
    g->inst[k].present = false;
  if (jc_nvml_instances(e->nvml, d, &mig, list, JC_NVML_INSTANCES_MAX, &n) <
      0) {
    if (!e->mig_said)
      jc_logf(&c->log, JC_LOG_INFO,
              "GPU %s: its MIG instances cannot be read (%s): it is read as "
              "a whole, without figures per GPU instance",
              g->uuid, jc_nvml_last_error(e->nvml));
    e->mig_said = true;
    mig = false;
    n = 0;
  }
  g->mig = mig;
  for (size_t i = 0; i < n; i++) {
    size_t k = 0;
    while (k < g->instances && g->inst[k].id != list[i].id)
      k++;
    if (k == g->instances) {
      if (g->instances == JC_NVML_INSTANCES_MAX)
        continue; /* instances made and destroyed past the slots: not sent */
      gpu_instance *x = &g->inst[g->instances++];
      *x = (gpu_instance){.id = list[i].id};
      snprintf(x->memory, sizeof(x->memory), "%s_gi%u", d->uuid, x->id);
      snprintf(x->total, sizeof(x->total), "%s_gi%u_total", d->uuid, x->id);
    }
    g->inst[k].present = true;
    g->inst[k].total_known = list[i].total_known;
    g->inst[k].total_bytes = list[i].total_bytes;
  }
}

/* Both process lists of g into its entries; a pid in both counted once. */
static int read_processes(struct jc_gpu *e, gpu_acct *g,
                          const jc_nvml_device *d) {
  for (int graphics = 0; graphics < 2; graphics++) {
    const jc_nvml_process *list;
    size_t n;
    int r = jc_nvml_processes(e->nvml, d, graphics, &list, &n);
    if (r == -ENOSYS || r == -EOPNOTSUPP)
      continue; /* that kind of context is not listed here */
    if (r < 0)
      return r;
    for (size_t i = 0; i < n; i++) {
      pid_t pid = list[i].pid;
      uint64_t bytes = list[i].used_bytes;
      gpu_entry *x = entry_of(e, g, pid);
      if (!x)
        return -ENOMEM;
      if (bytes > x->bytes)
        x->bytes = bytes;
      if (g->mig)
        for (size_t k = 0; k < g->instances; k++)
          if (g->inst[k].present && g->inst[k].id == list[i].gpu_instance)
            x->instance = (int)k;
    }
  }
  return 0;
}

/* The samples since the last seen: each process's mean SM per cent. */
static int read_utilization(struct jc_gpu *e, gpu_acct *g,
                            const jc_nvml_device *d) {
  const jc_nvml_sample *s;
  size_t n;
  int r = jc_nvml_utilization(e->nvml, d, g->last_ts_us, &s, &n);
  if (r < 0)
    return r;
  uint64_t newest = g->last_ts_us;
  for (size_t i = 0; i < n; i++) {
    gpu_entry *x = entry_of(e, g, s[i].pid);
    if (!x)
      return -ENOMEM;
    x->sm_sum += s[i].sm;
    x->sm_count++;
    newest = s[i].time_us > newest ? s[i].time_us : newest;
  }
  for (size_t i = g->first; i < g->first + g->count; i++) {
    gpu_entry *x = &e->entries[i];
    x->sm = x->sm_count ? x->sm_sum * 1000 / x->sm_count : 0;
  }
  g->last_ts_us = newest;
  g->util_known = true;
  return 0;
}

/* The board's counter: its increase since the pass before (µJ), and a
 * new epoch when it went back. */
static int read_energy(jc_collector *c, struct jc_gpu *e, size_t gi,
                       const jc_nvml_device *d) {
  gpu_acct *g = &e->g[gi];
  uint64_t mj;
  int r = jc_nvml_energy(e->nvml, d, &mj);
  if (r < 0)
    return r;
  if (g->have_energy && mj < g->last_mj) {
    jc_logf(&c->log, g->restarts++ ? JC_LOG_WARNING : JC_LOG_INFO,
            "GPU %s: its energy counter went back (%llu mJ after %llu mJ: "
            "the GPU was reset or its driver loaded again): its energy "
            "counters start again from 0, which receivers take as a "
            "counter reset",
            g->uuid, (unsigned long long)mj, (unsigned long long)g->last_mj);
    restart_epoch(c, gi);
  } else if (g->have_energy) {
    g->delta_uj = (mj - g->last_mj) * 1000;
    g->delta_known = true;
    g->host_uj += (double)g->delta_uj;
  }
  g->have_energy = true;
  g->last_mj = mj;
  return 0;
}

/* GPU index's figures of this pass, or its loss said. */
static void read_gpu(jc_collector *c, struct jc_gpu *e, unsigned index) {
  jc_nvml_device d;
  int r = jc_nvml_device_at(e->nvml, index, &d);
  if (r < 0)
    return; /* said when its figures stop: gone from the list below */
  gpu_acct *g = acct_of(c, e, &d);
  if (!g)
    return;
  size_t gi = (size_t)(g - e->g);
  g->first = e->entry_count;
  g->count = 0;
  g->util_known = g->delta_known = false;
  g->delta_uj = 0;
  g->total_known = jc_nvml_memory_total(e->nvml, &d, &g->total_bytes) == 0;
  read_instances(c, e, g, &d);
  r = read_processes(e, g, &d);
  if (r == 0 && jc_nvml_has(e->nvml, JC_NVML_FN_UTILIZATION)) {
    r = read_utilization(e, g, &d);
    if (r == -EOPNOTSUPP || r == -ENOSYS) {
      if (!e->util_said)
        jc_logf(&c->log, JC_LOG_INFO,
                "GPU %s: no process utilisation (%s): percent-<gpu>_sm is "
                "left out and its energy is not split",
                g->uuid, jc_nvml_last_error(e->nvml));
      e->util_said = true;
      r = 0;
    }
  }
  if (r == 0 && jc_nvml_has(e->nvml, JC_NVML_FN_ENERGY)) {
    r = read_energy(c, e, gi, &d);
    if (r == -EOPNOTSUPP || r == -ENOSYS) {
      if (!e->energy_said)
        jc_logf(&c->log, JC_LOG_INFO,
                "GPU %s: no energy counter (%s): its energy lists are left "
                "out",
                g->uuid, jc_nvml_last_error(e->nvml));
      e->energy_said = true;
      r = 0;
    }
  }
  if (r < 0) {
    char why[256];
    snprintf(why, sizeof(why), "NVML says \"%s\"",
             r == -ENOMEM ? "out of memory" : jc_nvml_last_error(e->nvml));
    say_lost(c, g, why);
    g->have_energy = false;
    e->entry_count = g->first; /* none of its entries */
    g->count = 0;
    return;
  }
  if (g->lost) {
    jc_logf(&c->log, JC_LOG_INFO,
            "GPU %s is read again: its energy counters start from 0",
            g->uuid);
    g->lost = false;
    restart_epoch(c, gi);
    g->delta_known = false; /* the interval before is not known */
  }
  g->present = true;
}

/* ---- pids and their cgroups ------------------------------------------------------ */

static pid_cgroup *cached(struct jc_gpu *e, pid_t pid) {
  for (size_t i = 0; i < e->cache_count; i++)
    if (e->cache[i].pid == pid)
      return &e->cache[i];
  return NULL;
}

/* The cgroup of pid below CgroupRoot ("" for the root itself) into *ret
 * (NULL: outside it), kept while its start time stays; -ESRCH where
 * ProcRoot has no such process. */
static int cgroup_of(jc_collector *c, struct jc_gpu *e, pid_t pid,
                     const char **ret) {
  uint64_t start;
  int r = jc_proc_start_time_at(c->cfg->proc_root, pid, &start);
  if (r < 0)
    return r;
  pid_cgroup *p = cached(e, pid);
  if (p && p->start == start) {
    p->seen = true;
    *ret = p->relpath;
    return 0;
  }
  char path[PATH_MAX];
  r = jc_proc_cgroup_at(c->cfg->proc_root, pid, path, sizeof(path));
  if (r < 0)
    return r;
  char *relpath = NULL;
  if (jc_hier_path_within(path, e->root_cgroup)) {
    size_t skip = strcmp(e->root_cgroup, "/") == 0 ? 0 : strlen(e->root_cgroup);
    const char *below = path + skip;
    relpath = strdup(below + strspn(below, "/"));
    if (!relpath)
      return -ENOMEM;
  }
  if (!p) {
    if (e->cache_count == e->cache_cap) {
      size_t cap = e->cache_cap * 2 + 16;
      pid_cgroup *q = realloc(e->cache, cap * sizeof(*q));
      if (!q) {
        free(relpath);
        return -ENOMEM;
      }
      e->cache = q;
      e->cache_cap = cap;
    }
    p = &e->cache[e->cache_count++];
  } else {
    free(p->relpath); /* the pid is another process's now */
  }
  *p = (pid_cgroup){pid, start, relpath, true};
  *ret = relpath;
  return 0;
}

/* Each entry's cgroup; the pids no longer listed forgotten. */
static void place_entries(jc_collector *c, struct jc_gpu *e) {
  for (size_t i = 0; i < e->cache_count; i++)
    e->cache[i].seen = false;
  for (size_t i = 0; i < e->entry_count; i++) {
    gpu_entry *x = &e->entries[i];
    x->relpath = NULL;
    int r = cgroup_of(c, e, x->pid, &x->relpath);
    if (r == -ESRCH && !e->missing_said) {
      e->missing_said = true;
      jc_logf(&c->log, JC_LOG_INFO,
              "process %d, which NVML lists on a GPU, is not in %s: its GPU "
              "use is counted under root alone (unattributed).  A process "
              "that has just ended is counted so for one read; if this "
              "is not that, collectd does not see the host's processes: "
              "give it the host's PID namespace (hostPID: true in "
              "Kubernetes, --pid=host with Docker or Podman) and the host's "
              "/proc (ProcRoot)",
              (int)x->pid, proc_root(c));
    }
  }
  /* The pids relpaths point to were all seen this pass: the entries'
   * pointers stay valid until the next. */
  size_t kept = 0;
  for (size_t i = 0; i < e->cache_count; i++) {
    if (e->cache[i].seen)
      e->cache[kept++] = e->cache[i];
    else
      free(e->cache[i].relpath);
  }
  e->cache_count = kept;
}

/* ---- the pass ----------------------------------------------------------------------- */

/* NVML for this pass: 0, or said (once) why the GPUs are not read.  A
 * library of another version than the kernel module (the driver was
 * upgraded) is let go of and loaded again: first closed, since the loader
 * would hand back the one still mapped, then opened from disk. */
static int start(jc_collector *c, struct jc_gpu *e) {
  char why[512] = "";
  int r = e->nvml ? jc_nvml_start(e->nvml) : -EPROTO;
  if (r == -EPROTO) {
    jc_nvml_close(e->nvml);
    e->nvml = NULL;
    r = jc_nvml_open(c->cfg->gpu_library, &e->nvml, why, sizeof(why));
    if (r == 0)
      r = jc_nvml_start(e->nvml);
    if (r == 0)
      jc_logf(&c->log, JC_LOG_INFO,
              "the NVIDIA driver changed: %s loaded again", library(c));
  }
  if (r < 0) {
    if (e->started)
      jc_logf(&c->log, JC_LOG_WARNING,
              "NVML (%s) does not start: %s: the GPUs are not read until it "
              "does",
              library(c), e->nvml ? jc_nvml_last_error(e->nvml) : why);
    e->started = false;
    return r;
  }
  if (!e->started)
    jc_logf(&c->log, JC_LOG_INFO, "NVML starts again: the GPUs are read");
  e->started = true;
  return 0;
}

static void begin(jc_collector *c) {
  struct jc_gpu *e = self(c);
  e->entry_count = 0;
  for (size_t i = 0; i < e->gpus; i++) {
    e->g[i].was_present = e->g[i].present;
    e->g[i].present = false;
    e->g[i].count = 0;
  }
  unsigned count = 0;
  if (start(c, e) == 0) {
    if (jc_nvml_count(e->nvml, &count) < 0)
      count = 0;
    for (unsigned i = 0; i < count; i++)
      read_gpu(c, e, i);
    jc_nvml_stop(e->nvml);
  }
  for (size_t i = 0; i < e->gpus; i++)
    if (!e->g[i].present && e->g[i].was_present && e->started) {
      say_lost(c, &e->g[i], "it is no longer in NVML's list");
      e->g[i].have_energy = false;
    }
  place_entries(c, e);
}

/* t's share; NULL when out of memory (its lists wait for a read with
 * memory). */
static gpu_share *share_of(jc_collector *c, jc_tracked *t) {
  gpu_share **slot = share_slot(c, t);
  if (!*slot)
    *slot = calloc(1, sizeof(**slot));
  return *slot;
}

/* The figures of all of g's processes this pass (the root's). */
static void sum_all(const struct jc_gpu *e, const gpu_acct *g,
                    uint64_t *ret_bytes, uint64_t *ret_sm) {
  uint64_t bytes = 0, sm = 0;
  for (size_t i = g->first; i < g->first + g->count; i++) {
    bytes += e->entries[i].bytes;
    sm += e->entries[i].sm;
  }
  *ret_bytes = bytes;
  *ret_sm = sm;
}

static bool grow_parties(struct jc_gpu *e, size_t n) {
  if (n <= e->party_cap)
    return true;
  size_t cap = n + n / 2 + 16;
  jc_share_party *p = realloc(e->party, cap * sizeof(*p));
  if (p)
    e->party = p;
  jc_tracked **of = realloc(e->party_of, cap * sizeof(*of));
  if (of)
    e->party_of = of;
  if (!p || !of)
    return false;
  e->party_cap = cap;
  return true;
}

/* GPU gi's cgroups with SM time this pass, in walk order, each with the
 * nearest one it is inside of. */
static size_t gather_parties(jc_collector *c, struct jc_gpu *e, size_t gi) {
  size_t n = 0, depth = 0;
  long stack[64];
  for (size_t k = 0; k < c->tracked_count; k++) {
    jc_tracked *t = c->tracked[k];
    const gpu_share *sh = *share_slot(c, t);
    uint64_t sm = sh ? sh->sm[gi] : 0;
    if (!t->relpath[0] || t->gone || sm == 0)
      continue;
    while (depth > 0 &&
           !jc_hier_is_below(t->relpath, e->party_of[stack[depth - 1]]->relpath))
      depth--;
    long parent = depth > 0 ? stack[depth - 1] : -1;
    e->party[n] = (jc_share_party){sm, 0, parent};
    e->party_of[n] = t;
    if (depth < sizeof(stack) / sizeof(stack[0]))
      stack[depth++] = (long)n;
    n++;
  }
  return n;
}

/* GPU gi's energy of the pass split: the idle part, each cgroup's. */
static void split_energy(jc_collector *c, struct jc_gpu *e, size_t gi) {
  gpu_acct *g = &e->g[gi];
  if (!g->delta_known || !g->util_known ||
      !grow_parties(e, c->tracked_count))
    return;
  size_t n = gather_parties(c, e, gi);
  uint64_t bytes, busy;
  sum_all(e, g, &bytes, &busy);
  /* 100 % in thousandths; no sample: the GPU was idle all along. */
  uint64_t total = 100000;
  busy = busy < total ? busy : total;
  jc_cputimes capacity = {.total_usec = total, .idle_usec = total - busy};
  double covered = jc_share_covered(e->party, n, NULL, 0, -1);
  jc_share_split split;
  if (jc_share_split_energy(g->delta_uj, &capacity, covered, &split) < 0)
    return;
  g->idle_uj += split.idle_uj;
  for (size_t k = 0; k < n; k++) {
    gpu_share *sh = share_of(c, e->party_of[k]);
    if (sh)
      sh->charged_uj[gi] +=
          jc_share_charge(&split, jc_share_time_of(e->party, k, NULL, 0, -1));
  }
}

static void put(jc_collect_fn emit, void *ctx, const jc_target *t,
                jc_list_id id, const char *ti, jc_kind kind, double v) {
  jc_metric m = {.list = id, .type = jc_lists[id].type, .type_instance = ti,
                 .kind = kind, .count = 1};
  if (kind == JC_DERIVE) {
    if (!(v >= 0 && v < 9.2e18))
      return;
    m.derive[0] = (int64_t)v;
  } else {
    m.gauge[0] = v;
  }
  emit(ctx, t, &m);
}

/* The SM per cent of sm (thousandths), at most 100. */
static double sm_percent(uint64_t sm) {
  double p = (double)sm / 1000;
  return p > 100 ? 100 : p;
}

/* MIG: the lists of g's GPU instances, the root's (sh NULL: every
 * process on each instance, and its memory) or a cgroup's (those its
 * processes used, from the first pass they did). */
static void emit_instances(jc_collector *c, const struct jc_gpu *e, size_t gi,
                           const jc_target *target, const gpu_share *sh,
                           jc_collect_fn emit, void *ctx) {
  const gpu_acct *g = &e->g[gi];
  if (!g->mig)
    return;
  for (size_t k = 0; k < g->instances; k++) {
    const gpu_instance *x = &g->inst[k];
    if (!x->present || (sh && !sh->inst_on[gi][k]))
      continue;
    uint64_t bytes = 0;
    if (sh) {
      bytes = sh->inst_bytes[gi][k];
    } else {
      for (size_t i = g->first; i < g->first + g->count; i++)
        if (e->entries[i].instance == (int)k)
          bytes += e->entries[i].bytes;
    }
    if (chosen(c, JC_LIST_GPU_INSTANCE_MEMORY))
      put(emit, ctx, target, JC_LIST_GPU_INSTANCE_MEMORY, x->memory,
          JC_GAUGE, (double)bytes);
    if (!sh && x->total_known && chosen(c, JC_LIST_GPU_INSTANCE_TOTAL))
      put(emit, ctx, target, JC_LIST_GPU_INSTANCE_TOTAL, x->total, JC_GAUGE,
          (double)x->total_bytes);
  }
}

/* One cgroup's (or, relpath NULL and sh NULL, the root's) lists of GPU
 * gi. */
static void emit_gpu(jc_collector *c, const struct jc_gpu *e, size_t gi,
                     const jc_target *target, const char *relpath,
                     const gpu_share *sh, jc_collect_fn emit, void *ctx) {
  const gpu_acct *g = &e->g[gi];
  uint64_t bytes, sm;
  if (sh) {
    bytes = sh->bytes[gi];
    sm = sh->sm[gi];
  } else {
    sum_all(e, g, &bytes, &sm);
  }
  if (chosen(c, JC_LIST_GPU_MEMORY))
    put(emit, ctx, target, JC_LIST_GPU_MEMORY, g->memory, JC_GAUGE,
        (double)bytes);
  if (!relpath && g->total_known && chosen(c, JC_LIST_GPU_MEMORY_TOTAL))
    put(emit, ctx, target, JC_LIST_GPU_MEMORY_TOTAL, g->total, JC_GAUGE,
        (double)g->total_bytes);
  emit_instances(c, e, gi, target, sh, emit, ctx);
  if (chosen(c, JC_LIST_GPU_SM) && g->util_known)
    put(emit, ctx, target, JC_LIST_GPU_SM, g->sm, JC_GAUGE,
        sm_percent(sm));
  if (!g->have_energy || !chosen(c, JC_LIST_GPU_ENERGY))
    return;
  if (!relpath)
    put(emit, ctx, target, JC_LIST_GPU_ENERGY, g->energy, JC_DERIVE,
        g->host_uj);
  else if (g->util_known)
    put(emit, ctx, target, JC_LIST_GPU_ENERGY, g->energy, JC_DERIVE,
        sh->charged_uj[gi]);
  if (!relpath && g->util_known && chosen(c, JC_LIST_GPU_ENERGY_IDLE))
    put(emit, ctx, target, JC_LIST_GPU_ENERGY_IDLE, g->idle, JC_DERIVE,
        g->idle_uj);
}

/* The tracked cgroup at relpath (c->tracked is in walk order,
 * jc_hier_path_cmp's); NULL when none is. */
static jc_tracked *tracked_at(const jc_collector *c, const char *relpath) {
  size_t lo = 0, hi = c->tracked_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int r = jc_hier_path_cmp(c->tracked[mid]->relpath, relpath);
    if (r == 0)
      return c->tracked[mid];
    if (r < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* Entry x's figures on GPU gi to its cgroup and every tracked cgroup
 * above it (the root's are the GPU's whole): a lookup per level of its
 * path, so that a pass costs per GPU process, not per cgroup. */
static void charge_ancestors(jc_collector *c, size_t gi, const gpu_entry *x) {
  int k = x->instance;
  if (!x->relpath)
    return;
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s", x->relpath);
  while (path[0]) {
    jc_tracked *t = tracked_at(c, path);
    gpu_share *sh = t && !t->gone ? share_of(c, t) : NULL;
    if (sh) {
      sh->bytes[gi] += x->bytes;
      sh->sm[gi] += x->sm;
      sh->pass_bytes += x->bytes;
      sh->on[gi] = true;
      if (k >= 0) {
        sh->inst_bytes[gi][k] += x->bytes;
        sh->inst_on[gi][k] = true;
      }
    }
    jc_hier_parent_of(path, path, sizeof(path));
  }
}

/* After the pass: the split, then every GPU's lists: the root's, and
 * those of the cgroups whose processes used it. */
static void end(jc_collector *c, jc_collect_fn emit, void *ctx) {
  struct jc_gpu *e = self(c);
  for (size_t k = 0; k < c->tracked_count; k++) {
    gpu_share *sh = *share_slot(c, c->tracked[k]);
    if (sh) {
      memset(sh->bytes, 0, sizeof(sh->bytes));
      memset(sh->sm, 0, sizeof(sh->sm));
      memset(sh->inst_bytes, 0, sizeof(sh->inst_bytes));
      sh->pass_bytes = 0;
    }
  }
  for (size_t gi = 0; gi < e->gpus; gi++) {
    if (!e->g[gi].present)
      continue;
    const gpu_acct *g = &e->g[gi];
    for (size_t i = g->first; i < g->first + g->count; i++)
      charge_ancestors(c, gi, &e->entries[i]);
    split_energy(c, e, gi);
  }
  for (size_t k = 0; k < c->tracked_count; k++) {
    gpu_share *sh = *share_slot(c, c->tracked[k]);
    if (sh && sh->pass_bytes > sh->peak_bytes)
      sh->peak_bytes = sh->pass_bytes;
  }
  if (!emit)
    return;
  jc_target host = {"root", "", c->cfg->path_meta ? "/" : NULL};
  for (size_t gi = 0; gi < e->gpus; gi++) {
    if (!e->g[gi].present)
      continue;
    emit_gpu(c, e, gi, &host, NULL, NULL, emit, ctx);
    for (size_t k = 0; k < c->tracked_count; k++) {
      const jc_tracked *t = c->tracked[k];
      const gpu_share *sh = *share_slot(c, t);
      if (!sh || !sh->on[gi] || t->gone || !t->relpath[0])
        continue;
      jc_target target = jc_tracked_target(c, t);
      emit_gpu(c, e, gi, &target, t->relpath, sh, emit, ctx);
    }
  }
}

/* What t's processes held at most and were charged on the GPUs, into
 * its totals (its final figures: NotifyEnd); nothing for a cgroup whose
 * processes never used a GPU. */
static void totals(const jc_collector *c, const jc_tracked *t,
                   jc_totals *ret) {
  const struct jc_gpu *e = self(c);
  const gpu_share *sh = *share_slot(c, t);
  if (!sh)
    return;
  double uj = sh->before_uj;
  for (size_t gi = 0; gi < e->gpus; gi++)
    uj += sh->charged_uj[gi];
  ret->have_gpu = true;
  ret->gpu_memory_peak = sh->peak_bytes;
  ret->gpu_energy_joules = uj / 1e6;
}

/* t freed or re-created: its share goes. */
static void release(jc_collector *c, jc_tracked *t) {
  gpu_share **slot = share_slot(c, t);
  free(*slot);
  *slot = NULL;
}

static void gpu_free(const jc_collector *c, void *state) {
  (void)c;
  free_state(state);
}

const jc_step jc_gpu_step = {
    .name = "gpu",
    .slot_size = sizeof(gpu_share *),
    .life = {.init = init, .free = gpu_free},
    .pass = {.begin = begin, .totals = totals, .end = end},
    .cgroup_life = {.release = release},
};
