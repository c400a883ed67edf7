/*
 * jc_log — where the core's messages go.
 *
 * The core never writes to a terminal or a log file itself: whoever owns a
 * collector hands it a jc_log (a callback and its context), and the core
 * formats one line per message into it.  collectd's glue forwards the
 * lines to plugin_log(); the command prints warnings and errors on stderr.
 * The levels are syslog's, which collectd's LOG_* levels are too.
 */
#ifndef JC_LOG_H
#define JC_LOG_H

enum {
  JC_LOG_ERR = 3,
  JC_LOG_WARNING = 4,
  JC_LOG_NOTICE = 5,
  JC_LOG_INFO = 6,
  JC_LOG_DEBUG = 7
};

typedef void (*jc_log_fn)(void *ctx, int level, const char *msg);

typedef struct {
  jc_log_fn fn; /* NULL: messages are dropped */
  void *ctx;
} jc_log;

/* Formats one message (cut at 1 KiB) and hands it to log->fn. */
void jc_logf(const jc_log *log, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
