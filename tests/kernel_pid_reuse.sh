#!/usr/bin/env bash
# A pid reused between the check of a process to move and its move: the
# stranger who took the pid over is never moved.
# Set up for real in a private pid namespace (unshare), where
# /proc/sys/kernel/ns_last_pid chooses the next pid: collectd -T runs under
# gdb, stopped at jc_attach_move (after jc_attach_check has checked the
# process of an AttachPidFile, before anything is moved); there the
# process is killed, and a stranger started in a cgroup of its own gets
# its pid; then collectd goes on.  Once with a pidfd (Linux 5.3), once with
# the start-time fallback (JOULE_CGROUP_NO_PIDFD=1).  What is checked:
# the stranger's own /proc/PID/cgroup, unchanged; one ERROR line; the
# DEBUG line that says how the process was held (printed by gdb: Debian's
# collectd drops DEBUG lines); the created cgroup gone.
# Bounded: each namespace ends with its first process (unshare
# --kill-child), and everything in it with it.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_collectd
need "gdb" -- command -v gdb
need "unshare (util-linux)" -- command -v unshare
need "a pid namespace of our own" -- unshare --pid --fork --mount-proc true
need "the plugin's symbols for gdb (jc_attach_move)" -- \
  gdb -nx -batch -ex 'info address jc_attach_move' "$PLUGIN_BUILDDIR/joule_cgroup.so"

# The sanitizer pass: LeakSanitizer cannot work under ptrace (gdb); ASan
# and UBSan can.
no_lsan=
[ "${JC_SANITIZE:-}" != 1 ] || no_lsan=ASAN_OPTIONS=detect_leaks=0:halt_on_error=0

make_run_parent joule-reuse
mkdir "$parent/home" "$parent/stranger"

# reuse_case NAME [VAR=VALUE...]: collectd (with VAR=VALUE in its
# environment) asked to move a process whose pid is reused.
reuse_case() {
  local name=$1 d="$T/$1"
  shift
  mkdir -p "$d"
  write_conf "$d" "  CgroupRoot \"$mnt\"
  ReportRoot false
  <Cgroup \"$run/$name\">
    Create true
    AttachPidFile \"$d/victim.pid\"
  </Cgroup>"
  # pidfds.sh WHEN: how many pidfds collectd holds, into pidfds.WHEN.
  cat >"$d/pidfds.sh" <<EOF
find "/proc/\$(pidof collectd)/fd" -mindepth 1 -printf '%l\n' | grep -cE '^(anon_inode:\[pidfd\]|pidfd:.*)$' >"$d/pidfds.\$1"
EOF
  # At the breakpoint: the checked process killed (its parent, the
  # namespace's init, reaps it), then a stranger with its pid.
  cat >"$d/reuse.sh" <<EOF
bash "$d/pidfds.sh" held
v=\$(cat "$d/victim.pid")
kill -KILL "\$v"
for ((i = 0; i < 400; i++)); do [ -e "/proc/\$v" ] || break; sleep 0.05; done
echo "\$BASHPID" >"$parent/stranger/cgroup.procs"
echo \$((v - 1)) >/proc/sys/kernel/ns_last_pid
sleep 1000 &
echo \$! >"$d/stranger.pid"
EOF
  cat >"$d/reuse.gdb" <<EOF
set pagination off
set confirm off
set breakpoint pending on
handle SIGPIPE nostop noprint pass
set exec-wrapper env ${COLLECTD_ENV[*]:1} $no_lsan $*
break log_to_collectd if level == 7
commands
  silent
  printf "DEBUG %s\\n", msg
  continue
end
break jc_attach_move
commands
  silent
  printf "stopped between the check and the move\\n"
  shell bash "$d/reuse.sh"
  continue
end
break jc_shutdown_cb
commands
  silent
  shell bash "$d/pidfds.sh" shutdown
  continue
end
run
EOF
  # The namespace's init: starts the process to move (in RUN/home), then
  # collectd under gdb (both write to collectd.out, where the sanitizer
  # pass looks for reports); afterwards notes where the stranger is.
  cat >"$d/init.sh" <<EOF
(echo "\$BASHPID" >"$parent/home/cgroup.procs" && exec sleep 1000) &
echo \$! >"$d/victim.pid"
gdb -nx -batch -x "$d/reuse.gdb" --args "$COLLECTD_BIN" -T -C "$d/collectd.conf" </dev/null >"$d/collectd.out" 2>&1
grep "^0::" "/proc/\$(cat "$d/stranger.pid")/cgroup" >"$d/stranger.cgroup"
EOF
  timeout 120 unshare --pid --fork --kill-child --mount-proc bash "$d/init.sh"
  diag <"$d/collectd.out"
  local v s
  v=$(cat "$d/victim.pid" 2>/dev/null) s=$(cat "$d/stranger.pid" 2>/dev/null)
  grep -q "^stopped between the check and the move" "$d/collectd.out" && [ -n "$v" ] && [ "$v" = "$s" ]
  ok $? "$name: collectd stopped between check and move; process $v killed, a stranger got its pid ($s)"
  [ "$(cat "$d/stranger.cgroup" 2>/dev/null)" = "0::/$run/stranger" ]
  ok $? "$name: the stranger is not moved: $(cat "$d/stranger.cgroup" 2>/dev/null)"
  one_error "$d" "AttachPidFile \"$d/victim.pid\": cannot move process $v into $parent/$name: it exited after it was checked"
  ok $? "$name: one ERROR line, naming the AttachPidFile"
  test ! -e "$parent/$name"
  ok $? "$name: the cgroup it created is gone"
  [ "$(cat "$d/pidfds.shutdown" 2>/dev/null)" = 0 ]
  ok $? "$name: no pidfd left open after init ($(cat "$d/pidfds.held" 2>/dev/null) between the check and the move)"
}

reuse_case pidfd
[ "$(cat "$T/pidfd/pidfds.held" 2>/dev/null)" = 1 ]
ok $? "pidfd: collectd held the process by a pidfd between the check and the move"
grep -q "^DEBUG AttachPidFile \"$T/pidfd/victim.pid\": process [0-9]* held by a pidfd " "$T/pidfd/collectd.out"
ok $? "pidfd: the DEBUG line says the process was held by a pidfd"
reuse_case fallback JOULE_CGROUP_NO_PIDFD=1
grep -q "^DEBUG AttachPidFile \"$T/fallback/victim.pid\": process [0-9]* held by its start time [0-9]* (no pidfd: JOULE_CGROUP_NO_PIDFD=1)" "$T/fallback/collectd.out"
ok $? "fallback: the DEBUG line says the process was held by its start time"
tap_done
