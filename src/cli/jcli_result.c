/*
 * jcli_result — see jcli_result.h.
 */
#include "jcli_result.h"

#include "jcli_grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jcli_result_init(jcli_result *res, bool phases, uint64_t min_window_ns) {
  memset(res, 0, sizeof(*res));
  res->phases_on = phases;
  res->min_window_ns = min_window_ns;
}

void jcli_result_release(jcli_result *res) {
  if (!res)
    return;
  free(res->phases);
  res->phases = NULL;
  free(res->cgroup);
  res->cgroup = NULL;
  res->phase_count = res->phase_cap = 0;
  jcli_series_release(&res->series);
}

void jcli_result_keep_series(jcli_result *res, const jcli_memory_names *names,
                             const jcli_energy_zones *zones) {
  jcli_series_init(&res->series, names, zones);
  res->series_on = true;
}

static void keep(jcli_result *res, const jcli_reading *r) {
  if (res->series_on)
    jcli_series_add(&res->series, r);
}

static void set_edge(jcli_edge *e, const char *token, unsigned long line) {
  snprintf(e->token, sizeof(e->token), "%s", token);
  e->line = line;
}

void jcli_result_start(jcli_result *res, const jcli_reading *r) {
  keep(res, r);
  jcli_span_open(&res->run, r, res->min_window_ns);
  jcli_span_open(&res->current.span, r, res->min_window_ns);
  set_edge(&res->current.start, "START", 0);
}

void jcli_result_tick(jcli_result *res, const jcli_reading *r) {
  keep(res, r);
  jcli_span_add(&res->run, r);
  jcli_span_add(&res->current.span, r);
}

/* Closes the phase in progress at r, which ends it at edge (token, line). */
static bool close_phase(jcli_result *res, const jcli_reading *r,
                        const char *token, unsigned long line) {
  jcli_phase *grown = jcli_grow(res->phases, res->phase_count,
                                &res->phase_cap, sizeof(*grown));
  if (!grown)
    return false;
  res->phases = grown;
  jcli_phase *p = &res->phases[res->phase_count++];
  *p = res->current;
  jcli_span_close(&p->span, r);
  set_edge(&p->end, token, line);
  return true;
}

void jcli_result_mark(jcli_result *res, const jcli_reading *r,
                      const char *token, unsigned long line) {
  res->markers++;
  keep(res, r);
  jcli_span_add(&res->run, r);
  if (!res->phases_on)
    return;
  if (!close_phase(res, r, token, line)) {
    res->markers_lost++; /* the phase in progress goes on */
    jcli_span_add(&res->current.span, r);
    return;
  }
  jcli_span_open(&res->current.span, r, res->min_window_ns);
  set_edge(&res->current.start, token, line);
}

void jcli_result_end(jcli_result *res, const jcli_reading *r) {
  keep(res, r);
  jcli_span_close(&res->run, r);
  if (res->phases_on && !close_phase(res, r, "END", 0))
    res->markers_lost++;
}

void jcli_result_phase_name(const jcli_result *res, size_t i, char *buf,
                            size_t size) {
  const jcli_phase *p = &res->phases[i];
  size_t same = 0;
  for (size_t k = 0; k < i; k++)
    if (strcmp(res->phases[k].start.token, p->start.token) == 0 &&
        strcmp(res->phases[k].end.token, p->end.token) == 0)
      same++;
  if (same)
    snprintf(buf, size, "%s -> %s #%zu", p->start.token, p->end.token,
             same + 1);
  else
    snprintf(buf, size, "%s -> %s", p->start.token, p->end.token);
}
