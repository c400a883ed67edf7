/*
 * jcli_check — `joule-cgroup check [FILE | --config FILE]`: collectd's
 * configuration
 * (default /etc/collectd/collectd.conf) read as collectd reads it
 * (jcli_cread), its <Plugin joule_cgroup> block found as collectd finds
 * it and checked by the plugin's own code (jc_confblock, jc_config), then
 * what the plugin does with it on this host, as JSON:
 *
 *   {"config": "/etc/collectd/collectd.conf",
 *    "block": "/etc/collectd/collectd.conf.d/joule_cgroup.conf:27",
 *    "root": "/sys/fs/cgroup",
 *    "cgroups": [{"instance": "root", "cgroup": "/", "count": 4,
 *                 "series": 6,
 *                 "values": ["ps_cputime", "gauge-cpu_cores", ...]}, ...],
 *    "cgroup_count": 12, "value_lists": 74, "series": 110}
 *
 * "count" and "value_lists" are value lists; "series" their values, what
 * each writer stores as one series (InfluxDB, Graphite, Prometheus):
 * ps_cputime, disk_octets and disk_ops carry two each.
 *
 * The cgroups and value lists are the collector's own after init and one
 * read, as in the plugin (the read a moment after init, so that the
 * rates are there, as at every read but the first).  It changes nothing
 * (jc_config.preview): a <Cgroup> block is neither created nor attached.
 * Exit status 0; 1 on any error in the configuration, or where collectd
 * would log one and read on; 2 on a usage error.
 */
#include "jcli_check.h"

#include "jcli_block.h"
#include "jcli_commands.h"
#include "jcli_grow.h"
#include "jcli_json.h"
#include "jcli_lists.h"
#include "jcli_opts.h"
#include "jcli_stderr.h"

#include "jc_collector.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* Far enough after init for the rates (jc_metrics' 20 ms), short enough
 * for a check before a restart. */
#define CHECK_READ_DELAY_NS 200000000u

/* "FILE:LINE" of each Select pattern of the block, in the order
 * jc_confblock_apply added them to the configuration. */
typedef struct {
  char **at;
  size_t count, cap;
} select_lines;

static void select_lines_free(select_lines *sl) {
  for (size_t i = 0; i < sl->count; i++)
    free(sl->at[i]);
  free(sl->at);
}

static int note_selects(const jcli_block *b, select_lines *ret) {
  for (int i = 0; b->block && i < b->block->children_num; i++) {
    const jc_conf_item *ci = &b->block->children[i];
    for (int k = 0; strcasecmp(ci->key, "Select") == 0 && k < ci->values_num;
         k++) {
      char **grown = jcli_grow(ret->at, ret->count, &ret->cap, sizeof(*grown));
      if (!grown)
        return -ENOMEM;
      ret->at = grown;
      if (asprintf(&grown[ret->count], "%s:%d", ci->file, ci->line) < 0)
        return -ENOMEM;
      ret->count++;
    }
  }
  return 0;
}

/* jcli_check_load, and where the block's Select patterns are written
 * when selects is not NULL. */
static int load(const char *path, jc_config *cfg, char *where, size_t size,
                bool *ret_logged_error, select_lines *selects) {
  jcli_block b;
  char why[2048];
  int r = jcli_block_read(path, &b, why, sizeof(why));
  if (r < 0) {
    jcli_error("%s", why);
    return r;
  }
  bool logged = false;
  for (size_t i = 0; i < b.conf->note_count; i++) {
    const jcli_cread_note *note = &b.conf->notes[i];
    jcli_log(NULL, note->error ? JC_LOG_ERR : JC_LOG_WARNING, note->text);
    logged |= note->error;
  }
  if (ret_logged_error)
    *ret_logged_error = logged;
  jcli_block_where(&b, path, where, size);
  if ((r = jcli_block_apply(&b, cfg, why, sizeof(why))) < 0)
    jcli_error("%s", why);
  if (r == 0 && selects && (r = note_selects(&b, selects)) < 0)
    jcli_error("out of memory");
  jcli_block_release(&b);
  return r;
}

int jcli_check_load(const char *path, jc_config *cfg, char *where, size_t size,
                    bool *ret_logged_error) {
  return load(path, cfg, where, size, ret_logged_error, NULL);
}

/* ---- the report ------------------------------------------------------ */

typedef struct {
  jcli_json *json;
  const jcli_lists *lists;
  size_t next;     /* the cgroup of lists expected next (same order) */
  size_t cgroups, value_lists, series;
} report;

static const jcli_lists_cgroup *lists_of(report *r, const char *relpath) {
  const jcli_lists *l = r->lists;
  if (r->next < jcli_lists_cgroups(l) &&
      strcmp(jcli_lists_at(l, r->next)->relpath, relpath) == 0)
    return jcli_lists_at(l, r->next++);
  return jcli_lists_find(l, relpath); /* NULL: it sent nothing */
}

static void add_target(void *ctx, const jc_target *t) {
  report *r = ctx;
  const jcli_lists_cgroup *g = lists_of(r, t->relpath);
  size_t count = g ? g->count : 0, series = 0;
  jcli_json *j = r->json;
  jcli_json_map_open(j);
  jcli_json_key(j, "instance");
  jcli_json_string(j, t->instance);
  jcli_json_key(j, "cgroup");
  jcli_json_string(j, t->relpath[0] ? t->relpath : "/");
  jcli_json_key(j, "count");
  jcli_json_int(j, (long long)count);
  jcli_json_key(j, "series");
  for (size_t k = 0; k < count; k++)
    series += jcli_lists_metric(r->lists, g->first + k).count;
  jcli_json_int(j, (long long)series);
  jcli_json_key(j, "values");
  jcli_json_array_open(j);
  for (size_t k = 0; k < count; k++) {
    jc_metric m = jcli_lists_metric(r->lists, g->first + k);
    char name[160];
    jc_lists_name(m.type, m.type_instance, name, sizeof(name));
    jcli_json_string(j, name);
  }
  jcli_json_array_close(j);
  jcli_json_map_close(j);
  r->cgroups++;
  r->value_lists += count;
  r->series += series;
}

static int print_report(const jc_collector *c, const jcli_lists *l,
                        const char *path, const char *where) {
  report r = {jcli_json_new(true), l, 0, 0, 0, 0};
  if (!r.json) {
    jcli_error("out of memory");
    return -ENOMEM;
  }
  jcli_json *j = r.json;
  jcli_json_map_open(j);
  jcli_json_key(j, "config");
  jcli_json_string(j, path);
  jcli_json_key(j, "block");
  if (strcmp(where, path) != 0)
    jcli_json_string(j, where);
  else
    jcli_json_null(j); /* no block: the plugin's defaults */
  jcli_json_key(j, "root");
  jcli_json_string(j, jc_collector_root(c));
  jcli_json_key(j, "cgroups");
  jcli_json_array_open(j);
  jc_collector_each_target(c, add_target, &r);
  jcli_json_array_close(j);
  jcli_json_key(j, "cgroup_count");
  jcli_json_int(j, (long long)r.cgroups);
  jcli_json_key(j, "value_lists");
  jcli_json_int(j, (long long)r.value_lists);
  jcli_json_key(j, "series");
  jcli_json_int(j, (long long)r.series);
  jcli_json_map_close(j);
  int w = jcli_json_write(j, STDOUT_FILENO);
  if (w < 0)
    jcli_error("cannot write the report: %s", strerror(-w));
  jcli_json_free(j);
  return w;
}

/* ---- Select patterns that pick nothing here ------------------------- */

typedef struct {
  const jc_pattern *pattern;
  bool picked;
} pick;

static void try_target(void *ctx, const jc_target *t) {
  pick *k = ctx;
  if (!k->picked && t->relpath[0] && jc_pattern_match(k->pattern, t->relpath))
    k->picked = true;
}

/* A Select that picks no cgroup of this host sends nothing here: a typo,
 * a pattern written for other hosts, or for cgroups not there yet.  A
 * warning for each, at its line (where: the block's, for the default). */
static void warn_unpicked(const jc_collector *c, jc_pattern *const *select,
                          size_t count, const select_lines *lines,
                          const char *where) {
  for (size_t i = 0; i < count; i++) {
    pick k = {select[i], false};
    jc_collector_each_target(c, try_target, &k);
    if (k.picked)
      continue;
    char msg[2048];
    snprintf(msg, sizeof(msg),
             "%s: Select \"%s\" picks no cgroup below %s on this host now "
             "(patterns are relative to it, and \"*\" is one level); "
             "`joule-cgroup list --select PATTERN` shows what one picks",
             i < lines->count ? lines->at[i] : where,
             jc_pattern_text(select[i]), jc_collector_root(c));
    jcli_log(NULL, JC_LOG_WARNING, msg);
  }
}

/* InstanceFrom "container": the names missing, one line per cause; a
 * WARNING more when container cgroups are found and no runtime's state
 * at all (a collectd in a container without its mounts). */
static void no_names(jc_collector *c) {
  bool no_state;
  size_t waiting = jc_collector_names_missing(c, false, &no_state);
  if (!waiting || !no_state)
    return;
  char msg[512];
  snprintf(msg, sizeof(msg),
           "InstanceFrom \"container\": %zu container cgroup%s and no "
           "container runtime's state below RuntimeRoot: every one keeps its "
           "path name (mount the runtimes' state directories read-only, or "
           "set RuntimeRoot and RuntimeDir; docs/containers.md)",
           waiting, waiting == 1 ? "" : "s");
  jcli_log(NULL, JC_LOG_WARNING, msg);
}

/* The plugin's init and one read with cfg (taken), then the report. */
static int preview(jc_config *cfg, const char *path, const char *where,
                   const select_lines *lines) {
  cfg->preview = true;
  /* cfg's, which the collector keeps until it is freed */
  jc_pattern *const *select = cfg->select;
  size_t select_count = cfg->select_count;
  jc_collector *c = jc_collector_new(cfg, jcli_log_info, NULL);
  if (!c) {
    jcli_error("out of memory");
    return -ENOMEM;
  }
  int r = jc_collector_init(c); /* the core said why */
  jcli_lists *l = r == 0 ? jcli_lists_new() : NULL;
  if (r == 0) {
    struct timespec delay = {0, CHECK_READ_DELAY_NS};
    nanosleep(&delay, NULL);
    if (l)
      jc_collector_read(c, jcli_lists_add, l);
    no_names(c);
    if (!l || (r = jcli_lists_group(l)) < 0) {
      jcli_error("out of memory");
      r = -ENOMEM;
    } else {
      r = print_report(c, l, path, where);
    }
    warn_unpicked(c, select, select_count, lines, where);
  }
  jcli_lists_free(l);
  jc_collector_free(c);
  return r;
}

int jcli_check(int argc, char **argv) {
  jcli_opts o;
  int r = jcli_opts_parse(&o, JCLI_OPT_FILE | JCLI_OPT_CONFIG, argc, argv);
  if (r == 0 && o.file && o.config) {
    jcli_error("check: the configuration is FILE or --config FILE, not both "
               "(\"%s\", \"%s\")",
               o.file, o.config);
    r = -EINVAL;
  }
  if (r < 0 || o.help) {
    jcli_opts_release(&o);
    return r < 0 ? JCLI_EXIT_USAGE : JCLI_EXIT_OK;
  }
  const char *path = o.config ? o.config : o.file ? o.file : JCLI_COLLECTD_CONF;
  char where[1200], why[1024];
  select_lines lines = {0};
  bool logged_error = false;
  r = load(path, o.cfg, where, sizeof(where), &logged_error, &lines);
  if (r == 0 && (r = jc_config_finish(o.cfg, why, sizeof(why))) < 0)
    jcli_error("%s: %s", where, why);
  if (r == 0) {
    r = preview(o.cfg, path, where, &lines);
    o.cfg = NULL; /* taken */
  }
  select_lines_free(&lines);
  jcli_opts_release(&o);
  return logged_error || r < 0 ? JCLI_EXIT_FAILURE : JCLI_EXIT_OK;
}
