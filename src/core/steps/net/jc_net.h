/*
 * jc_net — Collect "network": each network namespace's interfaces, on
 * the cgroup that owns the namespace (docs/metrics.md, network).
 *
 * cgroup v2 has no network controller: nothing under the cgroup tree
 * counts bytes.  A namespace's interfaces are read through one of its
 * processes instead, in /proc/<pid>/net/dev (jc_netdev): no setns, no
 * helper, no runtime's API.
 *
 * A cgroup's namespace is that of a process directly in it: the first pid
 * of its cgroup.procs that /proc has (`ns/net`'s inode, by readlink).  It
 * is kept from read to read and checked: the pid still listed in the
 * cgroup's cgroup.procs (kept open, read again from its start only as far
 * as that pid), then still in that namespace (a process still there after
 * the list named it is the one it named, never another given its pid
 * since); else the list is read again.  Checked at the pass that finds it
 * and the next (a runtime puts a process in the cgroup before it enters
 * the container's namespace); then the kernel tells when it ends (its
 * pidfd, in one epoll set: one epoll_wait a pass for every cgroup), and
 * it is checked again then, and at a full check of every cgroup each
 * RescanInterval, which sees a process that moved away alive.  Where
 * ProcRoot's pids are not collectd's (its `self` is not getpid()), or the
 * kernel has no pidfds, every cgroup is checked at every pass.  A cgroup
 * with no process of its own has none (one read of its list a pass that
 * returns nothing; at the full check only when it hands a domain-only
 * controller to its children, as a pod's does: then none can come).
 *
 * The owner of a namespace, whose instance its figures go out under: the
 * deepest tracked cgroup that contains every tracked cgroup whose
 * processes are in it.  A Kubernetes pod's containers (the pause one
 * included) share the pod's namespace: the pod's cgroup owns it, and its
 * traffic appears once, never under each container.  A Docker or Podman
 * container with a namespace of its own owns it itself.  When no tracked
 * cgroup contains them all (the pod's cgroup not selected), or the one
 * that does owns another namespace already (a cgroup owns one at most),
 * the first of them in walk order owns it.  The host's namespace (that
 * of PID 1) belongs to no cgroup: its interfaces are the `interface`
 * plugin's; said once at INFO.
 *
 * Each namespace's net/dev is read once per pass, whatever the number of
 * cgroups in it, through a descriptor kept open from pass to pass and
 * read again from its start (a seq_file: the kernel writes it anew).  The
 * open file holds the namespace it was opened in, never another, whatever
 * becomes of the process it was opened through; it is opened through a
 * member's /proc directory, the namespace read there before and after
 * the open.  It is read while a cgroup of the pass is found in that
 * namespace, and closed at the first pass that finds none (or when its
 * owner goes): no namespace is held beyond a pass after its last process.
 * Each descriptor kept counts in the collector's budget (MaxOpenFiles;
 * given back for an interval peak); without room, the files are opened
 * at each pass.  Each interface's counters are totals that never run
 * backwards: an interface that leaves (a veth deleted) keeps what it
 * counted, and when one of its name comes back (or the owner's namespace
 * is another one now) its new counters add to them.
 *
 * Opt-in, the namespace's health: four counters of its net/snmp and
 * net/netstat (jc_netsnmp), read with net/dev only when chosen, totals
 * that never run backwards as well.
 *
 * A step of the read pass (jc_step.h), on when a network list is chosen
 * and collectd may read other processes' namespaces (root, or
 * CAP_SYS_PTRACE; else one INFO and off): its end hook checks each
 * cgroup's namespace, reads each namespace once and sends the lists; its
 * totals hook gives NotifyEnd the figures of the last pass; its
 * give_back and release hooks close what a cgroup keeps open.  Each
 * cgroup's namespace, its cgroup.procs, its process's pidfd and the
 * totals and files of the namespace it owns are its slot.
 */
#ifndef JC_NET_H
#define JC_NET_H

#include "jc_step.h"

/* Interfaces kept per namespace; beyond, the rest are left out, said
 * once per cgroup. */
#define JC_NET_IFACES_MAX 256

#endif
