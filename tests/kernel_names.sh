#!/usr/bin/env bash
# Names that collide on the real kernel: two cgroups RUN/a/job and
# RUN/b/job under InstanceFrom "basename" would both be "job".  collectd
# is started twice, the directories made in the opposite order, and one
# of them made while collectd runs: the names are the same every time,
# "job~" and the FNV-1a hash of each one's own path, never the plain
# "job" for one of them (which one would depend on the order); when one
# goes, the other is "job" again; the meta data says which is which.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_collectd
need "python3" -- command -v python3

make_run_parent joule-names
fnv() { python3 -c 'import sys
h = 0x811C9DC5
for b in sys.argv[1].encode(): h = ((h ^ b) * 16777619) & 0xFFFFFFFF
print("%08x" % h)' "$1"; }
want="job~$(fnv "$run/a/job") job~$(fnv "$run/b/job")"
want=$(echo "$want" | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')

# names DIR: the job instances collectd wrote.
names() { csv_instances "$1" | tr ' ' '\n' | grep '^job' | tr '\n' ' ' | sed 's/ $//'; }
has_names() { [ "$(names "$1")" = "$2" ]; }
block="  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/*/job\"
  InstanceFrom \"basename\""

# 1. b/job before the start, a/job while collectd runs (the order in
# which the first releases kept b/job's plain name, and gave it to a/job
# at the next start).
mkdir -p "$parent/b/job"
dir="$T/first"
write_conf "$dir" "$block"
start_collectd "$dir"
wait_until _csv_has 2 "$dir" job ps_cputime
mkdir -p "$parent/a/job"
wait_until has_names "$dir" "job $want"
ok $? "b/job alone is \"job\"; a/job made while collectd runs: both become $want"
stop_collectd
rmdir "$parent/b/job" "$parent/b" "$parent/a/job" "$parent/a"

# 2. started again, a/job made first, both before the start.
mkdir -p "$parent/a/job"
mkdir -p "$parent/b/job"
dir="$T/second"
write_conf "$dir" "$block"
start_collectd "$dir"
wait_until _csv_has 2 "$dir" "${want%% *}" ps_cputime
got=$(names "$dir")
[ "$got" = "$want" ]
ok $? "started again with a/job made first: the same names ($got)"
grep -q "\"plugin_instance\":\"job~$(fnv "$run/a/job")\",.*\"meta\":{\"cgroup\":\"$run/a/job\"}" "$dir/collectd.log"
ok $? "the meta data says which is which"

# 3. one goes: the other is "job" again, with one INFO line.
rmdir "$parent/b/job"
wait_until _csv_has 2 "$dir" job ps_cputime
ok $? "b/job removed: a/job is reported as \"job\" again"
grep -q "^\[info\] joule_cgroup plugin: cgroup \"$run/a/job\" is reported as \"job\" again" "$dir/collectd.log"
ok $? "and the log says so"
stop_collectd
n=$(grep -c '^\[warning\] joule_cgroup plugin: cgroups .* would both be reported as "job"' "$T/first/collectd.log" "$T/second/collectd.log" | awk -F: '{ s += $2 } END { print s }')
[ "$n" -eq 2 ]
ok $? "one WARNING per run for the collision ($n)"
tap_done
