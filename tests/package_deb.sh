#!/usr/bin/env bash
# The Debian package (debian/): built by dpkg-buildpackage from a clean
# copy of the tree (scripts/deb.sh, into the build tree's deb/, where
# `make image` takes the same package), checked by lintian,
# installed on this machine with dpkg -i, used as the README says (the
# collectd.conf.d snippet enabled with the command its header gives, then
# collectd -T; joule-cgroup list; man -w), and purged: afterwards no path
# the package installed is left, and nothing is left installed even when
# the test fails half-way (cleanup at exit).
# The package build runs `make check` itself (unit tests only); should it
# ever reach this test again, that would be a build inside a build.
if [ -n "${JC_PACKAGE_TEST:-}" ]; then
  echo "1..0 # SKIP inside the package build of tests/package_deb.sh"
  exit 0
fi
export JC_PACKAGE_TEST=1
. "$(dirname "$0")/lib/common.sh"
pkg=collectd-joule-cgroup
snippet=/etc/collectd/collectd.conf.d/joule_cgroup.conf

# pkg_absent: the package is neither installed nor left with its conffiles.
pkg_absent() {
  local s
  s=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) || return 0
  case $s in *" not-installed") return 0 ;; esac
  return 1
}
need "root (dpkg -i)" -- test "$(id -u)" -eq 0
need "dpkg-buildpackage (dpkg-dev)" -- command -v dpkg-buildpackage
need "dh (debhelper)" -- command -v dh
need "lintian" -- command -v lintian
need "man (man-db)" -- command -v man
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "$pkg not installed already (this test installs and purges it)" -- pkg_absent
need "no joule_cgroup installed by make install (dpkg -i would take its files)" -- \
  sh -c "! ls /usr/lib/collectd/joule_cgroup.so /usr/bin/joule-cgroup $snippet 2>/dev/null | grep -q ."

# dpkg_retry ARG...: dpkg, retried for up to 5 minutes while another dpkg
# or apt run on the machine holds its lock; output in $T/dpkg.log.
dpkg_retry() {
  local i out rc
  for ((i = 0; i < 150; i++)); do
    out=$(dpkg "$@" 2>&1)
    rc=$?
    printf '%s\n' "$out" >>"$T/dpkg.log"
    [ "$rc" -eq 0 ] && return 0
    case $out in *lock*) sleep 2 ;; *) return "$rc" ;; esac
  done
  return 1
}

# Whatever happens below, the package does not stay on the machine.
installed=0
purge_at_exit() {
  [ "$installed" = 1 ] && ! pkg_absent && dpkg_retry --purge "$pkg"
  return 0
}
CLEANUPS+=(purge_at_exit)

# ---- a tarball's tree says its version ---------------------------------------
# What `make dist` packs (make distdir: the same tree, not packed) carries
# .tarball-version, the version of the tree it was made from.
ver=$(sed -n 's/^AC_INIT(\[joule_cgroup\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
src="$T/dist/joule-cgroup-$ver"
mkdir -p "$T/dist"
in_git=0
git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=1
[ "$in_git" = 1 ] && git -C "$top_srcdir" status --porcelain --ignored >"$T/status.before"
buildver=$(sh "$top_srcdir/scripts/version.sh" "$top_srcdir" "$ver")
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top_builddir" distdir \
  distdir="$src" >"$T/distdir.log" 2>&1 &&
  test -f "$src/debian/rules" && [ "$(cat "$src/.tarball-version")" = "$buildver" ]
ok $? "make distdir: the tarball's tree, its .tarball-version $buildver"
diag <"$T/distdir.log"
chmod -R u+w "$T/dist" && rm -rf "$T/dist"

# ---- build from a clean copy ------------------------------------------------
# scripts/deb.sh: dpkg-buildpackage from a clean copy of the tree (the
# files git knows or would add, with the tree's version written in it as
# a tarball's), in a clean environment, as on a fresh machine; kept in
# the build tree's deb/ for `make image`, which packs the same .deb into
# the container image (one build a run).
t0=$(date +%s)
debdir=$top_builddir/deb
deb=$("$top_srcdir/scripts/deb.sh" "$debdir" 2>"$T/deb.err")
status=$?
ok $status "dpkg-buildpackage -us -uc -b from a clean copy ($(($(date +%s) - t0)) s; $(tail -n 1 "$debdir/build.log" 2>/dev/null))"
if [ $status -ne 0 ]; then
  diag <"$T/deb.err"
  tap_done
fi
grep -qE '^# PASS: +[1-9]' "$debdir/build.log" && ! grep -qE '^# (FAIL|ERROR): +[1-9]' "$debdir/build.log"
ok $? "the build ran the unit tests, and only them: $(grep -E '^# TOTAL' "$debdir/build.log")"
grep -q -- '-Wall -Wextra -Werror' "$debdir/build.log"
ok $? "the build compiled with -Wall -Wextra -Werror"

debver=$(dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Version)
[ "${debver%-*}" = "$ver" ]
ok $? "debian/changelog's version $debver is configure.ac's $ver"
# The package's version: the build's, with the changelog's revision; a
# build between releases is ordered after the release it follows.
pkgver="$buildver-${debver##*-}"
changes="$debdir/joule-cgroup_${debver}_$(dpkg-architecture -qDEB_HOST_ARCH).changes"
[ "$deb" = "$debdir/${pkg}_${pkgver}_$(dpkg-architecture -qDEB_HOST_ARCH).deb" ] && test -f "$deb" &&
  [ "$(dpkg-deb -f "$deb" Version)" = "$pkgver" ]
ok $? "built $(basename "$deb"), Version: $(dpkg-deb -f "$deb" Version 2>/dev/null)"
if [ "$pkgver" = "$debver" ]; then
  ok 0 "a release's tree: the package is the release's $debver"
else
  dpkg --compare-versions "$pkgver" gt "$debver"
  ok $? "a build between releases: dpkg orders $pkgver after the release's $debver"
fi

if [ "$in_git" = 1 ]; then
  git -C "$top_srcdir" status --porcelain --ignored >"$T/status.after"
  cmp -s "$T/status.before" "$T/status.after"
  ok $? "the source tree is untouched"
fi

# ---- what is in it ----------------------------------------------------------
doc=./usr/share/doc/$pkg
{
  echo ".$snippet"
  echo ./usr/bin/joule-cgroup
  echo ./usr/lib/collectd/joule_cgroup.so
  # CHANGELOG.md is the upstream changelog: dh_installchangelogs names it
  # changelog, as Debian's policy wants.
  for f in changelog.Debian.gz changelog.gz copyright; do echo "$doc/$f"; done
  # The README and docs/ in their places; dh_compress gzips the text files
  # above 4 kB, never the pictures (PNG, SVG).
  for f in $(cd "$top_srcdir" && echo README.md docs/*.md docs/*.png docs/*.svg); do
    case $f in *.png | *.svg) echo "$doc/$f" ;; *)
      [ "$(stat -c %s "$top_srcdir/$f")" -gt 4096 ] && echo "$doc/$f.gz" || echo "$doc/$f" ;;
    esac
  done
  for f in "$top_srcdir"/conf/*.conf "$top_srcdir"/conf/*.yml; do echo "$doc/examples/${f##*/}"; done
  echo ./usr/share/man/man1/joule-cgroup.1.gz
  echo ./usr/share/man/man5/joule_cgroup.5.gz
} | LC_ALL=C sort >"$T/files.expected"
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | LC_ALL=C sort >"$T/files.deb"
diff "$T/files.expected" "$T/files.deb" >"$T/files.diff"
ok $? "the package holds exactly the plugin (no .la), the command, both man pages, README, CHANGELOG, the pages of docs/, copyright, every conf/ example and the snippet"
diag <"$T/files.diff"
dep=$(dpkg-deb -f "$deb" Depends)
case ", $dep," in *", collectd-core,"*) true ;; *) false ;; esac &&
  case $dep in *libc6*libyajl2*) true ;; *) false ;; esac
ok $? "Depends: $dep"
dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles 2>/dev/null | grep -qx "$snippet"
ok $? "$snippet is a conffile"

lintian --fail-on error "$changes" >"$T/lintian.log" 2>&1
status=$?
[ $status -eq 0 ] && ! grep -q '^E: ' "$T/lintian.log"
ok $? "lintian: no error ($(grep -c '^E: ' "$T/lintian.log") E, $(grep -c '^W: ' "$T/lintian.log") W)"
grep -E '^[EW]: ' "$T/lintian.log" | diag

# ---- install, use, purge ----------------------------------------------------
dpkg-deb -c "$deb" | awk '{ print substr($6, 2) }' | sed 's|/$||' | grep . >"$T/paths"
while read -r p; do [ -e "$p" ] && echo "$p"; done <"$T/paths" >"$T/paths.before"
installed=1
dpkg_retry -i "$deb"
ok $? "dpkg -i $(basename "$deb")"
dpkg -L "$pkg" | grep -v '^/\.$' >"$T/dpkg-L"
[ -s "$T/dpkg-L" ]
ok $? "dpkg -L lists $(wc -l <"$T/dpkg-L") paths"

# As installed the snippet loads nothing.
cdir="$T/collectd"
mkdir -p "$cdir/conf.d"
collectd_conf() { # collectd_conf INCLUDED-DIR
  cat >"$cdir/collectd.conf" <<CONF
Hostname "pkghost"
FQDNLookup false
BaseDir "$cdir"
PIDFile "$cdir/collectd.pid"
TypesDB "/usr/share/collectd/types.db"
PluginDir "/usr/lib/collectd"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$cdir/collectd.log"
  Timestamp false
  PrintSeverity true
</Plugin>
LoadPlugin csv
<Plugin csv>
  DataDir "$cdir/csv"
  StoreRates false
</Plugin>
# As Debian's /etc/collectd/collectd.conf includes collectd.conf.d.
<Include "$1">
  Filter "*.conf"
</Include>
CONF
}
cp "$snippet" "$cdir/conf.d/"
collectd_conf "$cdir/conf.d"
timeout 30 "$COLLECTD_BIN" -T -C "$cdir/collectd.conf" >"$cdir/collectd.out" 2>&1 &&
  ! grep -q joule_cgroup "$cdir/collectd.log" && ! grep -q '^\[error\]' "$cdir/collectd.log"
ok $? "collectd -T with the snippet as installed: the plugin is not loaded, no error"

# Enabled with the command the snippet's header gives.
cmd=$(sed -n 's|^# \(sed -i .*\) '"$snippet"'$|\1|p' "$snippet")
[ -n "$cmd" ] && eval "$cmd \"\$cdir/conf.d/joule_cgroup.conf\"" &&
  grep -qx 'LoadPlugin joule_cgroup' "$cdir/conf.d/joule_cgroup.conf"
ok $? "the snippet's own command enables it: $cmd"
rm -rf "$cdir/csv"
: >"$cdir/collectd.log"
timeout 30 "$COLLECTD_BIN" -T -C "$cdir/collectd.conf" >>"$cdir/collectd.out" 2>&1
status=$?
[ $status -eq 0 ] && grep -q 'plugin "joule_cgroup" successfully loaded' "$cdir/collectd.log" &&
  ! grep -q '^\[error\]' "$cdir/collectd.log"
ok $? "collectd -T with the snippet enabled loads /usr/lib/collectd/joule_cgroup.so, no error"
sed 's/^/collectd.log: /' "$cdir/collectd.log" | grep -v 'successfully loaded' | diag
# collectd -T stops its write threads right after its one read and drops
# what they have not written yet ("value lists left after shutting down"),
# the more often the busier the machine (five runs in a row lost it once
# beside other tests): the value is awaited from collectd running in the
# foreground instead, until its csv file has it.
root_usage() { tail -n 1 "$cdir"/csv/pkghost/joule_cgroup-root/ps_cputime-* 2>/dev/null | cut -d, -f2; }
has_usage() { v=$(root_usage); [ -n "$v" ]; }
"$COLLECTD_BIN" -f -C "$cdir/collectd.conf" >>"$cdir/collectd.out" 2>&1 &
cpid=$!
COLLECTD_PIDS+=("$cpid")
wait_until has_usage
kill -TERM "$cpid" 2>/dev/null
wait "$cpid" 2>/dev/null
[ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v > 0) }'
ok $? "its read of the real kernel reaches csv: root ps_cputime user = $v"

# The one version of the build everywhere the package says it.
[ "$(/usr/bin/joule-cgroup --version)" = "joule-cgroup $buildver" ] &&
  grep -qF "joule_cgroup plugin: version $buildver" "$cdir/collectd.log" &&
  [ "$(zcat /usr/share/man/man1/joule-cgroup.1.gz | sed -n 's/^\.TH [^ ]* [15] [^ ]* "joule_cgroup \([^"]*\)".*/\1/p')" = "$buildver" ] &&
  [ "$(zcat /usr/share/man/man5/joule_cgroup.5.gz | sed -n 's/^\.TH [^ ]* [15] [^ ]* "joule_cgroup \([^"]*\)".*/\1/p')" = "$buildver" ]
ok $? "$buildver in /usr/bin/joule-cgroup --version, the plugin's INFO line at init, both man pages' footers"
out=$(/usr/bin/joule-cgroup list 2>"$T/list.err")
status=$?
[ $status -eq 0 ] && python3 -c '
import json, sys
doc = json.loads(sys.stdin.read())
sys.exit(0 if any(c["instance"] == "root" for c in doc["cgroups"]) else 1)' <<<"$out"
ok $? "/usr/bin/joule-cgroup list prints JSON with the root cgroup"

# joule-cgroup check on the same configuration: the snippet enabled passes;
# an example of the package enabled beside it makes two blocks.
/usr/bin/joule-cgroup check "$cdir/collectd.conf" >"$T/check.json" 2>"$T/check.err" &&
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not d["block"].endswith("conf.d/joule_cgroup.conf:" + d["block"].split(":")[-1]))' "$T/check.json"
ok $? "/usr/bin/joule-cgroup check with the snippet enabled: exit 0, the block found in it"
example=/usr/share/doc/$pkg/examples/influxdb.conf
[ -f "$example" ] || example=$example.gz # dh_compress may have made it
zcat -f "$example" >"$cdir/conf.d/influxdb.conf"
/usr/bin/joule-cgroup check "$cdir/collectd.conf" >/dev/null 2>"$T/check.err"
[ $? -eq 1 ] && grep -q 'only one <Plugin joule_cgroup> block is allowed' "$T/check.err"
ok $? "the snippet and the InfluxDB example enabled together: check exits 1, only one block is allowed"
rm -f "$cdir/conf.d/influxdb.conf"
m1=$(man -w joule-cgroup 2>/dev/null)
m5=$(man -w 5 joule_cgroup 2>/dev/null)
[ "$m1" = /usr/share/man/man1/joule-cgroup.1.gz ] && [ "$m5" = /usr/share/man/man5/joule_cgroup.5.gz ]
ok $? "man -w joule-cgroup: $m1; man -w 5 joule_cgroup: $m5"

dpkg_retry --purge "$pkg" && pkg_absent
ok $? "dpkg --purge $pkg"
installed=0
# Every path the package listed is gone, but for directories that were
# there before it (/usr/bin, /usr/lib/collectd...).
while read -r p; do
  [ -e "$p" ] || [ -L "$p" ] || continue
  grep -qxF -- "$p" "$T/paths.before" && [ -d "$p" ] && continue
  echo "$p"
done <"$T/dpkg-L" >"$T/left"
[ ! -s "$T/left" ]
ok $? "nothing of the package is left ($(wc -l <"$T/dpkg-L") paths checked)"
diag <"$T/left"
tap_done
