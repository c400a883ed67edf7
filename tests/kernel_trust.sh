#!/usr/bin/env bash
# Which processes the plugin moves, on the real kernel, as root: each
# attack mounted as a user would, its harm checked on the victim process's
# own /proc/PID/cgroup, and its refusal one ERROR line.
#   - AttachPidFile: a pid file owned by nobody, one with mode 0666, one in
#     a directory nobody owns, one that is a symlink nobody placed, each
#     naming a root-owned process: it stays where it was.  A pid file of
#     root's in /run works.
#   - A file mounted over cgroup.procs: not the kernel's, not written.
#   - AttachPid 1 (in a pid namespace of its own, so that a regression
#     moves a throwaway init, not this machine's), a kernel thread, a
#     process outside CgroupRoot: refused.
#   - Evacuation moves only what is ours: a pre-existing <Cgroup> keeps
#     the processes someone else put there, and exists afterwards; nested
#     creation below it, and an init that fails half way, leave it so.
# Everything lives under a parent named for this run, removed at the end.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
need "setpriv and unshare (util-linux)" -- command -v setpriv unshare
need "a user nobody" -- id -u nobody

make_run_parent joule-trust
pids=()
CLEANUPS+=('for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done')
CLEANUPS+=('rm -rf "$jobdir" "$link" "$runpid"')
spawn() { sleep 300 >/dev/null 2>&1 & pids+=($!); }
cg() { grep '^0::' "/proc/$1/cgroup" | cut -d: -f3; }
# wait_cg PID CGROUP: until PID is in CGROUP.
in_cg() { [ "$(cg "$1")" = "$2" ]; }
wait_cg() { wait_until in_cg "$1" "$2"; }
# job_conf DIR CGROUP BODY: collectd with one <Cgroup CGROUP> Create true.
job_conf() {
  write_conf "$1" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Collect \"cpu\"
  <Cgroup \"$2\">
    Create true
$3
  </Cgroup>"
}
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

spawn
victim=${pids[-1]} # root's, in the cgroup this test runs in
home=$(cg "$victim")
echo "$victim" >"$T/victim.pid"

# refused NAME ERE BLOCK-BODY: a <Cgroup "$run/NAME"> Create true with
# BODY: one ERROR line, the victim where it was, nothing left behind.
refused() {
  local name=$1 want=$2 body=$3 d="$T/$1"
  job_conf "$d" "$run/$name" "$body"
  run_collectd "$d"
  [ "$(cg "$victim")" = "$home" ]
  ok $? "$name: the process is still in $home"
  one_error "$d" "$want"
  ok $? "$name: one ERROR line /$want/"
  test ! -e "$parent/$name" && ! grep -q 'created cgroup' "$d/collectd.log"
  ok $? "$name: refused before anything was created"
}

# --- pid files from someone who may not ----------------------------------------
cp "$T/victim.pid" "$T/nobody.pid"
chown nobody "$T/nobody.pid"
refused pidfile-owner "AttachPidFile \"$T/nobody.pid\": not trusted: is owned by uid 65534 \\(nobody\\)" \
  "    AttachPidFile \"$T/nobody.pid\""
cp "$T/victim.pid" "$T/open.pid"
chmod 0666 "$T/open.pid"
refused pidfile-mode "AttachPidFile \"$T/open.pid\": not trusted: is writable by group or others \\(mode 0666\\)" \
  "    AttachPidFile \"$T/open.pid\""
# A job directory its user owns; the file in it root's (a hard link of a
# root pid file would be): the user can put any file there.
jobdir=$(mktemp -d /tmp/jc-trust-job.XXXXXX)
chown nobody "$jobdir"
cp "$T/victim.pid" "$jobdir/job.pid"
refused pidfile-dir "AttachPidFile \"$jobdir/job.pid\": not trusted: its directory $jobdir is owned by uid 65534 \\(nobody\\)" \
  "    AttachPidFile \"$jobdir/job.pid\""
# A symlink nobody places in /tmp, to a pid file of root's.
link=/tmp/jc-trust-link.$$
cp "$T/victim.pid" "/tmp/jc-trust-target.$$"
CLEANUPS+=('rm -f /tmp/jc-trust-target.$$')
as_nobody ln -s "/tmp/jc-trust-target.$$" "$link"
refused pidfile-symlink "AttachPidFile \"$link\": not trusted: is a symlink" \
  "    AttachPidFile \"$link\""

# --- processes that are never moved ---------------------------------------------
kthread=
for p in $(ls /proc | grep -xE '[0-9]+' | sort -n); do # kthreadd (2) first
  awk '{ sub(/.*\) /, ""); split($0, f, " "); exit !(int(f[7] / 2097152) % 2) }' \
    "/proc/$p/stat" 2>/dev/null && { kthread=$p; break; }
done
if [ -n "$kthread" ]; then
  khome=$(cg "$kthread")
  d="$T/kthread"
  write_conf "$d" "  CgroupRoot \"$mnt\"
  ReportRoot false
  <Cgroup \"$run/kthread\">
    Create true
    AttachPid $kthread
  </Cgroup>"
  run_collectd "$d"
  grep -qx "\[error\] joule_cgroup plugin: AttachPid $kthread: refusing to move process $kthread: it is a kernel thread" "$d/collectd.log" &&
    [ "$(cg "$kthread")" = "$khome" ]
  ok $? "a kernel thread ($kthread, $(cat /proc/$kthread/comm)): refused, still in $khome"
else
  ok 1 "no kernel thread found in /proc"
fi
d="$T/outside"
write_conf "$d" "  CgroupRoot \"$parent\"
  ReportRoot false
  Collect \"cpu\"
  <Cgroup \"outside\">
    Create true
    AttachPid $victim
  </Cgroup>"
run_collectd "$d"
grep -qx "\[error\] joule_cgroup plugin: AttachPid $victim: refusing to move process $victim: it is in cgroup $home, outside CgroupRoot (cgroup /$run)" "$d/collectd.log" &&
  [ "$(cg "$victim")" = "$home" ] && test ! -e "$parent/outside"
ok $? "a process outside CgroupRoot $parent: refused, still in $home"

# A file mounted over cgroup.procs of an existing <Cgroup> (in a mount
# namespace of its own): not the kernel's file, so nothing is written.
mkdir "$parent/bm"
printf 'SECRET-DATA-LINE-ONE\n' >"$T/bm-victim"
cp "$T/bm-victim" "$T/bm-victim.orig"
d="$T/bm"
write_conf "$d" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Collect \"cpu\"
  <Cgroup \"$run/bm\">
    AttachPid $victim
  </Cgroup>"
unshare --mount --propagation private bash -c '
  mount --bind "$1" "$2" || exit
  "${@:5}" "$3" -f -C "$4/collectd.conf" >>"$4/collectd.out" 2>&1 & c=$!
  for i in $(seq 1200); do  # until start-up is over (bounded: 120 s)
    grep -q "entering read-loop" "$4/collectd.log" 2>/dev/null || ! kill -0 $c 2>/dev/null && break
    sleep 0.1
  done
  kill -TERM $c; wait $c' bm "$T/bm-victim" "$parent/bm/cgroup.procs" \
  "$COLLECTD_BIN" "$d" "${COLLECTD_ENV[@]}"
one_error "$d" "AttachPid $victim: cannot move process $victim into $parent/bm: its cgroup.procs is not the kernel's" &&
  cmp -s "$T/bm-victim" "$T/bm-victim.orig" && [ "$(cg "$victim")" = "$home" ]
ok $? "a file mounted over cgroup.procs: refused, its bytes unchanged, the process still in $home"

# PID 1 of a pid namespace, collectd inside it: AttachPid 1 names the
# namespace's init (bash), whose cgroup is read before and after.
d="$T/pid1"
write_conf "$d" "  CgroupRoot \"$mnt\"
  ReportRoot false
  <Cgroup \"$run/pid1\">
    Create true
    AttachPid 1
  </Cgroup>"
unshare --pid --fork --mount-proc bash -c '
  grep "^0::" /proc/1/cgroup >"$1/before"
  "${@:3}" "$2" -f -C "$1/collectd.conf" >>"$1/collectd.out" 2>&1 & c=$!
  for i in $(seq 1200); do  # until start-up is over (bounded: 120 s)
    grep -q "entering read-loop" "$1/collectd.log" 2>/dev/null || ! kill -0 $c 2>/dev/null && break
    sleep 0.1
  done
  kill -TERM $c; wait $c
  grep "^0::" /proc/1/cgroup >"$1/after"' pid1 "$d" "$COLLECTD_BIN" "${COLLECTD_ENV[@]}"
grep -qx '\[error\] joule_cgroup plugin: AttachPid 1: refusing to move process 1: it is the init process (PID 1)' "$d/collectd.log" &&
  cmp -s "$d/before" "$d/after" && test ! -e "$parent/pid1"
ok $? "AttachPid 1: refused, init still in $(cut -d: -f3 "$d/after" 2>/dev/null)"
grep '^\[error\] joule_cgroup plugin: ' "$d/collectd.log" | diag

# --- a pid file of root's in /run works ---------------------------------------
spawn
worker=${pids[-1]}
runpid=/run/joule-trust-$$.pid
echo "$worker" >"$runpid"
d="$T/run"
job_conf "$d" "$run/job" "    AttachPidFile \"$runpid\""
start_collectd "$d"
wait_cg "$worker" "/$run/job"
ok $? "a root-owned pid file in /run: the process was moved into $run/job"
stop_collectd
[ "$(cg "$worker")" = "$home" ] && test ! -e "$parent/job" && [ "$(loud_lines "$d")" -eq 0 ]
ok $? "and back in $home at shutdown, $run/job removed, no ERROR or WARNING"

# --- evacuation moves only what is ours ------------------------------------------
mkdir "$parent/pre"
spawn
foreign=${pids[-1]}
echo "$foreign" >"$parent/pre/cgroup.procs" # someone else's doing
echo "$worker" >"$T/worker.pid"
d="$T/pre"
job_conf "$d" "$run/pre" "    AttachPidFile \"$T/worker.pid\""
run_collectd "$d"
test -d "$parent/pre" && [ "$(cg "$foreign")" = "/$run/pre" ] && [ "$(cg "$worker")" = "/$run/pre" ]
ok $? "a <Cgroup> that existed: it exists after shutdown, with the process someone else put there and the one moved in"
echo "$worker" >"$mnt${home%/}/cgroup.procs" # back where the test started it
home_w=$(cg "$worker")

d="$T/nested"
job_conf "$d" "$run/pre/new/job" "    AttachPidFile \"$T/worker.pid\""
start_collectd "$d"
wait_cg "$worker" "/$run/pre/new/job"
ok $? "nested creation below it: the process was moved into $run/pre/new/job"
stop_collectd
test -d "$parent/pre" && test ! -e "$parent/pre/new" && [ "$(cg "$foreign")" = "/$run/pre" ] &&
  [ "$(cg "$worker")" = "$home_w" ]
ok $? "after shutdown: new/job removed, pre and its process left, the moved one back in $home_w"

# Half way: the first block creates and moves, the second fails (its
# cgroup does not exist), and init undoes the first.
d="$T/halfway"
write_conf "$d" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Collect \"cpu\"
  <Cgroup \"$run/a\">
    Create true
    AttachPidFile \"$T/worker.pid\"
  </Cgroup>
  <Cgroup \"$run/pre/b\">
    AttachPid $victim
  </Cgroup>"
run_collectd "$d"
[ "$(grep -c '^\[error\] joule_cgroup plugin: ' "$d/collectd.log")" -eq 1 ] &&
  grep -q "^\[error\] joule_cgroup plugin: cgroup $parent/pre/b does not exist" "$d/collectd.log" &&
  grep -q "created cgroup $parent/a" "$d/collectd.log"
ok $? "init failing half way, after the first block created its cgroup: one ERROR line"
test ! -e "$parent/a" && test -d "$parent/pre" &&
  [ "$(cg "$worker")" = "$home_w" ] && [ "$(cg "$victim")" = "$home" ] &&
  [ "$(cg "$foreign")" = "/$run/pre" ]
ok $? "and undone: a removed, the moved process back, the other two and pre where they were"
tap_done
