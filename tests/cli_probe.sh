#!/usr/bin/env bash
# joule-cgroup probe, the liveness probe of deploy/: against the real
# collectd with the plugin and write_prometheus on 127.0.0.1 (fresh: exit
# 0, its JSON; collectd stopped with SIGSTOP: no answer, exit 1), and
# against pages of Prometheus' text format served by python's http.server
# (values 100 s old, no joule_cgroup value, values without a time, a 404,
# a line longer than the reader's buffer): each refused with its line.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_collectd
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
need "python3, curl" -- command -v python3 curl
need "write_prometheus' libraries (libmicrohttpd12, libprotobuf-c1)" -- \
  sh -c "ldd '$COLLECTD_PLUGINDIR/write_prometheus.so' | grep -qv 'not found'"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

port=$(free_port)
dir=$T/collectd
write_conf "$dir" '  ReportRoot true
  Select "*"' "LoadPlugin write_prometheus
<Plugin write_prometheus>
  Host \"127.0.0.1\"
  Port \"$port\"
</Plugin>"
start_collectd "$dir"
url=http://127.0.0.1:$port/metrics
fresh() { "$JC" probe --url "$url" --max-age 10 >"$T/probe.json" 2>"$T/probe.err"; }
wait_until fresh
ok $? "joule-cgroup probe --url $url: $(cat "$T/probe.json" "$T/probe.err")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["series"] > 0 and 0 <= d["newest_age_seconds"] <= 10))' "$T/probe.json"
ok $? "its JSON: the plugin's series counted, the newest at most 10 s old"
kill -STOP "$COLLECTD_PID"
t0=$SECONDS
"$JC" probe --url "$url" >"$T/stopped.out" 2>&1
status=$?
kill -CONT "$COLLECTD_PID"
[ $status -eq 1 ] && grep -q "^joule-cgroup: probe: $url: no answer in 5 s$" "$T/stopped.out"
ok $? "collectd stopped (SIGSTOP): exit 1 in $((SECONDS - t0)) s: $(cat "$T/stopped.out")"
stop_collectd
"$JC" probe --url "$url" >"$T/gone.out" 2>&1
[ $? -eq 1 ] && grep -q "cannot connect to $url: Connection refused" "$T/gone.out"
ok $? "collectd gone: exit 1: $(cat "$T/gone.out")"

# Pages of the text format, served as files.
web=$T/web
mkdir "$web"
now=$(date +%s%3N)
line() { echo "collectd_joule_cgroup_memory{instance=\"h\",joule_cgroup=\"web\",type=\"current\"} 655360${1:+ $1}"; }
{ line $((now - 100000)); echo "other_plugin_value 1 $now"; } >"$web/stale"
echo "other_plugin_value 1 $now" >"$web/none"
line >"$web/untimed"
{ printf 'collectd_joule_cgroup_gauge{joule_cgroup="%s"} 1 %s\n' "$(head -c 8000 /dev/zero | tr '\0' x)" "$now"; line $((now - 60000)); } >"$web/long"
wport=$(free_port)
(cd "$web" && exec python3 -m http.server "$wport" --bind 127.0.0.1) >"$T/http.log" 2>&1 &
server=$!
CLEANUPS+=("kill $server 2>/dev/null")
up() { curl -sf -o /dev/null "http://127.0.0.1:$wport/none"; }
wait_until up
ok $? "python3 -m http.server on 127.0.0.1:$wport"
refused() { # refused PAGE EXPECTED-TEXT
  "$JC" probe --url "http://127.0.0.1:$wport/$1" >"$T/$1.out" 2>&1
  local status=$?
  [ $status -eq 1 ] && grep -qE "$2" "$T/$1.out"
  ok $? "$1: exit $status: $(cat "$T/$1.out")"
}
refused stale "serves is 1[0-9]{2}\.[0-9] s old"
refused none "serves no joule_cgroup value"
refused untimed "none with a time"
refused absent "answered HTTP status 404"
refused long "serves is [6-9][0-9]\.[0-9] s old"
"$JC" probe --url "ftp://127.0.0.1/" >"$T/ftp.out" 2>&1
[ $? -eq 1 ] && grep -q 'not http://HOST:PORT/PATH' "$T/ftp.out"
ok $? "a URL not http://HOST:PORT/PATH: $(cat "$T/ftp.out")"
"$JC" probe --max-age 0 >"$T/age.out" 2>&1
[ $? -eq 2 ] && grep -q 'must be a number of seconds' "$T/age.out"
ok $? "--max-age 0: usage error: $(cat "$T/age.out")"
tap_done
