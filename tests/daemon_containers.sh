#!/usr/bin/env bash
# docs/containers.md as written: for every container layout the page
# shows, the test takes the page's own snippets (the fences after the
# markers <!-- containers: TREE plugin|names|chain|short-names -->), runs
# the real collectd with the plugin block on a copy of the fixture tree
# TREE (the one line CgroupRoot added), then with the filter chain as
# well, and checks that the instance names collectd wrote (csv) are
# exactly the ones the page lists.  It also checks the version line the
# plugin logs at init against joule-cgroup --version.
. "$(dirname "$0")/lib/common.sh"
need_collectd
need "python3" -- command -v python3
need "match_regex.so and target_replace.so" -- \
  test -f "$COLLECTD_PLUGINDIR/match_regex.so" -a -f "$COLLECTD_PLUGINDIR/target_replace.so"
page="$top_srcdir/docs/containers.md"

# One plugin directory for the stock plugins and the built one, so that a
# snippet's LoadPlugin lines load both whatever their order (copies:
# collectd loads no symlink).
mkdir -p "$T/plugins"
for p in logfile csv match_regex target_replace; do cp "$COLLECTD_PLUGINDIR/$p.so" "$T/plugins/"; done
cp "$PLUGIN_BUILDDIR/joule_cgroup.so" "$T/plugins/"

# fence TREE KIND: the fenced block after <!-- containers: TREE KIND -->.
fence() {
  python3 - "$page" "$1" "$2" <<'EOF'
import sys
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
marker = '<!-- containers: %s %s -->' % (sys.argv[2], sys.argv[3])
try:
    i = lines.index(marker)
except ValueError:
    sys.exit('no marker ' + marker)
j = i + 1
while j < len(lines) and not lines[j].startswith('```'):
    j += 1
k = j + 1
while k < len(lines) and lines[k] != '```':
    k += 1
if j >= len(lines) or k >= len(lines):
    sys.exit('no closed fence after ' + marker)
print('\n'.join(lines[j + 1:k]))
EOF
}

# trees: every TREE the page has a plugin snippet for.
trees=$(sed -n 's/^<!-- containers: \([^ ]*\) plugin -->$/\1/p' "$page")
[ "$(echo "$trees" | wc -w)" -ge 5 ]
ok $? "docs/containers.md has a plugin snippet for each layout: $(echo $trees)"

# names DIR: the instances collectd wrote, one per line, sorted.
names() { ls "$1/csv/testhost" 2>/dev/null | sed -n 's/^joule_cgroup-//p' | LC_ALL=C sort; }

# run_snippet DIR TREE TEXT: collectd with TEXT (the page's snippets), the
# plugin reading a copy of TREE, until two reads are done.
run_snippet() {
  local dir=$1 tree=$2 text=$3
  mkdir -p "$dir/csv"
  [ -d "$T/tree-$tree" ] || cp -r "$FIXTURES/$tree" "$T/tree-$tree"
  text=$(printf '%s\n' "$text" | sed "s|^<Plugin joule_cgroup>\$|&\n  CgroupRoot \"$T/tree-$tree\"|")
  { COLLECTD_PLUGINDIR="$T/plugins" conf_head "$dir"; printf '%s\n' "$text"; } >"$dir/collectd.conf"
  grep -q "CgroupRoot \"$T/tree-$tree\"" "$dir/collectd.conf" || return 1
  run_collectd "$dir" 2
  [ "$COLLECT_READS" -ge 2 ]
}

# names_are DIR WANT WHAT: the names collectd wrote in DIR are WANT's.
names_are() {
  local got
  got=$(names "$1")
  [ "$got" = "$(printf '%s\n' "$2" | LC_ALL=C sort)" ]
  ok $? "$3 ($(echo "$got" | wc -l))" && return 0
  diff <(printf '%s\n' "$2" | LC_ALL=C sort) <(echo "$got") | diag
  return 1
}

for tree in $trees; do
  plugin=$(fence "$tree" plugin) && want=$(fence "$tree" names) &&
    chain=$(fence "$tree" chain) && short=$(fence "$tree" short-names)
  ok $? "$tree: the page has its plugin block, names, filter chain and short names" || continue
  case $plugin in *'Collect '*'"+events"'*) true ;; *) false ;; esac
  ok $? "$tree: the snippet keeps the default groups and counts OOM kills (Collect \"+events\")"

  run_snippet "$T/$tree" "$tree" "$plugin"
  ok $? "$tree: collectd ran the page's plugin block for two reads"
  names_are "$T/$tree" "$want" "$tree: the names are the page's"
  [ "$(loud_lines "$T/$tree")" -eq 0 ]
  ok $? "$tree: no WARNING or ERROR from the plugin"

  run_snippet "$T/$tree-chain" "$tree" "$plugin
$chain"
  ok $? "$tree: collectd ran the plugin block with the page's filter chain"
  names_are "$T/$tree-chain" "$short" "$tree: the filter chain gives the page's short names"
  ! grep -q '^\[error\]' "$T/$tree-chain/collectd.log"
  ok $? "$tree: collectd logged no error with the chain"
done

# run_runtime DIR HOST CGROUP_ROOT RUNTIME_ROOT READS: collectd with the
# page's runtime-plugin block of HOST, the plugin reading CGROUP_ROOT with
# RUNTIME_ROOT, until READS reads are done.
run_runtime() {
  local dir=$1 text
  mkdir -p "$dir/csv"
  text=$(fence "$2" runtime-plugin | sed "s|^<Plugin joule_cgroup>\$|&\n  CgroupRoot \"$3\"\n  RuntimeRoot \"$4\"|")
  { COLLECTD_PLUGINDIR="$T/plugins" conf_head "$dir"; printf '%s\n' "$text"; } >"$dir/collectd.conf"
  run_collectd "$dir" "$5"
}

# Names from the container runtime: every host the page has a snippet for.
hosts=$(sed -n 's/^<!-- containers: \([^ ]*\) runtime-plugin -->$/\1/p' "$page")
[ "$(echo "$hosts" | wc -w)" -ge 7 ]
ok $? "docs/containers.md has a runtime-named snippet for each host layout: $(echo $hosts)"
cp -a "$FIXTURES/hosts" "$T/hosts" && python3 "$FIXTURES/make-runtimes.py" --special "$T/hosts"
ok $? "a copy of tests/fixtures/hosts, with the FIFOs and sockets runtimes leave"
for host in $hosts; do
  plugin=$(fence "$host" runtime-plugin) && want=$(fence "$host" runtime-names)
  ok $? "$host: the page has its plugin block and names" || continue
  dir="$T/rt-$host"
  run_runtime "$dir" "$host" "$T/hosts/$host/sys/fs/cgroup" "$T/hosts/$host" 2
  [ "$COLLECT_READS" -ge 2 ]
  ok $? "$host: collectd ran the page's plugin block for two reads"
  names_are "$dir" "$want" "$host: the names are the page's"
  names "$dir" >>"$T/runtime-names"
  [ "$(loud_lines "$dir")" -eq 0 ]
  ok $? "$host: no WARNING or ERROR from the plugin"
  [ "$(loud_lines "$dir")" -eq 0 ] || grep 'joule_cgroup' "$dir/collectd.log" | head -5 | diag
done

# A container's directory that is a link out of RuntimeRoot (the docker
# host, registry's moved away, a link in its place): not followed, its path
# name, one WARNING naming the directory in 12 reads, not one a read.
host="$T/hosts/docker" id=6e928e8a9ee5e3c6d8d45ee04103cff0a0827b96cdd3aa5c7d29d912fc28b899
mkdir -p "$T/outside" && mv "$host/var/lib/docker/containers/$id" "$T/outside/" &&
  ln -s "$T/outside/$id" "$host/var/lib/docker/containers/$id"
ok $? "docker: registry's directory a link out of RuntimeRoot"
dir="$T/rt-linked"
run_runtime "$dir" docker "$host/sys/fs/cgroup" "$host" 12
[ "$COLLECT_READS" -ge 12 ]
ok $? "docker, linked: collectd ran for 12 reads ($COLLECT_READS)"
names_are "$dir" "root
system.slice_docker-$id.scope
shop_db" "docker, linked: registry keeps its path name, the other is named"
[ "$(loud_lines "$dir")" -eq 1 ] &&
  grep -qF "[warning] joule_cgroup plugin: InstanceFrom \"container\": $host/var/lib/docker/containers/$id is a symbolic link; runtime files are read only as regular files below RuntimeRoot; cgroup \"system.slice/docker-$id.scope\" keeps its path name" "$dir/collectd.log"
ok $? "docker, linked: one WARNING, naming the directory" ||
  grep 'joule_cgroup' "$dir/collectd.log" | head -5 | diag

# Names no writer takes (the docker-names host, docker's snippet): an
# overlong '/', a surrogate and a code point past U+10FFFF raw in
# config.v2.json, and compose labels with lone surrogates as JSON escapes.
# Each of those containers keeps its path name, said in one WARNING whose
# line is UTF-8 (the bytes shown as \xNN); no instance collectd wrote, and
# no line it logged, holds a byte that is not UTF-8.
host="$T/hosts/docker-names"
dir="$T/rt-names"
run_runtime "$dir" docker "$host/sys/fs/cgroup" "$host" 2
[ "$COLLECT_READS" -ge 2 ]
ok $? "docker-names: collectd ran docker's plugin block for two reads"
bad="c0afc0afc0afc0afc0afc0afc0afc0afc0afc0afc0afc0afc0afc0afc0afc0af
eda080eda080eda080eda080eda080eda080eda080eda080eda080eda080eda0
f4908080f4908080f4908080f4908080f4908080f4908080f4908080f4908080
d800dfffd800dfffd800dfffd800dfffd800dfffd800dfffd800dfffd800dfff"
names_are "$dir" "root
registry
shop_db
$(for id in $bad; do echo "system.slice_docker-$id.scope"; done)" \
  "docker-names: the four keep their path names, the others are named"
[ "$(loud_lines "$dir")" -eq 4 ]
ok $? "docker-names: four WARNINGs, one a container" ||
  grep 'joule_cgroup' "$dir/collectd.log" | head -8 | diag
for shown in 'web\xc0\xafx' 'web\xed\xa0\x80x' 'web\xf4\x90\x80\x80x' 'p\xed\xa0\x80q_s\xed\xbf\xbfv'; do
  grep -qF "names the container \"$shown\": a control character" "$dir/collectd.log"
  ok $? "docker-names: the WARNING shows the name as $shown"
done
python3 - "$dir/collectd.log" "$dir/csv/testhost" <<'PY'
import os, sys
open(sys.argv[1], 'rb').read().decode('utf-8')  # strict: raises on a bad byte
for name in os.listdir(os.fsencode(sys.argv[2])):
    name.decode('utf-8')
PY
ok $? "docker-names: collectd's log and every instance it wrote are UTF-8"

# A collectd in a container without the runtime's state (RuntimeRoot an
# empty directory): after 11 reads one WARNING for Docker's two
# containers, the file looked for, the directory to mount, the pace.
host="$T/hosts/docker"
mkdir "$T/bare"
dir="$T/rt-bare"
run_runtime "$dir" docker "$host/sys/fs/cgroup" "$T/bare" 14
[ "$COLLECT_READS" -ge 14 ] && [ "$(loud_lines "$dir")" -eq 1 ] &&
  grep -q "^\[warning\] joule_cgroup plugin: InstanceFrom \"container\": no name for cgroup \"system.slice/docker-[0-9a-f]*.scope\" after 11 reads: looked for Docker's $T/bare/var/lib/docker/containers/[0-9a-f]*/config.v2.json; $T/bare/var/lib/docker is not there: a collectd in a container mounts the host's /var/lib/docker read-only at that path .*looked up again every 60 s" "$dir/collectd.log"
ok $? "docker, no runtime state: one WARNING for both containers in $COLLECT_READS reads, the file, the mount, the pace"
grep 'joule_cgroup plugin: InstanceFrom' "$dir/collectd.log" | diag

# The runtime names other pages quote are among those the runs gave:
# configuration.md's InstanceFrom ("runtime named it (`A`, `B`)") and the
# README's row of it ("`"container"`: `A`").
conf=$(sed -n 's/.*runtime named it (\(`[^)]*\)).*/\1/p' "$top_srcdir/docs/configuration.md")
readme=$(sed -n 's/^| `InstanceFrom` .*`"container"`: \(`[^`]*`\).*/\1/p' "$top_srcdir/README.md")
for q in "docs/configuration.md|$conf" "README.md|$readme"; do
  ex=$(grep -oE '`[^`]+`' <<<"${q#*|}" | tr -d '`')
  [ -n "$ex" ] && ! grep -vxFf "$T/runtime-names" <<<"$ex" | grep -q .
  ok $? "${q%%|*}: the names it quotes ($(echo $ex)) are names the page's runtime snippets gave"
done

# The version: one source (configure.ac), the same in the plugin's INFO
# line at init and in joule-cgroup --version.
ver=$(sed -n 's/^AC_INIT(\[joule_cgroup\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
first=$(echo "$trees" | head -n 1)
grep -qx "\[info\] joule_cgroup plugin: version $ver" "$T/$first/collectd.log" &&
  [ "$("$top_builddir/joule-cgroup" --version)" = "joule-cgroup $ver" ]
ok $? "the plugin logs \"version $ver\" at init, as joule-cgroup --version and configure.ac say"
[ "$(grep -c 'joule_cgroup plugin: version' "$T/$first/collectd.log")" -eq 1 ]
ok $? "it says so once"
tap_done
