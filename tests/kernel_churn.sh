#!/usr/bin/env bash
# Churn on the real kernel: collectd reads every 0.1 s for 20 s while a
# script creates and removes cgroups (nested ones too) under a parent named
# for this run.  No ERROR or WARNING, collectd's descriptor count is the
# same at the end as after start-up, and every cgroup that lived for two
# reads has its values in the output.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
: "${CHURN_SECONDS:=20}"

make_run_parent joule-churn

dir="$T/churn"
JC_INTERVAL=0.1 write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/**\"
  Collect \"cpu\" \"pressure\""
start_collectd "$dir"
sleep 1
fds_start=$(plugin_fds "$COLLECTD_PID")

# The churn: every 0.25 s a new cgroup (every third one with a child), and
# the one made a second earlier goes; bounded by CHURN_SECONDS.
log="$T/churn.log"
end=$((SECONDS + CHURN_SECONDS))
i=0
while [ $SECONDS -lt $end ] && [ $i -lt 400 ]; do
  i=$((i + 1))
  mkdir "$parent/c$i" && echo "$(date +%s.%N) made c$i" >>"$log"
  if [ $((i % 3)) -eq 0 ]; then
    mkdir "$parent/c$i/inner" && echo "$(date +%s.%N) made c$i/inner" >>"$log"
  fi
  old=$((i - 4))
  if [ $old -gt 0 ]; then
    rmdir "$parent/c$old/inner" 2>/dev/null && echo "$(date +%s.%N) gone c$old/inner" >>"$log"
    rmdir "$parent/c$old" && echo "$(date +%s.%N) gone c$old" >>"$log"
  fi
  sleep 0.25
done
sleep 0.5
fds_end=$(plugin_fds "$COLLECTD_PID")
# The last ones still exist: the descriptor count compares with them gone.
empty_run_parent
sleep 0.6
fds_empty=$(plugin_fds "$COLLECTD_PID")
stop_collectd

made=$(grep -c ' made ' "$log")
ok $(( made < 20 )) "the script made $made cgroups in ${CHURN_SECONDS} s"
# The plugin's own lines: on a loaded machine collectd itself may warn
# that it is late for an interval, which says nothing about the plugin.
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING from the plugin"
grep -E '^\[(error|warning)\] joule_cgroup plugin:' "$dir/collectd.log" | head -5 | diag
[ "$fds_empty" -eq "$fds_start" ]
ok $? "collectd's descriptors on the cgroup tree: $fds_start after start, $fds_end during churn, $fds_empty after"

# Every cgroup that lived at least 0.3 s (three reads) was reported.
missing=0
lived=0
while read -r name; do
  t0=$(awk -v n="$name" '$2 == "made" && $3 == n { print $1 }' "$log")
  t1=$(awk -v n="$name" '$2 == "gone" && $3 == n { print $1 }' "$log")
  [ -n "$t1" ] || continue
  awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 0.3) }' || continue
  lived=$((lived + 1))
  inst="${run}_$(echo "$name" | tr / _)"
  if ! ls "$dir/csv/testhost/joule_cgroup-$inst/derive-cpu_usage_usec-"* >/dev/null 2>&1; then
    missing=$((missing + 1))
    echo "not reported: $name" | diag
  fi
done < <(awk '$2 == "made" { print $3 }' "$log")
[ "$lived" -gt 20 ] && [ "$missing" -eq 0 ]
ok $? "all $lived cgroups that lived three reads were reported ($missing missing)"
reads=$(grep -c "\"type_instance\":\"cpu_some_avg10\"" "$dir/collectd.log")
echo "value lists of cpu_some_avg10: $reads" | diag
tap_done
