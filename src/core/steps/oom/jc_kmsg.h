/*
 * jc_kmsg — the kernel log's records (/dev/kmsg) → OOM kill reports: which
 * process the OOM killer took, the cgroup it was in and the cgroup whose
 * limit fired (docs/metrics.md, OOM notifications).
 *
 * A record of /dev/kmsg is "PRIO,SEQ,TIMESTAMP_US,FLAGS[,more];text\n",
 * followed by continuation lines that start with a space (" SUBSYSTEM=…");
 * each read() of the device returns one record.  The kernel reports a
 * memory cgroup's OOM kill in one of two forms (docs/metrics.md lists the
 * lines):
 *
 *   4.19 and later: one line with everything,
 *     oom-kill:constraint=CONSTRAINT_MEMCG,…,oom_memcg=/job,
 *       task_memcg=/job/worker,task=memhog,pid=4242,uid=0
 *     then "Memory cgroup out of memory: Killed process 4242 (memhog) …";
 *     4.19 and 5.0 print "…: Kill process 4242 (memhog) score … or
 *     sacrifice child" between the two, and may kill a child of that
 *     process instead: the Killed line names the process killed;
 *   before: "Task in /job/worker killed as a result of limit of /job",
 *     "Memory cgroup out of memory: Kill process 4242 (memhog) score …
 *     or sacrifice child", then "Killed process 4243 (child) …" for the
 *     process actually killed (a child may be sacrificed).
 *
 * The paths are the kernel's, from the root of the cgroup2 hierarchy.
 * Only records of the kernel's own facility count: a process that writes
 * to /dev/kmsg gets facility "user" and cannot forge one.
 *
 * The parsers work on buffers and never allocate; the reader (open, drain,
 * close) allocates its buffer and state once, at open.
 */
#ifndef JC_KMSG_H
#define JC_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A command name is 15 bytes; the log escapes odd ones as \xNN. */
#define JC_KMSG_COMM_SIZE 64
/* A record's text is at most about 1 KiB: so are its paths. */
#define JC_KMSG_PATH_SIZE 1024

/* One record of /dev/kmsg; text points into the parsed buffer. */
typedef struct {
  unsigned prio; /* facility << 3 | level; facility 0 is the kernel's */
  uint64_t seq;
  uint64_t ts_us;
  char flags;       /* '-', or 'c' / '+' for fragments of a line */
  const char *text; /* the message, without its newline */
  size_t text_len;
} jc_kmsg_record;

/*
 * Parses the record at the start of buf[0..len): 0 and *ret_used, the
 * bytes it takes (its continuation lines included); -EINVAL for a
 * malformed header; -ENODATA when buf ends before the record's newline
 * (truncated).
 */
int jc_kmsg_parse_record(const char *buf, size_t len, jc_kmsg_record *ret,
                         size_t *ret_used);

/* One OOM kill as the log tells it. */
typedef struct {
  uint64_t seq;  /* of the record that named the cgroups */
  int pid;       /* the process killed; -1 when not known */
  long long uid; /* its uid; -1 when the kernel does not say (before 5.3
                    without the oom-kill line) */
  char comm[JC_KMSG_COMM_SIZE];        /* its command name */
  char task_memcg[JC_KMSG_PATH_SIZE];  /* the cgroup it was in */
  char oom_memcg[JC_KMSG_PATH_SIZE];   /* the cgroup whose limit fired;
                                          "" for a system-wide OOM */
  char constraint[32]; /* "CONSTRAINT_MEMCG"…; "" in the older form */
} jc_kmsg_report;

/* What one line of the log says about an OOM kill. */
typedef enum {
  JC_KMSG_OTHER,   /* nothing (another subsystem, or malformed) */
  JC_KMSG_SUMMARY, /* the oom-kill: line: every fact of a report */
  JC_KMSG_TASK_IN, /* "Task in … killed as a result of limit of …" */
  JC_KMSG_KILL,    /* "…: Kill process N (comm) score … or sacrifice child" */
  JC_KMSG_KILLED,  /* "…Killed process N (comm) …[ UID:U …]" */
} jc_kmsg_kind;

/* Parses one line's text; fills the fields it names in *ret (the others
 * untouched).  A line cut short is JC_KMSG_OTHER. */
jc_kmsg_kind jc_kmsg_parse_line(const char *text, size_t len,
                                jc_kmsg_report *ret);

/* The lines of one report, put together as records arrive. */
typedef struct {
  jc_kmsg_report pending; /* a report until its Killed line */
  bool have;
} jc_kmsg_asm;

/* Takes one record; 1 when *ret holds a finished report, else 0. */
int jc_kmsg_feed(jc_kmsg_asm *a, const jc_kmsg_record *r,
                 jc_kmsg_report *ret);

/* At the end of the log: a report that named its process but whose
 * Killed line is not there yet is finished as it stands (1). */
int jc_kmsg_flush(jc_kmsg_asm *a, jc_kmsg_report *ret);

/* ---- the reader ---------------------------------------------------------- */

typedef struct jc_kmsg jc_kmsg;

/* Opens path (/dev/kmsg) without blocking, at its end: only what the kernel
 * logs from now on is read.  0, or a negative errno (-EPERM without
 * CAP_SYSLOG under kernel.dmesg_restrict). */
int jc_kmsg_open(const char *path, jc_kmsg **ret);

typedef void (*jc_kmsg_report_fn)(void *ctx, const jc_kmsg_report *r);

/*
 * Reads what the log holds now, without blocking, and calls fn for each
 * report.  Records the kernel overwrote before they were read (EPIPE)
 * are skipped.  Returns the records read, or a negative errno.
 */
int jc_kmsg_drain(jc_kmsg *k, jc_kmsg_report_fn fn, void *ctx);

/* NULL-safe. */
void jc_kmsg_close(jc_kmsg *k);

#endif
