/*
 * jc_lists — every value list the plugin can send, and which ones it
 * sends: the catalogue of docs/metrics.md in one table.
 *
 * A value list is named by its type and type instance as collectd writes
 * them, "type-type_instance" ("gauge-cpu_cores"), or the type alone when
 * it has no type instance ("ps_cputime", "disk_octets": with PerDevice
 * those lists carry the device as type instance, but are still named
 * "disk_octets" here).  Each belongs to the Collect groups it is made
 * from, and is either in the default set of its groups or opt-in.
 *
 * A host pays collectd about 8-12 µs of CPU per value list dispatched, so
 * the default set sends each fact once: nothing a receiver derives from
 * another list, nothing that is always 0.  The `Values` option chooses
 * otherwise, with globs over the names ("*", "memory-*", "!percent-cpu"),
 * before anything is read or built: the files read are the ones the
 * chosen lists are made from.
 *
 * The MemoryStat keys make lists of their own ("memory-anon",
 * "derive-memory_pgfault"), chosen like the others (jc_memstat_keys.sel).
 * The energy lists exist once per RAPL zone, which only init knows: they
 * are named, and chosen for every zone at once, with "<zone>" in place
 * of the zone ("power-<zone>"; "power-*" matches it).  So are the GPU
 * lists, once per GPU, with "<gpu>" for its UUID ("memory-<gpu>"), and the
 * network lists with "<interface>" ("if_octets-<interface>").
 *
 * Each list has its identifier, jc_list_id, and every value list the core
 * makes carries it (jc_metric.list): whoever reads the core's metrics
 * (the command) tells them apart by it, never by the type strings, which
 * are collectd's names and may change with this table alone.
 */
#ifndef JC_LISTS_H
#define JC_LISTS_H

#include "jc_sample.h"

#include <stdbool.h>
#include <stdint.h>

/* The pressure lists, by resource (cpu, memory, io) and line (some, full). */
#define JC_PSI_LINES 6 /* resource * 2 + (full ? 1 : 0) */
#define JC_PSI_WINDOWS 3 /* avg10, avg60, avg300 */

typedef enum {
  JC_LIST_PS_CPUTIME,
  JC_LIST_CPU_CORES,
  JC_LIST_CPU_USAGE_USEC,
  JC_LIST_CPU_PERCENT,
  JC_LIST_CPU_NR_PERIODS,
  JC_LIST_CPU_NR_THROTTLED,
  JC_LIST_CPU_THROTTLED_USEC,
  JC_LIST_CPU_NR_BURSTS,
  JC_LIST_CPU_BURST_USEC,
#define JC_SINGLE_LIST_ID(ID, ...) JC_LIST_##ID,
  JC_SINGLE_FILES(JC_SINGLE_LIST_ID) /* one gauge each (jc_sample.h) */
  JC_LIST_DISK_OCTETS,
  JC_LIST_DISK_OPS,
  JC_LIST_PSI_STALL, /* JC_PSI_LINES: derive-<res>_<some|full>_stall_usec */
  JC_LIST_PSI_LOAD = JC_LIST_PSI_STALL + JC_PSI_LINES, /* load-<res>_<line> */
  JC_LIST_PSI_AVG = JC_LIST_PSI_LOAD + JC_PSI_LINES,   /* pressure-..._avgN */
  JC_LIST_PSI_AVG_LAST = JC_LIST_PSI_AVG + JC_PSI_LINES * JC_PSI_WINDOWS - 1,
#define JC_KEYED_LIST_ID(ID, ...) JC_LIST_##ID,
  JC_KEYED_FIGURES(JC_KEYED_LIST_ID) /* one a key (jc_sample.h) */
  JC_LIST_CPU_LIMIT_CORES,
  JC_LIST_CPU_LIMIT_PERCENT,
  JC_LIST_MEMORY_MAX,
  JC_LIST_MEMORY_HIGH,
  JC_LIST_MEMORY_MAX_PERCENT,
  JC_LIST_PIDS_MAX,
  JC_LIST_ENERGY,      /* derive-energy_<zone>_uj: host measured, cgroup charged */
  JC_LIST_ENERGY_IDLE, /* derive-energy_<zone>_idle_uj: the host's idle part */
  JC_LIST_POWER,       /* power-<zone>: the host's mean power */
  JC_LIST_GPU_MEMORY,      /* memory-<gpu>: its processes' GPU memory */
  JC_LIST_GPU_MEMORY_TOTAL, /* memory-<gpu>_total: the GPU's (root) */
  JC_LIST_GPU_SM,          /* percent-<gpu>_sm: their SM utilisation */
  JC_LIST_GPU_ENERGY,      /* derive-energy_<gpu>_uj: board, or its part */
  JC_LIST_GPU_ENERGY_IDLE, /* derive-energy_<gpu>_idle_uj: the idle part */
  JC_LIST_GPU_INSTANCE_MEMORY, /* memory-<gpu>_gi<instance>: MIG, per GPU
                                  instance */
  JC_LIST_GPU_INSTANCE_TOTAL,  /* memory-<gpu>_gi<instance>_total (root) */
  JC_LIST_IF_OCTETS,  /* if_octets-<interface>: rx, tx bytes (jc_net) */
  JC_LIST_IF_PACKETS, /* if_packets-<interface> */
  JC_LIST_IF_ERRORS,  /* if_errors-<interface> */
  JC_LIST_IF_DROPPED, /* if_dropped-<interface> */
  JC_LIST_TCP_RETRANS_SEGS,      /* protocol_counter-Tcp_RetransSegs */
  JC_LIST_TCP_LISTEN_OVERFLOWS,  /* protocol_counter-TcpExt_ListenOverflows */
  JC_LIST_TCP_LISTEN_DROPS,      /* protocol_counter-TcpExt_ListenDrops */
  JC_LIST_UDP_RCVBUF_ERRORS,     /* protocol_counter-Udp_RcvbufErrors */
  JC_LIST_DISK_LAYER,        /* bytes-layer: a container's writable layer */
  JC_LIST_DISK_LAYER_FILES,  /* files-layer: its inodes */
  JC_LIST_DISK_LAYER_AGE,    /* duration-layer_age: how old that figure is */
  JC_LIST_DISK_LOGS,         /* bytes-logs: its log files */
  JC_LIST_DISK_EMPTYDIR,     /* bytes-emptydir: a pod's disk emptyDirs */
  JC_LIST_DISK_EMPTYDIR_FILES, /* files-emptydir */
  JC_LIST_DISK_EMPTYDIR_AGE, /* duration-emptydir_age */
  JC_LIST_COUNT,
  /* Outside the table and the selection (jc_memstat_keys has those): a
   * MemoryStat key's list, its type instance the key itself
   * ("memory-anon") or, for an event counter, "memory_<key>"
   * ("derive-memory_pgfault"). */
  JC_LIST_MEMSTAT = JC_LIST_COUNT,
  JC_LIST_MEMSTAT_EVENT,
} jc_list_id;

/* Where a chosen list is sent, beyond its files being there: the
 * catalogue's own words for the counts of lists per cgroup that
 * docs/configuration.md's Collect table and docs/metrics.md give (held to
 * them by tests/reference_check.py, from tests/reference_lists).  0:
 * wherever its files are read, on every cgroup (the root has what its
 * files give it: jc_file_info.absent_at_root); a list with a placeholder
 * in its type instance is one per zone, GPU, GPU instance or interface. */
enum {
  JC_WHEN_QUOTA = 1u << 0, /* in the default set, once the cgroup's own
                              CPU quota was in force (before, 0: the
                              throttling counters; jc_metrics) */
  JC_WHEN_LIMIT = 1u << 1, /* where the cgroup has that limit, its own or
                              an ancestor's */
  JC_WHEN_ROOT = 1u << 2,  /* on the root cgroup only */
  JC_WHEN_USED = 1u << 3,  /* where the cgroup's processes use that GPU
                              (on the root: any process) */
  JC_WHEN_MIG = 1u << 4,   /* per GPU instance of a GPU in MIG mode */
  JC_WHEN_OWNER = 1u << 5, /* on the cgroup that owns the network
                              namespace */
  JC_WHEN_CONTAINER = 1u << 6, /* on a container's cgroup (its runtime
                                  says where its storage is) */
  JC_WHEN_POD = 1u << 7,       /* on a Kubernetes pod's cgroup */
};

typedef struct {
  const char *type;          /* of collectd's standard types.db */
  const char *type_instance; /* "" when none */
  unsigned groups;           /* JC_COLLECT_* groups it needs, all of them */
  bool in_default;           /* sent unless Values says otherwise */
  uint32_t files;            /* the jc_file_id bits it is made from */
  unsigned when;             /* JC_WHEN_*: where it is sent (0: always) */
} jc_list_info;

extern const jc_list_info jc_lists[JC_LIST_COUNT];

/* How a list was chosen.  JC_SEL_DEFAULT lists may follow a rule of their
 * own (the throttling counters: only once the cgroup was under a quota);
 * lists a Values pattern names are sent whenever their figure exists. */
enum { JC_SEL_OFF, JC_SEL_DEFAULT, JC_SEL_ASKED };

typedef struct {
  uint8_t list[JC_LIST_COUNT];
} jc_selection;

/* The type of list id, the MemoryStat lists' included ("memory",
 * "derive"); inline: the read pass asks it for every list it makes. */
static inline const char *jc_lists_type(jc_list_id id) {
  if (id < JC_LIST_COUNT)
    return jc_lists[id].type;
  return id == JC_LIST_MEMSTAT ? "memory" : "derive";
}

/* "gauge-cpu_cores", "ps_cputime": the name Values patterns match. */
void jc_lists_name(const char *type, const char *type_instance, char *out,
                  size_t size);

/*
 * The selection of the Collect groups `collect`: their default lists,
 * then each of `patterns` in order, a glob that adds the lists it matches
 * or, after "!", removes them.  MemoryStat lists: on when the keys were
 * given explicitly (memstat_given), else opt-in.  0, or -EINVAL when a
 * pattern (the *ret_failed-th) adds no list of the collected groups; why
 * says why.
 */
int jc_lists_select(jc_selection *ret, jc_memstat_keys *memstat,
                      bool memstat_given, unsigned collect,
                      char *const *patterns, size_t pattern_count,
                      size_t *ret_failed, char *why, size_t n);

/* The files the chosen lists are made from. */
uint32_t jc_lists_files(const jc_selection *sel,
                            const jc_memstat_keys *memstat);
/* The same, of the chosen lists of any of the Collect groups `groups`
 * (the MemoryStat lists are of memory). */
uint32_t jc_lists_files_of(const jc_selection *sel,
                           const jc_memstat_keys *memstat, unsigned groups);

/* Is any of the lists [first, first + count) chosen? */
bool jc_lists_any(const jc_selection *sel, jc_list_id first, size_t count);

#endif
