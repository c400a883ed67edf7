#!/usr/bin/env bash
# What Collect "energy" costs per read pass, in instructions (callgrind:
# the same count whatever else the machine does), at 1,000 flat cgroups
# of this host's cgroup v2: the energy step's begin hook (the zones and /proc/stat, energy_begin in
# jc_energy.c), its cgroup hook (energy_note) and its end hook (energy_end:
# the split, every counter),
# for the six zones of tests/fixtures/powercap/intel-xeon-2s split by the
# host's CPU time ("host"), and split per package with the topology of
# tests/fixtures/cpu/xeon-2s-interleaved and a /proc/stat of its 15 CPUs
# ("packages").  Needs root, valgrind and a build tree with bench/jc_bench
# (make bench builds it):
#   bench/callgrind-energy.sh BUILDDIR
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: bench/callgrind-energy.sh BUILDDIR}" && pwd)
mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
run=joule-cgbench-$$ tmp=$(mktemp -d)
. "$top/bench/lib.sh"
trap 'drop_tree "$mnt/$run"; rm -rf "$tmp"' EXIT
make_flat "$mnt/$run" 1000
cp -a "$top/tests/fixtures/powercap/intel-xeon-2s" "$tmp/xeon"
{ echo "cpu  1500000 0 0 1500000 0 0 0 0 0 0"
  for c in 0 1 2 3 4 5 6 7 8 9 10 11 12 14 15; do echo "cpu$c 100000 0 0 100000 0 0 0 0 0 0"; done
  echo "intr 0"; } >"$tmp/stat"
# counts FILE: the calls and instructions of energy_begin, the
# instructions of energy_note and energy_end, and those of jc_collector_read
# (every set's passes) with its calls.
counts() {
  callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
    awk '/=> .*:(energy_(begin|end|note)|jc_collector_read) / {
        ins = $1; gsub(",", "", ins); calls = $NF; gsub(/[(x),]/, "", calls)
        fn = $(NF - 1); sub(/.*:/, "", fn); n[fn] += calls; i[fn] += ins }
      END { print n["energy_begin"] + 0, i["energy_begin"] + 0,
            i["energy_note"] + 0, i["energy_end"] + 0,
            n["jc_collector_read"] + 0, i["jc_collector_read"] + 0 }'
}
measure() { # measure OUT [ENV...]: jc_bench's sets under callgrind
  local out=$1
  shift
  env "$@" \
    valgrind --tool=callgrind --callgrind-out-file="$out" "$build/bench/jc_bench" "$mnt" "$run" 10 1 >/dev/null 2>&1
}
# jc_bench runs the energy set (the host's split), and with a topology
# and /proc/stat the packages set after it: the packages set's figures
# are the second run's less the first's, callgrind's counts being exact.
# ... and without a powercap tree, the default and pressure sets alone:
# what a pass of the energy set costs in all is the difference.
zones=JC_BENCH_POWERCAP="$tmp/xeon/sys/class/powercap"
measure "$tmp/none"
measure "$tmp/host" "$zones"
measure "$tmp/packages" "$zones" JC_BENCH_CPUROOT="$top/tests/fixtures/cpu/xeon-2s-interleaved" JC_BENCH_PROCSTAT="$tmp/stat"
read -r _ _ _ _ nr ni < <(counts "$tmp/none")
read -r hp hb hnote hend hr hi < <(counts "$tmp/host")
read -r pp pb pnote pend pr pi < <(counts "$tmp/packages")
awk -v hp="$hp" -v hb="$hb" -v hnote="$hnote" -v hend="$hend" -v hr="$hr" -v hi="$hi" \
    -v pp="$pp" -v pb="$pb" -v pnote="$pnote" -v pend="$pend" -v pr="$pr" -v pi="$pi" \
    -v nr="$nr" -v ni="$ni" 'BEGIN {
  printf "instructions per read pass at 1,000 cgroups (callgrind)\n"
  printf "%-9s %10s %10s %10s %10s %12s %12s %7s\n", "split", "begin", "note", "end",
    "energy", "per cgroup", "whole pass", "share"
  row("host", hb / hp, hnote / hp, hend / hp, (hi - ni) / (hr - nr))
  d = pp - hp
  row("packages", (pb - hb) / d, (pnote - hnote) / d, (pend - hend) / d, (pi - hi) / (pr - hr)) }
  function row(name, b, t, e, pass) {
    printf "%-9s %10.0f %10.0f %10.0f %10.0f %12.0f %12.0f %6.1f%%\n", name, b, t, e,
      b + t + e, (b + t + e) / 1000, pass, 100 * (b + t + e) / pass }'
