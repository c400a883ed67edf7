/*
 * fuzz_proc — the parsers of a process's /proc files that Collect "gpu"
 * reads for each pid NVML lists (jc_proc): its cgroup's "0::" line and a
 * number field of its stat line (the start time, field 22, which tells a
 * reused pid from the process it had before).
 *
 * Input: a first byte 'C' and the text of /proc/PID/cgroup, or 'S', a
 * byte n (the field: 3 + n % 60) and the text of /proc/PID/stat.
 *
 * Checks: jc_proc_parse_cgroup returns 0, -ENOENT, -EINVAL or
 * -ENAMETOOLONG; on success the path is the text after the first "0::"
 * that starts a line, up to its end: it starts with '/', has no newline
 * and fits; the output is untouched on error.  jc_proc_parse_stat_field
 * returns 0, -EINVAL or -ERANGE, writes only on success, and never reads
 * past the text.
 */
// fuzz-sources: jc_proc.c jc_hier.c jc_parse.c jc_log.c jc_utf8.c
#include "fuzz_util.h"
#include "jc_proc.h"

#include <errno.h>

#define CANARY UINT64_C(0x5a5a5a5a5a5a5a5a)

static void cgroup_text(const char *text) {
  char path[64];
  memset(path, 'Z', sizeof(path));
  int r = jc_proc_parse_cgroup(text, path, sizeof(path));
  FUZZ_CHECK(r == 0 || r == -ENOENT || r == -EINVAL || r == -ENAMETOOLONG);
  if (r < 0) {
    for (size_t i = 0; i < sizeof(path); i++)
      FUZZ_CHECK(path[i] == 'Z');
    return;
  }
  size_t len = strnlen(path, sizeof(path));
  FUZZ_CHECK(len < sizeof(path) && path[0] == '/' && !strchr(path, '\n'));
  /* It is the first "0::" line's. */
  const char *line = text;
  while (strncmp(line, "0::", 3) != 0) {
    line = strchr(line, '\n');
    FUZZ_CHECK(line);
    line++;
  }
  FUZZ_CHECK(strncmp(line + 3, path, len) == 0 &&
             (line[3 + len] == '\n' || line[3 + len] == '\0'));
}

static void stat_text(const char *text, int field) {
  uint64_t v = CANARY;
  int r = jc_proc_parse_stat_field(text, field, &v);
  FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
  if (r < 0)
    FUZZ_CHECK(v == CANARY);
  else
    FUZZ_CHECK(strrchr(text, ')'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  if (data[0] == 'C') {
    char *text = fuzz_strndup(data + 1, size - 1);
    cgroup_text(text);
    free(text);
  } else if (data[0] == 'S' && size >= 2) {
    char *text = fuzz_strndup(data + 2, size - 2);
    stat_text(text, 3 + data[1] % 60);
    free(text);
  }
  return 0;
}
