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

/* Word i (0: the prefix itself) of a line, separated by spaces. */
static bool word_at(const char *s, size_t n, size_t i, const char **ret,
                    size_t *ret_len) {
  const char *end = s + n;
  for (size_t k = 0;; k++) {
    while (s < end && *s == ' ')
      s++;
    const char *w = s;
    while (s < end && *s != ' ')
      s++;
    if (s == w)
      return false;
    if (k == i) {
      *ret = w;
      *ret_len = (size_t)(s - w);
      return true;
    }
  }
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
    const char *w, *v;
    size_t wl, vl;
    for (size_t i = 1; word_at(names, nn, i, &w, &wl); i++) {
      if (wl != nlen || memcmp(w, name, nlen) != 0)
        continue;
      if (!word_at(values, vn, i, &v, &vl))
        return -EBADMSG;
      return jc_netdev_counter(v, vl, ret);
    }
    return -ENOENT; /* the section has no such column */
  }
  return -ENOENT;
}
