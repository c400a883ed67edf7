/*
 * fuzz_pressure — jc_parse_pressure() on any bytes: {cpu,memory,io}.pressure.
 *
 * Checks: the result is 0, -EINVAL or -ERANGE; the output is untouched on
 * error; on success there is a "some" line, every average is a finite,
 * non-negative number, and an absent "full" line left its values at zero.
 */
// fuzz-sources: jc_parse.c
#include "fuzz_util.h"
#include "jc_parse.h"

#include <errno.h>
#include <math.h>

static void check_line(const jc_psi_line *l) {
  const double avg[3] = {l->avg10, l->avg60, l->avg300};
  for (int i = 0; i < 3; i++)
    FUZZ_CHECK(isfinite(avg[i]) && avg[i] >= 0.0 && avg[i] <= 0x1p65);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_copy(data, size);
  jc_psi canary, psi;
  memset(&canary, 0xa5, sizeof(canary));
  psi = canary;
  int r = jc_parse_pressure(buf, size, &psi);
  FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
  if (r < 0) {
    FUZZ_CHECK(memcmp(&psi, &canary, sizeof(psi)) == 0);
  } else {
    FUZZ_CHECK(psi.has_some);
    check_line(&psi.some);
    if (psi.has_full)
      check_line(&psi.full);
    else
      FUZZ_CHECK(psi.full.avg10 == 0 && psi.full.avg60 == 0 &&
                 psi.full.avg300 == 0 && psi.full.total_usec == 0);
  }
  free(buf);
  return 0;
}
