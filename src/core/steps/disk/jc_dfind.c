/*
 * jc_dfind — see jc_dfind.h; the layouts are docs/containers.md's.
 */
#include "jc_dfind.h"

#include "jc_hier.h"
#include "jc_parse.h"
#include "jc_rtread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WHY(...) (snprintf(why, n, __VA_ARGS__))
#define MOUNTINFO_MAX (4u << 20) /* a host's of ~30,000 mounts */

/* A path the runtime wrote (the host's, absolute), below RuntimeRoot. */
static const char *below(const char *abs) { return abs + strspn(abs, "/"); }

static const char *shown(const jc_runtime *rt, const char *rel, char *buf,
                         size_t size) {
  return jc_runtime_shown(rt, rel, buf, size);
}

/* Is rel there below RuntimeRoot, a directory (dir) or a regular file? */
static bool there(const jc_runtime *rt, const char *rel, bool dir) {
  char why[256];
  const char *slash = strrchr(rel, '/');
  char parent[PATH_MAX];
  if (dir) {
    int fd = jc_rtread_open_dir(jc_runtime_rootfd(rt), rel, why, sizeof(why));
    if (fd >= 0)
      close(fd);
    return fd >= 0;
  }
  if (!slash || (size_t)(slash - rel) >= sizeof(parent))
    return false;
  snprintf(parent, sizeof(parent), "%.*s", (int)(slash - rel), rel);
  int fd = jc_rtread_open_dir(jc_runtime_rootfd(rt), parent, why, sizeof(why));
  if (fd < 0)
    return false;
  struct stat st;
  bool ok = fstatat(fd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode);
  close(fd);
  return ok;
}

/* ---- the writable layer ---------------------------------------------------- */

static bool all_hex(const char *s, size_t len) {
  return len > 0 && strspn(s, "0123456789abcdef") == len;
}

/*
 * Docker's overlay2: its layer store names the container's read-write
 * layer (mount-id: the directory in overlay2/).  -ENOENT when it holds
 * none (another driver, or the containerd image store of Docker 24 and
 * later, whose snapshots are containerd's): the mount table tells.
 */
static int docker_layer(const jc_runtime *rt, const jc_container *c,
                        jc_dplace *ret, char *why, size_t n) {
  const char *home = jc_runtime_dir_path(rt, JC_RUNTIME_DOCKER);
  char rel[PATH_MAX], text[128], shown_rel[PATH_MAX + 64];
  if (c->driver[0] && strcmp(c->driver, "overlay2") != 0)
    return -ENOENT;
  snprintf(rel, sizeof(rel), "%s/image/overlay2/layerdb/mounts/%s/mount-id",
           home, c->id);
  bool cut = false;
  char rwhy[256];
  long len = jc_rtread_text(jc_runtime_rootfd(rt), rel, text, sizeof(text),
                            &cut, rwhy, sizeof(rwhy));
  if (len == -ENOENT)
    return c->file[0] ? -ENOENT : -EAGAIN;
  if (len < 0) {
    WHY("%s %s", shown(rt, rel, shown_rel, sizeof(shown_rel)), rwhy);
    return (int)len;
  }
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
    text[--len] = '\0';
  if (cut || !all_hex(text, (size_t)len)) {
    WHY("%s holds no layer id (hex digits)",
        shown(rt, rel, shown_rel, sizeof(shown_rel)));
    return -EBADMSG;
  }
  snprintf(ret->layer, sizeof(ret->layer), "%s/overlay2/%s/diff", home, text);
  return 0;
}

/* containers/storage (Podman): the layer its containers.json names. */
static int storage_layer(const jc_container *c, jc_dplace *ret) {
  if (!all_hex(c->layer, strlen(c->layer)))
    return -ENOENT;
  int len = snprintf(ret->layer, sizeof(ret->layer), "%s/overlay/%s/diff",
                     c->storage, c->layer);
  return len > 0 && (size_t)len < sizeof(ret->layer) ? 0 : -ENAMETOOLONG;
}

/* CRI-O: its MountPoint annotation is the overlay's merged directory,
 * the upper one beside it. */
static int crio_layer(const jc_container *c, jc_dplace *ret) {
  const char *rootfs = below(c->rootfs);
  size_t len = strlen(rootfs);
  if (c->rootfs[0] != '/' || len < 8 || strcmp(rootfs + len - 7, "/merged"))
    return -ENOENT;
  snprintf(ret->layer, sizeof(ret->layer), "%.*s/diff", (int)(len - 7),
           rootfs);
  return 0;
}

/* pid's mount namespace (its inode's link text), or "" */
static void mnt_ns(const char *proc, pid_t pid, char *out, size_t size) {
  char path[PATH_MAX + 32];
  snprintf(path, sizeof(path), "%s/%d/ns/mnt", proc, (int)pid);
  ssize_t len = readlink(path, out, size - 1);
  out[len > 0 ? len : 0] = '\0';
}

/* The upper directory of the overlay mounted at "/" in pid's mount
 * table: 1 found, 0 none, or a negative errno of the file. */
static int mountinfo_upper(const char *path, char *upper, size_t size) {
  char *buf = NULL;
  ssize_t len = jc_hier_read_file_grown(AT_FDCWD, path, MOUNTINFO_MAX, &buf);
  int found = 0;
  for (ssize_t at = 0; len > 0 && at < len;) {
    const char *line = buf + at, *nl = memchr(line, '\n', (size_t)(len - at));
    size_t l = nl ? (size_t)(nl - line) : (size_t)(len - at);
    if (jc_parse_mountinfo_upper(line, l, upper, size) == 1)
      found = 1; /* the last one at "/" is the one on top */
    at += (ssize_t)l + 1;
  }
  free(buf);
  return len < 0 ? (int)len : found;
}

/* The layer from the mount table of one of the container's processes. */
static int mount_layer(const jc_runtime *rt, const char *proc, pid_t pid,
                       jc_dplace *ret, char *why, size_t n) {
  (void)rt;
  if (pid <= 0) {
    WHY("no process in the container yet (its mount table names the "
        "layer)");
    return -EAGAIN;
  }
  char ns[64], host_ns[64], path[PATH_MAX + 32], upper[PATH_MAX];
  mnt_ns(proc, pid, ns, sizeof(ns));
  mnt_ns(proc, 1, host_ns, sizeof(host_ns));
  snprintf(path, sizeof(path), "%s/%d/mountinfo", proc, (int)pid);
  if (ns[0] && !strcmp(ns, host_ns)) {
    WHY("%s: process %d is not in the container's mount namespace yet",
        path, (int)pid);
    return -EAGAIN; /* a runtime's init before it pivots */
  }
  int r = mountinfo_upper(path, upper, sizeof(upper));
  if (r == -ENOENT || r == -ESRCH) {
    WHY("%s: process %d is gone", path, (int)pid);
    return -EAGAIN;
  }
  if (r < 0) {
    WHY("%s cannot be read (%s): collectd needs root or CAP_SYS_PTRACE, "
        "and the host's /proc (ProcRoot)",
        path, strerror(-r));
    return r;
  }
  if (r == 0) {
    WHY("%s has no overlay at \"/\": the container's root file system is "
        "not an overlay, whose upper directory is its writable layer",
        path);
    return -ENOTSUP;
  }
  if (upper[0] != '/') {
    WHY("%s gives the overlay at \"/\" a relative upperdir (%s), of a "
        "directory the mounter was in",
        path, upper);
    return -ENOTSUP;
  }
  snprintf(ret->layer, sizeof(ret->layer), "%s", below(upper));
  return 0;
}

static int find_layer(const jc_runtime *rt, const jc_container *c,
                      const char *proc, pid_t pid, jc_dplace *ret, char *why,
                      size_t n) {
  int r = -ENOENT;
  switch (c->runtime) {
  case JC_RUNTIME_DOCKER: r = docker_layer(rt, c, ret, why, n); break;
  case JC_RUNTIME_PODMAN: r = storage_layer(c, ret); break;
  case JC_RUNTIME_CRIO: r = crio_layer(c, ret); break;
  default: break;
  }
  return r == -ENOENT ? mount_layer(rt, proc, pid, ret, why, n) : r;
}

/* ---- its logs ------------------------------------------------------------- */

/* A log file's path (relative, or the runtime's absolute one): its
 * directory, and its name as the prefix (prefix false: every file of the
 * directory).  false for a path of no directory and name. */
static bool logs_at(jc_dplace *ret, const char *path, bool prefix) {
  const char *rel = below(path), *slash = strrchr(rel, '/');
  if (!slash || slash == rel || !slash[1])
    return false;
  snprintf(ret->logs, sizeof(ret->logs), "%.*s", (int)(slash - rel), rel);
  snprintf(ret->log_prefix, sizeof(ret->log_prefix), "%s",
           prefix ? slash + 1 : "");
  return true;
}

static bool kubernetes_logs(const jc_runtime *rt, const jc_container *c,
                            jc_dplace *ret) {
  if (!c->ns[0] || !c->pod[0] || !c->ctr[0] || !c->pod_uid[0])
    return false;
  int len = snprintf(ret->logs, sizeof(ret->logs), "%s/pods/%s_%s_%s/%s",
                     jc_runtime_dir_path(rt, JC_RUNTIME_KUBELET), c->ns,
                     c->pod, c->pod_uid, c->ctr);
  ret->log_prefix[0] = '\0';
  return len > 0 && (size_t)len < sizeof(ret->logs);
}

static void find_logs(const jc_runtime *rt, const jc_container *c,
                      jc_dplace *ret) {
  char rel[PATH_MAX], shown_rel[PATH_MAX + 64];
  const char *file = shown(rt, c->file, shown_rel, sizeof(shown_rel));
  ret->why_logs[0] = '\0';
  if (c->sandbox)
    return; /* a pod's pause container writes none */
  if (c->runtime == JC_RUNTIME_DOCKER) {
    if (c->log_path[0] == '/' && logs_at(ret, c->log_path, true))
      return;
    snprintf(rel, sizeof(rel), "%s/containers/%s/local-logs",
             jc_runtime_dir_path(rt, JC_RUNTIME_DOCKER), c->id);
    if (there(rt, rel, true)) {
      snprintf(ret->logs, sizeof(ret->logs), "%s", rel);
      snprintf(ret->log_prefix, sizeof(ret->log_prefix), "container.log");
      return;
    }
    char shown_dir[PATH_MAX + 64];
    snprintf(ret->why_logs, sizeof(ret->why_logs),
             "%s has no LogPath and there is no %s: its log driver writes "
             "no file of its own (journald, syslog, none...)",
             file, shown(rt, rel, shown_dir, sizeof(shown_dir)));
    return;
  }
  if (c->runtime == JC_RUNTIME_PODMAN) {
    snprintf(rel, sizeof(rel), "%s/overlay-containers/%s/userdata/ctr.log",
             c->storage, c->id);
    if (there(rt, rel, false) && logs_at(ret, rel, true))
      return;
    snprintf(ret->why_logs, sizeof(ret->why_logs),
             "there is no %s: its log driver is not k8s-file (journald "
             "keeps its logs)",
             shown(rt, rel, shown_rel, sizeof(shown_rel)));
    return;
  }
  if (c->runtime == JC_RUNTIME_CRIO && c->log_path[0] == '/' &&
      logs_at(ret, c->log_path, false)) /* the kubelet's directory of it */
    return;
  if (kubernetes_logs(rt, c, ret))
    return;
  snprintf(ret->why_logs, sizeof(ret->why_logs),
           "%s names no Kubernetes pod and container: containerd keeps no "
           "log file of its own",
           c->file[0] ? file : "its runtime's file");
}

int jc_dfind(const jc_runtime *rt, const jc_container *ctr,
             const char *proc_root, pid_t pid, jc_dplace *ret, char *why,
             size_t n) {
  memset(ret, 0, sizeof(*ret));
  why[0] = '\0';
  if (!ctr->id[0]) { /* a pod: its directory is made when it starts */
    char pod[PATH_MAX], shown_pod[PATH_MAX + 64];
    if (!ctr->pod_uid[0])
      return -ENOENT;
    snprintf(pod, sizeof(pod), "%s/pods/%s",
             jc_runtime_dir_path(rt, JC_RUNTIME_KUBELET_ROOT), ctr->pod_uid);
    snprintf(ret->volumes, sizeof(ret->volumes),
             "%s/volumes/kubernetes.io~empty-dir", pod);
    if (there(rt, pod, true))
      return 0;
    WHY("there is no %s%s", shown(rt, pod, shown_pod, sizeof(shown_pod)),
        jc_runtime_dir_present(rt, JC_RUNTIME_KUBELET_ROOT)
            ? ""
            : ": the kubelet's root directory is not there; a collectd in a "
              "container mounts the host's /var/lib/kubelet read-only at "
              "that path (RuntimeDir kubelet-root where the kubelet keeps it "
              "instead)");
    return -EAGAIN;
  }
  find_logs(rt, ctr, ret);
  return find_layer(rt, ctr, proc_root, pid, ret, why, n);
}
