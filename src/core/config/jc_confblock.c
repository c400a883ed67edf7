/*
 * jc_confblock — see jc_confblock.h.
 */
#include "jc_confblock.h"

#include <errno.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Where the first bad item's message goes. */
typedef struct {
  char *why;
  size_t n;
  const jc_conf_item **bad;
} report;

/* `Key value ...` as the user wrote it, for messages; a <Cgroup> block in
 * its brackets. */
static void describe_item(const jc_conf_item *ci, char *out, size_t size) {
  bool block = strcasecmp(ci->key, "Cgroup") == 0;
  size_t len = (size_t)snprintf(out, size, "%s%s", block ? "<" : "", ci->key);
  for (int i = 0; i < ci->values_num && len < size; i++) {
    const jc_conf_value *v = &ci->values[i];
    if (v->type == JC_CONF_STRING)
      len += (size_t)snprintf(out + len, size - len, " \"%s\"", v->string);
    else if (v->type == JC_CONF_NUMBER)
      len += (size_t)snprintf(out + len, size - len, " %g", v->number);
    else
      len += (size_t)snprintf(out + len, size - len, " %s",
                              v->boolean ? "true" : "false");
  }
  if (block && len + 1 < size)
    snprintf(out + len, size - len, ">");
}

static int item_error(const report *r, const jc_conf_item *ci,
                      const char *why) {
  char item[512];
  describe_item(ci, item, sizeof(item));
  snprintf(r->why, r->n, "%s: %s", item, why);
  *r->bad = ci;
  return -EINVAL;
}

static int expect(const report *r, const jc_conf_item *ci, jc_conf_type type,
                  bool many) {
  static const char *const names[] = {"a string", "a number", "a boolean"};
  if (ci->values_num < 1 || (!many && ci->values_num != 1))
    return item_error(r, ci, many ? "expects one or more arguments"
                                  : "expects exactly one argument");
  for (int i = 0; i < ci->values_num; i++)
    if (ci->values[i].type != type) {
      char why[64];
      snprintf(why, sizeof(why), "expects %s%s", names[type],
               many ? " for every argument" : "");
      return item_error(r, ci, why);
    }
  return 0;
}

typedef int (*string_setter)(jc_config *cfg, const char *value, char *why,
                             size_t n);

/* Applies setter to every string argument of ci. */
static int each_string(const report *r, jc_config *cfg,
                       const jc_conf_item *ci, string_setter setter,
                       bool many) {
  if (expect(r, ci, JC_CONF_STRING, many) < 0)
    return -EINVAL;
  for (int i = 0; i < ci->values_num; i++) {
    char why[512];
    if (setter(cfg, ci->values[i].string, why, sizeof(why)) < 0)
      return item_error(r, ci, why);
  }
  return 0;
}

static int add_select(jc_config *cfg, const char *v, char *why, size_t n) {
  return jc_config_add_pattern(cfg, false, v, why, n);
}
static int add_ignore(jc_config *cfg, const char *v, char *why, size_t n) {
  return jc_config_add_pattern(cfg, true, v, why, n);
}

static int cgroup_option(const report *rep, jc_managed *m,
                         const jc_conf_item *ci) {
  char why[512];
  int r = 0;
  if (strcasecmp(ci->key, "Instance") == 0) {
    if (expect(rep, ci, JC_CONF_STRING, false) < 0)
      return -EINVAL;
    r = jc_config_managed_set_instance(m, ci->values[0].string, why,
                                       sizeof(why));
  } else if (strcasecmp(ci->key, "Create") == 0) {
    if (expect(rep, ci, JC_CONF_BOOLEAN, false) < 0)
      return -EINVAL;
    m->create = ci->values[0].boolean;
  } else if (strcasecmp(ci->key, "AttachPid") == 0) {
    if (expect(rep, ci, JC_CONF_NUMBER, true) < 0)
      return -EINVAL;
    for (int i = 0; r == 0 && i < ci->values_num; i++)
      r = jc_config_managed_add_pid(m, ci->values[i].number, why,
                                    sizeof(why));
  } else if (strcasecmp(ci->key, "AttachPidFile") == 0) {
    if (expect(rep, ci, JC_CONF_STRING, true) < 0)
      return -EINVAL;
    for (int i = 0; r == 0 && i < ci->values_num; i++)
      r = jc_config_managed_add_pid_file(m, ci->values[i].string, why,
                                         sizeof(why));
  } else {
    return item_error(rep, ci, "unknown option in <Cgroup>; known: "
                               "Instance, Create, AttachPid, AttachPidFile");
  }
  return r < 0 ? item_error(rep, ci, why) : 0;
}

static int cgroup_block(const report *r, jc_config *cfg,
                        const jc_conf_item *ci) {
  char why[512];
  if (expect(r, ci, JC_CONF_STRING, false) < 0)
    return -EINVAL;
  jc_managed *m = jc_config_add_managed(cfg, ci->values[0].string, why,
                                        sizeof(why));
  if (!m)
    return item_error(r, ci, why);
  for (int i = 0; i < ci->children_num; i++)
    if (cgroup_option(r, m, &ci->children[i]) < 0)
      return -EINVAL;
  return 0;
}

static int set_bool(const report *r, bool *slot, const jc_conf_item *ci) {
  if (expect(r, ci, JC_CONF_BOOLEAN, false) < 0)
    return -EINVAL;
  *slot = ci->values[0].boolean;
  return 0;
}

static int set_number(const report *r, jc_config *cfg, const jc_conf_item *ci,
                      int (*setter)(jc_config *, double, char *, size_t)) {
  char why[256];
  if (expect(r, ci, JC_CONF_NUMBER, false) < 0)
    return -EINVAL;
  if (setter(cfg, ci->values[0].number, why, sizeof(why)) < 0)
    return item_error(r, ci, why);
  return 0;
}

/* RuntimeDir "KIND" "DIR": two strings. */
static int runtime_dir(const report *r, jc_config *cfg,
                       const jc_conf_item *ci) {
  char why[512];
  if (ci->values_num != 2 || ci->values[0].type != JC_CONF_STRING ||
      ci->values[1].type != JC_CONF_STRING)
    return item_error(r, ci, "expects two strings: the runtime (containerd, "
                             "crio, docker, podman, kubelet) and its "
                             "directory");
  if (jc_config_set_runtime_dir(cfg, ci->values[0].string,
                                ci->values[1].string, why, sizeof(why)) < 0)
    return item_error(r, ci, why);
  return 0;
}

static int option(const report *r, jc_config *cfg, const jc_conf_item *ci) {
  const char *k = ci->key;
  if (strcasecmp(k, "CgroupRoot") == 0)
    return each_string(r, cfg, ci, jc_config_set_root, false);
  if (strcasecmp(k, "PowercapRoot") == 0)
    return each_string(r, cfg, ci, jc_config_set_powercap_root, false);
  if (strcasecmp(k, "ProcStat") == 0)
    return each_string(r, cfg, ci, jc_config_set_proc_stat, false);
  if (strcasecmp(k, "CpuRoot") == 0)
    return each_string(r, cfg, ci, jc_config_set_cpu_root, false);
  if (strcasecmp(k, "ProcRoot") == 0)
    return each_string(r, cfg, ci, jc_config_set_proc_root, false);
  if (strcasecmp(k, "GpuLibrary") == 0)
    return each_string(r, cfg, ci, jc_config_set_gpu_library, false);
  if (strcasecmp(k, "NetInterface") == 0)
    return each_string(r, cfg, ci, jc_config_add_net_interface, true);
  if (strcasecmp(k, "NetIgnoreSelected") == 0)
    return set_bool(r, &cfg->net_ignore_selected, ci);
  if (strcasecmp(k, "ReportRoot") == 0)
    return set_bool(r, &cfg->report_root, ci);
  if (strcasecmp(k, "Select") == 0)
    return each_string(r, cfg, ci, add_select, true);
  if (strcasecmp(k, "Ignore") == 0)
    return each_string(r, cfg, ci, add_ignore, true);
  if (strcasecmp(k, "InstanceFrom") == 0)
    return each_string(r, cfg, ci, jc_config_set_instance_from, false);
  if (strcasecmp(k, "RuntimeRoot") == 0)
    return each_string(r, cfg, ci, jc_config_set_runtime_root, false);
  if (strcasecmp(k, "RuntimeDir") == 0)
    return runtime_dir(r, cfg, ci);
  if (strcasecmp(k, "ContainerNames") == 0)
    return each_string(r, cfg, ci, jc_config_set_container_names, false);
  if (strcasecmp(k, "Collect") == 0)
    return each_string(r, cfg, ci, jc_config_add_collect, true);
  if (strcasecmp(k, "MemoryStat") == 0)
    return each_string(r, cfg, ci, jc_config_add_memstat, true);
  if (strcasecmp(k, "Values") == 0)
    return each_string(r, cfg, ci, jc_config_add_values, true);
  if (strcasecmp(k, "PathMetaData") == 0)
    return set_bool(r, &cfg->path_meta, ci);
  if (strcasecmp(k, "PerDevice") == 0)
    return set_bool(r, &cfg->per_device, ci);
  if (strcasecmp(k, "NotifyOOM") == 0)
    return set_bool(r, &cfg->notify_oom, ci);
  if (strcasecmp(k, "NotifyEnd") == 0)
    return set_bool(r, &cfg->notify_end, ci);
  if (strcasecmp(k, "MaxOpenFiles") == 0)
    return set_number(r, cfg, ci, jc_config_set_max_open_files);
  if (strcasecmp(k, "DiskWalkEntries") == 0)
    return set_number(r, cfg, ci, jc_config_set_disk_walk_entries);
  if (strcasecmp(k, "RescanInterval") == 0)
    return set_number(r, cfg, ci, jc_config_set_rescan_interval);
  if (strcasecmp(k, "Cgroup") == 0)
    return cgroup_block(r, cfg, ci);
  if (strcasecmp(k, "Instance") == 0)
    return item_error(r, ci, "Instance belongs inside a <Cgroup> block; "
                             "selected cgroups are named by InstanceFrom");
  return item_error(r, ci, "unknown option");
}

int jc_confblock_apply(jc_config *cfg, const jc_conf_item *block,
                       const jc_conf_item **ret_bad, char *why, size_t n) {
  report r = {why, n, ret_bad};
  for (int i = 0; i < block->children_num; i++)
    if (option(&r, cfg, &block->children[i]) < 0)
      return -EINVAL;
  return 0;
}

int jc_confblock_finish(jc_config *cfg, const jc_conf_item *block,
                        const jc_conf_item **ret_bad, char *why, size_t n) {
  int r = jc_config_finish(cfg, why, n);
  if (r == 0)
    return 0;
  *ret_bad = block;
  /* Each Values item added its strings in order (jc_confblock_apply). */
  size_t first = 0;
  for (int i = 0; i < block->children_num; i++) {
    const jc_conf_item *ci = &block->children[i];
    if (strcasecmp(ci->key, "Values") != 0)
      continue;
    first += (size_t)ci->values_num;
    if (cfg->values_refused < first) {
      *ret_bad = ci;
      break;
    }
  }
  return r;
}
