/**
 * joule_cgroup — collectd plugin for Linux cgroup v2 accounting.
 *
 * This file is the only one that knows collectd: it turns the
 * <Plugin joule_cgroup> block into a jc_config, runs a jc_collector on
 * collectd's init/read/shutdown callbacks, sends its log lines to
 * collectd's log, and dispatches its metrics as value lists (in batches,
 * below) carrying the cgroup's path in the `cgroup` meta data where the
 * instance name does not say it.
 *
 * Licensed under the MIT license.
 **/

#include "collectd.h"

#include "plugin.h"
#include "utils/common/common.h"

#include "jc_collector.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PLUGIN_NAME "joule_cgroup"

static jc_config *pending_config;  /* from config until init */
static jc_collector *collector;    /* from init until shutdown */
static bool configured_once;

/* ---- config ------------------------------------------------------------- */

/* `Key value` as the user wrote it, for error messages. */
static void describe_item(const oconfig_item_t *ci, char *out, size_t size) {
  bool block = strcasecmp(ci->key, "Cgroup") == 0;
  size_t len = (size_t)snprintf(out, size, "%s%s", block ? "<" : "", ci->key);
  for (int i = 0; i < ci->values_num && len < size; i++) {
    const oconfig_value_t *v = &ci->values[i];
    if (v->type == OCONFIG_TYPE_STRING)
      len += (size_t)snprintf(out + len, size - len, " \"%s\"", v->value.string);
    else if (v->type == OCONFIG_TYPE_NUMBER)
      len += (size_t)snprintf(out + len, size - len, " %g", v->value.number);
    else
      len += (size_t)snprintf(out + len, size - len, " %s",
                              v->value.boolean ? "true" : "false");
  }
  if (block && len + 1 < size)
    snprintf(out + len, size - len, ">");
}

static int config_error(const oconfig_item_t *ci, const char *why) {
  char item[512];
  describe_item(ci, item, sizeof(item));
  ERROR(PLUGIN_NAME " plugin: %s: %s", item, why);
  return -1;
}

static int expect(const oconfig_item_t *ci, int type, bool many) {
  static const char *const names[] = {"a string", "a number", "a boolean"};
  if (ci->values_num < 1 || (!many && ci->values_num != 1))
    return config_error(ci, many ? "expects one or more arguments"
                                 : "expects exactly one argument");
  for (int i = 0; i < ci->values_num; i++)
    if (ci->values[i].type != type) {
      char why[64];
      snprintf(why, sizeof(why), "expects %s%s", names[type],
               many ? " for every argument" : "");
      return config_error(ci, why);
    }
  return 0;
}

typedef int (*string_setter)(jc_config *cfg, const char *value, char *err,
                             size_t n);

/* Applies setter to every string argument of ci. */
static int each_string(jc_config *cfg, const oconfig_item_t *ci,
                       string_setter setter, bool many) {
  if (expect(ci, OCONFIG_TYPE_STRING, many) < 0)
    return -1;
  for (int i = 0; i < ci->values_num; i++) {
    char err[512];
    if (setter(cfg, ci->values[i].value.string, err, sizeof(err)) < 0)
      return config_error(ci, err);
  }
  return 0;
}

static int add_select(jc_config *cfg, const char *v, char *err, size_t n) {
  return jc_config_add_pattern(cfg, false, v, err, n);
}
static int add_ignore(jc_config *cfg, const char *v, char *err, size_t n) {
  return jc_config_add_pattern(cfg, true, v, err, n);
}

static int config_cgroup_option(jc_managed *m, const oconfig_item_t *ci) {
  char err[512];
  int r = 0;
  if (strcasecmp(ci->key, "Instance") == 0) {
    if (expect(ci, OCONFIG_TYPE_STRING, false) < 0)
      return -1;
    r = jc_config_managed_set_instance(m, ci->values[0].value.string, err, sizeof(err));
  } else if (strcasecmp(ci->key, "Create") == 0) {
    if (expect(ci, OCONFIG_TYPE_BOOLEAN, false) < 0)
      return -1;
    m->create = ci->values[0].value.boolean;
  } else if (strcasecmp(ci->key, "AttachPid") == 0) {
    if (expect(ci, OCONFIG_TYPE_NUMBER, true) < 0)
      return -1;
    for (int i = 0; r == 0 && i < ci->values_num; i++)
      r = jc_config_managed_add_pid(m, ci->values[i].value.number, err, sizeof(err));
  } else if (strcasecmp(ci->key, "AttachPidFile") == 0) {
    if (expect(ci, OCONFIG_TYPE_STRING, true) < 0)
      return -1;
    for (int i = 0; r == 0 && i < ci->values_num; i++)
      r = jc_config_managed_add_pid_file(m, ci->values[i].value.string, err,
                                  sizeof(err));
  } else {
    return config_error(ci, "unknown option in <Cgroup>; known: Instance, "
                            "Create, AttachPid, AttachPidFile");
  }
  return r < 0 ? config_error(ci, err) : 0;
}

static int config_cgroup_block(jc_config *cfg, const oconfig_item_t *ci) {
  char err[512];
  if (expect(ci, OCONFIG_TYPE_STRING, false) < 0)
    return -1;
  jc_managed *m =
      jc_config_add_managed(cfg, ci->values[0].value.string, err, sizeof(err));
  if (!m)
    return config_error(ci, err);
  for (int i = 0; i < ci->children_num; i++)
    if (config_cgroup_option(m, &ci->children[i]) < 0)
      return -1;
  return 0;
}

static int config_bool(bool *slot, const oconfig_item_t *ci) {
  if (expect(ci, OCONFIG_TYPE_BOOLEAN, false) < 0)
    return -1;
  *slot = ci->values[0].value.boolean;
  return 0;
}

static int config_number(jc_config *cfg, const oconfig_item_t *ci,
                         int (*setter)(jc_config *, double, char *, size_t)) {
  char err[256];
  if (expect(ci, OCONFIG_TYPE_NUMBER, false) < 0)
    return -1;
  if (setter(cfg, ci->values[0].value.number, err, sizeof(err)) < 0)
    return config_error(ci, err);
  return 0;
}

/* RuntimeDir "KIND" "DIR": two strings. */
static int config_runtime_dir(jc_config *cfg, const oconfig_item_t *ci) {
  char err[512];
  if (ci->values_num != 2 || ci->values[0].type != OCONFIG_TYPE_STRING ||
      ci->values[1].type != OCONFIG_TYPE_STRING)
    return config_error(ci, "expects two strings: the runtime (containerd, "
                            "crio, docker, podman, kubelet) and its directory");
  if (jc_config_set_runtime_dir(cfg, ci->values[0].value.string,
                                ci->values[1].value.string, err,
                                sizeof(err)) < 0)
    return config_error(ci, err);
  return 0;
}

static int config_option(jc_config *cfg, const oconfig_item_t *ci) {
  const char *k = ci->key;
  if (strcasecmp(k, "CgroupRoot") == 0)
    return each_string(cfg, ci, jc_config_set_root, false);
  if (strcasecmp(k, "PowercapRoot") == 0)
    return each_string(cfg, ci, jc_config_set_powercap_root, false);
  if (strcasecmp(k, "ProcStat") == 0)
    return each_string(cfg, ci, jc_config_set_proc_stat, false);
  if (strcasecmp(k, "ReportRoot") == 0)
    return config_bool(&cfg->report_root, ci);
  if (strcasecmp(k, "Select") == 0)
    return each_string(cfg, ci, add_select, true);
  if (strcasecmp(k, "Ignore") == 0)
    return each_string(cfg, ci, add_ignore, true);
  if (strcasecmp(k, "InstanceFrom") == 0)
    return each_string(cfg, ci, jc_config_set_instance_from, false);
  if (strcasecmp(k, "RuntimeRoot") == 0)
    return each_string(cfg, ci, jc_config_set_runtime_root, false);
  if (strcasecmp(k, "RuntimeDir") == 0)
    return config_runtime_dir(cfg, ci);
  if (strcasecmp(k, "Collect") == 0)
    return each_string(cfg, ci, jc_config_add_collect, true);
  if (strcasecmp(k, "MemoryStat") == 0)
    return each_string(cfg, ci, jc_config_add_memstat, true);
  if (strcasecmp(k, "Values") == 0)
    return each_string(cfg, ci, jc_config_add_values, true);
  if (strcasecmp(k, "PathMetaData") == 0)
    return config_bool(&cfg->path_meta, ci);
  if (strcasecmp(k, "PerDevice") == 0)
    return config_bool(&cfg->per_device, ci);
  if (strcasecmp(k, "NotifyOOM") == 0)
    return config_bool(&cfg->notify_oom, ci);
  if (strcasecmp(k, "NotifyEnd") == 0)
    return config_bool(&cfg->notify_end, ci);
  if (strcasecmp(k, "MaxOpenFiles") == 0)
    return config_number(cfg, ci, jc_config_set_max_open_files);
  if (strcasecmp(k, "RescanInterval") == 0)
    return config_number(cfg, ci, jc_config_set_rescan_interval);
  if (strcasecmp(k, "Cgroup") == 0)
    return config_cgroup_block(cfg, ci);
  if (strcasecmp(k, "Instance") == 0)
    return config_error(ci, "Instance belongs inside a <Cgroup> block; "
                            "selected cgroups are named by InstanceFrom");
  return config_error(ci, "unknown option");
}

static int jc_config_cb(oconfig_item_t *ci) {
  if (configured_once) {
    ERROR(PLUGIN_NAME " plugin: only one <Plugin " PLUGIN_NAME
                      "> block is allowed");
    return -1;
  }
  configured_once = true;
  jc_config *cfg = jc_config_new();
  if (!cfg)
    return -1;
  for (int i = 0; i < ci->children_num; i++)
    if (config_option(cfg, &ci->children[i]) < 0) {
      jc_config_free(cfg);
      return -1;
    }
  char err[512];
  if (jc_config_finish(cfg, err, sizeof(err)) < 0) {
    ERROR(PLUGIN_NAME " plugin: %s", err);
    jc_config_free(cfg);
    return -1;
  }
  pending_config = cfg;
  return 0;
}

/* ---- init, read, shutdown ------------------------------------------------ */

static void log_to_collectd(void *ctx, int level, const char *msg) {
  (void)ctx;
  plugin_log(level, PLUGIN_NAME " plugin: %s", msg);
}

/*
 * Value lists are handed to collectd in batches, not one by one as the
 * read pass makes them.  Each plugin_dispatch_values() wakes one of
 * collectd's write threads; between two cgroups the read pass spends most
 * of its time in the kernel reading files, long enough for the write
 * threads to drain the queue and sleep again, so a list at a time costs
 * several thread switches per cgroup.  Dispatched back to back, the lists
 * find the write threads awake (make bench: a fifth less of collectd's
 * CPU per cgroup at the default set).  A list gets its time when it is
 * made, as it did when it was dispatched at once; a notification first
 * sends the lists made before it.  One batch, since collectd calls a read
 * callback from one thread at a time.
 */
#define BATCH_LISTS 256

typedef struct {
  value_list_t vl;
  value_t values[JC_METRIC_VALUES];
} pending_list;

/* The `cgroup` meta data: one object per cgroup and batch, shared by its
 * lists (plugin_dispatch_values copies it), freed when they are sent;
 * none where the instance already says the path. */
static struct {
  pending_list list[BATCH_LISTS];
  size_t count;
  meta_data_t *meta[BATCH_LISTS];
  size_t meta_count;
  char meta_cgroup[PATH_MAX]; /* the cgroup meta[meta_count - 1] is for */
} batch;

static void batch_flush(void) {
  for (size_t i = 0; i < batch.count; i++) {
    batch.list[i].vl.values = batch.list[i].values;
    plugin_dispatch_values(&batch.list[i].vl);
  }
  for (size_t i = 0; i < batch.meta_count; i++)
    meta_data_destroy(batch.meta[i]);
  batch.count = batch.meta_count = 0;
}

static meta_data_t *meta_for(const jc_target *t) {
  if (!t->meta)
    return NULL;
  if (batch.meta_count && strcmp(batch.meta_cgroup, t->meta) == 0)
    return batch.meta[batch.meta_count - 1];
  meta_data_t *meta = meta_data_create();
  if (!meta)
    return NULL;
  meta_data_add_string(meta, "cgroup", t->meta);
  batch.meta[batch.meta_count++] = meta; /* at most one per list */
  sstrncpy(batch.meta_cgroup, t->meta, sizeof(batch.meta_cgroup));
  return meta;
}

static void dispatch_metric(void *ctx, const jc_target *t,
                            const jc_metric *m) {
  (void)ctx;
  if (batch.count == BATCH_LISTS)
    batch_flush();
  pending_list *p = &batch.list[batch.count++];
  for (size_t i = 0; i < m->count; i++)
    p->values[i] = m->kind == JC_GAUGE ? (value_t){.gauge = m->gauge[i]}
                                       : (value_t){.derive = m->derive[i]};
  value_list_t *vl = &p->vl;
  *vl = (value_list_t)VALUE_LIST_INIT;
  vl->values_len = m->count;
  vl->time = cdtime();
  vl->meta = meta_for(t);
  sstrncpy(vl->plugin, PLUGIN_NAME, sizeof(vl->plugin));
  sstrncpy(vl->plugin_instance, t->instance, sizeof(vl->plugin_instance));
  sstrncpy(vl->type, m->type, sizeof(vl->type));
  sstrncpy(vl->type_instance, m->type_instance, sizeof(vl->type_instance));
}

/* The process an OOM kill took, as meta data (docs/metrics.md, OOM
 * notifications); what the kernel's log did not say is left out. */
static void add_victim(notification_t *n, const jc_oom_victim *v) {
  plugin_notification_meta_add_signed_int(n, "pid", v->pid);
  plugin_notification_meta_add_string(n, "command", v->command);
  if (v->uid >= 0)
    plugin_notification_meta_add_unsigned_int(n, "uid", (uint64_t)v->uid);
  plugin_notification_meta_add_string(n, "oom_cgroup", v->cgroup);
  if (v->limit_cgroup)
    plugin_notification_meta_add_string(n, "limit_cgroup", v->limit_cgroup);
  if (v->limit != UINT64_MAX)
    plugin_notification_meta_add_unsigned_int(n, "limit", v->limit);
}

/* A notification of the core (an OOM kill, a cgroup's end) as a collectd
 * notification, with the cgroup's path in the `cgroup` meta data, and the
 * process an OOM kill took when the core knows it. */
static void dispatch_notification(void *ctx, const jc_target *t,
                                  const jc_notification *jn) {
  (void)ctx;
  batch_flush(); /* the values before it, first */
  notification_t n = {.severity = (int)jn->severity, .time = cdtime()};
  sstrncpy(n.host, hostname_g, sizeof(n.host));
  sstrncpy(n.plugin, PLUGIN_NAME, sizeof(n.plugin));
  sstrncpy(n.plugin_instance, t->instance, sizeof(n.plugin_instance));
  sstrncpy(n.type, jn->type, sizeof(n.type));
  sstrncpy(n.type_instance, jn->type_instance, sizeof(n.type_instance));
  sstrncpy(n.message, jn->message, sizeof(n.message));
  plugin_notification_meta_add_string(&n, "cgroup", t->meta);
  for (size_t i = 0; i < jn->meta_count; i++) {
    const jc_note_meta *m = &jn->meta[i];
    if (m->kind == JC_META_TEXT)
      plugin_notification_meta_add_string(&n, m->key, m->text);
    else if (m->kind == JC_META_COUNT)
      plugin_notification_meta_add_unsigned_int(&n, m->key, m->count);
    else
      plugin_notification_meta_add_double(&n, m->key, m->number);
  }
  if (jn->victim)
    add_victim(&n, jn->victim);
  plugin_dispatch_notification(&n);
  plugin_notification_meta_free(n.meta);
}

/*
 * Between collectd's reads a thread of the plugin waits on the core's
 * events descriptor (inotify: a cgroup appeared, or one emptied) and lets
 * the core read a cgroup that ended at once, while its files still hold
 * its last figures (docs/metrics.md, final figures).  It sleeps in poll()
 * otherwise: no cost, no wake-up.  The collector and the batch are used
 * by one thread at a time: collector_lock.
 */
static pthread_mutex_t collector_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t watcher;
static bool watcher_running;
static int watcher_stop[2] = {-1, -1}; /* a pipe: written at shutdown */

/* The race it runs is against whoever removes the cgroup (systemd, a
 * container runtime), woken by the same event: ahead of the busy
 * processes of a loaded host, it reads first.  Only root may raise it;
 * elsewhere it stays as it is. */
#define WATCHER_NICE (-10)

static void *watch_events(void *arg) {
  (void)arg;
  (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WATCHER_NICE);
  struct pollfd fds[2] = {
      {.fd = jc_collector_events_fd(collector), .events = POLLIN},
      {.fd = watcher_stop[0], .events = POLLIN}};
  for (;;) {
    if (poll(fds, 2, -1) < 0 && errno != EINTR)
      break;
    if (fds[1].revents)
      break;
    if (!(fds[0].revents & POLLIN))
      continue;
    pthread_mutex_lock(&collector_lock);
    jc_collector_handle_events(collector, dispatch_metric, NULL);
    batch_flush();
    pthread_mutex_unlock(&collector_lock);
  }
  return NULL;
}

static void watcher_start(void) {
  if (jc_collector_events_fd(collector) < 0 || pipe2(watcher_stop, O_CLOEXEC) < 0)
    return;
  if (plugin_thread_create(&watcher, watch_events, NULL, PLUGIN_NAME) == 0) {
    watcher_running = true;
    return;
  }
  WARNING(PLUGIN_NAME " plugin: cannot start the thread that reads cgroups "
                      "as they end; they are read at the next read instead");
  close(watcher_stop[0]);
  close(watcher_stop[1]);
  watcher_stop[0] = watcher_stop[1] = -1;
}

static void watcher_end(void) {
  if (watcher_running) {
    (void)!write(watcher_stop[1], "", 1);
    pthread_join(watcher, NULL);
    watcher_running = false;
  }
  for (int i = 0; i < 2; i++)
    if (watcher_stop[i] >= 0)
      close(watcher_stop[i]);
  watcher_stop[0] = watcher_stop[1] = -1;
}

static int jc_read_cb(user_data_t *ud) {
  (void)ud;
  pthread_mutex_lock(&collector_lock);
  int r = collector ? jc_collector_read(collector, dispatch_metric, NULL) : -1;
  batch_flush();
  pthread_mutex_unlock(&collector_lock);
  return r;
}

static int jc_init_cb(void) {
  INFO(PLUGIN_NAME " plugin: version " JC_VERSION);
  jc_config *cfg = pending_config;
  pending_config = NULL;
  if (!cfg && !(cfg = jc_config_new())) /* LoadPlugin without a block */
    return -1;
  char err[512];
  if (!configured_once && jc_config_finish(cfg, err, sizeof(err)) < 0) {
    ERROR(PLUGIN_NAME " plugin: %s", err);
    jc_config_free(cfg);
    return -1;
  }
  collector = jc_collector_new(cfg, log_to_collectd, NULL);
  if (collector)
    jc_collector_set_notify(collector, dispatch_notification, NULL);
  if (!collector || jc_collector_init(collector) < 0) {
    jc_collector_free(collector);
    collector = NULL;
    return -1;
  }
  watcher_start();
  return plugin_register_complex_read(NULL, PLUGIN_NAME, jc_read_cb, 0, NULL);
}

static int jc_shutdown_cb(void) {
  watcher_end();
  jc_collector_free(collector); /* evacuates and removes our cgroups */
  collector = NULL;
  jc_config_free(pending_config);
  pending_config = NULL;
  return 0;
}

void module_register(void) {
  plugin_register_complex_config(PLUGIN_NAME, jc_config_cb);
  plugin_register_init(PLUGIN_NAME, jc_init_cb);
  plugin_register_shutdown(PLUGIN_NAME, jc_shutdown_cb);
}
