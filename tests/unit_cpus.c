/* jc_cpus and the per-package model of jc_share, on the CPU topology
 * fixture trees (tests/fixtures/cpu, written by make-cpus.py: a two-socket
 * Xeon numbering its CPUs across the sockets, with hyperthreads and an
 * offline CPU; a two-socket EPYC numbered in order) and /proc/stat texts
 * the test writes: each package's CPU time is the sum of its own CPUs'
 * (a CPU that goes offline and comes back adds nothing for the time
 * between), cpusets map to their packages, and a cgroup's time on each
 * package is what docs/metrics.md says: all of it within one package, its
 * children's plus its own rest by the packages' busy time otherwise; per
 * package the parts and the idle part never exceed what the zone
 * measured. */
#include "fixture_util.h"
#include "jc_cpus.h"
#include "jc_parse.h"
#include "jc_share.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fixture tree of tests/fixtures/cpu, in the source tree. */
static const char *fixture(const char *name) {
  char rel[PATH_MAX];
  snprintf(rel, sizeof(rel), "tests/fixtures/cpu/%s", name);
  return fx_source(rel);
}

/* A copy of a CPU tree the test may change, below fx_tmpdir's. */
static const char *copy_of(const char *name) {
  static char path[PATH_MAX];
  char rel[PATH_MAX];
  snprintf(rel, sizeof(rel), "tests/fixtures/cpu/%s", name);
  fx_copy(rel, name);
  snprintf(path, sizeof(path), "%s", fx_path(name));
  return path;
}

/* ---- the CPU list ------------------------------------------------------------ */

static void test_cpu_list(void) {
  uint64_t w[2];
  bool beyond;
#define LIST(text) jc_parse_cpu_list(text, strlen(text), w, 2, &beyond)
  ok(LIST("0-3,8,10-11\n") == 0 && w[0] == 0xd0f && w[1] == 0 && !beyond,
     "0-3,8,10-11");
  ok(LIST("\n") == 0 && w[0] == 0 && w[1] == 0, "an empty list (a cgroup "
                                                 "with no CPU yet)");
  ok(LIST("64,127") == 0 && w[0] == 0 && w[1] == (1ull | 1ull << 63),
     "the second word");
  ok(LIST("126-130") == 0 && beyond && w[1] == (3ull << 62),
     "past the bitmap: said, the rest kept");
  ok(LIST("1-") < 0 && LIST("-1") < 0 && LIST("3-1") < 0 && LIST("1,,2") < 0 &&
         LIST("1,") < 0 && LIST("a") < 0 && LIST("1 2") < 0,
     "malformed lists refused");
#undef LIST
}

/* ---- topology and time --------------------------------------------------------- */

static const jc_cpus_domain two[] = {{0, -1}, {1, -1}};

static void test_topology(void) {
  jc_cpus *c = NULL;
  size_t mapped = 9;
  ok(jc_cpus_open(fixture("xeon-2s-interleaved"), "/proc/stat", &c) == 0 && c,
     "open the interleaved Xeon");
  is_int(jc_cpus_known(c), 15, "15 of its 16 CPUs placed (CPU 13 offline)");
  jc_cpus_set_domains(c, two, 2, &mapped);
  ok(mapped == 2 && jc_cpus_domains(c) == 2, "both packages have CPUs");
  uint64_t bits[JC_CPUS_WORDS] = {0};
  bits[0] = (1u << 1) | (1u << 3) | (1u << 9);
  is_u64(jc_cpus_mask(c, bits, JC_CPUS_WORDS), 2, "CPUs 1, 3, 9: package 1 alone");
  bits[0] = (1u << 0) | (1u << 8);
  is_u64(jc_cpus_mask(c, bits, JC_CPUS_WORDS), 1,
         "CPUs 0 and 8 (one core's two threads): package 0");
  bits[0] = 0x3;
  is_u64(jc_cpus_mask(c, bits, JC_CPUS_WORDS), 3, "CPUs 0-1: both packages");
  bits[0] = 1u << 13;
  is_u64(jc_cpus_mask(c, bits, JC_CPUS_WORDS), JC_SHARE_OUTSIDE,
         "the offline CPU: in no package");
  bits[0] = 0;
  bits[1] = 1;
  is_u64(jc_cpus_mask(c, bits, JC_CPUS_WORDS), JC_SHARE_OUTSIDE,
         "CPU 64, which the host has not: in no package");
  static const jc_cpus_domain other[] = {{0, -1}, {2, -1}};
  jc_cpus_set_domains(c, other, 2, &mapped);
  ok(mapped == 1 && jc_cpus_domains(c) == 0,
     "a package the topology does not have: no per-package figures");
  jc_cpus_free(c);

  ok(jc_cpus_open(fixture("one-socket"), "/proc/stat", &c) == 0, "one socket");
  static const jc_cpus_domain one[] = {{0, -1}};
  jc_cpus_set_domains(c, one, 1, &mapped);
  ok(mapped == 1 && jc_cpus_domains(c) == 0,
     "one package: the host's time is the package's, no per-CPU reading");
  jc_cpus_free(c);

  ok(jc_cpus_open("/nonexistent/cpu", "/nonexistent/stat", &c) == 0 &&
         jc_cpus_known(c) == 0 && jc_cpus_stat_error(c) == -ENOENT,
     "no topology, no /proc/stat: nothing placed, the error kept");
  jc_share_cpu t;
  ok(jc_cpus_read(c, &t) == -EBADF, "... and reads fail");
  jc_cpus_free(c);
}

/* A /proc/stat of the 16-CPU host: CPU n at ticks[n] total, idle[n] of
 * it idle (ticks of 10 ms); ticks[n] < 0: offline, no line. */
static void write_stat(const long *ticks, const long *idle) {
  char text[8192];
  long sum = 0, sum_idle = 0;
  for (int n = 0; n < 16; n++)
    if (ticks[n] >= 0) {
      sum += ticks[n];
      sum_idle += idle[n];
    }
  size_t len = (size_t)snprintf(text, sizeof(text),
                                "cpu  %ld 0 0 %ld 0 0 0 0 0 0\n",
                                sum - sum_idle, sum_idle);
  for (int n = 0; n < 16; n++)
    if (ticks[n] >= 0)
      len += (size_t)snprintf(text + len, sizeof(text) - len,
                              "cpu%d %ld 0 0 %ld 0 0 0 0 0 0\n", n,
                              ticks[n] - idle[n], idle[n]);
  snprintf(text + len, sizeof(text) - len, "intr 12345 0 0\nctxt 99\n");
  fx_write("stat", text);
}

static void test_times(void) {
  char stat[PATH_MAX];
  snprintf(stat, sizeof(stat), "%s", fx_path("stat"));
  long ticks[16], idle[16];
  for (int n = 0; n < 16; n++) {
    ticks[n] = 1000;
    idle[n] = 500;
  }
  ticks[13] = -1;
  write_stat(ticks, idle);
  const char *root = copy_of("xeon-2s-interleaved");
  jc_cpus *c = NULL;
  size_t mapped;
  jc_cpus_open(root, stat, &c);
  jc_cpus_set_domains(c, two, 2, &mapped);
  jc_share_cpu a, b;
  ok(jc_cpus_read(c, &a) == 0 && a.domains == 2 && a.domain[0].total_usec == 0,
     "the first read: each CPU's baseline");
  /* Package 0's CPUs (even) each 100 ticks, 30 idle; package 1's 100,
   * 80 idle. */
  for (int n = 0; n < 16; n++)
    if (ticks[n] >= 0) {
      ticks[n] += 100;
      idle[n] += n % 2 ? 80 : 30;
    }
  write_stat(ticks, idle);
  ok(jc_cpus_read(c, &b) == 0, "a second read");
  is_u64(b.host.total_usec - a.host.total_usec, 15 * 1000000ull,
         "the host: 15 CPUs x 1 s");
  is_u64(b.domain[0].total_usec, 8 * 1000000ull, "package 0: its 8 CPUs, 8 s");
  is_u64(b.domain[0].idle_usec, 8 * 300000ull, "... 2.4 s of it idle");
  is_u64(b.domain[1].total_usec, 7 * 1000000ull,
         "package 1: 7 CPUs (13 is offline), 7 s");
  is_u64(b.domain[1].idle_usec, 7 * 800000ull, "... 5.6 s of it idle");

  /* CPU 13 comes online with its old counters (the kernel keeps them):
   * nothing of the time it was away counts, then it counts in package 1. */
  fx_mkdirs("xeon-2s-interleaved/cpu13/topology");
  fx_write("xeon-2s-interleaved/cpu13/topology/physical_package_id", "1\n");
  fx_write("xeon-2s-interleaved/cpu13/topology/die_id", "0\n");
  ticks[13] = 5000;
  idle[13] = 4000;
  write_stat(ticks, idle);
  jc_cpus_read(c, &a);
  ok(a.domain[1].total_usec == b.domain[1].total_usec,
     "its first line is its baseline: package 1 unchanged");
  ticks[13] += 100;
  idle[13] += 100;
  write_stat(ticks, idle);
  jc_cpus_read(c, &b);
  is_u64(b.domain[1].total_usec - a.domain[1].total_usec, 1000000,
         "then its second adds its 1 s to package 1");
  ticks[3] = -1; /* CPU 3 goes offline */
  write_stat(ticks, idle);
  jc_cpus_read(c, &a);
  ticks[3] = 1100 + 500;
  idle[3] = 580 + 500;
  write_stat(ticks, idle);
  jc_cpus_read(c, &b);
  ok(b.domain[1].total_usec == a.domain[1].total_usec,
     "a CPU back from offline: its 5 s away are not counted");
  jc_cpus_free(c);
}

/* ---- a cgroup's time per package ------------------------------------------------- */

/* A host over one stretch: package 0 spent 8 s, 6 of them idle (2 busy);
 * package 1 7 s, 4 idle (3 busy). */
static jc_share_host stretch(void) {
  jc_share_host h = {0};
  jc_share_cpu start = {.host = {0, 0}, .domains = 2};
  jc_share_cpu end = {.host = {15000000, 10000000},
                      .domains = 2,
                      .domain = {{8000000, 6000000}, {7000000, 4000000}}};
  jc_share_host_start(&h, true, &start);
  jc_share_host_end(&h, true, &end, false);
  return h;
}

static void test_domain_times(void) {
  jc_share_host h = stretch();
  ok(h.rule == JC_SHARE_OWN && h.last.domains == 2, "a stretch of its own");
  /* any (every CPU): 2.5 s, its children a0 (package 0) 1 s and a1
   * (package 1) 1 s; nocs (no cpuset known) 0.5 s; p1 (package 1) 1.4 s. */
  jc_share_party p[] = {{2500000, 3, -1}, {1000000, 1, 0}, {1000000, 2, 0},
                        {500000, 0, -1}, {1400000, 2, -1}};
  double on[5 * 2], work[5 * 3];
  jc_share_domain_times(&h, p, 5, on, work);
  is_near(on[2], 1000000, 0, "a0: all of its 1 s on package 0");
  is_near(on[3], 0, 0, "... none on package 1");
  is_near(on[5], 1000000, 0, "a1: all on package 1");
  is_near(on[8], 0, 0, "p1: nothing on package 0");
  is_near(on[9], 1400000, 0, "... its 1.4 s on package 1");
  is_near(on[6], 200000, 1e-6, "nocs: 0.5 s by the busy times 2:3, 0.2 s on 0");
  is_near(on[7], 300000, 1e-6, "... 0.3 s on 1");
  is_near(on[0], 1200000, 1e-6,
          "any: a0's 1 s plus 2/5 of its own 0.5 s on package 0");
  is_near(on[1], 1300000, 1e-6, "... a1's 1 s plus 3/5 on package 1");
  is_near(on[0] + on[1], 2500000, 1e-6, "any's time, all of it, once");

  /* Charged: package 0 measured 16 J, package 1 21 J. */
  double covered0 = jc_share_covered(p, 5, on, 2, 0),
         covered1 = jc_share_covered(p, 5, on, 2, 1);
  is_near(covered0, 1400000, 1e-6, "covered on package 0: any + nocs");
  is_near(covered1, 3000000, 1e-6, "on package 1: any + nocs + p1 = its busy 3 s");
  jc_share_split s0, s1;
  ok(jc_share_split_energy(16000000, &h.last.domain[0], covered0, &s0) == 0 &&
         jc_share_split_energy(21000000, &h.last.domain[1], covered1, &s1) == 0,
     "both packages split");
  is_near(s0.idle_uj, 12000000, 1e-3, "package 0's idle part: 16 J x 6/8");
  is_near(s1.idle_uj, 12000000, 1e-3, "package 1's: 21 J x 4/7");
  is_near(jc_share_charge(&s0, on[2]), 2000000, 1e-3, "a0: 2 J of package 0");
  is_near(jc_share_charge(&s1, on[9]), 4200000, 1e-3, "p1: 4.2 J of package 1");
  is_near(jc_share_charge(&s0, on[8]), 0, 0, "p1: nothing of package 0");
  double parts1 = jc_share_charge(&s1, on[1]) + jc_share_charge(&s1, on[7]) +
                  jc_share_charge(&s1, on[9]) + s1.idle_uj;
  is_near(parts1, 21000000, 1e-3,
          "package 1: the top-level parts and its idle part are its 21 J");

  /* More time than the package's busy time: they share it, no more. */
  p[4].usec = 2000000;
  jc_share_domain_times(&h, p, 5, on, work);
  covered1 = jc_share_covered(p, 5, on, 2, 1);
  jc_share_split_energy(21000000, &h.last.domain[1], covered1, &s1);
  parts1 = jc_share_charge(&s1, on[1]) + jc_share_charge(&s1, on[7]) +
           jc_share_charge(&s1, on[9]) + s1.idle_uj;
  is_near(parts1, 21000000, 1e-3, "3.6 s on 3 s busy: scaled, 21 J in all");

  /* Children over their parent (read a moment later): the parent's own
   * rest is none, never negative. */
  jc_share_party q[] = {{1000000, 3, -1}, {700000, 1, 0}, {400000, 2, 0}};
  jc_share_domain_times(&h, q, 3, on, work);
  ok(on[0] == 700000 && on[1] == 400000, "the parent is its children's time");

  /* A CPU outside every package: that part of the cpuset counts in none;
   * a cpuset with none of the packages' CPUs: no time on them. */
  jc_share_party r[] = {{1000000, JC_SHARE_OUTSIDE | 2, -1},
                        {1000000, JC_SHARE_OUTSIDE, -1}};
  jc_share_domain_times(&h, r, 2, on, work);
  ok(on[0] == 0 && on[1] == 1000000, "package 1 and a CPU outside: package 1");
  ok(on[2] == 0 && on[3] == 0, "outside alone: on no package");

  /* An idle host: the rest by the packages' whole time. */
  jc_share_cpu end2 = {.host = {30000000, 25000000},
                       .domains = 2,
                       .domain = {{16000000, 14000000}, {14000000, 11000000}}};
  jc_share_host_end(&h, true, &end2, false);
  jc_share_party idle[] = {{0, 0, -1}};
  jc_share_domain_times(&h, idle, 1, on, work);
  ok(on[0] == 0 && on[1] == 0, "no time: nothing anywhere");
  jc_share_cpu still = h.base;
  still.domain[1] = (jc_cputimes){0, 0}; /* went back: not known */
  still.host.total_usec += 1000000;
  jc_share_host_end(&h, true, &still, false);
  ok(h.rule == JC_SHARE_OWN && h.last.domain[1].total_usec == 0,
     "a package whose time went back: 0 over the stretch");
  jc_share_split s;
  jc_share_zone z = {.have_base = true};
  jc_rapl_energy e = {.read = true, .total_uj = 5000000};
  ok(jc_share_zone_split(&z, &h, &e, 1, 0, &s) < 0,
     "... and a zone of it has no share of that stretch");
  z = (jc_share_zone){.have_base = true};
  ok(jc_share_zone_split(&z, &h, &e, 5, 0, &s) < 0,
     "a package the stretch has no figures of: no share");
}

int main(void) {
  fx_tmpdir();
  test_cpu_list();
  test_topology();
  test_times();
  test_domain_times();
  fx_cleanup();
  return done_testing();
}
