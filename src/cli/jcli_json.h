/*
 * jcli_json — the JSON documents joule-cgroup prints, built with libyajl
 * in memory and written whole.
 *
 * A document is either complete on the output or not there at all: every
 * generator call lands in a buffer owned by the jcli_json, a failure
 * (out of memory, a generator state error) marks the document failed, and
 * jcli_json_write() refuses a failed document.  Strings that are not valid
 * UTF-8 (a cgroup name is any bytes) get U+FFFD for each bad byte, so the
 * output always parses.
 *
 *   j = jcli_json_new(pretty);
 *   jcli_json_map_open(j); jcli_json_key(j, "a"); jcli_json_int(j, 1); ...
 *   jcli_json_write(j, STDOUT_FILENO);   buffer + newline, then cleared
 *   jcli_json_free(j);
 */
#ifndef JCLI_JSON_H
#define JCLI_JSON_H

#include "jc_metrics.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct jcli_json jcli_json;

/* pretty: indented by two spaces (documents for people); else one line. */
jcli_json *jcli_json_new(bool pretty);
void jcli_json_free(jcli_json *j); /* NULL-safe */

void jcli_json_map_open(jcli_json *j);
void jcli_json_map_close(jcli_json *j);
void jcli_json_array_open(jcli_json *j);
void jcli_json_array_close(jcli_json *j);
void jcli_json_key(jcli_json *j, const char *key);
void jcli_json_string(jcli_json *j, const char *s);
void jcli_json_int(jcli_json *j, long long v);
/* The shortest text that reads back as v; null for NaN and infinities. */
void jcli_json_double(jcli_json *j, double v);
void jcli_json_bool(jcli_json *j, bool v);
void jcli_json_null(jcli_json *j);

/*
 * One metric of docs/metrics.md as a member of the open map: key "type-type_instance"
 * (just "type" without a type instance); value a number, or for the
 * two-value types an object keyed by types.db's data source names
 * ("ps_cputime": {"user": .., "syst": ..}).
 */
void jcli_json_metric(jcli_json *j, const jc_metric *m);

/*
 * Writes the complete document and a newline to fd, then starts a new
 * document in the same buffer.  0, or a negative errno: -ENOMEM when a
 * generator call failed, -EINVAL when the document is incomplete (nothing
 * is written then), or write()'s error.
 */
int jcli_json_write(jcli_json *j, int fd);

#endif
