# shellcheck shell=bash
# fleet.sh - start throw-away InfluxDB 1.x, carbon-cache and Prometheus
# servers on 127.0.0.1 for end-to-end tests of the collectd ->
# network/write_graphite/write_prometheus paths.
#
# Source it from a test:
#
#   . "$repo/tests/lib/fleet.sh"
#   trap fleet_stop_all EXIT
#   fleet_start_influxdb "$tmp/influx"     # DIR must be new or empty
#   fleet_start_carbon   "$tmp/carbon"
#   ... run collectd ...
#   fleet_influx_query collectd 'SHOW MEASUREMENTS'       # raw JSON
#   fleet_influx_values collectd "SELECT last(value) FROM load_shortterm"
#   fleet_whisper_last collectd/fleettest/load/load/shortterm.wsp
#
#   port=$(fleet_free_port)                # collectd's write_prometheus Port
#   fleet_start_prometheus "$tmp/prom" "127.0.0.1:$port"
#   fleet_prom_values 'collectd_load_shortterm{instance="fleettest"}'
#
# Every server listens on 127.0.0.1 only; ports come from the FLEET_* variables
# below so two runs (or a real local InfluxDB/carbon) can be kept apart;
# Prometheus' port is picked free when FLEET_PROM_PORT is not set. Each
# DIR handed to a start function belongs to the library from then on:
# fleet_stop_all stops the servers and removes those directories.
#
# Needs (Debian 12): influxdb graphite-carbon python3-whisper curl, and
# prometheus for the Prometheus part, which scripts/deps.sh --tests
# installs; curl is the client for the HTTP APIs.

# Tests that may run at the same time (make -j check) each set their own
# FLEET_PORT_OFFSET before sourcing this file; it shifts every default port.
FLEET_PORT_OFFSET=${FLEET_PORT_OFFSET:-0}
FLEET_INFLUX_HTTP_PORT=${FLEET_INFLUX_HTTP_PORT:-$((18086 + FLEET_PORT_OFFSET))}
FLEET_INFLUX_COLLECTD_PORT=${FLEET_INFLUX_COLLECTD_PORT:-$((25926 + FLEET_PORT_OFFSET))}
# influxd always opens its backup/restore RPC port; keep it off 8088 too.
FLEET_INFLUX_RPC_PORT=${FLEET_INFLUX_RPC_PORT:-$((18088 + FLEET_PORT_OFFSET))}
# How the collectd listener maps types with several data sources.
FLEET_INFLUX_MULTIVALUE=${FLEET_INFLUX_MULTIVALUE:-split}
FLEET_CARBON_PORT=${FLEET_CARBON_PORT:-$((12003 + FLEET_PORT_OFFSET))}
# carbon-cache cannot switch these two off, so they get loopback ports too.
FLEET_CARBON_PICKLE_PORT=${FLEET_CARBON_PICKLE_PORT:-$((12004 + FLEET_PORT_OFFSET))}
FLEET_CARBON_QUERY_PORT=${FLEET_CARBON_QUERY_PORT:-$((17002 + FLEET_PORT_OFFSET))}
# fleet_wait_for: attempts x sleep = 20 s by default.
FLEET_WAIT_TRIES=${FLEET_WAIT_TRIES:-100}
FLEET_WAIT_SLEEP=${FLEET_WAIT_SLEEP:-0.2}
# Debian's python3 modules (whisper, carbon) are only importable by the
# system interpreter, not by a pyenv/venv python3 that may come first in PATH.
FLEET_PYTHON=${FLEET_PYTHON:-/usr/bin/python3}

# Prometheus: the HTTP API's port (empty: a free one), and how often it
# scrapes its targets (collectd's Interval in the tests).
FLEET_PROM_PORT=${FLEET_PROM_PORT:-}
FLEET_PROM_SCRAPE_INTERVAL=${FLEET_PROM_SCRAPE_INTERVAL:-1s}

FLEET_PIDS=()   # servers to stop, in start order
FLEET_DIRS=()   # directories to remove after they stopped
FLEET_WHISPER_DIR=

fleet_log() { printf '# fleet: %s\n' "$*" >&2; }

# fleet_wait_for CMD [ARG...]: run CMD until it succeeds, at most
# FLEET_WAIT_TRIES times, FLEET_WAIT_SLEEP seconds apart. Returns CMD's last
# status, so a caller can tell "never came up" from success.
fleet_wait_for() {
	local i rc=1
	for ((i = 0; i < FLEET_WAIT_TRIES; i++)); do
		"$@" && return 0
		rc=$?
		sleep "$FLEET_WAIT_SLEEP"
	done
	return "$rc"
}

# A DIR we will rm -rf later must be ours: new, or an empty directory.
fleet__claim_dir() {
	local dir=$1
	if [[ -z $dir || $dir == / ]]; then
		fleet_log "refusing data dir '$dir'"
		return 1
	fi
	if [[ -e $dir ]] && [[ ! -d $dir || -n $(ls -A "$dir") ]]; then
		fleet_log "data dir $dir exists and is not empty; give a new one"
		return 1
	fi
	mkdir -p "$dir"
	FLEET_DIRS+=("$dir")
}

# Succeeds while something accepts TCP connections on 127.0.0.1:PORT.
fleet__tcp_open() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Wait until CHECK succeeds, but give up at once if server PID died (a port
# clash or a config error shows up in LOG, whose tail we print).
fleet__wait_server() {
	local pid=$1 log=$2 what=$3
	shift 3
	local i
	for ((i = 0; i < FLEET_WAIT_TRIES; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			fleet_log "$what exited during startup; last lines of $log:"
			tail -n 20 "$log" | sed 's/^/#   /' >&2
			return 1
		fi
		"$@" && return 0
		sleep "$FLEET_WAIT_SLEEP"
	done
	fleet_log "$what did not come up; last lines of $log:"
	tail -n 20 "$log" | sed 's/^/#   /' >&2
	return 1
}

fleet__influx_ping() {
	curl -fsS -o /dev/null --max-time 2 \
		"http://127.0.0.1:$FLEET_INFLUX_HTTP_PORT/ping" 2>/dev/null
}

# fleet_start_influxdb DIR: influxd with meta/data/wal under DIR, HTTP API on
# 127.0.0.1:$FLEET_INFLUX_HTTP_PORT, collectd binary protocol on
# udp 127.0.0.1:$FLEET_INFLUX_COLLECTD_PORT into database "collectd".
fleet_start_influxdb() {
	local dir=$1
	fleet__claim_dir "$dir" || return 1
	if fleet__influx_ping; then
		fleet_log "something already answers on port $FLEET_INFLUX_HTTP_PORT"
		return 1
	fi
	# Anything not set here keeps influxd's built-in default; the listeners
	# we do not use stay disabled, which is their default, but say so.
	cat >"$dir/influxdb.conf" <<-EOF
		# No phoning home from a test.
		reporting-enabled = false
		bind-address = "127.0.0.1:$FLEET_INFLUX_RPC_PORT"
		[meta]
		  dir = "$dir/meta"
		[data]
		  dir = "$dir/data"
		  wal-dir = "$dir/wal"
		  query-log-enabled = false
		[monitor]
		  # No _internal database: less disk and CPU for a short test.
		  store-enabled = false
		[http]
		  bind-address = "127.0.0.1:$FLEET_INFLUX_HTTP_PORT"
		  log-enabled = false
		[admin]
		  enabled = false
		[ifql]
		  enabled = false
		[continuous_queries]
		  enabled = false
		[[collectd]]
		  enabled = true
		  bind-address = "127.0.0.1:$FLEET_INFLUX_COLLECTD_PORT"
		  database = "collectd"
		  typesdb = "/usr/share/collectd/types.db"
		  # Write what arrived at once instead of gathering 5000 points or
		  # waiting 10 s: a test polls right after collectd sent.
		  batch-size = 10
		  batch-timeout = "200ms"
		  # "split" (the default) gives one measurement per data source,
		  # "join" one per type with a field per data source;
		  # docs/fleet.md shows the names.
		  parse-multivalue-plugin = "$FLEET_INFLUX_MULTIVALUE"
		[[graphite]]
		  enabled = false
		[[opentsdb]]
		  enabled = false
		[[udp]]
		  enabled = false
	EOF
	influxd run -config "$dir/influxdb.conf" >"$dir/influxd.log" 2>&1 &
	local pid=$!
	FLEET_PIDS+=("$pid")
	fleet__wait_server "$pid" "$dir/influxd.log" influxd fleet__influx_ping ||
		return 1
	fleet_log "influxd pid $pid http 127.0.0.1:$FLEET_INFLUX_HTTP_PORT" \
		"collectd udp 127.0.0.1:$FLEET_INFLUX_COLLECTD_PORT"
}

# fleet_start_carbon DIR: carbon-cache with its config, logs and whisper files
# under DIR (FLEET_WHISPER_DIR), plaintext receiver on
# 127.0.0.1:$FLEET_CARBON_PORT, one 1 s archive for every metric.
fleet_start_carbon() {
	local dir=$1
	fleet__claim_dir "$dir" || return 1
	if fleet__tcp_open "$FLEET_CARBON_PORT"; then
		fleet_log "something already listens on port $FLEET_CARBON_PORT"
		return 1
	fi
	mkdir -p "$dir/conf" "$dir/storage/whisper" "$dir/log"
	FLEET_WHISPER_DIR=$dir/storage/whisper
	# No USER line: the Debian default drops to _graphite, which could not
	# write under a root-owned mktemp dir.
	cat >"$dir/conf/carbon.conf" <<-EOF
		[cache]
		STORAGE_DIR = $dir/storage/
		LOCAL_DATA_DIR = $dir/storage/whisper/
		CONF_DIR = $dir/conf/
		LOG_DIR = $dir/log/
		PID_DIR = $dir/
		DATABASE = whisper
		ENABLE_LOGROTATION = False
		# A test creates dozens of metrics in its first second; the default
		# of 50 creates a minute would silently drop most of them.
		MAX_CACHE_SIZE = inf
		MAX_UPDATES_PER_SECOND = inf
		MAX_CREATES_PER_MINUTE = inf
		LINE_RECEIVER_INTERFACE = 127.0.0.1
		LINE_RECEIVER_PORT = $FLEET_CARBON_PORT
		ENABLE_UDP_LISTENER = False
		PICKLE_RECEIVER_INTERFACE = 127.0.0.1
		PICKLE_RECEIVER_PORT = $FLEET_CARBON_PICKLE_PORT
		CACHE_QUERY_INTERFACE = 127.0.0.1
		CACHE_QUERY_PORT = $FLEET_CARBON_QUERY_PORT
		# carbon.agents.* self-metrics would only add files.
		CARBON_METRIC_INTERVAL = 0
		LOG_LISTENER_CONN_SUCCESS = False
	EOF
	# One archive, 1 s points for an hour, for every metric: with collectd's
	# Interval 1 each sample lands in its own slot, nothing is averaged.
	cat >"$dir/conf/storage-schemas.conf" <<-EOF
		[everything_1s]
		pattern = .*
		retentions = 1s:1h
	EOF
	# --nodaemon keeps it our child, so $! is the server and we can wait.
	"$FLEET_PYTHON" /usr/bin/carbon-cache --nodaemon \
		--config="$dir/conf/carbon.conf" --pidfile="$dir/carbon-cache.pid" \
		--logdir="$dir/log" start >"$dir/carbon-cache.out" 2>&1 &
	local pid=$!
	FLEET_PIDS+=("$pid")
	fleet__wait_server "$pid" "$dir/carbon-cache.out" carbon-cache \
		fleet__tcp_open "$FLEET_CARBON_PORT" || return 1
	fleet_log "carbon-cache pid $pid line 127.0.0.1:$FLEET_CARBON_PORT" \
		"whisper $FLEET_WHISPER_DIR"
}

# fleet_free_port: print a TCP port that nothing listens on at 127.0.0.1
# now (the kernel's choice for a bind to port 0). Another process may take
# it before the caller does; a start function then fails and says so.
fleet_free_port() {
	"$FLEET_PYTHON" -c '
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
'
}

fleet__prom_ready() {
	curl -fsS -o /dev/null --max-time 2 \
		"http://127.0.0.1:$FLEET_PROM_PORT/-/ready" 2>/dev/null
}

# fleet_start_prometheus DIR TARGET...: a Prometheus server with its config,
# TSDB and log under DIR, HTTP API on 127.0.0.1:$FLEET_PROM_PORT (picked
# free when unset), scraping every TARGET (host:port of a collectd
# write_prometheus) every $FLEET_PROM_SCRAPE_INTERVAL as job "collectd".
# honor_labels keeps the "instance" label write_prometheus sets (collectd's
# Hostname); without it Prometheus would rename it "exported_instance" and
# put the target's host:port in "instance".
fleet_start_prometheus() {
	local dir=$1
	shift
	fleet__claim_dir "$dir" || return 1
	[[ -n $FLEET_PROM_PORT ]] || FLEET_PROM_PORT=$(fleet_free_port) || return 1
	if fleet__tcp_open "$FLEET_PROM_PORT"; then
		fleet_log "something already listens on port $FLEET_PROM_PORT"
		return 1
	fi
	local targets="" t
	for t in "$@"; do targets="$targets${targets:+, }\"$t\""; done
	cat >"$dir/prometheus.yml" <<-EOF
		global:
		  scrape_interval: $FLEET_PROM_SCRAPE_INTERVAL
		  scrape_timeout: $FLEET_PROM_SCRAPE_INTERVAL
		  evaluation_interval: 1m
		scrape_configs:
		  - job_name: collectd
		    honor_labels: true
		    static_configs:
		      - targets: [$targets]
	EOF
	# FLEET_PROM_JOB: more lines of the job (metric_relabel_configs...).
	[[ -z ${FLEET_PROM_JOB:-} ]] || printf '%s\n' "$FLEET_PROM_JOB" >>"$dir/prometheus.yml"
	# No --web.enable-lifecycle or admin API: the test only reads.
	prometheus --config.file="$dir/prometheus.yml" \
		--storage.tsdb.path="$dir/data" \
		--web.listen-address="127.0.0.1:$FLEET_PROM_PORT" \
		--log.level=warn >"$dir/prometheus.log" 2>&1 &
	local pid=$!
	FLEET_PIDS+=("$pid")
	fleet__wait_server "$pid" "$dir/prometheus.log" prometheus \
		fleet__prom_ready || return 1
	fleet_log "prometheus pid $pid http 127.0.0.1:$FLEET_PROM_PORT" \
		"scraping $*"
}

# fleet_prom_query EXPR: print Prometheus' JSON answer to the instant query
# EXPR (/api/v1/query, evaluated now). Fails on an HTTP error, which is how
# the API reports a PromQL syntax error (400).
fleet_prom_query() {
	curl -fsS -G --max-time 10 \
		"http://127.0.0.1:$FLEET_PROM_PORT/api/v1/query" \
		--data-urlencode "query=$1"
}

# fleet_prom_values EXPR: print the value of every series of the answer,
# one per line; fleet_prom_series EXPR: its labels instead, one series per
# line as name{label="value",...} with the labels sorted. Both fail on an
# error or when no series came back.
fleet_prom_values() { fleet__prom_rows values "$1"; }
fleet_prom_series() { fleet__prom_rows series "$1"; }
fleet__prom_rows() {
	local json
	json=$(fleet_prom_query "$2") || return 1
	"$FLEET_PYTHON" -c '
import json, sys
answer = json.load(sys.stdin)
if answer.get("status") != "success":
    sys.exit("prometheus: %s" % answer.get("error"))
data = answer["data"]
rows = data["result"] if data["resultType"] == "vector" else [{"metric": {}, "value": data["result"]}]
for row in rows:
    if sys.argv[1] == "values":
        print(row["value"][1])
    else:
        labels = dict(row["metric"])
        name = labels.pop("__name__", "")
        print(name + "{" + ",".join("%s=\"%s\"" % kv for kv in sorted(labels.items())) + "}")
sys.exit(0 if rows else 1)
' "$1" <<<"$json"
}

# fleet_prom_type METRIC: print the type Prometheus recorded for METRIC from
# the exposition's "# TYPE" line (counter, gauge...); fails when unknown.
fleet_prom_type() {
	local json
	json=$(curl -fsS -G --max-time 10 \
		"http://127.0.0.1:$FLEET_PROM_PORT/api/v1/metadata" \
		--data-urlencode "metric=$1") || return 1
	"$FLEET_PYTHON" -c '
import json, sys
entries = json.load(sys.stdin).get("data", {}).get(sys.argv[1], [])
if not entries:
    sys.exit(1)
print(entries[0]["type"])
' "$1" <<<"$json"
}

# fleet_collectd_outputs: the collectd configuration text that sends every
# value to the servers started here.  Options that matter for what arrives:
#  - FlushInterval 1 on network and write_graphite: both only send when their
#    ~1.4 kB buffer is full, which a handful of values per second may take
#    many seconds to reach; a flush every second bounds the delay.
#  - network: plain unsigned packets, the InfluxDB listener runs with
#    security-level "none".
#  - write_graphite: Prefix "collectd." puts every host under one root;
#    StoreRates false sends DERIVE counters as the raw integer, so a fixture
#    value can be compared exactly (operators may prefer rates, see
#    conf/graphite.conf); AlwaysAppendDS false leaves single-DS types without
#    a trailing ".value"; SeparateInstances true makes plugin instance and
#    type instance path levels of their own, so Graphite wildcards can pick
#    "all cgroups" or "all types"; EscapeCharacter "_" replaces the dots in
#    cgroup names like system.slice_foo.service that would otherwise split
#    the path.
fleet_collectd_outputs() {
	cat <<EOF
<LoadPlugin network>
  FlushInterval 1
</LoadPlugin>
<Plugin network>
  Server "127.0.0.1" "$FLEET_INFLUX_COLLECTD_PORT"
</Plugin>

<LoadPlugin write_graphite>
  FlushInterval 1
</LoadPlugin>
<Plugin write_graphite>
  <Node "carbon">
    Host "127.0.0.1"
    Port "$FLEET_CARBON_PORT"
    Protocol "tcp"
    Prefix "collectd."
    EscapeCharacter "_"
    StoreRates false
    AlwaysAppendDS false
    SeparateInstances true
    LogSendErrors true
  </Node>
</Plugin>
EOF
}

# fleet_plugin_conf DIR HOST OUTPUTS PLUGIN-BLOCK: write DIR/collectd.conf
# for a collectd named HOST that reads with the built plugin (PLUGIN-BLOCK
# inside its <Plugin joule_cgroup>, from $PLUGIN_BUILDDIR, which
# tests/lib/common.sh sets) every second and writes with OUTPUTS (config
# text: fleet_collectd_outputs, a conf/ file...); log and state in DIR.
fleet_plugin_conf() {
	mkdir -p "$1"
	cat >"$1/collectd.conf" <<-EOF
		Hostname "$2"
		FQDNLookup false
		Interval 1
		BaseDir "$1"
		PIDFile "$1/collectd.pid"
		TypesDB "/usr/share/collectd/types.db"
		PluginDir "${COLLECTD_PLUGINDIR:-/usr/lib/collectd}"
		LoadPlugin logfile
		<Plugin logfile>
		  LogLevel info
		  File "$1/collectd.log"
		  Timestamp false
		  PrintSeverity true
		</Plugin>
		$3
		PluginDir "$PLUGIN_BUILDDIR"
		LoadPlugin joule_cgroup
		<Plugin joule_cgroup>
		$4
		</Plugin>
	EOF
}

# fleet_stop_all: stop every server and remove the data dirs. Idempotent, so
# it can be both the EXIT trap and an explicit last step.
#
# influxd 1.6 can deadlock in its collectd listener's Close() when points
# arrive just before SIGTERM (a collectd stopping a moment earlier flushes its
# last packet); it then waits 30 s for a clean shutdown that never comes. A
# second SIGTERM cuts that wait short, and the data is disposable anyway.
fleet_stop_all() {
	local pid round i
	for round in TERM TERM KILL; do
		for pid in "${FLEET_PIDS[@]}"; do
			kill -"$round" "$pid" 2>/dev/null || true
		done
		for ((i = 0; i < 15; i++)); do
			fleet__any_alive || break
			sleep 0.2
		done
		fleet__any_alive || break
	done
	for pid in "${FLEET_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	FLEET_PIDS=()
	local dir
	for dir in "${FLEET_DIRS[@]}"; do
		[[ -n $dir && $dir != / ]] && rm -rf -- "$dir"
	done
	FLEET_DIRS=()
	FLEET_WHISPER_DIR=
	return 0
}

fleet__any_alive() {
	local pid
	for pid in "${FLEET_PIDS[@]}"; do
		kill -0 "$pid" 2>/dev/null && return 0
	done
	return 1
}

# fleet_influx_query DB QUERY: print InfluxDB's JSON answer (times as epoch
# seconds). Fails on an HTTP error; an InfluxQL error is in the JSON.
fleet_influx_query() {
	curl -fsS -G --max-time 10 \
		"http://127.0.0.1:$FLEET_INFLUX_HTTP_PORT/query" \
		--data-urlencode "db=$1" --data-urlencode "q=$2" \
		--data-urlencode "epoch=s"
}

# fleet_influx_values DB QUERY: print the last column of every row of every
# series in the answer, one per line: the value of "SELECT last(value) ...",
# the keys of "SHOW SERIES". Fails on an HTTP or InfluxQL error, or when no
# row came back.
fleet_influx_values() {
	local json
	json=$(fleet_influx_query "$1" "$2") || return 1
	"$FLEET_PYTHON" -c '
import json, sys
rows = 0
for result in json.load(sys.stdin).get("results", []):
    if "error" in result:
        # The listener creates its database with the first point: until
        # then "not found" only means "nothing yet".
        if "database not found" in result["error"]:
            sys.exit(1)
        sys.exit("influx: " + result["error"])
    for series in result.get("series", []):
        for row in series.get("values", []):
            print(row[-1])
            rows += 1
sys.exit(0 if rows else 1)
' <<<"$json"
}

# fleet_whisper_last PATH: print the newest non-empty value of the whisper
# file PATH (relative to FLEET_WHISPER_DIR; ".wsp" may be left out). Fails
# when the file does not exist or holds no value yet.
fleet_whisper_last() {
	local path=${1%.wsp}.wsp
	[[ -n $FLEET_WHISPER_DIR ]] || return 1
	"$FLEET_PYTHON" - "$FLEET_WHISPER_DIR/$path" <<-'EOF'
		import sys, time, whisper
		try:
		    (start, end, step), values = whisper.fetch(sys.argv[1], time.time() - 3600)
		except (OSError, whisper.WhisperException):
		    sys.exit(1)
		found = [v for v in values if v is not None]
		if not found:
		    sys.exit(1)
		print(repr(found[-1]))
	EOF
}

# ---- checks of values read back ---------------------------------------------

# fleet_num_eq A B / fleet_num_between V LO HI: numeric comparisons that
# fail on an empty or non-numeric value.
fleet_num_eq() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 == b + 0) }'; }
fleet_num_between() { awk -v v="$1" -v lo="$2" -v hi="$3" \
	'BEGIN { exit !(v ~ /^-?[0-9.e+-]+$/ && v + 0 >= lo && v + 0 <= hi) }'; }

# fleet_influx_last MEASUREMENT WHERE: the newest "value" of the matching
# series in database collectd.
fleet_influx_last() {
	fleet_influx_values collectd \
		"SELECT last(value) FROM \"$1\" WHERE $2" | tail -n 1
}
fleet_influx_between() { # MEASUREMENT WHERE LO HI
	local v
	v=$(fleet_influx_last "$1" "$2") && fleet_num_between "$v" "$3" "$4"
}
fleet_whisper_between() { # PATH LO HI
	local v
	v=$(fleet_whisper_last "$1") && fleet_num_between "$v" "$2" "$3"
}
