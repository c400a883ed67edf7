/*
 * fuzz_netdev — /proc/<pid>/net/dev (jc_netdev): jc_netdev_begin(), then
 * jc_netdev_next() until the end, on any bytes; and the same bytes as
 * net/snmp (jc_netsnmp_find).
 *
 * Checks: the loop ends within `size` calls (each call takes a line at
 * least); after the end, the end again; a returned interface has a name
 * of 1 to 15 bytes with no white space or ':' and every counter at most
 * 2^63 - 1; a skipped line leaves the output untouched and says why with
 * one of the documented errors.
 */
// fuzz-sources: jc_netdev.c jc_netsnmp.c jc_parse.c
#include "fuzz_util.h"
#include "jc_netdev.h"
#include "jc_netsnmp.h"

#include <errno.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_copy(data, size);
  /* The same bytes as net/snmp: a found counter fits a DERIVE. */
  uint64_t v = 7;
  int s = jc_netsnmp_find(buf, size, "Tcp", "RetransSegs", &v);
  FUZZ_CHECK(s == 0 ? v <= (uint64_t)INT64_MAX
                    : (v == 7 && (s == -ENOENT || s == -EBADMSG ||
                                  s == -EOVERFLOW)));
  jc_netdev_cursor cur;
  if (jc_netdev_begin(&cur, buf, size) < 0) {
    free(buf);
    return 0;
  }
  for (size_t steps = 0;; steps++) {
    FUZZ_CHECK(steps <= size);
    jc_netdev_iface f;
    memset(&f, 0x5a, sizeof(f));
    int r = jc_netdev_next(&cur, &f);
    FUZZ_CHECK(cur.p >= buf && cur.p <= buf + size && cur.end == buf + size);
    if (r == 0) {
      FUZZ_CHECK(jc_netdev_next(&cur, &f) == 0);
      break;
    }
    if (r < 0) {
      FUZZ_CHECK(r == -E2BIG || r == -ENAMETOOLONG || r == -EBADMSG ||
                 r == -EOVERFLOW);
      FUZZ_CHECK(f.name[0] == 0x5a);
      continue;
    }
    FUZZ_CHECK(r == 1);
    size_t n = strnlen(f.name, sizeof(f.name));
    FUZZ_CHECK(n >= 1 && n < JC_NETDEV_NAME_SIZE);
    for (size_t i = 0; i < n; i++)
      FUZZ_CHECK(f.name[i] != ' ' && f.name[i] != '\t' && f.name[i] != ':' &&
                 f.name[i] != '\n');
    for (int k = 0; k < JC_NETDEV_COUNTERS; k++)
      FUZZ_CHECK(f.v[k] <= (uint64_t)INT64_MAX);
  }
  free(buf);
  return 0;
}
