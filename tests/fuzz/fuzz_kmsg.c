/*
 * fuzz_kmsg — jc_kmsg_parse_record() and jc_kmsg_feed() on any bytes: a
 * stream of /dev/kmsg records as a regular file holds them (the reader
 * parses them so), then jc_kmsg_parse_line() on the whole input as one
 * line's text.
 *
 * Checks: a record parses to 0, -EINVAL or -ENODATA; a parsed one takes
 * at least its header and at most what is left, and its text lies inside
 * it, before its newline; every report has a pid (0 or more), a uid of -1
 * or more, and NUL-terminated strings inside their fields; a line's kind
 * is one of the five.
 */
// fuzz-sources: jc_kmsg.c
#include "fuzz_util.h"
#include "jc_kmsg.h"

#include <errno.h>

static void check_report(const jc_kmsg_report *r) {
  FUZZ_CHECK(r->pid >= 0 && r->uid >= -1);
  FUZZ_CHECK(memchr(r->comm, '\0', sizeof(r->comm)) != NULL);
  FUZZ_CHECK(memchr(r->task_memcg, '\0', sizeof(r->task_memcg)) != NULL);
  FUZZ_CHECK(memchr(r->oom_memcg, '\0', sizeof(r->oom_memcg)) != NULL);
  FUZZ_CHECK(memchr(r->constraint, '\0', sizeof(r->constraint)) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_copy(data, size);
  jc_kmsg_asm a = {0};
  static jc_kmsg_report report;
  size_t at = 0;
  while (at < size) {
    jc_kmsg_record rec;
    size_t used;
    int r = jc_kmsg_parse_record(buf + at, size - at, &rec, &used);
    FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENODATA);
    if (r == -ENODATA)
      break;
    if (r < 0) {
      const char *nl = memchr(buf + at, '\n', size - at);
      if (!nl)
        break;
      at = (size_t)(nl - buf) + 1;
      continue;
    }
    FUZZ_CHECK(used >= 9 && used <= size - at);
    FUZZ_CHECK(rec.text > buf + at && rec.text + rec.text_len < buf + at + used);
    FUZZ_CHECK(rec.text[rec.text_len] == '\n');
    if (jc_kmsg_feed(&a, &rec, &report))
      check_report(&report);
    at += used;
  }
  if (jc_kmsg_flush(&a, &report))
    check_report(&report);
  jc_kmsg_report line;
  memset(&line, 0, sizeof(line));
  jc_kmsg_kind k = jc_kmsg_parse_line(buf, size, &line);
  FUZZ_CHECK(k >= JC_KMSG_OTHER && k <= JC_KMSG_KILLED);
  free(buf);
  return 0;
}
