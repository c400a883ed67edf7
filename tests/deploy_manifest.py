#!/usr/bin/env python3
"""The DaemonSet of deploy/kubernetes/joule-cgroup.yaml read by the tests,
so that the manifest and what they run cannot drift apart.

  deploy_manifest.py check TOP VERSION
      one line per rule, "ok RULE" or "not ok RULE: why": least privilege
      (no privileged, hostNetwork or hostIPC; hostPID; every capability
      dropped and only SYS_PTRACE added, never SYS_ADMIN; no privilege
      escalation; a read-only root; every hostPath read-only, each mount
      named for what it feeds; requests and limits; a probe), the
      ConfigMap the image's own files, the image tag VERSION, and the
      compose file of deploy/docker/ the same grants and mounts.
  deploy_manifest.py grants TOP
      the grants to take away one at a time: "cap NAME" for each added
      capability, "mount NAME" for each hostPath.
  deploy_manifest.py probe TOP
      the liveness probe's command, one argument per line.
  deploy_manifest.py flags TOP CONFIGDIR [--without cap:NAME|mount:NAME]...
      the pod's container as podman run options, one per line (Debian
      12's Podman 4.3 ignores hostPID in `kube play`): its namespaces,
      user, capabilities, no-new-privileges, read-only root, limits,
      the liveness probe as a health check, every mount (the ConfigMap's files written to CONFIGDIR, the
      emptyDir a tmpfs of its size limit), then the image.  A hostPath
      this host lacks is left out (containerd and CRI-O would make it
      empty; Podman refuses it), said on stderr."""
import json
import os
import sys

import yaml

MANIFEST = 'deploy/kubernetes/joule-cgroup.yaml'
COMPOSE = 'deploy/docker/compose.yaml'
IMAGE_CONF = 'deploy/image/collectd.conf.d'
# The capabilities the plugin is shown to need (tests/vm_image.sh).
NEEDED_CAPS = ['SYS_PTRACE']


def load(top):
    docs = list(yaml.safe_load_all(open(os.path.join(top, MANIFEST))))
    by_kind = {d['kind']: d for d in docs}
    return docs, by_kind


def pod_of(by_kind):
    return by_kind['DaemonSet']['spec']['template']['spec']


def mounts(pod):
    """(name, mountPath, readOnly, volume) of the container's mounts."""
    vols = {v['name']: v for v in pod.get('volumes', [])}
    c = pod['containers'][0]
    return [(m['name'], m['mountPath'], m.get('readOnly', False), vols.get(m['name']))
            for m in c.get('volumeMounts', [])]


def quantity_mib(q):
    units = {'Ki': 1 / 1024, 'Mi': 1, 'Gi': 1024}
    for u, f in units.items():
        if str(q).endswith(u):
            return float(str(q)[:-len(u)]) * f
    return float(q) / 1048576


def cpus(q):
    q = str(q)
    return float(q[:-1]) / 1000 if q.endswith('m') else float(q)


def check(top, version):
    docs, by_kind = load(top)
    pod = pod_of(by_kind)
    c = pod['containers'][0]
    sc = c.get('securityContext', {})
    caps = sc.get('capabilities', {})
    res = c.get('resources', {})
    ms = mounts(pod)
    results = []

    def rule(name, good, why=''):
        results.append('ok %s' % name if good else 'not ok %s: %s' % (name, why))

    rule('no privileged container', sc.get('privileged') is not True, 'privileged: true')
    rule('no hostNetwork', not pod.get('hostNetwork'), 'hostNetwork: true')
    rule('no hostIPC', not pod.get('hostIPC'), 'hostIPC: true')
    rule('hostPID (the host\'s pids in cgroup.procs, /proc/<pid>/net)', pod.get('hostPID') is True,
         'hostPID is not true')
    rule('capabilities: drop ALL', caps.get('drop') == ['ALL'], 'drop is %s' % caps.get('drop'))
    rule('capabilities: add only %s' % ' '.join(NEEDED_CAPS), caps.get('add') == NEEDED_CAPS,
         'add is %s' % caps.get('add'))
    rule('no SYS_ADMIN', not any('SYS_ADMIN' in str(x) for x in caps.get('add', [])), 'SYS_ADMIN added')
    rule('allowPrivilegeEscalation: false', sc.get('allowPrivilegeEscalation') is False,
         'allowPrivilegeEscalation is %s' % sc.get('allowPrivilegeEscalation'))
    rule('readOnlyRootFilesystem: true', sc.get('readOnlyRootFilesystem') is True,
         'readOnlyRootFilesystem is %s' % sc.get('readOnlyRootFilesystem'))
    host = [m for m in ms if m[3] and 'hostPath' in m[3]]
    rule('every hostPath mounted read-only (%d)' % len(host), host and all(m[2] for m in host),
         ', '.join(m[0] for m in host if not m[2]))
    rule('every hostPath below /host at its own path',
         all(m[1] == '/host' + m[3]['hostPath']['path'] for m in host),
         ', '.join('%s at %s' % (m[0], m[1]) for m in host if m[1] != '/host' + m[3]['hostPath']['path']))
    writable = [m for m in ms if not m[2]]
    rule('the one writable mount an emptyDir with a size limit at /var/lib/collectd',
         len(writable) == 1 and 'emptyDir' in writable[0][3] and
         writable[0][3]['emptyDir'].get('sizeLimit') and writable[0][1] == '/var/lib/collectd',
         ', '.join(m[0] for m in writable))
    rule('requests and limits of cpu and memory',
         all(res.get(k, {}).get(r) for k in ('requests', 'limits') for r in ('cpu', 'memory')),
         json.dumps(res))
    probe = c.get('livenessProbe', {}).get('exec', {}).get('command', [])
    rule('a liveness probe: joule-cgroup probe', probe[:2] == ['/usr/bin/joule-cgroup', 'probe'],
         'probe is %s' % probe)
    rule('no service account token', pod.get('automountServiceAccountToken') is False,
         'automountServiceAccountToken is not false')
    image = c['image']
    rule('the image localhost/joule-cgroup:%s (configure.ac)' % version,
         image == 'localhost/joule-cgroup:' + version, image)
    cm = by_kind['ConfigMap']['data']
    files = sorted(os.listdir(os.path.join(top, IMAGE_CONF)))
    same = sorted(cm) == files and all(
        cm[f] == open(os.path.join(top, IMAGE_CONF, f)).read() for f in files)
    rule('the ConfigMap holds the image\'s %s as they are' % ' '.join(files), same,
         'ConfigMap keys %s' % sorted(cm))

    comp = yaml.safe_load(open(os.path.join(top, COMPOSE)))['services']['collectd']
    vols = sorted(comp.get('volumes', []))
    want = sorted(['%s:%s:ro' % (m[3]['hostPath']['path'], m[1]) for m in host] +
                  ['../image/collectd.conf.d:/etc/collectd/collectd.conf.d:ro'])
    rule('compose: the same mounts, read-only', vols == want,
         'has %s, wants %s' % (sorted(set(vols) - set(want)), sorted(set(want) - set(vols))))
    rule('compose: pid host, read_only, cap_drop ALL, cap_add %s, no-new-privileges, user 0' %
         ' '.join(NEEDED_CAPS),
         comp.get('pid') == 'host' and comp.get('read_only') is True and
         comp.get('cap_drop') == ['ALL'] and comp.get('cap_add') == NEEDED_CAPS and
         comp.get('security_opt') == ['no-new-privileges:true'] and comp.get('user') == '0' and
         not comp.get('privileged') and comp.get('network_mode') != 'host' and 'ipc' not in comp,
         json.dumps({k: comp.get(k) for k in ('pid', 'read_only', 'cap_drop', 'cap_add', 'security_opt', 'user')}))
    lim = res.get('limits', {})
    rule('compose: the same probe', comp.get('healthcheck', {}).get('test') == ['CMD'] + probe,
         str(comp.get('healthcheck')))
    rule('compose: the limits and the image the DaemonSet\'s',
         comp.get('image') == image and abs(float(comp.get('cpus', 0)) - cpus(lim.get('cpu', 0))) < 1e-9 and
         comp.get('mem_limit') == '%dm' % quantity_mib(lim.get('memory', 0)),
         json.dumps({k: comp.get(k) for k in ('image', 'cpus', 'mem_limit')}))
    print('\n'.join(results))
    return 0 if all(r.startswith('ok') for r in results) else 1


def grants(top):
    _, by_kind = load(top)
    pod = pod_of(by_kind)
    for cap in pod['containers'][0]['securityContext']['capabilities'].get('add', []):
        print('cap', cap)
    for name, _, _, vol in mounts(pod):
        if vol and 'hostPath' in vol:
            print('mount', name)


def flags(top, configdir, without):
    _, by_kind = load(top)
    pod = pod_of(by_kind)
    c = pod['containers'][0]
    sc = c['securityContext']
    out = []
    out.append('--pid=%s' % ('host' if pod.get('hostPID') else 'private'))
    if pod.get('hostIPC'):
        out.append('--ipc=host')
    if pod.get('hostNetwork'):
        out.append('--network=host')
    out.append('--user=%s' % sc.get('runAsUser', 0))
    if sc.get('privileged'):
        out.append('--privileged')
    for cap in sc.get('capabilities', {}).get('drop', []):
        out.append('--cap-drop=%s' % cap.lower())
    for cap in sc.get('capabilities', {}).get('add', []):
        if 'cap:' + cap not in without:
            out.append('--cap-add=%s' % cap.lower())
    if sc.get('allowPrivilegeEscalation') is False:
        out.append('--security-opt=no-new-privileges')
    if sc.get('readOnlyRootFilesystem'):
        out.append('--read-only')
    lim = c.get('resources', {}).get('limits', {})
    if 'cpu' in lim:
        out.append('--cpus=%g' % cpus(lim['cpu']))
    if 'memory' in lim:
        out.append('--memory=%dm' % quantity_mib(lim['memory']))
    probe = c.get('livenessProbe')
    if probe and 'exec' in probe:
        out.append('--health-cmd=%s' % json.dumps(probe['exec']['command']))
        out.append('--health-interval=%ds' % probe.get('periodSeconds', 10))
        out.append('--health-timeout=%ds' % probe.get('timeoutSeconds', 1))
        out.append('--health-retries=%d' % probe.get('failureThreshold', 3))
        out.append('--health-start-period=%ds' % probe.get('initialDelaySeconds', 0))
    for name, path, ro, vol in mounts(pod):
        suffix = ':ro' if ro else ''
        if 'configMap' in vol:
            cm = by_kind['ConfigMap']
            assert cm['metadata']['name'] == vol['configMap']['name']
            os.makedirs(configdir, exist_ok=True)
            for key, text in cm['data'].items():
                with open(os.path.join(configdir, key), 'w') as f:
                    f.write(text)
            out.append('--volume=%s:%s%s' % (configdir, path, suffix))
        elif 'emptyDir' in vol:
            size = vol['emptyDir'].get('sizeLimit')
            out.append('--mount=type=tmpfs,destination=%s%s' % (
                path, ',tmpfs-size=%dm' % quantity_mib(size) if size else ''))
        elif 'hostPath' in vol:
            src = vol['hostPath']['path']
            if 'mount:' + name in without:
                continue
            if not os.path.exists(src):
                print('deploy_manifest: %s (%s) is not on this host: left out' % (name, src),
                      file=sys.stderr)
                continue
            out.append('--volume=%s:%s%s' % (src, path, suffix))
        else:
            sys.exit('deploy_manifest: volume %s of a kind not turned into flags' % name)
    out.append(c['image'])
    print('\n'.join(out))


def main():
    cmd, top = sys.argv[1], sys.argv[2]
    if cmd == 'check':
        sys.exit(check(top, sys.argv[3]))
    if cmd == 'grants':
        return grants(top)
    if cmd == 'probe':
        _, by_kind = load(top)
        print('\n'.join(pod_of(by_kind)['containers'][0]['livenessProbe']['exec']['command']))
        return
    if cmd == 'flags':
        args = sys.argv[4:]
        without = [args[i + 1] for i in range(len(args)) if args[i] == '--without']
        return flags(top, sys.argv[3], without)
    sys.exit(__doc__)


if __name__ == '__main__':
    main()
