/* Unit tests of jc_parse: single values, flat-keyed files, every u64,
 * io.stat, pressure and mountinfo lines, valid and broken. */
#include "jc_parse.h"
#include "tap.h"

#include <errno.h>

#define S(text) text, sizeof(text) - 1

static void test_single(void) {
  uint64_t v = 7;
  is_int(jc_parse_single(S("4096\n"), &v), 0, "single: plain number");
  is_u64(v, 4096, "single: value");
  is_int(jc_parse_single(S("max\n"), &v), 0, "single: max");
  is_u64(v, JC_VALUE_MAX, "single: max is UINT64_MAX");
  is_int(jc_parse_single(S("18446744073709551615\n"), &v), 0, "single: 2^64-1");
  is_u64(v, UINT64_MAX, "single: 2^64-1 value");
  v = 7;
  is_int(jc_parse_single(S("18446744073709551616\n"), &v), -ERANGE,
         "single: 2^64 is out of range");
  is_u64(v, 7, "single: output untouched on error");
  is_int(jc_parse_single(S("-1\n"), &v), -EINVAL, "single: negative refused");
  is_int(jc_parse_single(S(""), &v), -EINVAL, "single: empty refused");
  is_int(jc_parse_single(S("12"), &v), 0, "single: no trailing newline");
  is_u64(v, 12, "single: no trailing newline value");
  is_int(jc_parse_single(S("12 13\n"), &v), -EINVAL, "single: two words refused");
  is_int(jc_parse_single(S("1\0002"), &v), -EINVAL, "single: NUL byte refused");
  is_int(jc_parse_single(S("maxi\n"), &v), -EINVAL, "single: not max");
}

static void test_flat(void) {
  const char text[] = "usage_usec 100\nuser_usec 60\n\nbad line here\n"
                      "system_usec 40\nnegative -3\nlast 5";
  jc_cursor c;
  jc_parse_cursor_init(&c, text, sizeof(text) - 1);
  jc_token k;
  uint64_t v;
  is_int(jc_parse_flat_next(&c, &k, &v), 1, "flat: first pair");
  ok(jc_parse_token_eq(k, "usage_usec") && v == 100, "flat: usage_usec 100");
  is_int(jc_parse_flat_next(&c, &k, &v), 1, "flat: second pair");
  ok(jc_parse_token_eq(k, "user_usec") && v == 60, "flat: user_usec 60");
  is_int(jc_parse_flat_next(&c, &k, &v), -EINVAL, "flat: three words is malformed");
  is_int(jc_parse_flat_next(&c, &k, &v), 1, "flat: continues after a bad line");
  ok(jc_parse_token_eq(k, "system_usec") && v == 40, "flat: system_usec 40");
  is_int(jc_parse_flat_next(&c, &k, &v), -EINVAL, "flat: negative is malformed");
  is_int(jc_parse_flat_next(&c, &k, &v), 1, "flat: last line without newline");
  ok(jc_parse_token_eq(k, "last") && v == 5, "flat: last 5");
  is_int(jc_parse_flat_next(&c, &k, &v), 0, "flat: end");
  is_int(jc_parse_flat_next(&c, &k, &v), 0, "flat: end stays end");

  jc_parse_cursor_init(&c, "", 0);
  is_int(jc_parse_flat_next(&c, &k, &v), 0, "flat: empty buffer");
  jc_parse_cursor_init(&c, S("key\n"));
  is_int(jc_parse_flat_next(&c, &k, &v), -EINVAL, "flat: key without value");
}

/* Every u64 the kernel's %llu prints is read as it is, 2^63 and above too
 * (memory.stat's slab 14914318128160131214 in below's test data); only
 * 2^64 and above is out of range.  What each value is then worth is
 * jc_sample's and jc_metrics' (docs/metrics.md). */
static void test_u64(void) {
  const char text[] = "slab 14914318128160131214\npgfault 9223372036854775808\n"
                      "pgmajfault 18446744073709551615\nanon 18446744073709551616\n";
  jc_cursor c;
  jc_parse_cursor_init(&c, text, sizeof(text) - 1);
  jc_token k;
  uint64_t v = 0;
  is_int(jc_parse_flat_next(&c, &k, &v), 1, "u64: slab 14914318128160131214");
  ok(jc_parse_token_eq(k, "slab") && v == 14914318128160131214ull, "u64: its value");
  is_int(jc_parse_flat_next(&c, &k, &v), 1, "u64: 2^63");
  ok(v == 9223372036854775808ull, "u64: 2^63 value");
  is_int(jc_parse_flat_next(&c, &k, &v), 1, "u64: 2^64-1");
  ok(v == UINT64_MAX, "u64: 2^64-1 value");
  is_int(jc_parse_flat_next(&c, &k, &v), -ERANGE, "u64: 2^64 is out of range");
  is_int(jc_parse_flat_next(&c, &k, &v), 0, "u64: end");

  jc_io_line l;
  jc_parse_cursor_init(&c, S("8:0 rbytes=18446744073709551615 wbytes=9223372036854775808\n"));
  is_int(jc_parse_io_next(&c, &l), 1, "u64: io.stat 2^64-1 and 2^63");
  ok(l.rbytes == UINT64_MAX && l.wbytes == 9223372036854775808ull,
     "u64: io.stat values");
  jc_psi p;
  is_int(jc_parse_pressure(
             S("some avg10=0.00 avg60=0.00 avg300=0.00 total=18446744073709551615\n"),
             &p),
         0, "u64: pressure total 2^64-1");
  is_u64(p.some.total_usec, UINT64_MAX, "u64: pressure total value");
}

static void test_io(void) {
  const char text[] =
      "8:0 rbytes=1000 wbytes=2000 rios=10 wios=20 dbytes=0 dios=0 "
      "cost.vrate=100.00 cost.usage=55 cost.wait=0 cost.indebt=0 "
      "cost.indelay=0\n"
      "253:16 rbytes=5 wbytes=6\n"
      "259:0\n"
      "8:32  cost.usage=0 cost.wait=0\n"
      "garbage\n"
      "8:16 rbytes=x\n"
      "(unknown) rbytes=7 wbytes=8 rios=1 wios=2\n"
      "7:7 7:6 7:5 7:4 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n"
      "(unknown) \n"
      "7:3 rbytes=1 junk wbytes=2\n"
      "252:0 rbytes=9";
  jc_cursor c;
  jc_parse_cursor_init(&c, text, sizeof(text) - 1);
  jc_io_line l;
  is_int(jc_parse_io_next(&c, &l), 1, "io: full line with cost.* fields");
  ok(l.major == 8 && l.minor == 0 && l.rbytes == 1000 && l.wbytes == 2000 &&
         l.rios == 10 && l.wios == 20 && !l.unknown_device,
     "io: 8:0 values");
  is_int(jc_parse_io_next(&c, &l), 1, "io: line with missing fields");
  ok(l.major == 253 && l.minor == 16 && l.rbytes == 5 && l.wbytes == 6 &&
         l.rios == 0 && l.wios == 0,
     "io: missing fields are zero");
  is_int(jc_parse_io_next(&c, &l), 1, "io: a device alone is skipped");
  ok(l.major == 8 && l.minor == 32 && l.rbytes == 0,
     "io: a device with cost.* keys only is a line of zeros");
  is_int(jc_parse_io_next(&c, &l), -EINVAL, "io: garbage line");
  is_int(jc_parse_io_next(&c, &l), -EINVAL, "io: non-numeric value of a known key");
  is_int(jc_parse_io_next(&c, &l), 1, "io: (unknown) device");
  ok(l.unknown_device && l.rbytes == 7 && l.wbytes == 8 && l.rios == 1 &&
         l.wios == 2,
     "io: (unknown) counts, flagged unknown");
  is_int(jc_parse_io_next(&c, &l), 1, "io: merged line of several devices");
  ok(l.major == 7 && l.minor == 4 && l.rbytes == 4096 && l.rios == 1 &&
         !l.unknown_device,
     "io: a merged line counts once, for the last device");
  is_int(jc_parse_io_next(&c, &l), -EINVAL,
         "io: keyless (unknown) skipped; a word without = after a key is junk");
  is_int(jc_parse_io_next(&c, &l), 1, "io: last line without newline");
  ok(l.major == 252 && l.rbytes == 9, "io: 252:0 rbytes=9");
  is_int(jc_parse_io_next(&c, &l), 0, "io: end");

  jc_parse_cursor_init(&c, S("259:0 \n8:0\n(unknown) \n"));
  is_int(jc_parse_io_next(&c, &l), 0, "io: a file of keyless lines is empty");
}

static void test_cpu_max(void) {
  uint64_t q = 7, p = 7;
  is_int(jc_parse_cpu_max(S("max 100000\n"), &q, &p), 0, "cpu.max: max");
  ok(q == JC_VALUE_MAX && p == 100000, "cpu.max: no quota, period 100000");
  is_int(jc_parse_cpu_max(S("50000 100000\n"), &q, &p), 0, "cpu.max: quota");
  ok(q == 50000 && p == 100000, "cpu.max: 50000 100000");
  is_int(jc_parse_cpu_max(S("150000 100000"), &q, &p), 0,
         "cpu.max: without a newline (as a peer writes it)");
  ok(q == 150000 && p == 100000, "cpu.max: 150000 100000");
  q = p = 7;
  is_int(jc_parse_cpu_max(S("max\n"), &q, &p), -EINVAL, "cpu.max: no period");
  is_int(jc_parse_cpu_max(S("50000 0\n"), &q, &p), -EINVAL,
         "cpu.max: period 0");
  is_int(jc_parse_cpu_max(S("0 100000\n"), &q, &p), -EINVAL,
         "cpu.max: quota 0");
  is_int(jc_parse_cpu_max(S("50000 100000 1\n"), &q, &p), -EINVAL,
         "cpu.max: three words");
  is_int(jc_parse_cpu_max(S("-1 100000\n"), &q, &p), -EINVAL,
         "cpu.max: negative quota");
  is_int(jc_parse_cpu_max(S("50000.5 100000\n"), &q, &p), -EINVAL,
         "cpu.max: fraction");
  is_int(jc_parse_cpu_max(S(""), &q, &p), -EINVAL, "cpu.max: empty");
  ok(q == 7 && p == 7, "cpu.max: outputs untouched on errors");
}

static void test_pressure(void) {
  jc_psi p;
  const char both[] = "some avg10=1.90 avg60=0.25 avg300=12.50 total=2207586\n"
                      "full avg10=0.00 avg60=0.00 avg300=0.00 total=17\n";
  is_int(jc_parse_pressure(S(both), &p), 0, "psi: some and full");
  ok(p.has_some && p.has_full, "psi: both lines seen");
  is_near(p.some.avg10, 1.90, 1e-9, "psi: some avg10");
  is_near(p.some.avg60, 0.25, 1e-9, "psi: some avg60");
  is_near(p.some.avg300, 12.5, 1e-9, "psi: some avg300");
  is_u64(p.some.total_usec, 2207586, "psi: some total");
  is_u64(p.full.total_usec, 17, "psi: full total");
  is_int(jc_parse_pressure(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=3\n"),
                           &p),
         0, "psi: some only (cpu.pressure before 5.13)");
  ok(p.has_some && !p.has_full, "psi: no full line");
  is_int(jc_parse_pressure(S("some avg10=0.00 avg60=0.00 total=3\n"), &p),
         -EINVAL, "psi: missing avg300");
  is_int(jc_parse_pressure(S("weird avg10=0.00\n"), &p), -EINVAL,
         "psi: unknown line kind");
  is_int(jc_parse_pressure(S(""), &p), -EINVAL, "psi: empty");
  is_int(jc_parse_pressure(S("some avg10=1. avg60=0.00 avg300=0.00 total=3\n"),
                           &p),
         -EINVAL, "psi: dot without digits");
}

static void test_mountinfo(void) {
  char path[64];
  const char v2[] =
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw";
  is_int(jc_parse_mountinfo_line(S(v2), path, sizeof(path)), 1,
         "mountinfo: cgroup2 line");
  is_str(path, "/sys/fs/cgroup/unified", "mountinfo: mount point");
  const char v1[] = "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime shared:5 - "
                    "cgroup cgroup rw,cpu";
  is_int(jc_parse_mountinfo_line(S(v1), path, sizeof(path)), 0,
         "mountinfo: cgroup v1 is not cgroup2");
  const char esc[] =
      "50 1 0:40 / /mnt/my\\040cgroup rw shared:1 master:2 - cgroup2 none rw";
  is_int(jc_parse_mountinfo_line(S(esc), path, sizeof(path)), 1,
         "mountinfo: optional fields and escape");
  is_str(path, "/mnt/my cgroup", "mountinfo: \\040 decoded");
  is_int(jc_parse_mountinfo_line(S("1 2 3"), path, sizeof(path)), -EINVAL,
         "mountinfo: short line");
  char tiny[4];
  ok(jc_parse_mountinfo_line(S(v2), tiny, sizeof(tiny)) < 0,
     "mountinfo: mount point longer than the buffer");

  /* A container's root: the overlay at "/", its upperdir (Collect "disk"). */
  char up[256];
  const char root[] =
      "1466 1297 0:134 / / rw,relatime master:363 - overlay overlay rw,"
      "lowerdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/"
      "snapshots/41/fs:/var/lib/containerd/io.containerd.snapshotter.v1."
      "overlayfs/snapshots/40/fs,upperdir=/var/lib/containerd/io.containerd."
      "snapshotter.v1.overlayfs/snapshots/57/fs,workdir=/var/lib/containerd/"
      "io.containerd.snapshotter.v1.overlayfs/snapshots/57/work";
  is_int(jc_parse_mountinfo_upper(S(root), up, sizeof(up)), 1,
         "mountinfo: the overlay at \"/\"");
  is_str(up, "/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/"
             "snapshots/57/fs",
         "  its upperdir");
  const char escaped[] = "7 1 0:50 / / rw - overlay overlay rw,lowerdir=/l,"
                         "upperdir=/srv/a\\054b\\040c/diff,workdir=/w,uuid=on";
  is_int(jc_parse_mountinfo_upper(S(escaped), up, sizeof(up)), 1,
         "mountinfo: an upperdir with ',' and ' ' escaped");
  is_str(up, "/srv/a,b c/diff", "  decoded, not cut at the escaped comma");
  is_int(jc_parse_mountinfo_upper(
             S("8 7 0:51 / /merged rw - overlay overlay rw,lowerdir=/l,"
               "upperdir=/u,workdir=/w"),
             up, sizeof(up)),
         0, "mountinfo: an overlay elsewhere than \"/\": not the root");
  is_int(jc_parse_mountinfo_upper(
             S("9 1 254:1 / / rw - ext4 /dev/vda1 rw,upperdir=/u"), up,
             sizeof(up)),
         0, "mountinfo: an ext4 root: no overlay");
  is_int(jc_parse_mountinfo_upper(
             S("9 1 0:52 / / ro - overlay overlay ro,lowerdir=/a:/b"), up,
             sizeof(up)),
         0, "mountinfo: a read-only overlay (no upperdir)");
  is_int(jc_parse_mountinfo_upper(S("9 1 0:52 / / ro"), up, sizeof(up)),
         -EINVAL, "mountinfo: no separator: malformed");
  ok(jc_parse_mountinfo_upper(S(root), tiny, sizeof(tiny)) < 0,
     "mountinfo: an upperdir longer than the buffer");
}

/* Words end at a space, a tab or a newline, whatever other byte they hold
 * (a byte above 0x7f included: the scanners' table is indexed unsigned). */
static void test_separators(void) {
  const char text[] = "\tusage_usec\t\t42 \t\n\n  k\xff\x01 7\nnr\rx 3\n";
  jc_cursor c;
  jc_parse_cursor_init(&c, text, sizeof(text) - 1);
  jc_token k;
  uint64_t v = 0;
  is_int(jc_parse_flat_next(&c, &k, &v), 1, "separators: tabs around");
  ok(jc_parse_token_eq(k, "usage_usec") && v == 42, "separators: tabbed key, value");
  is_int(jc_parse_flat_next(&c, &k, &v), 1, "separators: bytes above 0x7f");
  ok(k.len == 3 && (unsigned char)k.ptr[1] == 0xff && v == 7,
     "separators: 0xff and 0x01 are part of the word");
  is_int(jc_parse_flat_next(&c, &k, &v), 1, "separators: a CR is not a blank");
  ok(jc_parse_token_eq(k, "nr\rx") && v == 3, "separators: the CR kept in the key");
  is_int(jc_parse_flat_next(&c, &k, &v), 0, "separators: end");
  is_int(jc_parse_single(S("\t99\t\n"), &v), 0, "separators: single between tabs");
  ok(v == 99, "separators: single's value");
  is_int(jc_parse_single(S("1844674407370955161\n"), &v), 0, "u64: 2^64/10");
  is_int(jc_parse_single(S("99999999999999999999\n"), &v), -ERANGE,
         "u64: twenty nines overflow in the multiply");
}

int main(void) {
  test_single();
  test_flat();
  test_u64();
  test_separators();
  test_io();
  test_cpu_max();
  test_pressure();
  test_mountinfo();
  return done_testing();
}
