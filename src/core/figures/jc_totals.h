/*
 * jc_totals — what a cgroup used since it was created: CPU time (usage,
 * user, system), its memory peak, its I/O, its OOM kills.  The one
 * definition of the figures of a cgroup's end: the NotifyEnd record
 * (jc_end) and the report of `joule-cgroup run` (the command's reader,
 * jcli_reading) both take them from here (docs/metrics.md, final figures).
 *
 * Made from one read's sample and what the cgroup's earlier reads left
 * (its I/O totals, jc_metrics), only where they are asked for: at a
 * cgroup's end, and in the command's read passes; never in the plugin's
 * read pass.  The energy charged to the cgroup is the collector's to add
 * (jc_energy); nothing here allocates.
 */
#ifndef JC_TOTALS_H
#define JC_TOTALS_H

#include "jc_metrics.h"
#include "jc_sample.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  bool have_usage; /* cpu.stat usage_usec */
  bool have_times; /* cpu.stat user_usec and system_usec */
  uint64_t usage_usec, user_usec, system_usec;
  uint64_t usage_ns; /* CLOCK_MONOTONIC when cpu.stat was read: the time
                        its usage is of, for a rate over two reads */
  bool have_memory_peak; /* memory.peak (Linux 5.19 and later) */
  uint64_t memory_peak;  /* bytes */
  bool have_io;          /* io.stat, summed over its devices */
  uint64_t io_read_bytes, io_write_bytes, io_read_ops, io_write_ops;
  bool have_oom_kills; /* memory.events oom_kill */
  uint64_t oom_kills;
  bool have_energy; /* Collect "energy": its part of the zones' energy */
  double energy_joules;
  bool have_gpu; /* Collect "gpu": its processes used a GPU */
  uint64_t gpu_memory_peak; /* bytes: the most its processes held on the
                               GPUs together at a read */
  double gpu_energy_joules; /* its part of the GPUs' energy */
  bool have_net; /* Collect "network": the namespace it owns (jc_net) */
  uint64_t net_rx_bytes, net_tx_bytes, net_rx_packets, net_tx_packets;
} jc_totals;

/*
 * The totals of the cgroup sample s was read from.  io: its I/O totals
 * (jc_prior.io), already advanced by this read's jc_metrics_emit; with
 * per_device (PerDevice true, which keeps none) the sums over the devices
 * s lists now.  A counter past INT64_MAX is left out, as the value
 * lists leave it out (docs/metrics.md).  No energy: the caller adds it.
 */
void jc_totals_of(const jc_sample *s, const jc_io_totals *io, bool per_device,
                  jc_totals *ret);

#endif
