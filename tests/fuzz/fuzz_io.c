/*
 * fuzz_io — io.stat lines through jc_parse_io_next() until the end, on any bytes.
 *
 * Checks: the cursor moves forward and stays in the buffer on every call
 * but the last, the loop ends within `size` steps, the end stays the end,
 * the output is untouched on a malformed line, and a parsed line's device
 * is the last device word before its first key: "(unknown)", or the
 * "<major>:<minor>" spelled there (several of them: a merged line).
 */
// fuzz-sources: jc_parse.c
#include "fuzz_util.h"
#include "jc_parse.h"

#include <errno.h>

static bool blank(char c) { return c == ' ' || c == '\t'; }

/* "<major>:<minor>" in [p, end) (leading zeros allowed) is the line's. */
static void check_devno(const char *p, const char *end, const jc_io_line *l) {
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
  FUZZ_CHECK(p == end && n[0] == l->major && n[1] == l->minor);
}

/* The last line of [start, end) (the call may skip lines before it) names
 * its device in the last word before the first word with "=". */
static void check_device(const char *start, const char *end,
                         const jc_io_line *l) {
  const char *line = end;
  if (line > start && line[-1] == '\n')
    line--;
  const char *stop = line;
  while (line > start && line[-1] != '\n')
    line--;
  const char *dev = NULL, *dev_end = NULL;
  for (const char *p = line; p < stop;) {
    while (p < stop && blank(*p))
      p++;
    const char *w = p;
    while (p < stop && !blank(*p))
      p++;
    if (w == p || memchr(w, '=', (size_t)(p - w)))
      break;
    dev = w;
    dev_end = p;
  }
  FUZZ_CHECK(dev != NULL);
  if (l->unknown_device)
    FUZZ_CHECK(dev_end - dev == 9 && memcmp(dev, "(unknown)", 9) == 0);
  else
    check_devno(dev, dev_end, l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_copy(data, size);
  jc_cursor c;
  jc_parse_cursor_init(&c, buf, size);
  const char *prev = buf;
  jc_io_line canary;
  memset(&canary, 0xa5, sizeof(canary));
  for (size_t steps = 0;; steps++) {
    jc_io_line line = canary;
    int r = jc_parse_io_next(&c, &line);
    FUZZ_CHECK(c.end == buf + size && c.pos >= prev && c.pos <= c.end);
    if (r == 0) {
      FUZZ_CHECK(jc_parse_io_next(&c, &line) == 0);
      break;
    }
    FUZZ_CHECK(c.pos > prev && steps < size);
    if (r < 0) {
      FUZZ_CHECK(r == -EINVAL || r == -ERANGE);
      FUZZ_CHECK(memcmp(&line, &canary, sizeof(line)) == 0);
    } else {
      FUZZ_CHECK(r == 1);
      check_device(prev, c.pos, &line);
    }
    prev = c.pos;
  }
  free(buf);
  return 0;
}
