/*
 * jc_kmsg — see jc_kmsg.h.
 */
#include "jc_kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A record of /dev/kmsg is at most 8 KiB on every kernel (its extended
 * form, text and continuation lines); a read() into less fails. */
#define RECORD_MAX 8192
/* Records read per drain, at most: a flood of another subsystem's lines
 * costs one pass a bounded time, the rest waits for the next drain. */
#define DRAIN_MAX 8192

struct jc_kmsg {
  int fd;
  jc_kmsg_asm asm_;
  char buf[RECORD_MAX + 1];
};

/* ---- records ------------------------------------------------------------- */

/* Decimal digits at *p (before end) into *ret; false when there are none. */
static bool take_u64(const char **p, const char *end, uint64_t *ret) {
  const char *s = *p;
  uint64_t v = 0;
  while (s < end && *s >= '0' && *s <= '9') {
    if (v > (UINT64_MAX - 9) / 10)
      return false;
    v = v * 10 + (uint64_t)(*s++ - '0');
  }
  if (s == *p)
    return false;
  *p = s;
  *ret = v;
  return true;
}

static bool take_char(const char **p, const char *end, char c) {
  if (*p >= end || **p != c)
    return false;
  (*p)++;
  return true;
}

int jc_kmsg_parse_record(const char *buf, size_t len, jc_kmsg_record *ret,
                         size_t *ret_used) {
  const char *p = buf, *end = buf + len;
  const char *semi = memchr(buf, ';', len);
  const char *nl = memchr(buf, '\n', len);
  if (!semi || (nl && nl < semi))
    return nl || len >= RECORD_MAX ? -EINVAL : -ENODATA;
  uint64_t prio, seq, ts;
  if (!take_u64(&p, semi, &prio) || !take_char(&p, semi, ',') ||
      !take_u64(&p, semi, &seq) || !take_char(&p, semi, ',') ||
      !take_u64(&p, semi, &ts) || !take_char(&p, semi, ',') || p >= semi ||
      prio > 1023)
    return -EINVAL;
  char flags = *p++;
  if (p < semi && *p != ',') /* more fields, comma separated, may follow */
    return -EINVAL;
  if (!nl)
    return -ENODATA;
  /* Continuation lines (" SUBSYSTEM=…", " DEVICE=…") belong to it. */
  const char *next = nl + 1;
  while (next < end && *next == ' ') {
    const char *e = memchr(next, '\n', (size_t)(end - next));
    if (!e)
      return -ENODATA;
    next = e + 1;
  }
  *ret = (jc_kmsg_record){(unsigned)prio, seq, ts, flags, semi + 1,
                          (size_t)(nl - semi - 1)};
  *ret_used = (size_t)(next - buf);
  return 0;
}

/* ---- lines --------------------------------------------------------------- */

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* s[0..n) into out, the log's \xNN escapes decoded; false when it does
 * not fit (out is then empty). */
static bool unescape(const char *s, size_t n, char *out, size_t size) {
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '\\' && i + 3 < n && s[i + 1] == 'x' &&
        hexval(s[i + 2]) >= 0 && hexval(s[i + 3]) >= 0) {
      c = (char)(hexval(s[i + 2]) << 4 | hexval(s[i + 3]));
      i += 3;
    }
    if (o + 1 >= size) {
      out[0] = '\0';
      return false;
    }
    out[o++] = c;
  }
  out[o] = '\0';
  return true;
}

/* The first (find) and the last (rfind) place of needle in [lo, hi), or
 * NULL. */
static const char *find(const char *lo, const char *hi, const char *needle) {
  size_t n = strlen(needle);
  for (const char *p = lo; p + n <= hi; p++)
    if (memcmp(p, needle, n) == 0)
      return p;
  return NULL;
}

static const char *rfind(const char *lo, const char *hi, const char *needle) {
  size_t n = strlen(needle);
  for (const char *p = hi - n; p >= lo && hi - lo >= (ptrdiff_t)n; p--)
    if (memcmp(p, needle, n) == 0)
      return p;
  return NULL;
}

static bool starts(const char *text, size_t len, const char *prefix) {
  size_t n = strlen(prefix);
  return len >= n && memcmp(text, prefix, n) == 0;
}

/* Digits filling exactly [p, end) into *ret. */
static bool whole_number(const char *p, const char *end, uint64_t *ret) {
  return take_u64(&p, end, ret) && p == end;
}

/* oom-kill:constraint=C,…[,oom_memcg=P|,global_oom],task_memcg=T,task=COMM,
 * pid=N,uid=U — read from its end, where the fields are fixed, so a
 * path or command with a comma in it is still read whole. */
static jc_kmsg_kind parse_summary(const char *text, size_t len,
                                  jc_kmsg_report *r) {
  const char *end = text + len;
  const char *uid = rfind(text, end, ",uid=");
  const char *pid = uid ? rfind(text, uid, ",pid=") : NULL;
  const char *task = pid ? rfind(text, pid, ",task=") : NULL;
  const char *tmem = task ? find(text, task, ",task_memcg=") : NULL;
  uint64_t u, n;
  if (!tmem || !whole_number(uid + 5, end, &u) ||
      !whole_number(pid + 5, uid, &n) || n > INT32_MAX)
    return JC_KMSG_OTHER;
  const char *omem = find(text, tmem, ",oom_memcg=");
  const char *c = text + strlen("oom-kill:constraint=");
  const char *comma = c <= tmem ? memchr(c, ',', (size_t)(tmem - c + 1)) : NULL;
  if (!comma ||
      !unescape(c, (size_t)(comma - c), r->constraint, sizeof(r->constraint)) ||
      !unescape(tmem + 12, (size_t)(task - tmem - 12), r->task_memcg,
                sizeof(r->task_memcg)) ||
      !unescape(task + 6, (size_t)(pid - task - 6), r->comm, sizeof(r->comm)))
    return JC_KMSG_OTHER;
  r->oom_memcg[0] = '\0';
  if (omem && !unescape(omem + 11, (size_t)(tmem - omem - 11), r->oom_memcg,
                        sizeof(r->oom_memcg)))
    return JC_KMSG_OTHER;
  r->pid = (int)n;
  r->uid = (long long)u;
  return JC_KMSG_SUMMARY;
}

/* Task in T killed as a result of limit of P */
static jc_kmsg_kind parse_task_in(const char *text, size_t len,
                                  jc_kmsg_report *r) {
  static const char mid[] = " killed as a result of limit of ";
  const char *end = text + len, *t = text + strlen("Task in ");
  const char *m = find(t, end, mid);
  if (!m || m == t || m + strlen(mid) == end ||
      !unescape(t, (size_t)(m - t), r->task_memcg, sizeof(r->task_memcg)) ||
      !unescape(m + strlen(mid), (size_t)(end - m - strlen(mid)),
                r->oom_memcg, sizeof(r->oom_memcg)))
    return JC_KMSG_OTHER;
  r->constraint[0] = '\0';
  return JC_KMSG_TASK_IN;
}

/* "WHAT N (COMM)AFTER": the pid and command after WHAT, AFTER right after
 * the command's closing parenthesis. */
static bool parse_process(const char *text, size_t len, const char *what,
                          const char *after, jc_kmsg_report *r) {
  const char *end = text + len;
  const char *w = find(text, end, what);
  if (!w)
    return false;
  const char *p = w + strlen(what);
  uint64_t n;
  if (!take_u64(&p, end, &n) || n > INT32_MAX || !take_char(&p, end, ' ') ||
      !take_char(&p, end, '('))
    return false;
  const char *close = find(p, end, after);
  if (!close || !unescape(p, (size_t)(close - p), r->comm, sizeof(r->comm)))
    return false;
  r->pid = (int)n;
  return true;
}

/* …Killed process N (COMM) total-vm:…kB, …[, UID:U …] */
static jc_kmsg_kind parse_killed(const char *text, size_t len,
                                 jc_kmsg_report *r) {
  if (!parse_process(text, len, "Killed process ", ") total-vm:", r))
    return JC_KMSG_OTHER;
  const char *end = text + len, *u = find(text, end, " UID:");
  uint64_t uid;
  if (u && (u += 5, take_u64(&u, end, &uid)))
    r->uid = (long long)uid;
  return JC_KMSG_KILLED;
}

jc_kmsg_kind jc_kmsg_parse_line(const char *text, size_t len,
                                jc_kmsg_report *ret) {
  if (starts(text, len, "oom-kill:constraint="))
    return parse_summary(text, len, ret);
  if (starts(text, len, "Task in "))
    return parse_task_in(text, len, ret);
  /* "Kill process N (comm) sharing same memory" are other processes of the
   * victim's memory, not the victim: only the scored one counts. */
  if (parse_process(text, len, "Kill process ", ") score ", ret))
    return JC_KMSG_KILL;
  return parse_killed(text, len, ret);
}

/* ---- reports ------------------------------------------------------------- */

static void report_init(jc_kmsg_report *r, uint64_t seq) {
  r->seq = seq;
  r->pid = -1;
  r->uid = -1;
  r->comm[0] = r->task_memcg[0] = r->oom_memcg[0] = r->constraint[0] = '\0';
}

int jc_kmsg_feed(jc_kmsg_asm *a, const jc_kmsg_record *r,
                 jc_kmsg_report *ret) {
  if (r->prio >> 3) /* not the kernel's own facility */
    return 0;
  jc_kmsg_report facts;
  report_init(&facts, r->seq);
  switch (jc_kmsg_parse_line(r->text, r->text_len, &facts)) {
  case JC_KMSG_SUMMARY: /* every fact; its Killed line may name a child */
  case JC_KMSG_TASK_IN: {
    int prior = jc_kmsg_flush(a, ret); /* one whose Killed line never came */
    a->pending = facts;
    a->have = true;
    return prior;
  }
  case JC_KMSG_KILL:
    if (a->have) {
      a->pending.pid = facts.pid;
      memcpy(a->pending.comm, facts.comm, sizeof(facts.comm));
    }
    return 0;
  case JC_KMSG_KILLED: /* the process actually killed: a child, perhaps */
    if (!a->have)
      return 0; /* told already, or not a cgroup's kill */
    /* The uid the summary gave is the scored process's: a child's is
     * known only where its Killed line says it (UID:, 5.3 and later). */
    if (facts.uid >= 0 || facts.pid != a->pending.pid)
      a->pending.uid = facts.uid;
    a->pending.pid = facts.pid;
    memcpy(a->pending.comm, facts.comm, sizeof(facts.comm));
    *ret = a->pending;
    a->have = false;
    return 1;
  default:
    return 0;
  }
}

int jc_kmsg_flush(jc_kmsg_asm *a, jc_kmsg_report *ret) {
  if (!a->have || a->pending.pid < 0)
    return 0;
  *ret = a->pending;
  a->have = false;
  return 1;
}

/* ---- the reader ---------------------------------------------------------- */

int jc_kmsg_open(const char *path, jc_kmsg **ret) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  /* From the end: kills before init were told by no one and are not
   * ours to tell now. */
  if (lseek(fd, 0, SEEK_END) < 0) {
    int e = errno;
    close(fd);
    return -e;
  }
  jc_kmsg *k = calloc(1, sizeof(*k));
  if (!k) {
    close(fd);
    return -ENOMEM;
  }
  k->fd = fd;
  *ret = k;
  return 0;
}

/* The records in k->buf[0..len): one from /dev/kmsg, any number from a
 * regular file (tests); a malformed one is skipped to its newline. */
static void take_records(jc_kmsg *k, size_t len, jc_kmsg_report_fn fn,
                         void *ctx) {
  size_t at = 0;
  while (at < len) {
    jc_kmsg_record rec;
    size_t used;
    int r = jc_kmsg_parse_record(k->buf + at, len - at, &rec, &used);
    if (r == -ENODATA)
      return; /* cut short: nothing to tell from it */
    if (r < 0) {
      const char *nl = memchr(k->buf + at, '\n', len - at);
      if (!nl)
        return;
      at = (size_t)(nl - k->buf) + 1;
      continue;
    }
    jc_kmsg_report report;
    if (jc_kmsg_feed(&k->asm_, &rec, &report))
      fn(ctx, &report);
    at += used;
  }
}

int jc_kmsg_drain(jc_kmsg *k, jc_kmsg_report_fn fn, void *ctx) {
  int n = 0, result = 0;
  while (n < DRAIN_MAX) {
    ssize_t len = read(k->fd, k->buf, RECORD_MAX);
    if (len < 0 && errno == EINTR)
      continue;
    if (len < 0 && errno == EPIPE)
      continue; /* overwritten before we read them: the next one is there */
    if (len < 0) {
      result = errno == EAGAIN ? 0 : -errno;
      break;
    }
    if (len == 0)
      break; /* a regular file's end */
    n++;
    take_records(k, (size_t)len, fn, ctx);
  }
  jc_kmsg_report report;
  if (jc_kmsg_flush(&k->asm_, &report))
    fn(ctx, &report);
  return result < 0 ? result : n;
}

void jc_kmsg_close(jc_kmsg *k) {
  if (!k)
    return;
  close(k->fd);
  free(k);
}
