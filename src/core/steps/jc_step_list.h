/*
 * jc_step_list — the steps of the read pass (jc_step.h), one entry each,
 * in the order their hooks run: a cgroup is named before the other steps
 * see it, OOM kills are counted before energy is charged, and a cgroup's
 * end is told after both (its NotifyEnd record has the kills and the
 * energy).
 *
 *   X(ID, name)
 *
 * makes the step's id (JC_STEP_<ID>), the declaration of its jc_step
 * (jc_<name>_step, defined in its folder below this one) and its row of
 * the table (jc_steps.c).  Its folder's sources and -I are in steps.am,
 * beside this file: a new step is its folder, its entry here and its
 * lines there (docs/development.md, adding a step).
 */
#ifndef JC_STEP_LIST_H
#define JC_STEP_LIST_H

#define JC_STEPS(X)                                                            \
  X(RTNAME, rtname) /* names/: InstanceFrom "container": runtimes' names */    \
  X(OOM, oom)       /* oom/: OOM kills as notifications */                     \
  X(ENERGY, energy) /* energy/: Collect "energy" */                            \
  X(GPU, gpu)       /* gpu/: Collect "gpu" */                                  \
  X(NET, net)       /* net/: Collect "network" */                              \
  X(DISK, disk)     /* disk/: Collect "disk" */                                \
  X(END, end)       /* end/: final figures, NotifyEnd, the lost */             \
  X(PEAK, peak)     /* peak/: the interval peak */

#endif
