#!/usr/bin/env bash
# fleet_smoke.sh - TAP test of the fleet harness (tests/lib/fleet.sh) with
# collectd's stock plugins only: a real collectd sends through `network` to
# InfluxDB's collectd listener and through `write_graphite` to carbon-cache,
# all on 127.0.0.1, and we read the values back where operators would.
#
# Besides the `load` and `interface` plugins it feeds, through `unixsock`,
# value lists shaped like the joule_cgroup plugin's (plugin "joule_cgroup",
# types of docs/metrics.md) so the names written in docs/fleet.md are
# checked against the real servers, not remembered.
#
# Nothing in it needs root (CI runs it as root); it takes under 10 s.
# Packages: collectd-core influxdb graphite-carbon python3-whisper curl.
. "$(dirname "$0")/lib/common.sh"
. "$top_srcdir/tests/lib/fleet.sh"
CLEANUPS+=(fleet_stop_all)
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "influxd (Debian influxdb)" -- command -v influxd
need "carbon-cache (Debian graphite-carbon)" -- test -x /usr/bin/carbon-cache
need "curl" -- command -v curl

HOST=fleettest
tmp=$T

# influx_has_series KEY: SHOW SERIES lists exactly KEY (a line-protocol key).
influx_has_series() {
	fleet_influx_values collectd 'SHOW SERIES' | grep -Fqx -- "$1"
}
influx_is() { local v; v=$(fleet_influx_last "$1" "$2") && fleet_num_eq "$v" "$3"; }
# influx_pair_is M1 M2 WHERE V1 V2: both data sources of a 2-DS type.
influx_pair_is() { influx_is "$1" "$3" "$4" && influx_is "$2" "$3" "$5"; }

whisper_is() { local v; v=$(fleet_whisper_last "$1") && fleet_num_eq "$v" "$2"; }
# whisper_pair_is DIR DS1 DS2 V1 V2
whisper_pair_is() { whisper_is "$1/$2" "$4" && whisper_is "$1/$3" "$5"; }

# putval LINE...: send PUTVAL commands to collectd's unixsock; fail unless
# every one is answered "0 Success".
putval() {
	"$FLEET_PYTHON" - "$tmp/collectd.sock" "$@" <<-'EOF'
		import socket, sys
		s = socket.socket(socket.AF_UNIX)
		s.settimeout(5)
		s.connect(sys.argv[1])
		f = s.makefile("rw")
		bad = 0
		for line in sys.argv[2:]:
		    f.write(line + "\n")
		    f.flush()
		    answer = f.readline().strip()
		    if not answer.startswith("0 "):
		        print("# %s -> %s" % (line, answer))
		        bad += 1
		sys.exit(1 if bad else 0)
	EOF
}

# --- servers -----------------------------------------------------------------
fleet_start_influxdb "$tmp/influx"
ok $? "influxd answers /ping on 127.0.0.1:$FLEET_INFLUX_HTTP_PORT" || tap_done
fleet_start_carbon "$tmp/carbon"
ok $? "carbon-cache accepts on 127.0.0.1:$FLEET_CARBON_PORT" || tap_done

# --- collectd ----------------------------------------------------------------
# Where values go: fleet_collectd_outputs (tests/lib/fleet.sh).
cat >"$tmp/collectd.conf" <<EOF
Hostname "$HOST"
FQDNLookup false
Interval 1
BaseDir "$tmp"
PIDFile "$tmp/collectd.pid"
PluginDir "/usr/lib/collectd"
TypesDB "/usr/share/collectd/types.db"

LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$tmp/collectd.log"
  Timestamp true
</Plugin>

LoadPlugin load
LoadPlugin interface
<Plugin interface>
  Interface "lo"
</Plugin>

LoadPlugin unixsock
<Plugin unixsock>
  SocketFile "$tmp/collectd.sock"
  SocketGroup "root"
  SocketPerms "0600"
</Plugin>

$(fleet_collectd_outputs)
EOF

"$COLLECTD_BIN" -t -C "$tmp/collectd.conf" >"$tmp/collectd-t.out" 2>&1
ok $? "collectd accepts the generated config (collectd -t)" ||
  { diag <"$tmp/collectd-t.out"; tap_done; }

start_collectd "$tmp"
check "collectd runs and opens its unixsock" fleet_wait_for test -S "$tmp/collectd.sock"

# Fixtures with the shapes of docs/metrics.md: two DERIVE data sources
# (ps_cputime user/syst, disk_octets read/write), one GAUGE (gauge-cpu_cores,
# memory-current), a dotted systemd unit name and a long name cut to
# "<fnv hash>~<tail>" as instances. Sent three times, a second apart, so one
# lost UDP datagram cannot fail the test.
svc=system.slice_foo.service
hashed=1a2b3c4d~cri-containerd-0123abcd.scope
fixtures=(
	"PUTVAL \"$HOST/joule_cgroup-$svc/gauge-cpu_cores\" interval=1 N:0.75"
	"PUTVAL \"$HOST/joule_cgroup-$svc/ps_cputime\" interval=1 N:123456:65432"
	"PUTVAL \"$HOST/joule_cgroup-root/memory-current\" interval=1 N:123456789"
	"PUTVAL \"$HOST/joule_cgroup-$hashed/disk_octets\" interval=1 N:4096:8192"
)
rc=0
for round in 1 2 3; do
	putval "${fixtures[@]}" || rc=1
	((round == 3)) || sleep 1
done
ok "$rc" "unixsock accepts joule_cgroup-shaped value lists"

# --- InfluxDB: measurement <plugin>_<ds>, tags host/instance/type/type_instance
# (empty ones left out), one field "value"; DERIVE arrives as the raw counter.
# When the first value of a backend did not arrive in 20 s, waiting as long
# for each later one only makes a failing run slow: 1 s is enough then.
patience=$FLEET_WAIT_TRIES
before=$TAP_FAILED
check "influx: series load_shortterm,host=$HOST,type=load" \
	fleet_wait_for influx_has_series "load_shortterm,host=$HOST,type=load"
((TAP_FAILED == before)) || FLEET_WAIT_TRIES=5
check "influx: load_shortterm holds a plausible load (0..5000)" \
	fleet_wait_for fleet_influx_between load_shortterm "host='$HOST'" 0 5000
check "influx: 2-DS if_octets -> interface_rx,host=$HOST,instance=lo,type=if_octets" \
	fleet_wait_for influx_has_series "interface_rx,host=$HOST,instance=lo,type=if_octets"
check "influx: gauge-cpu_cores -> joule_cgroup_value{type=gauge,type_instance=cpu_cores} = 0.75" \
	fleet_wait_for influx_is joule_cgroup_value \
	"host='$HOST' AND instance='$svc' AND type='gauge' AND type_instance='cpu_cores'" 0.75
check "influx: ps_cputime user -> joule_cgroup_user{type=ps_cputime} = 123456" \
	fleet_wait_for influx_is joule_cgroup_user "instance='$svc' AND type='ps_cputime'" 123456
check "influx: ps_cputime syst -> joule_cgroup_syst{type=ps_cputime} = 65432" \
	fleet_wait_for influx_is joule_cgroup_syst "instance='$svc' AND type='ps_cputime'" 65432
check "influx: memory-current -> joule_cgroup_value{instance=root,type=memory,type_instance=current}" \
	fleet_wait_for influx_is joule_cgroup_value \
	"instance='root' AND type='memory' AND type_instance='current'" 123456789
check "influx: disk_octets of the hashed instance -> joule_cgroup_read / _write" \
	fleet_wait_for influx_pair_is joule_cgroup_read joule_cgroup_write \
	"instance='$hashed' AND type='disk_octets'" 4096 8192

# --- Graphite: collectd.<host>.<plugin>[.<plugin_instance>].<type>
# [.<type_instance>][.<ds> when the type has more than one DS], with "." and
# whitespace (and a few more characters) in each part replaced by "_".
g=collectd/$HOST
jc=$g/joule_cgroup
FLEET_WAIT_TRIES=$patience
before=$TAP_FAILED
check "graphite: $g/load/load/shortterm holds a plausible load" \
	fleet_wait_for fleet_whisper_between "$g/load/load/shortterm" 0 5000
((TAP_FAILED == before)) || FLEET_WAIT_TRIES=5
check "graphite: 2-DS if_octets -> $g/interface/lo/if_octets/rx" \
	fleet_wait_for fleet_whisper_between "$g/interface/lo/if_octets/rx" 0 1e18
check "graphite: $jc/system_slice_foo_service/gauge/cpu_cores = 0.75" \
	fleet_wait_for whisper_is "$jc/system_slice_foo_service/gauge/cpu_cores" 0.75
check "graphite: $jc/system_slice_foo_service/ps_cputime/user = 123456" \
	fleet_wait_for whisper_is "$jc/system_slice_foo_service/ps_cputime/user" 123456
check "graphite: $jc/system_slice_foo_service/ps_cputime/syst = 65432" \
	fleet_wait_for whisper_is "$jc/system_slice_foo_service/ps_cputime/syst" 65432
check "graphite: $jc/root/memory/current = 123456789" \
	fleet_wait_for whisper_is "$jc/root/memory/current" 123456789
check "graphite: '~' kept -> $jc/1a2b3c4d~cri-containerd-0123abcd_scope/disk_octets/{read,write}" \
	fleet_wait_for whisper_pair_is \
	"$jc/1a2b3c4d~cri-containerd-0123abcd_scope/disk_octets" read write 4096 8192

# --- the daemon itself ---------------------------------------------------------
check "collectd is still running" kill -0 "$COLLECTD_PID"
rc=0
if grep -Ei 'error|fail' "$tmp/collectd.log" >"$tmp/errors"; then
	rc=1
	sed 's/^/# /' "$tmp/errors"
fi
ok "$rc" "collectd logged no errors"

# carbon >= 1.1 reads "name;k=v" as a tagged series and files it under
# _tagged/ by hash: any file there means a name was mangled on the way.
stray() { [[ -z $(cd "$FLEET_WHISPER_DIR" && find . -name '*.wsp' ! -path './collectd/*') ]]; }
check "graphite: no .wsp file outside collectd/" stray

tap_done
