/*
 * jc_sample — see jc_sample.h.
 */
#include "jc_sample.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* Linux 6.1 lets a cgroup switch its pressure files off. */
#define PSI_OFF                                                                \
  "pressure stall information is off for this cgroup (0 in its "             \
  "cgroup.pressure) or for the kernel (booted with psi=0)"

#define SINGLE_FILE_ROW(ID, field, file, controller, flags, ...)              \
  [JC_FILE_##ID] = {file,                                                      \
                    controller,                                                \
                    ((flags) & JC_ROW_OPTIONAL) != 0,                          \
                    ((flags) & JC_ROW_NOT_AT_ROOT) != 0,                       \
                    NULL,                                                      \
                    ((flags) & JC_ROW_RESET) != 0,                             \
                    offsetof(jc_sample, field)},

/* A row of the file table: its name, controller (NULL: always there)
 * and flags (JC_ROW_OPTIONAL, JC_ROW_NOT_AT_ROOT), and why it may be
 * missing where it belongs. */
#define FILE_ROW(file, controller, flags, hint)                                \
  {file, controller, ((flags) & JC_ROW_OPTIONAL) != 0,                         \
   ((flags) & JC_ROW_NOT_AT_ROOT) != 0, hint}

const jc_file_info jc_sample_files[JC_FILE_COUNT] = {
    [JC_FILE_CPU_STAT] = FILE_ROW("cpu.stat", NULL, 0, NULL),
    JC_SINGLE_FILES(SINGLE_FILE_ROW)
    [JC_FILE_MEMORY_STAT] = FILE_ROW("memory.stat", "memory", 0, NULL),
    [JC_FILE_IO_STAT] = FILE_ROW("io.stat", "io", 0, NULL),
    [JC_FILE_CPU_PRESSURE] = FILE_ROW("cpu.pressure", NULL, 0, PSI_OFF),
    [JC_FILE_MEMORY_PRESSURE] = FILE_ROW("memory.pressure", NULL, 0, PSI_OFF),
    [JC_FILE_IO_PRESSURE] = FILE_ROW("io.pressure", NULL, 0, PSI_OFF),
    [JC_FILE_MEMORY_EVENTS] =
        FILE_ROW("memory.events", "memory", JC_ROW_NOT_AT_ROOT, NULL),
    /* A missing limit file is no limit of the cgroup's own (the controller
     * is not enabled for it); its ancestors' may still apply. */
    [JC_FILE_CPU_MAX] =
        FILE_ROW("cpu.max", "cpu", JC_ROW_OPTIONAL | JC_ROW_NOT_AT_ROOT, NULL),
    [JC_FILE_MEMORY_MAX] = FILE_ROW("memory.max", "memory",
                                    JC_ROW_OPTIONAL | JC_ROW_NOT_AT_ROOT, NULL),
    [JC_FILE_MEMORY_HIGH] = FILE_ROW(
        "memory.high", "memory", JC_ROW_OPTIONAL | JC_ROW_NOT_AT_ROOT, NULL),
    [JC_FILE_PIDS_MAX] = FILE_ROW("pids.max", "pids",
                                  JC_ROW_OPTIONAL | JC_ROW_NOT_AT_ROOT, NULL),
    [JC_FILE_CGROUP_STAT] = FILE_ROW("cgroup.stat", NULL, 0, NULL),
    /* Only where the cpuset controller is enabled: elsewhere the CPUs
     * are those of the nearest cgroup above that has the file. */
    [JC_FILE_CPUSET_CPUS_EFFECTIVE] =
        FILE_ROW("cpuset.cpus.effective", NULL,
                 JC_ROW_OPTIONAL | JC_ROW_NOT_AT_ROOT, NULL),
};

/* Key tables with their lengths, both from one list (X-macros), so that
 * matching compares lengths before bytes. */
#define CPU_KEYS(X)                                                            \
  X(usage_usec) X(user_usec) X(system_usec) X(nr_periods) X(nr_throttled)      \
  X(throttled_usec) X(nr_bursts) X(burst_usec)
#define KEY_NAME(k) #k,
#define KEY_LEN(k) sizeof(#k) - 1,

const char *const jc_sample_cpu_keys[JC_CPU_KEY_COUNT] = {CPU_KEYS(KEY_NAME)};
static const uint8_t cpu_key_lens[JC_CPU_KEY_COUNT] = {CPU_KEYS(KEY_LEN)};

/* JC_KEYED_FIGURES' rows, for the parse: each key's file, name and flags
 * (the rows of a file are consecutive, as parse_keyed reads them). */
static const jc_file_id keyed_file[JC_KEY_COUNT] = {
#define KEYED_FILE(ID, file, ...) JC_FILE_##file,
    JC_KEYED_FIGURES(KEYED_FILE)
#undef KEYED_FILE
};
#define KEYED_KEY(ID, file, key, ...) KEY_NAME(key)
#define KEYED_LEN(ID, file, key, ...) KEY_LEN(key)
#define KEYED_FLAGS(ID, file, key, flags, ...) flags,
static const char *const keyed_names[JC_KEY_COUNT] = {
    JC_KEYED_FIGURES(KEYED_KEY)};
static const uint8_t keyed_lens[JC_KEY_COUNT] = {JC_KEYED_FIGURES(KEYED_LEN)};
static const uint8_t keyed_flags[JC_KEY_COUNT] = {
    JC_KEYED_FIGURES(KEYED_FLAGS)};

/* The files of those rows. */
#define KEYED_FILE_BIT(ID, file, ...) | (1u << JC_FILE_##file)
static const uint32_t keyed_files = 0u JC_KEYED_FIGURES(KEYED_FILE_BIT);
#undef KEYED_FILE_BIT

/* The Collect words, in the order of their bits. */
static const struct {
  const char *word;
  unsigned bit;
} collect_groups[] = {
    {"cpu", JC_COLLECT_CPU},           {"memory", JC_COLLECT_MEMORY},
    {"io", JC_COLLECT_IO},             {"pressure", JC_COLLECT_PRESSURE},
    {"events", JC_COLLECT_EVENTS},     {"pids", JC_COLLECT_PIDS},
    {"limits", JC_COLLECT_LIMITS},     {"energy", JC_COLLECT_ENERGY},
    {"cgroups", JC_COLLECT_CGROUPS},   {"gpu", JC_COLLECT_GPU},
    {"network", JC_COLLECT_NETWORK},   {"disk", JC_COLLECT_DISK},
};

unsigned jc_sample_collect_bit(const char *word) {
  for (size_t i = 0; i < sizeof(collect_groups) / sizeof(collect_groups[0]);
       i++)
    if (strcasecmp(word, collect_groups[i].word) == 0)
      return collect_groups[i].bit;
  return 0;
}

const char *jc_sample_collect_word(size_t i, unsigned *ret_bit) {
  if (i >= sizeof(collect_groups) / sizeof(collect_groups[0]))
    return NULL;
  if (ret_bit)
    *ret_bit = collect_groups[i].bit;
  return collect_groups[i].word;
}

bool jc_sample_memstat_key_is_event(const char *key) {
  /* docs/metrics.md's pg*, workingset_*, thp_*, zswp*, and the counters Linux 6.12
   * added that are no byte sizes either: swpin_zero, swpout_zero, numa_*. */
  static const char *const prefixes[] = {"pg",    "workingset_", "thp_",
                                         "zswp",  "swpin",       "swpout",
                                         "numa_"};
  for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
    if (strncmp(key, prefixes[i], strlen(prefixes[i])) == 0)
      return true;
  return false;
}

void jc_sample_reset(jc_sample *s) {
  jc_io_device *storage = s->io_device;
  size_t capacity = s->io_device_capacity;
  uint64_t *cpuset = s->cpuset;
  size_t words = s->cpuset_words;
  memset(s, 0, sizeof(*s));
  s->io_device = storage;
  s->io_device_capacity = capacity;
  s->cpuset = cpuset;
  s->cpuset_words = words;
}

/* Index of key in names[0..n) (lengths in lens), or -1.  Lengths first:
 * most keys of memory.stat are not wanted and differ in length. */
static int find_key(jc_token key, const char *const *names,
                    const uint8_t *lens, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (lens[i] == key.len && memcmp(key.ptr, names[i], key.len) == 0)
      return (int)i;
  return -1;
}

/*
 * Runs a flat-keyed file through its key table.  A malformed line makes
 * the result -EINVAL, but the lines after it are still read.
 */
static int parse_flat(const char *buf, size_t len, const char *const *names,
                      const uint8_t *lens, size_t n, uint64_t *values,
                      uint64_t *have) {
  jc_cursor c;
  jc_parse_cursor_init(&c, buf, len);
  jc_token key;
  uint64_t value;
  int r, result = 0;
  while ((r = jc_parse_flat_next(&c, &key, &value)) != 0) {
    if (r < 0) {
      result = r;
      continue;
    }
    int i = find_key(key, names, lens, n);
    if (i >= 0) {
      values[i] = value;
      *have |= 1ull << i;
    }
  }
  return result;
}

static int parse_io(jc_sample *s, const char *buf, size_t len) {
  s->io_rbytes = s->io_wbytes = s->io_rios = s->io_wios = 0;
  s->io_device_count = 0;
  s->io_devices_truncated = s->io_malformed = false;
  jc_cursor c;
  jc_parse_cursor_init(&c, buf, len);
  jc_io_line line;
  int r, result = 0;
  while ((r = jc_parse_io_next(&c, &line)) != 0) {
    if (r < 0) {
      result = r;
      s->io_malformed = true;
      continue;
    }
    s->io_rbytes = jc_sample_sum(s->io_rbytes, line.rbytes);
    s->io_wbytes = jc_sample_sum(s->io_wbytes, line.wbytes);
    s->io_rios = jc_sample_sum(s->io_rios, line.rios);
    s->io_wios = jc_sample_sum(s->io_wios, line.wios);
    if (s->io_device_count == s->io_device_capacity) {
      s->io_devices_truncated = true;
      continue;
    }
    s->io_device[s->io_device_count++] = (jc_io_device){
        line.major,  line.minor, line.unknown_device, line.rbytes,
        line.wbytes, line.rios,  line.wios};
  }
  return result;
}

/* A collectd DERIVE is a signed 64-bit integer: a counter beyond it is
 * not sent, and its file is said once (docs/metrics.md, "A counter beyond
 * 2^63 - 1"). */
static bool beyond_derive(uint64_t v) { return v > INT64_MAX; }

/* Any of values[0..n) whose bit is in have (and, with events, in events)? */
static bool any_beyond_derive(const uint64_t *values, uint64_t have,
                              uint64_t events, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((have & events & (1ull << i)) && beyond_derive(values[i]))
      return true;
  return false;
}

static bool psi_beyond_derive(const jc_psi *p) {
  return (p->has_some && beyond_derive(p->some.total_usec)) ||
         (p->has_full && beyond_derive(p->full.total_usec));
}

/* The memory.stat keys that count events (the others are sizes: gauges). */
static uint64_t memstat_events(const jc_memstat_keys *keys) {
  uint64_t events = 0;
  for (size_t i = 0; keys && i < keys->count; i++)
    if (keys->is_event[i])
      events |= 1ull << i;
  return events;
}

/* Is a counter that file f gave s beyond what a DERIVE holds?  The io.stat
 * sums bound every device's figure. */
static bool counter_beyond_derive(const jc_sample *s, jc_file_id f,
                                  const jc_memstat_keys *keys) {
  switch (f) {
  case JC_FILE_CPU_STAT:
    return any_beyond_derive(s->cpu, s->cpu_have, UINT64_MAX, JC_CPU_KEY_COUNT);
  case JC_FILE_MEMORY_STAT:
    return any_beyond_derive(s->memstat, s->memstat_have, memstat_events(keys),
                             keys ? keys->count : 0);
  case JC_FILE_IO_STAT:
    return beyond_derive(s->io_rbytes) || beyond_derive(s->io_wbytes) ||
           beyond_derive(s->io_rios) || beyond_derive(s->io_wios);
  case JC_FILE_CPU_PRESSURE:
  case JC_FILE_MEMORY_PRESSURE:
  case JC_FILE_IO_PRESSURE:
    return psi_beyond_derive(&s->psi[f - JC_FILE_CPU_PRESSURE]);
  default:
    return false;
  }
}

/*
 * File f's keys of JC_KEYED_FIGURES, rows [first, first + n).  A
 * malformed line makes the result -EINVAL but the lines after it are
 * still read, as a required key that is missing does; a counter beyond
 * DERIVE is -EOVERFLOW with the file whole.  A file of optional keys
 * yields the keys it has however it ends; one with a required key, only
 * when it is whole.
 */
static int parse_keyed(jc_sample *s, jc_file_id f, const char *buf,
                       size_t len) {
  size_t first = 0, n = 0;
  while (keyed_file[first] != f)
    first++;
  while (first + n < JC_KEY_COUNT && keyed_file[first + n] == f)
    n++;
  uint64_t have = 0, required = 0;
  int result = parse_flat(buf, len, keyed_names + first, keyed_lens + first,
                          n, s->keyed + first, &have);
  for (size_t i = 0; i < n; i++)
    required |= keyed_flags[first + i] & JC_KEY_REQUIRED ? 1ull << i : 0;
  if (result == 0 && (have & required) != required)
    result = -EINVAL; /* every kernel that has the file prints the key */
  for (size_t i = 0; result == 0 && i < n; i++)
    if ((have & (1ull << i)) && (keyed_flags[first + i] & JC_KEY_COUNTER) &&
        beyond_derive(s->keyed[first + i]))
      result = -EOVERFLOW;
  uint32_t mine = (uint32_t)(((1ull << n) - 1) << first);
  s->keyed_have &= ~mine;
  if (result == 0 || result == -EOVERFLOW || !required) {
    s->keyed_have |= (uint32_t)(have << first);
    s->have |= 1u << f;
  }
  return result;
}

int jc_sample_parse(jc_sample *s, jc_file_id f, const char *buf, size_t len,
                    const jc_memstat_keys *keys) {
  uint64_t have = 0;
  int r;
  switch (f) {
  case JC_FILE_CPU_STAT:
    r = parse_flat(buf, len, jc_sample_cpu_keys, cpu_key_lens, JC_CPU_KEY_COUNT,
                   s->cpu, &have);
    s->cpu_have = (uint16_t)have;
    if (r == 0 && !(have & 1u << JC_CPU_USAGE_USEC))
      r = -EINVAL; /* every kernel prints usage_usec */
    break;
  case JC_FILE_CPU_MAX:
    r = jc_parse_cpu_max(buf, len, &s->cpu_max_quota, &s->cpu_max_period);
    break;
  case JC_FILE_MEMORY_MAX:
    r = jc_parse_single(buf, len, &s->memory_max);
    break;
  case JC_FILE_MEMORY_HIGH:
    r = jc_parse_single(buf, len, &s->memory_high);
    break;
  case JC_FILE_PIDS_MAX:
    r = jc_parse_single(buf, len, &s->pids_max);
    break;
  case JC_FILE_MEMORY_STAT:
    r = parse_flat(buf, len, (const char *const *)keys->key, keys->key_len,
                   keys->count, s->memstat, &s->memstat_have);
    break;
  case JC_FILE_IO_STAT:
    r = parse_io(s, buf, len);
    break;
  case JC_FILE_CPU_PRESSURE:
  case JC_FILE_MEMORY_PRESSURE:
  case JC_FILE_IO_PRESSURE:
    r = jc_parse_pressure(buf, len, &s->psi[f - JC_FILE_CPU_PRESSURE]);
    break;
  case JC_FILE_CPUSET_CPUS_EFFECTIVE:
    if (!s->cpuset)
      return -EINVAL; /* no storage: the caller does not read it */
    r = jc_parse_cpu_list(buf, len, s->cpuset, s->cpuset_words,
                          &s->cpuset_beyond);
    break;
  default: /* a row of JC_SINGLE_FILES or JC_KEYED_FIGURES, or no file */
    if (f < JC_FILE_COUNT && (keyed_files & (1u << f)))
      return parse_keyed(s, f, buf, len);
    if (f >= JC_FILE_COUNT || !jc_sample_files[f].single)
      return -EINVAL;
    r = jc_parse_single(buf, len,
                        (uint64_t *)((char *)s + jc_sample_files[f].single));
    if (r == 0)
      s->have |= 1u << f;
    return r;
  }
  /* A flat file with one bad line still yields its good keys.  A counter
     beyond DERIVE is a valid value: the file is whole, and said once. */
  if (r == 0 && counter_beyond_derive(s, f, keys))
    r = -EOVERFLOW;
  bool partial_ok = r == -EOVERFLOW || f == JC_FILE_IO_STAT ||
                    (f == JC_FILE_CPU_STAT ? s->cpu_have != 0
                                           : f == JC_FILE_MEMORY_STAT);
  if (r == 0 || partial_ok)
    s->have |= 1u << f;
  return r;
}
