#!/usr/bin/env bash
# fleet_conf.sh - TAP test that the operator examples in conf/ work as
# written: each file is copied with its example addresses pointed at the
# loopback servers of tests/lib/fleet.sh and its FlushInterval cut to 1 s,
# then run by a real collectd:
#   - conf/influxdb.conf + conf/graphite.conf on one host ("single");
#   - conf/fleet-host.conf on "fleethost" sending to a second collectd
#     running conf/fleet-central.conf ("central"), which writes to both.
# Values are fed through unixsock in joule_cgroup's shapes. The joule_cgroup
# blocks are cut out: this test is about the shipping, and runs before the
# plugin is built (the end-to-end test of the plugin loads it for real).
. "$(dirname "$0")/lib/common.sh"
# Ports apart from fleet_smoke.sh's, so both can run at once.
FLEET_PORT_OFFSET=${FLEET_PORT_OFFSET:-100}
. "$top_srcdir/tests/lib/fleet.sh"
CLEANUPS+=(fleet_stop_all)
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "influxd (Debian influxdb)" -- command -v influxd
need "carbon-cache (Debian graphite-carbon)" -- test -x /usr/bin/carbon-cache

repo=$top_srcdir
tmp=$T
# The central's Listen port; fleet-host.conf's Server is rewritten to it.
CENTRAL_PORT=${FLEET_CENTRAL_PORT:-$((25927 + FLEET_PORT_OFFSET))}

# render FILE: the conf file on stdout with loopback targets, 1 s flushes and
# no joule_cgroup block (from "LoadPlugin joule_cgroup" to its </Plugin>).
render() {
	sed -e "s/\"influxdb.example.net\" \"25826\"/\"127.0.0.1\" \"$FLEET_INFLUX_COLLECTD_PORT\"/" \
		-e "s/\"graphite.example.net\"/\"127.0.0.1\"/" \
		-e "s/Port \"2003\"/Port \"$FLEET_CARBON_PORT\"/" \
		-e "s/\"collectd-central.example.net\" \"25826\"/\"127.0.0.1\" \"$CENTRAL_PORT\"/" \
		-e "s/Listen \"0.0.0.0\" \"25826\"/Listen \"127.0.0.1\" \"$CENTRAL_PORT\"/" \
		-e "s/FlushInterval 10/FlushInterval 1/" "$1" |
		awk '/^LoadPlugin joule_cgroup/ { skip = 1 }
		     !skip { print }
		     skip && /^<\/Plugin>/ { skip = 0 }'
}

# globals NAME: what collectd.conf itself would hold, per instance.
globals() {
	cat <<-EOF
		Hostname "$1"
		FQDNLookup false
		Interval 1
		BaseDir "$tmp/$1"
		PIDFile "$tmp/$1/collectd.pid"
		PluginDir "/usr/lib/collectd"
		TypesDB "/usr/share/collectd/types.db"
		LoadPlugin logfile
		<Plugin logfile>
		  LogLevel info
		  File "$tmp/$1/collectd.log"
		</Plugin>
		LoadPlugin unixsock
		<Plugin unixsock>
		  SocketFile "$tmp/$1/collectd.sock"
		  SocketGroup "root"
		  SocketPerms "0600"
		</Plugin>
	EOF
}

# start NAME CONF...: write NAME's collectd.conf from the globals and the
# rendered files, check it, run it until its socket is there.
start() {
	local name=$1
	shift
	mkdir -p "$tmp/$name"
	{
		globals "$name"
		for f in "$@"; do render "$repo/conf/$f"; done
	} >"$tmp/$name/collectd.conf"
	"$COLLECTD_BIN" -t -C "$tmp/$name/collectd.conf" >"$tmp/$name/t.out" 2>&1 || {
		diag <"$tmp/$name/t.out"
		return 1
	}
	start_collectd "$tmp/$name"
	fleet_wait_for test -S "$tmp/$name/collectd.sock"
}

# feed NAME: four rounds, a second apart, of a gauge and a counter growing
# by 1000 per round, as joule_cgroup would dispatch them.
feed() {
	"$FLEET_PYTHON" - "$tmp/$1/collectd.sock" "$1" <<-'EOF'
		import socket, sys, time
		s = socket.socket(socket.AF_UNIX)
		s.settimeout(5)
		s.connect(sys.argv[1])
		f = s.makefile("rw")
		host, inst = sys.argv[2], "system.slice_web.service"
		for i in range(4):
		    for line in (
		        f'PUTVAL "{host}/joule_cgroup-{inst}/gauge-cpu_cores" interval=1 N:0.5',
		        f'PUTVAL "{host}/joule_cgroup-{inst}/disk_octets" interval=1 N:{1000 * i}:{2000 * i}',
		    ):
		        f.write(line + "\n")
		        f.flush()
		        if not f.readline().startswith("0 "):
		            sys.exit("rejected: " + line)
		    if i < 3:
		        time.sleep(1)
	EOF
}

{ fleet_start_influxdb "$tmp/influx" && fleet_start_carbon "$tmp/carbon"; }
ok $? "influxd and carbon-cache are up on 127.0.0.1" || tap_done

# --- conf/influxdb.conf + conf/graphite.conf -----------------------------------
check "single host: influxdb.conf + graphite.conf load in collectd" \
	start single influxdb.conf graphite.conf
check "single host: values accepted" feed single
check "single host: InfluxDB has joule_cgroup_value{host=single} = 0.5" \
	fleet_wait_for fleet_influx_between joule_cgroup_value \
	"host='single' AND type='gauge' AND type_instance='cpu_cores'" 0.5 0.5
# StoreRates true: 1000 bytes per ~1 s round -> about 1000 B/s.
check "single host: Graphite has the disk_octets read rate (~1000 B/s)" \
	fleet_wait_for fleet_whisper_between \
	collectd/single/joule_cgroup/system_slice_web_service/disk_octets/read 500 2000

# --- conf/fleet-central.conf <- conf/fleet-host.conf ------------------------------
check "central: fleet-central.conf loads in collectd" start central fleet-central.conf
check "fleet host: fleet-host.conf loads in collectd" start fleethost fleet-host.conf
check "fleet host: values accepted" feed fleethost
check "central -> InfluxDB: joule_cgroup_value{host=fleethost} = 0.5 (Forward true)" \
	fleet_wait_for fleet_influx_between joule_cgroup_value \
	"host='fleethost' AND type='gauge' AND type_instance='cpu_cores'" 0.5 0.5
check "central -> InfluxDB: raw counter joule_cgroup_write{host=fleethost} arrives" \
	fleet_wait_for fleet_influx_between joule_cgroup_write \
	"host='fleethost' AND type='disk_octets'" 0 6000
check "central -> Graphite: collectd/fleethost/.../gauge/cpu_cores = 0.5" \
	fleet_wait_for fleet_whisper_between \
	collectd/fleethost/joule_cgroup/system_slice_web_service/gauge/cpu_cores 0.5 0.5

rc=0
for name in single central fleethost; do
	if grep -Ei 'error|fail' "$tmp/$name/collectd.log" | sed "s/^/# $name: /" | grep .; then
		rc=1
	fi
done
ok "$rc" "no collectd logged an error"

tap_done
