/*
 * jc_log — see jc_log.h.
 */
#include "jc_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void jc_logf(const jc_log *log, int level, const char *fmt, ...) {
  if (!log->fn)
    return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  log->fn(log->ctx, level, msg);
}

const char *jc_log_strerror(int errnum, char *buf, size_t size) {
  /* The GNU strerror_r (_GNU_SOURCE): returns the text, which is either a
   * static string or written to buf. */
  return strerror_r(errnum, buf, size);
}
