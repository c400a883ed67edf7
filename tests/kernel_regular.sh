#!/usr/bin/env bash
# Regular series on the real kernel (docs/metrics.md, final figures): a
# cgroup that empties and stays sends no extra point.  collectd reads at
# Interval 2 the run's parent, a child "clock" that lives throughout (one
# csv line per read pass) and a child "group"; NotifyEnd true.
#   1. REGULAR_JOBS (10) jobs of 0.3 s of busy CPU, one at a time, each
#      born in a cgroup of its own below the parent (not selected) and
#      removed when it ends: the parent empties each time.  It gets as
#      many points as the clock over the same reads (one more at most:
#      the csv writer lags), none closer to the last than half the
#      Interval.
#   2. A job in group/job; job and group removed 0.25 s after the job
#      ended: group's last ps_cputime is the job's CPU time (within 2 %
#      of its rusage), stamped at or before its removal.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_collectd
CGJOB=$top_builddir/tests/cgjob
need "built tests/cgjob" -- test -x "$CGJOB"
: "${REGULAR_JOBS:=10}"

make_run_parent joule-regular
hand_down_controllers
mkdir "$parent/clock"
dir="$T/regular"
JC_INTERVAL=2 start_watching "$dir" "$run\" \"$run/clock\" \"$run/group" '"cpu"' "  NotifyEnd true"
wait_until _csv_has 1 "$dir" "${run}_clock" ps_cputime
ok $? "collectd runs at Interval 2, the parent and its clock selected" || tap_done
# Past a read of the clock: the parent's is written as well.
wait_reads 1 "$dir" "${run}_clock" ps_cputime
clock0=$(csv_count "$dir" "${run}_clock" ps_cputime)
parent0=$(csv_count "$dir" "$run" ps_cputime)
from=$(date +%s.%N)

for i in $(seq 1 "$REGULAR_JOBS"); do
  mkdir "$parent/job$i"
  "$CGJOB" --busy-ms 300 "$parent/job$i" >/dev/null
  rmdir "$parent/job$i"
done
wait_reads 2 "$dir" "${run}_clock" ps_cputime
clock=$(($(csv_count "$dir" "${run}_clock" ps_cputime) - clock0))
points=$(($(csv_count "$dir" "$run" ps_cputime) - parent0))
[ "$points" -le $((clock + 1)) ] && [ "$points" -ge $((clock - 1)) ]
ok $? "$REGULAR_JOBS jobs in children that come and go: the parent $points points, the clock $clock"
gap=$(cat "$dir/csv/testhost/joule_cgroup-$run"/ps_cputime-* |
  awk -F, -v from="$from" '$1 != "epoch" && $1 >= from - 2 {
    if (n++ && (min == "" || $1 - last < min)) min = $1 - last; last = $1 }
    END { printf "%.3f\n", min }')
awk -v g="$gap" 'BEGIN { exit !(g >= 1) }'
ok $? "the parent's points at least 1 s apart (closest $gap s)"

mkdir "$parent/group" "$parent/group/job"
wait_reads 1 "$dir" "${run}_clock" ps_cputime
read -r _ used _ < <("$CGJOB" --busy-ms 300 "$parent/group/job")
nap 0.25 # as a unit's stop, before the removal
rmdir "$parent/group/job" "$parent/group"
removed=$(date +%s.%N)
wait_reads 2 "$dir" "${run}_clock" ps_cputime
last=$(cat "$dir/csv/testhost/joule_cgroup-${run}_group"/ps_cputime-* | grep -v '^epoch' | tail -n 1)
got=$(echo "$last" | awk -F, '{ printf "%.0f\n", $2 + $3 }')
at=$(echo "$last" | cut -d, -f1)
awk -v g="$got" -v u="$used" -v a="$at" -v r="$removed" \
  'BEGIN { d = g - u; if (d < 0) d = -d; exit !(u > 0 && d <= 0.02 * u && a <= r) }'
ok $? "a parent that goes: its final ps_cputime $got µs (the job's rusage $used µs), stamped $at, before its removal at $removed"

stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING from the plugin"
tap_done
