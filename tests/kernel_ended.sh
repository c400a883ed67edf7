#!/usr/bin/env bash
# Final figures on the real kernel (docs/metrics.md, final figures):
# collectd reads at Interval 10 while jobs of 50 to 500 ms of busy CPU
# each run in a cgroup of their own below the run's parent, one at a time,
# most of them starting and ending between two reads.
#   1. ENDED_JOBS (100) jobs, each cgroup removed by a remover that waits
#      for `populated 0` as systemd does (told by inotify), and removes
#      it 20 ms later (systemd first handles the unit's stop): every job
#      is reported, its last ps_cputime within 2 % (+1 ms) of the CPU time
#      the job's process used (its own rusage, from wait4), and NotifyEnd
#      gives one notification per job;
#   2. as many jobs whose remover races (rmdir at once, in a loop): the
#      fraction caught is printed, and each of the others is counted in
#      the INFO lines ("N cgroups emptied and were removed before ...").
# No ERROR or WARNING; collectd's descriptors on the tree the same after.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_collectd
need "python3" -- command -v python3
: "${ENDED_JOBS:=100}"
grep -q '^model name.*QEMU Virtual CPU' /proc/cpuinfo && ENDED_JOBS=40

make_run_parent joule-ended
hand_down_controllers
mkdir "$parent/clock" # lives throughout: one csv line per read
dir="$T/ended"
JC_INTERVAL=10 start_watching "$dir" "$run/*" '"cpu"' "  NotifyEnd true"
wait_until _csv_has 1 "$dir" "${run}_clock" ps_cputime
ok $? "collectd runs with NotifyEnd true at Interval 10" || tap_done
fds_start=$(plugin_fds "$COLLECTD_PID")

# jobs MODE PREFIX: runs the jobs; prints "name cpu_usec" per job.
jobs() {
  python3 - "$parent" "$1" "$2" "$ENDED_JOBS" <<'PY'
import ctypes, os, select, sys, time, threading
parent, mode, prefix, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
out, lock = [], threading.Lock()
libc = ctypes.CDLL(None, use_errno=True)
IN_MODIFY, IN_NONBLOCK = 0x2, 0o4000

def busy(ms):
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        pass

def populated(cg):
    try:
        with open(cg + "/cgroup.events") as f:
            return "populated 1" in f.read()
    except OSError:
        return False

# As systemd does: told by inotify that cgroup.events changed, it looks
# until the cgroup is empty (bounded: 50 s).
def wait_empty(cg, ifd, wd):
    deadline = time.monotonic() + 50
    while populated(cg) and time.monotonic() < deadline:
        select.select([ifd], [], [], 1.0)
        try:
            os.read(ifd, 4096)
        except BlockingIOError:
            pass

def job(i):
    cg = "%s/%s%03d" % (parent, prefix, i)
    os.mkdir(cg)
    ms = 50 + (i * 37) % 451
    ifd = libc.inotify_init1(IN_NONBLOCK)
    wd = libc.inotify_add_watch(ifd, (cg + "/cgroup.events").encode(), IN_MODIFY)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(w)
            os.read(r, 1)  # moved into the cgroup by now
            busy(ms)
        finally:
            os._exit(0)
    os.close(r)
    with open(cg + "/cgroup.procs", "w") as f:  # as systemd places a unit's process
        f.write(str(pid))
    os.write(w, b"x")
    os.close(w)
    if mode == "wait":
        wait_empty(cg, ifd, wd)
        time.sleep(float(os.environ.get("ENDED_DELAY", "0.02")))  # the unit's own stop
    _, _, ru = os.wait4(pid, 0)
    for _ in range(100000):  # rmdir as soon as it is empty, bounded
        try:
            os.rmdir(cg)
            break
        except OSError:
            if mode == "wait":
                time.sleep(0.001)
    os.close(ifd)
    with lock:
        out.append("%s%03d %d" % (prefix, i, round((ru.ru_utime + ru.ru_stime) * 1e6)))

for i in range(n):
    job(i)
print("\n".join(sorted(out)))
PY
}

# last_cpu NAME: user + syst of the last ps_cputime line of a job, or "".
last_cpu() {
  local f
  f=$(ls "$dir/csv/testhost/joule_cgroup-${run}_$1"/ps_cputime-* 2>/dev/null | tail -n 1)
  [ -n "$f" ] && tail -n 1 "$f" | awk -F, '{ printf "%.0f\n", $2 + $3 }'
}

jobs wait job >"$T/wait.txt"
ok $? "$ENDED_JOBS jobs, each cgroup removed once it is empty"
reported=0 worst=0 missing=
while read -r name used; do
  got=$(last_cpu "$name")
  if [ -z "$got" ]; then missing="$missing $name"; continue; fi
  off=$(awk -v g="$got" -v u="$used" 'BEGIN { d = g - u; if (d < 0) d = -d; print (d <= 0.02 * u + 1000) ? d : -1 }')
  rel=$(awk -v g="$got" -v u="$used" 'BEGIN { printf "%.2f", 100 * (g - u) / u }')
  echo "$name $used $got $rel" >>"$T/cmp.txt"
  [ "$off" = -1 ] && { echo "$name: cgroup $got µs, rusage $used µs" | diag; missing="$missing $name"; continue; }
  reported=$((reported + 1))
  worst=$(awk -v a="$worst" -v b="$off" 'BEGIN { print (b > a) ? b : a }')
done <"$T/wait.txt"
[ "$reported" -eq "$ENDED_JOBS" ]
ok $? "every job reported with its CPU time: $reported of $ENDED_JOBS within 2 % + 1 ms of its rusage (worst $worst µs off)${missing:+; not:$missing}"
notes=$(grep -c 'type_instance = ended' "$dir/collectd.log" || true)
[ "$notes" -eq "$ENDED_JOBS" ]
ok $? "NotifyEnd: $notes notifications for $ENDED_JOBS jobs"
grep -m 1 'type_instance = ended' "$dir/collectd.log" | diag

wait_reads 1 "$dir" "${run}_clock" ps_cputime # the INFO of any loss so far
lost_before=$(sed -n 's/.*plugin: \([0-9]*\) cgroups\{0,1\} emptied and w.* removed before.*/\1/p' "$dir/collectd.log" | awk '{ s += $1 } END { print s + 0 }')
jobs race fast >"$T/race.txt"
ok $? "$ENDED_JOBS jobs, each cgroup removed at once"
# The INFO of the losses comes with the next read.
wait_reads 1 "$dir" "${run}_clock" ps_cputime
# Caught: its last figures are its final ones (a read that fell while it
# ran does not count: it was lost all the same, and counted).
caught=0
while read -r name used; do
  got=$(last_cpu "$name")
  [ -n "$got" ] && awk -v g="$got" -v u="$used" 'BEGIN { d = g - u; if (d < 0) d = -d; exit !(d <= 0.02 * u + 1000) }' &&
    caught=$((caught + 1))
done <"$T/race.txt"
lost=$(sed -n 's/.*plugin: \([0-9]*\) cgroups\{0,1\} emptied and w.* removed before.*/\1/p' "$dir/collectd.log" | awk '{ s += $1 } END { print s + 0 }')
lost=$((lost - lost_before))
[ $((caught + lost)) -eq "$ENDED_JOBS" ]
ok $? "a remover that races: $caught of $ENDED_JOBS caught ($((100 * caught / ENDED_JOBS)) %), the $lost others counted in the INFO lines"

fds_end=$(plugin_fds "$COLLECTD_PID")
stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING from the plugin"
[ "$fds_end" -le "$fds_start" ]
ok $? "collectd's descriptors on the tree: $fds_start before the jobs, $fds_end after"
grep -E '^\[(error|warning|info)\] joule_cgroup' "$dir/collectd.log" | tail -n 5 | diag
tap_done
