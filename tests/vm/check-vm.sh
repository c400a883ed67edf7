#!/usr/bin/env bash
# make check-vm: every real-kernel suite under every kernel of
# tests/vm/kernels.sh, the suites of one kernel in one boot, one after the
# other (the suites measure CPU; the machine has 2), through
# tests/vm/suites.sh.  A boot costs ~10 s of emulation, as much as a short
# suite: sharing it saves a boot per suite.  A suite that hangs is killed
# at its own timeout and the next one runs; one that takes its kernel down
# fails alone, and a fresh boot runs those after it.  Each suite's part of
# the output goes through automake's TAP driver like `make check`:
# tests/vm-KERNEL-SUITE.log and .trs in the build tree (test.sh counts
# every tests/*.trs), and every TAP line names its kernel:
# "ok 3 - [6.1.0-57-amd64] memory-current ...".
#   tests/vm/check-vm.sh SUITE...        from the build tree
# VM_KERNELS picks the kernels (kernels.sh), VM_SUITE_TIMEOUT bounds each
# suite (default 300 s).  The suites named in VM_NEWEST_ONLY run under the
# last kernel only: those whose proof does not depend on the kernel
# (tests/vm_image.sh, tests/vm_disk.sh).  Without qemu or a kernel: in CI
# (CI=true) one failed test, elsewhere one skipped test.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$PWD}"
export top_srcdir top_builddir
driver=(env "AM_TAP_AWK=${AWK:-awk}" "${SHELL:-/bin/sh}" "$top_srcdir/build-aux/tap-driver.sh")
per_suite=${VM_SUITE_TIMEOUT:-300}

# --one KERNEL SUITE OUT ERR: the suite's part of a boot's output OUT, its
# TAP lines tagged with the kernel; exits with the suite's status, or says
# that the VM stopped during the suite (ERR: the boot's messages).
if [ "${1:-}" = --one ]; then
  kernel=$2 suite=$3 out=$4 err=$5
  awk -v b="jc-vm-suite begin $suite" -v e="jc-vm-suite end $suite " '
    $0 == b { on = 1; next }
    on && index($0, e) == 1 { exit }
    on { print }' "$out" |
    sed -E "s/^((not )?ok [0-9]+)( -)? /\1 - [$kernel] /"
  status=$(sed -n "s|^jc-vm-suite end $suite \([0-9]*\) .*|\1|p" "$out")
  if [ -z "$status" ]; then
    echo "not ok - [$kernel] the VM stopped during $(basename "$suite")"
    cat "$err" >&2
    exit 125
  fi
  exit "$status"
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
rm -f tests/vm-*-boot*.out tests/vm-*-boot*.err
for kernel in "${kernels[@]}"; do
  todo=()
  for suite; do
    if [ "$kernel" != "${kernels[${#kernels[@]} - 1]}" ] &&
      [[ " ${VM_NEWEST_ONLY:-} " == *" $suite "* ]]; then
      continue
    fi
    todo+=("$suite")
  done
  boot=0
  while [ "${#todo[@]}" -gt 0 ]; do
    boot=$((boot + 1))
    out=tests/vm-$kernel-boot$boot.out err=tests/vm-$kernel-boot$boot.err
    paths=()
    for suite in "${todo[@]}"; do paths+=("$top_srcdir/$suite"); done
    "$here/vm-run.sh" --kernel "$kernel" --timeout $(((per_suite + 20) * ${#todo[@]} + 60)) \
      -- bash "$here/suites.sh" "$per_suite" "${paths[@]}" >"$out" 2>"$err"
    next=()
    for suite in "${todo[@]}"; do
      # Not begun, after one that began: the next boot runs it.
      if ! grep -qxF "jc-vm-suite begin $top_srcdir/$suite" "$out" && grep -q '^jc-vm-suite begin ' "$out"; then
        next+=("$suite")
        continue
      fi
      name="vm-$kernel-$(basename "$suite" .sh)"
      "${driver[@]}" --test-name "$suite" --log-file "tests/$name.log" \
        --trs-file "tests/$name.trs" --color-tests no --enable-hard-errors yes \
        --expect-failure no -- "$0" --one "$kernel" "$top_srcdir/$suite" "$out" "$err" || status=1
      grep -qE '^:test-result: (FAIL|XPASS|ERROR)' "tests/$name.trs" && status=1
      seconds=$(sed -n "s|^jc-vm-suite end $top_srcdir/$suite [0-9]* ||p" "$out")
      echo "check-vm: $suite under $kernel: ${seconds:-?} s (boot $boot)"
    done
    # A suite that took the kernel down runs once only: only those after it boot again.
    if [ "${#next[@]}" -eq "${#todo[@]}" ]; then break; fi
    todo=("${next[@]}")
  done
done
echo "check-vm: ${#kernels[@]} kernels (${kernels[*]}), $# suites each, $((SECONDS - start)) s"
exit "$status"
