/*
 * jc_energy — Collect "energy": the host's RAPL zones (jc_rapl) and the
 * part of each that every tracked cgroup is charged by its CPU time
 * (jc_share, over the host's CPU time from /proc/stat: jc_procstat).
 *
 * Per zone, with instance "root" (the host, whether or not ReportRoot
 * reports the root cgroup): derive-energy_<zone>_uj, what the zone
 * measured, a counter in µJ that never runs backwards;
 * derive-energy_<zone>_idle_uj, the part of it the host's idle time is
 * charged; power-<zone>, the mean power of the interval in W.  Per other
 * cgroup: derive-energy_<zone>_uj, what its CPU time is charged, a
 * counter too.  The cgroups' parts and the idle part add up to what the
 * zone measured when the cgroups cover all the busy time (a parent's
 * part includes its children's, as cpu.stat does).
 *
 * The zones and /proc/stat are read once per read pass, not per cgroup;
 * the zones also between passes when a counter could otherwise wrap
 * twice (jc_energy_due_ns), and the powercap tree is listed again every
 * 10 s for zones that came, went or were registered again.  On a host of
 * several packages each package's energy goes to the CPU time spent on
 * its CPUs (jc_share; the cgroups' cpuset.cpus.effective, read in the
 * pass).  Used by jc_collector.c:
 *
 *   jc_energy_init(c);               at init, when energy lists are chosen
 *   jc_energy_begin(c);              at the start of every read pass
 *   jc_energy_note(c, t, s);         after each cgroup's sample s
 *   jc_energy_end(c, emit, ctx);     after the pass: split, charge, emit
 *   jc_energy_forget(t);             a tracked cgroup freed or re-created
 *   jc_energy_tick(c, now);          between passes, by jc_energy_due_ns
 *   jc_energy_free(c);
 */
#ifndef JC_ENERGY_H
#define JC_ENERGY_H

#include "jc_internal.h"
#include "jc_tracked.h"

/* 0; the group is then on (c->energy) or off, said at INFO by jc_rapl.
 * -1 only when out of memory (logged). */
int jc_energy_init(jc_collector *c);
void jc_energy_begin(jc_collector *c);
void jc_energy_note(jc_collector *c, jc_tracked *t, const jc_sample *s);
void jc_energy_end(jc_collector *c, jc_collect_fn emit, void *ctx);
void jc_energy_forget(jc_tracked *t);

/* Between passes: when the zones must be read next (CLOCK_MONOTONIC;
 * UINT64_MAX: no need), and that read. */
uint64_t jc_energy_due_ns(const jc_collector *c);
void jc_energy_tick(jc_collector *c, uint64_t now_ns);

/* What t was charged so far, in µJ, over the packages (psys and the
 * subzones are parts of a whole, not added); false when energy is not
 * collected or t has no part yet. */
bool jc_energy_charged(const jc_collector *c, const jc_tracked *t,
                       double *ret_uj);
void jc_energy_free(jc_collector *c);

#endif
