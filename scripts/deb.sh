#!/usr/bin/env bash
# The Debian package (debian/), built by dpkg-buildpackage from a clean
# copy of the tree: the files git knows or would add (no build output),
# or, outside git (a tarball, a container build's copy), the tree but its
# _build* directories; with the tree's version in .tarball-version.
# Prints the .deb's path.
#   scripts/deb.sh OUTDIR
# OUTDIR keeps the package and its build log (OUTDIR/build.log), and the
# digest of the copy it was built from (OUTDIR/tree.sha256): a second call
# on the same tree prints the same package without building it again
# (make image and tests/package_deb.sh share one build a run).  The build
# runs in a clean environment, as on a fresh machine, and its own `make
# check` runs the unit tests (debian/rules).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: scripts/deb.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
ver=$(sed -n 's/^AC_INIT(\[joule_cgroup\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
work=$(mktemp -d "${TMPDIR:-/tmp}/jc-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/joule-cgroup-$ver
mkdir -p "$src"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$top" && git ls-files -z --cached --others --exclude-standard |
    tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -C "$src" -xf -
else
  tar -C "$top" --exclude='./_build*' --exclude=./autom4te.cache -cf - . | tar -C "$src" -xf -
fi
# A tarball's tree (make distcheck) is read-only; the copy must not be.
chmod -R u+w "$src"
# The copy says the version of the tree it was made from, as a tarball
# does (scripts/version.sh): the .deb of a build between releases is
# RELEASE+git.N.HASH, never the release's own number.
[ -f "$src/.tarball-version" ] ||
  sh "$top/scripts/version.sh" "$top" "$ver" >"$src/.tarball-version"
digest=$(cd "$src" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
deb=$(ls "$out"/collectd-joule-cgroup_*.deb 2>/dev/null | grep -v dbgsym | head -n 1 || true)
if [ -n "$deb" ] && [ "$(cat "$out/tree.sha256" 2>/dev/null)" = "$digest" ]; then
  echo "$deb"
  exit 0
fi
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo "$out/tree.sha256" "$out/build.log"
# Nothing of the caller's make (its MAKEFLAGS carries automake's
# TEST_LOGS, which would make the package's own `make check` run the
# calling test again) nor of the user's PATH.
t0=$(date +%s)
if ! (cd "$src" && timeout -k 10 900 env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  HOME="$work" LANG=C.UTF-8 JC_PACKAGE_TEST=1 DEB_BUILD_OPTIONS="parallel=$(nproc)" \
  dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
  echo "scripts/deb.sh: dpkg-buildpackage failed; $out/build.log ends:" >&2
  tail -n 40 "$out/build.log" >&2
  exit 1
fi
echo "scripts/deb.sh: built in $(($(date +%s) - t0)) s" >>"$out/build.log"
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out/"
echo "$digest" >"$out/tree.sha256"
ls "$out"/collectd-joule-cgroup_*.deb | grep -v dbgsym | head -n 1
