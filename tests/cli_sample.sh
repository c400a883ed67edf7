#!/usr/bin/env bash
# joule-cgroup sample on the fixture trees: every [values PATH] figure of
# tests/fixtures/expected/*.txt appears, exactly, under its name in docs/metrics.md
# ("ps_cputime" {"user","syst"}, "memory-current", "disk_octets"
# {"read","write"}, "pressure-cpu_some_avg10", ...); one JSON line per
# sample; rates on every line; hostile files give warnings on stderr once,
# never broken JSON; SIGTERM ends the stream between two lines.
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
need "python3" -- command -v python3

cp -r "$FIXTURES" "$T/fixtures"
sh "$T/fixtures/make-hostile.sh"
F="$T/fixtures"
# Every list of the groups (the plugin's lean default set leaves some out:
# tests/cli_check.sh holds sample's default set to the plugin's).
ALL=(--collect cpu --collect memory --collect io --collect pressure
  --collect events --collect pids --values '*')

# check.py EXPECTED GROUPS PATH... < sample output: the figures of each
# [values PATH] in the first line; "all" checks every section.
cat >"$T/check.py" <<'PY'
import glob, json, sys

MEMSTAT = ["anon", "file", "kernel", "kernel_stack", "slab", "shmem"]
CPU_DERIVE = ["usage_usec", "nr_periods", "nr_throttled", "throttled_usec",
              "nr_bursts", "burst_usec"]

def sections(path):
    """[values] sections of PATH and of its companions (<tree>.<topic>.txt)"""
    out, cur = {}, None
    for f in [path] + sorted(glob.glob(path[:-len(".txt")] + ".*.txt")):
        for line in open(f, encoding="utf-8"):
            line = line.rstrip("\n")
            if line.startswith("["):
                cur = line[8:-1] if line.startswith("[values ") else None
                if cur is not None:
                    out.setdefault(cur, {})
            elif cur is not None and line and not line.startswith("#"):
                key, value = line.split("\t")[:2]
                out[cur][key] = value
    return out

def expectations(v, groups):
    """(json key, data source or None, expected number or None=absent)."""
    out = []
    def add(name, ds, key):
        if key not in v:
            return
        if v[key] != "(absent)":
            out.append((name, ds, float(v[key]), key))
        elif ds is None:
            out.append((name, None, None, key))
    if "cpu" in groups:
        add("ps_cputime", "user", "cpu.stat:user_usec")
        add("ps_cputime", "syst", "cpu.stat:system_usec")
        for k in CPU_DERIVE:
            add("derive-cpu_" + k, None, "cpu.stat:" + k)
    if "memory" in groups:
        add("memory-current", None, "memory.current")
        add("memory-peak", None, "memory.peak")
        add("memory-swap_current", None, "memory.swap.current")
        add("memory-swap_peak", None, "memory.swap.peak")
        for k in MEMSTAT:
            add("memory-" + k, None, "memory.stat:" + k)
    if "io" in groups:
        add("disk_octets", "read", "io.stat:sum:rbytes")
        add("disk_octets", "write", "io.stat:sum:wbytes")
        add("disk_ops", "read", "io.stat:sum:rios")
        add("disk_ops", "write", "io.stat:sum:wios")
    if "pressure" in groups:
        for res in ("cpu", "memory", "io"):
            for kind in ("some", "full"):
                base = "%s.pressure:%s:" % (res, kind)
                for avg in ("avg10", "avg60", "avg300"):
                    add("pressure-%s_%s_%s" % (res, kind, avg), None, base + avg)
                add("derive-%s_%s_stall_usec" % (res, kind), None, base + "total")
    if "events" in groups:
        for key in v:
            if key.startswith("memory.events:"):
                add("derive-memory_events_" + key.split(":")[1], None, key)
    if "pids" in groups:
        add("count-pids", None, "pids.current")
        add("count-pids_peak", None, "pids.peak")
    return out

expected_file, groups, paths = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
lines = sys.stdin.read().splitlines()
doc = json.loads(lines[0])
got = {c["cgroup"]: c["values"] for c in doc["cgroups"]}
want = sections(expected_file)
if paths == ["all"]:
    paths = list(want)
checked = bad = 0
for path in paths:
    meta = "/" if path == "(root)" else path
    values = got.get(meta)
    if values is None:
        print("%s: not in the sample" % meta)
        bad += 1
        continue
    for name, ds, number, key in expectations(want[path], groups):
        checked += 1
        have = values.get(name)
        if ds is not None and isinstance(have, dict):
            have = have.get(ds)
        if number is None:
            if have is not None:
                print("%s: %s = %s, but %s is absent" % (meta, name, have, key))
                bad += 1
        elif have is None or abs(have - number) > 1e-9 * max(1, abs(number)):
            print("%s: %s%s = %s, want %s (%s)" % (meta, name,
                  "." + ds if ds else "", have, number, key))
            bad += 1
print("%d figures in %d cgroups checked, %d wrong" % (checked, len(paths), bad))
sys.exit(1 if bad or not checked else 0)
PY

# values_case NAME TREE GROUPS PATHS -- SAMPLE-ARGS...
values_case() {
  local name=$1 tree=$2 groups=$3 paths=$4; shift 5
  "$JC" sample --count 1 --interval 0.05 --root "$F/$tree" --values '*' "$@" \
    >"$T/out" 2>"$T/err"
  local status=$? verdict
  verdict=$(python3 "$T/check.py" "$F/expected/$tree.txt" "$groups" $paths <"$T/out" 2>&1)
  [ $? -eq 0 ] && [ "$status" -eq 0 ] && [ "$(wc -l <"$T/out")" -eq 1 ]
  ok $? "$name: ${verdict##*$'\n'}"
  { echo "$verdict" | grep -v ' wrong$'; cat "$T/err"; } | head -10 | diag
}

# Default Collect (cpu memory io limits), every list of it.
values_case "k6.1-systemd system.slice/*.service" k6.1-systemd cpu,memory,io \
  "(root) system.slice/nginx.service system.slice/systemd-logind.service" -- \
  --select 'system.slice/*.service'
[ ! -s "$T/err" ]
ok $? "k6.1-systemd system.slice/*.service: nothing on stderr"
values_case "k6.1-systemd system.slice/*.service, every group" k6.1-systemd \
  cpu,memory,io,pressure,events,pids \
  "(root) system.slice/nginx.service system.slice/systemd-logind.service" -- \
  --select 'system.slice/*.service' "${ALL[@]}"
# Every tree, every [values] section, every group (the trees captured from
# Debian's 6.1 and 6.12 too: the kernels' own bytes).
for tree in k5.10-basic k6.1-systemd k6.6-docker k6.8-kubernetes k6.1-debian k6.12-debian; do
  values_case "$tree **, every group" "$tree" cpu,memory,io,pressure,events,pids \
    all -- --select '**' "${ALL[@]}"
  [ ! -s "$T/err" ]
  ok $? "$tree **, every group: nothing on stderr"
done

# Lines, times, rates: --count 3 gives three lines, one interval apart,
# each with gauge-cpu_cores and percent-cpu for every cgroup.
"$JC" sample --count 3 --interval 0.2 --root "$F/k6.6-docker" --values percent-cpu \
  >"$T/out" 2>"$T/err"
python3 - "$T/out" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
docs = [json.loads(l) for l in lines]
assert len(docs) == 3, len(docs)
for a, b in zip(docs, docs[1:]):
    # one interval apart at least (a late line skips, never bursts)
    assert 0.15 < b["time"] - a["time"] < 30, (a["time"], b["time"])
for d in docs:
    assert d["cgroups"], d
    for c in d["cgroups"]:
        assert c["values"]["gauge-cpu_cores"] == 0, c   # the tree stands still
        assert c["values"]["percent-cpu"] == 0, c
PY
ok $? "--count 3 --interval 0.2: three lines 0.2 s apart, rates on each"

# Hostile files, and a cgroup whose name is not UTF-8: valid JSON, the
# valid values, every problem once on stderr as a warning.
bad="$F/hostile/bad$(printf '\377')name"
mkdir "$bad" && cp "$F/hostile/dup_name/"* "$bad/"
"$JC" sample --count 2 --interval 0.05 --root "$F/hostile" --select '*' "${ALL[@]}" \
  >"$T/out" 2>"$T/err"
status=$?
python3 - "$T/out" <<'PY'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8").read().splitlines()]
assert len(docs) == 2
got = {c["cgroup"]: c["values"] for c in docs[0]["cgroups"]}
assert "bad\ufffdname" in got, sorted(got)
assert got["garbage"]["memory-current"] == 4403200, got["garbage"]
assert "ps_cputime" not in got["garbage"]
PY
ok $? "hostile tree: valid JSON, U+FFFD for a bad byte, the valid values"
[ "$status" -eq 0 ] && [ -s "$T/err" ] &&
  ! grep -v '^joule-cgroup: warning: ' "$T/err" | grep -q . &&
  [ "$(sort "$T/err" | uniq -d | wc -l)" -eq 0 ]
ok $? "hostile tree: exit 0; $(wc -l <"$T/err") warnings on stderr, each once"

# InstanceFrom "container": a cgroup's runtime files are read when it is
# first seen, never at a later sample, nor at the walks a change in the
# tree starts.  strace sees every open: a first sample opens each
# container's config.json once; traced from its second sample on, while
# directories come and go in the tree, the command opens none.
if command -v strace >/dev/null; then
  cp -a "$F/hosts/containerd-systemd" "$T/cd-host" && python3 "$F/make-runtimes.py" --special "$T/cd-host"
  CD=(--root "$T/cd-host/sys/fs/cgroup" --runtime-root "$T/cd-host" --instance-from container
    --select 'kubepods.slice/**/*.scope' --select 'kubepods.slice/**/kubepods-*pod*.slice')
  opens() { grep -v '= -1 ' "$T/$1" | grep -cE "$2"; }
  runtime='"([^"]*/)?(config\.json|io\.containerd\.runtime\.v2\.task|pods)"'
  strace -f -qq -e trace=open,openat,openat2 -o "$T/strace-first" "$JC" sample --count 1 "${CD[@]}" >/dev/null
  ids=$(grep -v '= -1 ' "$T/strace-first" | grep -oE '[0-9a-f]{64}/config\.json' | sort | uniq -c)
  [ "$(wc -l <<<"$ids")" -eq 7 ] && ! grep -qv '^ *1 ' <<<"$ids"
  ok $? "InstanceFrom container: the first sample opens each of the 7 containers' config.json once (a static pod's among them)"
  echo "$ids" | diag

  : >"$T/out-bg"
  "$JC" sample --interval 0.1 "${CD[@]}" >"$T/out-bg" 2>"$T/err-bg" &
  jpid=$!
  CLEANUPS+=("kill $jpid 2>/dev/null")
  _l=()
  lines() { mapfile -t _l <"$T/out-bg"; [ "${#_l[@]}" -ge "$1" ]; }
  wait_until lines 1
  strace -f -qq -p "$jpid" -e trace=open,openat,openat2 -o "$T/strace-later" &
  tpid=$!
  traced() { grep -qE 'TracerPid:[[:space:]]*[1-9]' "/proc/$jpid/status"; }
  wait_until traced
  mapfile -t _l <"$T/out-bg"
  first=${#_l[@]}
  for i in 1 2 3; do
    mkdir "$T/cd-host/sys/fs/cgroup/kubepods.slice/churn$i"
    mapfile -t _l <"$T/out-bg"
    wait_until lines $((${#_l[@]} + 2))
    rmdir "$T/cd-host/sys/fs/cgroup/kubepods.slice/churn$i"
    mapfile -t _l <"$T/out-bg"
    wait_until lines $((${#_l[@]} + 2))
  done
  kill -TERM "$jpid"
  wait "$jpid" "$tpid"
  mapfile -t _l <"$T/out-bg"
  walks=$(opens strace-later '"kubepods\.slice"')
  [ "$walks" -gt 0 ] && [ "$(opens strace-later "$runtime")" -eq 0 ] &&
    [ "$(grep -c '"shop_cart-0_log-shipper"' "$T/out-bg")" -eq "${#_l[@]}" ]
  ok $? "InstanceFrom container: $((${#_l[@]} - first)) later samples and the walks of 6 changes ($walks opens of kubepods.slice) open no runtime file ($(opens strace-later "$runtime"))"
elif [ "${CI:-}" = true ]; then
  ok 1 "required: strace"
fi

# ---- what cannot be known, told apart from what is not there --------------
# A cgroup whose parent does not enable io (the 6.12 tree's session and
# user manager): "unknown" on it names io, why (with the remedy) and its
# lists, never its effective limits (its ancestors'); its siblings that
# have io and no limit say nothing; no cause of the whole line on a tree
# that has every controller.
"$JC" sample --root "$F/k6.12-debian" --select 'user.slice/**' --select 'limited.slice/**' \
  --count 1 --interval 0.05 >"$T/unknown.json" 2>"$T/unknown.err"
[ $? -eq 0 ] && python3 - "$T/unknown.json" "$F/k6.12-debian" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).readline())
top = sys.argv[2]
assert "unknown" not in d, d.get("unknown")
c = {x["cgroup"]: x for x in d["cgroups"]}
for name in ("user.slice/user-1000.slice/session-2.scope", "user.slice/user-1000.slice/user@1000.service"):
    u = c[name]["unknown"]
    assert list(u) == ["io"], u
    assert u["io"]["lists"] == ["disk_octets", "disk_ops"], u
    want = ('the io controller is not enabled for the children of %s/user.slice/user-1000.slice, so %s/%s has none; '
            'enable it with: echo "+io" > %s/user.slice/user-1000.slice/cgroup.subtree_control' % (top, top, name, top))
    assert u["io"]["why"] == want, (u["io"]["why"], want)
    assert "disk_octets" not in c[name]["values"], c[name]
for name in ("user.slice", "user.slice/user-1000.slice", "limited.slice", "limited.slice/batch.service"):
    assert "unknown" not in c[name], c[name]
assert "memory-max" in c["limited.slice/batch.service"]["values"], c["limited.slice/batch.service"]
assert "memory-max" not in c["user.slice"]["values"], c["user.slice"]
PY
ok $? "sample: io unknown where the parent does not enable it, with why and its lists; no limit is no limit"
diag <"$T/unknown.err"
# The host's own hierarchy: a controller it binds to cgroup v1 (a hybrid
# host: memory, io, cpu, pids) is a cause of every cgroup of the line,
# limits included; one it has in cgroup v2 is never unknown.
if [ -n "$mnt" ]; then
  "$JC" sample --count 1 --interval 0.05 >"$T/host.json" 2>"$T/host.err"
  [ $? -eq 0 ] && python3 - "$T/host.json" "$mnt" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).readline())
v1 = set()
for line in open("/proc/cgroups"):
    f = line.split()
    if f and not f[0].startswith("#") and f[1] != "0":
        v1.add({"blkio": "io"}.get(f[0], f[0]))
u = d.get("unknown", {})
for ctrl, lists in (("memory", ["memory-current", "memory-max"]), ("io", ["disk_octets"]),
                    ("cpu", ["gauge-cpu_limit_cores"]), ("pids", [])):
    if ctrl in v1 and lists:
        assert ctrl in u, u
        assert "is bound to cgroup v1 on this host (/proc/cgroups), so %s, in cgroup v2, has none" % sys.argv[2] in u[ctrl]["why"], u
        assert all(l in u[ctrl]["lists"] for l in lists), u[ctrl]
    elif ctrl not in v1:
        assert ctrl not in u, u
print("# bound to cgroup v1: %s; unknown on the line: %s" % (sorted(v1 & {"cpu", "memory", "io", "pids"}), sorted(u)))
PY
  ok $? "sample on this host's hierarchy: every controller bound to cgroup v1 is unknown on the line, with its lists; no other"
fi

# SIGTERM ends an endless stream between two lines, with status 0.
"$JC" sample --interval 0.1 --root "$F/k6.1-systemd" >"$T/out" 2>"$T/err" &
pid=$!
lines_at_least() { [ "$(wc -l <"$1")" -ge "$2" ]; }
wait_until lines_at_least "$T/out" 3
kill -TERM "$pid"
wait "$pid"
status=$?
python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/out" &&
  [ "$status" -eq 0 ] && [ "$(wc -l <"$T/out")" -ge 3 ] && [ ! -s "$T/err" ]
ok $? "SIGTERM: status $status, $(wc -l <"$T/out") complete lines, nothing on stderr"
tap_done
