#!/usr/bin/env bash
# make bench: what a cgroup costs, measured in one run and printed as
# tables (figures of one run; ratios are taken within it):
#
#   core     the core's read pass per cgroup (bench/jc_bench) on this
#            host's cgroup v2, N = BENCH_SIZES (100 1000 10000) flat
#            cgroups, for the shipped default's files and for those of
#            Collect "cpu" "pressure": the floor, kept descriptors, files
#            reopened at every read;
#   names    the same pass with InstanceFrom "container" against "path"
#            (bench/jc_names_bench): 1,000 Kubernetes containers of this
#            host's cgroup v2, their runtime's state (written by
#            bench/make-runtime-state.py) in a RuntimeRoot below /tmp, 10
#            containers created and 10 removed before each pass;
#   collectd the real collectd's CPU per cgroup per read, `network` to a
#            sink on 127.0.0.1 (bench/jc_sink), on BENCH_CGROUPS (1000)
#            cgroups of this host's cgroup v2, for four value sets;
#   tmpfs    the same on a tree of as many full-controller services on
#            tmpfs (copies of a service of tests/fixtures/k6.12-debian
#            below a copy of its slice): the first releases' sets and the
#            shipped ones;
#   netdata  Netdata's cgroups collector on the same cgroup v2 cgroups
#            (bench/netdata-cgroups.conf), less its own baseline;
#   vm       in the test VM (Debian's 6.12 kernel): the stock `cgroups`
#            plugin on cgroup v1 cpuacct beside this plugin, Collect "cpu"
#            (bench/vm-stock.sh);
#   net      Collect "network" (bench/jc_net_bench): 1,000 containers in
#            500 pods, each pod a network namespace of its own holding one
#            veth: the pass with the group against the default pass, and
#            the step's part per namespace against the kernel's floor for
#            its files (/proc/PID/net/dev; with the health counters net/snmp
#            and net/netstat too);
#   disk     Collect "disk" (bench/jc_disk_bench): 100 Docker containers of
#            10,000 files each in their writable layers (BENCH_DISK_FILES),
#            on a tmpfs; their cgroups a tree of full-controller cgroups on
#            tmpfs (copies of limited.slice/batch.service of
#            tests/fixtures/k6.12-debian): the pass with the group at its
#            default budget against the default pass, round by round, the
#            worst pass too, and the group's CPU over a minute against
#            `du -s` of the same layers;
#   soak     memory under churn (bench/soak.sh): the real collectd with the
#            plugin while 100,000 cgroups of this host's cgroup v2 come and
#            go, some holding a process that ends, at the default and with
#            every Collect group: collectd's RSS and heap in use and the
#            plugin's own heap after 10,000, 50,000 and 100,000 (about 10
#            minutes; JC_SOAK_CGROUPS and the rest of its settings pass on);
#
# then the targets, met or missed.  BENCH_PARTS chooses parts (default all
# of them), BENCH_SIZES the core's sizes, BENCH_WARM and BENCH_READS the
# reads of each collectd (3 and 10), BENCH_NAMES_PASSES the passes of a
# run of the names part (60; 3 runs).  Needs root; installs what it needs
# (scripts/deps.sh --bench, for the netdata and vm parts).  Every cgroup it makes is below one parent
# named for the run and removed; every process it starts is stopped.
set -euo pipefail
: "${top_builddir:?run through make bench}"
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
: "${COLLECTD_BIN:=/usr/sbin/collectd}"
: "${COLLECTD_PLUGINDIR:=/usr/lib/collectd}"
export top_srcdir top_builddir COLLECTD_BIN COLLECTD_PLUGINDIR
sizes=${BENCH_SIZES:-"100 1000 10000"}
parts=${BENCH_PARTS:-"core names collectd tmpfs netdata vm net disk soak"}
n=${BENCH_CGROUPS:-1000}
vm_services=${BENCH_VM_SERVICES:-200}
mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$mnt" ] && [ "$(id -u)" -eq 0 ] || { echo "bench: needs root and a cgroup2 mount" >&2; exit 1; }
case " $parts " in
  *" netdata "* | *" vm "*) "$top_srcdir/scripts/deps.sh" --bench ;;
  *) "$top_srcdir/scripts/deps.sh" ;;
esac

run="joule-bench-$$"
parent="$mnt/$run"
tmp=$(mktemp -d /tmp/joule-bench.XXXXXX)
tree=$tmp/tree
netdata_pid=
# shellcheck source=bench/lib.sh
. "$top_srcdir/bench/lib.sh"
cleanup() {
  set +e
  bench_stop_all
  [ -n "$netdata_pid" ] && kill -KILL -- "-$netdata_pid" 2>/dev/null
  drop_tree "$parent"
  mountpoint -q "$tree" && umount "$tree"
  mountpoint -q "$tmp/disk-state" && umount "$tmp/disk-state"
  mountpoint -q "$tmp/disk-tree" && umount "$tmp/disk-tree"
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
started=$SECONDS
has() { [[ " $parts " == *" $1 "* ]]; }
ratio() { awk -v x="$1" -v y="$2" 'BEGIN { if (x == "" || y == "" || y == 0) print "-"; else printf "%.2f", x / y }'; }
verdict() { awk -v x="$1" -v t="$2" 'BEGIN { if (x == "-" || x == "") print "not measured"; else print (x <= t ? "met" : "MISSED") }'; }
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }

# ---- 1. the core's read pass ------------------------------------------------

declare -A core_a core_b core_a_of core_line
passes_for() { case $1 in 100) echo 500 ;; 1000) echo 50 ;; *) echo 5 ;; esac; }

# energy_rows SET: what SET adds to the default's pass, per size.
energy_rows() {
  local size
  for size in $sizes; do
    awk -v n="$size" -v e="${core_b[$size,$1]:-}" -v d="${core_b[$size,default]:-}" \
      'BEGIN { if (e == "" || d == "") exit; printf "   N %-6s b %.3f against %.3f µs per cgroup: %+.1f µs per pass, %+.3f µs per cgroup\n", n, e, d, (e - d) * n, e - d }'
  done
}

core_part() {
  echo "1. The core's read pass, µs per cgroup per pass (jc_collector_read, no-op emit)"
  echo "   $mnt, flat cgroups, soft RLIMIT_NOFILE $(ulimit -Sn) (hard $(ulimit -Hn)), fastest of 7"
  printf '%-6s %-9s %5s %7s %7s %7s %5s %6s %6s %7s %8s %8s\n' \
    N "files of" files "a µs" "b µs" "reop µs" "b/a" "reop/a" "fds" "heap B" "a/a@1000" "b/b@1000"
  local size line set has_cpuset=no
  # The energy set reads the zones of the two-socket Xeon fixture (6 RAPL
  # zones) and /proc/stat once per pass; the packages set splits them per
  # package, with the fixture's topology of two sockets and a /proc/stat
  # of its 15 online CPUs (each cgroup's cpuset.cpus.effective is read
  # too where the host's cgroup v2 has the cpuset controller).
  cp -a "$top_srcdir/tests/fixtures/powercap/intel-xeon-2s" "$tmp/xeon"
  { echo "cpu  1500000 0 0 1500000 0 0 0 0 0 0"
    for c in 0 1 2 3 4 5 6 7 8 9 10 11 12 14 15; do echo "cpu$c 100000 0 0 100000 0 0 0 0 0 0"; done
    echo "intr 0"; } >"$tmp/stat"
  for size in $sizes; do
    make_flat "$parent" "$size"
    line=$(JC_BENCH_POWERCAP="$tmp/xeon/sys/class/powercap" \
      JC_BENCH_CPUROOT="$top_srcdir/tests/fixtures/cpu/xeon-2s-interleaved" \
      JC_BENCH_PROCSTAT="$tmp/stat" \
      "$top_builddir/bench/jc_bench" "$mnt" "$run" "$(passes_for "$size")" 7)
    core_line[$size]=$line
    has_cpuset=no
    compgen -G "$parent/*/cpuset.cpus.effective" >/dev/null && has_cpuset=yes
    for set in default pressure energy packages; do
      core_a[$size,$set]=$(field "$line" "${set}_a")
      core_b[$size,$set]=$(field "$line" "${set}_b")
      core_a_of[$size,$set]=$(field "$line" "${set}_a_of1000")
    done
    drop_tree "$parent"
  done
  for size in $sizes; do
    for set in default pressure; do
      line=${core_line[$size]}
      printf '%-6s %-9s %5s %7s %7s %7s %5s %6s %6s %7s %8s %8s\n' "$size" "$set" \
        "$(field "$line" "${set}_files")" "$(field "$line" "${set}_a")" \
        "$(field "$line" "${set}_b")" "$(field "$line" "${set}_reopen")" \
        "$(field "$line" "${set}_b_over_a")" "$(field "$line" "${set}_reopen_over_a")" \
        "$(field "$line" "${set}_fds")" "$(field "$line" "${set}_heap")" \
        "$(ratio "${core_a[$size,$set]}" "${core_a[1000,$set]:-}")" \
        "$(ratio "${core_b[$size,$set]}" "${core_b[1000,$set]:-}")"
    done
  done
  cat <<'EOF'
   files of: default = the shipped default (no Collect; here only cpu.stat exists of its
   files), pressure = Collect "cpu" "pressure" (cpu.stat and three pressure files); a: the
   floor, one pread per file on kept descriptors, no parsing (in chunks when the limit cannot
   hold them all); b: the core with its default descriptor budget (soft limit less a quarter,
   at least 256; the limit is not raised); reop: MaxOpenFiles = N, a directory descriptor per
   cgroup and every file opened at every read; fds: descriptors kept at b; heap B: heap per
   cgroup at b; a/a@1000, b/b@1000: against the same figure at 1,000 cgroups.
EOF
  echo "   The floor of reading only 1,000 of the N cgroups: the hierarchy is as big, what a pass"
  echo "   touches as small as at 1,000; near a at 1,000, the growth of a with N is the caches'."
  for size in $sizes; do
    for set in default pressure; do
      [ -n "${core_a_of[$size,$set]:-}" ] || continue
      printf '   N %-6s %-9s a of 1,000 %7s µs, a of all %7s, a at 1,000 %7s\n' "$size" "$set" \
        "${core_a_of[$size,$set]}" "${core_a[$size,$set]}" "${core_a[1000,$set]:-}"
    done
  done
  echo "   Collect \"cpu\" \"energy\" (the 6 RAPL zones of tests/fixtures/powercap/intel-xeon-2s and"
  echo "   /proc/stat, read once per pass) against the default's cpu.stat alone:"
  energy_rows energy
  echo "   The same zones split per package (two sockets, 15 CPUs of tests/fixtures/cpu/xeon-2s-interleaved,"
  echo "   their /proc/stat lines; the cgroups' cpuset.cpus.effective read as well: $has_cpuset):"
  energy_rows packages
  echo
}

# ---- names from the container runtime ------------------------------------------

names_part() {
  local pods=500 passes=${BENCH_NAMES_PASSES:-60} line
  echo "1b. InstanceFrom \"container\" against \"path\": the core's read pass, µs per cgroup per pass"
  python3 "$top_srcdir/bench/make-runtime-state.py" "$tmp/runtime" $((pods + 5 * passes))
  if ! line=$("$top_builddir/bench/jc_names_bench" "$mnt" "$run" "$tmp/runtime" "$pods" "$passes" 3); then
    echo "   failed (see above)"
    drop_tree "$parent"
    return 0
  fi
  names_ratio=$(field "$line" ratio)
  echo "   $(field "$line" containers) containers of $pods pods (kubepods.slice, the systemd driver) on $mnt;"
  echo "   containerd's bundles and the kubelet's logs in a RuntimeRoot in $tmp"
  echo "   (bench/make-runtime-state.py); medians of $(field "$line" passes) passes in 3 runs"
  printf '   %-16s %9s %9s\n' InstanceFrom churn quiet
  printf '   %-16s %9s %9s\n' '"path"' "$(field "$line" path)" "$(field "$line" quiet_path)"
  printf '   %-16s %9s %9s\n' '"container"' "$(field "$line" container)" "$(field "$line" quiet_container)"
  printf '   %-16s %9s %9s\n' container/path "$names_ratio" "$(field "$line" quiet_ratio)"
  echo "   one name looked up: $(field "$line" lookup) µs a container (jc_runtime_name, its files cached)"
  echo "   named from the runtime: $(field "$line" named_container) (\"path\": $(field "$line" named_path))"
  cat <<'EOF'
   churn: before each pass 10 containers created and 10 removed (5 pods each way), a second of
   Interval 1 at 10 a second: the pass walks the tree again, reads the new cgroups and, with
   "container", names them; quiet: passes without a change. Each pass is read by both modes,
   one after the other, each first in turn; container/path: the median of two passes' ratios.
EOF
  echo
}

# ---- network namespaces ------------------------------------------------------------

net_part() {
  local pods=${BENCH_NET_PODS:-500} line
  echo "1c. Collect \"network\": the core's read pass on $((2 * pods)) containers in $pods pods, each pod a"
  echo "   network namespace of its own holding one veth (bench/jc_net_bench), µs of CPU per pass, the"
  echo "   median of 140 rounds of one pass of each figure in turn"
  if ! line=$("$top_builddir/bench/jc_net_bench" "$mnt" "$run" "$pods" 20 7); then
    echo "   failed (see above)"
    drop_tree "$parent"
    return 0
  fi
  net_line=$line
  printf '   %-44s %9s %7s %9s\n' "value set" "µs/pass" lists "×default"
  printf '   %-44s %9s %7s %9s\n' "shipped default" "$(field "$line" default_us)" "$(field "$line" default_lists)" 1.000
  printf '   %-44s %9s %7s %9s\n' 'default + Collect "network"' "$(field "$line" net_us)" \
    "$(field "$line" net_lists)" "$(field "$line" net_over_default)"
  printf '   %-44s %9s %7s %9s\n' '  and Values "protocol_counter-*"' "$(field "$line" health_us)" \
    "$(field "$line" health_lists)" "$(field "$line" health_over_default)"
  echo "   per namespace, µs: the step (its pass less the default's, / $pods)"
  printf '   %-44s %9s %9s\n' "" "net/dev" "+ health"
  printf '   %-44s %9s %9s\n' "the step" "$(field "$line" net_per_ns)" "$(field "$line" health_per_ns)"
  printf '   %-44s %9s %9s\n' "floor: open, read, close of its files" "$(field "$line" floor_dev)" "$(field "$line" floor_health)"
  printf '   %-44s %9s %9s\n' "the step / the floor" "$(field "$line" net_over_floor)" "$(field "$line" health_over_floor)"
  printf '   %-44s %9s %9s\n' "kept: the same files kept open, read again" "$(field "$line" kept_dev)" "$(field "$line" kept_health)"
  printf '   %-44s %9s\n' "checks: the kernel's part of checking it" "$(field "$line" checks)"
  printf '   %-44s %9s\n' "full check (every RescanInterval)" "$(field "$line" full)"
  printf '   %-44s %9s\n' "the step at a full check (net_full less" "$(field "$line" net_full_per_ns)"
  printf '   %-44s\n' "  default_full: both walk the tree too)"
  printf '   %-44s %9s\n' "a minute at Interval 10: 5 passes, 1 full" "$(field "$line" net_minute_per_ns)"
  printf '   %-44s %9s\n' "  / the floor" "$(field "$line" net_minute_over_floor)"
  printf '   %-44s %9s\n' "  its passes × the default's" "$(field "$line" net_minute_over_default)"
  printf '   %-44s %9s %9s\n' "the step / (the floor + checks)" "$(field "$line" net_over_floor_checks)" \
    "$(field "$line" health_over_floor_checks)"
  printf '   %-44s %9s %9s\n' "the step / (kept + checks)" "$(field "$line" net_over_kept_checks)" \
    "$(field "$line" health_over_kept_checks)"
  printf '   %-44s %9s %9s\n' "stateless floor: find it and read it anew" "$(field "$line" stateless_dev)" \
    "$(field "$line" stateless_health)"
  printf '   %-44s %9s %9s\n' "the step / the stateless floor" "$(field "$line" net_over_stateless)" \
    "$(field "$line" health_over_stateless)"
  printf '   %-44s %9s %9s\n' "the step's own code (user mode)" "$(field "$line" net_user_per_ns)" \
    "$(field "$line" health_user_per_ns)"
  cat <<'EOF'
   pods: PARENT/pN (no process), pN/pause (made the namespace), pN/app (joined it), every
   controller the parent offers enabled for the pods and their containers, as a runtime does;
   floor: the pause process's /proc/PID/net/dev (health: and net/snmp, net/netstat) opened, read
   to the end and closed, no parsing; kept: those files kept open, read from their start to the
   end (pread); checks: per namespace, one pread at 0 of the pod's cgroup.procs kept open (no
   process of its own), and its share of one epoll_wait a pass on the processes' pidfds; full
   check: one pread at 0 of the pod's, pause's and app's cgroup.procs kept open, and readlink
   /proc/PID/ns/net of both processes; a minute: at Interval 10 and RescanInterval 60, five
   passes and a full check; stateless floor: what a reader that keeps nothing makes the kernel
   do (cAdvisor's way): the three cgroup.procs opened, read and closed, both links read, the
   floor's files opened, read and closed; own code: the process's user-mode time, the step's
   pass less the default's.
EOF
  net_vm_part
  echo
}

# The same on a node with every controller: the test VM (6.12, emulated),
# fewer pods (under emulation every figure is about ten times the host's).
net_vm_part() {
  local kernel vm_pods=${BENCH_NET_VM_PODS:-100}
  kernel=${BENCH_VM_KERNEL:-$("$top_srcdir/tests/vm/kernels.sh" | grep '^6\.12' | tail -n 1)}
  if [ -z "$kernel" ] || ! command -v qemu-system-x86_64 >/dev/null; then
    echo "   in the VM: not measured (no 6.12 kernel or qemu: scripts/deps.sh --bench installs them)"
    return 0
  fi
  if ! net_vm_line=$(cd "$top_builddir" && "$top_srcdir/tests/vm/vm-run.sh" --kernel "$kernel" \
    --disk 0 --mem 2048 --timeout 600 -- "$top_builddir/bench/jc_net_bench" /sys/fs/cgroup \
    "$run" "$vm_pods" 5 5 | tail -n 1) || [ -z "$net_vm_line" ]; then
    echo "   in the VM: failed (see above)"
    net_vm_line=
    return 0
  fi
  local line=$net_vm_line
  echo "   In the test VM (Debian's 6.12 under qemu, emulated), every controller, $vm_pods pods:"
  printf '   %-44s %9s %7s %9s\n' "shipped default" "$(field "$line" default_us)" "$(field "$line" default_lists)" 1.000
  printf '   %-44s %9s %7s %9s\n' 'default + Collect "network"' "$(field "$line" net_us)" \
    "$(field "$line" net_lists)" "$(field "$line" net_over_default)"
  printf '   %-44s %9s %9s\n' "per namespace: the step / the floor" "$(field "$line" net_over_floor)" \
    "$(field "$line" health_over_floor)"
  printf '   %-44s %9s %9s\n' "  / the stateless floor" "$(field "$line" net_over_stateless)" \
    "$(field "$line" health_over_stateless)"
  printf '   %-44s %9s\n' "a minute at Interval 10 (5 passes, 1 full):" ""
  printf '   %-44s %9s\n' "  its passes × the default's" "$(field "$line" net_minute_over_default)"
  printf '   %-44s %9s\n' "  the step / the floor" "$(field "$line" net_minute_over_floor)"
}

# ---- 2. collectd's CPU per cgroup per read ------------------------------------

declare -A cd_us cd_lists
# measure KEY LABEL TAG MARKER [BASE]: collectd_cpu with the configuration
# on stdin (not from a pipe: it must run in this shell), one table row, its
# ratio to BASE's figure.
measure() {
  local key=$1 label=$2 tag=$3 marker=$4 base=${5:-}
  if ! collectd_cpu "$tag" "$n" "$marker"; then
    printf '   %-44s %s\n' "$label" "failed (see above)"
    return 0
  fi
  read -r cd_us[$key] cd_lists[$key] spr <<<"$bench_result"
  printf '   %-44s %7s %8s %8s %8s %6s\n' "$label" "${cd_lists[$key]}" "${cd_us[$key]}" \
    "$(ratio "${cd_us[$key]}" "${cd_lists[$key]}")" \
    "$( [ -n "$base" ] && ratio "${cd_us[$key]}" "${cd_us[$base]:-}" || echo -)" "$spr"
}

header2() {
  printf '   %-44s %7s %8s %8s %8s %6s\n' "value set" lists "µs" "µs/list" "$1" "s/read"
}

collectd_part() {
  echo "2a. collectd's CPU per cgroup per read: $n cgroups of this host's cgroup v2 ($mnt)"
  header2 "×default"
  local m="joule_cgroup-${run}_c0/ps_cputime"
  measure v2_default "shipped default" v2-default "$m" < <(joule_block "$mnt" "$run/*")
  measure v2_cpu 'Collect "cpu"' v2-cpu "$m" v2_default \
    < <(joule_block "$mnt" "$run/*" 'Collect "cpu"')
  measure v2_default_pressure 'default + "pressure"' v2-default-pressure "$m" v2_default \
    < <(joule_block "$mnt" "$run/*" 'Collect "cpu" "memory" "io" "limits" "pressure"')
  measure v2_cpu_pressure 'Collect "cpu" "pressure"' v2-cpu-pressure "$m" v2_default \
    < <(joule_block "$mnt" "$run/*" 'Collect "cpu" "pressure"')
  echo "   (on this hybrid host the cgroup v2 has no memory, io or cpu controller: the default"
  echo "   reads cpu.stat only, so default = Collect \"cpu\" and default + pressure = cpu + pressure)"
  echo
}

# make_service_tree DIR PARENT COUNT NAME: a tree of full-controller
# cgroups on a tmpfs at DIR: the root's files of the 6.12 fixture, its
# limited.slice's as PARENT, and COUNT copies of its batch.service below,
# each named by NAME (a function of the index: its name on stdout).
make_service_tree() {
  local fx=$top_srcdir/tests/fixtures/k6.12-debian i
  mkdir -p "$1"
  mount -t tmpfs -o size=512m jc-bench-tree "$1"
  find "$fx" -maxdepth 1 -type f -exec cp {} "$1/" \;
  mkdir "$1/$2"
  find "$fx/limited.slice" -maxdepth 1 -type f -exec cp {} "$1/$2/" \;
  for ((i = 0; i < $3; i++)); do
    cp -r "$fx/limited.slice/batch.service" "$1/$2/$("$4" "$i")"
  done
}
service_name() { echo "s$1.service"; }
docker_scope() { printf 'docker-%064x.scope\n' $((0xd15c0000 + $1)); }

tmpfs_part() {
  echo "2b. collectd's CPU per cgroup per read: $n full-controller services on tmpfs"
  echo "   (copies of limited.slice/batch.service of tests/fixtures/k6.12-debian below its slice)"
  header2 "×first"
  make_service_tree "$tree" limited.slice "$n" service_name
  local m="joule_cgroup-limited.slice_s0.service/ps_cputime"
  local all='Collect "cpu" "memory" "io" "limits" "pressure"'
  measure fx_first "first releases' default (Values \"*\")" fx-first "$m" \
    < <(joule_block "$tree" "limited.slice/*" 'Values "*"')
  measure fx_first_meta "  the same with PathMetaData true, as sent then" fx-first-meta "$m" fx_first \
    < <(joule_block "$tree" "limited.slice/*" 'Values "*"' 'PathMetaData true')
  measure fx_default "shipped default" fx-default "$m" fx_first \
    < <(joule_block "$tree" "limited.slice/*")
  measure fx_default_pressure 'default + "pressure"' fx-default-pressure "$m" fx_first \
    < <(joule_block "$tree" "limited.slice/*" "$all")
  measure fx_first_pressure "first releases' pressure (Values \"*\" \"!load-*\")" fx-first-pressure "$m" fx_first \
    < <(joule_block "$tree" "limited.slice/*" "$all" 'Values "*" "!load-*"')
  umount "$tree"
  echo
}

# ---- Netdata --------------------------------------------------------------------

nd_port=19989
nd_get() { curl -s --max-time 10 "http://127.0.0.1:$nd_port$1" || true; }
nd_ticks() { awk '{ print $14 + $15 }' "/proc/$netdata_pid/stat"; }
nd_thread_ticks() { # the cgroups collector's own threads
  local t sum=0
  for t in /proc/"$netdata_pid"/task/*; do
    [[ "$(cat "$t/comm" 2>/dev/null)" == "PLUGIN[cgroups"* ]] &&
      sum=$((sum + $(awk '{ print $14 + $15 }' "$t/stat")))
  done
  echo "$sum"
}

# netdata_start yes|no
netdata_start() {
  local dir=$tmp/netdata-$1
  mkdir -p "$dir"/{etc,cache,lib,log,lock}
  sed -e "s|@DIR@|$dir|g" -e "s|@RUN@|$run|g" -e "s|@MOUNT@|$mnt|g" \
    -e "s|@PORT@|$nd_port|g" -e "s|@CGROUPS@|$1|g" \
    "$top_srcdir/bench/netdata-cgroups.conf" >"$dir/netdata.conf"
  DO_NOT_TRACK=1 setsid netdata -D -c "$dir/netdata.conf" >"$dir/out" 2>&1 &
  netdata_pid=$!
  local i
  for ((i = 0; i < 100; i++)); do
    nd_get /api/v1/info | grep -q '"version"' && return 0
    sleep 0.3
  done
  echo "bench: netdata did not answer on 127.0.0.1:$nd_port" >&2
  return 1
}

netdata_stop() {
  [ -n "$netdata_pid" ] || return 0
  bench_stop "$netdata_pid"
  kill -KILL -- "-$netdata_pid" 2>/dev/null || true # its spawn server
  netdata_pid=
}

# The cgroups collector's charts for all n cgroups, then a settled window.
netdata_part() {
  echo "2c. Netdata 1.37's cgroups collector on the same $n cgroup v2 cgroups, 1 s updates"
  local chart="cgroup_${run}_c0.cpu" i ready=0 t0 c0 e0 w0 t1 c1 e1 w1
  netdata_start yes || { netdata_stop; return 0; }
  for ((i = 0; i < 90; i++)); do # discovery of 1,000 takes ~30 s here
    ready=$(nd_get /api/v1/charts | grep -c "\"id\": \"cgroup_${run}_c[0-9]*\\.cpu\"" || true)
    [ "$ready" -ge "$n" ] && break
    sleep 2
  done
  local charts dims
  charts=$(nd_get /api/v1/charts | sed -n 's/.*"charts_count": *\([0-9]*\).*/\1/p')
  dims=$(nd_get /api/v1/charts | sed -n 's/.*"dimensions_count": *\([0-9]*\).*/\1/p')
  sleep 15 # settle after discovery
  t0=$(nd_ticks) c0=$(nd_thread_ticks) w0=$(date +%s.%N)
  e0=$(nd_get "/api/v1/chart?chart=$chart" | sed -n 's/.*"last_entry": *\([0-9]*\).*/\1/p')
  sleep 30
  t1=$(nd_ticks) c1=$(nd_thread_ticks) w1=$(date +%s.%N)
  e1=$(nd_get "/api/v1/chart?chart=$chart" | sed -n 's/.*"last_entry": *\([0-9]*\).*/\1/p')
  netdata_stop

  netdata_start no || { netdata_stop; return 0; }
  sleep 10
  local b0 b1 bw0 bw1
  b0=$(nd_ticks) bw0=$(date +%s.%N)
  sleep 20
  b1=$(nd_ticks) bw1=$(date +%s.%N)
  netdata_stop
  local hz
  hz=$(getconf CLK_TCK)
  nd_us=$(awk -v t="$((t1 - t0))" -v w="$w1" -v w0="$w0" -v b="$((b1 - b0))" -v bw="$bw1" \
    -v bw0="$bw0" -v u="$((e1 - e0))" -v hz="$hz" -v n="$n" \
    'BEGIN { base = b / (bw - bw0); printf "%.1f", (t - base * (w - w0)) / hz * 1e6 / u / n }')
  local thr_us
  thr_us=$(awk -v c="$((c1 - c0))" -v u="$((e1 - e0))" -v hz="$hz" -v n="$n" \
    'BEGIN { printf "%.1f", c / hz * 1e6 / u / n }')
  printf '   %-44s %s\n' "cgroups with charts" "$ready of $n ($charts charts, $dims dimensions)"
  printf '   %-44s %s\n' "updates counted (window)" "$((e1 - e0)) in $(awk -v a="$w1" -v b="$w0" 'BEGIN { printf "%.1f", a - b }') s"
  printf '   %-44s %s\n' "baseline (cgroups = no)" "$(awk -v b="$((b1 - b0))" -v s="$(awk -v a="$bw1" -v b="$bw0" 'BEGIN { print a - b }')" -v hz="$hz" 'BEGIN { printf "%.1f ms of CPU per s", b / hz * 1e3 / s }')"
  printf '   %-44s %s\n' "µs per cgroup per update, less baseline" "$nd_us"
  printf '   %-44s %s\n' "  of which its PLUGIN[cgroups] threads" "$thr_us"
  printf '   %-44s %s\n' "dimensions per cgroup" "$(awk -v d="$dims" -v n="$n" 'BEGIN { printf "%.0f", d / n }')"
  printf '   %-44s %s\n' "collectd Collect \"cpu\" \"pressure\" (2a)" \
    "${cd_us[v2_cpu_pressure]:-not measured} µs, ${cd_lists[v2_cpu_pressure]:-?} lists: $(ratio "${cd_us[v2_cpu_pressure]:-}" "$nd_us")× Netdata"
  echo
}

# ---- the stock plugin in the VM ---------------------------------------------------

vm_part() {
  echo "2d. In the test VM (Debian's 6.12 kernel under qemu, software emulation): $n cgroups each"
  header2 "×stock"
  local kernel out
  kernel=${BENCH_VM_KERNEL:-$("$top_srcdir/tests/vm/kernels.sh" | grep '^6\.12' | tail -n 1)}
  if [ -z "$kernel" ]; then
    echo "   no 6.12 kernel installed (scripts/deps.sh --bench installs it)"
    return 0
  fi
  out=$(cd "$top_builddir" && "$top_srcdir/tests/vm/vm-run.sh" --kernel "$kernel" --disk 0 \
    --timeout 600 --env "BENCH_CGROUPS=$n" --env "BENCH_VM_SERVICES=$vm_services" \
    --env "BENCH_WARM=$BENCH_WARM" \
    --env "BENCH_READS=$BENCH_READS" -- bash "$top_srcdir/bench/vm-stock.sh") || true
  local s j
  s=$(sed -n 's/^stock=//p' <<<"$out") j=$(sed -n 's/^joule=//p' <<<"$out")
  read -r cd_us[vm_stock] cd_lists[vm_stock] s_spr <<<"$s"
  read -r cd_us[vm_joule] cd_lists[vm_joule] j_spr <<<"$j"
  printf '   %-44s %7s %8s %8s %8s %6s\n' "stock cgroups plugin, v1 cpuacct" \
    "${cd_lists[vm_stock]:-}" "${cd_us[vm_stock]:-failed}" \
    "$(ratio "${cd_us[vm_stock]:-}" "${cd_lists[vm_stock]:-}")" 1.00 "${s_spr:-}"
  printf '   %-44s %7s %8s %8s %8s %6s\n' 'joule_cgroup Collect "cpu", cgroup v2' \
    "${cd_lists[vm_joule]:-}" "${cd_us[vm_joule]:-failed}" \
    "$(ratio "${cd_us[vm_joule]:-}" "${cd_lists[vm_joule]:-}")" \
    "$(ratio "${cd_us[vm_joule]:-}" "${cd_us[vm_stock]:-}")" "${j_spr:-}"
  local key label
  local -A spr
  for key in first default pressure; do
    read -r cd_us[vm_$key] cd_lists[vm_$key] spr[$key] <<<"$(sed -n "s/^full_$key=//p" <<<"$out")"
  done
  echo "   $vm_services full-controller services on the VM's cgroupfs, every controller, the tmpfs"
  echo "   part's limits (fewer services: under emulation a read of 1,000 would not fit in 1 s):"
  for key in first default pressure; do
    case $key in
      first) label="first releases' default (Values \"*\")" ;;
      default) label="shipped default" ;;
      pressure) label='default + "pressure"' ;;
    esac
    printf '   %-44s %7s %8s %8s %8s %6s\n' "$label" "${cd_lists[vm_$key]:-}" \
      "${cd_us[vm_$key]:-failed}" "$(ratio "${cd_us[vm_$key]:-}" "${cd_lists[vm_$key]:-}")" \
      "$(ratio "${cd_us[vm_$key]:-}" "${cd_us[vm_first]:-}")" "${spr[$key]:-}"
  done
  echo "   (×stock for them: ×first; figures under emulation are about ten times this host's:"
  echo "   only the ratios mean something)"
  echo
}

# ---- what containers fill on disk -----------------------------------------------------

disk_part() {
  local c=100 files=${BENCH_DISK_FILES:-10000} passes=100
  local dtree=$tmp/disk-tree state=$tmp/disk-state line
  echo "1d. Collect \"disk\": $c Docker containers of $files files each in their writable layers"
  echo "   (bench/jc_disk_bench, Docker's overlay2 layout on a tmpfs), their cgroups copies of"
  echo "   limited.slice/batch.service of tests/fixtures/k6.12-debian (every controller's files) on"
  echo "   a tmpfs, a tenth of the containers writing to their logs between two passes; µs of CPU"
  echo "   per pass, $passes rounds of three passes of each in turn, a round's the fastest of its three"
  make_service_tree "$dtree" "$run" "$c" docker_scope
  mkdir -p "$state"
  mount -t tmpfs -o size=4g,nr_inodes=$((c * files + 100000)) jc-bench-disk-state "$state"
  line=$("$top_builddir/bench/jc_disk_bench" "$dtree" "$run" "$state" "$c" "$files" "$passes" 0 3) ||
    line=
  umount "$state" "$dtree"
  if [ -z "$line" ]; then
    echo "   failed (see above)"
    return 0
  fi
  disk_line=$line
  printf '   %-52s %9s %9s\n' "" median worst
  printf '   %-52s %9s %9s\n' "default pass" "$(field "$line" default_median)" "$(field "$line" default_max)"
  printf '   %-52s %9s %9s\n' 'default + Collect "disk" (default budget)' "$(field "$line" disk_median)" \
    "$(field "$line" disk_max)"
  printf '   %-52s %9s %9s\n' "  its pass / the default's of the same round" "$(field "$line" median_paired)" \
    "$(field "$line" worst_paired)"
  printf '   %-52s %9s\n' "  the same, 9 rounds in 10 at most" "$(field "$line" p90_paired)"
  printf '   %-52s %9s %9s\n' "init, its baseline read (every container looked up)" \
    "$(field "$line" disk_init)" "$(field "$line" init_ratio)"
  printf '   %-52s %9s\n' "  the default's init" "$(field "$line" default_init)"
  printf '   %-52s %9s\n' "the default's slowest single pass / its median" "$(field "$line" default_noise)"
  printf '   %-52s %9s\n' "the group, µs a pass (mean)" "$(field "$line" group_per_pass)"
  printf '   %-52s %9s\n' "the group, µs a minute at Interval 10 (6 passes)" "$(field "$line" group_per_minute)"
  printf '   %-52s %9s\n' "du -s of the $c layers, µs (once a minute, cAdvisor)" "$(field "$line" du_per_minute)"
  printf '   %-52s %9s\n' "  the group / du" "$(field "$line" group_over_du)"
  echo
}

# ---- the run ------------------------------------------------------------------------

has core && core_part
has names && names_part
has net && net_part
has disk && disk_part
if has collectd || has tmpfs || has vm; then
  echo "   collectd: Interval 1, network to a sink on 127.0.0.1, no other write plugin; CPU ="
  echo "   utime + stime of the daemon over $BENCH_READS reads counted by the sink, after $BENCH_WARM;"
  echo "   lists: value lists per cgroup per read received by the sink; ×: ratio of µs in this run"
  echo
fi
if has collectd || has netdata; then make_flat "$parent" "$n"; fi
has collectd && collectd_part
has netdata && netdata_part
drop_tree "$parent"
has tmpfs && tmpfs_part
has vm && vm_part
if has soak; then
  "$top_srcdir/bench/soak.sh" | tee "$tmp/soak.out" || echo "   the soak failed (see above)"
  echo
fi

echo "Targets (one run; this machine is shared, so figures move by some per cent between runs):"
if has core; then
  for set in default pressure; do
    r=$(ratio "${core_b[10000,$set]:-}" "${core_b[1000,$set]:-}")
    printf '  %-66s %5s  %s\n' "core b at 10,000 ≤ 1.5× b at 1,000, $set files" "$r" "$(verdict "$r" 1.5)"
    printf '  %-66s %5s\n' "  the kernel's floor a at 10,000 against a at 1,000, $set files" \
      "$(ratio "${core_a[10000,$set]:-}" "${core_a[1000,$set]:-}")"
    printf '  %-66s %5s\n' "  the floor of 1,000 of the 10,000 against a at 1,000, $set files" \
      "$(ratio "${core_a_of[10000,$set]:-}" "${core_a[1000,$set]:-}")"
    r=$(ratio "${core_b[10000,$set]:-}" "${core_a[10000,$set]:-}")
    printf '  %-66s %5s  %s\n' "  core b at 10,000 ≤ 1.5× the kernel's floor at 10,000, $set files" "$r" "$(verdict "$r" 1.5)"
  done
fi
if has names; then
  printf '  %-66s %5s  %s\n' "InstanceFrom \"container\" ≤ 1.05× \"path\", 1,000 containers, churn (1b)" \
    "${names_ratio:--}" "$(verdict "${names_ratio:-}" 1.05)"
fi
if has tmpfs; then
  r=$(ratio "${cd_us[fx_default]:-}" "${cd_us[fx_first]:-}")
  printf '  %-66s %5s  %s\n' "shipped default ≤ 0.5× the first releases' default (2b)" "$r" "$(verdict "$r" 0.5)"
  r=$(ratio "${cd_us[fx_default]:-}" "${cd_us[fx_first_meta]:-}")
  printf '  %-66s %5s  %s\n' "  against it as sent then, meta data on every list (2b)" "$r" "$(verdict "$r" 0.5)"
  r=$(ratio "${cd_us[fx_default_pressure]:-}" "${cd_us[fx_default]:-}")
  printf '  %-66s %5s  %s\n' "default + pressure ≤ 1.5× the default (2b)" "$r" "$(verdict "$r" 1.5)"
fi
if has collectd; then
  r=$(ratio "${cd_us[v2_default_pressure]:-}" "${cd_us[v2_default]:-}")
  printf '  %-66s %5s  %s\n' "  the same on this host's v2, where the default is cpu.stat alone (2a)" "$r" "$(verdict "$r" 1.5)"
fi
if has vm; then
  r=$(ratio "${cd_us[vm_default]:-}" "${cd_us[vm_first]:-}")
  printf '  %-66s %5s  %s\n' "shipped default ≤ 0.5× the first releases', VM cgroupfs, every controller (2d)" "$r" "$(verdict "$r" 0.5)"
  r=$(ratio "${cd_us[vm_pressure]:-}" "${cd_us[vm_default]:-}")
  printf '  %-66s %5s  %s\n' "default + pressure ≤ 1.5× the default, VM cgroupfs, every controller (2d)" "$r" "$(verdict "$r" 1.5)"
fi
if has net; then
  r=$(field "${net_line:-}" net_minute_over_default)
  printf '  %-66s %5s  %s\n' "default + Collect \"network\" ≤ 1.25× the default, a minute, 500 pods (1c)" "${r:--}" "$(verdict "${r:-}" 1.25)"
  r=$(field "${net_line:-}" net_minute_over_floor)
  printf '  %-66s %5s  %s\n' "the step per namespace ≤ 1.2× the floor of net/dev, a minute (1c)" "${r:--}" "$(verdict "${r:-}" 1.2)"
  r=$(field "${net_line:-}" net_over_floor)
  printf '  %-66s %5s  %s\n' "  at a pass without the full check (1c)" "${r:--}" "$(verdict "${r:-}" 1.2)"
  r=$(field "${net_line:-}" health_over_floor)
  printf '  %-66s %5s  %s\n' "  with the health counters, of net/dev, net/snmp, net/netstat (1c)" "${r:--}" "$(verdict "${r:-}" 1.2)"
  r=$(field "${net_line:-}" net_over_stateless)
  printf '  %-66s %5s  %s\n' "  of the files it needs: cgroup.procs, ns/net, net/dev (stateless, 1c)" "${r:--}" "$(verdict "${r:-}" 1.2)"
  r=$(field "${net_vm_line:-}" net_minute_over_default)
  printf '  %-66s %5s  %s\n' "default + Collect \"network\" ≤ 1.25×, a minute, every controller, VM (1c)" "${r:--}" "$(verdict "${r:-}" 1.25)"
  r=$(field "${net_vm_line:-}" net_minute_over_floor)
  printf '  %-66s %5s  %s\n' "the step per namespace ≤ 1.2× the floor, a minute, VM (1c)" "${r:--}" "$(verdict "${r:-}" 1.2)"
fi
if has disk; then
  r=$(field "${disk_line:-}" worst_paired)
  printf '  %-66s %5s  %s\n' "default + Collect \"disk\": no pass above 1.25× the default (1d)" "${r:--}" "$(verdict "${r:-}" 1.25)"
  r=$(field "${disk_line:-}" group_over_du)
  printf '  %-66s %5s  %s\n' "  its CPU over a minute < du -s of the same layers (1d)" "${r:--}" "$(verdict "${r:-}" 0.9999)"
fi
if has collectd && has netdata; then
  r=$(ratio "${cd_us[v2_cpu_pressure]:-}" "${nd_us:-}")
  printf '  %-66s %5s  %s\n' "Collect \"cpu\" \"pressure\" ≤ 1.0× Netdata per cgroup (2a, 2c)" "$r" "$(verdict "$r" 1.0)"
fi
if has soak; then
  grep '^  soak ' "$tmp/soak.out" || printf '  %-66s %s\n' "soak: memory flat under churn (3)" "not measured"
fi
echo "(make bench took $((SECONDS - started)) s)"
