/*
 * jcli_series — the samples of one run over time, one point per reading
 * (START, every tick, every marker, END), kept when --samples or --plot
 * asks: what the JSON report's "series" holds and what the picture draws.
 *
 * A point holds the counters since START (CPU time, I/O bytes, energy),
 * so a reader makes any rate from two points, and the gauges read at it
 * (memory.current, and the interval peak where the kernel gives it).
 * Energy is the command's part of the package zones (package-0 +
 * package-1 ...) and what those zones measured, as the CSV's
 * proc_energy_package_j and global_energy_package_j.
 *
 *   jcli_series s;
 *   jcli_series_init(&s, names, zones);   the reader's tables, borrowed
 *   jcli_series_add(&s, &reading);        each reading, in order
 *   jcli_series_json(s.point, s.count, j);
 *   jcli_series_release(&s);
 */
#ifndef JCLI_SERIES_H
#define JCLI_SERIES_H

#include "jcli_json.h"
#include "jcli_outcome.h"
#include "jcli_reading.h"

typedef struct {
  jcli_point *point;
  size_t count, cap;
  size_t lost; /* points not kept: out of memory */
  const jcli_memory_names *names;
  const jcli_energy_zones *zones;
  jcli_reading first; /* START: the counters' zero */
} jcli_series;

void jcli_series_init(jcli_series *s, const jcli_memory_names *names,
                      const jcli_energy_zones *zones);
void jcli_series_release(jcli_series *s); /* NULL-safe */
void jcli_series_add(jcli_series *s, const jcli_reading *r);

/* "series": [...] of the report, as the key's value (an array). */
void jcli_series_json(const jcli_point *p, size_t count, jcli_json *j);

#endif
