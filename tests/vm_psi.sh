#!/usr/bin/env bash
# The pressure stall totals carry what the kernel's averages say (make
# check-vm: real PSI).  Two busy loops share one CPU in a cgroup, so that
# one of them always waits: a steady cpu "some" pressure near 100 %.  The
# plugin sends the totals (derive-cpu_some_stall_usec, the default) and,
# asked by Values, the kernel's own averages (load-cpu_some: avg10 avg60
# avg300).  From the totals alone, the test rebuilds the averages the way
# the kernel makes them (kernel/sched/psi.c): at each of its updates, 2 s
# apart, avg = avg x E + pct x (1 - E), with E the fixed-point 1677, 1981
# and 2034 of 2048 and pct the stalled share of the period as a whole
# percent, rounded down.  A read triggers an update that is due, so the
# reads at which the figures change are the updates; the rebuilt chain
# starts from the kernel's own figures at the first of them.  The reads
# bracket each update within 1 s, so the chain is built twice, with pct a
# point below and a point above the share the totals give; every kernel
# figure must lie between the two, within 0.5 % and the 0.01 its two
# printed decimals drop.  And the share of stalled time over any window,
# the PromQL rate(...[1m]) / 1e4 of docs/fleet.md, is the window's
# plain average: near 100 % here.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_collectd
need "python3" -- command -v python3
need "taskset (util-linux)" -- command -v taskset
need "the cpu.pressure file (psi=1)" -- test -e "$mnt/cpu.pressure"

make_run_parent vm-psi
mkdir "$parent/busy"
cpu=$(($(nproc) - 1)) # the last CPU: collectd keeps the others
loops=()
for _ in 1 2; do
  bash -c 'echo $$ >"$1/cgroup.procs" && exec taskset -c "$2" bash -c "while :; do :; done"' \
    spin "$parent/busy" "$cpu" &
  loops+=($!)
  CLEANUPS+=("kill ${loops[-1]} 2>/dev/null")
done

dir="$T/psi"
JC_INTERVAL=1 write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/busy\"
  Collect \"cpu\" \"pressure\"
  Values \"load-cpu_some\""
start_collectd "$dir"
inst="${run}_busy"
wait_until _csv_has 2 "$dir" "$inst" load-cpu_some
ok $? "collectd sends $run/busy's cpu pressure" || tap_done
wait_reads 40 "$dir" "$inst" load-cpu_some
ok $? "40 reads under steady pressure"
stop_collectd
kill "${loops[@]}" 2>/dev/null

series() { cat "$dir/csv/testhost/joule_cgroup-$inst/$1"-[0-9]* | grep -v '^epoch'; }
series derive-cpu_some_stall_usec >"$T/total.csv"
series load-cpu_some >"$T/load.csv"
out=$(python3 - "$T/total.csv" "$T/load.csv" <<'PY'
import math, sys
# One line of each list per read, stamped when dispatched: matched by the
# nearest time (the same read is a few ms apart at most).
total = [tuple(map(float, l.strip().split(","))) for l in open(sys.argv[1])]
load = [tuple(map(float, l.strip().split(","))) for l in open(sys.argv[2])]
rows = []
for t, a10, a60, a300 in load:
    near = min(total, key=lambda r: abs(r[0] - t))
    if abs(near[0] - t) < 0.3:
        rows.append((t, near[1], a10, a60, a300))
assert len(rows) >= 30, "%d reads with both lists" % len(rows)
EXP = (1677 / 2048, 1981 / 2048, 2034 / 2048)
PERIOD = 2.004  # PSI_FREQ, 2 x HZ + 1 jiffies, HZ 250 on Debian's kernels
updates = [i for i in range(1, len(rows)) if rows[i][2:] != rows[i - 1][2:]]
assert len(updates) >= 15, "%d updates of the averages" % len(updates)
p = updates[0]
lo, hi = list(rows[p][2:]), list(rows[p][2:])
worst = [0, 0, 0]
for i in updates[1:]:
    gap = rows[i][0] - rows[p][0]
    # Periods the kernel's worker missed decay the averages with nothing.
    missed = max(0, int(gap / PERIOD + 0.25) - 1)
    share = 100 * (rows[i][1] - rows[p][1]) / ((gap - missed * PERIOD) * 1e6)
    pct = [min(100, max(0, math.floor(share + d))) for d in (-1, 1)]
    for w in range(3):
        decay = EXP[w] ** (missed + 1)
        lo[w] = lo[w] * decay + pct[0] * (1 - EXP[w])
        hi[w] = hi[w] * decay + pct[1] * (1 - EXP[w])
        k = rows[i][2 + w]
        worst[w] = max(worst[w], lo[w] * 0.995 - 0.01 - k, k - hi[w] * 1.005 - 0.01, 0)
    p = i
window = 100 * (rows[-1][1] - rows[-11][1]) / ((rows[-1][0] - rows[-11][0]) * 1e6)
print("reads %d, updates %d, last kernel avg10/avg60/avg300 %.2f %.2f %.2f, rebuilt %.2f-%.2f "
      "%.2f-%.2f %.2f-%.2f, worst outside: %.3f %.3f %.3f points, last 10 s from the totals %.2f %%"
      % (len(rows), len(updates), *rows[updates[-1]][2:], lo[0], hi[0], lo[1], hi[1], lo[2], hi[2],
         *worst, window))
sys.exit(1 if any(worst) or window < 90 else 0)
PY
)
status=$?
[ "$status" -eq 0 ]
ok $? "avg10, avg60 and avg300 follow from the stall totals as the kernel makes them: $out"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no WARNING or ERROR"
tap_done
