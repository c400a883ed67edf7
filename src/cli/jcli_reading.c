/*
 * jcli_reading — see jcli_reading.h.
 *
 * The metrics arrive by their SPEC §3 names (the plugin's own); this is
 * where they become the few figures a report is made of.
 */
#include "jcli_reading.h"

#include "jc_clock.h"
#include "jc_parse.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void jcli_reader_init(jcli_reader *rd) {
  *rd = (jcli_reader){.meminfo_fd = -1};
  rd->meminfo_fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
}

void jcli_reader_release(jcli_reader *rd) {
  if (rd->meminfo_fd >= 0)
    close(rd->meminfo_fd);
  rd->meminfo_fd = -1;
  jcli_energy_close(&rd->energy);
}

int jcli_memory_find(const jcli_memory_names *names, const char *name) {
  for (size_t i = 0; i < names->count; i++)
    if (strcmp(names->name[i], name) == 0)
      return (int)i;
  return -1;
}

int jcli_memory_index(jcli_memory_names *names, const char *name) {
  int i = jcli_memory_find(names, name);
  if (i >= 0)
    return i;
  if (names->count == JCLI_MEMORY_MAX)
    return -1;
  snprintf(names->name[names->count], sizeof(names->name[0]), "%s", name);
  return (int)names->count++;
}

static void set_memory(jcli_reader *rd, jcli_figures *f, const char *name,
                       double v) {
  int i = jcli_memory_index(&rd->names, name);
  if (i < 0)
    return;
  f->have_memory[i] = true;
  f->memory[i] = v;
}

/* A memory-<type_instance> gauge: the two peaks are kept apart, since
 * they are maxima already, and so are the limits (memory-max and
 * memory-high); the others are values at the read. */
static void add_memory(jcli_reader *rd, jcli_figures *f, const jc_metric *m) {
  if (strcmp(m->type_instance, "max") == 0) {
    f->limits.have_memory_max = true;
    f->limits.memory_max = m->gauge[0];
  } else if (strcmp(m->type_instance, "high") == 0) {
    f->limits.have_memory_high = true;
    f->limits.memory_high = m->gauge[0];
  } else if (strcmp(m->type_instance, "peak") == 0) {
    f->have_peak = true;
    f->peak = m->gauge[0];
  } else if (strcmp(m->type_instance, "peak_interval") == 0) {
    f->have_peak_interval = true;
    f->peak_interval = m->gauge[0];
  } else {
    set_memory(rd, f, m->type_instance, m->gauge[0]);
  }
}

void jcli_reader_add(void *ctx, const jc_target *t, const jc_metric *m) {
  jcli_reader *rd = ctx;
  jcli_figures *f = t->relpath[0] ? &rd->filling->proc : &rd->filling->global;
  jcli_counters *c = &f->counters;
  if (strcmp(m->type, "ps_cputime") == 0) {
    c->have_times = true;
    c->user_usec = m->derive[0];
    c->system_usec = m->derive[1];
  } else if (strcmp(m->type, "derive") == 0 &&
             strcmp(m->type_instance, "cpu_usage_usec") == 0) {
    c->have_usage = true;
    c->usage_usec = m->derive[0];
  } else if (strcmp(m->type, "memory") == 0) {
    add_memory(rd, f, m);
  } else if (strcmp(m->type, "gauge") == 0 &&
             strcmp(m->type_instance, "cpu_limit_cores") == 0) {
    f->limits.have_cpu_cores = true;
    f->limits.cpu_cores = m->gauge[0];
  } else if (strcmp(m->type, "count") == 0 &&
             strcmp(m->type_instance, "pids_max") == 0) {
    f->limits.have_pids_max = true;
    f->limits.pids_max = m->gauge[0];
  } else if (strcmp(m->type, "disk_octets") == 0 && !m->type_instance[0]) {
    c->have_io = true;
    c->read_bytes = m->derive[0];
    c->write_bytes = m->derive[1];
  } else if (strcmp(m->type, "disk_ops") == 0 && !m->type_instance[0]) {
    c->read_ops = m->derive[0];
    c->write_ops = m->derive[1];
  }
}

/* The value of a "Key:   123 kB" line of /proc/meminfo, in bytes. */
static int meminfo_value(const char *text, size_t len, const char *key,
                         uint64_t *ret_bytes) {
  size_t key_len = strlen(key);
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *eol = nl ? nl : end;
    if ((size_t)(eol - p) > key_len && memcmp(p, key, key_len) == 0 &&
        p[key_len] == ':') {
      const char *v = p + key_len + 1;
      while (v < eol && *v == ' ')
        v++;
      const char *digits = v;
      while (v < eol && *v >= '0' && *v <= '9')
        v++;
      uint64_t kib;
      jc_token t = {digits, (size_t)(v - digits)};
      if (jc_parse_u64_token(t, &kib) < 0 || kib > UINT64_MAX / 1024)
        return -1;
      *ret_bytes = kib * 1024;
      return 0;
    }
    p = eol + 1;
  }
  return -1;
}

int jcli_meminfo_used(const char *text, size_t len, uint64_t *ret_bytes) {
  uint64_t total, available;
  if (meminfo_value(text, len, "MemTotal", &total) < 0 ||
      meminfo_value(text, len, "MemAvailable", &available) < 0)
    return -1;
  *ret_bytes = total > available ? total - available : 0;
  return 0;
}

/* The machine's memory in use, as the root cgroup's "current". */
static void read_meminfo(jcli_reader *rd, jcli_figures *global) {
  char buf[8192];
  if (rd->meminfo_fd < 0)
    return;
  ssize_t len = pread(rd->meminfo_fd, buf, sizeof(buf), 0);
  uint64_t used;
  if (len > 0 && jcli_meminfo_used(buf, (size_t)len, &used) == 0)
    set_memory(rd, global, "current", (double)used);
}

void jcli_reader_take(jcli_reader *rd, jc_collector *c, jcli_read_kind kind,
                      jcli_reading *ret) {
  memset(ret, 0, sizeof(*ret));
  ret->kind = kind;
  ret->time_ns = jc_now_ns();
  rd->filling = ret;
  jc_collector_read(c, jcli_reader_add, rd);
  read_meminfo(rd, &ret->global);
  rd->filling = NULL;
  jcli_energy_edge edge = kind == JCLI_READ_START ? JCLI_ENERGY_START
                          : kind == JCLI_READ_END ? JCLI_ENERGY_END
                                                  : JCLI_ENERGY_INSIDE;
  jcli_energy_take(&rd->energy, edge, ret->time_ns,
                   ret->proc.counters.have_usage, ret->proc.counters.usage_usec,
                   &ret->energy);
}
