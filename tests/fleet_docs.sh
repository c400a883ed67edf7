#!/usr/bin/env bash
# Every query the docs show, run against the real receiver fed by the real
# collectd with the shipped configuration: conf/influxdb.conf into
# InfluxDB 1.x, conf/graphite.conf into carbon (whisper files),
# conf/prometheus.conf scraped by Prometheus, all on 127.0.0.1.  Each file
# is used as shipped but for its example address (loopback), its
# FlushInterval (1 s) and one added line, CgroupRoot, pointing the plugin
# at a copy of the Linux 6.12 fixture tree in which system.slice gets a
# memory limit (db.service at 95 % of it) and a CPU quota, db.service its
# own quota; once every receiver has the first values, db.service has an
# OOM kill, 500 throttled periods of 1000, 6 s of memory stalls and 10 MB
# read.  tests/fleet_docs.py then runs every ```promql, ```sql and
# ```graphite line of README.md and docs/ and checks each answer (a
# query no check knows fails).  conf/prometheus-alerts.yml goes through
# promtool check rules, and promtool test rules on series whose names
# and labels Prometheus scraped here: for the drops rule conf/prometheus.conf's
# collectd has two lines more, Collect "+network" and a ProcRoot in which
# db.service's first process is in a network namespace of its own with an
# eth0 that dropped packets; for the layer rule the one on the containerd
# host has Collect "+disk".
. "$(dirname "$0")/lib/common.sh"
FLEET_PORT_OFFSET=300
. "$top_srcdir/tests/lib/fleet.sh"
CLEANUPS+=(fleet_stop_all)
need_collectd
need "influxd (Debian influxdb)" -- command -v influxd
need "carbon-cache (Debian graphite-carbon)" -- test -x /usr/bin/carbon-cache
need "prometheus and promtool (Debian prometheus)" -- sh -c 'command -v prometheus && command -v promtool'
wp="$COLLECTD_PLUGINDIR/write_prometheus.so"
need "write_prometheus.so and its libraries (libmicrohttpd12 libprotobuf-c1)" -- \
  sh -c "test -f '$wp' && ! ldd '$wp' | grep -q 'not found'"
need "curl" -- command -v curl
HOST=docshost
DB=system.slice/db.service
py() { "$FLEET_PYTHON" -B "$top_srcdir/tests/fleet_docs.py" "$@"; }

# ---- the tree ----------------------------------------------------------------
tree="$T/tree"
cp -r "$FIXTURES/k6.12-debian" "$tree"
echo 75000000 >"$tree/system.slice/memory.max"
echo "200000 100000" >"$tree/system.slice/cpu.max"
echo "100000 100000" >"$tree/$DB/cpu.max"
# cpu.stat KEY VALUE...: db.service's cpu.stat with those keys rewritten in
# place, as the kernel's file changes under the plugin's descriptor.
cpu_stat() {
  local f="$tree/$DB/cpu.stat" text
  text=$(cat "$f")
  while [ $# -gt 1 ]; do
    text=$(printf '%s\n' "$text" | sed "s/^$1 .*/$1 $2/")
    shift 2
  done
  printf '%s\n' "$text" >"$f"
}
cpu_stat nr_periods 1000 nr_throttled 500 throttled_usec 40000

# One plugin directory (copies: collectd loads no symlink) for the stock
# plugins the files load and the built plugin.
mkdir -p "$T/plugins"
for p in logfile network write_graphite write_prometheus; do cp "$COLLECTD_PLUGINDIR/$p.so" "$T/plugins/"; done
cp "$PLUGIN_BUILDDIR/joule_cgroup.so" "$T/plugins/"

port_prom=$(fleet_free_port)
# render FILE: conf/FILE as shipped, pointed at loopback and the tree.
render() {
  sed -e "s/\"influxdb.example.net\" \"25826\"/\"127.0.0.1\" \"$FLEET_INFLUX_COLLECTD_PORT\"/" \
    -e "s/\"graphite.example.net\"/\"127.0.0.1\"/" \
    -e "s/Port \"2003\"/Port \"$FLEET_CARBON_PORT\"/" \
    -e "s/^  Port \"9103\"/  Port \"$port_prom\"/" -e 's/^  #Host "127.0.0.1"/  Host "127.0.0.1"/' \
    -e "s/FlushInterval 10/FlushInterval 1/" \
    -e "s|^<Plugin joule_cgroup>\$|&\n  CgroupRoot \"$tree\"|" "$top_srcdir/conf/$1"
}
# render_with FILE [LINES]: render FILE, LINES (with \n) after its
# CgroupRoot and write_graphite's PreserveSeparator on.
render_with() {
  if [ -z "$2" ]; then
    render "$1"
  else
    render "$1" | sed -e "s|^  CgroupRoot .*|&\n$2|" -e 's/^    #PreserveSeparator true/    PreserveSeparator true/'
  fi
}
# start NAME FILE [LINES]: a collectd running conf/FILE (and LINES in its
# joule_cgroup block).
start() {
  mkdir -p "$T/$1"
  cat >"$T/$1/collectd.conf" <<-EOF
	Hostname "$HOST"
	FQDNLookup false
	Interval 1
	BaseDir "$T/$1"
	PIDFile "$T/$1/collectd.pid"
	TypesDB "/usr/share/collectd/types.db"
	PluginDir "$T/plugins"
	LoadPlugin logfile
	<Plugin logfile>
	  LogLevel info
	  File "$T/$1/collectd.log"
	  Timestamp false
	  PrintSeverity true
	</Plugin>
	$(render_with "$2" "${3:-}")
	EOF
  grep -q "CgroupRoot \"$tree\"" "$T/$1/collectd.conf" || return 1
  start_collectd "$T/$1"
}

# A /proc for Collect "network": PID 1 in the host's network namespace,
# db.service's first process (185, its cgroup.procs) in another, whose
# net/dev has eth0 with received packets dropped.
mkdir -p "$T/proc/1/ns" "$T/proc/185/ns" "$T/proc/185/net"
ln -s 'net:[4026531840]' "$T/proc/1/ns/net"
ln -s 'net:[4026532301]' "$T/proc/185/ns/net"
echo "0::/system.slice/db.service" >"$T/proc/185/cgroup"
cat >"$T/proc/185/net/dev" <<'DEV'
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0
  eth0: 9180000    9000    0   42    0     0          0         0  4060000    4000    0    0    0     0       0          0
DEV
net_lines="  Collect \"+network\"\n  ProcRoot \"$T/proc\""

fleet_start_influxdb "$T/influx" && fleet_start_carbon "$T/carbon"
ok $? "InfluxDB and carbon-cache listen on 127.0.0.1" || tap_done
start influx influxdb.conf && start graphite graphite.conf && start prom prometheus.conf "$net_lines"
ok $? "collectd runs conf/influxdb.conf, conf/graphite.conf and conf/prometheus.conf (with Collect \"+network\" and a ProcRoot) with the plugin on the tree"
grep -q "Port \"$port_prom\"" "$T/prom/collectd.conf" && grep -q '^  Host "127.0.0.1"' "$T/prom/collectd.conf" &&
  grep -q "\"127.0.0.1\" \"$FLEET_INFLUX_COLLECTD_PORT\"" "$T/influx/collectd.conf" &&
  grep -q "Port \"$FLEET_CARBON_PORT\"" "$T/graphite/collectd.conf"
ok $? "each file had the example address this test points at loopback"
# Kubernetes names as labels (docs/containers.md, labels per writer): the
# containerd host of tests/fixtures/hosts, its nginx pod renamed to hold a
# '.', its restarted cart-0 app two cgroups of one name (~<hash> each);
# conf/prometheus.conf and conf/graphite.conf with InstanceFrom
# "container" and ContainerNames "prefixed" / "levels", the scrape job
# with the file's commented metric_relabel_configs.
k8s="$T/k8s"
cp -a "$FIXTURES/hosts/containerd-systemd" "$k8s"
sed -i 's/web-7d9f8c6b5-x2x9q/web.v2-7d9f8c6b5-x2x9q/g' \
  "$k8s/run/containerd/io.containerd.runtime.v2.task/k8s.io/c5a895d0b9e9fc50bc8185f9984c605eb97d5236eb47fbd6d026f64eb8cecb54/config.json"
port_k8s=$(fleet_free_port)
k8s_block='  InstanceFrom "container"\n  RuntimeRoot "'$k8s'"\n  Select "kubepods.slice/**/*.scope"'
# The Prometheus one also with Collect "+disk" (the layer rule's series).
disk_lines='\n  Collect "+disk"\n  ProcRoot "'$k8s/proc'"'
HOST=k8shost tree="$k8s/sys/fs/cgroup" port_prom=$port_k8s start k8sprom prometheus.conf "$k8s_block\n  ContainerNames \"prefixed\"$disk_lines" &&
  HOST=k8shost tree="$k8s/sys/fs/cgroup" start k8sgraphite graphite.conf "$k8s_block\n  ContainerNames \"levels\"" &&
  HOST=k8shost tree="$k8s/sys/fs/cgroup" start k8sinflux influxdb.conf "$k8s_block\n  ContainerNames \"prefixed\"" &&
  grep -q '^    PreserveSeparator true' "$T/k8sgraphite/collectd.conf"
ok $? "collectd runs the three files on the containerd host with ContainerNames \"prefixed\" (Prometheus, InfluxDB) and \"levels\" (Graphite, PreserveSeparator true)"
FLEET_PROM_JOB=$(sed -n '/^#     metric_relabel_configs:/,$p' "$top_srcdir/conf/prometheus.conf" | grep '^#     ' | sed 's/^# //')
[ "$(echo "$FLEET_PROM_JOB" | grep -c 'regex:')" -eq 7 ]
ok $? "conf/prometheus.conf's metric_relabel_configs: 7 rules"
metrics_up() { curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$1/metrics"; }
fleet_wait_for metrics_up "$port_prom" && fleet_wait_for metrics_up "$port_k8s" &&
  fleet_start_prometheus "$T/promserver" "127.0.0.1:$port_prom" "127.0.0.1:$port_k8s"
ok $? "Prometheus scrapes collectd's write_prometheus on 127.0.0.1:$port_prom and :$port_k8s" || tap_done

# ---- first values, then db.service's events ------------------------------------
db_inst=system.slice_db.service
g_db="collectd/$HOST/joule_cgroup/system_slice_db_service"
samples() { # EXPR N: Prometheus holds at least N samples of EXPR
  local v
  v=$(fleet_prom_values "count_over_time($1[5m])" 2>/dev/null | head -n 1)
  [ -n "$v" ] && [ "${v%.*}" -ge "$2" ]
}
fleet_wait_for samples "collectd_joule_cgroup_derive_total{joule_cgroup=\"$db_inst\",type=\"memory_events_oom_kill\"}" 3 &&
  fleet_wait_for fleet_influx_values collectd \
    "SELECT last(value) FROM joule_cgroup_value WHERE instance = '$db_inst' AND type_instance = 'memory_events_oom_kill'" >/dev/null &&
  fleet_wait_for fleet_whisper_last "$g_db/derive/memory_events_oom_kill" >/dev/null &&
  fleet_wait_for fleet_whisper_last "$g_db/disk_octets/read" >/dev/null
ok $? "every receiver has db.service's first values" || tap_done
fleet_wait_for fleet_prom_values 'collectd_joule_cgroup_memory{instance="k8shost",pod="web.v2-7d9f8c6b5-x2x9q"}' >/dev/null &&
  fleet_wait_for fleet_whisper_last "collectd/k8shost/joule_cgroup/k8s/shop/web_v2-7d9f8c6b5-x2x9q/nginx/memory/current" >/dev/null &&
  fleet_wait_for fleet_influx_values collectd \
    "SELECT last(value) FROM joule_cgroup_value WHERE host = 'k8shost' AND instance = 'k8s_shop_web.v2-7d9f8c6b5-x2x9q_nginx' AND type_instance = 'current'" >/dev/null
ok $? "Prometheus, carbon and InfluxDB have the containers' values, by label, by level, by tag" || tap_done
fleet_prom_series 'collectd_joule_cgroup_memory{instance="k8shost",type="current"}' | diag
(cd "$FLEET_WHISPER_DIR" && find collectd/k8shost -path '*memory/current.wsp' | sort) | diag
q='sum by (namespace) (collectd_joule_cgroup_memory{type="current",container!=""})'
echo "$q:" | diag
paste <(fleet_prom_series "$q") <(fleet_prom_values "$q") | diag

printf 'low 0\nhigh 0\nmax 1\noom 1\noom_kill 1\noom_group_kill 0\n' >"$tree/$DB/memory.events"
cpu_stat nr_periods 2000 nr_throttled 1000 throttled_usec 80000
printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=6000000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=6000000\n' \
  >"$tree/$DB/memory.pressure"
io=$(sed 's/rbytes=48234496/rbytes=58234496/' "$tree/$DB/io.stat")
printf '%s\n' "$io" >"$tree/$DB/io.stat"   # in place: the plugin keeps its descriptor

# fleet_influx_values prints the last column, for spread() the spread.
influx_spread() {
  [ "$(fleet_influx_values collectd "SELECT spread(value) FROM joule_cgroup_value WHERE instance = '$db_inst' AND type_instance = 'memory_events_oom_kill'" 2>/dev/null)" = 1 ]
}
whisper_moved() { "$FLEET_PYTHON" - "$FLEET_WHISPER_DIR/$1.wsp" <<-'EOF'
	import sys, time, whisper
	(_, _, _), vals = whisper.fetch(sys.argv[1], time.time() - 3600)
	sys.exit(0 if any(v for v in vals if v) else 1)
	EOF
}
prom_moved() {
  [ "$(fleet_prom_values "collectd_joule_cgroup_derive_total{joule_cgroup=\"$db_inst\",type=\"memory_events_oom_kill\"}" 2>/dev/null)" = 1 ] &&
    [ "$(fleet_prom_values "collectd_joule_cgroup_derive_total{joule_cgroup=\"$db_inst\",type=\"cpu_nr_periods\"}" 2>/dev/null)" = 2000 ]
}
fleet_wait_for prom_moved && fleet_wait_for influx_spread &&
  fleet_wait_for whisper_moved "$g_db/derive/memory_events_oom_kill" &&
  fleet_wait_for whisper_moved "$g_db/disk_octets/read"
ok $? "every receiver has db.service's OOM kill, throttling, stalls and reads"
# InfluxDB's read rate needs a point after the one that moved.
fleet_wait_for samples "collectd_joule_cgroup_derive_total{joule_cgroup=\"$db_inst\",type=\"cpu_nr_periods\"}" 6

# ---- the queries of the docs ------------------------------------------------------
for lang in promql sql graphite; do
  py check "$top_srcdir" "$lang" "$FLEET_INFLUX_HTTP_PORT" "$FLEET_PROM_PORT" "$FLEET_WHISPER_DIR" "$HOST" >"$T/$lang.tap"
  tap_relay "$T/$lang.tap"
done

# ---- alerting rules --------------------------------------------------------------
promtool check rules "$top_srcdir/conf/prometheus-alerts.yml" >"$T/check.out" 2>&1
ok $? "promtool check rules conf/prometheus-alerts.yml: $(grep -o 'SUCCESS.*' "$T/check.out")"
py promtool-test "$top_srcdir" "$FLEET_PROM_PORT" "$HOST" "$T/alerts-test.yml" >"$T/gen.tap"
tap_relay "$T/gen.tap"
promtool test rules "$T/alerts-test.yml" >"$T/test.out" 2>&1
ok $? "promtool test rules: each of the six alerts fires on those series, and not below its threshold"
[ "$TAP_FAILED" -eq 0 ] || diag <"$T/test.out"

# write_prometheus of collectd 5.12 always logs one [error] about
# libmicrohttpd's logger option; it is not ours and changes nothing.
! grep -h '^\[error\]' "$T"/influx/collectd.log "$T"/graphite/collectd.log "$T"/prom/collectd.log |
  grep -v 'MHD_OPTION_EXTERNAL_LOGGER is not the first option' | grep .
ok $? "no collectd logged an error"
tap_done
