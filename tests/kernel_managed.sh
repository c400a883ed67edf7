#!/usr/bin/env bash
# The profiler lifecycle on the real kernel: collectd creates a cgroup from
# a <Cgroup ... Create true> block, moves a busy-looping child into it from
# its pid file, reports it as ~1 core busy with rising CPU time, and at
# shutdown moves the child back where it was and removes the cgroup.
# Everything lives under a parent named for this run, removed at the end.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"

make_run_parent joule-test
hand_down_controllers
start_busy

dir="$T/busy"
JC_INTERVAL=0.5 write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  <Cgroup \"$run/busy\">
    Instance \"busy\"
    Create true
    AttachPidFile \"$T/busy.pid\"
  </Cgroup>"
start_collectd "$dir"
sleep 1.5
grep -qx "0::/$run/busy" "/proc/$busy_pid/cgroup"
ok $? "the child was moved into $run/busy"
sleep 3
stop_collectd

cores=$(csv_last "$dir" busy gauge-cpu_cores)
awk -v c="${cores:-0}" 'BEGIN { exit !(c > 0.6 && c < 1.4) }'
ok $? "gauge-cpu_cores near 1 (${cores:-none})"
f=$(ls "$dir"/csv/testhost/joule_cgroup-busy/ps_cputime-* 2>/dev/null | head -n 1)
first=$(grep -v '^epoch' "$f" 2>/dev/null | head -n 1 | awk -F, '{ print $2 + $3 }')
last=$(tail -n 1 "$f" 2>/dev/null | awk -F, '{ print $2 + $3 }')
awk -v a="${first:-0}" -v b="${last:-0}" 'BEGIN { exit !(b > a + 1000000) }'
ok $? "ps_cputime rises (user+syst $first -> $last µs)"
usage=$(csv_last "$dir" busy derive-cpu_usage_usec)
[ -n "$usage" ] && [ "${usage%.*}" -gt 1000000 ]
ok $? "derive-cpu_usage_usec over one second ($usage)"
grep -q "\"plugin_instance\":\"busy\".*\"meta\":{\"cgroup\":\"$run/busy\"}" "$dir/collectd.log"
ok $? "meta data cgroup = $run/busy"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING on a healthy run"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag

test ! -e "$parent/busy"
ok $? "the cgroup is gone after collectd stopped"
kill -0 "$busy_pid" 2>/dev/null
ok $? "the child lives on"
grep -qx "$home" "/proc/$busy_pid/cgroup"
ok $? "back in its cgroup ($(grep "^0::" /proc/$busy_pid/cgroup 2>/dev/null))"

# Init failures disable the plugin with one ERROR line and leave nothing.
init_case() { # name, expected ERE, <Cgroup> body
  local name=$1 want=$2 body=$3 d="$T/$1"
  write_conf "$d" "  CgroupRoot \"$mnt\"
  ReportRoot false
  <Cgroup \"$run/$name\">
$body
  </Cgroup>"
  run_collectd "$d" 1.5
  local n
  n=$(grep -c '^\[error\] joule_cgroup plugin: ' "$d/collectd.log")
  [ "$n" -eq 1 ] && grep '^\[error\] joule_cgroup plugin: ' "$d/collectd.log" | grep -qE -- "$want"
  ok $? "$name: one ERROR line /$want/"
  grep '^\[error\] joule_cgroup plugin: ' "$d/collectd.log" | diag
  test ! -e "$parent/$name"
  ok $? "$name: nothing left behind"
}
dead=4194300
while kill -0 "$dead" 2>/dev/null; do dead=$((dead - 1)); done
init_case nopid "AttachPid $dead: cannot move process $dead into .*: no such process" \
  "    Create true
    AttachPid $dead"
echo "not a pid" >"$T/garbage.pid"
init_case garbage "AttachPidFile \"$T/garbage.pid\": does not hold a process id" \
  "    Create true
    AttachPidFile \"$T/garbage.pid\""
init_case nofile "AttachPidFile \"$T/none.pid\": No such file or directory" \
  "    Create true
    AttachPidFile \"$T/none.pid\""
init_case missing "cgroup $parent/missing does not exist; create it" \
  "    Create false"
tap_done
