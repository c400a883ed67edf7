#!/usr/bin/env bash
# What differs between kernels (make check-vm boots 6.1 and 6.12).
# memory.peak exists on both (Linux 5.19+).  While collectd reads, a
# helper writes to N MiB and exits at once, between two reads: memory-peak
# is >= N MiB afterwards, memory-current back near 0.  Linux 6.12 resets
# memory.peak for the descriptor that writes to it, and only for it: there
# memory-peak_interval catches the spike in its interval (>= N MiB) and is
# small again after it; 6.1 refuses the write (EINVAL): no
# memory-peak_interval, one INFO line that says why, nothing louder.
# Another reader's reset never touches the plugin's memory-peak.
# Independent sources: the helper's allocation, and the kernel's own
# answers to a second reader of memory.peak.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_controllers memory
need_collectd
need "python3" -- command -v python3
need_memhog
N=64
MIB=1048576
peak_resets

make_run_parent vm-kdiff
hand_down_controllers
mkdir "$parent/peak"
inst="${run}_peak"
test -f "$parent/peak/memory.peak"
ok $? "memory.peak exists ($kver)"
for f in memory.swap.peak pids.peak memory.events.local cpu.stat.local; do
  echo "$f: $(test -e "$parent/peak/$f" && echo present || echo absent)"
done | diag

dir="$T/kdiff"
start_watching "$dir" "$run/peak" '"cpu" "memory"'
wait_until _csv_has 2 "$dir" "$inst" memory-peak
bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" --hold-ms 0 "$3"' hog "$parent/peak" "$HOG" "$N" >/dev/null
ok $? "the helper wrote to $N MiB in $run/peak and exited at once"
wait_reads 3 "$dir" "$inst" memory-peak
peak=$(csv_last "$dir" "$inst" memory-peak)
cur=$(csv_last "$dir" "$inst" memory-current)
[ "${peak:-0}" -ge $((N * MIB)) ] && [ "${cur:-$((N * MIB))}" -lt $((8 * MIB)) ]
ok $? "memory-peak $peak >= $N MiB with memory-current $cur < 8 MiB"
cmax=$(cat "$dir/csv/testhost/joule_cgroup-$inst"/memory-current-* | awk -F, 'NR > 1 && $2 > m { m = $2 } END { print m + 0 }')
echo "largest memory-current sampled: $cmax" | diag

series=$(ls "$dir/csv/testhost/joule_cgroup-$inst"/memory-peak_interval-* 2>/dev/null)
info="memory.peak cannot be reset here (this kernel refuses the write; Linux 6.12 and later reset it per descriptor): memory-peak_interval is not sent"
if [ "$resets" = yes ]; then
  imax=$(cat $series /dev/null | awk -F, '$1 != "epoch" && $2 > m { m = $2 } END { print m + 0 }')
  ilast=$(csv_last "$dir" "$inst" memory-peak_interval)
  [ "$imax" -ge $((N * MIB)) ] && [ "${ilast:-$((N * MIB))}" -lt $((8 * MIB)) ]
  ok $? "$kver: memory-peak_interval caught the spike ($imax at most) and is small after it ($ilast)"
else
  [ -z "$series" ] && [ "$(grep -cxF "[info] joule_cgroup plugin: $info" "$dir/collectd.log")" -eq 1 ]
  ok $? "$kver: no memory-peak_interval, and one INFO line: $info"
fi

# A second reader writes to memory.peak through its own descriptor.
answer=$(python3 - "$parent/peak/memory.peak" <<'PY'
import errno, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    os.write(fd, b"reset\n")
except OSError as e:
    print("refused", errno.errorcode.get(e.errno, e.errno))
    sys.exit()
mine = int(os.pread(fd, 64, 0))
other = int(open(sys.argv[1]).read())
print("reset", mine, other)
PY
)
echo "writing to memory.peak: $answer" | diag
if [ "$resets" = yes ]; then
  set -- $answer
  [ "${1:-}" = reset ] && [ "${2:-0}" -lt $((8 * MIB)) ] && [ "${3:-0}" -ge $((N * MIB)) ]
  ok $? "$kver: the write resets memory.peak for its descriptor only (${2:-?} there, ${3:-?} for a fresh reader)"
else
  [ "$answer" = "refused EINVAL" ]
  ok $? "$kver: the kernel refuses the write ($answer)"
fi
wait_reads 2 "$dir" "$inst" memory-peak
peak2=$(csv_last "$dir" "$inst" memory-peak)
[ "${peak2:-0}" -ge $((N * MIB)) ]
ok $? "memory-peak after the other reader's write: $peak2, still the lifetime peak"
stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING on $kver"
grep -E '^\[(error|warning|info)\] joule_cgroup' "$dir/collectd.log" | diag
tap_done
