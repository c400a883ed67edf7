#!/usr/bin/env bash
# Descriptors on the real kernel: 400 selected cgroups, collectd under a
# descriptor limit far below what keeping their files open would take.
#   - hard limit 300: every cgroup is reported at every read (files past
#     the budget are opened at each read; none is taken for vanished);
#   - soft 300, hard much higher: the same, and collectd's soft limit is
#     still 300 while it runs (the plugin changes no process-wide limit
#     unless MaxOpenFiles asks); the budget in force is logged at init;
#   - MaxOpenFiles 1000 under that soft limit: the soft limit is raised
#     as far as MaxOpenFiles needs, and the log says so;
#   - 1,100 cgroups under a limit a container runtime would give (16,384 here) beside
#     write_prometheus, which (libmicrohttpd, select()) takes no
#     descriptor above 1023: the plugin keeps more than 1,024 open, all but
#     the first 512 numbers above 1023 (jc_fd), and every scrape answers.
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

# ---- beside a plugin that uses select() --------------------------------
FD_CGROUPS=${FD_MANY:-1100}
(cd "$parent" && for ((i = 400; i < FD_CGROUPS; i++)); do echo "c$i"; done | xargs mkdir)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir="$T/select"
write_conf "$dir" "  CgroupRoot \"$mnt\"
  ReportRoot false
  Select \"$run/*\""
# write_prometheus loaded after the plugin: its init, and every
# connection it accepts, come after the plugin's files are open.
cat >>"$dir/collectd.conf" <<CONF
PluginDir "$COLLECTD_PLUGINDIR"
LoadPlugin write_prometheus
<Plugin write_prometheus>
  Host "127.0.0.1"
  Port "$port"
</Plugin>
CONF
saved=("${COLLECTD_ENV[@]}")
COLLECTD_ENV=(prlimit --nofile=16384:16384 "${COLLECTD_ENV[@]}")
start_collectd "$dir"
COLLECTD_ENV=("${saved[@]}")
wait_until every_cgroup_has "$dir" 4
fds=$(find "/proc/$COLLECTD_PID/fd" -mindepth 1 -printf '%f %l\n' 2>/dev/null | grep -E " ($mnt|anon_inode:inotify)")
kept=$(grep -c . <<<"$fds")
low=$(awk '$1 < 1024' <<<"$fds" | grep -c .)
scraped=0
for _ in 1 2 3; do
  curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" >"$T/metrics" &&
    grep -q "^collectd_joule_cgroup_.*${run}_c$((FD_CGROUPS - 1))\"" "$T/metrics" && scraped=$((scraped + 1))
done
stop_collectd
[ "$kept" -gt 1024 ] && [ "$low" -le 512 ]
ok $? "$FD_CGROUPS cgroups at soft limit 16384: the plugin keeps $kept descriptors, $low of them below 1024 (at most 512)"
[ "$scraped" -eq 3 ] && ! grep -q 'FD_SETSIZE' "$dir/collectd.log"
ok $? "write_prometheus beside them: 3 scrapes of 3 answered with the last cgroup's series, no FD_SETSIZE complaint" ||
  grep -i 'prometheus\|FD_SETSIZE' "$dir/collectd.log" | head -n 5 | diag
[ "$(reported "$dir" 4)" -eq "$FD_CGROUPS" ] && [ "$(loud_lines "$dir")" -eq 0 ]
ok $? "every one of the $FD_CGROUPS cgroups reported at every read, no WARNING or ERROR"
tap_done
