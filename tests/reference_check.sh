#!/usr/bin/env bash
# The reference against the code (tests/reference_check.py): every key,
# Collect group and value list the code knows is in docs/configuration.md
# and docs/metrics.md, and nothing else is; the names each receiver shows
# follow from types.db.  Then joule_cgroup(5), which the build makes from
# those pages: it renders without a warning, as man shows it, and names
# every key and list.
. "$(dirname "$0")/lib/common.sh"
need "python3" -- command -v python3
lists=$top_builddir/tests/reference_lists
page=$top_builddir/man/joule_cgroup.5
types_db=${COLLECTD_TYPES_DB:-/usr/share/collectd/types.db}
need "collectd's types.db" -- test -r "$types_db"
"$lists" >"$T/lists"
ok $? "tests/reference_lists prints the core's catalogue"
python3 -B "$top_srcdir/tests/reference_check.py" "$top_srcdir" "$T/lists" "$types_db" >"$T/tap"
status=$?
tap_relay "$T/tap"
[ "$status" -le 1 ] && grep -q '^1\.\.' "$T/tap"
ok $? "reference_check.py ran to its end (exit status $status)"

# `joule-cgroup check`, held to the catalogue: on the 6.12 fixture tree,
# with each group alone, the default set and every group of a cgroup
# file (but cgroups: the tree has no cgroup.stat; daemon_fixture.sh reads
# one), the lists it counts for three cgroups are those the catalogue
# says such a cgroup sends (reference_check.sent): a service without a
# limit, one below a slice's CPU, memory and pids limits with a
# memory.high of its own, and that slice, under its own CPU quota.
if [ -x "$top_builddir/joule-cgroup" ]; then
  sets="cpu memory io limits pressure events pids default all"
  for g in $sets; do
    case $g in
    default) collect='"cpu" "memory" "io" "limits"' ;;
    all) collect='"cpu" "memory" "io" "limits" "pressure" "events" "pids"' ;;
    *) collect="\"$g\"" ;;
    esac
    printf 'LoadPlugin joule_cgroup\n<Plugin joule_cgroup>\n  CgroupRoot "%s"\n  Select "**"\n  Collect %s\n</Plugin>\n' \
      "$FIXTURES/k6.12-debian" "$collect" >"$T/check-$g.conf"
    "$top_builddir/joule-cgroup" check "$T/check-$g.conf" >"$T/check-$g.json" 2>/dev/null
  done
  python3 -B - "$top_srcdir" "$T" "$types_db" $sets >"$T/check.tap" <<'PY'
import json, os, sys
sys.path.insert(0, sys.argv[1] + '/tests')
import reference_check as rc
top, tmp, tdb_path, sets = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
lists = [l.rstrip('\n').split('\t')[1:] for l in open(os.path.join(tmp, 'lists')) if l.startswith('list\t')]
cat = rc.catalogue(lists, rc.types_db(tdb_path))
cgroups = {
    'system.slice/db.service': {},
    'limited.slice/batch.service': {'limits': ('cpu.max', 'memory.max', 'memory.high', 'pids.max')},
    'limited.slice': {'limits': ('cpu.max', 'memory.max', 'pids.max'), 'quota': True},
}
groups = {'default': ('cpu', 'memory', 'io', 'limits'),
          'all': ('cpu', 'memory', 'io', 'limits', 'pressure', 'events', 'pids')}
bad, n = [], 0
for g in sets:
    doc = json.load(open(os.path.join(tmp, 'check-%s.json' % g)))
    got = {c['cgroup']: (sorted(c['values']), c['series']) for c in doc['cgroups']}
    for cgroup, facts in cgroups.items():
        want = rc.sent(cat, groups.get(g, (g,)), **facts)
        names = sorted(l['name'] for l in want)
        have = got.get(cgroup, ([], 0))
        n += 1
        if have != (names, sum(l['series'] for l in want)):
            bad.append('%s, Collect %s: check %s, the catalogue %s' % (cgroup, g, have, (names, sum(l['series'] for l in want))))
print('%s 1 - joule-cgroup check counts what the catalogue says each cgroup sends (%d cases: %d sets of groups, 3 cgroups)' % (
    'not ok' if bad else 'ok', n, len(sets)))
for b in bad:
    print('# ' + b)
PY
  tap_relay "$T/check.tap"
fi

# make rebuilds the page whenever a page of the docs changed; made here
# from the tree as it is, it has as many lines.
python3 -B "$top_srcdir/scripts/mkman.py" --set VERSION=0 --set docdir=/d \
  --set plugindir=/p --set bindir=/b "$top_srcdir/man/joule_cgroup.5.in" \
  "$top_srcdir/docs/configuration.md" "$top_srcdir/docs/metrics.md" >"$T/page.5"
[ "$(grep -c '' "$T/page.5")" = "$(grep -c '' "$page")" ]
ok $? "the built joule_cgroup(5) is the page scripts/mkman.py makes of the docs now"
groff -man -Tutf8 -ww -z "$page" 2>"$T/warn"
[ ! -s "$T/warn" ]
ok $? "joule_cgroup(5) renders without a groff warning" || diag <"$T/warn"
if command -v man >/dev/null; then
  MANWIDTH=80 man -l "$page" >"$T/man.txt" 2>"$T/man.err"
  ok $? "man -l renders joule_cgroup(5) ($(wc -l <"$T/man.txt") lines at 80 columns)"
  missing=$(awk -F'\t' '$1 == "list" { print $2 }' "$T/lists" | while read -r name; do
    grep -qF -- "$name" "$T/man.txt" || echo "$name"; done)
  [ -z "$missing" ]
  ok $? "the rendered page names every value list of the code" || echo "$missing" | diag
  missing=$(python3 -B - "$top_srcdir" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + '/tests')
import reference_check
for k in sorted(reference_check.code_keys(sys.argv[1])):
    print(k)
PY
)
  missing=$(for k in $missing; do grep -qw -- "$k" "$T/man.txt" || echo "$k"; done)
  [ -z "$missing" ]
  ok $? "the rendered page names every key of the code" || echo "$missing" | diag
fi

# Every example of a key entry, in a <Plugin joule_cgroup> block of its
# own (on the 6.12 fixture tree, unless it sets CgroupRoot), passes the
# plugin's configuration code in the real collectd: no ERROR line naming
# the key.
if [ -x "$COLLECTD_BIN" ] && [ -f "$PLUGIN_BUILDDIR/joule_cgroup.so" ]; then
  python3 -B - "$top_srcdir/docs/configuration.md" >"$T/examples" <<'PY'
import re, sys
text = re.sub(r'\s+', ' ', open(sys.argv[1], encoding='utf-8').read())
for ex in re.findall(r'Example: `([A-Z][^`]+)`', text):
    print(ex)
PY
  n=0
  while IFS= read -r example; do
    n=$((n + 1))
    dir=$T/example$n key=${example%% *}
    root="  CgroupRoot \"$FIXTURES/k6.12-debian\""
    [ "$key" = CgroupRoot ] && root=
    # The keys that need InstanceFrom "container" or Collect "disk" get it.
    case $key in RuntimeRoot | RuntimeDir | ContainerNames) root="$root
  InstanceFrom \"container\"" ;; DiskWalkEntries) root="$root
  Collect \"+disk\"" ;; esac
    write_conf "$dir" "$root
  $example"
    timeout 20 "${COLLECTD_ENV[@]}" "$COLLECTD_BIN" -T -C "$dir/collectd.conf" >"$dir/out" 2>&1
    # What the configuration code says comes before init's first line
    # (init may still find the example's paths missing on this host).
    ! sed '/joule_cgroup plugin: version/q' "$dir/collectd.log" "$dir/out" |
      grep -E "^\[error\] joule_cgroup plugin: ($key|only one)"
    ok $? "the example $example passes the plugin's configuration"
  done <"$T/examples"
  [ "$n" -ge 15 ]
  ok $? "docs/configuration.md has an example for each key ($n)"
fi
tap_done
