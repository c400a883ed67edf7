/* Collect "network": the parser of /proc/<pid>/net/dev (jc_netdev) on the
 * column sets of old and new kernels and on malformed lines, and the step
 * (jc_net) on a fixture tree with a /proc of its own: a pod whose two
 * containers share a namespace counted once under the pod, a cgroup in
 * the host's namespace left out, loopback left out, a process gone
 * between cgroup.procs and /proc, an interface that goes and comes back
 * never taking a counter backwards; the files kept open from pass to
 * pass: a namespace read on through its file when the process it was
 * opened through exits, a pid taken by a process of another namespace
 * never read as the old one's, nothing left open, and the same figures
 * with no descriptor to keep. */
#include "fixture_util.h"
#include "jc_collector.h"
#include "jc_config.h"
#include "jc_netdev.h"
#include "jc_netsnmp.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEAD_6X                                                                \
  "Inter-|   Receive                                                |  "     \
  "Transmit\n"                                                                 \
  " face |bytes    packets errs drop fifo frame compressed "                   \
  "multicast|bytes    packets errs drop fifo colls carrier compressed\n"

static int all(const char *text, jc_netdev_iface *out, size_t max,
               size_t *ret_n, int *ret_errors) {
  jc_netdev_cursor cur;
  int r = jc_netdev_begin(&cur, text, strlen(text));
  if (r < 0)
    return r;
  size_t n = 0;
  int errors = 0;
  jc_netdev_iface f;
  while ((r = jc_netdev_next(&cur, &f)) != 0)
    if (r < 0)
      errors++;
    else if (n < max)
      out[n++] = f;
  *ret_n = n;
  *ret_errors = errors;
  return 0;
}

static void test_parse(void) {
  jc_netdev_iface f[8];
  size_t n;
  int errors;
  ok(all(HEAD_6X
         "    lo:    1000      10    0    0    0     0          0         0"
         "     1000      10    0    0    0     0       0          0\n"
         "  eth0: 312600     300    1    2    0     0          0         0"
         "   108400     200    3    4    0     0       0          0\n",
         f, 8, &n, &errors) == 0 && n == 2 && errors == 0,
     "a 6.x net/dev: two interfaces");
  is_str(f[1].name, "eth0", "its name");
  ok(f[1].v[JC_NETDEV_RX_BYTES] == 312600 && f[1].v[JC_NETDEV_RX_PACKETS] == 300 &&
         f[1].v[JC_NETDEV_RX_ERRS] == 1 && f[1].v[JC_NETDEV_RX_DROP] == 2 &&
         f[1].v[JC_NETDEV_TX_BYTES] == 108400 &&
         f[1].v[JC_NETDEV_TX_PACKETS] == 200 && f[1].v[JC_NETDEV_TX_ERRS] == 3 &&
         f[1].v[JC_NETDEV_TX_DROP] == 4,
     "its rx and tx bytes, packets, errs, drop");
  /* Before 2.6 a name and its first value had no space between. */
  ok(all(HEAD_6X "eth0:5 1 0 0 0 0 0 0 6 2 0 0 0 0 0 0\n", f, 8, &n,
         &errors) == 0 && n == 1 && f[0].v[JC_NETDEV_RX_BYTES] == 5 &&
         f[0].v[JC_NETDEV_TX_BYTES] == 6,
     "no space after the colon (old kernels)");
  /* A shorter set, columns found by name wherever they are. */
  ok(all("Inter-|Receive|Transmit\n face |packets bytes drop errs|drop errs "
         "bytes packets\nveth1: 7 700 1 2 3 4 900 9\n",
         f, 8, &n, &errors) == 0 && n == 1 &&
         f[0].v[JC_NETDEV_RX_BYTES] == 700 && f[0].v[JC_NETDEV_RX_PACKETS] == 7 &&
         f[0].v[JC_NETDEV_RX_DROP] == 1 && f[0].v[JC_NETDEV_RX_ERRS] == 2 &&
         f[0].v[JC_NETDEV_TX_DROP] == 3 && f[0].v[JC_NETDEV_TX_ERRS] == 4 &&
         f[0].v[JC_NETDEV_TX_BYTES] == 900 && f[0].v[JC_NETDEV_TX_PACKETS] == 9,
     "another column set and order: read by the header's names");
  ok(all("Inter-|Receive|Transmit\n face |packets errs|packets errs\n", f, 8,
         &n, &errors) == -EBADMSG,
     "a header without bytes: -EBADMSG");
  ok(all("", f, 8, &n, &errors) == -EBADMSG, "empty: -EBADMSG");
  ok(all("garbage\n", f, 8, &n, &errors) == -EBADMSG, "no header: -EBADMSG");

  char long_line[2048];
  memset(long_line, '1', sizeof(long_line));
  memcpy(long_line, "eth9: ", 6);
  long_line[sizeof(long_line) - 2] = '\n';
  long_line[sizeof(long_line) - 1] = '\0';
  const struct {
    const char *line;
    int err;
    const char *what;
  } bad[] = {
      {"eth1 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n", -EBADMSG, "no colon"},
      {": 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n", -EBADMSG, "no name"},
      {"abcdefghijklmnop: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n", -ENAMETOOLONG,
       "a name of 16 bytes"},
      {"eth1: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0\n", -EBADMSG, "a value missing"},
      {"eth1: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0 0\n", -EBADMSG, "a value more"},
      {"eth1: 1 x 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n", -EBADMSG, "not a number"},
      {"eth1: -1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n", -EBADMSG, "negative"},
      {"eth1: 9223372036854775808 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n",
       -EOVERFLOW, "past a DERIVE"},
      {"eth1: 99999999999999999999 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n",
       -EOVERFLOW, "past 2^64"},
      {long_line, -E2BIG, "a line of 2 KiB"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
    char text[4096];
    snprintf(text, sizeof(text), HEAD_6X "%s  eth0: 3 1 0 0 0 0 0 0 4 1 0 0 0 0 0 0\n",
             bad[i].line);
    jc_netdev_cursor cur;
    jc_netdev_iface g = {"untouched", {0}};
    jc_netdev_begin(&cur, text, strlen(text));
    int r = jc_netdev_next(&cur, &g);
    int r2 = jc_netdev_next(&cur, &g);
    ok(r == bad[i].err && r2 == 1 && strcmp(g.name, "eth0") == 0 &&
           g.v[JC_NETDEV_TX_BYTES] == 4,
       "%s: %d, skipped, the next line read", bad[i].what, r);
  }
  ok(all(HEAD_6X "we\"ird\x01: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0", f, 8, &n,
         &errors) == 0 && n == 1 && strcmp(f[0].name, "we\"ird\x01") == 0,
     "an odd name, no newline at the end: read as written");
}

/* ---- the step on a fixture tree --------------------------------------------- */

#define SENT_MAX 2048
static struct {
  char instance[128], type[32], ti[32];
  int64_t rx, tx;
} sent[SENT_MAX];
static size_t sent_count;
static char logged[8192];

static void log_cb(void *ctx, int level, const char *msg) {
  (void)ctx;
  size_t n = strlen(logged);
  snprintf(logged + n, sizeof(logged) - n, "%d %s\n", level, msg);
}

static void collect_cb(void *ctx, const jc_target *t, const jc_metric *m) {
  (void)ctx;
  if ((strncmp(m->type, "if_", 3) != 0 &&
       strcmp(m->type, "protocol_counter") != 0) ||
      sent_count == SENT_MAX)
    return;
  snprintf(sent[sent_count].instance, sizeof(sent[0].instance), "%s",
           t->instance);
  snprintf(sent[sent_count].type, sizeof(sent[0].type), "%s", m->type);
  snprintf(sent[sent_count].ti, sizeof(sent[0].ti), "%s", m->type_instance);
  sent[sent_count].rx = m->derive[0];
  sent[sent_count].tx = m->derive[1];
  sent_count++;
}

static int find(const char *instance, const char *type, const char *ti) {
  for (size_t i = 0; i < sent_count; i++)
    if (!strcmp(sent[i].instance, instance) && !strcmp(sent[i].type, type) &&
        !strcmp(sent[i].ti, ti))
      return (int)i;
  return -1;
}

static size_t count_of(const char *instance) {
  size_t n = 0;
  for (size_t i = 0; i < sent_count; i++)
    n += !strcmp(sent[i].instance, instance);
  return n;
}

/* pid in the fixture's /proc: its namespace, cgroup and net/dev. */
static void proc_pid(int pid, unsigned ns, const char *cgroup,
                     const char *netdev) {
  char rel[64], target[32];
  snprintf(rel, sizeof(rel), "proc/%d/ns", pid);
  fx_mkdirs(rel);
  snprintf(rel, sizeof(rel), "proc/%d/ns/net", pid);
  snprintf(target, sizeof(target), "net:[%u]", ns);
  fx_symlink(target, rel);
  snprintf(rel, sizeof(rel), "proc/%d/net", pid);
  fx_mkdirs(rel);
  snprintf(rel, sizeof(rel), "proc/%d/cgroup", pid);
  fx_writef(rel, "0::/%s\n", cgroup);
  if (netdev) {
    snprintf(rel, sizeof(rel), "proc/%d/net/dev", pid);
    fx_write(rel, netdev);
  }
}

static void netdev(int pid, unsigned long long rx, unsigned long long tx,
                   bool with_eth0) {
  char rel[64];
  snprintf(rel, sizeof(rel), "proc/%d/net/dev", pid);
  fx_writef(rel,
            HEAD_6X "    lo: 50 5 0 0 0 0 0 0 50 5 0 0 0 0 0 0\n%s",
            "");
  if (with_eth0) {
    char line[256];
    snprintf(line, sizeof(line),
             "  eth0: %llu 10 0 1 0 0 0 0 %llu 20 0 0 0 0 0 0\n", rx, tx);
    fx_append(rel, line);
  }
}

static const char *values_pattern; /* a Values pattern too, or NULL */
static long max_open = -1;         /* MaxOpenFiles, or -1 */

static jc_collector *start(void) {
  char err[256];
  jc_config *cfg = jc_config_new();
  jc_config_set_root(cfg, fx_path("cg"), err, sizeof(err));
  jc_config_set_proc_root(cfg, fx_path("proc"), err, sizeof(err));
  jc_config_add_pattern(cfg, false, "**", err, sizeof(err));
  cfg->report_root = false;
  jc_config_add_collect(cfg, "cpu", err, sizeof(err));
  jc_config_add_collect(cfg, "network", err, sizeof(err));
  if (values_pattern)
    jc_config_add_values(cfg, values_pattern, err, sizeof(err));
  if (max_open >= 0)
    jc_config_set_max_open_files(cfg, (double)max_open, err, sizeof(err));
  if (jc_config_finish(cfg, err, sizeof(err)) < 0) {
    printf("# config: %s\n", err);
    return NULL;
  }
  jc_collector *c = jc_collector_new(cfg, log_cb, NULL);
  if (jc_collector_init(c) < 0) {
    printf("# %s\n", logged);
    jc_collector_free(c);
    return NULL;
  }
  return c;
}

static void pass(jc_collector *c) {
  sent_count = 0;
  jc_collector_read(c, collect_cb, NULL);
}

/* A collector on the fixture, the log emptied first, and its first pass;
 * NULL when init failed (said). */
static jc_collector *start_and_pass(void) {
  logged[0] = '\0';
  jc_collector *c = start();
  ok(c != NULL, "init");
  if (c)
    pass(c);
  return c;
}

static void test_step(void) {
  fx_tmpdir();
  fx_mkdir("cg");
  fx_write("cg/cgroup.controllers", "cpu\n");
  fx_cgroup("cg/pod", 1000);
  fx_cgroup("cg/pod/a", 1000);
  fx_cgroup("cg/pod/b", 1000);
  fx_cgroup("cg/solo", 1000);
  fx_cgroup("cg/svc", 1000);
  fx_write("cg/pod/cgroup.procs", "");
  fx_write("cg/pod/a/cgroup.procs", "99\n11\n"); /* 99 exited */
  fx_write("cg/pod/b/cgroup.procs", "12\n");
  fx_write("cg/solo/cgroup.procs", "13\n");
  fx_write("cg/svc/cgroup.procs", "14\n");
  fx_cgroup("cg/hidden", 1000); /* in a PID namespace not collectd's */
  fx_write("cg/hidden/cgroup.procs", "0\n0\n");
  proc_pid(1, 1000, "init.scope", NULL);
  proc_pid(11, 2000, "pod/a", NULL);
  proc_pid(12, 2000, "pod/b", NULL);
  proc_pid(13, 3000, "solo", NULL);
  proc_pid(14, 1000, "svc", NULL);
  netdev(11, 1000, 2000, true);
  netdev(12, 1000, 2000, true);
  netdev(13, 7, 8, true);
  netdev(14, 123456, 654321, true);

  jc_collector *c = start();
  ok(c != NULL, "init with Collect network and a /proc of the fixture's");
  if (!c)
    return;
  pass(c);
  int i = find("pod", "if_octets", "eth0");
  ok(i >= 0 && sent[i].rx == 1000 && sent[i].tx == 2000,
     "the pod's eth0: rx 1000, tx 2000, under the pod");
  i = find("pod", "if_dropped", "eth0");
  ok(i >= 0 && sent[i].rx == 1 && sent[i].tx == 0, "its if_dropped 1, 0");
  ok(find("pod", "if_packets", "eth0") >= 0 && find("pod", "if_errors", "eth0") >= 0,
     "its if_packets and if_errors");
  is_int((int)count_of("pod"), 4, "the pod: 4 lists, loopback left out");
  is_int((int)(count_of("pod_a") + count_of("pod_b")), 0,
         "its containers: none (counted once)");
  i = find("solo", "if_octets", "eth0");
  ok(i >= 0 && sent[i].rx == 7 && sent[i].tx == 8, "a namespace of its own: under itself");
  is_int((int)count_of("svc"), 0, "the host's namespace: nothing");
  ok(strstr(logged, "cgroups in the host's network namespace") != NULL,
     "said at INFO");
  const char *hid = strstr(logged, "lists processes that");
  ok(hid && strstr(hid, "hostPID") && !strstr(hid + 1, "lists processes that"),
     "pids this /proc does not have: said once, with the remedy");
  pass(c);
  hid = strstr(logged, "lists processes that");
  ok(hid && !strstr(hid + 1, "lists processes that"), "not again at the next read");

  /* The veth made again: lower counters are new ones, added. */
  netdev(11, 300, 400, true);
  pass(c);
  i = find("pod", "if_octets", "eth0");
  ok(i >= 0 && sent[i].rx == 1300 && sent[i].tx == 2400,
     "counters lower than before: a new interface, added (1300, 2400)");
  /* Gone for a read, then back with more than before. */
  netdev(11, 0, 0, false);
  pass(c);
  is_int(find("pod", "if_octets", "eth0"), -1, "gone: not sent");
  netdev(11, 5000, 6000, true);
  pass(c);
  i = find("pod", "if_octets", "eth0");
  ok(i >= 0 && sent[i].rx == 6300 && sent[i].tx == 8400,
     "back: its counters start from 0 again (6300, 8400), never backwards");

  /* Process 11 leaves pod/a: the lookup goes to cgroup.procs again. */
  fx_write("cg/pod/a/cgroup.procs", "15\n");
  proc_pid(15, 2000, "pod/a", NULL);
  fx_writef("proc/11/cgroup", "0::/elsewhere\n");
  netdev(15, 5000, 6000, true);
  netdev(12, 5000, 6000, true);
  pass(c);
  i = find("pod", "if_octets", "eth0");
  ok(i >= 0 && sent[i].rx == 6300 && sent[i].tx == 8400,
     "a process gone from its cgroup: another found, the same namespace");
  jc_collector_free(c);
  fx_cleanup();
}

/* This process's open descriptors. */
static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  if (!d)
    return -1;
  while (readdir(d))
    n++;
  closedir(d);
  return n - 3; /* . .. and d's own */
}

/* Another name of file from (one namespace: one file, as the kernel's). */
static void same_file(const char *from, const char *to) {
  char a[512];
  snprintf(a, sizeof(a), "%s", fx_path(from));
  if (link(a, fx_path(to)) < 0)
    perror("link");
}

static bool eth0_is(const char *instance, int64_t rx, int64_t tx) {
  int i = find(instance, "if_octets", "eth0");
  return i >= 0 && sent[i].rx == rx && sent[i].tx == tx;
}

/* A pod (pause 11, app 12: one namespace, 2000) and a container of its
 * own (13, namespace 3000). */
static void kept_tree(void) {
  fx_tmpdir();
  fx_mkdir("cg");
  fx_write("cg/cgroup.controllers", "cpu\n");
  fx_cgroup("cg/pod", 1000);
  fx_cgroup("cg/pod/pause", 1000);
  fx_cgroup("cg/pod/app", 1000);
  fx_cgroup("cg/solo", 1000);
  fx_write("cg/pod/pause/cgroup.procs", "11\n");
  fx_write("cg/pod/app/cgroup.procs", "12\n");
  fx_write("cg/solo/cgroup.procs", "13\n");
  proc_pid(1, 1000, "init.scope", NULL);
  proc_pid(11, 2000, "pod/pause", NULL);
  proc_pid(12, 2000, "pod/app", NULL);
  proc_pid(13, 3000, "solo", NULL);
  netdev(11, 100, 200, true);
  same_file("proc/11/net/dev", "proc/12/net/dev");
  netdev(13, 7, 8, true);
}

/* The files kept open: the namespace's /proc/<pid>/net/dev (a file that
 * holds the namespace, whatever becomes of the process) and each
 * cgroup's cgroup.procs, read again from their start at each pass. */
static void test_kept(void) {
  kept_tree();
  int fds0 = open_fds();
  jc_collector *c = start_and_pass();
  if (!c)
    return;
  ok(eth0_is("pod", 100, 200) && eth0_is("solo", 7, 8),
     "the pod's eth0 100, 200 and the solo container's 7, 8");
  jc_collector_stats st;
  jc_collector_get_stats(c, &st);
  long kept = st.fds_kept;
  netdev(12, 130, 230, true);
  netdev(13, 9, 10, true);
  pass(c);
  ok(eth0_is("pod", 130, 230) && eth0_is("solo", 9, 10),
     "the next pass reads the files kept open anew (130, 230; 9, 10)");
  jc_collector_get_stats(c, &st);
  ok(st.fds_kept == kept && kept == 10,
     "kept in the descriptor budget: %ld (4 cgroup.procs, 2 net/dev, 4 "
     "cpu.stat), the same at the next pass",
     kept);

  /* The pause process exits; another process of its cgroup, in the same
   * namespace, is found.  The namespace is read on through its file. */
  fx_remove("proc/11");
  proc_pid(16, 2000, "pod/pause", NULL);
  same_file("proc/12/net/dev", "proc/16/net/dev");
  fx_write("cg/pod/pause/cgroup.procs", "16\n");
  netdev(12, 150, 260, true);
  pass(c);
  ok(eth0_is("pod", 150, 260) && count_of("pod_pause") == 0,
     "the process it was found through exited: another found, the pod's "
     "eth0 goes on (150, 260), under the pod");

  /* pid 13 exits and is taken by a process of another namespace in
   * another cgroup: the solo container lists none. */
  fx_remove("proc/13");
  proc_pid(13, 9000, "elsewhere", NULL);
  netdev(13, 5555, 6666, true);
  fx_write("cg/solo/cgroup.procs", "");
  int before = open_fds();
  pass(c);
  is_int((int)count_of("solo"), 0,
         "its pid taken by a process of another namespace and cgroup: "
         "nothing under the container, never that namespace's figures");
  ok(open_fds() == before - 1,
     "the old namespace's file closed at that pass (%d open, %d before)",
     open_fds(), before);

  /* That process joins the container: its namespace is another, whose
   * counters add to the old ones, never taken for theirs. */
  fx_writef("proc/13/cgroup", "0::/solo\n");
  fx_write("cg/solo/cgroup.procs", "13\n");
  pass(c);
  ok(eth0_is("solo", 7 + 2 + 5555, 8 + 2 + 6666),
     "a process of another namespace in it: a new namespace, its counters "
     "added (5564, 6676)");
  /* And its pid taken again, by one of a third namespace, between two
   * passes, cgroup.procs the same. */
  fx_remove("proc/13");
  proc_pid(13, 9100, "solo", NULL);
  netdev(13, 1, 2, true);
  pass(c);
  ok(eth0_is("solo", 5564 + 1, 6676 + 2),
     "its pid taken by a process of a third namespace, listed the same: "
     "read as that one (5565, 6678), never through the file of the one "
     "before");
  /* The same process, alive, enters a fourth namespace (setns, as `ip
   * netns exec` does): seen at the next pass. */
  fx_remove("proc/13/ns/net");
  fx_symlink("net:[9200]", "proc/13/ns/net");
  netdev(13, 40, 50, true);
  pass(c);
  ok(eth0_is("solo", 5565 + 40, 6678 + 50),
     "the same process in another namespace: a new one, its counters "
     "added (5605, 6728)");
  jc_collector_free(c);
  is_int(open_fds(), fds0, "no descriptor left open after the collector");
  fx_cleanup();

  /* MaxOpenFiles 0: nothing kept, the same figures. */
  kept_tree();
  max_open = 0;
  c = start();
  max_open = -1;
  ok(c != NULL, "init with MaxOpenFiles 0");
  if (!c)
    return;
  pass(c);
  netdev(12, 130, 230, true);
  pass(c);
  jc_collector_get_stats(c, &st);
  ok(eth0_is("pod", 130, 230) && eth0_is("solo", 7, 8) && st.fds_kept == 0,
     "no descriptor to keep: the files opened at each pass, the same "
     "figures (130, 230; 7, 8)");
  jc_collector_free(c);
  fx_cleanup();
}

/* Thousands of interfaces and an odd name: bounded, said once, the
 * first sent. */
static void test_many(void) {
  fx_tmpdir();
  fx_mkdir("cg");
  fx_write("cg/cgroup.controllers", "cpu\n");
  fx_cgroup("cg/big", 1000);
  fx_write("cg/big/cgroup.procs", "21\n");
  proc_pid(1, 1000, "init.scope", NULL);
  proc_pid(21, 4000, "big", NULL);
  fx_write("proc/21/net/dev", HEAD_6X "odd\"x: 1 1 0 0 0 0 0 0 2 2 0 0 0 0 0 0\n");
  for (int i = 0; i < 3000; i++) {
    char line[128];
    snprintf(line, sizeof(line), "v%d: %d 1 0 0 0 0 0 0 %d 1 0 0 0 0 0 0\n", i,
             i, i);
    fx_append("proc/21/net/dev", line);
  }
  jc_collector *c = start_and_pass();
  if (!c)
    return;
  pass(c);
  is_int((int)count_of("big"), 4 * 256, "3001 interfaces: the first 256 sent");
  int i = find("big", "if_octets", "odd_x");
  ok(i >= 0 && sent[i].rx == 1 && sent[i].tx == 2, "odd\"x sent as odd_x");
  const char *w = strstr(logged, "more than 256 interfaces");
  ok(w && strstr(logged, "cgroup big") && !strstr(w + 1, "more than 256"),
     "one WARNING names the cgroup");
  ok(strstr(logged, "interface \"odd\\x22x\" of") == NULL &&
         strstr(logged, "is sent as \"odd_x\"") != NULL,
     "one INFO for the odd name");
  jc_collector_free(c);
  fx_cleanup();
}

#define SNMP_6X                                                                \
  "Ip: Forwarding DefaultTTL\nIp: 1 64\n"                                      \
  "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens RetransSegs InErrs\n"   \
  "Tcp: 1 200 120000 -1 1862 %d 0\n"                                          \
  "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors\n"             \
  "Udp: 685 3 0 2089 %d\n"

static void test_snmp(void) {
  char text[512];
  uint64_t v = 7;
  snprintf(text, sizeof(text), SNMP_6X, 12, 3);
  ok(jc_netsnmp_find(text, strlen(text), "Tcp", "RetransSegs", &v) == 0 &&
         v == 12,
     "Tcp RetransSegs beside MaxConn -1");
  ok(jc_netsnmp_find(text, strlen(text), "Udp", "RcvbufErrors", &v) == 0 &&
         v == 3,
     "Udp RcvbufErrors, the last column, no newline needed");
  v = 7;
  ok(jc_netsnmp_find(text, strlen(text), "Udp", "MemErrors", &v) == -ENOENT &&
         v == 7,
     "a column an older kernel lacks: -ENOENT, untouched");
  ok(jc_netsnmp_find(text, strlen(text), "TcpExt", "ListenDrops", &v) ==
         -ENOENT,
     "a section it lacks: -ENOENT");
  const char *cut = "Tcp: RtoAlgorithm RetransSegs\nTcp: 1\n";
  ok(jc_netsnmp_find(cut, strlen(cut), "Tcp", "RetransSegs", &v) == -EBADMSG,
     "a value missing: -EBADMSG");
  /* A section as wide as TcpExt (more than a hundred columns on 6.x),
   * the wanted one last, a value line with a column fewer than names. */
  char wide[4096], wide_values[2048];
  size_t at = (size_t)snprintf(wide, sizeof(wide), "TcpExt:");
  size_t vat = (size_t)snprintf(wide_values, sizeof(wide_values), "TcpExt:");
  for (int i = 0; i < 120; i++) {
    at += (size_t)snprintf(wide + at, sizeof(wide) - at, " Col%d", i);
    vat += (size_t)snprintf(wide_values + vat, sizeof(wide_values) - vat,
                            "  %d", 1000 + i);
  }
  at += (size_t)snprintf(wide + at, sizeof(wide) - at, " Extra\n%s\n",
                         wide_values);
  ok(jc_netsnmp_find(wide, at, "TcpExt", "Col119", &v) == 0 && v == 1119,
     "the last of 120 columns, two spaces between values");
  ok(jc_netsnmp_find(wide, at, "TcpExt", "Col0", &v) == 0 && v == 1000,
     "the first of them");
  ok(jc_netsnmp_find(wide, at, "TcpExt", "Extra", &v) == -EBADMSG,
     "a name past the last value: -EBADMSG");
  const char *neg = "Tcp: RetransSegs\nTcp: -1\n";
  ok(jc_netsnmp_find(neg, strlen(neg), "Tcp", "RetransSegs", &v) == -EBADMSG,
     "negative where a counter is: -EBADMSG");

  /* The step: opt-in lists of the owner, never backwards. */
  fx_tmpdir();
  fx_mkdir("cg");
  fx_write("cg/cgroup.controllers", "cpu\n");
  fx_cgroup("cg/box", 1000);
  fx_write("cg/box/cgroup.procs", "31\n");
  proc_pid(1, 1000, "init.scope", NULL);
  proc_pid(31, 5000, "box", NULL);
  netdev(31, 10, 20, true);
  fx_writef("proc/31/net/snmp", SNMP_6X, 40, 2);
  fx_write("proc/31/net/netstat",
           "TcpExt: SyncookiesSent ListenOverflows ListenDrops\n"
           "TcpExt: 0 5 6\n");
  values_pattern = "protocol_counter-*";
  logged[0] = '\0';
  jc_collector *c = start();
  values_pattern = NULL;
  ok(c != NULL, "init with Values \"protocol_counter-*\"");
  if (!c)
    return;
  pass(c);
  int i = find("box", "protocol_counter", "Tcp_RetransSegs");
  int j = find("box", "protocol_counter", "TcpExt_ListenOverflows");
  int k = find("box", "protocol_counter", "TcpExt_ListenDrops");
  int u = find("box", "protocol_counter", "Udp_RcvbufErrors");
  ok(i >= 0 && sent[i].rx == 40 && j >= 0 && sent[j].rx == 5 && k >= 0 &&
         sent[k].rx == 6 && u >= 0 && sent[u].rx == 2,
     "RetransSegs 40, ListenOverflows 5, ListenDrops 6, RcvbufErrors 2");
  fx_writef("proc/31/net/snmp", SNMP_6X, 45, 2);
  pass(c);
  i = find("box", "protocol_counter", "Tcp_RetransSegs");
  ok(i >= 0 && sent[i].rx == 45, "it grows with the kernel's (45)");
  jc_collector_free(c);
  fx_cleanup();
}

/* Not ours to read: one INFO, the group off, the rest read. */
static void test_no_permission(void) {
  fx_tmpdir();
  fx_mkdir("cg");
  fx_write("cg/cgroup.controllers", "cpu\n");
  fx_cgroup("cg/x", 1000);
  fx_mkdirs("proc");
  logged[0] = '\0';
  jc_collector *c = start();
  ok(c != NULL, "init without a readable /proc/1/ns/net");
  ok(strstr(logged, "Collect \"network\" is off") != NULL,
     "one INFO: the group is off");
  if (c) {
    pass(c);
    is_int((int)sent_count, 0, "no network list, no crash");
    jc_collector_free(c);
  }
  fx_cleanup();
}

int main(void) {
  test_parse();
  test_step();
  test_kept();
  test_many();
  test_snmp();
  test_no_permission();
  return done_testing();
}
