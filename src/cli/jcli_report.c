/*
 * jcli_report — see jcli_report.h.
 */
#include "jcli_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void jcli_report_init(jcli_report *r) { *r = (jcli_report){.in_run = false}; }

void jcli_report_begin(jcli_report *r, bool in_run) {
  r->in_run = in_run;
  if (in_run)
    r->samples++;
}

static jcli_memory_range *memory_range(jcli_report *r, const char *name) {
  for (size_t i = 0; i < r->memory_count; i++)
    if (strcmp(r->memory[i].name, name) == 0)
      return &r->memory[i];
  if (r->memory_count == JCLI_REPORT_MEMORY_MAX)
    return NULL;
  jcli_memory_range *m = &r->memory[r->memory_count++];
  snprintf(m->name, sizeof(m->name), "%s", name);
  m->min = INFINITY;
  m->max = -INFINITY;
  return m;
}

/* A memory-<key> gauge: peak is the kernel's, the others get a range.
 * The final read (after the end) counts only when no other read did. */
static void add_memory(jcli_report *r, const jc_metric *m) {
  double v = m->gauge[0];
  if (strcmp(m->type_instance, "peak") == 0) {
    r->have_peak = true;
    r->peak = v;
    return;
  }
  jcli_memory_range *range = memory_range(r, m->type_instance);
  if (!range)
    return;
  range->last = v;
  if (!r->in_run && r->samples > 0)
    return;
  range->min = fmin(range->min, v);
  range->max = fmax(range->max, v);
}

void jcli_report_add(void *ctx, const jc_target *t, const jc_metric *m) {
  (void)t; /* only the run's own cgroup is tracked */
  jcli_report *r = ctx;
  if (strcmp(m->type, "ps_cputime") == 0) {
    r->have_cpu = true;
    r->user_usec = m->derive[0];
    r->system_usec = m->derive[1];
  } else if (strcmp(m->type, "derive") == 0 &&
             strcmp(m->type_instance, "cpu_usage_usec") == 0) {
    r->have_usage = true;
    r->usage_usec = m->derive[0];
  } else if (strcmp(m->type, "gauge") == 0 &&
             strcmp(m->type_instance, "cpu_cores") == 0) {
    r->cores_max = r->have_cores_max ? fmax(r->cores_max, m->gauge[0])
                                     : m->gauge[0];
    r->have_cores_max = true;
  } else if (strcmp(m->type, "memory") == 0) {
    add_memory(r, m);
  } else if (strcmp(m->type, "disk_octets") == 0) {
    r->have_io = true;
    r->read_bytes = m->derive[0];
    r->write_bytes = m->derive[1];
  } else if (strcmp(m->type, "disk_ops") == 0) {
    r->read_ops = m->derive[0];
    r->write_ops = m->derive[1];
  }
}

/* Ratios for people: six decimals are plenty and print short. */
static double rounded(double v) { return round(v * 1e6) / 1e6; }

static void key_int(jcli_json *j, const char *key, long long v) {
  jcli_json_key(j, key);
  jcli_json_int(j, v);
}

static void key_double(jcli_json *j, const char *key, double v) {
  jcli_json_key(j, key);
  jcli_json_double(j, v);
}

static void json_cpu(const jcli_report *r, const jcli_run_info *info,
                     jcli_json *j) {
  jcli_json_key(j, "cpu");
  if (!r->have_usage) {
    jcli_json_null(j);
    return;
  }
  jcli_json_map_open(j);
  key_int(j, "usage_usec", r->usage_usec);
  if (r->have_cpu) {
    key_int(j, "user_usec", r->user_usec);
    key_int(j, "system_usec", r->system_usec);
  }
  jcli_json_key(j, "cores_busy");
  if (info->wall_seconds > 0)
    jcli_json_double(j, rounded((double)r->usage_usec / 1e6 / info->wall_seconds));
  else
    jcli_json_null(j); /* no time passed: no rate, not a measured 0 */
  jcli_json_key(j, "cores_busy_max");
  if (r->have_cores_max)
    jcli_json_double(j, rounded(r->cores_max));
  else
    jcli_json_null(j);
  jcli_json_map_close(j);
}

static void json_memory(const jcli_report *r, jcli_json *j) {
  jcli_json_key(j, "memory");
  if (!r->have_peak && r->memory_count == 0) {
    jcli_json_null(j); /* no memory controller for this cgroup */
    return;
  }
  jcli_json_map_open(j);
  jcli_json_key(j, "peak");
  if (r->have_peak)
    jcli_json_int(j, (long long)r->peak);
  else
    jcli_json_null(j); /* memory.peak is there from Linux 5.19 */
  for (size_t i = 0; i < r->memory_count; i++) {
    const jcli_memory_range *m = &r->memory[i];
    bool ranged = m->min <= m->max; /* else seen in the final read only */
    jcli_json_key(j, m->name);
    jcli_json_map_open(j);
    key_int(j, "min", (long long)(ranged ? m->min : m->last));
    key_int(j, "max", (long long)(ranged ? m->max : m->last));
    jcli_json_map_close(j);
  }
  jcli_json_map_close(j);
}

static void json_io(const jcli_report *r, jcli_json *j) {
  jcli_json_key(j, "io");
  if (!r->have_io) {
    jcli_json_null(j); /* no io controller for this cgroup */
    return;
  }
  jcli_json_map_open(j);
  key_int(j, "read_bytes", r->read_bytes);
  key_int(j, "write_bytes", r->write_bytes);
  key_int(j, "read_ops", r->read_ops);
  key_int(j, "write_ops", r->write_ops);
  jcli_json_map_close(j);
}

void jcli_report_json(const jcli_report *r, const jcli_run_info *info,
                      jcli_json *j) {
  jcli_json_map_open(j);
  jcli_json_key(j, "command");
  jcli_json_array_open(j);
  for (char *const *a = info->command; *a; a++)
    jcli_json_string(j, *a);
  jcli_json_array_close(j);
  key_int(j, "exit_status", info->exit_status);
  jcli_json_key(j, "signal");
  if (info->signal)
    jcli_json_int(j, info->signal);
  else
    jcli_json_null(j);
  key_double(j, "wall_seconds", rounded(info->wall_seconds));
  jcli_json_key(j, "cgroup");
  jcli_json_string(j, info->cgroup);
  jcli_json_key(j, "kept");
  jcli_json_bool(j, info->kept);
  key_double(j, "interval", info->interval);
  key_int(j, "samples", (long long)r->samples);
  json_cpu(r, info, j);
  json_memory(r, j);
  json_io(r, j);
  jcli_json_map_close(j);
}
