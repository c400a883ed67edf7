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
#include "jc_confblock.h"
#include "jc_version.h"

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

/* collectd's items as the core's (jc_confblock): strings borrowed from
 * collectd's tree, which outlives the call; the arrays are ours. */
static void items_free(jc_conf_item *items, int count) {
  for (int i = 0; items && i < count; i++) {
    free(items[i].values);
    items_free(items[i].children, items[i].children_num);
  }
  free(items);
}

static jc_conf_item *items_from(const oconfig_item_t *src, int count) {
  jc_conf_item *items = calloc(count > 0 ? (size_t)count : 1, sizeof(*items));
  for (int i = 0; items && i < count; i++) {
    const oconfig_item_t *s = &src[i];
    jc_conf_item *d = &items[i];
    d->key = s->key;
    d->values = calloc(s->values_num > 0 ? (size_t)s->values_num : 1,
                       sizeof(*d->values));
    d->children = items_from(s->children, s->children_num);
    if (!d->values || !d->children) {
      items_free(items, i + 1);
      return NULL;
    }
    d->values_num = s->values_num;
    d->children_num = s->children_num;
    for (int k = 0; k < s->values_num; k++) {
      const oconfig_value_t *v = &s->values[k];
      d->values[k] = v->type == OCONFIG_TYPE_STRING
                         ? (jc_conf_value){JC_CONF_STRING, v->value.string, 0, false}
                     : v->type == OCONFIG_TYPE_NUMBER
                         ? (jc_conf_value){JC_CONF_NUMBER, NULL, v->value.number, false}
                         : (jc_conf_value){JC_CONF_BOOLEAN, NULL, 0, v->value.boolean != 0};
    }
  }
  return items;
}

static int jc_config_cb(oconfig_item_t *ci) {
  if (configured_once) {
    ERROR(PLUGIN_NAME " plugin: " JC_CONFBLOCK_ONLY_ONE);
    return -1;
  }
  configured_once = true;
  jc_config *cfg = jc_config_new();
  jc_conf_item block = {.key = ci->key, .children_num = ci->children_num};
  block.children = items_from(ci->children, ci->children_num);
  if (!cfg || !block.children) {
    ERROR(PLUGIN_NAME " plugin: out of memory");
    jc_config_free(cfg);
    items_free(block.children, block.children_num);
    return -1;
  }
  const jc_conf_item *bad;
  char why[1024];
  int r = jc_confblock_apply(cfg, &block, &bad, why, sizeof(why));
  items_free(block.children, block.children_num);
  if (r == 0)
    r = jc_config_finish(cfg, why, sizeof(why));
  if (r < 0) {
    ERROR(PLUGIN_NAME " plugin: %s", why);
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
  vl->time = m->time_ns ? NS_TO_CDTIME_T(m->time_ns) : cdtime();
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
 * its last figures (docs/metrics.md, final figures); and it wakes when the
 * core wants a reading of its own between collectd's reads (the energy
 * counters, read before they could wrap twice, whatever the interval:
 * jc_collector_tick).  It sleeps in poll() otherwise: no cost, no
 * wake-up.  The collector and the batch are used by one thread at a time:
 * collector_lock.
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
  pthread_mutex_lock(&collector_lock);
  int timeout = jc_collector_tick_in_ms(collector);
  pthread_mutex_unlock(&collector_lock);
  for (;;) {
    int ready = poll(fds, 2, timeout);
    if (ready < 0 && errno != EINTR)
      break;
    if (fds[1].revents)
      break;
    pthread_mutex_lock(&collector_lock);
    if (fds[0].revents & POLLIN) {
      jc_collector_handle_events(collector, dispatch_metric, NULL);
      batch_flush();
    }
    jc_collector_tick(collector);
    timeout = jc_collector_tick_in_ms(collector);
    pthread_mutex_unlock(&collector_lock);
  }
  return NULL;
}

static void watcher_start(void) {
  if ((jc_collector_events_fd(collector) < 0 &&
       !jc_collector_wants_ticks(collector)) ||
      pipe2(watcher_stop, O_CLOEXEC) < 0)
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
  char why[512];
  if (!configured_once && jc_config_finish(cfg, why, sizeof(why)) < 0) {
    ERROR(PLUGIN_NAME " plugin: %s", why);
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
