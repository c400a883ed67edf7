#!/usr/bin/env bash
# A managed cgroup that holds more processes than one read of cgroup.procs
# returns: the kernel gives a page of pids per read(), and 15,000 pids of
# up to 5 digits fill more than 16 pages.  collectd moves a helper into
# <Cgroup "RUN/job"> Create true (AttachPid), the helper forks 15,000
# children there; when collectd stops, every one of them is back in the
# helper's cgroup and RUN/job is gone.  Independent figures: the kernel's
# own cgroup.procs of both cgroups.
# Bounded: the children only pause(), they die with the helper
# (PR_SET_PDEATHSIG), and the helper is killed at the end.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_collectd
FORKER=$top_builddir/tests/forker
need "built tests/forker" -- test -x "$FORKER"
N=15000
procs_now=$(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)
need "room for $N more pids (pid_max $(cat /proc/sys/kernel/pid_max), $procs_now in use)" -- \
  test $((procs_now + N + 2000)) -lt "$(cat /proc/sys/kernel/pid_max)"
need "room for $N more processes (ulimit -u $(ulimit -u))" -- \
  test "$(ulimit -u)" = unlimited -o "$(ulimit -u)" -gt $((procs_now + N + 2000))

make_run_parent joule-crowd
mkdir "$parent/home"
# count DIR: the processes in cgroup DIR, as its cgroup.procs lists them.
count() { local p=(); [ ! -r "$1/cgroup.procs" ] || mapfile -t p <"$1/cgroup.procs"; echo "${#p[@]}"; }
holds() { [ "$(count "$1")" -eq "$2" ]; }

# The helper starts in RUN/home: where the evacuation is to bring it back.
(echo "$BASHPID" >"$parent/home/cgroup.procs" && exec "$FORKER" --hold "$N") >"$T/forker.out" 2>&1 &
forker=$!
# At exit: the helper killed, its children with it (before the run's
# parent is removed, which kills what is left there).
stop_crowd() {
  kill -KILL "$forker" 2>/dev/null
  wait "$forker" 2>/dev/null
  local d
  for d in "$parent/home" "$parent/job"; do
    [ ! -d "$d" ] || wait_until holds "$d" 0
  done
}
CLEANUPS=(stop_crowd "${CLEANUPS[@]}")
wait_until file_has "$T/forker.out" waiting

dir="$T/crowd"
write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  <Cgroup \"$run/job\">
    Instance \"job\"
    Create true
    AttachPid $forker
  </Cgroup>"
start_collectd "$dir"
wait_until in_cgroup "$forker" "/$run/job"
ok $? "collectd moved the helper into $run/job" || tap_done
kill -USR1 "$forker"
wait_until file_has "$T/forker.out" "forked $N"
ok $? "the helper forked $N children in $run/job" || { diag <"$T/forker.out"; tap_done; }
inside=$(count "$parent/job")
[ "$inside" -eq $((N + 1)) ]
ok $? "$run/job holds $inside processes, $(wc -c <"$parent/job/cgroup.procs") bytes of cgroup.procs"
wait_reads 1 "$dir" job ps_cputime
ok $? "collectd reads the crowded cgroup"

t0=$SECONDS
stop_collectd
diag <<<"collectd stopped in $((SECONDS - t0)) s"
left=$(count "$parent/job")
test ! -e "$parent/job"
ok $? "$run/job is gone after collectd stopped ($left processes left inside)"
back=$(count "$parent/home")
[ "$back" -eq $((N + 1)) ]
ok $? "every process is back in $run/home: $back of $((N + 1))"
in_cgroup "$forker" "/$run/home"
ok $? "the helper itself is back in $run/home"
grep -q "removed cgroup $parent/job" "$dir/collectd.log" && [ "$(loud_lines "$dir")" -eq 0 ]
ok $? "\"removed cgroup\" logged, no ERROR or WARNING"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag
tap_done
