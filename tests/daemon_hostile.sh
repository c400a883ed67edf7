#!/usr/bin/env bash
# Hostile files through the real collectd: empty files, no trailing
# newline, binary junk, 2^64-1 and beyond, a slab and counters beyond
# 2^63, negative numbers, a 1 MiB line,
# partial io.stat lines, two paths with one instance, every io.stat form
# real kernels write, limit files that are no limits.  collectd keeps
# running, every valid figure goes out exactly, nothing invalid does, and
# each problem is logged once per cgroup however many reads follow.
. "$(dirname "$0")/lib/common.sh"
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
need "python3" -- command -v python3
EXPECT="python3 $top_srcdir/tests/lib/csv_expect.py"
cp -r "$FIXTURES" "$T/fixtures"
sh "$T/fixtures/make-hostile.sh"
E="$T/fixtures/expected/hostile.txt"

dir="$T/hostile"
JC_INTERVAL=0.2 write_conf "$dir" "  CgroupRoot \"$T/fixtures/hostile\"
  Select \"*\"
  Collect \"cpu\" \"memory\" \"io\" \"pressure\" \"events\" \"pids\"
  Values \"*\""
run_collectd "$dir" 6
reads=$(grep -c '"plugin_instance":"no-newline","type":"derive","type_instance":"cpu_usage_usec"' "$dir/collectd.log")
grep -q 'Exiting normally' "$dir/collectd.log" && [ "$reads" -ge 5 ]
ok $? "collectd read the hostile tree $reads times and exited normally"

want=$($EXPECT --instances "$E" '*' | tr ' ' '\n' | grep -v '^dup_name$' | tr '\n' ' ' | sed 's/ $//')
got=$(csv_instances "$dir")
# dup holds dup/name too, but "*" selects one level: no collision here.
[ "$got" = "$(echo "$want dup_name" | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')" ]
ok $? "instances: $got"

check_values() { # path instance groups
  local out
  out=$($EXPECT "$E" "$1" "$dir/csv/testhost/joule_cgroup-$2" "$3" 2>&1)
  ok $? "$1: every valid figure exact, nothing invalid sent (${out##*$'\n'})"
  echo "$out" | grep -v 'figures checked' | diag
}
check_values no-newline no-newline cpu,memory,io,pressure,pids
check_values partial-io partial-io cpu,memory,io,pressure,pids
check_values empty empty cpu,memory,io,pressure,pids
check_values garbage garbage cpu,memory,io,pressure,pids
check_values huge huge cpu,memory,io,pressure,pids
check_values longline longline cpu,io,pressure,pids
# io.stat (docs/metrics.md): merged, "(unknown)" and keyless lines, unknown
# keys count or are skipped without a word; a bad known value skips its line.
check_values io-forms io-forms cpu,memory,io,pressure,pids
check_values io-keyless io-keyless cpu,memory,io,pressure,pids
check_values io-malformed io-malformed cpu,memory,io,pressure,pids
# Every u64 the kernel prints (%llu) is a value: memory.stat's slab
# 14914318128160131214 goes out as memory-slab, without a word; a counter
# beyond 2^63 - 1 is no collectd DERIVE: its list is not sent, its file is
# said once, and the rest of the file goes out (docs/metrics.md).
check_values u64-slab u64-slab cpu,memory,io,pressure,events,pids
check_values u64-counters u64-counters cpu,memory,io,pressure,events,pids
slab=$(cat "$dir"/csv/testhost/joule_cgroup-u64-slab/memory-slab-[0-9]* 2>/dev/null | tail -n 1 | cut -d, -f2)
python3 -c 'import sys; sys.exit(float(sys.argv[1]) != float(14914318128160131214))' "${slab:-0}"
ok $? "u64-slab: memory-slab is the kernel's 14914318128160131214 (the nearest double: ${slab:-not sent})"
! grep -E '^\[(warning|error|notice)\] joule_cgroup plugin: .*/hostile/u64-slab/' "$dir/collectd.log"
ok $? "u64-slab: its memory.stat is no problem"
said=$(grep -E '^\[warning\] joule_cgroup plugin: .*/hostile/u64-counters/' "$dir/collectd.log" |
  sed -E 's|.*/u64-counters/([a-z.]+) holds a counter beyond 2\^63 - 1, more than collectd.s DERIVE holds \(Value too large for defined data type\): its list is not sent.*|\1|' | sort | tr '\n' ' ')
[ "$said" = "cpu.pressure cpu.stat io.stat memory.events " ]
ok $? "u64-counters: each file with a counter beyond DERIVE said once, as too large (${said:-nothing})"
[ "$(csv_last "$dir" longline memory-current)" = 4608000 ] &&
  ! ls "$dir/csv/testhost/joule_cgroup-longline/memory-anon-"* >/dev/null 2>&1
ok $? "longline: memory.current goes out, the oversized memory.stat does not"

# Each problem once, whatever the number of reads.
dups=$(grep -E '^\[(warning|error|notice)\] joule_cgroup plugin:' "$dir/collectd.log" | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ]
ok $? "no problem logged twice in $reads reads"
for cg in empty garbage huge longline u64-counters; do
  n=$(grep -cE "^\[warning\] joule_cgroup plugin: .*/hostile/$cg/" "$dir/collectd.log")
  [ "$n" -ge 1 ]
  ok $? "$cg: its problems are logged ($n lines)"
done
grep -E '^\[(warning|error|notice)\] joule_cgroup plugin:' "$dir/collectd.log" | sed "s|$T/fixtures/||" | diag
! grep -qE '^\[warning\] joule_cgroup plugin: .*/hostile/(no-newline|partial-io)/' "$dir/collectd.log"
ok $? "valid files without a newline or with partial io lines are not problems"
! grep -qE '^\[warning\] joule_cgroup plugin: .*/hostile/(io-forms|io-keyless)/' "$dir/collectd.log"
ok $? "merged, (unknown) and keyless io.stat lines, unknown keys are not problems"
n=$(grep -cE '^\[warning\] joule_cgroup plugin: .*/hostile/io-malformed/' "$dir/collectd.log")
[ "$n" -eq 1 ]
ok $? "io-malformed: six bad lines, the file logged once ($n lines)"

# Limits (docs/metrics.md) from files that are empty, unterminated, junk,
# 2^64-1 and beyond, 0, a zero period; an inherited one (dup/name).
dir="$T/hostile-limits"
JC_INTERVAL=0.2 write_conf "$dir" "  CgroupRoot \"$T/fixtures/hostile\"
  Select \"*\"
  Select \"dup/name\"
  Ignore \"dup_name\"
  Collect \"memory\" \"pids\" \"limits\"
  Values \"*\""
run_collectd "$dir" 3
for cg in empty no-newline garbage huge bad-limits dup/name partial-io; do
  check_values "$cg" "${cg//\//_}" memory,pids,limits
done
unlogged=
for f in garbage/cpu.max garbage/memory.max garbage/memory.high garbage/pids.max \
    bad-limits/cpu.max bad-limits/memory.high bad-limits/pids.max; do
  grep -qE "^\[warning\] joule_cgroup plugin: .*/hostile/$f[^a-z_.]" "$dir/collectd.log" ||
    unlogged="$unlogged $f"
done
[ -z "$unlogged" ]
ok $? "limit files that are no limits are logged (not:${unlogged:- none})"
! grep -qE '^\[warning\] joule_cgroup plugin: .*/hostile/(no-newline|huge/(cpu|memory)\.max|bad-limits/memory\.max|dup)' "$dir/collectd.log"
ok $? "limits without a newline, a huge quota, memory.max 0, an inherited limit are not problems"
dups=$(grep -E '^\[(warning|error|notice)\] joule_cgroup plugin:' "$dir/collectd.log" | sort | uniq -d | wc -l)
grep -q 'Exiting normally' "$dir/collectd.log" && [ "$dups" -eq 0 ]
ok $? "limits: collectd exited normally, no problem logged twice"
tap_done
