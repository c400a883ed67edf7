/* Tests of jc_kmsg: records of /dev/kmsg as every kernel since cgroup v2
 * (4.5) writes an OOM kill of a memory cgroup (docs/metrics.md, OOM
 * notifications), malformed and truncated records, another subsystem's
 * record between the lines of one report, a log that wrapped (EPIPE,
 * through a wrapped read()), continuation lines; and the reader on a file
 * and on the real /dev/kmsg. */
#include "fixture_util.h"
#include "jc_kmsg.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- fixture records ------------------------------------------------------ */

/* 4.19 to 6.x: the oom-kill line (6.1 and 6.12 as the VM's kernels write
 * it), then the Killed line; 5.3 and later add UID:, 5.10 pgtables. */
#define SUMMARY_6                                                              \
  "6,1234,56789012,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),"   \
  "cpuset=/,mems_allowed=0,oom_memcg=/job,task_memcg=/job/worker,"           \
  "task=memhog,pid=4242,uid=0\n"
#define KILLED_6                                                               \
  "3,1235,56789020,-;Memory cgroup out of memory: Killed process 4242 "       \
  "(memhog) total-vm:70216kB, anon-rss:65280kB, file-rss:1024kB, "           \
  "shmem-rss:0kB, UID:0 pgtables:180kB oom_score_adj:0\n"
/* 4.19 and 5.0: the oom-kill line (as 6.x's), the scored process's line,
 * then the Killed line without the reason or UID. */
#define SUMMARY_419                                                            \
  "6,1234,56789012,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),"   \
  "cpuset=/,mems_allowed=0,oom_memcg=/job,task_memcg=/job/worker,"           \
  "task=memhog,pid=4242,uid=0\n"
#define KILL_419                                                               \
  "3,1235,56789019,-;Memory cgroup out of memory: Kill process 4242 "         \
  "(memhog) score 1000 or sacrifice child\n"
#define KILLED_419                                                             \
  "3,1236,56789020,-;Killed process 4242 (memhog) total-vm:70216kB, "         \
  "anon-rss:65280kB, file-rss:1024kB, shmem-rss:0kB\n"
/* 4.5 to 4.18: Task in, the scored victim, the process killed. */
#define TASK_IN                                                                \
  "6,100,1000,-;Task in /job/worker killed as a result of limit of /job\n"
#define USAGE "6,101,1001,-;memory: usage 65536kB, limit 65536kB, failcnt 12\n"
#define KILL_414                                                               \
  "3,110,1010,-;Memory cgroup out of memory: Kill process 4242 (memhog) "     \
  "score 999 or sacrifice child\n"
#define KILLED_414                                                             \
  "3,111,1011,-;Killed process 4242 (memhog) total-vm:70216kB, "              \
  "anon-rss:65280kB, file-rss:1024kB, shmem-rss:0kB\n"
/* Another subsystem's record, with continuation lines. */
#define USB                                                                    \
  "6,1236,56789015,-;usb 1-1: new high-speed USB device number 2\n"            \
  " SUBSYSTEM=usb\n DEVICE=c189:1\n"

/* Feeds every record of text to a; the reports go to out[]. */
static int feed_all(jc_kmsg_asm *a, const char *text, jc_kmsg_report *out,
                    int max) {
  int n = 0;
  size_t len = strlen(text), at = 0;
  while (at < len && n < max) {
    jc_kmsg_record rec;
    size_t used;
    if (jc_kmsg_parse_record(text + at, len - at, &rec, &used) < 0)
      break;
    n += jc_kmsg_feed(a, &rec, &out[n]);
    at += used;
  }
  return n;
}

/* The same, then the log's end (as jc_kmsg_drain ends a read). */
static int feed_to_end(jc_kmsg_asm *a, const char *text, jc_kmsg_report *out,
                       int max) {
  int n = feed_all(a, text, out, max);
  return n < max ? n + jc_kmsg_flush(a, &out[n]) : n;
}

static void test_record(void) {
  jc_kmsg_record r;
  size_t used;
  const char *rec = USB "6,1237,1,-;next\n";
  is_int(jc_kmsg_parse_record(rec, strlen(rec), &r, &used), 0,
         "a record with continuation lines parses");
  is_int(r.prio, 6, "its priority");
  is_u64(r.seq, 1236, "its sequence number");
  is_u64(r.ts_us, 56789015, "its time stamp");
  is_int(r.flags, '-', "its flags");
  ok(r.text_len == strlen("usb 1-1: new high-speed USB device number 2") &&
         memcmp(r.text, "usb 1-1:", 8) == 0,
     "its text, without the newline");
  is_int(used, strlen(USB), "its continuation lines are part of it");

  const char *caller = "4,9,8,c,caller=T42;text\n";
  is_int(jc_kmsg_parse_record(caller, strlen(caller), &r, &used), 0,
         "more header fields after the flags (caller=)");
  is_int(r.flags, 'c', "a fragment's flag");

  static const char *const bad[] = {
      "x,1,2,-;text\n", "6,1,2;text\n", "6,1,2,-text\n", "6,1,2,-\n",
      "6,,2,-;text\n",  "6,1,2,-x;text\n", "99999,1,2,-;text\n",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    is_int(jc_kmsg_parse_record(bad[i], strlen(bad[i]), &r, &used), -EINVAL,
           "malformed: %.*s", (int)strcspn(bad[i], "\n"), bad[i]);
  static const char *const cut[] = {"6,1,2", "6,1,2,-;oom-kill:constraint",
                                    "6,1,2,-;text\n SUBSYSTEM=us"};
  for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++)
    is_int(jc_kmsg_parse_record(cut[i], strlen(cut[i]), &r, &used), -ENODATA,
           "truncated: %.*s", (int)strcspn(cut[i], "\n"), cut[i]);
}

static void test_forms(void) {
  jc_kmsg_asm a = {0};
  jc_kmsg_report out[4];

  is_int(feed_all(&a, SUMMARY_6, out, 4), 0,
         "4.19+: the oom-kill line waits for its Killed line");
  is_int(jc_kmsg_flush(&a, &out[0]), 1,
         "at the log's end it is a report by itself");
  is_int(out[0].pid, 4242, "pid");
  is_str(out[0].comm, "memhog", "command");
  is_int(out[0].uid, 0, "uid");
  is_str(out[0].task_memcg, "/job/worker", "the cgroup it was in");
  is_str(out[0].oom_memcg, "/job", "the cgroup whose limit fired");
  is_str(out[0].constraint, "CONSTRAINT_MEMCG", "the constraint");
  is_u64(out[0].seq, 1234, "the record's sequence number");
  is_int(feed_all(&a, KILLED_6, out, 4), 0,
         "6.x: a Killed line after it was told adds no second report");
  is_int(feed_all(&a, KILLED_419, out, 4), 0, "4.19's neither");

  a = (jc_kmsg_asm){0};
  is_int(feed_all(&a, SUMMARY_6 KILLED_6, out, 4), 1,
         "5.1+: the oom-kill line and its Killed line: one report");
  ok(out[0].pid == 4242 && strcmp(out[0].comm, "memhog") == 0 &&
         out[0].uid == 0 && strcmp(out[0].oom_memcg, "/job") == 0 &&
         strcmp(out[0].task_memcg, "/job/worker") == 0 && out[0].seq == 1234,
     "every fact of the oom-kill line, the process of both");
  is_int(jc_kmsg_flush(&a, &out[1]), 0, "told once");

  /* 4.19 and 5.0: the scored process's line, "or sacrifice child", comes
   * between the two (docs/metrics.md). */
  a = (jc_kmsg_asm){0};
  is_int(feed_all(&a, SUMMARY_419 KILL_419 KILLED_419, out, 4), 1,
         "4.19-5.0: oom-kill, Kill process ... or sacrifice child, Killed "
         "process: one report");
  ok(out[0].pid == 4242 && strcmp(out[0].comm, "memhog") == 0 &&
         out[0].uid == 0 && strcmp(out[0].oom_memcg, "/job") == 0 &&
         strcmp(out[0].task_memcg, "/job/worker") == 0 &&
         strcmp(out[0].constraint, "CONSTRAINT_MEMCG") == 0,
     "4.19-5.0: the process, its uid and both cgroups of the oom-kill line");
  is_int(jc_kmsg_flush(&a, &out[1]), 0, "4.19-5.0: told once");

  a = (jc_kmsg_asm){0};
  is_int(feed_all(&a, SUMMARY_419 KILL_419
                  "3,1236,56789021,-;Killed process 4243 (worker-child) "
                  "total-vm:2048kB, anon-rss:1024kB, file-rss:0kB, "
                  "shmem-rss:0kB\n",
                  out, 4),
         1, "4.19-5.0 with a child sacrificed: one report");
  ok(out[0].pid == 4243 && strcmp(out[0].comm, "worker-child") == 0 &&
         out[0].uid == -1 && strcmp(out[0].task_memcg, "/job/worker") == 0,
     "4.19-5.0: the child actually killed, not the process the oom-kill line "
     "scored; its uid not known (the Killed line has none before 5.3)");

  a = (jc_kmsg_asm){0};
  is_int(feed_all(&a, SUMMARY_419 KILL_419, out, 4), 0,
         "4.19-5.0 before the Killed line: nothing yet");
  is_int(jc_kmsg_flush(&a, &out[0]), 1, "at the log's end: as it stands");
  ok(out[0].pid == 4242 && out[0].uid == 0, "the oom-kill line's process");

  a = (jc_kmsg_asm){0};
  is_int(feed_all(&a, TASK_IN USAGE KILL_414 KILLED_414, out, 4), 1,
         "4.5-4.18: Task in, Kill process, Killed process: one report");
  is_int(out[0].pid, 4242, "older form: pid");
  is_str(out[0].comm, "memhog", "older form: command");
  is_int(out[0].uid, -1, "older form: no uid");
  is_str(out[0].task_memcg, "/job/worker", "older form: its cgroup");
  is_str(out[0].oom_memcg, "/job", "older form: the limit's cgroup");
  is_str(out[0].constraint, "", "older form: no constraint");
  is_u64(out[0].seq, 100, "older form: the Task in record's number");

  a = (jc_kmsg_asm){0};
  const char *child =
      TASK_IN KILL_414
      "3,112,1012,-;Killed process 4243 (worker-child) total-vm:1kB, "
      "anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n";
  is_int(feed_all(&a, child, out, 4), 1, "a child sacrificed: one report");
  ok(out[0].pid == 4243 && strcmp(out[0].comm, "worker-child") == 0,
     "the process actually killed, not the one scored");

  a = (jc_kmsg_asm){0};
  is_int(feed_all(&a, TASK_IN KILL_414, out, 4), 0,
         "older form before its Killed line: nothing yet");
  is_int(jc_kmsg_flush(&a, &out[0]), 1,
         "at the log's end it is told as it stands");
  is_int(out[0].pid, 4242, "with the scored process");
  is_int(jc_kmsg_flush(&a, &out[0]), 0, "once");

  a = (jc_kmsg_asm){0};
  const char *global =
      "6,5,6,-;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,"
      "mems_allowed=0,global_oom,task_memcg=/job/worker,task=memhog,pid=7,"
      "uid=1000\n";
  is_int(feed_to_end(&a, global, out, 4), 1, "a system-wide OOM");
  ok(out[0].oom_memcg[0] == '\0' && out[0].uid == 1000 &&
         strcmp(out[0].task_memcg, "/job/worker") == 0,
     "no limit's cgroup, its own cgroup and uid");

  a = (jc_kmsg_asm){0};
  const char *odd =
      "6,5,6,-,caller=T9;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),"
      "cpuset=/,mems_allowed=0,oom_memcg=/a\\x5cb,c,task_memcg=/a\\x5cb,c/"
      "w,task=x\\x20y),pid=z,pid=8,uid=5\n";
  is_int(feed_to_end(&a, odd, out, 4), 1,
         "escapes, commas and field names inside names");
  is_str(out[0].oom_memcg, "/a\\b,c", "a path with \\ and a comma");
  is_str(out[0].task_memcg, "/a\\b,c/w", "its child");
  is_str(out[0].comm, "x y),pid=z", "a command with a space, ) and ,pid=");
  is_int(out[0].pid, 8, "the pid at the line's end");
}

static void test_interleaved(void) {
  jc_kmsg_asm a = {0};
  jc_kmsg_report out[4];
  is_int(feed_all(&a, TASK_IN USB KILL_414 USB KILLED_414, out, 4), 1,
         "another subsystem's records between the lines: one report");
  is_str(out[0].task_memcg, "/job/worker", "its cgroup");
  is_int(out[0].pid, 4242, "its process");

  a = (jc_kmsg_asm){0};
  is_int(feed_all(&a, SUMMARY_6 USB KILLED_6, out, 4), 1,
         "4.19+: one report whatever comes between");

  a = (jc_kmsg_asm){0};
  const char *two =
      TASK_IN KILL_414
      "6,120,1,-;Task in /other killed as a result of limit of /other\n"
      "3,121,1,-;Memory cgroup out of memory: Kill process 9 (b) score 1 or "
      "sacrifice child\n"
      "3,122,1,-;Killed process 9 (b) total-vm:1kB, anon-rss:1kB, "
      "file-rss:0kB, shmem-rss:0kB\n";
  is_int(feed_all(&a, two, out, 4), 2,
         "a report whose Killed line was lost, then another: both");
  ok(out[0].pid == 4242 && strcmp(out[0].task_memcg, "/job/worker") == 0 &&
         out[1].pid == 9 && strcmp(out[1].task_memcg, "/other") == 0,
     "each with its own process and cgroup");

  a = (jc_kmsg_asm){0};
  is_int(feed_all(&a, KILLED_6 KILL_414, out, 4), 0,
         "Killed and Kill lines without a cgroup line: nothing");
}

static void test_malformed(void) {
  jc_kmsg_asm a = {0};
  jc_kmsg_report out[4];
  static const char *const bad[] = {
      /* cut short: the end of the line is missing */
      "6,1,2,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
      "mems_allowed=0,oom_memcg=/job,task_memcg=/job/worker,task=memhog\n",
      "6,1,2,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
      "mems_allowed=0,oom_memcg=/job,task_memcg=/job/worker,task=memhog,"
      "pid=4242,uid=\n",
      "6,1,2,-;oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=/job,"
      "task_memcg=/job/w,task=m,pid=4x,uid=0\n",
      "6,1,2,-;oom-kill:constraint=CONSTRAINT_MEMCG,task=m,pid=1,uid=0\n",
      "6,1,2,-;oom-kill:constraint=\n",
      "6,1,2,-;Task in /job/worker killed as a result of limit of \n",
      "6,1,2,-;Task in  killed as a result of limit of /job\n",
      "6,1,2,-;Task in /job/worker\n",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    a = (jc_kmsg_asm){0};
    is_int(feed_all(&a, bad[i], out, 4) + jc_kmsg_flush(&a, out), 0,
           "no report from: %.*s", (int)strcspn(bad[i] + 8, "\n"),
           bad[i] + 8);
  }
  a = (jc_kmsg_asm){0};
  is_int(feed_all(&a,
                  TASK_IN "3,3,4,-;Killed process 12 (m total-vm:1kB\n"
                          "3,3,4,-;Killed process (m) total-vm:1kB\n",
                  out, 4) +
             jc_kmsg_flush(&a, out),
         0, "Killed lines cut short finish nothing");
  a = (jc_kmsg_asm){0};
  const char *user =
      "12,9,9,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
      "mems_allowed=0,oom_memcg=/job,task_memcg=/job/w,task=m,pid=1,uid=0\n";
  is_int(feed_all(&a, user, out, 4), 0,
         "the same line from a process (facility user): nothing");
}

/* ---- the reader ------------------------------------------------------------ */

/* read() of the reader, wrapped: fails with EPIPE `epipes` times first, as
 * /dev/kmsg does when records were overwritten before they were read. */
static int epipes;
ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n) {
  if (epipes > 0) {
    epipes--;
    errno = EPIPE;
    return -1;
  }
  return __real_read(fd, buf, n);
}

static jc_kmsg_report got[8];
static int got_count;
static void take(void *ctx, const jc_kmsg_report *r) {
  (void)ctx;
  if (got_count < 8)
    got[got_count++] = *r;
}

static void test_reader(void) {
  fx_tmpdir(); /* the log: a file the test appends records to */
  fx_write("kmsg", SUMMARY_6);
  jc_kmsg *k = NULL;
  is_int(jc_kmsg_open(fx_path("kmsg"), &k), 0, "opens a log");
  got_count = 0;
  is_int(jc_kmsg_drain(k, take, NULL), 0,
         "what was there before it opened is not read");
  fx_append("kmsg", USB SUMMARY_6 KILLED_6);
  epipes = 2;
  int n = jc_kmsg_drain(k, take, NULL);
  ok(n > 0 && got_count == 1 && got[0].pid == 4242,
     "a log that wrapped (EPIPE twice): skipped on, the kill after it read "
     "(%d reads, %d reports)", n, got_count);
  is_int(epipes, 0, "both EPIPEs were met");
  fx_append("kmsg", TASK_IN KILL_414);
  got_count = 0;
  jc_kmsg_drain(k, take, NULL);
  is_int(got_count, 1, "an older-form report at the log's end is told");
  fx_append("kmsg",
            KILLED_414 "6,1,2,-;oom-kill:constraint=CONSTRAINT_MEMCG,oom_m");
  got_count = 0;
  jc_kmsg_drain(k, take, NULL);
  is_int(got_count, 0,
         "its late Killed line is not a second report; a cut record none");
  jc_kmsg_close(k);
  jc_kmsg_close(NULL);
  fx_cleanup();
  is_int(jc_kmsg_open("/nonexistent/kmsg", &k), -ENOENT,
         "a missing log: -ENOENT");

  int r = jc_kmsg_open("/dev/kmsg", &k);
  if (r < 0) {
    need_unmet("/dev/kmsg to read: %s", strerror(-r));
    return;
  }
  int wfd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
  const char *line = "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),"
                     "cpuset=/,mems_allowed=0,oom_memcg=/job,task_memcg=/job/"
                     "w,task=unit_kmsg,pid=1,uid=0\n";
  ssize_t w = wfd >= 0 ? write(wfd, line, strlen(line)) : -1;
  if (wfd >= 0)
    close(wfd);
  got_count = 0;
  n = jc_kmsg_drain(k, take, NULL);
  ok(n >= (w > 0) && got_count == 0,
     "/dev/kmsg: read from its end without blocking (%d records), a forged "
     "line from a process is no report",
     n);
  jc_kmsg_close(k);
}

int main(void) {
  test_record();
  test_forms();
  test_interleaved();
  test_malformed();
  test_reader();
  return done_testing();
}
