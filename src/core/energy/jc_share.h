/*
 * jc_share — the energy model: how the energy a RAPL zone measured over a
 * stretch of time is split between cgroups by CPU time, and the one rule
 * for a stretch too short to split.  The plugin (jc_energy: a stretch per
 * read pass, many cgroups) and the command (jcli_energy: a stretch
 * between two readings, one cgroup) both account through it.  So
 * does Collect "gpu" (jc_gpu), whose board energy is split by SM
 * utilisation instead: jc_share_split_energy, jc_share_charge and
 * jc_share_covered take any measure of use in place of CPU time (the
 * capacity as total_usec, the unused part as idle_usec, the parties'
 * use as usec, all in the same unit: jc_gpu's is a thousandth of a per
 * cent of the GPU's SMs).  No I/O:
 * the caller reads the zones (jc_rapl) and the host's CPU time (jc_cpus)
 * and keeps the state below.
 *
 * Over a stretch the CPUs a zone measures spent T µs of CPU time (busy
 * and idle), I of it idle, and the zone measured E µJ:
 *
 *   idle part        E × I / T
 *   a cgroup's part  E × u / T      u: its CPU time on those CPUs over
 *                                   the stretch (a parent's includes its
 *                                   children's, as cpu.stat does)
 *
 * so the parts of cgroups that together cover all the busy time B = T - I
 * (the top-level cgroups, and the root cgroup's own processes) add up with
 * the idle part to E.  The host counts its CPU time in scheduler ticks,
 * a cgroup exactly, so over short stretches the cgroups' time (`covered`:
 * the sum over the cgroups to be charged that are not inside one another)
 * can exceed B; then each is charged E × (B / T) × u / covered instead,
 * and they share the busy part and no more.  Memory and I/O energy are
 * not modelled: a zone's whole energy, a dram zone's included, is split
 * by CPU time (docs/metrics.md, "The model").
 *
 * Which CPUs: a package zone (and its core, uncore and dram) measures the
 * CPUs of its package, a *domain* (jc_cpus maps CPUs to domains); psys
 * and a host with one package measure the whole host (domain -1).  A
 * cgroup's CPU time on a domain (jc_share_domain_times) is all of it
 * where its effective cpuset lies within that one package, none where
 * its cpuset has no CPU there; otherwise its tracked children's time on
 * the domain plus the rest of its time (what its children did not use)
 * shared among the packages its cpuset allows in proportion to each
 * one's busy time over the stretch: an estimate, since cgroup v2 counts
 * no CPU time per CPU.
 *
 * A stretch in which /proc/stat did not move (T = 0: shorter than its
 * resolution, 1/100 s of CPU time over all CPUs) cannot be split by its
 * own times.  The rule (jc_share_rule): it is split as the stretch before
 * it was, the idle part and each cgroup's part in the same proportions
 * (JC_SHARE_PREVIOUS); with no stretch before it (the first after a
 * start) it waits and is split with the next (JC_SHARE_WAIT); where no
 * next one comes (the command's last reading) it has no share.  Why not
 * drop it: its energy would be missing from the parts for good, which
 * then no longer add up to what the zone measured.  Why not always wait:
 * a span that ends inside the stretch (a phase of the command) would
 * have no part of its energy and the next span more parts than its zone
 * measured; the proportions of the stretch before keep the parts of
 * every span within what was measured, at the cost of an error bounded
 * by the energy of a stretch shorter than /proc/stat's resolution.  A
 * domain whose own CPU time did not move in a stretch the host's did has
 * no share of that stretch.
 *
 * One stretch after another, at each reading:
 *
 *   jc_share_host_end(&host, have, &cpu_now, final);  decides the rule
 *   jc_share_usage_end(&cgroup, host.rule, have, usage);  per cgroup
 *   jc_share_domain_times(&host, parties, n, on, work);  per domain
 *   jc_share_zone_split(&zone, &host, &rapl_now, domain, covered, &split);
 *   jc_share_charge(&split, time);    per cgroup charged, per zone
 *
 * and jc_share_host_start(), jc_share_usage_start(), jc_share_zone_start()
 * where the stretches before are not to count (the command's START).
 */
#ifndef JC_SHARE_H
#define JC_SHARE_H

#include "jc_procstat.h"
#include "jc_rapl.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  double busy_uj;     /* E × B / T: what the cgroups share */
  double idle_uj;     /* E - busy_uj = E × I / T */
  double uj_per_usec; /* a cgroup's charge per µs of its CPU time */
} jc_share_split;

/*
 * Splits energy_uj over a stretch in which the host spent *host (a
 * jc_procstat_delta) and the cgroups to be charged covered_usec in all.
 * -EDOM when the host's CPU time did not move (T = 0) or its idle time
 * exceeds its total; nothing is written then.
 */
int jc_share_split_energy(uint64_t energy_uj, const jc_cputimes *host,
                          double covered_usec, jc_share_split *ret);

/* The part of a cgroup that used usage_usec of CPU time in the stretch
 * (on the zone's CPUs). */
static inline double jc_share_charge(const jc_share_split *s,
                                     double usage_usec) {
  return s->uj_per_usec * usage_usec;
}

/* The CPU time of the host and of each domain (the CPUs of one package:
 * jc_cpus), as counters since some start, or over a stretch. */
#define JC_SHARE_DOMAINS_MAX 16
typedef struct {
  jc_cputimes host;  /* every CPU: /proc/stat's first line */
  uint32_t domains;  /* how many domain figures follow; 0: none (one
                        package, or the topology not known) */
  jc_cputimes domain[JC_SHARE_DOMAINS_MAX];
} jc_share_cpu;

/* ---- stretches ------------------------------------------------------------ */

/* How the stretch just ended is split (the rule above). */
typedef enum {
  JC_SHARE_OWN,      /* by its own CPU times */
  JC_SHARE_PREVIOUS, /* T = 0: as the stretch before it */
  JC_SHARE_WAIT,     /* T = 0, none before: with the next stretch */
  JC_SHARE_NONE,     /* not at all: the host's CPU time unknown, a first
                      * reading, or T = 0 with neither before nor after */
} jc_share_rule;

/* The host's side.  Zeroed: no stretch begun. */
typedef struct {
  bool have_base;
  jc_share_cpu base;  /* its CPU time where the stretch began */
  bool have_last;
  jc_share_cpu last;  /* over the last stretch split by its own times: what
                       * OWN and PREVIOUS split by (a domain whose figures
                       * were not known at both ends: 0, no share) */
  jc_share_rule rule; /* of the stretch just ended */
} jc_share_host;

/* A stretch begins at now (have false: unknown); none before it counts. */
void jc_share_host_start(jc_share_host *h, bool have, const jc_share_cpu *now);

/* Ends the stretch at a reading of the host's CPU time now (have false:
 * unknown) and returns its rule, also kept in h->rule.  final: no reading
 * follows, so the stretch cannot wait.  The rule is the host's; a
 * domain's figures are those of the same stretch. */
jc_share_rule jc_share_host_end(jc_share_host *h, bool have,
                                const jc_share_cpu *now, bool final);

/* A cgroup's side.  Zeroed: no stretch begun. */
typedef struct {
  bool have_base;
  uint64_t base_usec; /* usage_usec where the stretch began */
  bool have_last;
  uint64_t last_usec; /* over the last stretch split by its own times */
  bool charged; /* it has a part in the stretch just ended: last_usec's */
} jc_share_usage;

void jc_share_usage_start(jc_share_usage *u, bool have, uint64_t usage_usec);

/* Ends the cgroup's stretch under the host's rule, at its usage_usec
 * (have false: unknown; a counter that went back, a re-created cgroup,
 * is a new start). */
void jc_share_usage_end(jc_share_usage *u, jc_share_rule rule, bool have,
                        uint64_t usage_usec);

/* A zone's side: its counter where the stretch began.  Zeroed: none. */
typedef struct {
  bool have_base;
  uint64_t base_uj, base_gaps; /* jc_rapl_energy's total_uj and gaps */
} jc_share_zone;

void jc_share_zone_start(jc_share_zone *z, const jc_rapl_energy *now);

/*
 * Ends the zone's stretch at its reading now, under h->rule, and splits
 * the zone's energy over it by the CPU time of its domain (-1: the
 * host's) among cgroups that used covered_usec of it: 0 and *ret, or
 * -ENODATA when the stretch has no share (the zone not read at both ends,
 * an interval of it given up between: jc_rapl; the rule WAIT or NONE; the
 * domain's time not known), -EDOM when the domain's time is still or its
 * idle time above the total (jc_share_split_energy).
 */
int jc_share_zone_split(jc_share_zone *z, const jc_share_host *h,
                        const jc_rapl_energy *now, int domain,
                        double covered_usec, jc_share_split *ret);

/* ---- parties: the cgroups charged in a stretch ---------------------------- */

/* A cgroup with a part in the stretch (jc_share_usage's charged). */
#define JC_SHARE_OUTSIDE (UINT64_C(1) << 63) /* a CPU in no domain */
typedef struct {
  uint64_t usec; /* its CPU time over the stretch: its last_usec */
  uint64_t mask; /* the domains its effective cpuset has CPUs in, a bit
                    each (JC_SHARE_OUTSIDE: and CPUs in none); 0: not
                    known, every domain */
  long parent;   /* the nearest party it is inside of, at a lower index;
                    -1 for a top-level one */
} jc_share_party;

/*
 * Each party's CPU time on each domain of h's last stretch, by the rule
 * above: ret_on[i * D + d], D = h->last.domains (nothing when 0).  work:
 * n × (D + 1) doubles of the caller's, overwritten.
 */
void jc_share_domain_times(const jc_share_host *h, const jc_share_party *p,
                           size_t n, double *ret_on, double *work);

/* The time party i is charged by in a zone of domain (-1: the host's):
 * its CPU time, or its time on the domain. */
static inline double jc_share_time_of(const jc_share_party *p, size_t i,
                                      const double *on, uint32_t domains,
                                      int domain) {
  return domain < 0 ? (double)p[i].usec : on[i * domains + (size_t)domain];
}

/* covered: the time of the top-level parties in a zone of domain. */
double jc_share_covered(const jc_share_party *p, size_t n, const double *on,
                        uint32_t domains, int domain);

#endif
