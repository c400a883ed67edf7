/*
 * jc_netdev — the text of /proc/<pid>/net/dev: one interface's counters
 * per line, after two header lines that name the columns.
 *
 * The columns are found by their names in the second header line
 * ("bytes packets errs drop ..." under Receive, then under Transmit), not
 * by position: every kernel since 2.6 prints the same sixteen, older ones
 * fewer, and a parser that counts positions would read the wrong column
 * the day one is added.  A data line is "name: v v v ..." (no space after
 * the colon before 2.6, a name padded on the left since).
 *
 * Life cycle: jc_netdev_begin() on the file's text, then jc_netdev_next()
 * until it returns 0.  A bad line is skipped and said (a negative errno)
 * and the next call goes on after it: one bad line costs that line only.
 * Nothing allocates; the cursor points into the caller's text.
 */
#ifndef JC_NETDEV_H
#define JC_NETDEV_H

#include <stddef.h>
#include <stdint.h>

/* IFNAMSIZ: a Linux interface name is at most 15 bytes. */
#define JC_NETDEV_NAME_SIZE 16
/* A line longer than this is no line the kernel writes (about 200
 * bytes): malformed, skipped. */
#define JC_NETDEV_LINE_MAX 512

/* The counters read, in the order of collectd's types (rx, tx). */
enum {
  JC_NETDEV_RX_BYTES,
  JC_NETDEV_RX_PACKETS,
  JC_NETDEV_RX_ERRS,
  JC_NETDEV_RX_DROP,
  JC_NETDEV_TX_BYTES,
  JC_NETDEV_TX_PACKETS,
  JC_NETDEV_TX_ERRS,
  JC_NETDEV_TX_DROP,
  JC_NETDEV_COUNTERS
};

typedef struct {
  char name[JC_NETDEV_NAME_SIZE]; /* as the kernel wrote it, NUL ended */
  uint64_t v[JC_NETDEV_COUNTERS];
} jc_netdev_iface;

typedef struct {
  const char *p, *end;
  unsigned col[JC_NETDEV_COUNTERS]; /* the column of each counter */
  unsigned columns;                 /* values on a data line */
} jc_netdev_cursor;

/* Reads the two header lines of buf[0..len).  0, or -EBADMSG when they
 * are not net/dev's (a column we read is missing); *cur is then unusable. */
int jc_netdev_begin(jc_netdev_cursor *cur, const char *buf, size_t len);

/* The next interface into *ret: 1; 0 at the end; or, for a line skipped,
 * -E2BIG (longer than JC_NETDEV_LINE_MAX), -ENAMETOOLONG (a name of more
 * than 15 bytes), -EBADMSG (no colon, a value missing or not a number),
 * -EOVERFLOW (a value past a DERIVE's 2^63 - 1).  *ret is written on 1
 * only; its name may hold any byte but '\0', ':' and white space. */
int jc_netdev_next(jc_netdev_cursor *cur, jc_netdev_iface *ret);

/* A counter of these files, the decimal word w[0..n): 0; -EBADMSG when
 * it is not one; -EOVERFLOW past a DERIVE's 2^63 - 1 (jc_netsnmp too). */
int jc_netdev_counter(const char *w, size_t n, uint64_t *ret);

#endif
