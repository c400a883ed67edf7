/* Unit tests of jc_runtime (InstanceFrom "container", docs/containers.md):
 * the names of every layout of tests/fixtures/hosts/ (a copy, with the
 * FIFOs runtimes leave), each bad input with its one message, and the
 * collector's retries while a runtime has not written its files yet. */
#include "fixture_util.h"
#include "jc_collector.h"
#include "jc_internal.h"
#include "jc_rtname.h"
#include "jc_runtime.h"
#include "jc_utf8.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char logged[8192];
static int log_lines, info_lines, warning_lines;

static void log_cb(void *ctx, int level, const char *msg) {
  (void)ctx;
  log_lines++;
  info_lines += level == JC_LOG_INFO;
  warning_lines += level == JC_LOG_WARNING;
  size_t len = strlen(logged);
  snprintf(logged + len, sizeof(logged) - len, "%s\n", msg);
}

static void log_reset(void) {
  logged[0] = '\0';
  log_lines = info_lines = warning_lines = 0;
}

/* What was logged, as TAP diagnostics. */
static void diag_logged(void) {
  for (const char *l = logged; *l;) {
    size_t n = strcspn(l, "\n");
    printf("#   %.*s\n", (int)n, l);
    l += n + (l[n] == '\n');
  }
}

static const jc_log the_log = {log_cb, NULL};
static char hosts[PATH_MAX];

static jc_runtime *host(const char *name, const char *containerd_dir) {
  char root[PATH_MAX + 64];
  snprintf(root, sizeof(root), "%s/%s", hosts, name);
  const char *dirs[JC_RUNTIME_DIR_COUNT] = {containerd_dir};
  return jc_runtime_new(root, dirs, &the_log);
}

/* The name of relpath, or "-ERRNO" when there is none. */
static const char *name_of(jc_runtime *rt, const char *relpath) {
  static char name[JC_INSTANCE_SIZE + 16];
  char got[JC_INSTANCE_SIZE] = "";
  int r = jc_runtime_name(rt, relpath, got);
  if (r == 0)
    snprintf(name, sizeof(name), "%s", got);
  else
    snprintf(name, sizeof(name), "-%s", r == -ENOENT   ? "ENOENT"
                                        : r == -EAGAIN ? "EAGAIN"
                                                       : "ERROR");
  return name;
}

#define BE "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pode04aa1a7_ada9_5951_980e_1e1f9372c098.slice"
#define BU1 "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0fdd4c4d_1e44_5585_b436_7c0669755f29.slice"
#define BU2 "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pode63e6211_e9ee_5ea2_9453_af137f4472e7.slice"
#define GU "kubepods.slice/kubepods-pod65c6be99_dfb9_5ff9_a447_a35a4662d1f4.slice"
/* a static pod: its uid is its manifest's hash, 32 hex digits, no dashes */
#define STATIC_UID "5d1c3b7e9f0a2c4e6b8d0f1a3c5e7b9d"
#define STATIC "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" STATIC_UID ".slice"
#define ETCD "6f1e5d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e"
#define NGINX "c5a895d0b9e9fc50bc8185f9984c605eb97d5236eb47fbd6d026f64eb8cecb54"
#define COREDNS "f4ce26f8a28fa11206bf8c8364b22676af26f00bbbbb3cf3f1ad6300cc48a2e1"
#define APP "26eda36863810f1f00f42af8622f014140678f680c4388dce8fcb3a4fac08a4b"
#define APP_OLD "5cbe4a8b9fadb4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c45"
#define SHIPPER "9d0b7b1d51cb1b95348b42ddffd31ff18343c604b3d1eefed279e133fe3a0073"
#define POSTGRES "decddf89106cd6fc7f360596b9f228392757fc56ec6deb10bdeb39200a9ca5f5"
#define CART_SANDBOX "3a9c2e6f7d8b92a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a23"
#define WEB "a1c3e5f7092b4d6f8a0c2e4f6a8b0c2d4e6f8a0b2c4d6e8f0a2b4c6d8e0f2a4b"
#define POD "machine.slice/machine-libpod_pod_b2d4f6a8c0e2f4a6b8c0d2e4f6a8b0c2d4e6f8a0b2c4d6e8f0a2b4c6d8e0f2a4.slice"
#define USER(uid) "user.slice/user-" #uid ".slice/user@" #uid ".service/user.slice/libpod-"
#define UNKNOWN "0000000000000000000000000000000000000000000000000000000000000000"
#define UNKNOWN2 "3333333333333333333333333333333333333333333333333333333333333333"
#define LINKED "1111111111111111111111111111111111111111111111111111111111111111"
#define REGISTRY "6e928e8a9ee5e3c6d8d45ee04103cff0a0827b96cdd3aa5c7d29d912fc28b899"

/* The same node under any runtime whose cgroups are PREFIX<id>SUFFIX. */
static void kubernetes(jc_runtime *rt, const char *layout, const char *prefix,
                       const char *suffix, bool sandbox) {
  char p[1024];
  log_reset();
#define CTR(pod, id) (snprintf(p, sizeof(p), "%s/%s%s%s", pod, prefix, id, suffix), p)
  is_str(name_of(rt, CTR(BE, NGINX)), "shop_web-7d9f8c6b5-x2x9q_nginx",
         "%s: a container is <namespace>_<pod>_<container>", layout);
  is_str(name_of(rt, CTR(BU1, COREDNS)), "kube-system_coredns-5d78c9869d-4xk2p_coredns",
         "%s: kube-system's coredns", layout);
  is_str(name_of(rt, CTR(BU2, APP)), "shop_cart-0_app", "%s: two containers of one pod: app", layout);
  is_str(name_of(rt, CTR(BU2, SHIPPER)), "shop_cart-0_log-shipper", "%s: and log-shipper", layout);
  is_str(name_of(rt, CTR(GU, POSTGRES)), "db_postgres-0_postgres", "%s: a guaranteed pod's container", layout);
  if (sandbox)
    is_str(name_of(rt, CTR(BU2, CART_SANDBOX)), "shop_cart-0_POD",
           "%s: the pause (sandbox) container is <namespace>_<pod>_POD", layout);
  is_str(name_of(rt, CTR(BU2, UNKNOWN)), "-EAGAIN",
         "%s: a container whose files are not written yet: retry later", layout);
  is_str(name_of(rt, BU2), "shop_cart-0", "%s: a pod's cgroup is <namespace>_<pod>", layout);
  is_str(name_of(rt, GU), "db_postgres-0", "%s: a guaranteed pod's cgroup", layout);
  is_str(name_of(rt, STATIC), "kube-system_etcd-node-1",
         "%s: a static pod's cgroup (uid of 32 hex digits)", layout);
  is_str(name_of(rt, CTR(STATIC, ETCD)), "kube-system_etcd-node-1_etcd",
         "%s: a static pod's container", layout);
  is_str(name_of(rt, "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                     "5d1c3b7e9f0a2c4e6b8d0f1a3c5e7b9.slice"), "-ENOENT",
         "%s: a pod uid of 31 hex digits is none", layout);
  is_str(name_of(rt, "kubepods.slice/kubepods-burstable.slice"), "-ENOENT",
         "%s: a QoS level is no container: its path name", layout);
  is_str(name_of(rt, "system.slice/kubelet.service"), "-ENOENT", "%s: a service is no container", layout);
  is_int(log_lines, 0, "%s: not a word logged", layout);
  if (log_lines)
    diag_logged();
#undef CTR
}

static void layouts(void) {
  jc_runtime *rt = host("containerd-systemd", NULL);
  ok(rt != NULL, "containerd-systemd: opened");
  kubernetes(rt, "containerd-systemd", "cri-containerd-", ".scope", true);
  is_str(name_of(rt, BU2 "/cri-containerd-" APP_OLD ".scope"), "shop_cart-0_app",
         "a restarted container (new id, new cgroup) keeps its name");
  jc_runtime_free(rt);

  rt = host("k3s-cgroupfs", "/run/k3s/containerd");
  const char *be = "kubepods/besteffort/pode04aa1a7-ada9-5951-980e-1e1f9372c098";
  char p[512];
  snprintf(p, sizeof(p), "%s/%s", be, NGINX);
  is_str(name_of(rt, p), "shop_web-7d9f8c6b5-x2x9q_nginx",
         "k3s (RuntimeDir containerd /run/k3s/containerd), cgroupfs driver");
  is_str(name_of(rt, be), "shop_web-7d9f8c6b5-x2x9q", "k3s: a pod's cgroupfs cgroup pod<uid>");
  snprintf(p, sizeof(p), "kubepods/pod65c6be99-dfb9-5ff9-a447-a35a4662d1f4/%s", POSTGRES);
  is_str(name_of(rt, p), "db_postgres-0_postgres", "k3s: a guaranteed pod's container");
  const char *st = "kubepods/burstable/pod" STATIC_UID;
  is_str(name_of(rt, st), "kube-system_etcd-node-1", "k3s: a static pod's cgroupfs cgroup");
  snprintf(p, sizeof(p), "%s/%s", st, ETCD);
  is_str(name_of(rt, p), "kube-system_etcd-node-1_etcd",
         "k3s: a static pod's container <id> below pod<32 hex>");
  jc_runtime_free(rt);
  rt = host("k3s-cgroupfs", NULL);
  snprintf(p, sizeof(p), "%s/%s", be, NGINX);
  is_str(name_of(rt, p), "shop_web-7d9f8c6b5-x2x9q_nginx",
         "k3s without RuntimeDir: the kubelet's /var/log/containers names it");
  jc_runtime_free(rt);

  /* ContainerNames: the same names, their parts split unambiguously. */
  static const struct {
    jc_container_names names;
    const char *ctr, *pod, *compose, *plain;
  } formats[] = {
      {JC_NAMES_PREFIXED, "k8s_shop_web-7d9f8c6b5-x2x9q_nginx",
       "k8s_shop_web-7d9f8c6b5-x2x9q", "compose_shop_db", "registry"},
      {JC_NAMES_LEVELS, "k8s.shop.web-7d9f8c6b5-x2x9q.nginx",
       "k8s.shop.web-7d9f8c6b5-x2x9q", "compose.shop.db", "registry"},
  };
  for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
    const char *what = formats[i].names == JC_NAMES_LEVELS ? "levels" : "prefixed";
    rt = host("k3s-cgroupfs", NULL);
    jc_runtime_set_names(rt, formats[i].names);
    snprintf(p, sizeof(p), "%s/%s", be, NGINX);
    is_str(name_of(rt, p), formats[i].ctr, "ContainerNames \"%s\": a container (the kubelet's files)", what);
    is_str(name_of(rt, be), formats[i].pod, "  a pod");
    jc_runtime_free(rt);
    rt = host("containerd-systemd", NULL);
    jc_runtime_set_names(rt, formats[i].names);
    is_str(name_of(rt, BE "/cri-containerd-" NGINX ".scope"), formats[i].ctr,
           "  a container (containerd's bundle)");
    jc_runtime_free(rt);
    rt = host("docker", NULL);
    jc_runtime_set_names(rt, formats[i].names);
    is_str(name_of(rt, "system.slice/docker-c9d947af6874c9be436b564bccc6e059a0c1f65cccf1bae1f6dfa1868df0da6c.scope"),
           formats[i].compose, "  a compose service");
    is_str(name_of(rt, "system.slice/docker-6e928e8a9ee5e3c6d8d45ee04103cff0a0827b96cdd3aa5c7d29d912fc28b899.scope"),
           formats[i].plain, "  a plain container: its name");
    jc_runtime_free(rt);
  }

  rt = host("crio", NULL);
  kubernetes(rt, "crio", "crio-", ".scope", true);
  is_str(name_of(rt, BU2 "/crio-conmon-" APP ".scope"), "-ENOENT", "crio: conmon's cgroup is no container");
  jc_runtime_free(rt);

  rt = host("cri-dockerd", NULL);
  kubernetes(rt, "cri-dockerd", "docker-", ".scope", true);
  jc_runtime_free(rt);

  const struct {
    const char *host, *relpath, *want, *what;
  } cases[] = {
      {"docker", "system.slice/docker-6e928e8a9ee5e3c6d8d45ee04103cff0a0827b96cdd3aa5c7d29d912fc28b899.scope",
       "registry", "docker: a container by its name"},
      {"docker", "system.slice/docker-c9d947af6874c9be436b564bccc6e059a0c1f65cccf1bae1f6dfa1868df0da6c.scope",
       "shop_db", "docker: a compose container is <project>_<service>"},
      {"docker", "docker/6e928e8a9ee5e3c6d8d45ee04103cff0a0827b96cdd3aa5c7d29d912fc28b899",
       "registry", "docker: the cgroupfs driver's docker/<id>"},
      {"docker", "system.slice/docker.service", "-ENOENT", "docker: the daemon's own service"},
      {"podman-rootful", "machine.slice/libpod-" WEB ".scope", "web",
       "podman rootful: a --rm container by its name (volatile-containers.json)"},
      {"podman-rootful", "machine.slice/libpod-conmon-" WEB ".scope", "-ENOENT",
       "podman: conmon's cgroup is no container"},
      {"podman-rootful", POD "/libpod-d4f6b8c0e2a4c6e8a0c2e4a6c8e0a2c4e6a8c0e2a4c6e8a0c2e4a6c8e0a2c4e6.scope",
       "shop-api", "podman: a pod's container by its name"},
      {"podman-rootful", POD "/libpod-c3e5a7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5.scope",
       "b2d4f6a8c0e2-infra", "podman: the pod's infra container by the name podman gave it"},
      {"podman-rootful", POD, "-ENOENT", "podman: the pod's slice keeps its path name"},
      {"podman-rootless", USER(1000) "b7f3c1e2d4a5968778695a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d.scope",
       "toolbox", "podman rootless: alice's container (home from etc/passwd)"},
      {"podman-rootless", USER(1001) "e8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9.scope",
       "bob-db", "podman rootless: bob's, whose home is not in /home"},
      {"podman-rootless", USER(1002) UNKNOWN ".scope", "-EAGAIN",
       "podman rootless: a user not in etc/passwd yet: retry later"},
  };
  log_reset();
  for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
    rt = host(cases[i].host, NULL);
    is_str(name_of(rt, cases[i].relpath), cases[i].want, "%s", cases[i].what);
    jc_runtime_free(rt);
  }
  is_int(log_lines, 0, "docker and podman: not a word logged");

  /* docker-names: names no writer takes keep their path names, each said
   * once, the line UTF-8 with the bytes shown as \xNN. */
  static const struct {
    const char *id, *shown, *what;
  } refused[] = {
      {"c0afc0afc0afc0afc0afc0afc0afc0afc0afc0afc0afc0afc0afc0afc0afc0af",
       "web\\xc0\\xafx", "an overlong '/' (C0 AF)"},
      {"eda080eda080eda080eda080eda080eda080eda080eda080eda080eda080eda0",
       "web\\xed\\xa0\\x80x", "a surrogate (ED A0 80)"},
      {"f4908080f4908080f4908080f4908080f4908080f4908080f4908080f4908080",
       "web\\xf4\\x90\\x80\\x80x", "past U+10FFFF (F4 90 80 80)"},
      {"d800dfffd800dfffd800dfffd800dfffd800dfffd800dfffd800dfffd800dfff",
       "p\\xed\\xa0\\x80q_s\\xed\\xbf\\xbfv",
       "compose labels with lone surrogates as JSON escapes"},
  };
  rt = host("docker-names", NULL);
  for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
    char cgroup[128], want[256], got[JC_INSTANCE_SIZE] = "untouched";
    snprintf(cgroup, sizeof(cgroup), "system.slice/docker-%s.scope",
             refused[i].id);
    snprintf(want, sizeof(want), "names the container \"%s\"",
             refused[i].shown);
    log_reset();
    ok(jc_runtime_name(rt, cgroup, got) == -EILSEQ && !strcmp(got, "untouched"),
       "docker-names: %s: its path name", refused[i].what);
    ok(warning_lines == 1 && log_lines == 1 && strstr(logged, want) &&
           strstr(logged, cgroup),
       "  one WARNING, the name shown as %s", refused[i].shown);
    ok(jc_utf8_valid(logged, strlen(logged)), "  the line is UTF-8");
    if (log_lines != 1)
      diag_logged();
  }
  log_reset();
  is_str(name_of(rt, "system.slice/docker-" REGISTRY ".scope"), "registry",
         "docker-names: the others are named");
  is_int(log_lines, 0, "  nothing said");
  jc_runtime_free(rt);
}

/* ---- bad input ------------------------------------------------------------ */

#define BAD_ID "abcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcd"
#define BAD_DIR "var/lib/docker/containers/" BAD_ID
#define BAD_FILE BAD_DIR "/config.v2.json"
#define BAD_CGROUP "system.slice/docker-" BAD_ID ".scope"

/* One bad file, read for cgroup: the result, exactly one message, naming
 * the file, the cgroup and holding phrase. */
static void bad_at(jc_runtime *rt, const char *cgroup, const char *file,
                   const char *what, int want, const char *phrase) {
  char name[JC_INSTANCE_SIZE] = "untouched";
  log_reset();
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  int r = jc_runtime_name(rt, cgroup, name);
  clock_gettime(CLOCK_MONOTONIC, &b);
  is_int(r, want, "%s: refused", what);
  is_str(name, "untouched", "%s: the cgroup keeps its path name", what);
  is_int(log_lines, 1, "%s: one message", what);
  ok(strstr(logged, fx_path(file)) && strstr(logged, phrase) &&
         strstr(logged, cgroup),
     "%s: it names the file, the cgroup and \"%s\"", what, phrase);
  diag_logged();
  ok((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 500000000L,
     "%s: no wait", what);
}

static void bad(jc_runtime *rt, const char *what, int want, const char *phrase) {
  bad_at(rt, BAD_CGROUP, BAD_FILE, what, want, phrase);
}

/* head, 3 MiB of '0', tail: a document whose end is past the 1 MiB read. */
static void big_file(const char *rel, const char *head, const char *tail) {
  FILE *f = fopen(fx_path(rel), "w");
  fputs(head, f);
  for (int i = 0; i < 3 * 1024; i++)
    fprintf(f, "%01023d", 0);
  fputs(tail, f);
  fclose(f);
}

static void bad_inputs(void) {
  fx_root("cpu\n");
  fx_mkdir("var");
  fx_mkdir("var/lib");
  fx_mkdir("var/lib/docker");
  fx_mkdir("var/lib/docker/containers");
  fx_mkdir(BAD_DIR);
  jc_runtime *rt = jc_runtime_new(fx_path(""), NULL, &the_log);
  char name[JC_INSTANCE_SIZE];

  fx_write(BAD_FILE, "{\"Name\":\"/we b\\u0001\",\"Config\":{\"Labels\":{}}}");
  bad(rt, "a name with a space and a control character", -EILSEQ,
      "names the container \"we b\\x01\"");
  fx_write(BAD_FILE, "{\"Name\":\"/x\",\"Config\":{\"Labels\":{"
                     "\"com.docker.compose.project\":\"a/b\","
                     "\"com.docker.compose.service\":\"c\"}}}");
  log_reset();
  is_int(jc_runtime_name(rt, BAD_CGROUP, name), 0, "a label with '/'");
  is_str(name, "a_b_c", "  becomes '_', as in path names");
  fx_write(BAD_FILE, "{\"Name\":\"/web\xff\xfe\"}");
  bad(rt, "a name that is not UTF-8", -EBADMSG, "is not valid JSON");
  /* Lone surrogates written as JSON escapes: refused as bytes that are
   * not UTF-8, shown as the bytes they would be; a pair is a character. */
  fx_write(BAD_FILE, "{\"Name\":\"/p\\ud800q\"}");
  bad(rt, "a lone high surrogate's escape", -EILSEQ,
      "names the container \"p\\xed\\xa0\\x80q\"");
  ok(jc_utf8_valid(logged, strlen(logged)), "  the message is UTF-8");
  fx_write(BAD_FILE, "{\"Name\":\"/s\\udfffv\"}");
  bad(rt, "a lone low surrogate's escape", -EILSEQ,
      "names the container \"s\\xed\\xbf\\xbfv\"");
  fx_write(BAD_FILE, "{\"Name\":\"/x\\ud800\\u0041\"}");
  bad(rt, "a high surrogate's escape before another character's", -EILSEQ,
      "names the container \"x\\xed\\xa0\\x80A\"");
  fx_write(BAD_FILE, "{\"Name\":\"/x\\uD800\"}");
  bad(rt, "a high surrogate's escape last in its string", -EILSEQ,
      "names the container \"x\\xed\\xa0\\x80\"");
  fx_write(BAD_FILE, "{\"Name\":\"/x\\\\ud800\"}");
  bad(rt, "an escaped backslash before \"ud800\": text, not an escape", -EILSEQ,
      "names the container \"x\\x5cud800\"");
  fx_write(BAD_FILE,
           "{\"Name\":\"/"
           "a\\ud83d\\ude00b\",\"Config\":{\"Labels\":{\"k\\ud800\":\"v\"}}}");
  log_reset();
  is_int(jc_runtime_name(rt, BAD_CGROUP, name), 0,
         "a surrogate pair's escapes");
  is_str(name,
         "a\xf0\x9f\x98\x80"
         "b",
         "  are the character they make (U+1F600)");
  is_int(log_lines, 0,
         "  a lone surrogate in a key that is not read: nothing said");
  /* The same cut by the end of a read (16 KiB): the state carries over. */
  for (int k = 0; k < 12; k++) {
    const char *tail = k < 6 ? "\\ud83d\\ude00\"}" : "\\ud800q\"}";
    char doc[16500];
    int pad =
        16384 - (int)strlen("{\"Pad\":\"\",\"Name\":\"/a") - (k % 6 + 1) * 2;
    snprintf(doc, sizeof(doc), "{\"Pad\":\"%0*d\",\"Name\":\"/a%s", pad, 0,
             tail);
    fx_write(BAD_FILE, doc);
    log_reset();
    strcpy(name, "untouched");
    int r = jc_runtime_name(rt, BAD_CGROUP, name);
    if (k < 6)
      ok(r == 0 && !strcmp(name, "a\xf0\x9f\x98\x80"),
         "a pair's escapes cut by a read's end (%d bytes before it): a "
         "character",
         (k % 6 + 1) * 2);
    else
      ok(r == -EILSEQ && strstr(logged, "\"a\\xed\\xa0\\x80q\""),
         "a lone escape cut by a read's end (%d bytes before it): refused",
         (k % 6 + 1) * 2);
  }
  char longer[400];
  memset(longer, 'n', 300);
  longer[300] = '\0';
  char text[600];
  snprintf(text, sizeof(text), "{\"Name\":\"/%s\"}", longer);
  fx_write(BAD_FILE, text);
  bad(rt, "a 300-byte name", -ENAMETOOLONG, "longer than 255 bytes");
  longer[200] = '\0';
  snprintf(text, sizeof(text), "{\"Name\":\"/%s\"}", longer);
  fx_write(BAD_FILE, text);
  log_reset();
  is_int(jc_runtime_name(rt, BAD_CGROUP, name), 0, "a 200-byte name is a name");
  ok(strlen(name) == JC_INSTANCE_MAX && name[8] == '~' && log_lines == 0,
     "  of 127 bytes, its tail behind the path's hash (%.12s...)", name);

  fx_write(BAD_FILE, "{\"Name\":\"/x\",,}");
  bad(rt, "malformed JSON", -EBADMSG, "is not valid JSON");
  fx_write(BAD_FILE, "{\"Name\":\"/x\",\"Config\":{");
  bad(rt, "JSON cut short", -EBADMSG, "is not valid JSON");

  FILE *f = fopen(fx_path(BAD_FILE), "w");
  fputs("{\"Pad\":\"", f);
  for (int i = 0; i < 3 * 1024; i++)
    fprintf(f, "%01023d", 0);
  fputs("\",\"Name\":\"/late\"}", f);
  fclose(f);
  bad(rt, "a file of 3 MiB", -EFBIG, "longer than 1024 KiB");

  unlink(fx_path(BAD_FILE));
  fx_symlink("/etc/passwd", BAD_FILE);
  bad(rt, "a symbolic link pointing out of RuntimeRoot", -ELOOP, "is a symbolic link");

  unlink(fx_path(BAD_FILE));
  mkfifo(fx_path(BAD_FILE), 0600);
  bad(rt, "a FIFO (no writer)", -EINVAL, "is a FIFO, not a regular file");
  unlink(fx_path(BAD_FILE));

  /* A directory on the way that links out: never opened out there. */
  char outside[] = "/tmp/jc-outside-XXXXXX", path[PATH_MAX];
  ok(mkdtemp(outside) != NULL, "a directory outside RuntimeRoot");
  snprintf(path, sizeof(path), "%s/config.v2.json", outside);
  f = fopen(path, "w");
  fputs("{\"Name\":\"/escaped\"}", f);
  fclose(f);
  fx_remove(BAD_DIR);
  fx_symlink(outside, BAD_DIR);
  bad_at(rt, BAD_CGROUP, BAD_DIR, "the container's directory a link out of RuntimeRoot",
         -ELOOP, "is a symbolic link; runtime files are read only as regular files below RuntimeRoot");
  ok(!strstr(logged, "config.v2.json"), "  the message names the directory, not the file in it");
  unlink(fx_path(BAD_DIR));
  fx_symlink("../../../../tmp/jc-nowhere", BAD_DIR);
  bad_at(rt, BAD_CGROUP, BAD_DIR, "a relative link climbing out of RuntimeRoot", -ELOOP,
         "is a symbolic link");
  unlink(path);
  rmdir(outside);

  /* A link that leads to a directory inside RuntimeRoot: with openat2 it
   * is resolved there and read, without it refused; never silent. */
  unlink(fx_path(BAD_DIR));
  fx_mkdir("var/lib/docker/moved");
  fx_write("var/lib/docker/moved/config.v2.json", "{\"Name\":\"/moved\"}");
  fx_symlink("/var/lib/docker/moved", BAD_DIR);
  log_reset();
  strcpy(name, "untouched");
  int r = jc_runtime_name(rt, BAD_CGROUP, name);
  ok((r == 0 && strcmp(name, "moved") == 0 && log_lines == 0) ||
         (r == -ELOOP && log_lines == 1 && strstr(logged, "is a symbolic link")),
     "a link to a directory inside RuntimeRoot: read there, or refused with a message (%d)", r);
  diag_logged();
  unlink(fx_path(BAD_DIR));
  fx_mkdir(BAD_DIR);
  jc_runtime_free(rt);

  errno = 0;
  ok(jc_runtime_new("/nonexistent-runtime-root", NULL, &the_log) == NULL &&
         errno == ENOENT,
     "a RuntimeRoot that does not exist: NULL, ENOENT");
  fx_cleanup();
}

/* ---- bad input: the other runtimes' files ------------------------------------ */

#define BAD_POD "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pode04aa1a7_ada9_5951_980e_1e1f9372c098.slice"
#define ANNOTATIONS                                                            \
  "\"annotations\":{\"io.kubernetes.cri.sandbox-namespace\":\"shop\","           \
  "\"io.kubernetes.cri.sandbox-name\":\"web-0\","                               \
  "\"io.kubernetes.pod.namespace\":\"shop\",\"io.kubernetes.pod.name\":\"web-0\"," \
  "\"io.kubernetes.cri.container-name\":\"nginx\","                             \
  "\"io.kubernetes.container.name\":\"nginx\"}}"

/* A runtime's file: what the cgroup's name is read from, a good document
 * of it (the name it gives), the head of a 3 MiB one (big_file) whose
 * tail is the good one, and malformed JSON. */
typedef struct {
  const char *what, *cgroup, *file, *good, *name, *big_head, *malformed;
} runtime_file;

static const runtime_file runtime_files[] = {
    {"containerd's config.json", BAD_POD "/cri-containerd-" BAD_ID ".scope",
     "run/containerd/io.containerd.runtime.v2.task/k8s.io/" BAD_ID "/config.json",
     "{\"ociVersion\":\"1.1.0\"," ANNOTATIONS, "shop_web-0_nginx",
     "{\"Pad\":\"", "{\"ociVersion\":\"1.1.0\",\"annotations\":{\"a\"}}"},
    {"CRI-O's config.json", BAD_POD "/crio-" BAD_ID ".scope",
     "run/containers/storage/overlay-containers/" BAD_ID "/userdata/config.json",
     "{\"ociVersion\":\"1.1.0\"," ANNOTATIONS, "shop_web-0_nginx",
     "{\"Pad\":\"", "{\"ociVersion\":\"1.1.0\"," ANNOTATIONS "}"},
    {"Podman's containers.json", "machine.slice/libpod-" BAD_ID ".scope",
     "var/lib/containers/storage/overlay-containers/containers.json",
     "[{\"id\":\"" BAD_ID "\",\"names\":[\"web\"]}]", "web",
     "[{\"id\":\"0\",\"names\":[\"other\"],\"metadata\":\"",
     "[{\"id\":\"" BAD_ID "\",\"names\":[\"web\"],,}]"},
    {"Podman's volatile-containers.json (--rm)", "machine.slice/libpod-" BAD_ID ".scope",
     "var/lib/containers/storage/overlay-containers/volatile-containers.json",
     "[{\"id\":\"" BAD_ID "\",\"names\":[\"web\"],\"flags\":{\"Volatile\":true}}]", "web",
     "[{\"id\":\"0\",\"names\":[\"other\"],\"metadata\":\"",
     "[{\"id\":\"" BAD_ID "\",\"names\":[\"web\"],,}]"},
};

/* The file of rf, each way bad; then good again. */
static void bad_runtime_file(jc_runtime *rt, const runtime_file *rf) {
  char what[128], name[JC_INSTANCE_SIZE];
  const char *dir_end = strrchr(rf->file, '/');
  char dir[256];
  snprintf(dir, sizeof(dir), "%.*s", (int)(dir_end - rf->file), rf->file);
  fx_mkdirs(dir);
  fx_write(rf->file, rf->good);
  log_reset();
  int r = jc_runtime_name(rt, rf->cgroup, name);
  ok(r == 0 && strcmp(name, rf->name) == 0 && log_lines == 0,
     "%s, as the runtime writes it: \"%s\"", rf->what, r == 0 ? name : "-");

  fx_write(rf->file, rf->malformed);
  snprintf(what, sizeof(what), "%s: malformed JSON", rf->what);
  bad_at(rt, rf->cgroup, rf->file, what, -EBADMSG, "is not valid JSON");

  char tail[1024];
  snprintf(tail, sizeof(tail), "\",%s", rf->good + 1);
  big_file(rf->file, rf->big_head, tail);
  snprintf(what, sizeof(what), "%s: 3 MiB, the name past the first 1 MiB", rf->what);
  bad_at(rt, rf->cgroup, rf->file, what, -EFBIG, "longer than 1024 KiB");

  unlink(fx_path(rf->file));
  mkfifo(fx_path(rf->file), 0600);
  snprintf(what, sizeof(what), "%s: a FIFO", rf->what);
  bad_at(rt, rf->cgroup, rf->file, what, -EINVAL, "is a FIFO, not a regular file");

  unlink(fx_path(rf->file));
  fx_symlink("/etc/os-release", rf->file);
  snprintf(what, sizeof(what), "%s: a symbolic link out of RuntimeRoot", rf->what);
  bad_at(rt, rf->cgroup, rf->file, what, -ELOOP, "is a symbolic link");
  unlink(fx_path(rf->file));
}

#define STORAGE "var/lib/containers/storage/overlay-containers/"

/* The name of Podman's container BAD_ID, its entry in containers.json,
 * volatile-containers.json, both or neither (1, 2, 3, 0). */
static const char *listed_in(jc_runtime *rt, int files) {
  const char *entry = "[{\"id\":\"" BAD_ID "\",\"names\":[\"web\"]}]";
  const char *other = "[{\"id\":\"" UNKNOWN "\",\"names\":[\"other\"]}]";
  fx_write(STORAGE "containers.json", files & 1 ? entry : other);
  fx_write(STORAGE "volatile-containers.json", files & 2 ? entry : other);
  return name_of(rt, "machine.slice/libpod-" BAD_ID ".scope");
}

/* containers/storage moves a container between its two lists when Podman
 * changes whether it is volatile (--rm): found in either, the same name,
 * and while it moves (in both, or in neither for a moment) no message. */
static void podman_moves(jc_runtime *rt) {
  fx_mkdirs("var/lib/containers/storage/overlay-containers");
  log_reset();
  is_str(listed_in(rt, 1), "web", "Podman: a container in containers.json");
  is_str(listed_in(rt, 2), "web", "  moved to volatile-containers.json: the same name");
  is_str(listed_in(rt, 3), "web", "  in both while it moves: the same name");
  is_str(listed_in(rt, 0), "-EAGAIN", "  in neither for a moment: tried again later");
  is_str(listed_in(rt, 1), "web", "  back in containers.json: the same name");
  listed_in(rt, 2);
  unlink(fx_path(STORAGE "containers.json"));
  is_str(name_of(rt, "machine.slice/libpod-" BAD_ID ".scope"), "web",
         "  only volatile-containers.json there (no containers.json): named");
  is_int(log_lines, 0, "  not a word logged");
  diag_logged();
  unlink(fx_path(STORAGE "volatile-containers.json"));
}

#define ROOTLESS_CGROUP USER(1000) BAD_ID ".scope"

/* Rootless Podman's etc/passwd: whose home holds the containers.json. */
static void bad_passwd(jc_runtime *rt) {
  const char *storage = "srv/alice/.local/share/containers/storage/overlay-containers";
  char file[256], name[JC_INSTANCE_SIZE];
  fx_mkdirs(storage);
  snprintf(file, sizeof(file), "%s/containers.json", storage);
  fx_write(file, "[{\"id\":\"" BAD_ID "\",\"names\":[\"toolbox\"]}]");
  fx_mkdir("etc");
  const char *alice = "alice:x:1000:1000:Alice:/srv/alice:/bin/sh\n";
  fx_write("etc/passwd", alice);
  log_reset();
  int r = jc_runtime_name(rt, ROOTLESS_CGROUP, name);
  ok(r == 0 && strcmp(name, "toolbox") == 0 && log_lines == 0,
     "rootless Podman: etc/passwd gives uid 1000's home, its containers.json the name");

  fx_write("etc/passwd", "alice:x:1000:1000:Alice\n");
  bad_at(rt, ROOTLESS_CGROUP, "etc/passwd", "etc/passwd: uid 1000's line cut short",
         -EBADMSG, "has a malformed line for uid 1000");
  fx_write("etc/passwd", "alice:x:1000:1000:Alice:srv/alice:/bin/sh\n");
  bad_at(rt, ROOTLESS_CGROUP, "etc/passwd", "etc/passwd: a home that is not absolute",
         -EBADMSG, "has a malformed line for uid 1000");

  /* 20,000 users (about 780 KiB) before alice: past the bounded read. */
  FILE *f = fopen(fx_path("etc/passwd"), "w");
  for (int i = 0; i < 20000; i++)
    fprintf(f, "user%05d:x:%d:%d:User %05d:/home/user%05d:/bin/sh\n", i,
            20000 + i, 20000 + i, i, i);
  fputs(alice, f);
  fclose(f);
  bad_at(rt, ROOTLESS_CGROUP, "etc/passwd", "etc/passwd: uid 1000 past its first 256 KiB",
         -EFBIG, "longer than 256 KiB, and its first 256 KiB do not list uid 1000");
  f = fopen(fx_path("etc/passwd"), "w");
  fputs(alice, f);
  for (int i = 0; i < 20000; i++)
    fprintf(f, "user%05d:x:%d:%d::/home/user%05d:/bin/sh\n", i, 20000 + i, 20000 + i, i);
  fclose(f);
  log_reset();
  r = jc_runtime_name(rt, ROOTLESS_CGROUP, name);
  ok(r == 0 && strcmp(name, "toolbox") == 0 && log_lines == 0,
     "etc/passwd of 780 KiB with uid 1000 in its first 256 KiB: named");

  unlink(fx_path("etc/passwd"));
  log_reset();
  is_int(jc_runtime_name(rt, ROOTLESS_CGROUP, name), -EAGAIN,
         "no etc/passwd (yet): tried again later, not a word");
  is_int(log_lines, 0, "  nothing logged");
  mkfifo(fx_path("etc/passwd"), 0600);
  bad_at(rt, ROOTLESS_CGROUP, "etc/passwd", "etc/passwd: a FIFO", -EINVAL,
         "is a FIFO, not a regular file");
  unlink(fx_path("etc/passwd"));
  fx_symlink("/etc/passwd", "etc/passwd");
  bad_at(rt, ROOTLESS_CGROUP, "etc/passwd", "etc/passwd: a symbolic link out of RuntimeRoot",
         -ELOOP, "is a symbolic link");
}

static void bad_runtimes(void) {
  fx_root("cpu\n");
  jc_runtime *rt = jc_runtime_new(fx_path(""), NULL, &the_log);
  for (size_t i = 0; i < sizeof(runtime_files) / sizeof(*runtime_files); i++)
    bad_runtime_file(rt, &runtime_files[i]);
  podman_moves(rt);
  bad_passwd(rt);
  jc_runtime_free(rt);
  fx_cleanup();
}

/* ---- the collector: once, then retried, then given up -------------------- */

static char found_instance[JC_INSTANCE_SIZE];

static void find_target(void *ctx, const jc_target *t) {
  if (strcmp(t->relpath, ctx) == 0)
    snprintf(found_instance, sizeof(found_instance), "%s", t->instance);
}

static const char *instance_of(jc_collector *c, const char *relpath) {
  found_instance[0] = '\0';
  jc_collector_each_target(c, find_target, (void *)relpath);
  return found_instance;
}

/* A collector with InstanceFrom "container" on runtime_root's cgroups
 * below cgroot that select picks; the log reset. */
static jc_collector *container_collector(const char *cgroot,
                                         const char *runtime_root,
                                         const char *select) {
  char err[256] = "";
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, cgroot, err, sizeof(err));
  jc_config_add_pattern(cfg, false, select, err, sizeof(err));
  jc_config_set_instance_from(cfg, "container", err, sizeof(err));
  jc_config_set_runtime_root(cfg, runtime_root, err, sizeof(err));
  ok(jc_config_finish(cfg, err, sizeof(err)) == 0, "config: %s", err);
  log_reset();
  jc_collector *c = jc_collector_new(cfg, log_cb, NULL);
  ok(jc_collector_init(c) == 0, "collector with InstanceFrom \"container\" on %s", select);
  return c;
}

static void collector(void) {
  const char *root = fx_root("cpu\n");
  fx_mkdir("sys");
  fx_mkdir("sys/fs");
  fx_mkdir("sys/fs/cgroup");
  fx_write("sys/fs/cgroup/cgroup.controllers", "cpu\n");
  fx_write("sys/fs/cgroup/cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0\n");
  fx_cgroup("sys/fs/cgroup/system.slice", 100);
  fx_cgroup("sys/fs/cgroup/" BAD_CGROUP, 10);
  fx_mkdir("var");
  fx_mkdir("var/lib");
  fx_mkdir("var/lib/docker");
  fx_mkdir("var/lib/docker/containers");

  char cgroot[PATH_MAX];
  snprintf(cgroot, sizeof(cgroot), "%s/sys/fs/cgroup", root);
  jc_collector *c = container_collector(cgroot, root, "system.slice/*");
  is_str(instance_of(c, BAD_CGROUP), "system.slice_docker-" BAD_ID ".scope",
         "before Docker wrote its file: the path name");
  jc_collector_read(c, NULL, NULL);
  fx_mkdir(BAD_DIR);
  fx_write(BAD_FILE, "{\"Name\":\"/web\"}");
  jc_collector_read(c, NULL, NULL);
  is_str(instance_of(c, BAD_CGROUP), "web", "a later read: Docker's name");
  int before = info_lines;
  for (int i = 0; i < 30; i++)
    jc_collector_read(c, NULL, NULL);
  is_int(info_lines, before, "named: never asked again");

  fx_cgroup("sys/fs/cgroup/system.slice/docker-" UNKNOWN ".scope", 10);
  log_reset();
  for (int i = 0; i < JC_RUNTIME_TRIES + 5; i++)
    jc_collector_read(c, NULL, NULL);
  is_str(instance_of(c, "system.slice/docker-" UNKNOWN ".scope"),
         "system.slice_docker-" UNKNOWN ".scope", "a file never written: the path name stays");
  is_int(info_lines, 1, "with one INFO");
  ok(strstr(logged, "system.slice/docker-" UNKNOWN ".scope") &&
         strstr(logged, "keeps its path name"),
     "naming the cgroup: %s", logged);
  ok(strstr(logged, "looked for Docker's ") &&
         strstr(logged, "/var/lib/docker/containers/" UNKNOWN "/config.v2.json") &&
         strstr(logged, "is there, without this container's file") &&
         strstr(logged, "looked up again every 60 s"),
     "  the file looked for, where, and when it is looked for again");
  /* A second one of the same cause: no second line. */
  fx_cgroup("sys/fs/cgroup/system.slice/docker-" UNKNOWN2 ".scope", 10);
  log_reset();
  for (int i = 0; i < JC_RUNTIME_TRIES + 5; i++)
    jc_collector_read(c, NULL, NULL);
  is_int(log_lines, 0, "another container of the same runtime: said once for both");
  /* Docker writes the first one's file late: taken at the slower pace. */
  fx_mkdir("var/lib/docker/containers/" UNKNOWN);
  fx_write("var/lib/docker/containers/" UNKNOWN "/config.v2.json",
           "{\"Name\":\"/late\"}");
  jc_collector_read(c, NULL, NULL);
  is_str(instance_of(c, "system.slice/docker-" UNKNOWN ".scope"),
         "system.slice_docker-" UNKNOWN ".scope",
         "its file written after the tries: not read at every read");
  jc_rtname_self *names = jc_step_self(c, JC_STEP_RTNAME);
  names->slow_at = 0; /* JC_RUNTIME_RETRY_S later */
  jc_collector_read(c, NULL, NULL);
  is_str(instance_of(c, "system.slice/docker-" UNKNOWN ".scope"), "late",
         "  a minute later: Docker's name");
  ok(info_lines == 1 && strstr(logged, "is named \"late\" by its runtime now") &&
         strstr(logged, "those under \"system.slice_docker-" UNKNOWN ".scope\" end"),
     "  with one INFO: %s", logged);
  is_str(instance_of(c, "system.slice/docker-" UNKNOWN2 ".scope"),
         "system.slice_docker-" UNKNOWN2 ".scope", "  the other keeps looking");

  /* The container's directory a link out of RuntimeRoot: one WARNING at
   * its first read, none at the reads after. */
  fx_cgroup("sys/fs/cgroup/system.slice/docker-" LINKED ".scope", 10);
  fx_symlink("/tmp/jc-nowhere/" LINKED, "var/lib/docker/containers/" LINKED);
  log_reset();
  for (int i = 0; i < JC_RUNTIME_TRIES + 5; i++)
    jc_collector_read(c, NULL, NULL);
  is_str(instance_of(c, "system.slice/docker-" LINKED ".scope"),
         "system.slice_docker-" LINKED ".scope", "a directory linked out: the path name");
  ok(warning_lines == 1 && info_lines == 0 && log_lines == 1,
     "  one WARNING in %d reads, nothing else", JC_RUNTIME_TRIES + 5);
  ok(strstr(logged, "/var/lib/docker/containers/" LINKED " is a symbolic link") != NULL,
     "  naming the directory");
  diag_logged();
  jc_collector_free(c);
  fx_cleanup();
}

/* ---- what a name that does not come says ----------------------------------- */

/* The runtimes' files looked for, and the remedy, where RuntimeRoot holds
 * no runtime's state at all (a collectd in a container without mounts). */
static void missing(void) {
  const char *root = fx_tmpdir();
  jc_runtime *rt = jc_runtime_new(root, NULL, &the_log);
  char text[4096];
  int k = jc_runtime_missing(rt, BE "/" UNKNOWN, text, sizeof(text));
  is_int(k, JC_RUNTIME_CONTAINERD,
         "a pod's container, cgroupfs driver: containerd's cause");
  ok(strstr(text, "containerd's ") && strstr(text, "/run/containerd/io.containerd.runtime.v2.task/*/" UNKNOWN "/config.json") &&
         strstr(text, "Docker's ") && strstr(text, "/var/lib/docker/containers/" UNKNOWN "/config.v2.json") &&
         strstr(text, "the kubelet's ") && strstr(text, "/var/log/containers/*-" UNKNOWN ".log"),
     "  the three files looked for: %s", text);
  ok(strstr(text, "/run/containerd is not there: a collectd in a container "
                  "mounts the host's /run/containerd read-only at that path") &&
         strstr(text, "RuntimeRoot") && strstr(text, "RuntimeDir containerd"),
     "  the directory to mount, RuntimeRoot, RuntimeDir");
  is_int(jc_runtime_missing(rt, BE, text, sizeof(text)), JC_RUNTIME_KUBELET,
         "a pod's cgroup: the kubelet's");
  ok(strstr(text, "/var/log/pods/*_*_e04aa1a7-ada9-5951-980e-1e1f9372c098") != NULL,
     "  its pods/ directory: %s", text);
  is_int(jc_runtime_missing(rt, USER(1002) UNKNOWN ".scope", text, sizeof(text)),
         JC_RUNTIME_PODMAN, "rootless Podman");
  ok(strstr(text, "etc/passwd") && strstr(text, "home read-only"),
     "  its passwd and the user's home: %s", text);
  is_int(jc_runtime_missing(rt, "system.slice/cron.service", text, sizeof(text)),
         -ENOENT, "a service: no runtime's");
  jc_runtime_free(rt);
  fx_cleanup();
}

/* ---- a container restarted by Kubernetes ------------------------------------ */

/* containerd-systemd's cart-0: its app restarted, the old container's
 * cgroup still there.  Both follow the collision rule, said at INFO;
 * when the old one goes the new one gets the plain name back. */
static void restarted(void) {
  char rtroot[PATH_MAX + 64], cgroot[PATH_MAX + 96];
  snprintf(rtroot, sizeof(rtroot), "%s/containerd-systemd", hosts);
  snprintf(cgroot, sizeof(cgroot), "%s/sys/fs/cgroup", rtroot);
  jc_collector *c = container_collector(cgroot, rtroot, "kubepods.slice/**/*.scope");
  const char *old = BU2 "/cri-containerd-" APP_OLD ".scope";
  const char *new = BU2 "/cri-containerd-" APP ".scope";
  char old_want[JC_INSTANCE_SIZE] = "shop_cart-0_app";
  char new_want[JC_INSTANCE_SIZE] = "shop_cart-0_app";
  jc_name_disambiguate(old_want, old);
  jc_name_disambiguate(new_want, new);
  is_str(instance_of(c, old), old_want, "the old container: its name, ~ and its path's hash");
  is_str(instance_of(c, new), new_want, "the new one: its name, ~ and its path's hash");
  is_int(warning_lines, 0, "no WARNING for a restart");
  ok(info_lines >= 1 && strstr(logged, "both hold a container its runtime names "
                                       "\"shop_cart-0_app\"") &&
         strstr(logged, old_want) && strstr(logged, new_want),
     "one INFO says so");
  diag_logged();

  /* The old container ends: its cgroup goes, then its bundle. */
  char path[3 * PATH_MAX];
  snprintf(path, sizeof(path),
           "rm -r '%s/%s' '%s/run/containerd/io.containerd.runtime.v2.task/k8s.io/%s'",
           cgroot, old, rtroot, APP_OLD);
  ok(system(path) == 0, "the old container's cgroup and bundle removed");
  log_reset();
  jc_collector_read(c, NULL, NULL);
  jc_collector_read(c, NULL, NULL);
  is_str(instance_of(c, old), "", "the old cgroup is no longer reported");
  is_str(instance_of(c, new), "shop_cart-0_app", "the new one gets the plain name back");
  ok(info_lines == 1 && warning_lines == 0 &&
         strstr(logged, "is reported as \"shop_cart-0_app\" again"),
     "with one INFO");
  diag_logged();
  jc_collector_free(c);
}

int main(void) {
  const char *srcdir = getenv("top_srcdir");
  char src[PATH_MAX], cmd[3 * PATH_MAX];
  snprintf(src, sizeof(src), "%s/tests/fixtures/hosts", srcdir ? srcdir : "..");
  snprintf(hosts, sizeof(hosts), "/tmp/jc-hosts-%d", (int)getpid());
  snprintf(cmd, sizeof(cmd),
           "cp -a '%s' '%s' && python3 '%s/../make-runtimes.py' --special '%s'",
           src, hosts, src, hosts);
  ok(system(cmd) == 0, "a copy of tests/fixtures/hosts with its FIFOs and sockets");
  layouts();
  bad_inputs();
  bad_runtimes();
  collector();
  restarted();
  missing();
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", hosts);
  if (system(cmd) != 0)
    perror(cmd);
  return done_testing();
}
