#!/usr/bin/env bash
# graph.sh - make docs/cgroup-cpu-memory.png from real data: run collectd
# with the joule_cgroup plugin and the rrdtool plugin at a 1 s interval for
# about 40 s while a known workload runs in a cgroup the plugin manages,
# then draw the RRD files (scripts/graph-render.sh).
#
#   sudo scripts/graph.sh [OUT.png]
#   sudo scripts/graph.sh --vm [OUT.png]
#
# --vm runs the same inside a VM booted from Debian's newest kernel of
# tests/vm/kernels.sh (tests/vm/vm-run.sh), where cgroup v2 has every
# controller, so the picture shows the cgroup's memory (current and peak)
# beside its CPU; a hybrid host like the test machine has cpu.stat only.
#
# Environment: JC_PLUGIN_DIR (where joule_cgroup.so is; default _build/.libs,
# where scripts/build.sh puts it), JC_CGROUP_ROOT (default:
# the first cgroup2 mount), COLLECTD, KEEP=1 to keep the temp dir with the
# RRD files and the collectd log.
#
# Root is needed to create cgroups. The only cgroup touched is
# <root>/joule-graph-<pid of this script>, made here and removed on exit;
# the plugin creates and removes its child "work" itself (Create true).
#
# The workload, timed from the moment the plugin attaches it:
#   0-15 s  one bash busy loop                  -> about 1 CPU
#  15-25 s  idle, holding 64 MiB in a variable  -> 0 CPU, memory step
#  25-37 s  two busy loops                      -> about 2 CPUs (if the host
#                                                  has them)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ ${1:-} == --vm ]]; then
	# The VM sees this machine's / read-only and returns only its output:
	# the PNG comes back base64-encoded after a marker line.
	out=$(realpath -m "${2:-$repo/docs/cgroup-cpu-memory.png}")
	"$repo/scripts/deps.sh" --vm
	kernel=${VM_KERNEL:-$("$repo/tests/vm/kernels.sh" | tail -n 1)}
	encoded=$("$repo/tests/vm/vm-run.sh" --kernel "$kernel" --timeout 400 -- \
		bash -c '"$1" /tmp/graph.png >&2 && echo "==png==" && base64 /tmp/graph.png' \
		graph "$repo/scripts/graph.sh")
	mkdir -p "$(dirname "$out")"
	sed -n '/^==png==$/,$p' <<<"$encoded" | tail -n +2 | base64 -d >"$out"
	[[ -s $out ]] || { echo "graph.sh: no picture came back from the VM" >&2; exit 1; }
	echo "$out"
	exit 0
fi
out=${1:-$repo/docs/cgroup-cpu-memory.png}
JC_PLUGIN_DIR=${JC_PLUGIN_DIR:-$repo/_build/.libs}
COLLECTD=${COLLECTD:-/usr/sbin/collectd}
STOCK_PLUGIN_DIR=/usr/lib/collectd
HOST=graph

cgroup2_root() {
	awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo
}
root=${JC_CGROUP_ROOT:-$(cgroup2_root)}
parent=joule-graph-$$

die() {
	echo "graph.sh: $*" >&2
	exit 1
}
[[ -n $root && -f $root/cgroup.controllers ]] ||
	die "no cgroup v2 hierarchy found; set JC_CGROUP_ROOT"
[[ -f $JC_PLUGIN_DIR/joule_cgroup.so ]] ||
	die "$JC_PLUGIN_DIR/joule_cgroup.so not found; build the plugin or set JC_PLUGIN_DIR"
[[ -w $root ]] || die "cannot create cgroups under $root (run as root)"
command -v rrdtool >/dev/null || die "rrdtool not installed (apt-get install rrdtool)"

tmp=$(mktemp -d)
collectd_pid=
work_pid=
made_parent=0

stop_pid() { # stop_pid PID: TERM, up to 10 s, then KILL
	local i
	kill -TERM "$1" 2>/dev/null || return 0
	for ((i = 0; i < 100; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# kill_cgroup DIR: kill every process in cgroup DIR and wait (bounded) until
# it is empty. Only used on our own cgroups, whose members are the workload.
kill_cgroup() {
	local dir=$1 i pid
	[[ -f $dir/cgroup.procs ]] || return 0
	if [[ -f $dir/cgroup.kill ]]; then
		echo 1 >"$dir/cgroup.kill"
	else
		while read -r pid; do kill -KILL "$pid" 2>/dev/null; done <"$dir/cgroup.procs"
	fi
	for ((i = 0; i < 50; i++)); do
		# (stat says 0 bytes for every cgroup file: read it)
		[[ -n $(<"$dir/cgroup.procs") ]] || return 0
		sleep 0.1
	done
}

cleanup() {
	set +e
	# The workload's busy loops are children of $work_pid, but all of them
	# live in our cgroups once attached: empty those before stopping it.
	if ((made_parent)); then
		kill_cgroup "$root/$parent/work"
		kill_cgroup "$root/$parent"
	fi
	[[ -n $work_pid ]] && stop_pid "$work_pid"
	# collectd's shutdown lets the plugin rmdir the "work" cgroup it made.
	[[ -n $collectd_pid ]] && stop_pid "$collectd_pid"
	if ((made_parent)); then
		# If the plugin did not (it crashed, or never ran), do it here.
		[[ -d $root/$parent/work ]] && rmdir "$root/$parent/work"
		rmdir "$root/$parent" ||
			echo "graph.sh: could not remove $root/$parent" >&2
	fi
	if [[ ${KEEP:-0} == 1 ]]; then
		echo "graph.sh: kept $tmp" >&2
	else
		rm -rf -- "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

mkdir "$root/$parent"
made_parent=1
# Let the child have the controllers its parent has, so memory.* and io.*
# appear in "work" where the kernel offers them (on a hybrid v1/v2 host none
# are, and only cpu.stat's base counters exist). Writes only our own cgroup.
for c in cpu memory io; do
	if grep -qw "$c" "$root/$parent/cgroup.controllers"; then
		echo "+$c" >"$root/$parent/cgroup.subtree_control" ||
			echo "graph.sh: could not enable $c for $parent's children" >&2
	fi
done

# collectd has one PluginDir: give it a private one with the stock plugins
# it needs and the freshly built joule_cgroup.so side by side. Copies, as
# collectd refuses to load a symlink ("not a regular file").
mkdir "$tmp/plugins" "$tmp/rrd"
for p in logfile cpu rrdtool; do
	cp "$STOCK_PLUGIN_DIR/$p.so" "$tmp/plugins/"
done
cp "$JC_PLUGIN_DIR/joule_cgroup.so" "$tmp/plugins/"

# The workload starts first, so its pid can be in the file the plugin reads
# at init (AttachPidFile); it waits, bounded, until it has been moved into
# the cgroup, and children it forks afterwards are born there.
busy() { # busy SECONDS
	local end=$((SECONDS + $1))
	while ((SECONDS < end)); do :; done
}
workload() {
	local i mine=0
	for ((i = 0; i < 200; i++)); do
		if grep -q "^0::/$parent/work\$" /proc/$BASHPID/cgroup; then
			mine=1
			break
		fi
		sleep 0.1
	done
	((mine)) || exit 3
	date +%s >"$tmp/work.start"
	busy 15
	local hold
	hold=$(head -c $((64 << 20)) /dev/zero | tr '\0' x)
	echo "${#hold} bytes held" >"$tmp/work.hold"
	sleep 10
	unset hold
	busy 12 &
	busy 12 &
	wait
	date +%s >"$tmp/work.end"
}
workload &
work_pid=$!
echo "$work_pid" >"$tmp/work.pid"

# Interval 1 and StepSize 1: one RRD row per second. RRARows 3600 with an
# RRATimespan of 3600 keeps that resolution for the first hour instead of
# averaging three samples into one row (the default 1200 rows).
cat >"$tmp/collectd.conf" <<EOF
Hostname "$HOST"
FQDNLookup false
Interval 1
BaseDir "$tmp"
PIDFile "$tmp/collectd.pid"
PluginDir "$tmp/plugins"
TypesDB "/usr/share/collectd/types.db"

LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$tmp/collectd.log"
  Timestamp true
</Plugin>

# The whole host's CPU as one percentage (cpu/percent-active), for scale.
LoadPlugin cpu
<Plugin cpu>
  ReportByCpu false
  ReportByState false
</Plugin>

LoadPlugin rrdtool
<Plugin rrdtool>
  DataDir "$tmp/rrd"
  StepSize 1
  RRARows 3600
  RRATimespan 3600
</Plugin>

LoadPlugin joule_cgroup
<Plugin joule_cgroup>
  CgroupRoot "$root"
  ReportRoot false
  <Cgroup "$parent/work">
    Instance "work"
    Create true
    AttachPidFile "$tmp/work.pid"
  </Cgroup>
</Plugin>
EOF

"$COLLECTD" -f -C "$tmp/collectd.conf" >"$tmp/collectd.out" 2>&1 &
collectd_pid=$!

show_logs() {
	local f
	for f in "$tmp/collectd.out" "$tmp/collectd.log"; do
		[[ -s $f ]] && sed 's/^/  /' "$f" >&2
	done
	return 0
}

# The workload runs ~37 s once attached; give it 60 s in all.
for ((i = 0; i < 600; i++)); do
	kill -0 "$work_pid" 2>/dev/null || break
	kill -0 "$collectd_pid" 2>/dev/null || { show_logs; die "collectd exited early"; }
	sleep 0.1
done
kill -0 "$work_pid" 2>/dev/null && die "workload still running after 60 s"
rc=0
wait "$work_pid" || rc=$?
work_pid=
if ((rc == 3)); then
	show_logs
	die "the plugin never moved the workload into $root/$parent/work"
fi
((rc == 0)) || die "workload failed (status $rc)"
sleep 2 # a last sample of the idle cgroup
stop_pid "$collectd_pid"
collectd_pid=

start=$(($(cat "$tmp/work.start") - 3))
end=$(($(cat "$tmp/work.end") + 2))
# File names as docs/metrics.md and the rrdtool plugin make them; a hybrid
# v1/v2 host has cpu.stat only, a unified one (--vm) memory too.
[[ -f $tmp/rrd/$HOST/joule_cgroup-work/gauge-cpu_cores.rrd ]] || {
	show_logs
	die "no joule_cgroup-work/gauge-cpu_cores.rrd was written"
}
"$repo/scripts/graph-render.sh" "$tmp/rrd/$HOST" "$out" "$start" "$end"
