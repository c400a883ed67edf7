#!/usr/bin/env bash
# joule-cgroup's GPU figures without a GPU: the fake NVML
# (tests/fake_nvml.c, built by make check) named by --gpu-library.
#   - sample --collect gpu --gpu-library --proc-root on a fixture tree and
#     a fixture /proc: root's and each cgroup's memory-<gpu> exact, the
#     GPU's memory, the lists of a cgroup whose process has no GPU work
#     absent; and the example of docs/profiler.md as written (its
#     /host/proc the fixture's);
#   - sample --config: the block's GpuLibrary and ProcRoot;
#     --gpu-library beside --config refused (a usage error); check of
#     that configuration: the GPU lists per cgroup, NVML's INFO line, and
#     the one of no driver;
#   - run on the real kernel: the command's pid put on the fake GPU by
#     the script (1 GiB, 50 % SM while the board uses 100 J; then no
#     process while it uses 20 J): gpu: memory_max 1 GiB, energy_j 50
#     exact, sm_percent in (0, 50]; global.gpu: memory_total, memory_max,
#     energy_j 120, idle_j 70 exact; the parts add up; with --phases the
#     phases' parts add up to the run's; the example of docs/profiler.md
#     as written, its printed JSON the page's (the figures that do not
#     depend on time exact);
#   - why there is no GPU figure (no library, the wrong library, NVML
#     with no GPU, NVML that does not start, no process on a GPU): sample
#     --collect gpu says it once on stderr and in each line's "unknown";
#     run with a --gpu-library that does not load: gpu null, exit status
#     0, one line on stderr and the report's note say why; a GPU the
#     command did not use: a note.
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
fake="$top_builddir/tests/fake-nvml/libnvidia-ml.so.1"
need "built joule-cgroup" -- test -x "$JC"
need "the fake NVML (make check builds it)" -- test -r "$fake"
need "python3" -- command -v python3

uuid=GPU-0b5e3a42-7c1d-4f2e-9a8b-1c2d3e4f5a6b
export FAKE_NVML_SCRIPT="$T/nvml" FAKE_NVML_LOG="$T/nvml.log"
# put LINES...: the fake's script, replaced at once (read at nvmlInit)
put() {
  printf '%s\n' "$@" >"$T/nvml.new"
  mv "$T/nvml.new" "$T/nvml"
}

# ---- sample on a fixture tree ------------------------------------------------
gpu_fixture # $root: a and b; $T/proc: 201 in /a, 202 in /b
put "gpu $uuid 0 1000000 150323855360" \
  "proc 0 compute 201 1073741824" \
  "proc 0 graphics 201 4096"
"$JC" sample --root "$root" --count 1 --interval 0.1 --collect gpu \
  --gpu-library "$fake" --proc-root "$T/proc" >"$T/sample.json" 2>"$T/sample.err"
ok $? "sample --collect gpu --gpu-library --proc-root"
diag <"$T/sample.err"
check_json "sample: root and a hold 1 GiB, the GPU 140 GiB; b, without GPU work, has no GPU list" \
  "$T/sample.json" '
u = args[0]
c = {x["cgroup"]: x["values"] for x in r["cgroups"]}
assert c["/"]["memory-" + u] == 1073741824, c["/"]
assert c["/"]["memory-" + u + "_total"] == 150323855360, c["/"]
assert c["/"]["derive-energy_" + u + "_uj"] == 0, c["/"]
assert c["a"]["memory-" + u] == 1073741824, c["a"]
assert "memory-" + u + "_total" not in c["a"], c["a"]
assert "b" not in c, c' "$uuid"

# the example of docs/profiler.md, as written: its /host/proc the
# fixture's, and the fixture tree and the fake as --root and the library
docs_fence profiler.md "joule-cgroup sample --count 1" >"$T/sample-example.sh"
ok $? "docs/profiler.md has the sample example"
sed -i -e "s|^joule-cgroup sample |\"$JC\" sample --root \"$root\" --gpu-library \"$fake\" |" \
  -e "s|/host/proc|$T/proc|" "$T/sample-example.sh"
bash "$T/sample-example.sh" >"$T/sample-example.json" 2>"$T/sample-example.err"
ok $? "the sample example runs as written"
check_json "the sample example: the GPU lists alone, root's and a's" "$T/sample-example.json" '
u = args[0]
c = {x["cgroup"]: x["values"] for x in r["cgroups"]}
assert set(c) == {"/", "a"}, c
assert set(c["a"]) == {"memory-" + u, "percent-" + u + "_sm", "derive-energy_" + u + "_uj"}, c["a"]
assert c["a"]["memory-" + u] == 1073741824' "$uuid"

# --config: the block's GpuLibrary and ProcRoot
cat >"$T/gpu.conf" <<EOF
LoadPlugin joule_cgroup
<Plugin joule_cgroup>
  CgroupRoot "$root"
  Collect "gpu"
  GpuLibrary "$fake"
  ProcRoot "$T/proc"
</Plugin>
EOF
"$JC" sample --config "$T/gpu.conf" --count 1 --interval 0.1 >"$T/config.json" 2>"$T/config.err"
ok $? "sample --config with GpuLibrary and ProcRoot"
diag <"$T/config.err"
check_json "sample --config: a's 1 GiB" "$T/config.json" '
c = {x["cgroup"]: x["values"] for x in r["cgroups"]}
assert c["a"]["memory-" + args[0]] == 1073741824, c' "$uuid"
"$JC" sample --config "$T/gpu.conf" --gpu-library "$fake" --count 1 >/dev/null 2>"$T/both.err"
[ $? -eq 2 ] && grep -q 'GpuLibrary and ProcRoot from the file' "$T/both.err"
ok $? "--gpu-library beside --config: a usage error (2)"

# check: the block's GPU lists per cgroup, and what NVML said
"$JC" check "$T/gpu.conf" >"$T/check.json" 2>"$T/check.err"
ok $? "check of a block with Collect \"gpu\", GpuLibrary and ProcRoot: exit status 0"
check_json "check: root's and a's GPU lists" "$T/check.json" '
c = {x["cgroup"]: x["values"] for x in r["cgroups"]}
u = args[0]
assert "memory-" + u in c["a"] and "memory-" + u + "_total" in c["/"], c' "$uuid"
grep -q "^joule-cgroup: info: 1 GPU through $fake (process lists: version 3; utilisation: yes; energy: yes)" "$T/check.err"
ok $? "check says which GPUs NVML gave and what the driver has"
sed "s|GpuLibrary .*|GpuLibrary \"$T/none/libnvidia-ml.so.1\"|" "$T/gpu.conf" >"$T/nodriver.conf"
"$JC" check "$T/nodriver.conf" >/dev/null 2>"$T/nodriver.err"
[ $? -eq 0 ] && grep -q '^joule-cgroup: info: no NVIDIA driver: ' "$T/nodriver.err"
ok $? "check where the library does not load: exit status 0, the INFO line that says so"
diag <"$T/nodriver.err"

# ---- why there is no GPU figure: once on stderr, and in the JSON ------------
# gpu_why NAME WHY-RE SAMPLE-ARGS...: sample --collect gpu says WHY once on
# stderr ("joule-cgroup: gpu: ..."), as check's INFO line and the
# plugin's do, and each line's "unknown" has it with the GPU lists.
gpu_why() {
  local name=$1 want=$2; shift 2
  "$JC" sample --root "$root" --count 2 --interval 0.05 --collect gpu \
    --proc-root "$T/proc" "$@" >"$T/why.json" 2>"$T/why.err"
  local status=$?
  [ $status -eq 0 ] && [ "$(grep -c . "$T/why.err")" -eq 1 ] &&
    grep -qE "^joule-cgroup: gpu: $want" "$T/why.err" &&
    python3 - "$T/why.json" "$want" <<'PY'
import json, re, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 2, lines
for d in lines:
    g = d["unknown"]["gpu"]
    assert re.match(sys.argv[2], g["why"]), g
    assert "memory-<gpu>" in g["lists"] and "derive-energy_<gpu>_uj" in g["lists"], g
    assert all(not k.startswith(("memory-GPU", "percent-GPU")) for c in d["cgroups"] for k in c["values"]), d
PY
  ok $? "sample --collect gpu, $name: exit 0, one line on stderr ($(cat "$T/why.err")), the same in each line's \"unknown\""
}
gpu_why "no library" 'no NVIDIA driver: /nonexistent.so: cannot open shared object file' --gpu-library /nonexistent.so
libc=$(ldd "$JC" | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
gpu_why "the wrong library (libc)" "no NVIDIA driver: .* it is not NVML \\(GpuLibrary $libc\\)" --gpu-library "$libc"
put "# no GPU"
gpu_why "NVML with no GPU" "NVML \\($fake\\) finds no GPU" --gpu-library "$fake"
put "fail init -1 999"
gpu_why "NVML that does not start" "NVML \\($fake\\) does not start: " --gpu-library "$fake"
# a GPU, and no process of the selected cgroups on it
put "gpu $uuid 0 1000000 150323855360"
"$JC" sample --root "$root" --count 1 --interval 0.05 --collect gpu --proc-root "$T/proc" \
  --gpu-library "$fake" >"$T/idle.json" 2>"$T/idle.err"
[ $? -eq 0 ] && [ "$(cat "$T/idle.err")" = "joule-cgroup: gpu: no process of the selected cgroups is on a GPU: root's lists alone are sent (the GPUs' own)" ] &&
  ! grep -q '"unknown"' "$T/idle.json"
ok $? "a GPU and no process on it: one line says so, nothing is unknown"
diag <"$T/idle.err"

# ---- run on the real kernel ----------------------------------------------------
need_kernel
make_run_parent joule-gputest
hand_down_controllers

inits() { grep -c '^init' "$FAKE_NVML_LOG" 2>/dev/null || echo 0; }
# wait_inits N: N more nvmlInit than now (the second of two began after
# the script changed, so its read saw the change); bounded.
wait_inits() {
  local want=$(($(inits) + $1)) i
  for i in $(seq 1 400); do
    [ "$(inits)" -ge "$want" ] && return 0
    sleep 0.05
  done
  return 1
}
# The job: writes its pid, then waits for "go1" and "go2"; with MARK
# set it prints a marker between them (for --phases).
cat >"$T/train.sh" <<EOF
#!/bin/sh
echo \$\$ >"$T/job.pid"
while [ ! -e "$T/go1" ]; do sleep 0.02; done
[ -z "\${MARK:-}" ] || echo __IDLE__
while [ ! -e "$T/go2" ]; do sleep 0.02; done
EOF
chmod +x "$T/train.sh"
# drive: the two steps of the script around the job's life.
drive() {
  local i pid
  for i in $(seq 1 400); do [ -s "$T/job.pid" ] && break; sleep 0.02; done
  pid=$(cat "$T/job.pid")
  put "gpu $uuid 0 1100000 150323855360" "proc 0 compute $pid 1073741824" \
    "util 0 $pid 1 50"
  wait_inits 2
  touch "$T/go1"
  wait_inits 3 # the marker's reading (with --phases) before the next step
  put "gpu $uuid 0 1120000 150323855360" "util 0 $pid 1 50"
  wait_inits 2
  touch "$T/go2"
}
# one_run OUT ARGS...: run of train.sh, the fake at 1000 J and no process
one_run() {
  local out=$1; shift
  rm -f "$T/job.pid" "$T/go1" "$T/go2"
  put "gpu $uuid 0 1000000 150323855360"
  drive &
  local driver=$!
  "$JC" run --root "$parent" --interval 0.2 --gpu-library "$fake" "$@" -- "$T/train.sh" >"$out" 2>"$out.err"
  local status=$?
  wait "$driver"
  return $status
}

one_run "$T/run.json"
ok $? "run with the fake NVML"
grep -v '^joule-cgroup: energy: ' "$T/run.json.err" | diag
check_json "run: the command's 1 GiB, 50 J of the board's 120 J, SM in (0, 50]; the host's 120 J, 70 J idle" \
  "$T/run.json" '
u = args[0]
g, h = r["gpu"][u], r["global"]["gpu"][u]
assert list(g) == ["memory_max", "sm_percent", "energy_j", "watts"], list(g)
assert list(h) == ["memory_total", "memory_max", "sm_percent", "energy_j", "watts", "idle_j"], list(h)
assert g["memory_max"] == 1073741824 and g["energy_j"] == 50, g
assert 0 < g["sm_percent"] <= 50, g
assert abs(g["watts"] - 50 / r["wall_seconds"]) < 0.01 * g["watts"], (g, r["wall_seconds"])
assert h["memory_total"] == 150323855360 and h["memory_max"] == 1073741824, h
assert h["energy_j"] == 120 and h["idle_j"] == 70, h
assert abs(h["sm_percent"] - g["sm_percent"]) < 1e-6, (g, h)' "$uuid"

MARK=1 one_run "$T/phases.out" --phases --output "$T/phases.json"
ok $? "run --phases with the fake NVML"
check_json "phases: the GPU part where it was spent (50 J, then 0), adding up to the run" "$T/phases.json" '
u = args[0]
ph = r["phases"]
assert [p["name"] for p in ph] == ["START -> __IDLE__", "__IDLE__ -> END"], ph
a, b = (p["gpu"][u] for p in ph)
ha, hb = (p["global"]["gpu"][u] for p in ph)
assert a["energy_j"] == 50 and b["energy_j"] == 0, (a, b)
assert a["memory_max"] == 1073741824, a
assert ha["energy_j"] + hb["energy_j"] == r["global"]["gpu"][u]["energy_j"] == 120, (ha, hb)
assert ha["idle_j"] + hb["idle_j"] == 70, (ha, hb)' "$uuid"

# the example of docs/profiler.md, as written: the one change, the run's
# parent as --root and the fake as the library (tests make cgroups below
# the parent only)
mkdir "$T/ex"
cp "$T/train.sh" "$T/ex/train.sh"
docs_fence profiler.md "joule-cgroup run -- ./train.sh" >"$T/ex/example.sh"
ok $? "docs/profiler.md has the run example"
sed -i "s|^sudo joule-cgroup run |\"$JC\" run --root \"$parent\" --gpu-library \"$fake\" |" "$T/ex/example.sh"
rm -f "$T/job.pid" "$T/go1" "$T/go2"
put "gpu $uuid 0 1000000 150323855360"
drive &
(cd "$T/ex" && bash example.sh >printed.json 2>example.err)
ok $? "the run example runs as written"
wait
python3 - "$top_srcdir/docs/profiler.md" >"$T/ex/page.json" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
sec = text[text.index("## GPUs"):]
print(re.search(r"^```json\n(.*?)^```$", sec, re.S | re.M).group(1), end="")
PY
check_json "the run example prints what the page shows (sm_percent and watts, which depend on time, aside)" \
  "$T/ex/printed.json" '
page = json.load(open(args[0]))
def fixed(d):
    return {u: {k: v for k, v in g.items() if k not in ("sm_percent", "watts")} for u, g in d.items()}
assert fixed(r["gpu"]) == fixed(page["gpu"]), (r["gpu"], page["gpu"])
assert fixed(r["host"]) == fixed(page["host"]), (r["host"], page["host"])
assert list(r["host"][args[1]]) == list(page["host"][args[1]])' "$T/ex/page.json" "$uuid"

# no driver: null, and why, once on stderr and in the report's notes
"$JC" run --root "$parent" --gpu-library "$T/no-such-libnvidia-ml.so.1" -- true >"$T/none.json" 2>"$T/none.err"
ok $? "run with a --gpu-library that does not load: exit status 0"
check_json "no driver: gpu and global.gpu null, a note says why" "$T/none.json" '
assert r["gpu"] is None and r["global"]["gpu"] is None, (r["gpu"], r["global"]["gpu"])
n = [x for x in r["notes"] if x.startswith("\"gpu\"")]
assert n == ["\"gpu\" and \"global.gpu\" are null: no NVIDIA driver: %s/no-such-libnvidia-ml.so.1: cannot open shared object file: No such file or directory (GpuLibrary %s/no-such-libnvidia-ml.so.1)" % (args[0], args[0])], n' "$T"
[ "$(grep -ci 'gpu\|nvml\|nvidia' "$T/none.err")" -eq 1 ] &&
  grep -q "^joule-cgroup: gpu: no NVIDIA driver: $T/no-such-libnvidia-ml.so.1: cannot open shared object file: No such file or directory (GpuLibrary $T/no-such-libnvidia-ml.so.1): gpu and global.gpu are null$" "$T/none.err"
ok $? "no driver: one line on stderr says why"
diag <"$T/none.err"
# the fake with a GPU no process of the command uses: a note says so
put "gpu $uuid 0 1000000 150323855360"
"$JC" run --root "$parent" --gpu-library "$fake" -- true >"$T/idle-run.json" 2>"$T/idle-run.err"
ok $? "run with a GPU the command does not use: exit status 0"
check_json "a GPU the command does not use: its gpu figures 0, a note says none of its processes was on a GPU" "$T/idle-run.json" '
u = args[0]
assert r["gpu"][u]["memory_max"] == 0, r["gpu"]
n = [x for x in r["notes"] if x.startswith("\"gpu\"")]
assert n == ["\"gpu\": the command\u0027s processes held no memory on any of the 1 GPUs read: none of them was on a GPU"], n' "$uuid"

tap_done
