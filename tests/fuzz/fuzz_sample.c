/*
 * fuzz_sample — jc_sample_parse(), the real per-file entry point, for
 * every jc_file_id, then jc_metrics_emit() on the result.
 *
 * Input: byte 0 picks the file, (byte - 'a') % (JC_FILE_COUNT + 1), in
 * jc_file_id order: 'a' cpu.stat, 'b' memory.current, 'c' memory.peak,
 * 'd' memory.swap.current, 'e' memory.stat, 'f' io.stat, 'g' cpu.pressure,
 * 'h' memory.pressure, 'i' io.pressure, 'j' memory.events, 'k'
 * pids.current, 'l' cpu.max, 'm' memory.max, 'n' memory.high, 'o'
 * pids.max, 'p' memory.peak (interval), 'q' cgroup.stat, 'r'
 * cpuset.cpus.effective (into two words), 's' an id out of range.  Byte 1 gives the io device storage, byte % 8 entries ('0'-'7'),
 * and the number of memory.stat keys configured, 64 - byte % 8.  The rest
 * is the file's text, in an exactly-sized unterminated heap copy; the
 * device storage is exactly-sized too.
 *
 * Checks: see fuzz_metrics_check.h.
 */
// fuzz-sources: jc_parse.c jc_sample.c jc_lists.c jc_metrics.c
#include <errno.h>

#include "fuzz_metrics_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  int f = (uint8_t)(data[0] - 'a') % (JC_FILE_COUNT + 1);
  size_t capacity = data[1] % 8;
  jc_memstat_keys *k = fuzz_keys(JC_MEMSTAT_MAX - data[1] % 8);
  char *buf = fuzz_copy(data + 2, size - 2);
  jc_io_device *dev = malloc(capacity * sizeof(*dev));
  if (!dev)
    abort();

  uint64_t cpuset[2];
  jc_sample s = {.io_device = dev, .io_device_capacity = capacity,
                 .cpuset = cpuset, .cpuset_words = 2};
  jc_sample_reset(&s);
  FUZZ_CHECK(s.io_device == dev && s.io_device_capacity == capacity &&
             s.cpuset == cpuset && s.cpuset_words == 2);
  s.time_ns = 1000000000u;
  int r = jc_sample_parse(&s, (jc_file_id)f, buf, size - 2, k);
  fuzz_check_sample(&s, f, r, k, 0);
  fuzz_check_io_sums(&s);

  char devname[32];
  jc_prior rate = {0};
  for (int per_device = 0; per_device < 2; per_device++) {
    jc_metrics_opts o = {fuzz_selection(k), k, 2, per_device, fuzz_device_name,
                         devname};
    jc_metrics_emit(&s, &rate, NULL, &o, fuzz_check_metric, NULL);
  }
  jc_metrics_io_reset(&rate.io);
  free(dev);
  free(buf);
  return 0;
}
