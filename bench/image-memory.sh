#!/usr/bin/env bash
# The image's own figures (docs/performance.md, "The image"): the
# collectd of `make image`, its binaries and configuration as they are in
# the image (its layer unpacked, run by chroot in a mount namespace of its
# own, the cgroup tree bind-mounted at /host/sys/fs/cgroup as the
# DaemonSet mounts it), on 1,000 Kubernetes containers in 500 pods (the
# cgroupfs driver's kubepods/burstable/pod<uid>/<id>, made below a parent
# named for the run and removed after), scraped every 10 s as Prometheus
# would, for 120 s at the image's Interval 10: collectd's VmRSS and VmHWM,
# its CPU, the series served; with the plugin's default set (the
# Select line only) and with the image's container configuration.  Root.
#   bench/image-memory.sh [BUILDDIR]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build}
archive=$build/image/joule-cgroup.tar
[ -s "$archive" ] || { echo "no $archive: make image first" >&2; exit 1; }
mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
work=$(mktemp -d /tmp/jc-imgbench.XXXXXX)
parent=$mnt/jc-imgbench-$$
cleanup() {
  [ -n "${cpid:-}" ] && kill "$cpid" 2>/dev/null && wait "$cpid" 2>/dev/null
  [ -d "$parent" ] && find "$parent" -depth -type d -exec rmdir {} \; 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
layer=$(python3 -c 'import json, sys, tarfile; t = tarfile.open(sys.argv[1]); print(json.load(t.extractfile("manifest.json"))[0]["Layers"][0])' "$archive")
mkdir "$work/root"
tar -xOf "$archive" "$layer" | tar -xzf - -C "$work/root"
mkdir -p "$work/root/host/sys/fs/cgroup"
mkdir -p "$parent/kubepods/burstable"
for c in $(cat "$parent/cgroup.controllers"); do echo "+$c" >"$parent/cgroup.subtree_control"; done
for i in $(seq 1 500); do
  pod=$parent/kubepods/burstable/pod$(cat /proc/sys/kernel/random/uuid)
  mkdir "$pod" "$pod/$(printf '%064x' "$i")" "$pod/$(printf '%064x' "$((i + 1000))")"
done
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
conf=$work/root/etc/collectd/collectd.conf.d
sed -i "s/Port \"9103\"/Port \"$port\"/; s/Host \"0.0.0.0\"/Host \"127.0.0.1\"/" "$conf/write_prometheus.conf"
cp "${IMAGE_BENCH_CONF:-$conf/joule_cgroup.conf}" "$work/container.conf"
printf 'LoadPlugin joule_cgroup\n<Plugin joule_cgroup>\n  CgroupRoot "/host/sys/fs/cgroup"\n  Select "kubepods/**/pod*/*"\n</Plugin>\n' >"$work/default.conf"
for set in ${IMAGE_BENCH_SETS:-default container}; do
  cp "$work/$set.conf" "$conf/joule_cgroup.conf"
  unshare -m sh -c "mount --bind '$parent' '$work/root/host/sys/fs/cgroup' && mount -t proc proc '$work/root/proc' &&
    exec chroot '$work/root' /usr/sbin/collectd -f -C /etc/collectd/collectd.conf" >"$work/$set.log" 2>&1 &
  cpid=$!
  sleep 2
  pid=$(pgrep -P "$cpid" -x collectd || echo "$cpid")
  t0=$SECONDS
  c0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  for _ in $(seq 12); do
    sleep 10
    curl -sf --max-time 8 "http://127.0.0.1:$port/metrics" >"$work/$set.prom"
  done
  c1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  echo "$set: $(grep -c '^collectd_joule_cgroup_' "$work/$set.prom") joule_cgroup series served;" \
    "collectd $(grep -E '^Vm(RSS|HWM)' "/proc/$pid/status" | tr -s ' \t\n' ' ');" \
    "CPU $(((c1 - c0) * 1000 / $(getconf CLK_TCK) / (SECONDS - t0))) ms/s over $((SECONDS - t0)) s"
  grep -E '\[(warning|error)\]' "$work/$set.log" | head -n 5 | sed "s/^/  $set: /"
  kill "$cpid" 2>/dev/null
  wait "$cpid" 2>/dev/null
  cpid=
done
