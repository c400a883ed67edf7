/*
 * jc_energy — see jc_energy.h.
 *
 * A pass is a stretch of jc_share's, which holds the accounting and its
 * rule for a pass too short for /proc/stat: the zones and the host's CPU
 * time are read first (begin: the stretch's rule), then every cgroup's CPU
 * time over the stretch is noted as its sample comes in, with the
 * packages its cpuset allows (note), and after the pass each zone's
 * energy of the stretch is split between the idle part and the noted CPU
 * time, and every counter advances and goes out (end).  The split needs
 * the CPU time of all the cgroups first (`covered`: the cgroups not
 * inside another tracked one, so that a parent and its child are not
 * counted twice), which is why the lists go out after the pass and not
 * with the cgroup's other lists.
 *
 * What goes out per zone are counters of an *epoch*: from 0 where the
 * zone's energy since the pass before is not known (jc_rapl gave an
 * interval up), so that no receiver computes a rate over energy that is
 * missing: a counter that goes back is a counter reset, which collectd's
 * own rates, rrdtool, Prometheus and InfluxDB's non_negative_derivative
 * all take as a gap (docs/metrics.md, Energy).  power-<zone> is NaN for
 * such a pass.
 */
#include "jc_energy.h"

#include "jc_internal.h"

#include "jc_clock.h"
#include "jc_cpus.h"
#include "jc_hier.h"
#include "jc_rapl.h"
#include "jc_share.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How often the powercap tree is listed again: zones that appear (a
 * driver loaded after collectd), go, or are registered again. */
#define LOOK_EVERY_NS (10 * UINT64_C(1000000000))

/* One zone's names and counters. */
typedef struct {
  char energy[JC_RAPL_LABEL_MAX + 16]; /* "energy_package-0_uj" */
  char idle[JC_RAPL_LABEL_MAX + 16];   /* "energy_package-0_idle_uj" */
  char power[JC_RAPL_LABEL_MAX];       /* "package-0": the zone's label */
  int domain;           /* the CPUs it measures: a package (jc_cpus), -1
                           for the whole host */
  jc_share_zone share;  /* its stretch (jc_share) */
  double host_uj;       /* what it measured this epoch */
  double idle_uj;       /* the idle part of it */
  bool have_last;       /* read at the last pass: */
  uint64_t last_total, last_gaps, last_ns; /* jc_rapl's figures then */
  double watts;         /* this pass's mean power; NaN: not known */
  bool watts_set;       /* this pass has a power to send */
  unsigned restarts;    /* epochs begun after a gap (said) */
} zone_acct;

struct jc_energy {
  jc_rapl *rapl;
  jc_cpus *cpus;
  size_t zones; /* of rapl's, those with names made */
  zone_acct z[JC_RAPL_ZONES_MAX];
  jc_share_host host; /* the host's CPU time, this pass's rule */
  uint64_t next_look_ns;
  bool mapping_said;
  bool per_package; /* each cgroup's cpuset read: its packages */
  /* the pass's parties (jc_share), grown with the tracked set */
  size_t cap;
  uint32_t cap_domains;
  jc_share_party *party;
  jc_tracked **party_of;
  double *on, *work;
};

/* A cgroup's part: what it was charged, its CPU time and its packages. */
struct jc_energy_share {
  jc_share_usage usage;
  uint64_t mask;   /* the domains of its cpuset this pass; 0: not known */
  double before_uj; /* its packages' parts in epochs that ended */
  size_t zones;     /* charged_uj's length */
  double charged_uj[];
};

static struct jc_energy *self(const jc_collector *c) {
  return jc_step_self(c, JC_STEP_ENERGY);
}

/* t's share (its slot): NULL until its first read. */
static struct jc_energy_share **share_slot(const jc_collector *c,
                                           const jc_tracked *t) {
  return jc_step_slot(c, t, JC_STEP_ENERGY);
}

static struct jc_energy_share *share(const jc_collector *c,
                                     const jc_tracked *t) {
  return *share_slot(c, t);
}

static void free_scratch(struct jc_energy *e) {
  free(e->party);
  free(e->party_of);
  free(e->on);
  free(e->work);
  e->party = NULL;
  e->party_of = NULL;
  e->on = e->work = NULL;
  e->cap = 0;
  e->cap_domains = 0;
}

static void free_state(struct jc_energy *e) {
  if (!e)
    return;
  jc_rapl_free(e->rapl);
  jc_cpus_free(e->cpus);
  free_scratch(e);
  free(e);
}

static bool chosen(const jc_collector *c, jc_list_id id) {
  return c->cfg->sel.list[id] != JC_SEL_OFF;
}

/* ---- zones and packages --------------------------------------------------- */

/* The domains: one per package zone (and die), in the order of the zones. */
static size_t list_domains(const jc_rapl *r, jc_cpus_domain *out) {
  size_t n = 0;
  for (size_t i = 0; i < jc_rapl_zone_count(r); i++) {
    const jc_rapl_zone *z = jc_rapl_zone_at(r, i);
    if (z->kind != JC_RAPL_PACKAGE || z->package_id < 0 || !z->readable)
      continue;
    bool seen = false;
    for (size_t d = 0; d < n; d++)
      seen |= out[d].package == z->package_id && out[d].die == z->die_id;
    if (!seen && n < JC_SHARE_DOMAINS_MAX)
      out[n++] = (jc_cpus_domain){z->package_id, z->die_id};
  }
  return n;
}

static int domain_index(const jc_cpus_domain *d, size_t n, int package,
                        int die) {
  for (size_t k = 0; k < n; k++)
    if (d[k].package == package && d[k].die == die)
      return (int)k;
  return -1;
}

/* Says once how the packages' energy is split, where there are several. */
static void say_mapping(const jc_collector *c, size_t domains, size_t mapped,
                        bool per_package) {
  struct jc_energy *e = self(c);
  if (domains < 2 || e->mapping_said)
    return;
  e->mapping_said = true;
  const char *root = c->cfg->cpu_root ? c->cfg->cpu_root : JC_CPUS_ROOT_DEFAULT;
  if (per_package)
    jc_logf(&c->log, JC_LOG_INFO,
            "the energy of each of the %zu packages is split by the CPU time "
            "of its own CPUs (%zu CPUs placed by the topology in %s)",
            domains, jc_cpus_known(e->cpus), root);
  else
    jc_logf(&c->log, JC_LOG_INFO,
            "the topology in %s places CPUs in %zu of the %zu packages that "
            "have RAPL zones: every zone's energy is split by the whole "
            "host's CPU time",
            root, mapped, domains);
}

/* Each zone's CPUs, after the zones or the packages changed. */
static void map_zones(const jc_collector *c) {
  struct jc_energy *e = self(c);
  jc_cpus_domain d[JC_SHARE_DOMAINS_MAX];
  size_t n = list_domains(e->rapl, d), mapped = 0;
  jc_cpus_set_domains(e->cpus, d, n, &mapped);
  bool per_package = jc_cpus_domains(e->cpus) > 0;
  say_mapping(c, n, mapped, per_package);
  for (size_t i = 0; i < e->zones; i++) {
    const jc_rapl_zone *z = jc_rapl_zone_at(e->rapl, i);
    const jc_rapl_zone *pkg = z->package >= 0
                                  ? jc_rapl_zone_at(e->rapl, (size_t)z->package)
                                  : z;
    e->z[i].domain =
        per_package ? domain_index(d, n, pkg->package_id, pkg->die_id) : -1;
  }
  e->per_package = per_package;
}

/* Each cgroup's cpuset.cpus.effective where the energy is split per
 * package: asked after each pass's begin, which may find the packages
 * (a zone that came late). */
static void ask(const jc_collector *c, jc_step_asks *ret) {
  if (self(c)->per_package)
    ret->files = 1u << JC_FILE_CPUSET_CPUS_EFFECTIVE;
}

/* Names for the zones rapl found since the last time. */
static void name_zones(struct jc_energy *e) {
  size_t count = jc_rapl_zone_count(e->rapl);
  for (size_t i = e->zones; i < count; i++) {
    const char *label = jc_rapl_zone_at(e->rapl, i)->label;
    zone_acct *z = &e->z[i];
    *z = (zone_acct){.domain = -1};
    snprintf(z->energy, sizeof(z->energy), "energy_%s_uj", label);
    snprintf(z->idle, sizeof(z->idle), "energy_%s_idle_uj", label);
    snprintf(z->power, sizeof(z->power), "%s", label);
    jc_share_zone_start(&z->share, jc_rapl_energy_of(e->rapl, i));
  }
  e->zones = count;
}

/* On when energy lists are chosen: the zones, the host's CPUs.  -1 only
 * when out of memory (logged); off (said at INFO by jc_rapl) where there
 * is no zone. */
static int init(const jc_collector *c, void **ret_self) {
  if (!jc_lists_any(&c->cfg->sel, JC_LIST_ENERGY, 3))
    return 0;
  struct jc_energy *e = calloc(1, sizeof(*e));
  if (!e || jc_rapl_open(c->cfg->powercap_root, &c->log, &e->rapl) < 0 ||
      jc_cpus_open(c->cfg->cpu_root, c->cfg->proc_stat, &e->cpus) < 0) {
    free_state(e);
    jc_logf(&c->log, JC_LOG_ERR, "out of memory: energy is not collected");
    return -ENOMEM;
  }
  int r = jc_cpus_stat_error(e->cpus);
  if (r < 0)
    jc_logf(&c->log, JC_LOG_WARNING,
            "%s: %s: the host's CPU time is not known, so the cgroups' "
            "parts of the energy are not either (the zones' figures go "
            "out)",
            c->cfg->proc_stat ? c->cfg->proc_stat : JC_PROCSTAT_DEFAULT,
            JC_STRERROR(-r));
  *ret_self = e;
  name_zones(e);
  map_zones(c);
  e->next_look_ns = jc_now_ns() + LOOK_EVERY_NS;
  return 0;
}

/* ---- the pass ---------------------------------------------------------------- */

/* At the start of every read pass: the zones and the host's CPU time,
 * once. */
static void energy_begin(jc_collector *c) {
  struct jc_energy *e = self(c);
  if (!e)
    return;
  if (c->pass_ns >= e->next_look_ns) {
    e->next_look_ns = c->pass_ns + LOOK_EVERY_NS;
    if (jc_rapl_look(e->rapl)) {
      name_zones(e);
      map_zones(c);
    }
  }
  jc_rapl_read(e->rapl, c->pass_ns);
  jc_share_cpu now;
  bool have = jc_cpus_read(e->cpus, &now) == 0;
  jc_share_host_end(&e->host, have, &now, false);
}

/* t's share, with room for every zone. */
static struct jc_energy_share *share_of(const jc_collector *c,
                                        struct jc_energy *e, jc_tracked *t) {
  struct jc_energy_share **slot = share_slot(c, t), *sh = *slot;
  if (sh && sh->zones >= e->zones)
    return sh;
  size_t zones = e->zones ? e->zones : 1;
  sh = realloc(sh, sizeof(*sh) + zones * sizeof(double));
  if (!sh)
    return NULL; /* out of memory: tried again at its next read */
  if (!*slot)
    *sh = (struct jc_energy_share){0};
  for (size_t i = sh->zones; i < zones; i++)
    sh->charged_uj[i] = 0;
  sh->zones = zones;
  *slot = sh;
  return sh;
}

/* After each cgroup's read in a pass: its CPU time (and cpuset) for the
 * split at the pass's end. */
static void energy_note(const jc_collector *c, jc_tracked *t,
                        const jc_read *r) {
  struct jc_energy *e = self(c);
  const jc_sample *s = r->sample;
  if (!r->in_pass || !t->relpath[0]) /* the root's figures are the host's */
    return;
  struct jc_energy_share *sh = share_of(c, e, t);
  if (!sh)
    return;
  bool have = jc_sample_has(s, JC_FILE_CPU_STAT) &&
              (s->cpu_have & (1u << JC_CPU_USAGE_USEC));
  jc_share_usage_end(&sh->usage, e->host.rule, have,
                     s->cpu[JC_CPU_USAGE_USEC]);
  sh->mask = jc_sample_has(s, JC_FILE_CPUSET_CPUS_EFFECTIVE) &&
                     !s->cpuset_beyond
                 ? jc_cpus_mask(e->cpus, s->cpuset, s->cpuset_words)
                 : 0;
}

/* Room for n parties on domains packages; false when out of memory (the
 * pass charges nothing then, which the parts' sums show). */
static bool grow_scratch(struct jc_energy *e, size_t n, uint32_t domains) {
  if (n <= e->cap && domains <= e->cap_domains)
    return true;
  size_t cap = n > e->cap ? n + n / 2 + 16 : e->cap;
  jc_share_party *party = realloc(e->party, cap * sizeof(*party));
  if (party)
    e->party = party;
  jc_tracked **of = realloc(e->party_of, cap * sizeof(*of));
  if (of)
    e->party_of = of;
  /* The per-package times only where there are packages to split by. */
  size_t d = domains ? domains : 0;
  double *on = d ? realloc(e->on, cap * d * sizeof(*on)) : e->on;
  if (on)
    e->on = on;
  double *work = d ? realloc(e->work, cap * (d + 1) * sizeof(*work)) : e->work;
  if (work)
    e->work = work;
  if (!party || !of || (d && (!on || !work)))
    return false;
  e->cap = cap;
  e->cap_domains = domains > e->cap_domains ? domains : e->cap_domains;
  return true;
}

/* The cgroups with a part in this stretch, in walk order, each with the
 * nearest one it is inside of (walk order puts a cgroup's descendants
 * right after it) and the packages of its cpuset (a cgroup without the
 * cpuset file runs on those of the cgroup above it). */
static size_t gather_parties(const jc_collector *c) {
  struct jc_energy *e = self(c);
  size_t n = 0;
  long stack[64];
  size_t depth = 0;
  for (size_t k = 0; k < c->tracked_count; k++) {
    jc_tracked *t = c->tracked[k];
    const struct jc_energy_share *sh = share(c, t);
    if (!sh || !sh->usage.charged)
      continue;
    while (depth > 0 &&
           !jc_hier_is_below(t->relpath, e->party_of[stack[depth - 1]]->relpath))
      depth--;
    long parent = depth > 0 ? stack[depth - 1] : -1;
    uint64_t mask = sh->mask;
    if (!mask && parent >= 0)
      mask = e->party[parent].mask;
    e->party[n] = (jc_share_party){sh->usage.last_usec, mask, parent};
    e->party_of[n] = t;
    if (depth < sizeof(stack) / sizeof(stack[0]))
      stack[depth++] = (long)n;
    n++;
  }
  return n;
}

/* Zone i's energy of the stretch split, and each party charged. */
static void charge_zone(const jc_collector *c, struct jc_energy *e, size_t i,
                        size_t n) {
  zone_acct *z = &e->z[i];
  uint32_t domains = e->host.last.domains;
  /* A package's time not known over the stretch: no share (jc_share). */
  bool known = z->domain < 0 || (uint32_t)z->domain < domains;
  double covered =
      known ? jc_share_covered(e->party, n, e->on, domains, z->domain) : 0;
  jc_share_split split;
  if (jc_share_zone_split(&z->share, &e->host, jc_rapl_energy_of(e->rapl, i),
                          z->domain, covered, &split) < 0)
    return;
  z->idle_uj += split.idle_uj;
  for (size_t k = 0; k < n; k++)
    share(c, e->party_of[k])->charged_uj[i] += jc_share_charge(
        &split, jc_share_time_of(e->party, k, e->on, domains, z->domain));
}

static void say_restart(const jc_collector *c, size_t i,
                        const jc_rapl_energy *r) {
  struct jc_energy *e = self(c);
  const jc_rapl_zone *z = jc_rapl_zone_at(e->rapl, i);
  char why[256];
  switch (r->gap) {
  case JC_RAPL_GAP_TOO_LONG:
    snprintf(why, sizeof(why),
             "%.1f s passed between two reads of its counter, more than the "
             "%.1f s it may take to wrap at %.0f W: the reads were held up",
             (double)r->gap_ns / 1e9,
             (double)z->range_uj / (double)z->max_power_uw * 1e3,
             (double)z->max_power_uw / 1e6);
    break;
  case JC_RAPL_GAP_RANGE:
    snprintf(why, sizeof(why), "energy_uj read above max_energy_range_uj");
    break;
  case JC_RAPL_GAP_REOPENED:
    snprintf(why, sizeof(why),
             "the zone was registered again: its driver was loaded again");
    break;
  default:
    snprintf(why, sizeof(why), "energy_uj could not be read, or the zone was "
                               "gone");
    break;
  }
  jc_logf(&c->log, e->z[i].restarts++ ? JC_LOG_WARNING : JC_LOG_INFO,
          "RAPL zone %s (%s): the energy since the read before is not known "
          "(%s): its counters (the host's, the idle part and every cgroup's "
          "part) start again from 0, which receivers take as a counter "
          "reset, a gap in the rates",
          z->id, z->label, why);
}

/* A new epoch of zone i: every counter of it from 0. */
static void restart_zone(const jc_collector *c, size_t i) {
  struct jc_energy *e = self(c);
  bool package = jc_rapl_zone_at(e->rapl, i)->kind == JC_RAPL_PACKAGE;
  e->z[i].host_uj = e->z[i].idle_uj = 0;
  for (size_t k = 0; k < c->tracked_count; k++) {
    struct jc_energy_share *sh = share(c, c->tracked[k]);
    if (!sh || i >= sh->zones)
      continue;
    if (package)
      sh->before_uj += sh->charged_uj[i];
    sh->charged_uj[i] = 0;
  }
}

/* Zone i's host counter and power for this pass, and a new epoch where
 * an interval of it was given up since the pass before. */
static void advance_zone(const jc_collector *c, size_t i) {
  struct jc_energy *e = self(c);
  zone_acct *z = &e->z[i];
  const jc_rapl_energy *r = jc_rapl_energy_of(e->rapl, i);
  bool gap = r->gaps != z->last_gaps;
  z->watts_set = false;
  if (gap) {
    say_restart(c, i, r);
    restart_zone(c, i);
  } else if (r->read && z->have_last && c->pass_ns > z->last_ns) {
    double uj = (double)(r->total_uj - z->last_total);
    z->host_uj += uj;
    z->watts = uj * 1e3 / (double)(c->pass_ns - z->last_ns);
    z->watts_set = true;
  }
  if (r->read && !z->watts_set) {
    z->watts = NAN; /* the interval's energy is not known */
    z->watts_set = true;
  }
  z->have_last = r->read;
  z->last_total = r->total_uj;
  z->last_gaps = r->gaps;
  z->last_ns = c->pass_ns;
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
static void emit_zone(const jc_collector *c, size_t i, jc_collect_fn emit,
                      void *ctx, const jc_target *host) {
  struct jc_energy *e = self(c);
  const zone_acct *z = &e->z[i];
  if (!jc_rapl_energy_of(e->rapl, i)->read)
    return;
  if (chosen(c, JC_LIST_ENERGY))
    put_derive(emit, ctx, host, JC_LIST_ENERGY, z->energy, z->host_uj);
  if (chosen(c, JC_LIST_ENERGY_IDLE) && e->host.have_base)
    put_derive(emit, ctx, host, JC_LIST_ENERGY_IDLE, z->idle, z->idle_uj);
  if (chosen(c, JC_LIST_POWER) && z->watts_set) {
    jc_metric m = {.list = JC_LIST_POWER, .type = jc_lists[JC_LIST_POWER].type,
                   .type_instance = z->power, .kind = JC_GAUGE,
                   .count = 1, .gauge = {z->watts}};
    emit(ctx, host, &m);
  }
}

/* After the pass (the split needs every cgroup): split, charge, emit. */
static void energy_end(jc_collector *c, jc_collect_fn emit, void *ctx) {
  struct jc_energy *e = self(c);
  for (size_t i = 0; i < e->zones; i++)
    advance_zone(c, i);
  uint32_t domains = e->host.last.domains;
  if (grow_scratch(e, c->tracked_count, domains)) {
    size_t n = gather_parties(c);
    jc_share_domain_times(&e->host, e->party, n, e->on, e->work);
    for (size_t i = 0; i < e->zones; i++)
      charge_zone(c, e, i, n);
  }
  if (!emit)
    return;
  jc_target host = {"root", "", c->cfg->path_meta ? "/" : NULL};
  for (size_t i = 0; i < e->zones; i++)
    emit_zone(c, i, emit, ctx, &host);
  if (!chosen(c, JC_LIST_ENERGY))
    return;
  for (size_t k = 0; k < c->tracked_count; k++) {
    const jc_tracked *t = c->tracked[k];
    const struct jc_energy_share *sh = share(c, t);
    if (!sh || t->gone)
      continue;
    jc_target target = jc_tracked_target(c, t);
    for (size_t i = 0; i < e->zones && i < sh->zones; i++)
      if (jc_rapl_energy_of(e->rapl, i)->read)
        put_derive(emit, ctx, &target, JC_LIST_ENERGY, e->z[i].energy,
                   sh->charged_uj[i]);
  }
}

/* ---- between passes ------------------------------------------------------------ */

/* When the zones must be read between passes, before a counter could
 * wrap twice (a long Interval). */
static uint64_t due_ns(const jc_collector *c) {
  return jc_rapl_due_ns(self(c)->rapl);
}

static void tick(const jc_collector *c, uint64_t now_ns) {
  struct jc_energy *e = self(c);
  if (now_ns >= jc_rapl_due_ns(e->rapl))
    jc_rapl_read(e->rapl, now_ns);
}

/* What t was charged so far, over the packages (psys and the subzones
 * are parts of a whole, not added), into its totals. */
static void totals(const jc_collector *c, const jc_tracked *t,
                   jc_totals *ret) {
  const struct jc_energy *e = self(c);
  const struct jc_energy_share *sh = share(c, t);
  if (!sh)
    return;
  double sum = sh->before_uj;
  for (size_t i = 0; i < e->zones && i < sh->zones; i++)
    if (jc_rapl_zone_at(e->rapl, i)->kind == JC_RAPL_PACKAGE)
      sum += sh->charged_uj[i];
  ret->have_energy = true;
  ret->energy_joules = sum / 1e6;
}

/* t freed or re-created: its share goes. */
static void release(jc_collector *c, jc_tracked *t) {
  struct jc_energy_share **slot = share_slot(c, t);
  free(*slot);
  *slot = NULL;
}

static void energy_free(const jc_collector *c, void *state) {
  (void)c;
  free_state(state);
}

const jc_step jc_energy_step = {
    .name = "energy",
    .slot_size = sizeof(struct jc_energy_share *),
    .life = {.init = init, .free = energy_free},
    .asks = {.ask = ask, .each_pass = true},
    .pass = {.begin = energy_begin,
             .cgroup = energy_note,
             .totals = totals,
             .end = energy_end},
    .cgroup_life = {.release = release},
    .timer = {.due_ns = due_ns, .tick = tick},
};
