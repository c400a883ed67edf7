#!/usr/bin/env bash
# bench/soak.sh — part "soak" of make bench: memory flat under churn.
#
# The real collectd with the plugin reads a parent named for the run on
# this host's cgroup v2 while JC_SOAK_CGROUPS (100,000) cgroups are created
# and removed below it, in batches of JC_SOAK_BATCH (500): a batch is made,
# every JC_SOAK_JOB_EVERY-th (25th) of its cgroups gets a process that ends
# after 0.15 s, the batch stays for two reads, its processes are waited
# for (so that each of those cgroups empties while collectd watches it:
# cgroup.events, its final read), and it is removed.  collectd runs at
# Interval JC_SOAK_INTERVAL (0.1 s), so that many passes see the churn;
# one cgroup, the clock, stays the whole run and counts the reads (its
# lines in csv).  The churned cgroups' values are stopped in the PreCache
# chain: collectd copies and queues each value list as always, but its
# value cache and its writers hold none of them, so that what could grow
# is the plugin's, not the cache of 100,000 names.
#
# Two configurations (JC_SOAK_CONFIGS): "default" (no key but CgroupRoot
# and Select) and "all": every Collect group, Values "*", NotifyEnd true
# and PathMetaData true.  After 10 %, 50 % and 100 % of the cgroups, once
# the churn is over and ten quiet reads have passed, it prints:
#
#   RSS kB      collectd's VmRSS
#   trim kB     the same once malloc_trim(0) has given the free pages of
#               every arena back (tests/heapcount.c, preloaded): the least
#               of five, two reads apart
#   heap kB     collectd's heap in use (heapcount), the least of the five
#   plugin B    the plugin's own heap in use, in bytes,
#   blocks      its blocks in use, and
#   allocs      the allocations it has made since it was loaded: counted in
#               bench/counted/joule_cgroup.so, the plugin built again with
#               tests/alloccount.c wrapping its malloc, free and the rest
#               (-Wl,--wrap), which collectd loads in place of the other
#
# and the growth from 10 % to 100 % against the bounds that
# docs/performance.md justifies (memory under churn): the plugin's heap by
# JC_SOAK_BOUND_B (0) bytes and 0 blocks, collectd's heap in use by
# JC_SOAK_BOUND_HEAP_KB (256) kB, its RSS after malloc_trim by
# JC_SOAK_BOUND_RSS_KB (2048) kB.  The RSS before it is printed, not held
# to a bound: it is the most collectd's heap ever held, and a loaded
# machine, whose writer threads fall behind for a moment, raises it.
# JC_SOAK_KEEP=1 keeps the run's files (collectd's logs, the figures).
#
# Run through make bench (BENCH_PARTS=soak), as root.  Every cgroup it
# makes is below the run's parent, removed at the end; every process it
# starts is stopped.
set -euo pipefail
: "${top_builddir:?run through make bench}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${COLLECTD_BIN:=/usr/sbin/collectd}"
: "${COLLECTD_PLUGINDIR:=/usr/lib/collectd}"
: "${JC_SOAK_CGROUPS:=100000}" "${JC_SOAK_BATCH:=500}" "${JC_SOAK_INTERVAL:=0.1}"
: "${JC_SOAK_JOB_EVERY:=25}" "${JC_SOAK_CONFIGS:=default all}"
: "${JC_SOAK_BOUND_B:=0}" "${JC_SOAK_BOUND_HEAP_KB:=256}" "${JC_SOAK_BOUND_RSS_KB:=2048}"
mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -z "$mnt" ] || [ "$(id -u)" -ne 0 ]; then
  echo "soak: needs root and a cgroup2 mount" >&2
  exit 1
fi
counted=$top_builddir/bench/counted/.libs
[ -f "$counted/joule_cgroup.so" ] || { echo "soak: no $counted/joule_cgroup.so (make bench builds it)" >&2; exit 1; }
batches=$((JC_SOAK_CGROUPS / JC_SOAK_BATCH))
if [ "$batches" -lt 10 ] || [ $((batches % 10)) -ne 0 ]; then
  echo "soak: JC_SOAK_CGROUPS must be 10 x a multiple of JC_SOAK_BATCH" >&2
  exit 1
fi

run="joule-soak-$$"
parent="$mnt/$run"
tmp=$(mktemp -d /tmp/joule-soak.XXXXXX)
job_pids=()
# shellcheck source=bench/lib.sh
. "$top_srcdir/bench/lib.sh"
cleanup() {
  set +e
  local pid
  for pid in "${job_pids[@]}"; do kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  bench_stop_all
  drop_tree "$parent"
  if [ -n "${JC_SOAK_KEEP:-}" ]; then echo "soak: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

heapcount=$tmp/heapcount.so
cc -shared -fPIC -O2 -o "$heapcount" "$top_srcdir/tests/heapcount.c" -lpthread

block_default=''
block_all='  Collect "cpu" "memory" "io" "limits" "pressure" "events" "pids" "energy" "cgroups" "gpu" "network"
  Values "*"
  NotifyEnd true
  PathMetaData true'

# reads DIR: the reads of the plugin csv has written (the clock's lines).
reads() {
  local f lines n=0
  for f in "$1/csv/soak/joule_cgroup-${run}_clock"/ps_cputime-*; do
    [ -f "$f" ] || continue
    mapfile -t lines <"$f"
    n=$((n + ${#lines[@]} - 1))
  done
  echo "$n"
}
# after_reads DIR N: N more reads, at most 300 s (1 when not).
after_reads() {
  local want=$(($(reads "$1") + $2)) i
  for ((i = 0; i < 6000; i++)); do
    [ "$(reads "$1")" -ge "$want" ] && return 0
    kill -0 "$daemon" 2>/dev/null || break
    sleep 0.05
  done
  echo "soak: $2 reads did not come (collectd $(kill -0 "$daemon" 2>/dev/null && echo running || echo gone))" >&2
  return 1
}

# rmdir_batch NAMES...: removed; a cgroup whose process was just reaped
# may refuse for a moment (EBUSY), so retried, at most 100 times.
rmdir_batch() {
  local i
  for ((i = 0; i < 100; i++)); do
    rmdir "$@" 2>/dev/null && return 0
    local left=() d
    for d; do [ ! -d "$d" ] || left+=("$d"); done
    [ "${#left[@]}" -gt 0 ] || return 0
    set -- "${left[@]}"
    sleep 0.05
  done
  echo "soak: could not remove $*" >&2
  return 1
}

# churn DIR FROM TO: batches FROM..TO-1.
churn() {
  local dir=$1 k j names
  for ((k = $2; k < $3; k++)); do
    names=()
    for ((j = 0; j < JC_SOAK_BATCH; j++)); do names+=("$parent/b$k-$j"); done
    mkdir "${names[@]}"
    job_pids=()
    for ((j = 0; j < JC_SOAK_BATCH; j += JC_SOAK_JOB_EVERY)); do
      sh -c 'echo $$ >"$1/cgroup.procs" && exec sleep 0.15' job "${names[j]}" &
      job_pids+=($!)
    done
    after_reads "$dir" 2
    wait "${job_pids[@]}" || true
    job_pids=()
    rmdir_batch "${names[@]}"
  done
}

# measure DIR CGROUPS: one line of figures once the churn is over: ten
# quiet reads, then five readings two reads apart: the plugin's counts,
# collectd's RSS (at the first), its heap in use and its RSS once
# malloc_trim gave its free pages back (tests/heapcount.c): the least of
# the five, which a moment's backlog of collectd's writers does not set.
measure() {
  local dir=$1 i k heap rss r least='' trimmed='' bytes blocks allocs
  after_reads "$dir" 10
  rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$daemon/status")
  for ((i = 0; i < 5; i++)); do
    sleep 0.2 # the counts are written every 100 ms
    heap=$(awk '{ print int($1 / 1024) }' "$dir/heap")
    if [ -z "$least" ] || [ "$heap" -lt "$least" ]; then least=$heap; fi
    touch "$dir/heap.trim"
    for ((k = 0; k < 100; k++)); do
      [ -e "$dir/heap.trim" ] || break
      sleep 0.05
    done
    r=$(awk '/^VmRSS/ { print $2 }' "/proc/$daemon/status")
    if [ -z "$trimmed" ] || [ "$r" -lt "$trimmed" ]; then trimmed=$r; fi
    after_reads "$dir" 2
  done
  read -r bytes blocks allocs <"$dir/alloc"
  echo "$2 $(reads "$dir") $rss $trimmed $least $bytes $blocks $allocs" >>"$dir/figures"
  printf '   %-8s %6s %7s %8s %8s %9s %7s %9s\n' "$2" "$(reads "$dir")" "$rss" "$trimmed" \
    "$least" "$bytes" "$blocks" "$allocs"
}

# soak NAME BLOCK: one configuration, start to end.
soak() {
  local name=$1 block=$2 dir=$tmp/$1 t0=$SECONDS
  mkdir -p "$dir/csv"
  cat >"$dir/collectd.conf" <<CONF
Hostname "soak"
FQDNLookup false
Interval $JC_SOAK_INTERVAL
BaseDir "$dir"
TypesDB "/usr/share/collectd/types.db"
WriteQueueLimitHigh 1000000
PluginDir "$COLLECTD_PLUGINDIR"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$dir/collectd.log"
  Timestamp false
  PrintSeverity true
</Plugin>
LoadPlugin csv
<Plugin csv>
  DataDir "$dir/csv"
  StoreRates false
</Plugin>
LoadPlugin match_regex
<Chain "PreCache">
  <Rule "churn">
    <Match "regex">
      PluginInstance "^${run}_b"
    </Match>
    Target "stop"
  </Rule>
</Chain>
PluginDir "$counted"
LoadPlugin joule_cgroup
<Plugin joule_cgroup>
  CgroupRoot "$mnt"
  Select "$run/*"
$block
</Plugin>
CONF
  echo "   $name: ${block:-(the default: CgroupRoot and Select only)}" | sed '2,$s/^ */     /'
  env "HEAPCOUNT_FILE=$dir/heap" "LD_PRELOAD=$heapcount" "JC_ALLOCCOUNT_FILE=$dir/alloc" \
    "$COLLECTD_BIN" -f -C "$dir/collectd.conf" >"$dir/collectd.out" 2>&1 &
  daemon=$!
  bench_pids+=("$daemon")
  after_reads "$dir" 2
  printf '   %-8s %6s %7s %8s %8s %9s %7s %9s\n' cgroups reads "RSS kB" "trim kB" "heap kB" \
    "plugin B" blocks allocs
  measure "$dir" 0
  local tenth=$((batches / 10))
  churn "$dir" 0 "$tenth"
  measure "$dir" $((tenth * JC_SOAK_BATCH))
  churn "$dir" "$tenth" $((batches / 2))
  measure "$dir" $((batches * JC_SOAK_BATCH / 2))
  churn "$dir" $((batches / 2)) "$batches"
  measure "$dir" "$JC_SOAK_CGROUPS"
  bench_stop "$daemon"
  bench_forget "$daemon"
  local ended once lost loud f10 f100
  # each cgroup that held a job and went: its "removed" record, once
  ended=$(grep -o "plugin_instance = ${run}_b[0-9-]*, type = cgroup, type_instance = removed" \
    "$dir/collectd.log" | sort | uniq -c || true)
  once=$(grep -c '^ *1 ' <<<"$ended" || true)
  lost=$(sed -n 's/.*joule_cgroup plugin: \([0-9]*\) cgroups\{0,1\} emptied and w.* removed before .*/\1/p' \
    "$dir/collectd.log" | awk '{ n += $1 } END { print n + 0 }')
  loud=$(grep -cE '^\[(error|warning)\] joule_cgroup plugin:' "$dir/collectd.log" || true)
  f10=$(sed -n 2p "$dir/figures") f100=$(tail -n 1 "$dir/figures")
  # growth FIELD: the figure's change from 10 % to 100 % (fields of figures)
  growth() { echo $(($(cut -d' ' -f"$1" <<<"$f100") - $(cut -d' ' -f"$1" <<<"$f10"))); }
  printf '   from %s to %s cgroups: RSS %+d kB, after malloc_trim %+d kB (bound %d); heap in use %+d kB (bound %d);\n' \
    $((tenth * JC_SOAK_BATCH)) "$JC_SOAK_CGROUPS" "$(growth 3)" "$(growth 4)" "$JC_SOAK_BOUND_RSS_KB" \
    "$(growth 5)" "$JC_SOAK_BOUND_HEAP_KB"
  printf '   the plugin %+d B (bound %d), %+d blocks (bound 0); %s allocations a cgroup\n' \
    "$(growth 6)" "$JC_SOAK_BOUND_B" "$(growth 7)" \
    "$(awk -v a="$(growth 8)" -v n=$((JC_SOAK_CGROUPS - tenth * JC_SOAK_BATCH)) 'BEGIN { printf "%.0f", a / n }')"
  echo "   $((JC_SOAK_CGROUPS / JC_SOAK_JOB_EVERY)) cgroups held a process that ended: NotifyEnd records for" \
    "$(grep -c . <<<"$ended" || true) of them, $once once; $lost removed before their final read (INFO);" \
    "the plugin's WARNING or ERROR lines: $loud; $((SECONDS - t0)) s"
  grep -E '^\[(error|warning)\] joule_cgroup plugin:' "$dir/collectd.log" | sort | uniq -c | head -5 | sed 's/^/     /' || true
  local verdict=met
  if [ "$(growth 4)" -gt "$JC_SOAK_BOUND_RSS_KB" ] || [ "$(growth 5)" -gt "$JC_SOAK_BOUND_HEAP_KB" ] ||
    [ "$(growth 6)" -gt "$JC_SOAK_BOUND_B" ] || [ "$(growth 7)" -gt 0 ]; then
    verdict=MISSED
  fi
  soak_verdict+=("$(printf '  %-66s %s' "soak $name: flat from 10 % to 100 % of $JC_SOAK_CGROUPS cgroups" "$verdict")")
}

echo "3. Memory under churn: $JC_SOAK_CGROUPS cgroups created and removed below $parent,"
echo "   $JC_SOAK_BATCH at a time, each batch for two reads, every ${JC_SOAK_JOB_EVERY}th with a process that ends;"
echo "   collectd at Interval $JC_SOAK_INTERVAL with bench/counted/joule_cgroup.so"
mkdir "$parent" "$parent/clock"
soak_verdict=()
for config in $JC_SOAK_CONFIGS; do
  case $config in
    default) soak default "$block_default" ;;
    all) soak all "$block_all" ;;
    *) echo "soak: no configuration $config" >&2; exit 1 ;;
  esac
done
printf '%s\n' "${soak_verdict[@]}"
