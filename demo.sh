#!/usr/bin/env bash
# The main job: collectd in the foreground with the joule_cgroup plugin on
# this machine's cgroups, every value printed to the terminal (csv plugin,
# DataDir stdout).  Installs what is missing, builds, runs until Ctrl-C
# (or for N seconds with --seconds N, or DEMO_SECONDS=N: `sudo
# DEMO_SECONDS=10 ./demo.sh`, since sudo drops what comes before it).
#   sudo ./demo.sh [--seconds N] [plugin config file, default conf/joule_cgroup.conf]
#   sudo ./demo.sh --vm [--seconds N] [plugin config file]
# --vm: the same in a VM booted from Debian's newest kernel of
# tests/vm/kernels.sh (tests/vm/vm-run.sh), where cgroup v2 has every
# controller, as on a systemd host, and a workload runs in
# demo.slice/work.service (a busy loop of O_DIRECT writes to the VM's disk,
# 64 MiB of memory): every value group shows, whatever this machine's
# layout.  Without a config file it collects everything, per device; it
# stops after DEMO_SECONDS (default 30).
set -euo pipefail
top=$(cd "$(dirname "$0")" && pwd)
vm=
while [ $# -gt 0 ]; do
  case $1 in
  --vm) vm=1; shift ;;
  --seconds)
    case ${2:-} in '' | *[!0-9]*) echo "demo.sh: --seconds takes a whole number" >&2; exit 2 ;; esac
    DEMO_SECONDS=$2; shift 2 ;;
  *) break ;;
  esac
done
if [ -n "$vm" ]; then
  "$top/scripts/deps.sh" --vm
  "$top/scripts/build.sh" >&2
  secs=${DEMO_SECONDS:-30}
  kernel=${VM_KERNEL:-$("$top/tests/vm/kernels.sh" | tail -n 1)}
  echo "booting $kernel (emulated: a few seconds)" >&2
  exec "$top/tests/vm/vm-run.sh" --kernel "$kernel" --timeout $((secs + 120)) -- \
    env DEMO_IN_VM=1 DEMO_SECONDS="$secs" DEMO_INTERVAL="${DEMO_INTERVAL:-2}" \
    "$top/demo.sh" ${1:+"$(realpath "$1")"}
fi

run=$(mktemp -d /tmp/joule-demo.XXXXXX)
trap 'rm -rf "$run"' EXIT
if [ -n "${DEMO_IN_VM:-}" ]; then
  # Inside the VM: built already; a workload in a cgroup of its own.
  w=/sys/fs/cgroup/demo.slice
  mkdir -p "$w/work.service"
  echo "+cpu +memory +io +pids" >"$w/cgroup.subtree_control"
  bash -c 'echo $$ >"$1/cgroup.procs"
    "$2" 64 >/dev/null &
    while :; do dd if=/dev/zero of=/dev/vda bs=1M count=8 oflag=direct status=none; done' \
    work "$w/work.service" "$top/_build/tests/memhog" &
  conf=${1:-$run/all.conf}
  cat >"$run/all.conf" <<'CONF'
LoadPlugin joule_cgroup
<Plugin joule_cgroup>
  ReportRoot true
  Select "**"
  Collect "cpu" "memory" "io" "pressure" "events" "pids"
  PerDevice true
</Plugin>
CONF
else
  conf=$(realpath "${1:-$top/conf/joule_cgroup.conf}")
  "$top/scripts/deps.sh"
  # A tree built already is brought up to date (make reconfigures when it
  # must); the test programs scripts/build.sh makes are for --vm only.
  if [ -f "$top/_build/Makefile" ]; then
    make -s -C "$top/_build" all >&2
  else
    "$top/scripts/build.sh" >&2
  fi
fi
cat >"$run/collectd.conf" <<CONF
Hostname "$(hostname)"
FQDNLookup false
Interval ${DEMO_INTERVAL:-2}
BaseDir "$run"
PIDFile "$run/collectd.pid"
TypesDB "/usr/share/collectd/types.db"
PluginDir "/usr/lib/collectd"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File STDERR
</Plugin>
LoadPlugin csv
<Plugin csv>
  DataDir stdout
</Plugin>
PluginDir "$top/_build/.libs"
Include "$conf"
CONF
echo "collectd with $conf; values below as PUTVAL lines, Ctrl-C to stop" >&2
if [ -n "${DEMO_SECONDS:-}" ]; then
  timeout -s TERM "$DEMO_SECONDS" /usr/sbin/collectd -f -C "$run/collectd.conf" || true
else
  /usr/sbin/collectd -f -C "$run/collectd.conf"
fi
