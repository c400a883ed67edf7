/*
 * jcli_reading — one reading of what `joule-cgroup run` measures: the
 * command's cgroup ("proc", the profiler's proc_ figures) and the root
 * cgroup, the whole machine ("global", its global_ figures), taken in one
 * read pass of one collector so that both describe the same instant; and
 * right after it the host's energy counters and the command's part of
 * them (jcli_energy).
 *
 * The root cgroup has no memory.current by design; its "current" is the
 * memory the machine has in use, MemTotal - MemAvailable of /proc/meminfo.
 *
 *   jcli_reader rd;  jcli_reader_init(&rd);      names table, meminfo fd
 *   jcli_reader_take(&rd, collector, kind, &reading);   every read
 *   jcli_reader_release(&rd);
 *
 * Memory values are kept by index into the reader's table of names
 * ("current", "anon", ...), the same for every reading of a run, so a
 * reading is a fixed-size value that needs no allocation.
 */
#ifndef JCLI_READING_H
#define JCLI_READING_H

#include "jc_collector.h"
#include "jcli_energy.h"

#include <stdbool.h>
#include <stdint.h>

/* memory.current, memory.swap.current and the MemoryStat keys. */
#define JCLI_MEMORY_MAX (JC_MEMSTAT_MAX + 2)

/* Why a reading was taken; it decides what the reading counts for. */
typedef enum {
  JCLI_READ_START, /* just before the command starts: the cgroup is empty */
  JCLI_READ_TICK,  /* every interval while it runs */
  JCLI_READ_MARK,  /* when a marker line was read: a phase boundary */
  JCLI_READ_END,   /* after its last process exited */
} jcli_read_kind;

/* The counters of one cgroup: its totals since it began (jc_totals). */
typedef struct {
  bool have_usage, have_times, have_io;
  int64_t usage_usec, user_usec, system_usec;
  int64_t read_bytes, write_bytes, read_ops, write_ops;
} jcli_counters;

/* The cgroup's effective limits at a reading (docs/metrics.md), where it has any. */
typedef struct {
  bool have_cpu_cores, have_memory_max, have_memory_high, have_pids_max;
  double cpu_cores, memory_max, memory_high, pids_max;
} jcli_limits;

/* JC_GPU_MAX: the GPUs a collector reads at most. */
#define JCLI_GPU_MAX 16

/* One GPU's lists of one cgroup at a reading (Collect "gpu", jc_gpu):
 * absent until its processes used the GPU (the command's cgroup), so a
 * GPU read (the root's lists) with none of the cgroup's counts as 0. */
typedef struct {
  bool have_memory, have_total, have_sm, have_energy, have_idle;
  double memory;    /* memory-<gpu>: bytes */
  double total;     /* memory-<gpu>_total (root): bytes */
  double sm;        /* percent-<gpu>_sm: mean since the read before */
  double energy_uj; /* derive-energy_<gpu>_uj: the board's (root), or the
                       cgroup's part, since the GPU's epoch began */
  double idle_uj;   /* derive-energy_<gpu>_idle_uj (root) */
} jcli_gpu_figures;

typedef struct {
  jcli_counters counters;
  jcli_limits limits;
  bool have_peak, have_peak_interval;
  double peak;          /* memory.peak: the highest since the cgroup began */
  double peak_interval; /* the highest since the previous read (≥ 6.12) */
  bool have_memory[JCLI_MEMORY_MAX];
  double memory[JCLI_MEMORY_MAX]; /* bytes, by index into the names */
  jcli_gpu_figures gpu[JCLI_GPU_MAX]; /* by index into the GPUs' names */
} jcli_figures;

typedef struct {
  jcli_read_kind kind;
  uint64_t time_ns; /* CLOCK_MONOTONIC, just before the read pass */
  jcli_figures proc, global;
  jcli_energy_counters energy; /* all zero without RAPL */
} jcli_reading;

typedef struct {
  size_t count;
  char name[JCLI_MEMORY_MAX][64];
} jcli_memory_names;

/* The GPUs met in a run, by UUID (the lists' "<gpu>"), in order met. */
typedef struct {
  size_t count;
  char uuid[JCLI_GPU_MAX][96];
} jcli_gpu_names;

typedef struct {
  jcli_memory_names names;
  jcli_gpu_names gpus;
  int meminfo_fd; /* /proc/meminfo, kept open; -1 when it cannot be read */
  jcli_energy_meter energy; /* opened by the caller (jcli_energy_open) */
  jcli_reading *filling; /* during jcli_reader_take() */
} jcli_reader;

void jcli_reader_init(jcli_reader *rd);
void jcli_reader_release(jcli_reader *rd); /* closes the energy meter too */

/* Reads every cgroup c tracks: the root cgroup is "global", any other
 * (the command's) "proc". */
void jcli_reader_take(jcli_reader *rd, jc_collector *c, jcli_read_kind kind,
                      jcli_reading *ret);

/* The jc_collect_fn and jc_totals_fn behind jcli_reader_take(), for
 * tests: fill rd->filling from one metric, or the totals, of target t. */
void jcli_reader_add(void *ctx, const jc_target *t, const jc_metric *m);
void jcli_reader_totals(void *ctx, const jc_target *t,
                        const jc_totals *totals);

/* Index of a memory value's name, added when new; -ENOSPC when the table
 * is full. */
int jcli_memory_index(jcli_memory_names *names, const char *name);
/* Index of a name already in the table; -ENOENT when it is not. */
int jcli_memory_find(const jcli_memory_names *names, const char *name);

/* Index of GPU uuid, added when new; -ENOSPC when the table is full. */
int jcli_gpu_index(jcli_gpu_names *gpus, const char *uuid);

/* MemTotal - MemAvailable from the text of /proc/meminfo.  0, or
 * -ENODATA when either line is missing (-EBADMSG: not a number). */
int jcli_meminfo_used(const char *text, size_t len, uint64_t *ret_bytes);

#endif
