/*
 * fuzz_metrics — jc_metrics_emit() over reads made of several files, with
 * the rate state carried from read to read as the collector does.
 *
 * Input: records separated by NUL bytes.  A record starting with a letter
 * 'a'..'p' is the text of that file (the letters of fuzz_sample.c) and is
 * parsed into the current sample; a record "+N" or "-N" ends the read:
 * the sample is emitted (summed and per device), reset, and the clock
 * moves N milliseconds (backwards with '-'); "@..." sets options: 'p'
 * toggles PerDevice, digits set the online CPUs.  The last read is
 * emitted at the end.  At most 16 reads.
 *
 * Checks: see fuzz_metrics_check.h; in particular a counter that went
 * backwards or a clock that did restart the rate instead of sending a
 * negative or infinite one.
 */
// fuzz-sources: jc_parse.c jc_sample.c jc_lists.c jc_metrics.c
#include <errno.h>

#include "fuzz_metrics_check.h"

#define MAX_READS 16
#define DEVICES 4

static uint64_t parse_ms(const uint8_t *p, size_t n) {
  uint64_t ms = 0;
  for (size_t i = 0; i < n && i < 12 && p[i] >= '0' && p[i] <= '9'; i++)
    ms = ms * 10 + (p[i] - '0');
  return ms;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  jc_memstat_keys *k = fuzz_keys(JC_MEMSTAT_MAX);
  jc_io_device *dev = malloc(DEVICES * sizeof(*dev));
  if (!dev)
    abort();
  jc_sample s = {.io_device = dev, .io_device_capacity = DEVICES};
  jc_prior rate = {0};
  char devname[32];
  jc_metrics_opts o = {fuzz_selection(k), k, 2, false, fuzz_device_name, devname};
  uint64_t now = 1000000000000u;
  int reads = 0;

  jc_sample_reset(&s);
  s.time_ns = now;
  for (size_t pos = 0; pos < size;) {
    const uint8_t *end = memchr(data + pos, '\0', size - pos);
    size_t n = end ? (size_t)(end - (data + pos)) : size - pos;
    const uint8_t *rec = data + pos;
    pos += n + 1;
    if (n == 0)
      continue;
    if (rec[0] == '+' || rec[0] == '-') {
      jc_metrics_emit(&s, &rate, NULL, &o, fuzz_check_metric, NULL);
      if (++reads == MAX_READS)
        break;
      uint64_t ms = parse_ms(rec + 1, n - 1) * 1000000u;
      now = rec[0] == '+' ? now + ms : now - ms;
      jc_sample_reset(&s);
      s.time_ns = now;
    } else if (rec[0] == '@') {
      for (size_t i = 1; i < n; i++)
        if (rec[i] == 'p')
          o.per_device = !o.per_device;
      o.online_cpus = (unsigned)parse_ms(rec + 1, n - 1) % 4096;
    } else if (rec[0] >= 'a' && rec[0] < 'a' + JC_FILE_COUNT) {
      int f = rec[0] - 'a';
      char *buf = fuzz_copy(rec + 1, n - 1);
      uint32_t have = s.have;
      int r = jc_sample_parse(&s, (jc_file_id)f, buf, n - 1, k);
      fuzz_check_sample(&s, f, r, k, have);
      fuzz_check_io_sums(&s);
      free(buf);
    }
  }
  jc_metrics_emit(&s, &rate, NULL, &o, fuzz_check_metric, NULL);
  jc_metrics_io_reset(&rate.io);
  free(dev);
  return 0;
}
