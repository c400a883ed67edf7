#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ and runs each for a while.
#   scripts/fuzz.sh [SECONDS]            (default 60 per target)
#   FUZZ_BUILD=DIR   build and work directory (default _build-fuzz)
#   FUZZ_TARGETS="io name"   only these targets (default: every fuzz_*.c)
#
# Each target is built with clang, libFuzzer, ASan and UBSan straight from
# the files its "// fuzz-sources:" line names (no automake): core files
# by name, the command's as cli/FILE; a "// fuzz-libs:" line adds
# libraries (-lyajl).  Its
# regression inputs, tests/fuzz/regressions/<target>/*, run first as plain
# inputs; then it fuzzes a copy of tests/fuzz/corpus/<target>/ (the
# committed corpus never grows here) for SECONDS.  One line per target:
#   fuzz_io: 1234567 executions in 60 s, no crash
#   fuzz_pattern: 234567 executions in 60 s, no crash (5 regression inputs pass)
# A crash, leak, timeout or out-of-memory leaves its input in
# FUZZ_BUILD/artifacts/<target>/ and makes the exit status 1; a build
# failure makes it 2.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${FUZZ_BUILD:-$top/_build-fuzz}
fuzzdir=$top/tests/fuzz
# The core's folders (src/core/*, src/core/steps/*): each one's headers by
# name, as the build's -I flags give them; a core file is named by its name
# alone and found in its folder.
core_dirs=$(find "$top/src/core" -name 'jc_*.[ch]' -printf '%h\n' | sort -u)
core_inc=$(printf -- '-I%s ' $core_dirs)
cflags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -D_GNU_SOURCE $core_inc-I$top/src/cli -I$fuzzdir"

case $seconds in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a number, not '$seconds'" >&2; exit 2 ;; esac
mkdir -p "$build" || exit 2
build=$(cd "$build" && pwd)

targets=()
for src in "$fuzzdir"/fuzz_*.c; do
  t=$(basename "$src" .c)
  if [ -n "${FUZZ_TARGETS:-}" ]; then
    case " $FUZZ_TARGETS " in *" ${t#fuzz_} "* | *" $t "*) ;; *) continue ;; esac
  fi
  targets+=("$t")
done
[ "${#targets[@]}" -gt 0 ] || { echo "fuzz.sh: no target matches '${FUZZ_TARGETS:-}'" >&2; exit 2; }

# build TARGET: the binary, rebuilt when a file it is made of is newer.
build_target() {
  local t=$1 src=$fuzzdir/$1.c bin=$build/$1 f deps=()
  local core libs
  core=$(sed -n 's|^// fuzz-sources:||p' "$src")
  libs=$(sed -n 's|^// fuzz-libs:||p' "$src")
  [ -n "$core" ] || { echo "$t: no '// fuzz-sources:' line in $src" >&2; return 1; }
  for f in $core; do
    case $f in
      */*) deps+=("$top/src/$f") ;;
      *) deps+=("$(find "$top/src/core" -name "$f" -print -quit)") ;;
    esac
  done
  local newest
  newest=$(ls -t "$src" "${deps[@]}" "$fuzzdir"/*.h $(printf '%s/jc_*.h ' $core_dirs) "$top"/src/cli/jcli_*.h "$0" 2>/dev/null | head -n 1)
  [ -x "$bin" ] && [ "$bin" -nt "$newest" ] && return 0
  # shellcheck disable=SC2086
  if ! clang $cflags -o "$bin.tmp" "$src" "${deps[@]}" $libs >"$build/$t.build.log" 2>&1; then
    cat "$build/$t.build.log" >&2
    return 1
  fi
  mv -f "$bin.tmp" "$bin"
}

# run TARGET: regressions, then SECONDS of fuzzing; prints the summary line.
run_target() {
  local t=$1 bin=$build/$1 short=${1#fuzz_}
  local log=$build/logs/$t.log art=$build/artifacts/$t/ corpus=$build/corpus/$t
  rm -rf "$corpus" "$art"
  mkdir -p "$corpus" "$art" "$build/logs"
  local reg=("$fuzzdir/regressions/$short"/*) regs=""
  if [ -e "${reg[0]}" ]; then
    if ! "$bin" -rss_limit_mb=2048 -timeout=10 "${reg[@]}" >"$build/logs/$t.regressions.log" 2>&1; then
      echo "$t: a regression input crashes again, CRASH (see $build/logs/$t.regressions.log)"
      return 1
    fi
    regs=" (${#reg[@]} regression inputs pass)"
  fi
  [ -d "$fuzzdir/corpus/$short" ] && cp -R "$fuzzdir/corpus/$short/." "$corpus/"
  local start=$SECONDS status
  (cd "$build" && "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$art" "$corpus") >"$log" 2>&1
  status=$?
  local elapsed=$((SECONDS - start)) execs
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
  local found
  found=$(ls "$art" 2>/dev/null | head -n 1)
  if [ "$status" -eq 0 ] && [ -z "$found" ]; then
    echo "$t: ${execs:-0} executions in $elapsed s, no crash$regs"
    return 0
  fi
  echo "$t: ${execs:-0} executions in $elapsed s, CRASH (exit $status) ${found:+input $art$found}, log $log"
  grep -m 3 -E 'ERROR: |runtime error:|invariant broken|SUMMARY' "$log" | sed 's/^/    /'
  # The input itself when small, so that a log is enough to make it a
  # regression input (base64 -d >tests/fuzz/regressions/<target>/NAME).
  if [ -n "$found" ] && [ "$(stat -c %s "$art$found")" -le 2048 ]; then
    echo "    input $found (base64): $(base64 -w 0 "$art$found")"
  fi
  return 1
}

command -v clang >/dev/null || { echo "fuzz.sh: clang not found" >&2; exit 2; }
for t in "${targets[@]}"; do
  build_target "$t" || { echo "$t: build failed" >&2; exit 2; }
done
crashed=0
for t in "${targets[@]}"; do
  run_target "$t" || crashed=1
done
exit "$crashed"
