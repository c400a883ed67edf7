#!/usr/bin/env bash
# fleet_smoke.sh - TAP test of the fleet harness (tests/lib/fleet.sh) with
# collectd's stock plugins only: a real collectd sends through `network` to
# InfluxDB's collectd listener and through `write_graphite` to carbon-cache,
# all on 127.0.0.1, and we read the values back where operators would.
#
# Besides the `load` and `interface` plugins it feeds, through `unixsock`,
# value lists shaped like the joule_cgroup plugin's (plugin "joule_cgroup",
# SPEC section 3 types) so the names written in tests/fleet_naming.md are
# checked against the real servers, not remembered.
#
# Nothing in it needs root (CI runs it as root); it takes under 10 s.
# Packages: collectd-core influxdb graphite-carbon python3-whisper curl.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/fleet.sh
. "$here/lib/fleet.sh"

COLLECTD=${COLLECTD:-/usr/sbin/collectd}
HOST=fleettest

tmp=$(mktemp -d)
collectd_pid=

cleanup() {
	set +e
	if [[ -n $collectd_pid ]]; then
		kill -TERM "$collectd_pid" 2>/dev/null
		for ((i = 0; i < 50; i++)); do
			kill -0 "$collectd_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$collectd_pid" 2>/dev/null
		wait "$collectd_pid" 2>/dev/null
		collectd_pid=
	fi
	fleet_stop_all
	rm -rf -- "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# --- TAP -------------------------------------------------------------------
n=0
failed=0
PLAN=23
echo "1..$PLAN"

ok() { # ok STATUS DESCRIPTION
	n=$((n + 1))
	if [[ $1 == 0 ]]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# check DESCRIPTION CMD...: one test point from a command's exit status.
check() {
	local desc=$1 rc=0
	shift
	"$@" || rc=$?
	ok "$rc" "$desc"
}

# bail DESCRIPTION: the rest cannot run; report the remaining points failed.
bail() {
	echo "# $1; skipping the rest"
	while ((n < PLAN)); do ok 1 "not run: $1"; done
	exit 1
}

# --- small helpers -----------------------------------------------------------
num_eq() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 == b + 0) }'; }
num_between() { awk -v v="$1" -v lo="$2" -v hi="$3" \
	'BEGIN { exit !(v ~ /^-?[0-9.e+-]+$/ && v + 0 >= lo && v + 0 <= hi) }'; }

# influx_has_series KEY: SHOW SERIES lists exactly KEY (a line-protocol key).
influx_has_series() {
	fleet_influx_values collectd 'SHOW SERIES' | grep -Fqx -- "$1"
}

# influx_last MEASUREMENT WHERE: the newest "value" of the matching series.
influx_last() {
	fleet_influx_values collectd \
		"SELECT last(value) FROM \"$1\" WHERE $2" | tail -n 1
}
influx_is() { local v; v=$(influx_last "$1" "$2") && num_eq "$v" "$3"; }
influx_between() {
	local v
	v=$(influx_last "$1" "$2") && num_between "$v" "$3" "$4"
}
# influx_pair_is M1 M2 WHERE V1 V2: both data sources of a 2-DS type.
influx_pair_is() { influx_is "$1" "$3" "$4" && influx_is "$2" "$3" "$5"; }

whisper_is() { local v; v=$(fleet_whisper_last "$1") && num_eq "$v" "$2"; }
whisper_between() {
	local v
	v=$(fleet_whisper_last "$1") && num_between "$v" "$2" "$3"
}
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
rc=0
fleet_start_influxdb "$tmp/influx" || rc=$?
ok "$rc" "influxd answers /ping on 127.0.0.1:$FLEET_INFLUX_HTTP_PORT"
((rc == 0)) || bail "no InfluxDB"
rc=0
fleet_start_carbon "$tmp/carbon" || rc=$?
ok "$rc" "carbon-cache accepts on 127.0.0.1:$FLEET_CARBON_PORT"
((rc == 0)) || bail "no carbon-cache"

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

rc=0
"$COLLECTD" -t -C "$tmp/collectd.conf" >"$tmp/collectd-t.out" 2>&1 || rc=$?
ok "$rc" "collectd accepts the generated config (collectd -t)"
((rc == 0)) || { sed 's/^/# /' "$tmp/collectd-t.out"; bail "bad collectd config"; }

"$COLLECTD" -f -C "$tmp/collectd.conf" >"$tmp/collectd.out" 2>&1 &
collectd_pid=$!
check "collectd runs and opens its unixsock" fleet_wait_for test -S "$tmp/collectd.sock"

# Fixtures with the shapes of SPEC section 3: two DERIVE data sources
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
	putval "${fixtures[@]}" || rc=$?
	((round == 3)) || sleep 1
done
ok "$rc" "unixsock accepts joule_cgroup-shaped value lists"

# --- InfluxDB: measurement <plugin>_<ds>, tags host/instance/type/type_instance
# (empty ones left out), one field "value"; DERIVE arrives as the raw counter.
# When the first value of a backend did not arrive in 20 s, waiting as long
# for each later one only makes a failing run slow: 1 s is enough then.
patience=$FLEET_WAIT_TRIES
before=$failed
check "influx: series load_shortterm,host=$HOST,type=load" \
	fleet_wait_for influx_has_series "load_shortterm,host=$HOST,type=load"
((failed == before)) || FLEET_WAIT_TRIES=5
check "influx: load_shortterm holds a plausible load (0..5000)" \
	fleet_wait_for influx_between load_shortterm "host='$HOST'" 0 5000
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
before=$failed
check "graphite: $g/load/load/shortterm holds a plausible load" \
	fleet_wait_for whisper_between "$g/load/load/shortterm" 0 5000
((failed == before)) || FLEET_WAIT_TRIES=5
check "graphite: 2-DS if_octets -> $g/interface/lo/if_octets/rx" \
	fleet_wait_for whisper_between "$g/interface/lo/if_octets/rx" 0 1e18
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
check "collectd is still running" kill -0 "$collectd_pid"
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

if ((n != PLAN)); then
	echo "# planned $PLAN tests but ran $n"
	failed=$((failed + 1))
fi
echo "# $((n - failed)) passed, $failed failed"
((failed == 0))
