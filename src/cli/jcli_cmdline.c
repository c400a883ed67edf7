/*
 * jcli_cmdline — see jcli_cmdline.h.
 */
#include "jcli_cmdline.h"

#include <stdbool.h>
#include <string.h>

void jcli_cmdline_text(char *const *argv, char *buf, size_t size) {
  size_t len = 0;
  if (size == 0)
    return;
  buf[0] = '\0';
  for (char *const *w = argv; w && *w; w++) {
    const char *word = *w;
    bool plain = word[0] && !word[strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                               "abcdefghijklmnopqrstuvwxyz"
                                               "0123456789_./:=,+@%-")];
    if (len && len + 1 < size)
      buf[len++] = ' ';
    if (!plain && len + 1 < size)
      buf[len++] = '\'';
    for (const char *c = word; *c && len + 4 < size; c++) {
      if (*c == '\'' && !plain) { /* ' ends the quote: '\'' */
        memcpy(buf + len, "'\\''", 4);
        len += 4;
      } else {
        buf[len++] = *c;
      }
    }
    if (!plain && len + 1 < size)
      buf[len++] = '\'';
    buf[len] = '\0';
  }
}
