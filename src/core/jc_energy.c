/*
 * jc_energy — see jc_energy.h.
 *
 * A pass is a stretch of jc_share's, which holds the accounting and its
 * rule for a pass too short for /proc/stat: the zones and /proc/stat are
 * read first (begin: the stretch's rule), then every cgroup's CPU time
 * over the stretch is noted as its sample comes in (note), and after the
 * pass each zone's energy of the stretch is split between the idle part
 * and the noted CPU time, and every counter advances and goes out (end).
 * The split needs the CPU time of all the cgroups first (`covered`: the
 * cgroups not inside another tracked one, so that a parent and its child
 * are not counted twice), which is why the lists go out after the pass
 * and not with the cgroup's other lists.
 */
#include "jc_energy.h"

#include "jc_clock.h"
#include "jc_hier.h"
#include "jc_rapl.h"
#include "jc_share.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The type instances of one zone, made once. */
typedef struct {
  char energy[JC_RAPL_LABEL_MAX + 16]; /* "energy_package-0_uj" */
  char idle[JC_RAPL_LABEL_MAX + 16];   /* "energy_package-0_idle_uj" */
  const char *power;                   /* "package-0": the zone's label */
} zone_names;

struct jc_energy {
  jc_rapl *rapl;
  size_t zones;
  zone_names name[JC_RAPL_ZONES_MAX];
  jc_share_zone zone[JC_RAPL_ZONES_MAX];
  double idle_uj[JC_RAPL_ZONES_MAX]; /* the idle parts, summed */
  jc_procstat stat;
  jc_share_host host; /* the host's CPU time, this pass's rule */
};

/* A cgroup's part: what it was charged, and its CPU time. */
struct jc_energy_share {
  jc_share_usage usage;
  double charged_uj[];
};

static void free_state(struct jc_energy *e) {
  if (!e)
    return;
  jc_rapl_free(e->rapl);
  jc_procstat_close(&e->stat);
  free(e);
}

static bool chosen(const jc_collector *c, jc_list_id id) {
  return c->cfg->sel.list[id] != JC_SEL_OFF;
}

int jc_energy_init(jc_collector *c) {
  if (!jc_lists_any(&c->cfg->sel, JC_LIST_ENERGY, 3))
    return 0;
  struct jc_energy *e = calloc(1, sizeof(*e));
  if (e)
    e->stat.fd = -1;
  if (!e || jc_rapl_open(c->cfg->powercap_root, &c->log, &e->rapl) < 0) {
    free_state(e);
    jc_logf(&c->log, JC_LOG_ERR, "out of memory: energy is not collected");
    return -1;
  }
  if (jc_rapl_state_of(e->rapl) != JC_RAPL_READY) { /* jc_rapl said why */
    free_state(e);
    return 0;
  }
  int r = jc_procstat_open(&e->stat, c->cfg->proc_stat);
  if (r < 0) {
    jc_logf(&c->log, JC_LOG_WARNING,
            "%s: %s: the host's CPU time is not known, so the cgroups' "
            "parts of the energy are not either (the zones' figures go "
            "out)",
            c->cfg->proc_stat ? c->cfg->proc_stat : JC_PROCSTAT_DEFAULT,
            JC_STRERROR(-r));
  }
  e->zones = jc_rapl_zone_count(e->rapl);
  for (size_t i = 0; i < e->zones; i++) {
    const char *label = jc_rapl_zone_at(e->rapl, i)->label;
    snprintf(e->name[i].energy, sizeof(e->name[i].energy), "energy_%s_uj",
             label);
    snprintf(e->name[i].idle, sizeof(e->name[i].idle), "energy_%s_idle_uj",
             label);
    e->name[i].power = label;
  }
  c->energy = e;
  return 0;
}

void jc_energy_begin(jc_collector *c) {
  struct jc_energy *e = c->energy;
  if (!e)
    return;
  jc_rapl_read(e->rapl, c->pass_ns);
  jc_cputimes now;
  bool have = e->stat.fd >= 0 && jc_procstat_read(&e->stat, &now) == 0;
  jc_share_host_end(&e->host, have, &now, false);
}

void jc_energy_note(jc_collector *c, jc_tracked *t, const jc_sample *s) {
  struct jc_energy *e = c->energy;
  if (!e || !t->relpath[0]) /* the root's figures are the host's */
    return;
  if (!t->energy) {
    t->energy = calloc(1, sizeof(*t->energy) + e->zones * sizeof(double));
    if (!t->energy)
      return; /* out of memory: tried again at its next read */
  }
  bool have = jc_sample_has(s, JC_FILE_CPU_STAT) &&
              (s->cpu_have & (1u << JC_CPU_USAGE_USEC));
  jc_share_usage_end(&t->energy->usage, e->host.rule, have,
                     s->cpu[JC_CPU_USAGE_USEC]);
}

/* The CPU time of the noted cgroups not inside another noted one. */
static uint64_t covered_usec(const jc_collector *c) {
  uint64_t covered = 0;
  const char *top = NULL;
  for (size_t i = 0; i < c->tracked_count; i++) {
    const jc_tracked *t = c->tracked[i];
    if (!t->energy || !t->energy->usage.charged)
      continue;
    /* Walk order puts a cgroup's descendants right after it. */
    if (top && jc_hier_is_below(t->relpath, top))
      continue;
    top = t->relpath;
    covered += t->energy->usage.last_usec;
  }
  return covered;
}

static void put_derive(jc_collect_fn emit, void *ctx, const jc_target *t,
                       jc_list_id id, const char *ti, double v) {
  if (!(v >= 0 && v < 9.2e18))
    return;
  jc_metric m = {.list = id, .type = jc_lists[id].type, .type_instance = ti,
                 .kind = JC_DERIVE, .count = 1, .derive = {(int64_t)v}};
  emit(ctx, t, &m);
}

/* The host's figures of zone i, as instance root. */
static void emit_zone(jc_collector *c, size_t i, jc_collect_fn emit,
                      void *ctx, const jc_target *host) {
  struct jc_energy *e = c->energy;
  const jc_rapl_energy *z = jc_rapl_energy_of(e->rapl, i);
  if (!z->read)
    return;
  if (chosen(c, JC_LIST_ENERGY))
    put_derive(emit, ctx, host, JC_LIST_ENERGY, e->name[i].energy,
               (double)z->total_uj);
  if (chosen(c, JC_LIST_ENERGY_IDLE) && e->host.have_base)
    put_derive(emit, ctx, host, JC_LIST_ENERGY_IDLE, e->name[i].idle,
               e->idle_uj[i]);
  if (chosen(c, JC_LIST_POWER) && z->fresh) {
    jc_metric m = {.list = JC_LIST_POWER, .type = jc_lists[JC_LIST_POWER].type,
                   .type_instance = e->name[i].power, .kind = JC_GAUGE,
                   .count = 1, .gauge = {jc_rapl_watts(z)}};
    emit(ctx, host, &m);
  }
}

/* Splits each zone's energy of the stretch and charges the cgroups. */
static void charge(jc_collector *c) {
  struct jc_energy *e = c->energy;
  uint64_t covered = covered_usec(c);
  for (size_t i = 0; i < e->zones; i++) {
    jc_share_split split;
    if (jc_share_zone_split(&e->zone[i], &e->host,
                            jc_rapl_energy_of(e->rapl, i), covered,
                            &split) < 0)
      continue; /* no share of this zone's stretch (jc_share) */
    e->idle_uj[i] += split.idle_uj;
    for (size_t k = 0; k < c->tracked_count; k++) {
      struct jc_energy_share *sh = c->tracked[k]->energy;
      if (sh && sh->usage.charged)
        sh->charged_uj[i] += jc_share_charge(&split, sh->usage.last_usec);
    }
  }
}

void jc_energy_end(jc_collector *c, jc_collect_fn emit, void *ctx) {
  struct jc_energy *e = c->energy;
  if (!e)
    return;
  charge(c);
  if (!emit)
    return;
  jc_target host = {"root", "", c->cfg->path_meta ? "/" : NULL};
  for (size_t i = 0; i < e->zones; i++)
    emit_zone(c, i, emit, ctx, &host);
  if (!chosen(c, JC_LIST_ENERGY))
    return;
  for (size_t k = 0; k < c->tracked_count; k++) {
    const jc_tracked *t = c->tracked[k];
    if (!t->energy || t->gone)
      continue;
    jc_target target = jc_tracked_target(c, t);
    for (size_t i = 0; i < e->zones; i++)
      if (jc_rapl_energy_of(e->rapl, i)->read)
        put_derive(emit, ctx, &target, JC_LIST_ENERGY, e->name[i].energy,
                   t->energy->charged_uj[i]);
  }
}

bool jc_energy_charged(const jc_collector *c, const jc_tracked *t,
                       double *ret_uj) {
  const struct jc_energy *e = c->energy;
  if (!e || !t->energy)
    return false;
  double sum = 0;
  for (size_t i = 0; i < e->zones; i++)
    if (jc_rapl_zone_at(e->rapl, i)->kind == JC_RAPL_PACKAGE)
      sum += t->energy->charged_uj[i];
  *ret_uj = sum;
  return true;
}

void jc_energy_forget(jc_tracked *t) {
  free(t->energy);
  t->energy = NULL;
}

void jc_energy_free(jc_collector *c) {
  free_state(c->energy);
  c->energy = NULL;
}
