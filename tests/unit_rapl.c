/* jc_rapl on copies of the powercap fixture trees (tests/fixtures/powercap),
 * whose energy_uj files the test rewrites between reads: zones found as
 * real hosts lay them out (two-socket Intel, AMD, a laptop with psys and a
 * duplicate intel-rapl-mmio zone, a server with psys between its
 * packages), exact joules and watts computed here from the counters
 * written and the ranges in the trees, a wrap in mid-run, intervals that
 * may hold two wraps dropped by each zone's own maximum power, subzones
 * never added to their package, failing reads said once, an unreadable
 * zone (EACCES: mode 0000 for a reader that is not root) and a missing
 * tree, each said in one line. */
#include "fixture_util.h"
#include "jc_rapl.h"
#include "tap.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SEC UINT64_C(1000000000)

/* ---- the trees ------------------------------------------------------------ */

static const char *tmp; /* fx_tmpdir's, readable by all (main) */

/* A copy of fixture tree `name`; returns its powercap root. */
static const char *tree(const char *name) {
  static char root[PATH_MAX];
  char src[PATH_MAX];
  snprintf(src, sizeof(src), "tests/fixtures/powercap/%s", name);
  fx_copy(src, name);
  snprintf(root, sizeof(root), "%s/%s/sys/class/powercap", tmp, name);
  return root;
}

static const char *zone_file(const char *root, const char *id, const char *file) {
  static char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/%s/%s", root, id, file);
  return path;
}

/* Rewrites a file of a zone in place (the module keeps energy_uj open). */
static void put(const char *root, const char *id, const char *file,
                const char *text) {
  int fd = open(zone_file(root, id, file), O_WRONLY | O_TRUNC);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
    perror(zone_file(root, id, file)), exit(1);
  close(fd);
}

static void set_energy(const char *root, const char *id, uint64_t uj) {
  char text[32];
  snprintf(text, sizeof(text), "%llu\n", (unsigned long long)uj);
  put(root, id, "energy_uj", text);
}

/* A number as the fixture holds it (ranges, limits, counters). */
static uint64_t number(const char *root, const char *id, const char *file) {
  char buf[64] = "";
  int fd = open(zone_file(root, id, file), O_RDONLY);
  ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
  if (fd >= 0)
    close(fd);
  if (len <= 0)
    return 0;
  return strtoull(buf, NULL, 10);
}

/* ---- what the module says --------------------------------------------------- */

typedef struct {
  int lines[8]; /* by level */
  char last[1024];
} said_t;
static said_t said;

static void record(void *ctx, int level, const char *msg) {
  (void)ctx;
  said.lines[level & 7]++;
  snprintf(said.last, sizeof(said.last), "%s", msg);
}
static const jc_log recorder = {record, NULL};

static int info_lines(void) { return said.lines[JC_LOG_INFO]; }
static int debug_lines(void) { return said.lines[JC_LOG_DEBUG]; }
static int loud_lines(void) {
  return said.lines[JC_LOG_ERR] + said.lines[JC_LOG_WARNING] +
         said.lines[JC_LOG_NOTICE];
}

static jc_rapl *open_at(const char *root) {
  memset(&said, 0, sizeof(said));
  jc_rapl *r = NULL;
  if (jc_rapl_open(root, &recorder, &r) < 0 || !r)
    fprintf(stderr, "jc_rapl_open: out of memory\n"), exit(1);
  return r;
}

static int find(const jc_rapl *r, const char *id) {
  for (size_t i = 0; i < jc_rapl_zone_count(r); i++)
    if (strcmp(jc_rapl_zone_at(r, i)->id, id) == 0)
      return (int)i;
  return -1;
}

static const jc_rapl_energy *energy(const jc_rapl *r, const char *id) {
  return jc_rapl_energy_of(r, (size_t)find(r, id));
}

/* The ids in order, "a b c". */
static const char *ids(const jc_rapl *r) {
  static char buf[512];
  buf[0] = '\0';
  for (size_t i = 0; i < jc_rapl_zone_count(r); i++)
    snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "",
             jc_rapl_zone_at(r, i)->id);
  return buf;
}

static const char *labels(const jc_rapl *r) {
  static char buf[512];
  buf[0] = '\0';
  for (size_t i = 0; i < jc_rapl_zone_count(r); i++)
    snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "",
             jc_rapl_zone_at(r, i)->label);
  return buf;
}

/* ---- the two-socket Intel server -------------------------------------------- */

/* Twice the largest constraint value of a zone, as the header says. */
static uint64_t bound_of(const char *root, const char *id) {
  uint64_t most = 0;
  static const char *const files[] = {
      "constraint_0_max_power_uw", "constraint_0_power_limit_uw",
      "constraint_1_max_power_uw", "constraint_1_power_limit_uw"};
  for (size_t i = 0; i < 4; i++) {
    uint64_t v = number(root, id, files[i]);
    most = v > most ? v : most;
  }
  return 2 * most;
}

static void test_xeon_layout(void) {
  const char *root = tree("intel-xeon-2s");
  jc_rapl *r = open_at(root);
  ok(jc_rapl_state_of(r) == JC_RAPL_READY, "xeon: ready");
  is_str(ids(r), "intel-rapl:0 intel-rapl:0:0 intel-rapl:0:1 intel-rapl:1 "
                 "intel-rapl:1:0 intel-rapl:1:1",
         "xeon: six zones in id order (the control type intel-rapl is no zone)");
  is_str(labels(r), "package-0 package-0-core package-0-dram package-1 "
                    "package-1-core package-1-dram",
         "xeon: labels unique per socket");
  const jc_rapl_zone *dram = jc_rapl_zone_at(r, 5);
  ok(dram->kind == JC_RAPL_DRAM && dram->package == 3 &&
         jc_rapl_zone_at(r, 4)->kind == JC_RAPL_CORE &&
         jc_rapl_zone_at(r, 3)->kind == JC_RAPL_PACKAGE &&
         jc_rapl_zone_at(r, 3)->package == -1,
     "xeon: kinds, and each subzone knows its package");
  is_u64(dram->range_uj, number(root, "intel-rapl:1:1", "max_energy_range_uj"),
         "xeon: dram's range is its own (65532610987, not the package's)");
  uint64_t pkg_bound = bound_of(root, "intel-rapl:0");
  is_u64(pkg_bound, 300000000, "xeon: package bound by hand: 2 x short_term 150 W");
  is_u64(jc_rapl_zone_at(r, 0)->max_power_uw, pkg_bound,
         "xeon: package max power from its constraints");
  ok(jc_rapl_zone_at(r, 0)->power_source == JC_RAPL_POWER_CONSTRAINT,
     "... source: constraint");
  ok(jc_rapl_zone_at(r, 1)->max_power_uw == pkg_bound &&
         jc_rapl_zone_at(r, 1)->power_source == JC_RAPL_POWER_PACKAGE,
     "xeon: core (power_limit 0, no max_power) takes its package's");
  ok(dram->max_power_uw == bound_of(root, "intel-rapl:1:1") &&
         dram->max_power_uw == 78000000 &&
         dram->power_source == JC_RAPL_POWER_CONSTRAINT,
     "xeon: dram's own: 2 x max_power 39 W");
  is_int(info_lines() + loud_lines(), 0, "xeon: nothing said");
  jc_rapl_free(r);
}

static void test_xeon_counting(void) {
  const char *root = tree("intel-xeon-2s");
  uint64_t range_pkg = number(root, "intel-rapl:0", "max_energy_range_uj");
  uint64_t range_dram = number(root, "intel-rapl:0:1", "max_energy_range_uj");
  /* Before the first read: package-0's dram 3 J below its range. */
  uint64_t pkg0 = number(root, "intel-rapl:0", "energy_uj");
  uint64_t core0 = number(root, "intel-rapl:0:0", "energy_uj");
  uint64_t dram0 = range_dram - 3000000;
  set_energy(root, "intel-rapl:0:1", dram0);
  jc_rapl *r = open_at(root);
  uint64_t t = 1000 * SEC;
  jc_rapl_read(r, t);
  const jc_rapl_energy *p = energy(r, "intel-rapl:0");
  ok(p->read && !p->fresh && p->total_uj == 0 && p->gaps == 0,
     "first read: a baseline, no energy yet");

  /* 1.5 s later: package +45.123456 J, core +20 J, dram wrapped to 2 J. */
  set_energy(root, "intel-rapl:0", pkg0 + 45123456);
  set_energy(root, "intel-rapl:0:0", core0 + 20000000);
  set_energy(root, "intel-rapl:0:1", 2000000);
  t += 3 * SEC / 2;
  jc_rapl_read(r, t);
  ok(p->fresh && p->energy_uj == 45123456 && p->interval_ns == 3 * SEC / 2,
     "package-0: 45123456 uJ in 1.5 s (%llu)", (unsigned long long)p->energy_uj);
  is_near(jc_rapl_watts(p), 45.123456 / 1.5, 1e-9, "package-0: 30.082304 W");
  is_u64(energy(r, "intel-rapl:0:0")->energy_uj, 20000000,
         "core: 20 J, and the package's figure does not add it (45.123456 J)");
  uint64_t wrapped = (range_dram - dram0) + 2000000;
  is_u64(wrapped, 5000000, "the wrap by hand: (range - previous) + current = 5 J");
  const jc_rapl_energy *d = energy(r, "intel-rapl:0:1");
  ok(d->fresh && d->energy_uj == wrapped, "dram: the wrap counted once: %llu uJ",
     (unsigned long long)d->energy_uj);
  is_near(jc_rapl_watts(d), 5.0 / 1.5, 1e-9, "dram: 3.333 W over the wrap");
  const jc_rapl_energy *idle = energy(r, "intel-rapl:1");
  ok(idle->fresh && idle->energy_uj == 0 && jc_rapl_watts(idle) == 0,
     "package-1 untouched: 0 J, 0 W");

  /* 850 s: within package-0's wrap time (range / 300 W = 873.8 s), beyond
   * its dram's (range / 78 W = 840.2 s). */
  double pkg_wrap_s = (double)range_pkg / 300e6, dram_wrap_s = (double)range_dram / 78e6;
  ok(850 < pkg_wrap_s && 850 > dram_wrap_s,
     "by hand: 840.2 s (dram) < 850 s < 873.8 s (package)");
  set_energy(root, "intel-rapl:0", pkg0 + 45123456 + 100000000000);
  set_energy(root, "intel-rapl:0:1", 40000000000);
  t += 850 * SEC;
  jc_rapl_read(r, t);
  is_u64(p->energy_uj, 100000000000, "package-0 after 850 s: 100 kJ kept");
  ok(!d->fresh && d->read && d->gaps == 1 && d->total_uj == wrapped,
     "dram after 850 s: dropped (may hold two wraps), one gap, total unchanged");
  is_int(debug_lines(), 2, "one DEBUG line per dropped zone: both drams");
  ok(strstr(said.last, "more than one wrap") != NULL, "... saying why: %s", said.last);

  /* 1 s later the dram counts again from the value it read then. */
  set_energy(root, "intel-rapl:0:1", 40000000000 + 1234567);
  t += SEC;
  jc_rapl_read(r, t);
  ok(d->fresh && d->energy_uj == 1234567 && d->gaps == 1,
     "dram: counted from the dropped interval's end: 1234567 uJ");
  is_u64(p->total_uj, 45123456 + 100000000000ull, "package-0 total: every kept interval");

  /* 900 s: beyond every zone's wrap time. */
  t += 900 * SEC;
  jc_rapl_read(r, t);
  size_t dropped = 0;
  for (size_t i = 0; i < jc_rapl_zone_count(r); i++)
    dropped += !jc_rapl_energy_of(r, i)->fresh;
  is_int(dropped, 6, "900 s: every zone's interval dropped");
  is_int(info_lines() + loud_lines(), 0, "counting said nothing above DEBUG");
  jc_rapl_free(r);
}

/* A read that fails (not a number, above the range) is said once, costs
 * a gap, and the zone counts again after a new baseline. */
static void test_failing_reads(void) {
  const char *root = tree("intel-xeon-2s");
  uint64_t range = number(root, "intel-rapl:0:0", "max_energy_range_uj");
  jc_rapl *r = open_at(root);
  uint64_t t = SEC;
  jc_rapl_read(r, t);
  const jc_rapl_energy *c = energy(r, "intel-rapl:0:0");
  put(root, "intel-rapl:0:0", "energy_uj", "garbage\n");
  jc_rapl_read(r, t += SEC);
  jc_rapl_read(r, t += SEC);
  ok(!c->read && !c->fresh && c->gaps == 1, "core unreadable: no figure, one gap");
  ok(energy(r, "intel-rapl:0")->fresh, "the other zones go on");
  is_int(info_lines(), 1, "said once over two failed reads: %s", said.last);
  set_energy(root, "intel-rapl:0:0", 5000);
  jc_rapl_read(r, t += SEC);
  ok(c->read && !c->fresh && info_lines() == 2 && strstr(said.last, "reads again"),
     "it reads again: a new baseline, and said so");
  set_energy(root, "intel-rapl:0:0", 9000);
  jc_rapl_read(r, t += SEC);
  ok(c->fresh && c->energy_uj == 4000, "then counts: 4000 uJ");
  set_energy(root, "intel-rapl:0:0", range + 1);
  jc_rapl_read(r, t += SEC);
  ok(!c->read && c->gaps == 2 && info_lines() == 3 &&
         strstr(said.last, "above its max_energy_range_uj"),
     "a value above the range: not counted, said: %s", said.last);
  is_int(loud_lines(), 0, "nothing above INFO");
  jc_rapl_free(r);
}

/* ---- other hosts -------------------------------------------------------------- */

static void test_amd(void) {
  const char *root = tree("amd-epyc-2s");
  jc_rapl *r = open_at(root);
  is_str(labels(r), "package-0 package-0-core package-1 package-1-core",
         "amd: packages and cores, no dram");
  const jc_rapl_zone *pkg = jc_rapl_zone_at(r, 0), *core = jc_rapl_zone_at(r, 1);
  ok(pkg->max_power_uw == JC_RAPL_FALLBACK_POWER_UW &&
         pkg->power_source == JC_RAPL_POWER_FALLBACK,
     "amd: no constraint files: the 1 kW fallback");
  ok(core->max_power_uw == JC_RAPL_FALLBACK_POWER_UW &&
         core->power_source == JC_RAPL_POWER_PACKAGE,
     "amd: the core takes its package's");
  uint64_t range = number(root, "intel-rapl:0", "max_energy_range_uj");
  double wrap_s = (double)range / 1e9;
  ok(range == 65532610987ull && wrap_s > 65 && wrap_s < 66,
     "by hand: 65532610987 uJ at 1 kW wrap in 65.5 s");
  uint64_t e0 = number(root, "intel-rapl:0", "energy_uj");
  uint64_t t = SEC;
  jc_rapl_read(r, t);
  set_energy(root, "intel-rapl:0", e0 + 12000000000);
  jc_rapl_read(r, t += 60 * SEC);
  const jc_rapl_energy *e = energy(r, "intel-rapl:0");
  ok(e->fresh && e->energy_uj == 12000000000ull, "amd: 60 s kept: 12 kJ");
  is_near(jc_rapl_watts(e), 200.0, 1e-9, "amd: 200 W");
  jc_rapl_read(r, t += 70 * SEC);
  ok(!e->fresh && e->gaps == 1, "amd: 70 s dropped");
  jc_rapl_free(r);
}

static void test_laptop(void) {
  const char *root = tree("intel-laptop-psys");
  jc_rapl *r = open_at(root);
  is_str(ids(r), "intel-rapl:0 intel-rapl:0:0 intel-rapl:0:1 intel-rapl:0:2 intel-rapl:1",
         "laptop: five zones; intel-rapl-mmio:0 (the package again) left out");
  is_str(labels(r), "package-0 package-0-core package-0-uncore package-0-dram psys",
         "laptop: labels");
  const jc_rapl_zone *psys = jc_rapl_zone_at(r, 4);
  ok(psys->kind == JC_RAPL_PSYS && psys->package == -1 &&
         psys->power_source == JC_RAPL_POWER_FALLBACK,
     "laptop: psys is a top-level zone whose limits are all 0: fallback");
  is_u64(jc_rapl_zone_at(r, 0)->max_power_uw, bound_of(root, "intel-rapl:0"),
         "laptop: package bound 2 x short_term 44 W = 88 W");
  uint64_t p0 = number(root, "intel-rapl:1", "energy_uj");
  jc_rapl_read(r, SEC);
  set_energy(root, "intel-rapl:1", p0 + 7500000);
  jc_rapl_read(r, 3 * SEC);
  is_near(jc_rapl_watts(energy(r, "intel-rapl:1")), 3.75, 1e-9,
          "laptop: psys 7.5 J in 2 s = 3.75 W");
  jc_rapl_free(r);
}

static void test_spr(void) {
  const char *root = tree("intel-spr-psys");
  jc_rapl *r = open_at(root);
  is_str(ids(r), "intel-rapl:0 intel-rapl:0:0 intel-rapl:1 intel-rapl:2 intel-rapl:2:0",
         "server: psys at index 1, between the packages");
  is_str(labels(r), "package-0 package-0-dram psys package-1 package-1-dram",
         "server: labels by name, not by index");
  const jc_rapl_zone *dram = jc_rapl_zone_at(r, 4);
  ok(dram->package == 3 && dram->power_source == JC_RAPL_POWER_PACKAGE &&
         dram->max_power_uw == 840000000,
     "server: dram of intel-rapl:2 (max_power 0) takes package-1's 2 x 420 W");
  jc_rapl_free(r);
}

/* ---- nothing to read ------------------------------------------------------------ */

typedef struct {
  jc_rapl_state state;
  size_t zones, readable;
  bool pkg1_readable;
  int info, loud;
  char last[1024];
} outcome;

static void open_for(const char *root, outcome *o) {
  jc_rapl *r = open_at(root);
  memset(o, 0, sizeof(*o));
  o->state = jc_rapl_state_of(r);
  o->zones = jc_rapl_zone_count(r);
  for (size_t i = 0; i < o->zones; i++)
    o->readable += jc_rapl_zone_at(r, i)->readable;
  int k = find(r, "intel-rapl:1");
  o->pkg1_readable = k >= 0 && jc_rapl_zone_at(r, (size_t)k)->readable;
  o->info = info_lines();
  o->loud = loud_lines();
  snprintf(o->last, sizeof(o->last), "%s", said.last);
  jc_rapl_free(r);
}

/* Opens root as a reader that is not root: nobody, in a child, when we are
 * root (who reads a mode 0000 file all the same). */
static void open_unprivileged(const char *root, outcome *o) {
  if (geteuid() != 0) {
    open_for(root, o);
    return;
  }
  int fds[2];
  if (pipe(fds) < 0)
    perror("pipe"), exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
        setresuid(65534, 65534, 65534) < 0)
      _exit(2);
    open_for(root, o);
    _exit(write(fds[1], o, sizeof(*o)) == (ssize_t)sizeof(*o) ? 0 : 3);
  }
  close(fds[1]);
  memset(o, 0, sizeof(*o));
  ssize_t got = read(fds[0], o, sizeof(*o));
  int status;
  waitpid(pid, &status, 0);
  close(fds[0]);
  if (got != (ssize_t)sizeof(*o))
    fprintf(stderr, "the unprivileged reader failed (status %d)\n", status), exit(1);
}

static void test_unreadable(void) {
  const char *root = tree("intel-xeon-2s");
  chmod(zone_file(root, "intel-rapl:1", "energy_uj"), 0);
  outcome o;
  open_unprivileged(root, &o);
  ok(o.state == JC_RAPL_READY && o.zones == 6 && o.readable == 5 && !o.pkg1_readable,
     "one zone's energy_uj mode 0000: that zone yields nothing, five go on");
  ok(o.info == 1 && o.loud == 0 && strstr(o.last, "1 of the 6"),
     "one INFO line: %s", o.last);
  ok(strstr(o.last, "CVE-2020-8694") && strstr(o.last, "Linux 5.10") &&
         strstr(o.last, "SUBSYSTEM==\"powercap\", ACTION==\"add\", "
                        "KERNEL==\"intel-rapl:*\", RUN+=\"/bin/chgrp powercap "
                        "/sys%p/energy_uj\", RUN+=\"/bin/chmod g+r /sys%p/energy_uj\"") &&
         strstr(o.last, "udevadm trigger --subsystem-match=powercap --action=add"),
     "... naming the cause and the udev rule that gives a group read access");

  const char *ids6[] = {"intel-rapl:0", "intel-rapl:0:0", "intel-rapl:0:1",
                        "intel-rapl:1:0", "intel-rapl:1:1"};
  for (size_t i = 0; i < 5; i++)
    chmod(zone_file(root, ids6[i], "energy_uj"), 0);
  open_unprivileged(root, &o);
  ok(o.state == JC_RAPL_UNREADABLE && o.readable == 0 && o.info == 1 &&
         o.loud == 0 && strstr(o.last, "6 of the 6"),
     "every energy_uj root's only (Linux 5.10+): unreadable, one INFO line");
}

static void test_absent(void) {
  outcome o;
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/no-such-dir", tmp);
  open_for(path, &o);
  ok(o.state == JC_RAPL_ABSENT && o.zones == 0 && o.info == 1 && o.loud == 0 &&
         strstr(o.last, "No such file or directory"),
     "no powercap tree: absent, one INFO line: %s", o.last);
  fx_mkdir("empty");
  snprintf(path, sizeof(path), "%s", fx_path("empty"));
  open_for(path, &o);
  ok(o.state == JC_RAPL_ABSENT && o.info == 1 && strstr(o.last, "no RAPL zone"),
     "an empty powercap directory (a VM): absent, one INFO line: %s", o.last);
  /* Only the mmio zone: what is left of the laptop without intel-rapl. */
  const char *root = tree("intel-laptop-psys");
  char cmd[2 * PATH_MAX];
  snprintf(cmd, sizeof(cmd), "rm -f '%s'/intel-rapl:* '%s'/intel-rapl", root, root);
  ok(system(cmd) == 0, "laptop without its intel-rapl entries");
  open_for(root, &o);
  ok(o.state == JC_RAPL_ABSENT && o.info == 1, "intel-rapl-mmio alone is no RAPL zone");
  /* A zone whose range cannot be read cannot count its wraps. */
  root = tree("amd-epyc-2s");
  put(root, "intel-rapl:1", "max_energy_range_uj", "0\n");
  open_for(root, &o);
  ok(o.state == JC_RAPL_READY && o.readable == 3 && !o.pkg1_readable && o.info == 1 &&
         strstr(o.last, "max_energy_range_uj"),
     "a range of 0: that zone is not reported, said once: %s", o.last);
}

/* ---- reading often enough, looking again ------------------------------------ */

/* The AMD host at 200 W for 70 s: a counter that wraps in 65.5 s at the
 * 1 kW the module must assume.  Read when jc_rapl_due_ns says, every
 * interval keeps; read only at the end, the 70 s are given up. */
static void test_due(void) {
  const char *root = tree("amd-epyc-2s");
  uint64_t range = number(root, "intel-rapl:0", "max_energy_range_uj");
  uint64_t e0 = number(root, "intel-rapl:0", "energy_uj");
  jc_rapl *r = open_at(root);
  ok(jc_rapl_due_ns(r) == UINT64_MAX, "nothing read yet: no time set");
  uint64_t t0 = SEC, t = t0;
  jc_rapl_read(r, t);
  uint64_t period = jc_rapl_due_ns(r) - t;
  is_near((double)period / 1e9, (double)range / 1e9 / 4, 1e-6,
          "the next read within a quarter of 65.5 s: %.2f s", (double)period / 1e9);
  uint64_t polls = 0;
  while (t - t0 < 70 * SEC) {
    uint64_t next = jc_rapl_due_ns(r);
    if (next > t0 + 70 * SEC)
      next = t0 + 70 * SEC;
    t = next; /* 200 W: 0.2 uJ a ns */
    set_energy(root, "intel-rapl:0", (e0 + (t - t0) / 5) % range);
    jc_rapl_read(r, t);
    polls++;
  }
  const jc_rapl_energy *e = energy(r, "intel-rapl:0");
  is_u64(e->total_uj, 14000000000ull, "70 s at 200 W: 14 kJ, in %" PRIu64 " reads",
         polls);
  ok(e->gaps == 0, "no interval given up");
  jc_rapl_free(r);

  root = tree("amd-epyc-2s");
  r = open_at(root);
  jc_rapl_read(r, t0);
  set_energy(root, "intel-rapl:0", (e0 + 14000000000ull) % range);
  jc_rapl_read(r, t0 + 70 * SEC);
  e = energy(r, "intel-rapl:0");
  ok(e->gaps == 1 && e->gap == JC_RAPL_GAP_TOO_LONG && e->gap_ns == 70 * SEC &&
         e->total_uj == 0,
     "read only after 70 s: given up as too long, never guessed");
  jc_rapl_free(r);
}

/* A shell command of two paths; exits on failure. */
#define RUN(fmt, a, b)                                                         \
  do {                                                                         \
    char cmd_[4 * PATH_MAX];                                                   \
    snprintf(cmd_, sizeof(cmd_), fmt, a, b);                                   \
    if (system(cmd_) != 0)                                                     \
      fprintf(stderr, "failed: %s\n", cmd_), exit(1);                          \
  } while (0)

/* Every layout (Intel with constraint files, AMD without, a laptop with
 * psys, a server with psys between its packages): each zone wraps inside
 * a 60 s interval at its maximum power's half, read when jc_rapl_due_ns
 * says or at the interval's end, whichever comes first: every µJ kept. */
static void test_wrap_every_layout(void) {
  static const char *const trees[] = {"intel-xeon-2s", "amd-epyc-2s",
                                      "intel-laptop-psys", "intel-spr-psys"};
  for (size_t k = 0; k < 4; k++) {
    const char *root = tree(trees[k]);
    jc_rapl *r = open_at(root);
    size_t n = jc_rapl_zone_count(r), bad = 0, zones = 0;
    uint64_t t0 = SEC, t = t0, start[JC_RAPL_ZONES_MAX], watts[JC_RAPL_ZONES_MAX];
    for (size_t i = 0; i < n; i++) {
      const jc_rapl_zone *z = jc_rapl_zone_at(r, i);
      watts[i] = z->max_power_uw / 2000000; /* W */
      start[i] = z->range_uj - 1000000;     /* 1 J below the top */
      if (z->readable)
        set_energy(root, z->id, start[i]);
    }
    jc_rapl_read(r, t);
    while (t < t0 + 60 * SEC) {
      uint64_t next = jc_rapl_due_ns(r);
      t = next < t0 + 60 * SEC ? next : t0 + 60 * SEC;
      for (size_t i = 0; i < n; i++) {
        const jc_rapl_zone *z = jc_rapl_zone_at(r, i);
        if (z->readable) /* W x ns / 1000 = uJ */
          set_energy(root, z->id, (start[i] + watts[i] * (t - t0) / 1000) % z->range_uj);
      }
      jc_rapl_read(r, t);
    }
    for (size_t i = 0; i < n; i++) {
      const jc_rapl_zone *z = jc_rapl_zone_at(r, i);
      const jc_rapl_energy *e = jc_rapl_energy_of(r, i);
      if (!z->readable)
        continue;
      zones++;
      if (e->gaps || e->total_uj != watts[i] * 60 * 1000000)
        bad++;
    }
    ok(bad == 0 && zones > 0, "%s: %zu zones wrap inside 60 s at half their maximum "
       "power, every uJ counted (%zu wrong)", trees[k], zones, bad);
    jc_rapl_free(r);
  }
}

/* The driver loaded after the module opened, a zone gone, back, and
 * registered again. */
static void test_look(void) {
  const char *full = tree("intel-xeon-2s");
  char empty[PATH_MAX];
  snprintf(empty, sizeof(empty), "%s/late/sys/class/powercap", tmp);
  fx_mkdirs("late/sys/class/powercap");
  jc_rapl *r = open_at(empty);
  ok(jc_rapl_state_of(r) == JC_RAPL_ABSENT && info_lines() == 1,
     "a powercap class without zones: absent, said once");
  ok(!jc_rapl_look(r) && info_lines() == 1, "looking again at nothing: silent");
  /* modprobe intel_rapl_msr: the zones appear (the links into the
   * fixture's devices directory resolve as before). */
  RUN("cp -a '%s'/../../devices '%s'/../../", full, empty);
  RUN("cp -a '%s'/. '%s'/", full, empty);
  ok(jc_rapl_look(r) && jc_rapl_state_of(r) == JC_RAPL_READY &&
         jc_rapl_zone_count(r) == 6,
     "the next look finds the six zones");
  ok(info_lines() == 2 && strstr(said.last, "RAPL zones found in") &&
         strstr(said.last, "package-0 (intel-rapl:0)") &&
         strstr(said.last, "package-1-dram (intel-rapl:1:1)"),
     "one INFO naming them: %s", said.last);
  is_str(labels(r),
         "package-0 package-0-core package-0-dram package-1 package-1-core "
         "package-1-dram",
         "labels as at open");
  uint64_t t = SEC;
  jc_rapl_read(r, t);
  set_energy(empty, "intel-rapl:1", number(empty, "intel-rapl:1", "energy_uj") + 1000);
  jc_rapl_read(r, t += SEC);
  const jc_rapl_energy *pkg1 = energy(r, "intel-rapl:1");
  ok(pkg1->fresh && pkg1->energy_uj == 1000, "and counts: 1000 uJ");
  ok(!jc_rapl_look(r), "a look that finds the same zones changes nothing");

  /* rmmod: the zone is gone. */
  char link[PATH_MAX];
  snprintf(link, sizeof(link), "%s/intel-rapl:1", empty);
  RUN("mv '%s' '%s.away'", link, link);
  ok(jc_rapl_look(r) && !jc_rapl_zone_at(r, 3)->readable && pkg1->gaps == 1 &&
         pkg1->gap == JC_RAPL_GAP_UNREADABLE,
     "a zone no longer listed: closed, its interval since the last read "
     "given up");
  ok(strstr(said.last, "is gone from") && strstr(said.last, "package-1"),
     "said: %s", said.last);
  jc_rapl_read(r, t += SEC);
  ok(!pkg1->read && energy(r, "intel-rapl:0")->fresh,
     "not read while gone; the others are");
  RUN("mv '%s.away' '%s'", link, link);
  ok(jc_rapl_look(r) && jc_rapl_zone_at(r, 3)->readable &&
         strstr(said.last, "can be read again"),
     "back: opened again, at the same index, said: %s", said.last);
  jc_rapl_read(r, t += SEC);
  ok(pkg1->read && !pkg1->fresh, "its first read is a new baseline");

  /* The driver loaded again: energy_uj is another file under the name. */
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s", zone_file(empty, "intel-rapl:1", "energy_uj"));
  RUN("cp '%s' '%s.new'", path, path);
  RUN("mv '%s.new' '%s'", path, path);
  uint64_t gaps = pkg1->gaps;
  ok(jc_rapl_look(r) && pkg1->gaps == gaps + 1 && pkg1->gap == JC_RAPL_GAP_REOPENED,
     "registered again: opened again, the interval given up");
  set_energy(empty, "intel-rapl:1", 5000);
  jc_rapl_read(r, t += SEC);
  set_energy(empty, "intel-rapl:1", 6500);
  jc_rapl_read(r, t += SEC);
  ok(pkg1->fresh && pkg1->energy_uj == 1500, "the new file counts: 1500 uJ");
  is_int(loud_lines(), 0, "nothing above INFO");
  jc_rapl_free(r);
}

static void test_ids(void) {
  int z = -2, s = -2;
#define ID(text) jc_rapl_parse_id(text, strlen(text), &z, &s)
  ok(ID("intel-rapl:0") == 0 && z == 0 && s == -1, "intel-rapl:0");
  ok(ID("intel-rapl:12:3") == 0 && z == 12 && s == 3, "intel-rapl:12:3");
  ok(ID("intel-rapl") < 0 && ID("intel-rapl:") < 0 && ID("intel-rapl-mmio:0") < 0 &&
         ID("intel-rapl:01") < 0 && ID("intel-rapl:1:") < 0 &&
         ID("intel-rapl:1:2:3") < 0 && ID("intel-rapl:+1") < 0 &&
         ID("intel-rapl:1234567") < 0 && ID("dtpm:0") < 0,
     "other names are no zone ids");
#undef ID
}

int main(void) {
  tmp = fx_tmpdir();
  if (chmod(tmp, 0755) < 0) /* the reader that is not root (test_unreadable) */
    perror(tmp), exit(1);
  test_ids();
  test_xeon_layout();
  test_xeon_counting();
  test_failing_reads();
  test_amd();
  test_laptop();
  test_spr();
  test_unreadable();
  test_absent();
  test_due();
  test_wrap_every_layout();
  test_look();
  fx_cleanup();
  return done_testing();
}
