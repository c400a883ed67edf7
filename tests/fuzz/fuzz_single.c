/*
 * fuzz_single — jc_parse_single() on any bytes: a single-value file such
 * as memory.current ("4096\n", "max\n").
 *
 * Checks: the result is 0, -EINVAL or -ERANGE; the output is untouched on
 * error; on success the first line is one word of digits (or "max") among
 * blanks, and the value printed back parses to itself.
 */
// fuzz-sources: jc_parse.c
#include "fuzz_util.h"
#include "jc_parse.h"

#include <errno.h>
#include <inttypes.h>

#define CANARY UINT64_C(0x5a5a5a5a5a5a5a5a)

/* Is the first line blanks around a single word of digits or "max"? */
static int first_line_is_one_value(const char *buf, size_t len) {
  size_t i = 0, words = 0;
  while (i < len && buf[i] != '\n') {
    if (buf[i] == ' ' || buf[i] == '\t') {
      i++;
      continue;
    }
    size_t start = i;
    while (i < len && buf[i] != '\n' && buf[i] != ' ' && buf[i] != '\t')
      i++;
    size_t n = i - start;
    if (!(n == 3 && memcmp(buf + start, "max", 3) == 0))
      for (size_t j = start; j < i; j++)
        if (buf[j] < '0' || buf[j] > '9')
          return 0;
    words++;
  }
  return words == 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_copy(data, size);
  uint64_t v = CANARY;
  int r = jc_parse_single(buf, size, &v);
  FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
  if (r < 0) {
    FUZZ_CHECK(v == CANARY);
  } else {
    FUZZ_CHECK(first_line_is_one_value(buf, size));
    char text[32];
    int n = snprintf(text, sizeof(text), "%" PRIu64 "\n", v);
    char *again = fuzz_copy((const uint8_t *)text, (size_t)n);
    uint64_t w = CANARY;
    FUZZ_CHECK(jc_parse_single(again, (size_t)n, &w) == 0 && w == v);
    free(again);
  }
  free(buf);
  return 0;
}
