#!/usr/bin/env bash
# Controllers for the cgroups the plugin creates, on the real kernel, on
# either layout: in every level it creates, the plugin enables the
# controllers Collect needs that the level has (so `<Cgroup "x/joule/job">
# Create true` gets memory.current, io.stat, pids.current wherever x hands
# them down), writes nothing into levels it did not create nor into the
# leaf, and a parent it did not create that does not hand a controller
# down gets the exact remedy, naming a directory that exists.
# On a hybrid host (v2 with no cpu, memory, io or pids) there is nothing
# to enable: the same checks then prove that nothing is written.
# Everything lives under a parent named for this run, removed at the end.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"

make_run_parent joule-ctrl
# $run is not the plugin's: it must leave it as it is.
hand_down_controllers
run_sub=$(cat "$parent/cgroup.subtree_control")
mnt_sub=$(cat "$mnt/cgroup.subtree_control")
# words LIST: sorted, one line ("cpu io memory pids").
words() { tr ' ' '\n' <<<"$*" | grep . | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'; }
expect=$(words "$(for c in cpu memory io pids; do
  grep -qw "$c" <<<"$run_sub" && echo "$c"; done)")
echo "# $run hands down: \"$run_sub\"; expected in created levels: \"$expect\"" | diag

start_busy

dir="$T/create"
JC_INTERVAL=0.3 write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Collect \"cpu\" \"memory\" \"io\" \"pids\"
  <Cgroup \"$run/joule/job\">
    Instance \"job\"
    Create true
    AttachPidFile \"$T/busy.pid\"
  </Cgroup>
  <Cgroup \"$run/joule/idle\">
    Create true
  </Cgroup>"
start_collectd "$dir"
in_job() { grep -qx "0::/$run/joule/job" "/proc/$busy_pid/cgroup"; }
wait_until in_job
grep -qx "0::/$run/joule/job" "/proc/$busy_pid/cgroup"
ok $? "the process was moved into $run/joule/job"
joule_sub=$(cat "$parent/joule/cgroup.subtree_control" 2>/dev/null)
job_ctrl=$(cat "$parent/joule/job/cgroup.controllers" 2>/dev/null)
idle_ctrl=$(cat "$parent/joule/idle/cgroup.controllers" 2>/dev/null)
job_sub=$(cat "$parent/joule/job/cgroup.subtree_control" 2>/dev/null)
files=$(cd "$parent/joule/job" 2>/dev/null && ls)
reads_at_least() { [ "$(csv_reads "$dir")" -ge "$1" ]; }
wait_until reads_at_least 2
stop_collectd

[ "$(words "$joule_sub")" = "$expect" ]
ok $? "the created level joule enables exactly \"$expect\" for its children (\"$joule_sub\")"
[ "$(words "$job_ctrl")" = "$expect" ] && [ "$(words "$idle_ctrl")" = "$expect" ]
ok $? "both leaves have them (\"$job_ctrl\", \"$idle_ctrl\")"
[ -z "$job_sub" ]
ok $? "nothing is enabled in the leaf, which holds the process"
missing=
for c in $expect; do
  case $c in
    memory) f=memory.current ;; io) f=io.stat ;; pids) f=pids.current ;; cpu) f=cpu.max ;;
  esac
  grep -qx "$f" <<<"$files" || missing="$missing $f"
done
[ -z "$missing" ]
ok $? "the leaf has the files of each (missing:${missing:- none})"
if grep -qw memory <<<"$expect"; then
  [ -n "$(csv_last "$dir" job memory-current)" ]
  ok $? "memory-current of the job is reported ($(csv_last "$dir" job memory-current))"
else
  ! grep -qx memory.current <<<"$files"
  ok $? "no memory controller in v2 here: the leaf has no memory.current"
fi
[ "$(cat "$parent/cgroup.subtree_control")" = "$run_sub" ] &&
  [ "$(cat "$mnt/cgroup.subtree_control")" = "$mnt_sub" ]
ok $? "the levels the plugin did not create are as they were"
test ! -e "$parent/joule"
ok $? "the created levels are gone after shutdown"
grep -qx "$home" "/proc/$busy_pid/cgroup"
ok $? "the process is back where it came from (${home#0::})"
# A hybrid host's controllers bound to cgroup v1 are INFO lines, even
# with Collect naming their groups.
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING (controllers bound to cgroup v1 are INFO)"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag

# A parent the plugin did not create that does not hand a controller
# down: the remedy names it, it exists, and following it works.
mkdir "$parent/pre"
dir="$T/remedy"
write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Collect \"cpu\" \"memory\" \"io\" \"pids\"
  <Cgroup \"$run/pre/job\">
    Create true
  </Cgroup>"
run_collectd "$dir"
first=$(sed -n 's/^\[error\] joule_cgroup plugin: //p' "$dir/collectd.log")
required=$(for c in memory io pids; do grep -qw "$c" <<<"$expect" && echo "$c"; done)
if [ -n "$required" ]; then
  c=$(head -n 1 <<<"$required")
  want="controller \"$c\" is not enabled for the children of $parent/pre; enable it with: echo \"+$c\" > $parent/pre/cgroup.subtree_control"
  [ "$first" = "$want" ]
  ok $? "one ERROR with the exact remedy"
  echo "$first" | diag
  test -d "$parent/pre" && test ! -e "$parent/pre/job"
  ok $? "the directory it names exists, and nothing was created below it"
  for c in $expect; do echo "+$c" >"$parent/pre/cgroup.subtree_control"; done
  dir="$T/remedied"
  cp -r "$T/remedy" "$dir" && rm -f "$dir/collectd.log" "$dir/collectd.out"
  sed -i "s|$T/remedy|$dir|g" "$dir/collectd.conf"
  run_collectd "$dir" 2
  [ "$(loud_lines "$dir")" -eq 0 ] && grep -q "created cgroup $parent/pre/job" "$dir/collectd.log"
  ok $? "after the remedy the same configuration starts"
else
  [ -z "$first" ] && grep -q "created cgroup $parent/pre/job" "$dir/collectd.log"
  ok $? "no memory, io or pids in v2 here: nothing to require, the cgroup is created"
fi
test -d "$parent/pre" && test ! -e "$parent/pre/job"
ok $? "$run/pre, not the plugin's, is left; what it created is gone"
tap_done
