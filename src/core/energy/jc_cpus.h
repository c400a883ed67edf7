/*
 * jc_cpus — the host's CPUs by package: which package (and die) each CPU
 * is on, from the topology the kernel publishes (CpuRoot, default
 * /sys/devices/system/cpu: cpuN/topology/physical_package_id and die_id),
 * and the CPU time of each package's CPUs from /proc/stat's per-CPU lines.
 * The energy model (jc_share) splits a package's RAPL energy by the CPU
 * time of that package's CPUs (docs/metrics.md, "The model").
 *
 * The packages asked for are *domains*, one per RAPL package zone: a
 * physical package id, and a die id where the zone is a die's
 * ("package-0-die-1"); numbering is the kernel's, not the CPUs' order (a
 * two-socket Xeon may put CPUs 0, 2, 4, ... on package 0).  A domain's
 * CPU time is a counter that never runs backwards: each CPU adds what it
 * spent between two reads that both list it, so a CPU that goes offline
 * (its line leaves /proc/stat) or comes back adds nothing for the time
 * between; the topology of a CPU not seen before is read when it is.
 *
 *   jc_cpus_open(cpu_root, proc_stat, &cpus);     the topology, once
 *   jc_cpus_set_domains(cpus, domains, n, &ret_mapped);   CPUs → domains
 *   jc_cpus_read(cpus, &times);                   one bounded read of
 *                                                 /proc/stat; with fewer
 *                                                 than two domains mapped,
 *                                                 only its first line
 *   jc_cpus_mask(cpus, bitmap, nwords);           a cpuset → its domains
 *   jc_cpus_free(cpus);
 *
 * Functions return 0 or a negative errno and never log.  One jc_cpus is
 * not thread-safe.
 */
#ifndef JC_CPUS_H
#define JC_CPUS_H

#include "jc_share.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JC_CPUS_ROOT_DEFAULT "/sys/devices/system/cpu"
/* CPUs beyond it count in the host's figures only (and in no cpuset). */
#define JC_CPUS_MAX 4096
#define JC_CPUS_WORDS (JC_CPUS_MAX / 64)

typedef struct {
  int package; /* physical_package_id */
  int die;     /* die_id; -1: every die of the package */
} jc_cpus_domain;

typedef struct jc_cpus jc_cpus;

/*
 * Learns the CPUs below cpu_root (NULL: the default) and opens proc_stat
 * (NULL: /proc/stat).  0 (*ret set), or -ENOMEM.  A cpu_root that cannot
 * be read leaves every CPU's package unknown; a proc_stat that cannot be
 * opened leaves jc_cpus_read failing with its error (jc_cpus_stat_error).
 */
int jc_cpus_open(const char *cpu_root, const char *proc_stat, jc_cpus **ret);
void jc_cpus_free(jc_cpus *c); /* NULL-safe */

/* The error of opening proc_stat (a negative errno), or 0. */
int jc_cpus_stat_error(const jc_cpus *c);
/* How many CPUs the topology placed in a package. */
size_t jc_cpus_known(const jc_cpus *c);

/*
 * Maps every CPU to the domain of its package (index into domains), at
 * most JC_SHARE_DOMAINS_MAX.  *ret_mapped: how many domains have a CPU.
 * Unless every domain has one and there are at least two, jc_cpus_read
 * gives no domain figures (times->domains 0: the host's time is every
 * zone's).  The domain counters start again from 0.
 */
void jc_cpus_set_domains(jc_cpus *c, const jc_cpus_domain *domains, size_t n,
                         size_t *ret_mapped);

/* The domains read gives figures of (0: none). */
uint32_t jc_cpus_domains(const jc_cpus *c);

/* The host's CPU time, and each domain's, now. */
int jc_cpus_read(jc_cpus *c, jc_share_cpu *ret);

/* The domains of the CPUs set in bitmap (nwords words of 64; CPU n is bit
 * n % 64 of word n / 64): a bit per domain, JC_SHARE_OUTSIDE for CPUs in
 * none (or unknown); 0 for an empty bitmap. */
uint64_t jc_cpus_mask(const jc_cpus *c, const uint64_t *bitmap, size_t nwords);

/* The domains of the cgroup at dirfd, from its cpuset.cpus.effective: 0
 * and *ret_mask, or a negative errno (-ENOENT: the cpuset controller is
 * not enabled for it; -EINVAL: not a CPU list). */
int jc_cpus_cgroup_mask(const jc_cpus *c, int dirfd, uint64_t *ret_mask);

#endif
