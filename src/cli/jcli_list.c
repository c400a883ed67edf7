/*
 * jcli_list — `joule-cgroup list`: what a selection picks, as JSON, to try
 * Select/Ignore patterns before they go into collectd's configuration.
 *
 *   {"root": "/sys/fs/cgroup",
 *    "cgroups": [{"instance": "root", "cgroup": "/"},
 *                {"instance": "system.slice_nginx.service",
 *                 "cgroup": "system.slice/nginx.service"}]}
 *
 * It is the collector's own tracked set after init, so names, collisions
 * and the walk are exactly the plugin's.
 */
#include "jcli_commands.h"
#include "jcli_json.h"
#include "jcli_opts.h"
#include "jcli_root.h"
#include "jcli_stderr.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

static void add_target(void *ctx, const jc_target *t) {
  jcli_json *j = ctx;
  jcli_json_map_open(j);
  jcli_json_key(j, "instance");
  jcli_json_string(j, t->instance);
  jcli_json_key(j, "cgroup");
  jcli_json_string(j, t->meta);
  jcli_json_map_close(j);
}

static int print_list(const jc_collector *c) {
  jcli_json *j = jcli_json_new(true);
  if (!j) {
    jcli_error("out of memory");
    return -ENOMEM;
  }
  jcli_json_map_open(j);
  jcli_json_key(j, "root");
  jcli_json_string(j, jc_collector_root(c));
  jcli_json_key(j, "cgroups");
  jcli_json_array_open(j);
  jc_collector_each_target(c, add_target, j);
  jcli_json_array_close(j);
  jcli_json_map_close(j);
  int r = jcli_json_write(j, STDOUT_FILENO);
  if (r < 0)
    jcli_error("cannot write the list: %s", strerror(-r));
  jcli_json_free(j);
  return r;
}

int jcli_list(int argc, char **argv) {
  jcli_opts o;
  int r = jcli_opts_parse(
      &o, JCLI_OPT_ROOT | JCLI_OPT_SELECT | JCLI_OPT_INSTANCE_FROM, argc, argv);
  if (r < 0 || o.help) {
    jcli_opts_release(&o);
    return r < 0 ? JCLI_EXIT_USAGE : JCLI_EXIT_OK;
  }
  /* A list is the walk and the names: no accounting file is read, so
   * nothing but naming problems (collisions) is reported. */
  o.cfg->collect = 0;
  jc_collector *c;
  r = jcli_collector_at(o.root, o.cfg, &c);
  o.cfg = NULL; /* taken */
  bool no_state;
  if (r == 0) {
    (void)jc_collector_names_missing(c, true, &no_state); /* on stderr */
    r = print_list(c);
  }
  jc_collector_free(c);
  jcli_opts_release(&o);
  return r < 0 ? JCLI_EXIT_FAILURE : JCLI_EXIT_OK;
}
