#!/usr/bin/env bash
# bench/vm-stock.sh — run by scripts/bench.sh inside the test VM
# (tests/vm/vm-run.sh): collectd's stock `cgroups` plugin, which reads
# cgroup v1 cpuacct, on BENCH_CGROUPS cgroups of a cpuacct hierarchy this
# script mounts on a tmpfs directory of the VM, and then, in the same VM
# run, this plugin with Collect "cpu" on as many cgroup v2 cgroups.  Then
# the value sets of scripts/bench.sh's tmpfs part on real cgroupfs with
# every controller: BENCH_VM_SERVICES (200: under emulation a read of more
# would not fit in its second) copies of the fixture's service (memory.high
# 48 MiB) below a slice with its limits (memory.max, cpu.max, pids.max),
# where each file read costs the kernel what it costs on a host.  Each
# collectd sends with `network` to a jc_sink on 127.0.0.1 (bench/lib.sh).
# Prints "stock=US LISTS SECONDS", "joule=...", and "full_first=...",
# "full_default=...", "full_pressure=..." for the first releases' default,
# the shipped default and the default with pressure.
#
# The host's cgroup v1 hierarchies are never touched: this refuses to run
# outside the VM (where /sys/fs/cgroup is cgroup2 and no v1 hierarchy is
# mounted, so cpuacct is bound to none).
set -euo pipefail
: "${top_srcdir:?run through scripts/bench.sh}"
: "${top_builddir:?run through scripts/bench.sh}"
: "${COLLECTD_BIN:=/usr/sbin/collectd}"
: "${COLLECTD_PLUGINDIR:=/usr/lib/collectd}"
n=${BENCH_CGROUPS:-1000}
services=${BENCH_VM_SERVICES:-200}

if [ ! -e /run/vm/cmd ] || [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ] ||
  awk '$3 == "cgroup" { found = 1 } END { exit !found }' /proc/mounts; then
  echo "vm-stock: runs only inside the test VM (tests/vm/vm-run.sh), never beside a cgroup v1 hierarchy" >&2
  exit 1
fi

tmp=$(mktemp -d /tmp/jc-bench-vm.XXXXXX)
# shellcheck source=bench/lib.sh
. "$top_srcdir/bench/lib.sh"
v1=$tmp/cpuacct
run=joule-bench-$$
cleanup() {
  bench_stop_all
  drop_tree "$v1/$run" || true
  mountpoint -q "$v1" && umount "$v1"
  drop_tree "/sys/fs/cgroup/$run" || true
  drop_tree "/sys/fs/cgroup/$run-full" || true
  rm -rf "$tmp"
}
trap cleanup EXIT

mkdir "$v1"
mount -t cgroup -o cpuacct jc-bench-cpuacct "$v1"
# The stock plugin reads the cgroups one level below the hierarchy's top
# (its services below their slices), named by their own directory name.
make_flat "$v1/$run" "$n"
collectd_cpu stock "$n" "cgroups-c0/cpu-user" <<CONF
LoadPlugin cgroups
CONF
echo "stock=$bench_result"

make_flat "/sys/fs/cgroup/$run" "$n"
collectd_cpu joule "$n" "joule_cgroup-${run}_c0/ps_cputime" \
  < <(joule_block /sys/fs/cgroup "$run/*" 'Collect "cpu"')
echo "joule=$bench_result"

# The full-controller services: the limits of tests/fixtures/k6.12-debian's
# limited.slice and batch.service, written to the kernel.
controllers="+cpu +io +memory +pids"
full=/sys/fs/cgroup/$run-full
echo "$controllers" >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p "$full/limited.slice"
echo "$controllers" >"$full/cgroup.subtree_control"
echo 201326592 >"$full/limited.slice/memory.max"
echo "50000 100000" >"$full/limited.slice/cpu.max"
echo 32 >"$full/limited.slice/pids.max"
echo "$controllers" >"$full/limited.slice/cgroup.subtree_control"
for ((i = 0; i < services; i++)); do
  mkdir "$full/limited.slice/s$i.service"
  echo 50331648 >"$full/limited.slice/s$i.service/memory.high"
done
# full_set KEY OPTIONS...: one collectd on the services with OPTIONS.
full_set() {
  local key=$1
  shift
  collectd_cpu "full-$key" "$services" \
    "joule_cgroup-${run}-full_limited.slice_s0.service/ps_cputime" \
    < <(joule_block /sys/fs/cgroup "$run-full/limited.slice/*" "$@")
  echo "full_$key=$bench_result"
}
full_set first 'Values "*"'
full_set default
full_set pressure 'Collect "cpu" "memory" "io" "limits" "pressure"'
