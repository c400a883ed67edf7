#!/usr/bin/env bash
# A CgroupRoot that is not the kernel's cgroup2 file system (a copy of a
# tree, a directory someone else can write) is only read.  Each attack is
# mounted as a user who can write into such a tree would mount it, with a
# real collectd run as root: a cgroup.procs or cgroup.subtree_control that
# is a symlink to another file, a <Cgroup> level that is a symlink out of
# the tree.  The harm is checked directly: the other file's bytes, the
# process's cgroup, what exists afterwards; and the refusal is one ERROR
# line.
. "$(dirname "$0")/lib/common.sh"
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"

root="$T/tree"
mkdir -p "$root/job" "$root/joule" "$T/outside"
echo "cpu memory" >"$root/cgroup.controllers"
echo "memory" >"$root/cgroup.subtree_control"
for d in "$root" "$root/job" "$root/joule"; do
  printf 'usage_usec 1\nuser_usec 1\nsystem_usec 0\n' >"$d/cpu.stat"
done
: >"$root/cgroup.procs"
: >"$root/joule/cgroup.procs"
# The files someone wants root to overwrite.
for v in procs subtree level; do
  printf 'SECRET-DATA-LINE-ONE\nSECRET-DATA-LINE-TWO\n' >"$T/victim-$v"
  cp "$T/victim-$v" "$T/victim-$v.orig"
done
ln -s "$T/victim-procs" "$root/job/cgroup.procs"
ln -s "$T/victim-subtree" "$root/joule/cgroup.subtree_control"
ln -s "$T/outside" "$root/link"
ln -s "$T/victim-level" "$T/outside/cgroup.procs"

sleeper=
CLEANUPS+=('[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null')
sleep 300 &
sleeper=$!
home=$(grep '^0::' "/proc/$sleeper/cgroup")

# attack NAME VICTIM ERE BLOCK: collectd with BLOCK in the tree; VICTIM
# is byte-identical afterwards, the process stays, one ERROR line.
attack() {
  local name=$1 victim=$2 want=$3 block=$4 d="$T/case$TAP_N"
  write_conf "$d" "  CgroupRoot \"$root\"
  ReportRoot false
$block"
  run_collectd "$d"
  cmp -s "$T/victim-$victim" "$T/victim-$victim.orig"
  ok $? "$name: the file behind the symlink is byte-identical"
  echo "$name: the file now starts \"$(head -c 24 "$T/victim-$victim" | tr '\n' '|')\"" | diag
  [ "$(grep '^0::' "/proc/$sleeper/cgroup")" = "$home" ]
  ok $? "$name: the process is still in $home"
  one_error "$d" "$want"
  ok $? "$name: one ERROR line /$want/"
}

attack "symlinked cgroup.procs" procs \
  "<Cgroup \"job\">: CgroupRoot $root is not on the kernel's cgroup2 file system" \
  "  <Cgroup \"job\">
    AttachPid $sleeper
  </Cgroup>"
attack "symlinked cgroup.subtree_control" subtree \
  "<Cgroup \"joule/job\">: CgroupRoot $root is not on the kernel's cgroup2 file system" \
  "  Collect \"cpu\" \"memory\"
  Values \"*\"
  <Cgroup \"joule/job\">
    Create true
    AttachPid $sleeper
  </Cgroup>"
test ! -e "$root/joule/job"
ok $? "symlinked cgroup.subtree_control: nothing was created"
attack "symlinked <Cgroup> level" level \
  "<Cgroup \"link/job\">: \"link\" is a symlink; paths must stay inside CgroupRoot" \
  "  <Cgroup \"link/job\">
    Create true
    AttachPid $sleeper
  </Cgroup>"
[ -z "$(ls "$T/outside" | grep -vx cgroup.procs)" ]
ok $? "symlinked <Cgroup> level: nothing was created where it points"

# A <Cgroup> that only selects an existing directory of the copy is
# allowed: it is read and reported, and nothing is written.
d="$T/select"
write_conf "$d" "  CgroupRoot \"$root\"
  ReportRoot false
  <Cgroup \"joule\">
    Instance \"joule\"
  </Cgroup>"
run_collectd "$d" 2
[ -n "$(csv_last "$d" joule ps_cputime)" ] &&
  [ "$(grep -c '^\[error\]' "$d/collectd.log")" -eq 0 ]
ok $? "a read-only <Cgroup> on a copy of a tree is reported"
cmp -s "$T/victim-subtree" "$T/victim-subtree.orig"
ok $? "and its symlinked cgroup.subtree_control is untouched"
tap_done
