/*
 * jc_dfind — where a container keeps what it writes to disk, from the
 * host, for every runtime the names know (Collect "disk": jc_disk;
 * docs/containers.md, What each container fills on disk).
 *
 * Which container a cgroup holds and what its runtime wrote of it comes
 * from jc_runtime (the names' module, the same files: jc_container).  To
 * that each runtime adds its own layout:
 *
 *   Docker (overlay2)      image/overlay2/layerdb/mounts/<id>/mount-id
 *                          names overlay2/<mount-id>/diff, the upper
 *                          directory; its LogPath (json-file) or
 *                          containers/<id>/local-logs (local)
 *   Podman                 containers.json's layer: overlay/<layer>/diff
 *                          in its containers/storage;
 *                          overlay-containers/<id>/userdata/ctr.log
 *                          (k8s-file)
 *   CRI-O                  its MountPoint annotation, overlay/<layer>/
 *                          merged: diff beside it; its LogPath's directory
 *   containerd             the snapshotter's upper directory, from the
 *                          mount table of one of the container's
 *                          processes (/proc/<pid>/mountinfo: the overlay
 *                          at "/", upperdir=); Docker's own where its
 *                          layer store holds none (the containerd image
 *                          store)
 *   Kubernetes (containerd, CRI-O)   the kubelet's pods/<namespace>_<pod>_
 *                          <uid>/<container>/ of its log directory
 *   a Kubernetes pod       the kubelet's pods/<uid>/volumes/kubernetes.io~
 *                          empty-dir/: each volume in it
 *
 * Paths are relative to RuntimeRoot and opened below it only
 * (jc_rtread); a path a runtime wrote (LogPath, MountPoint, upperdir=) is
 * the host's, found at the same place below RuntimeRoot.
 */
#ifndef JC_DFIND_H
#define JC_DFIND_H

#include "jc_runtime.h"

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#define JC_DFIND_PREFIX_SIZE 256

/* What a container (or pod) fills: each "" where it has none. */
typedef struct {
  char layer[PATH_MAX]; /* its writable layer: the overlay's upper dir */
  char logs[PATH_MAX];  /* the directory of its log files */
  char log_prefix[JC_DFIND_PREFIX_SIZE]; /* their names begin so; "": all */
  char volumes[PATH_MAX]; /* a pod: the directory of its emptyDirs */
  char why_logs[PATH_MAX + 160]; /* where logs == "": why, for the log */
} jc_dplace;

/*
 * Where container ctr (a cgroup's, jc_runtime_container) keeps its files,
 * below RuntimeRoot (rt); pid: one of its processes (0: none known yet),
 * seen in proc_root, for the layers no runtime's file names.
 *   0        ret is filled
 *   -EAGAIN  not there yet (no process in it yet, a file not written):
 *            ask again later; why says what was looked for
 *   other    not understood (a storage driver whose layers are not
 *            overlays, a file that says nothing usable): why says what
 *            was looked at; ret has what was found (logs, perhaps)
 */
int jc_dfind(const jc_runtime *rt, const jc_container *ctr,
             const char *proc_root, pid_t pid, jc_dplace *ret, char *why,
             size_t n);

#endif
