#!/usr/bin/env bash
# Every diagnostic of the plugin, staged on a small tree, seen through the
# real collectd's log: it appears, it appears once however many reads
# follow, it names the file and says what to do, and the other values
# still go out.
. "$(dirname "$0")/lib/common.sh"
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
need "setpriv (util-linux)" -- command -v setpriv
export JC_INTERVAL=0.2

# mk_cgroup ROOT REL [with-memory]
mk_cgroup() {
  local d="$1/$2"
  mkdir -p "$d"
  : >"$d/cgroup.procs"
  printf 'usage_usec 100\nuser_usec 60\nsystem_usec 40\n' >"$d/cpu.stat"
  if [ "${3:-}" = with-memory ]; then
    echo 4096 >"$d/memory.current"
    printf 'anon 10\nfile 20\n' >"$d/memory.stat"
  fi
}

root="$T/tree"
mkdir -p "$root"
echo "cpu memory" >"$root/cgroup.controllers"
printf 'usage_usec 1000\nuser_usec 600\nsystem_usec 400\n' >"$root/cpu.stat"
printf 'anon 1\nfile 2\n' >"$root/memory.stat"
mk_cgroup "$root" healthy with-memory
mk_cgroup "$root" nomem
mk_cgroup "$root" nomem2
mk_cgroup "$root" locked with-memory
chmod 000 "$root/locked/memory.stat"
mk_cgroup "$root" broken with-memory
printf 'usage_usec twelve\n\x01\x02\xff\n' >"$root/broken/cpu.stat"
# A parent that does enable memory: a child without memory files is not
# the parent's fault (wrong advice to say so), unless it is threaded.
mk_cgroup "$root" sub with-memory
echo "memory" >"$root/sub/cgroup.subtree_control"
mk_cgroup "$root" sub/odd
mk_cgroup "$root" sub/thr
echo threaded >"$root/sub/thr/cgroup.type"

dir="$T/read"
write_conf "$dir" "  CgroupRoot \"$root\"
  Select \"**\"
  Collect \"cpu\" \"memory\"
  Values \"*\""
# Without CAP_DAC_OVERRIDE root obeys file modes, like collectd as a user.
COLLECTD_BIN_SAVED=$COLLECTD_BIN
COLLECTD_BIN="$T/collectd-nocaps"
printf '#!/bin/sh\nexec setpriv --bounding-set=-dac_override,-dac_read_search %s "$@"\n' \
  "$COLLECTD_BIN_SAVED" >"$COLLECTD_BIN"
chmod +x "$COLLECTD_BIN"
run_collectd "$dir" 10
COLLECTD_BIN=$COLLECTD_BIN_SAVED
reads=$(grep -c '"plugin_instance":"healthy","type":"derive","type_instance":"cpu_usage_usec"' "$dir/collectd.log")
[ "$reads" -ge 10 ]
ok $? "collectd read the tree $reads times"

once() { # description, ERE [level]
  local n
  n=$(grep -cE "^\[${3:-warning}\] joule_cgroup plugin: $2" "$dir/collectd.log")
  [ "$n" -eq 1 ]
  ok $? "$1: logged once in $reads reads ($n)"
}
once "controller not enabled by the parent, two children lack it: once per parent" \
  "controller \"memory\" is not enabled for the children of $root; enable it with: echo \"\\+memory\" > $root/cgroup.subtree_control" notice
once "permission denied" \
  "cannot read $root/locked/memory.stat: Permission denied; run as root, or give this user read access to the cgroup tree$"
once "malformed file" "$root/broken/cpu.stat is malformed"
once "parent enables memory: no remedy, the file named" \
  "$root/sub/odd lacks memory.current although $root/sub enables \"memory\" for its children: this kernel does not provide it"
once "threaded cgroup: said so, no remedy" \
  "$root/sub/thr is a threaded cgroup and \"memory\" is not a threaded controller" notice
[ "$(log_count "$dir" 'enable it with')" -eq 1 ]
ok $? "the remedy is given once, for the parent that lacks the controller only"
[ "$(loud_lines "$dir")" -eq 3 ]
ok $? "nothing else above NOTICE (root lacks memory.current by design)"
grep -E '^\[(warning|error)\]' "$dir/collectd.log" | diag
[ "$(csv_last "$dir" locked memory-current)" = "4096" ]
ok $? "the unreadable cgroup's other values still go out"
[ "$(csv_last "$dir" broken memory-anon)" = "10" ]
ok $? "the malformed cgroup's other values still go out"
[ "$(csv_last "$dir" nomem derive-cpu_usage_usec)" = "100" ]
ok $? "the cgroup without memory files still reports cpu"

# Special files where cgroup files belong (a copy of a tree can hold
# anything): a FIFO must not hang collectd in open(), a socket, a device
# behind a symlink are refused; each is named once, the rest goes out.
special="$T/special"
mkdir -p "$special"
echo "cpu memory" >"$special/cgroup.controllers"
printf 'usage_usec 1\nuser_usec 1\nsystem_usec 0\n' >"$special/cpu.stat"
printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' >"$special/cpu.pressure"
mk_cgroup "$special" sane with-memory
mk_cgroup "$special" odd
for f in sane/cpu.pressure {sane,odd}/memory.pressure {sane,odd}/io.pressure; do
  cp "$special/cpu.pressure" "$special/$f"
done
mkfifo "$special/odd/memory.stat"
ln -s /dev/zero "$special/odd/memory.current"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
  "$special/odd/cpu.pressure"
dir="$T/special-run"
write_conf "$dir" "  CgroupRoot \"$special\"
  Collect \"cpu\" \"memory\" \"pressure\"
  Values \"*\""
run_collectd "$dir" 5
[ "$COLLECT_READS" -ge 5 ]
ok $? "special files: collectd reached its read loop and read $COLLECT_READS times"
reads=$COLLECT_READS
once "a FIFO" "$special/odd/memory.stat is a FIFO, not a cgroup file; its values are skipped"
once "a symlink to /dev/zero" "$special/odd/memory.current is a symlink, not a cgroup file"
once "a socket" "$special/odd/cpu.pressure is a socket, not a cgroup file"
[ "$(loud_lines "$dir")" -eq 3 ]
ok $? "special files: nothing else above NOTICE"
grep -E '^\[(warning|error)\]' "$dir/collectd.log" | diag
[ "$(csv_last "$dir" odd derive-cpu_usage_usec)" = 100 ] &&
  [ "$(csv_last "$dir" sane memory-current)" = 4096 ]
ok $? "special files: the cgroup's other values and the sane cgroup go out"

# Controller not in the hierarchy at all (hybrid host): said once at init;
# a WARNING when Collect asks for it, an INFO when it is only the default.
v2cpu="$T/cpu-only"
mkdir -p "$v2cpu"
echo "cpu" >"$v2cpu/cgroup.controllers"
printf 'usage_usec 1\nuser_usec 1\nsystem_usec 0\n' >"$v2cpu/cpu.stat"
dir="$T/unavailable"
write_conf "$dir" "  CgroupRoot \"$v2cpu\"
  Collect \"cpu\" \"memory\""
run_collectd "$dir" 2
[ "$(log_count "$dir" '^\[warning\] joule_cgroup plugin: controller "memory" is not available in '"$v2cpu")" -eq 1 ]
ok $? "controller not available: one WARNING when Collect names it"
dir="$T/unavailable-default"
write_conf "$dir" "  CgroupRoot \"$v2cpu\""
run_collectd "$dir" 2
[ "$(loud_lines "$dir")" -eq 0 ] && [ "$(log_count "$dir" '^\[info\] joule_cgroup plugin: controller "memory" is not available')" -eq 1 ]
ok $? "and only an INFO line with the default Collect"

# Init errors: one ERROR line, the plugin is unloaded, nothing is left.
init_error() { # description, ERE, plugin block
  local d="$T/init$TAP_N"
  write_conf "$d" "$3"
  run_collectd "$d"
  local n
  n=$(grep -c '^\[error\] joule_cgroup plugin: ' "$d/collectd.log")
  [ "$n" -eq 1 ] && grep '^\[error\] joule_cgroup plugin: ' "$d/collectd.log" | grep -qE -- "$2"
  ok $? "$1: one ERROR line"
  grep '^\[error\] joule_cgroup plugin: ' "$d/collectd.log" | diag
  ! grep -q '"plugin":"joule_cgroup"' "$d/collectd.log"
  ok $? "$1: the plugin is disabled"
}
v1="$T/v1"
mkdir -p "$v1"
echo 123 >"$v1/cpuacct.usage"
init_error "not a cgroup v2 directory" \
  "CgroupRoot \"$v1\" is not a cgroup v2 directory .*set CgroupRoot to the cgroup2 mount point" \
  "  CgroupRoot \"$v1\""
init_error "root missing" "CgroupRoot \"$T/nowhere\": No such file or directory" \
  "  CgroupRoot \"$T/nowhere\""
init_error "cgroup missing" "cgroup $root/absent does not exist; create it \\(mkdir $root/absent\\) or set \"Create true\"" \
  "  CgroupRoot \"$root\"
  <Cgroup \"absent\">
  </Cgroup>"
# An existing <Cgroup> (read only: no Create, no process to move) whose
# parent does not hand a wanted controller down: the exact remedy.
mk_cgroup "$root" joule/batch
: >"$root/joule/cgroup.subtree_control"
init_error "controller not enabled for a managed cgroup" \
  "controller \"memory\" is not enabled for the children of $root/joule; enable it with: echo \"\\+memory\" > $root/joule/cgroup.subtree_control" \
  "  CgroupRoot \"$root\"
  Collect \"memory\"
  <Cgroup \"joule/batch\">
  </Cgroup>"
# A copy of a tree is only read: a block that would create is refused
# before anything is done.  (Creating, and the controllers of what is
# created, are tested on the kernel: kernel_controllers.sh.)
init_error "Create on a copy of a tree" \
  "<Cgroup \"joule/new\">: CgroupRoot $root is not on the kernel's cgroup2 file system .*Create, AttachPid and AttachPidFile are refused" \
  "  CgroupRoot \"$root\"
  <Cgroup \"joule/new\">
    Create true
  </Cgroup>"
test ! -e "$root/joule/new"
ok $? "nothing is created in a copy of a tree"
tap_done
