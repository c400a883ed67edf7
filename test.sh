#!/usr/bin/env bash
# Every test, as CI runs them.  Installs what is missing, then:
#   1. builds with -Wall -Wextra -Werror and runs `make check`: unit tests,
#      fixture trees, the real collectd, the real kernel, the fleet receivers;
#      then `make check-vm`: the real-kernel suites in VMs booted from
#      Debian's 6.1 and 6.12 kernels, where cgroup v2 has every controller;
#   2. builds again with AddressSanitizer + UBSan and runs the unit and
#      daemon tests once more (collectd with the sanitizer runtime preloaded);
# and ends with the line "N passed, N failed".
#   sudo ./test.sh
set -uo pipefail
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"

"$top/scripts/deps.sh" --tests || { echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
# Adds up the TAP results automake's driver left in BUILDDIR/tests/*.trs.
count_results() {
  local trs p f
  for trs in "$1"/tests/*.trs; do
    [ -f "$trs" ] || continue
    p=$(grep -c '^:test-result: PASS' "$trs")
    f=$(grep -cE '^:test-result: (FAIL|XPASS|ERROR)' "$trs")
    passed=$((passed + p))
    failed=$((failed + f))
    [ "$f" -eq 0 ] || echo "FAILED in ${trs%.trs}.log" >&2
  done
}

# build DIR CFLAGS, then make check with the given extra arguments.
run_suite() {
  local dir=$1 cflags=$2; shift 2
  if ! "$top/scripts/build.sh" "$dir" "$cflags"; then
    echo "build failed in $dir" >&2
    failed=$((failed + 1))
    return
  fi
  rm -f "$dir"/tests/*.trs "$dir"/tests/*.log
  # One test at a time: the kernel and CLI tests measure CPUs busy, and two
  # busy workloads side by side on a 2-CPU machine would read low.
  (cd "$dir" && make -s check "$@") || true
  [ "$dir" != "$top/_build" ] || (cd "$dir" && make -s check-vm) || true
  count_results "$dir"
}

run_suite "$top/_build" "-O2 -g -D_FORTIFY_SOURCE=2 -Wall -Wextra -Werror"

sanitize="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -Wall -Wextra -Werror"

JC_SANITIZE=1 ASAN_OPTIONS=detect_leaks=1 run_suite "$top/_build-asan" "$sanitize" \
  TESTS="$(cd "$top" && make -s -f - print <<'MK'
include cli.am
include tests/Makefile.inc
print: ; @echo $(unit_tests) $(daemon_tests) $(cli_tests)
MK
)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
