/*
 * jc_log — see jc_log.h.
 */
#include "jc_log.h"

#include "jc_utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A message cut at len bytes ends with a whole UTF-8 sequence: one cut
 * short goes (a line of UTF-8 stays UTF-8). */
static void cut_whole(char *msg, size_t len) {
  size_t lead = len;
  while (lead > 0 && len - lead < 4 &&
         ((unsigned char)msg[lead - 1] & 0xC0) == 0x80)
    lead--;
  if (lead > 0 && !jc_utf8_decode((const unsigned char *)msg + lead - 1,
                                  len - lead + 1, NULL))
    msg[lead - 1] = '\0';
}

void jc_vlogf(const jc_log *log, int level, const char *fmt, va_list ap) {
  if (!log->fn)
    return;
  char msg[JC_LOG_LINE_MAX];
  int n = vsnprintf(msg, sizeof(msg), fmt, ap);
  if (n >= (int)sizeof(msg))
    cut_whole(msg, sizeof(msg) - 1);
  log->fn(log->ctx, level, msg);
}

void jc_logf(const jc_log *log, int level, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  jc_vlogf(log, level, fmt, ap);
  va_end(ap);
}

const char *jc_log_strerror(int errnum, char *buf, size_t size) {
  /* The GNU strerror_r (_GNU_SOURCE): returns the text, which is either a
   * static string or written to buf. */
  return strerror_r(errnum, buf, size);
}
