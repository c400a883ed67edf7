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
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "the test VM of make check-vm (Podman's state goes to /var/lib/containers and /run)" -- \
  test -e /run/vm/started
need_collectd
need "podman, catatonit, bpftool (scripts/deps.sh --tests)" -- \
  command -v podman catatonit bpftool
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

# collectd: every cgroup below the run's parent but conmon's.
dir="$T/collectd"
write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/*\" \"$run/*/*\"
  Ignore \"**/conmon\"
  InstanceFrom \"container\"
  Collect \"cpu\" \"memory\" \"pids\""
start_collectd "$dir"
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
tap_done
