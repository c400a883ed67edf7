#!/usr/bin/env bash
# Soak: the real collectd with the plugin under valgrind memcheck, reading
# every 0.1 s for at least 300 reads while cgroups are created and removed
# on the real kernel.  Zero invalid accesses, zero bytes definitely or
# indirectly lost, collectd's descriptor count flat, its RSS flat after
# warm-up.  SOAK_SECONDS (default 45) bounds the run.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "valgrind" -- command -v valgrind
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
: "${SOAK_SECONDS:=45}"

make_run_parent joule-soak

dir="$T/soak"
JC_INTERVAL=0.1 write_conf "$dir" "  CgroupRoot \"$mnt\"
  Select \"$run/**\"
  Collect \"cpu\" \"pressure\""
valgrind --leak-check=full --show-leak-kinds=definite,indirect \
  --errors-for-leak-kinds=definite,indirect --log-file="$dir/valgrind.txt" \
  "$COLLECTD_BIN" -f -C "$dir/collectd.conf" >"$dir/collectd.out" 2>&1 &
vg_pid=$!
COLLECTD_PIDS+=("$vg_pid")

rss() { awk '/^VmRSS/ { print $2 }' "/proc/$vg_pid/status"; }
fds() { plugin_fds "$vg_pid"; }

# settle: remove every churn cgroup and let collectd read the empty parent
# for a second, so that descriptor counts compare like with like.
settle() {
  empty_run_parent
  sleep 1.5
}

# Churn for the whole run: a new cgroup every 0.3 s (some nested), the one
# made four steps earlier removed; bounded in time and count.
end=$((SECONDS + SOAK_SECONDS))
warm=$((SECONDS + 12))
i=0
rss_warm= fds_warm=
while [ $SECONDS -lt $end ] && [ $i -lt 1000 ]; do
  i=$((i + 1))
  mkdir "$parent/s$i"
  [ $((i % 4)) -eq 0 ] && mkdir "$parent/s$i/inner"
  old=$((i - 4))
  if [ $old -gt 0 ]; then
    rmdir "$parent/s$old/inner" 2>/dev/null
    rmdir "$parent/s$old"
  fi
  if [ -z "$rss_warm" ] && [ $SECONDS -ge $warm ]; then
    settle
    rss_warm=$(rss) fds_warm=$(fds)
  fi
  sleep 0.3
done
settle
rss_end=$(rss) fds_end=$(fds)
kill -TERM "$vg_pid"
wait "$vg_pid"

reads=$(grep -vc '^epoch' "$dir"/csv/testhost/joule_cgroup-root/derive-cpu_usage_usec-* 2>/dev/null || echo 0)
[ "$reads" -ge 300 ]
ok $? "$reads reads under valgrind with $i cgroups created and removed"
grep -q 'ERROR SUMMARY: 0 errors' "$dir/valgrind.txt"
ok $? "valgrind: no invalid access ($(grep -o 'ERROR SUMMARY: [0-9]* errors' "$dir/valgrind.txt"))"
grep -q 'definitely lost: 0 bytes' "$dir/valgrind.txt" && grep -q 'indirectly lost: 0 bytes' "$dir/valgrind.txt"
ok $? "valgrind: 0 bytes definitely or indirectly lost"
grep -E 'definitely lost|indirectly lost' "$dir/valgrind.txt" | sed 's/^==[0-9]*== *//' | diag
[ "$fds_end" -eq "$fds_warm" ]
ok $? "descriptors on the cgroup tree flat: $fds_warm after warm-up, $fds_end at the end"
[ "$rss_end" -le $((rss_warm + rss_warm / 20 + 512)) ]
ok $? "RSS flat after warm-up: $rss_warm kB -> $rss_end kB"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no WARNING or ERROR from the plugin"
tap_done
