#!/usr/bin/env bash
# Soak: the real collectd with the plugin on the real kernel while cgroups
# are created and removed, in three runs that each measure what they can
# measure honestly.  They count reads and cgroups (the third paces its jobs
# by the clock, and checks no time): a loaded machine makes them slower,
# not red.
#
# 1. Under valgrind memcheck, at Interval 0.1 with NotifyEnd true, until
#    300 reads are done, every other cgroup with a process of 0.2 s in it
#    (so the end path runs under valgrind too: the watch on cgroup.events,
#    populated 1 then 0, the final read at once, the record; each such
#    cgroup is removed only once its record is in the log): zero invalid
#    accesses, zero bytes definitely or indirectly lost, one NotifyEnd
#    record per cgroup that ended, none lost, the plugin's descriptors the
#    same after warm-up and at the end.  (Not RSS: valgrind's own
#    bookkeeping grows with every allocation.)
# 2. Without valgrind: cgroups made and removed in batches, each batch
#    read twice, and collectd's heap in use after a warm-up compared with
#    its heap after SOAK_CGROUPS more cgroups, each once collectd's writers
#    have caught up.  A PreCache rule keeps their values out of collectd's
#    cache, so what grows is the plugin's.  The heap in use is counted by
#    tests/heapcount.c (preloaded), not read off RSS: RSS is the heap's
#    high-water mark, and a loaded machine, whose writer threads fall
#    behind for a moment, raises it for good with collectd's own backlog
#    (+548 kB once under two busy loops).  A leak of one allocation (32
#    bytes or more) per cgroup would add SOAK_CGROUPS x 32 bytes; the bound
#    is half of that.
# 3. Without valgrind: jobs that end, 10 a second for SOAK_END_SECONDS
#    (60; the issue's 10 minutes with SOAK_END_SECONDS=600), each a cgroup
#    with a process of 50 ms, removed 20 ms after `populated 0` (the
#    final figures' path: inotify, a watch per cgroup, the read at once):
#    the watches on cgroup.events as many after as before, the plugin's
#    descriptors on the tree too, the heap in use within 256 kB of what it
#    was after the first 100 jobs, and no WARNING.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "valgrind" -- command -v valgrind
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
: "${SOAK_READS:=300}" "${SOAK_CGROUPS:=8000}" "${SOAK_END_SECONDS:=60}"

make_run_parent joule-soak

reads() { csv_reads "$1"; }
reads_at_least() { [ "$(reads "$1")" -ge "$2" ]; }
# after_reads DIR N: waits until the plugin has read N more times.
after_reads() { wait_until reads_at_least "$1" $(($(reads "$1") + $2)); }
rss_of() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
# The heap collectd has in use, in kB (tests/heapcount.c, preloaded with
# COLLECTD_ENV as heap_env sets it; it writes the count every 100 ms).
heapcount=$T/heapcount.so
cc -shared -fPIC -O2 -o "$heapcount" "$top_srcdir/tests/heapcount.c" -lpthread
ok $? "tests/heapcount.c built: collectd's heap in use is counted, not its RSS"
heap_env() { COLLECTD_ENV=(env MALLOC_ARENA_MAX=1 "HEAPCOUNT_FILE=$1/heap" "LD_PRELOAD=$heapcount"); }
heap_of() { awk '{ print int($1 / 1024) }' "$1/heap"; }

# --- 1. valgrind ----------------------------------------------------------------
dir="$T/valgrind"
JC_INTERVAL=0.1 write_conf "$dir" "  CgroupRoot \"$mnt\"
  Select \"$run/**\"
  Collect \"cpu\" \"pressure\"
  NotifyEnd true"
valgrind --leak-check=full --show-leak-kinds=definite,indirect \
  --errors-for-leak-kinds=definite,indirect --log-file="$dir/valgrind.txt" \
  "$COLLECTD_BIN" -f -C "$dir/collectd.conf" >"$dir/collectd.out" 2>&1 &
vg_pid=$!
COLLECTD_PIDS+=("$vg_pid")

# settle: no churn cgroup left, and two reads of the empty parent, so that
# descriptor counts compare like with like.
settle() {
  empty_run_parent
  after_reads "$1" 2
}

# The churn: a new cgroup per step (every fourth with a child, every
# other one with a process of 0.2 s), the one made four steps earlier
# removed (once empty and its record logged), until the reads are done.
ended_record() { grep -q "plugin_instance = ${run}_$1, type = cgroup, type_instance = emptied" "$dir/collectd.log"; }
empty() { grep -qx 'populated 0' "$parent/$1/cgroup.events"; }
# finish FROM TO: each of sFROM..sTO that had a process is empty and its
# record logged.
finish() {
  local k
  for ((k = $1; k <= $2; k++)); do
    [ $((k % 2)) -eq 0 ] && [ -d "$parent/s$k" ] && wait_until empty "s$k" && wait_until ended_record "s$k"
  done
  return 0
}
warm=$((SOAK_READS / 5))
i=0 fds_warm= populated=0
wait_until reads_at_least "$dir" 2 # past init: every churn cgroup is new to it
while [ "$(reads "$dir")" -lt "$SOAK_READS" ] && [ $i -lt 5000 ] && kill -0 "$vg_pid" 2>/dev/null; do
  i=$((i + 1))
  mkdir "$parent/s$i"
  [ $((i % 4)) -eq 0 ] && mkdir "$parent/s$i/inner"
  if [ $((i % 2)) -eq 0 ]; then
    bash -c 'echo $$ >"$1/cgroup.procs" && exec sleep 0.2' job "$parent/s$i" &
    populated=$((populated + 1))
  fi
  old=$((i - 4))
  if [ $old -gt 0 ]; then
    finish "$old" "$old"
    rmdir "$parent/s$old/inner" 2>/dev/null
    [ ! -d "$parent/s$old" ] || rmdir "$parent/s$old" # (gone with the warm-up's settle)
  fi
  if [ -z "$fds_warm" ] && [ "$(reads "$dir")" -ge "$warm" ]; then
    finish $((i - 3)) "$i"
    settle "$dir"
    fds_warm=$(plugin_fds "$vg_pid")
  fi
  sleep 0.1
done
finish $((i - 3)) "$i"
settle "$dir"
fds_end=$(plugin_fds "$vg_pid")
n_reads=$(reads "$dir")
kill -TERM "$vg_pid"
wait "$vg_pid"

[ "$n_reads" -ge "$SOAK_READS" ]
ok $? "valgrind: $n_reads reads with $i cgroups created and removed"
records=$(grep -c "plugin_instance = ${run}_s[0-9]*, type = cgroup, type_instance = emptied" "$dir/collectd.log" || true)
removals=$(grep -c "plugin_instance = ${run}_s[0-9]*, type = cgroup, type_instance = removed" "$dir/collectd.log" || true)
[ "$records" -eq "$populated" ] && [ "$removals" -eq "$populated" ] && [ "$populated" -gt 0 ] &&
  ! grep -q 'removed before .* final figures could be read' "$dir/collectd.log"
ok $? "valgrind: the end path ran: $records NotifyEnd records \"emptied\" for the $populated cgroups that had a process and ended, then $removals \"removed\" when they went, none lost"
grep -q 'ERROR SUMMARY: 0 errors' "$dir/valgrind.txt"
ok $? "valgrind: no invalid access ($(grep -o 'ERROR SUMMARY: [0-9]* errors' "$dir/valgrind.txt"))"
grep -q 'definitely lost: 0 bytes' "$dir/valgrind.txt" && grep -q 'indirectly lost: 0 bytes' "$dir/valgrind.txt"
ok $? "valgrind: 0 bytes definitely or indirectly lost"
grep -E 'definitely lost|indirectly lost' "$dir/valgrind.txt" | sed 's/^==[0-9]*== *//' | diag
[ -n "$fds_warm" ] && [ "$fds_end" -eq "$fds_warm" ]
ok $? "valgrind: descriptors on the cgroup tree flat: $fds_warm after warm-up, $fds_end at the end"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "valgrind: no WARNING or ERROR from the plugin"

# --- 2. RSS without valgrind ---------------------------------------------------------
dir="$T/rss"
JC_INTERVAL=0.1 write_conf "$dir" "  CgroupRoot \"$mnt\"
  Select \"$run/**\"
  Collect \"cpu\" \"pressure\"" "LoadPlugin match_regex
<Chain \"PreCache\">
  <Rule \"churn_stays_out_of_the_cache\">
    <Match \"regex\">
      PluginInstance \"^$run\"
    </Match>
    Target \"stop\"
  </Rule>
</Chain>"
heap_env "$dir"
start_collectd "$dir"
wait_until reads_at_least "$dir" 2

batch=100
# churn N: N cgroups in batches; each batch exists for two reads, then goes.
churn() {
  local k b names
  for ((k = 0; k < $1 / batch; k++)); do
    names=()
    for ((b = 0; b < batch; b++)); do names+=("$parent/b$k-$b"); done
    mkdir "${names[@]}"
    after_reads "$dir" 2
    rmdir "${names[@]}"
    after_reads "$dir" 2
  done
}
# settled_heap: collectd's heap in use once the churn is over and its
# writers have caught up (a loaded host leaves lists queued for the csv
# and write_log threads, which is collectd's memory, not the plugin's):
# the least of five readings, APART reads apart, after QUIET quiet reads
# (default 10 and 2).
settled_heap() {
  local i r least=
  after_reads "$dir" "${1:-10}"
  for i in 1 2 3 4 5; do
    sleep 0.2 # a count written after the last read
    r=$(heap_of "$dir")
    [ -z "$least" ] || [ "$r" -lt "$least" ] && least=$r
    after_reads "$dir" "${2:-2}"
  done
  echo "$least"
}
warm_cgroups=3000
churn "$warm_cgroups" # warm-up: the heap reaches its working size
heap_warm=$(settled_heap) rss_warm=$(rss_of "$COLLECTD_PID")
fds_warm=$(plugin_fds "$COLLECTD_PID")
churn "$SOAK_CGROUPS"
heap_end=$(settled_heap) rss_end=$(rss_of "$COLLECTD_PID")
fds_end=$(plugin_fds "$COLLECTD_PID")
n_reads=$(reads "$dir")
stop_collectd

bound=$((SOAK_CGROUPS * 32 / 2 / 1024))
growth=$((heap_end - heap_warm))
[ "$growth" -le "$bound" ]
ok $? "heap in use: $heap_warm kB after $warm_cgroups cgroups, $heap_end kB after $SOAK_CGROUPS more ($growth kB; a 32-byte leak per cgroup would add $((SOAK_CGROUPS * 32 / 1024)) kB, bound $bound kB; $n_reads reads)"
echo "RSS (the heap's high-water mark, for the record): $rss_warm kB, then $rss_end kB" | diag
[ "$fds_end" -eq "$fds_warm" ]
ok $? "heap run: descriptors on the cgroup tree flat ($fds_warm, $fds_end)"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "heap run: no WARNING or ERROR from the plugin"

# --- 3. jobs that end -------------------------------------------------------------
dir="$T/ended"
JC_INTERVAL=1 write_conf "$dir" "  CgroupRoot \"$mnt\"
  Select \"$run/*\"
  Collect \"cpu\"
  NotifyEnd true"
heap_env "$dir"
start_collectd "$dir"
mkdir "$parent/clock"
wait_until _csv_has 2 "$dir" "${run}_clock" ps_cputime
# watches PID: inotify watches the process holds (fdinfo "inotify wd:" lines).
watches() {
  local f n=0
  for f in /proc/"$1"/fdinfo/*; do n=$((n + $(grep -c '^inotify wd:' "$f" 2>/dev/null || true))); done
  echo "$n"
}
# jobs N: N jobs, 10 a second, each removed 20 ms after it is empty.
jobs() {
  python3 - "$parent" "$1" <<'PY'
import os, sys, time
parent, n = sys.argv[1], int(sys.argv[2])
start = time.monotonic()
for i in range(n):
    cg = "%s/j%d" % (parent, i)
    os.mkdir(cg)
    pid = os.fork()
    if pid == 0:  # waits in the cgroup until it is killed
        time.sleep(60)
        os._exit(0)
    with open(cg + "/cgroup.procs", "w") as f:
        f.write(str(pid))
    time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    for _ in range(500):  # empty: gone within 5 s
        if "populated 0" in open(cg + "/cgroup.events").read():
            break
        time.sleep(0.01)
    time.sleep(0.02)
    os.rmdir(cg)
    time.sleep(max(0, start + (i + 1) / 10 - time.monotonic()))
PY
}
jobs 100
heap_warm=$(settled_heap 2 1) fds_warm=$(plugin_fds "$COLLECTD_PID") w_warm=$(watches "$COLLECTD_PID")
jobs $((SOAK_END_SECONDS * 10))
heap_end=$(settled_heap 2 1) fds_end=$(plugin_fds "$COLLECTD_PID") w_end=$(watches "$COLLECTD_PID")
ended=$(grep -c 'type = cgroup, type_instance = removed' "$dir/collectd.log" || true)
stop_collectd
[ "$w_end" -eq "$w_warm" ] && [ "$fds_end" -eq "$fds_warm" ]
ok $? "jobs that end: $((SOAK_END_SECONDS * 10)) more in $SOAK_END_SECONDS s; inotify watches $w_warm, then $w_end; descriptors on the tree $fds_warm, then $fds_end"
[ $((heap_end - heap_warm)) -le 256 ]
ok $? "jobs that end: heap in use $heap_warm kB after 100 jobs, $heap_end kB after $((SOAK_END_SECONDS * 10)) more; $ended NotifyEnd \"removed\" notifications for $((100 + SOAK_END_SECONDS * 10)) jobs"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "jobs that end: no WARNING or ERROR from the plugin"
tap_done
