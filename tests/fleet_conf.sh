#!/usr/bin/env bash
# fleet_conf.sh - TAP test that the operator examples in conf/ work as
# written: each file is copied with its example addresses pointed at the
# loopback servers of tests/lib/fleet.sh and its FlushInterval cut to 1 s,
# then run by a real collectd:
#   - conf/influxdb.conf + conf/graphite.conf on one host ("single");
#   - conf/fleet-host.conf on "fleethost" sending to a second collectd
#     running conf/fleet-central.conf ("central"), which writes to both.
# Values are fed through unixsock in joule_cgroup's shapes, and each file's
# own joule_cgroup block runs too, with one line added (CgroupRoot, a copy
# of the Linux 6.12 fixture tree): the series the files' comments promise
# (the default set and the OOM kill counter of Collect "+events") arrive;
# and each file's block on this host's own tree logs no WARNING.
. "$(dirname "$0")/lib/common.sh"
# Ports apart from fleet_smoke.sh's, so both can run at once.
FLEET_PORT_OFFSET=${FLEET_PORT_OFFSET:-100}
. "$top_srcdir/tests/lib/fleet.sh"
CLEANUPS+=(fleet_stop_all)
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "influxd (Debian influxdb)" -- command -v influxd
need "carbon-cache (Debian graphite-carbon)" -- test -x /usr/bin/carbon-cache
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"

repo=$top_srcdir
tmp=$T
# The central's Listen port; fleet-host.conf's Server is rewritten to it.
CENTRAL_PORT=${FLEET_CENTRAL_PORT:-$((25927 + FLEET_PORT_OFFSET))}

tree="$tmp/tree"
cp -r "$FIXTURES/k6.12-debian" "$tree"
# One plugin directory (copies: collectd loads no symlink) for the stock
# plugins and the built one.
mkdir -p "$tmp/plugins"
cp "$COLLECTD_PLUGINDIR"/*.so "$tmp/plugins/"
cp "$PLUGIN_BUILDDIR/joule_cgroup.so" "$tmp/plugins/"

# render FILE: the conf file on stdout with loopback targets, 1 s flushes and
# the plugin reading the fixture tree.
render() {
	sed -e "s/\"influxdb.example.net\" \"25826\"/\"127.0.0.1\" \"$FLEET_INFLUX_COLLECTD_PORT\"/" \
		-e "s/\"graphite.example.net\"/\"127.0.0.1\"/" \
		-e "s/Port \"2003\"/Port \"$FLEET_CARBON_PORT\"/" \
		-e "s/\"collectd-central.example.net\" \"25826\"/\"127.0.0.1\" \"$CENTRAL_PORT\"/" \
		-e "s/Listen \"0.0.0.0\" \"25826\"/Listen \"127.0.0.1\" \"$CENTRAL_PORT\"/" \
		-e "s/FlushInterval 10/FlushInterval 1/" \
		-e "s|^<Plugin joule_cgroup>\$|&\n  CgroupRoot \"$tree\"|" "$1"
}

# globals NAME: what collectd.conf itself would hold, per instance.
globals() {
	cat <<-EOF
		Hostname "$1"
		FQDNLookup false
		Interval 1
		BaseDir "$tmp/$1"
		PIDFile "$tmp/$1/collectd.pid"
		PluginDir "$tmp/plugins"
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
		for f in "$@"; do
			case $f in
			# the second file of one host: its joule_cgroup block left out,
			# as the files' comments say (one block per collectd)
			*:shipping) render "$repo/conf/${f%:shipping}" |
				awk '/^LoadPlugin joule_cgroup/ { skip = 1 } !skip { print }
				     skip && /^<\/Plugin>/ { skip = 0 }' ;;
			*) render "$repo/conf/$f" ;;
			esac
		done
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
	start single influxdb.conf graphite.conf:shipping
check "single host: values accepted" feed single
check "single host: InfluxDB has joule_cgroup_value{host=single} = 0.5" \
	fleet_wait_for fleet_influx_between joule_cgroup_value \
	"host='single' AND instance='system.slice_web.service' AND type='gauge' AND type_instance='cpu_cores'" 0.5 0.5
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
	"host='fleethost' AND instance='system.slice_web.service' AND type='gauge' AND type_instance='cpu_cores'" 0.5 0.5
check "central -> InfluxDB: raw counter joule_cgroup_write{host=fleethost} arrives" \
	fleet_wait_for fleet_influx_between joule_cgroup_write \
	"host='fleethost' AND instance='system.slice_web.service' AND type='disk_octets'" 0 6000
check "central -> Graphite: collectd/fleethost/.../gauge/cpu_cores = 0.5" \
	fleet_wait_for fleet_whisper_between \
	collectd/fleethost/joule_cgroup/system_slice_web_service/gauge/cpu_cores 0.5 0.5

# The plugin's own series, as the files' comments say: the default set
# and memory.events (OOM kills counted), from the hosts and the central.
db="instance='system.slice_db.service'"
check "single host: InfluxDB has the plugin's db.service memory-current" \
	fleet_wait_for fleet_influx_between joule_cgroup_value \
	"host='single' AND $db AND type='memory' AND type_instance='current'" 71385088 71385088
check "single host: and its OOM kill counter (Collect \"events\")" \
	fleet_wait_for fleet_influx_between joule_cgroup_value \
	"host='single' AND $db AND type='derive' AND type_instance='memory_events_oom_kill'" 0 0
check "single host: Graphite has db.service's memory.current" \
	fleet_wait_for fleet_whisper_between \
	collectd/single/joule_cgroup/system_slice_db_service/memory/current 71385088 71385088
for h in fleethost central; do
	check "$h -> central -> InfluxDB: db.service memory-current and the OOM kill counter" \
		fleet_wait_for fleet_influx_between joule_cgroup_value \
		"host='$h' AND $db AND type='derive' AND type_instance='memory_events_oom_kill'" 0 0
done
check "fleethost -> central -> Graphite: db.service memory.current" \
	fleet_wait_for fleet_whisper_between \
	collectd/fleethost/joule_cgroup/system_slice_db_service/memory/current 71385088 71385088

rc=0
for name in single central fleethost; do
	if grep -Ei 'error|fail' "$tmp/$name/collectd.log" | sed "s/^/# $name: /" | grep .; then
		rc=1
	fi
done
ok "$rc" "no collectd logged an error"

# Each file's block on this host's own hierarchy (no CgroupRoot): the
# controllers a hybrid host binds to cgroup v1 are INFO lines, so the
# shipped files log no WARNING (tests/cli_check.sh: joule-cgroup check on
# each says the same).
for f in influxdb graphite prometheus fleet-host fleet-central; do
	d="$tmp/host-$f"
	mkdir -p "$d/csv"
	{
		conf_head "$d"
		printf 'PluginDir "%s"\n' "$PLUGIN_BUILDDIR"
		awk '/^LoadPlugin joule_cgroup/ { on = 1 } on { print }
		     on && /^<\/Plugin>/ { on = 0 }' "$repo/conf/$f.conf"
	} >"$d/collectd.conf"
	timeout 30 "${COLLECTD_ENV[@]}" "$COLLECTD_BIN" -T -C "$d/collectd.conf" >"$d/collectd.out" 2>&1
	[ "$(loud_lines "$d")" -eq 0 ] && grep -q 'joule_cgroup plugin: version' "$d/collectd.log"
	ok $? "conf/$f.conf's block on this host: no WARNING or ERROR from the plugin"
	grep -E '^\[(warning|error)\]' "$d/collectd.log" | diag
done

tap_done
