/*
 * jcli_markers — finds the phase markers in a command's standard output:
 * the lines that match the token pattern (`run --phases --token-pattern`).
 *
 * Bytes go in as they arrive, in pieces of any size; the module cuts them
 * into lines and calls back once per matching line, at the moment the
 * line is complete (its newline is fed, or jcli_markers_finish() ends the
 * last line that has none).  It never changes or keeps the bytes for
 * anyone else: passing them on is the caller's job.
 *
 *   m = jcli_markers_new(pattern, why, sizeof(why));   NULL: why says what is wrong
 *   jcli_markers_feed(m, buf, len, on_marker, ctx);    any number of times
 *   jcli_markers_finish(m, on_marker, ctx);            at end of file
 *   jcli_markers_free(m);
 *
 * The pattern is a POSIX extended regular expression searched anywhere in
 * the line (without its "\n" or "\r\n"); the marker's name is the text of
 * the first capture group, or of the whole match when the pattern has no
 * group or the group took no part (a name is cut at a NUL byte).  NUL
 * bytes are ordinary characters of a line; a line is matched on its first
 * JCLI_MARKERS_LINE_MAX bytes.
 */
#ifndef JCLI_MARKERS_H
#define JCLI_MARKERS_H

#include <stddef.h>

#define JCLI_MARKERS_DEFAULT "__[A-Z0-9_]+__"
#define JCLI_MARKERS_LINE_MAX 65536
#define JCLI_MARKERS_NAME_MAX 256 /* longer names are cut */

typedef struct jcli_markers jcli_markers;

/* name: NUL-terminated, valid during the call; line: 1 for the first. */
typedef void (*jcli_marker_fn)(void *ctx, const char *name,
                               unsigned long line);

/* NULL when out of memory or when the pattern does not compile (why then
 * holds regcomp's message). */
jcli_markers *jcli_markers_new(const char *pattern, char *why, size_t n);
void jcli_markers_free(jcli_markers *m); /* NULL-safe */

void jcli_markers_feed(jcli_markers *m, const char *buf, size_t len,
                       jcli_marker_fn fn, void *ctx);
void jcli_markers_finish(jcli_markers *m, jcli_marker_fn fn, void *ctx);

#endif
