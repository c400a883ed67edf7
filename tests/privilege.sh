#!/usr/bin/env bash
# Privilege: the plugin writes only into the cgroups its own <Cgroup>
# blocks name (mkdir, cgroup.procs, rmdir) and into the cgroup.procs of the
# parent it hands their processes back to.  Checked twice: a fixture tree
# is byte-for-byte the same after a full run, and on the real kernel every
# modifying system call collectd makes under the cgroup2 mount (strace) is
# on the allowed list.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "strace" -- command -v strace
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"

# --- a fixture tree is left exactly as it was --------------------------------
tree="$T/tree"
cp -r "$FIXTURES/k6.1-systemd" "$tree"
snapshot() {
  # Directory mtimes are left out: creating and removing the managed
  # cgroup touches its parent's, as any mkdir and rmdir do.
  (cd "$1" && find . -printf '%p %y %s %m\n' | LC_ALL=C sort &&
    find . -type f -exec md5sum {} + | LC_ALL=C sort)
}
snapshot "$tree" >"$T/before"
dir="$T/fixture"
JC_INTERVAL=0.2 write_conf "$dir" "  CgroupRoot \"$tree\"
  Select \"**\"
  Collect \"cpu\" \"pressure\"
  PerDevice true
  <Cgroup \"joule/batch\">
    Create true
  </Cgroup>"
run_collectd "$dir" 2
grep -q "created cgroup $tree/joule/batch" "$dir/collectd.log" &&
  grep -q "removed cgroup $tree/joule/batch" "$dir/collectd.log"
ok $? "the managed cgroup joule/batch was created and removed"
snapshot "$tree" >"$T/after"
diff "$T/before" "$T/after" >"$T/diff"
ok $? "the fixture tree is unchanged after the run (created cgroup removed)"
head -5 "$T/diff" | diag

# --- the real kernel: every modifying call is an allowed one -----------------
make_run_parent joule-priv
mkdir "$parent/other"
sleeper=
CLEANUPS+=('[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null')
sleep 300 >/dev/null 2>&1 &
sleeper=$!
echo "$sleeper" >"$T/sleeper.pid"
dir="$T/kernel"
JC_INTERVAL=0.2 write_conf "$dir" "  CgroupRoot \"$mnt\"
  Select \"$run/**\"
  Collect \"cpu\" \"pressure\"
  <Cgroup \"$run/managed/job\">
    Create true
    AttachPidFile \"$T/sleeper.pid\"
  </Cgroup>"
strace -f -y -qq -o "$dir/strace.txt" \
  -e trace=openat,open,creat,mkdir,mkdirat,rmdir,unlinkat,unlink,rename,renameat,renameat2,link,linkat,symlink,symlinkat,chmod,fchmodat,chown,fchownat,truncate,ftruncate,setxattr \
  "$COLLECTD_BIN" -f -C "$dir/collectd.conf" >"$dir/collectd.out" 2>&1 &
st_pid=$!
COLLECTD_PIDS+=("$st_pid")
sleep 2
# SIGTERM to collectd itself, strace's child: a signal to strace would
# only detach it.
kill -TERM "$(pgrep -P "$st_pid" -x collectd)"
wait "$st_pid"
test ! -e "$parent/managed"
ok $? "the managed cgroups were removed at shutdown"

python3 - "$dir/strace.txt" "$mnt" "$run" >"$T/writes" <<'PY'
import re, sys
trace, mnt, run = sys.argv[1:4]
modifying = re.compile(r'^(?:\d+\s+)?(\w+)\((.*)\) = (-?\d+)')
path_arg = re.compile(r'(?:(-?\d+|AT_FDCWD)(?:<([^>]*)>)?, )?"([^"]*)"')
for line in open(trace):
    m = modifying.match(line)
    if not m or int(m.group(3)) < 0:
        continue
    call, args = m.group(1), m.group(2)
    if call in ("openat", "open") and not re.search(r'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC', args):
        continue
    p = path_arg.search(args)
    if not p:
        continue
    base, name = p.group(2), p.group(3)
    full = name if name.startswith("/") or not base else base + "/" + name
    if full == mnt or full.startswith(mnt + "/"):
        print(call, full[len(mnt) + 1:])
PY
allowed() {
  case "$1 $2" in
    "mkdirat $run/managed" | "mkdirat $run/managed/job") return 0 ;;
    "unlinkat $run/managed" | "unlinkat $run/managed/job") return 0 ;;
    "openat $run/managed/job/cgroup.procs" | "openat $run/cgroup.procs") return 0 ;;
  esac
  return 1
}
bad=0
while read -r call path; do
  allowed "$call" "$path" || { bad=$((bad + 1)); echo "not allowed: $call $path" | diag; }
done <"$T/writes"
n=$(wc -l <"$T/writes")
[ "$n" -ge 4 ] && [ "$bad" -eq 0 ]
ok $? "$n modifying calls under $mnt, all on the allowed list"
sed 's/^/seen: /' "$T/writes" | sort | uniq -c | diag
tap_done
