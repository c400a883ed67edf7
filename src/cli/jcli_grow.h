/*
 * jcli_grow — the arrays the command builds as it reads (results, runs,
 * phases, names) grow by doubling, all by this one rule.
 */
#ifndef JCLI_GROW_H
#define JCLI_GROW_H

#include <stddef.h>
#include <stdlib.h>

/*
 * Room for one more element in an array of count elements of size bytes
 * with room for *cap: the array, doubled when full.  NULL when out of
 * memory (the array is then unchanged and still the caller's).
 */
static inline void *jcli_grow(void *array, size_t count, size_t *cap,
                              size_t size) {
  if (count < *cap)
    return array;
  size_t grown_cap = *cap ? 2 * *cap : 4;
  void *grown = realloc(array, grown_cap * size);
  if (grown)
    *cap = grown_cap;
  return grown;
}

#endif
