#!/usr/bin/env bash
# joule-cgroup run on the real kernel: CMD runs in a fresh cgroup from its
# first instruction (its own /proc/self/cgroup says so), everything it
# forks is accounted, the report is one JSON document with the command's
# exit status, wall time, CPU and (where the controllers are) memory and
# I/O, and the cgroup is gone afterwards.  Signals are forwarded, --keep
# keeps the cgroup, --output writes the report to a file.
# Everything lives under a parent named for this run, removed at the end.
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
need "python3" -- command -v python3
need_kernel
need "bash with EPOCHREALTIME" -- bash -c 'test -n "$EPOCHREALTIME"'

make_run_parent joule-clitest
# The controllers the mount hands to us, handed on to the runs' cgroups
# (a unified host; on a hybrid one there are none).
for c in $(cat "$parent/cgroup.controllers"); do
  echo "+$c" >"$parent/cgroup.subtree_control" 2>/dev/null
done

# A shell busy loop of $1 µs of wall time, as a bash function text.
BUSY='busy() { local end=$(( ${EPOCHREALTIME/./} + $1 )); while (( ${EPOCHREALTIME/./} < end )); do :; done; }'
# `times` prints user and system time of the shell and of its children:
# the CPU the workload itself was charged, whatever the machine's load.
CPU_OF_TIMES='import re, sys
t = [float(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", open(sys.argv[1]).read())]
print(round(sum(t), 3))'

# field REPORT EXPR: a value of the report, as Python prints it.
field() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

# busy_check NAME REPORT OWN-CPU-SECONDS: the report's CPU figures against
# the CPU time the workload's processes were charged by the kernel (bash's
# `times`), an independent figure that holds however loaded the machine
# is: usage within 10 %, and cores busy = that CPU time / wall time.
busy_check() {
  local name=$1 report=$2 own=$3 cores wall usage want
  usage=$(field "$report" 'r["cpu"]["usage_usec"] / 1e6')
  awk -v u="$usage" -v o="$own" 'BEGIN { d = u - o; if (d < 0) d = -d; exit !(d <= 0.1 * o + 0.05) }'
  ok $? "$name: usage ${usage} s = the workload's own CPU time ${own} s (±10%)"
  cores=$(field "$report" 'r["cpu"]["cores_busy"]')
  wall=$(field "$report" 'r["wall_seconds"]')
  want=$(awk -v c="$own" -v w="$wall" 'BEGIN { printf "%.3f", c / w }')
  awk -v c="$cores" -v w="$want" 'BEGIN { d = c - w; if (d < 0) d = -d; exit !(d <= 0.1 * w + 0.05) }'
  ok $? "$name: cores busy $cores = own CPU / wall = $want (±10%; load $(cut -d' ' -f1 /proc/loadavg))"
}

gone() { ! ls -d "$parent"/joule-cgroup-run-* >/dev/null 2>&1; }

# --- one busy loop of 1.5 s, exit 3 -------------------------------------------
t0=$EPOCHREALTIME
"$JC" run --root "$parent" -- bash -c "$BUSY"'
  grep "^0::" /proc/self/cgroup >"$1"
  busy 1500000
  times >"$2"
  exit 3' cmd "$T/cgroup" "$T/times" >"$T/report" 2>"$T/err"
status=$?
t1=$EPOCHREALTIME
[ "$status" -eq 3 ]
ok $? "run exits with the command's status (3): $status"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/report"
ok $? "the report is one JSON document"
diag <"$T/report"
[ "$(field "$T/report" 'r["exit_status"], r["signal"], r["command"][:2]')" = "(3, None, ['bash', '-c'])" ]
ok $? "report: exit_status 3, signal null, the command"
wall=$(field "$T/report" 'r["wall_seconds"]')
outside=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
between "$wall" 1.5 "$outside"
ok $? "wall time $wall s: at least the loop's 1.5 s, at most the $outside s the test saw"
busy_check "one busy loop" "$T/report" "$(python3 -c "$CPU_OF_TIMES" "$T/times")"
cg=$(cat "$T/cgroup")
[[ $cg == "0::/joule-clitest-$$/joule-cgroup-run-"* ]] &&
  [ "$mnt${cg#0::}" = "$(field "$T/report" 'r["cgroup"]')" ]
ok $? "the command's /proc/self/cgroup names the created cgroup ($cg)"
gone
ok $? "the cgroup is gone afterwards"
no_errors "$T/err"
ok $? "no error or warning on stderr"
cat "$T/err" | head -20 | diag

# --- children: two busy loops in the background, and wait ---------------------
"$JC" run --root "$parent" -- bash -c "$BUSY"'
  busy 1500000 & busy 1500000 & wait
  times >"$1"' cmd "$T/times" >"$T/report" 2>"$T/err"
status=$?
[ "$status" -eq 0 ] && no_errors "$T/err"
ok $? "forking command: status 0, no error or warning on stderr"
busy_check "two busy children" "$T/report" "$(python3 -c "$CPU_OF_TIMES" "$T/times")"
gone
ok $? "the cgroup is gone afterwards"

# --- without clone3: the child enters the cgroup itself before exec -------------
JOULE_CGROUP_NO_CLONE3=1 "$JC" run --root "$parent" --interval 0.05 -- \
  sh -c 'grep "^0::" /proc/self/cgroup >"$1"; exit 7' sh "$T/cgroup" >"$T/report" 2>"$T/err"
status=$?
cg=$(cat "$T/cgroup")
[ "$status" -eq 7 ] && [[ $cg == "0::/joule-clitest-$$/joule-cgroup-run-"* ]] &&
  [ "$(field "$T/report" 'r["interval"], r["exit_status"]')" = "(0.05, 7)" ] && gone
ok $? "fork fallback: status 7, in the cgroup before exec ($cg), removed"

# --- a command killed by a signal -----------------------------------------------
"$JC" run --root "$parent" -- sh -c 'kill -KILL $$' >"$T/report" 2>"$T/err"
status=$?
[ "$status" -eq 137 ] && [ "$(field "$T/report" 'r["exit_status"], r["signal"]')" = "(137, 9)" ]
ok $? "killed by SIGKILL: status 137, signal 9 in the report"

# --- SIGTERM to joule-cgroup goes to the command ---------------------------------
# wait_running: until a run's cgroup holds a process.
running() { cat "$parent"/joule-cgroup-run-*/cgroup.procs 2>/dev/null | grep -q .; }
wait_running() { wait_until running; }
start=$EPOCHREALTIME
"$JC" run --root "$parent" -- sleep 30 >"$T/report" 2>"$T/err" &
jc=$!
wait_running
kill -TERM "$jc"
wait "$jc"
status=$?
[ "$status" -eq 143 ] && [ "$(field "$T/report" 'r["exit_status"], r["signal"]')" = "(143, 15)" ] &&
  no_errors "$T/err" && gone
ok $? "SIGTERM forwarded: status $status, the report printed, the cgroup removed"
awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a < 10) }'
ok $? "... at once, not after sleep 30"

# SIGINT from another process.  A background command of a script starts
# with SIGINT ignored, and so does everything below a caller that ignored it
# (nohup, `./test.sh &`); joule-cgroup rightly keeps an ignored SIGINT
# ignored, so this run gets it at its default, whatever the test inherited.
env --default-signal=INT "$JC" run --root "$parent" -- sleep 30 >"$T/report" 2>"$T/err" &
jc=$!
wait_running
kill -INT "$jc"
wait "$jc"
status=$?
[ "$status" -eq 130 ] && [ "$(field "$T/report" 'r["signal"]')" = 2 ] && gone
ok $? "SIGINT forwarded: status $status, signal 2 in the report"

# --- the command exits, a child lives on: run waits for it ----------------------
"$JC" run --root "$parent" -- sh -c 'sleep 30 & echo $! >"$1"; exit 0' sh "$T/pid" \
  >"$T/report" 2>"$T/err" &
jc=$!
wait_until test -s "$T/pid"
sleep 0.5
kill -0 "$jc" 2>/dev/null && [ ! -s "$T/report" ]
ok $? "run waits while a child of the command is alive"
kill -TERM "$jc"
wait "$jc"
status=$?
! kill -0 "$(cat "$T/pid")" 2>/dev/null && [ "$status" -eq 0 ] &&
  [ "$(field "$T/report" 'r["exit_status"]')" = 0 ] && gone
ok $? "SIGTERM then goes to what is left; status is the command's ($status)"

# --- SIGINT reaches every process the command left behind ------------------------
# 2,000 children of a command that has exited: their pids fill more of
# cgroup.procs than one read() returns.  Each records the SIGINT it gets.
FORKER=$top_builddir/tests/forker
K=2000
if [ -x "$FORKER" ]; then
  env --default-signal=INT "$JC" run --root "$parent" --output "$T/left.json" -- \
    sh -c 'echo $$ >"$1"; exec "$2" --leave "$3" "$4"' sh "$T/cmd.pid" "$FORKER" "$T/got-sigint" "$K" \
    >"$T/left.out" 2>"$T/err" &
  jc=$!
  CLEANUPS+=("kill -KILL $jc 2>/dev/null")
  # The command has exited and run has reaped it: what is left are orphans.
  reaped() { file_has "$T/left.out" "forked $K" && [ ! -e "/proc/$(cat "$T/cmd.pid")" ]; }
  wait_until reaped
  ok $? "the command forked $K children and exited"
  left=$(cat "$parent"/joule-cgroup-run-*/cgroup.procs 2>/dev/null | wc -l)
  kill -INT "$jc"
  exited() { ! kill -0 "$jc" 2>/dev/null; }
  wait_until exited
  done_by_itself=$?
  [ "$done_by_itself" -eq 0 ] || kill -KILL "$jc"
  wait "$jc"
  status=$?
  [ "$done_by_itself" -eq 0 ] || for d in "$parent"/joule-cgroup-run-*; do kill_and_rmdir "$d"; done
  got=$(sort -u "$T/got-sigint" 2>/dev/null | wc -l)
  [ "$got" -eq "$K" ]
  ok $? "SIGINT to run: all $K processes left behind ($left in its cgroup) received it: $got"
  [ "$status" -eq 0 ] && [ "$(field "$T/left.json" 'r["exit_status"]')" = 0 ] && no_errors "$T/err" && gone
  ok $? "... and run exits with the command's status ($status), the cgroup removed"
else
  ok 1 "built tests/forker"
fi

# --- --keep and --output ------------------------------------------------------------
"$JC" run --root "$parent" --keep --output "$T/kept.json" -- sh -c 'echo hello' >"$T/out" 2>"$T/err"
status=$?
kept=$(field "$T/kept.json" 'r["cgroup"]')
[ "$status" -eq 0 ] && [ "$(cat "$T/out")" = hello ] && no_errors "$T/err" &&
  [ "$(field "$T/kept.json" 'r["kept"]')" = True ] && [ -d "$kept" ]
ok $? "--keep --output: stdout is the command's, the report in the file, $kept kept"
rmdir "$kept"

# --- memory and I/O: figures where the controllers are, null where not ---------------
"$JC" run --root "$parent" -- sh -c 'head -c 20000000 /dev/zero | tail -c 1 >/dev/null; sleep 0.3' \
  >"$T/report" 2>"$T/err"
if grep -qw memory "$parent/cgroup.subtree_control"; then
  python3 - "$T/report" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["memory"]
assert m["current"]["max"] >= m["current"]["min"] > 0, m
assert m["peak"] is None or m["peak"] >= m["current"]["max"], m
PY
  ok $? "memory: current min <= max, peak >= max"
else
  [ "$(field "$T/report" 'r["memory"], r["io"]')" = "(None, None)" ]
  ok $? "memory and io are null: no memory or io controller here (hybrid host)"
fi
# null_noted REPORT WHY: a note for each null figure of memory and io,
# naming its controller and saying WHY (a Python format of the controller
# name); none for a figure that is there.
null_noted() {
  python3 - "$1" "$2" <<'PY'
import json, sys
r, why = json.load(open(sys.argv[1])), sys.argv[2]
for key in ("memory", "io"):
    said = [n for n in r["notes"] if n.startswith('"%s" is null: ' % key)]
    assert len(said) == (r[key] is None), (key, r[key], r["notes"])
    assert not said or why.format(key) in said[0], (why.format(key), said)
PY
}
if [ -n "$(tr ' ' '\n' <"$parent/cgroup.subtree_control" | grep -xE 'memory|io')" ]; then
  noted_why="{0} controller"
else
  noted_why="the {0} controller is bound to cgroup v1 on this host (/proc/cgroups)"
fi
null_noted "$T/report" "$noted_why"
ok $? "a note for each of memory and io that is null, naming its controller: $(field "$T/report" 'r["notes"]')"
# A parent that hands nothing down: the command's cgroup has no memory
# controller, and the note says where to enable it.
mkdir "$parent/bare"
"$JC" run --root "$parent/bare" -- true >"$T/bare" 2>"$T/bare.err"
if grep -qw memory "$parent/bare/cgroup.controllers"; then
  noted_why="the {0} controller is not enabled for the children of $parent/bare, so $parent/bare/joule-cgroup-run-"
  noted_why+="$(field "$T/bare" 'r["cgroup"].rsplit("-", 1)[1]') has none; enable it with: echo \"+{0}\" > $parent/bare/cgroup.subtree_control"
fi
[ "$(field "$T/bare" 'r["memory"]')" = None ] && null_noted "$T/bare" "$noted_why"
ok $? "--root a parent that hands no controller down: memory null, the note names it and the remedy: $(field "$T/bare" 'r["notes"]')"
rmdir "$parent/bare"
# Sampled, never more often than every 0.1 s (a loaded machine may skip a
# late sample rather than catch up in a burst).
[ "$(field "$T/report" '1 <= r["samples"] <= r["wall_seconds"] / r["interval"] + 1')" = True ] &&
  no_errors "$T/err"
ok $? "a 0.3 s command is sampled, at most every 0.1 s ($(field "$T/report" 'r["samples"], r["wall_seconds"]'))"

[ -z "$(find "$parent" -mindepth 1 -type d)" ]
ok $? "nothing is left under $parent"
tap_done
