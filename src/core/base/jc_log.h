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

#include <stdarg.h>
#include <stddef.h>

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

/*
 * The text of an errno value.  strerror() may share one buffer between
 * threads, and collectd reads in several: the core names errors with
 * JC_STRERROR(e) instead, whose text lives in a buffer of the calling
 * block (a compound literal), valid until the end of that block.
 */
const char *jc_log_strerror(int errnum, char *buf, size_t size);
#define JC_STRERROR(e) jc_log_strerror((e), (char[128]){0}, 128)

/* The longest message, its NUL included. */
#define JC_LOG_LINE_MAX 1024

/* Formats one message (cut at JC_LOG_LINE_MAX, never inside a UTF-8
 * sequence) and hands it to log->fn. */
void jc_logf(const jc_log *log, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same of a va_list: for a module's own logging function (jc_problem's
 * once-per-cgroup complaint). */
void jc_vlogf(const jc_log *log, int level, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
