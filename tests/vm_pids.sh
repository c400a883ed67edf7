#!/usr/bin/env bash
# pids on a real kernel (make check-vm).  The test starts K single-threaded
# processes in a cgroup: count-pids is K; it ends some: count-pids follows.
# Where the kernel has pids.peak (Linux 6.1 on), count-pids_peak is K
# while they run and stays K after some end; then a process of the
# cgroup starts B children at once and ends them: count-pids_peak is
# K - GONE + 1 + B, whether or not a read fell inside the burst.  A
# kernel without pids.peak: no count-pids_peak, nothing said.
# Independent source: the processes the test itself started and ended.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_controllers pids
need_collectd
K=7 GONE=3 B=6

make_run_parent vm-pids
hand_down_controllers
mkdir "$parent/p"
inst="${run}_p"
dir="$T/pids"
has_peak=no
test -e "$parent/p/pids.peak" && has_peak=yes
echo "$(uname -r): pids.peak $([ "$has_peak" = yes ] && echo present || echo absent)" | diag
start_watching "$dir" "$run/p" '"cpu" "pids"'
wait_until _csv_has 1 "$dir" "$inst" count-pids
ok $? "the empty cgroup is read"
[ "$(csv_last "$dir" "$inst" count-pids)" = 0 ]
ok $? "count-pids 0 while it is empty ($(csv_last "$dir" "$inst" count-pids))"
# peak_is N WHEN: count-pids_peak is N where the kernel has pids.peak, in
# the read of the last count-pids (the csv plugin may write it after).
peak_is() {
  [ "$has_peak" = yes ] || return 0
  local p
  _csv_count "$dir" "$inst" count-pids
  wait_until _csv_has "$_n" "$dir" "$inst" count-pids_peak
  p=$(csv_last "$dir" "$inst" count-pids_peak)
  [ "$p" = "$1" ]
  ok $? "count-pids_peak ${p:-none} = $1 $2 (pids.peak read by the test: $(cat "$parent/p/pids.peak"))"
}
peak_is 0 "while it is empty"

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
peak_is "$K" "started"

kill "${kids[@]:0:$GONE}"
wait "${kids[@]:0:$GONE}" 2>/dev/null
wait_until procs $((K - GONE))
wait_reads 2 "$dir" "$inst" count-pids
n=$(csv_last "$dir" "$inst" count-pids)
[ "$n" = $((K - GONE)) ]
ok $? "count-pids $n = $K - $GONE ended"
peak_is "$K" "started, after $GONE ended"

# A burst: one process enters the cgroup, starts B children that cannot
# end by themselves (all B run at once when its loop is over), then ends
# them.  Its loop forks nothing else (no command substitution).
bash -c 'echo $$ >"$1/cgroup.procs" || exit 1
  kids=()
  for ((i = 0; i < $2; i++)); do sleep 3600 & kids+=($!); done
  kill "${kids[@]}"
  wait
  exit 0' burst "$parent/p" "$B"
ok $? "a process in $run/p started $B children at once and ended them"
wait_reads 2 "$dir" "$inst" count-pids
n=$(csv_last "$dir" "$inst" count-pids)
[ "$n" = $((K - GONE)) ]
ok $? "count-pids $n = $K - $GONE after the burst"
peak_is $((K - GONE + 1 + B)) "after the burst ($K - $GONE + 1 + $B)"
if [ "$has_peak" = no ]; then
  ! ls "$dir/csv/testhost/joule_cgroup-$inst/" | grep -q '^count-pids_peak-'
  ok $? "$(uname -r) has no pids.peak: no count-pids_peak"
fi
stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag
tap_done
