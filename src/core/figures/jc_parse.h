/*
 * jc_parse — parsers for the text files of cgroup v2, working on a buffer.
 *
 * The kernel's virtual files are read with one bounded read into a buffer
 * and parsed from memory here: no stdio, no allocation, no locale.  Every
 * function takes (buf, len), never reads past buf + len, never needs a NUL
 * terminator, and returns 0 or a negative errno (-EINVAL for malformed
 * text, -ERANGE for numbers above UINT64_MAX).  Output parameters are
 * named ret_* and written only on success.
 *
 * This is the whole core's convention for what can fail: 0 (or a length,
 * a count, a descriptor) or a negative errno, ret_* written only on
 * success.  Where the user needs words only the callee has (which part of
 * a configured value is wrong: jc_config's setters, jc_pattern_compile),
 * they go to an why buffer beside -EINVAL; a function that logs (the
 * collector's init) returns the errno after its one line.  -1 is a value
 * ("no package", an index not found), never an error.
 */
#ifndef JC_PARSE_H
#define JC_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The value of a limit file that holds "max". */
#define JC_VALUE_MAX UINT64_MAX

/* A byte range inside the caller's buffer (not NUL-terminated). */
typedef struct {
  const char *ptr;
  size_t len;
} jc_token;

bool jc_parse_token_eq(jc_token t, const char *s);
/* The same against a string literal, with its length known at compile time
 * (the parsers' hot path). */
#define JC_TOKEN_IS(t, lit)                                                    \
  ((t).len == sizeof(lit) - 1 && memcmp((t).ptr, lit, sizeof(lit) - 1) == 0)

/* Unsigned decimal integer filling the whole token. */
int jc_parse_u64_token(jc_token t, uint64_t *ret_value);

/* A single-value file ("4096\n" or "max\n"; max gives JC_VALUE_MAX). */
int jc_parse_single(const char *buf, size_t len, uint64_t *ret_value);

/*
 * Flat-keyed files (cpu.stat, memory.stat, memory.events): "key value\n"
 * lines.  Iterate with jc_parse_flat_next() until it returns 0 (end); a line that
 * is not "key value" yields -EINVAL for that line and the cursor moves on,
 * so one bad line does not hide the good ones.
 */
typedef struct {
  const char *pos;
  const char *end;
} jc_cursor;

void jc_parse_cursor_init(jc_cursor *c, const char *buf, size_t len);
/* 1: a pair was parsed; 0: end of buffer; <0: this line is malformed. */
int jc_parse_flat_next(jc_cursor *c, jc_token *ret_key, uint64_t *ret_value);

/* One io.stat line: "MAJ:MIN rbytes=.. wbytes=.. rios=.. wios=.. ...". */
typedef struct {
  unsigned major, minor;
  bool unknown_device; /* "(unknown)": the kernel could not name it */
  uint64_t rbytes, wbytes, rios, wios;
} jc_io_line;

/*
 * 1: a device line with statistics was parsed; 0: end; <0: malformed.
 * As real kernels write the file: fields the line lacks are 0; keys we do
 * not know (dbytes=, iocost's cost.vrate=100.00 ...) are skipped; a line
 * naming several devices before its keys ("7:7 7:6 7:5 rbytes=..", loop
 * devices on some kernels) is one line of its last device; a line with a
 * device and no keys is skipped.  Malformed: a line that does not start
 * with a device, or a known key whose value is not a u64.
 */
int jc_parse_io_next(jc_cursor *c, jc_io_line *ret_line);

/* cpu.max: "max 100000" or "50000 100000" (quota, period in µs), with or
 * without a newline; a quota of "max" gives JC_VALUE_MAX.  Neither is
 * ever 0. */
int jc_parse_cpu_max(const char *buf, size_t len, uint64_t *ret_quota,
                     uint64_t *ret_period);

/*
 * A CPU list as the kernel prints them (cpuset.cpus.effective, the
 * cpu/online file): "0-3,8,10-11", possibly empty, with or without a
 * newline, into a bitmap of nwords 64-bit words (CPU n: bit n % 64 of
 * word n / 64), cleared first.  *ret_beyond is set when the list names a
 * CPU past the bitmap (it is left out).  -EINVAL when malformed.
 */
int jc_parse_cpu_list(const char *buf, size_t len, uint64_t *words,
                      size_t nwords, bool *ret_beyond);

/* A {cpu,memory,io}.pressure file. Values of avg* in percent (a share
 * of time: above 100 is malformed). */
typedef struct {
  double avg10, avg60, avg300;
  uint64_t total_usec;
} jc_psi_line;

typedef struct {
  jc_psi_line some, full;
  bool has_some, has_full; /* cpu.pressure had no "full" line before 5.13 */
} jc_psi;

int jc_parse_pressure(const char *buf, size_t len, jc_psi *ret_psi);

/*
 * One line of /proc/self/mountinfo.  When its filesystem type is cgroup2,
 * writes the mount point (octal escapes such as \040 decoded) to ret_path
 * and returns 1; returns 0 for other filesystems, <0 for malformed lines
 * or a mount point longer than size - 1.
 */
int jc_parse_mountinfo_line(const char *buf, size_t len, char *ret_path,
                            size_t size);
/*
 * One line of /proc/PID/mountinfo: when it mounts an overlay at "/" (a
 * container's root file system, seen from one of its processes), writes
 * its upper directory (the upperdir= super option, octal escapes such as
 * \054 for ',' decoded) to ret_upper and returns 1; 0 for any other line
 * (another mount point or file system, an overlay without upperdir); <0
 * for a malformed line or an upper directory longer than size - 1.
 */
int jc_parse_mountinfo_upper(const char *buf, size_t len, char *ret_upper,
                             size_t size);
/* The same, also writing the line's root field (the directory of the
 * hierarchy mounted there, "/" for all of it) to ret_root when not NULL. */
int jc_parse_mountinfo_cgroup2(const char *buf, size_t len, char *ret_root,
                               char *ret_mount, size_t size);

#endif
