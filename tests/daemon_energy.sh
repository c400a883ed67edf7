#!/usr/bin/env bash
# Collect "energy" through the real collectd, on the powercap tree of a
# two-socket Xeon (tests/fixtures/powercap/intel-xeon-2s: package, core
# and dram zones per socket), two cgroups and the host's /proc/stat, all
# fixtures the test advances between reads by figures it knows:
#   - the host's counters per zone (derive-energy_<zone>_uj) are the sum of
#     what the zones' energy_uj moved, package-0's wrap included
#     ((max_energy_range_uj - previous) + current);
#   - each cgroup is charged each zone's energy by its CPU time over the
#     host's, the idle part by the host's idle time: exactly, and the two
#     siblings' parts and the idle part add up to the zone's figure; an
#     interval in which /proc/stat did not move is split as the one
#     before it;
#   - power-<zone> is energy over time;
#   - a host without powercap: no energy list and one INFO line;
#   - an energy_uj only root can read, read without CAP_DAC_OVERRIDE:
#     one INFO with the remedy, the other zones' figures still go out.
. "$(dirname "$0")/lib/common.sh"
need_collectd
need "python3" -- command -v python3
need "setpriv (util-linux)" -- command -v setpriv

cp -a "$FIXTURES/powercap/intel-xeon-2s" "$T/xeon"
pc="$T/xeon/sys/class/powercap"
zdir() { readlink -f "$pc/$1"; } # the zone's directory
zones="intel-rapl:0 intel-rapl:0:0 intel-rapl:0:1 intel-rapl:1 intel-rapl:1:0 intel-rapl:1:1"
root="$T/cg"
mkdir -p "$root/a" "$root/b"
echo cpu >"$root/cgroup.controllers"
for d in "$root" "$root/a" "$root/b"; do
  : >"$d/cgroup.procs"
  printf 'usage_usec 0\nuser_usec 0\nsystem_usec 0\n' >"$d/cpu.stat"
done

# The steps: per zone µJ, a's and b's CPU µs, the host's total and idle
# ticks (USER_HZ 100), each since the step before.  The first is the
# baseline's own start; package-0 wraps at step 3.
declare -A uj=()
for z in $zones; do uj[$z]=$(cat "$(zdir "$z")/energy_uj"); done
range0=$(cat "$(zdir intel-rapl:0)/max_energy_range_uj")
a_us=0 b_us=0 total=100000 idle=50000
advance() { # DE_PKG DE_CORE DE_DRAM DA DB DTOTAL DIDLE
  local z d
  for z in $zones; do
    case $z in *:0:0 | *:1:0) d=$2 ;; *:0:1 | *:1:1) d=$3 ;; *) d=$1 ;; esac
    uj[$z]=$((uj[$z] + d))
    [ "$z" = intel-rapl:0 ] && [ "${uj[$z]}" -gt "$range0" ] && uj[$z]=$((uj[$z] - range0))
    echo "${uj[$z]}" >"$(zdir "$z")/energy_uj"
  done
  a_us=$((a_us + $4)) b_us=$((b_us + $5)) total=$((total + $6)) idle=$((idle + $7))
  printf 'usage_usec %d\nuser_usec %d\nsystem_usec 0\n' "$a_us" "$a_us" >"$root/a/cpu.stat"
  printf 'usage_usec %d\nuser_usec %d\nsystem_usec 0\n' "$b_us" "$b_us" >"$root/b/cpu.stat"
  printf 'usage_usec %d\nuser_usec %d\nsystem_usec 0\n' $((a_us + b_us)) $((a_us + b_us)) >"$root/cpu.stat"
  printf 'cpu  %d 0 0 %d 0 0 0 0 0 0\ncpu0 %d 0 0 %d 0 0 0 0 0 0\n' \
    $((total - idle)) "$idle" $((total - idle)) "$idle" >"$T/stat"
  echo "$*" >>"$T/steps"
}
: >"$T/steps"
advance 0 0 0 0 0 0 0
# package-0 starts 40 J below its range: the second step wraps it.
uj[intel-rapl:0]=$((range0 - 40000000))
echo "${uj[intel-rapl:0]}" >"$(zdir intel-rapl:0)/energy_uj"

dir="$T/energy"
JC_INTERVAL=1 write_conf "$dir" "  CgroupRoot \"$root\"
  Collect \"cpu\" \"energy\"
  PowercapRoot \"$pc\"
  ProcStat \"$T/stat\""
start_collectd "$dir"
clock=ps_cputime
wait_until _csv_has 1 "$dir" a "$clock"
ok $? "collectd reads the cgroups and the zones"
: >"$T/steps" # what counts: the steps after the baseline
# DE_PKG DE_CORE DE_DRAM (µJ)  DA DB (µs)  DTOTAL DIDLE (ticks of 10 ms)
while read -r step; do
  wait_reads 1 "$dir" a "$clock" || break
  advance $step
done <<'STEPS'
20000000 8000000 3000000   1000000 500000   200 50
25000000 9000000 3500000   1500000 500000   300 100
5000000 2000000 500000     0 0              0 0
30000000 12000000 4000000  500000 500000    200 100
10000000 4000000 1000000   2000000 0        250 50
STEPS
wait_reads 3 "$dir" a "$clock"
stop_collectd

last() { csv_last "$dir" "$1" "$2"; }
# expected ZONE-KIND (pkg core dram) WHO (host a b idle): from the steps;
# a step in which /proc/stat did not move is split as the step before
# (jc_share's rule, docs/metrics.md).
expected() {
  awk -v kind="$1" -v who="$2" '{ e = kind == "pkg" ? $1 : kind == "core" ? $2 : $3
      if ($6 > 0) { t = $6 * 10000; i = $7 * 10000; ua = $4; ub = $5 }
      if (who == "host") s += e; else if (who == "idle") s += e * i / t
      else if (who == "a") s += e * ua / t; else s += e * ub / t }
    END { printf "%.0f", s }' "$T/steps"
}
close() { awk -v a="$1" -v b="$2" -v tol="${3:-1}" 'BEGIN { d = a - b; exit !(d <= tol && d >= -tol) }'; }
bad=0 checked=0
for z in package-0 package-0-core package-0-dram package-1 package-1-core package-1-dram; do
  case $z in *-core) kind=core ;; *-dram) kind=dram ;; *) kind=pkg ;; esac
  for who in host idle a b; do
    case $who in
      host) got=$(last root "derive-energy_${z}_uj") ;;
      idle) got=$(last root "derive-energy_${z}_idle_uj") ;;
      *) got=$(last "$who" "derive-energy_${z}_uj") ;;
    esac
    want=$(expected "$kind" "$who")
    checked=$((checked + 1))
    close "${got:-x}" "$want" 2 || { bad=$((bad + 1)); echo "$z $who: $got, want $want"; } | diag
  done
  sum=$(($(last a "derive-energy_${z}_uj") + $(last b "derive-energy_${z}_uj") + $(last root "derive-energy_${z}_idle_uj")))
  close "$sum" "$(last root "derive-energy_${z}_uj")" 3 || { bad=$((bad + 1)); echo "$z: parts $sum != $(last root "derive-energy_${z}_uj")" | diag; }
done
[ "$bad" -eq 0 ]
ok $? "every zone's figure, the idle part and each cgroup's part exact, and the parts add up ($checked figures, $bad wrong)"
[ "$(last root derive-energy_package-0_uj)" = "$(expected pkg host)" ]
ok $? "package-0 over its wrap: $(last root derive-energy_package-0_uj) µJ = the steps' $(expected pkg host)"
# power x the time between its lines (the reads' times, as collectd
# stamps them) adds up to the energy: 90 J in all.
j=$(cat "$dir/csv/testhost/joule_cgroup-root/power-package-0"-[0-9]* | grep -v '^epoch' |
  awk -F, 'NR > 1 { s += $2 * ($1 - t) } { t = $1 } END { printf "%.1f", s }')
awk -v j="$j" 'BEGIN { exit !(j > 90 * 0.9 && j < 90 * 1.1) }'
ok $? "power-package-0 is energy over time: W x s between reads = $j J (the steps' 90 J, within 10 %)"
ls "$dir/csv/testhost/joule_cgroup-root/" | grep -q '^derive-energy_package-1-dram_idle_uj-' &&
  ! ls "$dir/csv/testhost/joule_cgroup-a/" | grep -qE '^(power-|derive-energy_.*_idle_uj)'
ok $? "the idle parts and the power are the host's (instance root), a cgroup has its part alone"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no WARNING or ERROR"

# A host without powercap: nothing, and one line.
dir="$T/absent"
write_conf "$dir" "  CgroupRoot \"$root\"
  Collect \"cpu\" \"energy\"
  PowercapRoot \"$T/none\""
run_collectd "$dir" 2
! ls "$dir/csv/testhost/"*/ | grep -qE '^(derive-energy|power-)'
ok $? "no powercap tree: no energy list"
n=$(grep -c 'RAPL' "$dir/collectd.log")
[ "$n" -eq 1 ] && grep -q '^\[info\] joule_cgroup plugin: no powercap tree at' "$dir/collectd.log" &&
  [ "$(loud_lines "$dir")" -eq 0 ]
ok $? "and exactly one INFO line: $(grep RAPL "$dir/collectd.log")"

# energy_uj of root only, read without CAP_DAC_OVERRIDE (as collectd run as
# a user meets it since Linux 5.10): one INFO with the remedy.
chmod 000 "$(zdir intel-rapl:1:1)/energy_uj"
dir="$T/locked"
write_conf "$dir" "  CgroupRoot \"$root\"
  Collect \"cpu\" \"energy\"
  PowercapRoot \"$pc\"
  ProcStat \"$T/stat\""
saved=("${COLLECTD_ENV[@]}")
COLLECTD_ENV=(setpriv --inh-caps=-all --bounding-set=-dac_override,-dac_read_search "${COLLECTD_ENV[@]}")
run_collectd "$dir" 3
COLLECTD_ENV=("${saved[@]}")
line=$(grep -E '^\[info\] joule_cgroup plugin: .*energy_uj' "$dir/collectd.log")
[ "$(grep -c . <<<"$line")" -eq 1 ] && grep -q 'udev' <<<"$line"
ok $? "an unreadable energy_uj: one INFO naming the remedy: $line"
ls "$dir/csv/testhost/joule_cgroup-root/" | grep -q '^derive-energy_package-1_uj' &&
  ! ls "$dir/csv/testhost/joule_cgroup-root/" | grep -q '^derive-energy_package-1-dram_uj'
ok $? "the other zones still go out"
tap_done
