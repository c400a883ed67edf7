/* Tests of jc_collector on small trees built in /tmp: selection, names,
 * values, rates across reads, churn, re-created cgroups, diagnostics that
 * are logged once, collisions and the fd budget. */
#include "collect_util.h"
#include "fixture_util.h"
#include "jc_collector.h"
#include "jc_name.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- what the collector said and sent ----------------------------------- */

/* Messages at WARNING or worse containing part; counts and clears logs. */
static int loud_logs(const char *part) {
  int n = 0;
  for (int i = 0; i < log_count; i++)
    if (log_level[i] <= JC_LOG_WARNING && (!part || strstr(logs[i], part)))
      n++;
  return n;
}

/* Messages at any level containing part. */
static int any_logs(const char *part) {
  int n = 0;
  for (int i = 0; i < log_count; i++)
    n += strstr(logs[i], part) != NULL;
  return n;
}

static bool has(const char *key) {
  for (int i = 0; i < value_count; i++)
    if (strcmp(values[i].key, key) == 0)
      return true;
  return false;
}

/* Instances seen in the last read, sorted, joined by spaces. */
static const char *instances(void) {
  static char out[2048];
  char *list[512];
  int n = 0;
  for (int i = 0; i < value_count; i++) {
    char *slash = strchr(values[i].key, '/');
    size_t len = (size_t)(slash - values[i].key);
    bool dup = false;
    for (int j = 0; j < n; j++)
      dup |= strlen(list[j]) == len && strncmp(list[j], values[i].key, len) == 0;
    if (!dup)
      list[n++] = strndup(values[i].key, len);
  }
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (strcmp(list[j], list[i]) < 0) {
        char *t = list[i];
        list[i] = list[j];
        list[j] = t;
      }
  out[0] = '\0';
  for (int i = 0; i < n; i++) {
    strcat(out, i ? " " : "");
    strcat(out, list[i]);
    free(list[i]);
  }
  return out;
}

static void read_once(jc_collector *c) {
  value_count = 0;
  jc_collector_read(c, collect_cb, NULL);
}

static jc_collector *start(const char *root, const char *const *select,
                           const char *const *ignore, unsigned collect) {
  char err[256];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, root, err, sizeof(err));
  for (; select && *select; select++)
    jc_config_add_pattern(cfg, false, *select, err, sizeof(err));
  for (; ignore && *ignore; ignore++)
    jc_config_add_pattern(cfg, true, *ignore, err, sizeof(err));
  if (collect) {
    cfg->collect = cfg->collect_asked = collect;
    cfg->collect_given = true;
  }
  jc_config_add_values(cfg, "*", err, sizeof(err)); /* every list */
  jc_config_finish(cfg, err, sizeof(err));
  return collector_start(cfg, NULL);
}

static int count_fds(void) {
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  while (d && readdir(d))
    n++;
  if (d)
    closedir(d);
  return n;
}

/* A host-like tree: root, a (with memory), b, a/x, and a symlink. */
static const char *make_tree(void) {
  const char *root = fx_root("cpuset cpu io memory pids\n");
  fx_write("cpu.stat", "usage_usec 5000\nuser_usec 3000\nsystem_usec 2000\n");
  fx_write("memory.stat", "anon 1\nfile 2\nkernel 3\nkernel_stack 4\nslab 5\n"
                          "shmem 6\n");
  fx_write("io.stat", "8:0 rbytes=10 wbytes=20 rios=1 wios=2\n");
  fx_cgroup("a", 1000);
  fx_write("a/memory.current", "4096\n");
  fx_write("a/memory.peak", "8192\n");
  fx_write("a/memory.swap.current", "0\n");
  fx_write("a/memory.stat", "anon 100\nfile 200\nkernel 300\nkernel_stack 16\n"
                            "slab 50\nshmem 7\npgfault 9\n");
  fx_write("a/io.stat", "8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0\n"
                        "253:0 rbytes=10 wbytes=20 rios=30 wios=40\n");
  fx_cgroup("a/x", 10);
  fx_cgroup("b", 2000);
  fx_write("b/memory.current", "1\n");
  fx_write("b/memory.stat", "anon 1\n");
  fx_write("b/io.stat", "");
  fx_write("a/x/memory.current", "1\n");
  fx_write("a/x/memory.stat", "anon 1\n");
  fx_write("a/x/io.stat", "");
  fx_symlink("/tmp", "escape");
  return root;
}

static void test_selection(const char *root) {
  static const char *const star[] = {"*", NULL};
  static const char *const all[] = {"**", NULL};
  static const char *const no_b[] = {"b", NULL};
  jc_collector *c = start(root, star, NULL, 0);
  ok(c != NULL, "init on a fixture tree");
  usleep(30000); /* rates need 20 ms between samples */
  read_once(c);
  is_str(instances(), "a b root", "Select \"*\": first level and root");
  ok(loud_logs(NULL) == 0, "a healthy tree logs no WARNING or ERROR");
  if (loud_logs(NULL))
    show_logs();
  is_near(value("a/memory-current"), 4096, 0, "a memory.current");
  is_near(value("a/memory-peak"), 8192, 0, "a memory.peak");
  is_near(value("a/memory-kernel_stack"), 16, 0, "a memory.stat kernel_stack");
  ok(!has("a/memory-pgfault"), "memory.stat keys not chosen are not sent");
  is_near(value("a/disk_octets"), 11, 0, "a io read bytes summed");
  is_near(value("a/disk_ops"), 33, 0, "a io read ops summed");
  is_near(value("root/derive-cpu_usage_usec"), 5000, 0, "root usage_usec");
  ok(!has("root/memory-current"), "root has no memory.current, by design");
  is_near(value("root/memory-anon"), 1, 0, "root memory.stat");
  ok(has("a/gauge-cpu_cores") && value("a/gauge-cpu_cores") == 0,
     "rates from the first read on (baseline taken at init)");
  jc_collector_free(c);

  c = start(root, all, no_b, 0);
  read_once(c);
  is_str(instances(), "a a_x root", "Select \"**\" Ignore \"b\"");
  jc_collector_free(c);
}

static void test_rates_and_churn(const char *root) {
  static const char *const star[] = {"*", NULL};
  int fds_before = count_fds();
  jc_collector *c = start(root, star, NULL, JC_COLLECT_CPU);
  read_once(c);
  fx_write("a/cpu.stat", "usage_usec 999000\nuser_usec 1\nsystem_usec 1\n");
  usleep(30000);
  read_once(c);
  ok(value("a/gauge-cpu_cores") > 0, "cpu_cores rises with usage (%g)",
     value("a/gauge-cpu_cores"));
  ok(value("a/percent-cpu") > 0, "percent-cpu rises with usage");

  fx_cgroup("new", 100);
  read_once(c);
  ok(has("new/derive-cpu_usage_usec"), "a new cgroup is reported at once");
  ok(!has("new/gauge-cpu_cores"), "its rate needs a second read");
  usleep(30000);
  read_once(c);
  ok(has("new/gauge-cpu_cores"), "rate from its second read");

  fx_remove("b");
  log_count = 0;
  read_once(c);
  is_str(instances(), "a new root", "a removed cgroup is dropped");
  is_int(loud_logs(NULL), 0, "dropping it logs nothing above DEBUG");

  /* Re-created under the same path: smaller counter, new inode. */
  fx_remove("a");
  fx_cgroup("a", 5);
  read_once(c);
  ok(has("a/derive-cpu_usage_usec") && !has("a/gauge-cpu_cores"),
     "a re-created cgroup starts a new baseline");
  usleep(30000);
  read_once(c);
  ok(has("a/gauge-cpu_cores") && value("a/gauge-cpu_cores") >= 0,
     "and has a rate again after that");
  fx_remove("new");
  read_once(c);
  jc_collector_stats st;
  jc_collector_get_stats(c, &st);
  ok(st.inotify, "inotify watches the tree");
  size_t rescans = st.rescans;
  read_once(c);
  read_once(c);
  jc_collector_get_stats(c, &st);
  is_int(st.rescans, rescans, "no walk when nothing changed");
  jc_collector_free(c);
  is_int(count_fds(), fds_before, "every descriptor closed after free");
}

static void test_diagnostics(const char *root) {
  static const char *const star[] = {"*", NULL};
  fx_cgroup("nomem", 10); /* memory listed by the root, but no files */
  jc_collector *c = start(root, star, NULL, 0);
  read_once(c);
  read_once(c);
  is_int(any_logs("controller \"memory\" is not enabled for the children of"),
         1, "missing controller logged once");
  ok(any_logs("echo \"+memory\" >"), "with the remedy");
  is_int(loud_logs("controller"), 0, "as a NOTICE: healthy hosts look so");
  log_count = 0;
  fx_write("a/cpu.stat", "\x01\x02garbage\xff\n");
  read_once(c);
  read_once(c);
  is_int(loud_logs("cpu.stat is malformed"), 1, "malformed cpu.stat logged once");
  ok(has("a/memory-current"), "the other values still go out");
  fx_write("a/cpu.stat", "usage_usec 7\nuser_usec 3\nsystem_usec 4\n");
  read_once(c);
  bool recovered = false;
  for (int i = 0; i < log_count; i++)
    recovered |= strstr(logs[i], "a/cpu.stat can be read again") != NULL;
  ok(recovered, "recovery is logged");
  jc_collector_free(c);
  fx_remove("nomem");
}

/* The instance a colliding cgroup gets: its name, "~", its path's hash. */
static const char *suffixed(const char *name, const char *relpath) {
  static char out[2][160];
  static int k;
  k ^= 1;
  snprintf(out[k], sizeof(out[k]), "%s~%08x", name, jc_name_fnv1a32(relpath));
  return out[k];
}

static void test_collisions_and_budget(const char *root) {
  static const char *const all[] = {"**", NULL};
  const char *one = suffixed("c_d_e", "c/d_e"), *two = suffixed("c_d_e", "c_d/e");
#define BOTH (strstr(instances(), one) && strstr(instances(), two))
  fx_mkdir("c_d");
  fx_cgroup("c_d/e", 1);
  fx_mkdir("c");
  fx_cgroup("c/d_e", 1);
  jc_collector *c = start(root, all, NULL, JC_COLLECT_CPU);
  read_once(c);
  is_int(loud_logs("would both be reported as \"c_d_e\""), 1,
         "collision warned once");
  ok(BOTH,
     "both get ~ and the hash of their own path: %s", instances());
  read_once(c);
  is_int(loud_logs("would both"), 1, "not warned again");
  jc_collector_free(c);

  /* The names depend on the paths, not on which cgroup came first. */
  fx_remove("c");
  c = start(root, all, NULL, JC_COLLECT_CPU);
  read_once(c);
  ok(strstr(instances(), "c_d_e") && !strstr(instances(), "c_d_e~"),
     "alone, c_d/e is c_d_e");
  fx_mkdir("c");
  fx_cgroup("c/d_e", 1);
  read_once(c); /* the walk after the change */
  read_once(c);
  ok(BOTH,
     "a second one appearing later: the same two names as at a start with "
     "both: %s", instances());
  fx_remove("c");
  read_once(c);
  read_once(c);
  ok(strstr(instances(), "c_d_e~") == NULL && strstr(instances(), "c_d_e") != NULL,
     "the other gone: c_d_e again (%s)", instances());
  ok(any_logs("\"c_d/e\" is reported as \"c_d_e\" again") == 1,
     "and the log says so");
  jc_collector_free(c);
  fx_remove("c_d");
#undef BOTH

  char err[64];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, root, err, sizeof(err));
  jc_config_set_max_open_files(cfg, 0, err, sizeof(err));
  jc_config_finish(cfg, err, sizeof(err));
  c = jc_collector_new(cfg, log_cb, NULL);
  jc_collector_init(c);
  read_once(c);
  jc_collector_stats st;
  jc_collector_get_stats(c, &st);
  is_int(st.fds_kept, 0, "MaxOpenFiles 0 keeps no descriptor");
  is_near(value("a/memory-current"), 4096, 0, "and still reads by path");
  jc_collector_free(c);
}

/*
 * The process out of descriptors (another plugin holds them all): no
 * cgroup is taken for vanished, neither by a read nor by a walk; one
 * WARNING says how many could not be read, and one INFO when they can.
 */
static void test_descriptor_shortage(void) {
  const char *root = fx_root("cpu\n");
  for (int i = 0; i < 5; i++) {
    char name[8];
    snprintf(name, sizeof(name), "s%d", i);
    fx_cgroup(name, 1000);
  }
  char err[64];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, root, err, sizeof(err));
  jc_config_add_pattern(cfg, false, "s*", err, sizeof(err));
  jc_config_set_max_open_files(cfg, 0, err, sizeof(err)); /* every file opened per read */
  cfg->report_root = false;
  jc_config_finish(cfg, err, sizeof(err));
  jc_collector *c = jc_collector_new(cfg, log_cb, NULL);
  log_count = 0;
  ok(jc_collector_init(c) == 0, "init");
  read_once(c);
  is_int(value_count > 0 && has("s4/ps_cputime"), 1, "s4 read");

  fx_cgroup("s5", 1000); /* walked at the next read, with no descriptor */

  /* Take every descriptor there is. */
  struct rlimit saved, low;
  getrlimit(RLIMIT_NOFILE, &saved);
  low = saved;
  low.rlim_cur = (rlim_t)count_fds() + 16;
  setrlimit(RLIMIT_NOFILE, &low);
  int hog[64], hogs = 0;
  while (hogs < 64 && (hog[hogs] = dup(0)) >= 0)
    hogs++;
  log_count = 0;
  read_once(c);
  read_once(c);
  is_int(loud_logs("5 of 5 cgroups could not be read in full"), 1,
         "out of descriptors: one WARNING with the number (%d hogs)", hogs);
  ok(any_logs("LimitNOFILE=") >= 1, "naming the remedy");
  jc_collector_stats st;
  jc_collector_get_stats(c, &st);
  is_int((int)st.tracked, 5, "no cgroup dropped by a walk that could not list the tree");
  is_int(loud_logs("could not be listed"), 1, "the walk says so once");

  for (int i = 0; i < hogs; i++)
    close(hog[i]);
  setrlimit(RLIMIT_NOFILE, &saved);
  log_count = 0;
  read_once(c);
  read_once(c);
  ok(has("s0/ps_cputime") && has("s4/ps_cputime") && has("s5/ps_cputime"),
     "descriptors back: all six read, s5 found");
  is_int(any_logs("every cgroup can be read in full again"), 1, "INFO once");
  is_int(any_logs("every directory can be listed again"), 1,
         "and once for the walk");
  is_int(loud_logs(NULL), 0, "nothing louder");
  jc_collector_free(c);
  fx_cleanup();
}

/*
 * Collect "energy" on a fixture: one zone, two cgroups, a host /proc/stat,
 * all rewritten between reads with figures whose split is known exactly.
 */
static void energy_step(uint64_t zone_uj, uint64_t a_us, uint64_t b_us,
                        uint64_t total_ticks, uint64_t idle_ticks) {
  char text[256];
  snprintf(text, sizeof(text), "%llu\n", (unsigned long long)zone_uj);
  fx_write("pc/intel-rapl:0/energy_uj", text);
  snprintf(text, sizeof(text), "usage_usec %llu\nuser_usec %llu\nsystem_usec 0\n",
           (unsigned long long)a_us, (unsigned long long)a_us);
  fx_write("cg/a/cpu.stat", text);
  snprintf(text, sizeof(text), "usage_usec %llu\nuser_usec %llu\nsystem_usec 0\n",
           (unsigned long long)b_us, (unsigned long long)b_us);
  fx_write("cg/b/cpu.stat", text);
  /* user nice system idle iowait irq softirq steal, in ticks of 10 ms */
  snprintf(text, sizeof(text), "cpu  %llu 0 0 %llu 0 0 0 0 0 0\ncpu0 1 0 0 0\n",
           (unsigned long long)(total_ticks - idle_ticks),
           (unsigned long long)idle_ticks);
  fx_write("stat", text);
}

static void test_energy(void) {
  const char *base = fx_root("cpu\n");
  fx_mkdir("cg");
  fx_write("cg/cgroup.controllers", "cpu\n");
  fx_write("cg/cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0\n");
  fx_cgroup("cg/a", 0);
  fx_cgroup("cg/b", 0);
  fx_mkdir("pc");
  fx_mkdir("pc/intel-rapl:0");
  fx_write("pc/intel-rapl:0/name", "package-0\n");
  fx_write("pc/intel-rapl:0/max_energy_range_uj", "262143328850\n");
  fx_write("pc/intel-rapl:0/constraint_0_max_power_uw", "125000000\n");
  /* Read 0 (init): the baseline.  Read 1: 10 J; the host 4 s of CPU time
   * (400 ticks), 1 s idle; a 2 s, b 1 s.  Read 2: the counter wraps: 5 J
   * (range - (range - 3 J) + 2 J); host 200 ticks, 100 idle; a 0.5 s,
   * b 0.5 s. */
  uint64_t range = 262143328850ull;
  energy_step(range - 7000000, 1000000, 500000, 1000, 300);
  char err[256] = "", path[512];
  jc_config *cfg = jc_config_new();
  snprintf(path, sizeof(path), "%s/cg", base);
  jc_config_set_root(cfg, path, err, sizeof(err));
  snprintf(path, sizeof(path), "%s/pc", base);
  jc_config_set_powercap_root(cfg, path, err, sizeof(err));
  snprintf(path, sizeof(path), "%s/stat", base);
  jc_config_set_proc_stat(cfg, path, err, sizeof(err));
  jc_config_add_pattern(cfg, false, "*", err, sizeof(err));
  jc_config_add_collect(cfg, "cpu", err, sizeof(err));
  jc_config_add_collect(cfg, "energy", err, sizeof(err));
  is_int(jc_config_finish(cfg, err, sizeof(err)), 0, "Collect cpu energy: %s", err);
  jc_collector *c = jc_collector_new(cfg, log_cb, NULL);
  log_count = 0;
  ok(jc_collector_init(c) == 0, "init with a powercap tree");
  usleep(30000);
  energy_step(range - 3000000, 3000000, 1500000, 1400, 400);
  read_once(c);
  is_near(value("root/derive-energy_package-0_uj"), 4000000, 0,
          "read 1: the host's counter, 4 J since the baseline");
  is_near(value("root/power-package-0"), 4.0 / 0.03, 4.0 / 0.03 * 0.9,
          "read 1: power is energy over the interval (%g W)",
          value("root/power-package-0"));
  /* 4 J over 4 s of host CPU time: 1 J per CPU second; a 2 s, b 1 s,
   * idle 1 s. */
  is_near(value("a/derive-energy_package-0_uj"), 2000000, 1, "a: 2 s of CPU, 2 J");
  is_near(value("b/derive-energy_package-0_uj"), 1000000, 1, "b: 1 s, 1 J");
  is_near(value("root/derive-energy_package-0_idle_uj"), 1000000, 1, "idle: 1 J");
  usleep(30000);
  energy_step(2000000, 3500000, 2000000, 1600, 500); /* wrapped: 5 J */
  read_once(c);
  double host = value("root/derive-energy_package-0_uj");
  double a = value("a/derive-energy_package-0_uj"), b = value("b/derive-energy_package-0_uj");
  double idle = value("root/derive-energy_package-0_idle_uj");
  is_near(host, 9000000, 0, "read 2: a wrap adds (range - previous) + current: 9 J in all");
  /* 5 J over 2 s: a 0.5 s (1.25 J), b 0.5 s (1.25 J), idle 1 s (2.5 J). */
  is_near(a, 3250000, 1, "a: 3.25 J in all");
  is_near(b, 2250000, 1, "b: 2.25 J in all");
  is_near(idle, 3500000, 1, "idle: 3.5 J in all");
  is_near(a + b + idle, host, 2, "the siblings' parts and the idle part add up to the zone's");
  int host_lists = 0;
  for (int i = 0; i < value_count; i++)
    host_lists += strcmp(values[i].key, "root/derive-energy_package-0_uj") == 0;
  is_int(host_lists, 1, "the root's energy list is the host's, once (no part of its own)");
  is_int(loud_logs(NULL), 0, "no WARNING");
  jc_collector_free(c);
  fx_cleanup();
}

/* ---- notifications -------------------------------------------------------- */

static struct {
  char instance[128], meta[256], message[512];
  int severity;
} notes[16];
static int note_count;

static void notify_cb(void *ctx, const jc_target *t, const jc_notification *n) {
  (void)ctx;
  if (note_count == 16)
    return;
  snprintf(notes[note_count].instance, sizeof(notes[0].instance), "%s",
           t->instance);
  snprintf(notes[note_count].meta, sizeof(notes[0].meta), "%s", t->meta);
  snprintf(notes[note_count].message, sizeof(notes[0].message), "%s",
           n->message);
  notes[note_count++].severity = n->severity;
}

static void events(const char *cgroup, int oom_kill) {
  char path[256], text[256];
  snprintf(path, sizeof(path), "%s/memory.events", cgroup);
  snprintf(text, sizeof(text),
           "low 0\nhigh 0\nmax 3\noom 1\noom_kill %d\noom_group_kill 0\n",
           oom_kill);
  fx_write(path, text);
}

/* A memory cgroup with memory.events: limits on the way down. */
static void memory_cgroup(const char *rel, const char *max, int oom_kill) {
  char path[256];
  fx_cgroup(rel, 10);
  snprintf(path, sizeof(path), "%s/memory.current", rel);
  fx_write(path, "1048576\n");
  snprintf(path, sizeof(path), "%s/memory.peak", rel);
  fx_write(path, "2097152\n");
  snprintf(path, sizeof(path), "%s/memory.max", rel);
  fx_write(path, max);
  events(rel, oom_kill);
}

static void read_notes(jc_collector *c) {
  note_count = 0;
  read_once(c);
}

/* Kills told once each, by the deepest tracked cgroup that holds them;
 * a vanished cgroup's by its nearest tracked ancestor. */
static void test_oom(void) {
  static const char *const all[] = {"**", NULL};
  fx_root("cpu memory\n");
  fx_write("cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
  memory_cgroup("pod", "536870912\n", 0);
  memory_cgroup("pod/c1", "max\n", 0);
  memory_cgroup("pod/c2", "268435456\n", 0);
  char err[64];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, fx_path(""), err, sizeof(err));
  jc_config_add_pattern(cfg, false, all[0], err, sizeof(err));
  jc_config_finish(cfg, err, sizeof(err));
  jc_collector *c = jc_collector_new(cfg, log_cb, NULL);
  jc_collector_set_notify(c, notify_cb, NULL);
  ok(jc_collector_init(c) == 0, "init with NotifyOOM (the default)");
  read_notes(c);
  is_int(note_count, 0, "no kill, no notification");

  events("pod/c1", 2);
  events("pod", 2);
  read_notes(c);
  is_int(note_count, 1, "two kills in pod/c1: one notification");
  is_str(notes[0].meta, "pod/c1", "from pod/c1 (meta data cgroup)");
  is_str(notes[0].message,
         "cgroup pod/c1: 2 processes killed by the OOM killer (memory.max "
         "512.0 MiB, peak 2.0 MiB)",
         "its message names the count and the effective memory.max");
  is_int(notes[0].severity, JC_NOTIF_FAILURE, "severity FAILURE");
  read_notes(c);
  is_int(note_count, 0, "nothing more at the next read");

  /* The parent is read before its child: a kill that the child shows
   * before the parent does is not told twice. */
  events("pod/c2", 1);
  read_notes(c);
  is_int(note_count, 1, "child first: one notification");
  is_str(notes[0].meta, "pod/c2", "from pod/c2");
  events("pod", 3);
  read_notes(c);
  is_int(note_count, 0, "the parent catching up tells nothing");

  /* A kill, then the cgroup is gone before the next read. */
  events("pod/c2", 2);
  events("pod", 4);
  fx_remove("pod/c2");
  read_notes(c);
  is_int(note_count, 1, "a vanished cgroup's kill is not lost");
  is_str(notes[0].message,
         "1 process killed by the OOM killer in a cgroup below pod that no "
         "longer exists",
         "told by its nearest tracked ancestor");
  is_str(notes[0].instance, "pod", "as pod");

  events("pod", 5);
  read_notes(c);
  is_int(note_count, 1, "a kill in pod itself");
  is_str(notes[0].message,
         "cgroup pod: 1 process killed by the OOM killer (memory.max 512.0 "
         "MiB, peak 2.0 MiB)",
         "told by pod, with its own limit");
  jc_collector_free(c);
  fx_cleanup();
}

/* Effective limits: the smallest of the cgroup's and its ancestors'. */
static void test_limits(void) {
  static const char *const all[] = {"**", NULL};
  fx_root("cpu memory pids\n");
  fx_write("cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
  memory_cgroup("slice", "67108864\n", 0);
  fx_write("slice/cpu.max", "50000 100000\n");
  fx_write("slice/memory.high", "max\n");
  memory_cgroup("slice/svc", "max\n", 0);
  fx_write("slice/svc/cpu.max", "200000 100000");
  fx_write("slice/svc/memory.high", "33554432\n");
  fx_write("slice/svc/pids.max", "64\n");
  fx_cgroup("free", 10);
  fx_write("free/memory.current", "4096\n");
  fx_write("free/memory.max", "max\n");
  fx_write("free/cpu.max", "max 100000\n");
  jc_collector *c = start(fx_path(""), all, NULL,
                          JC_COLLECT_CPU | JC_COLLECT_MEMORY |
                              JC_COLLECT_LIMITS | JC_COLLECT_PIDS);
  usleep(30000);
  fx_write("slice/svc/cpu.stat", "usage_usec 15010\nuser_usec 1\nsystem_usec 1\n");
  read_once(c);
  is_near(value("slice_svc/gauge-cpu_limit_cores"), 0.5, 1e-9,
          "cpu.max of the slice (0.5 cores) below the service's own 2");
  is_near(value("slice_svc/memory-max"), 67108864, 0,
          "memory.max inherited from the slice");
  is_near(value("slice_svc/memory-high"), 33554432, 0, "its own memory.high");
  is_near(value("slice_svc/gauge-memory_max_percent"), 100.0 * 1048576 / 67108864,
          1e-9, "gauge-memory_max_percent against the effective memory.max");
  is_near(value("slice_svc/count-pids_max"), 64, 0, "pids.max");
  ok(value("slice_svc/gauge-cpu_limit_percent") > 0,
     "gauge-cpu_limit_percent from the usage rate (%g)",
     value("slice_svc/gauge-cpu_limit_percent"));
  is_near(value("slice_svc/gauge-cpu_limit_percent"),
          100.0 * value("slice_svc/gauge-cpu_cores") / 0.5, 1e-6,
          "= cores busy / 0.5 cores");
  is_near(value("slice/memory-max"), 67108864, 0, "the slice's own");
  ok(!has("slice/memory-high") && !has("slice/count-pids_max"),
     "no memory.high or pids.max where there is none");
  ok(!has("free/memory-max") && !has("free/gauge-cpu_limit_cores") &&
         !has("free/gauge-memory_max_percent") && !has("free/gauge-cpu_limit_percent"),
     "an unlimited cgroup costs no value list");
  ok(!has("root/memory-max"), "the root has no limits");
  is_int(loud_logs(NULL), 0, "no WARNING: limit files are optional");
  fx_write("slice/svc/cpu.max", "fifty 100000\n");
  read_once(c);
  read_once(c);
  is_int(loud_logs("cpu.max is malformed"), 1, "a malformed cpu.max, once");
  jc_collector_free(c);
  fx_cleanup();
}

static void test_init_errors(void) {
  char err[64];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, "/proc", err, sizeof(err));
  jc_config_finish(cfg, err, sizeof(err));
  jc_collector *c = jc_collector_new(cfg, log_cb, NULL);
  log_count = 0;
  is_int(jc_collector_init(c), -EMEDIUMTYPE, "init refuses a non-cgroup2 root");
  ok(log_count == 1 && strstr(logs[0], "is not a cgroup v2 directory"),
     "one line: %s", logs[0]);
  jc_collector_free(c);

  cfg = jc_config_new();
  jc_config_set_root(cfg, "/nonexistent-joule", err, sizeof(err));
  jc_config_finish(cfg, err, sizeof(err));
  c = jc_collector_new(cfg, log_cb, NULL);
  log_count = 0;
  is_int(jc_collector_init(c), -ENOENT, "init refuses a missing root");
  ok(log_count == 1 && strstr(logs[0], "No such file"), "one line: %s",
     logs[0]);
  jc_collector_free(c);
}

int main(void) {
  const char *root = make_tree();
  test_selection(root);
  test_rates_and_churn(root);
  fx_cleanup();
  root = make_tree();
  test_diagnostics(root);
  test_collisions_and_budget(root);
  fx_cleanup();
  test_init_errors();
  test_descriptor_shortage();
  test_energy();
  test_oom();
  test_limits();
  return done_testing();
}
