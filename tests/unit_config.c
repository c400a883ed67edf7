/* Unit tests of jc_config: defaults, every setter's validation, and the
 * messages users see for bad values. */
#include "fixture_util.h"
#include "jc_config.h"
#include "tap.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char err[512];

static void refused(int r, const char *what, const char *why_part) {
  ok(r < 0 && strstr(err, why_part), "%s refused: %s", what, err);
}

int main(void) {
  jc_config *c = jc_config_new();
  ok(c->report_root && c->collect == JC_COLLECT_DEFAULT &&
         c->instance_from == JC_INSTANCE_FROM_PATH && !c->root,
     "defaults: ReportRoot true, cpu memory io, path, auto root");
  is_int(jc_config_finish(c, err, sizeof(err)), 0, "finish with nothing set");
  is_int(c->select_count, 1, "default selection added");
  is_str(jc_pattern_text(c->select[0]), "*", "default selection is \"*\"");
  is_int(c->memstat.count, 6, "default MemoryStat set");
  is_str(c->memstat.key[3], "kernel_stack", "default MemoryStat order");
  jc_config_free(c);

  /* InstanceFrom "container", RuntimeRoot, RuntimeDir (docs/containers.md) */
  c = jc_config_new();
  refused(jc_config_set_runtime_root(c, "srv/host", err, sizeof(err)),
          "relative RuntimeRoot", "absolute");
  refused(jc_config_set_runtime_root(c, "/srv/../etc", err, sizeof(err)),
          "RuntimeRoot with ..", "contains \"..\"");
  is_int(jc_config_set_runtime_root(c, "/srv/host", err, sizeof(err)), 0,
         "RuntimeRoot /srv/host");
  refused(jc_config_finish(c, err, sizeof(err)), "RuntimeRoot without InstanceFrom \"container\"",
          "is used by InstanceFrom \"container\" and Collect \"disk\" only");
  jc_config_free(c);
  c = jc_config_new();
  refused(jc_config_set_container_names(c, "flat", err, sizeof(err)),
          "ContainerNames flat", "must be \"plain\", \"prefixed\" or \"levels\"");
  is_int(jc_config_set_container_names(c, "Levels", err, sizeof(err)), 0,
         "ContainerNames levels (any case)");
  ok(c->container_names == JC_NAMES_LEVELS, "  kept");
  refused(jc_config_finish(c, err, sizeof(err)), "ContainerNames without InstanceFrom \"container\"",
          "ContainerNames: is used by InstanceFrom \"container\" only");
  is_int(jc_config_set_instance_from(c, "container", err, sizeof(err)), 0,
         "InstanceFrom container");
  is_int(jc_config_finish(c, err, sizeof(err)), 0, "  then ContainerNames is taken: %s", err);
  jc_config_free(c);
  c = jc_config_new();
  refused(jc_config_set_runtime_dir(c, "rkt", "/var/lib/rkt", err, sizeof(err)),
          "RuntimeDir rkt", "unknown runtime \"rkt\"; known: containerd");
  refused(jc_config_set_runtime_dir(c, "containerd", "run/k3s", err, sizeof(err)),
          "RuntimeDir with a relative path", "absolute");
  is_int(jc_config_set_runtime_dir(c, "Containerd", "/run/k3s/containerd", err,
                                   sizeof(err)), 0, "RuntimeDir containerd (any case)");
  is_str(c->runtime_dir[JC_RUNTIME_CONTAINERD], "/run/k3s/containerd", "  kept");
  refused(jc_config_finish(c, err, sizeof(err)), "RuntimeDir without InstanceFrom \"container\"",
          "RuntimeDir \"containerd\" \"/run/k3s/containerd\": is used by");
  is_int(jc_config_set_instance_from(c, "container", err, sizeof(err)), 0,
         "InstanceFrom container");
  is_int(jc_config_finish(c, err, sizeof(err)), 0, "  then RuntimeDir is accepted");
  jc_config_free(c);

  c = jc_config_new();
  is_int(jc_config_add_collect(c, "pressure", err, sizeof(err)), 0,
         "Collect pressure");
  ok(c->collect == JC_COLLECT_PRESSURE, "first Collect replaces the default");
  jc_config_add_collect(c, "PIDS", err, sizeof(err));
  ok(c->collect == (JC_COLLECT_PRESSURE | JC_COLLECT_PIDS),
     "later Collect adds, case-insensitive");
  refused(jc_config_add_collect(c, "gpus", err, sizeof(err)), "Collect gpus",
          "unknown group");
  refused(jc_config_add_collect(c, "+gpus", err, sizeof(err)), "Collect +gpus",
          "\"+GROUP\" adds one to the default set");
  jc_config_free(c);

  /* "+GROUP": the default set and the group, in any order */
  c = jc_config_new();
  is_int(jc_config_add_collect(c, "+events", err, sizeof(err)), 0,
         "Collect +events");
  ok(c->collect == (JC_COLLECT_DEFAULT | JC_COLLECT_EVENTS) &&
         c->collect_asked == JC_COLLECT_EVENTS,
     "+events adds to the default set, and only events is asked for");
  jc_config_add_collect(c, "+pressure", err, sizeof(err));
  ok(c->collect == (JC_COLLECT_DEFAULT | JC_COLLECT_EVENTS | JC_COLLECT_PRESSURE),
     "a second + adds too");
  jc_config_add_collect(c, "cpu", err, sizeof(err));
  ok(c->collect == (JC_COLLECT_CPU | JC_COLLECT_EVENTS | JC_COLLECT_PRESSURE),
     "a group without + replaces the default set, the + ones stay");
  jc_config_free(c);
  c = jc_config_new();
  jc_config_add_collect(c, "cpu", err, sizeof(err));
  jc_config_add_collect(c, "+events", err, sizeof(err));
  ok(c->collect == (JC_COLLECT_CPU | JC_COLLECT_EVENTS) &&
         c->collect_asked == c->collect,
     "cpu then +events: the two");
  refused(jc_config_set_instance_from(c, "name", err, sizeof(err)),
          "InstanceFrom name", "\"path\", \"basename\" or \"container\"");
  is_int(jc_config_set_instance_from(c, "basename", err, sizeof(err)), 0,
         "InstanceFrom basename");
  refused(jc_config_set_root(c, "sys/fs/cgroup", err, sizeof(err)),
          "relative CgroupRoot", "absolute");
  is_int(jc_config_set_root(c, "/sys/fs/cgroup/", err, sizeof(err)), 0,
         "CgroupRoot with trailing slash");
  is_str(c->root, "/sys/fs/cgroup", "trailing slash dropped");
  refused(jc_config_add_pattern(c, false, "a/../b", err, sizeof(err)),
          "Select with ..", "\"..\"");
  refused(jc_config_add_pattern(c, true, "/(/", err, sizeof(err)),
          "Ignore with a bad regex", "invalid regular expression");
  is_int(jc_config_add_memstat(c, "pgmajfault", err, sizeof(err)), 0,
         "MemoryStat pgmajfault");
  ok(c->memstat.count == 1 && c->memstat.is_event[0] &&
         strcmp(c->memstat.derive_instance[0], "memory_pgmajfault") == 0,
     "MemoryStat replaces the default; events become derive-memory_<key>");
  refused(jc_config_add_memstat(c, "a b", err, sizeof(err)), "MemoryStat \"a b\"",
          "not a memory.stat key");
  refused(jc_config_set_max_open_files(c, -1, err, sizeof(err)),
          "MaxOpenFiles -1", "whole number");
  refused(jc_config_set_max_open_files(c, 1.5, err, sizeof(err)),
          "MaxOpenFiles 1.5", "whole number");

  jc_managed *m = jc_config_add_managed(c, "joule/batch", err, sizeof(err));
  ok(m != NULL, "<Cgroup \"joule/batch\">");
  ok(!jc_config_add_managed(c, "joule/batch", err, sizeof(err)) &&
         strstr(err, "twice"),
     "same <Cgroup> twice refused: %s", err);
  ok(!jc_config_add_managed(c, "../etc", err, sizeof(err)) &&
         strstr(err, "\"..\""),
     "<Cgroup \"../etc\"> refused: %s", err);
  ok(!jc_config_add_managed(c, "/joule", err, sizeof(err)) &&
         strstr(err, "absolute"),
     "<Cgroup \"/joule\"> refused: %s", err);
  ok(!jc_config_add_managed(c, "a//b", err, sizeof(err)) &&
         strstr(err, "empty"),
     "<Cgroup \"a//b\"> refused: %s", err);
  ok(!jc_config_add_managed(c, "", err, sizeof(err)), "<Cgroup \"\"> refused");
  m = &c->managed[0];
  refused(jc_config_managed_add_pid(m, 0, err, sizeof(err)), "AttachPid 0",
          "not a process id");
  refused(jc_config_managed_add_pid(m, 12.5, err, sizeof(err)), "AttachPid 12.5",
          "not a process id");
  is_int(jc_config_managed_add_pid(m, 4242, err, sizeof(err)), 0, "AttachPid 4242");
  refused(jc_config_managed_add_pid_file(m, "run/x.pid", err, sizeof(err)),
          "relative AttachPidFile", "absolute");
  refused(jc_config_managed_set_instance(m, "a/b", err, sizeof(err)),
          "Instance with /", "without \"/\"");
  is_int(jc_config_managed_set_instance(m, "batch", err, sizeof(err)), 0,
         "Instance batch");
  jc_config_free(c);

  /* A <Cgroup> path through a symlink out of an explicit root. */
  const char *root = fx_tmpdir();
  fx_symlink("/tmp", "escape");
  fx_write("plain", "");
  c = jc_config_new();
  jc_config_set_root(c, root, err, sizeof(err));
  jc_config_add_managed(c, "escape/x", err, sizeof(err));
  refused(jc_config_finish(c, err, sizeof(err)), "<Cgroup> through a symlink",
          "symlink");
  jc_config_free(c);
  c = jc_config_new();
  jc_config_set_root(c, root, err, sizeof(err));
  jc_config_add_managed(c, "plain/x", err, sizeof(err));
  refused(jc_config_finish(c, err, sizeof(err)), "<Cgroup> under a file",
          "not a directory");
  jc_config_free(c);
  c = jc_config_new();
  jc_config_set_root(c, root, err, sizeof(err));
  jc_config_add_managed(c, "missing/x", err, sizeof(err));
  is_int(jc_config_finish(c, err, sizeof(err)), 0,
         "a <Cgroup> that does not exist yet is fine at config time");
  ok(c->select_count == 0, "a <Cgroup> block alone selects nothing else");
  jc_config_free(c);
  fx_cleanup();
  /* Values: the lean default, globs in order, names that match nothing. */
  c = jc_config_new();
  is_int(jc_config_finish(c, err, sizeof(err)), 0, "the default value set");
  ok(c->sel.list[JC_LIST_PS_CPUTIME] == JC_SEL_DEFAULT &&
         c->sel.list[JC_LIST_CPU_CORES] == JC_SEL_DEFAULT &&
         c->sel.list[JC_LIST_CPU_USAGE_USEC] == JC_SEL_OFF &&
         c->sel.list[JC_LIST_CPU_PERCENT] == JC_SEL_OFF &&
         c->sel.list[JC_LIST_MEMORY_SWAP_CURRENT] == JC_SEL_OFF &&
         c->sel.list[JC_LIST_MEMORY_MAX_PERCENT] == JC_SEL_DEFAULT &&
         c->memstat.sel[0] == JC_SEL_OFF && !c->path_meta,
     "default: cpu time and cores, no usage_usec, percent-cpu, swap or "
     "memory.stat keys; no meta data where the name says the path");
  jc_config_free(c);
  c = jc_config_new();
  is_int(jc_config_add_values(c, "*", err, sizeof(err)), 0, "Values \"*\"");
  is_int(jc_config_finish(c, err, sizeof(err)), 0, "finish");
  ok(c->sel.list[JC_LIST_CPU_USAGE_USEC] == JC_SEL_ASKED &&
         c->memstat.sel[5] == JC_SEL_ASKED &&
         c->sel.list[JC_LIST_PSI_STALL] == JC_SEL_OFF,
     "\"*\": every list of the collected groups (the previous default), "
     "no pressure without Collect \"pressure\"");
  jc_config_free(c);
  c = jc_config_new();
  jc_config_add_values(c, "memory-curent", err, sizeof(err));
  refused(jc_config_finish(c, err, sizeof(err)), "Values \"memory-curent\"",
          "Values \"memory-curent\": matches no value list");
  jc_config_free(c);
  c = jc_config_new();
  jc_config_add_values(c, "derive-*_stall_usec", err, sizeof(err));
  refused(jc_config_finish(c, err, sizeof(err)), "pressure lists without Collect pressure",
          "Collect \"pressure\", which is not collected");
  jc_config_free(c);
  c = jc_config_new();
  refused(jc_config_add_values(c, "!", err, sizeof(err)), "Values \"!\"",
          "is empty");
  jc_config_add_managed(c, "a", err, sizeof(err));
  jc_config_add_managed(c, "b", err, sizeof(err)); /* may move the first */
  jc_config_managed_set_instance(&c->managed[0], "job", err, sizeof(err));
  jc_config_managed_set_instance(&c->managed[1], "job", err, sizeof(err));
  refused(jc_config_finish(c, err, sizeof(err)), "one Instance for two blocks",
          "Instance \"job\" is given to <Cgroup \"a\"> too");
  jc_config_free(c);
  c = jc_config_new();
  jc_config_managed_set_instance(jc_config_add_managed(c, "a", err, sizeof(err)),
                          "root", err, sizeof(err));
  refused(jc_config_finish(c, err, sizeof(err)), "Instance \"root\"",
          "the root cgroup's");
  jc_config_free(c);

  return done_testing();
}
