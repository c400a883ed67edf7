#!/usr/bin/env bash
# graph-render.sh - draw one PNG from the RRD files that collectd's rrdtool
# plugin wrote during scripts/graph.sh. Kept apart from the collection so the
# drawing can be redone (or tried on stock-plugin data) without another run.
#
#   scripts/graph-render.sh HOSTDIR OUT.png START END
#
# HOSTDIR is <DataDir>/<Hostname>. Drawn from it, where the file exists:
#   joule_cgroup-work/ps_cputime.rrd       cgroup CPU, user and system (area)
#   joule_cgroup-work/gauge-cpu_cores.rrd  cgroup CPUs busy (line)
#   cpu/percent-active.rrd                 the whole host's CPUs busy (line)
#   joule_cgroup-work/memory-current.rrd   cgroup memory (right axis)
#   joule_cgroup-work/memory-peak.rrd      cgroup memory.peak (right axis)
# It fails when none of the CPU files is there.
set -euo pipefail

if (($# != 4)); then
	echo "usage: $0 HOSTDIR OUT.png START END" >&2
	exit 2
fi
dir=$1 out=$2 start=$3 end=$4
cg=$dir/joule_cgroup-work
ncpu=$(nproc)

args=()
have_cpu=0
# ps_cputime is a DERIVE in µs; the RRD holds its rate, µs per second, so
# dividing by 1e6 gives CPUs busy, the unit of the whole left axis.
if [[ -f $cg/ps_cputime.rrd ]]; then
	args+=("DEF:user_us=$cg/ps_cputime.rrd:user:AVERAGE"
		"DEF:syst_us=$cg/ps_cputime.rrd:syst:AVERAGE"
		"CDEF:user=user_us,1000000,/"
		"CDEF:syst=syst_us,1000000,/"
		"AREA:user#7aa6da:cgroup user"
		"AREA:syst#e78c45:cgroup system:STACK")
	have_cpu=1
fi
if [[ -f $cg/gauge-cpu_cores.rrd ]]; then
	args+=("DEF:cores=$cg/gauge-cpu_cores.rrd:value:AVERAGE"
		"LINE2:cores#1f3d7a:cgroup CPUs busy (gauge-cpu_cores)")
	have_cpu=1
fi
# The host line puts the cgroup in proportion: what else ran meanwhile.
if [[ -f $dir/cpu/percent-active.rrd ]]; then
	args+=("DEF:active=$dir/cpu/percent-active.rrd:value:AVERAGE"
		"CDEF:host=active,100,/,$ncpu,*"
		"LINE1:host#999999:whole host CPUs busy (cpu plugin)\\n")
	have_cpu=1
fi
if ((!have_cpu)); then
	echo "$0: no CPU RRD files under $dir" >&2
	exit 1
fi

# Memory shares the picture on the right axis. rrdtool scales that axis by
# a fixed factor, so pick one that maps the largest sample to about the top
# of the CPU axis (ncpu), rounded up to a power of two MiB per CPU.
if [[ -f $cg/memory-current.rrd ]]; then
	top_rrd=$cg/memory-current.rrd
	[[ -f $cg/memory-peak.rrd ]] && top_rrd=$cg/memory-peak.rrd
	max_mib=$(rrdtool graph /dev/null --start "$start" --end "$end" \
		"DEF:m=$top_rrd:value:MAX" "VDEF:mx=m,MAXIMUM" \
		"PRINT:mx:%.0lf" | tail -n 1)
	max_mib=$(awk -v b="$max_mib" 'BEGIN { printf "%d", b / 1048576 + 1 }')
	per_cpu=1
	while ((per_cpu * ncpu < max_mib)); do per_cpu=$((per_cpu * 2)); done
	args+=("--right-axis" "$per_cpu:0" "--right-axis-label" "memory, MiB"
		"--right-axis-format" "%.0lf"
		"DEF:mem=$cg/memory-current.rrd:value:AVERAGE"
		"CDEF:mem_scaled=mem,1048576,/,$per_cpu,/"
		"LINE2:mem_scaled#3a9a3a:cgroup memory.current (right axis)")
	if [[ -f $cg/memory-peak.rrd ]]; then
		args+=("DEF:peak=$cg/memory-peak.rrd:value:MAX"
			"CDEF:peak_scaled=peak,1048576,/,$per_cpu,/"
			"LINE1:peak_scaled#b03030:cgroup memory.peak (right axis):dashes")
	fi
fi

mkdir -p "$(dirname "$out")"
rrdtool graph "$out" --imgformat PNG --start "$start" --end "$end" \
	--width 760 --height 260 --lower-limit 0 --upper-limit "$ncpu" \
	--title "joule_cgroup: one busy loop, a pause, then two (1 s samples)" \
	--vertical-label "CPUs busy" --x-grid SECOND:5:SECOND:10:SECOND:10:0:%M:%S \
	"${args[@]}" >/dev/null
echo "$out"
