#!/usr/bin/env python3
"""An image archive of one layer, from a root file system and the last
stage of a Containerfile: an OCI image layout (oci-layout, index.json,
blobs/sha256/...) that `podman load` and Docker 25+ read, with beside it
the manifest.json that `docker load` of every Docker version reads (the
layout Docker 25's own `docker save` writes).

    oci_archive.py ROOTFS CONTAINERFILE REF VERSION OUT.tar

The layer is ROOTFS as a tar (owners numeric, names sorted, times clamped
to SOURCE_DATE_EPOCH when set), gzip'd; the configuration is what the
Containerfile's last stage says: ENTRYPOINT and CMD (JSON form), EXPOSE,
ENV, LABEL, USER and WORKDIR, ${VERSION} replaced by VERSION.  REF names
the image (localhost/joule-cgroup:0.4.0)."""
import gzip
import hashlib
import io
import json
import os
import re
import shlex
import sys
import tarfile
import time

MT_CONFIG = 'application/vnd.oci.image.config.v1+json'
MT_MANIFEST = 'application/vnd.oci.image.manifest.v1+json'
MT_LAYER = 'application/vnd.oci.image.layer.v1.tar+gzip'


def last_stage(path, version):
    """The instructions after the Containerfile's last FROM, continuation
    lines joined: [(INSTRUCTION, argument text)]."""
    text = open(path).read().replace('\\\n', ' ')
    steps = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        word, _, rest = line.partition(' ')
        word = word.upper()
        if word == 'FROM':
            steps = []
        else:
            steps.append((word, rest.strip().replace('${VERSION}', version)))
    return steps


def pairs(text):
    """KEY=VALUE words, shell-quoted."""
    out = {}
    for word in shlex.split(text):
        key, sep, value = word.partition('=')
        if not sep:
            sys.exit('oci_archive: not KEY=VALUE: %s' % word)
        out[key] = value
    return out


def image_config(steps):
    cfg = {'Env': ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin']}
    for word, arg in steps:
        if word in ('ENTRYPOINT', 'CMD'):
            value = json.loads(arg)
            if not isinstance(value, list):
                sys.exit('oci_archive: %s must be a JSON array' % word)
            cfg['Entrypoint' if word == 'ENTRYPOINT' else 'Cmd'] = value
        elif word == 'EXPOSE':
            for port in arg.split():
                cfg.setdefault('ExposedPorts', {})[port if '/' in port else port + '/tcp'] = {}
        elif word == 'ENV':
            env = {e.split('=', 1)[0]: e for e in cfg['Env']}
            for key, value in pairs(arg).items():
                env[key] = '%s=%s' % (key, value)
            cfg['Env'] = list(env.values())
        elif word == 'LABEL':
            cfg.setdefault('Labels', {}).update(pairs(arg))
        elif word == 'USER':
            cfg['User'] = arg
        elif word == 'WORKDIR':
            cfg['WorkingDir'] = arg
        elif word not in ('COPY', 'ARG'):
            sys.exit('oci_archive: %s in the last stage is not supported' % word)
    return cfg


def layer_tar(root, epoch):
    """ROOTFS as an uncompressed tar, reproducibly."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.PAX_FORMAT) as tar:
        paths = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(dirnames + filenames):
                paths.append(os.path.join(dirpath, name))
        for path in sorted(paths, key=lambda p: os.path.relpath(p, root)):
            info = tar.gettarinfo(path, os.path.relpath(path, root))
            info.uname = info.gname = ''
            if epoch is not None and info.mtime > epoch:
                info.mtime = epoch
            if info.isreg():
                with open(path, 'rb') as f:
                    tar.addfile(info, f)
            else:
                tar.addfile(info)
    return buf.getvalue()


def blob(data):
    return 'sha256:' + hashlib.sha256(data).hexdigest()


def main():
    root, containerfile, ref, version, out = sys.argv[1:6]
    epoch = os.environ.get('SOURCE_DATE_EPOCH')
    epoch = int(epoch) if epoch else None
    raw = layer_tar(root, epoch)
    packed = gzip.compress(raw, compresslevel=9, mtime=0)
    config = json.dumps({
        'architecture': 'amd64', 'os': 'linux',
        'created': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(epoch or 0)),
        'config': image_config(last_stage(containerfile, version)),
        'rootfs': {'type': 'layers', 'diff_ids': [blob(raw)]},
        'history': [{'created_by': 'scripts/image.sh (mmdebstrap, Debian 12 packages)'}],
    }, sort_keys=True).encode()
    manifest = json.dumps({
        'schemaVersion': 2, 'mediaType': MT_MANIFEST,
        'config': {'mediaType': MT_CONFIG, 'digest': blob(config), 'size': len(config)},
        'layers': [{'mediaType': MT_LAYER, 'digest': blob(packed), 'size': len(packed)}],
    }, sort_keys=True).encode()
    tag = ref.rsplit(':', 1)[1] if ':' in ref.rsplit('/', 1)[-1] else 'latest'
    index = json.dumps({
        'schemaVersion': 2, 'mediaType': 'application/vnd.oci.image.index.v1+json',
        'manifests': [{'mediaType': MT_MANIFEST, 'digest': blob(manifest), 'size': len(manifest),
                       'annotations': {'org.opencontainers.image.ref.name': tag,
                                       'io.containerd.image.name': ref}}],
    }, sort_keys=True).encode()
    path_of = lambda data: 'blobs/sha256/' + blob(data)[len('sha256:'):]
    docker = json.dumps([{'Config': path_of(config), 'RepoTags': [ref],
                          'Layers': [path_of(packed)]}]).encode()
    files = [('oci-layout', b'{"imageLayoutVersion":"1.0.0"}'), ('index.json', index),
             ('manifest.json', docker), (path_of(config), config),
             (path_of(manifest), manifest), (path_of(packed), packed)]
    tmp = out + '.tmp'
    with tarfile.open(tmp, 'w', format=tarfile.PAX_FORMAT) as tar:
        for d in ('blobs', 'blobs/sha256'):
            info = tarfile.TarInfo(d)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, epoch or 0
            tar.addfile(info)
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, epoch or 0
            tar.addfile(info, io.BytesIO(data))
    os.replace(tmp, out)
    print('%s: %s, layer %d bytes (%d unpacked), image %s' % (
        out, ref, len(packed), len(raw), blob(manifest)))


if __name__ == '__main__':
    main()
