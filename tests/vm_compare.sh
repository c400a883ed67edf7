#!/usr/bin/env bash
# joule-cgroup compare and the budgets with every controller (make
# check-vm).  compare of a program that writes to 64 MiB against one that
# writes to 128 MiB (tests/memhog.c, 5 runs each): B's memory peak 2x A's
# (within 5 %), significantly more; run --max memory and io over and
# under, against what memhog and dd did; the A/B example of
# docs/profiler.md, its own fence as written, with the memory of each
# implementation: its summary and a JSON excerpt are printed, and with
# JC_SHOW_PICTURE=1 its picture (docs/profiler-ab.svg comes from there).
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
need "python3" -- command -v python3
need_kernel
need_controllers memory io
need_memhog
need_disk
MIB=1048576

make_run_parent vm-compare
hand_down_controllers

# --- 64 MiB against 128 MiB ----------------------------------------------------
"$JC" compare --root "$parent" --iterations 5 --output "$T/mem.json" \
  -- "$HOG" --hold-ms 200 64 -- "$HOG" --hold-ms 200 128 >/dev/null 2>"$T/err"
ok $? "compare -- memhog 64 -- memhog 128: status 0"
grep -v '^joule-cgroup: energy: ' "$T/err" | diag
check_json "B's memory peak is 2x A's (within 5 %), significantly more" "$T/mem.json" '
q = r["ratios"][0]["figures"]["memory_peak_bytes"]
a = r["commands"][0]["figures"]["memory_peak_bytes"]
b = r["commands"][1]["figures"]["memory_peak_bytes"]
print("A %.1f MiB, B %.1f MiB (means): B/A %.4f (%.4f-%.4f)" % (
      a["mean"] / 2**20, b["mean"] / 2**20, q["ratio"], q["low"], q["high"]))
assert abs(q["ratio"] - 2) <= 0.1 and q["significant"] and q["low"] > 1.8, q
assert a["min"] >= 64 * 2**20 and b["min"] >= 128 * 2**20, (a, b)'

# --- budgets of memory and io ------------------------------------------------------
max_run() { # max_run NAME SPEC -- CMD...: $status, $T/NAME.err and .json
  local name=$1 spec=$2; shift 2
  "$JC" run --root "$parent" --max "$spec" --output "$T/$name.json" "$@" \
    >/dev/null 2>"$T/$name.err"
  status=$?
}
max_run mem_over memory=100MiB -- "$HOG" --hold-ms 100 128
[ "$status" -eq 122 ] && grep -Eq '^joule-cgroup: over budget: memory 12[89]\.[0-9] MiB > 100\.0 MiB, by 2[89]\.[0-9] MiB \(\+2[89]\.[0-9] %\)$' "$T/mem_over.err"
ok $? "--max memory=100MiB, 128 MiB written: status $status, $(grep 'over budget' "$T/mem_over.err")"
max_run mem_under memory=200MiB -- "$HOG" --hold-ms 100 128
[ "$status" -eq 0 ]
ok $? "--max memory=200MiB: within, status $status"
DD=(dd if=/dev/zero of="$VM_DISK" bs=1M count=16 oflag=direct status=none)
max_run io_over io=8MiB -- "${DD[@]}"
[ "$status" -eq 122 ] && grep -Eq '^joule-cgroup: over budget: io 16\.[0-9] MiB > 8\.0 MiB' "$T/io_over.err"
ok $? "--max io=8MiB, 16 MiB written with O_DIRECT: status $status, $(grep 'over budget' "$T/io_over.err")"
max_run io_under io=32MiB -- "${DD[@]}"
[ "$status" -eq 0 ]
ok $? "--max io=32MiB: within, status $status"

# --- the A/B example of docs/profiler.md ---------------------------------------------
mkdir "$T/ab"
docs_fence profiler.md "cat >by-sort.sh" >"$T/ab/example.sh"
sed -i "s|^joule-cgroup compare |\"$JC\" compare --root \"$parent\" |" "$T/ab/example.sh"
(cd "$T/ab" && bash example.sh 2>example.err)
status=$?
[ "$status" -eq 0 ] && [ -s "$T/ab/ab.json" ] && [ -s "$T/ab/ab.svg" ]
ok $? "the example of docs/profiler.md runs as written: status $status"
echo "# its summary:"
grep -v '^joule-cgroup: energy: ' "$T/ab/example.err" | diag
check_json "the counting phase: awk spends significantly less CPU time; both have their memory peaks" "$T/ab/ab.json" '
ph = {p["name"]: p["figures"] for p in r["ratios"][0]["phases"]}
assert ph["__COUNT__ -> END"]["cpu_seconds"]["significant"], ph
assert ph["__COUNT__ -> END"]["cpu_seconds"]["high"] < 1, ph
for c in r["commands"]:
    assert c["figures"]["memory_peak_bytes"]["min"] > 0, c["figures"]
# the excerpt docs/profiler.md shows
def short(x):
    return {k: v for k, v in x.items() if k != "values"} if isinstance(x, dict) else x
ex = {"commands": [{"label": c["label"], "command": c["command"], "runs": c["runs"],
                    "figures": {k: short(c["figures"][k]) for k in ("cpu_seconds", "memory_peak_bytes")}}
                   for c in r["commands"]],
      "ratios": [{"label": "B", "against": "A",
                  "figures": {k: r["ratios"][0]["figures"][k] for k in ("wall_seconds", "cpu_seconds", "memory_peak_bytes")},
                  "phases": [{"name": p["name"], "figures": {"cpu_seconds": p["figures"]["cpu_seconds"]}}
                             for p in r["ratios"][0]["phases"]]}]}
print("the JSON, in part:")
print(json.dumps(ex, indent=2))'
docs_fence profiler.md "--max cpu=10s" >"$T/ab/budget.sh"
sed -i "s|^joule-cgroup run |\"$JC\" run --root \"$parent\" |" "$T/ab/budget.sh"
(cd "$T/ab" && bash budget.sh >budget.out 2>budget.err)
grep -q '^status 122$' "$T/ab/budget.out" &&
  [ "$(grep -c 'over budget' "$T/ab/budget.err")" -eq 1 ] &&
  grep -q '^joule-cgroup: over budget: energy: not measured on this host, so not within 40 J$' "$T/ab/budget.err"
ok $? "the budget example of docs/profiler.md: $(cat "$T/ab/budget.out"), only energy over (a VM has no RAPL)"
diag <"$T/ab/budget.err"

# The VM sees the build tree read-only: JC_SHOW_PICTURE=1 prints the
# picture into the log, its lines as "# svg: ..." (docs/profiler.md's).
if [ -n "${JC_SHOW_PICTURE:-}" ]; then
  sed 's/^/# svg: /' "$T/ab/ab.svg"
fi
check_json "its picture: memory curves in both strips, the phases banded" "$T/ab/ab.json" '
import xml.etree.ElementTree as ET
svg = ET.parse(args[0]).getroot()
NS = "{http://www.w3.org/2000/svg}"
curves = [e.get("data-curve") for e in svg.iter(NS + "path")]
assert curves.count("memory.current") == 2 and curves.count("the command") == 2, curves
assert len([e for e in svg.iter(NS + "rect") if e.get("class") == "phase"]) == 2 * 2 * 3' "$T/ab/ab.svg"

[ -z "$(find "$parent" -mindepth 1 -type d)" ]
ok $? "nothing is left under $parent"
tap_done
