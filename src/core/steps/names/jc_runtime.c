/*
 * jc_runtime — see jc_runtime.h; the layouts are docs/containers.md's.
 *
 * The last level of the cgroup's path says whose it is:
 *   cri-containerd-<id>.scope       containerd's bundle of <id>
 *   crio-<id>.scope, crio-<id>      CRI-O's userdata of <id>
 *   docker-<id>.scope, docker/<id>  Docker's config.v2.json of <id>
 *   libpod-<id>.scope, libpod-<id>  Podman's containers.json, or for --rm
 *                                   volatile-containers.json (rootless in
 *                                   the home of user@<uid>.service's uid)
 *   <id> below a pod's cgroup       containerd's bundle, then Docker's
 *   kubepods-…pod<uid>.slice, pod<uid>   the kubelet's /var/log/pods
 *                                   (<uid>: a UUID, or a static pod's 32 hex)
 * (<id>: 64 hex digits; conmon's cgroups are no container's).  A
 * Kubernetes container whose runtime files are not found is looked up in
 * the kubelet's /var/log/containers.  Kubernetes names win over Docker's
 * own (cri-dockerd's containers carry both).
 */
#include "jc_runtime.h"

#include "jc_rtread.h"
#include "jc_utf8.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const jc_runtime_dir_defaults[JC_RUNTIME_DIR_COUNT] = {
    "/run/containerd", "/run/containers/storage", "/var/lib/docker",
    "/var/lib/containers/storage", "/var/log", "/var/lib/kubelet"};

#define ID_LEN 64
#define FIELD_SIZE 256 /* Kubernetes names are at most 253 bytes */
#define PASSWD_MAX (256 * 1024)

struct jc_runtime {
  int rootfd;
  char root[PATH_MAX];
  char dir[JC_RUNTIME_DIR_COUNT][PATH_MAX]; /* relative to rootfd */
  const jc_log *log;
  jc_container_names names;
  const char *who, *outcome; /* a refused file's message: whose, and what
                                it costs the cgroup */
};

jc_runtime *jc_runtime_new(const char *root,
                           const char *const dirs[JC_RUNTIME_DIR_COUNT],
                           const jc_log *log) {
  jc_runtime *rt = calloc(1, sizeof(*rt));
  if (!rt)
    return NULL;
  snprintf(rt->root, sizeof(rt->root), "%s", root ? root : "/");
  rt->log = log;
  rt->who = "InstanceFrom \"container\"";
  rt->outcome = "keeps its path name";
  for (int k = 0; k < JC_RUNTIME_DIR_COUNT; k++) {
    const char *d = dirs && dirs[k] ? dirs[k] : jc_runtime_dir_defaults[k];
    snprintf(rt->dir[k], sizeof(rt->dir[k]), "%s", d + strspn(d, "/"));
  }
  rt->rootfd = open(rt->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rt->rootfd < 0) {
    int e = errno;
    free(rt);
    errno = e;
    return NULL;
  }
  return rt;
}

void jc_runtime_set_names(jc_runtime *rt, jc_container_names names) {
  rt->names = names;
}

void jc_runtime_set_purpose(jc_runtime *rt, const char *who,
                            const char *outcome) {
  rt->who = who;
  rt->outcome = outcome;
}

jc_runtime *jc_runtime_open(const char *root,
                            const char *const dirs[JC_RUNTIME_DIR_COUNT],
                            const jc_log *log, const char *who,
                            const char *outcome) {
  jc_runtime *rt = jc_runtime_new(root, dirs, log);
  if (!rt) {
    int e = errno;
    jc_logf(log, JC_LOG_ERR,
            "RuntimeRoot \"%s\": %s; %s reads the container runtimes' "
            "state below it",
            root ? root : "/", JC_STRERROR(e), who);
    errno = e;
    return NULL;
  }
  jc_runtime_set_purpose(rt, who, outcome);
  return rt;
}

const char *jc_runtime_dir_path(const jc_runtime *rt, jc_runtime_dir k) {
  return rt->dir[k];
}

int jc_runtime_rootfd(const jc_runtime *rt) { return rt->rootfd; }

const char *jc_runtime_shown(const jc_runtime *rt, const char *rel, char *buf,
                             size_t size) {
  bool slash = rt->root[0] && rt->root[strlen(rt->root) - 1] == '/';
  snprintf(buf, size, "%s%s%s", rt->root, slash ? "" : "/", rel);
  return buf;
}

void jc_runtime_free(jc_runtime *rt) {
  if (!rt)
    return;
  close(rt->rootfd);
  free(rt);
}

/* ---- what a runtime's file says ------------------------------------------ */

typedef struct {
  char ns[FIELD_SIZE], pod[FIELD_SIZE], ctr[FIELD_SIZE]; /* Kubernetes */
  char uid[FIELD_SIZE];                                  /* its pod's */
  bool sandbox;                                          /* pause container */
  bool pod_only; /* the kubelet's pods/: a pod's own cgroup */
  char name[FIELD_SIZE];                                 /* Docker, Podman */
  char project[FIELD_SIZE], service[FIELD_SIZE];         /* compose */
  /* Where it keeps its files (jc_container): paths as the runtime wrote
   * them, "" when not said or longer than PATH_MAX - 1 */
  char log_path[PATH_MAX], rootfs[PATH_MAX];
  char layer[FIELD_SIZE], driver[FIELD_SIZE];
  char storage[PATH_MAX]; /* Podman: its containers/storage, relative */
  jc_runtime_dir runtime; /* whose file said it */
  char file[PATH_MAX];    /* that file, relative to RuntimeRoot */
  const char *id; /* Podman: the entry wanted */
  bool in_entry;  /* Podman: the entry being read is it */
  bool done;
  bool too_long; /* a value above was longer than its field: refused */
} found;

static void take(found *f, char field[FIELD_SIZE], const char *v, size_t len) {
  if (len >= FIELD_SIZE) {
    f->too_long = true;
    strcpy(field, "-");
    return;
  }
  memcpy(field, v, len);
  field[len] = '\0';
}

/* A path the runtime wrote (no name of the container's): one too long is
 * not said, left "" (its reader says what it misses). */
static void take_path(char field[PATH_MAX], const char *v, size_t len) {
  field[0] = '\0';
  if (len < PATH_MAX && !memchr(v, '\0', len)) {
    memcpy(field, v, len);
    field[len] = '\0';
  }
}

/* The Kubernetes annotations and labels the runtimes write: containerd's
 * CRI plugin, CRI-O and cri-dockerd (the kubelet's own label names). */
static void kube_key(found *f, const char *key, const char *v, size_t len) {
  if (!strcmp(key, "io.kubernetes.cri.sandbox-namespace") ||
      !strcmp(key, "io.kubernetes.pod.namespace"))
    take(f, f->ns, v, len);
  else if (!strcmp(key, "io.kubernetes.cri.sandbox-name") ||
           !strcmp(key, "io.kubernetes.pod.name"))
    take(f, f->pod, v, len);
  else if (!strcmp(key, "io.kubernetes.cri.container-name") ||
           !strcmp(key, "io.kubernetes.container.name"))
    take(f, f->ctr, v, len);
  else if (!strcmp(key, "io.kubernetes.cri.container-type") ||
           !strcmp(key, "io.kubernetes.cri-o.ContainerType") ||
           !strcmp(key, "io.kubernetes.docker.type"))
    f->sandbox = (len == 7 && !memcmp(v, "sandbox", 7)) ||
                 (len == 10 && !memcmp(v, "podsandbox", 10));
  else if (!strcmp(key, "io.kubernetes.cri.sandbox-uid") ||
           !strcmp(key, "io.kubernetes.pod.uid"))
    take(f, f->uid, v, len);
  else if (!strcmp(key, "io.kubernetes.cri-o.LogPath"))
    take_path(f->log_path, v, len);
  else if (!strcmp(key, "io.kubernetes.cri-o.MountPoint"))
    take_path(f->rootfs, v, len);
  else if (!strcmp(key, "com.docker.compose.project"))
    take(f, f->project, v, len);
  else if (!strcmp(key, "com.docker.compose.service"))
    take(f, f->service, v, len);
}

/* An OCI bundle's config.json: "annotations". */
static bool bundle_string(void *ctx, const char *const *path, int depth,
                          const char *v, size_t len) {
  if (depth == 2 && !strcmp(path[0], "annotations"))
    kube_key(ctx, path[1], v, len);
  return true;
}

/* Docker's config.v2.json: "Name", "Config": {"Labels": {...}}; where
 * its files are: "LogPath", "Driver". */
static bool docker_string(void *ctx, const char *const *path, int depth,
                          const char *v, size_t len) {
  found *f = ctx;
  if (depth == 1 && !strcmp(path[0], "Name"))
    take(f, f->name, v + (len && v[0] == '/'), len - (len && v[0] == '/'));
  else if (depth == 1 && !strcmp(path[0], "LogPath"))
    take_path(f->log_path, v, len);
  else if (depth == 1 && !strcmp(path[0], "Driver"))
    take(f, f->driver, v, len);
  else if (depth == 3 && !strcmp(path[0], "Config") &&
           !strcmp(path[1], "Labels"))
    kube_key(f, path[2], v, len);
  return true;
}

/* containers/storage's containers.json: [{"id": …, "names": […]}, …];
 * the parse stops at the end of the entry wanted. */
static bool podman_string(void *ctx, const char *const *path, int depth,
                          const char *v, size_t len) {
  found *f = ctx;
  if (depth < 2 || strcmp(path[0], "[]"))
    return true;
  if (depth == 2 && !strcmp(path[1], "id"))
    f->in_entry = len == ID_LEN && !memcmp(v, f->id, ID_LEN);
  else if (depth == 2 && !strcmp(path[1], "layer"))
    take(f, f->layer, v, len);
  else if (depth == 3 && !strcmp(path[1], "names") && !strcmp(path[2], "[]") &&
           !f->name[0])
    take(f, f->name, v, len); /* the first name is the one podman ps shows */
  return true;
}

static bool podman_end_map(void *ctx, int depth) {
  found *f = ctx;
  if (depth != 1)
    return true;
  if (f->in_entry) {
    f->done = true;
    return false;
  }
  f->name[0] = f->layer[0] = '\0'; /* another container's */
  f->too_long = false;
  return true;
}

static const jc_rtread_json bundle_json = {bundle_string, NULL};
static const jc_rtread_json docker_json = {docker_string, NULL};
static const jc_rtread_json podman_json = {podman_string, podman_end_map};

/* ---- the name and the one message ---------------------------------------- */

/* The file, as an operator finds it: RuntimeRoot joined with rel. */
static const char *shown(const jc_runtime *rt, const char *rel, char *buf,
                         size_t size) {
  return jc_runtime_shown(rt, rel, buf, size);
}

/* The one message of a refused file: the file, why, and the cgroup (its
 * path shown as jc_utf8_escape shows it: the line is UTF-8). */
static int report(const jc_runtime *rt, const char *rel, const char *relpath,
                  const char *why, int r) {
  char file[PATH_MAX + 64], cgroup[4 * PATH_MAX];
  jc_utf8_escape(relpath, cgroup, sizeof(cgroup));
  jc_logf(rt->log, JC_LOG_WARNING, "%s: %s %s; cgroup \"%s\" %s", rt->who,
          shown(rt, rel, file, sizeof(file)), why, cgroup, rt->outcome);
  return r;
}

/* Part p of a name, written as names joins them: with LEVELS a '.' is
 * written '_', the parts being joined by '.'. */
static const char *part(jc_container_names names, const char *p, char *buf,
                        size_t size) {
  if (names != JC_NAMES_LEVELS)
    return p;
  snprintf(buf, size, "%s", p);
  for (char *q = buf; *q; q++)
    *q = *q == '.' ? '_' : *q;
  return buf;
}

/* What f says the container is called, into want, its parts joined as
 * names says (ContainerNames): 0, or -ENODATA. */
static int compose(const found *f, jc_container_names names, char *want,
                   size_t size) {
  static const char *const k8s[] = {"", "k8s_", "k8s."};
  static const char *const compose_[] = {"", "compose_", "compose."};
  const char *sep = names == JC_NAMES_LEVELS ? "." : "_";
  char a[FIELD_SIZE], b[FIELD_SIZE], c[FIELD_SIZE];
  if (f->ns[0] && f->pod[0] && (f->sandbox || f->ctr[0] || f->pod_only)) {
    snprintf(want, size, "%s%s%s%s", k8s[names], part(names, f->ns, a, sizeof(a)),
             sep, part(names, f->pod, b, sizeof(b)));
    if (!f->pod_only)
      snprintf(want + strlen(want), size - strlen(want), "%s%s", sep,
               f->sandbox ? "POD" : part(names, f->ctr, c, sizeof(c)));
  } else if (f->project[0] && f->service[0]) {
    snprintf(want, size, "%s%s%s%s", compose_[names],
             part(names, f->project, a, sizeof(a)), sep,
             part(names, f->service, b, sizeof(b)));
  } else if (f->name[0]) {
    snprintf(want, size, "%s", part(names, f->name, a, sizeof(a)));
  } else {
    return -ENODATA;
  }
  return 0;
}

/* The instance from what the file f->file said, or its one message. */
static int name_from(const jc_runtime *rt, const found *f, const char *relpath,
                     char ret_name[JC_INSTANCE_SIZE]) {
  char want[4 * FIELD_SIZE], why[JC_LOG_LINE_MAX + 200];
  const char *rel = f->file;
  if (compose(f, rt->names, want, sizeof(want)) < 0)
    return report(rt, rel, relpath, "names no container", -ENODATA);
  if (f->too_long)
    return report(rt, rel, relpath,
                  "holds a name or label longer than 255 bytes", -ENAMETOOLONG);
  if (jc_name_label(want, relpath, ret_name) == 0)
    return 0;
  /* Its bytes a terminal would act on, and those that are not UTF-8, as
   * \xNN: the line itself is UTF-8. */
  char shown_name[JC_LOG_LINE_MAX];
  jc_utf8_escape(want, shown_name, sizeof(shown_name));
  snprintf(why, sizeof(why),
           "names the container \"%s\": a control character, space, quote, "
           "backslash or byte that is not UTF-8, which collectd's writers "
           "cannot carry",
           shown_name);
  return report(rt, rel, relpath, why, -EILSEQ);
}

/* rel did not open (r, why): -ENOENT when it is not there yet, -EAGAIN
 * when the process had no descriptor to spare, else its one message.  A level of it that is a link leading out of RuntimeRoot
 * is named itself, and said once: such a file is never read, however
 * often the lookup were tried. */
static int refused(const jc_runtime *rt, const char *rel, const char *relpath,
                   const char *why, int r) {
  size_t len;
  if (r == -EMFILE || r == -ENFILE)
    return -EAGAIN; /* no descriptor to spare now: the file, later */
  if ((r == -ENOENT || r == -ELOOP) &&
      jc_rtread_find_link(rt->rootfd, rel, &len) == 0) {
    char level[PATH_MAX];
    snprintf(level, sizeof(level), "%.*s", (int)len, rel);
    return report(rt, level, relpath, JC_RTREAD_LINK, -ELOOP);
  }
  return r == -ENOENT ? r : report(rt, rel, relpath, why, r);
}

/* Parses rel with h into f: 0 (f->file is rel), -ENOENT, or refused
 * (said once). */
static int parse(const jc_runtime *rt, const char *rel, const jc_rtread_json *h,
                 found *f, const char *relpath) {
  char why[512];
  int r = jc_rtread_json_file(rt->rootfd, rel, JC_RUNTIME_FILE_MAX, h, f, why,
                              sizeof(why));
  if (r == 0)
    snprintf(f->file, sizeof(f->file), "%s", rel);
  return r == 0 ? 0 : refused(rt, rel, relpath, why, r);
}

/* A containerd bundle without Kubernetes annotations is a task of another
 * client (Docker's moby namespace holds the same ids): not the one. */
static int lookup_bundle(const jc_runtime *rt, const char *rel,
                         const char *relpath, found *f) {
  int r = parse(rt, rel, &bundle_json, f, relpath);
  if (r < 0)
    return r;
  if (!f->ns[0] && !f->pod[0])
    return -ENOENT;
  return 0;
}

/* ---- the layouts ---------------------------------------------------------- */

static bool is_id(const char *s, size_t len) {
  if (len != ID_LEN)
    return false;
  for (size_t i = 0; i < len; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return false;
  return true;
}

/* name is prefix<id>suffix: the id into id. */
static bool id_in(const char *name, const char *prefix, const char *suffix,
                  char id[ID_LEN + 1]) {
  size_t p = strlen(prefix), s = strlen(suffix), n = strlen(name);
  if (n != p + ID_LEN + s || strncmp(name, prefix, p) ||
      strcmp(name + n - s, suffix) || !is_id(name + p, ID_LEN))
    return false;
  memcpy(id, name + p, ID_LEN);
  id[ID_LEN] = '\0';
  return true;
}

/* Calls fn for each entry of directory rel until it returns non-zero. */
static int each_entry(const jc_runtime *rt, const char *rel, const char *relpath,
                      int (*fn)(void *ctx, const char *name), void *ctx) {
  char why[256];
  int fd = jc_rtread_open_dir(rt->rootfd, rel, why, sizeof(why));
  if (fd < 0)
    return refused(rt, rel, relpath, why, fd);
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return -ENOMEM;
  }
  int r = -ENOENT;
  struct dirent *de;
  while (r == -ENOENT && (de = readdir(d)))
    if (de->d_name[0] != '.')
      r = fn(ctx, de->d_name);
  closedir(d);
  return r;
}

typedef struct {
  const jc_runtime *rt;
  const char *id, *relpath;
  found *f;
} task_search;

static int try_namespace(void *ctx, const char *ns) {
  task_search *s = ctx;
  char rel[PATH_MAX];
  snprintf(rel, sizeof(rel), "%s/io.containerd.runtime.v2.task/%s/%s/config.json",
           s->rt->dir[JC_RUNTIME_CONTAINERD], ns, s->id);
  return lookup_bundle(s->rt, rel, s->relpath, s->f);
}

/* containerd: the bundle of id in whichever namespace holds it (k8s.io
 * for Kubernetes, moby for Docker's, default for ctr's). */
static int containerd(const jc_runtime *rt, const char *id, const char *relpath,
                      found *f) {
  char rel[PATH_MAX];
  snprintf(rel, sizeof(rel), "%s/io.containerd.runtime.v2.task",
           rt->dir[JC_RUNTIME_CONTAINERD]);
  task_search s = {rt, id, relpath, f};
  return each_entry(rt, rel, relpath, try_namespace, &s);
}

static int crio(const jc_runtime *rt, const char *id, const char *relpath,
                found *f) {
  char rel[PATH_MAX];
  snprintf(rel, sizeof(rel), "%s/overlay-containers/%s/userdata/config.json",
           rt->dir[JC_RUNTIME_CRIO], id);
  return lookup_bundle(rt, rel, relpath, f);
}

static int docker(const jc_runtime *rt, const char *id, const char *relpath,
                  found *f) {
  char rel[PATH_MAX];
  snprintf(rel, sizeof(rel), "%s/containers/%s/config.v2.json",
           rt->dir[JC_RUNTIME_DOCKER], id);
  return parse(rt, rel, &docker_json, f, relpath);
}

/* containers/storage lists a container in one of two files beside each
 * other: volatile ones (Podman's --rm) in the second, the others in the
 * first; a container moved from one to the other is in either (or, while
 * it moves, in both or for a moment in neither), with the same name. */
static const char *const storage_lists[] = {"containers.json",
                                            "volatile-containers.json"};

static int podman_in(const jc_runtime *rt, const char *storage, const char *id,
                     const char *relpath, found *f) {
  snprintf(f->storage, sizeof(f->storage), "%s", storage);
  for (size_t i = 0; i < sizeof(storage_lists) / sizeof(*storage_lists); i++) {
    char rel[PATH_MAX];
    snprintf(rel, sizeof(rel), "%s/overlay-containers/%s", storage,
             storage_lists[i]);
    f->id = id;
    f->done = false;
    int r = parse(rt, rel, &podman_json, f, relpath);
    if (r < 0 && r != -ENOENT)
      return r;
    if (r == 0 && f->done)
      return 0;
  }
  return -EAGAIN; /* not listed yet */
}

/* The home of uid in passwd's text (changed in place), relative: 0,
 * -ENOENT when no line is uid's, -EBADMSG when uid's line is malformed
 * (no sixth field, or a home that is not an absolute path). */
static int find_home(char *text, const char *uid, char *home, size_t size) {
  for (char *line = text, *next; *line; line = next) {
    next = line + strcspn(line, "\n");
    if (*next)
      *next++ = '\0';
    char *field[7] = {0};
    int nf = 0;
    for (char *p = line; nf < 7; nf++) {
      field[nf] = p;
      p += strcspn(p, ":");
      if (!*p) {
        nf++;
        break;
      }
      *p++ = '\0';
    }
    if (nf < 3 || strcmp(field[2], uid))
      continue;
    if (nf < 6 || field[5][0] != '/')
      return -EBADMSG;
    snprintf(home, size, "%s", field[5] + strspn(field[5], "/"));
    return 0;
  }
  return -ENOENT;
}

/* The home directory of uid in RuntimeRoot's etc/passwd, relative. */
static int home_of(const jc_runtime *rt, const char *uid, char *home,
                   size_t size, const char *relpath) {
  char why[256];
  char *text = malloc(PASSWD_MAX + 1);
  if (!text)
    return -ENOMEM;
  bool cut = false;
  long len = jc_rtread_text(rt->rootfd, "etc/passwd", text, PASSWD_MAX + 1,
                            &cut, why, sizeof(why));
  int r = len < 0 ? refused(rt, "etc/passwd", relpath, why, (int)len)
                  : find_home(text, uid, home, size);
  free(text);
  if (r == 0 || (len < 0 && r != -ENOENT))
    return r;
  if (r == -ENOENT && !cut)
    return -EAGAIN; /* no passwd, or a user not written yet */
  if (r == -ENOENT) {
    snprintf(why, sizeof(why),
             "is longer than %d KiB, and its first %d KiB do not list uid %s "
             "(not read further)",
             PASSWD_MAX / 1024, PASSWD_MAX / 1024, uid);
    r = -EFBIG;
  } else if (r == -EBADMSG) {
    snprintf(why, sizeof(why),
             "has a malformed line for uid %s (fields separated by ':', "
             "the sixth an absolute home directory)",
             uid);
  }
  return report(rt, "etc/passwd", relpath, why, r);
}

/* Rootless Podman: the uid of user@<uid>.service in the path. */
static int podman(const jc_runtime *rt, const char *id, const char *relpath,
                  found *f) {
  const char *at = strstr(relpath, "user@");
  if (!at)
    return podman_in(rt, rt->dir[JC_RUNTIME_PODMAN], id, relpath, f);
  char uid[16], home[PATH_MAX], storage[PATH_MAX];
  size_t n = strspn(at + 5, "0123456789");
  if (n == 0 || n >= sizeof(uid) || strncmp(at + 5 + n, ".service/", 9))
    return -ENOENT;
  memcpy(uid, at + 5, n);
  uid[n] = '\0';
  int r = home_of(rt, uid, home, sizeof(home), relpath);
  if (r < 0)
    return r;
  snprintf(storage, sizeof(storage), "%s/.local/share/containers/storage", home);
  return podman_in(rt, storage, id, relpath, f);
}

/* ---- the kubelet ---------------------------------------------------------- */

/* A pod uid as the kubelet writes it: a UUID (36 bytes), or a static
 * pod's, the 32 hex digits of its manifest's hash. */
static bool is_pod_uid(const char *uid, size_t n) {
  if (n == 32)
    return strspn(uid, "0123456789abcdef") == n;
  return n == 36 && strspn(uid, "0123456789abcdef-") == n;
}

/* The pod uid of a pod's cgroup name, with dashes: kubepods-<qos>-pod<uid>
 * .slice (systemd writes '-' in a unit name as '_'), or pod<uid>. */
static bool pod_uid(const char *level, size_t len, char uid[40]) {
  const char *p = NULL;
  size_t n = 0;
  if (len > 6 && !strncmp(level + len - 6, ".slice", 6) &&
      !strncmp(level, "kubepods-", 9)) {
    for (const char *q = level; q + 3 < level + len; q++)
      if (!strncmp(q, "-pod", 4))
        p = q + 4;
    n = p ? (size_t)(level + len - 6 - p) : 0;
  } else if (len > 3 && !strncmp(level, "pod", 3)) {
    p = level + 3;
    n = len - 3;
  }
  if (!p || (n != 32 && n != 36))
    return false;
  for (size_t i = 0; i < n; i++)
    uid[i] = p[i] == '_' ? '-' : p[i];
  uid[n] = '\0';
  return is_pod_uid(uid, n);
}

typedef struct {
  const char *tail; /* "_<uid>", or "-<id>.log" */
  found *f;       /* its namespace, pod and container */
  bool container; /* /var/log/containers' <pod>_<ns>_<ctr>-<id>.log */
} kubelet_search;

/* <ns>_<pod>_<uid> (pods) or <pod>_<ns>_<ctr>-<id>.log (containers):
 * Kubernetes names have no '_', so the levels split there. */
static int kubelet_entry(void *ctx, const char *name) {
  kubelet_search *s = ctx;
  size_t n = strlen(name), t = strlen(s->tail);
  if (n <= t || n - t >= FIELD_SIZE || strcmp(name + n - t, s->tail))
    return -ENOENT;
  char prefix[FIELD_SIZE];
  memcpy(prefix, name, n - t);
  prefix[n - t] = '\0';
  char *b = strchr(prefix, '_'), *c = b ? strchr(b + 1, '_') : NULL;
  if (!b || (s->container ? !c || strchr(c + 1, '_') : c != NULL))
    return -ENOENT;
  *b = '\0';
  found *f = s->f;
  if (s->container) {
    *c = '\0';
    snprintf(f->ns, sizeof(f->ns), "%s", b + 1);
    snprintf(f->pod, sizeof(f->pod), "%s", prefix);
    snprintf(f->ctr, sizeof(f->ctr), "%s", c + 1);
  } else {
    snprintf(f->ns, sizeof(f->ns), "%s", prefix);
    snprintf(f->pod, sizeof(f->pod), "%s", b + 1);
    f->pod_only = true;
  }
  return 0;
}

static int kubelet(const jc_runtime *rt, const char *sub, kubelet_search *s,
                   const char *relpath) {
  char rel[PATH_MAX];
  snprintf(rel, sizeof(rel), "%s/%s", rt->dir[JC_RUNTIME_KUBELET], sub);
  int r = each_entry(rt, rel, relpath, kubelet_entry, s);
  if (r == 0)
    snprintf(s->f->file, sizeof(s->f->file), "%s", rel);
  return r;
}

static int kubelet_pod(const jc_runtime *rt, const char *uid,
                       const char *relpath, found *f) {
  char tail[48];
  snprintf(tail, sizeof(tail), "_%s", uid);
  kubelet_search s = {.tail = tail, .f = f};
  int r = kubelet(rt, "pods", &s, relpath);
  return r == -ENOENT ? -EAGAIN : r;
}

static int kubelet_container(const jc_runtime *rt, const char *id,
                             const char *relpath, found *f) {
  char tail[ID_LEN + 8];
  snprintf(tail, sizeof(tail), "-%s.log", id);
  kubelet_search s = {.tail = tail, .f = f, .container = true};
  return kubelet(rt, "containers", &s, relpath);
}

/* ---- which runtime -------------------------------------------------------- */

typedef int (*runtime_fn)(const jc_runtime *, const char *, const char *,
                          found *);

/* The parent level of the last one, and its length. */
static const char *parent_level(const char *relpath, const char *last,
                                size_t *ret_len) {
  if (last == relpath)
    return *ret_len = 0, "";
  const char *end = last - 1, *p = end;
  while (p > relpath && p[-1] != '/')
    p--;
  *ret_len = (size_t)(end - p);
  return p;
}

/* Which runtime a cgroup's path says made it, and what to look for. */
typedef struct {
  runtime_fn first, second; /* NULL first: a pod's cgroup (the kubelet) */
  bool in_pod;
  char id[ID_LEN + 1], uid[40];
} which;

/* false: not a container's or pod's cgroup. */
static bool classify(const char *relpath, which *w) {
  const char *slash = strrchr(relpath, '/');
  const char *last = slash ? slash + 1 : relpath;
  size_t plen;
  const char *parent = parent_level(relpath, last, &plen);
  char *id = w->id;
  *w = (which){.in_pod = pod_uid(parent, plen, w->uid)};
  if (id_in(last, "cri-containerd-", ".scope", id))
    w->first = containerd;
  else if (id_in(last, "crio-", ".scope", id) || id_in(last, "crio-", "", id))
    w->first = crio;
  else if (id_in(last, "docker-", ".scope", id) ||
           (id_in(last, "", "", id) && plen == 6 && !strncmp(parent, "docker", 6)))
    w->first = docker;
  else if (id_in(last, "libpod-", ".scope", id) || id_in(last, "libpod-", "", id))
    w->first = podman;
  else if (w->in_pod && id_in(last, "", "", id))
    w->first = containerd, w->second = docker;
  else
    return pod_uid(last, strlen(last), w->uid);
  return true;
}

static jc_runtime_dir dir_of(runtime_fn fn) {
  return fn == containerd ? JC_RUNTIME_CONTAINERD
         : fn == crio     ? JC_RUNTIME_CRIO
         : fn == docker   ? JC_RUNTIME_DOCKER
         : fn == podman   ? JC_RUNTIME_PODMAN
                          : JC_RUNTIME_KUBELET;
}

/* What the runtime's files say of the container (or pod) w: 0 with f
 * filled, -EAGAIN while they are not written, another negative errno
 * after the one message of a refused file. */
static int identify(const jc_runtime *rt, const which *w, const char *relpath,
                    found *f) {
  if (!w->first)
    return kubelet_pod(rt, w->uid, relpath, f);
  f->runtime = dir_of(w->first);
  int r = w->first(rt, w->id, relpath, f);
  if (r == -ENOENT && w->second) {
    found g = {.runtime = dir_of(w->second)};
    r = w->second(rt, w->id, relpath, &g);
    if (r != -ENOENT)
      *f = g;
  }
  if (r == -ENOENT && w->in_pod)
    r = kubelet_container(rt, w->id, relpath, f); /* the runtime as named */
  return r == -ENOENT ? -EAGAIN : r;
}

int jc_runtime_name(jc_runtime *rt, const char *relpath,
                    char ret_name[JC_INSTANCE_SIZE]) {
  which w;
  if (!classify(relpath, &w))
    return -ENOENT;
  found *f = calloc(1, sizeof(*f));
  if (!f)
    return -ENOMEM;
  int r = identify(rt, &w, relpath, f);
  if (r == 0)
    r = name_from(rt, f, relpath, ret_name);
  free(f);
  return r;
}

int jc_runtime_container(jc_runtime *rt, const char *relpath,
                         jc_container *ret) {
  which w;
  if (!classify(relpath, &w))
    return -ENOENT;
  *ret = (jc_container){.runtime = dir_of(w.first)};
  snprintf(ret->id, sizeof(ret->id), "%s", w.first ? w.id : "");
  if (w.in_pod || !w.first)
    snprintf(ret->pod_uid, sizeof(ret->pod_uid), "%s", w.uid);
  if (!w.first)
    return 0; /* a pod: its uid is all there is to know */
  found *f = calloc(1, sizeof(*f));
  if (!f)
    return -ENOMEM;
  int r = identify(rt, &w, relpath, f);
  if (r == 0) {
    ret->runtime = f->runtime;
    ret->sandbox = f->sandbox;
    if (!ret->pod_uid[0] && is_pod_uid(f->uid, strlen(f->uid)))
      snprintf(ret->pod_uid, sizeof(ret->pod_uid), "%s", f->uid);
    snprintf(ret->ns, sizeof(ret->ns), "%s", f->ns);
    snprintf(ret->pod, sizeof(ret->pod), "%s", f->pod);
    snprintf(ret->ctr, sizeof(ret->ctr), "%s", f->ctr);
    snprintf(ret->log_path, sizeof(ret->log_path), "%s", f->log_path);
    snprintf(ret->rootfs, sizeof(ret->rootfs), "%s", f->rootfs);
    snprintf(ret->layer, sizeof(ret->layer), "%s", f->layer);
    snprintf(ret->driver, sizeof(ret->driver), "%s", f->driver);
    snprintf(ret->storage, sizeof(ret->storage), "%s", f->storage);
    snprintf(ret->file, sizeof(ret->file), "%s", f->file);
  }
  free(f);
  return r;
}

/* ---- what was looked for --------------------------------------------------- */

typedef struct {
  char *text;
  size_t size, len;
} text_buf;

static void put(text_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(text_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (b->len < b->size)
    b->len += (size_t)vsnprintf(b->text + b->len, b->size - b->len, fmt, ap);
  va_end(ap);
}

/* One runtime's file for w, as an operator finds it. */
static void put_file(text_buf *b, const jc_runtime *rt, runtime_fn fn,
                     const which *w, const char *relpath) {
  char root[PATH_MAX + 1];
  shown(rt, "", root, sizeof(root));
  if (fn == containerd)
    put(b, "containerd's %s%s/io.containerd.runtime.v2.task/*/%s/config.json",
        root, rt->dir[JC_RUNTIME_CONTAINERD], w->id);
  else if (fn == crio)
    put(b, "CRI-O's %s%s/overlay-containers/%s/userdata/config.json", root,
        rt->dir[JC_RUNTIME_CRIO], w->id);
  else if (fn == docker)
    put(b, "Docker's %s%s/containers/%s/config.v2.json", root,
        rt->dir[JC_RUNTIME_DOCKER], w->id);
  else if (strstr(relpath, "user@"))
    put(b, "rootless Podman's ~/.local/share/containers/storage/"
           "overlay-containers/containers.json of the user of its slice (the "
           "home from %setc/passwd)",
        root);
  else
    put(b, "Podman's %s%s/overlay-containers/containers.json and "
           "volatile-containers.json",
        root, rt->dir[JC_RUNTIME_PODMAN]);
}

bool jc_runtime_dir_present(const jc_runtime *rt, jc_runtime_dir k) {
  struct stat st;
  return fstatat(rt->rootfd, rt->dir[k][0] ? rt->dir[k] : ".", &st, 0) == 0 &&
         S_ISDIR(st.st_mode);
}

int jc_runtime_missing(const jc_runtime *rt, const char *relpath, char *text,
                       size_t size) {
  which w;
  if (!classify(relpath, &w))
    return -ENOENT;
  text_buf b = {text, size, 0};
  char root[PATH_MAX + 1];
  shown(rt, "", root, sizeof(root));
  jc_runtime_dir k = dir_of(w.first);
  if (!w.first)
    put(&b, "the kubelet's %s%s/pods/*_*_%s", root, rt->dir[JC_RUNTIME_KUBELET],
        w.uid);
  else
    put_file(&b, rt, w.first, &w, relpath);
  if (w.second) {
    put(&b, ", ");
    put_file(&b, rt, w.second, &w, relpath);
  }
  if (w.in_pod && w.first)
    put(&b, ", the kubelet's %s%s/containers/*-%s.log", root,
        rt->dir[JC_RUNTIME_KUBELET], w.id);
  bool rootless = w.first == podman && strstr(relpath, "user@");
  if (rootless)
    put(&b, "; a collectd in a container mounts the host's /etc/passwd and "
            "the user's home read-only below RuntimeRoot");
  else if (!jc_runtime_dir_present(rt, k))
    put(&b, "; %s%s is not there: a collectd in a container mounts the "
            "host's /%s read-only at that path (RuntimeRoot \"%s\" is where "
            "the host's / is seen; RuntimeDir %s where the runtime keeps it "
            "instead)",
        root, rt->dir[k], rt->dir[k], rt->root, jc_runtime_dir_kinds[k]);
  else
    put(&b, "; %s%s is there, without this container's file: its runtime "
            "has not written it, or the directory is a copy or another "
            "host's (mount the host's /%s itself, read-only)",
        root, rt->dir[k], rt->dir[k]);
  return (int)k;
}
