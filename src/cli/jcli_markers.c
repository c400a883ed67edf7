/*
 * jcli_markers — see jcli_markers.h.
 *
 * The line being assembled lives in one buffer allocated with the
 * matcher; bytes past JCLI_MARKERS_LINE_MAX are counted, not kept, so a
 * command that prints megabytes without a newline costs no memory.
 */
#include "jcli_markers.h"

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jcli_markers {
  regex_t re;
  char *line; /* JCLI_MARKERS_LINE_MAX + 1 bytes */
  size_t len; /* bytes kept of the current line */
  bool open;  /* the current line has at least one byte */
  unsigned long number; /* of the current line */
};

jcli_markers *jcli_markers_new(const char *pattern, char *why, size_t n) {
  jcli_markers *m = calloc(1, sizeof(*m));
  if (!m) {
    snprintf(why, n, "out of memory");
    return NULL;
  }
  int r = regcomp(&m->re, pattern, REG_EXTENDED);
  if (r != 0) {
    regerror(r, &m->re, why, n);
    free(m);
    return NULL;
  }
  m->line = malloc(JCLI_MARKERS_LINE_MAX + 1);
  if (!m->line) {
    snprintf(why, n, "out of memory");
    regfree(&m->re);
    free(m);
    return NULL;
  }
  m->number = 1;
  return m;
}

void jcli_markers_free(jcli_markers *m) {
  if (!m)
    return;
  regfree(&m->re);
  free(m->line);
  free(m);
}

/* The current line is complete: report it if it matches, start the next. */
static void end_line(jcli_markers *m, jcli_marker_fn fn, void *ctx) {
  size_t len = m->len;
  if (len > 0 && m->line[len - 1] == '\r' && len < JCLI_MARKERS_LINE_MAX)
    len--;
  m->line[len] = '\0';
  /* REG_STARTEND: the line's length, not its first NUL, ends it. */
  regmatch_t match[2] = {{0, (regoff_t)len}, {-1, -1}};
  if (regexec(&m->re, m->line, 2, match, REG_STARTEND) == 0) {
    regmatch_t *name = match[1].rm_so >= 0 ? &match[1] : &match[0];
    char text[JCLI_MARKERS_NAME_MAX + 1];
    size_t name_len = (size_t)(name->rm_eo - name->rm_so);
    if (name_len > JCLI_MARKERS_NAME_MAX)
      name_len = JCLI_MARKERS_NAME_MAX;
    memcpy(text, m->line + name->rm_so, name_len);
    text[name_len] = '\0';
    fn(ctx, text, m->number);
  }
  m->len = 0;
  m->open = false;
  m->number++;
}

void jcli_markers_feed(jcli_markers *m, const char *buf, size_t len,
                       jcli_marker_fn fn, void *ctx) {
  while (len > 0) {
    const char *nl = memchr(buf, '\n', len);
    size_t piece = nl ? (size_t)(nl - buf) : len;
    size_t room = JCLI_MARKERS_LINE_MAX - m->len;
    size_t kept = piece < room ? piece : room;
    memcpy(m->line + m->len, buf, kept);
    m->len += kept;
    m->open = m->open || piece > 0;
    if (!nl)
      return;
    end_line(m, fn, ctx);
    buf += piece + 1;
    len -= piece + 1;
  }
}

void jcli_markers_finish(jcli_markers *m, jcli_marker_fn fn, void *ctx) {
  if (m->open)
    end_line(m, fn, ctx);
}
