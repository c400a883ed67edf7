#!/usr/bin/env bash
# The read side needs no root: without <Cgroup> blocks, collectd running
# as an unprivileged user (nobody) reports everything it reports as root,
# on the real kernel (the cgroup2 tree is readable by all), and on a tree
# readable by root only when it is given CAP_DAC_READ_SEARCH and nothing
# else (without it, init says what is missing).
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
need "setpriv (util-linux)" -- command -v setpriv
need "a user nobody" -- id -u nobody

chmod 711 "$T" # nobody reaches its own directories below, nothing else
# nobody loads a copy of the plugin: the build tree may be out of its reach
# (a clone in /root, or below a mktemp -d directory, is 0700).
mkdir -m 755 "$T/plugin"
install -m 644 "$PLUGIN_BUILDDIR/joule_cgroup.so" "$T/plugin/"
PLUGIN_BUILDDIR=$T/plugin
need "the plugin's copy readable by nobody" -- setpriv --reuid=nobody --regid=nogroup \
  --clear-groups test -r "$PLUGIN_BUILDDIR/joule_cgroup.so"
COLLECTD_BIN_SAVED=$COLLECTD_BIN
# reads DIR: how many reads collectd's csv of the root cgroup shows.
reads() {
  cat "$1"/csv/testhost/joule_cgroup-root/ps_cputime-* 2>/dev/null |
    grep -vc '^epoch' || true
}
# as WHO DIR COND: collectd as root, or as nobody with the capability WHO
# ("nobody": none), in a directory nobody owns, until COND holds (counted
# in reads, not seconds: emulated kernels are slow; 60 s at most).
as() {
  local who=$1 dir=$2 cond=$3 i
  chown -R nobody:nogroup "$dir"
  if [ "$who" = root ]; then
    COLLECTD_BIN=$COLLECTD_BIN_SAVED
  else
    COLLECTD_BIN="$T/collectd-$who"
    local caps=()
    [ "$who" = nobody ] || caps=(--inh-caps="+$who" --ambient-caps="+$who")
    printf '#!/bin/sh\nexec setpriv --reuid=nobody --regid=nogroup --clear-groups %s %s "$@"\n' \
      "${caps[*]}" "$COLLECTD_BIN_SAVED" >"$COLLECTD_BIN"
    chmod 755 "$COLLECTD_BIN"
  fi
  start_collectd "$dir"
  for i in $(seq 600); do eval "$cond" && break; sleep 0.1; done
  stop_collectd
  COLLECTD_BIN=$COLLECTD_BIN_SAVED
}
# each PREFIX COND BLOCK WHO...: collectd with BLOCK as each WHO, in
# $T/PREFIX-WHO, until COND (with $dir).
each() {
  local prefix=$1 cond=$2 block=$3 who dir
  shift 3
  for who in "$@"; do
    dir="$T/$prefix-$who"
    mkdir -p "$dir"
    JC_INTERVAL=0.3 write_conf "$dir" "$block"
    as "$who" "$dir" "$cond"
  done
}
# series DIR: every series written, "instance/type-instance", sorted.
series() {
  (cd "$1/csv/testhost" 2>/dev/null && ls -d */* | sed 's/^joule_cgroup-//; s/-[0-9-]*$//' | LC_ALL=C sort -u)
}
series_but_peak() { series "$1" | grep -v '/memory-peak_interval$'; }
# values DIR: each series and its last values, without the time (one awk:
# thousands of series).
values() {
  (cd "$1/csv/testhost" 2>/dev/null && awk -F, '
    FNR == 1 && NR > 1 { print name, last }
    { name = FILENAME; last = $0; sub(/^[^,]*,/, "", last) }
    END { if (NR) print name, last }' */*) |
    sed 's/^joule_cgroup-//; s/-[0-9-]* / /' | LC_ALL=C sort
}

# same WHAT A B MIN: WHAT (series or values) of runs A and B agree, and
# there are more than MIN; sets $n.
same() {
  "$1" "$2" >"$T/a"
  "$1" "$3" >"$T/b"
  n=$(wc -l <"$T/a")
  [ "$n" -gt "$4" ] && diff "$T/a" "$T/b" >"$T/diff"
  local status=$?
  head -5 "$T/diff" | diag
  return $status
}

# --- the real kernel ---------------------------------------------------------
make_run_parent joule-unpriv
mkdir "$parent/busy" "$parent/idle"
busy=
CLEANUPS+=('[ -n "$busy" ] && kill "$busy" 2>/dev/null')
bash -c 'while :; do :; done' &
busy=$!
echo "$busy" >"$parent/busy/cgroup.procs"
collect='  Collect "cpu" "memory" "io" "pressure" "events" "pids"'
four='[ "$(reads "$dir")" -ge 4 ]'
each kernel "$four" "  CgroupRoot \"$mnt\"
  Select \"$run/**\"
$collect" root nobody
# The interval peak needs write access to memory.peak (Linux 6.12): as
# nobody it is the one thing missing, and one INFO line says so.
peak_info='^\[info\] joule_cgroup plugin: memory\.peak cannot be reset: writing to the cgroup files is not allowed here \(Permission denied;'
peaks=$(series "$T/kernel-root" | grep -c '/memory-peak_interval$')
aside=
if [ "$peaks" -gt 0 ]; then
  aside=", memory-peak_interval aside"
  [ -z "$(series "$T/kernel-nobody" | grep '/memory-peak_interval$')" ] &&
    [ "$(grep -cE "$peak_info" "$T/kernel-nobody/collectd.log")" -eq 1 ]
  ok $? "as nobody, no memory-peak_interval (root has $peaks), and one INFO line says why"
fi
same series_but_peak "$T/kernel-root" "$T/kernel-nobody" 10
ok $? "as nobody, the same $n series as root (the root cgroup, $run, busy, idle)$aside"
cores=$(csv_last "$T/kernel-nobody" "${run}_busy" gauge-cpu_cores)
awk -v c="${cores:-0}" 'BEGIN { exit !(c > 0) }'
ok $? "as nobody, the busy cgroup reads busy (gauge-cpu_cores $cores)"
[ "$(loud_lines "$T/kernel-nobody")" -eq "$(loud_lines "$T/kernel-root")" ]
ok $? "no ERROR or WARNING as nobody that root does not have too"
grep -E '^\[(error|warning)\]' "$T/kernel-nobody/collectd.log" | diag
[ "$(stat -c %U "$T/kernel-nobody/collectd.pid" 2>/dev/null || echo nobody)" = nobody ] &&
  ! grep -vE "$peak_info" "$T/kernel-nobody/collectd.log" | grep -q 'joule_cgroup.*Permission denied'
ok $? "collectd ran as nobody, and nothing was denied"

# --- a tree only root can read -------------------------------------------------
tree="$T/tree"
cp -r "$FIXTURES/k6.1-systemd" "$tree"
chown -R root:root "$tree"
chmod -R go-rwx "$tree"
each tree "$four" "  CgroupRoot \"$tree\"
  Select \"**\"
$collect" root dac_read_search
each tree "grep -qs '^\[error\] joule_cgroup' \"\$dir/collectd.log\"" "  CgroupRoot \"$tree\"
  Select \"**\"
$collect" nobody
same values "$T/tree-root" "$T/tree-dac_read_search" 20
ok $? "as nobody with CAP_DAC_READ_SEARCH, the same $n series and values as root"
grep -q "^\[error\] joule_cgroup plugin: CgroupRoot \"$tree\": Permission denied; run as root, or give this user read access to the cgroup tree" "$T/tree-nobody/collectd.log" &&
  [ -z "$(series "$T/tree-nobody")" ]
ok $? "as nobody without it: one ERROR that says what is missing, nothing reported"
tap_done
