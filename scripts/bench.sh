#!/usr/bin/env bash
# make bench: builds N cgroups under the cgroup2 mount (N = 100, 1,000,
# 10,000; flat and three levels deep), measures one read pass of them with
# bench/jc_bench (floor, core, core with a small fd budget, stdio) and the
# real collectd's CPU time per read per cgroup, and removes them again.
# Needs root.  BENCH_SIZES="100 1000" limits the sizes.
set -euo pipefail
: "${top_builddir:?run through make bench}"
: "${COLLECTD_BIN:=/usr/sbin/collectd}"
: "${COLLECTD_PLUGINDIR:=/usr/lib/collectd}"
sizes=${BENCH_SIZES:-"100 1000 10000"}
mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$mnt" ] && [ "$(id -u)" -eq 0 ] || { echo "bench: needs root and a cgroup2 mount" >&2; exit 1; }

run="joule-bench-$$"
parent="$mnt/$run"
tmp=$(mktemp -d /tmp/joule-bench.XXXXXX)
collectd_pid=
cleanup() {
  [ -n "$collectd_pid" ] && kill "$collectd_pid" 2>/dev/null && wait "$collectd_pid" 2>/dev/null
  [ -d "$parent" ] && find "$parent" -depth -type d -exec rmdir {} + 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# hand_down DIR: the controllers DIR has, enabled for its children (on a
# hybrid host there are none), so that limits and memory.events exist.
hand_down() {
  local c
  for c in $(cat "$1/cgroup.controllers"); do
    echo "+$c" >"$1/cgroup.subtree_control" 2>/dev/null || true
  done
}

# make_tree N SHAPE: flat = N children; deep = N leaves three levels down.
make_tree() {
  local n=$1 shape=$2 i d
  mkdir "$parent"
  hand_down "$parent"
  if [ "$shape" = flat ]; then
    (cd "$parent" && for ((i = 0; i < n; i++)); do echo "c$i"; done | xargs mkdir)
  else
    for ((i = 0; i < 10; i++)); do mkdir "$parent/t$i"; hand_down "$parent/t$i"; done
    for ((i = 0; i < 100; i++)); do
      d="$parent/t$((i % 10))/m$((i / 10 % 10))"
      [ -d "$d" ] || { mkdir "$d"; hand_down "$d"; }
    done
    (cd "$parent" && for ((i = 0; i < n; i++)); do
      echo "t$((i % 10))/m$((i / 10 % 10))/c$i"; done | xargs -n 500 mkdir -p)
  fi
}
drop_tree() { find "$parent" -depth -type d -exec rmdir {} +; }

passes_for() { case $1 in 100) echo 200 ;; 1000) echo 20 ;; *) echo 3 ;; esac; }

# collectd_cpu N: CPU µs of collectd per read per cgroup, no write plugin.
collectd_cpu() {
  local n=$1 interval=1 conf="$tmp/collectd.conf"
  cat >"$conf" <<CONF
Hostname "bench"
FQDNLookup false
Interval $interval
BaseDir "$tmp"
PIDFile "$tmp/collectd.pid"
TypesDB "/usr/share/collectd/types.db"
# Without a log plugin collectd prints "no write plugin" for every value
# list, which would be measured instead of the plugin.
PluginDir "$COLLECTD_PLUGINDIR"
LoadPlugin logfile
<Plugin logfile>
  LogLevel err
  File "$tmp/collectd.log"
</Plugin>
PluginDir "$top_builddir/.libs"
LoadPlugin joule_cgroup
<Plugin joule_cgroup>
  CgroupRoot "$mnt"
  ReportRoot false
  Select "$run/**"
  Collect "cpu" "pressure"
  NotifyOOM false   # the figure of the first release, comparable with it
</Plugin>
CONF
  "$COLLECTD_BIN" -f -C "$conf" >"$tmp/collectd.out" 2>&1 &
  collectd_pid=$!
  sleep 3.5                     # init and the first reads
  local t0 t1 hz
  hz=$(getconf CLK_TCK)
  t0=$(awk '{ print $14 + $15 }' "/proc/$collectd_pid/stat")
  sleep 10                      # ten reads
  t1=$(awk '{ print $14 + $15 }' "/proc/$collectd_pid/stat")
  kill "$collectd_pid"; wait "$collectd_pid" 2>/dev/null || true
  collectd_pid=
  awk -v a="$t0" -v b="$t1" -v hz="$hz" -v n="$n" \
    'BEGIN { printf "%.3f", (b - a) / hz * 1e6 / 10 / n }'
}

printf '%-6s %-5s %7s %7s %7s %7s %6s %6s %6s %8s %6s %9s %9s %7s %6s\n' \
  N shape "a µs" "b µs" "b' µs" "c µs" "b/a" "b'/a" "c/b" "heap B" fds "kern kB" "collectd" "b+ µs" "b+/b"
for n in $sizes; do
  for shape in flat deep; do
    make_tree "$n" "$shape"
    line=$("$top_builddir/bench/jc_bench" "$mnt" "$run" "$(passes_for "$n")" 5)
    cd_us="-"
    [ "$shape" = flat ] && cd_us=$(collectd_cpu "$n")
    eval "$(echo "$line" | tr ' ' '\n' | sed 's/^/f_/')"
    printf '%-6s %-5s %7s %7s %7s %7s %6s %6s %6s %8s %6s %9s %9s %7s %6s\n' \
      "$f_cgroups" "$shape" "$f_a" "$f_b" "$f_b_small" "$f_c" "$f_b_over_a" \
      "$f_bsmall_over_a" "$f_c_over_b" "$f_heap_per_cgroup" "$f_fds" "$f_kernel_kb" "$cd_us" \
      "$f_b_more" "$(awk -v x="$f_b_more" -v y="$f_b" 'BEGIN { printf "%.2f", x / y }')"
    drop_tree
  done
done
echo "a: pread on kept fds, no parsing (floor); b: core read pass; b': same, MaxOpenFiles = cgroups"
echo "(stat files reopened per read); c: fopen/fgets/sscanf/fclose; µs per cgroup per pass, fastest"
echo "of 5 runs; heap B and fds: per the core at b, per tracked cgroup / in all; kern kB: SUnreclaim"
echo "delta of the core's kept descriptors; collectd: real collectd CPU µs per read per cgroup"
echo "(cpu.stat and the three pressure files, dispatch included, no write plugin); b+: b with"
echo "Collect \"limits\" and NotifyOOM (cpu.max, memory.max, memory.high, memory.events where"
echo "the controllers are, /proc/vmstat once per pass)."
