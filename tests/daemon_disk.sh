#!/usr/bin/env bash
# Collect "disk" through the real collectd on the runtimes' fixture hosts
# (tests/fixtures/hosts/, laid out as each runtime lays them out):
# docs/containers.md's block as written (its marker <!-- disk: HOST
# plugin -->, the one CgroupRoot, RuntimeRoot and ProcRoot lines added)
# on the containerd node, and the same block on every other runtime's
# host; each container's csv values against its fixture: the writable
# layer (the upper directory whose etc/container-id is its id) against
# `du -x --block-size=1 -s` and `du -x --inodes -s`, its logs against the
# sizes of its runtime's log files, each pod's emptyDir volumes against
# du of each; the lists the page shows are sent; nothing above INFO.
. "$(dirname "$0")/lib/common.sh"
need_collectd
need "python3" -- command -v python3
page="$top_srcdir/docs/containers.md"

# block: the plugin block of the page's marker <!-- disk: HOST plugin -->.
block=$(python3 - "$page" <<'EOF'
import sys
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
i = lines.index('<!-- disk: containerd-systemd plugin -->')
j = lines.index('```', i) + 1
k = lines.index('```', j)
body = lines[j:k]
a = body.index('<Plugin joule_cgroup>') + 1
b = body.index('</Plugin>')
print('\n'.join(body[a:b]))
EOF
)
[ -n "$block" ]
ok $? "docs/containers.md: the plugin block of the disk example" || tap_done

# check HOST DIR: the csv values collectd wrote into DIR for HOST's copy
# at $T/HOST, against the fixture (one line per mismatch, and a summary).
check() {
  python3 - "$T/$1" "$2/csv/testhost" <<'EOF'
import glob, os, re, subprocess, sys
host, csv = sys.argv[1], sys.argv[2]

def du(opt, path):
    out = subprocess.run(['du', '-x', opt, '-s', '--', path], capture_output=True,
                         text=True).stdout
    return int(out.split()[0])

def last(instance, name):
    files = sorted(glob.glob('%s/joule_cgroup-%s/%s-[0-9]*' % (csv, instance, name)))
    if not files:
        return None
    line = open(files[-1]).read().strip().split('\n')[-1]
    return float(line.split(',')[1])

# Which container each instance is: collectd names them as their runtime
# does; the fixture's layers say whose they are.
layers = {}
for top, _, files in os.walk(host):
    if 'container-id' in files and top.endswith('/etc'):
        layers[open(top + '/container-id').read().strip()] = os.path.dirname(top)

def size(path):
    return os.path.getsize(path) if os.path.isfile(path) and not os.path.islink(path) else 0

def logs_of(cid):
    """the bytes of the log files the fixture gave cid"""
    d = glob.glob('%s/var/lib/docker/containers/%s/%s-json.log*' % (host, cid, cid))
    if d:
        return sum(size(p) for p in d)
    for top, _, files in os.walk(host):
        if top.endswith('/overlay-containers/%s/userdata' % cid) and 'ctr.log' in files:
            return size(os.path.join(top, 'ctr.log'))
    k = glob.glob('%s/var/log/containers/*-%s.log' % (host, cid))
    if k:
        target = host + os.path.dirname(os.readlink(k[0]))
        return sum(size(os.path.join(target, n)) for n in os.listdir(target))
    return None

# Which container an instance is, as its runtime names it: the kubelet's
# links (<pod>_<namespace>_<container>-<id>.log), Docker's Name and
# compose labels, Podman's names.
import json
ids = {}
def name_id(name, cid):
    ids.setdefault(name, set()).add(cid)
for f in glob.glob(host + '/var/log/containers/*.log'):
    m = re.match(r'(.+)_(.+)_(.+)-([0-9a-f]{64})\.log$', os.path.basename(f))
    name_id('%s_%s_%s' % (m.group(2), m.group(1), m.group(3)), m.group(4))
for f in glob.glob(host + '/var/lib/docker/containers/*/config.v2.json'):
    c = json.load(open(f))
    labels = c.get('Config', {}).get('Labels', {})
    cid = os.path.basename(os.path.dirname(f))
    name_id(c['Name'].lstrip('/'), cid)
    if 'com.docker.compose.project' in labels:
        name_id('%s_%s' % (labels['com.docker.compose.project'],
                           labels['com.docker.compose.service']), cid)
for top, _, files in os.walk(host):  # rootless: below ~/.local too
    for f in files:
        if f.endswith('containers.json') and top.endswith('/overlay-containers'):
            for c in json.load(open(os.path.join(top, f))):
                name_id(c['names'][0], c['id'])

def pod_dir(name):
    """the kubelet's directory of pod <namespace>_<pod>"""
    for d in glob.glob(host + '/var/log/pods/*'):
        if os.path.basename(d).rsplit('_', 1)[0] == name:
            return host + '/var/lib/kubelet/pods/' + os.path.basename(d).rsplit('_', 1)[1]
    return None

bad, counted = [], {'layer': 0, 'logs': 0, 'emptydir': 0}
for inst in sorted(os.listdir(csv)):
    name = inst[len('joule_cgroup-'):]
    cids = ids.get(name.split('~')[0], set())
    b = last(name, 'bytes-layer')
    if b is not None:
        n = last(name, 'files-layer')
        if not any(cid in layers and du('--block-size=1', layers[cid]) == b and
                   du('--inodes', layers[cid]) == n for cid in cids):
            bad.append('%s (%s): layer %d bytes %d inodes, not du\'s of its own' %
                       (name, ' '.join(cids) or 'no id', b, n))
        else:
            counted['layer'] += 1
        if last(name, 'duration-layer_age') is None:
            bad.append('%s: no duration-layer_age' % name)
    lb = last(name, 'bytes-logs')
    if lb is not None:
        if not any(logs_of(cid) == lb for cid in cids):
            bad.append('%s: bytes-logs %d, not its files\' %s' %
                       (name, lb, [logs_of(c) for c in cids]))
        else:
            counted['logs'] += 1
    eb = last(name, 'bytes-emptydir')
    if eb is not None:
        pod = pod_dir(name)
        vols = glob.glob(pod + '/volumes/kubernetes.io~empty-dir/*') if pod else []
        want = (sum(du('--block-size=1', v) for v in vols),
                sum(du('--inodes', v) for v in vols))
        if not pod or (eb, last(name, 'files-emptydir')) != want:
            bad.append('%s: emptydir %d bytes, not du\'s of its volumes %s' % (name, eb, want))
        else:
            counted['emptydir'] += 1
for b in bad:
    print('# ' + b)
print('%d %d %d %d' % (len(bad), counted['layer'], counted['logs'], counted['emptydir']))
EOF
}

# layers_sized DIR N: N instances have a bytes-layer series.
layers_sized() {
  [ "$(find "$1/csv/testhost" -name 'bytes-layer-*' 2>/dev/null | wc -l)" -ge "$2" ]
}

# run HOST MORE-OPTIONS INSTANCE LAYERS: collectd with the page's block on
# a copy of HOST until INSTANCE has two reads and LAYERS containers their
# layer's figure (the walks of a read are DiskWalkEntries' budget).
run() {
  local h=$1 dir=$T/$1-collectd
  rm -rf "$T/$h"
  cp -a "$top_srcdir/tests/fixtures/hosts/$h" "$T/$h"
  write_conf "$dir" "  CgroupRoot \"$T/$h/sys/fs/cgroup\"
  RuntimeRoot \"$T/$h\"
  ProcRoot \"$T/$h/proc\"
${2:-}
$block"
  start_collectd "$dir"
  # every container's layer sized: as many bytes-layer series as its
  # runtime has containers in the tree, two reads of the given one
  wait_until _csv_has 2 "$dir" "$3" bytes-layer
  wait_until layers_sized "$dir" "$4"
  stop_collectd
}

# The page's own host: the block as written, and its lists.
run containerd-systemd "" shop_cart-0_log-shipper 7
dir=$T/containerd-systemd-collectd
read -r nbad nlayer nlogs nempty < <(check containerd-systemd "$dir" | tee "$T/check" | tail -n 1)
grep '^#' "$T/check"
[ "$nbad" = 0 ] && [ "$nlayer" -eq 7 ] && [ "$nlogs" -eq 7 ] && [ "$nempty" -eq 3 ]
ok $? "containerd-systemd: 7 layers, 7 containers' logs and 3 pods' emptyDirs, each as du and the files say ($nlayer, $nlogs, $nempty)"
python3 - "$page" "$dir/csv/testhost" >"$T/lists.out" <<'EOF'
import os, sys
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
i = lines.index('<!-- disk: containerd-systemd lists -->')
j = lines.index('```text', i) + 1
k = lines.index('```', j)
for line in lines[j:k]:
    inst, *names = line.split()
    have = {f.rsplit('-', 3)[0] for f in os.listdir('%s/joule_cgroup-%s' % (sys.argv[2], inst))}
    missing = [n for n in names if n not in have]
    if missing:
        print('%s: no %s' % (inst, ' '.join(missing)))
EOF
[ ! -s "$T/lists.out" ]
ok $? "the lists the page shows are sent, under the names it shows" || diag <"$T/lists.out"
[ "$(loud_lines "$dir")" -eq 0 ]
ok $? "  nothing above INFO in the log" || grep -E '^\[(error|warning)\]' "$dir/collectd.log" | diag

# The other runtimes' hosts, the same block (k3s: containerd elsewhere).
for spec in "crio:shop_cart-0_app:6" "cri-dockerd:shop_cart-0_app:6" \
  "k3s-cgroupfs:shop_cart-0_app:6:RuntimeDir \"containerd\" \"/run/k3s/containerd\"" \
  "docker:registry:2" "podman-rootful:web:3" "podman-rootless:toolbox:2"; do
  IFS=: read -r h inst layers more <<<"$spec"
  # The hosts without the kubelet's systemd slices: their own Select.
  if [ "${h#podman}" != "$h" ] || [ "$h" = docker ] || [ "$h" = k3s-cgroupfs ]; then
    sel="  Select \"**\"
  InstanceFrom \"container\"
  Collect \"+disk\""
    saved=$block block=$sel
  fi
  run "$h" "  ${more:-}" "$inst" "$layers"
  [ -n "${saved:-}" ] && block=$saved saved=
  dir=$T/$h-collectd
  read -r nbad nlayer nlogs nempty < <(check "$h" "$dir" | tee "$T/check" | tail -n 1)
  grep '^#' "$T/check"
  [ "$nbad" = 0 ] && [ "$nlayer" -ge 2 ] && [ "$nlogs" -ge 2 ] && [ "$(loud_lines "$dir")" -eq 0 ]
  ok $? "$h: $nlayer layers, $nlogs containers' logs, $nempty pods' emptyDirs, each as du and the files say; nothing above INFO"
done
tap_done
