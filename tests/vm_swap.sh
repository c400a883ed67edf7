#!/usr/bin/env bash
# Swap on a real kernel (make check-vm: a swap area on the VM's scratch
# disk).  A helper in a cgroup with memory.max M MiB and no swap limit
# writes to N MiB and holds them: the kernel pushes the excess out to
# swap.  Where the kernel has memory.swap.peak (Linux 6.5 on),
# memory-swap_peak is at least the swap the test saw used while the
# helper held, and about N - M MiB; it stays there once the helper has
# ended and memory-swap_current is back near 0.  A kernel without the
# file (6.1) sends no memory-swap_peak and says nothing about it.
# Independent sources: the kernel's memory.swap.current of the cgroup,
# read by the test while the helper holds, and the sizes the test chose.
#
# Bound: the helper's N MiB of anon memory cannot all stay under
# memory.max, so at least N - M MiB go out, less what the cgroup holds
# beside them (page tables, the helper's stack: well under 1 MiB).  The
# kernel reclaims in batches and may push out a little more than it
# must, and its swap cache keeps a page's slot while the page is also in
# memory: the swap used may pass N - M by a few MiB, here at most
# M / 4 (8 MiB).
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_controllers memory
need_collectd
need_memhog
need_disk
need "mkswap and swapon (util-linux)" -- command -v mkswap swapon swapoff
N=96 M=32
MIB=1048576
kver=$(uname -r)

# The whole scratch disk as a swap area (tmpfs, the VM's /tmp, cannot
# hold one), used before anything else: the kernel swaps there only.
mkswap "$VM_DISK" >/dev/null 2>&1 && swapon "$VM_DISK"
ok $? "a swap area on $VM_DISK ($(awk 'NR > 1 { printf "%s%s %s KiB", n++ ? "; " : "", $1, $3 }' /proc/swaps))" || tap_done
CLEANUPS+=('swapoff "$VM_DISK"')

make_run_parent vm-swap
hand_down_controllers
mkdir "$parent/swap"
inst="${run}_swap"
echo $((M * MIB)) >"$parent/swap/memory.max" && echo max >"$parent/swap/memory.swap.max"
ok $? "$run/swap: memory.max $M MiB, memory.swap.max max"
has_peak=no
test -e "$parent/swap/memory.swap.peak" && has_peak=yes
echo "$kver: memory.swap.peak $([ "$has_peak" = yes ] && echo present || echo absent)" | diag

dir="$T/swap"
start_watching "$dir" "$run/swap" '"cpu" "memory"' '  Values "memory-swap_*"'
wait_until _csv_has 1 "$dir" "$inst" memory-swap_current
ok $? "the cgroup is read (memory-swap_current $(csv_last "$dir" "$inst" memory-swap_current))"

bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" "$3"' hog "$parent/swap" "$HOG" "$N" >"$T/hog.out" &
hog=$!
CLEANUPS+=('kill "$hog" 2>/dev/null')
wait_until file_has "$T/hog.out" "allocated $N"
ok $? "the helper wrote to $N MiB in $run/swap and holds them"
used=$(cat "$parent/swap/memory.swap.current")
cur=$(cat "$parent/swap/memory.current")
echo "while it holds: memory.swap.current $used, memory.current $cur" | diag
# At least what the helper holds above memory.max goes out, and at most
# all it wrote (with its few other pages): how much more than the excess
# the kernel's reclaim takes is its own choice, and grows when the VM is
# slowed by a busy host (84.5 MiB of 96 once, beside two busy loops).
lo=$(((N - M - 1) * MIB)) hi=$(((N + 2) * MIB))
[ "$used" -ge "$lo" ] && [ "$used" -le "$hi" ]
ok $? "the kernel pushed $used bytes out to swap: at least the $((N - M)) MiB above memory.max (-1 MiB), at most the $N MiB written (+2 MiB)"
wait_reads 2 "$dir" "$inst" memory-swap_current
sc=$(csv_last "$dir" "$inst" memory-swap_current)
echo "memory-swap_current while it holds: $sc" | diag

if [ "$has_peak" = yes ]; then
  peak=$(csv_last "$dir" "$inst" memory-swap_peak)
  [ "${peak:-0}" -ge "$used" ] && [ "$peak" -ge "$lo" ] && [ "$peak" -le "$hi" ]
  ok $? "$kver: memory-swap_peak ${peak:-none} >= $used the test saw used, within $((N - M)) MiB -1 and $N MiB +2"
  kpeak=$(cat "$parent/swap/memory.swap.peak")
  echo "memory.swap.peak read by the test: $kpeak" | diag
fi

kill "$hog"
wait "$hog" 2>/dev/null
hog_low() { [ "$(cat "$parent/swap/memory.swap.current")" -lt $((MIB)) ]; }
wait_until hog_low
ok $? "the helper ended: memory.swap.current $(cat "$parent/swap/memory.swap.current") < 1 MiB"
wait_reads 2 "$dir" "$inst" memory-swap_current
after=$(csv_last "$dir" "$inst" memory-swap_current)
if [ "$has_peak" = yes ]; then
  peak=$(csv_last "$dir" "$inst" memory-swap_peak)
  [ "${after:-$MIB}" -lt "$MIB" ] && [ "${peak:-0}" -ge "$used" ]
  ok $? "$kver: afterwards memory-swap_current $after < 1 MiB, memory-swap_peak ${peak:-none} still >= $used"
else
  series=$(ls "$dir/csv/testhost/joule_cgroup-$inst"/memory-swap_peak-* 2>/dev/null)
  [ -z "$series" ] && [ "${after:-$MIB}" -lt "$MIB" ]
  ok $? "$kver: no memory.swap.peak, no memory-swap_peak (memory-swap_current $after afterwards)"
fi
stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag
tap_done
