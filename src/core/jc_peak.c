/*
 * jc_peak — see jc_peak.h.
 */
#include "jc_peak.h"

#include "jc_cgwrite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FILE_ID JC_FILE_MEMORY_PEAK_INTERVAL

/* The kernel will not reset memory.peak: no interval peak anywhere. */
static void give_up(jc_collector *c, int err) {
  c->files &= ~(1u << FILE_ID);
  c->collect_files &= ~(1u << FILE_ID);
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_tracked *t = c->tracked[i];
    if (t->fd[FILE_ID] >= 0) {
      close(t->fd[FILE_ID]);
      t->fd[FILE_ID] = -1;
      c->fds_kept--;
    }
  }
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

int jc_peak_open(jc_collector *c, jc_tracked *t) {
  /* The directory descriptor is there until every file of t is kept, this
   * one included; without it (over the budget) there is no interval peak. */
  if (!t->on_cgroupfs || t->dirfd < 0 || c->fds_kept >= c->fd_budget)
    return -ENOENT;
  int fd = jc_cgwrite_open(t->dirfd, jc_files[FILE_ID].name, O_RDWR);
  if (fd == -EACCES || fd == -EPERM) { /* not root: a read-only collector */
    give_up(c, -fd);
    return -ENOENT;
  }
  return fd;
}

void jc_peak_reset(jc_collector *c, jc_tracked *t) {
  if (!t->peak_armed) /* the lifetime peak, not this interval's */
    c->sample.have &= ~(1u << FILE_ID);
  if (pwrite(t->fd[FILE_ID], "reset\n", 6, 0) == 6) {
    t->peak_armed = true;
    return;
  }
  int e = errno;
  if (e != ENOENT && e != ENODEV) /* else: the cgroup is going away */
    give_up(c, e);
}
