/*
 * jcli_stderr — see jcli_stderr.h.
 */
#include "jcli_stderr.h"

#include "jc_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* One line on stderr in one write, so that lines of two processes never
 * mix; cut (not split) when too long. */
static void put_line(const char *kind, const char *msg) {
  char line[2048];
  int len = snprintf(line, sizeof(line), JCLI_PROGRAM ": %s%s", kind, msg);
  if (len < 0)
    return;
  if (len > (int)sizeof(line) - 2)
    len = (int)sizeof(line) - 2;
  line[len++] = '\n';
  (void)!write(STDERR_FILENO, line, (size_t)len);
}

void jcli_error(const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  put_line("", msg);
}

void jcli_log(void *ctx, int level, const char *msg) {
  (void)ctx;
  if (level <= JC_LOG_ERR)
    put_line("", msg);
  else if (level == JC_LOG_WARNING)
    put_line("warning: ", msg);
}

void jcli_log_info(void *ctx, int level, const char *msg) {
  if (level <= JC_LOG_WARNING)
    jcli_log(ctx, level, msg);
  else if (level <= JC_LOG_INFO)
    put_line("info: ", msg);
}
