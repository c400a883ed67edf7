#!/usr/bin/env bash
# make check-vm: every real-kernel suite under every kernel of
# tests/vm/kernels.sh, one VM boot per suite and kernel (so that a suite
# that crashes or hangs its kernel costs only itself), one after the
# other (the suites measure CPU; the machine has 2).  Each goes through
# automake's TAP driver like `make check`: tests/vm-KERNEL-SUITE.log and
# .trs in the build tree (test.sh counts every tests/*.trs), and every TAP
# line names its kernel: "ok 3 - [6.1.0-57-amd64] memory-current ...".
#   tests/vm/check-vm.sh SUITE...        from the build tree
# VM_KERNELS picks the kernels (kernels.sh), VM_SUITE_TIMEOUT bounds each
# boot (default 300 s).  Without qemu or a kernel: in CI (CI=true) one
# failed test, elsewhere one skipped test.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$PWD}"
export top_srcdir top_builddir
driver=(env "AM_TAP_AWK=${AWK:-awk}" "${SHELL:-/bin/sh}" "$top_srcdir/build-aux/tap-driver.sh")

# One suite in one VM, its TAP lines tagged with the kernel.
if [ "${1:-}" = --one ]; then
  kernel=$2 suite=$3
  "$here/vm-run.sh" --kernel "$kernel" --timeout "${VM_SUITE_TIMEOUT:-300}" -- bash "$suite" |
    sed -E "s/^((not )?ok [0-9]+)( -)? /\1 - [$kernel] /"
  exit
fi

# tap NAME TAP-TEXT: a result that is not a suite's (a missing part).
tap() {
  "${driver[@]}" --test-name "$1" --log-file "tests/$1.log" --trs-file "tests/$1.trs" \
    --color-tests no --enable-hard-errors yes --expect-failure no -- printf '%s\n' "$2"
}
mkdir -p tests
mapfile -t kernels < <("$here/kernels.sh")
missing=
command -v qemu-system-x86_64 >/dev/null || missing="qemu-system-x86_64 (Debian package qemu-system-x86)"
[ -x /bin/busybox ] || missing="$missing /bin/busybox (busybox-static)"
[ "${#kernels[@]}" -gt 0 ] || missing="$missing a kernel (linux-image-amd64, linux-image-6.12-amd64)"
if [ -n "$missing" ]; then
  if [ "${CI:-}" = true ]; then
    tap vm-required "not ok 1 - required for make check-vm: $missing
1..1"
    exit 1
  fi
  tap vm-required "1..0 # SKIP make check-vm needs $missing (scripts/deps.sh --tests)"
  exit 0
fi

status=0
start=$SECONDS
for kernel in "${kernels[@]}"; do
  for suite; do
    name="vm-$kernel-$(basename "$suite" .sh)"
    t0=$SECONDS
    "${driver[@]}" --test-name "$suite" --log-file "tests/$name.log" \
      --trs-file "tests/$name.trs" --color-tests no --enable-hard-errors yes \
      --expect-failure no -- "$0" --one "$kernel" "$top_srcdir/$suite" || status=1
    grep -qE '^:test-result: (FAIL|XPASS|ERROR)' "tests/$name.trs" && status=1
    echo "check-vm: $suite under $kernel: $((SECONDS - t0)) s"
  done
done
echo "check-vm: ${#kernels[@]} kernels (${kernels[*]}), $# suites each, $((SECONDS - start)) s"
exit "$status"
