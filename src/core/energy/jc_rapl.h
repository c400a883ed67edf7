/*
 * jc_rapl — the host's energy from RAPL, through the kernel's powercap
 * tree: per zone, the energy since the previous read as a counter that
 * never runs backwards.
 *
 * The tree (root configurable, default /sys/class/powercap) lists every
 * zone flat, each entry a symlink to the zone's directory:
 *
 *   intel-rapl:N      a package ("package-0", "package-1-die-0") or the
 *                     platform ("psys"); N is the kernel's index, not the
 *                     package number (psys may sit between packages)
 *   intel-rapl:N:M    a subzone of intel-rapl:N: "core", "uncore", "dram"
 *
 * AMD hosts have the same layout (intel_rapl_msr drives Zen's RAPL).
 * Other control types (intel-rapl-mmio, which repeats the package zone on
 * some laptops, dtpm, ...) are left out.  Each zone has name, energy_uj,
 * max_energy_range_uj and, where the hardware has power limits,
 * constraint_<n>_{power_limit,max_power}_uw.  A subzone is reported as a
 * zone of its own, never added to its package (the package's energy
 * includes its core and uncore already).
 *
 * Life cycle; one jc_rapl is not thread-safe:
 *
 *   jc_rapl_open(root, log, &r);       discovers the zones; the only
 *                                      allocation.  A missing root or
 *                                      unreadable counters are no error:
 *                                      jc_rapl_state() says which, and one
 *                                      INFO line said why
 *   jc_rapl_read(r, now_ns);           every interval, and whenever
 *                                      jc_rapl_due_ns() comes first: one
 *                                      bounded pread of each zone's
 *                                      energy_uj on a kept descriptor, no
 *                                      allocation
 *   jc_rapl_look(r);                   now and then (the caller's rate):
 *                                      the tree listed again, below
 *   jc_rapl_energy_of(r, i);           zone i's figures from that read
 *   jc_rapl_free(r);
 *
 * Counting: the first read of a zone is its baseline.  After it, each read
 * gives the energy since the one before; where the counter went down it
 * wrapped once: (max_energy_range_uj - previous) + current.  A counter
 * read often enough never wraps twice between two reads:
 * jc_rapl_due_ns() says by when the next read must come (a quarter of the
 * time the fastest zone takes to wrap at its maximum power), and the
 * plugin and the command read the zones by then, whatever their own
 * interval (docs/metrics.md, Energy).  An interval that may still hold
 * more than one wrap (the reader was held up longer than the time to
 * wrap), a read that fails or a value above the range is given up, never
 * guessed: the next good read is a new baseline.  total_uj adds up the
 * intervals kept, and gaps counts those given up (gap says why the last
 * one was): the difference of total_uj between two reads is all the
 * energy between them exactly when the zone was read at both and gaps
 * did not change.
 *
 * Looking again (jc_rapl_look): zones that appear after open (the driver
 * loaded later: one INFO naming them) get the next free index, and the
 * indexes of the zones found before never change; a zone that is no
 * longer listed is closed (a gap); one listed again, or whose energy_uj
 * is another file than the one kept open (the driver unloaded and loaded
 * again: the kernel's old file reads ENODEV for good), is learnt and
 * opened again, and counts from a new baseline; a zone that could not be
 * opened is tried again, and said when it can.
 *
 * The zone's maximum power: twice the largest of its constraint files
 * (constraint_*_max_power_uw and constraint_*_power_limit_uw that read as
 * a positive number; limits bound averages over time windows and the
 * kernel itself takes the peak power as twice PL2); a subzone without any
 * takes its package's; a zone without either JC_RAPL_FALLBACK_POWER_UW.
 *
 * Messages (through the jc_log given to open), each once: no powercap
 * root or no RAPL zone (INFO); energy_uj that cannot be opened, EACCES
 * (root only since Linux 5.10, CVE-2020-8694) with the udev rule that
 * gives a group read access (INFO, one line for every zone); a zone that
 * cannot be used or whose reads start failing (INFO, once per zone, and
 * once when it reads again); zones found by a later look (INFO).  The
 * gaps themselves are said by the caller, which knows what it sends
 * (jc_energy).
 */
#ifndef JC_RAPL_H
#define JC_RAPL_H

#include "jc_log.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JC_RAPL_ROOT_DEFAULT "/sys/class/powercap"
/* Zones kept: an eight-socket server has 25 (package, core and dram per
 * socket, psys); a host with more loses the rest, with INFO. */
#define JC_RAPL_ZONES_MAX 32
#define JC_RAPL_LABEL_MAX 72
/* The maximum power of a zone that declares none: above what any RAPL
 * domain draws today (the largest server packages are rated 500 W). */
#define JC_RAPL_FALLBACK_POWER_UW UINT64_C(1000000000)

typedef enum {
  JC_RAPL_PACKAGE, /* "package-N", "package-N-die-M" */
  JC_RAPL_CORE,    /* "core": the cores of a package (PP0) */
  JC_RAPL_UNCORE,  /* "uncore": its graphics (PP1) */
  JC_RAPL_DRAM,    /* "dram": the memory behind a package */
  JC_RAPL_PSYS,    /* "psys": the platform (SoC and more) */
  JC_RAPL_OTHER,   /* last: the kinds before it are the known ones */
} jc_rapl_kind;

/* "package", "core", "uncore", "dram", "psys", "other". */
const char *jc_rapl_kind_name(jc_rapl_kind kind);

/* Where a zone's maximum power came from. */
typedef enum {
  JC_RAPL_POWER_CONSTRAINT, /* its own constraint files */
  JC_RAPL_POWER_PACKAGE,    /* its package's */
  JC_RAPL_POWER_FALLBACK,   /* JC_RAPL_FALLBACK_POWER_UW */
} jc_rapl_power_source;

typedef struct {
  char id[32];   /* "intel-rapl:0:1": its entry below the root */
  char name[32]; /* its name file, characters outside [A-Za-z0-9._-] as _ */
  /* Unique within the host: the name of a top-level zone ("package-0",
   * "psys"), "<package>-<name>" for a subzone ("package-1-dram"); the id
   * where that would repeat another zone's label.  No '/'. */
  char label[JC_RAPL_LABEL_MAX];
  jc_rapl_kind kind;
  int package;            /* index of the zone a subzone is of; -1 */
  uint64_t range_uj;      /* max_energy_range_uj */
  uint64_t max_power_uw;  /* of the multiple-wrap check */
  jc_rapl_power_source power_source;
  bool readable; /* energy_uj is open; false: the zone yields nothing */
  /* A package zone's "package-N" or "package-N-die-M": N and M, the
   * physical package and die of its CPUs (CpuRoot's topology); -1 where
   * the name says none (subzones, psys, other names). */
  int package_id, die_id;
} jc_rapl_zone;

/* Why an interval of a zone was given up. */
typedef enum {
  JC_RAPL_GAP_NONE,
  JC_RAPL_GAP_UNREADABLE, /* energy_uj could not be read, or went away */
  JC_RAPL_GAP_RANGE,      /* energy_uj read above max_energy_range_uj */
  JC_RAPL_GAP_TOO_LONG,   /* longer than the counter takes to wrap */
  JC_RAPL_GAP_REOPENED,   /* the zone was opened again (a driver reload) */
} jc_rapl_gap;

/* A zone's figures at the latest read. */
typedef struct {
  bool read;  /* its counter was read (a baseline included) */
  bool fresh; /* energy_uj and interval_ns hold the interval just ended */
  uint64_t energy_uj;   /* fresh: the energy of that interval */
  uint64_t interval_ns; /* fresh: its length */
  uint64_t total_uj;    /* the kept intervals' energy since open */
  uint64_t gaps;        /* intervals given up since open */
  jc_rapl_gap gap;      /* why the last one was */
  uint64_t gap_ns;      /* its length, where it is known (TOO_LONG) */
} jc_rapl_energy;

typedef enum {
  JC_RAPL_ABSENT,     /* no powercap root, or no RAPL zone in it */
  JC_RAPL_UNREADABLE, /* zones, but not one of them can be read */
  JC_RAPL_READY,      /* at least one zone is read */
} jc_rapl_state;

typedef struct jc_rapl jc_rapl;

/* 0 (*ret set, whatever the state), or -ENOMEM.  root NULL: the default.
 * log is copied; its fn may be NULL. */
int jc_rapl_open(const char *root, const jc_log *log, jc_rapl **ret);
void jc_rapl_free(jc_rapl *r); /* NULL-safe */

jc_rapl_state jc_rapl_state_of(const jc_rapl *r);
/* Every zone found, readable or not: those of open in the order of their
 * ids (intel-rapl:0, intel-rapl:0:0, intel-rapl:0:1, intel-rapl:1, ...),
 * then those later looks found, in the order found.  An index, once
 * given, is the same zone's for good. */
size_t jc_rapl_zone_count(const jc_rapl *r);
const jc_rapl_zone *jc_rapl_zone_at(const jc_rapl *r, size_t i);

/* Reads every readable zone; now_ns: CLOCK_MONOTONIC (jc_now_ns). */
void jc_rapl_read(jc_rapl *r, uint64_t now_ns);

/* The time (CLOCK_MONOTONIC) by which the zones must be read again so
 * that no counter can wrap twice in between; UINT64_MAX when no zone is
 * read.  At least JC_RAPL_MIN_PERIOD_NS after the last read. */
#define JC_RAPL_MIN_PERIOD_NS UINT64_C(100000000)
uint64_t jc_rapl_due_ns(const jc_rapl *r);

/* Lists the tree again (above); true when zones were added, opened or
 * closed, so that the caller's names and mappings may have changed.
 * The state follows. */
bool jc_rapl_look(jc_rapl *r);
const jc_rapl_energy *jc_rapl_energy_of(const jc_rapl *r, size_t i);

/* Mean power of a fresh interval, in watts; 0 for an empty one. */
double jc_rapl_watts(const jc_rapl_energy *e);

/*
 * "intel-rapl:N" (ret_sub -1) or "intel-rapl:N:M" (name, len: no NUL
 * needed): 0, or -EINVAL for any other name.  N and M are decimal, at
 * most 6 digits, without sign or leading zero.
 */
int jc_rapl_parse_id(const char *name, size_t len, int *ret_zone,
                     int *ret_sub);

#endif
