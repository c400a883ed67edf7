#!/usr/bin/env bash
# OOM notifications from real kills (make check-vm; NotifyOOM,
# docs/metrics.md).  collectd (root, so it reads the kernel's log) at
# Interval 5 with the exec plugin's NotificationExec, reading the cgroups
# below a parent named for this run:
#   A. a 64 MiB writer under memory.max 32 MiB in "a" is killed: exactly
#      one FAILURE notification, plugin instance a's, memory/oom_kill, the
#      path, the count 1, memory.max 32.0 MiB and the peak the kernel's
#      memory.peak shows, and the process killed: memhog, its pid, uid 0,
#      in "a", at the limit of "a" (32.0 MiB); NotificationExec sees the
#      meta data cgroup;
#   B. the same in "pod/gone", and "pod/gone" removed at once, before the
#      next read: exactly one notification, from its tracked ancestor
#      "pod", saying the cgroup below it no longer exists, and naming the
#      process and the cgroup it was in;
#   C. two writers killed in "a" within one interval: one notification
#      with a count of 2, never two, naming the last process;
#   D. a 100 MiB writer in "lim/child", whose parent "lim" has memory.max
#      64 MiB: the notification of lim/child names memhog, its pid, the
#      child, and lim as the cgroup whose limit fired with 64.0 MiB, and
#      NotificationExec gets the meta data pid, command, uid, oom_cgroup,
#      limit_cgroup and limit 67108864; a writer in "lim/own" under its
#      own 32 MiB names lim/own as the limit's cgroup;
#   and a few reads later nothing more;
#   E. collectd again, without CAP_SYSLOG and CAP_SYS_ADMIN (setpriv's
#      bounding set) under kernel.dmesg_restrict 1: one INFO at init says
#      the kernel log cannot be read, and a kill in "a" gives the
#      notification without the process.
#   Independent source: the test's own count of the processes it let
#   loose and saw killed (status 137, SIGKILL) and their pids, and the
#   kernel's memory.events and memory.peak as the test reads them.  Each step is started right after a read and checked,
#   against the reads' own timestamps, to have ended before the next one;
#   when a loaded host made it last longer (a read fell within it), the
#   step is made again, at most three times, and the kills of the first
#   try must still have been told exactly once.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_controllers memory
need_collectd
need_memhog
need "user nobody (exec plugin runs NotificationExec as a user)" -- id nobody

make_run_parent vm-oomn
hand_down_controllers
mkdir "$parent/a" "$parent/pod" "$parent/lim"
echo "+memory" >"$parent/pod/cgroup.subtree_control"
echo 32M >"$parent/a/memory.max"
echo "+memory" >"$parent/lim/cgroup.subtree_control"
echo 64M >"$parent/lim/memory.max"
mkdir "$parent/lim/child" "$parent/lim/own"
echo 32M >"$parent/lim/own/memory.max"
i_a="${run}_a" i_pod="${run}_pod"
# Keepers: $run and a stay populated, so that the plugin's final reads of
# a cgroup that empties (docs/metrics.md, final figures) neither stamp the
# run's series between two reads nor tell a kill in a at once.
mkdir "$parent/keep"
for k in keep a; do
  bash -c 'echo $$ >"$1/cgroup.procs" && exec sleep 100000' keeper "$parent/$k" &
  CLEANUPS+=("kill $! 2>/dev/null")
done

notification_exec
dir="$T/run"
JC_INTERVAL=5 write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/**\"
  Collect \"memory\" \"events\" \"limits\"" "$exec_block"
start_collectd "$dir"

told() { grep -c '^\[info\] Notification: ' "$dir/collectd.log" 2>/dev/null || true; }
told_at_least() { [ "$(told)" -ge "$1" ]; }
# read_times: the epochs of the reads, from the csv of $run's memory-current.
read_times() { cat "$dir/csv/testhost/joule_cgroup-$run"/memory-current-* 2>/dev/null | cut -d, -f1 | grep -v epoch; }
# no_read_between T0 T1: no read was stamped in (T0, T1).
no_read_between() {
  read_times | awk -v a="$1" -v b="$2" '$1 > a && $1 < b { n++ } END { exit n > 0 }'
}
# after_read: returns just after a read (its csv line has been written):
# the step that follows has the whole interval before the next one.
after_read() { wait_reads 1 "$dir" "$run" memory-current; }
# hog CGROUP [MIB]: a writer of MIB (64) MiB in CGROUP, waited for; kills
# counts the ones the kernel killed (SIGKILL: status 137), hog_pid is its
# pid (bash's, which execs memhog).
kills=0
hog() {
  # (the braces keep bash's "Killed" line of the job out of the log)
  { bash -c 'echo $$ >"$4" && echo $$ >"$1/cgroup.procs" && exec "$2" "$3"' hog "$parent/$1" "$HOG" "${2:-64}" "$T/hog.pid" >/dev/null 2>&1; } 2>/dev/null
  local status=$?
  hog_pid=$(cat "$T/hog.pid")
  [ "$status" -eq 137 ] && kills=$((kills + 1))
  echo "a ${2:-64} MiB writer in $1 (pid $hog_pid): exit status $status" | diag
  return $((status != 137))
}
# killed CGROUP LIMIT-CGROUP [LIMIT]: the end of the message that names the
# process killed (the last hog) from the kernel's log.
killed() {
  echo ": memhog (pid $hog_pid, uid 0) in $run/$1, at the limit of $run/$2${3:+ (memory.max $3)}"
}
# The kernel's peak as the message prints it.
peak_text() { awk -v v="$(cat "$parent/$1/memory.peak")" 'BEGIN { printf "%.1f MiB", v / 1048576 }'; }
prefix="^\[info\] Notification: severity = FAILURE, host = testhost, plugin = joule_cgroup"

# The plugin's read at init is the baseline of every oom_kill; A starts
# right after the first read that follows.
wait_until _csv_has 1 "$dir" "$run" memory-current
ok $? "collectd reads $run and below" || tap_done

# --- A: one kill in a selected cgroup ---------------------------------------------
t0=$EPOCHREALTIME
hog a
ok $? "A: the writer in $run/a was killed by the OOM killer (status 137)"
t1=$EPOCHREALTIME
wait_until told_at_least 1
after_read
ev=$(awk '$1 == "oom_kill" { print $2 }' "$parent/a/memory.events")
[ "$(told)" -eq 1 ] && [ "$ev" -eq 1 ] &&
  grep -qx "$prefix, plugin_instance = $i_a, type = memory, type_instance = oom_kill, message = cgroup $run/a: 1 process killed by the OOM killer (memory.max 32.0 MiB, peak $(peak_text a))$(killed a a "32.0 MiB")" "$dir/collectd.log"
ok $? "A: one notification, FAILURE, instance $i_a, memory/oom_kill: $run/a, 1 process (the test's count $kills, memory.events oom_kill $ev), memory.max 32.0 MiB, peak $(peak_text a) as memory.peak says; memhog, pid $hog_pid, uid 0, in $run/a, at the limit of $run/a (32.0 MiB)"
grep '^\[info\] Notification: ' "$dir/collectd.log" | diag
no_read_between "$t0" "$t1" || echo "A: a read fell within the kill (a slow host): told once all the same" | diag
wait_until test "$(ls "$notes" | wc -l)" -ge 1
grep -qx "cgroup: $run/a" "$notes"/n.* && grep -qx 'Severity: FAILURE' "$notes"/n.* &&
  grep -qx "PluginInstance: $i_a" "$notes"/n.*
ok $? "A: NotificationExec (as nobody) gets it, with the meta data cgroup: $run/a"
cat "$notes"/n.* | diag

# --- B: a kill, and its cgroup removed before the next read --------------------
# try_b N: one try in pod/goneN, right after a read; 0 when no read fell
# between the kill and the removal.
expect=1 tries_b=0
try_b() {
  mkdir "$parent/pod/gone$1" && echo 32M >"$parent/pod/gone$1/memory.max"
  after_read
  t0=$EPOCHREALTIME
  hog "pod/gone$1" || return 2
  for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$parent/pod/gone$1" 2>/dev/null && break; nap 0.1; done
  t1=$EPOCHREALTIME
  [ ! -e "$parent/pod/gone$1" ] || return 2
  expect=$((expect + 1)) tries_b=$1
  wait_until told_at_least "$expect"
  after_read
  no_read_between "$t0" "$t1"
}
for n in 1 2 3; do
  try_b "$n"
  b=$?
  [ "$b" -eq 1 ] || break
  echo "B: a read fell between the kill and the removal (a slow host): again" | diag
done
[ "$b" -eq 0 ]
ok $? "B: the writer in $run/pod/gone$tries_b killed and the cgroup removed at once ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s), no read in between (try $tries_b)"
ev=$(awk '$1 == "oom_kill" { print $2 }' "$parent/pod/memory.events")
[ "$(told)" -eq "$expect" ] && [ "$ev" -eq "$tries_b" ] &&
  { grep '^\[info\] Notification: ' "$dir/collectd.log" | tail -n 1 |
    grep -qx "$prefix, plugin_instance = $i_pod, type = memory, type_instance = oom_kill, message = 1 process killed by the OOM killer in a cgroup below $run/pod that no longer exists$(killed "pod/gone$tries_b" "pod/gone$tries_b")" ||
    # or told by the cgroup itself: its final read came before the rmdir
    grep '^\[info\] Notification: ' "$dir/collectd.log" | tail -n 1 |
    grep -q "$prefix, plugin_instance = ${run}_pod_gone$tries_b, type = memory, type_instance = oom_kill, message = cgroup $run/pod/gone$tries_b: 1 process killed by the OOM killer"; }
ok $? "B: one notification per try, the last from the ancestor $i_pod: 1 process in a cgroup below $run/pod that no longer exists (pod's memory.events oom_kill $ev): memhog, pid $hog_pid, in $run/pod/gone$tries_b, whose limit is gone with it"
grep '^\[info\] Notification: ' "$dir/collectd.log" | tail -n +2 | diag

# --- C: two kills in one interval ---------------------------------------------------
# try_c: two writers right after a read; 0 when both fell in one interval.
tries_c=0
try_c() {
  after_read
  local before=$(told) a_before
  a_before=$(awk '$1 == "oom_kill" { print $2 }' "$parent/a/memory.events")
  t0=$EPOCHREALTIME
  hog a && hog a || return 2
  t1=$EPOCHREALTIME
  tries_c=$((tries_c + 1))
  wait_until told_at_least $((before + 1))
  after_read
  after_read # a second notification, when the kills fell in two intervals
  if no_read_between "$t0" "$t1"; then
    expect=$((expect + 1))
    return 0
  fi
  expect=$(told) # told as the reads saw them: checked once at the end
  return 1
}
for n in 1 2 3; do
  try_c
  c=$?
  [ "$c" -eq 1 ] || break
  echo "C: a read fell between the two kills (a slow host): again" | diag
done
[ "$c" -eq 0 ]
ok $? "C: two writers in $run/a, one after the other, both killed within one interval ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s, try $tries_c)"
ev=$(awk '$1 == "oom_kill" { print $2 }' "$parent/a/memory.events")
[ "$(told)" -eq "$expect" ] && [ "$ev" -eq $((1 + 2 * tries_c)) ] &&
  grep '^\[info\] Notification: ' "$dir/collectd.log" | tail -n 1 |
  grep -qx "$prefix, plugin_instance = $i_a, type = memory, type_instance = oom_kill, message = cgroup $run/a: 2 processes killed by the OOM killer (memory.max 32.0 MiB, peak $(peak_text a)): the last, $(killed a a "32.0 MiB" | cut -c3-)"
ok $? "C: one notification with a count of 2, not two (memory.events oom_kill of $run/a $ev in all), naming the last process (pid $hog_pid)"
grep '^\[info\] Notification: ' "$dir/collectd.log" | tail -n +3 | diag

# --- D: a child killed at its parent's limit, and at its own -----------------------
after_read
hog lim/child 100
ok $? "D: a 100 MiB writer in $run/lim/child (no limit of its own, lim's memory.max 64M) killed"
expect=$((expect + 1))
wait_until told_at_least "$expect"
after_read
i_child="${run}_lim_child"
[ "$(told)" -eq "$expect" ] &&
  grep '^\[info\] Notification: ' "$dir/collectd.log" | tail -n 1 |
  grep -qx "$prefix, plugin_instance = $i_child, type = memory, type_instance = oom_kill, message = cgroup $run/lim/child: 1 process killed by the OOM killer (memory.max 64.0 MiB, peak $(peak_text lim/child))$(killed lim/child lim "64.0 MiB")"
ok $? "D: one notification from $run/lim/child: memhog, pid $hog_pid, uid 0, in $run/lim/child, at the limit of $run/lim (memory.max 64.0 MiB)"
grep '^\[info\] Notification: ' "$dir/collectd.log" | tail -n 1 | diag
child_pid=$hog_pid
child_note() { grep -lx "cgroup: $run/lim/child" "$notes"/n.* 2>/dev/null | head -n 1; }
has_child_note() { [ -n "$(child_note)" ]; }
wait_until has_child_note
note=$(child_note)
grep -qx "pid: $child_pid" "$note" && grep -qx 'command: memhog' "$note" &&
  grep -qx 'uid: 0' "$note" && grep -qx "oom_cgroup: $run/lim/child" "$note" &&
  grep -qx "limit_cgroup: $run/lim" "$note" && grep -qx 'limit: 67108864' "$note"
ok $? "D: NotificationExec gets the meta data pid $child_pid, command memhog, uid 0, oom_cgroup $run/lim/child, limit_cgroup $run/lim, limit 67108864"
cat "$note" | diag
hog lim/own 64
ok $? "D: a 64 MiB writer in $run/lim/own (memory.max 32M of its own) killed"
expect=$((expect + 1))
wait_until told_at_least "$expect"
after_read
[ "$(told)" -eq "$expect" ] &&
  grep '^\[info\] Notification: ' "$dir/collectd.log" | tail -n 1 |
  grep -qx "$prefix, plugin_instance = ${run}_lim_own, type = memory, type_instance = oom_kill, message = cgroup $run/lim/own: 1 process killed by the OOM killer (memory.max 32.0 MiB, peak $(peak_text lim/own))$(killed lim/own lim/own "32.0 MiB")"
ok $? "D: the kill by its own limit names $run/lim/own as the limit's cgroup (memory.max 32.0 MiB), pid $hog_pid"
grep '^\[info\] Notification: ' "$dir/collectd.log" | tail -n 1 | diag

# --- nothing twice ------------------------------------------------------------------
wait_reads 3 "$dir" "$run" memory-current
stop_collectd
# Every kill told once: the notifications' counts add up to the kills.
counted=$(grep '^\[info\] Notification: severity = FAILURE' "$dir/collectd.log" |
  sed -n 's/.*message = \(cgroup [^:]*: \)\{0,1\}\([0-9]*\) process.*/\2/p' | awk '{ s += $1 } END { print s + 0 }')
[ "$(told)" -eq "$expect" ] && [ "$counted" -eq "$kills" ] && [ "$kills" -eq $((1 + tries_b + 2 * tries_c + 2)) ]
ok $? "three reads later: $(told) notifications telling $counted kills, the $kills the test caused (1 + $tries_b + 2 x $tries_c + 2), none told twice"
[ "$(ls "$notes" | wc -l)" -eq "$(told)" ]
ok $? "NotificationExec ran $(ls "$notes" | wc -l) times"
[ "$(loud_lines "$dir")" -eq 0 ] && ! grep -q 'kernel log' "$dir/collectd.log"
ok $? "no ERROR or WARNING, nothing said of the kernel log"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag

# --- E: collectd without the kernel's log ---------------------------------------------
echo 1 >/proc/sys/kernel/dmesg_restrict
dir="$T/nolog"
JC_INTERVAL=5 write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/a\"
  Collect \"memory\" \"events\" \"limits\""
saved=("${COLLECTD_ENV[@]}")
COLLECTD_ENV=(setpriv --bounding-set=-syslog,-sys_admin "${COLLECTD_ENV[@]}")
start_collectd "$dir"
COLLECTD_ENV=("${saved[@]}")
wait_until _csv_has 1 "$dir" "${run}_a" memory-current
after_e() { wait_reads 1 "$dir" "${run}_a" memory-current; }
after_e
hog a
ok $? "E: a writer in $run/a killed, collectd without CAP_SYSLOG and CAP_SYS_ADMIN, dmesg_restrict 1"
wait_until told_at_least 1
after_e
stop_collectd
info="OOM notifications do not name the process killed nor the limit that fired: the kernel log /dev/kmsg cannot be read (Operation not permitted); collectd needs CAP_SYSLOG while kernel.dmesg_restrict is 1, and a container seldom has the host's log"
[ "$(grep -cxF "[info] joule_cgroup plugin: $info" "$dir/collectd.log")" -eq 1 ]
ok $? "E: one INFO at init: $info"
grep 'kernel log' "$dir/collectd.log" | diag
[ "$(told)" -eq 1 ] &&
  grep -qx "$prefix, plugin_instance = $i_a, type = memory, type_instance = oom_kill, message = cgroup $run/a: 1 process killed by the OOM killer (memory.max 32.0 MiB, peak $(peak_text a))" "$dir/collectd.log"
ok $? "E: the notification without the process: cgroup $run/a: 1 process killed by the OOM killer (memory.max 32.0 MiB, peak $(peak_text a))"
grep '^\[info\] Notification: ' "$dir/collectd.log" | diag
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "E: no ERROR or WARNING"
tap_done
