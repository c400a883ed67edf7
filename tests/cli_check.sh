#!/usr/bin/env bash
# joule-cgroup check against the real collectd 5.12 (docs/configuration.md,
# checking a configuration):
#   - every shipped file of conf/ passes: exit 0, its block found, and no
#     WARNING or ERROR on this host;
#   - broken configurations exit 1 with the message collectd gives or the
#     one it should (an unknown key, a bad Values name at its own line,
#     two blocks through an Include, an unreadable Include, a file of an
#     included directory collectd skips, a block before its LoadPlugin,
#     no newline at the end, a Filter that leaves out the one file
#     named), and collectd agrees;
#   - the syntax: lines collectd's scanner treats in odd ways, and random
#     ones, in a block as an unknown key: collectd's ERROR names the values
#     as it parsed them, check's names them the same;
#   - what is sent: for one configuration on the 6.12 fixture tree, the
#     value lists of each cgroup check prints are those collectd writes,
#     and those `sample --config` prints; its series are the values of
#     collectd's csv files.
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
need "python3" -- command -v python3
need_collectd
need "setpriv (util-linux)" -- command -v setpriv

# ---- the shipped files ---------------------------------------------------
for conf in "$top_srcdir"/conf/*.conf; do
  name=conf/${conf##*/}
  "$JC" check "$conf" >"$T/out" 2>"$T/err"
  status=$?
  line=$(grep -n '^<Plugin joule_cgroup>' "$conf" | cut -d: -f1)
  python3 - "$T/out" "$conf:$line" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["block"] == sys.argv[2], (d["block"], sys.argv[2])
assert d["cgroup_count"] == len(d["cgroups"]) >= 1
assert d["value_lists"] == sum(c["count"] for c in d["cgroups"])
assert d["series"] == sum(c["series"] for c in d["cgroups"])
assert all(c["count"] == len(c["values"]) <= c["series"] for c in d["cgroups"])
PY
  [ $? -eq 0 ] && [ "$status" -eq 0 ]
  ok $? "$name: exit 0, its block at line $line, the cgroups and lists counted"
  # A Select that picks nothing here is said (below): allowed where list
  # agrees that it picks no cgroup on this host (only the root listed).
  while IFS= read -r said; do
    pat=$(printf '%s\n' "$said" |
      sed -n 's/^joule-cgroup: warning: [^ ]*:[0-9]*: Select "\(.*\)" picks no cgroup below .*/\1/p')
    [ -n "$pat" ] && [ "$("$JC" list --select "$pat" | grep -c '"cgroup": ')" -eq 1 ] && continue
    printf '%s\n' "$said"
  done <"$T/err" | grep -v '^joule-cgroup: info: ' >"$T/said"
  [ ! -s "$T/said" ]
  ok $? "$name: no warning or error on this host (but for a Select that picks nothing here)"
  diag <"$T/said"
done

# A Select that picks no cgroup here: a warning at its own line, exit 0.
printf 'LoadPlugin joule_cgroup\n<Plugin joule_cgroup>\n  CgroupRoot "%s"\n  Select "system.slice/*.service"\n  Select "system.slice/*.servce" "nosuch.slice/**"\n</Plugin>\n' \
  "$FIXTURES/k6.12-debian" >"$T/unpicked.conf"
"$JC" check "$T/unpicked.conf" >"$T/out" 2>"$T/err"
status=$?
grep -v '^joule-cgroup: info: ' "$T/err" >"$T/said"
sel_warning() { printf 'joule-cgroup: warning: %s:5: Select "%s" picks no cgroup below %s on this host now' \
  "$T/unpicked.conf" "$1" "$FIXTURES/k6.12-debian"; }
[ "$status" -eq 0 ] && [ "$(wc -l <"$T/said")" -eq 2 ] &&
  grep -qF "$(sel_warning 'system.slice/*.servce')" "$T/said" &&
  grep -qF "$(sel_warning 'nosuch.slice/**')" "$T/said"
ok $? "a Select that picks no cgroup here: exit $status, a warning at its line for each of two, none for the one that picks" ||
  diag <"$T/said"

# ---- broken configurations ----------------------------------------------
root="$T/root"
mkdir -p "$root"
echo "cpu memory" >"$root/cgroup.controllers"
head_conf() { # PluginDir and LoadPlugin for the build's plugin
  printf 'PluginDir "%s"\nLoadPlugin joule_cgroup\n' "$PLUGIN_BUILDDIR"
}
# collectd's own leaks when it stops at a bad file (wordexp's, the
# parser's) are not the plugin's: the sanitizer pass looks for leaks in
# the run below that collectd ends normally.
stopping_env=("${COLLECTD_ENV[@]}")
[ "${#stopping_env[@]}" -eq 0 ] || stopping_env+=("ASAN_OPTIONS=detect_leaks=0:halt_on_error=0")
# run_both NAME [RUNNER...]: collectd -T and check on $T/NAME/collectd.conf
# (as RUNNER runs them); their status in cd_status and jc_status, their
# output in collectd.out (which the sanitizer pass reads too) and jc.err.
run_both() {
  local d=$T/$1; shift
  (cd "$d" && timeout 20 "$@" "${stopping_env[@]}" "$COLLECTD_BIN" -T -C collectd.conf >collectd.out 2>&1)
  cd_status=$?
  (cd "$d" && "$@" "$JC" check collectd.conf >jc.out 2>jc.err)
  jc_status=$?
}
# case_dir NAME: $T/NAME, with collectd.conf from stdin
case_dir() { mkdir -p "$T/$1"; cat >"$T/$1/collectd.conf"; }
# same_message NAME: collectd's ERROR text is check's, past its "FILE:LINE: "
same_message() {
  local want got
  want=$(sed -n 's/^joule_cgroup plugin: //p' "$T/$1/collectd.out" | grep -v '^version' | head -n 1)
  got=$(sed -n 's/^joule-cgroup: [^ ]*:[0-9]*: //p' "$T/$1/jc.err" | head -n 1)
  [ -n "$want" ] && [ "$want" = "$got" ]
}

# refused_key NAME KEY-LINE WHERE MESSAGE: a block on $root with KEY-LINE
# refused by both, with the plugin's message, check's at WHERE.
refused_key() {
  { head_conf; printf '<Plugin joule_cgroup>\n  CgroupRoot "%s"\n  %s\n</Plugin>\n' "$root" "$2"; } |
    case_dir "$1"
  run_both "$1"
  [ "$cd_status" -ne 0 ] && [ "$jc_status" -eq 1 ] && same_message "$1" &&
    grep -qF "joule-cgroup: collectd.conf:$3: $4" "$T/$1/jc.err"
  ok $? "$1: both refuse ${2//$'\n'/ }, with the plugin's message; check at line $3"
  diag <"$T/$1/jc.err"
}
refused_key unknown-key 'Bogus "x"' 5 'Bogus "x": unknown option'
refused_key bad-values 'Values "memory-curent"' 5 'Values "memory-curent": matches no value list'
refused_key second-values $'Values "percent-cpu"\n  Values "gauge-cpu_cores" "load-*"' 6 \
  'Values "load-*": matches only value lists of Collect "pressure", which is not collected'

# The package's snippet enabled beside a receiver's file: two blocks.
mkdir -p "$T/two-blocks/conf.d"
cp "$top_srcdir/conf/joule_cgroup.conf" "$top_srcdir/conf/influxdb.conf" "$T/two-blocks/conf.d/"
{ printf 'PluginDir "%s"\n<Include "conf.d">\n  Filter "*.conf"\n</Include>\n' "$PLUGIN_BUILDDIR"; } |
  case_dir two-blocks
run_both two-blocks
[ "$cd_status" -ne 0 ] && grep -q 'only one <Plugin joule_cgroup> block is allowed' "$T/two-blocks/collectd.out" &&
  [ "$jc_status" -eq 1 ] &&
  grep -q '^joule-cgroup: conf.d/joule_cgroup.conf:[0-9]*: only one <Plugin joule_cgroup> block is allowed (the first is at conf.d/influxdb.conf:[0-9]*); collectd stops$' \
    "$T/two-blocks/jc.err"
ok $? "two blocks through an Include: collectd stops, check names both"
cat "$T/two-blocks/jc.err" | diag

# Unreadable files: root without CAP_DAC_OVERRIDE reads only by the mode.
nodac=(setpriv --inh-caps=-all --bounding-set=-dac_override,-dac_read_search)
mkdir -p "$T/unreadable/d"
printf '<Plugin joule_cgroup>\n  Select "*"\n</Plugin>\n' >"$T/unreadable/secret.conf"
chmod 000 "$T/unreadable/secret.conf"
{ head_conf; printf 'Include "secret.conf"\n'; } | case_dir unreadable
run_both unreadable "${nodac[@]}"
[ "$cd_status" -ne 0 ] && grep -q "Cannot read file" "$T/unreadable/collectd.out" &&
  [ "$jc_status" -eq 1 ] &&
  grep -q '^joule-cgroup: collectd.conf:3: Include "secret.conf": secret.conf: cannot read it: Permission denied' "$T/unreadable/jc.err"
ok $? "an Include collectd cannot read: both stop"
cat "$T/unreadable/jc.err" | diag

mkdir -p "$T/unreadable-dir/d"
printf 'Interval 10\n' >"$T/unreadable-dir/d/a.conf"
printf 'Interval 20\n' >"$T/unreadable-dir/d/b.conf"
chmod 000 "$T/unreadable-dir/d/b.conf"
{ head_conf; printf 'Include "d"\n'; } | case_dir unreadable-dir
run_both unreadable-dir "${nodac[@]}"
[ "$cd_status" -eq 0 ] && grep -q "Cannot read file .d/b.conf" "$T/unreadable-dir/collectd.out" &&
  [ "$jc_status" -eq 1 ] &&
  grep -q '^joule-cgroup: d/b.conf: cannot read it: Permission denied; collectd leaves d/b.conf out (ERROR) and reads on$' \
    "$T/unreadable-dir/jc.err" && [ -s "$T/unreadable-dir/jc.out" ]
ok $? "a file of an included directory collectd cannot read: collectd reads on, check exits 1 and reports the rest"
cat "$T/unreadable-dir/jc.err" | diag

{ printf 'PluginDir "%s"\n<Plugin joule_cgroup>\n  Select "*"\n</Plugin>\nLoadPlugin joule_cgroup\n' "$PLUGIN_BUILDDIR"; } |
  case_dir before-load
run_both before-load
grep -q "There is configuration for the .joule_cgroup' plugin, but the plugin isn't loaded" "$T/before-load/collectd.out" &&
  [ "$jc_status" -eq 1 ] && grep -q 'collectd.conf:2: <Plugin joule_cgroup> comes before LoadPlugin joule_cgroup' "$T/before-load/jc.err"
ok $? "a block before its LoadPlugin: collectd ignores it, check says so"

printf 'Interval 10\n' | case_dir no-load
run_both no-load
[ "$jc_status" -eq 1 ] && grep -q '^joule-cgroup: collectd.conf: no LoadPlugin joule_cgroup' "$T/no-load/jc.err"
ok $? "no LoadPlugin: check says the plugin does not run"

{ head_conf; printf 'Interval 10'; } | case_dir no-newline
run_both no-newline
[ "$cd_status" -ne 0 ] && grep -q "Parse error" "$T/no-newline/collectd.out" && [ "$jc_status" -eq 1 ] &&
  grep -q 'collectd.conf:3: the file ends without a newline after the values of Interval' "$T/no-newline/jc.err"
ok $? "no newline after the last line: both stop"

printf 'Interval 10\n' >"$T/other.conf"
{ head_conf; printf '<Include "%s/other.conf">\n  Filter "*.txt"\n</Include>\n' "$T"; } | case_dir filtered
run_both filtered
[ "$cd_status" -ne 0 ] && grep -q "Unable to read config file" "$T/filtered/collectd.out" && [ "$jc_status" -eq 1 ] &&
  grep -q 'does not match the Filter "\*.txt"' "$T/filtered/jc.err"
ok $? "an Include of a file its Filter leaves out: both stop"

{ head_conf; printf 'Include "nothing-here/*.conf"\n<Plugin joule_cgroup>\n  CgroupRoot "%s"\n</Plugin>\n' "$root"; } |
  case_dir missing
run_both missing
[ "$cd_status" -eq 0 ] && [ "$jc_status" -eq 0 ] &&
  grep -q '^joule-cgroup: warning: collectd.conf:3: Include "nothing-here/\*.conf": nothing-here/\*.conf: No such file or directory; collectd goes on without it$' "$T/missing/jc.err"
ok $? "an Include that matches nothing: a warning, exit 0, as collectd goes on"

# ---- the syntax, as collectd parses it -----------------------------------
cat >"$T/syntax.py" <<'PY'
import os, random, re, subprocess, sys
collectd, jc, plugindir, tmp = sys.argv[1:5]
runner = sys.argv[5:]   # collectd's environment (the sanitizer pass)
cases = [
    'Zz "a\\"b" 1.5 true on yes off no True 0x10 010 -3 +.5 1e5 1.2e+3 abc_9',
    'Zz 1.2.3.456 :: 1::2 a::b:c [fe80::1]:8080 256.1.1.1 1.2.3.4:99999 '
    '1:2:3:4:5:6:7:8 1:2:3:4:5:6:1.2.3.4 ::ffff:1.2.3.4 dead:beef',
    'Zz a-b c:d e.f ; x',
    'Zz 1.5e3 .5 5. 08 0x 0xg onion off_ +1 -x .x 1.',
    'Zz "multi\\\n   line" x',
    'Zz "multi\n   line"',
    'Zz "x\\ny\\\\z" # "comment"',
    'Zz foo \\\n bar',
    'Zz "a\\\r\n  b" x',
    'Zz "a\\\n  b\\\n c" "d"',
    'Zz "a" "b\\"',
]
random.seed(31)
pieces = ['"', '\\', '\n', '\r\n', ' ', '\t', '#', 'a', 'Zz', '1', '1.5', '-',
          'x y', '"q"', '\\\n', '<', '>', '/', 'true', 'off', '"a\\"b"',
          '1.2.3.4', '::1', ';', '\b', 'fe80::', '[::1]:8', '0x1f']
for _ in range(40):
    cases.append('Zz ' + ''.join(random.choice(pieces) for _ in range(random.randint(1, 14))))
bad = 0
for i, body in enumerate(cases):
    conf = os.path.join(tmp, 'syntax%d.conf' % i)
    with open(conf, 'w', newline='') as f:
        f.write('PluginDir "%s"\nLoadPlugin joule_cgroup\n<Plugin joule_cgroup>\n%s\n</Plugin>\n'
                % (plugindir, body))
    a = subprocess.run(runner + [collectd, '-T', '-C', conf], capture_output=True, timeout=30)
    b = subprocess.run([jc, 'check', conf], capture_output=True, timeout=30)
    ao = (a.stdout + a.stderr).decode('latin1')
    bo = b.stderr.decode('latin1')
    ma = re.search(r'joule_cgroup plugin: (.*?): unknown option', ao, re.S)
    mb = re.search(r'\.conf:\d+: (.*?): unknown option', bo, re.S)
    if ma:
        agree = mb is not None and ma.group(1) == mb.group(1)
    else:   # collectd's parser refused it, or the item was lost: check too
        agree = 'Parse error' in ao and b.returncode == 1 and not mb
    if not agree:
        bad += 1
        print('# %r\n#   collectd: %r\n#   check:    %r' % (body, ao[-300:], bo[-300:]))
print('%d lines, %d read differently' % (len(cases), bad))
sys.exit(1 if bad else 0)
PY
verdict=$(python3 "$T/syntax.py" "$COLLECTD_BIN" "$JC" "$PLUGIN_BUILDDIR" "$T" "${COLLECTD_ENV[@]}")
ok $? "the syntax as collectd reads it: ${verdict##*$'\n'}"
echo "$verdict" | grep '^#' | head -20

# ---- what is sent: check, collectd and sample on one configuration -------
fx="$T/k6.12"
cp -r "$FIXTURES/k6.12-debian" "$fx"
dir="$T/sent"
write_conf "$dir" "  CgroupRoot \"$fx\"
  Select \"**\"
  Ignore \"user.slice/**\"
  Collect \"cpu\" \"memory\" \"io\" \"limits\" \"events\" \"pids\"
  Values \"percent-cpu\" \"!disk_ops\" \"memory-anon\"
  PerDevice true"
"$JC" check "$dir/collectd.conf" >"$T/check.json" 2>"$T/check.err"
ok $? "check on the fixture tree's configuration: exit 0"
run_collectd "$dir" 3
"$JC" sample --config "$dir/collectd.conf" --count 1 --interval 0.2 >"$T/sample.json" 2>"$T/sample.err"
ok $? "sample --config on it: exit 0"
python3 - "$T/check.json" "$dir/csv/testhost" "$T/sample.json" <<'PY'
import json, os, re, sys
check = {c["instance"]: set(c["values"]) for c in json.load(open(sys.argv[1]))["cgroups"]}
sent = {}
for d in os.listdir(sys.argv[2]):
    if d.startswith("joule_cgroup-"):
        sent[d[len("joule_cgroup-"):]] = {re.sub(r"-\d{4}-\d\d-\d\d$", "", f)
                                           for f in os.listdir(os.path.join(sys.argv[2], d))}
sample = {c["instance"]: set(c["values"]) for c in json.loads(open(sys.argv[3]).readline())["cgroups"]}
bad = 0
for name in sorted(set(check) | set(sent) | set(sample)):
    a, b, c = check.get(name), sent.get(name), sample.get(name)
    if a != b or a != c:
        bad += 1
        print("# %s: check %s, collectd %s, sample %s" % (name, sorted(a or []), sorted(b or []), sorted(c or [])))
print("%d cgroups, %d value lists: %d differ" % (len(check), sum(map(len, check.values())), bad))
sys.exit(1 if bad or len(check) < 5 else 0)
PY
ok $? "check, collectd's csv and sample --config: the same cgroups and value lists"
# The series check counts are the values collectd writes: a csv file's
# columns after its epoch, per list (ps_cputime: user, syst).
python3 - "$T/check.json" "$dir/csv/testhost" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
bad = 0
for c in doc["cgroups"]:
    d = os.path.join(sys.argv[2], "joule_cgroup-" + c["instance"])
    written = sum(len(open(os.path.join(d, f)).readline().strip().split(",")) - 1
                  for f in os.listdir(d))
    if written != c["series"]:
        bad += 1
        print("# %s: check %d series, collectd's csv %d values" % (c["instance"], c["series"], written))
assert doc["series"] == sum(c["series"] for c in doc["cgroups"]) > doc["value_lists"]
sys.exit(1 if bad else 0)
PY
ok $? "check's series of each cgroup are the values collectd's csv writes ($(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["value_lists"], "lists,", d["series"], "series")' "$T/check.json"))"

# check --config FILE, as list and sample take it: the same report as
# check FILE; both at once refused; a relative FILE from the working
# directory.
"$JC" check --config "$dir/collectd.conf" >"$T/check2.json" 2>/dev/null &&
  (cd "$dir" && "$JC" check collectd.conf >"$T/check3.json" 2>/dev/null) &&
  python3 - "$T/check.json" "$T/check2.json" "$T/check3.json" <<'PY'
import json, sys
a, b, c = (json.load(open(p)) for p in sys.argv[1:4])
for d in (a, b, c):
    d.pop("config"), d.pop("block")
assert a == b == c, (a, b, c)
PY
ok $? "check --config FILE and check with a relative FILE: the same report as check FILE"
"$JC" check --config "$dir/collectd.conf" "$dir/collectd.conf" >/dev/null 2>"$T/both.err"
[ $? -eq 2 ] && grep -q 'FILE or --config FILE, not both' "$T/both.err"
ok $? "check --config FILE FILE: a usage error, exit 2"

# ---- InstanceFrom "container" with no runtime's state (docs/containers.md)
cp -a "$FIXTURES/hosts/docker" "$T/docker-host"
mkdir "$T/bare"
dir="$T/bare-conf"
write_conf "$dir" "  CgroupRoot \"$T/docker-host/sys/fs/cgroup\"
  Select \"system.slice/docker-*.scope\"
  InstanceFrom \"container\"
  RuntimeRoot \"$T/bare\""
"$JC" check "$dir/collectd.conf" >/dev/null 2>"$T/bare.err"
[ $? -eq 0 ] &&
  grep -q '^joule-cgroup: warning: InstanceFrom "container": 2 container cgroups and no container runtime.s state below RuntimeRoot' "$T/bare.err" &&
  [ "$(grep -c 'looked for Docker' "$T/bare.err")" -eq 1 ] &&
  grep -q "$T/bare/var/lib/docker is not there: a collectd in a container mounts the host's /var/lib/docker read-only" "$T/bare.err"
ok $? "InstanceFrom \"container\" and no runtime state: a warning, and one line for Docker's two, with the path and the mount"
diag <"$T/bare.err"

# ---- lists a step sends at the end of a read (Collect "+disk") -----------
# Each container's own lists come first, cgroup after cgroup, the disk
# step's after all of them: check counts both under their cgroup, as
# sample --config shows them.
dir="$T/disk-conf"
write_conf "$dir" "  CgroupRoot \"$T/docker-host/sys/fs/cgroup\"
  Select \"system.slice/docker-*.scope\"
  InstanceFrom \"container\"
  RuntimeRoot \"$T/docker-host\"
  Collect \"+disk\""
"$JC" check "$dir/collectd.conf" >"$T/disk-check.json" 2>/dev/null &&
  "$JC" sample --config "$dir/collectd.conf" --count 1 >"$T/disk-sample.json" 2>/dev/null
python3 - "$T/disk-check.json" "$T/disk-sample.json" <<'PY'
import json, sys
check = json.load(open(sys.argv[1]))["cgroups"]
line = json.loads(open(sys.argv[2]).readline())["cgroups"]
sample = {c["instance"]: sorted(c["values"]) for c in line}
disk = ["bytes-layer", "bytes-logs", "duration-layer_age", "files-layer"]
ok = [c["instance"] for c in check
      if c["instance"] != "root" and len(c["values"]) == len(set(c["values"]))
      and set(disk) <= set(c["values"]) and sorted(c["values"]) == sample.get(c["instance"])]
print(" ".join(ok))
sys.exit(0 if ok == ["registry", "shop_db"] and len(check) == 3 and len(line) == 3 else 1)
PY
ok $? "Collect \"+disk\": check lists each container's disk lists (sent at the end of the read) under it, once, as sample --config does in one object a cgroup" ||
  cat "$T/disk-check.json" | diag
tap_done
