#!/usr/bin/env bash
# OOM notifications through the real collectd (docs/configuration.md, NotifyOOM), on a
# tree whose memory.events a test rewrites between reads as the kernel
# would: one notification per cgroup and read in which oom_kill grew,
# severity FAILURE, the cgroup's path in the `cgroup` meta data, and a
# message with the count, the effective memory.max and the peak; a kill
# in a cgroup that vanished before its next read told by its ancestor;
# never a kill told twice.  The notifications are read where operators
# get them: collectd's log, and a NotificationExec program (which also
# sees the meta data).
. "$(dirname "$0")/lib/common.sh"
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
need "user nobody (exec plugin runs NotificationExec as a user)" -- id nobody

tree="$T/tree"
# events CGROUP N: memory.events with oom_kill N, rewritten in place as a
# kernel file changes (the plugin keeps its descriptor).
events() {
  printf 'low 0\nhigh 0\nmax 4\noom 2\noom_kill %s\noom_group_kill 0\n' "$2" \
    >"$tree/$1/memory.events"
}
cgroup() { # CGROUP memory.max
  local d="$tree/$1"
  mkdir -p "$d"
  : >"$d/cgroup.procs"
  printf 'usage_usec 10\nuser_usec 6\nsystem_usec 4\n' >"$d/cpu.stat"
  echo 1048576 >"$d/memory.current"
  echo 2097152 >"$d/memory.peak"
  echo "anon 1" >"$d/memory.stat"
  echo "$2" >"$d/memory.max"
  echo "memory" >"$d/cgroup.subtree_control"
  events "$1" 0
}
mkdir -p "$tree"
echo "cpu memory" >"$tree/cgroup.controllers"
echo "memory" >"$tree/cgroup.subtree_control"
printf 'usage_usec 100\nuser_usec 60\nsystem_usec 40\n' >"$tree/cpu.stat"
cgroup pod 536870912
cgroup pod/c1 max
cgroup pod/c2 268435456

notification_exec
dir="$T/run"
JC_INTERVAL=0.2 write_conf "$dir" "  CgroupRoot \"$tree\"
  Select \"**\"" "$exec_block"
start_collectd "$dir"
reads_at_least() { [ "$(csv_reads "$dir")" -ge "$1" ]; }
after_reads() { wait_until reads_at_least $(($(csv_reads "$dir") + $1)); }
told() { grep -c '^\[info\] Notification: ' "$dir/collectd.log" 2>/dev/null || true; }
after_reads 2

events pod/c1 2
events pod 2
after_reads 3
[ "$(told)" -eq 1 ]
ok $? "two kills in pod/c1: one notification ($(told))"
grep -q '^\[info\] Notification: severity = FAILURE, host = testhost, plugin = joule_cgroup, plugin_instance = pod_c1, type = memory, type_instance = oom_kill, message = cgroup pod/c1: 2 processes killed by the OOM killer (memory.max 512.0 MiB, peak 2.0 MiB)$' "$dir/collectd.log"
ok $? "severity FAILURE, plugin instance pod_c1, memory/oom_kill, the count, the slice's memory.max and the peak"
grep '^\[info\] Notification: ' "$dir/collectd.log" | diag
wait_until test "$(ls "$notes" | wc -l)" -ge 1
grep -qx 'cgroup: pod/c1' "$notes"/n.* && grep -qx 'Severity: FAILURE' "$notes"/n.*
ok $? "NotificationExec gets it with the meta data cgroup: pod/c1"

# A kill that the child shows before its parent does (the pass reads the
# parent first): still one notification.
events pod/c2 1
after_reads 2
events pod 3
after_reads 3
[ "$(told)" -eq 2 ] && [ "$(grep -c 'cgroup pod/c2: 1 process killed' "$dir/collectd.log")" -eq 1 ]
ok $? "a child's kill seen before the parent's: told once ($(told) in all)"

# A kill, and the cgroup removed before the next read: removed first,
# then its kill in the parent's count, so that no read can fall between
# them and see the kill in the child (the three steps one after another
# gave a read between them time on a loaded machine, which then told the
# kill under pod/c2, rightly, and not under its ancestor).
rm -r "$tree/pod/c2"
events pod 4
after_reads 3
[ "$(told)" -eq 3 ] &&
  grep -q 'plugin_instance = pod, type = memory, type_instance = oom_kill, message = 1 process killed by the OOM killer in a cgroup below pod that no longer exists$' "$dir/collectd.log"
ok $? "a cgroup removed after its kill: told by its ancestor, once ($(told) in all)"

# Two kills in one interval: a count of 2, not two notifications.
events pod 6
after_reads 3
[ "$(told)" -eq 4 ] && grep -q 'message = cgroup pod: 2 processes killed' "$dir/collectd.log"
ok $? "two kills in pod itself: one notification with a count of 2"
stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no WARNING or ERROR"

# NotifyOOM false: nothing, the counters still read for Collect "events".
events pod 6
dir="$T/off"
JC_INTERVAL=0.2 write_conf "$dir" "  CgroupRoot \"$tree\"
  Select \"**\"
  Collect \"events\"
  NotifyOOM false"
start_collectd "$dir"
after_reads 2
events pod 7
after_reads 3
stop_collectd
[ "$(told)" -eq 0 ] && [ "$(csv_last "$dir" pod derive-memory_events_oom_kill)" = 7 ]
ok $? "NotifyOOM false: no notification; derive-memory_events_oom_kill still 7"

# A Collect without "limits": the message still names the effective
# memory.max, read from the files when the kill is told.
dir="$T/nolimits"
JC_INTERVAL=0.2 write_conf "$dir" "  CgroupRoot \"$tree\"
  Select \"**\"
  Collect \"memory\" \"events\""
start_collectd "$dir"
after_reads 2
events pod/c1 3
events pod 8
after_reads 3
stop_collectd
[ "$(told)" -eq 1 ] &&
  grep -q 'message = cgroup pod/c1: 1 process killed by the OOM killer (memory.max 512.0 MiB, peak 2.0 MiB)$' "$dir/collectd.log"
ok $? "Collect without limits: the message still has the effective memory.max"
grep '^\[info\] Notification: ' "$dir/collectd.log" | diag
tap_done
