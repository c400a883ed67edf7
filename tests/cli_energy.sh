#!/usr/bin/env bash
# joule-cgroup run --phases and the host's RAPL energy, on the real kernel
# with a copy of a fixture powercap tree (a two-socket Xeon: packages with
# core and dram subzones).  A background writer advances the six
# counters, and a /proc/stat of the test's own, while the command waits
# between its markers: what it writes between two markers is what each
# phase measured, a wrap of package-0 in the middle phase included.  The
# report must hold those joules per phase and zone exactly (to the µJ of
# its six decimals), the mean power over each phase's wall time, the idle
# part E x idle / total and the command's part E x usage_usec / total
# (its usage from the kernel, in the report); phases add up to the run;
# the CSV's columns per kind of zone are the same sums.  Then the real
# /proc/stat with a busy command: the parts never exceed what was
# measured.  Then energy_uj readable by root only, for a reader without
# CAP_DAC_OVERRIDE (Linux 5.10 and later, CVE-2020-8694), and no powercap
# tree at all: the energy keys null, and exactly one line on stderr says
# why (with the udev rule for the first).
# No step waits for a time: the writer waits for the markers to come
# through (the reading at a marker is taken before its line is passed
# on), the command for the writer; every wait is bounded.
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
need "python3" -- command -v python3
need "setpriv (util-linux)" -- command -v setpriv
need_kernel

make_run_parent joule-energytest
FIXTURE=$FIXTURES/powercap/intel-xeon-2s
ZONES="intel-rapl:0 intel-rapl:0:0 intel-rapl:0:1 intel-rapl:1 intel-rapl:1:0 intel-rapl:1:1"

# tree DIR: a copy of the fixture; $pc its powercap root.
tree() {
  rm -rf "$1"
  mkdir -p "$1"
  cp -a "$FIXTURE/sys" "$1/"
  pc=$1/sys/class/powercap
}
value() { cat "$pc/$1/energy_uj"; }
range() { cat "$pc/$1/max_energy_range_uj"; }
# put ZONE UJ: energy_uj rewritten in place (run keeps it open).
put() { printf '%s\n' "$2" >"$pc/$1/energy_uj"; }
# put_stat BUSY IOWAIT IDLE: the first lines of a /proc/stat, in ticks.
put_stat() { printf 'cpu  %s 0 0 %s %s 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n' "$1" "$3" "$2" >"$T/stat"; }

# The counters' steps: what the writer adds per zone before each marker
# (µJ; "=V" sets V, a wrap when below the value before) and the stat.
R0=$(cat "$FIXTURE/sys/class/powercap/intel-rapl:0/max_energy_range_uj")
STEP=() STAT=()
STEP[1]="+12500000 +7250000 +3125000 +9750000 +4000000 +2500000"  # START -> __A__
STEP[2]="=10500000 +11000000 +1 +333333 +0 +65000000"              # __A__ -> __B__: package-0 wraps
STEP[3]="+6000001 +1000000 +1000000 +1000000 +1000000 +1000000"    # __B__ -> END
STAT[0]="10000 1000 80000"
STAT[1]="10300 1000 80100"  # 4 s of CPU time, 1 s idle
STAT[2]="10450 1010 80140"  # 2 s, 0.5 s idle (0.1 s of it iowait)
STAT[3]="10530 1010 80260"  # 2 s, 1.2 s idle

# write_step N: the counters of step N, logged to $T/values as
# "N ZONE VALUE" lines (the test computes from these), and the stat.
write_step() {
  local n=$1 i=0 z v add
  local adds=(${STEP[$n]})
  for z in $ZONES; do
    add=${adds[$i]}
    v=$(value "$z")
    case $add in
    =*) v=${add#=} ;;
    +*) v=$((v + ${add#+})) ;;
    esac
    put "$z" "$v"
    echo "$n $z $v" >>"$T/values"
    i=$((i + 1))
  done
  [ -n "${REAL_STAT:-}" ] || put_stat ${STAT[$n]}
}

# writer: reads run's output (the command's, passed on) from $T/out; at
# "ready" and each marker, the next step, then a line "go" to the command
# through $T/go, which both keep open (no end of file between two lines).
writer() {
  local line n=0
  exec 3<"$T/out"
  while read -r -t "$JC_WAIT_LIMIT" line <&3; do
    echo "$line" >>"$T/seen"
    case $line in ready | __A__ | __B__) ;; *) continue ;; esac
    [ "$n" -gt 0 ] || exec 4>"$T/go" # the command has it open: no wait
    n=$((n + 1))
    write_step "$n"
    echo go >&4
    [ "$n" -lt 3 ] || break
  done
  cat <&3 >/dev/null
}

# The command: "ready", then a marker after each go; $1 the FIFO (opened
# read-write: never blocks, never ends), $2 the microseconds of CPU to
# burn before __A__.
CMD='busy() { local end=$(( ${EPOCHREALTIME/./} + $1 )); while (( ${EPOCHREALTIME/./} < end )); do :; done; }
exec 4<>"$1"; echo ready; read -r x <&4; busy "$2"; echo __A__; read -r x <&4; echo __B__; read -r x <&4'

# scenario NAME BUSY-USEC RUN-ARGS...: one run --phases against $pc with
# the writer; the report in $T/NAME.report, stderr in $T/NAME.err.
scenario() {
  local name=$1 busy=$2; shift 2
  rm -f "$T/out" "$T/go" "$T/values" "$T/seen"
  mkfifo "$T/out" "$T/go"
  put intel-rapl:0 $((R0 - 20000000)) # 20 J below the range: a wrap to come
  for z in $ZONES; do echo "0 $z $(value "$z")" >>"$T/values"; done
  [ -n "${REAL_STAT:-}" ] || put_stat ${STAT[0]}
  writer &
  local wpid=$!
  timeout "$JC_WAIT_LIMIT" "$JC" run --root "$parent" --phases --interval 600 \
    --powercap-root "$pc" "$@" --output "$T/$name.report" \
    -- bash -c "$CMD" cmd "$T/go" "$busy" >"$T/out" 2>"$T/$name.err"
  status=$?
  wait "$wpid"
  cp "$T/values" "$T/$name.values"
}

# check_py NAME CODE [ARGS]: one test point; the code sees r (the JSON
# report of $REPORT), steps (per step, zone -> value written), RANGE.
check_py() {
  local name=$1 code=$2; shift 2
  python3 - "$REPORT" "$VALUES" "$@" >"$T/py.err" 2>&1 <<PY
import json, sys
r = json.load(open(sys.argv[1])) if sys.argv[1].endswith("report") else None
steps = {}
for line in open(sys.argv[2]):
    n, z, v = line.split()
    steps.setdefault(int(n), {})[z] = int(v)
args = sys.argv[3:]
ZONES = "$ZONES".split()
LABELS = ["package-0", "package-0-core", "package-0-dram", "package-1", "package-1-core", "package-1-dram"]
RANGE = {"intel-rapl:0": $R0, "intel-rapl:0:0": $R0, "intel-rapl:1": $R0, "intel-rapl:1:0": $R0,
         "intel-rapl:0:1": 65532610987, "intel-rapl:1:1": 65532610987}
def delta(z, a, b):
    """µJ between steps a and b, one wrap where the value went down."""
    e = 0
    for n in range(a, b):
        p, c = steps[n][z], steps[n + 1][z]
        e += c - p if c >= p else RANGE[z] - p + c
    return e
$code
PY
  ok $? "$name"
  diag <"$T/py.err"
}

# --- counters and /proc/stat written by the test -------------------------------------
tree "$T/a"
scenario phases 0 --proc-stat "$T/stat"
[ "$status" -eq 0 ] && no_errors "$T/phases.err" && [ -z "$(but_gpu "$T/phases.err")" ]
ok $? "run --phases with the writer: status $status, nothing on stderr"
diag <"$T/phases.err"
printf 'ready\n__A__\n__B__\n' | cmp -s - "$T/seen"
ok $? "the command's output came through, line by line"
REPORT=$T/phases.report VALUES=$T/phases.values
sed 's/^/# /' "$REPORT" | sed -n '/"phases"/,/"memory"/p' | head -5
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["phases"][1]; print(json.dumps({"name": p["name"], "energy": p["energy"], "global": {"energy": p["global"]["energy"]}}, indent=2))' "$REPORT" | diag

check_py "the host's joules per phase and zone: exactly what was written, the wrap counted once" '
assert [p["name"] for p in r["phases"]] == ["START -> __A__", "__A__ -> __B__", "__B__ -> END"]
w = delta("intel-rapl:0", 1, 2)
assert w == RANGE["intel-rapl:0"] - steps[1]["intel-rapl:0"] + 10500000, w
for i, p in enumerate(r["phases"]):
    for z, label in zip(ZONES, LABELS):
        got = p["global"]["energy"][label]
        want = round(delta(z, i, i + 1) / 1e6, 6)
        assert got["zone"] == z and got["energy_j"] == want, (p["name"], label, got, want)
print("package-0 over the wrap: %.6f J" % (w / 1e6))'

check_py "the run: each zone the sum of its phases, never a subzone added to its package" '
for z, label in zip(ZONES, LABELS):
    got = r["global"]["energy"][label]["energy_j"]
    assert got == round(delta(z, 0, 3) / 1e6, 6), (label, got)
    assert abs(got - sum(p["global"]["energy"][label]["energy_j"] for p in r["phases"])) < 1e-5
assert r["global"]["energy"]["package-0"]["energy_j"] == round(delta("intel-rapl:0", 0, 3) / 1e6, 6)'

check_py "watts: each zone's joules over the span's wall time" '
for s in [r] + r["phases"]:
    for label in LABELS:
        e = s["global"]["energy"][label]
        want = e["energy_j"] / s["wall_seconds"]
        assert abs(e["watts"] - want) <= 1e-3 * want + 1e-6, (label, e, s["wall_seconds"])'

# The stat steps, in µs: total and idle (+ iowait) per phase.
check_py "idle part: E x idle / total of the /proc/stat written; command: E x its usage_usec / total" '
stat = [(10000, 1000, 80000), (10300, 1000, 80100), (10450, 1010, 80140), (10530, 1010, 80260)]
for i, p in enumerate(r["phases"]):
    (b0, w0, i0), (b1, w1, i1) = stat[i], stat[i + 1]
    total = ((b1 + w1 + i1) - (b0 + w0 + i0)) * 10000
    idle = ((w1 + i1) - (w0 + i0)) * 10000
    u = p["cpu"]["usage_usec"]
    for z, label in zip(ZONES, LABELS):
        e = delta(z, i, i + 1)
        assert abs(p["global"]["energy"][label]["idle_j"] - e * idle / total / 1e6) <= 1e-6, (p["name"], label)
        got = p["energy"][label]["energy_j"]
        assert abs(got - e * u / total / 1e6) <= 1e-6, (p["name"], label, got, e * u / total / 1e6)
    print("%s: usage %d us of %d us: package-0 %.6f J of %.6f J" % (
        p["name"], u, total, p["energy"]["package-0"]["energy_j"], delta("intel-rapl:0", i, i + 1) / 1e6))'

check_py "the command's and the idle joules of the phases add up to the run's" '
for label in LABELS:
    for part in (lambda s: s["energy"][label]["energy_j"], lambda s: s["global"]["energy"][label]["idle_j"]):
        assert abs(part(r) - sum(part(p) for p in r["phases"])) <= 3e-6, label'

# --- the same in CSV: sums per kind of zone -------------------------------------------
tree "$T/b"
scenario csv 0 --proc-stat "$T/stat" --format csv
[ "$status" -eq 0 ] && [ -z "$(but_gpu "$T/csv.err")" ]
ok $? "run --phases --format csv: status $status, nothing on stderr"
REPORT=$T/csv.csv VALUES=$T/csv.values
cp "$T/csv.report" "$REPORT"
check_py "CSV: packages, cores and drams of both sockets summed per phase; no uncore, no psys: empty" '
import csv
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert [x["phase"] for x in rows] == ["START -> END", "START -> __A__", "__A__ -> __B__", "__B__ -> END"]
kinds = {"package": ["intel-rapl:0", "intel-rapl:1"], "core": ["intel-rapl:0:0", "intel-rapl:1:0"],
         "dram": ["intel-rapl:0:1", "intel-rapl:1:1"]}
for x, (a, b) in zip(rows, [(0, 3), (0, 1), (1, 2), (2, 3)]):
    for k, zs in kinds.items():
        want = sum(delta(z, a, b) for z in zs) / 1e6
        assert abs(float(x["global_energy_%s_j" % k]) - want) <= 2e-6, (x["phase"], k)
        assert float(x["proc_energy_%s_j" % k]) >= 0
    for k in ("uncore", "psys"):
        assert x["global_energy_%s_j" % k] == x["proc_energy_%s_j" % k] == "", k'

# --- the real /proc/stat, a busy command -------------------------------------------------
tree "$T/c"
REAL_STAT=1 scenario real 300000
[ "$status" -eq 0 ] && [ -z "$(but_gpu "$T/real.err")" ]
ok $? "with the real /proc/stat and 0.3 s of CPU before __A__: status $status"
REPORT=$T/real.report VALUES=$T/real.values
check_py "real /proc/stat: the command's part and the idle part within what each zone measured" '
for s in [r] + r["phases"]:
    for z, label in zip(ZONES, LABELS):
        host = s["global"]["energy"][label]["energy_j"]
        idle = s["global"]["energy"][label]["idle_j"]
        proc = s["energy"][label]["energy_j"]
        assert host is not None and idle is not None and proc is not None, (s.get("name"), label)
        assert 0 <= proc and 0 <= idle and proc + idle <= host + 2e-6, (s.get("name"), label, proc, idle, host)
a = r["phases"][0]
print("START -> __A__: cpu %d us, share of host %s; package-0 %s J, the command %s J, idle %s J" % (
    a["cpu"]["usage_usec"], a["cpu"]["share_of_host"], a["global"]["energy"]["package-0"]["energy_j"],
    a["energy"]["package-0"]["energy_j"], a["global"]["energy"]["package-0"]["idle_j"]))
assert a["energy"]["package-0"]["energy_j"] > 0, a["energy"]'

# --- energy_uj readable by root only ---------------------------------------------------------
# As Linux 5.10 and later have it for a reader that is not root: mode 0000
# for root without CAP_DAC_OVERRIDE (it still creates and removes cgroups).
tree "$T/d"
chmod 0 "$pc"/intel-rapl:*/energy_uj
setpriv --bounding-set=-dac_override,-dac_read_search \
  "$JC" run --root "$parent" --powercap-root "$pc" -- true >"$T/denied.report" 2>"$T/denied.err"
status=$?
lines=$(but_gpu "$T/denied.err" | wc -l)
[ "$status" -eq 0 ] && [ "$lines" -eq 1 ] &&
  grep -q '^joule-cgroup: energy: energy_uj of 6 of the 6 RAPL zones in .* cannot be read: Permission denied (only root may read it since Linux 5.10, CVE-2020-8694)' "$T/denied.err" &&
  grep -qF "'SUBSYSTEM==\"powercap\", ACTION==\"add\", KERNEL==\"intel-rapl:*\", RUN+=\"/bin/chgrp powercap /sys%p/energy_uj\", RUN+=\"/bin/chmod g+r /sys%p/energy_uj\"'" "$T/denied.err" &&
  grep -q "run 'udevadm trigger --subsystem-match=powercap --action=add'; their energy is not reported$" "$T/denied.err"
ok $? "energy_uj root's only: status $status, one line on stderr naming the udev rule ($lines)"
diag <"$T/denied.err"
REPORT=$T/denied.report VALUES=$T/phases.values
check_py "... and the energy keys are null, the rest of the report is there" '
assert r["energy"] is None and r["global"]["energy"] is None, r
assert r["cpu"]["usage_usec"] >= 0 and r["exit_status"] == 0'

chmod 644 "$pc"/intel-rapl:*/energy_uj
chmod 0 "$pc/intel-rapl:1/energy_uj"
setpriv --bounding-set=-dac_override,-dac_read_search \
  "$JC" run --root "$parent" --powercap-root "$pc" -- true >"$T/one.report" 2>"$T/one.err"
status=$?
[ "$status" -eq 0 ] && [ "$(but_gpu "$T/one.err" | wc -l)" -eq 1 ] && grep -q "energy_uj of 1 of the 6 RAPL zones" "$T/one.err"
ok $? "one zone root's only: one line, for that zone"
REPORT=$T/one.report
check_py "... its figures null, the other five there" '
g = r["global"]["energy"]
assert g["package-1"]["energy_j"] is None and r["energy"]["package-1"]["energy_j"] is None, g
assert all(g[l]["energy_j"] == 0 for l in LABELS if l != "package-1"), g'

# --- no powercap tree -------------------------------------------------------------------------
"$JC" run --root "$parent" --powercap-root "$T/no-powercap" -- true >"$T/absent.report" 2>"$T/absent.err"
status=$?
[ "$status" -eq 0 ] && [ "$(but_gpu "$T/absent.err" | wc -l)" -eq 1 ] &&
  grep -q "^joule-cgroup: energy: no powercap tree at $T/no-powercap (No such file or directory)" "$T/absent.err"
ok $? "no powercap tree: status $status, one line on stderr"
diag <"$T/absent.err"
REPORT=$T/absent.report
check_py "... the energy keys null" '
assert r["energy"] is None and r["global"]["energy"] is None'
"$JC" run --root "$parent" --powercap-root "$T/no-powercap" --iterations 3 -- true >"$T/absent3.report" 2>"$T/absent3.err"
[ $? -eq 0 ] && [ "$(but_gpu "$T/absent3.err" | wc -l)" -eq 1 ]
ok $? "--iterations 3 without a powercap tree: still one line"

[ -z "$(find "$parent" -mindepth 1 -type d)" ]
ok $? "nothing is left under $parent"
tap_done
