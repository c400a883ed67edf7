/*
 * jc_netsnmp — see jc_netsnmp.h.
 */
#include "jc_netsnmp.h"

#include "jc_netdev.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* Line [*p, end) without its newline; *p past it. */
static size_t line(const char **p, const char *end, const char **ret) {
  const char *s = *p, *nl = memchr(s, '\n', (size_t)(end - s));
  size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
  *ret = s;
  *p = nl ? nl + 1 : end;
  return n;
}

/* The next word of [*p, end), separated by spaces: its length (0 at the
 * line's end), *p past it. */
static size_t next_word(const char **p, const char *end, const char **ret) {
  const char *s = *p;
  while (s < end && *s == ' ')
    s++;
  const char *w = s;
  while (s < end && *s != ' ')
    s++;
  *ret = w;
  *p = s;
  return (size_t)(s - w);
}

/* Is the line's first word "prefix:"? */
static bool starts(const char *s, size_t n, const char *prefix, size_t plen) {
  return n > plen && memcmp(s, prefix, plen) == 0 && s[plen] == ':';
}

int jc_netsnmp_find(const char *buf, size_t len, const char *prefix,
                    const char *name, uint64_t *ret) {
  size_t plen = strlen(prefix), nlen = strlen(name);
  const char *p = buf, *end = buf + len;
  while (p < end) {
    const char *names, *values;
    size_t nn = line(&p, end, &names);
    if (!starts(names, nn, prefix, plen))
      continue;
    size_t vn = line(&p, end, &values);
    if (!starts(values, vn, prefix, plen))
      return -EBADMSG;
    /* Names and values side by side, a word of each at a time (one
     * pass: TcpExt has more than a hundred columns); the prefix first. */
    const char *nend = names + nn, *vend = values + vn, *w, *v;
    next_word(&names, nend, &w);
    next_word(&values, vend, &v);
    size_t wl;
    while ((wl = next_word(&names, nend, &w)) != 0) {
      size_t vl = next_word(&values, vend, &v);
      if (wl != nlen || memcmp(w, name, nlen) != 0)
        continue;
      if (!vl)
        return -EBADMSG;
      return jc_netdev_counter(v, vl, ret);
    }
    return -ENOENT; /* the section has no such column */
  }
  return -ENOENT;
}
