#!/usr/bin/env bash
# The real collectd refuses bad configuration: each row below makes the
# config callback fail, collectd exit non-zero, and the log hold exactly
# one ERROR line from the plugin naming the key and the value; and
# `joule-cgroup check` on the same file exits 1 with the same message.
. "$(dirname "$0")/lib/common.sh"
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"

root="$T/root"
mkdir -p "$root/plain-dir"
echo "cpu memory" >"$root/cgroup.controllers"
: >"$root/plain"
ln -s /tmp "$root/escape"

# block <TAB> expected message (ERE)
while IFS=$'\t' read -r block want; do
  [ -n "$block" ] || continue
  dir="$T/case$TAP_N"
  write_conf "$dir" "  CgroupRoot \"$root\"
$(printf '%b' "$block")"
  collectd_once "$dir"
  status=$?
  [ "$status" -ne 0 ] && [ "$status" -ne 124 ]
  ok $? "refused: $(printf '%b' "$block" | tr '\n' ' ')"
  n=$(grep -c '^\[error\] joule_cgroup plugin: ' "$dir/collectd.log")
  line=$(grep '^\[error\] joule_cgroup plugin: ' "$dir/collectd.log" | head -n 1)
  [ "$n" -eq 1 ] && echo "$line" | grep -qE -- "$want"
  ok $? "one ERROR line matching /$want/"
  [ "$n" -eq 1 ] && echo "$line" | diag
  "$JC" check "$dir/collectd.conf" >/dev/null 2>"$dir/check.err"
  status=$?
  said=$(sed -n 's/^joule-cgroup: [^ ]*:[0-9]*: //p' "$dir/check.err")
  [ "$status" -eq 1 ] && [ "$said" = "${line#\[error\] joule_cgroup plugin: }" ]
  ok $? "joule-cgroup check: exit 1, the same message" || diag <"$dir/check.err"
done <<'TABLE'
  Bogus "x"	Bogus "x": unknown option
  ReportRoot "yes"	ReportRoot "yes": expects a boolean
  Select "a/../b"	Select "a/../b": contains ".."
  Ignore "/[unclosed/"	Ignore "/\[unclosed/": invalid regular expression
  Select 42	Select 42: expects a string
  Collect "cpu" "gpus"	Collect "cpu" "gpus": unknown group
  InstanceFrom "name"	InstanceFrom "name": must be "path", "basename" or "container"
  RuntimeRoot "srv"	RuntimeRoot "srv": must be an absolute path
  RuntimeRoot "/srv/host"	RuntimeRoot "/srv/host": is used by InstanceFrom "container" and Collect "disk" only
  InstanceFrom "container"\n  RuntimeDir "rkt" "/var/lib/rkt"	RuntimeDir "rkt" "/var/lib/rkt": unknown runtime "rkt"; known: containerd, crio, docker, podman, kubelet, kubelet-root
  RuntimeDir "containerd"	RuntimeDir "containerd": expects two strings
  InstanceFrom "container"\n  ContainerNames "flat"	ContainerNames "flat": must be "plain", "prefixed" or "levels"
  Instance "x"	Instance "x": Instance belongs inside a <Cgroup> block
  MemoryStat "a b"	MemoryStat "a b": is not a memory.stat key
  MaxOpenFiles "many"	MaxOpenFiles "many": expects a number
  PerDevice 1	PerDevice 1: expects a boolean
  NotifyOOM "yes"	NotifyOOM "yes": expects a boolean
  Collect "limit"	Collect "limit": unknown group; known: cpu, memory, io, pressure, events, pids, limits, energy, cgroups, gpu, network
  PowercapRoot "sys/class/powercap"	PowercapRoot "sys/class/powercap": must be an absolute path
  ProcStat 1	ProcStat 1: expects a string
  Values "memory-curent"	Values "memory-curent": matches no value list
  Values "load-*"	Values "load-\*": matches only value lists of Collect "pressure", which is not collected
  Values "!"	Values "!": is empty
  Values 1	Values 1: expects a string
  PathMetaData "yes"	PathMetaData "yes": expects a boolean
  <Cgroup "a">\n    Instance "j"\n  </Cgroup>\n  <Cgroup "b">\n    Instance "j"\n  </Cgroup>	<Cgroup "b">: Instance "j" is given to <Cgroup "a"> too
  <Cgroup "../x">\n  </Cgroup>	<Cgroup "../x">: contains ".."
  <Cgroup "a">\n    Bogus 1\n  </Cgroup>	Bogus 1: unknown option in <Cgroup>
  <Cgroup "a">\n    AttachPid "me"\n  </Cgroup>	AttachPid "me": expects a number
  <Cgroup "a">\n    AttachPid 0\n  </Cgroup>	AttachPid 0: is not a process id
  <Cgroup "a">\n    Create "yes"\n  </Cgroup>	Create "yes": expects a boolean
  <Cgroup "escape/x">\n  </Cgroup>	<Cgroup "escape/x">: "escape" is a symlink
  <Cgroup "plain/x">\n  </Cgroup>	<Cgroup "plain/x">: "plain" is not a directory
TABLE

# CgroupRoot must be absolute: its own row, without the fixture root.
dir="$T/relative"
write_conf "$dir" '  CgroupRoot "sys/fs/cgroup"'
collectd_once "$dir"
[ $? -ne 0 ]
ok $? "refused: relative CgroupRoot"
grep -q '^\[error\] joule_cgroup plugin: CgroupRoot "sys/fs/cgroup": must be an absolute path' "$dir/collectd.log"
ok $? "names the key and value"

# Nothing was created in the fixture root by any of the refused configs.
[ "$(find "$root" | wc -l)" -eq 5 ]
ok $? "refused configs leave nothing behind"
tap_done
