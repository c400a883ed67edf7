/*
 * jc_procstat — the host's CPU time from /proc/stat: the first line,
 * "cpu  user nice system idle iowait irq softirq steal guest guest_nice",
 * the sums over every CPU in USER_HZ ticks, as microseconds.
 *
 * The energy model (jc_share) needs the CPU time the whole host spent over
 * an interval, busy and idle together, to split a zone's energy between
 * the cgroups (by their CPU time) and the idle part.  Of the fields:
 *
 *   total = user + nice + system + idle + iowait + irq + softirq + steal
 *   idle  = idle + iowait
 *
 * guest and guest_nice are left out: the kernel counts them inside user
 * and nice already.  Older kernels write fewer fields (steal from 2.6.11,
 * guest from 2.6.24, guest_nice from 2.6.33): the missing ones are 0, and
 * at least user, nice, system and idle must be there.  Fields after
 * guest_nice, should a kernel add some, are not counted.
 *
 *   jc_procstat ps;
 *   jc_procstat_open(&ps, NULL);       /proc/stat (or a test's file), kept open
 *   jc_procstat_read(&ps, &times);     one bounded read, no allocation
 *   jc_procstat_close(&ps);
 *
 * Every function returns 0 or a negative errno and never logs.
 */
#ifndef JC_PROCSTAT_H
#define JC_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define JC_PROCSTAT_DEFAULT "/proc/stat"

/* CPU time of the whole host since boot, or over an interval. */
typedef struct {
  uint64_t total_usec; /* every CPU, busy and idle */
  uint64_t idle_usec;  /* of which idle or waiting for I/O */
} jc_cputimes;

/*
 * Parses the first line of /proc/stat's text (buf, len; no NUL needed);
 * ticks_per_second is USER_HZ (sysconf(_SC_CLK_TCK), 100 on Linux).
 * -EINVAL when the first line is not a "cpu" line of at least four
 * numbers, -ERANGE when a sum does not fit in 64 bits.
 */
int jc_procstat_parse(const char *buf, size_t len, long ticks_per_second,
                      jc_cputimes *ret);

/*
 * One of /proc/stat's CPU lines (buf, len; it ends at the first newline
 * or at len): *ret_cpu is -1 for the first line, "cpu", the sums over
 * every CPU, and N for "cpuN", one CPU's (an online CPU's: the kernel
 * prints the lines of online CPUs only).  -EINVAL for any other line,
 * -ERANGE as above.
 */
int jc_procstat_parse_line(const char *buf, size_t len, long ticks_per_second,
                           int *ret_cpu, jc_cputimes *ret);

/* b - a, the CPU time between two readings; -ERANGE when either figure
 * went backwards (nothing is written then). */
int jc_procstat_delta(const jc_cputimes *a, const jc_cputimes *b,
                      jc_cputimes *ret);

typedef struct {
  int fd;                /* the file, -1 when closed */
  long ticks_per_second; /* USER_HZ */
} jc_procstat;

/* Opens path (NULL: /proc/stat) and keeps it open. */
int jc_procstat_open(jc_procstat *ps, const char *path);
int jc_procstat_read(jc_procstat *ps, jc_cputimes *ret);
/* The file's first size bytes (one pread; the kernel renders it whole for
 * each read at offset 0): their length, or a negative errno. */
ssize_t jc_procstat_read_text(jc_procstat *ps, char *buf, size_t size);
void jc_procstat_close(jc_procstat *ps); /* idempotent */

#endif
