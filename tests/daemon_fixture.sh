#!/usr/bin/env bash
# The real collectd, loading the built plugin, on fixture trees of real
# kernel formats (5.10, 6.1 systemd, 6.6 Docker, 6.8 Kubernetes, hostile)
# and on trees captured from Debian's 6.1 and 6.12 kernels (real bytes):
# the instance set each configuration must produce, the exact figures in
# csv, the identifiers, the `cgroup` meta data in write_log's JSON; the
# effective limits (docs/metrics.md) and io.stat as real kernels write it;
# Collect "cgroups" on 6.12's cgroup.stat, root included.
. "$(dirname "$0")/lib/common.sh"
need "collectd daemon at $COLLECTD_BIN" -- test -x "$COLLECTD_BIN"
need "built plugin" -- test -f "$PLUGIN_BUILDDIR/joule_cgroup.so"
need "python3" -- command -v python3
export JC_INTERVAL=0.3
EXPECT="python3 $top_srcdir/tests/lib/csv_expect.py"

# A private copy: the hostile tree's generated files are made in it, and
# the source tree may be read-only (make distcheck).
cp -r "$FIXTURES" "$T/fixtures"
sh "$T/fixtures/make-hostile.sh"
F="$T/fixtures"

# run_tree NAME TREE BLOCK: collectd for a few reads on a fixture tree,
# with every value list of the groups (Values "*": the figures of all are
# checked) unless the block says otherwise or LEAN=1.
run_tree() {
  local dir="$T/$1" values='  Values "*"'
  [[ "$3" == *Values* || "${LEAN:-}" = 1 ]] && values=
  write_conf "$dir" "  CgroupRoot \"$F/$2\"
$3
$values"
  run_collectd "$dir" 3
  RUN_DIR=$dir
}

# instances_are TREE SECTION: csv instances == the [select SECTION] list.
instances_are() {
  local want got
  want=$($EXPECT --instances "$F/expected/$1.txt" "$2")
  got=$(csv_instances "$RUN_DIR" | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
  [ "$got" = "$want" ]
  ok $? "$1, select $2: $(echo "$want" | wc -w) instances"
  [ "$got" = "$want" ] || { echo "got:  $got"; echo "want: $want"; } | diag
}

# values_are TREE PATH INSTANCE GROUPS [MEMSTAT VALUES]: exact figures of
# one cgroup (csv_expect.py: VALUES "all", or "default" for the lean set).
values_are() {
  local out
  out=$($EXPECT "$F/expected/$1.txt" "$2" "$RUN_DIR/csv/testhost/joule_cgroup-$3" "$4" ${6:+"$5" "$6"} 2>&1)
  ok $? "$1 $2: $4 figures exact${6:+ ($6 value set)} (${out##*$'\n'})"
  echo "$out" | grep -v 'figures checked' | diag
}

# hashed TREE SECTION FNV: the instance of a long name, "<fnv>~<tail>".
hashed() {
  $EXPECT --instances "$F/expected/$1.txt" "$2" | tr ' ' '\n' | grep "^$3~"
}

# Device names come from this host's /sys/dev/block, else "MAJ:MIN".
devname() { sed -n 's/^DEVNAME=//p' "/sys/dev/block/$1/uevent" 2>/dev/null | grep . || echo "$1"; }

# The series docs/metrics.md lists with Collect "limits".
LIMIT_SERIES='^(gauge-cpu_limit_cores|gauge-cpu_limit_percent|memory-max|memory-high|gauge-memory_max_percent|count-pids_max)-'

quiet() { # no WARNING or ERROR in the run
  [ "$(loud_lines "$RUN_DIR")" -eq 0 ]
  ok $? "$1: no WARNING or ERROR"
  grep -E '^\[(warning|error)\]' "$RUN_DIR/collectd.log" | head -5 | diag
}

# --- 6.1 systemd host -------------------------------------------------------
run_tree systemd-services k6.1-systemd '  Select "system.slice/*.service"
  Collect "cpu" "memory" "io" "pressure" "events" "pids"'
instances_are k6.1-systemd 'system.slice/*.service'
values_are k6.1-systemd system.slice/nginx.service system.slice_nginx.service \
  cpu,memory,io,pressure,events,pids
values_are k6.1-systemd system.slice/systemd-logind.service \
  system.slice_systemd-logind.service cpu,memory,io,pressure,events,pids
values_are k6.1-systemd '(root)' root cpu,memory,io,pressure
grep -q '"plugin_instance":"system.slice_nginx.service","type":"memory","type_instance":"current"}' "$RUN_DIR/collectd.log" &&
  ! grep -q '"plugin_instance":"system.slice_nginx.service",.*"meta"' "$RUN_DIR/collectd.log"
ok $? "no cgroup meta data where the instance is the path (system.slice_nginx.service)"
! grep -q '"plugin_instance":"root",.*"meta"' "$RUN_DIR/collectd.log"
ok $? "nor for the root"
test -f "$RUN_DIR"/csv/testhost/joule_cgroup-system.slice_nginx.service/gauge-cpu_cores-* &&
  test -f "$RUN_DIR"/csv/testhost/joule_cgroup-system.slice_nginx.service/percent-cpu-*
ok $? "gauge-cpu_cores and percent-cpu series"
[ "$(csv_last "$RUN_DIR" system.slice_nginx.service gauge-cpu_cores)" = 0 ]
ok $? "an idle fixture is 0 cores busy"
quiet "systemd host, all groups"

run_tree systemd-ignore k6.1-systemd '  Select "system.slice/*.service"
  Ignore "system.slice/systemd-*"'
instances_are k6.1-systemd 'system.slice/*.service ignore system.slice/systemd-*'

run_tree systemd-all k6.1-systemd '  Select "**"
  Collect "cpu" "memory"'
instances_are k6.1-systemd '**'
values_are k6.1-systemd system.slice/system-postgresql.slice/postgresql@15-main.service \
  system.slice_system-postgresql.slice_postgresql@15-main.service cpu,memory
values_are k6.1-systemd user.slice/user-1000.slice/user@1000.service/app.slice/app-tmux-4021.scope \
  user.slice_user-1000.slice_user@1000.service_app.slice_app-tmux-4021.scope cpu,memory
quiet "systemd host, every cgroup"

run_tree systemd-default k6.1-systemd ''
instances_are k6.1-systemd '*'

# --- 5.10: no memory.peak, no "kernel" key, cpu.pressure without "full" -----
run_tree k510 k5.10-basic '  Select "**"
  Collect "cpu" "memory" "io" "pressure"'
instances_are k5.10-basic '**'
values_are k5.10-basic system.slice/nginx.service system.slice_nginx.service \
  cpu,memory,io,pressure
! ls "$RUN_DIR"/csv/testhost/joule_cgroup-system.slice_nginx.service/memory-peak-* >/dev/null 2>&1 &&
  ! ls "$RUN_DIR"/csv/testhost/joule_cgroup-system.slice_nginx.service/pressure-cpu_full_avg10-* >/dev/null 2>&1
ok $? "5.10: no memory.peak and no cpu full pressure series"
quiet "5.10 host"

# --- Docker host, regex selection --------------------------------------------
run_tree docker k6.6-docker '  Select "/^system\.slice/docker-[0-9a-f]{64}\.scope$/"
  Collect "cpu" "memory" "io" "events"
  ReportRoot false'
want="system.slice_docker-6e928e8a9ee5e3c6d8d45ee04103cff0a0827b96cdd3aa5c7d29d912fc28b899.scope system.slice_docker-c9d947af6874c9be436b564bccc6e059a0c1f65cccf1bae1f6dfa1868df0da6c.scope"
[ "$(csv_instances "$RUN_DIR")" = "$want" ]
ok $? "docker: a regex selects exactly the two containers, no root"
values_are k6.6-docker system.slice/docker-c9d947af6874c9be436b564bccc6e059a0c1f65cccf1bae1f6dfa1868df0da6c.scope \
  system.slice_docker-c9d947af6874c9be436b564bccc6e059a0c1f65cccf1bae1f6dfa1868df0da6c.scope cpu,memory,io,events
# its io.stat has a merged loop-device line: it counts, once
E6=system.slice/docker-6e928e8a9ee5e3c6d8d45ee04103cff0a0827b96cdd3aa5c7d29d912fc28b899.scope
values_are k6.6-docker $E6 ${E6//\//_} cpu,memory,io,events

# --- Kubernetes node: ** across levels, hashed long names, PerDevice -----------
run_tree k8s k6.8-kubernetes '  Select "kubepods.slice/**/*.scope"
  Collect "cpu" "memory" "io" "pressure" "pids"'
instances_are k6.8-kubernetes 'kubepods.slice/**/*.scope'
long="kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pode63e6211_e9ee_5ea2_9453_af137f4472e7.slice/cri-containerd-26eda36863810f1f00f42af8622f014140678f680c4388dce8fcb3a4fac08a4b.scope"
inst=$($EXPECT --instances "$F/expected/k6.8-kubernetes.txt" 'kubepods.slice/**/*.scope' | tr ' ' '\n' | grep '^b2b77a52~')
values_are k6.8-kubernetes "$long" "$inst" cpu,memory,io,pressure,pids
[ ${#inst} -eq 127 ]
ok $? "hashed name is 127 bytes: $inst"
grep -qF "\"plugin_instance\":\"$inst\",\"type\":\"count\",\"type_instance\":\"pids\",\"meta\":{\"cgroup\":\"$long\"}" "$RUN_DIR/collectd.log"
ok $? "the hashed instance carries its full path as meta data"
quiet "kubernetes node"

run_tree k8s-regex k6.8-kubernetes '  Select "/^kubepods\.slice/.*\.scope$/"'
instances_are k6.8-kubernetes '/^kubepods\.slice/.*\.scope$/'

run_tree perdevice k6.1-systemd '  Select "system.slice/nginx.service"
  ReportRoot false
  Collect "io"
  PerDevice true'
series=$(ls "$RUN_DIR/csv/testhost/joule_cgroup-system.slice_nginx.service" | sed 's/-[0-9-]*$//' | sort | tr '\n' ' ')
want=$(for d in $(awk '{ print $1 }' "$F/k6.1-systemd/system.slice/nginx.service/io.stat"); do
  echo "disk_octets-$(devname "$d")"; echo "disk_ops-$(devname "$d")"; done | sort | tr '\n' ' ')
[ "$series" = "$want" ]
ok $? "PerDevice: one disk_octets/disk_ops pair per device ($series)"

# io.stat as real kernels write it, per device: "7:5 7:4 rbytes=..." is
# 7:4's line, "(unknown)" is the device "unknown", "7:1 " has no keys.
run_tree perdevice-docker k6.6-docker '  Select "system.slice"
  Select "system.slice/docker.service"
  Select "'$E6'"
  Collect "io"
  PerDevice true'
values_are k6.6-docker '(root)' root perdevice
values_are k6.6-docker system.slice system.slice perdevice
values_are k6.6-docker system.slice/docker.service system.slice_docker.service perdevice
values_are k6.6-docker $E6 ${E6//\//_} perdevice
d74=$(devname 7:4) d75=$(devname 7:5)
[ "$(csv_last "$RUN_DIR" system.slice "disk_octets-$d74")" = 3145728,1048576 ] &&
  [ "$(csv_last "$RUN_DIR" system.slice "disk_ops-$d74")" = 96,16 ] &&
  ! ls "$RUN_DIR/csv/testhost/joule_cgroup-system.slice/disk_octets-$d75-"* >/dev/null 2>&1
ok $? "PerDevice: \"7:5 7:4 rbytes=...\" counts once, for 7:4 ($d74), nothing for 7:5 ($d75)"
[ "$(csv_last "$RUN_DIR" system.slice_docker.service disk_octets-unknown)" = 1310720,2621440 ]
ok $? "PerDevice: the (unknown) device goes out as \"unknown\""
! ls "$RUN_DIR/csv/testhost/joule_cgroup-system.slice_docker.service/disk_octets-$(devname 7:1)-"* >/dev/null 2>&1
ok $? "PerDevice: a line without keys (\"7:1 \") gives no series"
quiet "docker host, merged, unknown and keyless io.stat lines"

# --- limits: the effective one, from the cgroup or an ancestor --------------
LIM=cpu,memory,pids,limits
run_tree systemd-limits k6.1-systemd '  Select "**"
  Collect "cpu" "memory" "pids" "limits"'
PG=system.slice/system-postgresql.slice
TMUX=user.slice/user-1000.slice/user@1000.service/app.slice/app-tmux-4021.scope
for path in $PG $PG/postgresql@15-main.service system.slice/nginx.service \
    system.slice/systemd-journald.service user.slice/user-1000.slice $TMUX \
    system.slice/systemd-logind.service '(root)'; do
  inst=${path//\//_}
  [ "$path" = '(root)' ] && inst=root
  values_are k6.1-systemd "$path" "$inst" $LIM
done
[ "$(csv_last "$RUN_DIR" system.slice_system-postgresql.slice_postgresql@15-main.service memory-max)" = 1073741824 ] &&
  [ "$(csv_last "$RUN_DIR" system.slice_system-postgresql.slice_postgresql@15-main.service gauge-cpu_limit_cores)" = 0.5 ]
ok $? "a service without memory.max under a slice with 1 GiB, 0.5 cores: the slice's limits"
! ls "$RUN_DIR/csv/testhost/joule_cgroup-system.slice_systemd-logind.service" | grep -qE "$LIMIT_SERIES" &&
  ! ls "$RUN_DIR/csv/testhost/joule_cgroup-root" | grep -qE "$LIMIT_SERIES" &&
  ls "$RUN_DIR/csv/testhost/joule_cgroup-system.slice_nginx.service" | grep -qE "$LIMIT_SERIES"
ok $? "no limit series for a cgroup without a limit (logind, root)"
quiet "systemd host, limits"

# The default Collect has "limits"; count-pids_max needs "pids" as well.
run_tree systemd-limits-default k6.1-systemd '  Select "system.slice/*.service"'
values_are k6.1-systemd system.slice/nginx.service system.slice_nginx.service cpu,memory,io,limits

run_tree k8s-limits k6.8-kubernetes '  Select "**"
  Collect "cpu" "memory" "pids" "limits"'
K=kubepods.slice
E63=$K/kubepods-burstable.slice/kubepods-burstable-pode63e6211_e9ee_5ea2_9453_af137f4472e7.slice
G=$K/kubepods-pod65c6be99_dfb9_5ff9_a447_a35a4662d1f4.slice
for path in $K $E63 $G system.slice/kubelet.service; do
  values_are k6.8-kubernetes "$path" "${path//\//_}" $LIM
done
values_are k6.8-kubernetes "$long" "$(hashed k6.8-kubernetes '**' b2b77a52)" $LIM
values_are k6.8-kubernetes $G/cri-containerd-decddf89106cd6fc7f360596b9f228392757fc56ec6deb10bdeb39200a9ca5f5.scope \
  "$(hashed k6.8-kubernetes '**' f64b832a)" $LIM
values_are k6.8-kubernetes $K/kubepods-besteffort.slice/kubepods-besteffort-pode04aa1a7_ada9_5951_980e_1e1f9372c098.slice/cri-containerd-c5a895d0b9e9fc50bc8185f9984c605eb97d5236eb47fbd6d026f64eb8cecb54.scope \
  "$(hashed k6.8-kubernetes '**' 5c01d7aa)" $LIM
quiet "kubernetes node, limits"

# --- trees captured from Debian's 6.1 and 6.12 kernels (capture-vm.sh) ---------
# The kernels' own bytes: 6.1 without core_sched, 6.12 with nice_usec, new
# memory.stat keys and files the plugin does not read; an empty io.stat
# (machine.slice), the disk's line without I/O ("254:0 " on 6.1, with
# iocost "254:0  cost.usage=0" on 6.12), cgroups without io.stat and
# cpu.max below a parent that hands down only "memory pids".
REAL_VALUES="(root) system.slice system.slice/db.service system.slice/cron.service
  limited.slice limited.slice/batch.service user.slice/user-1000.slice
  user.slice/user-1000.slice/session-2.scope machine.slice"
inst_of() { local i=${1//\//_}; [ "$1" = '(root)' ] && i=root; echo "$i"; }
disk=$(devname 254:0)
for tree in k6.1-debian k6.12-debian; do
  run_tree "real-$tree" $tree '  Select "**"
  Collect "cpu" "memory" "io" "pressure" "events" "pids" "limits"'
  instances_are $tree '**'
  for path in $REAL_VALUES; do
    values_are $tree "$path" "$(inst_of "$path")" cpu,memory,io,pressure,events,pids,limits
  done
  B=limited.slice_batch.service
  [ "$(csv_last "$RUN_DIR" $B gauge-cpu_limit_cores)" = 0.5 ] &&
    [ "$(csv_last "$RUN_DIR" $B memory-max)" = 201326592 ] &&
    [ "$(csv_last "$RUN_DIR" $B memory-high)" = 50331648 ] &&
    [ "$(csv_last "$RUN_DIR" $B count-pids_max)" = 32 ]
  ok $? "$tree: batch.service has the slice's cpu.max 50000 100000, memory.max 192 MiB, pids.max 32 and its own memory.high"
  ! ls "$RUN_DIR/csv/testhost/joule_cgroup-user.slice_user-1000.slice_session-2.scope" | grep -qE '^(disk_|derive-cpu_nr_periods|derive-cpu_throttled)' &&
    ls "$RUN_DIR/csv/testhost/joule_cgroup-user.slice_user-1000.slice" | grep -q '^disk_octets-'
  ok $? "$tree: no io and no throttling series below a parent without io and cpu; its I/O on the parent"
  quiet "$tree: a healthy real tree"

  n=0
  for sel in 'system.slice/*.service' '**/*.service ignore limited.slice/**' \
      '/^user\.slice/.*\.(scope|service)$/'; do
    pats=${sel% ignore *} ign= n=$((n + 1))
    [ "$pats" != "$sel" ] && ign="  Ignore \"${sel#* ignore }\""
    run_tree "real-$tree-select$n" $tree "  Select \"$pats\"
$ign
  Collect \"cpu\""
    instances_are $tree "$sel"
  done
  run_tree "real-$tree-basename" $tree '  Select "**"
  InstanceFrom "basename"
  Collect "cpu"'
  instances_are $tree '** basename'

  run_tree "real-$tree-perdevice" $tree '  Select "**"
  Collect "io"
  PerDevice true'
  # the cgroups with a counted device line (the others: no disk series)
  for path in '(root)' system.slice system.slice/db.service limited.slice \
      limited.slice/batch.service user.slice/user-1000.slice; do
    values_are $tree "$path" "$(inst_of "$path")" perdevice
  done
  line=$(cat "$F/$tree/system.slice/cron.service/io.stat")
  if [ "$tree" = k6.1-debian ]; then
    ! ls "$RUN_DIR/csv/testhost/joule_cgroup-system.slice_cron.service/" | grep -q '^disk_'
    ok $? "$tree: \"$line\" (no keys) gives no disk series"
  else
    values_are $tree system.slice/cron.service system.slice_cron.service perdevice
    [ "$(csv_last "$RUN_DIR" system.slice_cron.service "disk_octets-$disk")" = 0,0 ]
    ok $? "$tree: \"$line\" (iocost only) is $disk with zeros"
  fi
  [ "$(csv_last "$RUN_DIR" system.slice_db.service "disk_octets-$disk")" = \
    "$(sed -n 's/^254:0 rbytes=\([0-9]*\) wbytes=\([0-9]*\) .*/\1,\2/p' "$F/$tree/system.slice/db.service/io.stat")" ]
  ok $? "$tree: db.service's O_DIRECT I/O on 254:0 goes out as disk_octets-$disk"
  ! ls "$RUN_DIR/csv/testhost/joule_cgroup-machine.slice/" | grep -q '^disk_' &&
    [ ! -s "$F/$tree/machine.slice/io.stat" ]
  ok $? "$tree: an empty io.stat (machine.slice) gives no disk series"
  quiet "$tree: PerDevice"
done
# memory.stat keys of 6.12 through MemoryStat: page events, DERIVE
run_tree real-memstat k6.12-debian '  Select "limited.slice/batch.service"
  Collect "memory"
  MemoryStat "anon" "pgscan" "pgsteal" "pgdemote_kswapd" "pgpromote_success"
  MemoryStat "swpin_zero" "swpout_zero" "numa_hint_faults"'
out=$($EXPECT "$F/expected/k6.12-debian.txt" limited.slice/batch.service \
  "$RUN_DIR/csv/testhost/joule_cgroup-limited.slice_batch.service" memory \
  anon,pgscan,pgsteal,pgdemote_kswapd,pgpromote_success,swpin_zero,swpout_zero,numa_hint_faults 2>&1)
ok $? "k6.12-debian: MemoryStat with 6.12's pgdemote_kswapd, pgpromote_success, swpin_zero, swpout_zero, numa_hint_faults (${out##*$'\n'})"
! ls "$RUN_DIR/csv/testhost/joule_cgroup-limited.slice_batch.service/memory-swpin_zero-"* \
  "$RUN_DIR/csv/testhost/joule_cgroup-limited.slice_batch.service/memory-numa_hint_faults-"* >/dev/null 2>&1 &&
  ls "$RUN_DIR/csv/testhost/joule_cgroup-limited.slice_batch.service/derive-memory_numa_hint_faults-"* >/dev/null 2>&1
ok $? "k6.12-debian: swpin_zero and numa_hint_faults are counters (derive-memory_*), not bytes"
echo "$out" | grep -v 'figures checked' | diag
quiet "k6.12-debian: MemoryStat"

# --- basename names and a collision ------------------------------------------
run_tree basename k6.1-systemd '  Select "**"
  InstanceFrom "basename"
  Collect "cpu"'
[ "$(log_count "$RUN_DIR" '^\[warning\] joule_cgroup plugin: cgroups ".*" and ".*" would both be reported as "init.scope"')" -eq 1 ]
ok $? "basename collision (two init.scope) warned once"
got=$(csv_instances "$RUN_DIR" | tr ' ' '\n' | grep '^init\.scope' | tr '\n' ' ')
want=$(for p in init.scope user.slice/user-1000.slice/user@1000.service/init.scope; do
  printf 'init.scope~%08x\n' "$(python3 -c 'import sys
h = 0x811C9DC5
for b in sys.argv[1].encode(): h = ((h ^ b) * 16777619) & 0xFFFFFFFF
print(h)' "$p")"; done | LC_ALL=C sort | tr '\n' ' ')
[ "$got" = "$want" ]
ok $? "both init.scope cgroups reported, each as init.scope~<hash of its own path>: $got"
grep -q '"plugin_instance":"init.scope~[0-9a-f]*",.*"meta":{"cgroup":"init.scope"}' "$RUN_DIR/collectd.log" &&
  grep -q '"plugin_instance":"init.scope~[0-9a-f]*",.*"meta":{"cgroup":"user.slice/user-1000.slice/user@1000.service/init.scope"}' "$RUN_DIR/collectd.log"
ok $? "their meta data says which is which"

# --- the lean default: each fact once (docs/metrics.md) --------------------------
LEAN=1 run_tree lean k6.12-debian '  Select "**"'
for path in '(root)' system.slice/db.service limited.slice/batch.service machine.slice; do
  values_are k6.12-debian "$path" "$(inst_of "$path")" cpu,memory,io,limits "" default
done
n=$(ls "$RUN_DIR/csv/testhost/joule_cgroup-system.slice_db.service" | sed 's/-[0-9-]*$//' | sort -u | tr '\n' ' ')
[ "$n" = "disk_octets disk_ops gauge-cpu_cores memory-current memory-peak ps_cputime " ]
ok $? "default set of an unlimited service without a quota: 6 lists ($n)"
n=$(ls "$RUN_DIR/csv/testhost/joule_cgroup-limited.slice_batch.service" | sed 's/-[0-9-]*$//' | sort -u | wc -l)
[ "$n" -eq 11 ]
ok $? "a service under a slice's cpu.max and memory.max with its own memory.high: 11 lists ($n)"
values_are k6.12-debian limited.slice limited.slice cpu,memory,io,limits "" default
ls "$RUN_DIR/csv/testhost/joule_cgroup-limited.slice" | grep -q '^derive-cpu_nr_throttled-' &&
  ! ls "$RUN_DIR/csv/testhost/joule_cgroup-limited.slice_batch.service" | grep -q '^derive-cpu_nr_'
ok $? "the throttling counters where the quota is (limited.slice, nr_periods > 0), not below it (always 0 there)"
LEAN=1 run_tree lean-pressure k6.12-debian '  Select "**"
  Collect "cpu" "memory" "io" "limits" "pressure"'
values_are k6.12-debian system.slice/db.service system.slice_db.service cpu,memory,io,limits,pressure "" default
n=$(ls "$RUN_DIR/csv/testhost/joule_cgroup-system.slice_db.service" | sed 's/-[0-9-]*$//' | grep -c 'stall_usec')
[ "$n" -eq 6 ]
ok $? "pressure: six stall totals ($n), no averages by default"
# The lists added since the first releases (the 6.12 tree has their files).
LEAN=1 run_tree lean-old k6.12-debian '  Select "**"
  Collect "cpu" "memory" "io" "limits" "pressure"
  Values "*" "!load-*" "!memory-swap_peak"'
n=$(ls "$RUN_DIR/csv/testhost/joule_cgroup-system.slice_db.service" | sed 's/-[0-9-]*$//' | sort -u | grep -c .)
[ "$n" -eq 44 ]
ok $? "Values \"*\" \"!load-*\": the lists of the first releases' default and pressure ($n)"
LEAN=1 run_tree lean-meta k6.12-debian '  Select "system.slice/*"
  PathMetaData true'
grep -q '"plugin_instance":"system.slice_db.service","type":"memory","type_instance":"current",.*"meta":{"cgroup":"system.slice/db.service"}' "$RUN_DIR/collectd.log" &&
  grep -q '"plugin_instance":"root",.*"meta":{"cgroup":"/"}' "$RUN_DIR/collectd.log"
ok $? "PathMetaData true: the cgroup meta data on every list, / for the root"

# --- Collect "cgroups": cgroup.stat of the root and of selected cgroups ----------
# The trees keep no cgroup.stat (tests/fixtures/README.md); this copy of
# the 6.12 tree gets one in every cgroup, in 6.12's format (as the VM's
# kernel writes it: the nr_subsys_* lines between the two counts),
# nr_descendants the cgroups below each, nr_dying_descendants 5 at the
# root, 2 in system.slice (removed cgroups still pinned), 0 elsewhere.
cgroup_stat() { # cgroup_stat DIR DYING
  local live s
  live=$(find "$1" -mindepth 1 -type d | wc -l)
  {
    echo "nr_descendants $live"
    for s in cpuset cpu io memory perf_event hugetlb pids rdma misc; do echo "nr_subsys_$s 0"; done
    echo "nr_dying_descendants $2"
    for s in cpuset cpu io memory perf_event hugetlb pids rdma misc; do echo "nr_dying_subsys_$s 0"; done
  } >"$1/cgroup.stat"
}
find "$F/k6.12-debian" -type d | while read -r d; do cgroup_stat "$d" 0; done
cgroup_stat "$F/k6.12-debian" 5
cgroup_stat "$F/k6.12-debian/system.slice" 2
run_tree cgroups k6.12-debian '  Select "system.slice"
  Select "system.slice/db.service"
  Collect "cgroups"'
all=$(find "$F/k6.12-debian" -mindepth 1 -type d | wc -l)
stat_of() { echo "$(csv_last "$RUN_DIR" "$1" count-cgroup_descendants) $(csv_last "$RUN_DIR" "$1" count-cgroup_dying_descendants)"; }
[ "$(stat_of root)" = "$all 5" ] && [ "$(stat_of system.slice)" = "2 2" ] &&
  [ "$(stat_of system.slice_db.service)" = "0 0" ]
ok $? "Collect \"cgroups\": root $(stat_of root) (its $all cgroups below, 5 dying), system.slice $(stat_of system.slice), system.slice/db.service $(stat_of system.slice_db.service)"
lists=$(for i in root system.slice system.slice_db.service; do ls "$RUN_DIR/csv/testhost/joule_cgroup-$i"; done | sed 's/-[0-9-]*$//' | sort -u | tr '\n' ' ')
[ "$lists" = "count-cgroup_descendants count-cgroup_dying_descendants " ]
ok $? "Collect \"cgroups\" alone: its two lists and nothing else ($lists)"
quiet "Collect \"cgroups\" on 6.12's cgroup.stat"

# --- hostile files: collectd keeps running, valid values go out ----------------
run_tree hostile hostile '  Select "*"
  Collect "cpu" "memory" "io" "pids"'
grep -q 'Exiting normally' "$RUN_DIR/collectd.log"
ok $? "hostile tree: collectd ran and exited normally"
[ "$(csv_last "$RUN_DIR" garbage memory-current)" = 4403200 ]
ok $? "garbage cgroup: the valid memory.current still goes out"
! ls "$RUN_DIR"/csv/testhost/joule_cgroup-garbage/ps_cputime-* >/dev/null 2>&1
ok $? "garbage cgroup: nothing from the binary cpu.stat"
! ls "$RUN_DIR"/csv/testhost/ | grep -q escape
ok $? "the symlink out of the root is not followed"
tap_done
