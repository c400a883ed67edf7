/*
 * jcli_outcome — see jcli_outcome.h.
 */
#include "jcli_outcome.h"

#include <stdlib.h>
#include <string.h>

const jcli_fig_info jcli_figs[JCLI_FIG_COUNT] = {
    [JCLI_FIG_WALL] = {"wall_seconds", "wall", "wall time", "s"},
    [JCLI_FIG_CPU] = {"cpu_seconds", "cpu", "CPU time", "s"},
    [JCLI_FIG_MEMORY] = {"memory_peak_bytes", "memory", "memory peak", "B"},
    [JCLI_FIG_IO] = {"io_bytes", "io", "I/O bytes", "B"},
    [JCLI_FIG_ENERGY] = {"energy_j", "energy", "energy", "J"},
};

void jcli_figset_set(jcli_figset *f, jcli_fig which, bool have, double v) {
  f->have[which] = have;
  f->v[which] = have ? v : 0;
}

void jcli_outcome_release(jcli_outcome *o) {
  if (!o)
    return;
  for (size_t i = 0; i < o->phase_count; i++)
    free(o->phase[i].name);
  free(o->phase);
  free(o->point);
  o->phase = NULL;
  o->point = NULL;
  o->phase_count = o->point_count = 0;
}

const char *jcli_point_kind_name(jcli_point_kind kind) {
  static const char *const names[] = {"start", "tick", "mark", "end"};
  return (unsigned)kind < 4 ? names[kind] : "tick";
}

/* "intel-rapl:N": a top-level zone of the powercap tree. */
static bool top_level(const char *id) {
  const char *colon = strchr(id, ':');
  return colon && !strchr(colon + 1, ':');
}

bool jcli_outcome_counts_zone(const char *label, const char *id) {
  return strncmp(label, "package-", 8) == 0 && top_level(id);
}

size_t jcli_outcome_median_run(const jcli_outcome *runs, size_t count) {
  /* The (count - 1) / 2-th smallest wall time: the run with as many
   * shorter runs before it as that (ties by order). */
  size_t want = (count - 1) / 2;
  for (size_t i = 0; i < count; i++) {
    size_t below = 0, equal_before = 0;
    for (size_t k = 0; k < count; k++) {
      double a = runs[k].fig.v[JCLI_FIG_WALL], b = runs[i].fig.v[JCLI_FIG_WALL];
      below += a < b;
      equal_before += a == b && k < i;
    }
    if (below + equal_before == want)
      return i;
  }
  return 0;
}

bool jcli_outcome_figure(const jcli_outcome *o, const char *phase, jcli_fig f,
                         double *ret) {
  const jcli_figset *set = phase ? NULL : &o->fig;
  for (size_t i = 0; phase && i < o->phase_count; i++)
    if (strcmp(o->phase[i].name, phase) == 0)
      set = &o->phase[i].fig;
  if (!set || !set->have[f])
    return false;
  *ret = set->v[f];
  return true;
}
