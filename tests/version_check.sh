#!/usr/bin/env bash
# One version for one build (docs/development.md, the version).  The
# release is configure.ac's AC_INIT; the build's version is
# scripts/version.sh's answer for the tree: the release at its release
# commit, RELEASE+git.N.HASH between releases, a tarball's
# .tarball-version.  Held here:
#   - the build says its version everywhere: `joule-cgroup --version`, the
#     plugin's INFO line at init (the string built into joule_cgroup.so),
#     the footers of both man pages;
#   - scripts/version.sh on fresh clones without tags: the release commit
#     says the release, a commit after it +git.1.HASH, a changed file
#     .dirty, a shallow clone that cannot count +git.shallow.HASH, a
#     commit that changes AC_INIT's version the new release; a copy with
#     .tarball-version says it, a copy without git the release; dpkg
#     orders them all after the release and before the next;
#   - debian/changelog's first entry (VERSION-N), CHANGELOG.md (its
#     newest dated section is VERSION, on the date of that Debian entry;
#     the section above it says what comes after VERSION), the README's
#     .deb and docs/development.md's INFO line name the release.
# (tests/package_deb.sh builds the .deb from the tarball's tree and holds
# the installed package to the same version.)
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
need "dpkg-parsechangelog (dpkg-dev)" -- command -v dpkg-parsechangelog
need "git (the version of a build between releases)" -- command -v git

ver=$(sed -n 's/^AC_INIT(\[joule_cgroup\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
echo "$ver" | grep -qxE '[0-9]+\.[0-9]+\.[0-9]+'
ok $? "configure.ac: AC_INIT's version is $ver"

# ---- the build says its version everywhere ----------------------------------
build=$(sh "$top_srcdir/scripts/version.sh" "$top_srcdir" "$ver")
case $build in "$ver" | "$ver"+git.*) true ;; *) false ;; esac
ok $? "scripts/version.sh: this tree is $build"
[ "$("$JC" --version)" = "joule-cgroup $build" ]
ok $? "joule-cgroup --version: $("$JC" --version)"
# the string whole, up to its NUL: "version 0.5.0" is in "version 0.5.0+git…"
python3 -c 'import sys; sys.exit(b"joule_cgroup plugin: version %s\0" % sys.argv[2].encode() not in open(sys.argv[1], "rb").read())' \
  "$PLUGIN_BUILDDIR/joule_cgroup.so" "$build"
ok $? "joule_cgroup.so logs \"joule_cgroup plugin: version $build\" at init"
footer() { sed -n 's/^\.TH [^ ]* [15] [^ ]* "joule_cgroup \([^"]*\)".*/\1/p' "$1"; }
[ "$(footer "$top_builddir/man/joule-cgroup.1")" = "$build" ] &&
  [ "$(footer "$top_builddir/man/joule_cgroup.5")" = "$build" ]
ok $? "joule-cgroup(1) and joule_cgroup(5): \"joule_cgroup $build\" in their footers"

# ---- scripts/version.sh on clones without tags ------------------------------
v() { sh "$top_srcdir/scripts/version.sh" "$1" "$2"; }
gitq() { git -C "$1" -c user.name=t -c user.email=t@t.invalid -c commit.gpgsign=false "${@:2}" >/dev/null 2>&1; }
if git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  c="$T/clone"
  git clone -q --no-tags "$top_srcdir" "$c" 2>/dev/null
  # the clone is of HEAD: its release is its configure.ac's (the tree's
  # may be changed, not committed yet)
  ver=$(sed -n 's/^AC_INIT(\[joule_cgroup\], \[\([^]]*\)\].*/\1/p' "$c/configure.ac")
  rel=$(git -C "$c" log -1 --format=%H -G '^AC_INIT\(' -- configure.ac)
  n=$(git -C "$c" rev-list --count "$rel..HEAD")
  head=$(git -C "$c" rev-parse --short=9 HEAD)
  if [ "$n" = 0 ]; then want=$ver; else want="$ver+git.$n.$head"; fi
  [ -z "$(git -C "$c" tag)" ] && [ "$(v "$c" "$ver")" = "$want" ]
  ok $? "a fresh clone (no tags) of HEAD, $n commits after the release commit: $(v "$c" "$ver")"

  gitq "$c" checkout -q "$rel"
  [ "$(v "$c" "$ver")" = "$ver" ]
  ok $? "the release commit ${rel:0:9} itself: $ver"
  echo >>"$c/README.md"
  [ "$(v "$c" "$ver")" = "$ver+git.0.${rel:0:9}.dirty" ]
  ok $? "the release commit with a file changed: $(v "$c" "$ver")"
  gitq "$c" commit -q -a -m 'a change after the release'
  one=$(git -C "$c" rev-parse --short=9 HEAD)
  [ "$(v "$c" "$ver")" = "$ver+git.1.$one" ]
  ok $? "one commit after it: $(v "$c" "$ver")"

  next=${ver%.*}.$((${ver##*.} + 1))
  sed -i "s/^AC_INIT(\[joule_cgroup\], \[$ver\]/AC_INIT([joule_cgroup], [$next]/" "$c/configure.ac"
  gitq "$c" commit -q -a -m "Release $next"
  [ "$(v "$c" "$next")" = "$next" ]
  ok $? "a commit that changes AC_INIT's version is the release: $next"

  gitq "$c" commit -q --allow-empty -m 'after'
  s2="$T/shallow2"
  git clone -q --no-tags --depth 1 "file://$c" "$s2" 2>/dev/null
  [ "$(v "$s2" "$next")" = "$next+git.shallow.$(git -C "$s2" rev-parse --short=9 HEAD)" ]
  ok $? "a shallow clone whose history stops after the release commit cannot count: $(v "$s2" "$next")"
  ver=$(sed -n 's/^AC_INIT(\[joule_cgroup\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
else
  for i in 1 2 3 4 5 6; do skip "not a git checkout: no clone to make"; done
fi

mkdir -p "$T/copy"
cp "$top_srcdir/configure.ac" "$T/copy/"
[ "$(v "$T/copy" "$ver")" = "$ver" ]
ok $? "a copy of the files without git: $ver"
echo "$ver+git.7.0123abcde" >"$T/copy/.tarball-version"
[ "$(v "$T/copy" "$ver")" = "$ver+git.7.0123abcde" ]
ok $? "a tarball's tree: its .tarball-version"
echo "0.0.1" >"$T/copy/.tarball-version"
! v "$T/copy" "$ver" >/dev/null 2>"$T/stale.err" && grep -q 'not' "$T/stale.err"
ok $? "a .tarball-version of another release is refused: $(cat "$T/stale.err")"

ordered=1
for pair in "$ver $ver+git.1.0123abcde" "$ver+git.1.0123abcde $ver+git.2.0123abcde" \
  "$ver+git.2.fedcba987 $ver+git.10.0123abcde" "$ver+git.3.0123abcde $ver+git.3.0123abcde.dirty" \
  "$ver+git.10.0123abcde $ver+git.shallow.0123abcde" "$ver+git.shallow.0123abcde ${ver%.*}.$((${ver##*.} + 1))"; do
  set -- $pair
  dpkg --compare-versions "$1-1" lt "$2-1" || { ordered=0; echo "$1-1 is not before $2-1" | diag; }
done
[ $ordered = 1 ]
ok $? "dpkg orders the release, its git builds (by count, .dirty after), a shallow one, then the next release"

# ---- the release's own places -------------------------------------------------
debver=$(dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Version)
debdate=$(date -u -d "$(dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Date)" +%F)
[ "${debver%-*}" = "$ver" ]
ok $? "debian/changelog: its first entry, $debver of $debdate, is $ver"

python3 - "$top_srcdir/CHANGELOG.md" "$ver" "$debdate" <<'PY'
import re, sys
text, ver, date = open(sys.argv[1], encoding='utf-8').read(), sys.argv[2], sys.argv[3]
heads = re.findall(r'^## (.+)$', text, re.M)
dated = [i for i, h in enumerate(heads) if re.fullmatch(r'\S+ — \d{4}-\d{2}-\d{2}', h)]
assert dated, heads
first = dated[0]
assert heads[first] == '%s — %s' % (ver, date), (heads[first], ver, date)
# Above the release: one section for what comes after it, naming it.
assert all(re.fullmatch(r'Unreleased \(after %s\)' % re.escape(ver), h) for h in heads[:first]), heads[:first]
assert first <= 1, heads[:first]
below = [h.split(' — ')[1] for h in heads[first:]]
assert all(re.fullmatch(r'\d{4}-\d{2}-\d{2}', w) for w in below), below
assert below == sorted(below, reverse=True), below
PY
ok $? "CHANGELOG.md: its newest dated section is \"$ver — $debdate\", above it at most \"Unreleased (after $ver)\", those below dated"

deb="collectd-joule-cgroup_${debver}_amd64.deb"
[ "$(grep -o 'collectd-joule-cgroup_[^ ]*\.deb' "$top_srcdir/README.md" | sort -u)" = "$deb" ]
ok $? "README: the install example names $deb, and no other .deb"

grep -qF "\`joule_cgroup plugin: version $ver\`" "$top_srcdir/docs/development.md"
ok $? "docs/development.md: the INFO line it shows says $ver"
tap_done
