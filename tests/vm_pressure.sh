#!/usr/bin/env bash
# Memory pressure on a real kernel (make check-vm).  A process writes to
# 64 MiB in a cgroup whose memory.high is 16 MiB: with no swap the kernel
# can only make it wait, and that wait is a memory stall.  The plugin's
# derive-memory_some_stall_usec of that cgroup grows; an idle cgroup's
# stays flat.  Independent sources: what the test set up (a hog under a
# tight limit, an empty cgroup), and the kernel's own memory.pressure
# totals read after the run, which can only be at or above what was sent.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_controllers memory
need_collectd
need "pressure accounting (psi=1)" -- test -r /proc/pressure/memory
need_memhog

make_run_parent vm-psi
hand_down_controllers
mkdir "$parent/hog" "$parent/idle"
echo 16M >"$parent/hog/memory.high"
hogi="${run}_hog" idle="${run}_idle"
stall=derive-memory_some_stall_usec
dir="$T/psi"
start_watching "$dir" "$run/*" '"cpu" "memory" "pressure"'
wait_until _csv_has 1 "$dir" "$hogi" "$stall"
first=$(csv_last "$dir" "$hogi" "$stall")
idle_first=$(csv_last "$dir" "$idle" "$stall")
ok $? "memory stall read before: hog ${first:-none} µs, idle ${idle_first:-none} µs"

bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 64' hog "$parent/hog" "$HOG" >"$T/hog.out" 2>&1 &
hog=$!
CLEANUPS+=('kill -KILL "$hog" 2>/dev/null')
grew() { [ "$(csv_last "$dir" "$hogi" "$stall")" -gt "${first:-0}" ]; }
wait_until grew
ok $? "the hog's derive-memory_some_stall_usec grew: ${first:-none} -> $(csv_last "$dir" "$hogi" "$stall") µs"
kill -KILL "$hog"
wait "$hog" 2>/dev/null
wait_reads 2 "$dir" "$idle" "$stall"
stop_collectd

last=$(csv_last "$dir" "$hogi" "$stall")
total=$(sed -n 's/^some .*total=//p' "$parent/hog/memory.pressure")
[ "${total:-0}" -ge "${last:-1}" ] && [ "${last:-0}" -gt 0 ]
ok $? "the kernel's memory.pressure total $total µs >= the last value sent, $last µs"
mapfile -t values < <(grep -v '^epoch' "$dir/csv/testhost/joule_cgroup-$idle/$stall"-* | cut -d, -f2 | sort -u)
idle_total=$(sed -n 's/^some .*total=//p' "$parent/idle/memory.pressure")
[ "${#values[@]}" -eq 1 ] && [ "${values[0]%.*}" = "$idle_total" ]
ok $? "the idle cgroup's stayed flat: ${values[*]} µs over $(csv_count "$dir" "$idle" "$stall") reads, kernel total $idle_total"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag
tap_done
