#!/usr/bin/env bash
# Runs one command as root in a VM booted from an installed Debian kernel,
# with every cgroup v2 controller, and exits with the command's status.
#
#   tests/vm/vm-run.sh [--kernel VERSION] [--timeout SECONDS] [--mem MIB]
#                      [--disk MIB] [--env NAME=VALUE]... -- CMD [ARG...]
#
# The VM (qemu, software emulation, no network) sees this machine's / read-
# only, has its own tmpfs on /tmp, /run, /var/lib, /var/tmp, /var/log and
# /root (the project's directories below these stay visible), cgroup2 at
# /sys/fs/cgroup with "+cpu +memory +io +pids" in the root's subtree_control,
# pressure accounting (psi=1) and a sparse scratch disk /dev/vda of --disk
# MiB (default 256; 0 for none).  CMD runs with bash in the current
# directory (/ if the VM cannot see it), standard input from /dev/null, and
# its standard output and error come back here as they are written.
#
# Exit status: CMD's; 124 when the VM ran out of time (--timeout, default
# 600 s; the VM is then killed), 125 when it stopped without CMD's status
# (the kernel console's last lines go to stderr).  No VM outlives this
# script.  The environment inside is empty but for PATH, HOME=/root,
# TERM=dumb, the --env values, and these, when set here: top_srcdir,
# top_builddir, COLLECTD_BIN, COLLECTD_PLUGINDIR, JC_SANITIZE, CI, and
# every JC_* variable.
#
# Defaults from the environment: VM_TIMEOUT, VM_MEM (1024), VM_DISK_MIB,
# VM_SMP (2 CPUs), VM_ACCEL (tcg,thread=multi: KVM hangs early boot here).
# Kernel: --kernel, else $VM_KERNEL, else the newest /boot/vmlinuz-*.  Its
# initramfs is built once and cached in $top_builddir/vm/ (tests/vm/
# initramfs.sh).  VM_KEEP=1 keeps the run directory (share, console log).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/_build}"

usage() { sed -n 's/^#   //p' "$0" >&2; exit 2; }
kernel=${VM_KERNEL:-} timeout=${VM_TIMEOUT:-600} mem=${VM_MEM:-1024} disk=${VM_DISK_MIB:-256}
envs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel) kernel=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --mem) mem=$2; shift 2 ;;
    --disk) disk=$2; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
[ $# -gt 0 ] || usage
if [ -z "$kernel" ]; then
  kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sed 's|^/boot/vmlinuz-||' | sort -V | tail -n 1)
fi
vmlinuz=/boot/vmlinuz-$kernel
[ -r "$vmlinuz" ] || { echo "vm-run: no kernel $vmlinuz (install a linux-image package)" >&2; exit 125; }
qemu=$(command -v qemu-system-x86_64) ||
  { echo "vm-run: no qemu-system-x86_64 (Debian package qemu-system-x86)" >&2; exit 125; }

# The initramfs, rebuilt when its inputs changed.
initrd=$top_builddir/vm/initramfs-$kernel.cpio.gz
if [ ! -s "$initrd" ] || [ "$here/init" -nt "$initrd" ] ||
  [ "$here/initramfs.sh" -nt "$initrd" ] || [ "/lib/modules/$kernel/modules.dep" -nt "$initrd" ]; then
  "$here/initramfs.sh" "$kernel" "$initrd" || exit 125
fi

run=$(mktemp -d "${TMPDIR:-/tmp}/jc-vm.XXXXXX")
share=$run/share
mkdir "$share"
qpid='' watchdog='' tails=()
finish() {
  set +e
  [ -n "$qpid" ] && kill -KILL "$qpid" 2>/dev/null && wait "$qpid" 2>/dev/null
  [ -n "$watchdog" ] && kill "$watchdog" 2>/dev/null
  local t
  for t in "${tails[@]}"; do kill "$t" 2>/dev/null; done
  if [ -n "${VM_KEEP:-}" ]; then echo "vm-run: kept $run" >&2; else rm -rf "$run"; fi
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The command, as a bash script the VM runs.
{
  echo "cd $(printf %q "$PWD") 2>/dev/null || { echo \"vm-run: $(printf %q "$PWD") is not visible in the VM; running in /\" >&2; cd /; }"
  for name in top_srcdir top_builddir COLLECTD_BIN COLLECTD_PLUGINDIR JC_SANITIZE CI \
    $(compgen -e | grep '^JC_' || true); do
    [ -n "${!name+set}" ] && echo "export $name=$(printf %q "${!name}")"
  done
  for e in "${envs[@]}"; do echo "export ${e%%=*}=$(printf %q "${e#*=}")"; done
  printf 'exec'
  printf ' %q' "$@"
  echo
} >"$share/cmd"
: >"$share/stdout"
: >"$share/stderr"

# The VM has its own tmpfs on these directories.  A project directory
# (source, build, current) below one of them, as a clone in /tmp or /root
# is, would be hidden: the VM keeps it visible at its own path ("paths").
guest_tmpfs=(/tmp /run /var/lib /var/tmp /var/log /root)
for dir in "$top_srcdir" "$top_builddir" "$PWD"; do
  dir=$(realpath -e "$dir" 2>/dev/null) || continue
  for t in "${guest_tmpfs[@]}"; do
    case "$dir/" in "$t"/*) echo "$dir" ;; esac
  done
done | sort -u | awk '{ for (i = 1; i <= n; i++) if (index($0 "/", kept[i] "/") == 1) next
  kept[++n] = $0; print }' >"$share/paths"

drive=()
if [ "$disk" -gt 0 ]; then
  truncate -s "${disk}M" "$run/disk.img"
  drive=(-drive "file=$run/disk.img,format=raw,if=virtio,cache=unsafe")
  echo disk >"$share/devices"
fi

# boot: one VM run, bounded by $timeout; sets $elapsed.
boot() {
  "$qemu" -accel "${VM_ACCEL:-tcg,thread=multi}" -smp "${VM_SMP:-2}" -m "$mem" \
    -nographic -monitor none -serial "file:$run/console.log" -nic none -no-reboot \
    -kernel "$vmlinuz" -initrd "$initrd" \
    -append "console=ttyS0 psi=1 panic=-1 quiet loglevel=3 mitigations=off" \
    -fsdev "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap" \
    -device virtio-9p-pci,fsdev=root,mount_tag=root \
    -fsdev "local,id=out,path=$share,security_model=none" \
    -device virtio-9p-pci,fsdev=out,mount_tag=out \
    "${drive[@]}" </dev/null >"$run/qemu.log" 2>&1 &
  qpid=$!
  # Bounded whatever happens to this script: the watchdog ends the VM.  It
  # holds none of our output open (a reader of it would wait for it).
  (
    trap 'kill "$s" 2>/dev/null; exit 0' TERM
    sleep "$timeout" &
    s=$!
    wait "$s"
    kill -TERM "$qpid" 2>/dev/null
    sleep 5 &
    s=$!
    wait "$s"
    kill -KILL "$qpid" 2>/dev/null
  ) </dev/null >/dev/null 2>&1 &
  watchdog=$!

  tail -f -s 0.2 --pid="$qpid" -n +1 "$share/stdout" &
  tails+=($!)
  tail -f -s 0.2 --pid="$qpid" -n +1 "$share/stderr" >&2 &
  tails+=($!)

  local start=$SECONDS t
  wait "$qpid" 2>/dev/null || true
  qpid=''
  elapsed=$((SECONDS - start))
  kill "$watchdog" 2>/dev/null
  watchdog=''
  for t in "${tails[@]}"; do wait "$t" 2>/dev/null || true; done
  tails=()
}

console_tail() {
  echo "vm-run: last lines of the kernel console and of qemu:" >&2
  tail -n 20 "$run/console.log" "$run/qemu.log" 2>/dev/null | sed 's/^/  /' >&2
}

boot
# A kernel that died before the command started (emulation makes early
# boot racy now and then: seen once in a few hundred boots) gets a second
# boot; a command that started is never run twice.
if [ ! -e "$share/started" ] && [ "$elapsed" -lt "$timeout" ]; then
  echo "vm-run: the VM ($kernel) died while booting; booting it again" >&2
  console_tail
  boot
fi

if [ -s "$share/status" ]; then
  exit "$(cat "$share/status")"
fi
if [ "$elapsed" -ge "$timeout" ]; then
  echo "vm-run: the VM ($kernel) ran out of time after $timeout s; killed" >&2
  status=124
else
  echo "vm-run: the VM ($kernel) stopped without the command's exit status" >&2
  status=125
fi
console_tail
exit "$status"
