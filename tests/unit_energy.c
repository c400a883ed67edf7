/* The host's CPU time from /proc/stat (jc_procstat) and the energy model
 * that splits a zone's energy by it (jc_share): figures by hand, the
 * shares of cgroups that cover all busy time adding up exactly to the
 * measured energy with the idle part, and never more than it when the
 * host's tick-counted time falls short of the cgroups' exact time; the
 * one rule for a stretch too short for /proc/stat (jc_share's, the plugin's
 * and the command's). */
#include "fixture_util.h"
#include "jc_procstat.h"
#include "jc_share.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static int parse(const char *text, long hz, jc_cputimes *ret) {
  return jc_procstat_parse(text, strlen(text), hz, ret);
}

static void test_parse(void) {
  jc_cputimes t;
  /* This machine's, Linux 6.x: user nice system idle iowait irq softirq
   * steal guest guest_nice, then the per-CPU lines. */
  ok(parse("cpu  43404 0 38911 71906 935 0 1089 0 0 0\n"
           "cpu0 19763 0 17247 40483 55 0 635 0 0 0\nintr 1 2 3\n",
           100, &t) == 0,
     "a 6.x /proc/stat");
  is_u64(t.total_usec, (43404ull + 38911 + 71906 + 935 + 1089) * 10000,
         "total: the eight fields, 10 ms a tick");
  is_u64(t.idle_usec, (71906ull + 935) * 10000, "idle: idle + iowait");
  ok(parse("cpu  100 20 30 400 50 6 7 8 90 10\n", 100, &t) == 0 &&
         t.total_usec == 621 * 10000ull && t.idle_usec == 450 * 10000ull,
     "guest and guest_nice are inside user and nice: not counted again");
  ok(parse("cpu 1 2 3 4", 100, &t) == 0 && t.total_usec == 100000 &&
         t.idle_usec == 40000,
     "four fields (before 2.6.0), no newline: the missing ones are 0");
  ok(parse("cpu  1 2 3 4 5 6 7 8 9 10 11 12\n", 100, &t) == 0 &&
         t.total_usec == 36 * 10000ull,
     "fields after guest_nice are not counted");
  ok(parse("cpu  1024 0 0 1\n", 1024, &t) == 0 && t.total_usec == 1000976,
     "USER_HZ 1024: 1025 ticks are 1000976 us");
  static const char *const bad[] = {
      "", "\n", "cpu  1 2 3\n", "cpu0 1 2 3 4\n", "intr 1 2 3 4\n",
      "cpu  1 2 x 4\n", "cpu  1 2 -3 4\n", "cpux 1 2 3 4\n",
      "\ncpu  1 2 3 4\n", "cpu  1 2 3 4\r\n"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
    t = (jc_cputimes){7, 7};
    int r = parse(bad[i], 100, &t);
    ok(r == -EINVAL && t.total_usec == 7, "malformed %zu refused (%d)", i, r);
  }
  ok(parse("cpu  18446744073709551616 0 0 0\n", 100, &t) == -ERANGE,
     "a field above 2^64-1: -ERANGE");
  ok(parse("cpu  18446744073709551615 1 0 0\n", 100, &t) == -ERANGE,
     "a sum above 2^64-1: -ERANGE");
  ok(parse("cpu  9223372036854775807 0 0 0\n", 100, &t) == -ERANGE,
     "ticks whose microseconds overflow: -ERANGE");
  ok(parse("cpu  1 2 3 4\n", 0, &t) == -EINVAL, "USER_HZ 0 refused");
}

static void test_delta(void) {
  jc_cputimes a = {1000, 400}, b = {3000, 900}, d = {0, 0};
  ok(jc_procstat_delta(&a, &b, &d) == 0 && d.total_usec == 2000 &&
         d.idle_usec == 500,
     "delta: 2000 us, 500 idle");
  d = (jc_cputimes){1, 1};
  ok(jc_procstat_delta(&b, &a, &d) == -ERANGE && d.total_usec == 1,
     "backwards: -ERANGE, nothing written");
}

static void test_file(void) {
  fx_tmpdir(); /* a /proc/stat of the test's own */
  fx_write("stat", "cpu  10 0 10 80 0 0 0 0 0 0\ncpu0 10 0 10 80 0 0 0 0 0 0\n");
  jc_procstat ps;
  jc_cputimes a, b, d;
  ok(jc_procstat_open(&ps, fx_path("stat")) == 0 &&
         jc_procstat_read(&ps, &a) == 0 && a.total_usec == 1000000 &&
         a.idle_usec == 800000,
     "read through a kept descriptor: 1 s, 0.8 s idle");
  fx_write("stat", "cpu  30 0 20 150 10 0 0 0 0 0\n");
  ok(jc_procstat_read(&ps, &b) == 0 && jc_procstat_delta(&a, &b, &d) == 0 &&
         d.total_usec == 1100000 && d.idle_usec == 800000,
     "rewritten in place: 1.1 s more, 0.8 s of it idle");
  jc_procstat_close(&ps);
  jc_procstat_close(&ps);
  ok(ps.fd == -1 && jc_procstat_read(&ps, &b) == -EBADF, "closed twice; reads -EBADF");
  ok(jc_procstat_open(&ps, "/nonexistent/stat") == -ENOENT, "a missing file: -ENOENT");
  fx_cleanup();
  ok(jc_procstat_open(&ps, NULL) == 0 && jc_procstat_read(&ps, &a) == 0 &&
         a.total_usec > a.idle_usec && a.idle_usec > 0,
     "this machine's /proc/stat: %llu us, %llu idle",
     (unsigned long long)a.total_usec, (unsigned long long)a.idle_usec);
  jc_procstat_close(&ps);
}

/* 1 J over an interval of 2 CPUs x 1 s, 0.5 s of it idle. */
static const jc_cputimes host = {2000000, 500000};

static void test_share(void) {
  jc_share_split s;
  /* Two top-level cgroups that cover the 1.5 s of busy time. */
  ok(jc_share_split_energy(1000000, &host, 1500000, &s) == 0, "split 1 J");
  is_near(s.idle_uj, 250000, 0, "idle part: 1 J x 0.5 / 2 = 0.25 J");
  is_near(s.busy_uj, 750000, 0, "busy part: 0.75 J");
  double a = jc_share_charge(&s, 1000000), b = jc_share_charge(&s, 500000);
  is_near(a, 500000, 0, "a cgroup with 1 s: 1 J x 1 / 2 = 0.5 J");
  is_near(b, 250000, 0, "one with 0.5 s: 0.25 J");
  ok(a + b + s.idle_uj == 1000000, "they and the idle part: exactly 1 J");
  is_near(jc_share_charge(&s, 400000), 200000, 0,
          "a child with 0.4 s of its parent's 1 s: 0.2 J, inside the parent's");

  /* Covering less: the rest is the host's own (kernel threads, the root
   * cgroup's processes). */
  ok(jc_share_split_energy(1000000, &host, 750000, &s) == 0 &&
         jc_share_charge(&s, 750000) == 375000,
     "0.75 s of 2: 0.375 J, charge = E x u / T");

  /* The host counted 1.5 s busy in ticks, the cgroups 2 s exactly. */
  ok(jc_share_split_energy(1000000, &host, 2000000, &s) == 0, "cgroups over busy time");
  a = jc_share_charge(&s, 1200000);
  b = jc_share_charge(&s, 800000);
  is_near(a, 450000, 1e-9, "scaled: 0.75 J x 1.2 / 2 = 0.45 J");
  is_near(a + b + s.idle_uj, 1000000, 1e-9, "never more than measured: 1 J");

  ok(jc_share_split_energy(0, &host, 1500000, &s) == 0 && s.idle_uj == 0 &&
         jc_share_charge(&s, 1500000) == 0,
     "no energy: nothing to charge");
  jc_cputimes idle_host = {2000000, 2000000};
  ok(jc_share_split_energy(1000000, &idle_host, 0, &s) == 0 &&
         s.idle_uj == 1000000 && s.busy_uj == 0 && jc_share_charge(&s, 0) == 0,
     "an idle host: all of it idle");
  s.idle_uj = -1;
  jc_cputimes still = {0, 0}, broken = {100, 200};
  ok(jc_share_split_energy(1000000, &still, 0, &s) == -EDOM && s.idle_uj == -1,
     "no CPU time (shorter than a tick): -EDOM, nothing written");
  ok(jc_share_split_energy(1000000, &broken, 0, &s) == -EDOM,
     "idle above total: -EDOM");

  /* A whole counter range over an hour of 64 CPUs: exact to 1 uJ. */
  jc_cputimes big = {3600ull * 64 * 1000000, 3600ull * 40 * 1000000};
  uint64_t e = 262143328850ull, u = 3600ull * 3 * 1000000 + 123457;
  ok(jc_share_split_energy(e, &big, u, &s) == 0, "a full range over an hour");
  long double want = (long double)e * u / big.total_usec;
  is_near(jc_share_charge(&s, u), (double)want, 1.0, "within 1 uJ of E x u / T");
}

/* ---- stretches: the one rule for a stretch too short for /proc/stat ---- */

static jc_share_host host_side;
static jc_share_usage cgroup_a;
static jc_share_zone zone_side;
static jc_rapl_energy zone_now = {.read = true};

/* A reading: the host's CPU time (total_us 0: unknown), cgroup a's usage,
 * the zone's total; the rule, and a's part and the idle part (-1: no
 * share) of the stretch it ends. */
static jc_share_rule reading(uint64_t total_us, uint64_t idle_us,
                             uint64_t usage_us, uint64_t zone_uj, bool final,
                             double *ret_a, double *ret_idle) {
  jc_share_cpu now = {.host = {total_us, idle_us}};
  zone_now.total_uj = zone_uj;
  jc_share_rule rule =
      jc_share_host_end(&host_side, total_us > 0, &now, final);
  jc_share_usage_end(&cgroup_a, rule, true, usage_us);
  jc_share_split split;
  *ret_a = *ret_idle = -1;
  if (jc_share_zone_split(&zone_side, &host_side, &zone_now, -1,
                          (double)cgroup_a.last_usec, &split) == 0) {
    *ret_idle = split.idle_uj;
    *ret_a = cgroup_a.charged ? jc_share_charge(&split, cgroup_a.last_usec) : -1;
  }
  return rule;
}

static void test_stretches(void) {
  double a, idle;
  ok(reading(1000000, 0, 0, 5000000, false, &a, &idle) == JC_SHARE_NONE &&
         a < 0 && idle < 0,
     "the first reading: no stretch before it to split");
  ok(reading(1000000, 0, 300000, 6000000, false, &a, &idle) == JC_SHARE_WAIT &&
         a < 0 && idle < 0,
     "/proc/stat did not move, no stretch split before: it waits");
  ok(reading(3000000, 500000, 1000000, 7000000, false, &a, &idle) ==
             JC_SHARE_OWN &&
         a == 1000000 && idle == 500000,
     "... and is split with the next: 2 J x 1 s / 2 s, idle 2 J x 0.5 / 2");
  ok(reading(3000000, 500000, 1000500, 7100000, false, &a, &idle) ==
             JC_SHARE_PREVIOUS,
     "too short again, a stretch before it: its proportions");
  is_near(a, 50000, 1e-9, "... 0.1 J x 1 s / 2 s (the stretch before's CPU time)");
  is_near(idle, 25000, 1e-9, "... idle 0.1 J x 0.5 / 2");
  ok(reading(3000000, 500000, 1000500, 7200000, true, &a, &idle) ==
             JC_SHARE_PREVIOUS && a == 50000,
     "at a last reading too: the stretch before's proportions");
  jc_share_cpu now = {.host = {3000000, 500000}};
  jc_share_host_start(&host_side, true, &now);
  jc_share_usage_start(&cgroup_a, true, 1000500);
  jc_share_zone_start(&zone_side, &zone_now);
  ok(reading(3000000, 500000, 1000600, 7300000, true, &a, &idle) ==
             JC_SHARE_NONE && a < 0 && idle < 0,
     "a start, then a last reading too soon: nothing to split by, no share");
  ok(reading(5000000, 500000, 2000600, 9300000, false, &a, &idle) ==
         JC_SHARE_OWN && a == 1000000 && idle == 0,
     "a busy stretch: 2 J x 1 s / 2 s, nothing idle");
  zone_now.gaps++;
  ok(reading(7000000, 500000, 3000600, 9400000, false, &a, &idle) ==
             JC_SHARE_OWN && idle < 0,
     "an interval of the zone given up (jc_rapl): no share of it");
  zone_now.gaps++;
  ok(reading(0, 0, 3000600, 9500000, false, &a, &idle) == JC_SHARE_NONE &&
         reading(8000000, 500000, 3500600, 9600000, false, &a, &idle) ==
             JC_SHARE_NONE &&
         idle < 0,
     "/proc/stat unreadable: no share, and none of the stretch after it");
  ok(reading(9000000, 500000, 4500600, 10600000, false, &a, &idle) ==
             JC_SHARE_OWN && a == 1000000,
     "then split again");
  jc_share_usage_end(&cgroup_a, JC_SHARE_OWN, true, 100);
  ok(!cgroup_a.charged && cgroup_a.base_usec == 100,
     "a usage that went back (a re-created cgroup): no part, a new start");
}

int main(void) {
  test_parse();
  test_delta();
  test_file();
  test_share();
  test_stretches();
  return done_testing();
}
