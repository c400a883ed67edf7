/*
 * fuzz_metrics_check.h — the sample set-up and the metric checks that
 * fuzz_sample and fuzz_metrics share.
 *
 * The memory.stat keys are the 64 (JC_MEMSTAT_MAX) of a 6.8 kernel and a
 * few more, flagged as collectd's configuration code flags them.  Every
 * metric jc_metrics_emit() produces goes through fuzz_check_metric():
 * a known kind, the id of its list agreeing with its type, one or two
 * values, non-empty type, derives never negative (collectd's derive_t is
 * signed: a counter beyond it is not sent, never wrapped) and gauges
 * finite and never negative (every gauge here is a size, a count, a
 * percentage or a rate of a counter that only grows; a size is any u64,
 * docs/metrics.md).
 */
#ifndef FUZZ_METRICS_CHECK_H
#define FUZZ_METRICS_CHECK_H

#include "fuzz_util.h"
#include "jc_metrics.h"

#include <math.h>

static const char *const fuzz_memstat_names[JC_MEMSTAT_MAX] = {
    "anon", "file", "kernel", "kernel_stack", "pagetables", "sec_pagetables",
    "percpu", "sock", "vmalloc", "shmem", "zswap", "zswapped", "file_mapped",
    "file_dirty", "file_writeback", "swapcached", "anon_thp", "file_thp",
    "shmem_thp", "inactive_anon", "active_anon", "inactive_file",
    "active_file", "unevictable", "slab_reclaimable", "slab_unreclaimable",
    "slab", "workingset_refault_anon", "workingset_refault_file",
    "workingset_activate_anon", "workingset_activate_file",
    "workingset_restore_anon", "workingset_restore_file",
    "workingset_nodereclaim", "pgscan", "pgsteal", "pgscan_kswapd",
    "pgscan_direct", "pgscan_khugepaged", "pgsteal_kswapd", "pgsteal_direct",
    "pgsteal_khugepaged", "pgfault", "pgmajfault", "pgrefill", "pgactivate",
    "pgdeactivate", "pglazyfree", "pglazyfreed", "zswpin", "zswpout", "zswpwb",
    "thp_fault_alloc", "thp_collapse_alloc", "thp_swpout",
    "thp_swpout_fallback", "hugetlb", "swap", "pgpromote_success",
    "pgdemote_kswapd", "pgdemote_direct", "pgdemote_khugepaged", "numa_pages_migrated",
    "numa_pte_updates",
};

static jc_memstat_keys fuzz_memstat_keys;

/* The first `count` keys (count ≤ JC_MEMSTAT_MAX); set once per count. */
static jc_memstat_keys *fuzz_keys(size_t count) {
  static char derive[JC_MEMSTAT_MAX][64];
  jc_memstat_keys *k = &fuzz_memstat_keys;
  k->count = count;
  for (size_t i = 0; i < count; i++) {
    k->key[i] = (char *)fuzz_memstat_names[i];
    k->key_len[i] = (uint8_t)strlen(k->key[i]);
    k->is_event[i] = jc_sample_memstat_key_is_event(k->key[i]);
    snprintf(derive[i], sizeof(derive[i]), "memory_%s", k->key[i]);
    k->derive_instance[i] = k->is_event[i] ? derive[i] : NULL;
  }
  return k;
}

/* Every value list of every group (Values "*"), the MemoryStat ones too. */
static const jc_selection *fuzz_selection(jc_memstat_keys *k) {
  static jc_selection sel;
  static bool made;
  size_t failed;
  char err[256], *all[] = {"*"};
  if (!made && jc_lists_select(&sel, k, true, ~0u, all, 1, &failed, err,
                                 sizeof(err)) < 0)
    abort();
  made = true;
  for (size_t i = 0; i < k->count; i++) /* the count varies by input */
    k->sel[i] = JC_SEL_ASKED;
  return &sel;
}

static const char *fuzz_device_name(void *ctx, unsigned major,
                                    unsigned minor) {
  char *buf = ctx; /* 32 bytes */
  if (major == 8 && minor == 0)
    return "sda";
  snprintf(buf, 32, "%u:%u", major, minor);
  return buf;
}

static size_t fuzz_metric_count;

static void fuzz_check_metric(void *ctx, const jc_metric *m) {
  (void)ctx;
  fuzz_metric_count++;
  FUZZ_CHECK(m->type && m->type[0] != '\0' && m->type_instance);
  /* Its list's id, which readers go by, agrees with its type. */
  FUZZ_CHECK(m->list <= JC_LIST_MEMSTAT_EVENT &&
             strcmp(jc_lists_type(m->list), m->type) == 0);
  FUZZ_CHECK(strlen(m->type_instance) < 128);
  FUZZ_CHECK(m->count >= 1 && m->count <= JC_METRIC_VALUES);
  FUZZ_CHECK(m->kind == JC_GAUGE || m->kind == JC_DERIVE);
  for (size_t i = 0; i < m->count; i++) {
    if (m->kind == JC_DERIVE)
      FUZZ_CHECK(m->derive[i] >= 0);
    else
      FUZZ_CHECK(isfinite(m->gauge[i]) && m->gauge[i] >= 0.0);
    /* Within the ranges of types.db, or range-checking writers drop it;
     * sizes are any u64 the kernel prints (docs/metrics.md). */
    if (strcmp(m->type, "memory") == 0)
      FUZZ_CHECK(m->gauge[i] <= (double)UINT64_MAX);
    if (strcmp(m->type, "percent") == 0)
      FUZZ_CHECK(m->gauge[i] <= 100.1);
    if (strcmp(m->type, "load") == 0)
      FUZZ_CHECK(m->gauge[i] <= 5000);
  }
}

/*
 * The invariants of a sample after jc_sample_parse(s, f, ...) returned r.
 * -EOVERFLOW: a counter beyond 2^63 - 1, in a file the sample keeps whole.
 */
static void fuzz_check_sample(const jc_sample *s, int f, int r,
                              const jc_memstat_keys *k, uint32_t have_before) {
  FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE || r == -EOVERFLOW);
  if (f >= JC_FILE_COUNT)
    FUZZ_CHECK(r == -EINVAL && s->have == have_before);
  else if (r == 0 || r == -EOVERFLOW)
    FUZZ_CHECK(jc_sample_has(s, (jc_file_id)f));
  FUZZ_CHECK((s->have & ~have_before) == 0 ||
             (f < JC_FILE_COUNT && (s->have & ~have_before) == (1u << f)));
  FUZZ_CHECK(s->have < (1u << JC_FILE_COUNT));
  FUZZ_CHECK(s->cpu_have < (1u << JC_CPU_KEY_COUNT));
  FUZZ_CHECK(s->keyed_have < (1u << JC_KEY_COUNT));
  FUZZ_CHECK(k->count == 64 || s->memstat_have < (1ull << k->count));
  FUZZ_CHECK(s->io_device_count <= s->io_device_capacity);
  for (int i = 0; i < 3; i++)
    if (jc_sample_has(s, (jc_file_id)(JC_FILE_CPU_PRESSURE + i)))
      FUZZ_CHECK(s->psi[i].has_some);
}

/* Without truncation the per-device values add up to the sums, which
   stop at UINT64_MAX instead of wrapping. */
static uint64_t fuzz_sum(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void fuzz_check_io_sums(const jc_sample *s) {
  if (s->io_devices_truncated)
    return;
  uint64_t sum[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < s->io_device_count; i++) {
    sum[0] = fuzz_sum(sum[0], s->io_device[i].rbytes);
    sum[1] = fuzz_sum(sum[1], s->io_device[i].wbytes);
    sum[2] = fuzz_sum(sum[2], s->io_device[i].rios);
    sum[3] = fuzz_sum(sum[3], s->io_device[i].wios);
  }
  FUZZ_CHECK(sum[0] == s->io_rbytes && sum[1] == s->io_wbytes &&
             sum[2] == s->io_rios && sum[3] == s->io_wios);
}

#endif
