#!/usr/bin/env bash
# Collect "network" on the real kernel, through collectd: two network
# namespaces, each with a veth pair to the root namespace (static
# neighbours, IPv6 off: no packet but the test's), a "pod" whose two
# containers share one namespace, a container with its own, and a cgroup
# in the host's namespace.  Known UDP traffic each way; the figures
# against the kernel's own counters of the root side of the veth
# (/sys/class/net/VETH/statistics) and the sender's count: exact bytes
# and packets.  The pod's namespace is counted once, under the pod; the
# host's cgroup gets nothing; a veth deleted and made again never takes
# a counter backwards.  Each namespace's files are kept open from pass to
# pass, and closed at the pass after its last process ended; the process
# a namespace was found through is told ended by its pidfd, and one that
# moves away alive is found by the full check of RescanInterval.  Every
# namespace, veth and cgroup goes at exit.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
need "ip (iproute2) with netns" -- ip netns list
need "python3" -- python3 -c 'import socket'
need "veth pairs (the veth driver)" -- sh -c "ip link add jcprobe$$ type veth peer name jcprobe$$p && ip link del jcprobe$$"

make_run_parent joule-net
hand_down_controllers
nsa=jcnetA-$$ nsb=jcnetB-$$ va=jcA$$ vb=jcB$$
CLEANUPS+=("ip netns del $nsa 2>/dev/null; ip netns del $nsb 2>/dev/null; ip link del $va 2>/dev/null; ip link del $vb 2>/dev/null")
ip netns add "$nsa" && ip netns add "$nsb"
ok $? "network namespaces $nsa, $nsb"

# veth NS ROOTSIDE NET: the pair, eth0 in NS at NET.2, ROOTSIDE at NET.1,
# neighbours static and IPv6 off on both ends (no ARP, no ND, no MLD).
veth() {
  local ns=$1 v=$2 net=$3 mac_ns mac_root
  ip link add "$v" type veth peer name eth0 netns "$ns" || return 1
  sysctl -qw "net.ipv6.conf.$v.disable_ipv6=1"
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.lo.disable_ipv6=1
  ip addr add "$net.1/30" dev "$v" && ip link set "$v" up
  ip netns exec "$ns" ip addr add "$net.2/30" dev eth0
  ip netns exec "$ns" ip link set eth0 up && ip netns exec "$ns" ip link set lo up
  mac_ns=$(ip netns exec "$ns" cat /sys/class/net/eth0/address)
  mac_root=$(cat "/sys/class/net/$v/address")
  ip neigh replace "$net.2" lladdr "$mac_ns" dev "$v" nud permanent &&
    ip netns exec "$ns" ip neigh replace "$net.1" lladdr "$mac_root" dev eth0 nud permanent
}
veth "$nsa" "$va" 10.241.1
ok $? "veth $va to eth0 of $nsa"
veth "$nsb" "$vb" 10.241.2
ok $? "veth $vb to eth0 of $nsb"

# start_in CGROUP [NS]: a sleeping process started in the cgroup (below the run
# parent), in network namespace NS when given.
start_in() {
  local cg="$parent/$1" ns=${2:-}
  mkdir -p "$cg"
  if [ -n "$ns" ]; then
    sh -c 'echo $$ >"$1/cgroup.procs"; exec ip netns exec "$2" sleep 100000' _ "$cg" "$ns" &
  else
    sh -c 'echo $$ >"$1/cgroup.procs"; exec sleep 100000' _ "$cg" &
  fi
  CLEANUPS+=("kill $! 2>/dev/null")
}
mkdir -p "$parent/pod"
# As the kubelet does where the kernel has it: the pod hands memory to
# its containers, so it can hold no process of its own.
echo +memory >"$parent/pod/cgroup.subtree_control" 2>/dev/null
start_in pod/pause "$nsa"
start_in pod/app "$nsa"
start_in solo "$nsb"
start_in hostsvc
wait_until grep -q . "$parent/pod/app/cgroup.procs"
wait_until grep -q . "$parent/hostsvc/cgroup.procs"

dir="$T/net"
write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/*\"
  Select \"$run/*/*\"
  Collect \"cpu\" \"network\"
  Values \"protocol_counter-*\"
  NotifyEnd true
  RescanInterval 5"
start_collectd "$dir"
pod=${run}_pod solo=${run}_solo
wait_reads 2 "$dir" "$pod" if_octets-eth0
ok $? "the pod's eth0 is sent"

# send NS FROM TO COUNT SIZE: COUNT UDP datagrams of SIZE bytes from NS
# (or the root namespace: "-") at FROM to TO, a socket bound at TO that
# takes them (no ICMP answer).  Each is SIZE + 42 bytes on the wire
# (UDP 8, IPv4 20, Ethernet 14), as net/dev counts them.
send() {
  local ns=$1 from=$2 to=$3 count=$4 size=$5 recv_ns
  # the receiver lives where TO is: the other side
  [ "$ns" = - ] && recv_ns=$6 || recv_ns=-
  local rx=(python3 -c 'import socket,sys,time
s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind((sys.argv[1],9999))
s.setsockopt(socket.SOL_SOCKET,socket.SO_RCVBUF,1<<22)
print("up",flush=True); time.sleep(float(sys.argv[2]))' "$to" 30)
  local tx=(python3 -c 'import socket,sys
s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind((sys.argv[1],0))
for i in range(int(sys.argv[3])): s.sendto(b"x"*int(sys.argv[4]),(sys.argv[2],9999))' "$from" "$to" "$count" "$size")
  if [ "$recv_ns" = - ]; then "${rx[@]}" >"$T/rx.up" & else ip netns exec "$recv_ns" "${rx[@]}" >"$T/rx.up" & fi
  local rxpid=$!
  wait_until grep -q up "$T/rx.up"
  if [ "$ns" = - ]; then "${tx[@]}"; else ip netns exec "$ns" "${tx[@]}"; fi
  kill "$rxpid" 2>/dev/null; wait "$rxpid" 2>/dev/null
  rm -f "$T/rx.up"
}
stat_of() { cat "/sys/class/net/$1/statistics/$2"; }
before_rx=$(stat_of "$va" rx_bytes) before_tx=$(stat_of "$va" tx_bytes)
send "$nsa" 10.241.1.2 10.241.1.1 300 1000   # pod -> root: 300 x 1042
send - 10.241.1.1 10.241.1.2 200 500 "$nsa"  # root -> pod: 200 x 542
send "$nsb" 10.241.2.2 10.241.2.1 70 1400    # solo -> root
sent_out=$(($(stat_of "$va" rx_bytes) - before_rx)) sent_in=$(($(stat_of "$va" tx_bytes) - before_tx))
[ "$sent_out" -eq $((300 * 1042)) ] && [ "$sent_in" -eq $((200 * 542)) ]
ok $? "the root side of $va counted what the senders sent: $sent_out = 300 x 1042 out of the pod, $sent_in = 200 x 542 into it"

# figures NS-VETH: "rx,tx,rxp,txp" of eth0 in its namespace as the root
# side of the veth counts them (its tx is what eth0 received).
veth_figures() {
  echo "$(stat_of "$1" tx_bytes),$(stat_of "$1" rx_bytes),$(stat_of "$1" tx_packets),$(stat_of "$1" rx_packets)"
}
plugin_figures() {
  echo "$(csv_last "$dir" "$1" if_octets-eth0),$(csv_last "$dir" "$1" if_packets-eth0)"
}
matches() { [ "$(plugin_figures "$1")" = "$(veth_figures "$2")" ]; }
wait_until matches "$pod" "$va"
ok $? "the pod's eth0 (rx,tx bytes, rx,tx packets) $(plugin_figures "$pod") = $va's own counters $(veth_figures "$va")"
wait_until matches "$solo" "$vb"
ok $? "the solo container's eth0 $(plugin_figures "$solo") = $vb's own counters $(veth_figures "$vb")"

# held PATTERN: collectd's descriptors whose file matches PATTERN.
held() { ls -l "/proc/$COLLECTD_PID/fd" 2>/dev/null | grep -c -- "$1" || true; }
[ "$(held '/net/dev$')" -eq 2 ] && [ "$(held '/net/snmp$')" -eq 2 ] && [ "$(held '/net/netstat$')" -eq 2 ]
ok $? "each namespace's net/dev, net/snmp, net/netstat kept open from pass to pass: $(held '/net/dev$'), $(held '/net/snmp$'), $(held '/net/netstat$') (the pod's, the solo container's)"
# Each cgroup's process: its pidfd kept (the kernel says when it ends);
# each cgroup's cgroup.procs kept for the checks (the pod's, with no
# process of its own, read at every pass; the others' at a full check).
[ "$(held 'pidfd')" -eq 4 ] && [ "$(held '/cgroup.procs$')" -eq 5 ]
ok $? "a pidfd kept for each of the 4 cgroups with a process: $(held 'pidfd'); the 5 cgroups' cgroup.procs: $(held '/cgroup.procs$')"
# Which lists a pass reads: collectd's pread64s of each kept cgroup.procs
# over 4 s (strace; at most one full check of RescanInterval 5 in it):
# those of the cgroups with a process only at a full check; the pod's at
# every pass, unless it hands memory down (no process can come: at a
# full check only).
procs_fds=$(ls -l "/proc/$COLLECTD_PID/fd" | sed -n "s|.* \([0-9]*\) -> $parent/\(.*\)/cgroup.procs\$|\1 \2|p")
n0=$(csv_count "$dir" "$pod" if_octets-eth0)
timeout 4 strace -f -qq -p "$COLLECTD_PID" -e trace=pread64 -o "$T/strace" 2>/dev/null
passes=$(($(csv_count "$dir" "$pod" if_octets-eth0) - n0))
reads=$(while read -r fd cg; do echo "$cg:$(grep -cE "pread64\($fd," "$T/strace")"; done <<<"$procs_fds" | sort | tr '\n' ' ')
pod_reads=$(sed -n 's/.*\bpod:\([0-9]*\).*/\1/p' <<<"$reads")
others_ok=$(tr ' ' '\n' <<<"$reads" | awk -F: '$1 != "pod" && $1 != "" && $2 > 1 { bad = 1 } END { print !bad }')
if grep -qw memory "$parent/pod/cgroup.subtree_control"; then
  [ "$others_ok" = 1 ] && [ "${pod_reads:-9}" -le 1 ] && [ "$passes" -ge 3 ]
  ok $? "in $passes passes, each cgroup.procs read at a full check at most, the pod's too (it hands memory down): $reads"
else
  [ "$others_ok" = 1 ] && [ "${pod_reads:-0}" -ge $((passes - 1)) ] && [ "$passes" -ge 3 ]
  ok $? "in $passes passes, the containers' cgroup.procs read at a full check at most, the pod's at every pass (no memory controller here): $reads"
fi

inst=$(csv_instances "$dir")
dups=$(ls "$dir/csv/testhost/joule_cgroup-${run}_pod_app" "$dir/csv/testhost/joule_cgroup-${run}_pod_pause" \
  "$dir/csv/testhost/joule_cgroup-${run}_hostsvc" 2>/dev/null | grep -c '^if_' || true)
[ "$dups" -eq 0 ]
ok $? "the pod's containers and the host's cgroup have no network lists (instances: $inst)"
lo=$(find "$dir/csv" -name 'if_*-lo-*' | grep -c . || true)
[ "$lo" -eq 0 ]
ok $? "loopback left out ($lo series)"
[ "$(log_count "$dir" "^\[info\] joule_cgroup plugin: Collect \"network\": cgroups in the host's network namespace")" -eq 1 ]
ok $? "one INFO for the cgroups in the host's namespace"

# Health: UDP datagrams to a socket in the pod's namespace whose receive
# buffer is full (never read): Udp RcvbufErrors grows; the pod's
# protocol_counter-Udp_RcvbufErrors against the namespace's own net/snmp.
ip netns exec "$nsa" python3 -c 'import socket,time
s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET,socket.SO_RCVBUF,1)
s.bind(("10.241.1.2",9998)); print("up",flush=True); time.sleep(30)' >"$T/full.up" &
fullpid=$!
wait_until grep -q up "$T/full.up"
python3 -c 'import socket
s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)
for i in range(200): s.sendto(b"x"*1000,("10.241.1.2",9998))'
kill "$fullpid"; wait "$fullpid" 2>/dev/null
snmp() { ip netns exec "$nsa" awk -v k="$1" '$1 == "Udp:" && !n { for (i = 2; i <= NF; i++) c[$i] = i; n = 1; next }
  $1 == "Udp:" { print $c[k] }' /proc/net/snmp; }
full_same() { [ "$(csv_last "$dir" "$pod" protocol_counter-Udp_RcvbufErrors)" = "$(snmp RcvbufErrors)" ]; }
wait_until full_same
errs=$(csv_last "$dir" "$pod" protocol_counter-Udp_RcvbufErrors)
[ "${errs:-0}" -gt 0 ]
ok $? "the pod's protocol_counter-Udp_RcvbufErrors $errs = its namespace's net/snmp Udp RcvbufErrors $(snmp RcvbufErrors) (of 200 sent to a full buffer)"
tcp=$(find "$dir/csv/testhost/joule_cgroup-$pod" -name 'protocol_counter-*' | sed 's|.*/protocol_counter-||; s|-[0-9-]*$||' | sort | tr '\n' ' ')
[ "$tcp" = "TcpExt_ListenDrops TcpExt_ListenOverflows Tcp_RetransSegs Udp_RcvbufErrors " ]
ok $? "the pod's four health counters ($tcp), none on its containers: $(ls "$dir/csv/testhost/joule_cgroup-${run}_pod_app" | grep -c protocol_counter)"

# The veth deleted: a read sees eth0 gone; made again: its new counters
# add to the old, never backwards.
old=$(plugin_figures "$pod")
ip link del "$va"
wait_reads 3 "$dir" "$solo" if_octets-eth0
veth "$nsa" "$va" 10.241.1
send "$nsa" 10.241.1.2 10.241.1.1 40 100
expect() {
  awk -F, -v o="$old" -v n="$(veth_figures "$va")" 'BEGIN {
    split(o, a, ","); split(n, b, ",");
    printf "%d,%d,%d,%d", a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4] }'
}
again() { [ "$(plugin_figures "$pod")" = "$(expect)" ]; }
wait_until again
ok $? "after $va was made again: $(plugin_figures "$pod") = the old $old + its new counters $(veth_figures "$va")"
f=$(ls "$dir"/csv/testhost/joule_cgroup-"$pod"/if_octets-eth0-* | tail -n 1)
awk -F, 'NR > 1 && ($2 < r || $3 < t) { bad = 1 } NR > 1 { r = $2; t = $3 } END { exit bad }' "$f"
ok $? "the pod's if_octets-eth0 never went backwards ($(grep -vc '^epoch' "$f") reads)"
# The solo container ends: its NotifyEnd record has its traffic (70 x
# 1442 bytes sent, nothing received), as of the last read pass.
solo_pid=$(cat "$parent/solo/cgroup.procs")
kill "$solo_pid"
ended() { grep -q "cgroup $run/solo emptied after .* and stays" "$dir/collectd.log"; }
wait_until ended
line=$(grep "cgroup $run/solo emptied after .* and stays" "$dir/collectd.log")
grep -q "network 0.0 MiB received, 0.1 MiB sent" <<<"$line"
ok $? "NotifyEnd of the solo container: $(sed 's/.*message = //' <<<"$line")"
wait_reads 2 "$dir" "$pod" if_octets-eth0
[ "$(held "/proc/$solo_pid/")" -eq 0 ] && [ "$(held '/net/dev$')" -eq 1 ]
ok $? "its namespace no longer held open two reads after its process ended: $(held "/proc/$solo_pid/") of its files, $(held '/net/dev$') net/dev (the pod's)"

# Two processes in one cgroup of nsb: the one its namespace was found
# through ends, and the next pass finds the other (its pidfd told it).
start_in pair "$nsb"
start_in pair "$nsb"
two() { [ "$(grep -c . "$parent/pair/cgroup.procs")" -eq "$1" ]; }
wait_until two 2
pair=${run}_pair
send "$nsb" 10.241.2.2 10.241.2.1 10 100
wait_until matches "$pair" "$vb"
ok $? "a cgroup of two processes in $nsb owns it: $(plugin_figures "$pair") = $vb's $(veth_figures "$vb")"
kill "$(head -n 1 "$parent/pair/cgroup.procs")"
wait_until two 1
send "$nsb" 10.241.2.2 10.241.2.1 10 100
wait_until matches "$pair" "$vb"
ok $? "its first process ended: the other found, the figures go on: $(plugin_figures "$pair") = $vb's $(veth_figures "$vb")"
# The other moves, alive, to a cgroup that exists already (no walk): the
# full check of every RescanInterval (5 s here) finds it there (without
# it, never: the process stays alive); until then, the cgroup it left
# keeps the namespace (walk order puts it first).
mkdir "$parent/zmoved"
wait_reads 2 "$dir" "$pod" if_octets-eth0
moved_at=$SECONDS
cat "$parent/pair/cgroup.procs" >"$parent/zmoved/cgroup.procs"
send "$nsb" 10.241.2.2 10.241.2.1 10 100
wait_until matches "${run}_zmoved" "$vb"
ok $? "a process moved, alive, to another cgroup: its namespace's figures there $((SECONDS - moved_at)) s later (RescanInterval 5): $(plugin_figures "${run}_zmoved")"
wait_reads 1 "$dir" "${run}_zmoved" if_octets-eth0
n=$(csv_count "$dir" "$pair" if_octets-eth0)
wait_reads 3 "$dir" "${run}_zmoved" if_octets-eth0
[ "$(csv_count "$dir" "$pair" if_octets-eth0)" -eq "$n" ]
ok $? "and none under the cgroup it left ($n reads before, $(csv_count "$dir" "$pair" if_octets-eth0) after)"
stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no ERROR or WARNING in the log"
tap_done
