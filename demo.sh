#!/usr/bin/env bash
# The main job: collectd in the foreground with the joule_cgroup plugin on
# this machine's cgroups, every value printed to the terminal (csv plugin,
# DataDir stdout).  Installs what is missing, builds, runs until Ctrl-C
# (or for DEMO_SECONDS seconds when that is set).
#   sudo ./demo.sh [plugin config file, default conf/joule_cgroup.conf]
set -euo pipefail
top=$(cd "$(dirname "$0")" && pwd)
conf=$(realpath "${1:-$top/conf/joule_cgroup.conf}")
"$top/scripts/deps.sh"
"$top/scripts/build.sh" >&2

run=$(mktemp -d /tmp/joule-demo.XXXXXX)
trap 'rm -rf "$run"' EXIT
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
