/*
 * fuzz_mountinfo — jc_parse_mountinfo_line() on any bytes: one line of
 * /proc/self/mountinfo, as jc_hier passes it (without its newline).
 *
 * The line is parsed twice: into a PATH_MAX buffer and into a small one
 * (1 to 64 bytes, from the input length), both exactly-sized heap blocks
 * so that a write past `size` is caught.  Checks: the result is 1, 0 or a
 * negative errno; a returned path is NUL-terminated inside its buffer; the
 * small buffer changes nothing but "too long": same verdict for other
 * filesystems and malformed lines, same path when it fits.  Parsed a third
 * time with its root field (jc_parse_mountinfo_cgroup2): the same verdict
 * and mount point, unless the root field alone is too long.
 */
// fuzz-sources: jc_parse.c
#include "fuzz_util.h"
#include "jc_parse.h"

#include <errno.h>
#include <limits.h>

static int parse(const char *buf, size_t len, char *path, size_t size) {
  memset(path, 0x7f, size);
  int r = jc_parse_mountinfo_line(buf, len, path, size);
  FUZZ_CHECK(r == 1 || r == 0 || r == -EINVAL || r == -ENAMETOOLONG);
  if (r == 1)
    FUZZ_CHECK(memchr(path, '\0', size) != NULL);
  return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = fuzz_copy(data, size);
  char *big = malloc(PATH_MAX);
  size_t small_size = size % 64 + 1;
  char *small = malloc(small_size);
  if (!big || !small)
    abort();
  int rb = parse(buf, size, big, PATH_MAX);
  int rs = parse(buf, size, small, small_size);
  if (rb == 1) {
    FUZZ_CHECK(rs == 1 || rs == -ENAMETOOLONG);
    if (rs == 1)
      FUZZ_CHECK(strcmp(big, small) == 0);
    else /* a NUL byte or a \000 escape hides part of it from strlen */
      FUZZ_CHECK(strlen(big) >= small_size - 1 ||
                 memchr(buf, '\0', size) != NULL ||
                 memmem(buf, size, "\\0", 2) != NULL);
  } else {
    FUZZ_CHECK(rs == rb);
  }
  char *root = malloc(PATH_MAX), *mnt = malloc(PATH_MAX);
  if (!root || !mnt)
    abort();
  int rr = jc_parse_mountinfo_cgroup2(buf, size, root, mnt, PATH_MAX);
  FUZZ_CHECK(rr == rb || (rr == -ENAMETOOLONG && rb == 1));
  if (rr == 1)
    FUZZ_CHECK(memchr(root, '\0', PATH_MAX) && strcmp(mnt, big) == 0);
  free(mnt);
  free(root);
  free(small);
  free(big);
  free(buf);
  return 0;
}
