#!/usr/bin/env bash
# The instruction counts docs/performance.md quotes come from two commands
# of bench/: they run here on this host's cgroup v2 and print their tables
# whole (the figures go to the log; no figure is held to a target: that is
# make bench's job, not a test's).
#   bench/callgrind-pass.sh BUILDDIR     the steady read pass, four sets
#   bench/callgrind-energy.sh BUILDDIR   what Collect "energy" adds to it
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "valgrind and callgrind_annotate" -- sh -c 'command -v valgrind && command -v callgrind_annotate'
need "bench/jc_bench built (make check builds it)" -- test -x "$top_builddir/bench/jc_bench"

positive() { # positive N...: every N a whole number above 0
  awk 'BEGIN { for (i = 1; i < ARGC; i++) if (!(ARGV[i] ~ /^[0-9]+$/ && ARGV[i] > 0)) exit 1 }' "$@"
}

"$top_srcdir/bench/callgrind-pass.sh" "$top_builddir" >"$T/pass" 2>"$T/pass.err"
ok $? "callgrind-pass.sh exits 0" || cat "$T/pass.err" | diag
diag <"$T/pass"
read -r _ d dr p pr < <(awk 'NR == 2' "$T/pass")
positive "$d" "$dr" "$p" "$pr"
ok $? "callgrind-pass.sh: four instruction counts per pass ($d $dr $p $pr)"
# Four files a cgroup cost more than one, and reopening more than keeping.
[ "${p:-0}" -gt "${d:-0}" ] && [ "${dr:-0}" -gt "${d:-0}" ] && [ "${pr:-0}" -gt "${p:-0}" ]
ok $? "callgrind-pass.sh: pressure > default, reopened > kept"
ls -d "$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)"/joule-cgpass-* >/dev/null 2>&1
ok $((!$?)) "callgrind-pass.sh: its cgroups removed"

"$top_srcdir/bench/callgrind-energy.sh" "$top_builddir" >"$T/energy" 2>"$T/energy.err"
ok $? "callgrind-energy.sh exits 0" || cat "$T/energy.err" | diag
diag <"$T/energy"
for split in host packages; do
  awk -v s="$split" '$1 == s { for (i = 2; i <= 7; i++) if ($i + 0 <= 0) exit 1;
      share = $8; sub(/%/, "", share); share += 0; found = share > 0 && share < 100 }
    END { exit !found }' "$T/energy"
  ok $? "callgrind-energy.sh: the $split row, its share of the pass within 0-100 %"
done
tap_done
