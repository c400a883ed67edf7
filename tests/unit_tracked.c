/* Tests of the modules behind the read pass, each on its own: the walk
 * (jc_discover), a tracked cgroup's life and the descriptor budget
 * (jc_tracked), the OOM bookkeeping (jc_oom) and the interval peak's
 * reset (jc_peak).  They reach into the collector (jc_internal.h), as
 * only the core's own tests may; unit_collector.c tests the same through
 * the public API. */
#include "fixture_util.h"
#include "jc_clock.h"
#include "jc_collector.h"
#include "jc_discover.h"
#include "jc_end.h"
#include "jc_internal.h"
#include "jc_oom.h"
#include "jc_peak.h"
#include "jc_tracked.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char last_log[1100];
static int infos, warnings;

static void log_cb(void *ctx, int level, const char *msg) {
  (void)ctx;
  snprintf(last_log, sizeof(last_log), "%s", msg);
  infos += level == JC_LOG_INFO;
  warnings += level <= JC_LOG_WARNING;
}

static jc_collector *start(long max_open_files) {
  char err[256];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, fx_path(""), err, sizeof(err));
  jc_config_add_pattern(cfg, false, "**", err, sizeof(err));
  cfg->max_open_files = max_open_files;
  jc_config_finish(cfg, err, sizeof(err));
  jc_collector *c = jc_collector_new(cfg, log_cb, NULL);
  if (jc_collector_init(c) < 0) {
    jc_collector_free(c);
    return NULL;
  }
  return c;
}

static jc_tracked *find(jc_collector *c, const char *relpath) {
  for (size_t i = 0; i < c->tracked_count; i++)
    if (strcmp(c->tracked[i]->relpath, relpath) == 0)
      return c->tracked[i];
  return NULL;
}

/* The tracked set's paths in its order, joined by spaces. */
static const char *paths(const jc_collector *c) {
  static char out[512];
  out[0] = '\0';
  for (size_t i = 0; i < c->tracked_count; i++)
    snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s",
             i ? " " : "", c->tracked[i]->relpath[0] ? c->tracked[i]->relpath
                                                     : "/");
  return out;
}

/* The descriptors the tracked cgroups hold, counted one by one. */
static long held(const jc_collector *c, long *ret_peaks) {
  long n = 0, peaks = 0;
  for (size_t i = 0; i < c->tracked_count; i++) {
    const jc_tracked *t = c->tracked[i];
    n += t->dirfd >= 0;
    for (int f = 0; f < JC_FILE_COUNT; f++) {
      n += t->fd[f] >= 0;
      peaks += f == JC_FILE_MEMORY_PEAK_INTERVAL && t->fd[f] >= 0;
    }
  }
  *ret_peaks = peaks;
  return n;
}

static void budget_agrees(const jc_collector *c, const char *when) {
  long peaks, n = held(c, &peaks);
  ok(n == c->fds.kept && peaks == c->fds.peaks && n <= c->fds.limit,
     "%s: the budget counts what the cgroups hold (%ld, %ld peaks; kept %ld, "
     "limit %ld)",
     when, n, peaks, c->fds.kept, c->fds.limit);
}

/* ---- the walk --------------------------------------------------------------- */

static void test_walk(void) {
  fx_root("cpu memory\n");
  fx_write("cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
  fx_cgroup("a-c", 1);
  fx_cgroup("a", 1);
  fx_cgroup("a/b", 1);
  fx_cgroup("z", 1);
  fx_write("not-a-cgroup", "a file\n");
  fx_symlink("/tmp", "escape");
  jc_collector *c = start(-1);
  ok(c != NULL, "init on a tree");
  if (!c)
    return;
  is_str(paths(c), "/ a a/b a-c z",
         "walk order: parents first, '/' below every other byte; no file, no "
         "symlink");
  jc_tracked *z = find(c, "z");
  ino_t old = z->ino;
  z->prior.rate.valid = true;
  fx_remove("z");
  fx_cgroup("z", 7);
  jc_discover_rescan(c);
  ok(find(c, "z") == z && z->ino != old && !z->prior.rate.valid,
     "a path re-created: the same entry, the new inode, a new baseline");
  fx_remove("a/b");
  jc_discover_rescan(c);
  is_str(paths(c), "/ a a-c z", "a vanished cgroup is dropped by the walk");
  fx_cgroup("a/b", 1);
  jc_discover_rescan(c);
  is_str(paths(c), "/ a a/b a-c z", "and found again, in its place");
  budget_agrees(c, "after the walks");
  jc_collector_free(c);
  fx_cleanup();
}

/* ---- the budget ------------------------------------------------------------- */

static void test_budget(void) {
  fx_root("cpu memory\n");
  fx_write("cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
  for (int i = 0; i < 6; i++) {
    char rel[8];
    snprintf(rel, sizeof(rel), "c%d", i);
    fx_cgroup(rel, 1);
  }
  jc_collector *c = start(5);
  ok(c != NULL, "init with MaxOpenFiles 5");
  if (!c)
    return;
  is_int(c->fds.limit, 5, "the budget is MaxOpenFiles");
  budget_agrees(c, "after the first pass");
  jc_collector_read(c, NULL, NULL);
  budget_agrees(c, "after a second pass");
  jc_tracked_drop_file(c, JC_FILE_CPU_STAT);
  long peaks, n = held(c, &peaks);
  bool none = true;
  for (size_t i = 0; i < c->tracked_count; i++)
    none &= c->tracked[i]->fd[JC_FILE_CPU_STAT] < 0;
  ok(none && n == c->fds.kept, "a file dropped everywhere: no cgroup keeps it");
  jc_collector_free(c);
  fx_cleanup();
}

/* ---- OOM bookkeeping -------------------------------------------------------- */

static int told;
static char told_meta[256], told_message[1024];
static struct {
  bool given;
  int pid;
  long long uid;
  char command[64], cgroup[256], limit_cgroup[256];
  uint64_t limit;
} told_victim;

static void notify_cb(void *ctx, const jc_target *t, const jc_notification *n) {
  (void)ctx;
  told++;
  snprintf(told_meta, sizeof(told_meta), "%s", t->meta);
  snprintf(told_message, sizeof(told_message), "%s", n->message);
  told_victim.given = n->victim != NULL;
  if (!n->victim)
    return;
  const jc_oom_victim *v = n->victim;
  told_victim.pid = v->pid;
  told_victim.uid = v->uid;
  told_victim.limit = v->limit;
  snprintf(told_victim.command, sizeof(told_victim.command), "%s", v->command);
  snprintf(told_victim.cgroup, sizeof(told_victim.cgroup), "%s", v->cgroup);
  snprintf(told_victim.limit_cgroup, sizeof(told_victim.limit_cgroup), "%s",
           v->limit_cgroup ? v->limit_cgroup : "(none)");
}

/* t read with oom_kill `kills` in its memory.events. */
static void note_kills(jc_collector *c, jc_tracked *t, uint64_t kills) {
  jc_sample s;
  jc_sample_reset(&s);
  s.have |= 1u << JC_FILE_MEMORY_EVENTS;
  s.keyed_have |= 1u << JC_KEY_MEMORY_EVENTS_OOM_KILL;
  s.keyed[JC_KEY_MEMORY_EVENTS_OOM_KILL] = kills;
  jc_limits limits = JC_LIMITS_NONE;
  limits.memory_max = 64u << 20;
  jc_read r = {&s, &limits, NULL, false, true};
  jc_oom_step.pass.cgroup(c, t, &r);
}

/* The OOM step's end of a pass: the kills attributed and told. */
static void attribute(jc_collector *c) { jc_oom_step.pass.end(c, NULL, NULL); }

static jc_oom_state *oom_of(jc_collector *c, jc_tracked *t) {
  return jc_step_slot(c, t, JC_STEP_OOM);
}

static jc_end_state *end_of(jc_collector *c, jc_tracked *t) {
  return jc_step_slot(c, t, JC_STEP_END);
}

/* A pod and its child c, no kill yet. */
static void pod_tree(void) {
  fx_root("cpu memory\n");
  fx_write("cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
  fx_cgroup("pod", 1);
  fx_cgroup("pod/c", 1);
  fx_write("pod/memory.events", "oom_kill 0\n");
  fx_write("pod/c/memory.events", "oom_kill 0\n");
}

static void test_oom(void) {
  pod_tree();
  jc_collector *c = start(-1);
  ok(c != NULL && jc_step_self(c, JC_STEP_OOM), "init with NotifyOOM");
  if (!c)
    return;
  jc_collector_set_notify(c, notify_cb, NULL);
  jc_tracked *pod = find(c, "pod"), *child = find(c, "pod/c");
  note_kills(c, pod, 0);
  note_kills(c, child, 0);
  attribute(c);
  is_int(told, 0, "no kill: nothing told");

  note_kills(c, pod, 0); /* the parent read before the kill, */
  note_kills(c, child, 1); /* the child after it */
  attribute(c);
  ok(told == 1 && strcmp(told_meta, "pod/c") == 0,
     "a kill the child shows first: told once, by the child (%s)", told_meta);
  note_kills(c, pod, 1);
  note_kills(c, child, 1);
  attribute(c);
  is_int(told, 1, "the parent catching up owes it back: told no more");

  note_kills(c, pod, 3);
  note_kills(c, child, 2);
  attribute(c);
  ok(told == 3 && strcmp(told_meta, "pod") == 0 &&
         strstr(told_message, "cgroup pod: 1 process killed") != NULL,
     "one kill each: the child tells its own, the parent the other (%s)",
     told_message);

  size_t at = 0; /* the cgroups before the child, its ancestors among them */
  while (c->tracked[at] != child)
    at++;
  jc_oom_step.cgroup_life.vanished(c, child, false, c->tracked, at);
  note_kills(c, pod, 3);
  attribute(c);
  is_int(told, 3, "a child lost with nothing owed: nothing told");

  jc_oom_step.cgroup_life.track(c, child);
  ok(!oom_of(c, child)->seen && oom_of(c, child)->owed == 0,
     "a re-created cgroup starts counting again");
  jc_collector_free(c);
  fx_cleanup();
}

/* A kill in a child whose parent's end is read first (the kernel told the
 * two ends apart): told once, by the child, after the next pass, not by
 * the parent too (and the child removed at once: see test_end_oom). */
static void test_oom_at_end(void) {
  pod_tree();
  fx_write("pod/cgroup.events", "populated 1\nfrozen 0\n");
  fx_write("pod/c/cgroup.events", "populated 1\nfrozen 0\n");
  jc_collector *c = start(-1);
  ok(c != NULL && jc_step_self(c, JC_STEP_OOM),
     "init with NotifyOOM, pod and pod/c populated");
  if (!c)
    return;
  jc_collector_set_notify(c, notify_cb, NULL);
  told = 0;
  fx_write("pod/c/memory.events", "oom_kill 1\n");
  fx_write("pod/memory.events", "oom_kill 1\n");
  fx_write("pod/cgroup.events", "populated 0\nfrozen 0\n");
  jc_collector_handle_events(c, NULL, NULL);
  is_int(told, 0, "the parent's end read first: nothing told before the pass");
  fx_write("pod/c/cgroup.events", "populated 0\nfrozen 0\n");
  jc_collector_handle_events(c, NULL, NULL);
  jc_collector_read(c, NULL, NULL);
  ok(told == 1 && strcmp(told_meta, "pod/c") == 0,
     "the child's own end, and a pass: told once, by the child (%d, %s)",
     told, told_meta);
  jc_collector_read(c, NULL, NULL);
  is_int(told, 1, "told no more");
  jc_collector_free(c);
  fx_cleanup();
}

/* The kernel's log, a file the test appends records to: the oom-kill line
 * of a kill of COMM (pid) in TASK at the limit of OOM (NULL: global). */
static char log_path[PATH_MAX];
static void log_kill(const char *task, const char *oom, int pid,
                     const char *comm) {
  static unsigned seq = 100;
  FILE *f = fopen(log_path, "a");
  if (!f)
    return;
  fprintf(f, "6,%u,1000,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),"
             "cpuset=/,mems_allowed=0,%s%s,task_memcg=%s,task=%s,pid=%d,"
             "uid=1000\n",
          seq++, oom ? "oom_memcg=" : "global_oom", oom ? oom : "", task, comm,
          pid);
  fclose(f);
}

/* The kernel's log paired with the kills: CgroupRoot below the kernel's
 * root (/k8s), deepest first, several kills, a report a pass early, a
 * vanished cgroup, a kill outside CgroupRoot, a system-wide OOM. */
static void test_oom_log(void) {
  fx_root("cpu memory\n");
  fx_write("cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
  fx_cgroup("pod", 1);
  fx_cgroup("pod/c", 1);
  fx_write("pod/memory.max", "67108864\n");
  fx_write("pod/c/memory.max", "max\n");
  jc_collector *c = start(-1);
  ok(c != NULL && !jc_oom_has_log(c),
     "a copy of a tree: the host's log is not its own");
  if (!c)
    return;
  jc_collector_set_notify(c, notify_cb, NULL);
  fx_write("kmsg", ""); /* at the copy's top, where no cgroup file is */
  snprintf(log_path, sizeof(log_path), "%s", fx_path("kmsg"));
  log_kill("/k8s/pod/c", "/k8s/pod", 1, "before");
  is_int(jc_oom_open_log(c, log_path, "/k8s"), 0, "a log opened at its end");
  jc_tracked *pod = find(c, "pod"), *child = find(c, "pod/c");
  note_kills(c, pod, 0);
  note_kills(c, child, 0);
  attribute(c);
  told = 0;

  log_kill("/other/x", "/other", 7, "elsewhere");
  log_kill("/k8s/pod/c", "/k8s/pod", 42, "memhog");
  note_kills(c, pod, 1);
  note_kills(c, child, 1);
  attribute(c);
  ok(told == 1 && told_victim.given && told_victim.pid == 42 &&
         told_victim.uid == 1000 &&
         strcmp(told_victim.command, "memhog") == 0 &&
         strcmp(told_victim.cgroup, "pod/c") == 0 &&
         strcmp(told_victim.limit_cgroup, "pod") == 0 &&
         told_victim.limit == 67108864,
     "a child's kill at its parent's limit: pid 42, memhog, uid 1000, pod/c, "
     "the limit of pod, 64 MiB (%d %s %s %s)", told_victim.pid,
     told_victim.command, told_victim.cgroup, told_victim.limit_cgroup);
  is_str(told_message,
         "cgroup pod/c: 1 process killed by the OOM killer (memory.max 64.0 "
         "MiB): memhog (pid 42, uid 1000) in pod/c, at the limit of pod "
         "(memory.max 64.0 MiB)",
         "the message names them; not the kill before init nor outside "
         "CgroupRoot");

  log_kill("/k8s/pod/c", "/k8s/pod/c", 43, "a");
  log_kill("/k8s/pod/c", "/k8s/pod/c", 44, "b");
  note_kills(c, pod, 3);
  note_kills(c, child, 3);
  attribute(c);
  ok(told == 2 && strstr(told_message, "2 processes killed by the OOM killer "
                                       "(memory.max 64.0 MiB): the last, b "
                                       "(pid 44, uid 1000) in pod/c, at the "
                                       "limit of pod/c") != NULL,
     "two kills: one notification naming the last (%s)", told_message);

  /* The child's report drained in a pass where only the parent counted
   * (the child was read before its kill counted): paired a pass later. */
  log_kill("/k8s/pod/c", "/k8s/pod", 45, "late");
  log_kill("/k8s/pod", "/k8s/pod", 46, "own");
  note_kills(c, pod, 4);
  note_kills(c, child, 3);
  attribute(c);
  ok(told == 3 && strcmp(told_meta, "pod") == 0 && told_victim.pid == 46,
     "the parent's own kill takes its own report (pid %d)", told_victim.pid);
  note_kills(c, pod, 5);
  note_kills(c, child, 4);
  attribute(c);
  ok(told == 4 && strcmp(told_meta, "pod/c") == 0 && told_victim.pid == 45,
     "the child's, read a pass before its kill counted, the next pass "
     "(pid %d)", told_victim.pid);
  note_kills(c, pod, 6);
  note_kills(c, child, 5);
  attribute(c);
  ok(told == 5 && !told_victim.given &&
         strcmp(told_message, "cgroup pod/c: 1 process killed by the OOM "
                              "killer (memory.max 64.0 MiB)") == 0,
     "a kill without its report: the message without the process (%s)",
     told_message);

  log_kill("/k8s/pod/c", NULL, 47, "global");
  note_kills(c, pod, 7);
  note_kills(c, child, 6);
  attribute(c);
  ok(told == 6 && strcmp(told_victim.limit_cgroup, "(none)") == 0 &&
         strstr(told_message, "in pod/c, at no cgroup's limit (the system was "
                              "out of memory)") != NULL,
     "a system-wide OOM: no limit's cgroup (%s)", told_message);

  size_t at = 0;
  while (c->tracked[at] != child)
    at++;
  log_kill("/k8s/pod/c", "/k8s/pod", 48, "gone");
  jc_oom_step.cgroup_life.vanished(c, child, false, c->tracked, at);
  child->gone = true;
  note_kills(c, pod, 8);
  attribute(c);
  is_str(told_message,
         "1 process killed by the OOM killer in a cgroup below pod that no "
         "longer exists: gone (pid 48, uid 1000) in pod/c, at the limit of pod "
         "(memory.max 64.0 MiB)",
         "a vanished cgroup's kill, told by its ancestor, names it");
  child->gone = false;
  jc_collector_free(c);
  fx_cleanup();
}

/* ---- the interval peak's reset ---------------------------------------------- */

static void test_peak(void) {
  fx_root("cpu memory\n");
  fx_write("cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
  fx_cgroup("job", 1);
  fx_write("job/memory.peak", "4096\n");
  jc_collector *c = start(-1);
  ok(c != NULL, "init");
  if (!c)
    return;
  jc_tracked *t = find(c, "job");
  const jc_file_id f = JC_FILE_MEMORY_PEAK_INTERVAL;
  c->files |= 1u << f;
  int fd = open(fx_path("job/memory.peak"), O_RDWR | O_CLOEXEC);
  jc_tracked_fd_done(c, t, f, fd, true);
  ok(t->fd[f] == fd && c->fds.peaks == 1, "a read peak descriptor is kept");
  jc_peak_state *peak = jc_step_slot(c, t, JC_STEP_PEAK);
  ok(c->steps.of_file[f] == &jc_peak_step,
     "the interval peak's file is its step's");
  jc_sample s;
  jc_sample_reset(&s);
  s.have |= 1u << f;
  is_int(jc_peak_step.files.read(c, t, f, t->fd[f], true, true, &s), 0,
         "a fresh descriptor read");
  ok(!(s.have & (1u << f)) && peak->armed,
     "the first read through a descriptor is the lifetime peak: withheld");
  s.have |= 1u << f;
  jc_peak_step.files.read(c, t, f, t->fd[f], false, true, &s);
  ok(s.have & (1u << f), "after a reset, the read is the interval's: sent");
  /* A final read between passes (held, dropped if the cgroup stays) does
   * not reset: the next pass's read still has the spike. */
  char text[16] = "";
  ok(pwrite(t->fd[f], "8192\n", 5, 0) == 5 &&
         jc_peak_step.files.read(c, t, f, t->fd[f], false, false, &s) == 0 &&
         pread(t->fd[f], text, sizeof(text) - 1, 0) > 0 &&
         strncmp(text, "8192", 4) == 0 && (s.have & (1u << f)),
     "a final read between passes: sent, and no reset (%.5s)", text);
  jc_peak_step.files.read(c, t, f, t->fd[f], false, true, &s);
  ok(pread(t->fd[f], text, sizeof(text) - 1, 0) > 0 &&
         strncmp(text, "reset", 5) == 0,
     "the next pass's read resets it (%.5s)", text);
  s.have |= 1u << f;
  jc_peak_step.files.read(c, t, f, t->fd[f], true, true, &s);
  ok(!(s.have & (1u << f)),
     "a descriptor opened again: its first read is withheld again");

  /* A reset the kernel refuses gives the value up (the collector then
   * reads the file nowhere). */
  jc_tracked_drop_file(c, f);
  fd = open(fx_path("job/memory.peak"), O_RDONLY | O_CLOEXEC);
  jc_tracked_fd_done(c, t, f, fd, true);
  infos = 0;
  ok(jc_peak_step.files.read(c, t, f, t->fd[f], false, true, &s) < 0 &&
         infos == 1 && strstr(last_log, "memory-peak_interval is not sent"),
     "a refused reset: the file is given up, one INFO (%s)", last_log);
  jc_tracked_drop_file(c, f);
  ok(t->fd[f] < 0 && c->fds.peaks == 0, "its descriptors closed");
  infos = 0;
  ok(jc_peak_step.files.refused(c, f, EACCES) < 0 && infos == 1 &&
         strstr(last_log, "write access"),
     "not root: given up, one INFO (%s)", last_log);
  is_int(jc_peak_step.files.refused(c, f, ENOENT), 0,
         "a missing file is no refusal");
  jc_peak_step.cgroup_life.track(c, t);
  ok(!peak->armed, "tracked again: the next descriptor starts unarmed");
  budget_agrees(c, "after the peak");
  jc_collector_free(c);
  fx_cleanup();
}

/* ---- the end of a cgroup ----------------------------------------------------- */

static int cpu_lists;
static double last_user;
static uint64_t last_time; /* its time_ns: 0 for a list of a pass */
static char end_message[512];
static size_t end_meta;

static void collect_cb(void *ctx, const jc_target *t, const jc_metric *m) {
  (void)ctx;
  if (strcmp(t->relpath, "job") == 0 && strcmp(m->type, "ps_cputime") == 0) {
    cpu_lists++;
    last_user = (double)m->derive[0];
    last_time = m->time_ns;
  }
}

static jc_note_meta end_facts[16]; /* keys are the core's literals */
static jc_severity end_severity;
static char end_instance[128], end_cgroup[128];

static void end_cb(void *ctx, const jc_target *t, const jc_notification *n) {
  (void)ctx;
  if (strcmp(n->type, "cgroup") == 0) {
    snprintf(end_message, sizeof(end_message), "%s", n->message);
    end_meta = n->meta_count;
    for (size_t i = 0; i < n->meta_count && i < 16; i++)
      end_facts[i] = n->meta[i];
    end_severity = n->severity;
    snprintf(end_instance, sizeof(end_instance), "%s", t->instance);
    snprintf(end_cgroup, sizeof(end_cgroup), "%s", t->meta ? t->meta : "");
  }
}

/* The record's fact `key`: NULL when it has none. */
static const jc_note_meta *fact(const char *key) {
  for (size_t i = 0; i < end_meta && i < 16; i++)
    if (strcmp(end_facts[i].key, key) == 0)
      return &end_facts[i];
  return NULL;
}

static bool count_is(const char *key, uint64_t want) {
  const jc_note_meta *m = fact(key);
  return m && m->kind == JC_META_COUNT && m->count == want;
}

static bool number_is(const char *key, double want) {
  const jc_note_meta *m = fact(key);
  return m && m->kind == JC_META_NUMBER && m->number == want;
}

/* The command's totals of the job, from the same reads (jc_totals). */
static jc_totals job_totals;
static int job_totals_seen;

static void totals_cb(void *ctx, const jc_target *t, const jc_totals *tot) {
  (void)ctx;
  if (strcmp(t->relpath, "job") == 0) {
    job_totals = *tot;
    job_totals_seen++;
  }
}

static void test_end(void) {
  fx_root("cpu memory\n");
  fx_write("cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
  fx_cgroup("job", 1000);
  fx_write("job/cgroup.events", "populated 1\nfrozen 0\n");
  fx_cgroup("lost", 1000);
  fx_write("lost/cgroup.events", "populated 1\nfrozen 0\n");
  fx_cgroup("quick", 1000);
  fx_write("quick/cgroup.events", "populated 0\nfrozen 0\n");
  char err[256];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, fx_path(""), err, sizeof(err));
  jc_config_add_pattern(cfg, false, "*", err, sizeof(err));
  cfg->notify_end = true;
  jc_config_finish(cfg, err, sizeof(err));
  jc_collector *c = jc_collector_new(cfg, log_cb, NULL);
  jc_collector_set_notify(c, end_cb, NULL);
  ok(jc_collector_init(c) == 0 && jc_collector_events_fd(c) >= 0,
     "init: an events descriptor to wait on");
  jc_tracked *job = find(c, "job");
  ok(job && end_of(c, job)->wd >= 0 && end_of(c, job)->populated,
     "a populated cgroup is watched");
  fx_write("job/cpu.stat", "usage_usec 9000\nuser_usec 6000\nsystem_usec 3000\n");
  fx_write("job/cgroup.events", "populated 0\nfrozen 0\n");
  uint64_t read_at = jc_wall_ns();
  jc_collector_handle_events(c, collect_cb, NULL);
  is_int(cpu_lists, 0, "emptied: its final figures are read at once and "
         "held while it is there");
  ok(strncmp(end_message, "cgroup job ended after ", 23) == 0 &&
         strstr(end_message, ": CPU 0.01 s user, 0.00 s system") && end_meta >= 3,
     "NotifyEnd: one notification with its totals (%s)", end_message);
  jc_collector_handle_events(c, collect_cb, NULL);
  is_int(cpu_lists, 0, "nothing more until it changes again");
  /* Made after init: one found empty after a job ran in it (its cpu.stat
   * counts), one not used yet. */
  fx_cgroup("late", 2000);
  fx_write("late/cgroup.events", "populated 0\nfrozen 0\n");
  fx_cgroup("fresh", 0);
  fx_write("fresh/cgroup.events", "populated 0\nfrozen 0\n");
  end_message[0] = '\0';
  jc_collector_handle_events(c, collect_cb, NULL);
  ok(find(c, "late") && find(c, "fresh") &&
         strncmp(end_message, "cgroup late ended after ", 24) == 0,
     "a cgroup found empty after a job ran in it: read as ended (%s)",
     end_message);
  end_message[0] = '\0';
  jc_collector_handle_events(c, collect_cb, NULL);
  is_str(end_message, "", "one not used yet: no end, and nothing more");
  /* The kernel's second notification of the same job (its emptying, told
   * apart from its filling), read after both: no second record.  Then
   * another job, filled and emptied in one event: told. */
  fx_write("late/cgroup.events", "populated 0\nfrozen 0\n");
  jc_collector_handle_events(c, collect_cb, NULL);
  is_str(end_message, "", "an empty cgroup's second event with no CPU time "
         "since its end: no second record");
  fx_write("late/cpu.stat", "usage_usec 2500\nuser_usec 1500\nsystem_usec 1000\n");
  fx_write("late/cgroup.events", "populated 0\nfrozen 0\n");
  jc_collector_handle_events(c, collect_cb, NULL);
  ok(strncmp(end_message, "cgroup late ended after ", 24) == 0,
     "another job since (its CPU time grew), filled and emptied in one "
     "event: its record (%s)", end_message);
  fx_remove("job");
  fx_remove("lost");
  fx_remove("late");
  fx_remove("fresh");
  infos = 0;
  usleep(20000);
  uint64_t sent_at = jc_wall_ns();
  jc_collector_read(c, collect_cb, NULL);
  ok(cpu_lists == 1 && last_user == 6000 && last_time >= read_at &&
         last_time + 10000000 <= sent_at,
     "removed: its held final figures are sent, stamped when they were "
     "read (user %g µs)", last_user);
  ok(find(c, "job") == NULL && find(c, "lost") == NULL && infos >= 1 &&
         strstr(last_log, "1 cgroup emptied and was removed before its final "
                          "figures could be read"),
     "a cgroup removed while populated is counted, said once (%s)", last_log);
  /* Found empty; a job fills and empties it (one event, as inotify merges
   * the two) and it goes before the plugin looks: counted too. */
  fx_write("quick/cgroup.events", "populated 0\nfrozen 0\n");
  fx_remove("quick");
  infos = 0;
  jc_collector_read(c, collect_cb, NULL);
  ok(find(c, "quick") == NULL && infos >= 1 &&
         strstr(last_log, "1 cgroup emptied and was removed before its final "
                          "figures could be read"),
     "one whose cgroup.events changed unread while empty, then removed: "
     "counted (%s)", last_log);
  jc_collector_free(c);
  fx_cleanup();
}

/* A parent whose children come and go: it empties each time, and stays.
 * Its final reads between passes send nothing; the passes send one point
 * each, with rates over the whole interval. */
static void test_end_stays(void) {
  fx_root("cpu\n");
  fx_write("cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
  fx_cgroup("job", 1000);
  fx_write("job/cgroup.events", "populated 1\nfrozen 0\n");
  char err[256];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, fx_path(""), err, sizeof(err));
  jc_config_add_pattern(cfg, false, "job", err, sizeof(err));
  cfg->notify_end = true;
  jc_config_finish(cfg, err, sizeof(err));
  jc_collector *c = jc_collector_new(cfg, log_cb, NULL);
  jc_collector_set_notify(c, end_cb, NULL);
  ok(jc_collector_init(c) == 0, "init: a parent with a child running");
  jc_tracked *job = find(c, "job");
  uint64_t baseline = job ? job->prior.rate.time_ns : 0;
  cpu_lists = 0;
  int notes = 0;
  for (int i = 0; i < 3; i++) {
    fx_write("job/cgroup.events", "populated 0\nfrozen 0\n");
    end_message[0] = '\0';
    jc_collector_handle_events(c, collect_cb, NULL);
    notes += end_message[0] != '\0';
    fx_write("job/cgroup.events", "populated 1\nfrozen 0\n");
    jc_collector_handle_events(c, collect_cb, NULL);
  }
  ok(cpu_lists == 0 && notes == 3 && job &&
         job->prior.rate.time_ns == baseline,
     "emptied 3 times between passes: no list sent (%d), a NotifyEnd each "
     "(%d), the rates' baseline the last pass's", cpu_lists, notes);
  jc_collector_read(c, collect_cb, NULL);
  ok(cpu_lists == 1 && last_time == 0, "the pass: one point, of the pass");
  fx_write("job/cgroup.events", "populated 0\nfrozen 0\n");
  jc_collector_handle_events(c, collect_cb, NULL);
  jc_collector_read(c, collect_cb, NULL);
  is_int(cpu_lists, 2, "emptied, then a pass: its point only");
  fx_remove("job");
  jc_collector_read(c, collect_cb, NULL);
  is_int(cpu_lists, 2, "then removed: nothing more (the pass had sent its "
         "final figures)");
  jc_collector_free(c);
  fx_cleanup();
}

/* A fixture job with every figure of the record: cpu.stat, memory.peak,
 * io.stat on two devices, memory.events, and the energy Collect "energy"
 * charged it (one RAPL zone and a /proc/stat, as unit_collector's). */
static void end_step(uint64_t zone_uj, uint64_t total_ticks,
                     uint64_t idle_ticks, const char *job_cpu) {
  char text[256];
  snprintf(text, sizeof(text), "%llu\n", (unsigned long long)zone_uj);
  fx_write("pc/intel-rapl:0/energy_uj", text);
  snprintf(text, sizeof(text), "cpu  %llu 0 0 %llu 0 0 0 0 0 0\ncpu0 1 0 0 0\n",
           (unsigned long long)(total_ticks - idle_ticks),
           (unsigned long long)idle_ticks);
  fx_write("stat", text);
  fx_write("cg/job/cpu.stat", job_cpu);
}

static void test_end_record(void) {
  fx_root("cpu memory io\n");
  fx_mkdir("cg");
  fx_write("cg/cgroup.controllers", "cpu memory io\n");
  fx_write("cg/cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0\n");
  fx_write("cg/io.stat", "");
  fx_cgroup("cg/job", 0);
  fx_write("cg/job/cgroup.events", "populated 1\nfrozen 0\n");
  fx_write("cg/job/memory.current", "1000000\n");
  fx_write("cg/job/memory.peak", "2000000\n");
  fx_write("cg/job/memory.events",
           "low 0\nhigh 0\nmax 2\noom 1\noom_kill 1\noom_group_kill 0\n");
  fx_write("cg/job/io.stat", "8:0 rbytes=4096 wbytes=0 rios=1 wios=0 "
                             "dbytes=0 dios=0\n");
  fx_mkdir("pc");
  fx_mkdir("pc/intel-rapl:0");
  fx_write("pc/intel-rapl:0/name", "package-0\n");
  fx_write("pc/intel-rapl:0/max_energy_range_uj", "262143328850\n");
  /* Read 0 (init): the baselines.  Read 1: the zone 4 J, the host 4 s of
   * CPU time (400 ticks), 1 s of it idle; the job 2 s: 2 J are its. */
  end_step(10000000, 1000, 300,
           "usage_usec 1000000\nuser_usec 600000\nsystem_usec 400000\n");
  char err[256] = "";
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, fx_path("cg"), err, sizeof(err));
  jc_config_set_powercap_root(cfg, fx_path("pc"), err, sizeof(err));
  jc_config_set_proc_stat(cfg, fx_path("stat"), err, sizeof(err));
  jc_config_add_pattern(cfg, false, "job", err, sizeof(err));
  static const char *const groups[] = {"cpu", "memory", "io", "events",
                                       "energy"};
  for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
    jc_config_add_collect(cfg, groups[i], err, sizeof(err));
  cfg->notify_end = true;
  is_int(jc_config_finish(cfg, err, sizeof(err)), 0, "NotifyEnd, Collect "
         "cpu memory io events energy: %s", err);
  jc_collector *c = jc_collector_new(cfg, log_cb, NULL);
  jc_collector_set_notify(c, end_cb, NULL);
  jc_collector_set_totals(c, totals_cb, NULL);
  uint64_t t0 = jc_now_ns();
  warnings = 0;
  ok(jc_collector_init(c) == 0, "init with a job, a zone and /proc/stat");
  usleep(30000);
  end_step(14000000, 1400, 400,
           "usage_usec 3000000\nuser_usec 1800000\nsystem_usec 1200000\n");
  jc_collector_read(c, collect_cb, NULL);
  /* Its last figures, then empty. */
  fx_write("cg/job/cpu.stat",
           "usage_usec 3500000\nuser_usec 2250000\nsystem_usec 1250000\n");
  fx_write("cg/job/memory.peak", "134217728\n");
  fx_write("cg/job/io.stat",
           "8:0 rbytes=1048576 wbytes=16777216 rios=16 wios=256 dbytes=0 "
           "dios=0\n254:0 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 "
           "dios=0\n");
  fx_write("cg/job/cgroup.events", "populated 0\nfrozen 0\n");
  end_message[0] = '\0';
  end_meta = 0;
  jc_collector_handle_events(c, collect_cb, NULL);
  double elapsed = (double)(jc_now_ns() - t0) / 1e9;
  const jc_note_meta *seen = fact("seconds");
  ok(end_severity == JC_NOTIF_OKAY && strcmp(end_instance, "job") == 0 &&
         strcmp(end_cgroup, "job") == 0,
     "NotifyEnd: OKAY, the job's instance, the cgroup meta data \"job\"");
  is_int(end_meta, 8, "eight facts: seconds, CPU user and system, memory "
         "peak, I/O read and written, OOM kills, energy");
  ok(seen && seen->kind == JC_META_NUMBER && seen->number >= 0.03 &&
         seen->number <= elapsed,
     "seconds: %g, from its watch at init to its end (the test's clock: "
     "at least the 0.03 s it slept, at most %g s)",
     seen ? seen->number : -1, elapsed);
  ok(number_is("cpu_user_seconds", 2.25) &&
         number_is("cpu_system_seconds", 1.25),
     "cpu_user_seconds 2.25, cpu_system_seconds 1.25: its last cpu.stat");
  ok(count_is("memory_peak_bytes", 134217728),
     "memory_peak_bytes 134217728, a count: its last memory.peak");
  ok(count_is("io_read_bytes", 1052672) && count_is("io_write_bytes", 16777216),
     "io_read_bytes 1052672, io_write_bytes 16777216: io.stat's two devices "
     "added up");
  ok(count_is("oom_kills", 1), "oom_kills 1: memory.events oom_kill");
  const jc_note_meta *energy = fact("energy_joules");
  ok(energy && energy->kind == JC_META_NUMBER &&
         energy->number > 2.0 - 1e-9 && energy->number < 2.0 + 1e-9,
     "energy_joules 2: 4 J of the zone times its 2 s of the host's 4 s "
     "(%g)", energy ? energy->number : -1);
  char want[400];
  snprintf(want, sizeof(want),
           "cgroup job ended after %.1f s: CPU 2.25 s user, 1.25 s system; "
           "memory peak 128.0 MiB; I/O 1.0 MiB read, 16.0 MiB written; 1 OOM "
           "kill; energy 2.0 J",
           seen ? seen->number : -1);
  is_str(end_message, want, "the message says the same");
  ok(job_totals_seen == 2 && job_totals.have_times &&
         job_totals.user_usec == 2250000 && job_totals.system_usec == 1250000 &&
         job_totals.usage_usec == 3500000 && job_totals.have_memory_peak &&
         job_totals.memory_peak == 134217728 && job_totals.have_io &&
         job_totals.io_read_bytes == 1052672 &&
         job_totals.io_write_bytes == 16777216 &&
         job_totals.io_read_ops == 17 && job_totals.io_write_ops == 256 &&
         job_totals.have_oom_kills && job_totals.oom_kills == 1,
     "the command's totals of the same reads (jc_collector_set_totals): "
     "the record's figures");
  is_int(warnings, 0, "nothing logged above INFO (%s)", last_log);
  jc_collector_free(c);
  fx_cleanup();
}

/* A kill in a child that empties it and its parent: the kernel may say
 * the parent's `populated 0` first (it notifies a cgroup.events change at
 * most every 20 ms per file, and the child's had just changed when the
 * process moved in).  Told once, by the child, after the next pass; a
 * child removed after its final read is told once, by its parent. */
static void test_end_oom(void) {
  fx_root("cpu memory\n");
  fx_write("cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
  fx_cgroup("lim", 1000);
  fx_cgroup("lim/child", 1000);
  fx_write("lim/memory.events", "oom 0\noom_kill 0\n");
  fx_write("lim/child/memory.events", "oom 0\noom_kill 0\n");
  fx_write("lim/cgroup.events", "populated 1\nfrozen 0\n");
  fx_write("lim/child/cgroup.events", "populated 1\nfrozen 0\n");
  jc_collector *c = start(-1);
  ok(c && jc_step_self(c, JC_STEP_OOM) && jc_collector_events_fd(c) >= 0,
     "init with NotifyOOM and final reads");
  if (!c)
    return;
  jc_collector_set_notify(c, notify_cb, NULL);
  told = 0;
  fx_write("lim/memory.events", "oom 1\noom_kill 1\n");
  fx_write("lim/child/memory.events", "oom 1\noom_kill 1\n");
  fx_write("lim/cgroup.events", "populated 0\nfrozen 0\n");
  jc_steps_event(c, end_of(c, find(c, "lim"))->wd); /* the parent's event alone */
  jc_collector_handle_events(c, NULL, NULL);
  is_int(told, 0, "the parent's final read tells nothing yet");
  fx_write("lim/child/cgroup.events", "populated 0\nfrozen 0\n");
  jc_steps_event(c, end_of(c, find(c, "lim/child"))->wd);
  jc_collector_handle_events(c, NULL, NULL);
  is_int(told, 0, "nor the child's");
  jc_collector_read(c, NULL, NULL);
  ok(told == 1 && strcmp(told_meta, "lim/child") == 0,
     "the pass: told once, by the child (%s)", told_meta);
  jc_collector_read(c, NULL, NULL);
  is_int(told, 1, "and never again");

  /* Another kill, the child's final read, then the child removed. */
  fx_write("lim/cgroup.events", "populated 1\nfrozen 0\n");
  fx_write("lim/child/cgroup.events", "populated 1\nfrozen 0\n");
  jc_steps_event(c, JC_EVENTS_LOST);
  jc_collector_handle_events(c, NULL, NULL);
  fx_write("lim/memory.events", "oom 2\noom_kill 2\n");
  fx_write("lim/child/memory.events", "oom 2\noom_kill 2\n");
  fx_write("lim/child/cgroup.events", "populated 0\nfrozen 0\n");
  jc_steps_event(c, end_of(c, find(c, "lim/child"))->wd);
  jc_collector_handle_events(c, NULL, NULL);
  fx_remove("lim/child");
  jc_collector_read(c, NULL, NULL);
  ok(told == 2 && strcmp(told_meta, "lim") == 0 &&
         strstr(told_message, "in a cgroup below lim that no longer exists"),
     "read at its end, then removed: told once, by its parent (%s)",
     told_message);
  jc_collector_read(c, NULL, NULL);
  is_int(told, 2, "and never again");
  jc_collector_free(c);
  fx_cleanup();
  told = 0;
}

int main(void) {
  test_end();
  test_end_stays();
  test_end_oom();
  test_end_record();
  test_walk();
  test_budget();
  test_oom();
  test_oom_at_end();
  test_oom_log();
  test_peak();
  return done_testing();
}
