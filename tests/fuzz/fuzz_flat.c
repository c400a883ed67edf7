/*
 * fuzz_flat — the flat-keyed cursor (cpu.stat, memory.stat, memory.events):
 * jc_parse_flat_next() until the end, on any bytes.
 *
 * Checks: every call but the last moves the cursor forward and stays in
 * the buffer, so the loop ends within `size` steps; the end stays the end;
 * outputs are untouched on a malformed line; a returned key is a non-empty
 * word of the current line, followed by the digits of the returned value.
 */
// fuzz-sources: jc_parse.c
#include "fuzz_util.h"
#include "jc_parse.h"

#include <errno.h>

#define CANARY UINT64_C(0x5a5a5a5a5a5a5a5a)
static const char canary_key[] = "canary";

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* The key's line goes on with blanks and exactly the digits of value. */
static void check_pair(const char *buf, size_t len, const char *line_start,
                       const char *line_end, jc_token key, uint64_t value) {
  FUZZ_CHECK(key.len > 0 && fuzz_within(buf, len, key.ptr, key.len));
  FUZZ_CHECK(key.ptr >= line_start && key.ptr + key.len <= line_end);
  for (size_t i = 0; i < key.len; i++)
    FUZZ_CHECK(!is_blank(key.ptr[i]) && key.ptr[i] != '\n');
  const char *p = key.ptr + key.len, *end = buf + len;
  while (p < end && is_blank(*p))
    p++;
  jc_token v = {p, 0};
  while (p < end && *p >= '0' && *p <= '9')
    p++, v.len++;
  uint64_t w;
  FUZZ_CHECK(jc_parse_u64_token(v, &w) == 0 && w == value);
  while (p < end && is_blank(*p))
    p++;
  FUZZ_CHECK(p == end || *p == '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_copy(data, size);
  jc_cursor c;
  jc_parse_cursor_init(&c, buf, size);
  const char *prev = buf;
  for (size_t steps = 0;; steps++) {
    jc_token key = {canary_key, sizeof(canary_key) - 1};
    uint64_t v = CANARY;
    int r = jc_parse_flat_next(&c, &key, &v);
    FUZZ_CHECK(c.end == buf + size && c.pos >= prev && c.pos <= c.end);
    if (r == 0) {
      FUZZ_CHECK(jc_parse_flat_next(&c, &key, &v) == 0);
      break;
    }
    FUZZ_CHECK(c.pos > prev && steps < size);
    if (r < 0) {
      FUZZ_CHECK(r == -EINVAL || r == -ERANGE);
      FUZZ_CHECK(key.ptr == canary_key && v == CANARY);
    } else {
      FUZZ_CHECK(r == 1);
      check_pair(buf, size, prev, c.pos, key, v);
    }
    prev = c.pos;
  }
  free(buf);
  return 0;
}
