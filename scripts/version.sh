#!/bin/sh
# The version of the tree at SRCDIR, whose release is RELEASE
# (configure.ac's AC_INIT): what --version, the plugin's INFO line at
# init, the man pages and the .deb say (docs/development.md, the
# version).
#
#   scripts/version.sh SRCDIR RELEASE
#
#   - a tarball (make dist): its .tarball-version, written by dist-hook
#     with this script's answer where the tarball was made;
#   - a git checkout: RELEASE at the commit that last changed
#     configure.ac's AC_INIT line (the release commit) with nothing
#     changed since; else RELEASE+git.N.HASH: N commits after that
#     commit, at commit HASH, and ".dirty" when tracked files differ
#     from it.  No tag is needed: a fresh clone of a branch says the same.
#     A shallow clone whose history stops before the release commit
#     cannot count: RELEASE+git.shallow.HASH;
#   - neither (a copy of the files): RELEASE.
#
# Each of these sorts after RELEASE and before the next release in
# dpkg's order, and no two builds of different commits say the same.
# One line on stdout; a git checkout that git cannot read is said on
# stderr and gives RELEASE+git.unknown, never the release's own number.
set -u
srcdir=$1 release=$2

if [ -f "$srcdir/.tarball-version" ]; then
  v=$(sed -n '1p' "$srcdir/.tarball-version")
  case $v in
  "$release" | "$release"+*) echo "$v"; exit 0 ;;
  esac
  echo "$0: $srcdir/.tarball-version says \"$v\", not $release or a build after it" >&2
  exit 1
fi
if [ ! -e "$srcdir/.git" ]; then
  echo "$release"
  exit 0
fi

g() { git -C "$srcdir" "$@" 2>/dev/null; }
top=$(g rev-parse --show-toplevel) &&
  [ "$(cd "$top" && pwd -P)" = "$(cd "$srcdir" && pwd -P)" ] &&
  head=$(g rev-parse --short=9 HEAD) || {
  echo "$0: $srcdir is a git checkout that git cannot read here; the build says $release+git.unknown" >&2
  echo "$release+git.unknown"
  exit 0
}
dirty=
[ -z "$(g status --porcelain --untracked-files=no)" ] || dirty=.dirty
# The release commit: the last to change AC_INIT (its version).
rel=$(g log -1 --format=%H -G '^AC_INIT\(' -- configure.ac)
shallow=$(g rev-parse --git-path shallow)
case $shallow in /*) ;; *) shallow="$srcdir/$shallow" ;; esac
if [ -z "$rel" ] || { [ -f "$shallow" ] && grep -qx "$rel" "$shallow"; }; then
  # Its history is cut at rel: the version line may be older than that.
  echo "$release+git.shallow.$head$dirty"
  exit 0
fi
n=$(g rev-list --count "$rel..HEAD")
if [ "$n" = 0 ] && [ -z "$dirty" ]; then
  echo "$release"
else
  echo "$release+git.$n.$head$dirty"
fi
