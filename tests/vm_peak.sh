#!/usr/bin/env bash
# The interval peak against a short spike (make check-vm boots 6.1 and
# 6.12; docs/metrics.md).  collectd reads a cgroup at Interval 2; right after a
# read, a helper there writes to N = 200 MiB, holds them 0.3 s and exits,
# all before the next read (checked against the reads' own timestamps;
# tried again, at most three times, when a read fell inside the spike):
#   6.12: memory-peak_interval of the read after the spike >= N MiB, of
#         the read after that near the baseline (< N/2 MiB), memory-peak
#         >= N MiB throughout, and memory-current never saw the spike;
#   6.1:  no memory-peak_interval, exactly one INFO line that says why,
#         memory-peak >= N MiB.
# Then `joule-cgroup run --interval 1` of the same helper: memory.peak
# >= N MiB on both; on 6.12 "method": "interval_peak" and the max of
# current >= N MiB (a true maximum, whatever the samples); on 6.1
# "method": "sampled", the max of current no more than memory.peak (the
# lifetime peak is all that catches the spike there).
# Independent source: the helper's own N MiB of written pages.
# Then the interval peak within the descriptor budget, on 60 cgroups with
# memory (docs/configuration.md, MaxOpenFiles): the peaks come first, so
# with MaxOpenFiles 150 (less than the cgroups' files) every cgroup sends
# memory-peak_interval, five created later too, and nothing is logged;
# with MaxOpenFiles 40 (less than the cgroups) 40 do, one WARNING counts
# the 20 others, and every cgroup still sends its other values.  On 6.1:
# no interval peak, the INFO line, no WARNING.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_controllers memory
need_collectd
need_memhog
need "python3" -- command -v python3
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
N=200
MIB=1048576
peak_resets

make_run_parent vm-peak
hand_down_controllers
mkdir "$parent/spike"
inst="${run}_spike"
series="$T/peak/csv/testhost/joule_cgroup-$inst"
mib() { awk -v v="$1" 'BEGIN { printf "%.1f MiB", v / 1048576 }'; }

hog=
CLEANUPS+=('[ -n "$hog" ] && kill -KILL "$hog" 2>/dev/null')
# new_hog: a helper waiting in the cgroup for SIGUSR1 ($hog).
new_hog() {
  bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" --wait --hold-ms 300 "$3"' hog \
    "$parent/spike" "$HOG" "$N" >"$T/hog.out" 2>&1 &
  hog=$!
  wait_until file_has "$T/hog.out" waiting
}
new_hog

dir="$T/peak"
JC_INTERVAL=2 start_watching "$dir" "$run/spike" '"memory"'
wait_until _csv_has 2 "$dir" "$inst" memory-peak
ok $? "collectd reads $run/spike at Interval 2" || tap_done

# values TYPE-FILE: "epoch value" lines of a series.
values() { cat "$series/$1"-[0-9]* 2>/dev/null | awk -F, '$1 != "epoch" { printf "%s %.0f\n", $1, $2 }'; }
# reads_in T0 T1: reads stamped within (T0, T1).
reads_in() { values memory-current | awk -v a="$1" -v b="$2" '$1 > a && $1 < b { n++ } END { print n + 0 }'; }
# after TYPE-FILE T K: the K-th value of a series stamped after T.
after() { values "$1" | awk -v t="$2" -v k="$3" '$1 > t && ++n == k { print $2; exit }'; }

# The spike ends when the helper says it gave the memory back (t1), just
# before it exits: the read the plugin makes when the cgroup empties
# (final figures, docs/metrics.md) comes after that, and is not a read
# during the spike.
for attempt in 1 2 3; do
  [ "$attempt" -eq 1 ] || new_hog
  wait_reads 1 "$dir" "$inst" memory-current # right after a read
  t0=$EPOCHREALTIME
  kill -USR1 "$hog"
  wait "$hog"
  status=$?
  hog=
  t_exit=$EPOCHREALTIME
  t1=$(sed -n 's/^released //p' "$T/hog.out")
  : "${t1:=$t_exit}"
  wait_reads 3 "$dir" "$inst" memory-current
  inside=$(reads_in "$t0" "$t1")
  stamps=$(values memory-current | awk -v a="$t0" '$1 > a - 3 && $1 < a + 5 { printf " %+.3f", $1 - a }')
  echo "attempt $attempt: the helper's spike took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s, exit status $status, $inside read(s) during it, $(reads_in "$t0" "$t_exit") up to its exit (the end read included); reads at t0$stamps s, released at +$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'), exit seen at +$(awk -v a="$t0" -v b="$t_exit" 'BEGIN { printf "%.3f", b - a }')" | diag
  [ "$inside" -eq 0 ] && break
done
[ "$status" -eq 0 ] && file_has "$T/hog.out" "allocated $N" && file_has "$T/hog.out" released &&
  [ "$inside" -eq 0 ]
ok $? "the helper wrote to $N MiB, held them 0.3 s and exited, between two reads (attempt $attempt)"

cmax=$(values memory-current | awk '$2 > m { m = $2 } END { print m + 0 }')
[ "$cmax" -lt $((N * MIB)) ]
ok $? "memory-current never saw the spike (largest sampled: $(mib "$cmax"))"
p1=$(after memory-peak "$t1" 1) p2=$(after memory-peak "$t1" 2)
[ "${p1:-0}" -ge $((N * MIB)) ] && [ "${p2:-0}" -ge $((N * MIB)) ]
ok $? "memory-peak after the spike: ${p1:-none} ($(mib "${p1:-0}")), then ${p2:-none}: the lifetime peak, >= $N MiB"

info="memory.peak cannot be reset here (this kernel refuses the write; Linux 6.12 and later reset it per descriptor): memory-peak_interval is not sent"
if [ "$resets" = yes ]; then
  i0=$(values memory-peak_interval | awk -v t="$t0" '$1 < t { v = $2 } END { print v }')
  i1=$(after memory-peak_interval "$t1" 1) i2=$(after memory-peak_interval "$t1" 2)
  [ "${i1:-0}" -ge $((N * MIB)) ]
  ok $? "$kver: memory-peak_interval of the interval with the spike: ${i1:-none} ($(mib "${i1:-0}")) >= $N MiB"
  [ -n "$i2" ] && [ "$i2" -lt $((N * MIB / 2)) ]
  ok $? "$kver: memory-peak_interval of the next interval: ${i2:-none} ($(mib "${i2:-0}")) < $((N / 2)) MiB, near the baseline (the read before the spike: ${i0:-none})"
else
  [ -z "$(ls "$series" | grep '^memory-peak_interval')" ] &&
    [ "$(grep -cxF "[info] joule_cgroup plugin: $info" "$dir/collectd.log")" -eq 1 ]
  ok $? "$kver: no memory-peak_interval, and exactly one INFO line: $info"
fi
stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING on $kver"
grep -E '^\[(error|warning|info)\] joule_cgroup' "$dir/collectd.log" | diag

# --- joule-cgroup run, --interval 1 ---------------------------------------------------
"$JC" run --root "$parent" --interval 1 -- "$HOG" --hold-ms 300 "$N" >"$T/report" 2>"$T/err"
ok $? "joule-cgroup run --interval 1 of the helper: status 0"
diag <"$T/err"
python3 - "$T/report" "$N" "$resets" >"$T/py.out" 2>&1 <<'PY'
import json, sys
text = open(sys.argv[1]).read()
r = json.loads(text[text.index("{"):])
n, resets = int(sys.argv[2]) << 20, sys.argv[3] == "yes"
m = r["memory"]
print("samples %d, wall %.2f s, method %s, peak %d, current %s" % (
    r["samples"], r["wall_seconds"], m["method"], m["peak"], m["current"]))
assert m["peak"] >= n, "memory.peak below the helper's allocation"
if resets:
    assert m["method"] == "interval_peak", m["method"]
    assert m["current"]["max"] >= n, "the max of current is not the true maximum"
else:
    assert m["method"] == "sampled", m["method"]
    assert m["current"]["max"] <= m["peak"], "a sampled value above the lifetime peak"
PY
if [ "$resets" = yes ]; then
  what="memory.peak and the max of current >= $N MiB, method interval_peak"
else
  what="memory.peak >= $N MiB (the lifetime peak), method sampled, the max of current <= memory.peak"
fi
ok $? "$kver: the report's $what"
diag <"$T/py.out"

# --- the interval peak within the descriptor budget ------------------------------
B=60
mkdir "$parent/budget"
for c in $(cat "$parent/budget/cgroup.controllers"); do
  echo "+$c" >"$parent/budget/cgroup.subtree_control" 2>/dev/null
done
for i in $(seq -w 1 $B); do mkdir "$parent/budget/c$i"; done
# with_peak DIR: the cgroups whose csv has memory-peak_interval.
with_peak() { ls -d "$1"/csv/testhost/joule_cgroup-*/memory-peak_interval-* 2>/dev/null | sed 's|/memory-peak_interval-.*||' | sort -u | grep -c . ; }
# budget_run MAXOPENFILES: collectd on the 60 cgroups, until three reads of the last.
budget_run() {
  dir="$T/budget-$1"
  write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/budget/*\"
  Collect \"memory\"
  MaxOpenFiles $1"
  JC_INTERVAL=1 start_collectd "$dir"
  wait_until _csv_has 3 "$dir" "${run}_budget_c$B" memory-current
}
warn_re='cgroups send no memory-peak_interval'
budget_run 150
ok $? "MaxOpenFiles 150: collectd reads the $B cgroups" || tap_done
for i in 61 62 63 64 65; do mkdir "$parent/budget/c$i"; done
wait_until _csv_has 3 "$dir" "${run}_budget_c65" memory-current
ok $? "five cgroups created later are read"
wait_reads 2 "$dir" "${run}_budget_c65" memory-current
n=$(with_peak "$dir") lists=$(ls -d "$dir"/csv/testhost/joule_cgroup-*/memory-current-* | sed 's|/memory-current-.*||' | sort -u | grep -c .)
stop_collectd
if [ "$resets" = yes ]; then
  [ "$n" -eq 65 ] && [ "$lists" -eq 65 ] && [ "$(loud_lines "$dir")" -eq 0 ]
  ok $? "$kver, MaxOpenFiles 150: $n of 65 cgroups send memory-peak_interval ($lists memory-current), no WARNING"
else
  [ "$n" -eq 0 ] && [ "$lists" -eq 65 ] && [ "$(log_count "$dir" "$warn_re")" -eq 0 ] &&
    [ "$(grep -cxF "[info] joule_cgroup plugin: $info" "$dir/collectd.log")" -eq 1 ]
  ok $? "$kver, MaxOpenFiles 150: no memory-peak_interval, the INFO line once, no WARNING about peaks ($lists memory-current)"
fi
grep -E '^\[(error|warning)\] joule_cgroup' "$dir/collectd.log" | diag
for i in 61 62 63 64 65; do rmdir "$parent/budget/c$i"; done

budget_run 40
ok $? "MaxOpenFiles 40: collectd reads the $B cgroups" || tap_done
wait_reads 2 "$dir" "${run}_budget_c$B" memory-current
n=$(with_peak "$dir") lists=$(ls -d "$dir"/csv/testhost/joule_cgroup-*/memory-current-* | sed 's|/memory-current-.*||' | sort -u | grep -c .)
stop_collectd
warning=$(grep -E "^\[warning\] joule_cgroup plugin: [0-9]+ of $B $warn_re" "$dir/collectd.log")
told=$(sed -E 's/^.*plugin: ([0-9]+) of.*$/\1/' <<<"$warning")
if [ "$resets" = yes ]; then
  [ "$n" -ge 30 ] && [ "$lists" -eq $B ] && [ "$(grep -c . <<<"$warning")" -eq 1 ] &&
    [ "$((n + told))" -eq $B ]
  ok $? "$kver, MaxOpenFiles 40: $n of $B cgroups send memory-peak_interval, one WARNING counts the ${told:-?} others, all $lists send memory-current"
else
  [ "$n" -eq 0 ] && [ "$lists" -eq $B ] && [ "$(log_count "$dir" "$warn_re")" -eq 0 ]
  ok $? "$kver, MaxOpenFiles 40: no memory-peak_interval, no WARNING about peaks, all $lists send memory-current"
fi
diag <<<"$warning"
tap_done
