#!/usr/bin/env python3
"""make-runtime-state.py - the runtime state of a Kubernetes node for the
names part of make bench (bench/jc_names_bench.c): PODS pods, each a
pause container and one of its own, their state written as containerd's
CRI plugin and the kubelet lay it out, with the functions that write the
fixture hosts (tests/fixtures/make-runtimes.py), the OCI specs at the
size a real node has them (the default mounts, capabilities, masked
paths, and for a container of its own the RuntimeDefault seccomp profile,
one rule naming every system call of this machine's unistd_64.h).

    make-runtime-state.py DIR PODS

DIR/root/     the RuntimeRoot, with containerd's and the kubelet's
              directories and no pod in them yet
DIR/staged/K/ pod K's state, laid out as in root/ (the bench moves it in
              when it starts the pod and back when it stops it)
DIR/pods.tsv  per pod: K, its cgroup (the systemd driver's slice, relative
              to the cgroup root), its two containers' scopes, and the
              state it has (paths relative to root/), TAB-separated,
              lists space-separated
"""
import hashlib
import importlib.util
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, '..', 'tests', 'fixtures')
sys.path.insert(0, FIXTURES)
from runtime_shapes import cgroups_path, cri_annotations, oci_spec  # noqa: E402

_spec = importlib.util.spec_from_file_location('make_runtimes', os.path.join(FIXTURES, 'make-runtimes.py'))
mr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mr)

TASKS = 'run/containerd/io.containerd.runtime.v2.task/k8s.io'
QOS = ('burstable', 'besteffort', '')  # '' : guaranteed, below kubepods.slice
NAMESPACES = ('shop', 'db', 'kube-system', 'monitoring', 'default', 'batch')
CAPS = ['CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_FSETID', 'CAP_FOWNER', 'CAP_MKNOD',
        'CAP_NET_RAW', 'CAP_SETGID', 'CAP_SETUID', 'CAP_SETFCAP', 'CAP_SETPCAP',
        'CAP_NET_BIND_SERVICE', 'CAP_SYS_CHROOT', 'CAP_KILL', 'CAP_AUDIT_WRITE']


def hexid(*parts):
    return hashlib.sha256('/'.join(map(str, parts)).encode()).hexdigest()


def syscalls():
    names = []
    try:
        with open('/usr/include/x86_64-linux-gnu/asm/unistd_64.h') as f:
            for line in f:
                if line.startswith('#define __NR_'):
                    names.append(line.split()[1][5:])
    except OSError:
        pass
    return names or ['syscall_%d' % i for i in range(360)]


SYSCALLS = syscalls()


def full_spec(spec, pod_dir, own):
    """spec as containerd writes it for a pod's container: what
    runtime_shapes trims, put back"""
    p = spec['process']
    p['env'] += ['HOSTNAME=' + spec['hostname'], 'KUBERNETES_SERVICE_HOST=10.96.0.1',
                 'KUBERNETES_SERVICE_PORT=443', 'KUBERNETES_PORT=tcp://10.96.0.1:443',
                 'KUBERNETES_PORT_443_TCP_PROTO=tcp', 'KUBERNETES_PORT_443_TCP_PORT=443']
    p['capabilities'] = {k: CAPS for k in ('bounding', 'effective', 'permitted')}
    p['noNewPrivileges'] = True
    p['apparmorProfile'] = 'cri-containerd.apparmor.d'
    spec['mounts'] += [
        {'destination': d, 'type': t, 'source': s, 'options': o} for d, t, s, o in (
            ('/dev', 'tmpfs', 'tmpfs', ['nosuid', 'strictatime', 'mode=755', 'size=65536k']),
            ('/dev/pts', 'devpts', 'devpts', ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620', 'gid=5']),
            ('/dev/mqueue', 'mqueue', 'mqueue', ['nosuid', 'noexec', 'nodev']),
            ('/sys', 'sysfs', 'sysfs', ['nosuid', 'noexec', 'nodev', 'ro']),
            ('/sys/fs/cgroup', 'cgroup', 'cgroup', ['nosuid', 'noexec', 'nodev', 'relatime', 'ro']),
            ('/etc/hosts', 'bind', '/var/lib/kubelet/pods/%s/etc-hosts' % pod_dir, ['rbind', 'rprivate', 'rw']),
            ('/dev/termination-log', 'bind', '/var/lib/kubelet/pods/%s/containers/c/0' % pod_dir, ['rbind', 'rprivate', 'rw']),
            ('/etc/hostname', 'bind', '/var/lib/containerd/io.containerd.grpc.v1.cri/sandboxes/%s/hostname' % pod_dir, ['rbind', 'rprivate', 'rw']),
            ('/etc/resolv.conf', 'bind', '/var/lib/containerd/io.containerd.grpc.v1.cri/sandboxes/%s/resolv.conf' % pod_dir, ['rbind', 'rprivate', 'rw']),
            ('/dev/shm', 'bind', '/run/containerd/io.containerd.grpc.v1.cri/sandboxes/%s/shm' % pod_dir, ['rbind', 'rprivate', 'rw']),
            ('/var/run/secrets/kubernetes.io/serviceaccount', 'bind',
             '/var/lib/kubelet/pods/%s/volumes/kubernetes.io~projected/kube-api-access' % pod_dir, ['rbind', 'rprivate', 'ro']))]
    linux = spec['linux']
    linux['resources'] = {'devices': [{'allow': False, 'access': 'rwm'}],
                          'memory': {'limit': 536870912}, 'cpu': {'shares': 102, 'quota': 50000, 'period': 100000}}
    linux['namespaces'] += [{'type': 'uts'}, {'type': 'network', 'path': '/proc/4242/ns/net'}]
    linux['maskedPaths'] = ['/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats',
                            '/proc/timer_list', '/proc/timer_stats', '/proc/sched_debug',
                            '/proc/scsi', '/sys/firmware', '/sys/devices/virtual/powercap']
    linux['readonlyPaths'] = ['/proc/asound', '/proc/bus', '/proc/fs', '/proc/irq',
                              '/proc/sys', '/proc/sysrq-trigger']
    if own:
        linux['seccomp'] = {'defaultAction': 'SCMP_ACT_ERRNO', 'defaultErrnoRet': 1,
                            'architectures': ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32'],
                            'syscalls': [{'names': SYSCALLS, 'action': 'SCMP_ACT_ALLOW'}]}
    return spec


def pod(out, k):
    """pod K's state in staged/K; its line of pods.tsv"""
    qos = QOS[k % len(QOS)]
    ns = NAMESPACES[k % len(NAMESPACES)]
    name = 'app%d-%s-%s' % (k % 40, hexid('rs', k)[:10], hexid('pod', k)[:5])
    u = hexid('uid', k)
    uid = '%s-%s-%s-%s-%s' % (u[:8], u[8:12], u[12:16], u[16:20], u[20:32])
    sid, cid, ctr = hexid('sandbox', k), hexid('container', k), 'app'
    stage = os.path.join(out, 'staged', str(k))
    pod_dir = '%s_%s_%s' % (ns, name, uid)
    mr.containerd_task(stage, '/run/containerd', 'k8s.io', sid, full_spec(oci_spec(
        cgroups_path(True, qos, uid, 'cri-containerd', sid),
        cri_annotations(ns, name, uid, sid), ['/pause']), pod_dir, False))
    mr.containerd_task(stage, '/run/containerd', 'k8s.io', cid, full_spec(oci_spec(
        cgroups_path(True, qos, uid, 'cri-containerd', cid),
        cri_annotations(ns, name, uid, sid, ctr), ['/usr/bin/' + ctr]), pod_dir, True))
    mr.kubelet_logs(stage, ns, name, uid, ctr, cid)
    slice_ = 'kubepods-%spod%s.slice' % (qos + '-' if qos else '', uid.replace('-', '_'))
    cgroup = 'kubepods.slice/' + ('kubepods-%s.slice/' % qos if qos else '') + slice_
    state = [TASKS + '/' + sid, TASKS + '/' + cid, 'var/log/pods/' + pod_dir,
             'var/log/containers/%s_%s_%s-%s.log' % (name, ns, ctr, cid)]
    scopes = ['%s/cri-containerd-%s.scope' % (cgroup, i) for i in (sid, cid)]
    return '%d\t%s\t%s\t%s\n' % (k, cgroup, ' '.join(scopes), ' '.join(state))


def main():
    out, pods = sys.argv[1], int(sys.argv[2])
    for d in (TASKS, 'var/log/pods', 'var/log/containers'):
        os.makedirs(os.path.join(out, 'root', d), exist_ok=True)
    with open(os.path.join(out, 'pods.tsv'), 'w') as f:
        for k in range(pods):
            f.write(pod(out, k))
    mr.special(os.path.join(out, 'staged'))  # the bundles' log FIFOs
    return 0


if __name__ == '__main__':
    sys.exit(main())
