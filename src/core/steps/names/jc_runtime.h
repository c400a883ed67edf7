/*
 * jc_runtime — the name a container runtime gave the container (or pod)
 * a cgroup holds, for InstanceFrom "container" (docs/containers.md).
 *
 * Each runtime leaves the names on disk, readable without asking a
 * daemon: containerd's and CRI-O's OCI bundles (Kubernetes annotations),
 * the kubelet's /var/log/pods and /var/log/containers, Docker's
 * config.v2.json, Podman's containers.json and volatile-containers.json
 * (rootful, and rootless in every user's home found in RuntimeRoot's
 * etc/passwd).  The cgroup's path says which runtime made it and the id
 * to look for.
 *
 * Every file is read below RuntimeRoot only: opened with RESOLVE_IN_ROOT
 * (a directory's symbolic link is resolved as if RuntimeRoot were "/",
 * never out of it), or where openat2 is missing by a walk that follows no
 * symbolic link at all (a link not followed, a directory's too, is named
 * in the one WARNING); a file itself is never a link, must be a regular
 * file (a FIFO is not waited on), and only its first JC_RUNTIME_FILE_MAX
 * bytes are parsed, streamed with yajl.  What the runtime wrote is not
 * trusted: a name goes through jc_name_label().
 *
 *   rt = jc_runtime_new(root, dirs, &log);   NULL, errno set: root unusable
 *   r = jc_runtime_name(rt, relpath, name);  once per new cgroup, at walks
 *   jc_runtime_free(rt);                     NULL-safe
 *
 * Not thread-safe; one collector owns one.
 */
#ifndef JC_RUNTIME_H
#define JC_RUNTIME_H

#include "jc_config.h"
#include "jc_log.h"
#include "jc_name.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define JC_RUNTIME_FILE_MAX (1024 * 1024)

/* A lookup answered -EAGAIN is retried at this many later reads, then
 * once every JC_RUNTIME_RETRY_S seconds for as long as the cgroup is
 * there (jc_rtname): a name written later is taken. */
#define JC_RUNTIME_TRIES 10
#define JC_RUNTIME_RETRY_S 60

/* Where each runtime keeps its state (jc_runtime_dir, jc_config.h) when
 * RuntimeDir does not say. */
extern const char *const jc_runtime_dir_defaults[JC_RUNTIME_DIR_COUNT];

typedef struct jc_runtime jc_runtime;

/* root: RuntimeRoot (NULL: "/"); dirs: NULL, or NULL entries, for the
 * defaults.  The log must outlive rt. */
jc_runtime *jc_runtime_new(const char *root,
                           const char *const dirs[JC_RUNTIME_DIR_COUNT],
                           const jc_log *log);
void jc_runtime_free(jc_runtime *rt);

/* How names join their parts (ContainerNames); JC_NAMES_PLAIN at first. */
void jc_runtime_set_names(jc_runtime *rt, jc_container_names names);

/*
 * The instance of the cgroup at relpath (relative to CgroupRoot):
 *   0        ret_name is the runtime's name
 *   -ENOENT  not a container's or pod's cgroup: the path name, no message
 *   -EAGAIN  a container's, whose runtime files are not written yet
 *   other    a file was refused (bad JSON, a FIFO, a link, a bad name...);
 *            one WARNING named the file and what was wrong
 * ret_name is written on success only.
 */
int jc_runtime_name(jc_runtime *rt, const char *relpath,
                    char ret_name[JC_INSTANCE_SIZE]);

/*
 * For a cgroup whose lookup keeps answering -EAGAIN: what was looked for
 * and what to do, into text (one clause for a log line: the runtime's
 * files, as paths below RuntimeRoot, then whether its state directory is
 * there, and the remedy: the directory a containerised collectd mounts
 * read-only, RuntimeRoot, RuntimeDir).  Returns the cause: the runtime
 * state directory (jc_runtime_dir) the files belong in; -ENOENT when
 * relpath is not a container's or pod's cgroup.
 */
int jc_runtime_missing(const jc_runtime *rt, const char *relpath, char *text,
                       size_t size);

/* State directory k is there, below RuntimeRoot. */
bool jc_runtime_dir_present(const jc_runtime *rt, jc_runtime_dir k);

/* ---- where a container keeps its files (Collect "disk": jc_disk) ---------- */

/* Whose messages a refused file's WARNING is ("InstanceFrom
 * \"container\"", the default) and what it costs the cgroup ("keeps its
 * path name"); both strings must outlive rt. */
void jc_runtime_set_purpose(jc_runtime *rt, const char *who,
                            const char *outcome);

/* jc_runtime_new for a step that reads the runtimes' state (who:
 * "Collect \"disk\""), with set_purpose's who and outcome: NULL, errno
 * set, after one ERROR line that names RuntimeRoot, why, and who. */
jc_runtime *jc_runtime_open(const char *root,
                            const char *const dirs[JC_RUNTIME_DIR_COUNT],
                            const jc_log *log, const char *who,
                            const char *outcome);

#define JC_RUNTIME_ID_SIZE 65     /* 64 hex digits */
#define JC_RUNTIME_FIELD_SIZE 256 /* a Kubernetes name: at most 253 bytes */

/* A container's or pod's cgroup, as its path and its runtime's file say
 * it: which runtime, its id, its Kubernetes pod, and the paths of its
 * files the runtime wrote down ("" where it wrote none).  Paths the
 * runtime wrote are the host's, absolute; storage is relative to
 * RuntimeRoot. */
typedef struct {
  jc_runtime_dir runtime; /* JC_RUNTIME_KUBELET: a pod's own cgroup */
  char id[JC_RUNTIME_ID_SIZE];  /* "" for a pod */
  char pod_uid[40];       /* its Kubernetes pod's (or its own) uid; "" */
  char ns[JC_RUNTIME_FIELD_SIZE], pod[JC_RUNTIME_FIELD_SIZE],
      ctr[JC_RUNTIME_FIELD_SIZE]; /* Kubernetes' names; "" */
  bool sandbox;           /* a pod's pause container */
  char log_path[PATH_MAX]; /* Docker's LogPath, CRI-O's LogPath */
  char rootfs[PATH_MAX];   /* CRI-O's MountPoint: the overlay's merged */
  char layer[JC_RUNTIME_FIELD_SIZE];  /* containers/storage's layer id */
  char driver[JC_RUNTIME_FIELD_SIZE]; /* Docker's storage driver */
  char storage[PATH_MAX];  /* Podman: its containers/storage, relative */
  char file[PATH_MAX];     /* the file that said it, relative; "" */
} jc_container;

/*
 * The container (or pod) of the cgroup at relpath, as jc_runtime_name
 * finds it, from the same files:
 *   0        ret is filled (a pod: runtime, pod_uid only; no file read)
 *   -ENOENT  not a container's or pod's cgroup
 *   -EAGAIN  its runtime's files are not written yet: ret has what the
 *            path says (runtime, id, pod_uid)
 *   other    a file was refused; one WARNING named it (set_purpose's)
 */
int jc_runtime_container(jc_runtime *rt, const char *relpath,
                         jc_container *ret);

/* State directory k, relative to RuntimeRoot (RuntimeDir's, or the
 * default); RuntimeRoot's descriptor, open for rt's life; rel (relative
 * to RuntimeRoot) as an operator finds it, in buf. */
const char *jc_runtime_dir_path(const jc_runtime *rt, jc_runtime_dir k);
int jc_runtime_rootfd(const jc_runtime *rt);
const char *jc_runtime_shown(const jc_runtime *rt, const char *rel, char *buf,
                             size_t size);

#endif
