# tests/lib/podman_net.sh — sourced by the VM's Podman suites
# (vm_podman.sh, vm_image.sh) after tests/lib/common.sh: traffic of known
# size into a container's network namespace, counted by the root side of
# its veth.  Needs P (the podman command as an array) and $T.

pid_of() { "${P[@]}" inspect --format '{{.State.Pid}}' "$1" 2>>"$T/podman.log"; }
# veth_to CONTAINER ROOTSIDE NET: a veth pair, ROOTSIDE at NET.1 in the
# root namespace, its peer moved into the namespace of CONTAINER's process
# (ip link set ... netns PID) and named eth0 there, at NET.2; neighbours
# static and IPv6 off on both ends (no ARP, ND or MLD): no packet but the
# test's.
veth_to() {
  local pid v=$2 net=$3 mac_in
  pid=$(pid_of "$1") && [ "${pid:-0}" -gt 0 ] || return 1
  local in=(nsenter -t "$pid" -n)
  ip link add "$v" type veth peer name "${v}c" || return 1
  CLEANUPS+=("ip link del $v 2>/dev/null")
  mac_in=$(cat "/sys/class/net/${v}c/address")
  sysctl -qw "net.ipv6.conf.$v.disable_ipv6=1" &&
    ip link set "${v}c" netns "$pid" && "${in[@]}" ip link set "${v}c" name eth0 &&
    "${in[@]}" sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1 &&
    ip addr add "$net.1/30" dev "$v" && ip link set "$v" up &&
    "${in[@]}" ip addr add "$net.2/30" dev eth0 && "${in[@]}" ip link set eth0 up &&
    ip neigh replace "$net.2" lladdr "$mac_in" dev "$v" nud permanent &&
    "${in[@]}" ip neigh replace "$net.1" lladdr "$(cat "/sys/class/net/$v/address")" dev eth0 nud permanent
}
# ping_each_way CONTAINER NET: 20 echoes of 1000 bytes from the root
# namespace to NET.2, 30 of 300 bytes from CONTAINER's namespace to NET.1;
# an echo and its reply are SIZE + 42 bytes on the wire (ICMP 8, IPv4 20,
# Ethernet 14).  Each ping's summary line is appended to $T/ping.
ping_each_way() {
  /bin/busybox ping -q -c 20 -i 0.05 -s 1000 "$2.2" | grep transmitted >>"$T/ping" &&
    nsenter -t "$(pid_of "$1")" -n /bin/busybox ping -q -c 30 -i 0.05 -s 300 "$2.1" |
    grep transmitted >>"$T/ping"
}
stat_of() { cat "/sys/class/net/$1/statistics/$2"; }
# veth_figures VETH: "rx,tx,rx packets,tx packets" of its peer in the
# container's namespace, as the root side counts them (its tx is what the
# peer received).
veth_figures() {
  echo "$(stat_of "$1" tx_bytes),$(stat_of "$1" rx_bytes),$(stat_of "$1" tx_packets),$(stat_of "$1" rx_packets)"
}
