#!/usr/bin/env bash
# What the core's read pass costs, in instructions (callgrind: the same
# count whatever else the machine does), at 1,000 flat cgroups of this
# host's cgroup v2: one steady jc_collector_read (no discovery, no
# dispatch) of each of jc_bench's sets, the default (cpu.stat) and
# Collect "cpu" "pressure" (four files), with descriptors kept and with
# every file reopened.  Give two build trees to compare a change (the
# ratio is the second's over the first's).  Needs root and valgrind, and
# bench/jc_bench in each tree (make bench/jc_bench builds it):
#   bench/callgrind-pass.sh BUILDDIR [BUILDDIR2]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: bench/callgrind-pass.sh BUILDDIR [BUILDDIR2]" >&2; exit 2; }
mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
run=joule-cgpass-$$ tmp=$(mktemp -d)
. "$top/bench/lib.sh"
trap 'drop_tree "$mnt/$run"; rm -rf "$tmp"' EXIT
make_flat "$mnt/$run" 1000
# jc_bench with PASSES 10 and REPEATS 1 opens the core four times (each
# set kept, then reopened) and reads 2 + 10 times each: the 12th read of
# each opening is a steady pass.
steady() { # steady BUILDDIR: the four figures
  local out=$tmp/cg.$RANDOM
  valgrind --tool=callgrind --dump-instr=no --dump-after=jc_collector_read \
    --callgrind-out-file="$out" "$1/bench/jc_bench" "$mnt" "$run" 10 1 >/dev/null 2>&1
  for f in $(ls "$out".* | awk -F. '{ print $NF, $0 }' | sort -n | cut -d' ' -f2); do
    awk '/^totals:/ { print $2; exit }' "$f"
  done |
    awk 'NR % 12 == 0 { printf "%s ", $1 } END { print "" }'
}
printf '%-28s %12s %12s %12s %12s\n' "instructions per pass" default "default-reop" pressure "pressure-reop"
first=
for b in "$@"; do
  read -r -a n < <(steady "$(cd "$b" && pwd)")
  [ "${#n[@]}" -eq 4 ] || { echo "callgrind-pass: $b: expected 4 steady passes, got ${#n[@]}" >&2; exit 1; }
  printf '%-28s %12s %12s %12s %12s\n' "$b" "${n[@]}"
  if [ -n "$first" ]; then
    read -r -a f <<<"$first"
    printf '%-28s' "ratio"
    for i in 0 1 2 3; do awk -v a="${f[$i]}" -v b="${n[$i]}" 'BEGIN { printf " %12.3f", b / a }'; done
    echo
  fi
  first="${n[*]}"
done
