/*
 * jc_disk — Collect "disk": what each container fills on disk, its
 * writable layer and its logs, and what a Kubernetes pod fills in its
 * disk-backed emptyDir volumes (docs/metrics.md, Disk;
 * docs/containers.md, What each container fills on disk).
 *
 * cgroup v2 accounts no disk space.  The kubelet evicts pods, and a
 * Docker host stops, on the space containers take in the node's file
 * systems: a container's writable layer (the upper directory of its root
 * file system's overlay), its log files, its pod's emptyDir volumes.
 *
 * Found once per container: its runtime (jc_runtime, the names' module:
 * the same files InstanceFrom "container" reads) and its runtime's
 * layout (jc_dfind) say where they are, below RuntimeRoot, when a pass
 * first sees the cgroup; while they are not there yet, at each of its
 * next JC_RUNTIME_TRIES passes, then every JC_RUNTIME_RETRY_S seconds.
 * What is not understood (a storage driver whose layers are no overlays,
 * a log driver that writes no file) is said once per runtime, with the
 * path looked at.
 *
 * Sized without du's cost.  A tree (a layer, a volume) whose directory
 * has a project of its own on a file system that keeps project quotas
 * (XFS prjquota, ext4's project feature: Docker's and containers/
 * storage's size option, the kubelet's quota monitoring) is read from
 * the quota at each pass (jc_dquota): exact and instant.  Any other is
 * walked (jc_dwalk), DiskWalkEntries entries a pass for all walks
 * together, one tree after the other (those never walked first, then
 * the oldest figure), the figure replaced when a walk ends: no pass
 * costs more than its budget, and a figure is as old as the start of
 * the walk that made it, which `duration-*_age` says.  Logs: a stat of
 * each log file each pass (jc_dlogs).
 *
 * A step of the read pass (jc_step.h), on when a disk list is chosen: its
 * end hook finds new containers, reads quotas and logs, walks, and sends
 * the lists; the descriptors it keeps (each walk's levels, the quota's
 * and logs' directories) count in MaxOpenFiles' budget (jc_tracked_keep;
 * a walk the budget stops is said once, and tried again a minute later),
 * given back for an interval peak (give_back); a cgroup's state, its
 * slot's, is freed when the cgroup goes (release).
 */
#ifndef JC_DISK_H
#define JC_DISK_H

#include "jc_step.h"

/* A walk the descriptor budget stopped, or a tree that could not be
 * opened, is tried again this long after. */
#define JC_DISK_RETRY_S 60

/* A container looked up (its runtime's files read, its storage found)
 * costs a pass about as many entries of its walks' budget as this: a
 * pass looks up as many as the budget leaves room for, at least one
 * (init's baseline read, all of them). */
#define JC_DISK_LOOKUP 16

#endif
