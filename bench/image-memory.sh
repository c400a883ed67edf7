#!/usr/bin/env bash
# The image's own figures (docs/performance.md, "The image"): collectd of
# `make image`, run as the DaemonSet runs it (tests/deploy_manifest.py's
# podman options), on 1,000 Kubernetes containers in 500 pods (the
# cgroupfs driver's kubepods/burstable/pod<uid>/<id>, every controller),
# scraped every 10 s as Prometheus would; its memory (the container's
# memory.current and memory.peak, collectd's VmRSS and VmHWM) and CPU
# after 120 s, with the plugin's default set and with the image's
# container configuration.  In the VM of make check-vm, as root:
#   tests/vm/vm-run.sh --kernel KERNEL -- bash bench/image-memory.sh   (from _build)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
: "${top_builddir:=$top/_build}"
archive=$top_builddir/image/joule-cgroup.tar
P=(podman --cgroup-manager cgroupfs --events-backend file)
"${P[@]}" load -q -i "$archive" >/dev/null || exit 1
cg=/sys/fs/cgroup
mkdir -p "$cg/kubepods/burstable"
echo "+cpu +memory +io +pids" >"$cg/kubepods/cgroup.subtree_control"
echo "+cpu +memory +io +pids" >"$cg/kubepods/burstable/cgroup.subtree_control"
for i in $(seq 1 500); do
  pod=$cg/kubepods/burstable/pod$(cat /proc/sys/kernel/random/uuid)
  mkdir "$pod"
  echo "+cpu +memory +io +pids" >"$pod/cgroup.subtree_control"
  mkdir "$pod/$(printf '%064x' "$i")" "$pod/$(printf '%064x' "$((i + 1000))")"
done
ip netns add jcbench
ip link add jcbenchh type veth peer name eth0 netns jcbench
ip addr add 10.244.0.1/30 dev jcbenchh && ip link set jcbenchh up
ip -n jcbench addr add 10.244.0.2/30 dev eth0 && ip -n jcbench link set eth0 up && ip -n jcbench link set lo up

run() { # run NAME: the DaemonSet's pod with the configuration in $cfg
  mapfile -t flags < <(python3 "$top/tests/deploy_manifest.py" flags "$top" "$cfg" 2>/dev/null)
  [ "$1" = default ] && printf 'LoadPlugin joule_cgroup\n<Plugin joule_cgroup>\n  CgroupRoot "/host/sys/fs/cgroup"\n  Select "kubepods/**/pod*/*"\n</Plugin>\n' >"$cfg/joule_cgroup.conf"
  "${P[@]}" run -d --name "bench-$1" --network ns:/run/netns/jcbench "${flags[@]}" >/dev/null || return 1
  local id pid t0 u0 u1
  id=$("${P[@]}" inspect --format '{{.Id}}' "bench-$1")
  pid=$("${P[@]}" inspect --format '{{.State.Pid}}' "bench-$1")
  t0=$SECONDS
  u0=$(sed -n 's/^usage_usec //p' "$cg/libpod_parent/libpod-$id/cpu.stat")
  for _ in $(seq 12); do
    sleep 10
    curl -sf --max-time 8 http://10.244.0.2:9103/metrics >"/tmp/bench-$1.prom"
  done
  u1=$(sed -n 's/^usage_usec //p' "$cg/libpod_parent/libpod-$id/cpu.stat")
  echo "$1: $(grep -c '^collectd_joule_cgroup_' "/tmp/bench-$1.prom") series served;" \
    "memory.current $(cat "$cg/libpod_parent/libpod-$id/memory.current") B," \
    "memory.peak $(cat "$cg/libpod_parent/libpod-$id/memory.peak") B;" \
    "collectd $(grep -E '^Vm(RSS|HWM)' "/proc/$pid/status" | tr -s ' \t\n' ' ');" \
    "CPU $(((u1 - u0) / (SECONDS - t0))) µs/s over $((SECONDS - t0)) s"
  "${P[@]}" rm -f -t 0 "bench-$1" >/dev/null
}
for conf in default container; do
  cfg=/tmp/bench-config-$conf
  run "$conf"
done
ip netns del jcbench
find "$cg/kubepods" -depth -type d -exec rmdir {} \;
