# bench/lib.sh — what scripts/bench.sh and bench/vm-stock.sh share: trees
# of cgroups, the plugin's configuration block, and the CPU a real collectd
# spends per cgroup per read with its `network` plugin sending to
# bench/jc_sink on 127.0.0.1.
#
# The caller sets: top_builddir, COLLECTD_BIN, COLLECTD_PLUGINDIR, tmp (a
# scratch directory), and may set BENCH_WARM (reads before the window, 3)
# and BENCH_READS (reads in it, 10).  Every process started here is
# stopped by bench_stop_all (call it from the caller's EXIT trap).

: "${BENCH_WARM:=3}"
: "${BENCH_READS:=10}"
bench_pids=()

# make_flat DIR N: DIR/c0 ... DIR/c(N-1), and DIR itself.
make_flat() {
  mkdir "$1"
  (cd "$1" && seq 0 $(($2 - 1)) | sed 's/^/c/' | xargs mkdir)
}

# drop_tree DIR: DIR and every directory below it (cgroups: rmdir only).
drop_tree() {
  [ -d "$1" ] || return 0
  find "$1" -depth -type d -exec rmdir {} +
}

bench_stop() { # bench_stop PID: TERM, then KILL after 10 s
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

bench_forget() { # bench_forget PID: stopped; never signalled again
  local kept=() pid
  for pid in "${bench_pids[@]}"; do [ "$pid" = "$1" ] || kept+=("$pid"); done
  bench_pids=("${kept[@]}")
}

bench_stop_all() {
  local pid
  for pid in "${bench_pids[@]}"; do bench_stop "$pid"; done
  bench_pids=()
}

# wait_for_file FILE SECONDS: 0 once FILE exists, 1 after SECONDS.
wait_for_file() {
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    [ -s "$1" ] && return 0
    sleep 0.1
  done
  return 1
}

# collectd_cpu TAG N MARKER: runs collectd (Interval 1) with the plugin
# configuration read from stdin (LoadPlugin lines and <Plugin> blocks) and
# `network` to a jc_sink; sets bench_result to "US LISTS SECONDS" (not
# printed: run in this shell, so that its processes are ours to stop
# whatever happens): collectd's CPU µs per
# cgroup per read (utime + stime over BENCH_READS reads counted by the
# marker list, after BENCH_WARM), the value lists per cgroup per read the
# sink received, and the seconds per read.  Returns 1 (and says why on
# stderr) when the reads did not come.
collectd_cpu() {
  local tag=$1 n=$2 marker=$3 dir="$tmp/$1"
  bench_result=
  local timeout=$((60 + 2 * (BENCH_WARM + BENCH_READS)))
  mkdir -p "$dir"
  local plugins
  plugins=$(cat)
  "$top_builddir/bench/jc_sink" "$dir/port" "$dir/pid" "$marker" \
    "$BENCH_WARM" "$BENCH_READS" "$timeout" >"$dir/sink.out" 2>"$dir/sink.err" &
  local sink=$!
  bench_pids+=("$sink")
  wait_for_file "$dir/port" 10 || { echo "bench: $tag: the sink did not start" >&2; return 1; }
  cat >"$dir/collectd.conf" <<CONF
Hostname "bench"
FQDNLookup false
Interval 1
BaseDir "$dir"
TypesDB "/usr/share/collectd/types.db"
PluginDir "$COLLECTD_PLUGINDIR"
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$dir/collectd.log"
</Plugin>
LoadPlugin network
<Plugin network>
  Server "127.0.0.1" "$(cat "$dir/port")"
</Plugin>
$plugins
CONF
  "$COLLECTD_BIN" -f -C "$dir/collectd.conf" >"$dir/collectd.out" 2>&1 &
  local daemon=$!
  bench_pids+=("$daemon")
  echo "$daemon" >"$dir/pid"
  while kill -0 "$sink" 2>/dev/null && kill -0 "$daemon" 2>/dev/null; do sleep 0.2; done
  local rc=0
  wait "$sink" || rc=$?
  bench_forget "$sink"
  bench_stop "$daemon"
  bench_forget "$daemon"
  if [ "$rc" -ne 0 ] || [ ! -s "$dir/sink.out" ]; then
    echo "bench: $tag: $(cat "$dir/sink.err" 2>/dev/null)" >&2
    grep -h -iE 'error|warn' "$dir/collectd.log" "$dir/collectd.out" 2>/dev/null | head -5 >&2
    return 1
  fi
  local reads ticks hz lists seconds
  eval "$(tr ' ' '\n' <"$dir/sink.out" | sed -n 's/^\(reads\|ticks\|hz\|lists\|seconds\)=/\1=/p')"
  bench_result=$(awk -v r="$reads" -v t="$ticks" -v hz="$hz" -v l="$lists" \
    -v s="$seconds" -v n="$n" \
    'BEGIN { printf "%.1f %.2f %.2f", t / hz * 1e6 / r / n, l / r / n, s / r }')
}

# joule_block ROOT SELECT OPTIONS...: the plugin's lines of a collectd
# configuration, on the cgroups below ROOT that SELECT names, with OPTIONS.
joule_block() {
  local root=$1 select=$2 o
  echo "PluginDir \"$top_builddir/.libs\""
  echo "LoadPlugin joule_cgroup"
  echo "<Plugin joule_cgroup>"
  echo "  CgroupRoot \"$root\""
  echo "  ReportRoot false"
  echo "  Select \"$select\""
  shift 2
  for o in "$@"; do echo "  $o"; done
  echo "</Plugin>"
}
