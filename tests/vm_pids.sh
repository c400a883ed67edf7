#!/usr/bin/env bash
# pids on a real kernel (make check-vm).  The test starts K single-threaded
# processes in a cgroup: count-pids is K; it ends some: count-pids follows.
# Independent source: the processes the test itself started and ended.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_controllers pids
need_collectd
K=7 GONE=3

make_run_parent vm-pids
hand_down_controllers
mkdir "$parent/p"
inst="${run}_p"
dir="$T/pids"
start_watching "$dir" "$run/p" '"cpu" "pids"'
wait_until _csv_has 1 "$dir" "$inst" count-pids
ok $? "the empty cgroup is read"
[ "$(csv_last "$dir" "$inst" count-pids)" = 0 ]
ok $? "count-pids 0 while it is empty ($(csv_last "$dir" "$inst" count-pids))"

# Each process enters the cgroup itself, then becomes a sleep.
kids=()
for i in $(seq "$K"); do
  bash -c 'echo $$ >"$1/cgroup.procs" && exec sleep 3600' kid "$parent/p" &
  kids+=($!)
done
CLEANUPS+=('kill "${kids[@]}" 2>/dev/null')
procs() { mapfile -t _p <"$parent/p/cgroup.procs"; [ "${#_p[@]}" -eq "$1" ]; }
wait_until procs "$K"
ok $? "the test started $K processes in $run/p"
wait_reads 2 "$dir" "$inst" count-pids
n=$(csv_last "$dir" "$inst" count-pids)
[ "$n" = "$K" ]
ok $? "count-pids $n = $K started"

kill "${kids[@]:0:$GONE}"
wait "${kids[@]:0:$GONE}" 2>/dev/null
wait_until procs $((K - GONE))
wait_reads 2 "$dir" "$inst" count-pids
n=$(csv_last "$dir" "$inst" count-pids)
[ "$n" = $((K - GONE)) ]
ok $? "count-pids $n = $K - $GONE ended"
stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag
tap_done
