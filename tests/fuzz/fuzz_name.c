/*
 * fuzz_name — jc_name_instance() in both InstanceFrom modes and
 * jc_name_disambiguate(), on a relative path from the input (up to its
 * first NUL byte).  Inputs of 1 to 16 bytes are also tried repeated past
 * 4 KiB, the size of jc_name's stack copy.
 *
 * Checks, on exactly-sized 128-byte heap buffers: the instance is at most
 * 127 bytes and NUL-terminated; it has no '/'; "" is "root"; a flattened
 * name of at most 127 bytes is kept as it is, a longer one becomes
 * "<fnv1a32 of relpath in 8 hex digits>~<tail>" where the tail is the end
 * of the flattened name and does not start inside a UTF-8 sequence; and
 * a disambiguated name differs from the one it came from.  The input as
 * a label (jc_name_label): refused, or at most 127 bytes with no '/', no
 * byte below 0x21, no DEL, quote or backslash.
 */
// fuzz-sources: jc_name.c jc_utf8.c
#include "fuzz_util.h"
#include "jc_name.h"

#define LONG_PATH 4200

static size_t name_len(const char *name) {
  const char *nul = memchr(name, '\0', JC_INSTANCE_SIZE);
  FUZZ_CHECK(nul != NULL);
  return (size_t)(nul - name);
}

/* What the instance is before the 127-byte rule: '/' → '_'. */
static char *flattened(const char *relpath, jc_instance_from from) {
  const char *src = relpath;
  if (from == JC_INSTANCE_FROM_BASENAME) {
    const char *slash = strrchr(relpath, '/');
    src = slash ? slash + 1 : relpath;
  }
  char *flat = strdup(src);
  if (!flat)
    abort();
  for (char *p = flat; *p; p++)
    if (*p == '/')
      *p = '_';
  return flat;
}

static void check_hashed(const char *name, size_t len, const char *relpath,
                         const char *flat) {
  char prefix[16];
  snprintf(prefix, sizeof(prefix), "%08x~", jc_name_fnv1a32(relpath));
  FUZZ_CHECK(len >= 9 && memcmp(name, prefix, 9) == 0);
  const char *tail = name + 9;
  size_t tail_len = len - 9, flat_len = strlen(flat);
  FUZZ_CHECK(tail_len <= flat_len &&
             strcmp(flat + flat_len - tail_len, tail) == 0);
  FUZZ_CHECK(tail_len == 0 || ((uint8_t)tail[0] & 0xC0) != 0x80);
  /* As much of the tail as fits, less only UTF-8 continuation bytes. */
  size_t room = JC_INSTANCE_MAX - 9;
  FUZZ_CHECK(tail_len <= room);
  for (size_t i = flat_len - room; i < flat_len - tail_len; i++)
    FUZZ_CHECK(((uint8_t)flat[i] & 0xC0) == 0x80);
}

static void check_instance(const char *relpath, jc_instance_from from) {
  char *name = malloc(JC_INSTANCE_SIZE);
  if (!name)
    abort();
  memset(name, 0x7f, JC_INSTANCE_SIZE);
  jc_name_instance(relpath, from, name);
  size_t len = name_len(name);
  FUZZ_CHECK(memchr(name, '/', len) == NULL);
  if (relpath[0] == '\0') {
    FUZZ_CHECK(strcmp(name, "root") == 0);
  } else {
    char *flat = flattened(relpath, from);
    size_t flat_len = strlen(flat);
    if (flat_len <= JC_INSTANCE_MAX)
      FUZZ_CHECK(strcmp(name, flat) == 0);
    else
      check_hashed(name, len, relpath, flat);
    free(flat);
  }

  char *before = strdup(name);
  if (!before)
    abort();
  jc_name_disambiguate(name, relpath);
  size_t dlen = name_len(name);
  FUZZ_CHECK(strcmp(name, before) != 0);
  if (len + 9 <= JC_INSTANCE_MAX) {
    char want[JC_INSTANCE_SIZE];
    snprintf(want, sizeof(want), "%s~%08x", before, jc_name_fnv1a32(relpath));
    FUZZ_CHECK(strcmp(name, want) == 0);
  } else {
    char prefix[16];
    snprintf(prefix, sizeof(prefix), "%08x~", jc_name_fnv1a32(relpath));
    FUZZ_CHECK(dlen >= 9 && memcmp(name, prefix, 9) == 0);
  }
  free(before);
  free(name);
}

static void check_label(const char *label) {
  char *name = malloc(JC_INSTANCE_SIZE);
  if (!name)
    abort();
  memset(name, 0x7f, JC_INSTANCE_SIZE);
  if (jc_name_label(label, "a/b", name) == 0) {
    size_t len = name_len(name);
    FUZZ_CHECK(len > 0);
    for (size_t i = 0; i < len; i++)
      FUZZ_CHECK((uint8_t)name[i] > 0x20 && name[i] != 0x7f && name[i] != '/' &&
                 name[i] != '"' && name[i] != '\\' && name[i] != '\'');
  }
  free(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, '\0', size);
  size_t n = nul ? (size_t)(nul - data) : size;
  char *relpath = fuzz_strndup(data, n);
  check_instance(relpath, JC_INSTANCE_FROM_PATH);
  check_instance(relpath, JC_INSTANCE_FROM_BASENAME);
  check_label(relpath);
  if (n > 0 && n <= 16) {
    char *longer = malloc(LONG_PATH + 1);
    if (!longer)
      abort();
    for (size_t i = 0; i < LONG_PATH; i++)
      longer[i] = relpath[i % n];
    longer[LONG_PATH] = '\0';
    check_instance(longer, JC_INSTANCE_FROM_PATH);
    check_instance(longer, JC_INSTANCE_FROM_BASENAME);
    free(longer);
  }
  free(relpath);
  return 0;
}
