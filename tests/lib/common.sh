# tests/lib/common.sh — shared by the shell tests: TAP output, a real
# collectd run with the built plugin, and reading what it wrote.
#
# Every test sources this, reports with `ok`/`check` (no plan up front),
# and ends with `tap_done`.  Temporary files live in $T (removed at exit), and every
# collectd started through run_collectd is stopped at exit as well.

set -u
: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/_build}"
: "${COLLECTD_BIN:=/usr/sbin/collectd}"
: "${COLLECTD_PLUGINDIR:=/usr/lib/collectd}"
PLUGIN_BUILDDIR="$top_builddir/.libs"
FIXTURES="$top_srcdir/tests/fixtures"

T=$(mktemp -d /tmp/jc-test.XXXXXX)
TAP_N=0
TAP_FAILED=0
COLLECTD_PIDS=()
CLEANUPS=()

# ok STATUS DESCRIPTION: one test point; returns STATUS, so that
# `ok $? "server up" || tap_done` ends a test whose rest cannot run.
ok() {
  local status=$1; shift
  TAP_N=$((TAP_N + 1))
  if [ "$status" -eq 0 ]; then
    echo "ok $TAP_N - $*"
  else
    TAP_FAILED=$((TAP_FAILED + 1))
    echo "not ok $TAP_N - $*"
  fi
  return "$status"
}

check() { # check DESCRIPTION -- COMMAND...
  local desc=$1; shift
  [ "$1" = "--" ] && shift
  "$@" >/dev/null 2>&1
  ok $? "$desc"
}

diag() { sed 's/^/# /' >&1; }

# Runs at exit: stop daemons, run registered cleanups, remove $T.
_cleanup() {
  local pid
  for pid in "${COLLECTD_PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  done
  local c
  for c in "${CLEANUPS[@]}"; do eval "$c" || true; done
  [ -n "${JC_KEEP_TMP:-}" ] && echo "# kept $T" || rm -rf "$T"
}
trap _cleanup EXIT

# With JC_SANITIZE=1 (the sanitizer pass of test.sh) collectd runs with
# the ASan/UBSan runtime preloaded, since the plugin it loads is built
# with them; any report in its output fails the test.
COLLECTD_ENV=()
if [ "${JC_SANITIZE:-}" = 1 ]; then
  COLLECTD_ENV=(env "LD_PRELOAD=$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
    "ASAN_OPTIONS=detect_leaks=1:halt_on_error=0" "UBSAN_OPTIONS=print_stacktrace=1")
fi

# sanitizer_reports FILE...: the reports that concern this project: every
# AddressSanitizer and UBSan error, and every leak whose allocation stack
# has a frame outside collectd's own binary and the sanitizer runtime.
# A leak allocated by /usr/sbin/collectd alone is the daemon's, not the
# plugin's: collectd 5.12 strdup()s the name of each LoadPlugin into a
# context that a plugin registering no callback (match_regex,
# target_replace) never frees.  Those are shown, not counted.
sanitizer_reports() {
  awk '
    /ERROR: AddressSanitizer|runtime error:/ { n++ }
    /^(Direct|Indirect) leak of/ { inleak = 1; ours = 0; next }
    inleak && /^ *#[0-9]+ / {
      if ($0 !~ /libsanitizer|asan_|\(\/usr\/sbin\/collectd\+0x[0-9a-f]+\)$/) ours = 1
      next
    }
    inleak { n += ours; inleak = 0 }
    END { if (inleak) n += ours; print n + 0 }
  ' "$@"
}

sanitizer_verdict() {
  [ "${JC_SANITIZE:-}" = 1 ] || return 0
  local reports outs
  outs=$(ls "$T"/*/collectd.out "$T"/collectd.out 2>/dev/null)
  reports=0
  [ -z "$outs" ] || reports=$(sanitizer_reports $outs)
  [ "$reports" -eq 0 ]
  ok $? "no AddressSanitizer, LeakSanitizer or UBSan report from collectd"
  if [ "$reports" -ne 0 ]; then
    grep -hA12 -E 'ERROR: |runtime error:' $outs | head -60 | diag
  elif [ -n "$outs" ] && grep -q 'ERROR: LeakSanitizer' $outs; then
    echo "# collectd's own leaks, allocated in /usr/sbin/collectd alone, not counted:"
    grep -h -m1 -E '^(Direct|Indirect) leak of' $outs | sort | uniq -c | diag
  fi
}

tap_done() {
  sanitizer_verdict
  echo "1..$TAP_N"
  [ "$TAP_FAILED" -eq 0 ]
  exit $?
}

# no_errors FILE: what `joule-cgroup run` wrote on stderr has no error or
# warning in it: nothing, or only the lines that say why energy or GPU
# figures are missing ("joule-cgroup: energy: ...", on a host without
# RAPL; "joule-cgroup: gpu: ...", without an NVIDIA driver;
# tests/cli_energy.sh and tests/cli_gpu.sh check those).
no_errors() { ! grep -v '^joule-cgroup: gpu: ' "$1" | grep -qv '^joule-cgroup: energy: '; }
# but_gpu FILE: its lines but the one that says why no GPU was read.
but_gpu() { grep -v '^joule-cgroup: gpu: ' "$1"; }

# tap_relay FILE: the TAP lines of a helper (ok/not ok without a plan)
# counted as this test's own; other lines (diagnostics) as they are.
tap_relay() {
  local line
  while IFS= read -r line; do
    case $line in
      "ok "*) ok 0 "${line#ok [0-9]* - }" ;;
      "not ok "*) ok 1 "${line#not ok [0-9]* - }" ;;
      1..*) ;;
      *) echo "$line" ;;
    esac
  done <"$1"
}

# check_json NAME FILE CODE [ARGS...]: one test point: the Python CODE
# sees r, the JSON document in FILE (null when FILE is empty), and args;
# an AssertionError fails it, and what it printed goes to the log.
check_json() {
  local name=$1 file=$2 code=$3; shift 3
  python3 - "$file" "$@" >"$T/py.err" 2>&1 <<PY
import json, math, sys
text = open(sys.argv[1]).read()
r = json.loads(text) if text.strip() else None
args = sys.argv[2:]
$code
PY
  ok $? "$name"
  diag <"$T/py.err"
}

# docs_fence PAGE TEXT: the first ```sh fence of docs/PAGE that holds
# TEXT, on stdout (a test runs a page's example as written).
docs_fence() {
  python3 - "$top_srcdir/docs/$1" "$2" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
fences = re.findall(r"^```sh\n(.*?)^```$", text, re.S | re.M)
print([f for f in fences if sys.argv[2] in f][0], end="")
PY
}

# gpu_fixture: what Collect "gpu" reads without a GPU: a fixture cgroup
# tree $root ($T/cg: cpu memory, cgroups a and b) and a fixture /proc
# ($T/proc) whose pid 201 is in /a and 202 in /b, for the fake NVML
# (tests/fake_nvml.c) to list; fixture_pid PID CGROUP adds one.
fixture_pid() {
  mkdir -p "$T/proc/$1"
  echo "$1 (job) S 1 $1 $1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 $((7000 + $1)) 1000 10" >"$T/proc/$1/stat"
  echo "0::$2" >"$T/proc/$1/cgroup"
}
gpu_fixture() {
  root="$T/cg"
  mkdir -p "$root/a" "$root/b"
  local d
  for d in "$root" "$root/a" "$root/b"; do
    echo "cpu memory" >"$d/cgroup.controllers"
    echo "cpu memory" >"$d/cgroup.subtree_control"
    : >"$d/cgroup.procs"
    echo 4096 >"$d/memory.current"
  done
  fixture_pid 201 /a
  fixture_pid 202 /b
}

# In CI a test that cannot do its real work fails; elsewhere it skips.
need() { # need DESCRIPTION -- COMMAND...
  local desc=$1; shift
  [ "$1" = "--" ] && shift
  if ! "$@" >/dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then
      ok 1 "required: $desc"
      tap_done
    fi
    echo "1..0 # SKIP $desc"
    exit 0
  fi
}

# ---- the real kernel --------------------------------------------------------

# The cgroup2 mount point, "" when there is none.
mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)

# need_kernel: root and a cgroup2 mount (fails in CI, skips elsewhere).
need_kernel() {
  need "root" -- test "$(id -u)" -eq 0
  need "a cgroup2 mount" -- test -n "$mnt"
}

# need_controllers C...: the cgroup2 root offers controllers C (a unified
# host, or the VM of make check-vm).
need_controllers() {
  local c
  for c; do
    need "the $c controller in $mnt (a unified host; make check-vm)" -- \
      grep -qw "$c" "$mnt/cgroup.controllers"
  done
}

# peak_resets: $kver, the running kernel, and $resets, "yes" from Linux
# 6.12 on, which resets memory.peak per descriptor (the interval peak).
peak_resets() {
  kver=$(uname -r)
  [ "$(printf '%s\n6.12\n' "${kver%%-*}" | sort -V | head -n 1)" = 6.12 ] && resets=yes || resets=no
}

# need_collectd: the collectd daemon and the built plugin.  need_memhog:
# the helper of the memory tests (tests/memhog.c, built by make check),
# as $HOG.
need_collectd() {
  need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
  need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
}
need_memhog() {
  HOG=$top_builddir/tests/memhog
  need "built tests/memhog" -- test -x "$HOG"
}
# need_disk: a scratch block device to write to, $VM_DISK (default the
# VM's /dev/vda).
need_disk() {
  : "${VM_DISK:=/dev/vda}"
  need "a scratch block device $VM_DISK (make check-vm)" -- test -b "$VM_DISK"
}

# plugin_fds PID: descriptors of process PID on the cgroup tree, and
# inotify: the plugin's.  (The csv plugin opens and closes its files all
# the time; counting those would measure a race.)
plugin_fds() {
  find "/proc/$1/fd" -mindepth 1 -printf '%l\n' 2>/dev/null |
    grep -cE "^($mnt|anon_inode:inotify)" || true
}

# make_run_parent NAME: $parent = $mnt/NAME-<pid>, a cgroup for this test
# run only ($run is its name under the mount).  Everything below it, and it,
# goes at exit.
make_run_parent() {
  run="$1-$$"
  parent="$mnt/$run"
  mkdir "$parent"
  CLEANUPS+=(remove_run_parent)
}

# hand_down_controllers: what the mount hands to $parent, handed on to its
# children (an administrator's delegation; on a hybrid host there is none).
hand_down_controllers() {
  local c
  for c in $(cat "$parent/cgroup.controllers"); do
    echo "+$c" >"$parent/cgroup.subtree_control" 2>/dev/null
  done
}

# start_busy: a busy-looping child ($busy_pid, killed at exit), its pid in
# $T/busy.pid, and the cgroup it starts in ($home, its "0::" line).
start_busy() {
  bash -c 'while :; do :; done' &
  busy_pid=$!
  CLEANUPS+=("kill $busy_pid 2>/dev/null")
  echo "$busy_pid" >"$T/busy.pid"
  home=$(grep '^0::' "/proc/$busy_pid/cgroup")
}

# kill_and_rmdir DIR: the processes in cgroup DIR are this test's own:
# killed, then DIR removed (retried while they die).
kill_and_rmdir() {
  local p i
  for p in $(cat "$1/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
  for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$1" 2>/dev/null && return; sleep 0.1; done
}

# empty_run_parent: removes every cgroup below $parent, deepest first.
empty_run_parent() {
  local d
  for d in $(find "$parent" -mindepth 1 -depth -type d 2>/dev/null); do
    kill_and_rmdir "$d"
  done
}
remove_run_parent() {
  empty_run_parent
  kill_and_rmdir "$parent"
}

# notification_exec: collectd's exec plugin runs NotificationExec as
# nobody; $notes is a directory it writes each notification to (a file
# n.PID each), $exec_block the configuration to give write_conf.
notification_exec() {
  chmod 711 "$T" # nobody reaches its own directory below, nothing else
  notes="$T/notes"
  mkdir -m 777 "$notes"
  printf '#!/bin/sh\ncat >"%s/n.$$"\n' "$notes" >"$T/notify.sh"
  chmod 755 "$T/notify.sh"
  exec_block="LoadPlugin exec
<Plugin exec>
  NotificationExec \"nobody\" \"$T/notify.sh\"
</Plugin>"
}

# write_conf DIR PLUGIN-BLOCK-TEXT [EXTRA-GLOBAL-TEXT]
# A collectd config: logfile, csv and write_log (JSON, for the meta data)
# into DIR, the stock plugins from collectd's directory, then the plugin
# from the build tree.
write_conf() {
  local dir=$1 block=$2 extra=${3:-}
  mkdir -p "$dir/csv"
  {
    conf_head "$dir" "$extra"
    cat <<CONF
LoadPlugin write_log
<Plugin write_log>
  Format JSON
</Plugin>
PluginDir "$PLUGIN_BUILDDIR"
LoadPlugin joule_cgroup
<Plugin joule_cgroup>
$block
</Plugin>
CONF
  } >"$dir/collectd.conf"
}

# conf_head DIR [EXTRA-GLOBAL-TEXT]: the first part of write_conf's
# configuration on stdout: the globals, logfile and csv into DIR (which
# must exist, with DIR/csv), the stock plugins from $COLLECTD_PLUGINDIR.
conf_head() {
  local dir=$1 extra=${2:-}
  cat <<CONF
Hostname "testhost"
FQDNLookup false
Interval ${JC_INTERVAL:-0.5}
BaseDir "$dir"
PIDFile "$dir/collectd.pid"
TypesDB "/usr/share/collectd/types.db"
WriteQueueLimitHigh 1000000
$extra
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
CONF
}

# start_watching DIR SELECT COLLECT [MORE-OPTIONS [EXTRA-GLOBAL-TEXT]]:
# collectd in the background (start_collectd) with the plugin reading the
# cgroups SELECT of the mount, not its root; COLLECT is the Collect values
# as written in the configuration ('"cpu" "pids"'); EXTRA-GLOBAL-TEXT as
# write_conf's (other plugins' blocks).
start_watching() {
  write_conf "$1" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$2\"
  Collect $3
${4:-}" "${5:-}"
  start_collectd "$1"
}

# collectd_once DIR [TIMEOUT]: runs until it exits by itself (bad configs).
collectd_once() {
  timeout "${2:-20}" "${COLLECTD_ENV[@]}" "$COLLECTD_BIN" -f -C "$1/collectd.conf" >>"$1/collectd.out" 2>&1
}

# Tests wait for events (reads done, lines logged), never for a time: a
# loaded machine makes them slower, not red.  JC_WAIT_LIMIT only bounds a
# hang.
: "${JC_WAIT_LIMIT:=120}"

# wait_until COMMAND...: runs COMMAND every 0.05 s until it succeeds;
# status 1 when JC_WAIT_LIMIT seconds pass first.
wait_until() {
  local end=$((SECONDS + JC_WAIT_LIMIT))
  until "$@"; do
    [ "$SECONDS" -lt "$end" ] || return 1
    nap 0.05
  done
}

# csv_reads DIR: reads the plugin has done, as the csv plugin saw them: the
# data lines of its longest csv file (one line per read and value list).
csv_reads() {
  local longest
  longest=$(find "$1/csv" -path '*/joule_cgroup-*' -type f -exec wc -l {} + 2>/dev/null |
    awk '$2 != "total" && $1 > n { n = $1 } END { print n + 0 }')
  echo $((longest > 0 ? longest - 1 : 0))
}

# collectd_reached DIR READS: collectd (COLLECTD_PID) has finished its
# start-up (READS = 0) or done READS reads of the plugin -- or has exited.
collectd_reached() {
  kill -0 "$COLLECTD_PID" 2>/dev/null || return 0
  if [ "$2" -eq 0 ]; then
    grep -q 'entering read-loop' "$1/collectd.log" 2>/dev/null
  else
    [ "$(csv_reads "$1")" -ge "$2" ]
  fi
}

# run_collectd DIR [READS]: collectd in the foreground until the plugin has
# done READS reads (default 0: until start-up is over, which is when a
# plugin that fails its init has said why), then SIGTERM: a clean
# shutdown, so the plugin's shutdown callback runs.  COLLECT_READS is
# what happened; COLLECT_STATUS collectd's exit status.
run_collectd() {
  local dir=$1 reads=${2:-0}
  start_collectd "$dir"
  wait_until collectd_reached "$dir" "$reads"
  stop_collectd
  COLLECT_STATUS=$?
  COLLECT_READS=$(csv_reads "$dir")
}

# start_collectd DIR: in the background; stop_collectd DIR ends it.
start_collectd() {
  local dir=$1
  "${COLLECTD_ENV[@]}" "$COLLECTD_BIN" -f -C "$dir/collectd.conf" >>"$dir/collectd.out" 2>&1 &
  COLLECTD_PID=$!
  COLLECTD_PIDS+=("$COLLECTD_PID")
}
stop_collectd() {
  kill -TERM "$COLLECTD_PID" 2>/dev/null
  wait "$COLLECTD_PID" 2>/dev/null
}

# csv_last DIR INSTANCE TYPE-FILE: the last data line of a csv series,
# without its timestamp, numbers as %.15g ("1234" or "12,34").
csv_last() {
  local f
  f=$(ls "$1/csv/testhost/joule_cgroup-$2/$3"-[0-9]* 2>/dev/null | tail -n 1)
  [ -n "$f" ] || return 1
  tail -n 1 "$f" | awk -F, '{ s = ""; for (i = 2; i <= NF; i++)
    s = s (i > 2 ? "," : "") sprintf("%.15g", $i); print s }'
}

# csv_settled DIR INSTANCE TYPE-FILE: the last two data lines of a csv
# series hold the same values: what was read stands still, and the csv
# plugin's writer (which lags behind the reads) has caught up with it.
csv_settled() {
  local f
  f=$(ls "$1/csv/testhost/joule_cgroup-$2/$3"-[0-9]* 2>/dev/null | tail -n 1)
  [ -n "$f" ] && [ "$(tail -n 2 "$f" | cut -d, -f2- | grep -v '^value\|^user' | uniq | wc -l)" -eq 1 ] &&
    [ "$(grep -vc '^epoch' "$f")" -ge 2 ]
}

# csv_first DIR INSTANCE TYPE-FILE: the first data line, like csv_last.
csv_first() {
  local f
  f=$(ls "$1/csv/testhost/joule_cgroup-$2/$3"-[0-9]* 2>/dev/null | head -n 1)
  [ -n "$f" ] || return 1
  grep -v '^epoch' "$f" | head -n 1 | awk -F, '{ s = ""; for (i = 2; i <= NF; i++)
    s = s (i > 2 ? "," : "") sprintf("%.15g", $i); print s }'
}

# csv_count DIR INSTANCE TYPE-FILE: the data lines of a series, one per
# read that sent it.  Tests count reads with it: emulated kernels are slow,
# seconds mean little there.  This and the waits below start no process
# (in a TCG guest every fork costs ~0.1 s and takes CPU from collectd).
csv_count() { _csv_count "$@"; echo "$_n"; }
_csv_count() { # sets _n
  local f lines
  _n=0
  for f in "$1/csv/testhost/joule_cgroup-$2/$3"-[0-9]*; do
    [ -f "$f" ] || continue
    mapfile -t lines <"$f"
    _n=$((_n + ${#lines[@]} - 1)) # the header line "epoch,..."
  done
}
_csv_has() { _csv_count "$2" "$3" "$4"; [ "$_n" -ge "$1" ]; }

# file_has FILE TEXT: a line of FILE contains TEXT.
file_has() {
  local l
  [ -r "$1" ] || return 1
  while IFS= read -r l; do [[ $l == *"$2"* ]] && return 0; done <"$1"
  return 1
}
# in_cgroup PID PATH: process PID is in the cgroup PATH (relative to the
# mount, leading "/"), as /proc/PID/cgroup says.
in_cgroup() {
  local l
  [ -r "/proc/$1/cgroup" ] || return 1
  while IFS= read -r l; do [ "$l" = "0::$2" ] && return 0; done <"/proc/$1/cgroup"
  return 1
}

# nap SECONDS: sleep without a process (read's timeout on a FIFO that
# nobody writes to).
nap() {
  [ -p "$T/.nap" ] || mkfifo "$T/.nap" 2>/dev/null || { sleep "$1"; return; }
  read -rt "$1" <>"$T/.nap" || true
}

# wait_reads N DIR INSTANCE TYPE-FILE: waits until the series has N lines
# more than now (N more reads of that cgroup).
wait_reads() {
  local n=$1
  shift
  _csv_count "$@"
  wait_until _csv_has $((_n + n)) "$@"
}

# csv_instances DIR: the plugin instances collectd wrote, sorted.
csv_instances() {
  ls "$1/csv/testhost" 2>/dev/null | sed -n 's/^joule_cgroup-//p' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}

# log_count DIR PATTERN: lines of the plugin's log matching an ERE.
log_count() { grep -cE "$2" "$1/collectd.log" 2>/dev/null || true; }
# one_error DIR ERE: the plugin logged exactly one ERROR line, matching ERE
# (shown with diag).
one_error() {
  local lines
  lines=$(grep '^\[error\] joule_cgroup plugin: ' "$1/collectd.log" 2>/dev/null)
  echo "$lines" | diag
  [ -n "$lines" ] && [ "$(wc -l <<<"$lines")" -eq 1 ] && grep -qE -- "$2" <<<"$lines"
}
loud_lines() { grep -E '^\[(error|warning)\] joule_cgroup plugin:' "$1/collectd.log" 2>/dev/null | grep -c . || true; }
