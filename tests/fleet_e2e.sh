#!/usr/bin/env bash
# Fleet forwarding end to end: the real collectd with the built plugin sends
# through `network` to InfluxDB 1.x (its collectd listener) and through
# `write_graphite` to carbon-cache, all on 127.0.0.1.  One collectd reads a
# Kubernetes fixture tree with known values, another the real kernel's
# root; the known figures must arrive intact under the measurement, tag and
# Graphite path names the README documents, a long hashed instance and a
# disk_octets read/write pair included.  Servers and data go at the end.
. "$(dirname "$0")/lib/common.sh"
FLEET_PORT_OFFSET=200
. "$top_srcdir/tests/lib/fleet.sh"
CLEANUPS+=(fleet_stop_all)
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
need "influxd (Debian influxdb)" -- command -v influxd
need "carbon-cache (Debian graphite-carbon)" -- test -x /usr/bin/carbon-cache
need "curl" -- command -v curl
need "a cgroup2 mount" -- test -n "$mnt"

fleet_start_influxdb "$T/influx" || { ok 1 "InfluxDB started on 127.0.0.1"; tap_done; }
fleet_start_carbon "$T/carbon" || { ok 1 "carbon-cache started on 127.0.0.1"; tap_done; }
ok 0 "InfluxDB and carbon-cache listen on 127.0.0.1"

fixture="$T/k8s"
cp -r "$FIXTURES/k6.8-kubernetes" "$fixture"
fleet_plugin_conf "$T/fixturehost" fixturehost "$(fleet_collectd_outputs)" "  CgroupRoot \"$fixture\"
  Select \"kubepods.slice/**/*.scope\"
  Select \"system.slice/*.service\""
fleet_plugin_conf "$T/kernelhost" kernelhost "$(fleet_collectd_outputs)" "  CgroupRoot \"$mnt\"
  Select \"joule-nothing-$$\""
start_collectd "$T/fixturehost"
pid_fixture=$COLLECTD_PID
start_collectd "$T/kernelhost"
pid_kernel=$COLLECTD_PID

long="kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pode63e6211_e9ee_5ea2_9453_af137f4472e7.slice/cri-containerd-26eda36863810f1f00f42af8622f014140678f680c4388dce8fcb3a4fac08a4b.scope"
inst=$(python3 "$top_srcdir/tests/lib/csv_expect.py" --instances \
  "$FIXTURES/expected/k6.8-kubernetes.txt" 'kubepods.slice/**/*.scope' | tr ' ' '\n' | grep '^b2b77a52~')
graphite_inst=$(echo "$inst" | tr '.' '_')

# influx_last MEASUREMENT TAG-CONDITIONS: last value, retried until present.
influx_last() {
  fleet_wait_for fleet_influx_values collectd \
    "SELECT last(value) FROM \"$1\" WHERE $2" >/dev/null 2>&1 || return 1
  fleet_influx_values collectd "SELECT last(value) FROM \"$1\" WHERE $2" | tail -n 1
}
whisper_last() {
  fleet_wait_for fleet_whisper_last "$1" >/dev/null 2>&1 || return 1
  fleet_whisper_last "$1"
}

q_long="host='fixturehost' AND instance='$inst'"
v=$(influx_last joule_cgroup_value "$q_long AND type='memory' AND type_instance='current'")
fleet_num_eq "$v" 1903333376
ok $? "InfluxDB joule_cgroup_value{instance=$inst,type=memory,type_instance=current} = $v"
v=$(influx_last joule_cgroup_read "$q_long AND type='disk_octets'")
fleet_num_eq "$v" 2147483648
ok $? "InfluxDB joule_cgroup_read{type=disk_octets} = $v (io.stat rbytes summed)"
v=$(influx_last joule_cgroup_write "$q_long AND type='disk_octets'")
fleet_num_eq "$v" 3221225472
ok $? "InfluxDB joule_cgroup_write{type=disk_octets} = $v"
v=$(influx_last joule_cgroup_user "$q_long AND type='ps_cputime'")
fleet_num_eq "$v" 654321098
ok $? "InfluxDB joule_cgroup_user{type=ps_cputime} = $v"
v=$(influx_last joule_cgroup_value "host='fixturehost' AND instance='system.slice_kubelet.service' AND type='memory' AND type_instance='current'")
[ -n "$v" ]
ok $? "InfluxDB has system.slice_kubelet.service memory-current ($v)"

g="collectd/fixturehost/joule_cgroup/$graphite_inst"
v=$(whisper_last "$g/memory/current")
fleet_num_eq "$v" 1903333376
ok $? "Graphite collectd.fixturehost.joule_cgroup.$graphite_inst.memory.current = $v"
v=$(whisper_last "$g/disk_octets/read")
fleet_num_eq "$v" 2147483648
ok $? "Graphite ...disk_octets.read = $v"
v=$(whisper_last "$g/disk_octets/write")
fleet_num_eq "$v" 3221225472
ok $? "Graphite ...disk_octets.write = $v"
v=$(whisper_last "$g/ps_cputime/syst")
fleet_num_eq "$v" 222222112
ok $? "Graphite ...ps_cputime.syst = $v"

v=$(influx_last joule_cgroup_user "host='kernelhost' AND instance='root' AND type='ps_cputime'")
[ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v > 0) }'
ok $? "InfluxDB: the real kernel's root cgroup CPU time (user) arrives ($v)"
v=$(whisper_last "collectd/kernelhost/joule_cgroup/root/gauge/cpu_cores")
[ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v >= 0 && v <= 64) }'
ok $? "Graphite: the real kernel's root gauge.cpu_cores arrives ($v)"
[ "$(loud_lines "$T/fixturehost")" -eq 0 ] && [ "$(loud_lines "$T/kernelhost")" -eq 0 ]
ok $? "no WARNING or ERROR from the plugin on either host"
tap_done
