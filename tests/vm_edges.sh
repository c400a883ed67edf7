#!/usr/bin/env bash
# Three edges of a real fleet, with every controller (make check-vm):
#   A. a parent turns cpu off in its cgroup.subtree_control while collectd
#      reads its child, and on again: every read of the child still has
#      its memory, io and pids values (their csv series have as many lines
#      as cpu.stat's, which the child keeps without the cpu controller);
#   B. an OOM kill in one of two siblings is counted in that one
#      (derive-memory_events_oom_kill + 1, one FAILURE notification with
#      its instance), never in the other;
#   C. joule-cgroup run --root in a subtree that hands down cpu, memory and
#      pids but not io: CPU and memory measured, the command's io null with
#      one line on stderr (the machine's io still measured), and the
#      command's exit status.
#   D. a dying cgroup (Collect "cgroups"): a child that wrote 8 MiB to a
#      tmpfs file (shmem pages stay charged to it) is removed; its parent's
#      count-cgroup_dying_descendants is 1, what the kernel's cgroup.stat
#      says, and count-cgroup_descendants is 1 (the live sibling); after
#      the file is deleted the count follows the kernel's again.
#   E. final figures (docs/metrics.md) at Interval 10 with NotifyEnd: a
#      job born in its own cgroup right after a read (tests/cgjob) writes
#      to 64 MiB of memory, writes 16 MiB to the scratch disk and reads
#      8 MiB back with O_DIRECT, burns 0.2 s of CPU and ends before the
#      next read; its cgroup is removed 0.1 s after.  Its one read, the
#      final one: memory-peak at least the 64 MiB and within 10 % of the
#      job's own largest resident set, disk_octets exactly the bytes it
#      wrote and read, ps_cputime within 2 % of its rusage or of the
#      cgroup's own count after the job's exit (the job runs a moment
#      after its parent took its rusage); the NotifyEnd record
#      (NotificationExec), "removed" since its cgroup went, has the same
#      memory peak and I/O bytes exact,
#      CPU seconds within 2 % of the same, 0 OOM kills, and a
#      time it was seen within the test's own clock around the job.
# Independent sources: the kernel's own files (cpu.max gone from the child
# while cpu is off, memory.events), the processes the test let loose and
# saw killed, the status the command exits with; for E the bytes the job
# wrote and read, and what the kernel says it used (wait4's rusage).
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need_kernel
need_controllers cpu memory io pids
need_collectd
need_memhog
need_disk
need "built joule-cgroup" -- test -x "$JC"
need "python3" -- command -v python3
CGJOB=$top_builddir/tests/cgjob
need "built tests/cgjob" -- test -x "$CGJOB"
need "user nobody (exec plugin runs NotificationExec as a user)" -- id nobody

make_run_parent vm-edges
hand_down_controllers
mkdir "$parent/p" "$parent/x" "$parent/y" "$parent/q"
echo "+cpu +memory +io +pids" >"$parent/p/cgroup.subtree_control"
mkdir "$parent/p/job"
echo 32M >"$parent/x/memory.max"
job="${run}_p_job" x="${run}_x" y="${run}_y"

dir="$T/edges"
start_watching "$dir" "$run/**" '"cpu" "memory" "io" "pids" "events"'
wait_reads 2 "$dir" "$job" ps_cputime
ok $? "collectd reads $run/p/job" || tap_done

# --- A: cpu off in the parent, then on again --------------------------------------
echo "-cpu" >"$parent/p/cgroup.subtree_control"
test ! -e "$parent/p/job/cpu.max"
ok $? "A: cpu off in $run/p: $run/p/job has no cpu.max ($(cat "$parent/p/cgroup.subtree_control"))"
wait_reads 4 "$dir" "$job" ps_cputime
echo "+cpu" >"$parent/p/cgroup.subtree_control"
wait_reads 2 "$dir" "$job" ps_cputime

# --- B: an OOM kill in x, none in y ---------------------------------------------
told() { grep -c '^\[info\] Notification: ' "$dir/collectd.log" 2>/dev/null || true; }
told_at_least() { [ "$(told)" -ge "$1" ]; }
y_before=$(csv_last "$dir" "$y" derive-memory_events_oom_kill)
x_before=$(csv_last "$dir" "$x" derive-memory_events_oom_kill)
{ bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 64' hog "$parent/x" "$HOG" >/dev/null 2>&1; } 2>/dev/null
status=$?
[ "$status" -eq 137 ]
ok $? "B: a 64 MiB writer under memory.max 32M in $run/x killed (status $status; memory.events: $(grep oom_kill "$parent/x/memory.events"))"
wait_until told_at_least 1
wait_reads 3 "$dir" "$x" derive-memory_events_oom_kill
x_after=$(csv_last "$dir" "$x" derive-memory_events_oom_kill)
[ -n "$x_before" ] && [ $((x_after - x_before)) -eq 1 ]
ok $? "B: derive-memory_events_oom_kill of $run/x grew by 1 ($x_before -> $x_after)"
y_values=$(cut -d, -f2 "$dir/csv/testhost/joule_cgroup-$y"/derive-memory_events_oom_kill-* | grep -v value | sort -u | tr '\n' ' ')
[ -n "$y_before" ] && [ "$y_values" = "$y_before " ]
ok $? "B: derive-memory_events_oom_kill of its sibling $run/y never moved (values: $y_values)"
stop_collectd
notes=$(grep '^\[info\] Notification: severity = FAILURE' "$dir/collectd.log")
[ "$(grep -c . <<<"$notes")" -eq 1 ] && grep -q "plugin_instance = $x, type = memory, type_instance = oom_kill" <<<"$notes"
ok $? "B: one FAILURE notification, $run/x's"
diag <<<"$notes"

# Counted after the run: the csv writer has written every read by then.
lines() { csv_count "$dir" "$job" "$1"; }
cpu_lines=$(lines ps_cputime)
gaps=
for s in memory-current count-pids disk_octets; do
  [ "$(lines "$s")" -eq "$cpu_lines" ] || gaps="$gaps $s:$(lines "$s")"
done
[ "$cpu_lines" -ge 8 ] && [ -z "$gaps" ]
ok $? "A: $cpu_lines reads of $run/p/job, each with memory-current, count-pids and disk_octets${gaps:+ (short:$gaps)}"
[ "$(grep -c '^\[error\]' "$dir/collectd.log")" -eq 0 ]
ok $? "no ERROR in collectd's log"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag

# --- C: run --root where io is not handed down ------------------------------------
echo "+cpu +memory +pids" >"$parent/q/cgroup.subtree_control"
"$JC" run --root "$parent/q" -- sh -c '"$1" --hold-ms 300 16 >/dev/null; exit 3' sh "$HOG" \
  >"$T/report" 2>"$T/err"
status=$?
[ "$status" -eq 3 ]
ok $? "C: run exits with the command's status (3): $status"
figures=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
m = r.get("memory") or {}
print((r.get("cpu") or {}).get("usage_usec", 0) > 0,
      (m.get("peak") or (m.get("current") or {}).get("max") or 0) >= 16 << 20,
      r.get("io") is None, r["global"].get("io") is not None)' "$T/report")
[ "$figures" = "True True True True" ]
ok $? "C: the command's cpu usage > 0, memory >= 16 MiB, io null; the machine's io still there ($figures)"
# The VM has no RAPL and no GPU: the lines that say so (cli_energy.sh and
# cli_gpu.sh check them) are not this one.
grep -v '^joule-cgroup: energy: ' "$T/err" | grep -v '^joule-cgroup: gpu: ' >"$T/err.io"
[ "$(grep -c . "$T/err.io")" -eq 1 ] &&
  grep -q "controller \"io\" is not enabled for the children of $parent/q, so $parent/q/joule-cgroup-run-[0-9.]* has no io values; enable it with: echo \"+io\" > $parent/q/cgroup.subtree_control" "$T/err.io"
ok $? "C: one line on stderr, with the remedy: $(head -n 1 "$T/err.io")"
diag <"$T/err"

# --- D. a dying cgroup -------------------------------------------------------
mkdir "$parent/d" "$parent/d/pinned" "$parent/d/live"
echo "+memory" >"$parent/d/cgroup.subtree_control"
dir="$T/dying"
JC_INTERVAL=0.5 start_watching "$dir" "$run/d" '"cgroups"'
inst="${run}_d"
wait_until _csv_has 2 "$dir" "$inst" count-cgroup_descendants
ok $? "D: collectd reads $run/d with Collect \"cgroups\"" || tap_done
pin=$T/dying.pages # $T is on the VM's tmpfs: shmem pages
CLEANUPS+=("rm -f $pin")
bash -c 'echo $$ >"$1/cgroup.procs" && exec dd if=/dev/zero of="$2" bs=1M count=8 status=none' pin "$parent/d/pinned" "$pin"
rmdir "$parent/d/pinned"
kernel=$(sed -n 's/^nr_dying_descendants //p' "$parent/d/cgroup.stat")
wait_reads 2 "$dir" "$inst" count-cgroup_dying_descendants
dying=$(csv_last "$dir" "$inst" count-cgroup_dying_descendants)
live=$(csv_last "$dir" "$inst" count-cgroup_descendants)
[ "$kernel" -ge 1 ] && [ "$dying" = "$kernel" ] && [ "$live" = 1 ]
ok $? "D: a removed cgroup pinned by its 8 MiB of shmem: dying $dying (the kernel's cgroup.stat: $kernel), descendants $live"
rm -f "$pin"
gone() { [ "$(sed -n 's/^nr_dying_descendants //p' "$parent/d/cgroup.stat")" = 0 ]; }
JC_WAIT_LIMIT=10 wait_until gone # the kernel frees it when it will
kernel=$(sed -n 's/^nr_dying_descendants //p' "$parent/d/cgroup.stat")
wait_reads 2 "$dir" "$inst" count-cgroup_dying_descendants
dying=$(csv_last "$dir" "$inst" count-cgroup_dying_descendants)
[ "$dying" = "$(sed -n 's/^nr_dying_descendants //p' "$parent/d/cgroup.stat")" ]
ok $? "D: the file deleted: dying $dying, as the kernel's cgroup.stat says (it said $kernel within 10 s of the deletion)"
stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "D: no ERROR or WARNING"

# --- E. final figures of a job that ends between two reads -------------------
mkdir "$parent/fin" "$parent/fin/clock" # clock: one csv line per read
echo "+cpu +memory +io" >"$parent/fin/cgroup.subtree_control"
notification_exec
dir="$T/final"
JC_INTERVAL=10 write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/fin/*\"
  Collect \"cpu\" \"memory\" \"io\"
  NotifyEnd true" "$exec_block"
start_collectd "$dir"
clock="${run}_fin_clock"
wait_until _csv_has 1 "$dir" "$clock" ps_cputime
ok $? "E: collectd reads $run/fin at Interval 10 with NotifyEnd true" || tap_done
read_times() { cut -d, -f1 "$dir/csv/testhost/joule_cgroup-$clock"/ps_cputime-* 2>/dev/null | grep -v epoch; }
reads_between() { read_times | awk -v a="$1" -v b="$2" '$1 > a && $1 < b { n++ } END { print n + 0 }'; }
ended_note() { grep -l "cgroup: $run/fin/$1\$" "$notes"/n.* 2>/dev/null | head -n 1; }
has_ended_note() { [ -n "$(ended_note "$1")" ]; }
MIB=1048576
# try_e N: job N right after a read; 0 when no read fell within it.
try_e() {
  job="job$1"
  [ "$1" -gt 1 ] && wait_reads 1 "$dir" "$clock" ps_cputime
  mkdir "$parent/fin/$job"
  t0=$EPOCHREALTIME
  used=$("$CGJOB" --mib 64 --write "$VM_DISK" 16 --read 8 --busy-ms 200 "$parent/fin/$job")
  t1=$EPOCHREALTIME
  nap 0.1 # the remover: 0.1 s after the job's end
  # The kernel's own count once the job is reaped and its exit is done:
  # the job runs a moment after its parent took its rusage (the end of
  # its exit, charged to its cgroup; a host that stalls the emulated CPU
  # there makes that moment 9 ms: 282107 µs read, 273097 in the rusage).
  after=$(awk '$1 == "usage_usec" { print $2 }' "$parent/fin/$job/cpu.stat")
  rmdir "$parent/fin/$job"
  wait_until has_ended_note "$job"
  t2=$EPOCHREALTIME
  [ "$(reads_between "$t0" "$t1")" -eq 0 ]
}
for n in 1 2 3; do
  try_e "$n"
  e=$?
  [ "$e" -eq 0 ] && break
  echo "E: a read fell within job$n (a slow host): again" | diag
done
inst="${run}_fin_$job"
[ "$e" -eq 0 ]
ok $? "E: $job born in $run/fin/$job right after a read, ended ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s) and removed before the next: $used"
set -- $used # cpu_usec U maxrss_kib K status S
cpu=$2 rss=$(($4 * 1024)) status=$6
[ "$status" = 0 ]
ok $? "E: the job wrote its memory and disk bytes (exit status $status)"
lines=$(csv_count "$dir" "$inst" memory-peak)
[ "$lines" -eq 1 ] && [ "$(csv_count "$dir" "$inst" disk_octets)" -eq 1 ]
ok $? "E: its one read is the final one ($lines csv line of memory-peak, of disk_octets)"
peak=$(csv_last "$dir" "$inst" memory-peak)
awk -v p="$peak" -v r="$rss" -v m=$((64 * MIB)) 'BEGIN { d = p - r; if (d < 0) d = -d; exit !(p >= m && d <= r / 10) }'
ok $? "E: memory-peak $peak >= 64 MiB and within 10 % of the job's own largest resident set ($rss bytes)"
io=$(csv_last "$dir" "$inst" disk_octets)
[ "$io" = "$((8 * MIB)),$((16 * MIB))" ]
ok $? "E: disk_octets $io: the 8 MiB it read and the 16 MiB it wrote, exactly (O_DIRECT)"
got=$(csv_last "$dir" "$inst" ps_cputime | awk -F, '{ printf "%.0f", $1 + $2 }')
# near_truth GOT: GOT µs within 2 % of the truth, which lies between the
# rusage and the cgroup's own count after the job's exit.
near_truth() {
  awk -v g="$1" -v u="$cpu" -v a="${after:-$cpu}" 'BEGIN { lo = u < a ? u : a; hi = u < a ? a : u;
    exit !(g >= 0.98 * lo && g <= 1.02 * hi) }'
}
near_truth "$got"
ok $? "E: ps_cputime user + syst $got µs, within 2 % of its rusage ($cpu µs) or of its cgroup's own count after its exit ($after µs)"
note=$(ended_note "$job")
fact() { sed -n "s/^$1: //p" "$note"; }
diag <"$note"
grep -qx 'Severity: OKAY' "$note" && grep -qx 'Type: cgroup' "$note" &&
  grep -qx 'TypeInstance: removed' "$note" && grep -qx 'end: removed' "$note" &&
  grep -qx "PluginInstance: $inst" "$note"
ok $? "E: one NotifyEnd record through NotificationExec: OKAY, cgroup/removed (meta data end: removed: its cgroup went), instance $inst"
[ "$(fact memory_peak_bytes)" = "$peak" ] && [ "$(fact io_read_bytes)" = $((8 * MIB)) ] &&
  [ "$(fact io_write_bytes)" = $((16 * MIB)) ] && [ "$(fact oom_kills)" = 0 ]
ok $? "E: the record's memory_peak_bytes $(fact memory_peak_bytes) (the final memory-peak), io_read_bytes $(fact io_read_bytes), io_write_bytes $(fact io_write_bytes), oom_kills $(fact oom_kills)"
near_truth "$(awk -v u="$(fact cpu_user_seconds)" -v s="$(fact cpu_system_seconds)" 'BEGIN { printf "%.0f", (u + s) * 1e6 }')"
ok $? "E: the record's CPU $(fact cpu_user_seconds) s user + $(fact cpu_system_seconds) s system, within 2 % of its rusage ($cpu µs) or of its cgroup's own count after its exit"
awk -v v="$(fact seconds)" -v a="$t0" -v b="$t2" 'BEGIN { exit !(v > 0 && v <= b - a) }'
ok $? "E: seen $(fact seconds) s: more than 0, at most the $(awk -v a="$t0" -v b="$t2" 'BEGIN { printf "%.2f", b - a }') s from the job's start to the record"
stop_collectd
[ "$(grep -c 'type = cgroup, type_instance = removed' "$dir/collectd.log")" -eq "$n" ] &&
  ! grep -q 'type = cgroup, type_instance = emptied' "$dir/collectd.log" &&
  grep -q "message = cgroup $run/fin/$job ended after .* s and was removed: CPU .* s user, .* s system; memory peak .* MiB; I/O 8.0 MiB read, 16.0 MiB written; 0 OOM kills\$" "$dir/collectd.log"
ok $? "E: the log has one record per job, \"removed\", the message with I/O 8.0 MiB read, 16.0 MiB written"
grep 'type = cgroup' "$dir/collectd.log" | diag
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "E: no ERROR or WARNING"
tap_done
