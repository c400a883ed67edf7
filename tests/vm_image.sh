#!/usr/bin/env bash
# The image of `make image` run as the DaemonSet of deploy/kubernetes/
# runs it, reading the VM's host from inside a container (make check-vm,
# the newest kernel only: Podman's state goes to the VM's own
# /var/lib/containers and /run).  Debian's Podman (rootful, cgroupfs
# manager, no network) loads the archive; beside it run real containers
# of an image imported from busybox-static, under Podman's default
# cgroup parent (libpod_parent: the shipped configuration's own Select
# lines pick them), and a pod with its own network namespace.  The
# DaemonSet's pod is turned into podman run options by
# tests/deploy_manifest.py (hostPID, user, capabilities, no new
# privileges, read-only root, limits, every mount; Podman 4.3 ignores
# hostPID in kube play), its ConfigMap's files mounted as they are.
# Independent source: the same plugin (the build tree's) run on the VM's
# host directly with the same configuration but the host's own paths:
# the containerised collectd must serve on write_prometheus the same
# series, under the names Podman gives, with the same figures.  Then each
# added capability and each mount taken away in turn: what goes, with the
# log line that says so, and never a figure different from the host's.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/podman_net.sh"
need_kernel
need "the test VM of make check-vm (Podman's state goes to /var/lib/containers and /run)" -- \
  test -e /run/vm/started
need_collectd
need "podman, bpftool, curl, nsenter (scripts/deps.sh --tests)" -- command -v podman bpftool curl nsenter
need "/bin/busybox (busybox-static)" -- test -x /bin/busybox
need "python3 with yaml (python3-yaml)" -- python3 -c 'import yaml'
archive=$top_builddir/image/joule-cgroup.tar
need "the image archive $archive (make image; ./test.sh's make check makes it first)" -- test -s "$archive"
ver=$(sed -n 's/^AC_INIT(\[joule_cgroup\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
manifest() { python3 "$top_srcdir/tests/deploy_manifest.py" "$@"; }
manifest probe "$top_srcdir" >"$T/probe.cmd"

P=(podman --cgroup-manager cgroupfs --events-backend file)
podman_out() { "${P[@]}" "$@" >>"$T/podman.log" 2>&1; }
CLEANUPS+=('"${P[@]}" pod rm -f -a -t 0 >/dev/null 2>&1; "${P[@]}" rm -f -a -t 0 >/dev/null 2>&1; rmdir /sys/fs/cgroup/libpod_parent/conmon /sys/fs/cgroup/libpod_parent 2>/dev/null')

image_ref=$(python3 -c 'import json, sys, tarfile; print(json.load(tarfile.open(sys.argv[1]).extractfile("manifest.json"))[0]["RepoTags"][0])' "$archive")
t0=$SECONDS
podman_out load -i "$archive"
ok $? "podman load -i $(basename "$archive") ($((SECONDS - t0)) s): $("${P[@]}" images --format '{{.Repository}}:{{.Tag}}' | grep joule-cgroup)" ||
  { diag <"$T/podman.log"; tap_done; }

mkdir -p "$T/rootfs/bin"
cp /bin/busybox "$T/rootfs/bin/busybox"
for l in sh sleep dd; do ln -s busybox "$T/rootfs/bin/$l"; done
tar -C "$T/rootfs" -cf "$T/busybox.tar" .
IMG=localhost/jc-busybox:1
podman_out import "$T/busybox.tar" "$IMG"
ok $? "podman import of a busybox-static tarball as $IMG" || { diag <"$T/podman.log"; tap_done; }

# Real containers, under Podman's own parent: web sleeps; work burns
# some CPU, writes 8 MiB to the scratch disk with O_DIRECT and sleeps;
# pod shop holds shop-api (the pod's infra container starts with it).
podman_out run -d --name web --network none "$IMG" sleep 3600
ok $? "podman run --name web" || diag <"$T/podman.log"
podman_out run -d --name work --network none --device /dev/vda "$IMG" sh -c \
  'dd if=/dev/zero of=/dev/null bs=64k count=20000 2>/dev/null; dd if=/dev/zero of=/dev/vda bs=1M count=8 oflag=direct 2>/dev/null; sleep 3600'
ok $? "podman run --name work (CPU, then 8 MiB written to /dev/vda with O_DIRECT)" || diag <"$T/podman.log"
pod=$("${P[@]}" pod create --network none --name shop 2>>"$T/podman.log")
ok $? "podman pod create --name shop ($pod)" || diag <"$T/podman.log"
# Podman 4.3's cgroupfs manager gives a pod's cgroup a deny-all device
# program (tests/vm_podman.sh); taken away before its containers start.
for id in $(bpftool cgroup show "/sys/fs/cgroup/libpod_parent/$pod" 2>>"$T/podman.log" | awk '$2 == "cgroup_device" { print $1 }'); do
  bpftool cgroup detach "/sys/fs/cgroup/libpod_parent/$pod" device id "$id" 2>>"$T/podman.log"
done
podman_out run -d --name shop-api --pod shop "$IMG" sleep 3600
ok $? "podman run --pod shop --name shop-api" || diag <"$T/podman.log"
infra="${pod:0:12}-infra"

# The pod's traffic: a veth into its namespace, pings of known size each
# way, counted by the root side (tests/lib/podman_net.sh).
vp=jcpod$$
veth_to "$infra" "$vp" 10.242.1 2>>"$T/net.log" && ping_each_way "$infra" 10.242.1 2>>"$T/net.log"
ok $? "veth $vp into pod shop's namespace, pings each way: $(tr '\n' ';' <"$T/ping")" || diag <"$T/net.log"

# Each monitor's own namespace, as a pod has: an interface with an IPv4
# address (write_prometheus' getaddrinfo wants one; the VM has no
# network), its other end in the root namespace, where the test scrapes
# from: monitor K at 10.243.K.2, the root side 10.243.K.1.
netns_for() { # netns_for K
  local ns=jcmon$$-$1
  ip netns add "$ns" && CLEANUPS+=("ip netns del $ns 2>/dev/null; ip link del jcm$$-$1 2>/dev/null") &&
    ip link add "jcm$$-$1" type veth peer name eth0 netns "$ns" &&
    ip addr add "10.243.$1.1/30" dev "jcm$$-$1" && ip link set "jcm$$-$1" up &&
    ip -n "$ns" addr add "10.243.$1.2/30" dev eth0 && ip -n "$ns" link set eth0 up &&
    ip -n "$ns" link set lo up
}
netns_for 0
ok $? "network namespace jcmon$$-0 for the monitor: eth0 10.243.0.2, the root side 10.243.0.1" || tap_done

# The host's own collectd: the image's plugin block with the host's paths.
host=$T/host
mkdir -p "$host/csv"
{
  JC_INTERVAL=1 conf_head "$host"
  echo 'LoadPlugin write_prometheus'
  echo '<Plugin write_prometheus>'
  echo '  Host "10.243.0.1"'
  echo '  Port "9104"'
  echo '</Plugin>'
  echo "PluginDir \"$PLUGIN_BUILDDIR\""
  sed -e 's|"/host/|"/|' -e 's|RuntimeRoot "/host"|RuntimeRoot "/"|' \
    "$top_srcdir/deploy/image/collectd.conf.d/joule_cgroup.conf"
} >"$host/collectd.conf"
start_collectd "$host"
scrape_host() { curl -sf --max-time 5 http://10.243.0.1:9104/metrics; }

# run_collector K NAME [--without cap:X|mount:Y]...: the DaemonSet's pod
# as podman run options, Interval 1 (one more file in its configuration
# directory), in monitor K's namespace.  The monitors run side by side:
# the full one (0) and one without each grant, each a container under
# libpod_parent that every monitor sees too (their names: mon-*).
run_collector() {
  local k=$1 name=$2
  shift 2
  local cfg=$T/config-$name
  manifest flags "$top_srcdir" "$cfg" "$@" >"$T/flags-$name" 2>"$T/flags-$name.err" || return 1
  printf 'Interval 1\n' >"$cfg/00-interval.conf"
  mapfile -t flags <"$T/flags-$name"
  # The manifest names the release's image; the archive's is this build's
  # (RELEASE-git.N.HASH between releases): the last flag, the image.
  flags[${#flags[@]}-1]=$image_ref
  podman_out run -d --name "$name" --network "ns:/run/netns/jcmon$$-$k" "${flags[@]}"
}
scrape() { curl -sf --max-time 5 "http://10.243.$1.2:9103/metrics"; }
# series FILE: the joule_cgroup series of a scrape but the monitors',
# "name{labels} value", without collectd's host name and the timestamps.
series() {
  grep '^collectd_joule_cgroup_' "$1" | grep -v 'joule_cgroup="mon-' |
    sed -E 's/instance="[^"]*",?//; s/,}/}/; s/ ([^ ]+)( [0-9]+)?$/ \1/' | LC_ALL=C sort
}
has_series() { scrape "$1" >"$2" && grep -q "joule_cgroup=\"$3\"" "$2"; }

run_collector 0 mon-full
ok $? "podman run of the DaemonSet's pod: $(tr '\n' ' ' <"$T/flags-mon-full")" ||
  { cat "$T/flags-mon-full.err" "$T/podman.log" | diag; tap_done; }
diag <"$T/flags-mon-full.err"
wait_until has_series 0 "$T/c.prom" shop-api && wait_until has_series 0 "$T/c.prom" work
ok $? "its write_prometheus serves the containers (at $SECONDS s of the test)" || "${P[@]}" logs mon-full 2>&1 | tail -n 20 | diag
"${P[@]}" logs mon-full >"$T/mon-full.log" 2>&1
msgs() { sed -E 's/^\[[^]]*\] //' "$1" | grep -E '^\[(info|notice|warning|error)\] joule_cgroup plugin' | sed -E 's/[0-9]+/N/g' | LC_ALL=C sort -u; }

# The monitors without one grant each, beside it (a mount this host lacks
# is nothing to take away).
manifest grants "$top_srcdir" >"$T/grants"
k=0
: >"$T/variants"
t0=$SECONDS
while read -r kind name; do
  if [ "$kind" = mount ] && grep -q "^deploy_manifest: $name " "$T/flags-mon-full.err"; then
    ok 0 "without $kind $name: not on this host ($(grep "^deploy_manifest: $name " "$T/flags-mon-full.err" | sed 's/.*(\(.*\)).*/\1/')), nothing to take away"
    continue
  fi
  k=$((k + 1))
  n=mon-without-$(echo "$name" | tr 'A-Z_' 'a-z-')
  echo "$k $n $kind $name" >>"$T/variants"
  netns_for "$k" || ok 1 "network namespace for $n"
done <"$T/grants"
# Started side by side (podman run is slow in the emulated VM).
pids=()
while read -r k n kind name; do
  run_collector "$k" "$n" --without "$kind:$name" &
  pids+=($!)
done <"$T/variants"
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
[ "$failed" -eq 0 ]
ok $? "podman run of the pod without each grant: $(cut -d' ' -f2 "$T/variants" | tr '\n' ' ')($((SECONDS - t0)) s)" ||
  tail -n 20 "$T/podman.log" | diag

# Both at rest: the same series, the same figures (the host's and the
# root's own change; the containers sleep).
sleep 2
scrape 0 >"$T/c.prom" && scrape_host >"$T/h.prom"
series "$T/c.prom" >"$T/c.series"
series "$T/h.prom" >"$T/h.series"
names=$(grep '^collectd_joule_cgroup_' "$T/c.prom" | sed -n 's/.*joule_cgroup="\([^"]*\)".*/\1/p' | LC_ALL=C sort -u | tr '\n' ' ')
want="$infra libpod_parent_$pod $(cut -d' ' -f2 "$T/variants" | tr '\n' ' ')mon-full root shop-api web work "
want=$(tr ' ' '\n' <<<"$want" | grep . | LC_ALL=C sort | tr '\n' ' ')
[ "$names" = "$want" ]
ok $? "the names: $names(Podman's; the pod its path; the monitors' own containers too)" || echo "want: $want" | diag
# The one difference a read-only cgroupfs makes (6.12): no interval peak,
# said once at INFO.
interval_peak='type="peak_interval"'
cut -d' ' -f1 "$T/c.series" >"$T/c.keys"
cut -d' ' -f1 "$T/h.series" | grep -vF "$interval_peak" >"$T/h.keys"
lost=$(grep -cF "$interval_peak" "$T/h.series" || true)
cmp -s "$T/c.keys" "$T/h.keys"
ok $? "the same $(wc -l <"$T/c.keys") series as the plugin on the host (but the monitors'), but for the $lost memory-peak_interval of its read-write tree" ||
  diff "$T/h.keys" "$T/c.keys" | head -n 20 | diag
grep -v 'joule_cgroup="root"' "$T/c.series" >"$T/c.containers"
grep -v 'joule_cgroup="root"' "$T/h.series" | grep -vF "$interval_peak" >"$T/h.containers"
cmp -s "$T/c.containers" "$T/h.containers"
ok $? "the containers' $(wc -l <"$T/c.containers") figures equal the host's: CPU, memory, I/O, network" ||
  diff "$T/h.containers" "$T/c.containers" | head -n 20 | diag
# The monitor's own container works between the two scrapes: its CPU
# within what it may use in one interval (0.5 CPU for 1 s).
own() { grep -E "^collectd_joule_cgroup_ps_cputime_$2_total\\{[^}]*joule_cgroup=\"mon-full\"" "$1" | awk '{ print $2 }'; }
awk -v a="$(own "$T/c.prom" user)" -v b="$(own "$T/h.prom" user)" -v c="$(own "$T/c.prom" syst)" \
  -v d="$(own "$T/h.prom" syst)" 'BEGIN { x = a - b; y = c - d; exit !(a > 0 && x * x <= 2.5e11 && y * y <= 2.5e11) }'
ok $? "the monitor's own CPU (user, system µs): $(own "$T/c.prom" user), $(own "$T/c.prom" syst) in the container, $(own "$T/h.prom" user), $(own "$T/h.prom" syst) on the host, within one interval's"
grep -q 'disk_octets_write_total{joule_cgroup="work"} 8388608$' "$T/c.containers"
ok $? "work's I/O: $(grep -E 'disk_octets.*joule_cgroup="work"' "$T/c.containers" | tr '\n' ' ')"
podi=libpod_parent_$pod
netfig() { # netfig FILE INSTANCE: "rx,tx,rx packets,tx packets" of its eth0
  local f
  for f in if_octets_rx if_octets_tx if_packets_rx if_packets_tx; do
    grep "^collectd_joule_cgroup_${f}_total{.*joule_cgroup=\"$2\".*type=\"eth0\"" "$1" | awk '{ print $2 }'
  done | paste -sd,
}
owners=$(grep '^collectd_joule_cgroup_if_octets_rx_total' "$T/c.prom" | sed -n 's/.*joule_cgroup="\([^"]*\)".*/\1/p' | grep -v '^mon-' | LC_ALL=C sort | tr '\n' ' ')
[ "$(netfig "$T/c.prom" "$podi")" = "$(veth_figures "$vp")" ] && [ "$owners" = "$podi " ]
ok $? "pod shop's eth0, once and under the pod (the monitors' own namespaces beside it): $(netfig "$T/c.prom" "$podi") (rx,tx bytes, rx,tx packets) = $vp's own counters $(veth_figures "$vp")" ||
  grep '^collectd_joule_cgroup_if_' "$T/c.prom" | diag

# The DaemonSet's livenessProbe, the image's own command run where the
# kubelet runs it: in the pod's network namespace (another container of
# the image in the monitor's; podman exec, and so its health check, fails
# for every binary in this VM, whose tests run in a chroot).
mapfile -t probe <"$T/probe.cmd"
podman_out run --rm --network "ns:/run/netns/jcmon$$-0" --read-only --cap-drop=all \
  --entrypoint "${probe[0]}" "$image_ref" "${probe[@]:1}"
ok $? "the livenessProbe ${probe[*]}, from the image beside the monitor: $(tail -n 1 "$T/podman.log")" ||
  tail -n 5 "$T/podman.log" | diag
podman_out pause mon-full
"$top_builddir/joule-cgroup" probe --url http://10.243.0.2:9103/metrics >"$T/probe.out" 2>&1
[ $? -eq 1 ] && grep -q 'no answer in 5 s' "$T/probe.out"
ok $? "collectd paused: the probe fails: $(cat "$T/probe.out")"
podman_out unpause mon-full
msgs "$T/mon-full.log" >"$T/full.msgs"
diag <"$T/full.msgs"
[ "$(grep -c 'memory.peak cannot be reset: CgroupRoot /host/sys/fs/cgroup is on a read-only mount' "$T/mon-full.log")" -eq 1 ] &&
  ! grep -qE '\[(warning|error)\] joule_cgroup' "$T/mon-full.log"
ok $? "the read-only cgroupfs said once, at INFO: no interval peak, memory-peak and memory-current sent; no WARNING or ERROR" ||
  grep joule_cgroup "$T/mon-full.log" | head -n 10 | diag

# Each grant taken away: the lines its absence adds (at init, or after
# the 11 reads a name is waited for), and every figure still sent equal
# to the host's.
said_more() {
  "${P[@]}" logs "$1" >"$T/$1.log" 2>&1
  new=$(msgs "$T/$1.log" | LC_ALL=C comm -23 - "$T/full.msgs")
  [ -n "$new" ]
}
all_said() {
  local k n rest
  while read -r k n rest; do said_more "$n" || return 1; done <"$T/variants"
}
JC_WAIT_LIMIT=16 wait_until all_said || true
while read -r k n kind name; do scrape "$k" >"$T/$n.prom"; done <"$T/variants"
scrape_host >"$T/h2.prom"
series "$T/h2.prom" | grep -v 'joule_cgroup="root"' | grep -vF "$interval_peak" >"$T/h2.series"
while read -r k n kind name; do
  said_more "$n"
  series "$T/$n.prom" | grep -v 'joule_cgroup="root"' >"$T/$n.series"
  python3 - "$T/$n.series" "$T/h2.series" >"$T/$n.cmp" <<'PY'
import sys
def read(path):
    return dict(line.rsplit(' ', 1) for line in open(path).read().splitlines())
got, host = read(sys.argv[1]), read(sys.argv[2])
wrong = [k for k in got if k in host and got[k] != host[k]]
print(len([k for k in host if k not in got]), len(wrong), len([k for k in got if k not in host]))
print('\n'.join('%s %s, the host %s' % (k, got[k], host[k]) for k in wrong[:5]))
PY
  read -r gone wrong renamed <"$T/$n.cmp"
  [ "$wrong" -eq 0 ] && { [ "$gone" -eq 0 ] || [ -n "$new" ]; }
  ok $? "without $kind $name: $gone series gone ($renamed under path names), $wrong figures unlike the host's; the log says: ${new:-nothing new}" ||
    { tail -n +2 "$T/$n.cmp"; tail -n 15 "$T/$n.log"; } | diag
done <"$T/variants"
stop_collectd
tap_done
