/*
 * jcli_energy — the energy side of run's readings: the host's RAPL zones
 * (jc_rapl) and the command's part of each (jc_share, by CPU time over
 * /proc/stat), kept as counters since the meter opened.  A span's energy
 * is then the difference of the counters at its two edges, as its CPU
 * time is, so phases add up to the run exactly.
 *
 *   jcli_energy_meter m = {0};
 *   jcli_energy_open(&m, powercap_root, proc_stat, cpu_root);  once per `run`
 *   jcli_energy_set_cgroup(&m, cgroup_fd);   the command's cgroup (borrowed)
 *   jcli_energy_take(&m, edge, now_ns, have_usage, usage_usec, &counters);
 *                                     at every reading: no allocation
 *   jcli_energy_poll(&m, now_ns);     by jcli_energy_due_ns: the counters
 *                                     read before one could wrap twice
 *   jcli_energy_between(&a, &b, &zone_energy);        a span's figures
 *   jcli_energy_print_notes(&m);      why figures are missing, once
 *   jcli_energy_close(&m);            NULL-safe, idempotent
 *
 * The split is the core's, the plugin's own (jc_share: the model and
 * its one rule for a stretch too short for /proc/stat), made per stretch
 * between readings with the command's cgroup usage_usec and the host's
 * CPU time over that stretch: the command is charged E × Δusage /
 * Δtotal, the idle part is E × Δidle / Δtotal.  A stretch in which
 * /proc/stat did not move is split in the proportions of the stretch
 * before it; the first stretch after START, when it is that short, is
 * added to the next one (and a whole run that short has no share: its
 * figures are null).  On a host of several packages, each package's
 * energy is split by the CPU time of its own CPUs, and the command's time
 * on a package is all of it where its cgroup's cpuset.cpus.effective lies
 * within the package, else its share by the packages' busy time (jc_share:
 * the plugin's rule).  What is the command's alone: the counters since
 * the meter opened, which make a span's figures from its two edges.
 */
#ifndef JCLI_ENERGY_H
#define JCLI_ENERGY_H

#include "jc_cpus.h"
#include "jc_rapl.h"
#include "jc_share.h"

#include <stdbool.h>
#include <stdint.h>

/* One zone at one reading: counters since the meter opened. */
typedef struct {
  bool read;         /* the zone's counter was read at this reading */
  uint32_t gaps;     /* intervals of the zone given up so far (jc_rapl) */
  uint32_t unshared; /* stretches whose split is unknown so far */
  uint64_t host_uj;  /* the zone's energy */
  double proc_uj;    /* of it, the command's part */
  double idle_uj;    /* of it, the idle part */
} jcli_zone_counter;

typedef struct {
  jcli_zone_counter zone[JC_RAPL_ZONES_MAX];
} jcli_energy_counters;

/* The zones of the host, the same for every reading of a `run`. */
typedef struct {
  size_t count; /* 0: no energy figures (no RAPL, or none readable) */
  struct {
    char label[JC_RAPL_LABEL_MAX]; /* "package-0", "package-0-dram" */
    char id[32];                   /* "intel-rapl:0:1" */
    jc_rapl_kind kind;
    int domain; /* its package's CPUs (jc_cpus), -1: the host's */
  } zone[JC_RAPL_ZONES_MAX];
} jcli_energy_zones;

/* Which reading: START and END of a run of the command, or any other. */
typedef enum {
  JCLI_ENERGY_START,
  JCLI_ENERGY_INSIDE,
  JCLI_ENERGY_END,
} jcli_energy_edge;

#define JCLI_ENERGY_NOTES 4

typedef struct {
  bool opened;
  jc_rapl *rapl;
  jc_cpus *cpus; /* the host's CPU time; NULL: not known */
  int cgroup_fd; /* the command's cgroup (its cpuset), borrowed; -1 */
  jcli_energy_zones zones;
  /* what the modules said (INFO and above), printed with the report */
  char note[JCLI_ENERGY_NOTES][1024]; /* as long as a jc_log line */
  size_t notes;
  /* the stretch being split (jc_share): the host's CPU time, the
   * command's usage_usec, each zone's counter where it began */
  jc_share_host host;
  jc_share_usage usage;
  jc_share_zone zone[JC_RAPL_ZONES_MAX];
  jcli_energy_counters now;
} jcli_energy_meter;

/* Opens the zones below powercap_root (NULL: /sys/class/powercap),
 * proc_stat (NULL: /proc/stat) and the CPUs' topology below cpu_root
 * (NULL: /sys/devices/system/cpu).  Missing figures are no error: the
 * notes say why. */
void jcli_energy_open(jcli_energy_meter *m, const char *powercap_root,
                      const char *proc_stat, const char *cpu_root);
void jcli_energy_close(jcli_energy_meter *m);

/* The command's cgroup, whose cpuset.cpus.effective says its packages
 * (-1: none); borrowed until the next call or close. */
void jcli_energy_set_cgroup(jcli_energy_meter *m, int cgroup_fd);

/* When the zones must be read again (CLOCK_MONOTONIC; UINT64_MAX: no
 * need), and that read, which adds to no span. */
uint64_t jcli_energy_due_ns(const jcli_energy_meter *m);
void jcli_energy_poll(jcli_energy_meter *m, uint64_t now_ns);

/* Reads the zones and the host's CPU time at now_ns; usage_usec is the
 * command's cgroup's (have_usage false: unknown).  ret is all zero when
 * the meter has no zones. */
void jcli_energy_take(jcli_energy_meter *m, jcli_energy_edge edge,
                      uint64_t now_ns, bool have_usage, int64_t usage_usec,
                      jcli_energy_counters *ret);

/* A zone over a span, from the counters at its edges. */
typedef struct {
  bool have_host; /* read at both edges, no interval given up between */
  bool have_share; /* and every stretch between split */
  double host_uj, proc_uj, idle_uj;
} jcli_zone_energy;

void jcli_energy_between(const jcli_zone_counter *first,
                         const jcli_zone_counter *last, jcli_zone_energy *ret);

/* Each note as one line on stderr ("joule-cgroup: energy: ..."). */
void jcli_energy_print_notes(const jcli_energy_meter *m);

#endif
