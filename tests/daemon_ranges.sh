#!/usr/bin/env bash
# Figures that writers must keep, through the real collectd to its csv and
# rrdtool writers (rrdtool checks every value against its type's range in
# types.db and stores NaN for the others):
#   - a cgroup using 4 CPUs under a 2-core quota: its share of the limit
#     (about 200 %) reaches both writers as a number, and its share of the
#     host (percent-cpu) stays within 0..100;
#   - memory.current above a lowered memory.max: the share (150 %) too;
#   - io.stat losing a block device mid-run (a volume detached):
#     disk_octets and disk_ops never decrease, in csv or rrd.
# A fixture tree rewritten between reads: each step waits for the read.
. "$(dirname "$0")/lib/common.sh"
need_collectd
need "rrdtool" -- command -v rrdtool
need "rrdtool.so" -- test -f "$COLLECTD_PLUGINDIR/rrdtool.so"

root="$T/tree"
mkdir -p "$root/busy"
echo "cpu memory io" >"$root/cgroup.controllers"
printf 'usage_usec 0\nuser_usec 0\nsystem_usec 0\n' >"$root/cpu.stat"
: >"$root/busy/cgroup.procs"
echo "200000 100000" >"$root/busy/cpu.max"
echo 3072 >"$root/busy/memory.current"
echo 2048 >"$root/busy/memory.max"
usage=0
write_usage() {
  printf 'usage_usec %d\nuser_usec %d\nsystem_usec 0\n' "$usage" "$usage" >"$root/busy/cpu.stat"
}
write_io() { # DEVICES...: 8:0 and, while "both", 7:0
  {
    echo "8:0 rbytes=$((1000000 + io)) wbytes=$((2000000 + io)) rios=$((10 + io)) wios=$((20 + io))"
    [ "$1" = both ] && echo "7:0 rbytes=5000000 wbytes=7000000 rios=50 wios=70"
  } >"$root/busy/io.stat"
}
io=0
write_usage
write_io both

dir="$T/run"
mkdir -p "$dir/rrd"
JC_INTERVAL=1 write_conf "$dir" "  CgroupRoot \"$root\"
  ReportRoot false
  Values \"*\"" "LoadPlugin rrdtool
<Plugin rrdtool>
  DataDir \"$dir/rrd\"
</Plugin>"
start_collectd "$dir"
inst=busy
clock=ps_cputime
wait_until _csv_has 1 "$dir" "$inst" "$clock"
ok $? "collectd reads the fixture"
# Four CPU-seconds per read, for ten reads; the second device goes after five.
for ((i = 1; i <= 10; i++)); do
  usage=$((usage + 4000000 * 1))
  io=$((io + 1000))
  write_usage
  [ "$i" -le 5 ] && write_io both || write_io one
  wait_reads 1 "$dir" "$inst" "$clock" || break
done
wait_reads 2 "$dir" "$inst" "$clock"
stop_collectd

csv_values() { # TYPE-FILE COLUMN: that column of every csv line
  cat "$dir/csv/testhost/joule_cgroup-$inst/$1"-[0-9]* | grep -v '^epoch' | cut -d, -f"$2"
}
rrd_values() { # RRD DS: the non-NaN values rrdtool stored, last 60 s
  rrdtool fetch "$dir/rrd/testhost/joule_cgroup-$inst/$1.rrd" AVERAGE -s -60 2>/dev/null |
    awk -v ds="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == ds) col = i + 1; next }
      NF > 1 && $col !~ /nan/ { print $col + 0 }'
}

above=$(csv_values gauge-cpu_limit_percent 2 | awk '$1 > 150' | wc -l)
[ "$above" -ge 3 ]
ok $? "csv: gauge-cpu_limit_percent above 150 ($above reads; $(csv_values gauge-cpu_limit_percent 2 | tail -n 3 | tr '\n' ' '))"
stored=$(rrd_values gauge-cpu_limit_percent value | awk '$1 > 150' | wc -l)
[ "$stored" -ge 1 ]
ok $? "rrdtool: gauge-cpu_limit_percent above 150 stored as a number ($stored steps; $(rrd_values gauge-cpu_limit_percent value | tail -n 2 | tr '\n' ' '))"
max=$(csv_values percent-cpu 2 | sort -g | tail -n 1)
awk -v m="$max" 'BEGIN { exit !(m <= 100 && m > 90) }'
ok $? "percent-cpu within 0..100 (4 CPUs busy of $(nproc): at most $max)"
[ "$(rrd_values percent-cpu value | wc -l)" -ge 1 ]
ok $? "rrdtool: percent-cpu stored"
csv_values gauge-memory_max_percent 2 | tail -n 1 | awk '{ exit !($1 == 150) }' &&
  [ "$(rrd_values gauge-memory_max_percent value | awk '$1 == 150' | wc -l)" -ge 1 ]
ok $? "memory.current 3072 above memory.max 2048: 150 % in csv and rrd"

monotonic() { # TYPE-FILE COLUMN
  csv_values "$1" "$2" | awk 'NR > 1 && $1 < last { bad++ } { last = $1 } END { exit bad > 0 }'
}
for col in 2 3; do
  monotonic disk_octets "$col" && monotonic disk_ops "$col"
  ok $? "disk_octets and disk_ops column $col never decrease as 7:0 leaves ($(csv_values disk_octets "$col" | sed -n '1p;$p' | tr '\n' ' '))"
done
last=$(csv_values disk_octets 2 | tail -n 1)
[ "$last" = $((1000000 + 10000 + 5000000)) ]
ok $? "the device that left keeps its part: read bytes $last = 8:0's 1010000 + 7:0's 5000000"
neg=$(rrdtool fetch "$dir/rrd/testhost/joule_cgroup-$inst/disk_octets.rrd" AVERAGE -s -60 2>/dev/null |
  awk 'NR > 1 && NF > 1 { for (i = 2; i <= NF; i++) if ($i !~ /nan/ && $i + 0 < 0) n++ } END { print n + 0 }')
[ "$neg" -eq 0 ]
ok $? "rrdtool: no negative I/O rate"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no WARNING or ERROR"
tap_done
