/*
 * jcli_measure — see jcli_measure.h.
 */
#include "jcli_measure.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* As the report prints times, ratios and joules: six decimals. */
static double rounded(double v) { return round(v * 1e6) / 1e6; }

/* The command's part of the package zones over the span, in J: the sum
 * of each zone's figure as the report prints it. */
static bool span_energy(const jcli_run_info *info, const jcli_span *s,
                        double *ret) {
  size_t found = 0;
  double sum = 0;
  for (size_t i = 0; info->energy && i < info->energy->count; i++) {
    if (!jcli_outcome_counts_zone(info->energy->zone[i].label,
                                  info->energy->zone[i].id))
      continue;
    jcli_zone_energy e;
    jcli_span_energy(s, i, &e);
    if (!e.have_host || !e.have_share)
      return false;
    sum += rounded(e.proc_uj / 1e6);
    found++;
  }
  *ret = sum;
  return found > 0;
}

/* The memory peak of a phase: its true peak where known, else the
 * largest memory.current read in it (the run's: jcli_report_run_peak). */
static bool phase_peak(const jcli_run_info *info, const jcli_span *s,
                       double *ret) {
  if (jcli_side_peak(&s->proc, false, ret))
    return true;
  int i = jcli_memory_find(info->names, "current");
  jcli_range r;
  if (i < 0 || !jcli_side_range(&s->proc, info->names, (size_t)i, &r))
    return false;
  *ret = r.max;
  return true;
}

static void figures_of(const jcli_run_info *info, const jcli_result *res,
                       const jcli_span *s, bool whole, jcli_figset *ret) {
  jcli_counters c;
  double v = 0;
  memset(ret, 0, sizeof(*ret));
  jcli_figset_set(ret, JCLI_FIG_WALL, true, rounded(jcli_span_seconds(s)));
  bool have = jcli_side_cpu(&s->proc, &c);
  jcli_figset_set(ret, JCLI_FIG_CPU, have,
                  have ? (double)c.usage_usec / 1e6 : 0);
  have = whole ? jcli_report_run_peak(info, res, &v) : phase_peak(info, s, &v);
  jcli_figset_set(ret, JCLI_FIG_MEMORY, have, v);
  have = jcli_side_io(&s->proc, &c);
  jcli_figset_set(ret, JCLI_FIG_IO, have,
                  have ? (double)c.read_bytes + (double)c.write_bytes : 0);
  have = span_energy(info, s, &v);
  jcli_figset_set(ret, JCLI_FIG_ENERGY, have, v);
}

static int phases_of(const jcli_run_info *info, const jcli_result *res,
                     jcli_outcome *o) {
  o->phases_on = res->phases_on;
  if (res->phase_count == 0)
    return 0;
  o->phase = calloc(res->phase_count, sizeof(*o->phase));
  if (!o->phase)
    return -ENOMEM;
  for (size_t i = 0; i < res->phase_count; i++) {
    const jcli_span *s = &res->phases[i].span;
    char name[2 * JCLI_MARKERS_NAME_MAX + 32];
    jcli_result_phase_name(res, i, name, sizeof(name));
    jcli_outcome_phase *p = &o->phase[o->phase_count];
    p->name = strdup(name);
    if (!p->name)
      return -ENOMEM;
    o->phase_count++;
    p->start = rounded((double)(s->start_ns - res->run.start_ns) / 1e9);
    p->wall = rounded(jcli_span_seconds(s));
    figures_of(info, res, s, false, &p->fig);
  }
  return 0;
}

static int points_of(const jcli_result *res, jcli_outcome *o) {
  o->series_on = res->series_on;
  if (res->series.count == 0)
    return 0;
  o->point = malloc(res->series.count * sizeof(*o->point));
  if (!o->point)
    return -ENOMEM;
  memcpy(o->point, res->series.point, res->series.count * sizeof(*o->point));
  o->point_count = res->series.count;
  return 0;
}

int jcli_measure(const jcli_run_info *info, const jcli_result *res,
                 jcli_outcome *ret) {
  memset(ret, 0, sizeof(*ret));
  ret->exit_status = res->exit_status;
  ret->interval = info->interval;
  figures_of(info, res, &res->run, true, &ret->fig);
  int r = phases_of(info, res, ret);
  if (r == 0)
    r = points_of(res, ret);
  if (r < 0)
    jcli_outcome_release(ret);
  return r;
}
