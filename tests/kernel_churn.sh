#!/usr/bin/env bash
# Churn on the real kernel: collectd reads every 0.1 s while the test
# creates and removes CHURN_COUNT (200) cgroups under a parent named for
# this run, every third with a child cgroup of its own; each lives about
# four reads.  Where the mount offers memory and io (a unified host, the
# VM of make check-vm) they are handed down and collected as well.  No
# ERROR or WARNING from the plugin, collectd's descriptors on the tree the
# same after the churn as before it, and every cgroup that lived three
# reads has its values in the output.  Reads are counted, not timed: the
# run parent is selected too, and collectd writes one csv line of it per
# read (emulated kernels are slow; seconds would mean little there).
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
# Under an emulated CPU (make check-vm) a read costs about ten times what
# it costs here, and a loaded host makes it more: half the cgroups keep
# the suite well inside the VM's time bound and test the same.
emulated=no
grep -q '^model name.*QEMU Virtual CPU' /proc/cpuinfo && emulated=yes
[ "$emulated" = yes ] && : "${CHURN_COUNT:=100}"
: "${CHURN_COUNT:=200}"

make_run_parent joule-churn
hand_down_controllers
collect='"cpu" "pressure"'
handed=
for c in memory io; do
  if grep -qw "$c" "$parent/cgroup.subtree_control"; then
    collect="$collect \"$c\""
    handed="$handed +$c"
  fi
done

dir="$T/churn"
JC_INTERVAL=0.1 start_watching "$dir" "$run/**" "$collect"
clock=ps_cputime # of $run: one line per read
wait_until _csv_has 2 "$dir" "$run" "$clock"
ok $? "collectd reads the run parent (Collect $collect)"
fds_start=$(plugin_fds "$COLLECTD_PID")

# The churn: a new cgroup per read, the one made four reads earlier goes.
# Each step waits for the next read (bounded by wait_reads).
log="$T/churn.log"
: >"$log"
stalled=0
for ((i = 1; i <= CHURN_COUNT + 4; i++)); do
  if [ "$i" -le "$CHURN_COUNT" ]; then
    _csv_count "$dir" "$run" "$clock"
    mkdir "$parent/c$i" && echo "$_n made c$i" >>"$log"
    if [ $((i % 3)) -eq 0 ]; then
      [ -z "$handed" ] || echo "$handed" >"$parent/c$i/cgroup.subtree_control"
      mkdir "$parent/c$i/inner" && echo "$_n made c$i/inner" >>"$log"
    fi
  fi
  old=$((i - 4))
  if [ "$old" -gt 0 ]; then
    _csv_count "$dir" "$run" "$clock"
    if [ -d "$parent/c$old/inner" ]; then
      rmdir "$parent/c$old/inner" && echo "$_n gone c$old/inner" >>"$log"
    fi
    rmdir "$parent/c$old" && echo "$_n gone c$old" >>"$log"
  fi
  wait_reads 1 "$dir" "$run" "$clock" || stalled=$((stalled + 1))
  [ "$stalled" -lt 3 ] || break # collectd stopped reading: no use going on
done
wait_reads 2 "$dir" "$run" "$clock"
fds_end=$(plugin_fds "$COLLECTD_PID")

# The cgroups whose life spanned three reads, as "NAME MADE GONE".
lived_list() {
  declare -A born=()
  local at what name
  while read -r at what name; do
    if [ "$what" = made ]; then
      born[$name]=$at
    elif [ $((at - ${born[$name]})) -ge 3 ]; then
      echo "$name ${born[$name]} $at"
    fi
  done <"$log"
}
reported() { ls "$dir/csv/testhost/joule_cgroup-${run}_${1//\//_}/$clock-"* >/dev/null 2>&1; }
all_reported() {
  local name rest
  while read -r name rest; do reported "$name" || return 1; done < <(lived_list)
}
# collectd writes behind its reads (a queue, five writer threads), and on
# a loaded machine, emulated above all, far behind: what was read but not
# yet written when it stops is lost to the output.  Wait until everything
# that should be there is (bounded), then stop.
wait_until all_reported
stop_collectd

made=$(grep -c ' made ' "$log")
gone=$(grep -c ' gone ' "$log")
[ "$made" -eq $((CHURN_COUNT + CHURN_COUNT / 3)) ] && [ "$gone" -eq "$made" ] && [ "$stalled" -eq 0 ]
ok $? "the test made and removed $made cgroups ($gone removed), one step per read ($stalled steps without a read)"
# The plugin's own lines: on a loaded machine collectd itself may warn
# that it is late for an interval, which says nothing about the plugin.
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING from the plugin"
grep -E '^\[(error|warning)\] joule_cgroup plugin:' "$dir/collectd.log" | head -5 | diag
[ "$fds_end" -eq "$fds_start" ]
ok $? "collectd's descriptors on the cgroup tree: $fds_start before the churn, $fds_end after"

# Every cgroup whose life spanned three reads was reported.
missing=0
lived=0
while read -r name made_at gone_at; do
  lived=$((lived + 1))
  if ! reported "$name"; then
    missing=$((missing + 1))
    echo "not reported: $name (made at read $made_at, gone at read $gone_at)" | diag
  fi
done < <(lived_list)
[ "$lived" -ge $((made / 2)) ] && [ "$missing" -eq 0 ]
ok $? "all $lived of $made cgroups that lived three reads were reported ($missing missing)"
reads=$(csv_count "$dir" "$run" "$clock")
echo "reads: $reads" | diag
tap_done
