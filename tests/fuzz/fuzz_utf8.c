/*
 * fuzz_utf8 — the one UTF-8 reader (jc_utf8_decode, jc_utf8_valid) and
 * the log's escaping of names (jc_utf8_escape).  Input: one byte that
 * sizes the escape's buffer (1 to 256 bytes), then any bytes.
 *
 * Checks, on exactly-sized copies: decode returns 0 to 4, never more than
 * the bytes left; a sequence it takes is the one canonical encoding of a
 * scalar value (re-encoded it is the same bytes: no overlong form, no
 * surrogate, nothing past U+10FFFF), and one it refuses is not (an
 * independent, loose reading of the same bytes, re-encoded, differs or is
 * no scalar value); valid is every step of decode taking; the escape of
 * the bytes up to the first NUL is NUL-terminated within its buffer, is
 * UTF-8 with no control character, quote or backslash but its own \xNN,
 * and read back (\xNN as its byte) it is the input's start, whole up to
 * the first sequence or escape that did not fit.
 */
// fuzz-sources: jc_utf8.c
#include "fuzz_util.h"
#include "jc_utf8.h"

#include <stdbool.h>

/* The canonical encoding of cp into out: its length. */
static size_t encode(uint32_t cp, unsigned char *out) {
  if (cp < 0x80) {
    out[0] = (unsigned char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (unsigned char)(0xC0 | cp >> 6);
    out[1] = (unsigned char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (unsigned char)(0xE0 | cp >> 12);
    out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    out[2] = (unsigned char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (unsigned char)(0xF0 | cp >> 18);
  out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
  out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
  out[3] = (unsigned char)(0x80 | (cp & 0x3F));
  return 4;
}

static bool scalar(uint32_t cp) {
  return cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
}

/* Is s[0..k) the canonical encoding of a scalar value?  Read loosely:
 * the lead byte's payload bits and the continuation bytes' six each. */
static bool canonical(const unsigned char *s, size_t k) {
  static const unsigned char lead_mask[] = {0, 0x80, 0xE0, 0xF0, 0xF8};
  static const unsigned char lead_bits[] = {0, 0x00, 0xC0, 0xE0, 0xF0};
  if ((s[0] & lead_mask[k]) != lead_bits[k])
    return false;
  uint32_t cp = s[0] & (unsigned char)~lead_mask[k];
  for (size_t i = 1; i < k; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return false;
    cp = cp << 6 | (s[i] & 0x3F);
  }
  unsigned char again[4];
  return scalar(cp) && encode(cp, again) == k && memcmp(again, s, k) == 0;
}

static void check_decode(const unsigned char *s, size_t len) {
  uint32_t cp = 0xFFFFFFFF;
  size_t n = jc_utf8_decode(s, len, &cp);
  FUZZ_CHECK(n <= 4 && n <= len);
  if (n) {
    unsigned char again[4];
    FUZZ_CHECK(scalar(cp) && encode(cp, again) == n &&
               memcmp(again, s, n) == 0);
    FUZZ_CHECK(jc_utf8_decode(s, len, NULL) == n);
  } else {
    for (size_t k = 1; k <= 4 && k <= len; k++)
      FUZZ_CHECK(!canonical(s, k));
  }
}

/* The escape read back: its \xNN as the byte; the bytes into out. */
static size_t unescape(const char *e, char *out) {
  size_t o = 0;
  for (size_t i = 0; e[i];) {
    if (e[i] == '\\') {
      FUZZ_CHECK(e[i + 1] == 'x' && e[i + 2] && e[i + 3]);
      char hex[3] = {e[i + 2], e[i + 3], 0};
      out[o++] = (char)strtoul(hex, NULL, 16);
      i += 4;
    } else {
      out[o++] = e[i++];
    }
  }
  return o;
}

static void check_escape(const char *s, size_t size) {
  char *out = malloc(size);
  if (!out)
    abort();
  memset(out, 0x7f, size);
  jc_utf8_escape(s, out, size);
  const char *nul = memchr(out, '\0', size);
  FUZZ_CHECK(nul != NULL);
  size_t len = (size_t)(nul - out);
  FUZZ_CHECK(jc_utf8_valid(out, len));
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)out[i];
    FUZZ_CHECK(c >= 0x20 && c != 0x7f && c != '"');
    FUZZ_CHECK(c != '\\' || (i + 3 < len && out[i + 1] == 'x'));
  }
  char *back = malloc(len + 1);
  if (!back)
    abort();
  size_t n = unescape(out, back), whole = strlen(s);
  FUZZ_CHECK(n <= whole && memcmp(back, s, n) == 0);
  /* Cut short only where the next sequence or escape did not fit. */
  if (n < whole) {
    size_t next = jc_utf8_decode((const unsigned char *)s + n, whole - n, NULL);
    bool shown = next > 1 || (next == 1 && (unsigned char)s[n] >= 0x20 &&
                              s[n] != 0x7f && s[n] != '"' && s[n] != '\\');
    FUZZ_CHECK(len + (shown ? next : 4) >= size);
  }
  free(back);
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  size_t room = (size_t)data[0] + 1;
  const uint8_t *text = data + 1;
  size_t len = size - 1;
  unsigned char *copy = (unsigned char *)fuzz_copy(text, len);
  bool all = true;
  for (size_t i = 0; i < len;) {
    check_decode(copy + i, len - i);
    size_t n = jc_utf8_decode(copy + i, len - i, NULL);
    all &= n > 0;
    i += n ? n : 1;
  }
  FUZZ_CHECK(jc_utf8_valid((const char *)copy, len) == all);
  free(copy);
  const uint8_t *end = memchr(text, '\0', len);
  char *s = fuzz_strndup(text, end ? (size_t)(end - text) : len);
  check_escape(s, room);
  free(s);
  return 0;
}
