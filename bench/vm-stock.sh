#!/usr/bin/env bash
# bench/vm-stock.sh — run by scripts/bench.sh inside the test VM
# (tests/vm/vm-run.sh): collectd's stock `cgroups` plugin, which reads
# cgroup v1 cpuacct, on BENCH_CGROUPS cgroups of a cpuacct hierarchy this
# script mounts on a tmpfs directory of the VM, and then, in the same VM
# run, this plugin with Collect "cpu" on as many cgroup v2 cgroups.  Each
# collectd sends with `network` to a jc_sink on 127.0.0.1 (bench/lib.sh).
# Prints "stock=US LISTS SECONDS" and "joule=US LISTS SECONDS".
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
collectd_cpu joule "$n" "joule_cgroup-${run}_c0/ps_cputime" <<CONF
PluginDir "$top_builddir/.libs"
LoadPlugin joule_cgroup
<Plugin joule_cgroup>
  ReportRoot false
  Select "$run/*"
  Collect "cpu"
</Plugin>
CONF
echo "joule=$bench_result"
