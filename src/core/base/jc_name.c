/*
 * jc_name — see jc_name.h.
 */
#include "jc_name.h"

#include "jc_utf8.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

uint32_t jc_name_fnv1a32(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) {
    h ^= (uint8_t)*s;
    h *= 16777619u;
  }
  return h;
}

/* "%08x~" */
#define HASH_PREFIX_LEN 9

/*
 * Writes full (len bytes) to out, or when it is too long, the hash prefix
 * and as much of its tail as fits, never starting inside a UTF-8 sequence.
 */
static void fit_name(const char *full, size_t len, const char *relpath,
                     char out[JC_INSTANCE_SIZE]) {
  if (len <= JC_INSTANCE_MAX) {
    memcpy(out, full, len);
    out[len] = '\0';
    return;
  }
  const char *tail = full + len - (JC_INSTANCE_MAX - HASH_PREFIX_LEN);
  while (((uint8_t)*tail & 0xC0) == 0x80)
    tail++;
  snprintf(out, JC_INSTANCE_SIZE, "%08x~%s", jc_name_fnv1a32(relpath), tail);
}

void jc_name_instance(const char *relpath, jc_instance_from from,
                      char ret_name[JC_INSTANCE_SIZE]) {
  if (relpath[0] == '\0') {
    strcpy(ret_name, "root");
    return;
  }
  const char *src = relpath;
  if (from == JC_INSTANCE_FROM_BASENAME) {
    const char *slash = strrchr(relpath, '/');
    src = slash ? slash + 1 : relpath;
  }
  /* '/' → '_' in a copy on the stack; relpath is bounded by PATH_MAX. */
  size_t len = strlen(src);
  char flat[4096];
  if (len >= sizeof(flat)) { /* cannot happen for a path under a mount */
    src += len - (sizeof(flat) - 1);
    len = sizeof(flat) - 1;
  }
  for (size_t i = 0; i < len; i++)
    flat[i] = src[i] == '/' ? '_' : src[i];
  flat[len] = '\0';
  fit_name(flat, len, relpath, ret_name);
}

static bool label_char_ok(unsigned char ch) {
  return ch > 0x20 && ch != 0x7F && ch != '"' && ch != '\\' && ch != '\'';
}

int jc_name_label(const char *label, const char *relpath,
                  char ret_name[JC_INSTANCE_SIZE]) {
  char flat[1024];
  size_t len = strlen(label);
  if (len == 0 || len >= sizeof(flat))
    return -EILSEQ;
  for (size_t i = 0; i < len;) {
    size_t n = jc_utf8_decode((const unsigned char *)label + i, len - i, NULL);
    if (n == 0 || (n == 1 && !label_char_ok((unsigned char)label[i])))
      return -EILSEQ;
    for (size_t k = 0; k < n; k++, i++)
      flat[i] = label[i] == '/' ? '_' : label[i];
  }
  flat[len] = '\0';
  fit_name(flat, len, relpath, ret_name);
  return 0;
}

void jc_name_disambiguate(char name[JC_INSTANCE_SIZE], const char *relpath) {
  char longer[JC_INSTANCE_SIZE + HASH_PREFIX_LEN + 1];
  int n = snprintf(longer, sizeof(longer), "%s~%08x", name,
                   jc_name_fnv1a32(relpath));
  fit_name(longer, (size_t)n, relpath, name);
}
