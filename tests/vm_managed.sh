#!/usr/bin/env bash
# The profiler lifecycle with every controller (a unified kernel: make
# check-vm runs this in a VM).  A helper process is moved into a
# <Cgroup ... Create true> cgroup, then allocates N = 128 MiB:
#   1. "joule-<pid>/job", neither level existing: the plugin creates both,
#      hands the controllers down, reports memory-current and memory-anon
#      N MiB (±10 %) above the helper's baseline and memory-peak ≥ N MiB;
#      at shutdown both levels are gone, the helper alive in the root.
#   2. "vm-parent-<pid>/job" whose parent exists and does not enable
#      memory: one ERROR line with the exact remedy; run as written, the
#      remedy makes the next start work.
# Independent source: the helper's own allocation, N MiB of pages written.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_controllers memory io pids
need_collectd
need_memhog
N=128
MIB=1048576

hogs=()
CLEANUPS+=('for h in "${hogs[@]}"; do kill -KILL "$h" 2>/dev/null; done')
# start_hog NAME: memhog waiting for SIGUSR1, pid in $hog.
start_hog() {
  "$HOG" --wait "$N" >"$T/$1.out" 2>&1 &
  hog=$!
  hogs+=("$hog")
  wait_until file_has "$T/$1.out" waiting
}
# within VALUE WANT PERCENT: |VALUE - WANT| <= PERCENT % of WANT.
within() { awk -v v="$1" -v w="$2" -v p="$3" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }'; }
mib() { awk -v v="$1" 'BEGIN { printf "%.1f MiB", v / 1048576 }'; }

# measure DIR INSTANCE LABEL: baseline, SIGUSR1, allocation, three reads;
# then the checks on memory-current, memory-anon and memory-peak.
measure() {
  local dir=$1 inst=$2 label=$3 base base_anon cur anon peak
  if [ "$moved" -ne 0 ]; then # nothing to measure: fail fast, not by timeouts
    for what in "allocated $N MiB" memory-current memory-anon memory-peak; do
      ok 1 "$label: $what (the helper never reached the cgroup)"
    done
    return
  fi
  wait_until _csv_has 1 "$dir" "$inst" memory-current
  base=$(csv_last "$dir" "$inst" memory-current)
  base_anon=$(csv_last "$dir" "$inst" memory-anon)
  kill -USR1 "$hog"
  wait_until file_has "$T/$label.out" allocated
  ok $? "$label: the helper allocated $N MiB"
  wait_reads 3 "$dir" "$inst" memory-current
  cur=$(csv_last "$dir" "$inst" memory-current)
  anon=$(csv_last "$dir" "$inst" memory-anon) ||
    ok 1 "$label: memory-anon was written (MemoryStat \"anon\" in the conf)"
  peak=$(csv_last "$dir" "$inst" memory-peak)
  within "$((${cur:-0} - ${base:-0}))" $((N * MIB)) 10
  ok $? "$label: memory-current $(mib "${cur:-0}") - baseline $(mib "${base:-0}") within 10 % of $N MiB"
  within "$((${anon:-0} - ${base_anon:-0}))" $((N * MIB)) 10
  ok $? "$label: memory-anon $(mib "${anon:-0}") - baseline $(mib "${base_anon:-0}") within 10 % of $N MiB"
  [ "${peak:-0}" -ge $((N * MIB)) ]
  ok $? "$label: memory-peak $(mib "${peak:-0}") >= $N MiB"
}

# --- 1. two levels that do not exist ------------------------------------------
top="joule-$$"
CLEANUPS+=('for d in $(find "$mnt/$top" -depth -type d 2>/dev/null); do kill_and_rmdir "$d"; done')
start_hog job
home=$(grep '^0::' "/proc/$hog/cgroup")
dir="$T/job"
write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Collect \"cpu\" \"memory\" \"io\" \"pids\" \"events\" \"pressure\"
  MemoryStat \"anon\"
  <Cgroup \"$top/job\">
    Instance \"job\"
    Create true
    AttachPid $hog
  </Cgroup>"
start_collectd "$dir"
moved_or_refused() { in_cgroup "$hog" "$1" || file_has "$dir/collectd.log" "Plugin will be unloaded"; }
wait_until moved_or_refused "/$top/job"
in_cgroup "$hog" "/$top/job"
moved=$?
ok $moved "job: the helper was moved into $top/job"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag
for c in memory io pids; do
  grep -qw "$c" "$mnt/$top/cgroup.subtree_control" 2>/dev/null
  ok $? "job: the created level $top hands \"$c\" down to job"
done
measure "$dir" job job
[ "$(csv_last "$dir" job count-pids)" = 1 ]
ok $? "job: count-pids 1 (the helper)"
stop_collectd
test ! -e "$mnt/$top/job" && test ! -e "$mnt/$top"
ok $? "job: both levels the plugin created are gone after shutdown"
kill -0 "$hog" 2>/dev/null
ok $? "job: the helper lives on"
[ "$(grep '^0::' "/proc/$hog/cgroup" 2>/dev/null)" = "$home" ]
ok $? "job: in the parent of what the plugin created ($(grep '^0::' "/proc/$hog/cgroup" 2>/dev/null))"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "job: no ERROR or WARNING"
kill -KILL "$hog"

# --- 2. a parent that does not enable memory, then the remedy ---------------------
make_run_parent vm-parent
start_hog remedy
dir="$T/refused"
block="  CgroupRoot \"$mnt\"
  ReportRoot false
  Collect \"cpu\" \"memory\"
  MemoryStat \"anon\"
  <Cgroup \"$run/job\">
    Instance \"job\"
    Create true
    AttachPid $hog
  </Cgroup>"
write_conf "$dir" "$block"
start_collectd "$dir"
wait_until file_has "$dir/collectd.log" "[error] Error: one or more plugin init"
stop_collectd
want="[error] joule_cgroup plugin: controller \"memory\" is not enabled for the children of $parent; enable it with: echo \"+memory\" > $parent/cgroup.subtree_control"
[ "$(grep -c '^\[error\] joule_cgroup plugin:' "$dir/collectd.log")" -eq 1 ] &&
  grep -qxF -- "$want" "$dir/collectd.log"
ok $? "remedy: one ERROR line, exactly: $want"
grep '^\[error\] joule_cgroup plugin:' "$dir/collectd.log" | diag
test ! -e "$parent/job"
ok $? "remedy: nothing left behind"
remedy=$(sed -n 's/^\[error\] joule_cgroup plugin: .*; enable it with: //p' "$dir/collectd.log")
sh -c "$remedy"
ok $? "remedy: ran it: $remedy"
dir="$T/remedy"
write_conf "$dir" "$block"
start_collectd "$dir"
wait_until moved_or_refused "/$run/job"
in_cgroup "$hog" "/$run/job"
moved=$?
ok $moved "remedy: the next start moved the helper into $run/job"
measure "$dir" job remedy
stop_collectd
test ! -e "$parent/job"
ok $? "remedy: $run/job is gone after shutdown"
kill -0 "$hog" 2>/dev/null
ok $? "remedy: the helper lives on"
# $run hands memory down now, so cgroup v2 keeps no process in it: the
# helper belongs in the nearest ancestor that may hold one.
where=$(sed -n 's/^0:://p' "/proc/$hog/cgroup" 2>/dev/null)
above=${where%/} # "" for the root
[ -n "$where" ] && [ "$where" != "/$run/job" ] &&
  case "/$run/job" in "$above"/*) true ;; *) false ;; esac
ok $? "remedy: in an ancestor of the removed cgroup ($where)"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "remedy: no ERROR or WARNING"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag
kill -KILL "$hog"

# --- 3. Collect "cpu" alone below a parent without memory -------------------------
# NotifyOOM (the default) reads memory.events, but nobody asked for memory
# values: the cgroup simply has no OOM notifications, and nothing is said
# above INFO.
mkdir "$parent/cpuonly"
start_hog cpuonly
dir="$T/cpuonly"
write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Collect \"cpu\"
  <Cgroup \"$run/cpuonly/job\">
    Instance \"job\"
    Create true
    AttachPid $hog
  </Cgroup>"
start_collectd "$dir"
wait_until moved_or_refused "/$run/cpuonly/job"
in_cgroup "$hog" "/$run/cpuonly/job"
ok $? "cpu only: the helper was moved into $run/cpuonly/job"
wait_reads 3 "$dir" job ps_cputime
stop_collectd
[ "$(grep -cE '^\[(error|warning|notice)\] joule_cgroup plugin:' "$dir/collectd.log")" -eq 0 ] &&
  [ -n "$(csv_last "$dir" job ps_cputime)" ]
ok $? "cpu only: reported, nothing said above INFO (NotifyOOM needs no memory values)"
grep -E '^\[(error|warning|notice)\]' "$dir/collectd.log" | diag
kill -KILL "$hog"

# --- 4. a process that allocated before it was moved ------------------------------
# cgroup v2 moves no memory charge with a process: the 64 MiB it holds
# stay with the cgroup it came from, the managed cgroup's memory-current
# stays near 0, and one INFO at the move says so, with its resident size.
"$HOG" 64 >"$T/before.out" 2>&1 &
hog=$!
hogs+=("$hog")
wait_until file_has "$T/before.out" allocated
mkdir "$parent/late"
echo "+memory" >"$parent/late/cgroup.subtree_control"
dir="$T/late"
write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Collect \"memory\"
  <Cgroup \"$run/late/job\">
    Instance \"late\"
    Create true
    AttachPid $hog
  </Cgroup>"
start_collectd "$dir"
wait_until moved_or_refused "/$run/late/job"
wait_reads 3 "$dir" late memory-current
stop_collectd
cur=$(csv_last "$dir" late memory-current)
line=$(grep "^\[info\] joule_cgroup plugin: AttachPid $hog: process $hog moved into" "$dir/collectd.log")
held=$(sed -n 's/.*; its \([0-9.]*\) MiB resident stay charged.*/\1/p' <<<"$line")
awk -v c="${cur:-x}" -v h="${held:-0}" 'BEGIN { exit !(c < 8 * 1048576 && h >= 64) }'
ok $? "allocated before the move: memory-current $(mib "${cur:-0}") in $run/late/job, and one INFO with its ${held:-?} MiB resident: $line"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag
kill -KILL "$hog"
tap_done
