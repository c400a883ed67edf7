/*
 * jc_sample — what one read of one cgroup yields, and the table of the
 * cgroup v2 files it comes from.
 *
 * A jc_sample is filled file by file with jc_sample_parse(): each file's
 * text (read elsewhere, into a buffer) sets its fields and its bit in
 * `have`.  A sample owns no memory; the io device list points into storage
 * the caller provides, so filling a sample never allocates.
 */
#ifndef JC_SAMPLE_H
#define JC_SAMPLE_H

#include "jc_parse.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest value collectd's `memory` type holds (types.db: 0 to 2^48,
 * 256 TiB).  A limit at or above it limits no machine: it is none.  A size
 * that high is still sent as the kernel printed it (docs/metrics.md). */
#define JC_MEMORY_TYPE_MAX 281474976710656ull

/* a + b for sums of counters: at most UINT64_MAX, beyond any DERIVE, so
 * that a sum too large is never sent instead of wrapping to a small one. */
static inline uint64_t jc_sample_sum(uint64_t a, uint64_t b) {
  uint64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

/* Collect groups (docs/configuration.md, Collect). */
enum {
  JC_COLLECT_CPU = 1u << 0,
  JC_COLLECT_MEMORY = 1u << 1,
  JC_COLLECT_IO = 1u << 2,
  JC_COLLECT_PRESSURE = 1u << 3,
  JC_COLLECT_EVENTS = 1u << 4,
  JC_COLLECT_PIDS = 1u << 5,
  JC_COLLECT_LIMITS = 1u << 6,
  JC_COLLECT_ENERGY = 1u << 7,
  JC_COLLECT_CGROUPS = 1u << 8, /* cgroup.stat: descendants, dying ones */
  JC_COLLECT_GPU = 1u << 9,     /* NVIDIA GPUs through NVML (jc_gpu) */
  JC_COLLECT_NETWORK = 1u << 10, /* per network namespace (jc_net) */
  JC_COLLECT_DISK = 1u << 11,    /* what containers fill on disk (jc_disk) */
  JC_COLLECT_DEFAULT =
      JC_COLLECT_CPU | JC_COLLECT_MEMORY | JC_COLLECT_IO | JC_COLLECT_LIMITS,
};

/* Maps a Collect word ("cpu", "memory", ...) to its bit; 0 if unknown. */
unsigned jc_sample_collect_bit(const char *word);
/* The i-th Collect word and its bit; NULL past the last.  For listings of
 * the groups (tests/reference_lists, the reference of joule_cgroup(5)). */
const char *jc_sample_collect_word(size_t i, unsigned *ret_bit);

/*
 * The single-value files sent as the kernel writes them, one gauge each:
 * one row per file, and everything about it follows from the row: its
 * entry in the file table (JC_FILE_<ID>, jc_sample_files), its field in
 * the sample (s-><field>, parsed by jc_parse_single), its value list in
 * the catalogue (JC_LIST_<ID>, jc_lists) and the list's dispatch
 * (jc_metrics).  A new figure of this kind is a row here and its line in
 * docs/metrics.md.
 *
 *   X(ID, field, file, controller, flags, type, type_instance, group,
 *     kernel)
 *
 * flags, named: JC_ROW_OPTIONAL (missing is "no data", never a problem:
 * a file a kernel may lack), JC_ROW_NOT_AT_ROOT (the root cgroup lacks
 * it by design), JC_ROW_RESET (written after each read: the interval
 * peak, whose step is jc_peak), JC_ROW_DEFAULT (its list is in its
 * group's default set).  kernel: the first Linux release that has it.
 * The file table's other rows (jc_sample.c) take the first three.
 */
#define JC_ROW_OPTIONAL 1u
#define JC_ROW_NOT_AT_ROOT 2u
#define JC_ROW_RESET 4u
#define JC_ROW_DEFAULT 8u
#define JC_SINGLE_FILES(X)                                                     \
  X(MEMORY_CURRENT, memory_current, "memory.current", "memory",                \
    JC_ROW_NOT_AT_ROOT | JC_ROW_DEFAULT, "memory", "current",                  \
    JC_COLLECT_MEMORY, "4.5")                                                  \
  X(MEMORY_PEAK, memory_peak, "memory.peak", "memory",                         \
    JC_ROW_OPTIONAL | JC_ROW_NOT_AT_ROOT | JC_ROW_DEFAULT, "memory", "peak",   \
    JC_COLLECT_MEMORY, "5.19")                                                 \
  X(MEMORY_PEAK_INTERVAL, memory_peak_interval, "memory.peak", "memory",       \
    JC_ROW_OPTIONAL | JC_ROW_NOT_AT_ROOT | JC_ROW_RESET | JC_ROW_DEFAULT,      \
    "memory", "peak_interval", JC_COLLECT_MEMORY, "6.12")                      \
  X(MEMORY_SWAP_CURRENT, memory_swap_current, "memory.swap.current", "memory", \
    JC_ROW_OPTIONAL | JC_ROW_NOT_AT_ROOT, "memory", "swap_current",            \
    JC_COLLECT_MEMORY, "4.5")                                                  \
  X(MEMORY_SWAP_PEAK, memory_swap_peak, "memory.swap.peak", "memory",          \
    JC_ROW_OPTIONAL | JC_ROW_NOT_AT_ROOT, "memory", "swap_peak",               \
    JC_COLLECT_MEMORY, "6.5")                                                  \
  X(PIDS_CURRENT, pids_current, "pids.current", "pids",                        \
    JC_ROW_NOT_AT_ROOT | JC_ROW_DEFAULT, "count", "pids", JC_COLLECT_PIDS,     \
    "4.5")                                                                     \
  X(PIDS_PEAK, pids_peak, "pids.peak", "pids",                                 \
    JC_ROW_OPTIONAL | JC_ROW_NOT_AT_ROOT | JC_ROW_DEFAULT, "count",            \
    "pids_peak", JC_COLLECT_PIDS, "6.1")

#define JC_SINGLE_FILE_ID(ID, ...) JC_FILE_##ID,

typedef enum {
  JC_FILE_CPU_STAT,
  JC_SINGLE_FILES(JC_SINGLE_FILE_ID)
  JC_FILE_MEMORY_STAT,
  JC_FILE_IO_STAT,
  JC_FILE_CPU_PRESSURE,
  JC_FILE_MEMORY_PRESSURE,
  JC_FILE_IO_PRESSURE,
  JC_FILE_MEMORY_EVENTS,
  JC_FILE_CPU_MAX,
  JC_FILE_MEMORY_MAX,
  JC_FILE_MEMORY_HIGH,
  JC_FILE_PIDS_MAX,
  JC_FILE_CGROUP_STAT,
  JC_FILE_CPUSET_CPUS_EFFECTIVE, /* for Collect "energy" on a host of
                                    several packages (jc_energy) */
  JC_FILE_COUNT
} jc_file_id;

/* The files whose values are limits (read at every read for the cgroup
 * itself, at walks for its ancestors). */
#define JC_LIMIT_FILES                                                         \
  ((1u << JC_FILE_CPU_MAX) | (1u << JC_FILE_MEMORY_MAX) |                      \
   (1u << JC_FILE_MEMORY_HIGH) | (1u << JC_FILE_PIDS_MAX))

typedef struct {
  const char *name;       /* "memory.current" */
  const char *controller; /* controller that provides it, NULL: always there */
  bool optional;          /* missing means "no data", never a problem:
                             memory.peak before 5.19, memory.swap.current
                             without swap accounting */
  bool absent_at_root;    /* the root cgroup lacks it by design */
  const char *missing_hint; /* why it can be missing where it belongs,
                               NULL when only a bug or a vanishing cgroup
                               explains it */
  bool reset_after_read;  /* written after each read: kept descriptors on
                             cgroupfs only */
  size_t single; /* a row of JC_SINGLE_FILES: its field's offset in the
                    sample; 0: another kind of file */
} jc_file_info;

extern const jc_file_info jc_sample_files[JC_FILE_COUNT];

/* cpu.stat keys we report, in the order of docs/metrics.md. */
enum {
  JC_CPU_USAGE_USEC,
  JC_CPU_USER_USEC,
  JC_CPU_SYSTEM_USEC,
  JC_CPU_NR_PERIODS,
  JC_CPU_NR_THROTTLED,
  JC_CPU_THROTTLED_USEC,
  JC_CPU_NR_BURSTS,
  JC_CPU_BURST_USEC,
  JC_CPU_KEY_COUNT
};
extern const char *const jc_sample_cpu_keys[JC_CPU_KEY_COUNT];

/*
 * The keys of flat-keyed files that are each sent as the kernel writes
 * them, one value list a key: one row per key, as JC_SINGLE_FILES has one
 * per file, and everything about it follows from the row: the key's
 * parse into the sample (s->keyed[JC_KEY_<ID>], its bit in keyed_have),
 * its value list (JC_LIST_<ID>) and the list's dispatch.  The file itself
 * (its name, controller, root) is a row of the file table.
 *
 *   X(ID, file, key, flags, type, type_instance, group, kernel)
 *
 * flags, named: JC_KEY_COUNTER (a DERIVE, checked against its range; else
 * a gauge), JC_KEY_REQUIRED (every kernel that has the file prints it: a
 * file without it is malformed; a file of optional keys gives the keys it
 * has, as older kernels print a subset), JC_KEY_DEFAULT (its list is in
 * its group's default set).  kernel: the first Linux release that has the
 * key.
 */
#define JC_KEY_COUNTER 1u
#define JC_KEY_REQUIRED 2u
#define JC_KEY_DEFAULT 4u
#define JC_KEYED_FIGURES(X)                                                    \
  X(MEMORY_EVENTS_LOW, MEMORY_EVENTS, low, JC_KEY_COUNTER | JC_KEY_DEFAULT,    \
    "derive", "memory_events_low", JC_COLLECT_EVENTS, "4.5")                   \
  X(MEMORY_EVENTS_HIGH, MEMORY_EVENTS, high, JC_KEY_COUNTER | JC_KEY_DEFAULT,  \
    "derive", "memory_events_high", JC_COLLECT_EVENTS, "4.5")                  \
  X(MEMORY_EVENTS_MAX, MEMORY_EVENTS, max, JC_KEY_COUNTER | JC_KEY_DEFAULT,    \
    "derive", "memory_events_max", JC_COLLECT_EVENTS, "4.5")                   \
  X(MEMORY_EVENTS_OOM, MEMORY_EVENTS, oom, JC_KEY_COUNTER | JC_KEY_DEFAULT,    \
    "derive", "memory_events_oom", JC_COLLECT_EVENTS, "4.5")                   \
  X(MEMORY_EVENTS_OOM_KILL, MEMORY_EVENTS, oom_kill,                           \
    JC_KEY_COUNTER | JC_KEY_DEFAULT, "derive", "memory_events_oom_kill",       \
    JC_COLLECT_EVENTS, "4.13")                                                 \
  X(MEMORY_EVENTS_OOM_GROUP_KILL, MEMORY_EVENTS, oom_group_kill,               \
    JC_KEY_COUNTER | JC_KEY_DEFAULT, "derive", "memory_events_oom_group_kill", \
    JC_COLLECT_EVENTS, "5.17")                                                 \
  X(CGROUP_DESCENDANTS, CGROUP_STAT, nr_descendants,                           \
    JC_KEY_REQUIRED | JC_KEY_DEFAULT, "count", "cgroup_descendants",           \
    JC_COLLECT_CGROUPS, "4.14")                                                \
  X(CGROUP_DYING_DESCENDANTS, CGROUP_STAT, nr_dying_descendants,               \
    JC_KEY_REQUIRED | JC_KEY_DEFAULT, "count", "cgroup_dying_descendants",     \
    JC_COLLECT_CGROUPS, "4.14")

#define JC_KEYED_ID(ID, ...) JC_KEY_##ID,
enum { JC_KEYED_FIGURES(JC_KEYED_ID) JC_KEY_COUNT };
#undef JC_KEYED_ID

/* The MemoryStat keys chosen in the configuration, in config order. */
#define JC_MEMSTAT_MAX 64
typedef struct {
  size_t count;
  char *key[JC_MEMSTAT_MAX];
  uint8_t key_len[JC_MEMSTAT_MAX];
  /* pg*, workingset_*, thp_*, zswp*, swpin*, swpout*, numa_* count
     events: derive-memory_<key>;
     the others are bytes: memory-<key>.  Computed once, at config time. */
  bool is_event[JC_MEMSTAT_MAX];
  char *derive_instance[JC_MEMSTAT_MAX]; /* "memory_<key>" for events */
  uint8_t sel[JC_MEMSTAT_MAX]; /* JC_SEL_* (jc_lists.h): is its list sent */
} jc_memstat_keys;

/* memory.stat keys that count events rather than bytes. */
bool jc_sample_memstat_key_is_event(const char *key);

typedef struct {
  unsigned major, minor;
  bool unknown; /* "(unknown)" in io.stat: PerDevice names it "unknown" */
  uint64_t rbytes, wbytes, rios, wios;
} jc_io_device;

typedef struct {
  uint32_t have; /* bit (1u << jc_file_id) per file parsed */
  uint64_t time_ns; /* CLOCK_MONOTONIC when cpu.stat was read */

  uint64_t cpu[JC_CPU_KEY_COUNT];
  uint16_t cpu_have; /* bit per cpu key present in the file */

#define JC_SINGLE_FIELD(ID, field, ...) uint64_t field;
  JC_SINGLE_FILES(JC_SINGLE_FIELD) /* memory_current, ... (the rows above) */
  /* Limits of the cgroup itself; JC_VALUE_MAX for "max". */
  uint64_t cpu_max_quota, cpu_max_period; /* µs; quota JC_VALUE_MAX: none */
  uint64_t memory_max, memory_high, pids_max;
  uint64_t memstat[JC_MEMSTAT_MAX];
  uint64_t memstat_have;

  /* Over all devices; UINT64_MAX when the sum is more (jc_sample_sum). */
  uint64_t io_rbytes, io_wbytes, io_rios, io_wios;
  jc_io_device *io_device; /* caller's storage */
  size_t io_device_count, io_device_capacity;
  bool io_devices_truncated; /* more devices than capacity (sums still right) */
  bool io_malformed;         /* a line was skipped: the devices are not all */

  jc_psi psi[3]; /* cpu, memory, io */

  uint64_t keyed[JC_KEY_COUNT]; /* the rows of JC_KEYED_FIGURES */
  uint32_t keyed_have;           /* bit (1u << JC_KEY_<ID>) per key parsed */

  /* cpuset.cpus.effective: CPU n is bit n % 64 of word n / 64 of the
   * caller's storage (cleared by the parse, not by a reset; the
   * collector's holds JC_SAMPLE_CPUSET_WORDS); beyond: the list names
   * CPUs past it. */
  uint64_t *cpuset;
  size_t cpuset_words;
  bool cpuset_beyond;
} jc_sample;

/* The CPUs a sample's cpuset holds (the collector's storage). */
#define JC_SAMPLE_CPUSET_WORDS (4096 / 64)

/* Clears sample for a new read, keeping its device storage. */
void jc_sample_reset(jc_sample *s);

static inline bool jc_sample_has(const jc_sample *s, jc_file_id f) {
  return s->have & (1u << f);
}

/*
 * Parses the text of file f into sample.  Returns 0, or a negative errno
 * when the text is malformed; values parsed before a malformed line of a
 * flat-keyed file are kept.  Every u64 is a value: -EOVERFLOW says that a
 * counter is beyond what a collectd DERIVE holds (2^63 - 1), and then the
 * whole file is in the sample (jc_metrics sends every list but that
 * counter's).
 */
int jc_sample_parse(jc_sample *s, jc_file_id f, const char *buf, size_t len,
                    const jc_memstat_keys *keys);

#endif
