/*
 * jc_lists — see jc_lists.h.  The table below is docs/metrics.md; keep
 * them in step.
 */
#include "jc_lists.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#define F(id) (1u << JC_FILE_##id)
#define CPU JC_COLLECT_CPU
#define MEM JC_COLLECT_MEMORY
#define LIM JC_COLLECT_LIMITS
#define PSI JC_COLLECT_PRESSURE
#define NET JC_COLLECT_NETWORK
#define DISK JC_COLLECT_DISK

/* The pressure lists of one resource (its file) and line. */
#define PSI_STALL(res, line, file)                                             \
  {"derive", res "_" line "_stall_usec", PSI, true, F(file), 0}
#define PSI_LOAD(res, line, file) {"load", res "_" line, PSI, false, F(file), 0}
#define PSI_AVG(res, line, file)                                               \
  {"pressure", res "_" line "_avg10", PSI, false, F(file), 0},                 \
      {"pressure", res "_" line "_avg60", PSI, false, F(file), 0},             \
      {"pressure", res "_" line "_avg300", PSI, false, F(file), 0}
#define PSI_ALL(X)                                                             \
  X("cpu", "some", CPU_PRESSURE), X("cpu", "full", CPU_PRESSURE),              \
      X("memory", "some", MEMORY_PRESSURE),                                    \
      X("memory", "full", MEMORY_PRESSURE), X("io", "some", IO_PRESSURE),      \
      X("io", "full", IO_PRESSURE)
#define SINGLE_LIST_ROW(ID, field, file, controller, flags, type, instance,    \
                        group, ...)                                            \
  [JC_LIST_##ID] = {type, instance, group, ((flags) & JC_ROW_DEFAULT) != 0,    \
                    F(ID), 0},
#define KEYED_LIST_ROW(ID, file, key, flags, type, instance, group, ...)       \
  [JC_LIST_##ID] = {type, instance, group, ((flags) & JC_KEY_DEFAULT) != 0,    \
                    F(file), 0},

const jc_list_info jc_lists[JC_LIST_COUNT] = {
    /* CPU time (user and system) and cores busy: the default; the rest
     * follows from them (usage = user + system, percent = cores / CPUs). */
    [JC_LIST_PS_CPUTIME] = {"ps_cputime", "", CPU, true, F(CPU_STAT), 0},
    [JC_LIST_CPU_CORES] = {"gauge", "cpu_cores", CPU, true, F(CPU_STAT), 0},
    [JC_LIST_CPU_USAGE_USEC] = {"derive", "cpu_usage_usec", CPU, false,
                                F(CPU_STAT), 0},
    [JC_LIST_CPU_PERCENT] = {"percent", "cpu", CPU, false, F(CPU_STAT), 0},
    /* Throttling: by default only once the cgroup was under a quota
     * (nr_periods > 0; always 0 before); bursts: opt-in. */
    [JC_LIST_CPU_NR_PERIODS] = {"derive", "cpu_nr_periods", CPU, true,
                                F(CPU_STAT), JC_WHEN_QUOTA},
    [JC_LIST_CPU_NR_THROTTLED] = {"derive", "cpu_nr_throttled", CPU, true,
                                  F(CPU_STAT), JC_WHEN_QUOTA},
    [JC_LIST_CPU_THROTTLED_USEC] = {"derive", "cpu_throttled_usec", CPU, true,
                                    F(CPU_STAT), JC_WHEN_QUOTA},
    [JC_LIST_CPU_NR_BURSTS] = {"derive", "cpu_nr_bursts", CPU, false,
                               F(CPU_STAT), 0},
    [JC_LIST_CPU_BURST_USEC] = {"derive", "cpu_burst_usec", CPU, false,
                                F(CPU_STAT), 0},
    /* The single-value files, one gauge each (jc_sample.h's rows). */
    JC_SINGLE_FILES(SINGLE_LIST_ROW)
    [JC_LIST_DISK_OCTETS] = {"disk_octets", "", JC_COLLECT_IO, true, F(IO_STAT),
                             0},
    [JC_LIST_DISK_OPS] = {"disk_ops", "", JC_COLLECT_IO, true, F(IO_STAT), 0},
    /* Pressure: the stall totals, from which any window's average follows
     * exactly; the kernel's own averages are opt-in, three to a list
     * (load) or one (the pressure-* gauges of the first releases). */
    PSI_ALL(PSI_STALL),
    PSI_ALL(PSI_LOAD),
    PSI_ALL(PSI_AVG),
    /* Keys of flat-keyed files, one list each (jc_sample.h's rows): the
     * memory events; the cgroups below (cgroup.stat: a dying count that
     * only grows is the leak of removed cgroups pinned by page cache or
     * sockets). */
    JC_KEYED_FIGURES(KEYED_LIST_ROW)
    /* Limits, each only where there is one.  The shares are `gauge`, not
     * `percent`: types.db caps percent at 100.1, and a share of a limit
     * can be above it (a burst, a limit lowered below the usage), which a
     * writer that checks ranges (rrdtool) would throw away. */
    [JC_LIST_CPU_LIMIT_CORES] = {"gauge", "cpu_limit_cores", LIM, true,
                                 F(CPU_MAX), JC_WHEN_LIMIT},
    [JC_LIST_CPU_LIMIT_PERCENT] = {"gauge", "cpu_limit_percent", LIM | CPU,
                                   true, F(CPU_MAX) | F(CPU_STAT),
                                   JC_WHEN_LIMIT},
    [JC_LIST_MEMORY_MAX] = {"memory", "max", LIM, true, F(MEMORY_MAX),
                            JC_WHEN_LIMIT},
    [JC_LIST_MEMORY_HIGH] = {"memory", "high", LIM, true, F(MEMORY_HIGH),
                             JC_WHEN_LIMIT},
    [JC_LIST_MEMORY_MAX_PERCENT] = {"gauge", "memory_max_percent", LIM | MEM,
                                    true, F(MEMORY_MAX) | F(MEMORY_CURRENT),
                                    JC_WHEN_LIMIT},
    [JC_LIST_PIDS_MAX] = {"count", "pids_max", LIM | JC_COLLECT_PIDS, true,
                          F(PIDS_MAX), JC_WHEN_LIMIT},
    /* Energy (jc_energy): per RAPL zone, read once per pass; a cgroup's
     * part by its CPU time. */
    [JC_LIST_ENERGY] = {"derive", "energy_<zone>_uj", JC_COLLECT_ENERGY, true,
                        F(CPU_STAT), 0},
    [JC_LIST_ENERGY_IDLE] = {"derive", "energy_<zone>_idle_uj",
                             JC_COLLECT_ENERGY, true, 0, JC_WHEN_ROOT},
    [JC_LIST_POWER] = {"power", "<zone>", JC_COLLECT_ENERGY, true, 0,
                       JC_WHEN_ROOT},
    /* GPUs (jc_gpu): per GPU, <gpu> its UUID, one NVML read per GPU and
     * pass; a cgroup's figures are its processes' (and its descendants'),
     * the root's the GPU's whole. */
    [JC_LIST_GPU_MEMORY] = {"memory", "<gpu>", JC_COLLECT_GPU, true, 0,
                            JC_WHEN_USED},
    [JC_LIST_GPU_MEMORY_TOTAL] = {"memory", "<gpu>_total", JC_COLLECT_GPU, true,
                                  0, JC_WHEN_ROOT},
    [JC_LIST_GPU_SM] = {"percent", "<gpu>_sm", JC_COLLECT_GPU, true, 0,
                        JC_WHEN_USED},
    [JC_LIST_GPU_ENERGY] = {"derive", "energy_<gpu>_uj", JC_COLLECT_GPU, true,
                            0, JC_WHEN_USED},
    [JC_LIST_GPU_ENERGY_IDLE] = {"derive", "energy_<gpu>_idle_uj",
                                 JC_COLLECT_GPU, true, 0, JC_WHEN_ROOT},
    /* MIG: per GPU instance of a GPU whose MIG mode is on. */
    [JC_LIST_GPU_INSTANCE_MEMORY] = {"memory", "<gpu>_gi<instance>",
                                     JC_COLLECT_GPU, true, 0,
                                     JC_WHEN_USED | JC_WHEN_MIG},
    [JC_LIST_GPU_INSTANCE_TOTAL] = {"memory", "<gpu>_gi<instance>_total",
                                    JC_COLLECT_GPU, true, 0,
                                    JC_WHEN_ROOT | JC_WHEN_MIG},
    /* Network (jc_net): per interface of a network namespace, rx and tx,
     * on the cgroup that owns the namespace; from /proc/<pid>/net/dev,
     * read once per namespace, no cgroup file. */
    [JC_LIST_IF_OCTETS] = {"if_octets", "<interface>", NET, true, 0,
                           JC_WHEN_OWNER},
    [JC_LIST_IF_PACKETS] = {"if_packets", "<interface>", NET, true, 0,
                            JC_WHEN_OWNER},
    [JC_LIST_IF_ERRORS] = {"if_errors", "<interface>", NET, true, 0,
                           JC_WHEN_OWNER},
    [JC_LIST_IF_DROPPED] = {"if_dropped", "<interface>", NET, true, 0,
                            JC_WHEN_OWNER},
    /* The namespace's health (net/snmp, net/netstat), opt-in: the few
     * counters that explain a slow service (docs/metrics.md, Network). */
    [JC_LIST_TCP_RETRANS_SEGS] = {"protocol_counter", "Tcp_RetransSegs", NET,
                                  false, 0, JC_WHEN_OWNER},
    [JC_LIST_TCP_LISTEN_OVERFLOWS] = {"protocol_counter",
                                      "TcpExt_ListenOverflows", NET, false, 0,
                                      JC_WHEN_OWNER},
    [JC_LIST_TCP_LISTEN_DROPS] = {"protocol_counter", "TcpExt_ListenDrops", NET,
                                  false, 0, JC_WHEN_OWNER},
    [JC_LIST_UDP_RCVBUF_ERRORS] = {"protocol_counter", "Udp_RcvbufErrors", NET,
                                   false, 0, JC_WHEN_OWNER},
    /* Disk (jc_disk): what a container fills, no cgroup file: its writable
     * layer (allocated bytes and inodes, from a project quota or a walk
     * spread over passes, with the figure's age: a walk's figure is as old
     * as the walk's start), its log files' sizes; a pod's disk-backed
     * emptyDir volumes.  `bytes` and `files`, not df_complex/df_inodes,
     * whose used/free/reserved instances are a file system's: a sum of
     * df_complex-used over a host would count these twice. */
    [JC_LIST_DISK_LAYER] = {"bytes", "layer", DISK, true, 0,
                            JC_WHEN_CONTAINER},
    [JC_LIST_DISK_LAYER_FILES] = {"files", "layer", DISK, true, 0,
                                  JC_WHEN_CONTAINER},
    [JC_LIST_DISK_LAYER_AGE] = {"duration", "layer_age", DISK, true, 0,
                                JC_WHEN_CONTAINER},
    [JC_LIST_DISK_LOGS] = {"bytes", "logs", DISK, true, 0,
                           JC_WHEN_CONTAINER},
    [JC_LIST_DISK_EMPTYDIR] = {"bytes", "emptydir", DISK, true, 0,
                               JC_WHEN_POD},
    [JC_LIST_DISK_EMPTYDIR_FILES] = {"files", "emptydir", DISK, true, 0,
                                     JC_WHEN_POD},
    [JC_LIST_DISK_EMPTYDIR_AGE] = {"duration", "emptydir_age", DISK, true, 0,
                                   JC_WHEN_POD},
};

void jc_lists_name(const char *type, const char *type_instance, char *out,
                  size_t size) {
  snprintf(out, size, "%s%s%s", type, type_instance[0] ? "-" : "",
           type_instance);
}

/* The group names of mask, for messages: "pressure", "limits and cpu". */
static void group_names(unsigned mask, char *out, size_t size) {
  size_t len = 0;
  out[0] = '\0';
  unsigned bit;
  const char *name;
  for (size_t i = 0; (name = jc_sample_collect_word(i, &bit)) && len < size;
       i++)
    if (mask & bit)
      len += (size_t)snprintf(out + len, size - len, "%s\"%s\"",
                              len ? " " : "", name);
}

typedef struct {
  const char *glob;
  uint8_t to; /* JC_SEL_ASKED, or JC_SEL_OFF after "!" */
  unsigned collect;
  unsigned missing; /* groups of matching lists that are not collected */
  size_t matched;   /* lists of collected groups it matched */
} pattern_pass;

/* Applies a pattern to one list named `name` of groups `groups`. */
static void apply(pattern_pass *p, const char *name, unsigned groups,
                  uint8_t *slot) {
  if (fnmatch(p->glob, name, 0) != 0)
    return;
  if ((groups & p->collect) != groups) {
    p->missing |= groups & ~p->collect;
    return;
  }
  p->matched++;
  *slot = p->to;
}

static void memstat_name(const jc_memstat_keys *k, size_t i, char *out,
                         size_t size) {
  if (k->is_event[i])
    jc_lists_name("derive", k->derive_instance[i], out, size);
  else
    jc_lists_name("memory", k->key[i], out, size);
}

static int apply_pattern(jc_selection *sel, jc_memstat_keys *memstat,
                         unsigned collect, const char *text, char *why,
                         size_t n) {
  pattern_pass p = {text[0] == '!' ? text + 1 : text,
                    text[0] == '!' ? JC_SEL_OFF : JC_SEL_ASKED, collect, 0, 0};
  char name[160];
  for (int i = 0; i < JC_LIST_COUNT; i++) {
    jc_lists_name(jc_lists[i].type, jc_lists[i].type_instance, name,
                 sizeof(name));
    apply(&p, name, jc_lists[i].groups, &sel->list[i]);
  }
  for (size_t i = 0; i < memstat->count; i++) {
    memstat_name(memstat, i, name, sizeof(name));
    apply(&p, name, JC_COLLECT_MEMORY, &memstat->sel[i]);
  }
  if (p.matched || p.to == JC_SEL_OFF)
    return 0;
  char groups[96];
  group_names(p.missing, groups, sizeof(groups));
  if (p.missing)
    snprintf(why, n,
             "matches only value lists of Collect %s, which %s not "
             "collected; add it to Collect",
             groups, strchr(groups, ' ') ? "are" : "is");
  else
    snprintf(why, n,
             "matches no value list (names are type-type_instance, such as "
             "\"gauge-cpu_cores\" or \"memory-*\"; a memory.stat key needs "
             "its MemoryStat too; joule_cgroup(5) lists them all)");
  return -EINVAL;
}

int jc_lists_select(jc_selection *ret, jc_memstat_keys *memstat,
                      bool memstat_given, unsigned collect,
                      char *const *patterns, size_t pattern_count,
                      size_t *ret_failed, char *why, size_t n) {
  for (int i = 0; i < JC_LIST_COUNT; i++)
    ret->list[i] = jc_lists[i].in_default &&
                           (jc_lists[i].groups & collect) == jc_lists[i].groups
                       ? JC_SEL_DEFAULT
                       : JC_SEL_OFF;
  bool memory = collect & JC_COLLECT_MEMORY;
  for (size_t i = 0; i < memstat->count; i++)
    memstat->sel[i] = memory && memstat_given ? JC_SEL_ASKED : JC_SEL_OFF;
  for (size_t i = 0; i < pattern_count; i++)
    if (apply_pattern(ret, memstat, collect, patterns[i], why, n) < 0) {
      *ret_failed = i;
      return -EINVAL;
    }
  return 0;
}

uint32_t jc_lists_files_of(const jc_selection *sel,
                           const jc_memstat_keys *memstat, unsigned groups) {
  uint32_t files = 0;
  for (int i = 0; i < JC_LIST_COUNT; i++)
    if (sel->list[i] != JC_SEL_OFF && (jc_lists[i].groups & groups))
      files |= jc_lists[i].files;
  for (size_t i = 0; i < memstat->count && (groups & JC_COLLECT_MEMORY); i++)
    if (memstat->sel[i] != JC_SEL_OFF)
      files |= F(MEMORY_STAT);
  return files;
}

uint32_t jc_lists_files(const jc_selection *sel,
                            const jc_memstat_keys *memstat) {
  return jc_lists_files_of(sel, memstat, ~0u);
}

bool jc_lists_any(const jc_selection *sel, jc_list_id first,
                      size_t count) {
  for (size_t i = 0; i < count; i++)
    if (sel->list[first + i] != JC_SEL_OFF)
      return true;
  return false;
}
