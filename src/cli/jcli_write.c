/*
 * jcli_write — see jcli_write.h.
 */
#include "jcli_write.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int jcli_write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return -errno;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

int jcli_write_stream(FILE *out, char **buf, size_t *len, int fd) {
  int r = ferror(out) ? -ENOMEM : 0;
  if (fclose(out) != 0 && r == 0)
    r = -ENOMEM;
  if (r == 0)
    r = jcli_write_all(fd, *buf, *len);
  free(*buf);
  *buf = NULL;
  return r;
}
