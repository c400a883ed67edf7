#!/usr/bin/env bash
# Thread safety: the real collectd with ReadThreads 4 runs the plugin beside
# stock read plugins (cpu, memory, load, interface, disk, processes,
# contextswitch, vmem) under valgrind's helgrind, while cgroups come and go
# below the plugin's Select, for HELGRIND_READS reads of the plugin.  No
# race report may be one the plugin's code made.
# collectd itself may draw reports (its own threads, glibc's): helgrind
# writes every report as XML (--xml-file), and a report counts against the
# plugin when one of its stacks (the access, and the conflicting access
# helgrind remembers) was made by the plugin's code: its first frame
# outside the libraries (libc, the loader, valgrind's preload) is in
# joule_cgroup.so.  The first such frame is the code that touched the
# memory: collectd's signal handler (stop_collectd) interrupting a read
# thread in the plugin's pread is collectd's access, not the plugin's.
# The others are listed, not counted.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need "valgrind" -- command -v valgrind
need "python3" -- command -v python3
need_collectd
: "${HELGRIND_READS:=20}"

make_run_parent joule-helgrind
for i in 1 2 3; do mkdir -p "$parent/c$i/inner"; done

dir="$T/helgrind"
JC_INTERVAL=0.2 write_conf "$dir" "  CgroupRoot \"$mnt\"
  Select \"$run/**\"" "ReadThreads 4
LoadPlugin cpu
LoadPlugin memory
LoadPlugin load
LoadPlugin interface
LoadPlugin disk
LoadPlugin processes
LoadPlugin contextswitch
LoadPlugin vmem"
valgrind --tool=helgrind --xml=yes --xml-file="$dir/helgrind.xml" \
  --log-file="$dir/helgrind.txt" \
  "$COLLECTD_BIN" -f -C "$dir/collectd.conf" >"$dir/collectd.out" 2>&1 &
vg_pid=$!
COLLECTD_PIDS+=("$vg_pid")
COLLECTD_PID=$vg_pid

reads() { csv_reads "$dir"; }
reads_at_least() { kill -0 "$vg_pid" 2>/dev/null || return 0; [ "$(reads)" -ge "$1" ]; }
wait_until reads_at_least 1
threads=$(find "/proc/$vg_pid/task" -mindepth 1 -maxdepth 1 | wc -l)
# Churn while it reads: walks and inotify in the read threads.
i=0
while [ $i -lt 200 ] && ! reads_at_least "$HELGRIND_READS"; do
  i=$((i + 1))
  mkdir "$parent/n$i"
  [ $i -le 2 ] || rmdir "$parent/n$((i - 2))"
  wait_until reads_at_least $(($(reads) + 1))
done
n=$(reads)
stop_collectd

[ "$n" -ge "$HELGRIND_READS" ] && [ "$threads" -ge 5 ]
ok $? "under helgrind: $n reads of the plugin, $i cgroups made and removed, collectd ran $threads threads (ReadThreads 4)"
grep -q '</valgrindoutput>' "$dir/helgrind.xml"
ok $? "helgrind finished its report ($dir/helgrind.xml)"
python3 - "$dir/helgrind.xml" >"$T/verdict" <<'PY'
import sys
import xml.etree.ElementTree as ET

def frames(node):
    for f in node.iter("frame"):
        yield f.findtext("obj") or "", f.findtext("fn") or "?", \
            (f.findtext("file") or "?") + ":" + (f.findtext("line") or "?")

def program(obj):  # collectd, its plugins and ours; not the libraries
    return obj.endswith("/joule_cgroup.so") or obj.startswith("/usr/lib/collectd/") \
        or obj.endswith("/collectd")

def made_by_plugin(stack):
    for obj, _, _ in frames(stack):
        if program(obj):
            return obj.endswith("/joule_cgroup.so")
    return False

errors = ET.parse(sys.argv[1]).getroot().findall("error")
ours = [e for e in errors if any(made_by_plugin(s) for s in e.iter("stack"))]
print(len(errors), len(ours))
for e in ours[:5] + [e for e in errors if e not in ours][:3]:
    print("# %s: %s" % (e.findtext("kind"),
                       e.findtext("what") or e.findtext("xwhat/text")))
    for obj, fn, where in list(frames(e))[:8]:
        print("#     %s %s (%s)" % (fn, where, obj.rsplit("/", 1)[-1]))
PY
read -r all ours <"$T/verdict"
[ -n "$ours" ] && [ "$ours" -eq 0 ]
ok $? "no race report made by the plugin's code: ${ours:-?} of ${all:-?} reports ($((${all:-0} - ${ours:-0})) elsewhere)"
tail -n +2 "$T/verdict"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "no WARNING or ERROR from the plugin"
tap_done
