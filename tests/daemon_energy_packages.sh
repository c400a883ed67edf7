#!/usr/bin/env bash
# Collect "energy" on hosts of several packages and through lost
# intervals, through the real collectd, on fixture trees the test advances
# between reads by figures it knows:
#   A. a two-socket Xeon (tests/fixtures/powercap/intel-xeon-2s, its zones
#      named as on a host whose CPU 0 is on socket 1: intel-rapl:0 is
#      package-1) with the CPU topology of tests/fixtures/cpu/
#      xeon-2s-interleaved (CPUs 0, 2, 4, ... on package 0; CPU 13
#      offline) and a /proc/stat with a line per CPU: each package's idle
#      part is its own CPUs' idle share exactly; a cgroup pinned to package
#      1 gets none of package 0's energy (nor its core's or dram's); a
#      cgroup whose cpuset spans both gets its children's parts and its own
#      rest by the packages' busy time; one without the cpuset file the
#      same estimate; a cpuset that changes between reads moves the part;
#      per package the parts and the idle part never exceed the zone;
#   B. a zone whose energy_uj cannot be read for a while, then a zone
#      that goes and comes back: its counters start again from 0 (a counter
#      reset: unknown in rrdtool and in collectd's rates), power-<zone> is
#      nan for that read, one INFO; the second time a WARNING; never a flat
#      counter;
#   C. zones that appear after collectd started (the driver loaded late):
#      found at the next look, one INFO, values follow;
#   D. an AMD zone (no constraint files: a wrap assumed possible in
#      range / 1 kW) at Interval 6, longer than that: the plugin reads the
#      counter itself in between, and the energy written (with a wrap) is
#      all counted, to the µJ.
. "$(dirname "$0")/lib/common.sh"
need_collectd
need "python3" -- command -v python3
need "rrdtool" -- command -v rrdtool

# ---- A. per package ---------------------------------------------------------

cp -a "$FIXTURES/powercap/intel-xeon-2s" "$T/xeon"
cp -a "$FIXTURES/cpu/xeon-2s-interleaved" "$T/cpu"
pc="$T/xeon/sys/class/powercap"
zdir() { readlink -f "$pc/$1"; }
# CPU 0 on socket 1: the kernel names the zone of its package first.
echo package-1 >"$(zdir intel-rapl:0)/name"
echo package-0 >"$(zdir intel-rapl:1)/name"
# zone id -> the label it gets, and its energy per step in µJ
declare -A label=([intel-rapl:0]=package-1 [intel-rapl:0:0]=package-1-core
  [intel-rapl:0:1]=package-1-dram [intel-rapl:1]=package-0
  [intel-rapl:1:0]=package-0-core [intel-rapl:1:1]=package-0-dram)
declare -A per_step=([package-0]=16000000 [package-0-core]=8000000
  [package-0-dram]=4000000 [package-1]=21000000 [package-1-core]=7000000
  [package-1-dram]=7000000)
declare -A uj=()
for z in "${!label[@]}"; do uj[$z]=$(cat "$(zdir "$z")/energy_uj"); done

root="$T/cg"
for d in "" any any/a0 any/a1 nocs p1; do
  mkdir -p "$root/$d"
  : >"$root/$d/cgroup.procs"
done
echo "cpu cpuset" >"$root/cgroup.controllers"
cpuset() { echo "$2" >"$root/$1/cpuset.cpus.effective"; }
cpuset any 0-12,14-15 # every online CPU
cpuset any/a0 0,2     # package 0
cpuset any/a1 1       # package 1
cpuset p1 1,3,5,7,9,11,15
# nocs: no cpuset file (the controller is not enabled for it)

# CPU time: µs of each cgroup, ticks (10 ms) of each CPU.
declare -A use=([any]=0 [any/a0]=0 [any/a1]=0 [nocs]=0 [p1]=0)
declare -a ticks idle
for n in $(seq 0 15); do ticks[n]=100000 idle[n]=50000; done
write_times() {
  local d n sum=0 sum_idle=0 lines=""
  for d in any any/a0 any/a1 nocs p1; do
    printf 'usage_usec %d\nuser_usec %d\nsystem_usec 0\n' "${use[$d]}" "${use[$d]}" >"$root/$d/cpu.stat"
  done
  printf 'usage_usec %d\nuser_usec 0\nsystem_usec 0\n' $((use[any] + use[nocs] + use[p1])) >"$root/cpu.stat"
  for n in $(seq 0 15); do
    [ "$n" -eq 13 ] && continue # offline: no line
    sum=$((sum + ticks[n])) sum_idle=$((sum_idle + idle[n]))
    lines+="cpu$n $((ticks[n] - idle[n])) 0 0 ${idle[n]} 0 0 0 0 0 0"$'\n'
  done
  printf 'cpu  %d 0 0 %d 0 0 0 0 0 0\n%sintr 1 0\nctxt 2\n' $((sum - sum_idle)) "$sum_idle" "$lines" >"$T/stat"
}
# step P1_USE: every CPU 1 s; package 0's CPUs 0.75 s idle each (6 s of
# 8), package 1's 4 s idle over its 7 online CPUs; the zones per_step.
step() {
  local n z
  for n in $(seq 0 15); do
    ticks[n]=$((ticks[n] + 100))
    if ((n % 2 == 0)); then idle[n]=$((idle[n] + 75)); else idle[n]=$((idle[n] + (n == 15 ? 58 : 57))); fi
  done
  use[any/a0]=$((use[any/a0] + 1000000)) use[any/a1]=$((use[any/a1] + 1000000))
  use[any]=$((use[any] + 2500000)) use[nocs]=$((use[nocs] + 500000))
  use[p1]=$((use[p1] + $1))
  write_times
  for z in "${!label[@]}"; do
    uj[$z]=$((uj[$z] + per_step[${label[$z]}]))
    echo "${uj[$z]}" >"$(zdir "$z")/energy_uj"
  done
}
write_times

dir="$T/packages"
JC_INTERVAL=1 write_conf "$dir" "  CgroupRoot \"$root\"
  Select \"**\"
  Collect \"cpu\" \"energy\"
  PowercapRoot \"$pc\"
  ProcStat \"$T/stat\"
  CpuRoot \"$T/cpu\""
start_collectd "$dir"
wait_until _csv_has 1 "$dir" any_a0 ps_cputime
ok $? "collectd reads the cgroups and the zones"
# Step 1: p1 (package 1) uses 1.4 s; step 2: its cpuset moves to package
# 0, where it uses 0.6 s.
wait_reads 1 "$dir" any_a0 ps_cputime && step 1400000
wait_reads 1 "$dir" any_a0 ps_cputime && { cpuset p1 0,2,4; step 600000; }
wait_reads 3 "$dir" any_a0 ps_cputime
stop_collectd

last() { csv_last "$dir" "$1" "derive-energy_$2_uj"; }
# The figures by hand (µJ after both steps), from docs/metrics.md's rule:
# package 0: 2 s busy of 8, 2 µJ a µs; package 1: 3 s busy of 7, 3 µJ a µs.
# any's rest (0.5 s) and nocs (0.5 s) go 2:3 by the packages' busy time.
expect="
any_a0 package-0 4000000
any_a0 package-1 0
any_a0 package-0-core 2000000
any_a0 package-0-dram 1000000
any_a0 package-1-core 0
any_a1 package-1 6000000
any_a1 package-0 0
any_a1 package-1-core 2000000
any_a1 package-1-dram 2000000
any package-0 4800000
any package-1 7800000
any package-0-core 2400000
any package-1-core 2600000
any package-0-dram 1200000
any package-1-dram 2600000
nocs package-0 800000
nocs package-1 1800000
nocs package-1-dram 600000
p1 package-0 1200000
p1 package-1 4200000
p1 package-0-core 600000
p1 package-1-core 1400000
p1 package-0-dram 300000
p1 package-1-dram 1400000
root package-0 32000000
root package-1 42000000
root package-0-core 16000000
root package-1-dram 14000000"
bad=0 checked=0
while read -r who z want; do
  [ -n "$who" ] || continue
  got=$(last "$who" "$z")
  checked=$((checked + 1))
  awk -v a="${got:-x}" -v b="$want" 'BEGIN { d = a - b; exit !(a != "x" && d <= 2 && d >= -2) }' ||
    { bad=$((bad + 1)); echo "$who $z: $got, want $want" | diag; }
done <<<"$expect"
[ "$bad" -eq 0 ]
ok $? "each cgroup's part of each zone exact ($checked figures, $bad wrong)"
idle0=$(csv_last "$dir" root derive-energy_package-0_idle_uj)
idle1=$(csv_last "$dir" root derive-energy_package-1_idle_uj)
[ "$idle0" = 24000000 ] && [ "$idle1" = 24000000 ]
ok $? "each package's idle part from its own CPUs: 2 x 16 J x 6/8 = $idle0, 2 x 21 J x 4/7 = $idle1"
for p in package-0 package-1; do
  sum=$(($(last any "$p") + $(last nocs "$p") + $(last p1 "$p") + $(csv_last "$dir" root "derive-energy_${p}_idle_uj")))
  [ "$sum" -le "$(last root "$p")" ]
  ok $? "$p: the top-level parts and the idle part, $sum µJ, within what it measured, $(last root "$p")"
done
nested=$(($(last any package-0) - $(last any_a0 package-0) - $(last any_a1 package-0)))
[ "$nested" = 800000 ]
ok $? "nested: any's part of package 0 is its children's and 2/5 of its own 1 s rest ($nested µJ)"
grep -q "the energy of each of the 2 packages is split by the CPU time of its own CPUs (15 CPUs" "$dir/collectd.log"
ok $? "one INFO says how the packages are split"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no WARNING or ERROR"

# ---- B. an interval whose energy is not known --------------------------------

dir="$T/gap"
JC_INTERVAL=1 write_conf "$dir" "  CgroupRoot \"$root\"
  Select \"p1\"
  Collect \"cpu\" \"energy\"
  PowercapRoot \"$pc\"
  ProcStat \"$T/stat\"
  CpuRoot \"$T/cpu\"" "LoadPlugin rrdtool
<Plugin rrdtool>
  DataDir \"$dir/rrd\"
</Plugin>"
start_collectd "$dir"
pkg=$(zdir intel-rapl:1) # package-0
wait_until _csv_has 2 "$dir" root derive-energy_package-0_uj
# Round 1: energy_uj reads as garbage for two reads.  Round 2: the zone
# goes (its driver unloaded: the entry leaves the powercap class) and
# comes back, each seen at the plugin's next look (every 10 s).
for round in 1 2; do
  step 1000000
  wait_reads 1 "$dir" root derive-energy_package-0_uj
  if [ "$round" = 1 ]; then
    echo garbage >"$pkg/energy_uj"
    wait_reads 2 "$dir" p1 ps_cputime
    echo "${uj[intel-rapl:1]}" >"$pkg/energy_uj"
  else
    mv "$pc/intel-rapl:1" "$T/away"
    JC_WAIT_LIMIT=30 wait_until file_has "$dir/collectd.log" "RAPL zone intel-rapl:1 (package-0) is gone from"
    mv "$T/away" "$pc/intel-rapl:1"
    JC_WAIT_LIMIT=30 wait_until file_has "$dir/collectd.log" "RAPL zone intel-rapl:1 (package-0) in $pc can be read again"
  fi
  wait_reads 2 "$dir" root derive-energy_package-0_uj
done
step 1000000
wait_reads 2 "$dir" root derive-energy_package-0_uj
stop_collectd
series() { cat "$dir/csv/testhost/joule_cgroup-$1/$2"-[0-9]* | grep -v '^epoch' | cut -d, -f2 | tr '\n' ' '; }
host=$(series root derive-energy_package-0_uj)
echo "package-0: $host" | diag
awk -v s="$host" 'BEGIN { n = split(s, v, " "); drops = 0
    for (i = 2; i <= n; i++) { if (v[i] + 0 < v[i-1] + 0) { if (v[i] != 0) exit 1; drops++ } }
    exit drops != 2 }'
ok $? "the host's counter goes back to 0 after each gap, and nowhere else"
part=$(series p1 derive-energy_package-0_uj)
awk -v s="$part" 'BEGIN { n = split(s, v, " "); drops = 0
    for (i = 2; i <= n; i++) if (v[i] + 0 < v[i-1] + 0) { if (v[i] != 0) exit 1; drops++ }
    exit drops != 2 }'
ok $? "so does the cgroup's part: $part"
power=$(series root power-package-0)
[ "$(grep -o nan <<<"$power" | wc -l)" -ge 2 ]
ok $? "power-package-0 is nan at the reads after the gaps: $power"
rrd=$(rrdtool fetch "$dir/rrd/testhost/joule_cgroup-root/derive-energy_package-0_uj.rrd" AVERAGE -s -60 |
  awk -F': ' 'NF == 2 { print $2 }' | tr '\n' ' ')
nan_after_value=$(awk -v s="$rrd" 'BEGIN { n = split(s, v, " "); seen = 0; gaps = 0
    for (i = 1; i <= n; i++) { if (v[i] ~ /nan/) { if (seen) gaps++ } else seen = 1 } print gaps }')
[ "$nan_after_value" -ge 1 ]
ok $? "rrdtool stores the gap as unknown ($nan_after_value rows)"
info=$(grep -c '^\[info\] joule_cgroup plugin: RAPL zone intel-rapl:1 (package-0): the energy since the read before is not known (energy_uj could not be read' "$dir/collectd.log")
warn=$(grep -c '^\[warning\] joule_cgroup plugin: RAPL zone intel-rapl:1 (package-0): the energy since the read before is not known (energy_uj could not be read, or the zone was gone)' "$dir/collectd.log")
[ "$info" -eq 1 ] && [ "$warn" -eq 1 ]
ok $? "the first gap said at INFO, the second (the zone gone and back) a WARNING"

# ---- C. zones that come later --------------------------------------------------

late="$T/late/sys/class/powercap"
mkdir -p "$late"
dir="$T/lateconf"
JC_INTERVAL=1 write_conf "$dir" "  CgroupRoot \"$root\"
  Select \"p1\"
  Collect \"cpu\" \"energy\"
  PowercapRoot \"$late\"
  ProcStat \"$T/stat\"
  CpuRoot \"$T/cpu\""
start_collectd "$dir"
wait_until _csv_has 2 "$dir" p1 ps_cputime
! ls "$dir/csv/testhost/joule_cgroup-root/" 2>/dev/null | grep -q '^derive-energy'
ok $? "no zone: no energy list"
cp -a "$T/xeon/sys/devices" "$T/late/sys/"
cp -a "$pc/." "$late/"
JC_WAIT_LIMIT=30 wait_until _csv_has 2 "$dir" root derive-energy_package-0_uj
ok $? "the zones copied in: found at the next look, values follow"
stop_collectd
grep -q '^\[info\] joule_cgroup plugin: no RAPL zone (intel-rapl:\*) in' "$dir/collectd.log" &&
  grep -q '^\[info\] joule_cgroup plugin: RAPL zones found in .*package-1 (intel-rapl:0)' "$dir/collectd.log"
ok $? "one INFO that there is none, one that names them when found"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no WARNING or ERROR"

# ---- D. an interval longer than a wrap may take ---------------------------------

cp -a "$FIXTURES/powercap/amd-epyc-2s" "$T/amd"
apc="$T/amd/sys/class/powercap"
azone=$(readlink -f "$apc/intel-rapl:0")
range=4000000000 # 4 kJ: at the 1 kW assumed, a wrap may take 4 s
echo "$range" >"$azone/max_energy_range_uj"
# Fixed-width numbers written in place: the plugin reads the counter at
# any moment now, and must never find it truncated.
printf '%020d\n' $((range - 100000000)) >"$azone/energy_uj" # 100 J below the top
dir="$T/long"
JC_INTERVAL=6 write_conf "$dir" "  CgroupRoot \"$root\"
  Select \"p1\"
  Collect \"cpu\" \"energy\"
  PowercapRoot \"$apc\"
  ProcStat \"$T/stat\"
  CpuRoot \"$T/cpu\""
start_collectd "$dir"
JC_WAIT_LIMIT=30 wait_until _csv_has 1 "$dir" root derive-energy_package-0_uj
ok $? "collectd reads the AMD zones at Interval 6"
before=$(csv_last "$dir" root derive-energy_package-0_uj)
# 200 W for 12 s: 20 J every 0.1 s, wrapping at 4 kJ.
python3 - "$azone/energy_uj" "$range" >"$T/written" <<'PY'
import sys, time
import os
path, rng = sys.argv[1], int(sys.argv[2])
v, written = int(open(path).read()), 0
fd = os.open(path, os.O_WRONLY)
for _ in range(120):
    time.sleep(0.1)
    v, written = (v + 20000000) % rng, written + 20000000
    os.pwrite(fd, b'%020d\n' % v, 0)
os.close(fd)
print(written)
PY
JC_WAIT_LIMIT=30 wait_reads 2 "$dir" root derive-energy_package-0_uj
stop_collectd
after=$(csv_last "$dir" root derive-energy_package-0_uj)
written=$(cat "$T/written")
[ $((after - before)) -eq "$written" ]
ok $? "200 W over 12 s with a wrap, at Interval 6: $((after - before)) µJ counted, $written written"
! grep -q 'is not known' "$dir/collectd.log" && [ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no interval given up, no WARNING"
tap_done
