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
 * what the runtimes' max-size options compare) are read at each call, one
 * fstatat a file; the directory is listed again only when its
 * modification time moved (a file created, renamed or removed), or while
 * it is within a second of the listing (a change in the same tick).
 *
 *   l = jc_dlogs_new(prefix);            NULL: out of memory
 *   r = jc_dlogs_size(l, dirfd, &bytes); each pass
 *   jc_dlogs_free(l);                    NULL-safe
 *
 * jc_dlogs_size returns 0, or a negative errno (the directory cannot be
 * looked at or listed; the caller opens it again), and never logs.
 */
#ifndef JC_DLOGS_H
#define JC_DLOGS_H

#include <stddef.h>
#include <stdint.h>

typedef struct jc_dlogs jc_dlogs;

jc_dlogs *jc_dlogs_new(const char *prefix);
int jc_dlogs_size(jc_dlogs *l, int dirfd, uint64_t *ret_bytes);
/* The files of the last listing. */
size_t jc_dlogs_files(const jc_dlogs *l);
void jc_dlogs_free(jc_dlogs *l);

#endif
