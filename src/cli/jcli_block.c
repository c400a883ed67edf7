/*
 * jcli_block — see jcli_block.h.
 */
#include "jcli_block.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define PLUGIN "joule_cgroup"

/* The first value of ci as a string, or NULL. */
static const char *first_string(const jc_conf_item *ci) {
  return ci->values_num >= 1 && ci->values[0].type == JC_CONF_STRING
             ? ci->values[0].string
             : NULL;
}

/* collectd's IS_TRUE of a global option's value. */
static bool is_true(const jc_conf_item *ci) {
  if (ci->values_num != 1)
    return false;
  const jc_conf_value *v = &ci->values[0];
  if (v->type == JC_CONF_BOOLEAN)
    return v->boolean;
  return v->type == JC_CONF_STRING &&
         (strcasecmp(v->string, "true") == 0 ||
          strcasecmp(v->string, "yes") == 0 || strcasecmp(v->string, "on") == 0);
}

static bool names_plugin(const jc_conf_item *ci, const char *key) {
  const char *name = first_string(ci);
  return strcasecmp(ci->key, key) == 0 && name &&
         strcasecmp(name, PLUGIN) == 0;
}

/* Finds the block among the top-level items, in collectd's order. */
static int find(jcli_block *b, const char *path, char *why, size_t n) {
  const jc_conf_item *root = &b->conf->root;
  bool autoload = false, loaded = false;
  for (int i = 0; i < root->children_num; i++) {
    const jc_conf_item *ci = &root->children[i];
    if (strcasecmp(ci->key, "AutoLoadPlugin") == 0)
      autoload = is_true(ci);
    if (names_plugin(ci, "LoadPlugin") && ci->values_num == 1 && !loaded) {
      b->load = ci;
      loaded = true;
    }
    if (!names_plugin(ci, "Plugin"))
      continue;
    if (b->block) {
      snprintf(why, n, "%s:%d: " JC_CONFBLOCK_ONLY_ONE " (the first is at "
                       "%s:%d); collectd stops",
               ci->file, ci->line, b->block->file, b->block->line);
      return -EINVAL;
    }
    if (!loaded && !autoload) {
      snprintf(why, n, "%s:%d: <Plugin %s> comes before LoadPlugin %s: "
                       "collectd ignores the block (\"There is configuration "
                       "for the `%s' plugin, but the plugin isn't loaded\") "
                       "and runs the plugin without it; put LoadPlugin %s "
                       "first",
               ci->file, ci->line, PLUGIN, PLUGIN, PLUGIN, PLUGIN);
      return -EINVAL;
    }
    loaded = true; /* AutoLoadPlugin loads it here */
    b->block = ci;
  }
  if (!loaded) {
    snprintf(why, n, "%s: no LoadPlugin %s, in it or its Includes: collectd "
                     "does not run the plugin",
             path, PLUGIN);
    return -ENOENT;
  }
  return 0;
}

int jcli_block_read(const char *path, jcli_block *ret, char *why, size_t n) {
  *ret = (jcli_block){0};
  int r = jcli_cread_file(path, &ret->conf, why, n);
  if (r == 0 && (r = find(ret, path, why, n)) < 0)
    jcli_block_release(ret);
  return r;
}

int jcli_block_apply(const jcli_block *b, jc_config *cfg, char *why,
                     size_t n) {
  if (!b->block)
    return 0;
  const jc_conf_item *bad = NULL;
  char message[1024];
  int r = jc_confblock_apply(cfg, b->block, &bad, message, sizeof(message));
  if (r == 0)
    r = jc_confblock_finish(cfg, b->block, &bad, message, sizeof(message));
  if (r < 0)
    snprintf(why, n, "%s:%d: %s", bad->file, bad->line, message);
  return r;
}

void jcli_block_where(const jcli_block *b, const char *path, char *out,
                      size_t size) {
  if (b->block)
    snprintf(out, size, "%s:%d", b->block->file, b->block->line);
  else
    snprintf(out, size, "%s", path);
}

void jcli_block_release(jcli_block *b) {
  jcli_cread_free(b->conf);
  *b = (jcli_block){0};
}
