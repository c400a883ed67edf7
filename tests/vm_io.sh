#!/usr/bin/env bash
# I/O on a real block device (make check-vm: the VM's scratch disk
# /dev/vda).  A process in a selected cgroup writes 64 MiB with O_DIRECT
# and reads 32 MiB back with O_DIRECT; with PerDevice true the plugin's
# disk_octets and disk_ops series are named after the disk, as
# /sys/dev/block names it; the disk's line before any I/O ("254:0 ")
# counts nothing and is no problem.  Independent source: dd's own byte
# and block counts (O_DIRECT: no page cache, no readahead, no writeback).
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_controllers io
need_collectd
need_disk
W=64 R=32
MIB=1048576

make_run_parent vm-io
hand_down_controllers
mkdir "$parent/io"
inst="${run}_io"
# The device's name as the kernel's sysfs gives it, from its numbers.
majmin=$(printf '%d:%d' "0x$(stat -c %t "$VM_DISK")" "0x$(stat -c %T "$VM_DISK")")
dev=$(basename "$(readlink "/sys/dev/block/$majmin")")
# A limit that limits nothing gives the cgroup a line for the disk before
# any I/O, as real kernels write it: "254:0 ", the device and no key.
echo "$majmin rbps=max" >"$parent/io/io.max"
line=$(cat "$parent/io/io.stat")
[ "$line" = "$majmin " ]
ok $? "io.stat before any I/O: \"$line\" (a device line without keys)"

dir="$T/io"
start_watching "$dir" "$run/io" '"cpu" "io"' '  PerDevice true'
wait_until _csv_has 1 "$dir" "$inst" ps_cputime
ok $? "the cgroup is read"
# Before dd: nothing for the disk, or zeros (else this is the base the
# growth is measured from).
before=$(csv_last "$dir" "$inst" "disk_octets-$dev" || echo 0,0)
ops_before=$(csv_last "$dir" "$inst" "disk_ops-$dev" || echo 0,0)
[ "$before" = 0,0 ] && [ "$ops_before" = 0,0 ]
ok $? "the keyless line counts nothing (disk_octets $before, disk_ops $ops_before)"

bash -c 'echo $$ >"$1/cgroup.procs" &&
  dd if=/dev/zero of="$2" bs=1M count="$3" oflag=direct status=none &&
  dd if="$2" of=/dev/null bs=1M count="$4" iflag=direct status=none' \
  io "$parent/io" "$VM_DISK" "$W" "$R"
ok $? "dd wrote $W MiB to $VM_DISK and read $R MiB back, O_DIRECT, in $run/io"
wait_reads 3 "$dir" "$inst" ps_cputime
stop_collectd

within() { awk -v v="$1" -v w="$2" -v p="$3" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }'; }
ls "$dir/csv/testhost/joule_cgroup-$inst/disk_octets-$dev-"* >/dev/null 2>&1
ok $? "disk_octets is named \"$dev\" ($majmin in /sys/dev/block)"
ls "$dir/csv/testhost/joule_cgroup-$inst/" | diag
last=$(csv_last "$dir" "$inst" "disk_octets-$dev")
rd=$((${last%,*} - ${before%,*})) wr=$((${last#*,} - ${before#*,}))
within "$wr" $((W * MIB)) 2
ok $? "disk_octets write grew by $wr bytes = $W MiB ±2 % (dd wrote $((W * MIB)))"
within "$rd" $((R * MIB)) 2
ok $? "disk_octets read grew by $rd bytes = $R MiB ±2 % (dd read $((R * MIB)))"
ops=$(csv_last "$dir" "$inst" "disk_ops-$dev")
rops=$((${ops%,*} - ${ops_before%,*})) wops=$((${ops#*,} - ${ops_before#*,}))
[ "$wops" -ge "$W" ]
ok $? "disk_ops write grew by $wops >= $W (dd's blocks of 1 MiB)"
[ "$rops" -ge "$R" ]
ok $? "disk_ops read grew by $rops >= $R"
echo "io.stat: $(cat "$parent/io/io.stat")" | diag
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING"
grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag
tap_done
