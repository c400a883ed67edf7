/*
 * jc_procstat — see jc_procstat.h.
 */
#include "jc_procstat.h"

#include "jc_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* The fields of the cpu line, in the kernel's order (show_stat()). */
enum {
  F_USER, F_NICE, F_SYSTEM, F_IDLE, F_IOWAIT, F_IRQ, F_SOFTIRQ, F_STEAL,
  F_GUEST, F_GUEST_NICE, F_COUNT
};
#define F_REQUIRED (F_IDLE + 1)

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

/* The next blank-separated word of [*pos, end). */
static jc_token next_word(const char **pos, const char *end) {
  const char *p = *pos;
  while (p < end && is_blank(*p))
    p++;
  const char *start = p;
  while (p < end && !is_blank(*p))
    p++;
  *pos = p;
  return (jc_token){start, (size_t)(p - start)};
}

static int add(uint64_t *sum, uint64_t v) {
  if (*sum > UINT64_MAX - v)
    return -ERANGE;
  *sum += v;
  return 0;
}

/* ticks of USER_HZ as µs, without overflow in between (hz ≤ 10^6). */
static int ticks_to_usec(uint64_t ticks, long hz, uint64_t *ret) {
  uint64_t whole = ticks / (uint64_t)hz, part = ticks % (uint64_t)hz;
  if (whole > UINT64_MAX / 1000000u)
    return -ERANGE;
  uint64_t usec = whole * 1000000u;
  if (add(&usec, part * 1000000u / (uint64_t)hz) < 0)
    return -ERANGE;
  *ret = usec;
  return 0;
}

/* "cpu" (-1) or "cpuN" (N, at most 7 digits); -EINVAL otherwise. */
static int cpu_of(jc_token t, int *ret_cpu) {
  if (t.len < 3 || memcmp(t.ptr, "cpu", 3) != 0 || t.len > 10)
    return -EINVAL;
  if (t.len == 3) {
    *ret_cpu = -1;
    return 0;
  }
  int cpu = 0;
  for (size_t i = 3; i < t.len; i++) {
    if (t.ptr[i] < '0' || t.ptr[i] > '9' || (i == 3 && t.ptr[i] == '0' && t.len > 4))
      return -EINVAL;
    cpu = cpu * 10 + (t.ptr[i] - '0');
  }
  *ret_cpu = cpu;
  return 0;
}

int jc_procstat_parse_line(const char *line, size_t len, long ticks_per_second,
                           int *ret_cpu, jc_cputimes *ret) {
  if (ticks_per_second <= 0 || ticks_per_second > 1000000)
    return -EINVAL;
  const char *nl = memchr(line, '\n', len);
  const char *pos = line, *end = nl ? nl : line + len;
  int cpu;
  if (cpu_of(next_word(&pos, end), &cpu) < 0)
    return -EINVAL;
  uint64_t field[F_COUNT] = {0};
  size_t n = 0;
  for (jc_token t = next_word(&pos, end); t.len > 0; t = next_word(&pos, end)) {
    uint64_t v;
    int r = jc_parse_u64_token(t, &v);
    if (r < 0)
      return r;
    if (n < F_COUNT)
      field[n] = v;
    n++;
  }
  if (n < F_REQUIRED)
    return -EINVAL;
  uint64_t total = 0, idle = field[F_IDLE];
  for (int f = F_USER; f <= F_STEAL; f++)
    if (add(&total, field[f]) < 0)
      return -ERANGE;
  if (add(&idle, field[F_IOWAIT]) < 0)
    return -ERANGE;
  jc_cputimes times;
  if (ticks_to_usec(total, ticks_per_second, &times.total_usec) < 0 ||
      ticks_to_usec(idle, ticks_per_second, &times.idle_usec) < 0)
    return -ERANGE;
  *ret_cpu = cpu;
  *ret = times;
  return 0;
}

int jc_procstat_parse(const char *buf, size_t len, long ticks_per_second,
                      jc_cputimes *ret) {
  int cpu;
  jc_cputimes t;
  int r = jc_procstat_parse_line(buf, len, ticks_per_second, &cpu, &t);
  if (r < 0)
    return r;
  if (cpu != -1)
    return -EINVAL;
  *ret = t;
  return 0;
}

int jc_procstat_delta(const jc_cputimes *a, const jc_cputimes *b,
                      jc_cputimes *ret) {
  if (b->total_usec < a->total_usec || b->idle_usec < a->idle_usec)
    return -ERANGE;
  ret->total_usec = b->total_usec - a->total_usec;
  ret->idle_usec = b->idle_usec - a->idle_usec;
  return 0;
}

int jc_procstat_open(jc_procstat *ps, const char *path) {
  ps->fd = open(path ? path : JC_PROCSTAT_DEFAULT, O_RDONLY | O_CLOEXEC);
  if (ps->fd < 0)
    return -errno;
  ps->ticks_per_second = sysconf(_SC_CLK_TCK);
  if (ps->ticks_per_second <= 0)
    ps->ticks_per_second = 100; /* USER_HZ on every Linux but alpha */
  return 0;
}

ssize_t jc_procstat_read_text(jc_procstat *ps, char *buf, size_t size) {
  if (ps->fd < 0)
    return -EBADF;
  ssize_t len = pread(ps->fd, buf, size, 0);
  return len < 0 ? -errno : len;
}

int jc_procstat_read(jc_procstat *ps, jc_cputimes *ret) {
  /* The cpu line is at most 10 numbers of 20 digits: a read of 1 KiB has
   * all of it.  The kernel renders the whole file for each read at
   * offset 0, so the line is always the current one. */
  char buf[1024];
  if (ps->fd < 0)
    return -EBADF;
  ssize_t len = pread(ps->fd, buf, sizeof(buf), 0);
  if (len < 0)
    return -errno;
  return jc_procstat_parse(buf, (size_t)len, ps->ticks_per_second, ret);
}

void jc_procstat_close(jc_procstat *ps) {
  if (ps->fd >= 0)
    close(ps->fd);
  ps->fd = -1;
}
