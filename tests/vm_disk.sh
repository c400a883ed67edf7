#!/usr/bin/env bash
# Collect "disk" with real runtimes (make check-vm only, under the newest
# kernel: what is measured is the runtimes' storage, not the kernel's
# cgroups).  Their state goes to the VM's own /var/lib and /run:
#   Docker     Debian's docker.io, dockerd on containerd, no network
#              (--bridge=none --iptables=false), its data-root on an XFS
#              image mounted with prjquota: d1 without a size (its layer
#              walked), q1 with --storage-opt size= (a project of its own:
#              its layer read from the quota); json-file logs
#   Podman     rootful, cgroupfs, overlay on /var/lib/containers (walked),
#              k8s-file log ctr.log
#   containerd ctr in namespace k8s.io, a container laid out as the
#              kubelet's: the CRI annotations, its cgroup below
#              kubepods/besteffort/pod<uid>, its log at
#              /var/log/pods/<ns>_<pod>_<uid>/<container>/0.log, and its
#              pod's emptyDirs in /var/lib/kubelet/pods/<uid>/volumes (one
#              on disk, one of medium Memory: a tmpfs, left out)
# The image is imported from a tarball of busybox-static.  Each container
# writes 64 MiB in 1,000 files and 1 MiB to its standard output (q1 and
# the ctr one less); collectd with the plugin, InstanceFrom "container",
# must send each layer's bytes and inodes equal to `du -x --block-size=1
# -s` and `du -x --inodes -s` (and `find | wc -l`) of its upper directory
# (the quota's: of the layer's directory, which carries the project), its
# log bytes equal to the log file's size.  Then on d1: half the files
# removed (down), a hard link (counted once), a FIFO, a socket and a
# directory of mode 000 (counted, nothing blocks), files made and removed
# all through walks (no walk fails, the figure du's once it stops); on q1
# 5 MiB more, seen at the next reads without a walk (the test's changes
# made in the container's view, /proc/PID/root).  Independent source:
# du, find and stat of the paths the runtimes' own inspect commands give.
# At the end every container, daemon and mount of the test is gone.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "the test VM of make check-vm (the runtimes' state goes to /var/lib and /run)" -- \
  test -e /run/vm/started
need_collectd
need "docker.io, containerd, runc, podman, xfsprogs (scripts/deps.sh --tests)" -- \
  command -v dockerd containerd ctr runc podman mkfs.xfs xfs_io losetup
need "/bin/busybox (busybox-static)" -- test -x /bin/busybox
need "python3" -- command -v python3
modprobe -q overlay 2>/dev/null; modprobe -q xfs 2>/dev/null; modprobe -q loop 2>/dev/null
need "overlay and xfs file systems" -- grep -qw xfs /proc/filesystems

D=(/usr/bin/docker)   # Debian's client, of the daemon the test starts
P=(podman --cgroup-manager cgroupfs --events-backend file)
C=(ctr -n k8s.io)
xfs=/var/lib/jc-xfs img=/var/tmp/jc-xfs.img
say() { "$@" >>"$T/runtimes.log" 2>&1; }
teardown() {
  "${D[@]}" rm -f -v d1 q1 >/dev/null 2>&1
  "${P[@]}" rm -f -a -t 0 >/dev/null 2>&1
  "${C[@]}" tasks kill -s KILL "${cid:-none}" >/dev/null 2>&1
  sleep 0.5
  "${C[@]}" tasks delete -f "${cid:-none}" >/dev/null 2>&1
  "${C[@]}" containers delete "${cid:-none}" >/dev/null 2>&1
  [ -n "${dockerd_pid:-}" ] && kill "$dockerd_pid" 2>/dev/null && wait "$dockerd_pid" 2>/dev/null
  [ -n "${containerd_pid:-}" ] && kill "$containerd_pid" 2>/dev/null && wait "$containerd_pid" 2>/dev/null
  umount "${memvol:-/nonexistent}" 2>/dev/null
  umount /etc/docker 2>/dev/null
  umount "$xfs" 2>/dev/null && losetup -d "$loopdev" 2>/dev/null
  rm -f "$img"
}
CLEANUPS+=(teardown)
make_run_parent vm-disk
hand_down_controllers

# XFS with project quotas, and Docker's data-root on it.
t_setup=$SECONDS
truncate -s 320M "$img" && loopdev=$(losetup -f --show "$img") && say mkfs.xfs -q "$loopdev" &&
  mkdir -p "$xfs" && mount -o prjquota "$loopdev" "$xfs"
ok $? "an XFS image mounted with prjquota at $xfs" || { diag <"$T/runtimes.log"; tap_done; }

containerd >"$T/containerd.log" 2>&1 &
containerd_pid=$!
mount -t tmpfs tmpfs /etc/docker # dockerd writes its key there (/ is read-only)
dockerd --bridge=none --iptables=false --ip6tables=false \
  --containerd=/run/containerd/containerd.sock --data-root="$xfs/docker" \
  --exec-root=/run/docker-exec --pidfile=/run/jc-dockerd.pid >"$T/dockerd.log" 2>&1 &
dockerd_pid=$!
dockerd_up() { curl -sf --unix-socket /run/docker.sock http://d/_ping >/dev/null 2>&1; }
wait_until dockerd_up
ok $? "containerd and dockerd (no network, data-root on XFS) answer in $((SECONDS - t_setup)) s" ||
  { tail -20 "$T/dockerd.log" | diag; tap_done; }

mkdir -p "$T/rootfs/bin"
cp /bin/busybox "$T/rootfs/bin/busybox"
for n in sh sleep head yes mkdir touch; do
  ln -s busybox "$T/rootfs/bin/$n"
done
tar -C "$T/rootfs" -cf "$T/busybox.tar" .
say "${D[@]}" import "$T/busybox.tar" jc-busybox:1 &&
  say "${P[@]}" import "$T/busybox.tar" localhost/jc-busybox:1 &&
  say "${D[@]}" save -o "$T/image.tar" jc-busybox:1 &&
  say "${C[@]}" images import "$T/image.tar"
ok $? "a busybox-static tarball imported into Docker, Podman and containerd (k8s.io)" ||
  { diag <"$T/runtimes.log"; tap_done; }

# work MIB FILES: a container's command: 1 MiB to its standard output in
# lines of 1 KiB, MIB MiB in FILES files /data/f1000, f1001... (the
# shell's own printf: no process a file), then /written.
line=$(printf '%01023d' 0)
work() {
  echo "yes $line | head -c 1048576; mkdir /data; i=1000; while [ \$i -lt $((1000 + $2)) ]; do" \
    "printf '%$((($1 << 20) / $2))s' '' >/data/f\$i; i=\$((i + 1)); done; touch /written;" \
    "exec sleep 3600"
}
"${D[@]}" run -d --name d1 --network none --cgroup-parent "/$run/docker" \
  jc-busybox:1 sh -c "$(work 64 1000)" >>"$T/runtimes.log" 2>&1
ok $? "docker run d1: 64 MiB in 1,000 files, 1 MiB to stdout" || diag <"$T/runtimes.log"
"${D[@]}" run -d --name q1 --network none --cgroup-parent "/$run/docker" --storage-opt size=200M \
  jc-busybox:1 sh -c "$(work 16 250)" >>"$T/runtimes.log" 2>&1
ok $? "docker run q1 --storage-opt size=200M: 16 MiB in 250 files" || diag <"$T/runtimes.log"
"${P[@]}" run -d --name p1 --network none --cgroup-parent "/$run" \
  localhost/jc-busybox:1 sh -c "$(work 64 1000)" >>"$T/runtimes.log" 2>&1
ok $? "podman run p1: 64 MiB in 1,000 files, 1 MiB to stdout" || diag <"$T/runtimes.log"

# The kubelet's layout, by hand: pod shop/web-0's uid, its container
# app's cgroup, log directory and emptyDir volumes.
uid=$(cat /proc/sys/kernel/random/uuid)
cid=$(echo "app $uid" | sha256sum | cut -c1-64)
sid=$(echo "sandbox $uid" | sha256sum | cut -c1-64)
logdir=/var/log/pods/shop_web-0_$uid/app
vols=/var/lib/kubelet/pods/$uid/volumes/kubernetes.io~empty-dir
memvol=$vols/shm
mkdir -p "$logdir" "$vols/cache/items" "$memvol" && mount -t tmpfs -o size=8m tmpfs "$memvol" &&
  for i in $(seq 1 40); do head -c $((i * 997)) /dev/zero >"$vols/cache/items/$i"; done &&
  head -c 1000000 /dev/zero >"$memvol/big"
ok $? "pod web-0's emptyDirs: cache (40 files) on disk, shm a tmpfs (medium Memory)"
say "${C[@]}" run -d --cgroup "/$run/kubepods/besteffort/pod$uid/$cid" \
  --annotation io.kubernetes.cri.container-type=container \
  --annotation io.kubernetes.cri.container-name=app \
  --annotation io.kubernetes.cri.sandbox-id="$sid" \
  --annotation io.kubernetes.cri.sandbox-name=web-0 \
  --annotation io.kubernetes.cri.sandbox-namespace=shop \
  --annotation io.kubernetes.cri.sandbox-uid="$uid" \
  --log-uri "file://$logdir/0.log" \
  docker.io/library/jc-busybox:1 "$cid" sh -c "$(work 8 200)"
ok $? "ctr run: container app of pod shop/web-0, its CRI annotations, its log in $logdir" ||
  diag <"$T/runtimes.log"

# Where each runtime says its container's writable layer and log are.
upper_d1=$("${D[@]}" inspect -f '{{.GraphDriver.Data.UpperDir}}' d1)
upper_q1=$("${D[@]}" inspect -f '{{.GraphDriver.Data.UpperDir}}' q1)
upper_p1=$("${P[@]}" inspect --format '{{.GraphDriver.Data.UpperDir}}' p1)
"${C[@]}" snapshots mounts /mnt "$cid" >"$T/mounts" 2>>"$T/runtimes.log"
upper_c1=$(grep -o 'upperdir=[^,]*' "$T/mounts" | cut -d= -f2)
log_d1=$("${D[@]}" inspect -f '{{.LogPath}}' d1)
log_q1=$("${D[@]}" inspect -f '{{.LogPath}}' q1)
log_p1=$("${P[@]}" inspect --format '{{.HostConfig.LogConfig.Path}}' p1)
log_c1=$logdir/0.log
written() { [ -e "$upper_d1/written" ] && [ -e "$upper_q1/written" ] && [ -e "$upper_p1/written" ] &&
  [ -e "$upper_c1/written" ]; }
wait_until written
ok $? "every container wrote its files (in $((SECONDS - t_setup)) s): upper directories $upper_d1, $upper_q1, $upper_p1, $upper_c1" ||
  { diag <"$T/runtimes.log"; tap_done; }
projects=$(xfs_io -c lsproj "$upper_d1" "$(dirname "$upper_q1")" 2>&1 | grep -o '[0-9]*$' | tr '\n' ' ')
read -r proj_d1 proj_q1 <<<"$projects"
[ "$proj_d1" = 0 ] && [ "${proj_q1:-0}" -gt 0 ]
ok $? "XFS projects: d1's layer none (0), q1's its own ($proj_q1)"

# The plugin's view: every container below the run's parent.
dir=$T/collectd
write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/**\"
  Ignore \"**/conmon\"
  InstanceFrom \"container\"
  Collect \"disk\"
  RuntimeDir \"docker\" \"$xfs/docker\"
  DiskWalkEntries 500"
start_collectd "$dir"

bytes() { du -x --block-size=1 -s "$1" | cut -f1; }
inodes() { du -x --inodes -s "$1" | cut -f1; }
figure() { echo "$(csv_last "$dir" "$1" bytes-layer) $(csv_last "$dir" "$1" files-layer)"; }
same() { [ "$(figure "$1")" = "$2" ]; }
# layer_is INSTANCE UPPER WHAT: the figure reaches du's of UPPER.
layer_is() {
  local want
  want="$(bytes "$2") $(inodes "$2")"
  wait_until same "$1" "$want"
  ok $? "$1: bytes-layer files-layer $(figure "$1") = du -x of its upper directory ($want) $3"
}
log_is() {
  local size
  size=$(stat -c %s "$2")
  wait_until csv_has_value "$1" bytes-logs "$size"
  ok $? "$1: bytes-logs $(csv_last "$dir" "$1" bytes-logs) = the size of $2 ($size)"
}
csv_has_value() { [ "$(csv_last "$dir" "$1" "$2")" = "$3" ]; }
c1=shop_web-0_app
layer_is d1 "$upper_d1" "(walked; find counts $(find "$upper_d1" -xdev | wc -l))"
log_is d1 "$log_d1"
layer_is p1 "$upper_p1" "(walked; find counts $(find "$upper_p1" -xdev | wc -l))"
log_is p1 "$log_p1"
layer_is "$c1" "$upper_c1" "(walked; from the mount table of its process)"
log_is "$c1" "$log_c1"
# q1: its project's usage is the layer's directory's (upper, work, link,
# lower, and the merged mount point without what is mounted on it).
layer_q1=$(dirname "$upper_q1")
quota_is() {
  local want
  want="$(bytes "$layer_q1") $(find "$layer_q1" -xdev | wc -l)"
  wait_until same q1 "$want"
  ok $? "q1: bytes-layer files-layer $(figure q1) = du -x, find -xdev of its layer's directory ($want) $1"
}
quota_is "(its project's quota)"
[ "$(csv_last "$dir" q1 duration-layer_age)" = 0 ]
ok $? "q1: duration-layer_age 0 (the quota is read at every read)"
log_is q1 "$log_q1"
pod=$(cd "$dir/csv/testhost" && ls -d joule_cgroup-*/bytes-emptydir-* 2>/dev/null | sed 's|^joule_cgroup-||; s|/.*||' | sort -u)
want="$(bytes "$vols/cache") $(inodes "$vols/cache")"
emptydir() { [ "$(csv_last "$dir" "$pod" bytes-emptydir) $(csv_last "$dir" "$pod" files-emptydir)" = "$want" ]; }
[ -n "$pod" ] && wait_until emptydir
ok $? "pod web-0 ($pod): bytes-emptydir files-emptydir = du -x of its disk volume cache ($want), its tmpfs left out"

# What follows is done in a container's own view of its files,
# /proc/PID/root (the VM's root is an initramfs, where runc starts a
# container with chroot, not pivot_root: `docker exec` would not enter
# it).
root_d1=/proc/$("${D[@]}" inspect -f '{{.State.Pid}}' d1)/root
root_q1=/proc/$("${D[@]}" inspect -f '{{.State.Pid}}' q1)/root
in_d1() { # in_d1 CODE [ARG...]: python3 CODE in d1's /data
  local code=$1
  shift
  (cd "$root_d1/data" && python3 -c "$code" "$@")
}

# d1: half its files removed.
before=$(csv_last "$dir" d1 bytes-layer)
in_d1 'import os; [os.unlink(f) for f in sorted(os.listdir("."))[:500]]'
ok $? "d1: 500 files of /data removed"
layer_is d1 "$upper_d1" "after 500 files removed"
after=$(csv_last "$dir" d1 bytes-layer)
[ $((before - after)) -ge $((32 << 20)) ]
ok $? "d1: down by $((before - after)) bytes (at least 32 MiB)"

# A hard link, a FIFO, a socket and a directory of mode 000 with a file.
in_d1 'import os, socket
os.link("f1999", "hard"); os.mkfifo("fifo"); socket.socket(socket.AF_UNIX).bind("sock")
os.makedirs("locked/in"); open("locked/in/s", "w").write("s\n"); os.chmod("locked", 0)'
[ -p "$upper_d1/data/fifo" ] && [ -S "$upper_d1/data/sock" ] && [ "$(stat -c %h "$upper_d1/data/hard")" = 2 ]
ok $? "d1: a hard link, a FIFO, a socket and a directory of mode 000 in its layer"
layer_is d1 "$upper_d1" "(the hard link once: find counts $(find "$upper_d1" -xdev | wc -l) names)"
wait_reads 3 "$dir" d1 bytes-layer
ok $? "reads go on: the FIFO and the socket were never opened"

# Files and directories made and removed in d1's layer all through
# several walks, until $T/stop.
in_d1 'import os, sys, time
i, end = 0, time.time() + 300
while not os.path.exists(sys.argv[1]) and time.time() < end:
    open("c%d" % i, "w").write("x" * 5000); os.mkdir("d%d" % i)
    if i >= 3: os.unlink("c%d" % (i - 3)); os.rmdir("d%d" % (i - 3))
    i += 1
for j in range(max(0, i - 3), i): os.unlink("c%d" % j); os.rmdir("d%d" % j)
open(sys.argv[2], "w").write(str(i))' "$T/stop" "$T/churned" &
CLEANUPS+=("kill $! 2>/dev/null")
churn_from=$(date +%s)
wait_reads 16 "$dir" d1 bytes-layer
touch "$T/stop"
churn_to=$(date +%s)
wait_until test -e "$T/churned"
ok $? "d1: $(cat "$T/churned") files and directories made and removed through $(csv_count "$dir" d1 bytes-layer) reads"
# A walk that ended during the churn: the age fell from one read to the next.
ages=$(cat "$dir"/csv/testhost/joule_cgroup-d1/duration-layer_age-* | awk -F, -v a="$churn_from" -v b="$churn_to" '
  $1 ~ /^[0-9]/ { if (last != "" && $2 < last && $1 >= a && $1 <= b) n++; last = $2 } END { print n + 0 }')
[ "$ages" -ge 1 ] && [ "$(loud_lines "$dir")" -eq 0 ]
ok $? "d1: $ages walks ended while files were made and removed, none failed (no WARNING or ERROR)" ||
  grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag
layer_is d1 "$upper_d1" "once the churn stopped"

# q1: 5 MiB more, seen without a walk.
head -c 5242880 /dev/zero >"$root_q1/more"
ok $? "q1: 5 MiB more"
quota_is "after 5 MiB more"

stop_collectd
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no WARNING or ERROR from the plugin" || grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag

teardown
left=$(find "$parent" -mindepth 1 -type d -name '*[0-9a-f]*' | grep -cE '/(libpod-)?[0-9a-f]{64}$' || true)
! mountpoint -q "$xfs" && ! kill -0 "$dockerd_pid" 2>/dev/null && [ "$left" -eq 0 ]
ok $? "every container, daemon and mount of the test gone ($left containers' cgroups left; in $((SECONDS - t_setup)) s)"
tap_done
