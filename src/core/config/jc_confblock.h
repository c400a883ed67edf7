/*
 * jc_confblock — the <Plugin joule_cgroup> block as collectd hands it to
 * a plugin (keys, their values, sub-blocks), applied to a jc_config:
 * every key matched (case-insensitively, as in every collectd plugin),
 * its values checked, and, for a bad item, the one message the user sees
 * (docs/configuration.md, errors in the configuration).
 *
 * Two front ends share it, so that they say the same: the plugin, which
 * gets collectd's own tree, and `joule-cgroup check` and `sample
 * --config`, which read collectd's files themselves (src/cli/jcli_cconf).
 * Neither owns this module's items: the plugin borrows collectd's
 * strings, the command's reader owns its tree.
 */
#ifndef JC_CONFBLOCK_H
#define JC_CONFBLOCK_H

#include "jc_config.h"

#include <stdbool.h>
#include <stddef.h>

/* What collectd's parser makes of a value: a quoted or bare word, a
 * number (strtod of its text), or true/yes/on, false/no/off. */
typedef enum { JC_CONF_STRING, JC_CONF_NUMBER, JC_CONF_BOOLEAN } jc_conf_type;

typedef struct {
  jc_conf_type type;
  char *string; /* JC_CONF_STRING */
  double number;
  bool boolean;
} jc_conf_value;

/* `Key value ...`, or `<Key value ...> children </Key>`. */
typedef struct jc_conf_item {
  char *key;
  jc_conf_value *values;
  int values_num;
  struct jc_conf_item *children;
  int children_num;
  const char *file; /* where it was written; NULL when not known */
  int line;
} jc_conf_item;

/* collectd stops at a second block (its callback refuses it). */
#define JC_CONFBLOCK_ONLY_ONE \
  "only one <Plugin joule_cgroup> block is allowed"

/*
 * Applies the children of block (the <Plugin joule_cgroup> item) to cfg,
 * in order.  0; or -EINVAL (-ENOMEM) at the first bad item, with why the
 * message
 * ("Collect \"cpu\" \"gpu\": unknown group; known: ...") and *ret_bad
 * that item.  jc_config_finish() comes after, as for any front end.
 */
int jc_confblock_apply(jc_config *cfg, const jc_conf_item *block,
                       const jc_conf_item **ret_bad, char *why, size_t n);

/*
 * jc_config_finish() of the cfg block was applied to, its failure placed:
 * 0; or its -EINVAL (-ENOMEM) and message, with *ret_bad the Values item
 * that gave the pattern it refuses, else the block (an Instance given
 * twice, RuntimeDir without InstanceFrom...).
 */
int jc_confblock_finish(jc_config *cfg, const jc_conf_item *block,
                        const jc_conf_item **ret_bad, char *why, size_t n);

#endif
