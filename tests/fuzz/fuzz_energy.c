/*
 * fuzz_energy — what the energy modules parse and compute, on any bytes.
 * The first byte chooses:
 *
 *   'S' hz text   jc_procstat_parse: /proc/stat text, USER_HZ from the
 *                 byte hz (100, 250, 1000, 1024, 1, 10^6, 0 or -1)
 *   'Z' name      jc_rapl_parse_id: a directory name of the powercap tree
 *   'A' numbers   jc_share_split_energy and jc_share_charge: energy, the
 *                 host's total and idle time, covered and a usage, from
 *                 up to 40 bytes (8 each, little-endian; missing bytes 0)
 *   'L' text      jc_parse_cpu_list: a cpuset list into two words
 *   'P' hz line   jc_procstat_parse_line: one CPU line
 *   'D' numbers   jc_share_domain_times: two packages' times, then up to
 *                 six parties (usage, a mask byte, a parent byte)
 *
 * (any other first byte: its value modulo 6 chooses).  Checks: outputs
 * untouched on failure and only the documented errors; /proc/stat: idle
 * never above total, whole ticks of 10 ms at USER_HZ 100; zone ids: a
 * name accepted is exactly "intel-rapl:N" or "intel-rapl:N:M" printed
 * back; the split: it succeeds exactly when the host's time moved and its
 * idle fits, idle and busy parts add up to the energy, a charge never
 * exceeds E x u / T nor, for the covered time, the busy part; a CPU list:
 * the words cleared on failure, no bit past them; a CPU line: idle never
 * above total, a "cpu" word in it; the times per package: finite,
 * never negative, a party's times adding up to at most its usage plus its
 * children's, all on the one package of a single-package cpuset.
 */
// fuzz-sources: jc_procstat.c jc_share.c jc_rapl.c jc_hier.c jc_parse.c jc_log.c jc_utf8.c
#include "fuzz_util.h"
#include "jc_parse.h"
#include "jc_procstat.h"
#include "jc_rapl.h"
#include "jc_share.h"

#include <errno.h>
#include <math.h>

static void stat_text(const uint8_t *data, size_t size) {
  static const long rates[] = {100, 250, 1000, 1024, 1, 1000000, 0, -1};
  if (size == 0)
    return;
  long hz = rates[data[0] % 8];
  char *buf = fuzz_copy(data + 1, size - 1);
  jc_cputimes t = {7, 7};
  int r = jc_procstat_parse(buf, size - 1, hz, &t);
  if (r < 0) {
    FUZZ_CHECK(r == -EINVAL || r == -ERANGE);
    FUZZ_CHECK(t.total_usec == 7 && t.idle_usec == 7);
  } else {
    FUZZ_CHECK(r == 0 && hz > 0);
    FUZZ_CHECK(t.idle_usec <= t.total_usec);
    if (hz == 100)
      FUZZ_CHECK(t.total_usec % 10000 == 0 && t.idle_usec % 10000 == 0);
  }
  free(buf);
}

static void zone_id(const uint8_t *data, size_t size) {
  char *buf = fuzz_copy(data, size);
  int zone = -7, sub = -7;
  int r = jc_rapl_parse_id(buf, size, &zone, &sub);
  if (r < 0) {
    FUZZ_CHECK(r == -EINVAL && zone == -7 && sub == -7);
  } else {
    char back[64];
    int n = sub < 0 ? snprintf(back, sizeof(back), "intel-rapl:%d", zone)
                    : snprintf(back, sizeof(back), "intel-rapl:%d:%d", zone, sub);
    FUZZ_CHECK(r == 0 && zone >= 0 && sub >= -1);
    FUZZ_CHECK((size_t)n == size && memcmp(back, buf, size) == 0);
  }
  free(buf);
}

static uint64_t word(const uint8_t *data, size_t size, size_t i) {
  uint64_t v = 0;
  for (size_t b = 0; b < 8 && 8 * i + b < size; b++)
    v |= (uint64_t)data[8 * i + b] << (8 * b);
  return v;
}

static void split(const uint8_t *data, size_t size) {
  uint64_t energy = word(data, size, 0);
  jc_cputimes host = {word(data, size, 1), word(data, size, 2)};
  uint64_t covered = word(data, size, 3), usage = word(data, size, 4);
  jc_share_split s = {-1, -1, -1};
  int r = jc_share_split_energy(energy, &host, covered, &s);
  bool moved = host.total_usec > 0 && host.idle_usec <= host.total_usec;
  FUZZ_CHECK(moved ? r == 0 : r == -EDOM);
  if (r < 0) {
    FUZZ_CHECK(s.idle_uj == -1 && s.busy_uj == -1 && s.uj_per_usec == -1);
    return;
  }
  double e = (double)energy, slack = e * 1e-12 + 1e-6;
  FUZZ_CHECK(isfinite(s.idle_uj) && isfinite(s.busy_uj) && isfinite(s.uj_per_usec));
  FUZZ_CHECK(s.idle_uj >= 0 && s.busy_uj >= -slack && s.uj_per_usec >= 0);
  FUZZ_CHECK(fabs(s.idle_uj + s.busy_uj - e) <= slack);
  double charged = jc_share_charge(&s, usage);
  double most = e * ((double)usage / (double)host.total_usec);
  FUZZ_CHECK(isfinite(charged) && charged >= 0);
  FUZZ_CHECK(charged <= most * (1 + 1e-12) + 1e-6);
  FUZZ_CHECK(jc_share_charge(&s, covered) <= s.busy_uj * (1 + 1e-12) + slack);
}

static void cpu_list(const uint8_t *data, size_t size) {
  char *buf = fuzz_copy(data, size);
  uint64_t w[2] = {7, 7};
  bool beyond = false;
  int r = jc_parse_cpu_list(buf, size, w, 2, &beyond);
  FUZZ_CHECK(r == 0 || r == -EINVAL);
  if (r == 0 && !beyond)
    FUZZ_CHECK(size > 0 || (w[0] == 0 && w[1] == 0));
  free(buf);
}

static void cpu_line(const uint8_t *data, size_t size) {
  static const long rates[] = {100, 250, 1000, 1};
  if (size == 0)
    return;
  char *buf = fuzz_copy(data + 1, size - 1);
  int cpu = -7;
  jc_cputimes t = {7, 7};
  int r = jc_procstat_parse_line(buf, size - 1, rates[data[0] % 4], &cpu, &t);
  if (r < 0) {
    FUZZ_CHECK((r == -EINVAL || r == -ERANGE) && cpu == -7 && t.total_usec == 7);
  } else {
    FUZZ_CHECK(cpu >= -1 && t.idle_usec <= t.total_usec);
    FUZZ_CHECK(memmem(buf, size - 1, "cpu", 3) != NULL);
  }
  free(buf);
}

static void domain_times(const uint8_t *data, size_t size) {
  jc_share_host h = {0};
  jc_share_cpu a = {.domains = 2}, b = {.domains = 2};
  for (int d = 0; d < 2; d++) {
    b.domain[d].total_usec = word(data, size, (size_t)(2 * d)) % (1ull << 40);
    b.domain[d].idle_usec = word(data, size, (size_t)(2 * d + 1)) % (1ull << 40);
  }
  b.host.total_usec = b.domain[0].total_usec + b.domain[1].total_usec + 1;
  jc_share_host_start(&h, true, &a);
  jc_share_host_end(&h, true, &b, false);
  jc_share_party p[6];
  size_t n = 0;
  for (size_t i = 0; i < 6 && 32 + 10 * i + 10 <= size; i++) {
    const uint8_t *q = data + 32 + 10 * i;
    uint64_t usec = 0;
    for (int k = 0; k < 8; k++)
      usec |= (uint64_t)q[k] << (8 * k);
    long parent = (long)(q[9] % 8) - 1;
    p[n] = (jc_share_party){usec % (1ull << 40),
                            (q[8] & 3) | (q[8] & 4 ? JC_SHARE_OUTSIDE : 0),
                            parent < (long)n ? parent : -1};
    n++;
  }
  double on[12], work[18];
  jc_share_domain_times(&h, p, n, on, work);
  for (size_t i = 0; i < n && h.last.domains == 2; i++) {
    FUZZ_CHECK(isfinite(on[2 * i]) && isfinite(on[2 * i + 1]));
    FUZZ_CHECK(on[2 * i] >= 0 && on[2 * i + 1] >= 0);
    if (p[i].mask == 1 || p[i].mask == 2)
      FUZZ_CHECK(on[2 * i + (p[i].mask == 1)] == 0);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  static const char kinds[] = "SZALPD";
  const char *k = memchr(kinds, data[0], 6);
  int which = k ? (int)(k - kinds) : data[0] % 6;
  data++, size--;
  switch (which) {
  case 0: stat_text(data, size); break;
  case 1: zone_id(data, size); break;
  case 2: split(data, size); break;
  case 3: cpu_list(data, size); break;
  case 4: cpu_line(data, size); break;
  default: domain_times(data, size); break;
  }
  return 0;
}
