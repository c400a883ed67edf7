/*
 * jc_peak — see jc_peak.h.
 */
#include "jc_peak.h"

#include "jc_internal.h"

#include <errno.h>
#include <unistd.h>

static jc_peak_state *peak_of(const jc_collector *c, const jc_tracked *t) {
  return jc_step_slot(c, t, JC_STEP_PEAK);
}

/* The kernel will not reset memory.peak: no interval peak anywhere. */
static int give_up(const jc_collector *c, int err) {
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
  return -err;
}

/* Not root: a read-only collector has no interval peak. */
static int refused(const jc_collector *c, jc_file_id f, int err) {
  (void)f;
  return err == EACCES || err == EPERM ? give_up(c, err) : 0;
}

static int after_read(const jc_collector *c, jc_tracked *t, jc_file_id f,
                      int fd, bool fresh, bool in_pass, jc_sample *s) {
  jc_peak_state *p = peak_of(c, t);
  if (fresh)
    p->armed = false; /* a new descriptor: its first read is the lifetime's */
  if (!p->armed)
    s->have &= ~(1u << f);
  /* A final read between passes is held, and dropped if the cgroup stays:
   * no reset then, so that the next pass's read still has a spike that
   * came since the last one (sent with the final figures if it goes). */
  if (!in_pass)
    return 0;
  if (pwrite(fd, "reset\n", 6, 0) == 6) {
    p->armed = true;
    return 0;
  }
  int e = errno;
  if (e == ENOENT || e == ENODEV) /* the cgroup is going away */
    return 0;
  return give_up(c, e);
}

/* A cgroup tracked, or its path re-created: no reset yet. */
static void track(const jc_collector *c, jc_tracked *t) {
  peak_of(c, t)->armed = false;
}

const jc_step jc_peak_step = {
    .name = "peak",
    .slot_size = sizeof(jc_peak_state),
    .cgroup_life = {.track = track},
    .files = {.told = 1u << JC_FILE_MEMORY_PEAK_INTERVAL,
              .read = after_read,
              .refused = refused},
};
