#!/usr/bin/env bash
# Every test, as CI runs them.  Installs what is missing, then:
#   1. builds with -Wall -Wextra -Werror and runs `make check`: unit tests,
#      fixture trees, the real collectd, the real kernel, the fleet receivers;
#      then `make check-vm`: the real-kernel suites in VMs booted from
#      Debian's 6.1 and 6.12 kernels, where cgroup v2 has every controller;
#   2. builds again with AddressSanitizer + UBSan and runs the unit and
#      daemon tests once more (collectd with the sanitizer runtime preloaded);
# and ends with the line "N passed, N failed".  It says first what it
# installs and changes (./test.sh --what: only that).  --busy runs it all
# beside one busy loop per CPU at nice 10, as a shared machine would be
# (docs/development.md, tests on a busy machine).
#   sudo ./test.sh [--busy]
set -uo pipefail
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"

what() {
  cat <<'WHAT'
./test.sh installs what it misses and changes this machine so:
  - Debian packages (scripts/deps.sh --tests): the build's (gcc, autotools,
    collectd-core, collectd-dev, libyajl-dev) and the tests' (valgrind,
    clang, strace, gdb, rrdtool, influxdb, graphite-carbon, prometheus,
    debhelper, lintian, qemu-system-x86, busybox-static, ...);
  - two Debian kernels, linux-image-amd64 (6.1) and linux-image-6.12-amd64,
    installed into /boot with their initrd (the boot menu is updated); the
    VM tests boot them in qemu;
  - services: the postinst scripts of influxdb, carbon-cache and prometheus
    enable them at boot; scripts/deps.sh disables again every unit the
    installation enabled (what was enabled before stays) and keeps them
    from starting; the tests run their own servers on 127.0.0.1 only;
  - the package test installs collectd-joule-cgroup and purges it;
  - test cgroups below a parent named for the run, removed at the end.
WHAT
}
if [ "${1:-}" = --what ]; then what; exit 0; fi
what >&2

# --busy: one busy loop per CPU at nice 10 for the whole run, stopped with it.
if [ "${1:-}" = --busy ]; then
  busy=()
  for _ in $(seq "$(nproc)"); do
    nice -n 10 sh -c 'while :; do :; done' &
    busy+=($!)
  done
  trap 'kill "${busy[@]}" 2>/dev/null' EXIT
  echo "running beside ${#busy[@]} busy loops at nice 10 (pids ${busy[*]})" >&2
fi

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
  rm -f "$dir"/tests/*.trs "$dir"/tests/*.log "$dir"/tests/*.ms
  # One test at a time: the kernel and CLI tests measure CPUs busy, and two
  # busy workloads side by side on a 2-CPU machine would read low.
  # -k: the ten slowest tests (check-local) are listed when some failed too
  (cd "$dir" && make -s -k check "$@") || true
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
