#!/usr/bin/env bash
# Privilege: the plugin writes only into the kernel's cgroup2 file system,
# only into the cgroups its own <Cgroup> blocks create, into the
# cgroup.procs of the cgroup a process it moved came from, and (Linux
# 6.12, the interval peak) into memory.peak of the cgroups it reads;
# nothing else.
# Checked twice: a copy of a tree (fixtures) is byte-for-byte the same
# after a full run, even with a <Cgroup> that asks to create; and on the
# real kernel every modifying system call collectd makes (strace: opens
# for writing, writes, mkdir, rmdir, renames, links, modes, owners) is
# either on the allowed list under the cgroup2 mount or into collectd's
# own files (its log, csv and pid file, its threads' names).
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "strace" -- command -v strace
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"

# --- a copy of a tree is only read -------------------------------------------
tree="$T/tree"
cp -r "$FIXTURES/k6.1-systemd" "$tree"
snapshot() {
  (cd "$1" && find . -printf '%p %y %s %m %T@\n' | LC_ALL=C sort &&
    find . -type f -exec md5sum {} + | LC_ALL=C sort)
}
snapshot "$tree" >"$T/before"
dir="$T/fixture"
JC_INTERVAL=0.2 write_conf "$dir" "  CgroupRoot \"$tree\"
  Select \"**\"
  Collect \"cpu\" \"pressure\"
  PerDevice true
  <Cgroup \"system.slice\">
    Instance \"system\"
  </Cgroup>"
run_collectd "$dir" 2
[ -n "$(csv_last "$dir" system ps_cputime)" ]
ok $? "a read-only <Cgroup> on the copy is reported"
snapshot "$tree" >"$T/after"
diff "$T/before" "$T/after" >"$T/diff"
ok $? "the tree is unchanged after the run, modification times included"
head -5 "$T/diff" | diag
dir="$T/fixture-create"
write_conf "$dir" "  CgroupRoot \"$tree\"
  <Cgroup \"joule/batch\">
    Create true
  </Cgroup>"
run_collectd "$dir"
grep -q "^\[error\] joule_cgroup plugin: <Cgroup \"joule/batch\">: CgroupRoot $tree is not on the kernel's cgroup2 file system" "$dir/collectd.log"
ok $? "a <Cgroup> that would create in the copy is refused"
snapshot "$tree" >"$T/after"
diff "$T/before" "$T/after" >"$T/diff"
ok $? "and the tree is still unchanged"

# --- the real kernel: every modifying call is an allowed one -----------------
make_run_parent joule-priv
mkdir "$parent/other"
hand_down_controllers
sleeper=
CLEANUPS+=('[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null')
sleep 300 >/dev/null 2>&1 &
sleeper=$!
echo "$sleeper" >"$T/sleeper.pid"
# Where the process comes from: a cgroup of this run, which the plugin
# writes to when it moves the process back.
mkdir "$parent/home"
echo "$sleeper" >"$parent/home/cgroup.procs"
dir="$T/kernel"
JC_INTERVAL=0.2 write_conf "$dir" "  CgroupRoot \"$mnt\"
  Select \"$run/**\"
  Collect \"cpu\" \"memory\" \"io\" \"pids\" \"pressure\"
  <Cgroup \"$run/managed/job\">
    Create true
    AttachPidFile \"$T/sleeper.pid\"
  </Cgroup>"
strace -f -y -qq -s 64 -o "$dir/strace.txt" \
  -e trace=openat,open,creat,mkdir,mkdirat,rmdir,unlinkat,unlink,rename,renameat,renameat2,link,linkat,symlink,symlinkat,chmod,fchmod,fchmodat,chown,fchown,fchownat,lchown,truncate,ftruncate,setxattr,fsetxattr,write,pwrite64,writev,pwritev,pwritev2,sendfile,copy_file_range \
  "${COLLECTD_ENV[@]}" "$COLLECTD_BIN" -f -C "$dir/collectd.conf" >"$dir/collectd.out" 2>&1 &
st_pid=$!
COLLECTD_PIDS+=("$st_pid")
reads_at_least() { [ "$(csv_reads "$dir")" -ge "$1" ]; }
wait_until reads_at_least 3
# SIGTERM to collectd itself, strace's child: a signal to strace would
# only detach it.
kill -TERM "$(pgrep -P "$st_pid" -x collectd)"
wait "$st_pid"
test ! -e "$parent/managed"
ok $? "the managed cgroups were removed at shutdown"
grep -qx "0::/$run/home" "/proc/$sleeper/cgroup"
ok $? "the process is back in $run/home"

# Every successful modifying call, as "CALL WHERE": WHERE relative to the
# mount ("cg:PATH"), or a path elsewhere, or a descriptor that is not a
# file ("pipe:[...]").
python3 - "$dir/strace.txt" "$mnt" >"$T/writes" <<'PY'
import re, sys
trace, mnt = sys.argv[1:3]
call_re = re.compile(r'^(?:\d+\s+)?(\w+)\((.*)\) = (-?\d+)')
fd_re = re.compile(r'^(-?\d+|AT_FDCWD)(?:<([^>]*)>)?')
path_re = re.compile(r'(?:(-?\d+|AT_FDCWD)(?:<([^>]*)>)?, )?"([^"]*)"')
writes = {"write", "pwrite64", "writev", "pwritev", "pwritev2", "sendfile",
          "copy_file_range", "fchmod", "fchown", "ftruncate", "fsetxattr"}
def where(full):
    if full == mnt or full.startswith(mnt + "/"):
        return "cg:" + full[len(mnt) + 1:]
    return full
for line in open(trace):
    m = call_re.match(line)
    if not m or int(m.group(3)) < 0:
        continue
    call, args = m.group(1), m.group(2)
    if call in writes:
        f = fd_re.match(args)
        print(call, where(f.group(2) or "fd" + f.group(1)))
        continue
    if call in ("openat", "open") and not re.search(r'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC', args):
        continue
    p = path_re.search(args)
    if not p:
        continue
    base, name = p.group(2), p.group(3)
    full = name if name.startswith("/") or not base else base + "/" + name
    print(call, where(full))
PY
allowed() {
  case "$1 $2" in
    "mkdirat cg:$run/managed" | "mkdirat cg:$run/managed/job") return 0 ;;
    "unlinkat cg:$run/managed" | "unlinkat cg:$run/managed/job") return 0 ;;
    # Moving the process in, back, and handing controllers down in the
    # level created above the leaf (where the mount has any).
    "openat cg:$run/managed/job/cgroup.procs" | "write cg:$run/managed/job/cgroup.procs") return 0 ;;
    "openat cg:$run/home/cgroup.procs" | "write cg:$run/home/cgroup.procs") return 0 ;;
    "openat cg:$run/managed/cgroup.subtree_control" | "write cg:$run/managed/cgroup.subtree_control") return 0 ;;
    # The interval peak (Linux 6.12): memory.peak of a selected cgroup
    # ($run itself is one), reset through the plugin's own descriptor
    # after each read.
    "openat cg:$run/memory.peak" | "pwrite64 cg:$run/memory.peak") return 0 ;;
    "openat cg:$run/"*/memory.peak | "pwrite64 cg:$run/"*/memory.peak) return 0 ;;
  esac
  case "$2" in
    cg:*) return 1 ;;
    "$dir"/*) return 0 ;;          # collectd's own log, csv and pid file
    pipe:* | socket:* | anon_inode:* | /dev/null) return 0 ;;
    /proc/*/task/*/comm) return 0 ;; # collectd names its threads
  esac
  return 1
}
bad=0
while read -r call path; do
  allowed "$call" "$path" || { bad=$((bad + 1)); echo "not allowed: $call $path" | diag; }
done <"$T/writes"
n=$(grep -c ' cg:' "$T/writes")
[ "$n" -ge 6 ] && [ "$bad" -eq 0 ]
ok $? "$(wc -l <"$T/writes") modifying calls, $n under $mnt, all allowed"
grep ' cg:' "$T/writes" | sort | uniq -c | sed 's/^/seen: /' | diag
grep -v ' cg:' "$T/writes" | sed -E 's|'"$dir"'/.*|COLLECTD_DIR/...|; s|/[0-9]+|/N|g' | sort | uniq -c | sed 's/^/elsewhere: /' | diag
tap_done
