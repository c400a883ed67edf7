/*
 * jc_gpu — Collect "gpu": what each cgroup's processes hold and do on
 * every NVIDIA GPU, and their part of its energy.  A step of the read
 * pass (jc_step.h), off unless a GPU list is chosen and NVML (jc_nvml)
 * finds a driver and a GPU; otherwise one INFO line, and nothing else
 * changes.
 *
 * Per pass and GPU, whatever the number of cgroups: one process list of
 * each kind (compute, graphics), one utilisation query (the samples
 * since the last one seen), one read of the energy counter; the pids
 * listed are placed in their cgroups from ProcRoot/PID/cgroup, kept
 * while the pid's start time (ProcRoot/PID/stat) stays the same, and
 * charged to its cgroup and each tracked one above it by a lookup per
 * level of its path (the pass costs per GPU process, not per cgroup).  NVML
 * is initialised at the start of the pass and shut down at its end: the
 * driver is not held between reads, so that it can be upgraded under a
 * running collectd (docs/gpu.md).
 *
 * The figures, per GPU (<gpu>: its UUID) and cgroup, a process counting
 * for its cgroup and every tracked cgroup above it, the root for all:
 *   memory-<gpu>              the GPU memory its processes hold (a pid in
 *                             both lists counted once)
 *   percent-<gpu>_sm          their SM utilisation over the interval
 *   derive-energy_<gpu>_uj    the root: the board's counter; a cgroup:
 *                             its part, split by jc_share as a RAPL zone
 *                             is, by SM utilisation instead of CPU time
 *   derive-energy_<gpu>_idle_uj   the root: the idle part
 *   memory-<gpu>_gi<id>       MIG: the memory held on GPU instance <id>
 *   memory-<gpu>_gi<id>_total the root: that instance's memory
 * The GPU instances of a GPU in MIG mode are found once per GPU and pass
 * (jc_nvml_instances), never per cgroup.
 */
#ifndef JC_GPU_H
#define JC_GPU_H

#include "jc_step.h"

/* At most this many GPUs (by UUID) over the plugin's life. */
#define JC_GPU_MAX 16

#include "jc_nvml.h"

/*
 * Whether library (NULL: libnvidia-ml.so.1) gives GPUs to read, and when
 * not, why: the one wording the plugin's INFO line, `check`, and the
 * command's `sample` and `run` share.  0: *ret_count GPUs were found
 * (ret_count may be NULL) and *ret_nvml is open, stopped (ret_nvml NULL:
 * it is closed again).
 * -ENOMEM; or another negative errno with why (no trailing period):
 * "no NVIDIA driver: <dlopen's or dlsym's words> (GpuLibrary L)" (no
 * library, or one that is not NVML), "NVML (L) finds no GPU", "NVML (L)
 * does not start: <its error>".
 */
int jc_gpu_probe(const char *library, jc_nvml **ret_nvml, unsigned *ret_count,
                 char *why, size_t size);

#endif
