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

P=(podman --cgroup-manager cgroupfs --events-backend file)
podman_out() { "${P[@]}" "$@" >>"$T/podman.log" 2>&1; }
CLEANUPS+=('"${P[@]}" pod rm -f -a -t 0 >/dev/null 2>&1; "${P[@]}" rm -f -a -t 0 >/dev/null 2>&1; rmdir /sys/fs/cgroup/libpod_parent/conmon /sys/fs/cgroup/libpod_parent 2>/dev/null')

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

# Real containers, under Podman's own parent: web sleeps, disk writes
# 8 MiB to the scratch disk with O_DIRECT once and sleeps, pod shop holds
# shop-api (the pod's infra container starts with it).
podman_out run -d --name web --network none "$IMG" sleep 3600
ok $? "podman run --name web" || diag <"$T/podman.log"
podman_out run -d --name disk --network none --device /dev/vda "$IMG" \
  sh -c 'dd if=/dev/zero of=/dev/vda bs=1M count=8 oflag=direct 2>/dev/null; sleep 3600'
ok $? "podman run --name disk (8 MiB written to /dev/vda with O_DIRECT)" || diag <"$T/podman.log"
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

# The host's own collectd: the image's plugin block with the host's paths.
host=$T/host
mkdir -p "$host/csv"
{
  JC_INTERVAL=2 conf_head "$host"
  echo 'LoadPlugin write_prometheus'
  echo '<Plugin write_prometheus>'
  echo '  Host "127.0.0.1"'
  echo '  Port "9104"'
  echo '</Plugin>'
  echo "PluginDir \"$PLUGIN_BUILDDIR\""
  sed -e 's|"/host/|"/|' -e 's|RuntimeRoot "/host"|RuntimeRoot "/"|' \
    "$top_srcdir/deploy/image/collectd.conf.d/joule_cgroup.conf"
} >"$host/collectd.conf"
start_collectd "$host"
scrape_host() { curl -sf --max-time 5 http://127.0.0.1:9104/metrics; }

# run_collector NAME [--without cap:X|mount:Y]...: the DaemonSet's pod as
# podman run options, Interval 2 (one more file in its configuration
# directory), no network (the VM has none; write_prometheus is reached in
# its namespace).
run_collector() {
  local name=$1
  shift
  local cfg=$T/config-$name
  manifest flags "$top_srcdir" "$cfg" "$@" >"$T/flags-$name" 2>"$T/flags-$name.err" || return 1
  printf 'Interval 2\n' >"$cfg/00-interval.conf"
  mapfile -t flags <"$T/flags-$name"
  podman_out run -d --name "$name" --network none "${flags[@]}"
}
scrape() {
  local pid
  pid=$("${P[@]}" inspect --format '{{.State.Pid}}' "$1" 2>/dev/null) && [ "${pid:-0}" -gt 0 ] &&
    nsenter -t "$pid" -n curl -sf --max-time 5 http://127.0.0.1:9103/metrics
}
# series FILE: the joule_cgroup series of a scrape, "name{labels} value",
# without collectd's host name and the timestamps.
series() {
  grep '^collectd_joule_cgroup_' "$1" | sed -E 's/instance="[^"]*",?//; s/,}/}/; s/ ([^ ]+)( [0-9]+)?$/ \1/' | LC_ALL=C sort
}
has_series() { scrape "$1" >"$2" && grep -q "joule_cgroup=\"$3\"" "$2"; }

run_collector collector
ok $? "podman run of the DaemonSet's pod: $(tr '\n' ' ' <"$T/flags-collector")" ||
  { cat "$T/flags-collector.err" "$T/podman.log" | diag; tap_done; }
diag <"$T/flags-collector.err"
wait_until has_series collector "$T/c.prom" shop-api && wait_until has_series collector "$T/c.prom" disk
ok $? "its write_prometheus serves the containers" || "${P[@]}" logs collector 2>&1 | tail -n 20 | diag

# Both at rest: the same series, the same figures (the host's and the
# root's own change; the containers sleep).
sleep 5
scrape collector >"$T/c.prom" && scrape_host >"$T/h.prom"
series "$T/c.prom" >"$T/c.series"
series "$T/h.prom" >"$T/h.series"
names=$(sed -n 's/.*joule_cgroup="\([^"]*\)".*/\1/p' "$T/c.series" | LC_ALL=C sort -u | tr '\n' ' ')
want="$infra disk libpod_parent_$pod root shop-api web "
[ "$names" = "$want" ]
ok $? "the names: $names(Podman's; the pod its path)" || echo "want: $want" | diag
# The one difference a read-only cgroupfs makes (6.12): no interval peak,
# said once at INFO.
interval_peak='type="peak_interval"'
cut -d' ' -f1 "$T/c.series" >"$T/c.keys"
cut -d' ' -f1 "$T/h.series" | grep -vF "$interval_peak" >"$T/h.keys"
lost=$(grep -cF "$interval_peak" "$T/h.series" || true)
cmp -s "$T/c.keys" "$T/h.keys"
ok $? "the same $(wc -l <"$T/c.keys") series as the plugin on the host, but for the $lost memory-peak_interval of its read-write tree" ||
  diff "$T/h.keys" "$T/c.keys" | head -n 20 | diag
grep -v 'joule_cgroup="root"' "$T/c.series" >"$T/c.containers"
grep -v 'joule_cgroup="root"' "$T/h.series" | grep -vF "$interval_peak" >"$T/h.containers"
cmp -s "$T/c.containers" "$T/h.containers"
ok $? "the containers' $(wc -l <"$T/c.containers") figures equal the host's: CPU, memory, I/O" ||
  diff "$T/h.containers" "$T/c.containers" | head -n 20 | diag
grep -q 'ps_disk_octets\|disk_octets' "$T/c.containers" && grep -E 'joule_cgroup="disk"' "$T/c.containers" | grep -q 'write_total 8388608$'
ok $? "disk's I/O: $(grep -E 'joule_cgroup="disk"' "$T/c.containers" | grep octets | tr '\n' ' ')"
"${P[@]}" logs collector >"$T/collector.log" 2>&1
msgs() { sed -E 's/^\[[^]]*\] //' "$1" | grep -E '^\[(info|notice|warning|error)\] joule_cgroup plugin' | sed -E 's/[0-9]+/N/g' | LC_ALL=C sort -u; }
msgs "$T/collector.log" >"$T/full.msgs"
diag <"$T/full.msgs"
[ "$(grep -c 'memory.peak cannot be reset: CgroupRoot /host/sys/fs/cgroup is on a read-only mount' "$T/collector.log")" -eq 1 ] &&
  ! grep -qE '\[(warning|error)\] joule_cgroup' "$T/collector.log"
ok $? "the read-only cgroupfs said once, at INFO: no interval peak, memory-peak and memory-current sent; no WARNING or ERROR" ||
  grep joule_cgroup "$T/collector.log" | head -n 10 | diag
podman_out rm -f -t 0 collector

# Each grant taken away: the lines its absence adds, and every figure
# still sent equal to the host's.
manifest grants "$top_srcdir" >"$T/grants"
while read -r kind name; do
  n=without-$(echo "$name" | tr 'A-Z_' 'a-z-')
  run_collector "$n" --without "$kind:$name" || { ok 1 "without $kind $name: podman run"; continue; }
  if [ "$kind" = mount ] && grep -q "^deploy_manifest: $name " "$T/flags-collector.err"; then
    podman_out rm -f -t 0 "$n"
    ok 0 "without $kind $name: not on this host ($(grep "^deploy_manifest: $name " "$T/flags-collector.err" | sed 's/.*(\(.*\)).*/\1/')), nothing to take away"
    continue
  fi
  sleep 8
  scrape "$n" >"$T/$n.prom"
  "${P[@]}" logs "$n" >"$T/$n.log" 2>&1
  podman_out rm -f -t 0 "$n"
  scrape_host >"$T/h2.prom"
  series "$T/$n.prom" | grep -v 'joule_cgroup="root"' >"$T/$n.series"
  series "$T/h2.prom" | grep -v 'joule_cgroup="root"' | grep -vF "$interval_peak" >"$T/h2.series"
  wrong=$(LC_ALL=C comm -23 "$T/$n.series" "$T/h2.series" | grep -c . || true)
  gone=$(LC_ALL=C comm -13 <(cut -d' ' -f1 "$T/$n.series") <(cut -d' ' -f1 "$T/h2.series") | grep -c . || true)
  new=$(msgs "$T/$n.log" | LC_ALL=C comm -23 - "$T/full.msgs")
  [ "$wrong" -eq 0 ] && { [ "$gone" -eq 0 ] || [ -n "$new" ]; }
  ok $? "without $kind $name: $gone series gone, $wrong figures unlike the host's; the log says: ${new:-nothing new}" ||
    { LC_ALL=C comm -23 "$T/$n.series" "$T/h2.series" | head -n 5; tail -n 15 "$T/$n.log"; } | diag
done <"$T/grants"
stop_collectd
tap_done
