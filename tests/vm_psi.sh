#!/usr/bin/env bash
# The pressure stall totals carry what the kernel's averages say (make
# check-vm: real PSI).  Two busy loops share one CPU in a cgroup, so that
# one of them always waits: a steady cpu "some" pressure near 100 %.  The
# plugin sends the totals (derive-cpu_some_stall_usec, the default) and,
# asked by Values, the kernel's own averages (load-cpu_some: avg10 avg60
# avg300).  From the totals alone, the test rebuilds the averages the way
# the kernel makes them: every interval, avg = avg x e^(-dt/T) + share x
# (1 - e^(-dt/T)) with T 10, 60 or 300 s, the share being the stalled part
# of the interval, starting from the kernel's first figure.  The kernel
# updates its averages every 2 s, so at a read its figure is the one of up
# to 2 s before: it must lie between the rebuilt average of 2 s before and
# that of the read, within 1 %.  And the share of stalled time over any
# window, the PromQL rate(...[1m]) / 1e4 of docs/fleet.md, is the window's
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
# Rebuilt averages at every read, from the first read's kernel figures.
taus = (10, 60, 300)
pred = [list(rows[0][2:])]
for (t0, s0, *_), (t1, s1, *_) in zip(rows, rows[1:]):
    share = 100 * (s1 - s0) / ((t1 - t0) * 1e6)
    pred.append([a * math.exp(-(t1 - t0) / tau) + share * (1 - math.exp(-(t1 - t0) / tau))
                 for a, tau in zip(pred[-1], taus)])
worst = [0, 0, 0]
bad = 0
for i in range(3, len(rows)):
    t = rows[i][0]
    j = max(k for k in range(i + 1) if rows[k][0] <= t - 2)  # a read 2 s before
    for w in range(3):
        lo, hi = sorted((pred[j][w], pred[i][w]))
        k = rows[i][2 + w]
        off = max(lo * 0.99 - k, k - hi * 1.01, 0)
        worst[w] = max(worst[w], off)
        bad += off > 0.01
window = 100 * (rows[-1][1] - rows[-11][1]) / ((rows[-1][0] - rows[-11][0]) * 1e6)
print("reads %d, last kernel avg10/avg60/avg300 %.2f %.2f %.2f, rebuilt %.2f %.2f %.2f, "
      "worst outside [2 s before, now] +-1 %%: %.3f %.3f %.3f points, last 10 s from the totals %.2f %%"
      % (len(rows), *rows[-1][2:], *pred[-1], *worst, window))
sys.exit(1 if bad or window < 90 else 0)
PY
)
status=$?
[ "$status" -eq 0 ]
ok $? "avg10, avg60 and avg300 follow from the stall totals within 1 %: $out"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no WARNING or ERROR"
tap_done
