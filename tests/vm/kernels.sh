#!/usr/bin/env bash
# The kernels `make check-vm` boots, one version per line: $VM_KERNELS
# (space-separated) when set, else the kernels that Debian's meta packages
# linux-image-amd64 (the 6.1 series) and linux-image-6.12-amd64 point at.
# Prints nothing for a meta package that is not installed.
set -euo pipefail
if [ -n "${VM_KERNELS:-}" ]; then
  printf '%s\n' $VM_KERNELS
  exit 0
fi
for meta in linux-image-amd64 linux-image-6.12-amd64; do
  dpkg-query -W -f='${Status}|${Depends}\n' "$meta" 2>/dev/null |
    sed -n 's/^install ok installed|linux-image-\([^ ,]*\).*/\1/p'
done
