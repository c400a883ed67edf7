#!/usr/bin/env bash
# The user documentation as a reader follows it (tests/docs_check.py):
# README.md, CHANGELOG.md and every page of docs/ have closed code fences,
# render whole as GitHub renders them, have relative links and anchors
# that resolve, repository paths and commands that exist; the README
# stays within 250 lines and starts with the two commands (joule_cgroup(5)
# against the code: tests/reference_check.sh).  Then the examples the
# README and docs/configuration.md give are run as written:
#   - every `joule-cgroup` line of their shell blocks (sudo dropped: this
#     runs as root; `run` below a cgroup of this test's own, `check`
#     without a file on an /etc/collectd of its own in a private mount
#     namespace), exit 0 and JSON out; the keys of configuration.md's
#     `check` output are those check prints;
#   - `sudo ./demo.sh --seconds N` stops by itself with values printed;
#   - `make install` puts the files where the README says;
#   - the series counts the README and CHANGELOG give, as `joule-cgroup
#     check` counts them on the Linux 6.12 fixture tree.
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

# ---- the series counts of the README and CHANGELOG -----------------------
count_conf() { # VALUES-LINE: the counts of check on the 6.12 fixture tree
  printf 'LoadPlugin joule_cgroup\n<Plugin joule_cgroup>\n  CgroupRoot "%s"\n  Select "**"\n%s\n</Plugin>\n' \
    "$FIXTURES/k6.12-debian" "$1" >"$T/count.conf"
  "$JC" check "$T/count.conf" 2>/dev/null | python3 -c '
import json, sys
for c in json.load(sys.stdin)["cgroups"]:
    print(c["cgroup"], c["count"])'
}
count_conf "" >"$T/default.counts"
# The first releases' set: every list but those added since.
count_conf '  Values "*" "!memory-swap_peak"' >"$T/all.counts"
no_limit=$(awk '$1 == "system.slice/db.service" { print $2 }' "$T/default.counts")
own_limits=$(awk '$1 == "limited.slice" { print $2 }' "$T/default.counts")
first=$(awk '$1 == "system.slice/db.service" { print $2 }' "$T/all.counts")
grep -q "^of the cgroups that have one: $no_limit series for a cgroup without a limit, $own_limits\$" "$top_srcdir/README.md"
ok $? "README: $no_limit series for a cgroup without a limit, $own_limits with its own cpu.max and memory.max"
tr '\n' ' ' <"$top_srcdir/CHANGELOG.md" | grep -q "sends $no_limit lists instead of $first, one *with its own .cpu.max. and .memory.max. $own_limits "
ok $? "CHANGELOG: $no_limit lists instead of $first (Values \"*\"), $own_limits with own limits"
tap_done
