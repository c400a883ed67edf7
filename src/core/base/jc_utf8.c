/*
 * jc_utf8 — see jc_utf8.h.
 */
#include "jc_utf8.h"

#include <stdio.h>
#include <string.h>

size_t jc_utf8_decode(const unsigned char *s, size_t len, uint32_t *ret_cp) {
  /* The smallest code point of each length: anything less is overlong. */
  static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
  size_t n = s[0] < 0x80             ? 1
             : (s[0] & 0xE0) == 0xC0 ? 2
             : (s[0] & 0xF0) == 0xE0 ? 3
             : (s[0] & 0xF8) == 0xF0 ? 4
                                     : 0;
  if (n == 0 || n > len)
    return 0;
  uint32_t cp = n == 1 ? s[0] : s[0] & (0x7F >> n);
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3F);
  }
  if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  if (ret_cp)
    *ret_cp = cp;
  return n;
}

bool jc_utf8_valid(const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  for (size_t i = 0, n; i < len; i += n)
    if (!(n = jc_utf8_decode(u + i, len - i, NULL)))
      return false;
  return true;
}

void jc_utf8_escape(const char *s, char *out, size_t size) {
  const unsigned char *u = (const unsigned char *)s;
  size_t len = strlen(s), o = 0;
  for (size_t i = 0; i < len && size > 0;) {
    size_t n = jc_utf8_decode(u + i, len - i, NULL);
    bool shown = n > 1 || (n == 1 && u[i] >= 0x20 && u[i] != 0x7F &&
                           u[i] != '"' && u[i] != '\\');
    size_t need = shown ? n : 4;
    if (o + need >= size)
      break;
    if (shown)
      memcpy(out + o, s + i, n);
    else
      snprintf(out + o, size - o, "\\x%02x", u[i]);
    o += need;
    i += shown ? n : 1;
  }
  if (size > 0)
    out[o] = '\0';
}
