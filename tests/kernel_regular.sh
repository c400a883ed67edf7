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
#   3. NotifyEnd tells an end from an emptying (docs/configuration.md,
#      NotifyEnd), through collectd's NotificationExec: the parent gets
#      one "emptied" record per job below it and never "removed"; "svc", a
#      service whose cgroup is reused for 3 jobs, one "emptied" record a
#      job with the totals since it was made (growing), then "removed"
#      once when it goes; "gone", removed at once after its job, one
#      "removed"; group of 2. ends "removed".  The page's own "a
#      container ended" program and block, as written, see the removed
#      ones alone.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_collectd
CGJOB=$top_builddir/tests/cgjob
need "built tests/cgjob" -- test -x "$CGJOB"
need "user nobody (exec plugin runs NotificationExec as a user)" -- id nobody
: "${REGULAR_JOBS:=10}"

make_run_parent joule-regular
hand_down_controllers
mkdir "$parent/clock" "$parent/svc"
dir="$T/regular"
# Every record (notification_exec's n.* files), and the page's example:
# its program as written, its log file in the notes directory; its block
# as written, the program's path the test's.
notification_exec
python3 - "$top_srcdir/docs/configuration.md" "$T/container-ended" "$notes/container-ended.log" >"$T/example.block" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
sec = text[text.index("**A container ended**"):]
block, script = re.findall(r"^```(?:sh)?\n(.*?)^```$", sec, re.S | re.M)[:2]
open(sys.argv[2], "w").write(script.replace("/var/log/container-ended.log", sys.argv[3]))
print(block.replace("/usr/local/bin/container-ended", sys.argv[2]), end="")
PY
chmod 755 "$T/container-ended"
grep -q 'NotificationExec "nobody"' "$T/example.block"
ok $? "docs/configuration.md: the block and the program of \"a container ended\"" || tap_done
exec_block="$exec_block
$(grep -vx 'LoadPlugin exec' "$T/example.block")" # loaded above already
JC_INTERVAL=2 start_watching "$dir" "$run\" \"$run/clock\" \"$run/group\" \"$run/svc\" \"$run/gone" '"cpu"' "  NotifyEnd true" "$exec_block"
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

# ---- 3. an end told apart from an emptying ---------------------------------
# records PATH: "end cpu_user_seconds" of each record of cgroup PATH, in
# the order collectd ran the program (its files' times).
records() {
  local f
  for f in $(ls -tr "$notes"/n.* 2>/dev/null); do
    grep -qx "cgroup: $1" "$f" || continue
    echo "$(sed -n 's/^end: //p' "$f") $(sed -n 's/^cpu_user_seconds: //p' "$f")"
  done
}
for i in 1 2 3; do
  wait_reads 1 "$dir" "${run}_clock" ps_cputime
  "$CGJOB" --busy-ms 100 "$parent/svc" >/dev/null
done
wait_reads 2 "$dir" "${run}_clock" ps_cputime
rmdir "$parent/svc"
mkdir "$parent/gone"
wait_reads 1 "$dir" "${run}_clock" ps_cputime
"$CGJOB" --busy-ms 100 "$parent/gone" >/dev/null
rmdir "$parent/gone"
wait_reads 2 "$dir" "${run}_clock" ps_cputime
svc_removed() { [ "$(records "$run/svc" | grep -c '^removed')" -ge 1 ] && [ "$(records "$run/gone" | grep -c '^removed')" -ge 1 ]; }
wait_until svc_removed

# The parent emptied at the end of each job below it: the REGULAR_JOBS of
# 1., group's, svc's 3 and gone's.
jobs=$((REGULAR_JOBS + 5))
records "$run" >"$T/parent.rec"
[ "$(grep -c . "$T/parent.rec")" -eq "$jobs" ] && ! grep -qv '^emptied ' "$T/parent.rec"
ok $? "children that come and go: the parent $(grep -c . "$T/parent.rec") records for the $jobs jobs below it, each \"emptied\", none \"removed\""
grep -c "plugin_instance = $run, type = cgroup, type_instance = emptied, message = cgroup $run emptied after .* s and stays: CPU" "$dir/collectd.log" | grep -qx "$jobs"
ok $? "... its type instance \"emptied\" in collectd's log, the message \"… emptied after … s and stays: …\""
records "$run/svc" >"$T/svc.rec"
sed 's/^/svc: /' "$T/svc.rec" | diag
[ "$(sed -n 1,3p "$T/svc.rec" | grep -c '^emptied ')" -eq 3 ] && [ "$(sed -n '4,$p' "$T/svc.rec")" = "$(sed -n 4p "$T/svc.rec")" ] &&
  sed -n 4p "$T/svc.rec" | grep -q '^removed ' &&
  awk 'NR <= 3 { if (NR > 1 && $2 <= last) bad = 1; last = $2 } NR == 4 && $2 != last { bad = 1 } END { exit bad }' "$T/svc.rec"
ok $? "a service's cgroup reused for 3 jobs: 3 \"emptied\" records, their CPU totals growing, then one \"removed\" with the last totals"
grep -q "type_instance = removed, message = cgroup $run/svc was removed .* s after it emptied: CPU" "$dir/collectd.log"
ok $? "... its removal says how long after it emptied"
[ "$(records "$run/gone")" = "$(records "$run/gone" | grep '^removed ')" ] && [ "$(records "$run/gone" | grep -c .)" -eq 1 ] &&
  grep -q "type_instance = removed, message = cgroup $run/gone ended after .* s and was removed: CPU" "$dir/collectd.log"
ok $? "a cgroup removed at once after its job: one record, \"removed\" ($(records "$run/gone"))"
records "$run/group" | tail -n 1 | grep -q '^removed '
ok $? "the group of 2., gone: its last record \"removed\" ($(records "$run/group" | tr '\n' ' '))"
# The page's program: the removed ones, each once; never the parent, never
# an "emptied" record.
ended_log=$notes/container-ended.log
sed 's/^/container-ended.log: /' "$ended_log" | diag
[ "$(grep -c " ${run}_svc ($run/svc) ended: " "$ended_log")" -eq 1 ] &&
  [ "$(grep -c " ${run}_gone ($run/gone) ended: " "$ended_log")" -eq 1 ] &&
  [ "$(grep -c " ${run}_group ($run/group) ended: " "$ended_log")" -eq 1 ] &&
  [ "$(grep -c . "$ended_log")" -eq 3 ] && ! grep -q 'emptied after' "$ended_log"
ok $? "docs' \"a container ended\": the three cgroups that went, once each; not the parent, no \"emptied\""

stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING from the plugin"
tap_done
