#!/usr/bin/env bash
# fuzz_smoke.sh — every libFuzzer target of tests/fuzz/ for FUZZ_SECONDS
# (default 5: a quick `make check`; CI sets 60), through scripts/fuzz.sh.
# One TAP line per target: "fuzz_io: 1234567 executions in 60 s, no crash".
# FUZZ_TARGETS and FUZZ_BUILD (default: BUILDDIR/fuzz) go to scripts/fuzz.sh.
# Needs clang with the libFuzzer runtime (Debian: libclang-rt-14-dev);
# without it the test skips, or fails when CI=true.
. "$(dirname "$0")/lib/common.sh"

seconds=${FUZZ_SECONDS:-5}
build=${FUZZ_BUILD:-$top_builddir/fuzz}

printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$T/probe.c"
need "clang with libFuzzer, ASan and UBSan (libclang-rt-14-dev)" -- \
  clang -fsanitize=fuzzer,address,undefined -o "$T/probe" "$T/probe.c"

FUZZ_BUILD=$build "$top_srcdir/scripts/fuzz.sh" "$seconds" >"$T/fuzz.out" 2>&1
status=$?
targets=0
while IFS= read -r line; do
  case $line in
  fuzz_*:*', no crash'*) ok 0 "$line"; targets=$((targets + 1)) ;;
  fuzz_*:*) ok 1 "$line"; targets=$((targets + 1)) ;;
  *) echo "$line" | diag ;;
  esac
done <"$T/fuzz.out"
if [ -n "${FUZZ_TARGETS:-}" ]; then
  expected=$(echo "$FUZZ_TARGETS" | wc -w)
else
  expected=$(ls "$top_srcdir"/tests/fuzz/fuzz_*.c | wc -l)
fi
[ "$targets" -eq "$expected" ]
ok $? "every target ran ($targets of $expected)"
[ "$status" -eq 0 ]
ok $? "scripts/fuzz.sh exits 0 (exit $status; logs and inputs in $build)"
tap_done
