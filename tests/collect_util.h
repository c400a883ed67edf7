/* collect_util — what a collector said and sent, as the unit tests that
 * drive one (unit_collector, unit_gpu) record it: its log lines with
 * their levels, and each value list as "instance/type-type_instance"
 * with its first value; and the collector itself, started on a
 * configuration.  Header-only: each test has its own record. */
#ifndef JC_COLLECT_UTIL_H
#define JC_COLLECT_UTIL_H

#include "jc_collector.h"

#include <stdio.h>
#include <string.h>

static char logs[64][1100];
static int log_level[64];
static int log_count;

static inline void log_cb(void *ctx, int level, const char *msg) {
  (void)ctx;
  if (log_count < 64) {
    snprintf(logs[log_count], sizeof(logs[0]), "%s", msg);
    log_level[log_count++] = level;
  }
}

static inline void show_logs(void) {
  for (int i = 0; i < log_count; i++)
    printf("#   log %d: %s\n", log_level[i], logs[i]);
}

static struct {
  char key[300];
  double v;
} values[512];
static int value_count;

static inline void collect_cb(void *ctx, const jc_target *t,
                              const jc_metric *m) {
  (void)ctx;
  if (value_count == 512)
    return;
  snprintf(values[value_count].key, sizeof(values[0].key), "%s/%s%s%s",
           t->instance, m->type, m->type_instance[0] ? "-" : "",
           m->type_instance);
  values[value_count++].v =
      m->kind == JC_GAUGE ? m->gauge[0] : (double)m->derive[0];
}

/* A collector of cfg (finished; the collector takes it), its log
 * recorded afresh; set_up, when not NULL, before its init (a sink for
 * totals or notifications).  NULL, the log shown, when init fails. */
static inline jc_collector *collector_start(jc_config *cfg,
                                            void (*set_up)(jc_collector *c)) {
  jc_collector *c = jc_collector_new(cfg, log_cb, NULL);
  if (c && set_up)
    set_up(c);
  log_count = 0;
  if (!c || jc_collector_init(c) < 0) {
    show_logs();
    jc_collector_free(c);
    return NULL;
  }
  return c;
}

/* The value of the list key sent; -1 when it was not. */
static inline double value(const char *key) {
  for (int i = 0; i < value_count; i++)
    if (strcmp(values[i].key, key) == 0)
      return values[i].v;
  return -1;
}

#endif
