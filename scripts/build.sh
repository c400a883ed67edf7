#!/usr/bin/env bash
# Configures and builds the tree in a build directory (default _build).
#   scripts/build.sh [BUILDDIR] [CFLAGS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-$top/_build}
cflags=${2:-"-O2 -g -D_FORTIFY_SOURCE=2 -Wall -Wextra -Werror"}
cd "$top"
fresh() { [ -x configure ] && [ configure -nt configure.ac ] &&
  [ Makefile.in -nt Makefile.am ] && [ Makefile.in -nt tests/Makefile.inc ] &&
  [ Makefile.in -nt src/core/steps/steps.am ]; }
fresh || autoreconf -fi >/dev/null 2>&1
mkdir -p "$builddir"
cd "$builddir"
if [ ! -f Makefile ] || [ "$(cat .cflags 2>/dev/null)" != "$cflags" ]; then
  "$top/configure" -q CFLAGS="$cflags"
  echo "$cflags" >.cflags
fi
make -s -j"$(nproc)" all
make -s -j"$(nproc)" check TESTS= >/dev/null   # the test programs
