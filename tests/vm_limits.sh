#!/usr/bin/env bash
# Effective limits on a real kernel (make check-vm; docs/metrics.md).  A "slice"
# with memory.max 64 MiB and cpu.max "50000 100000", a "service" below it
# with no limit of its own, an unlimited sibling; collectd with the
# default Collect (limits included):
#   - the service reports the slice's limits: memory-max 67108864,
#     gauge-cpu_limit_cores 0.5; the sibling sends no limit series;
#   - gauge-memory_max_percent follows a helper's known allocation: against
#     memory.current as the test reads it from the kernel, and against
#     the baseline plus the helper's N MiB;
#   - a busy loop in the service: the kernel holds it to 0.5 cores (its
#     own cpu.stat: usage over the test's clock, nr_throttled growing),
#     and the plugin's gauge-cpu_cores and gauge-cpu_limit_percent say so;
#   - the slice's memory.max raised at run time: the slice shows it at the
#     next read, the service at the next walk of the tree, which a cgroup
#     created and removed under the run's parent triggers.
# Counted in reads, never in seconds (the emulated kernel is slow).
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_controllers cpu memory
need_collectd
need_memhog
N=32
MIB=1048576
LIMIT=$((64 * MIB))

make_run_parent vm-limits
hand_down_controllers
slice="$parent/slice" svc="$parent/slice/service" free="$parent/free"
mkdir "$slice" "$free"
for c in $(cat "$slice/cgroup.controllers"); do
  echo "+$c" >"$slice/cgroup.subtree_control" 2>/dev/null
done
mkdir "$svc"
echo "$LIMIT" >"$slice/memory.max"
echo "50000 100000" >"$slice/cpu.max"
[ "$(cat "$slice/memory.max")" = "$LIMIT" ] && [ "$(cat "$slice/cpu.max")" = "50000 100000" ] &&
  [ "$(cat "$svc/memory.max")" = max ] && [ "$(cat "$svc/cpu.max")" = "max 100000" ] &&
  [ "$(cat "$free/memory.max")" = max ] && [ "$(cat "$free/cpu.max")" = "max 100000" ]
ok $? "the kernel took the slice's limits; the service and the sibling have none of their own"
i_slice="${run}_slice" i_svc="${run}_slice_service" i_free="${run}_free"

pids=()
CLEANUPS+=('for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done')
# The helper, in the service before it allocates (memory is charged
# where it is allocated).
bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" --wait "$3"' hog "$svc" "$HOG" "$N" >"$T/hog.out" 2>&1 &
hog=$!
pids+=("$hog")
wait_until file_has "$T/hog.out" waiting
in_cgroup "$hog" "/$run/slice/service"
ok $? "the helper waits in $run/slice/service"

# RescanInterval 3600: the only walks are those a change of the tree
# starts (and the first).
dir="$T/limits"
JC_INTERVAL=1 write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/slice\" \"$run/slice/service\" \"$run/free\"
  RescanInterval 3600"
start_collectd "$dir"
wait_until _csv_has 2 "$dir" "$i_svc" gauge-cpu_cores
ok $? "collectd reads the three cgroups" || tap_done

# kernel FILE KEY: the value of KEY in a flat-keyed kernel file, without
# starting a process (each costs ~0.1 s in the emulated guest).
kernel() {
  local k v
  while read -r k v; do [ "$k" = "$2" ] && { echo "$v"; return; }; done <"$1"
}
# mean DIR INSTANCE TYPE-FILE K: the mean of the last K values of a series.
mean() {
  tail -q -n "$4" "$1/csv/testhost/joule_cgroup-$2/$3"-[0-9]* 2>/dev/null |
    awk -F, -v k="$4" '$1 != "epoch" { s += $2; n++ } END { if (n == k) printf "%.4f", s / n }'
}
# near A B TOL: |A - B| <= TOL.
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }
pct() { awk -v v="$1" -v l="$2" 'BEGIN { printf "%.3f", 100 * v / l }'; }
mib() { awk -v v="$1" 'BEGIN { printf "%.1f MiB", v / 1048576 }'; }

# --- the limits, effective ------------------------------------------------------
max=$(csv_last "$dir" "$i_svc" memory-max)
cores=$(csv_last "$dir" "$i_svc" gauge-cpu_limit_cores)
[ "$max" = "$LIMIT" ] && [ "$cores" = 0.5 ]
ok $? "the service, with no limit of its own: memory-max $max (the slice's 67108864), gauge-cpu_limit_cores $cores (50000/100000)"
[ "$(csv_last "$dir" "$i_slice" memory-max)" = "$LIMIT" ] &&
  [ "$(csv_last "$dir" "$i_slice" gauge-cpu_limit_cores)" = 0.5 ]
ok $? "the slice reports its own limits alike"
[ -z "$(ls "$dir/csv/testhost/joule_cgroup-$i_svc" | grep '^memory-high')" ]
ok $? "no memory-high for the service (memory.high is max all the way up)"

# --- gauge-memory_max_percent follows a known allocation ---------------------------------
base=$(kernel "$svc/memory.stat" anon)
base_cur=$(cat "$svc/memory.current")
kill -USR1 "$hog"
wait_until file_has "$T/hog.out" "allocated $N"
ok $? "the helper allocated $N MiB in the service"
wait_reads 3 "$dir" "$i_svc" gauge-memory_max_percent
k1=$(cat "$svc/memory.current")
wait_reads 2 "$dir" "$i_svc" gauge-memory_max_percent
p=$(csv_last "$dir" "$i_svc" gauge-memory_max_percent)
k2=$(cat "$svc/memory.current")
lo=$(pct $((k1 < k2 ? k1 : k2)) "$LIMIT") hi=$(pct $((k1 > k2 ? k1 : k2)) "$LIMIT")
awk -v p="${p:-x}" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(p != "x" && p >= lo - 0.5 && p <= hi + 0.5) }'
ok $? "gauge-memory_max_percent $p = 100 x memory.current / 64 MiB as the test reads the kernel's file ($lo .. $hi, ±0.5)"
want=$(pct $((base_cur + N * MIB)) "$LIMIT")
near "${p:-}" "$want" 3
ok $? "gauge-memory_max_percent $p ≈ (baseline $(mib "$base_cur") + $N MiB) / 64 MiB = $want (±3 points, about 2 MiB: what the kernel charges beside the helper's pages)"
echo "service before the allocation: memory.current $base_cur, anon $base; after: $k1, $k2" | diag

# --- a busy loop held to the slice's 0.5 cores ---------------------------------------
bash -c 'echo $$ >"$1/cgroup.procs" && while :; do :; done' busy "$svc" &
pids+=($!)
wait_reads 3 "$dir" "$i_svc" gauge-cpu_limit_percent
th1=$(kernel "$slice/cpu.stat" nr_throttled)
u1=$(kernel "$svc/cpu.stat" usage_usec) t1=$EPOCHREALTIME
wait_reads 5 "$dir" "$i_svc" gauge-cpu_limit_percent
th2=$(kernel "$slice/cpu.stat" nr_throttled)
u2=$(kernel "$svc/cpu.stat" usage_usec) t2=$EPOCHREALTIME
kcores=$(awk -v du=$((u2 - u1)) -v t1="$t1" -v t2="$t2" 'BEGIN { printf "%.4f", du / 1e6 / (t2 - t1) }')
[ "$((th2 - th1))" -gt 0 ] && near "$kcores" 0.5 0.15
ok $? "the kernel holds the service to 0.5 cores: its cpu.stat says $kcores cores over the test's clock, the slice's nr_throttled grew by $((th2 - th1))"
pcores=$(mean "$dir" "$i_svc" gauge-cpu_cores 4)
near "${pcores:-}" "$kcores" 0.1
ok $? "gauge-cpu_cores $pcores (mean of 4 reads) ≈ the kernel's $kcores (±0.1)"
plimit=$(mean "$dir" "$i_svc" gauge-cpu_limit_percent 4)
awk -v p="${plimit:-x}" 'BEGIN { exit !(p != "x" && p >= 70 && p <= 130) }'
ok $? "gauge-cpu_limit_percent $plimit (mean of 4 reads) ≈ 100: the quota is used up (70..130: the bandwidth timer lets a period overrun a little, and the emulated CPUs are not always there to use it)"
near "${plimit:-}" "$(awk -v c="$kcores" 'BEGIN { print 200 * c }')" 15
ok $? "gauge-cpu_limit_percent $plimit ≈ 100 x the kernel's $kcores cores / 0.5 (±15)"

# --- the unlimited sibling ----------------------------------------------------------
wait_until _csv_has 3 "$dir" "$i_free" gauge-cpu_cores
limit_series=$(ls "$dir/csv/testhost/joule_cgroup-$i_free" |
  grep -E '^(gauge-cpu_limit_cores|gauge-cpu_limit_percent|memory-max|memory-high|gauge-memory_max_percent|count-pids_max)-' || true)
[ -z "$limit_series" ] && [ -n "$(csv_last "$dir" "$i_free" memory-current)" ]
ok $? "the unlimited sibling sends memory-current and no limit series${limit_series:+: $limit_series}"

# --- the slice's limit raised at run time ---------------------------------------------
NEW=$((128 * MIB))
echo "$NEW" >"$slice/memory.max"
wait_reads 2 "$dir" "$i_slice" memory-max
[ "$(csv_last "$dir" "$i_slice" memory-max)" = "$NEW" ]
ok $? "the slice's own memory-max is 134217728 at the next reads"
echo "the service's memory-max before a walk: $(csv_last "$dir" "$i_svc" memory-max)" | diag
_csv_count "$dir" "$i_svc" memory-max
poked=$_n
mkdir "$parent/poke" && rmdir "$parent/poke"
svc_max_is() { [ "$(csv_last "$dir" "$i_svc" memory-max)" = "$NEW" ]; }
reads_since_poke() { _csv_count "$dir" "$i_svc" memory-max; echo $((_n - poked)); }
caught_up() { svc_max_is || [ "$(reads_since_poke)" -ge 4 ]; }
wait_until caught_up
svc_max_is
ok $? "a cgroup created and removed under $run: the service's memory-max is 134217728 after $(reads_since_poke) read(s) (at most 4)"
wait_reads 2 "$dir" "$i_svc" gauge-memory_max_percent
k=$(cat "$svc/memory.current")
p=$(csv_last "$dir" "$i_svc" gauge-memory_max_percent)
near "${p:-}" "$(pct "$k" "$NEW")" 0.5
ok $? "gauge-memory_max_percent $p = 100 x memory.current / 128 MiB now ($(pct "$k" "$NEW") from the kernel's file, ±0.5)"
stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING"
grep -E '^\[(error|warning|notice|info)\] joule_cgroup' "$dir/collectd.log" | diag
tap_done
