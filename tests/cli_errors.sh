#!/usr/bin/env bash
# joule-cgroup's errors: usage errors exit 2, a root that is not cgroup v2
# exits 1 (list, sample) or 125 (run), a command that does not exist 127
# and one that cannot be executed 126, like a shell.  Every one is exactly
# one line on stderr starting "joule-cgroup: ", and nothing on stdout.
. "$(dirname "$0")/lib/common.sh"
JC="$top_builddir/joule-cgroup"
need "built joule-cgroup" -- test -x "$JC"
F="$FIXTURES"

# fails STATUS ERE DESCRIPTION -- ARGS...: one stderr line matching ERE.
fails() {
  local want=$1 ere=$2 desc=$3; shift 4
  "$JC" "$@" >"$T/out" 2>"$T/err"
  local status=$?
  [ "$status" -eq "$want" ] && [ ! -s "$T/out" ] &&
    [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qE "^joule-cgroup: $ere" "$T/err"
  ok $? "$desc: status $status, one line on stderr, stdout empty"
  { cat "$T/err"; head -c 300 "$T/out"; } | diag
}

fails 2 'missing command' "no subcommand" --
fails 2 'unknown command "frobnicate"' "unknown subcommand" -- frobnicate
for cmd in list sample run check; do
  fails 2 "$cmd: unknown option \"--frobnicate\"" "$cmd --frobnicate" -- \
    "$cmd" --frobnicate
  fails 2 "$cmd: missing value for option \"--root\"" "$cmd --root without a value" -- \
    "$cmd" --root
done
fails 2 'run: missing command' "run without CMD" -- run
fails 2 'run: missing command' "run -- without CMD" -- run --keep --
fails 2 'list: option not available here: "--count"' "list --count" -- list --count 2
fails 2 'run: option not available here: "--select"' "run --select" -- run --select '*' -- true
fails 2 'list: unexpected argument "extra"' "list with an argument" -- list extra
fails 2 '--count "0": must be a whole number' "sample --count 0" -- sample --count 0
fails 2 '--interval "soon": must be a number of seconds' "sample --interval soon" -- \
  sample --interval soon
fails 2 '--interval "0": must be a number of seconds' "run --interval 0" -- \
  run --interval 0 -- true
fails 2 '--token-pattern "\(": ' "a token pattern that does not compile" -- \
  run --token-pattern '(' -- true
fails 2 '--token-pattern "a\{2,1\}": ' "a token pattern with a bad interval" -- \
  run --phases --token-pattern 'a{2,1}' -- true
fails 2 '--iterations "0": must be a whole number' "run --iterations 0" -- \
  run --iterations 0 -- true
fails 2 '--format "xml": must be "json" or "csv"' "run --format xml" -- \
  run --format xml -- true
fails 2 'sample: option not available here: "--phases"' "sample --phases" -- \
  sample --phases
fails 2 '--select "a/../b": contains "\.\."' "a pattern with .." -- list --select 'a/../b'
fails 2 '--select "/\[/": ' "a bad regex" -- list --select '/[/'
fails 2 '--ignore "/system.slice": is absolute' "an absolute pattern" -- \
  list --ignore /system.slice
fails 2 '--collect "cpus": unknown group' "an unknown Collect group" -- \
  sample --collect cpus
fails 2 '--instance-from "name": must be "path", "basename" or "container"' "a bad --instance-from" -- \
  list --instance-from name
fails 2 'check: unexpected argument "b.conf"' "check with two files" -- check a.conf b.conf
fails 2 'check: option not available here: "--select"' "check --select" -- check --select '*'
fails 2 'sample: --config takes Select, Ignore, InstanceFrom, Collect, Values, GpuLibrary and ProcRoot from the file' \
  "sample --config with --select" -- sample --config /dev/null --select '*'
fails 2 '--values "!": is empty' "an empty --values" -- sample --values '!'
fails 2 'Values "memory-curent": matches no value list' "an unknown --values name" -- \
  sample --count 1 --root "$F/k6.1-systemd" --values memory-curent
fails 2 'Values "load-\*": matches only value lists of Collect "pressure"' \
  "a --values name of a group --collect leaves out" -- \
  sample --count 1 --root "$F/k6.1-systemd" --values 'load-*'
fails 1 '/nonexistent-joule.conf: No such file or directory' \
  "check of a file that does not exist" -- check /nonexistent-joule.conf

# Roots that are not cgroup v2.
fails 1 '"[^"]*/v1-only" is not a cgroup v2 directory' "list on a cgroup v1 tree" -- \
  list --root "$F/v1-only"
fails 1 '"[^"]*/v1-only" is not a cgroup v2 directory' "sample on a cgroup v1 tree" -- \
  sample --count 1 --root "$F/v1-only"
fails 125 '"[^"]*/v1-only" is not a cgroup v2 directory' "run on a cgroup v1 tree" -- \
  run --root "$F/v1-only" -- true
fails 125 '"[^"]*/k6.1-systemd" is not a cgroup v2 directory of the kernel' \
  "run on a copy of a tree (needs the kernel)" -- run --root "$F/k6.1-systemd" -- true
fails 1 '--root "/nonexistent-joule": No such file or directory' "a root that does not exist" -- \
  list --root /nonexistent-joule
fails 125 '--root "/nonexistent-joule": No such file or directory' "run, a root that does not exist" -- \
  run --root /nonexistent-joule -- true

# --help is not an error: the usage on stdout.
"$JC" --help >"$T/out" 2>"$T/err"
[ $? -eq 0 ] && grep -q '^usage: joule-cgroup list' "$T/out" && [ ! -s "$T/err" ]
ok $? "--help: usage on stdout, status 0"
"$JC" sample --help >"$T/out" 2>"$T/err"
[ $? -eq 0 ] && grep -q 'joule-cgroup run' "$T/out" && [ ! -s "$T/err" ]
ok $? "sample --help: usage on stdout, status 0"
"$JC" --version | grep -qE '^joule-cgroup [0-9]+\.[0-9]+'
ok $? "--version"

# The command's own failures need the real hierarchy (a cgroup is made).
if [ "$(id -u)" -ne 0 ] || [ -z "$mnt" ]; then
  [ "${CI:-}" = true ] && ok 1 "required: root and a cgroup2 mount, for run's exec errors"
  echo "# skipped: run's exec errors need root and a cgroup2 mount"
  tap_done
fi
make_run_parent joule-clitest
fails 127 'cannot execute "joule-no-such-command": No such file or directory' \
  "run of a command that does not exist" -- run --root "$parent" -- joule-no-such-command arg
printf 'not a program\n' >"$T/data"
chmod 644 "$T/data"
fails 126 "cannot execute \"$T/data\": Permission denied" "run of a file that is not executable" -- \
  run --root "$parent" -- "$T/data"
JOULE_CGROUP_NO_CLONE3=1 "$JC" run --root "$parent" -- joule-no-such-command >"$T/out" 2>"$T/err"
[ $? -eq 127 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ]
ok $? "the same through fork (no clone3): status 127, one line"
fails 125 '--output "/nonexistent-joule/r.json": No such file or directory' \
  "run --output into a missing directory" -- \
  run --root "$parent" --output /nonexistent-joule/r.json -- true
[ -z "$(find "$parent" -mindepth 1 -type d)" ]
ok $? "no cgroup is left under $parent"
tap_done
