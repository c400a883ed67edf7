/*
 * jcli_reading — see jcli_reading.h.
 *
 * The metrics arrive with the core's identifier of their value list
 * (jc_metric.list), each cgroup's totals after them (jc_totals: CPU, I/O,
 * memory.peak, the same definition as the plugin's NotifyEnd record);
 * this is where they become the few figures a report is made of.
 */
#include "jcli_reading.h"

#include "jc_clock.h"
#include "jc_parse.h"

#include <errno.h>
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
  return -ENOENT;
}

int jcli_memory_index(jcli_memory_names *names, const char *name) {
  int i = jcli_memory_find(names, name);
  if (i >= 0)
    return i;
  if (names->count == JCLI_MEMORY_MAX)
    return -ENOSPC;
  snprintf(names->name[names->count], sizeof(names->name[0]), "%s", name);
  return (int)names->count++;
}

int jcli_gpu_index(jcli_gpu_names *gpus, const char *uuid) {
  for (size_t i = 0; i < gpus->count; i++)
    if (strcmp(gpus->uuid[i], uuid) == 0)
      return (int)i;
  if (gpus->count == JCLI_GPU_MAX || strlen(uuid) >= sizeof(gpus->uuid[0]))
    return -ENOSPC;
  snprintf(gpus->uuid[gpus->count], sizeof(gpus->uuid[0]), "%s", uuid);
  return (int)gpus->count++;
}

static void set_memory(jcli_reader *rd, jcli_figures *f, const char *name,
                       double v) {
  int i = jcli_memory_index(&rd->names, name);
  if (i < 0)
    return;
  f->have_memory[i] = true;
  f->memory[i] = v;
}

/* A figure that is there or not. */
static void set_figure(bool *have, double *figure, double v) {
  *have = true;
  *figure = v;
}

/* A GPU list's figure: its UUID from the type instance (jc_gpu's forms:
 * "<gpu>", "<gpu>_total", "<gpu>_sm", "energy_<gpu>_uj",
 * "energy_<gpu>_idle_uj"), into that GPU's figures. */
static void add_gpu(jcli_reader *rd, jcli_figures *f, const jc_metric *m) {
  static const struct {
    jc_list_id list;
    const char *prefix, *suffix;
  } forms[] = {
      {JC_LIST_GPU_MEMORY, "", ""},
      {JC_LIST_GPU_MEMORY_TOTAL, "", "_total"},
      {JC_LIST_GPU_SM, "", "_sm"},
      {JC_LIST_GPU_ENERGY, "energy_", "_uj"},
      {JC_LIST_GPU_ENERGY_IDLE, "energy_", "_idle_uj"},
  };
  for (size_t k = 0; k < sizeof(forms) / sizeof(forms[0]); k++) {
    if (forms[k].list != m->list)
      continue;
    const char *ti = m->type_instance;
    size_t pre = strlen(forms[k].prefix), suf = strlen(forms[k].suffix);
    size_t len = strlen(ti);
    char uuid[96];
    if (len <= pre + suf || len - pre - suf >= sizeof(uuid) ||
        strncmp(ti, forms[k].prefix, pre) != 0 ||
        strcmp(ti + len - suf, forms[k].suffix) != 0)
      return;
    memcpy(uuid, ti + pre, len - pre - suf);
    uuid[len - pre - suf] = '\0';
    int i = jcli_gpu_index(&rd->gpus, uuid);
    if (i < 0)
      return;
    jcli_gpu_figures *g = &f->gpu[i];
    double v = m->kind == JC_DERIVE ? (double)m->derive[0] : m->gauge[0];
    switch (m->list) {
    case JC_LIST_GPU_MEMORY: set_figure(&g->have_memory, &g->memory, v); break;
    case JC_LIST_GPU_MEMORY_TOTAL: set_figure(&g->have_total, &g->total, v); break;
    case JC_LIST_GPU_SM: set_figure(&g->have_sm, &g->sm, v); break;
    case JC_LIST_GPU_ENERGY: set_figure(&g->have_energy, &g->energy_uj, v); break;
    default: set_figure(&g->have_idle, &g->idle_uj, v); break;
    }
    return;
  }
}

/* The figures a metric makes, by the core's identifier of its list
 * (jc_lists), never by its collectd type strings.  The two peaks are kept
 * apart, since they are maxima already, and so are the limits; the other
 * memory values (current, swap, the MemoryStat gauges, whose type
 * instance is the memory.stat key) are values at the read, by name.
 * The counters and memory.peak come with the totals (jcli_reader_totals);
 * lists not named here are not the command's. */
static void add_figure(jcli_reader *rd, jcli_figures *f, const jc_metric *m) {
  jcli_limits *l = &f->limits;
  double v = m->gauge[0];
  switch (m->list) {
  case JC_LIST_MEMORY_CURRENT:
    set_memory(rd, f, "current", v);
    break;
  case JC_LIST_MEMORY_SWAP_CURRENT:
    set_memory(rd, f, "swap_current", v);
    break;
  case JC_LIST_MEMSTAT:
    set_memory(rd, f, m->type_instance, v);
    break;
  case JC_LIST_MEMORY_PEAK_INTERVAL:
    set_figure(&f->have_peak_interval, &f->peak_interval, v);
    break;
  case JC_LIST_MEMORY_MAX:
    set_figure(&l->have_memory_max, &l->memory_max, v);
    break;
  case JC_LIST_MEMORY_HIGH:
    set_figure(&l->have_memory_high, &l->memory_high, v);
    break;
  case JC_LIST_CPU_LIMIT_CORES:
    set_figure(&l->have_cpu_cores, &l->cpu_cores, v);
    break;
  case JC_LIST_PIDS_MAX:
    set_figure(&l->have_pids_max, &l->pids_max, v);
    break;
  case JC_LIST_GPU_MEMORY:
  case JC_LIST_GPU_MEMORY_TOTAL:
  case JC_LIST_GPU_SM:
  case JC_LIST_GPU_ENERGY:
  case JC_LIST_GPU_ENERGY_IDLE:
    add_gpu(rd, f, m);
    break;
  default:
    break;
  }
}

/* The cgroup a target is: the root is the machine, any other the command. */
static jcli_figures *figures_of(jcli_reader *rd, const jc_target *t) {
  return t->relpath[0] ? &rd->filling->proc : &rd->filling->global;
}

void jcli_reader_add(void *ctx, const jc_target *t, const jc_metric *m) {
  jcli_reader *rd = ctx;
  add_figure(rd, figures_of(rd, t), m);
}

void jcli_reader_totals(void *ctx, const jc_target *t,
                        const jc_totals *totals) {
  jcli_reader *rd = ctx;
  jcli_figures *f = figures_of(rd, t);
  /* jc_totals holds no counter past INT64_MAX: each fits. */
  f->counters = (jcli_counters){
      .have_usage = totals->have_usage,
      .have_times = totals->have_times,
      .have_io = totals->have_io,
      .usage_usec = (int64_t)totals->usage_usec,
      .user_usec = (int64_t)totals->user_usec,
      .system_usec = (int64_t)totals->system_usec,
      .read_bytes = (int64_t)totals->io_read_bytes,
      .write_bytes = (int64_t)totals->io_write_bytes,
      .read_ops = (int64_t)totals->io_read_ops,
      .write_ops = (int64_t)totals->io_write_ops};
  if (totals->have_memory_peak)
    set_figure(&f->have_peak, &f->peak, (double)totals->memory_peak);
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
        return -EBADMSG;
      *ret_bytes = kib * 1024;
      return 0;
    }
    p = eol + 1;
  }
  return -ENODATA;
}

int jcli_meminfo_used(const char *text, size_t len, uint64_t *ret_bytes) {
  uint64_t total, available;
  int r = meminfo_value(text, len, "MemTotal", &total);
  if (r == 0)
    r = meminfo_value(text, len, "MemAvailable", &available);
  if (r < 0)
    return r;
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
  jc_collector_set_totals(c, jcli_reader_totals, rd);
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
