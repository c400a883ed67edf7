#!/usr/bin/env bash
# joule-cgroup list on the fixture trees: for every [select ...] section of
# tests/fixtures/expected/*.txt, the command prints one JSON document whose
# cgroups are exactly the section's, each with the instance docs/configuration.md gives
# it (hashed long names, ~hash after a collision) and its relative path.
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
need "python3" -- command -v python3

cp -r "$FIXTURES" "$T/fixtures"
sh "$T/fixtures/make-hostile.sh"
F="$T/fixtures"

# compare.py EXPECTED SECTION < list output: one line per mismatch.
cat >"$T/compare.py" <<'PY'
import json, sys

def fnv1a32(text):
    h = 0x811C9DC5
    for b in text.encode():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h

def expected(path, section):
    rows, inside = [], False
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("["):
            inside = line == "[select %s]" % section
        elif inside and line and not line.startswith("#"):
            cols = line.split("\t")
            rows.append((cols[0], cols[1], cols[2] if len(cols) > 2 else ""))
    return rows

def instance(column, path):
    if column == "(root)":
        return "root"
    if column == "(long: hashed)":
        flat = path.replace("/", "_")
        return "%08x~%s" % (fnv1a32(path), flat[-(127 - 9):])
    return column

doc = json.load(sys.stdin)
got = {c["cgroup"]: c["instance"] for c in doc["cgroups"]}
bad = []
if len(got) != len(doc["cgroups"]):
    bad.append("a cgroup is listed twice")
if len(set(got.values())) != len(got):
    bad.append("two cgroups share an instance")
want = expected(sys.argv[1], sys.argv[2])
plain = 0
for column, path, note in want:
    meta = "/" if path == "(root)" else path
    name = instance(column, path)
    have = got.pop(meta, None)
    ok = have == name or (note == "collision" and
                          have == "%s~%08x" % (name, fnv1a32(path)))
    plain += have == name
    if not ok:
        bad.append("%s: instance %r, want %r" % (meta, have, name))
for meta in got:
    bad.append("%s: listed, but not expected" % meta)
for line in bad:
    print(line)
print("%d cgroups, %d wrong" % (len(want), len(bad)))
sys.exit(1 if bad or not want else 0)
PY

# list_case TREE SECTION: the [select SECTION] of TREE's expected file.
list_case() {
  local tree=$1 section=$2 args=() word mode=select
  for word in $section; do
    case $word in
      select) mode=select ;;
      ignore) mode=ignore ;;
      basename) args+=(--instance-from basename) ;;
      *) args+=("--$mode" "$word") ;;
    esac
  done
  "$JC" list --root "$F/$tree" "${args[@]}" >"$T/out" 2>"$T/err"
  local status=$? verdict
  verdict=$(python3 "$T/compare.py" "$F/expected/$tree.txt" "$section" <"$T/out" 2>&1)
  [ $? -eq 0 ] && [ "$status" -eq 0 ]
  ok $? "$tree, $section: ${verdict##*$'\n'}"
  # stderr: one warning per collision, nothing else (no file is read but
  # memory.events, whose OOM kills the core counts from init: hostile's
  # u64-counters has a counter beyond 2^63 - 1 there, which is no problem
  # of a file read for NotifyOOM alone).
  local collisions
  collisions=$(h="[select $section]" awk '$0 == ENVIRON["h"] { f = 1; next } /^\[/ { f = 0 }
    f && /\tcollision$/' "$F/expected/$tree.txt" | wc -l)
  [ "$(grep -c . "$T/err")" -eq "$((collisions / 2))" ] &&
    ! grep -v -e 'warning: cgroups ".*" and ".*" would both be reported as' "$T/err" | grep -q .
  ok $? "$tree, $section: stderr has $((collisions / 2)) collision warning(s) and nothing else"
  { echo "$verdict" | grep -v ' wrong$'; cat "$T/err"; } | head -10 | diag
}

# Every section, with the word "select" dropped: "[select A ignore B]".
for f in "$F"/expected/*.txt; do
  tree=$(basename "$f" .txt)
  while IFS= read -r header; do
    section=${header#\[select }
    section=${section%\]}
    set -f # the patterns are words for the command, not for the shell
    list_case "$tree" "$section"
    set +f
  done < <(grep '^\[select ' "$f")
done

# The document itself: the resolved root, walk order (parents first).
"$JC" list --root "$F/k6.1-systemd" --select '**' >"$T/out"
python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
paths = [c["cgroup"] for c in doc["cgroups"]]
assert doc["root"] == sys.argv[2], doc["root"]
assert paths[0] == "/" and doc["cgroups"][0]["instance"] == "root"
for i, p in enumerate(paths[1:], 1):   # a parent comes before its children
    if "/" in p:
        assert p.rsplit("/", 1)[0] in paths[:i], p
' "$T/out" "$(cd "$F/k6.1-systemd" && pwd -P)"
ok $? "list: root is the resolved --root, cgroups in walk order"

# The default root is the first cgroup2 mount, as for the plugin.
if [ -n "$mnt" ]; then
  "$JC" list >"$T/out" 2>"$T/err"
  python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["root"] == sys.argv[2]' "$T/out" "$mnt"
  ok $? "list without --root: the cgroup2 mount $mnt"
fi
# --instance-from container --runtime-root: the names Docker gave, as
# docs/containers.md lists them; without the runtime's files, path names.
cp -a "$FIXTURES/hosts/docker" "$T/docker-host"
"$JC" list --root "$T/docker-host/sys/fs/cgroup" --runtime-root "$T/docker-host" \
  --instance-from container --select 'system.slice/docker-*.scope' >"$T/rt.json" 2>"$T/rt.err"
ok $? "list --instance-from container --runtime-root: exit 0"
got=$(python3 -c 'import json,sys; print(" ".join(c["instance"] for c in json.load(open(sys.argv[1]))["cgroups"]))' "$T/rt.json")
[ "$got" = "root registry shop_db" ] && [ ! -s "$T/rt.err" ]
ok $? "  the runtime's names: $got; nothing on stderr"
"$JC" sample --root "$T/docker-host/sys/fs/cgroup" --runtime-root "$T/docker-host" \
  --instance-from container --select 'system.slice/docker-*.scope' --count 1 --interval 0.1 >"$T/rt.sample" 2>/dev/null
grep -q '"instance":"shop_db"\|"instance": "shop_db"' "$T/rt.sample"
ok $? "sample --instance-from container: the values of shop_db"
# Names no writer takes (tests/fixtures/hosts/docker-names: an overlong
# '/', a surrogate and a code point past U+10FFFF raw, compose labels with
# lone surrogates as JSON escapes): list and sample give those containers
# their path names, as the plugin does, and say why once each on stderr,
# every line UTF-8 (the bytes shown as \xNN).
cp -a "$FIXTURES/hosts/docker-names" "$T/names-host"
NAMES=(--root "$T/names-host/sys/fs/cgroup" --runtime-root "$T/names-host"
  --instance-from container --select 'system.slice/docker-*.scope')
"$JC" list "${NAMES[@]}" >"$T/names.json" 2>"$T/names.err"
ok $? "list on docker-names: exit 0"
"$JC" sample "${NAMES[@]}" --count 1 --interval 0.1 >"$T/names.sample" 2>"$T/names.serr"
ok $? "sample on docker-names: exit 0"
python3 - "$T/names.json" "$T/names.sample" "$T/names.err" "$T/names.serr" <<'PY'
import json, sys
want = ["root", "registry", "shop_db"] + ["system.slice_docker-%s.scope" % i for i in (
    "c0af" * 16, ("eda080" * 11)[:64], "f4908080" * 8, "d800dfff" * 8)]
listed = [c["instance"] for c in json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))["cgroups"]]
assert sorted(listed) == sorted(want), listed
sampled = set()
for line in open(sys.argv[2], "rb").read().decode("utf-8").splitlines():
    doc = json.loads(line)
    sampled |= {c["instance"] for c in doc.get("cgroups", [])} if "cgroups" in doc else {doc.get("instance")}
assert sampled - {None} == set(want), sampled
for err in sys.argv[3:5]:
    lines = open(err, "rb").read().decode("utf-8").splitlines()  # strict UTF-8
    assert len(lines) == 4 and len(set(lines)) == 4, lines
    for shown in (r"web\xc0\xafx", r"web\xed\xa0\x80x", r"web\xf4\x90\x80\x80x",
                  r"p\xed\xa0\x80q_s\xed\xbf\xbfv"):
        assert sum('names the container "%s"' % shown in l for l in lines) == 1, (shown, lines)
PY
ok $? "list and sample on docker-names: those four keep their path names, each said once on stderr, all of it UTF-8"
diag <"$T/names.err"
# Every option that takes a path takes it relative or absolute alike:
# --root, --runtime-root and --proc-root from the working directory give
# the same names as their absolute paths (the plugin's keys, which the
# core checks, take absolute paths only).
(cd "$T" && "$JC" list --root docker-host/sys/fs/cgroup --runtime-root ./docker-host \
  --instance-from container --select 'system.slice/docker-*.scope' >"$T/rel.json" 2>"$T/rel.err") &&
  cmp -s "$T/rt.json" "$T/rel.json" && [ ! -s "$T/rel.err" ]
ok $? "list --root and --runtime-root relative to the working directory: the same list as absolute"
(cd "$T/docker-host/var" && "$JC" sample --root ../sys/fs/cgroup --runtime-root .. \
  --instance-from container --select 'system.slice/docker-*.scope' --proc-root ../../docker-host/proc \
  --gpu-library ./no-such-libnvidia-ml.so --count 1 --interval 0.1 >"$T/rel.sample" 2>"$T/rel.err")
[ $? -eq 0 ] && grep -q '"instance":"shop_db"' "$T/rel.sample" && ! grep -q 'absolute' "$T/rel.err"
ok $? "sample --runtime-root .., --proc-root and --gpu-library relative: taken from the working directory"
grep absolute "$T/rel.err" | diag
# --config: the block's Select, InstanceFrom, RuntimeRoot and CgroupRoot,
# as sample --config and check take them; the relative file too.
mkdir -p "$T/lc"
cat >"$T/lc/collectd.conf" <<CONF
LoadPlugin joule_cgroup
<Plugin joule_cgroup>
  CgroupRoot "$T/docker-host/sys/fs/cgroup"
  Select "system.slice/docker-*.scope"
  InstanceFrom "container"
  RuntimeRoot "$T/docker-host"
  Values "percent-cpu"
</Plugin>
CONF
(cd "$T/lc" && "$JC" list --config collectd.conf >"$T/lc.json" 2>"$T/lc.err") &&
  cmp -s "$T/rt.json" "$T/lc.json"
ok $? "list --config FILE: the block's selection and names, the same list as its options"
diag <"$T/lc.err"
"$JC" list --config "$T/lc/collectd.conf" --select '*' >/dev/null 2>"$T/lc.err"
[ $? -eq 2 ] && grep -q 'give them there, not as options' "$T/lc.err"
ok $? "list --config with --select: refused, the block gives the selection"
"$JC" list --root "$T/docker-host/sys/fs/cgroup" --runtime-root "$T/docker-host" >/dev/null 2>"$T/rt.err"
[ $? -ne 0 ] && grep -q 'is used by InstanceFrom "container" and Collect "disk" only' "$T/rt.err"
ok $? "--runtime-root without --instance-from container or --collect disk: refused, with the reason"
# No runtime's state (RuntimeRoot an empty directory): the path names, and
# on stderr one line for the cause, with the file looked for and the mount.
mkdir "$T/bare"
"$JC" list --root "$T/docker-host/sys/fs/cgroup" --runtime-root "$T/bare" \
  --instance-from container --select 'system.slice/docker-*.scope' >"$T/rt.json" 2>"$T/rt.err"
[ $? -eq 0 ] && [ "$(grep -c . "$T/rt.err")" -eq 1 ] &&
  grep -q "^joule-cgroup: warning: InstanceFrom \"container\": no name for cgroup \"system.slice/docker-[0-9a-f]*.scope\": looked for Docker's $T/bare/var/lib/docker/containers/[0-9a-f]*/config.v2.json; $T/bare/var/lib/docker is not there: a collectd in a container mounts the host's /var/lib/docker read-only at that path" "$T/rt.err"
ok $? "list without the runtime's state: one line on stderr for both containers, the file and the mount"
diag <"$T/rt.err"
# A runtime directory that links out of RuntimeRoot (absolute, as a
# runtime's own links are): nothing out there is opened, the name it holds
# is not used (strace: every open the command makes).
if command -v strace >/dev/null; then
  mkdir -p "$T/outside"
  echo '{"Name":"/escaped"}' >"$T/outside/config.v2.json"
  id=6e928e8a9ee5e3c6d8d45ee04103cff0a0827b96cdd3aa5c7d29d912fc28b899
  rm -rf "$T/docker-host/var/lib/docker/containers/$id"
  ln -s "$T/outside" "$T/docker-host/var/lib/docker/containers/$id"
  strace -f -qq -e trace=open,openat,openat2 -o "$T/strace" "$JC" list \
    --root "$T/docker-host/sys/fs/cgroup" --runtime-root "$T/docker-host" \
    --instance-from container --select 'system.slice/docker-*.scope' >"$T/rt.json" 2>/dev/null
  ! grep -q escaped "$T/rt.json" && ! grep "outside" "$T/strace" | grep -qv '= -1 ' &&
    ! grep "$id/config.v2.json" "$T/strace" | grep -qv '= -1 '
  ok $? "a link out of RuntimeRoot: nothing outside is opened, its name is not used"
  grep -e outside -e "$id/config" "$T/strace" | head -3 | diag
fi
tap_done
