/*
 * fuzz_pattern — jc_pattern_compile(), jc_pattern_match() and
 * jc_pattern_may_match_below() with both the pattern and the paths from
 * the input.
 *
 * Input: the pattern text up to the first NUL byte, then up to 8 relative
 * paths, each ending at the next NUL (or the end of the input).  Every
 * string is an exactly-sized heap copy.
 *
 * Checks: a refused pattern leaves a message, NUL-terminated inside the
 * caller's err buffer; a compiled pattern keeps its text; a compiled glob
 * is relative and has no empty, "." or ".." level (patterns stay inside
 * CgroupRoot); the root is never matched; and the pruning the walk relies
 * on is sound: when a well-formed path matches, every ancestor (the root
 * "" included) answers true to jc_pattern_may_match_below().
 */
// fuzz-sources: jc_pattern.c
#include "fuzz_util.h"
#include "jc_pattern.h"

#include <errno.h>

#define MAX_PATHS 8
#define ERR_SIZE 160

static int is_regex_text(const char *t) {
  size_t n = strlen(t);
  return n >= 2 && t[0] == '/' && t[n - 1] == '/';
}

/* Relative, no empty, "." or ".." level: the shape of a real relpath. */
static int well_formed(const char *path) {
  if (path[0] == '\0')
    return 0;
  for (const char *level = path;;) {
    const char *slash = strchr(level, '/');
    size_t n = slash ? (size_t)(slash - level) : strlen(level);
    if (n == 0 || (n == 1 && level[0] == '.') ||
        (n == 2 && level[0] == '.' && level[1] == '.'))
      return 0;
    if (!slash)
      return 1;
    level = slash + 1;
  }
}

static void check_glob_text(const char *text) {
  FUZZ_CHECK(well_formed(text));
}

static void check_ancestors(const jc_pattern *p, const char *path) {
  FUZZ_CHECK(jc_pattern_may_match_below(p, ""));
  size_t n = strlen(path);
  char *prefix = malloc(n + 1);
  if (!prefix)
    abort();
  for (size_t i = 0; i < n; i++) {
    if (path[i] != '/')
      continue;
    memcpy(prefix, path, i);
    prefix[i] = '\0';
    FUZZ_CHECK(jc_pattern_may_match_below(p, prefix));
  }
  free(prefix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, '\0', size);
  size_t text_len = nul ? (size_t)(nul - data) : size;
  char *text = fuzz_strndup(data, text_len);
  char *err = malloc(ERR_SIZE);
  if (!err)
    abort();
  memset(err, 0x7f, ERR_SIZE);

  jc_pattern *p = NULL;
  int r = jc_pattern_compile(text, &p, err, ERR_SIZE);
  if (r < 0) {
    FUZZ_CHECK(p == NULL && (r == -EINVAL || r == -ENOMEM));
    FUZZ_CHECK(memchr(err, '\0', ERR_SIZE) != NULL && err[0] != '\0');
    goto out;
  }
  FUZZ_CHECK(strcmp(jc_pattern_text(p), text) == 0);
  if (!is_regex_text(text))
    check_glob_text(text);
  FUZZ_CHECK(!jc_pattern_match(p, ""));

  size_t pos = nul ? text_len + 1 : size;
  for (int i = 0; i < MAX_PATHS && pos < size; i++) {
    const uint8_t *end = memchr(data + pos, '\0', size - pos);
    size_t n = end ? (size_t)(end - (data + pos)) : size - pos;
    char *path = fuzz_strndup(data + pos, n);
    bool matched = jc_pattern_match(p, path);
    (void)jc_pattern_may_match_below(p, path);
    if (matched && well_formed(path))
      check_ancestors(p, path);
    free(path);
    pos += n + 1;
  }
  jc_pattern_free(p);
out:
  free(err);
  free(text);
  return 0;
}
