/*
 * jc_peak — see jc_peak.h.
 */
#include "jc_peak.h"

#include "jc_cgwrite.h"
#include "jc_internal.h"
#include "jc_tracked.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_ID JC_FILE_MEMORY_PEAK_INTERVAL

/* The kernel will not reset memory.peak: no interval peak anywhere. */
static void give_up(jc_collector *c, int err) {
  c->files &= ~(1u << FILE_ID);
  c->collect_files &= ~(1u << FILE_ID);
  jc_tracked_drop_file(c, FILE_ID);
  if (err == EINVAL)
    jc_logf(&c->log, JC_LOG_INFO,
            "memory.peak cannot be reset here (this kernel refuses the write; "
            "Linux 6.12 and later reset it per descriptor): "
            "memory-peak_interval is not sent");
  else
    jc_logf(&c->log, JC_LOG_INFO,
            "memory.peak cannot be reset: writing to the cgroup files is not "
            "allowed here (%s; the interval peak needs write access, as root "
            "has): memory-peak_interval is not sent",
            JC_STRERROR(err));
}

/* t's directory: its kept one (borrowed: *ret_owned false), or opened now
 * and checked to be the cgroup the walk found. */
static int directory_of(const jc_collector *c, const jc_tracked *t,
                        bool *ret_owned) {
  *ret_owned = t->dirfd < 0;
  if (t->dirfd >= 0)
    return t->dirfd;
  int fd = t->relpath[0]
               ? openat(c->rootfd, t->relpath,
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
               : fcntl(c->rootfd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  struct stat st;
  if (fstat(fd, &st) < 0 || st.st_dev != t->dev || st.st_ino != t->ino) {
    close(fd);
    return -ENOENT; /* another cgroup now: the next walk sees it */
  }
  return fd;
}

int jc_peak_open(jc_collector *c, jc_tracked *t) {
  bool owned;
  int dirfd = directory_of(c, t, &owned);
  if (dirfd < 0)
    return dirfd;
  int fd = jc_cgwrite_open(dirfd, jc_sample_files[FILE_ID].name, O_RDWR);
  if (owned)
    close(dirfd);
  if (fd == -EACCES || fd == -EPERM) { /* not root: a read-only collector */
    give_up(c, -fd);
    return -ENOENT;
  }
  if (fd >= 0)
    jc_peak_forget(t); /* a new descriptor: its first read is the lifetime's */
  return fd;
}

void jc_peak_reset(jc_collector *c, jc_tracked *t, jc_sample *s) {
  if (!t->peak.armed) /* the lifetime peak, not this interval's */
    s->have &= ~(1u << FILE_ID);
  if (pwrite(t->fd[FILE_ID], "reset\n", 6, 0) == 6) {
    t->peak.armed = true;
    return;
  }
  int e = errno;
  if (e != ENOENT && e != ENODEV) /* else: the cgroup is going away */
    give_up(c, e);
}

void jc_peak_forget(jc_tracked *t) { t->peak.armed = false; }
