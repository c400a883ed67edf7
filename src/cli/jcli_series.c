/*
 * jcli_series — see jcli_series.h.
 */
#include "jcli_series.h"

#include "jcli_outcome.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void jcli_series_init(jcli_series *s, const jcli_memory_names *names,
                      const jcli_energy_zones *zones) {
  memset(s, 0, sizeof(*s));
  s->names = names;
  s->zones = zones;
}

void jcli_series_release(jcli_series *s) {
  if (!s)
    return;
  free(s->point);
  s->point = NULL;
  s->count = s->cap = 0;
}

static jcli_value value(bool have, double v) {
  return (jcli_value){have, have ? v : 0};
}

/* The energy of the package zones from START to r: the command's part
 * and what they measured; each false when a zone lacks it. */
static void energy_of(const jcli_series *s, const jcli_reading *r,
                      jcli_point *p) {
  double proc = 0, host = 0;
  bool have_proc = true, have_host = true;
  size_t found = 0;
  for (size_t i = 0; s->zones && i < s->zones->count; i++) {
    if (!jcli_outcome_counts_zone(s->zones->zone[i].label,
                                  s->zones->zone[i].id))
      continue;
    jcli_zone_energy e;
    jcli_energy_between(&s->first.energy.zone[i], &r->energy.zone[i], &e);
    have_host = have_host && e.have_host;
    have_proc = have_proc && e.have_host && e.have_share;
    host += e.host_uj;
    proc += e.proc_uj;
    found++;
  }
  p->energy_uj = value(found && have_proc, proc);
  p->host_energy_uj = value(found && have_host, host);
}

static jcli_point point_of(const jcli_series *s, const jcli_reading *r) {
  const jcli_counters *c = &r->proc.counters, *c0 = &s->first.proc.counters;
  const jcli_figures *f = &r->proc;
  jcli_point p = {
      .t = (double)(r->time_ns - s->first.time_ns) / 1e9,
      .kind = r->kind == JCLI_READ_START  ? JCLI_POINT_START
              : r->kind == JCLI_READ_TICK ? JCLI_POINT_TICK
              : r->kind == JCLI_READ_MARK ? JCLI_POINT_MARK
                                          : JCLI_POINT_END,
      .cpu_usec = value(c->have_usage && c0->have_usage,
                        (double)(c->usage_usec - c0->usage_usec)),
      .peak_interval = value(f->have_peak_interval, f->peak_interval),
      .read_bytes = value(c->have_io && c0->have_io,
                          (double)(c->read_bytes - c0->read_bytes)),
      .write_bytes = value(c->have_io && c0->have_io,
                           (double)(c->write_bytes - c0->write_bytes)),
  };
  int i = jcli_memory_find(s->names, "current");
  p.memory_current =
      value(i >= 0 && f->have_memory[i], i >= 0 ? f->memory[i] : 0);
  energy_of(s, r, &p);
  return p;
}

void jcli_series_add(jcli_series *s, const jcli_reading *r) {
  if (s->count == 0 && s->lost == 0)
    s->first = *r;
  if (s->count == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    jcli_point *grown = realloc(s->point, cap * sizeof(*grown));
    if (!grown) {
      s->lost++;
      return;
    }
    s->point = grown;
    s->cap = cap;
  }
  s->point[s->count++] = point_of(s, r);
}

static void key_value(jcli_json *j, const char *key, jcli_value v,
                      double scale) {
  jcli_json_key(j, key);
  if (v.have)
    jcli_json_double(j, round(v.v * scale * 1e6) / 1e6);
  else
    jcli_json_null(j);
}

void jcli_series_json(const jcli_point *p, size_t count, jcli_json *j) {
  jcli_json_array_open(j);
  for (size_t i = 0; i < count; i++) {
    jcli_json_map_open(j);
    jcli_json_key(j, "t");
    jcli_json_double(j, round(p[i].t * 1e6) / 1e6);
    jcli_json_key(j, "kind");
    jcli_json_string(j, jcli_point_kind_name(p[i].kind));
    key_value(j, "cpu_usage_usec", p[i].cpu_usec, 1);
    key_value(j, "memory_current", p[i].memory_current, 1);
    key_value(j, "memory_peak_interval", p[i].peak_interval, 1);
    key_value(j, "io_read_bytes", p[i].read_bytes, 1);
    key_value(j, "io_write_bytes", p[i].write_bytes, 1);
    key_value(j, "energy_j", p[i].energy_uj, 1e-6);
    key_value(j, "host_energy_j", p[i].host_energy_uj, 1e-6);
    jcli_json_map_close(j);
  }
  jcli_json_array_close(j);
}
