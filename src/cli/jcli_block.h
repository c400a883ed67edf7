/*
 * jcli_block — the plugin's block in a collectd configuration read by
 * jcli_cread, found as collectd 5.12 dispatches it: among the top-level
 * items, in order, `LoadPlugin joule_cgroup` (or `<LoadPlugin ...>`, or
 * `AutoLoadPlugin true` before the block), then at most one `<Plugin
 * joule_cgroup>` (the name in any case, as collectd matches it).  Then
 * applied to a jc_config by the plugin's own code (jc_confblock), so that
 * `joule-cgroup check` and `sample --config` say what the plugin says.
 *
 *   jcli_block b;
 *   if (jcli_block_read(path, &b, why, n) < 0) ...   read and found
 *   ... b.conf->notes: what collectd would log and go on ...
 *   if (jcli_block_apply(&b, cfg, why, n) < 0) ...   "FILE:LINE: message"
 *   jcli_block_release(&b);
 */
#ifndef JCLI_BLOCK_H
#define JCLI_BLOCK_H

#include "jcli_cread.h"

typedef struct {
  jcli_cread *conf;           /* owned */
  const jc_conf_item *block;  /* NULL: none, the plugin's defaults */
  const jc_conf_item *load;   /* the LoadPlugin; NULL: AutoLoadPlugin */
} jcli_block;

/*
 * Reads the configuration at path and finds the block.  0, or a negative
 * errno with why: jcli_cread_file's, or -EINVAL when collectd stops (a
 * second block: JC_CONFBLOCK_ONLY_ONE) or would not run the plugin as
 * written (a block before its LoadPlugin, which collectd ignores),
 * -ENOENT when there is no LoadPlugin.
 */
int jcli_block_read(const char *path, jcli_block *ret, char *why, size_t n);

/* Applies the block to cfg and finishes it (jc_confblock_apply, then
 * jc_confblock_finish: the line of a Values pattern it refuses is the
 * Values item's own).  0, or the plugin's negative errno with why
 * "FILE:LINE: <the plugin's message>".  Without a block nothing is
 * applied nor finished. */
int jcli_block_apply(const jcli_block *b, jc_config *cfg, char *why,
                     size_t n);

/* "FILE:LINE" of the block, or the configuration's path without one. */
void jcli_block_where(const jcli_block *b, const char *path, char *out,
                      size_t size);

void jcli_block_release(jcli_block *b);

#endif
