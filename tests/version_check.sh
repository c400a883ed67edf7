#!/usr/bin/env bash
# One version (docs/development.md, the version): configure.ac's AC_INIT,
# and every place that names it agrees with it:
#   - `joule-cgroup --version` and the plugin's INFO line at init (the
#     string built into joule_cgroup.so);
#   - debian/changelog's first entry (VERSION-N), the .deb;
#   - CHANGELOG.md: its newest dated section is VERSION, on the date of
#     that Debian entry; the sections above it say "unreleased", the ones
#     below are dated, newest first;
#   - the README's install example names the .deb of that entry;
#   - docs/development.md's example of the INFO line.
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
need "dpkg-parsechangelog (dpkg-dev)" -- command -v dpkg-parsechangelog

ver=$(sed -n 's/^AC_INIT(\[joule_cgroup\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
echo "$ver" | grep -qxE '[0-9]+\.[0-9]+\.[0-9]+'
ok $? "configure.ac: AC_INIT's version is $ver"

[ "$("$JC" --version)" = "joule-cgroup $ver" ]
ok $? "joule-cgroup --version: $("$JC" --version)"
grep -aqF "joule_cgroup plugin: version $ver" "$PLUGIN_BUILDDIR/joule_cgroup.so"
ok $? "joule_cgroup.so logs \"joule_cgroup plugin: version $ver\" at init"

debver=$(dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Version)
debdate=$(date -u -d "$(dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Date)" +%F)
[ "${debver%-*}" = "$ver" ]
ok $? "debian/changelog: its first entry, $debver of $debdate, is $ver"

python3 - "$top_srcdir/CHANGELOG.md" "$ver" "$debdate" <<'PY'
import re, sys
text, ver, date = open(sys.argv[1], encoding='utf-8').read(), sys.argv[2], sys.argv[3]
heads = re.findall(r'^## (\S+) — (.+)$', text, re.M)
dated = [i for i, (_, when) in enumerate(heads) if when != 'unreleased']
assert dated, heads
first = dated[0]
assert heads[first] == (ver, date), (heads[first], ver, date)
assert all(when == 'unreleased' for _, when in heads[:first]), heads
below = [when for _, when in heads[first:]]
assert all(re.fullmatch(r'\d{4}-\d{2}-\d{2}', w) for w in below), below
assert below == sorted(below, reverse=True), below
PY
ok $? "CHANGELOG.md: its newest dated section is \"$ver — $debdate\", those above it unreleased, those below dated"

deb="collectd-joule-cgroup_${debver}_amd64.deb"
[ "$(grep -o 'collectd-joule-cgroup_[^ ]*\.deb' "$top_srcdir/README.md" | sort -u)" = "$deb" ]
ok $? "README: the install example names $deb, and no other .deb"

grep -qF "\`joule_cgroup plugin: version $ver\`" "$top_srcdir/docs/development.md"
ok $? "docs/development.md: the INFO line it shows says $ver"
tap_done
