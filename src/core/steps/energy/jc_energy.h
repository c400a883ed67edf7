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
 * its CPUs (jc_share; the cgroups' cpuset.cpus.effective, which its asks
 * hook asks the pass to read then).  A step of the read pass (jc_step.h), on when energy lists are
 * chosen: its begin hook reads the zones and the host's CPU time, its
 * cgroup hook notes each cgroup's CPU time, its end hook splits and
 * charges every zone's energy and sends the lists, its totals hook gives
 * a cgroup's part for NotifyEnd and the command, and its tick hook reads
 * the zones between passes.  Each cgroup's part is its slot.
 */
#ifndef JC_ENERGY_H
#define JC_ENERGY_H

#include "jc_step.h"

#endif
