/*
 * jc_dlogs — a container's log files and the bytes they hold (Collect
 * "disk": jc_disk; docs/metrics.md, Disk).
 *
 * A container's logs are the regular files of one directory whose names
 * begin with a prefix: Docker's json-file `<id>-json.log` and the files
 * its rotation makes beside it (`<id>-json.log.1`, `.2.gz`), Podman's
 * `ctr.log`, or every regular file of the kubelet's directory of the
 * container (`0.log`, a rotated `0.log.20240506-070809`, the previous
 * instance's `1.log`; prefix "").  Their sizes (st_size: what they hold,
 * what the runtimes' max-size options compare) are summed at each call.
 *
 * What is looked at is the caller's `look`: the files written to (the
 * prefix itself for Docker and Podman, a name ending ".log" in the
 * kubelet's directory), one fstatat each (JC_DLOGS_LOOK), or the
 * directory listed again (JC_DLOGS_LIST), or nothing (0: the sizes of
 * the last look).  jc_disk asks what inotify says changed (jc_dwatch),
 * or, for a directory it could not watch, to look at every pass.  A
 * rotated file does not change: its size is the listing's.  A rotation
 * renames the file written to and makes another (Docker, the kubelet),
 * removing or compressing the oldest rotated files then: a file written
 * to that is another inode now, or gone, has the directory listed again,
 * and so has each look while the listing holds none written to (a
 * moment, at a rotation), and every JC_DLOGS_RELIST-th look besides (a
 * rotated file removed or compressed later than its rotation, where no
 * event says it: ten minutes at Interval 10), counted from `phase`, so
 * that the containers of a host, given phases in turn, are not all
 * listed at one pass.
 *
 *   l = jc_dlogs_new(prefix, phase);           NULL: out of memory
 *   r = jc_dlogs_size(l, dirfd, look, &bytes); each pass
 *   jc_dlogs_free(l);                          NULL-safe
 *
 * jc_dlogs_size returns 0, or a negative errno (the directory cannot be
 * listed; the caller opens it again), and never logs.  It holds no
 * descriptor; the first call lists, whatever its look.
 */
#ifndef JC_DLOGS_H
#define JC_DLOGS_H

#include <stddef.h>
#include <stdint.h>

#define JC_DLOGS_RELIST 60

/* jc_dlogs_size's look: what may have changed since the last call. */
enum {
  JC_DLOGS_LOOK = 1u << 0, /* the files written to may have grown */
  JC_DLOGS_LIST = 1u << 1, /* names were made, removed or renamed */
};

typedef struct jc_dlogs jc_dlogs;

jc_dlogs *jc_dlogs_new(const char *prefix, unsigned phase);
int jc_dlogs_size(jc_dlogs *l, int dirfd, unsigned look, uint64_t *ret_bytes);
/* The files of the last listing. */
size_t jc_dlogs_files(const jc_dlogs *l);
void jc_dlogs_free(jc_dlogs *l);

#endif
