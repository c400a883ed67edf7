#!/usr/bin/env bash
# Builds the initramfs of the test VM for one installed Debian kernel:
# busybox-static, the guest's /init (tests/vm/init) and the modules that
# kernel needs to reach its disks and the host's 9p shares (virtio PCI,
# virtio_blk, 9p over virtio) and the veth driver (network namespaces
# joined to the root one: tests/kernel_net.sh), uncompressed, with their
# load order.
#   tests/vm/initramfs.sh VERSION OUTPUT.cpio.gz
# Modules come from /lib/modules/VERSION, resolved with its modules.dep;
# a driver built into the kernel (modules.builtin) needs nothing.
set -euo pipefail
ver=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
moddir=/lib/modules/$ver
busybox=${VM_BUSYBOX:-/bin/busybox}
wanted="virtio_pci virtio_blk 9pnet_virtio 9p veth"

[ -d "$moddir" ] || { echo "initramfs.sh: no $moddir (kernel $ver not installed)" >&2; exit 1; }
[ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
  { echo "initramfs.sh: $busybox is not a static busybox (Debian package busybox-static)" >&2; exit 1; }

stage=$(mktemp -d "${TMPDIR:-/tmp}/jc-initramfs.XXXXXX")
trap 'rm -rf "$stage" "$out.$$"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,root,out,lib/modules}
cp "$busybox" "$stage/bin/busybox"
cp "$here/init" "$stage/init"
chmod 755 "$stage/init"

# modules.dep: "path: dep-path dep-path ...", paths relative to $moddir,
# every dependency listed (transitively).  A module goes after its
# dependencies; each is taken once.
declare -A dep_of=() path_of=() taken=()
while IFS=: read -r path deps; do
  name=${path##*/}
  dep_of[${name%%.ko*}]=$deps
  path_of[${name%%.ko*}]=$path
done <"$moddir/modules.dep"
order=()
add() { # add MODULE-PATH
  local name=${1##*/} d
  name=${name%%.ko*}
  [ -z "${taken[$name]:-}" ] || return 0
  taken[$name]=1
  for d in ${dep_of[$name]}; do add "$d"; done
  order+=("$1")
}
for m in $wanted; do
  if [ -n "${path_of[$m]:-}" ]; then
    add "${path_of[$m]}"
  elif ! grep -q "/$m\.ko" "$moddir/modules.builtin"; then
    echo "initramfs.sh: kernel $ver has no module $m" >&2
    exit 1
  fi
done

for path in "${order[@]}"; do
  name=${path##*/}
  base=${name%%.ko*}.ko
  case "$name" in
    *.ko) cp "$moddir/$path" "$stage/lib/modules/$base" ;;
    *.ko.xz) xz -dc "$moddir/$path" >"$stage/lib/modules/$base" ;;
    *.ko.zst) zstd -qdc "$moddir/$path" >"$stage/lib/modules/$base" ;;
    *.ko.gz) gzip -dc "$moddir/$path" >"$stage/lib/modules/$base" ;;
    *) echo "initramfs.sh: unknown module format $name" >&2; exit 1 ;;
  esac
  echo "$base" >>"$stage/lib/modules/order"
done
touch "$stage/lib/modules/order"

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
  cpio --null -o -H newc --quiet -R 0:0) | gzip -1 >"$out.$$"
mv "$out.$$" "$out"
