#!/usr/bin/env bash
# Collect "gpu" through the real collectd, without a GPU: the fake NVML
# (tests/fake_nvml.c, built by make check) named by GpuLibrary, a fixture
# cgroup tree, a fixture /proc (ProcRoot) and the fake's script, advanced
# between reads by steps the test knows.  One GPU; a's process holds
# 1 GiB, b's 512 MiB, and pid 203, which /proc lacks, 64 MiB:
#   - memory-<gpu>: a, b and root (every process) exact;
#   - derive-energy_<gpu>_uj on root: the board's counter (300 J over the
#     steps); on a and b their parts, the interval's energy × their
#     processes' mean SM per cent (the mean of each one's samples) / 100,
#     exact, and shared out where they pass 100 %; the idle part on root;
#     a + b + idle + pid 203's unattributed part = the counter's increase;
#   - percent-<gpu>_sm: the highest interval of each cgroup;
#   - pid 203: one INFO with the remedy (hostPID), no WARNING;
#   - NVML initialised and shut down once per read (not held between);
#   - no driver (GpuLibrary names no library): one INFO line, the other
#     lists go out;
#   - conf/prometheus-alerts.yml's CgroupNearGPUMemory on such series,
#     and on MIG's per instance series (promtool test rules, where
#     promtool is).
. "$(dirname "$0")/lib/common.sh"
need_collectd
fake="$top_builddir/tests/fake-nvml/libnvidia-ml.so.1"
need "the fake NVML (make check builds it)" -- test -r "$fake"

uuid=GPU-0b5e3a42-7c1d-4f2e-9a8b-1c2d3e4f5a6b
gpu_fixture # $root: a and b; $T/proc: 201 in /a, 202 in /b

export FAKE_NVML_SCRIPT="$T/nvml" FAKE_NVML_LOG="$T/nvml.log"
energy=1000000 # mJ
samples=""
script() { # the fake's script, replaced at once (it is read at nvmlInit)
  {
    echo "gpu $uuid 0 $energy 150323855360"
    echo "proc 0 compute 201 1073741824"
    echo "proc 0 compute 202 536870912"
    echo "proc 0 compute 203 67108864"
    printf '%b' "$samples"
  } >"$T/nvml.new"
  mv "$T/nvml.new" "$T/nvml"
}
script

dir="$T/gpu"
JC_INTERVAL=0.5 write_conf "$dir" "  CgroupRoot \"$root\"
  Collect \"memory\" \"gpu\"
  GpuLibrary \"$fake\"
  ProcRoot \"$T/proc\""
start_collectd "$dir"
series="memory-$uuid"
wait_until _csv_has 1 "$dir" root "$series"
ok $? "collectd reads the GPU through the fake library"

# The steps: the board's energy (mJ) in the step, and its samples
# "TS PID SM ..." (time stamps after every earlier one).  Two reads
# between steps: one that began before the script changed may still
# be dispatching; the second began after, so no two steps share a read.
n=0
while read -r de rest; do
  wait_reads 2 "$dir" root "$series" || break
  energy=$((energy + de))
  set -- $rest
  while [ $# -ge 3 ]; do samples+="util 0 $2 $1 $3\n"; shift 3; done
  script
  n=$((n + 1))
done <<'STEPS'
100000  1 201 60  1 202 20
50000   2 201 10  2 202 10  2 203 30  3 202 50
30000
120000  4 201 100  5 201 100  5 202 0  6 202 40
STEPS
wait_reads 3 "$dir" root "$series"
stop_collectd
[ "$n" -eq 4 ]
ok $? "four steps, a read after each"

last() { csv_last "$dir" "$1" "$2"; }
# Per step, each process's mean SM per cent: 1) 201 60, 202 20; 2) 201
# 10, 202 (10 + 50) / 2 = 30, 203 30; 3) none: all idle; 4) 201 100, 202
# (0 + 40) / 2 = 20: 120 % in all, so the 120 J go to a and b as 100 to
# 20 and none is idle.  Over the steps (J): the board 100 + 50 + 30 + 120
# = 300; a 60 + 5 + 0 + 100 = 165; b 20 + 15 + 0 + 20 = 55; idle 20 + 15
# + 30 + 0 = 65; pid 203 (unattributed) 15.
check_eq() { # NAME GOT WANT
  [ "$2" = "$3" ]
  ok $? "$1: $2 (want $3)"
}
check_eq "root memory-<gpu> (every process)" "$(last root "$series")" 1677721600
check_eq "root memory-<gpu>_total (the GPU's)" "$(last root "$series"_total)" 150323855360
check_eq "a memory-<gpu>" "$(last a "$series")" 1073741824
check_eq "b memory-<gpu>" "$(last b "$series")" 536870912
check_eq "root derive-energy_<gpu>_uj (the board)" "$(last root "derive-energy_${uuid}_uj")" 300000000
check_eq "a's part, µJ" "$(last a "derive-energy_${uuid}_uj")" 165000000
check_eq "b's part, µJ" "$(last b "derive-energy_${uuid}_uj")" 55000000
check_eq "the idle part, µJ" "$(last root "derive-energy_${uuid}_idle_uj")" 65000000
sum=$(($(last a "derive-energy_${uuid}_uj") + $(last b "derive-energy_${uuid}_uj") + $(last root "derive-energy_${uuid}_idle_uj") + 15000000))
check_eq "a + b + idle + pid 203's 15 J = the board's increase" "$sum" "$(last root "derive-energy_${uuid}_uj")"
maxof() { cat "$dir/csv/testhost/joule_cgroup-$1/percent-${uuid}_sm"-[0-9]* | grep -v '^epoch' |
  awk -F, '$2 > m { m = $2 } END { printf "%.4f", m }'; }
check_eq "a's busiest interval: 100 %" "$(maxof a)" 100.0000
check_eq "b's busiest interval: (10 + 50) / 2 %" "$(maxof b)" 30.0000
[ "$(grep -c 'process 203, which NVML lists on a GPU, is not in' "$dir/collectd.log")" -eq 1 ] &&
  grep -q 'hostPID' "$dir/collectd.log"
ok $? "pid 203: one INFO, with the remedy"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no WARNING or ERROR"
inits=$(grep -c '^init' "$T/nvml.log") shutdowns=$(grep -c '^shutdown' "$T/nvml.log")
[ "$inits" -eq "$shutdowns" ] && [ "$inits" -ge 6 ]
ok $? "NVML started and shut down at each read, never held between: $inits, $shutdowns"

# No driver: one line, the rest as ever.
dir="$T/absent"
write_conf "$dir" "  CgroupRoot \"$root\"
  Collect \"memory\" \"gpu\"
  GpuLibrary \"$T/none/libnvidia-ml.so.1\"
  ProcRoot \"$T/proc\""
run_collectd "$dir" 2
! ls "$dir/csv/testhost/"*/ | grep -q 'GPU-' && [ -n "$(last a memory-current)" ]
ok $? "no driver: no GPU list; memory-current still goes out"
[ "$(grep -ci 'nvidia\|nvml\|gpu' "$dir/collectd.log")" -eq 1 ] &&
  grep -q '^\[info\] joule_cgroup plugin: no NVIDIA driver: ' "$dir/collectd.log" &&
  [ "$(loud_lines "$dir")" -eq 0 ]
ok $? "and exactly one INFO line: $(grep -i 'nvidia' "$dir/collectd.log")"
# The alert rule of conf/prometheus-alerts.yml on such series: a at 94 %
# of the GPU's memory alerts, b at 1 % does not; on GPU instances (MIG)
# c at 95 % of instance 1's alerts, b at 5 % of instance 2's does not.
if command -v promtool >/dev/null; then
  cat >"$T/alerts-test.yml" <<YML
rule_files:
  - $top_srcdir/conf/prometheus-alerts.yml
evaluation_interval: 15s
tests:
  - interval: 1m
    input_series:
      - series: 'collectd_joule_cgroup_memory{instance="gpu1",joule_cgroup="a",type="GPU-0b5e"}'
        values: '141000000000x20'
      - series: 'collectd_joule_cgroup_memory{instance="gpu1",joule_cgroup="b",type="GPU-0b5e"}'
        values: '1000000000x20'
      - series: 'collectd_joule_cgroup_memory{instance="gpu1",joule_cgroup="root",type="GPU-0b5e"}'
        values: '136000000000x20'
      - series: 'collectd_joule_cgroup_memory{instance="gpu1",joule_cgroup="root",type="GPU-0b5e_total"}'
        values: '150000000000x20'
      - series: 'collectd_joule_cgroup_memory{instance="gpu1",joule_cgroup="c",type="GPU-0b5e_gi1"}'
        values: '20000000000x20'
      - series: 'collectd_joule_cgroup_memory{instance="gpu1",joule_cgroup="b",type="GPU-0b5e_gi2"}'
        values: '1000000000x20'
      - series: 'collectd_joule_cgroup_memory{instance="gpu1",joule_cgroup="root",type="GPU-0b5e_gi1_total"}'
        values: '21000000000x20'
      - series: 'collectd_joule_cgroup_memory{instance="gpu1",joule_cgroup="root",type="GPU-0b5e_gi2_total"}'
        values: '21000000000x20'
    alert_rule_test:
      - eval_time: 10m
        alertname: CgroupNearGPUMemory
        exp_alerts:
          - exp_labels:
              instance: gpu1
              joule_cgroup: a
              type: GPU-0b5e
              severity: warning
            exp_annotations:
              summary: "a on gpu1 holds 94% of GPU GPU-0b5e's memory"
          - exp_labels:
              instance: gpu1
              joule_cgroup: c
              type: GPU-0b5e_gi1
              severity: warning
            exp_annotations:
              summary: "c on gpu1 holds 95.24% of GPU GPU-0b5e_gi1's memory"
YML
  promtool test rules "$T/alerts-test.yml" >"$T/promtool.out" 2>&1
  ok $? "CgroupNearGPUMemory: a cgroup at 94 % of a GPU's memory alerts, one at 1 % does not; with MIG, one at 95 % of its GPU instance's memory alerts, one at 5 % does not"
else
  echo "# promtool absent: the alert rule is checked by tests/fleet_docs.sh's promtool check rules"
fi
tap_done
