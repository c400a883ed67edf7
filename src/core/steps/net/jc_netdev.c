/*
 * jc_netdev — see jc_netdev.h.
 */
#include "jc_netdev.h"

#include "jc_parse.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* Up to and without the next newline; p past it. */
static size_t take_line(const char **p, const char *end, const char **ret) {
  const char *s = *p;
  const char *nl = memchr(s, '\n', (size_t)(end - s));
  size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
  *ret = s;
  *p = nl ? nl + 1 : end;
  return n;
}

static bool is_space(char ch) { return ch == ' ' || ch == '\t'; }

/* The next white-space separated word of [*p, end); 0 at the end. */
static size_t word(const char **p, const char *end, const char **ret) {
  const char *s = *p;
  while (s < end && is_space(*s))
    s++;
  const char *w = s;
  while (s < end && !is_space(*s))
    s++;
  *p = s;
  *ret = w;
  return (size_t)(s - w);
}

/* Finds the four counters' columns among the names of one section
 * ("bytes packets errs drop ..."), numbered from base.  The count of
 * names in it, or -EBADMSG when one of the four is missing. */
static int section(const char *s, const char *end, unsigned base,
                   unsigned *col) {
  static const char *const names[] = {"bytes", "packets", "errs", "drop"};
  bool found[4] = {false, false, false, false};
  unsigned i = 0;
  const char *w;
  size_t n;
  for (; (n = word(&s, end, &w)) != 0; i++)
    for (unsigned k = 0; k < 4; k++)
      if (!found[k] && n == strlen(names[k]) && memcmp(w, names[k], n) == 0) {
        found[k] = true;
        col[k] = base + i;
      }
  for (unsigned k = 0; k < 4; k++)
    if (!found[k])
      return -EBADMSG;
  return (int)i;
}

int jc_netdev_begin(jc_netdev_cursor *cur, const char *buf, size_t len) {
  jc_netdev_cursor c = {buf, buf + len, {0}, 0};
  const char *line;
  (void)take_line(&c.p, c.end, &line); /* "Inter-|   Receive |  Transmit" */
  size_t n = take_line(&c.p, c.end, &line);
  /* " face |bytes packets ...|bytes packets ..." */
  const char *bar1 = memchr(line, '|', n);
  const char *bar2 =
      bar1 ? memchr(bar1 + 1, '|', (size_t)(line + n - bar1 - 1)) : NULL;
  if (!bar2)
    return -EBADMSG;
  int rx = section(bar1 + 1, bar2, 0, &c.col[JC_NETDEV_RX_BYTES]);
  if (rx < 0)
    return rx;
  int tx = section(bar2 + 1, line + n, (unsigned)rx, &c.col[JC_NETDEV_TX_BYTES]);
  if (tx < 0)
    return tx;
  c.columns = (unsigned)(rx + tx);
  *cur = c;
  return 0;
}

int jc_netdev_counter(const char *w, size_t n, uint64_t *ret) {
  uint64_t v;
  int r = jc_parse_u64_token((jc_token){w, n}, &v);
  if (r == -ERANGE || (r == 0 && v > (uint64_t)INT64_MAX))
    return -EOVERFLOW;
  if (r < 0)
    return -EBADMSG;
  *ret = v;
  return 0;
}

/* One data line: "  eth0: 1 2 3 ...". */
static int parse_line(const jc_netdev_cursor *cur, const char *s, size_t n,
                      jc_netdev_iface *ret) {
  const char *end = s + n;
  while (s < end && is_space(*s))
    s++;
  const char *colon = memchr(s, ':', (size_t)(end - s));
  if (!colon)
    return -EBADMSG;
  size_t name_len = (size_t)(colon - s);
  if (name_len == 0)
    return -EBADMSG;
  if (name_len >= JC_NETDEV_NAME_SIZE)
    return -ENAMETOOLONG;
  for (size_t i = 0; i < name_len; i++)
    if (is_space(s[i]) || s[i] == '\0')
      return -EBADMSG;
  uint64_t v[JC_NETDEV_COUNTERS] = {0};
  const char *p = colon + 1, *w;
  size_t len;
  unsigned i = 0;
  for (; (len = word(&p, end, &w)) != 0; i++) {
    uint64_t value;
    int r = jc_netdev_counter(w, len, &value);
    if (r < 0 && r != -EOVERFLOW)
      return r; /* not a number: the line is not one, whatever column */
    for (unsigned k = 0; k < JC_NETDEV_COUNTERS; k++)
      if (cur->col[k] == i) {
        if (r < 0)
          return r;
        v[k] = value;
      }
  }
  if (i != cur->columns)
    return -EBADMSG;
  memcpy(ret->name, s, name_len);
  ret->name[name_len] = '\0';
  memcpy(ret->v, v, sizeof(v));
  return 1;
}

int jc_netdev_next(jc_netdev_cursor *cur, jc_netdev_iface *ret) {
  while (cur->p < cur->end) {
    const char *line;
    size_t n = take_line(&cur->p, cur->end, &line);
    if (n == 0)
      continue;
    if (n > JC_NETDEV_LINE_MAX)
      return -E2BIG;
    return parse_line(cur, line, n, ret);
  }
  return 0;
}
