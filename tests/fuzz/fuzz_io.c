/*
 * fuzz_io — io.stat lines through jc_io_next() until the end, on any bytes.
 *
 * Checks: the cursor moves forward and stays in the buffer on every call
 * but the last, the loop ends within `size` steps, the end stays the end,
 * the output is untouched on a malformed line, and a parsed line's device
 * number was spelled at the start of that line.
 */
// fuzz-sources: jc_parse.c
#include "fuzz_util.h"
#include "jc_parse.h"

#include <errno.h>

/* The line's first word is "<major>:<minor>" (leading zeros allowed). */
static void check_devno(const char *p, const char *end, const jc_io_line *l) {
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  unsigned long long n[2] = {0, 0};
  for (int i = 0; i < 2; i++) {
    int digits = 0;
    while (p < end && *p >= '0' && *p <= '9') {
      n[i] = n[i] * 10 + (unsigned)(*p++ - '0');
      FUZZ_CHECK(n[i] <= UINT32_MAX);
      digits++;
    }
    FUZZ_CHECK(digits > 0);
    if (i == 0)
      FUZZ_CHECK(p < end && *p++ == ':');
  }
  FUZZ_CHECK(n[0] == l->major && n[1] == l->minor);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_copy(data, size);
  jc_cursor c;
  jc_cursor_init(&c, buf, size);
  const char *prev = buf;
  jc_io_line canary;
  memset(&canary, 0xa5, sizeof(canary));
  for (size_t steps = 0;; steps++) {
    jc_io_line line = canary;
    int r = jc_io_next(&c, &line);
    FUZZ_CHECK(c.end == buf + size && c.pos >= prev && c.pos <= c.end);
    if (r == 0) {
      FUZZ_CHECK(jc_io_next(&c, &line) == 0);
      break;
    }
    FUZZ_CHECK(c.pos > prev && steps < size);
    if (r < 0) {
      FUZZ_CHECK(r == -EINVAL || r == -ERANGE);
      FUZZ_CHECK(memcmp(&line, &canary, sizeof(line)) == 0);
    } else {
      FUZZ_CHECK(r == 1);
      const char *p = prev;
      while (p < c.pos && *p == '\n')
        p++; /* the empty lines the call skipped */
      check_devno(p, c.pos, &line);
    }
    prev = c.pos;
  }
  free(buf);
  return 0;
}
