#!/usr/bin/env bash
# gpu_real.sh — Collect "gpu" on a real NVIDIA GPU, against NVIDIA's own
# figures (not in CI: it needs a GPU, its driver and root; about a minute).
#
#   tests/gpu_real.sh            (as root, from the source tree)
#
# It builds `joule-cgroup` (or takes $JOULE_CGROUP) and tests/gpu_alloc.c,
# makes two cgroups below /sys/fs/cgroup/jc-gpu-real (a and b), starts in
# each a process that makes a CUDA context on GPU 0 and allocates a known
# amount (a: $A_MIB MiB, kept busy; b: $B_MIB MiB, idle), and samples them
# with `joule-cgroup sample --config` (the plugin's core and
# configuration, without collectd: Collect "gpu"), $SAMPLES samples
# $INTERVAL s apart.  Then it holds the plugin's figures against NVIDIA's,
# read independently:
#   1. memory-<gpu> of a and of b = the used_memory that
#      `nvidia-smi --query-compute-apps=pid,used_memory` gives their pid
#      (MiB; within 1 MiB of the plugin's bytes);
#   2. memory-<gpu> of root = the sum over every compute app, and
#      memory-<gpu>_total = nvidia-smi's memory.total;
#   3. the board's energy: root's derive-energy_<gpu>_uj over the samples,
#      as mean power, within 20 % of the mean power of the energy counter
#      read through libnvidia-ml directly (python3 ctypes) before and
#      after, and of nvidia-smi's power.draw;
#   4. the split: a's part + b's part + the idle part <= the board's, and
#      a (busy) has more SM utilisation and energy than b (idle);
#   5. MIG: with the GPU's MIG mode off (nvidia-smi mig.mode.current), no
#      per instance list (memory-<gpu>_gi<id>); with it on, each cgroup's
#      instance lists add up to its memory-<gpu>, and root's instances'
#      memory (memory-<gpu>_gi<id>_total) to no more than the GPU's;
#   6. `joule-cgroup sample --collect gpu --gpu-library libnvidia-ml.so.1
#      --proc-root /proc` (the options, not a configuration): a's
#      memory-<gpu> = nvidia-smi's for its pid, as in 1;
#   7. `joule-cgroup run` of a third gpu_alloc ($R_MIB MiB, busy, $R_SECONDS
#      s) in a cgroup of its own (--output, --interval 1): the report's
#      gpu.<uuid>.memory_max = nvidia-smi's used_memory for its pid, read
#      while it ran; sm_percent > 0; its energy_j > 0 and, with
#      global.gpu's idle_j, no more than the board's energy_j;
#      global.gpu's watts within 20 % of the counter read directly before
#      and after the run; memory_total = nvidia-smi's memory.total.
# Every figure is printed; the exit status is 1 if a check failed, 2 if
# the host cannot run it (no GPU, no driver, not root, no cgroup v2).
#
# Bringing the tools: a host with gcc, make, autoconf and python3 but not
# collectd's headers or libyajl: the script installs libyajl-dev and
# collectd-dev with apt-get where it can (collectd-core itself is not
# needed: `sample` is the plugin's core without the daemon); or build
# elsewhere and set JOULE_CGROUP (with LD_LIBRARY_PATH for libyajl.so.2).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
A_MIB=${A_MIB:-1024} B_MIB=${B_MIB:-2048} R_MIB=${R_MIB:-512} R_SECONDS=${R_SECONDS:-8}
INTERVAL=${INTERVAL:-5} SAMPLES=${SAMPLES:-4}
work=$(mktemp -d /tmp/jc-gpu-real.XXXXXX)
cg=/sys/fs/cgroup/jc-gpu-real
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rmdir "$cg/a" "$cg/b" "$cg" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cant() { echo "gpu_real: cannot run here: $*" >&2; exit 2; }
failed=0

command -v nvidia-smi >/dev/null || cant "no nvidia-smi (no NVIDIA driver)"
nvidia-smi -L || cant "nvidia-smi finds no GPU"
[ "$(id -u)" -eq 0 ] || cant "not root (it makes cgroups)"
[ -f /sys/fs/cgroup/cgroup.controllers ] || cant "/sys/fs/cgroup is not cgroup v2"

jc=${JOULE_CGROUP:-}
if [ -z "$jc" ]; then
  if [ ! -x "$top/_build/joule-cgroup" ]; then
    if ! [ -f /usr/include/yajl/yajl_parse.h ] || ! [ -d /usr/include/collectd ]; then
      command -v apt-get >/dev/null && apt-get install -y libyajl-dev collectd-dev >&2 ||
        cant "libyajl-dev and collectd-dev are needed to build (or set JOULE_CGROUP)"
    fi
    "$top/scripts/build.sh" "$top/_build" >&2 || cant "the build failed"
  fi
  jc=$top/_build/joule-cgroup
fi
gcc -O1 -o "$work/gpu_alloc" "$top/tests/gpu_alloc.c" -ldl || cant "gcc"

energy_mj() { # the board's counter, through libnvidia-ml directly
  python3 - <<'PY'
import ctypes
n = ctypes.CDLL("libnvidia-ml.so.1")
assert n.nvmlInit_v2() == 0
h = ctypes.c_void_p()
assert n.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h)) == 0
e = ctypes.c_ulonglong()
assert n.nvmlDeviceGetTotalEnergyConsumption(h, ctypes.byref(e)) == 0
print(e.value)
n.nvmlShutdown()
PY
}

uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 0)
echo "GPU 0: $uuid; $(nvidia-smi --query-gpu=name,driver_version,persistence_mode,memory.total --format=csv,noheader -i 0)"
mkdir -p "$cg/a" "$cg/b" || cant "cannot make $cg"

start_in() { # CGROUP MIB [busy]
  (echo "$BASHPID" >"$cg/$1/cgroup.procs" &&
    exec "$work/gpu_alloc" "$2" $((INTERVAL * SAMPLES + 60)) ${3:-}) >"$work/$1.out" 2>"$work/$1.err" &
  pids+=($!)
}
start_in a "$A_MIB" busy
start_in b "$B_MIB"
for c in a b; do
  for _ in $(seq 300); do grep -q '^ready' "$work/$c.out" && break; sleep 0.1; done
  grep -q '^ready' "$work/$c.out" || cant "gpu_alloc in $c: $(cat "$work/$c.err")"
done
pid_a=$(awk '/^ready/ { print $2 }' "$work/a.out") pid_b=$(awk '/^ready/ { print $2 }' "$work/b.out")
echo "a: pid $pid_a ($A_MIB MiB, busy) in $(cat /proc/$pid_a/cgroup); b: pid $pid_b ($B_MIB MiB) in $(cat /proc/$pid_b/cgroup)"
sleep 2

cat >"$work/conf" <<CONF
LoadPlugin joule_cgroup
<Plugin joule_cgroup>
  CgroupRoot "/sys/fs/cgroup"
  Select "jc-gpu-real/*"
  Collect "gpu"
</Plugin>
CONF
e0=$(energy_mj) t0=$(date +%s.%N)
"$jc" sample --config "$work/conf" --interval "$INTERVAL" --count "$SAMPLES" >"$work/samples.jsonl" 2>"$work/sample.err"
e1=$(energy_mj) t1=$(date +%s.%N)
watts_smi=$(nvidia-smi --query-gpu=power.draw --format=csv,noheader,nounits -i 0)
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits >"$work/apps.csv"
total_mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i 0)
echo "nvidia-smi --query-compute-apps:"; sed 's/^/  /' "$work/apps.csv"
[ -s "$work/sample.err" ] && { echo "joule-cgroup said:"; sed 's/^/  /' "$work/sample.err"; }

mig_mode=$(nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader -i 0 2>/dev/null)
python3 - "$work/samples.jsonl" "$uuid" "$pid_a" "$pid_b" "$work/apps.csv" "$total_mib" \
  "$e0" "$e1" "$t0" "$t1" "$watts_smi" "$mig_mode" <<'PY' >"$work/verdict"
import json, sys
path, uuid, pa, pb, apps, total_mib, e0, e1, t0, t1, wsmi = sys.argv[1:12]
lines = [json.loads(l) for l in open(path) if l.strip()]
def v(sample, inst, name):
    for c in sample["cgroups"]:
        if c["instance"] == inst:
            return c["values"].get(name)
    return None
last, first = lines[-1], lines[0]
used = {}
for row in open(apps):
    p, m = [x.strip() for x in row.split(",")]
    used[p] = int(m)
mem = "memory-" + uuid
A, B = "jc-gpu-real_a", "jc-gpu-real_b"
out = []
def check(desc, good):
    out.append(("ok     " if good else "FAILED ") + desc)
ma, mb, mr = v(last, A, mem), v(last, B, mem), v(last, "root", mem)
check("a: plugin %s B, nvidia-smi %s MiB for pid %s" % (ma, used.get(pa), pa),
      ma is not None and pa in used and abs(ma - used[pa] * 1048576) < 1048576)
check("b: plugin %s B, nvidia-smi %s MiB for pid %s" % (mb, used.get(pb), pb),
      mb is not None and pb in used and abs(mb - used[pb] * 1048576) < 1048576)
check("root: plugin %s B, nvidia-smi's apps %s MiB in all" % (mr, sum(used.values())),
      mr is not None and abs(mr - sum(used.values()) * 1048576) < 1048576 * max(1, len(used)))
mt = v(last, "root", mem + "_total")
check("root: memory-<gpu>_total %s B, nvidia-smi memory.total %s MiB" % (mt, total_mib),
      mt is not None and abs(mt - int(total_mib) * 1048576) <= 1048576)
en = "derive-energy_%s_uj" % uuid
idle = "derive-energy_%s_idle_uj" % uuid
de = v(last, "root", en) - v(first, "root", en)
dt = last["time"] - first["time"]
w_plugin = de / 1e6 / dt
w_indep = (int(e1) - int(e0)) / 1e3 / (float(t1) - float(t0))
check("board: plugin %.1f J in %.1f s = %.1f W; the counter read directly %.1f W; nvidia-smi power.draw %s W"
      % (de / 1e6, dt, w_plugin, w_indep, wsmi), abs(w_plugin - w_indep) <= 0.2 * w_indep)
pa_e = v(last, A, en) - (v(first, A, en) or 0)
pb_e = v(last, B, en) - (v(first, B, en) or 0)
pi_e = v(last, "root", idle) - v(first, "root", idle)
check("split: a %.1f J + b %.1f J + idle %.1f J = %.1f J <= board %.1f J"
      % (pa_e / 1e6, pb_e / 1e6, pi_e / 1e6, (pa_e + pb_e + pi_e) / 1e6, de / 1e6),
      pa_e + pb_e + pi_e <= de + 1)
sa = [v(s, A, "percent-%s_sm" % uuid) for s in lines[1:]]
sb = [v(s, B, "percent-%s_sm" % uuid) for s in lines[1:]]
check("SM: a (busy) %s %%, b (idle) %s %%; energy a %.1f J > b %.1f J" % (sa, sb, pa_e / 1e6, pb_e / 1e6),
      sum(x or 0 for x in sa) > sum(x or 0 for x in sb) and pa_e > pb_e)
mig = [k for s in lines for c in s["cgroups"] for k in c["values"] if "_gi" in k]
mig_on = sys.argv[12] if len(sys.argv) > 12 else ""
if not mig_on.startswith("Enabled"):
    check("MIG %s: no per instance list (%d)" % (mig_on or "unknown", len(mig)), not mig)
else:
    for inst in (A, B):
        gi = sum(x for k, x in next(c["values"] for c in last["cgroups"] if c["instance"] == inst).items()
                 if k.startswith(mem + "_gi") and not k.endswith("_total"))
        check("MIG on: %s's instance lists add up to its memory-<gpu> (%s = %s)" % (inst, gi, v(last, inst, mem)),
              gi == v(last, inst, mem))
    tot = sum(x for k, x in next(c["values"] for c in last["cgroups"] if c["instance"] == "root").items()
              if k.startswith(mem + "_gi") and k.endswith("_total"))
    check("MIG on: the instances' memory %s B <= the GPU's %s B" % (tot, mt), mt is not None and 0 < tot <= mt)
print("\n".join(out))
PY
cat "$work/verdict"
grep -q '^FAILED' "$work/verdict" && failed=1

# ---- 6. sample with --gpu-library and --proc-root ---------------------------
"$jc" sample --select 'jc-gpu-real/*' --collect gpu --gpu-library libnvidia-ml.so.1 \
  --proc-root /proc --count 1 --interval 1 >"$work/options.jsonl" 2>"$work/options.err"
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits >"$work/apps2.csv"
python3 - "$work/options.jsonl" "$uuid" "$pid_a" "$work/apps2.csv" <<'PY' >"$work/verdict2"
import json, sys
path, uuid, pa, apps = sys.argv[1:]
line = json.loads(open(path).read())
used = {p.strip(): int(m) for p, m in (r.split(",") for r in open(apps) if r.strip())}
ma = next((c["values"].get("memory-" + uuid) for c in line["cgroups"] if c["instance"] == "jc-gpu-real_a"), None)
good = ma is not None and pa in used and abs(ma - used[pa] * 1048576) < 1048576
print(("ok     " if good else "FAILED ") + "sample --gpu-library --proc-root: a %s B, nvidia-smi %s MiB" % (ma, used.get(pa)))
PY
cat "$work/verdict2"
[ -s "$work/options.err" ] && sed 's/^/  joule-cgroup said: /' "$work/options.err"
grep -q '^FAILED' "$work/verdict2" && failed=1

# ---- 7. joule-cgroup run of a GPU process ------------------------------------
# its output (the "ready PID" line) to a file, the report to another; the
# pid's used_memory read from nvidia-smi while it runs
e0=$(energy_mj) t0=$(date +%s.%N)
"$jc" run --interval 1 --output "$work/run.json" -- \
  sh -c "exec '$work/gpu_alloc' $R_MIB $R_SECONDS busy >'$work/r.out' 2>'$work/r.err'" 2>"$work/run.err" &
run_pid=$!
for _ in $(seq 300); do grep -q '^ready' "$work/r.out" 2>/dev/null && break; sleep 0.1; done
pid_r=$(awk '/^ready/ { print $2 }' "$work/r.out" 2>/dev/null)
sleep 1
used_r=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits |
  awk -F', *' -v p="$pid_r" '$1 == p { print $2 }')
wait "$run_pid"
run_status=$?
e1=$(energy_mj) t1=$(date +%s.%N)
echo "run: status $run_status, pid ${pid_r:-none} (${used_r:-?} MiB in nvidia-smi), the board's counter $(( (e1 - e0) )) mJ over $(python3 -c "print(round($t1 - $t0, 1))") s"
[ -s "$work/run.err" ] && sed 's/^/  joule-cgroup said: /' "$work/run.err"
python3 - "$work/run.json" "$uuid" "${used_r:-}" "$total_mib" "$e0" "$e1" "$t0" "$t1" "$run_status" <<'PY' >"$work/verdict3"
import json, sys
path, uuid, used, total_mib, e0, e1, t0, t1, status = sys.argv[1:]
out = []
def check(desc, good):
    out.append(("ok     " if good else "FAILED ") + desc)
try:
    r = json.load(open(path))
except Exception as e:
    r = None
check("run: exit status %s, a report" % status, status == "0" and r is not None)
if r is not None:
    g = (r.get("gpu") or {}).get(uuid)
    h = (r.get("global", {}).get("gpu") or {}).get(uuid)
    check("run: gpu and global.gpu have the GPU (%s, %s)" % (g, h), bool(g) and bool(h))
    if g and h:
        check("run: memory_max %s B, nvidia-smi %s MiB for its pid" % (g["memory_max"], used),
              used != "" and abs(g["memory_max"] - int(used) * 1048576) < 1048576)
        check("run: sm_percent %s > 0 (busy)" % g["sm_percent"], (g["sm_percent"] or 0) > 0)
        check("run: the command's %s J > 0; with the idle part %s J, no more than the board's %s J"
              % (g["energy_j"], h["idle_j"], h["energy_j"]),
              g["energy_j"] is not None and h["energy_j"] is not None and g["energy_j"] > 0
              and g["energy_j"] + (h["idle_j"] or 0) <= h["energy_j"] + 0.001)
        w_indep = (int(e1) - int(e0)) / 1e3 / (float(t1) - float(t0))
        check("run: the board %s W over %s s; the counter read directly %.1f W"
              % (h["watts"], r["wall_seconds"], w_indep),
              h["watts"] is not None and abs(h["watts"] - w_indep) <= 0.2 * w_indep)
        check("run: memory_total %s B, nvidia-smi memory.total %s MiB" % (h["memory_total"], total_mib),
              h["memory_total"] is not None and abs(h["memory_total"] - int(total_mib) * 1048576) <= 1048576)
print("\n".join(out))
PY
cat "$work/verdict3"
grep -q '^FAILED' "$work/verdict3" && failed=1
[ "$failed" -eq 0 ]
