#!/usr/bin/env bash
# The instruction counts docs/performance.md quotes come from two commands
# of bench/: they run here on this host's cgroup v2 and print their tables
# whole (the figures go to the log; no figure is held to a target: that is
# make bench's job, not a test's).
#   bench/callgrind-pass.sh BUILDDIR     the steady read pass, four sets
#   bench/callgrind-energy.sh BUILDDIR   what Collect "energy" adds to it
# and the network part's program, on four pods (make bench: 500):
#   bench/jc_net_bench ROOT PARENT PODS PASSES REPEATS
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "valgrind and callgrind_annotate" -- sh -c 'command -v valgrind && command -v callgrind_annotate'
need "bench/jc_bench built (make check builds it)" -- test -x "$top_builddir/bench/jc_bench"

positive() { # positive N...: every N a whole number above 0
  awk 'BEGIN { for (i = 1; i < ARGC; i++) if (!(ARGV[i] ~ /^[0-9]+$/ && ARGV[i] > 0)) exit 1 }' "$@"
}

"$top_srcdir/bench/callgrind-pass.sh" "$top_builddir" >"$T/pass" 2>"$T/pass.err"
ok $? "callgrind-pass.sh exits 0" || cat "$T/pass.err" | diag
diag <"$T/pass"
read -r _ d dr p pr < <(awk 'NR == 2' "$T/pass")
positive "$d" "$dr" "$p" "$pr"
ok $? "callgrind-pass.sh: four instruction counts per pass ($d $dr $p $pr)"
# Four files a cgroup cost more than one, and reopening more than keeping.
[ "${p:-0}" -gt "${d:-0}" ] && [ "${dr:-0}" -gt "${d:-0}" ] && [ "${pr:-0}" -gt "${p:-0}" ]
ok $? "callgrind-pass.sh: pressure > default, reopened > kept"
ls -d "$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)"/joule-cgpass-* >/dev/null 2>&1
ok $((!$?)) "callgrind-pass.sh: its cgroups removed"

"$top_srcdir/bench/callgrind-energy.sh" "$top_builddir" >"$T/energy" 2>"$T/energy.err"
ok $? "callgrind-energy.sh exits 0" || cat "$T/energy.err" | diag
diag <"$T/energy"
for split in host packages; do
  awk -v s="$split" '$1 == s { for (i = 2; i <= 7; i++) if ($i + 0 <= 0) exit 1;
      share = $8; sub(/%/, "", share); share += 0; found = share > 0 && share < 100 }
    END { exit !found }' "$T/energy"
  ok $? "callgrind-energy.sh: the $split row, its share of the pass within 0-100 %"
done
# The network part's program: built as make bench builds it, on 4 pods.
make -s -C "$top_builddir" bench/jc_net_bench >"$T/netb.err" 2>&1
ok $? "bench/jc_net_bench builds" || diag <"$T/netb.err"
net_run=joule-netbench-$$ # below $mnt, the cgroup2 mount (tests/lib/common.sh)
JC_NET_BENCH_SHOW=1 "$top_builddir/bench/jc_net_bench" "$mnt" "$net_run" 4 2 1 \
  >"$T/net" 2>"$T/net.err" &
net_pid=$!
wait "$net_pid"
ok $? "jc_net_bench exits 0" || diag <"$T/net.err"
diag <"$T/net"
field() { tr ' ' '\n' <"$T/net" | sed -n "s/^$1=//p"; }
# 4 pods, 12 cgroups; with the group (three sets: net, health, net_full)
# each pod's eth0 once a set, on the pod, never on its two containers.
pods_eth0=$(grep -cE "^$net_run/p[0-3] if_octets-eth0\$" "$T/net.err")
containers_if=$(grep -cE "^$net_run/p[0-3]/[a-z]+ if_" "$T/net.err")
[ "$(field tracked)" = 12 ] && [ "$pods_eth0" = 12 ] && [ "$containers_if" = 0 ]
ok $? "jc_net_bench: 12 cgroups; eth0 on each pod once a set ($pods_eth0 of 12), none on its containers ($containers_if)"
# The full check's figures: the same lists as the plain pass, a minute's
# step between the plain pass's and the full check's.
awk -v p="$(field net_per_ns)" -v f="$(field net_full_per_ns)" -v m="$(field net_minute_per_ns)" \
  -v a="$(field net_lists)" -v b="$(field net_full_lists)" \
  'BEGIN { exit !(a == b && m > 0 && ((p <= m && m <= f) || (f <= m && m <= p))) }'
ok $? "jc_net_bench: the full check's pass sends what the plain one sends, and a minute's step lies between them"
awk -v a="$(field stateless_dev)" -v b="$(field floor_dev)" -v k="$(field kept_dev)" \
  'BEGIN { exit !(a > b && b > 0 && k > 0) }'
ok $? "jc_net_bench: the stateless floor above the floor of net/dev alone"
# A namespace's devices go with it in the kernel's own time (its cleanup
# runs in a work queue after the last process): up to 20 s.
left=1
for _ in $(seq 1 40); do
  # its veths: jnPOD_PID, PID the program's modulo 10,000
  ip -o link show | grep -q "jn[0-9]*_$((net_pid % 10000))@" || { left=0; break; }
  sleep 0.5
done
[ ! -e "$mnt/$net_run" ] && [ "$left" = 0 ]
ok $? "jc_net_bench: its cgroups and veths gone"
tap_done
