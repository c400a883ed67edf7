#!/usr/bin/env bash
# InstanceFrom "container" with a real Podman (make check-vm only: its
# state goes to the VM's own /var/lib/containers and /run).  Debian's
# Podman, rootful, cgroupfs manager (the VM has no systemd), no network,
# runs an image the test imports from a tarball of busybox-static: a
# named container, a --rm one, a pod (its infra container and one of its
# own) and, once collectd runs, one more.  Every cgroup Podman makes is
# below the run's parent (--cgroup-parent).  collectd with the plugin,
# RuntimeRoot and the runtime directories left at their defaults, must
# name each container's cgroup as `podman ps` names it, the pod's cgroup
# by its path (docs/containers.md), with no WARNING; `joule-cgroup list`
# agrees cgroup by cgroup.  Independent source: Podman's own listing and
# the cgroup each of its containers is in.  It also checks what Podman
# records for a --rm container, which docs/containers.md describes.
# Then Collect "+network": the pod's namespace and web's each get the
# peer of a veth pair to the root namespace and busybox pings each way;
# the pod's eth0 once, under the pod's cgroup, web's under web, each
# equal to the root side's own counters (/sys/class/net/VETH/statistics),
# exact.  At the end every pod, container and veth is gone.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/podman_net.sh"
need_kernel
need "the test VM of make check-vm (Podman's state goes to /var/lib/containers and /run)" -- \
  test -e /run/vm/started
need_collectd
need "podman, catatonit, bpftool (scripts/deps.sh --tests), ip, nsenter" -- \
  command -v podman catatonit bpftool ip nsenter
need "/bin/busybox (busybox-static)" -- test -x /bin/busybox
need "python3" -- command -v python3
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"

P=(podman --cgroup-manager cgroupfs --events-backend file)
podman_out() { "${P[@]}" "$@" >>"$T/podman.log" 2>&1; }
# Before the run's parent goes: Podman stops what it started.
CLEANUPS+=('"${P[@]}" pod rm -f -a -t 0 >/dev/null 2>&1; "${P[@]}" rm -f -a -t 0 >/dev/null 2>&1')
make_run_parent vm-podman
hand_down_controllers

# The image: busybox and two of its names, imported as Podman does a
# tarball (no registry, no network).
mkdir -p "$T/rootfs/bin"
cp /bin/busybox "$T/rootfs/bin/busybox"
ln -s busybox "$T/rootfs/bin/sh"
ln -s busybox "$T/rootfs/bin/sleep"
tar -C "$T/rootfs" -cf "$T/busybox.tar" .
IMG=localhost/jc-busybox:1
podman_out import "$T/busybox.tar" "$IMG"
ok $? "podman import of a busybox-static tarball as $IMG" || { diag <"$T/podman.log"; tap_done; }

start() { # start NAME PODMAN-RUN-OPTIONS...: a container sleeping
  local name=$1
  shift
  podman_out run -d --name "$name" "$@" "$IMG" sleep 3600
}
start web --network none --cgroup-parent "/$run"
ok $? "podman run --name web" || diag <"$T/podman.log"
start once --rm --network none --cgroup-parent "/$run"
ok $? "podman run --rm --name once" || diag <"$T/podman.log"

# Podman 4.3's cgroupfs manager attaches a device program that denies
# every device to the pod's cgroup it makes on cgroup v2 (its containers
# cannot even open /dev/null: crun fails "mknod `/dev/null`: Operation
# not permitted"); Podman with systemd, as hosts run it, makes no such
# program.  The test takes it away before the pod's containers start.
pod=$("${P[@]}" pod create --network none --cgroup-parent "/$run" --name shop 2>>"$T/podman.log")
ok $? "podman pod create --name shop ($pod)" || diag <"$T/podman.log"
for id in $(bpftool cgroup show "$parent/$pod" 2>>"$T/podman.log" | awk '$2 == "cgroup_device" { print $1 }'); do
  bpftool cgroup detach "$parent/$pod" device id "$id" 2>>"$T/podman.log"
done
start shop-api --pod shop
ok $? "podman run --pod shop --name shop-api (the pod's infra container starts with it)" ||
  diag <"$T/podman.log"
infra="${pod:0:12}-infra"

# What Podman itself says: each container's name and its cgroup.
listing() {
  "${P[@]}" ps --format '{{.ID}}' --no-trunc 2>>"$T/podman.log" | while read -r id; do
    printf '%s\t%s\n' "$("${P[@]}" inspect --format '{{.Name}}' "$id")" \
      "$(cd "$parent" && find . -type d -name "libpod-$id" | sed "s|^\.|$run|")"
  done | LC_ALL=C sort
}
listing >"$T/podman.tsv"
[ "$(cut -f1 "$T/podman.tsv" | tr '\n' ' ')" = "$infra once shop-api web " ] &&
  ! cut -f2 "$T/podman.tsv" | grep -qvE "^$run/(.+/)?libpod-[0-9a-f]{64}\$"
ok $? "podman ps: 4 running containers, each in a cgroup libpod-<id> below the run's parent" ||
  diag <"$T/podman.tsv"

# A --rm container as Podman records it: in containers.json like any
# other, its storage flags "Volatile"; in its OCI config, the annotation
# io.podman.annotations.autoremove "TRUE".
python3 - /var/lib/containers/storage >"$T/rm.txt" 2>&1 <<'PY'
import json, sys
top = sys.argv[1] + '/overlay-containers'
for c in json.load(open(top + '/containers.json')):
    spec = json.load(open('%s/%s/userdata/config.json' % (top, c['id'])))
    print(c['names'][0], c['flags'].get('Volatile', False),
          spec['annotations']['io.podman.annotations.autoremove'])
PY
grep -qx 'once True TRUE' "$T/rm.txt" && grep -qx 'web False FALSE' "$T/rm.txt"
ok $? "containers.json: the --rm container's flags hold \"Volatile\": true, its config.json autoremove TRUE; web's neither" ||
  diag <"$T/rm.txt"

# watch DIR COLLECT: collectd writing to DIR, reading every cgroup below
# the run's parent but conmon's, with the Collect values COLLECT.
watch() {
  write_conf "$1" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/*\" \"$run/*/*\"
  Ignore \"**/conmon\"
  InstanceFrom \"container\"
  Collect $2"
  start_collectd "$1"
}
dir="$T/collectd"
watch "$dir" '"cpu" "memory" "pids"'
wait_until _csv_has 2 "$dir" web count-pids
ok $? "collectd read the containers"

# One more, started while collectd reads.
start late --network none --cgroup-parent "/$run"
ok $? "podman run --name late while collectd runs" || diag <"$T/podman.log"
wait_until _csv_has 2 "$dir" late count-pids
ok $? "its cgroup is read under its name"
stop_collectd

want="${run}_$pod $infra late once shop-api web"
got=$(csv_instances "$dir")
[ "$got" = "$(tr ' ' '\n' <<<"$want" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')" ]
ok $? "the instances are the containers' names and the pod's path: $got" ||
  echo "want: $want" | diag
[ "$(loud_lines "$dir")" -eq 0 ] && ! grep -q 'keeps its path name' "$dir/collectd.log"
ok $? "no WARNING or ERROR from the plugin, no cgroup left with its path name" ||
  grep -E '^\[(error|warning)\]|keeps its path name' "$dir/collectd.log" | diag

# The command, cgroup by cgroup, against Podman's listing.
listing >"$T/podman.tsv"
"$JC" list --root "$mnt" --select "$run/*" --select "$run/*/*" --ignore "**/conmon" \
  --instance-from container >"$T/list.json" 2>"$T/list.err"
python3 - "$T/list.json" "$T/podman.tsv" "$run/$pod" >"$T/compare.txt" 2>&1 <<'PY'
import json, sys
got = {c['cgroup']: c['instance'] for c in json.load(open(sys.argv[1]))['cgroups']}
bad = [] if got.pop('/', None) == 'root' else ['/: not root']
for line in open(sys.argv[2]):
    name, cgroup = line.rstrip('\n').split('\t')
    if got.pop(cgroup, None) != name:
        bad.append('%s: not %s' % (cgroup, name))
pod = sys.argv[3]
if got.pop(pod, None) != pod.replace('/', '_'):
    bad.append('%s: not its path name' % pod)
bad += ['%s: %s, not a container of podman ps' % kv for kv in got.items()]
print('\n'.join(bad) or 'agree')
PY
[ "$(cat "$T/compare.txt")" = agree ] && [ ! -s "$T/list.err" ]
ok $? "joule-cgroup list --instance-from container: each cgroup named as podman ps names its container ($(wc -l <"$T/podman.tsv") containers)" ||
  cat "$T/compare.txt" "$T/list.err" | diag

# Network: the pod's namespace (its infra container's, which shop-api
# shares) and web's own each get one end of a veth pair whose other end
# stays in the root namespace; busybox ping each way, its summary the
# sender's count.  collectd with Collect "+network": the pod's eth0 once,
# under the pod's cgroup, none under its containers; web's under web;
# each against the root side's /sys/class/net/VETH/statistics, exact.
vp=jcpod$$ vw=jcweb$$
veth_to "$infra" "$vp" 10.242.1 2>>"$T/net.log"
ok $? "veth $vp in the root namespace, its peer eth0 in pod shop's namespace (its infra container's, pid $(pid_of "$infra"))" ||
  diag <"$T/net.log"
veth_to web "$vw" 10.242.2 2>>"$T/net.log"
ok $? "veth $vw in the root namespace, its peer eth0 in web's own namespace (pid $(pid_of web))" ||
  diag <"$T/net.log"
[ "$(readlink "/proc/$(pid_of shop-api)/ns/net")" = "$(readlink "/proc/$(pid_of "$infra")/ns/net")" ] &&
  [ "$(readlink "/proc/$(pid_of web)/ns/net")" != "$(readlink /proc/self/ns/net)" ]
ok $? "shop-api shares its infra container's namespace; web's is not the host's"

dir="$T/net"
watch "$dir" '"+network"'
podi="${run}_$pod"
wait_until _csv_has 2 "$dir" "$podi" if_octets-eth0 && wait_until _csv_has 2 "$dir" web if_octets-eth0
ok $? "collectd sends the pod's eth0 and web's"

each_way=$((20 * 1042 + 30 * 342)),$((20 * 1042 + 30 * 342)),50,50
for v in "$vp" "$vw"; do
  before=$(veth_figures "$v")
  if [ "$v" = "$vp" ]; then ping_each_way "$infra" 10.242.1; else ping_each_way web 10.242.2; fi
  after=$(veth_figures "$v")
  sent=$(awk -F, -v a="$after" -v b="$before" 'BEGIN { split(a, x); split(b, y)
    printf "%d,%d,%d,%d", x[1] - y[1], x[2] - y[2], x[3] - y[3], x[4] - y[4] }' </dev/null)
  [ "$sent" = "$each_way" ]
  ok $? "$v counted what the pings sent, each way: $sent (rx,tx bytes, rx,tx packets) = 20 x 1042 + 30 x 342 bytes, 50 packets" ||
    diag <"$T/ping"
done
[ "$(grep -cE '^(20 packets transmitted, 20|30 packets transmitted, 30) packets received, 0% packet loss$' "$T/ping")" -eq 4 ]
ok $? "every echo answered: $(tr '\n' ';' <"$T/ping")"

plugin_figures() {
  echo "$(csv_last "$dir" "$1" if_octets-eth0),$(csv_last "$dir" "$1" if_packets-eth0)"
}
matches() { [ "$(plugin_figures "$1")" = "$(veth_figures "$2")" ]; }
wait_until matches "$podi" "$vp"
ok $? "pod shop's eth0 (rx,tx bytes, rx,tx packets) $(plugin_figures "$podi") = $vp's own counters $(veth_figures "$vp")"
wait_until matches web "$vw"
ok $? "web's eth0 $(plugin_figures web) = $vw's own counters $(veth_figures "$vw")"
stop_collectd

owners=$(cd "$dir/csv/testhost" && ls -d joule_cgroup-*/if_octets-eth0-* | sed 's|^joule_cgroup-||; s|/.*||' | LC_ALL=C sort -u | tr '\n' ' ' | sed 's/ $//')
[ "$owners" = "$(printf '%s\n' "$podi" web | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')" ]
ok $? "if_octets-eth0 under the pod and web only: $owners" || ls -R "$dir/csv/testhost" | diag
inner=$(ls "$dir/csv/testhost/joule_cgroup-$infra" "$dir/csv/testhost/joule_cgroup-shop-api" | grep -c '^if_' || true)
[ "$inner" -eq 0 ] && [ -d "$dir/csv/testhost/joule_cgroup-shop-api" ]
ok $? "the pod's containers ($infra, shop-api) are read and have no network lists: $inner"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no WARNING or ERROR from the plugin with Collect \"+network\"" ||
  grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag

# The veths deleted (each pair with its root side), Podman's pods and
# containers removed: no cgroup of Podman's is left below the run's parent.
t0=$SECONDS
ip link del "$vp" && ip link del "$vw"
gone() { [ ! -e "/sys/class/net/$vp" ] && [ ! -e "/sys/class/net/$vw" ]; }
t1=$SECONDS
"${P[@]}" pod rm -f -a -t 0 >>"$T/podman.log" 2>&1
"${P[@]}" rm -f -a -t 0 >>"$T/podman.log" 2>&1
left=$(find "$parent" -mindepth 1 -type d -name 'libpod-*' | grep -c . || true)
rest=$(find "$parent" -mindepth 1 -type d -printf '%P ' | sed 's/ $//')
[ -z "$("${P[@]}" ps -aq 2>>"$T/podman.log")" ] && [ -z "$("${P[@]}" pod ps -q 2>>"$T/podman.log")" ] && gone && [ "$left" -eq 0 ]
ok $? "ip link del, podman pod rm, podman rm: veths $vp and $vw gone, no pod, no container, $left libpod cgroups left (below the run's parent: ${rest:-nothing}; the test removes the rest), in $((t1 - t0)) s and $((SECONDS - t1)) s" ||
  ip -br link | diag
tap_done
