#!/usr/bin/env bash
# joule-cgroup run with every controller (make check-vm).  The command
# writes to N = 128 MiB and holds them for a while, then writes 16 MiB to
# the scratch disk with O_DIRECT: the report has memory.peak >= N MiB, the
# largest memory.current sampled >= N MiB and io write bytes = 16 MiB
# (±2 %); the cgroup is gone afterwards.  Independent source: what the
# command did (memhog's pages, dd's bytes).
# Nulls told apart (docs/report-schema.md, nulls) where every controller
# is there: without a limit, limits null and no note says a word of them
# (nor of memory or io); below a slice with memory.max 64 MiB, cpu.max
# 0.5 and pids.max 100, those three numbers and memory_high null with no
# note; the machine's cores busy never above its CPUs; sample's lines
# have no "unknown".
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
need "python3" -- command -v python3
need_kernel
need_controllers memory io
need_memhog
need_disk
N=128 W=16
MIB=1048576

make_run_parent vm-clirun
hand_down_controllers
# Held for 30 samples at the interval below: counted in samples, since the
# report must have seen the memory (the kernel's peak needs no sample).
"$JC" run --root "$parent" --interval 0.05 -- bash -c \
  '"$1" --hold-ms 1500 "$2" >/dev/null && dd if=/dev/zero of="$3" bs=1M count="$4" oflag=direct status=none' \
  run "$HOG" "$N" "$VM_DISK" "$W" >"$T/report" 2>"$T/err"
ok $? "run exits with the command's status 0"
diag <"$T/err"
# One JSON document; its figures read at once (python3 starts slowly in a VM).
figures=$(python3 -c 'import json, shlex, sys
r = json.load(open(sys.argv[1]))
m, io = r.get("memory") or {}, r.get("io") or {}
v = dict(peak=m.get("peak"), cmax=(m.get("current") or {}).get("max"),
         samples=r.get("samples"), wb=io.get("write_bytes"),
         wo=io.get("write_ops"), cg=r.get("cgroup"))
print(" ".join("%s=%s" % (k, shlex.quote(str(x))) for k, x in v.items()))' "$T/report")
ok $? "the report is one JSON document"
diag <"$T/report"
eval "$figures"
[ "${peak:-0}" -ge $((N * MIB)) ] 2>/dev/null
ok $? "memory.peak $peak >= $N MiB"
[ "${cmax:-0}" -ge $((N * MIB)) ] 2>/dev/null
ok $? "memory current max $cmax >= $N MiB ($samples samples)"
awk -v v="${wb:-0}" -v w=$((W * MIB)) 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(d <= w * 0.02) }'
ok $? "io write_bytes $wb = $W MiB ±2 % (dd wrote $((W * MIB)) with O_DIRECT)"
[ "${wo:-0}" -ge "$W" ] 2>/dev/null
ok $? "io write_ops $wo >= $W"
[ -n "${cg:-}" ] && [ ! -e "$cg" ]
ok $? "the run's cgroup $cg is gone afterwards"

# ---- nulls: none, or unknown with a note -------------------------------------
# notes_of REPORT: the notes that say a figure is null, but energy's and
# the GPUs' (the VM has neither RAPL nor a GPU).
nulls_said() {
  python3 -c 'import json, re, sys
r = json.load(open(sys.argv[1]))
print("\n".join(n for n in r["notes"] if re.match(r"\"[a-z_.]+\"( and \"[a-z_.]+\")? (is|are) null", n)
                and not n.startswith(("\"energy\"", "\"gpu\""))))' "$1"
}
cpus=$(grep -c '^processor' /proc/cpuinfo)
python3 - "$T/report" "$cpus" >"$T/py.err" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
l = r["limits"]
assert l == {"cpu_cores": None, "memory_max": None, "memory_high": None, "pids_max": None}, l
assert r["memory"] is not None and r["io"] is not None and r["global"]["io"] is not None, r
c = r["global"]["cpu"]["cores_busy"]
assert c is None or 0 <= c <= int(sys.argv[2]), c
m = r["cpu"]["cores_busy_max"]
assert 0 < m <= int(sys.argv[2]) * 1.02, m
PY
ok $? "no limit: every limit null; memory, io and the machine's io there; the machine's cores busy and the command's most within the $cpus CPUs"
diag <"$T/py.err"
[ -z "$(nulls_said "$T/report")" ]
ok $? "... and no note says a figure is null: a null limit is none"
nulls_said "$T/report" | diag

mkdir "$parent/lim"
echo 67108864 >"$parent/lim/memory.max"
echo "50000 100000" >"$parent/lim/cpu.max"
echo 100 >"$parent/lim/pids.max"
for c in cpu memory io pids; do echo "+$c" >"$parent/lim/cgroup.subtree_control"; done
"$JC" run --root "$parent/lim" -- sleep 0.3 >"$T/lim.json" 2>"$T/lim.err"
ok $? "run below a slice with memory.max 64 MiB, cpu.max 0.5 CPU, pids.max 100: status 0"
python3 -c 'import json, sys
l = json.load(open(sys.argv[1]))["limits"]
assert l == {"cpu_cores": 0.5, "memory_max": 67108864, "memory_high": None, "pids_max": 100}, l' "$T/lim.json" >"$T/py.err" 2>&1
ok $? "its limits the slice's: cpu_cores 0.5, memory_max 67108864, pids_max 100; memory_high null (none)"
diag <"$T/py.err"
[ -z "$(nulls_said "$T/lim.json")" ]
ok $? "... no note says a limit is null"
rmdir "$parent/lim"

# sample with every controller: nothing unknown, on the line or a cgroup
mkdir "$parent/s"
"$JC" sample --select "$run/*" --count 1 --interval 0.2 >"$T/sample.json" 2>"$T/sample.err"
ok $? "sample of the run's parent's children: status 0"
python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert "unknown" not in d and not any("unknown" in c for c in d["cgroups"]), d
assert any(c["cgroup"].endswith("/s") and "memory-current" in c["values"] and "disk_octets" in c["values"] for c in d["cgroups"]), d' "$T/sample.json"
ok $? "sample: memory and io of every cgroup, no \"unknown\" where every controller is there"
rmdir "$parent/s"
tap_done
