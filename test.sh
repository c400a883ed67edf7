#!/usr/bin/env bash
# Every test, as CI runs them.  Installs what is missing, then:
#   1. builds with -Wall -Wextra -Werror and runs `make check`: unit tests,
#      fixture trees, the real collectd, the real kernel, the fleet receivers;
#      then `make check-vm`: the real-kernel suites in VMs booted from
#      Debian's 6.1 and 6.12 kernels, where cgroup v2 has every controller;
#   2. builds again with AddressSanitizer + UBSan and runs the unit,
#      daemon and command tests once more (collectd with the sanitizer
#      runtime preloaded), beside the VM suites;
# and ends with the line "N passed, N failed".  It says first what it
# installs and changes (./test.sh --what: only that).  --busy runs it all
# beside one busy loop per CPU at nice 10, as a shared machine would be
# (docs/development.md, tests on a busy machine).
#   sudo ./test.sh [--busy]
set -uo pipefail
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
# Debian's programs first: the tests run Debian's python3 with the modules
# scripts/deps.sh installs, and Debian's docker, not a user's shims before
# them on PATH (a pyenv shim costs 0.3 s a call, and the tests call
# python3 some thousands of times).
export PATH="/usr/sbin:/usr/bin:/sbin:/bin${PATH:+:$PATH}"

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
# say_failed LOG: where a test failed and its failing lines with what it
# said about them, bounded, so that a run's output alone (CI keeps only
# that) shows what failed.
say_failed() {
  echo "FAILED in $1:" >&2
  grep -E -A6 '^(not ok|Bail out!)' "$1" 2>/dev/null | grep -E '^(not ok|Bail out!|#)' | head -n 40 | sed 's/^/  /' >&2
}

# Adds up the TAP results automake's driver left in BUILDDIR/tests/*.trs.
count_results() {
  local trs p f
  for trs in "$1"/tests/*.trs; do
    [ -f "$trs" ] || continue
    p=$(grep -c '^:test-result: PASS' "$trs")
    f=$(grep -cE '^:test-result: (FAIL|XPASS|ERROR)' "$trs")
    passed=$((passed + p))
    failed=$((failed + f))
    [ "$f" -eq 0 ] || say_failed "${trs%.trs}.log"
  done
}

# make print-LISTS: the tests of the automake lists named (cli.am and
# tests/Makefile.inc).
tests_of() {
  (cd "$top" && make -s -f - print <<MK
include cli.am
include tests/Makefile.inc
print: ; @echo $(printf '$(%s) ' "$@")
MK
  )
}

sanitize="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -Wall -Wextra -Werror"
asan=$top/_build-asan

# sanitized: the build with AddressSanitizer + UBSan and the unit, daemon
# and command tests against it (collectd with the sanitizer runtime
# preloaded); status 1 when the build failed.
sanitized() {
  if ! "$top/scripts/build.sh" "$asan" "$sanitize"; then
    echo "build failed in $asan"
    return 1
  fi
  rm -f "$asan"/tests/*.trs "$asan"/tests/*.log "$asan"/tests/*.ms
  (cd "$asan" && JC_SANITIZE=1 ASAN_OPTIONS=detect_leaks=1 \
    make -s -k check TESTS="$(tests_of unit_tests daemon_tests cli_tests)") || true
}

# The main build and its make check, one test at a time: the kernel and
# CLI tests measure CPUs busy, and two busy workloads side by side on a
# 2-CPU machine would read low (-k: the ten slowest tests, check-local,
# are listed when some failed too).  Then the VM suites (make check-vm),
# and beside them, where the emulator leaves the CPUs idle (its guests
# wait for intervals), the sanitizer pass, then the host's tests that
# count, never time, and, at nice 10, the fuzzers (tests/fuzz_smoke.sh:
# every target for FUZZ_SECONDS): those suites hold beside load
# (./test.sh --busy), the sanitizer pass's tests wait for events, never
# for a time, and the fuzzers' proof is the same at any speed, a few
# executions fewer.
dir=$top/_build
if ! "$top/scripts/build.sh" "$dir" "-O2 -g -D_FORTIFY_SOURCE=2 -Wall -Wextra -Werror"; then
  echo "build failed in $dir" >&2
  failed=$((failed + 1))
else
  rm -f "$dir"/tests/*.trs "$dir"/tests/*.log "$dir"/tests/*.ms
  fuzz=$(tests_of fuzz_tests)
  # The host's tests that count, never time: valgrind's soak counts reads
  # and cgroups, callgrind instructions.
  beside="tests/soak_valgrind.sh tests/kernel_bench_scripts.sh"
  # shellcheck disable=SC2086
  all=$(tests_of unit_tests shell_tests | tr ' ' '\n' |
    grep -vxF -f <(printf '%s\n' $fuzz $beside) | tr '\n' ' ')
  (cd "$dir" && make -s -k check TESTS="$all") || true
  (cd "$dir" && exec nice -n 10 make -s -k check TESTS="$fuzz" >tests/fuzz-beside-vm.out 2>&1) &
  fuzzing=$!
  {
    sanitized >"$asan.out" 2>&1
    status=$?
    (cd "$dir" && make -s -k check TESTS="$beside" >tests/host-beside-vm.out 2>&1)
    exit "$status"
  } &
  sanitizing=$!
  (cd "$dir" && make -s check-vm) || true
  wait "$fuzzing"
  cat "$dir/tests/fuzz-beside-vm.out"
  wait "$sanitizing" || failed=$((failed + 1))
  cat "$dir/tests/host-beside-vm.out"
  count_results "$dir"
fi
if [ -z "${sanitizing:-}" ]; then # the main build failed: nothing to run beside
  sanitized >"$asan.out" 2>&1 || failed=$((failed + 1))
fi
cat "$asan.out"
count_results "$asan"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
