#!/usr/bin/env bash
# The user documentation as a reader follows it (tests/docs_check.py):
# README.md, CHANGELOG.md and every page of docs/ have closed code fences,
# render whole as GitHub renders them, have relative links and anchors
# that resolve, repository paths and commands that exist; the README
# stays within 250 lines, and its first screen says what it is, the two
# commands, how to install on a fleet and the man page (joule_cgroup(5)
# against the code: tests/reference_check.sh).  Then the examples the
# README and docs/configuration.md give are run as written:
#   - every `joule-cgroup` line of their shell blocks (sudo dropped: this
#     runs as root; `run` below a cgroup of this test's own, `check`
#     without a file on an /etc/collectd of its own in a private mount
#     namespace), exit 0 and JSON out; the keys of configuration.md's
#     `check` output are those check prints;
#   - `sudo ./demo.sh --seconds N` stops by itself with values printed;
#   - `make install` puts the files where the README says;
#   - the counts of value lists and of series (the values a writer
#     stores) the README, CHANGELOG and docs/metrics.md give, as
#     `joule-cgroup check` counts them on the Linux 6.12 fixture tree.
. "$(dirname "$0")/lib/common.sh"
need "python3" -- command -v python3
need "cmark-gfm (GitHub's markdown renderer; scripts/deps.sh --tests)" -- command -v cmark-gfm
python3 -B "$top_srcdir/tests/docs_check.py" "$top_srcdir" >"$T/tap"
status=$?
tap_relay "$T/tap"
[ "$TAP_N" -ge 40 ] && [ "$status" -le 1 ]
ok $? "docs_check.py ran its checks on every page (exit status $status)"

JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"

# ---- the joule-cgroup lines of the shell blocks ---------------------------
python3 - "$top_srcdir" >"$T/examples" <<'PY'
import os, re, shlex, sys
sys.path.insert(0, os.path.join(sys.argv[1], 'tests'))
import docs_check
for page in ('README.md', 'docs/configuration.md'):
    _, fences, _ = docs_check.parse(open(os.path.join(sys.argv[1], page), encoding='utf-8').read())
    for start, info, lines in fences:
        if info != 'sh':
            continue
        for i, line in enumerate(lines):
            words = shlex.split(line, comments=True)
            if words and words[0] == 'sudo':
                words = words[1:]
            if words and words[0] == 'joule-cgroup':
                print('%s:%d\t%s' % (page, start + 1 + i, shlex.join(words[1:])))
PY
etc="$T/etc-collectd" # Debian's collectd.conf, in short, and the snippet
mkdir -p "$etc/collectd.conf.d"
printf 'Interval 10\nLoadPlugin syslog\n<Include "/etc/collectd/collectd.conf.d">\n  Filter "*.conf"\n</Include>\n' \
  >"$etc/collectd.conf"
cp "$top_srcdir/conf/joule_cgroup.conf" "$etc/collectd.conf.d/"
n=0
while IFS=$'\t' read -r where args; do
  n=$((n + 1))
  eval "set -- $args"
  runner=()
  case $1 in
  run)
    if [ "$(id -u)" -ne 0 ] || [ -z "$mnt" ]; then
      need "root and a cgroup2 mount for $where" -- false
    fi
    [ -n "${parent:-}" ] || make_run_parent docs
    shift
    set -- run --root "$parent" "$@" ;;
  check)
    if [ $# -eq 1 ]; then # collectd's own file: ours, where collectd keeps it
      need "unshare (util-linux), as root, for $where" -- unshare -m true
      runner=(unshare -m sh -c 'mount --bind "$0" /etc/collectd && exec "$@"' "$etc")
    fi ;;
  esac
  (cd "$top_srcdir" && "${runner[@]}" "$JC" "$@") >"$T/ex$n.out" 2>"$T/ex$n.err"
  status=$?
  python3 -c 'import json, sys; [json.loads(l) for l in [open(sys.argv[1]).read()] if l.strip()]' "$T/ex$n.out"
  [ $? -eq 0 ] && [ "$status" -eq 0 ] && [ -s "$T/ex$n.out" ]
  ok $? "$where: joule-cgroup $args: exit 0, JSON" || diag <"$T/ex$n.err"
done <"$T/examples"
[ "$n" -ge 5 ]
ok $? "the README and configuration.md show $n joule-cgroup lines, each run"

# The keys of configuration.md's check output are check's own.
"$JC" check "$top_srcdir/conf/joule_cgroup.conf" >"$T/check.json" 2>/dev/null
python3 - "$top_srcdir/docs/configuration.md" "$T/check.json" <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding='utf-8').read()
shown = json.loads(re.search(r'\n```\n(\{\n  "config".*?\n\})\n```', page, re.S).group(1))
real = json.load(open(sys.argv[2]))
assert sorted(shown) == sorted(real), (sorted(shown), sorted(real))
assert sorted(shown['cgroups'][0]) == sorted(real['cgroups'][0])
assert shown['value_lists'] == sum(c['count'] for c in shown['cgroups'])
assert shown['series'] == sum(c['series'] for c in shown['cgroups'])
PY
ok $? "docs/configuration.md: check's output as check prints it (its keys, its counts)"

# ---- sudo ./demo.sh --seconds N ------------------------------------------
demo=$(grep -o 'sudo ./demo.sh --seconds [0-9]*' "$top_srcdir/README.md" | head -n 1)
secs=${demo##* }
if [ -n "$demo" ] && [ "$(id -u)" -eq 0 ]; then
  start=$SECONDS
  timeout $((secs + 300)) "$top_srcdir/demo.sh" --seconds "$secs" >"$T/demo.out" 2>"$T/demo.err"
  status=$?
  [ "$status" -eq 0 ] && grep -q 'joule_cgroup-root/' "$T/demo.out"
  ok $? "$demo: stops by itself (exit $status after $((SECONDS - start)) s), the plugin's values printed" ||
    tail -n 5 "$T/demo.err" | diag
else
  ok 1 "the README names the timed demo (sudo ./demo.sh --seconds N), run as root"
fi

# ---- make install --------------------------------------------------------
make -s -C "$top_builddir" install DESTDIR="$T/inst" >"$T/install.out" 2>&1
ok $? "make install DESTDIR=..." || diag <"$T/install.out"
missing=$(sed -n '/^\*\*From source\*\*/,/^## /p' "$top_srcdir/README.md" |
  grep -o '/usr/[A-Za-z0-9_./-]*[A-Za-z0-9_]' | sort -u | while read -r path; do
    [ -e "$T/inst$path" ] || echo "$path"
  done)
[ -z "$missing" ]
ok $? "every path the README's source install names is where make install puts it" || echo "$missing" | diag

# ---- the value lists and series the docs count -------------------------
# count_conf NAME LINE...: check on the 6.12 fixture tree with the LINEs
# in the block; $T/NAME.counts has "cgroup lists series" a cgroup.
count_conf() {
  local name=$1; shift
  { printf 'LoadPlugin joule_cgroup\n<Plugin joule_cgroup>\n  CgroupRoot "%s"\n  Select "**"\n' \
      "$FIXTURES/k6.12-debian"
    printf '  %s\n' "$@"
    printf '</Plugin>\n'; } >"$T/count.conf"
  "$JC" check "$T/count.conf" 2>/dev/null | python3 -c '
import json, sys
for c in json.load(sys.stdin)["cgroups"]:
    print(c["cgroup"], c["count"], c["series"])' >"$T/$name.counts"
}
count_conf default
# The first releases' set: every list but those added since.
count_conf all 'Values "*" "!memory-swap_peak"'
count_conf pressure 'Collect "+pressure"'
count_conf load 'Collect "+pressure"' 'Values "load-*"'
count_conf pressure_each 'Collect "+pressure"' 'Values "pressure-*"'
count_conf events 'Collect "+events"'
count_conf pids 'Collect "+pids"'
count_conf first 'Collect "cpu" "memory" "io" "limits" "pressure"' 'Values "*" "!load-*" "!memory-swap_peak"'
python3 - "$top_srcdir" "$T" >"$T/counts.tap" <<'PY'
import os, re, sys
top, tmp = sys.argv[1], sys.argv[2]
n = {}
for name in ('default', 'all', 'pressure', 'load', 'pressure_each', 'events',
             'pids', 'first'):
    n[name] = {}
    for line in open(os.path.join(tmp, name + '.counts')):
        cgroup, lists, series = line.split()
        n[name][cgroup] = (int(lists), int(series))
db, own, batch = 'system.slice/db.service', 'limited.slice', 'limited.slice/batch.service'

def page(path):  # the text with its lines joined
    return ' '.join(open(os.path.join(top, path), encoding='utf-8').read().split())

def plus(name, cgroup):  # what the lines of name add to the default
    return tuple(x - y for x, y in zip(n[name][cgroup], n['default'][cgroup]))

def point(good, what):  # a TAP line, for tap_relay
    print('%s 1 - %s' % ('ok' if good else 'not ok', what))

def holds(text, want, where):
    point(want in text, '%s: "%s"' % (where, want))

L, S = n['default'][db]
assert S > L  # ps_cputime, disk_octets and disk_ops carry two values
readme = page('README.md')
holds(readme, '%d value lists for a cgroup without a limit, stored as %d series'
      % (L, S), 'README')
holds(readme, '%d lists and %d series for one with its own `cpu.max` and '
      '`memory.max`' % n['default'][own], 'README')
holds(page('CHANGELOG.md'), 'A service without limits sends %d lists (%d series '
      'in each writer) instead of %d (%d series), one with its own `cpu.max` '
      'and `memory.max` %d (%d series)'
      % (n['default'][db] + n['all'][db] + n['default'][own]), 'CHANGELOG')
metrics = page('docs/metrics.md')
for label, counts in (('a service with no limit:', n['default'][db]),
                      ('the root cgroup (`root`):', n['default']['/'])):
    row = re.search(r'\| %s[^|]*\| (\d+) \| (\d+) \|' % re.escape(label), metrics)
    point(row and (int(row.group(1)), int(row.group(2))) == counts,
          'docs/metrics.md: %s %d lists, %d series' % ((label,) + counts))
for label, added in (('`pressure`: the stall counters', plus('pressure', db)),
                     ('`pressure` with `Values "load-*"`: the averages as `load`',
                      plus('load', db)),
                     ('`pressure` with `Values "pressure-*"`: the averages one by one',
                      plus('pressure_each', db)),
                     ('`events`', plus('events', db))):
    holds(metrics, '| %s | + %d | + %d |' % ((label,) + added), 'docs/metrics.md')
holds(metrics, '`count-pids_max` with a pids limit | + %d, + %d | + %d, + %d |'
      % (plus('pids', db)[0], plus('pids', batch)[0], plus('pids', db)[1],
         plus('pids', batch)[1]), 'docs/metrics.md')
holds(metrics, '`system.slice/db.service` sends %d lists (%d series) and '
      '`limited.slice/batch.service` (memory, CPU and pids limits) %d (%d series)'
      % (n['default'][db] + n['default'][batch]), 'docs/metrics.md')
holds(metrics, 'sends %d lists (%d series) for the latter' % n['first'][batch],
      'docs/metrics.md')
PY
status=$?
tap_relay "$T/counts.tap"
ok $status "the counts of value lists and series computed (joule-cgroup check, 6.12 fixture tree)"
tap_done
