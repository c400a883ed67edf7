/*
 * jcli_cread — collectd's configuration files read as collectd 5.12's
 * cf_read (src/daemon/configfile.c) reads them, with their Includes, for
 * `joule-cgroup check` and `sample --config` (docs/configuration.md,
 * checking a configuration); each file's text parsed by jcli_cconf.
 *
 * `Include "PATH"` and `<Include "PATH"> Filter "GLOB" </Include>` among
 * the top-level items of a file (not inside a block): PATH expanded by
 * wordexp() (globs, ~, $VAR; no commands), relative to the working
 * directory, each match in strcmp() order; a directory read whole, its
 * entries sorted, those starting with "." skipped, subdirectories too,
 * each file kept only when its name matches the Filter; at most 8 levels
 * deep.  Where collectd stops, the read fails with the reason; where
 * collectd logs a problem and reads on (a path that matches nothing, a
 * file of an included directory it cannot read or parse), a note says
 * it and the read goes on.
 *
 *   jcli_cread *c;
 *   if (jcli_cread_file("/etc/collectd/collectd.conf", &c, why, n) < 0) ...
 *   ... c->root.children: the items, Includes replaced by what they read;
 *       c->notes: what collectd would log and go on ...
 *   jcli_cread_free(c);
 */
#ifndef JCLI_CREAD_H
#define JCLI_CREAD_H

#include "jcli_cconf.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  bool error; /* collectd logs an ERROR (and skips what it names) */
  char *text; /* "FILE:LINE: ..." */
} jcli_cread_note;

typedef struct {
  jc_conf_item root; /* key NULL; children: the top-level items */
  char **files;      /* every file read, in order; items point here */
  size_t file_count;
  jcli_cread_note *notes;
  size_t note_count;
} jcli_cread;

/* The depth of Include collectd follows (CF_MAX_DEPTH). */
#define JCLI_CREAD_MAX_DEPTH 8

/* Reads the configuration at path with its Includes.  0, or a negative
 * errno with why (-ENOENT: not there, -EINVAL: collectd would refuse it,
 * -ENODATA: it holds nothing, -ELOOP: Includes too deep, -ENOMEM). */
int jcli_cread_file(const char *path, jcli_cread **ret, char *why, size_t n);
void jcli_cread_free(jcli_cread *c); /* NULL-safe */

#endif
