#!/usr/bin/env bash
# The joule-cgroup container image, built from Debian 12's packages with
# mmdebstrap: collectd-core, the libraries of its writers write_prometheus
# (libmicrohttpd12, libprotobuf-c1) and network (none beyond collectd-core),
# and the project's own .deb (scripts/deb.sh) with its dependencies.  The
# packages are extracted, not installed: no maintainer script runs, no apt,
# dpkg or shell comes with them, nothing to build with, no package list is
# left; /var/lib/dpkg/status lists each package with its version, as dpkg
# would, for the scanners that read it.  Documentation but copyright files,
# man pages, locales and glibc's iconv modules are left out.  Then the
# configuration of deploy/image/ and an OCI archive (scripts/lib/
# oci_archive.py) that `podman load` and `docker load` take, its image
# configuration the last stage of deploy/image/Containerfile.
#   scripts/image.sh [--deb FILE] OUT.tar      the archive (make image); made
#                                              again only when the .deb or a
#                                              file of deploy/image/ changed
#   scripts/image.sh [--deb FILE] --rootfs DIR the root file system only
#                                              (the Containerfile's stage)
# The only network it needs is Debian's package archive (IMAGE_MIRROR
# overrides mmdebstrap's default, deb.debian.org with its security and
# updates suites).  Run as root.  The image is named
# localhost/joule-cgroup:VERSION, VERSION the package's upstream version.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
here=$top/deploy/image
deb='' rootfs='' out=''
while [ $# -gt 0 ]; do
  case $1 in
    --deb) deb=$2; shift 2 ;;
    --rootfs) rootfs=$2; shift 2 ;;
    *) out=$1; shift ;;
  esac
done
[ -n "$out" ] || [ -n "$rootfs" ] ||
  { echo "usage: scripts/image.sh [--deb FILE] OUT.tar | --rootfs DIR" >&2; exit 2; }
command -v mmdebstrap >/dev/null ||
  { echo "scripts/image.sh: no mmdebstrap (Debian package mmdebstrap; scripts/deps.sh --tests)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "scripts/image.sh: run as root (mmdebstrap extracts as root)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/jc-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -n "$deb" ] || deb=$("$top/scripts/deb.sh" "${IMAGE_DEB_DIR:-$work/deb}")
# The archive's inputs: an archive made from the same ones is kept.
stamp=$(cat "$deb" "$0" "$top/scripts/lib/oci_archive.py" "$here/Containerfile" \
  "$here/collectd.conf" "$here"/collectd.conf.d/*.conf | sha256sum | cut -d' ' -f1)
if [ -n "$out" ] && [ -s "$out" ] && [ "$(cat "$out.inputs" 2>/dev/null)" = "$stamp" ]; then
  echo "$out: up to date"
  exit 0
fi
# Reproducible: every time in the image is at most the release's date.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l "$top/debian/changelog" -S Timestamp)}
export SOURCE_DATE_EPOCH
version=$(dpkg-deb -f "$deb" Version)
version=${version%-*}
# The packages the Containerfile names, and the .deb's own dependencies.
packages=$(sed -n 's/^ARG PACKAGES="\(.*\)"$/\1/p' "$here/Containerfile")
[ -n "$packages" ] || { echo "scripts/image.sh: no ARG PACKAGES=\"...\" in $here/Containerfile" >&2; exit 1; }
depends=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/[(|].*//; s/ //g' | grep .)

dir=${rootfs:-$work/rootfs}
rm -rf "$dir"
# The extract hook runs while the downloaded packages are still there:
# the .deb extracted beside them, a status entry for each.
cat >"$work/extract-hook" <<'HOOK'
#!/bin/sh
set -e
root=$1
dpkg-deb -x "$JC_DEB" "$root"
mkdir -p "$root/var/lib/dpkg"
for d in "$root"/var/cache/apt/archives/*.deb "$JC_DEB"; do
  dpkg-deb -f "$d" Package Source Version Architecture Maintainer Installed-Size Depends Pre-Depends Multi-Arch Homepage Description |
    awk 'NR == 1 { print; print "Status: install ok installed"; next } { print }'
  echo
done >"$root/var/lib/dpkg/status"
HOOK
chmod +x "$work/extract-hook"
# shellcheck disable=SC2086
JC_DEB=$deb mmdebstrap --variant=extract --quiet \
  --include="$(echo $packages $depends | tr ' ' ',')" \
  --extract-hook="$work/extract-hook \"\$1\"" \
  --format=directory bookworm "$dir" ${IMAGE_MIRROR:-} >"$work/mmdebstrap.log" 2>&1 ||
  { cat "$work/mmdebstrap.log" >&2; exit 1; }

# What a container never uses.
find "$dir/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
find "$dir/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$dir/usr/share/man" "$dir/usr/share/locale" "$dir/usr/share/lintian" \
  "$dir/usr/share/bash-completion" "$dir/usr/lib/x86_64-linux-gnu/gconv" \
  "$dir/var/cache/apt" "$dir/var/lib/apt" "$dir/var/log"/* "$dir/etc/apt"
find "$dir/dev" -mindepth 1 -delete
# collectd's configuration; the package's disabled snippet gives way to
# the image's files.
rm -f "$dir/etc/collectd/collectd.conf.d/joule_cgroup.conf"
install -d "$dir/etc/collectd/collectd.conf.d" "$dir/var/lib/collectd" "$dir/proc" "$dir/sys" "$dir/tmp"
chmod 1777 "$dir/tmp"
install -m 0644 "$here/collectd.conf" "$dir/etc/collectd/collectd.conf"
install -m 0644 "$here"/collectd.conf.d/*.conf "$dir/etc/collectd/collectd.conf.d/"
[ -z "$rootfs" ] || exit 0

ref=localhost/joule-cgroup:$(echo "$version" | tr -c 'A-Za-z0-9_.\n-' '-')
mkdir -p "$(dirname "$out")"
rm -f "$out.inputs"
python3 "$top/scripts/lib/oci_archive.py" "$dir" "$here/Containerfile" "$ref" "$version" "$out"
echo "$stamp" >"$out.inputs"
