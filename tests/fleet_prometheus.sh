#!/usr/bin/env bash
# Prometheus end to end: the real collectd with the built plugin serves its
# values through collectd's stock write_prometheus (configured by
# conf/prometheus.conf, pointed at a free port on 127.0.0.1), and a real
# Prometheus server on 127.0.0.1 scrapes it.  One collectd reads the
# Kubernetes fixture tree with known values, another the real kernel's
# root; the known figures are read back through Prometheus' HTTP query API
# under the metric and label names the README documents (a hashed
# Kubernetes instance and the disk_octets read/write pair included), and
# the README's PromQL examples are run.  Servers and data go at the end.
. "$(dirname "$0")/lib/common.sh"
. "$top_srcdir/tests/lib/fleet.sh"
CLEANUPS+=(fleet_stop_all)
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
wp="$COLLECTD_PLUGINDIR/write_prometheus.so"
need "write_prometheus.so and its libraries (libmicrohttpd12 libprotobuf-c1)" -- \
  sh -c "test -f '$wp' && ! ldd '$wp' | grep -q 'not found'"
need "prometheus (Debian prometheus)" -- command -v prometheus
need "curl" -- command -v curl
need "a cgroup2 mount" -- test -n "$mnt"

# Two distinct free ports for the two collectds' write_prometheus.
port_fixture=$(fleet_free_port)
for _ in 1 2 3 4 5; do
  port_kernel=$(fleet_free_port)
  [ "$port_kernel" != "$port_fixture" ] && break
done

# prom_outputs PORT: conf/prometheus.conf as written but for its port and
# a 127.0.0.1 bind, and without its own joule_cgroup block.
prom_outputs() {
  sed -e "s/^  Port \"9103\"/  Port \"$1\"/" -e 's/^  #Host "127.0.0.1"/  Host "127.0.0.1"/' \
    "$top_srcdir/conf/prometheus.conf" |
    awk '/^LoadPlugin joule_cgroup/ { skip = 1 } !skip { print } skip && /^<\/Plugin>/ { skip = 0 }'
}

fixture="$T/k8s"
cp -r "$FIXTURES/k6.8-kubernetes" "$fixture"
fleet_plugin_conf "$T/fixturehost" fixturehost "$(prom_outputs "$port_fixture")" "  CgroupRoot \"$fixture\"
  Select \"kubepods.slice/**/*.scope\"
  Select \"system.slice/*.service\""
fleet_plugin_conf "$T/kernelhost" kernelhost "$(prom_outputs "$port_kernel")" "  CgroupRoot \"$mnt\"
  Select \"joule-nothing-$$\""
grep -q "Port \"$port_fixture\"" "$T/fixturehost/collectd.conf" &&
  grep -q '^  Host "127.0.0.1"' "$T/fixturehost/collectd.conf"
ok $? "conf/prometheus.conf has the Port and Host lines the test rewrites"
start_collectd "$T/fixturehost"
start_collectd "$T/kernelhost"

metrics_up() { curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$1/metrics"; }
fleet_wait_for metrics_up "$port_fixture" && fleet_wait_for metrics_up "$port_kernel"
ok $? "both collectds serve /metrics on 127.0.0.1:$port_fixture and :$port_kernel"

fleet_start_prometheus "$T/prom" "127.0.0.1:$port_fixture" "127.0.0.1:$port_kernel" ||
  { ok 1 "Prometheus started on 127.0.0.1"; tap_done; }
ok 0 "Prometheus listens on 127.0.0.1:$FLEET_PROM_PORT and scrapes both"

inst=$(python3 "$top_srcdir/tests/lib/csv_expect.py" --instances \
  "$FIXTURES/expected/k6.8-kubernetes.txt" 'kubepods.slice/**/*.scope' | tr ' ' '\n' | grep '^b2b77a52~')

# prom_last EXPR: the value of the one series EXPR selects, retried until
# Prometheus has scraped it.
prom_last() {
  fleet_wait_for fleet_prom_values "$1" >/dev/null 2>&1 || return 1
  fleet_prom_values "$1" | tail -n 1
}
same() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 == b + 0) }'; }
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v + 0 >= lo && v + 0 <= hi) }'; }

# expect NAME EXTRA-LABELS VALUE: the series NAME{$sel EXTRA-LABELS} is VALUE.
sel="instance=\"fixturehost\",joule_cgroup=\"$inst\""
expect() {
  local v
  v=$(prom_last "$1{$sel$2}")
  same "$v" "$3"
  ok $? "$1{…$2} = $v"
}
expect collectd_joule_cgroup_memory ',type="current"' 1903333376
s=$(fleet_prom_series "collectd_joule_cgroup_memory{$sel,type=\"current\"}")
[ "$s" = "collectd_joule_cgroup_memory{instance=\"fixturehost\",job=\"collectd\",joule_cgroup=\"$inst\",type=\"current\"}" ]
ok $? "its labels are exactly instance (the host), job, joule_cgroup (the instance), type (the type instance)"
echo "$s" | diag

s=$(fleet_prom_series "collectd_joule_cgroup_ps_cputime_user_total{$sel}")
[ "$s" = "collectd_joule_cgroup_ps_cputime_user_total{instance=\"fixturehost\",job=\"collectd\",joule_cgroup=\"$inst\"}" ]
ok $? "a type without type instance has no type label"
expect collectd_joule_cgroup_ps_cputime_user_total "" 654321098
expect collectd_joule_cgroup_ps_cputime_syst_total "" 222222112
expect collectd_joule_cgroup_disk_octets_read_total "" 2147483648
expect collectd_joule_cgroup_disk_octets_write_total "" 3221225472
v=$(prom_last 'collectd_joule_cgroup_memory{instance="fixturehost",joule_cgroup="system.slice_kubelet.service",type="current"}')
[ -n "$v" ]
ok $? "system.slice_kubelet.service memory current arrives ($v)"

t1=$(fleet_prom_type collectd_joule_cgroup_ps_cputime_user_total)
t2=$(fleet_prom_type collectd_joule_cgroup_memory)
t3=$(fleet_prom_type collectd_joule_cgroup_gauge)
[ "$t1" = counter ] && [ "$t2" = gauge ] && [ "$t3" = gauge ]
ok $? "DERIVE values are counters, GAUGE values gauges ($t1, $t2, $t3)"

# The real kernel's root cgroup.
v=$(prom_last 'collectd_joule_cgroup_ps_cputime_user_total{instance="kernelhost",joule_cgroup="root"}')
between "$v" 1 1e18
ok $? "the real kernel's root: ps_cputime_user_total = $v"

# The README's PromQL examples, each narrowed to one series by a selector.
ncpu=$(nproc)
q='collectd_joule_cgroup_gauge{type="cpu_cores",instance="kernelhost",joule_cgroup="root"}'
v=$(prom_last "$q")
between "$v" 0 "$ncpu.5"
ok $? "CPU cores busy: $q = $v"
q='(rate(collectd_joule_cgroup_ps_cputime_user_total{instance="kernelhost",joule_cgroup="root"}[5m]) + rate(collectd_joule_cgroup_ps_cputime_syst_total{instance="kernelhost",joule_cgroup="root"}[5m])) / 1e6'
v=$(prom_last "$q")
between "$v" 0 "$ncpu.5"
ok $? "CPU cores busy from the counter: $q = $v"
q="collectd_joule_cgroup_memory{type=\"current\",$sel} / 2^20"
v=$(prom_last "$q")
same "$v" 1815.16015625   # 1903333376 / 2^20
ok $? "memory by cgroup in MiB, the hashed pod: $v"
v=$(prom_last "rate(collectd_joule_cgroup_disk_octets_read_total{$sel}[5m])")
same "$v" 0
ok $? "read bytes per second of the (unchanging) fixture: $v"
# No value before Collect "limits" lands, but the queries must parse.
fleet_prom_query 'collectd_joule_cgroup_gauge{type="memory_max_percent"} > 90' >/dev/null &&
  fleet_prom_query '100 * collectd_joule_cgroup_memory{type="current"}
  / on (instance, joule_cgroup) collectd_joule_cgroup_memory{type="max"}' >/dev/null
ok $? "the memory-limit examples are valid PromQL"

[ "$(loud_lines "$T/fixturehost")" -eq 0 ] && [ "$(loud_lines "$T/kernelhost")" -eq 0 ]
ok $? "no WARNING or ERROR from the plugin on either host"
tap_done
