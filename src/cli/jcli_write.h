/*
 * jcli_write — a document or a piece of output written whole to a
 * descriptor: a pipe or a terminal takes short writes, a signal
 * interrupts them, and a report cut in the middle must not look whole.
 */
#ifndef JCLI_WRITE_H
#define JCLI_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* Writes all of buf, retrying short writes and EINTR.  0 or -errno. */
int jcli_write_all(int fd, const void *buf, size_t len);

/* A document made in an open_memstream(&buf, &len) `out`: closed, then
 * written whole to fd unless making it failed (-ENOMEM); buf is freed.
 * 0 or -errno. */
int jcli_write_stream(FILE *out, char **buf, size_t *len, int fd);

#endif
