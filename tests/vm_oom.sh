#!/usr/bin/env bash
# The OOM killer on a real kernel (make check-vm).  A cgroup with
# memory.max = 32 MiB and a process that writes to 64 MiB: the kernel
# kills it; derive-memory_events_oom_kill grows by that kill, and collectd
# goes on reading the other cgroup, without an ERROR.  Independent
# sources: the process's own end (killed by SIGKILL) and the test's count
# of processes it let loose (one).
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_controllers memory
need_collectd
need_memhog

make_run_parent vm-oom
hand_down_controllers
mkdir "$parent/oom" "$parent/other"
echo 32M >"$parent/oom/memory.max"
oom="${run}_oom" other="${run}_other"
dir="$T/oom"
start_watching "$dir" "$run/*" '"cpu" "memory" "events"'
wait_until _csv_has 1 "$dir" "$oom" derive-memory_events_oom_kill
before=$(csv_last "$dir" "$oom" derive-memory_events_oom_kill)
ok $? "oom_kill read before: ${before:-none}"

bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 64' hog "$parent/oom" "$HOG" >"$T/hog.out" 2>&1 &
hog=$!
wait "$hog"
status=$?
[ "$status" -eq $((128 + 9)) ]
ok $? "the 64 MiB writer under memory.max 32M was killed by SIGKILL (status $status)"
kill -0 "$hog" 2>/dev/null
ok $((!$?)) "the process is gone"
mapfile -t left <"$parent/oom/cgroup.procs"
[ "${#left[@]}" -eq 0 ]
ok $? "its cgroup is empty"

_csv_count "$dir" "$other" memory-current
other_reads=$_n
wait_reads 3 "$dir" "$oom" derive-memory_events_oom_kill
after=$(csv_last "$dir" "$oom" derive-memory_events_oom_kill)
[ $((after - before)) -ge 1 ]
ok $? "derive-memory_events_oom_kill grew by $((after - before)) >= 1 (the one process killed)"
echo "memory.events: $(tr '\n' ' ' <"$parent/oom/memory.events")" | diag
wait_reads 2 "$dir" "$other" memory-current
_csv_count "$dir" "$other" memory-current
[ "$_n" -ge $((other_reads + 2)) ]
ok $? "the other cgroup is still read after the kill ($other_reads -> $_n reads)"
stop_collectd
[ "$(grep -c '^\[error\]' "$dir/collectd.log")" -eq 0 ]
ok $? "no ERROR in collectd's log"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag
tap_done
