#!/usr/bin/env bash
# Descriptors on the real kernel: 400 selected cgroups, collectd under a
# descriptor limit far below what keeping their files open would take.
#   - hard limit 300: every cgroup is reported at every read (files past
#     the budget are opened at each read; none is taken for vanished);
#   - soft 300, hard much higher: the same, and collectd's soft limit is
#     still 300 while it runs (the plugin changes no process-wide limit
#     unless MaxOpenFiles asks); the budget in force is logged at init;
#   - MaxOpenFiles 1000 under that soft limit: the soft limit is raised
#     as far as MaxOpenFiles needs, and the log says so.
. "$(dirname "$0")/lib/common.sh"
need_kernel
need_collectd
need "prlimit (util-linux)" -- command -v prlimit
: "${FD_CGROUPS:=400}"

make_run_parent joule-fds
(cd "$parent" && for ((i = 0; i < FD_CGROUPS; i++)); do echo "c$i"; done | xargs mkdir)

# every_cgroup_has DIR READS: each of the cgroups has READS reads in csv.
every_cgroup_has() {
  [ "$(reported "$1" "$2")" -eq "$FD_CGROUPS" ]
}
# reported DIR READS: how many of the cgroups have READS reads in csv
# (data lines of their ps_cputime files, one file per day).
reported() {
  find "$1/csv/testhost" -path "*/joule_cgroup-${run}_c*/ps_cputime-*" \
    -type f -exec wc -l {} + 2>/dev/null |
    awk -v want="$2" '$2 != "total" { d = $2; sub(/\/[^\/]*$/, "", d); n[d] += $1 - 1 }
      END { for (d in n) if (n[d] >= want) k++; print k + 0 }'
}

# run_limited DIR SOFT:HARD [OPTIONS]: collectd under that RLIMIT_NOFILE
# until every cgroup has 4 reads (or JC_WAIT_LIMIT), its soft limit
# while it ran in $soft_seen.
run_limited() {
  local dir=$1 limit=$2
  write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/*\"
${3:-}"
  local saved=("${COLLECTD_ENV[@]}")
  COLLECTD_ENV=(prlimit "--nofile=$limit" "${COLLECTD_ENV[@]}")
  start_collectd "$dir"
  COLLECTD_ENV=("${saved[@]}")
  wait_until every_cgroup_has "$dir" 4
  soft_seen=$(awk '/^Max open files/ { print $4 }' "/proc/$COLLECTD_PID/limits" 2>/dev/null)
  stop_collectd
}

dir="$T/hard"
run_limited "$dir" 300:300
n=$(reported "$dir" 4)
[ "$n" -eq "$FD_CGROUPS" ]
ok $? "hard limit 300: all $FD_CGROUPS cgroups reported at every read ($n with 4 reads or more)"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "hard limit 300: no WARNING or ERROR"
grep '^\[info\] joule_cgroup plugin: keeping at most' "$dir/collectd.log" | diag
grep -q 'keeping at most 44 descriptors open between reads (the soft descriptor limit, RLIMIT_NOFILE, is 300' "$dir/collectd.log"
ok $? "the budget in force and where it comes from, logged at init"

dir="$T/soft"
run_limited "$dir" 300:20000
n=$(reported "$dir" 4)
[ "$n" -eq "$FD_CGROUPS" ]
ok $? "soft 300, hard 20000: all $FD_CGROUPS cgroups reported at every read ($n)"
[ "$soft_seen" = 300 ]
ok $? "soft 300, hard 20000: collectd's soft limit while it runs is still 300 ($soft_seen)"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "soft 300, hard 20000: no WARNING or ERROR"

dir="$T/asked"
run_limited "$dir" 300:20000 "  MaxOpenFiles 1000"
[ "$soft_seen" = 1256 ]
ok $? "MaxOpenFiles 1000 under soft 300: the soft limit raised to 1256 ($soft_seen)"
grep -q 'raised collectd.s soft descriptor limit (RLIMIT_NOFILE) from 300 to 1256 for MaxOpenFiles 1000' "$dir/collectd.log"
ok $? "and the log says so"
n=$(reported "$dir" 4)
[ "$n" -eq "$FD_CGROUPS" ]
ok $? "MaxOpenFiles 1000: all $FD_CGROUPS cgroups reported ($n)"
tap_done
