/*
 * jcli_utf8 — see jcli_utf8.h.
 */
#include "jcli_utf8.h"

size_t jcli_utf8_decode(const unsigned char *s, size_t len, uint32_t *ret_cp) {
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
