/*
 * jc_rapl — see jc_rapl.h.
 *
 * The read path is one pread() per readable zone into a buffer on the
 * stack, parsed in place: no allocation, no open(), no directory walk.
 * Everything that can be known once (names, ranges, maximum power, the
 * counters' descriptors) is learnt by jc_rapl_open().
 */
#include "jc_rapl.h"

#include "jc_hier.h"
#include "jc_parse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ID_PREFIX "intel-rapl:"
#define CONSTRAINTS_MAX 8 /* RAPL has 3 (long_term, short_term, peak_power) */

/* What the read path keeps of a zone between reads. */
typedef struct {
  int zone, sub;  /* of the id: N and M (-1) */
  int fd;         /* energy_uj; -1 when not readable */
  bool have_prev; /* a baseline to count from */
  uint64_t prev_uj, prev_ns;
  bool failing; /* a read failed and was said; said again when it reads */
} zone_state;

struct jc_rapl {
  jc_log log;
  char root[PATH_MAX];
  jc_rapl_state state;
  size_t count;
  jc_rapl_zone zone[JC_RAPL_ZONES_MAX];
  zone_state st[JC_RAPL_ZONES_MAX];
  jc_rapl_energy energy[JC_RAPL_ZONES_MAX];
};

/* ---- names ------------------------------------------------------------- */

/* A decimal number of 1 to 6 digits without a leading zero (but "0"). */
static int parse_index(const char *p, size_t len, int *ret) {
  if (len == 0 || len > 6 || (p[0] == '0' && len > 1))
    return -EINVAL;
  int v = 0;
  for (size_t i = 0; i < len; i++) {
    if (p[i] < '0' || p[i] > '9')
      return -EINVAL;
    v = v * 10 + (p[i] - '0');
  }
  *ret = v;
  return 0;
}

int jc_rapl_parse_id(const char *name, size_t len, int *ret_zone,
                     int *ret_sub) {
  size_t prefix = sizeof(ID_PREFIX) - 1;
  if (len <= prefix || memcmp(name, ID_PREFIX, prefix) != 0)
    return -EINVAL;
  const char *p = name + prefix, *end = name + len;
  const char *colon = memchr(p, ':', (size_t)(end - p));
  int zone, sub = -1;
  if (parse_index(p, (size_t)((colon ? colon : end) - p), &zone) < 0)
    return -EINVAL;
  if (colon && parse_index(colon + 1, (size_t)(end - colon - 1), &sub) < 0)
    return -EINVAL;
  *ret_zone = zone;
  *ret_sub = sub;
  return 0;
}

static const char *const kind_names[] = {
    [JC_RAPL_PACKAGE] = "package", [JC_RAPL_CORE] = "core",
    [JC_RAPL_UNCORE] = "uncore",   [JC_RAPL_DRAM] = "dram",
    [JC_RAPL_PSYS] = "psys",       [JC_RAPL_OTHER] = "other"};

const char *jc_rapl_kind_name(jc_rapl_kind kind) {
  return kind <= JC_RAPL_OTHER ? kind_names[kind] : "other";
}

/* A zone's kind from its name: "package-N..." or the subzone's name. */
static jc_rapl_kind kind_of(const char *name) {
  if (strncmp(name, "package-", 8) == 0)
    return JC_RAPL_PACKAGE;
  for (int k = JC_RAPL_CORE; k < JC_RAPL_OTHER; k++)
    if (strcmp(name, kind_names[k]) == 0)
      return (jc_rapl_kind)k;
  return JC_RAPL_OTHER;
}

/* The text of a name file, one line, as a name fit for any identifier. */
static void set_name(char *out, size_t size, const char *text, size_t len) {
  size_t n = 0;
  for (size_t i = 0; i < len && text[i] != '\n' && n + 1 < size; i++) {
    char c = text[i];
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    out[n++] = plain ? c : '_';
  }
  out[n] = '\0';
}

/* ---- discovery ------------------------------------------------------------ */

static bool zone_before(const zone_state *a, const zone_state *b) {
  return a->zone != b->zone ? a->zone < b->zone : a->sub < b->sub;
}

/* Entry i of r (id already set) into its place by (zone, sub). */
static void insert_sorted(jc_rapl *r, size_t i) {
  while (i > 0 && zone_before(&r->st[i], &r->st[i - 1])) {
    jc_rapl_zone z = r->zone[i];
    zone_state s = r->st[i];
    r->zone[i] = r->zone[i - 1];
    r->st[i] = r->st[i - 1];
    r->zone[i - 1] = z;
    r->st[i - 1] = s;
    i--;
  }
}

/* The ids below the root, sorted; -errno when it cannot be listed. */
static int list_zones(jc_rapl *r, int rootfd) {
  int fd = dup(rootfd);
  DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
  if (!dir) {
    int e = errno;
    if (fd >= 0)
      close(fd);
    return -e;
  }
  size_t skipped = 0;
  struct dirent *d;
  while ((d = readdir(dir))) {
    int zone, sub;
    size_t len = strlen(d->d_name);
    if (jc_rapl_parse_id(d->d_name, len, &zone, &sub) < 0)
      continue;
    if (r->count == JC_RAPL_ZONES_MAX) {
      skipped++;
      continue;
    }
    size_t i = r->count++;
    snprintf(r->zone[i].id, sizeof(r->zone[i].id), "%s", d->d_name);
    r->st[i] = (zone_state){.zone = zone, .sub = sub, .fd = -1};
    insert_sorted(r, i);
  }
  closedir(dir);
  if (skipped)
    jc_logf(&r->log, JC_LOG_INFO,
            "%zu RAPL zones in %s beyond the first %d are not reported",
            skipped, r->root, JC_RAPL_ZONES_MAX);
  return 0;
}

/* A positive number from a file of the zone, or 0. */
static uint64_t read_number(int dirfd, const char *file) {
  char buf[64];
  uint64_t v;
  ssize_t len = jc_hier_read_file_at(dirfd, file, buf, sizeof(buf));
  if (len <= 0 || jc_parse_single(buf, (size_t)len, &v) < 0 ||
      v == JC_VALUE_MAX)
    return 0;
  return v;
}

/* The largest power a constraint file of the zone declares, or 0. */
static uint64_t constraint_power(int dirfd) {
  static const char *const kinds[] = {"max_power_uw", "power_limit_uw"};
  uint64_t most = 0;
  for (int n = 0; n < CONSTRAINTS_MAX; n++)
    for (size_t k = 0; k < 2; k++) {
      char file[64];
      snprintf(file, sizeof(file), "constraint_%d_%s", n, kinds[k]);
      uint64_t v = read_number(dirfd, file);
      most = v > most ? v : most;
    }
  return most;
}

/* Why a zone that was found cannot be read, said once for that zone. */
static void say_unusable(jc_rapl *r, const jc_rapl_zone *z, const char *file,
                         const char *why) {
  jc_logf(&r->log, JC_LOG_INFO,
          "RAPL zone %s (%s) in %s: %s %s: its energy is not reported",
          z->id, z->name[0] ? z->name : "no name", r->root, file, why);
}

/* Learns zone i from its directory; *ret_denied when energy_uj is
 * root's only. */
static void learn_zone(jc_rapl *r, int rootfd, size_t i, bool *ret_denied) {
  jc_rapl_zone *z = &r->zone[i];
  zone_state *st = &r->st[i];
  z->package = -1;
  int dirfd = openat(rootfd, z->id, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0) {
    say_unusable(r, z, "the directory:", JC_STRERROR(errno));
    return;
  }
  char buf[64];
  ssize_t len = jc_hier_read_file_at(dirfd, "name", buf, sizeof(buf));
  if (len > 0)
    set_name(z->name, sizeof(z->name), buf, (size_t)len);
  z->kind = kind_of(z->name);
  z->max_power_uw = 2 * constraint_power(dirfd);
  z->range_uj = read_number(dirfd, "max_energy_range_uj");
  if (z->range_uj == 0) {
    say_unusable(r, z, "max_energy_range_uj",
                 "cannot be read as a positive number (so its wraps "
                 "cannot be counted)");
  } else {
    int fd = jc_hier_open_file(dirfd, "energy_uj", true);
    if (fd == -EACCES || fd == -EPERM)
      *ret_denied = true;
    else if (fd < 0)
      say_unusable(r, z, "energy_uj:", JC_STRERROR(-fd));
    st->fd = fd >= 0 ? fd : -1;
    z->readable = fd >= 0;
  }
  close(dirfd);
}

/* A subzone's package, the maximum power it falls back on, its label. */
static void relate_zone(jc_rapl *r, size_t i) {
  jc_rapl_zone *z = &r->zone[i];
  for (size_t k = 0; k < r->count && r->st[i].sub >= 0; k++)
    if (r->st[k].zone == r->st[i].zone && r->st[k].sub < 0)
      z->package = (int)k;
  const jc_rapl_zone *pkg = z->package >= 0 ? &r->zone[z->package] : NULL;
  if (z->max_power_uw) {
    z->power_source = JC_RAPL_POWER_CONSTRAINT;
  } else if (pkg && pkg->max_power_uw) {
    z->power_source = JC_RAPL_POWER_PACKAGE;
    z->max_power_uw = pkg->max_power_uw;
  } else {
    z->power_source = JC_RAPL_POWER_FALLBACK;
    z->max_power_uw = JC_RAPL_FALLBACK_POWER_UW;
  }
  const char *name = z->name[0] ? z->name : z->id;
  if (pkg)
    snprintf(z->label, sizeof(z->label), "%s-%s", pkg->label, name);
  else
    snprintf(z->label, sizeof(z->label), "%s", name);
  for (size_t k = 0; k < i; k++)
    if (strcmp(r->zone[k].label, z->label) == 0)
      snprintf(z->label, sizeof(z->label), "%s", z->id);
}

static void say_denied(jc_rapl *r, size_t denied) {
  jc_logf(&r->log, JC_LOG_INFO,
          "energy_uj of %zu of the %zu RAPL zones in %s cannot be read: "
          "Permission denied (only root may read it since Linux 5.10, "
          "CVE-2020-8694); to let a group read it, put the udev rule "
          "'SUBSYSTEM==\"powercap\", ACTION==\"add\", KERNEL==\"intel-rapl:*\", "
          "RUN+=\"/bin/chgrp powercap /sys%%p/energy_uj\", "
          "RUN+=\"/bin/chmod g+r /sys%%p/energy_uj\"' in "
          "/etc/udev/rules.d/60-powercap.rules, run 'groupadd --system "
          "powercap', add this user to it and run 'udevadm trigger "
          "--subsystem-match=powercap --action=add'; their energy is not "
          "reported",
          denied, r->count, r->root);
}

static void discover(jc_rapl *r, int rootfd) {
  int err = list_zones(r, rootfd);
  if (err < 0 || r->count == 0) {
    jc_logf(&r->log, JC_LOG_INFO,
            "no RAPL zone (intel-rapl:*) in %s%s%s: there is no RAPL energy "
            "to measure on this host",
            r->root, err < 0 ? ": " : "", err < 0 ? JC_STRERROR(-err) : "");
    return;
  }
  size_t denied = 0, readable = 0;
  for (size_t i = 0; i < r->count; i++) {
    bool zone_denied = false;
    learn_zone(r, rootfd, i, &zone_denied);
    denied += zone_denied;
  }
  for (size_t i = 0; i < r->count; i++) {
    relate_zone(r, i);
    readable += r->zone[i].readable;
  }
  if (denied)
    say_denied(r, denied);
  r->state = readable ? JC_RAPL_READY : JC_RAPL_UNREADABLE;
}

int jc_rapl_open(const char *root, const jc_log *log, jc_rapl **ret) {
  jc_rapl *r = calloc(1, sizeof(*r));
  if (!r)
    return -ENOMEM;
  r->log = log ? *log : (jc_log){0};
  r->state = JC_RAPL_ABSENT;
  snprintf(r->root, sizeof(r->root), "%s", root ? root : JC_RAPL_ROOT_DEFAULT);
  int rootfd = open(r->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0)
    jc_logf(&r->log, JC_LOG_INFO,
            "no powercap tree at %s (%s): there is no RAPL energy to "
            "measure on this host",
            r->root, JC_STRERROR(errno));
  else
    discover(r, rootfd);
  if (rootfd >= 0)
    close(rootfd);
  *ret = r;
  return 0;
}

void jc_rapl_free(jc_rapl *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->count; i++)
    if (r->st[i].fd >= 0)
      close(r->st[i].fd);
  free(r);
}

jc_rapl_state jc_rapl_state_of(const jc_rapl *r) { return r->state; }
size_t jc_rapl_zone_count(const jc_rapl *r) { return r->count; }

const jc_rapl_zone *jc_rapl_zone_at(const jc_rapl *r, size_t i) {
  return i < r->count ? &r->zone[i] : NULL;
}

const jc_rapl_energy *jc_rapl_energy_of(const jc_rapl *r, size_t i) {
  return i < r->count ? &r->energy[i] : NULL;
}

/* ---- reading ---------------------------------------------------------------- */

/* The counter now: 0, or -errno (-ERANGE: above the zone's range). */
static int read_counter(const zone_state *st, const jc_rapl_zone *z,
                        uint64_t *ret_uj) {
  char buf[32];
  ssize_t len = pread(st->fd, buf, sizeof(buf), 0);
  if (len < 0)
    return -errno;
  uint64_t v;
  int r = jc_parse_single(buf, (size_t)len, &v);
  if (r < 0)
    return r == -ERANGE ? -ERANGE : -EINVAL;
  if (v > z->range_uj)
    return -ERANGE;
  *ret_uj = v;
  return 0;
}

static void say_failing(jc_rapl *r, const jc_rapl_zone *z, int err) {
  if (err == -ERANGE)
    jc_logf(&r->log, JC_LOG_INFO,
            "RAPL zone %s (%s): energy_uj reads above its "
            "max_energy_range_uj %llu, so its wraps cannot be counted: its "
            "energy is not reported while it does",
            z->id, z->label, (unsigned long long)z->range_uj);
  else
    jc_logf(&r->log, JC_LOG_INFO,
            "RAPL zone %s (%s): energy_uj cannot be read (%s): its energy "
            "is not reported until it can",
            z->id, z->label,
            err == -EINVAL ? "not a number" : JC_STRERROR(-err));
}

/* Could the counter have wrapped more than once in dt_ns? */
static bool may_wrap_twice(jc_rapl *r, const jc_rapl_zone *z, uint64_t dt_ns) {
  double wrap_s = (double)z->range_uj / (double)z->max_power_uw;
  double dt_s = (double)dt_ns / 1e9;
  if (dt_s <= wrap_s)
    return false;
  jc_logf(&r->log, JC_LOG_DEBUG,
          "RAPL zone %s (%s): %.3f s since its previous read, longer than "
          "the %.3f s its counter takes to wrap at %.1f W: that interval "
          "may hold more than one wrap, its energy is not counted",
          z->id, z->label, dt_s, wrap_s, (double)z->max_power_uw / 1e6);
  return true;
}

static void read_zone(jc_rapl *r, size_t i, uint64_t now_ns) {
  const jc_rapl_zone *z = &r->zone[i];
  zone_state *st = &r->st[i];
  jc_rapl_energy *e = &r->energy[i];
  uint64_t v = 0;
  e->fresh = false;
  int err = read_counter(st, z, &v);
  if (err < 0) {
    e->read = false;
    e->gaps += st->have_prev; /* the energy since the last good read */
    st->have_prev = false;
    if (!st->failing)
      say_failing(r, z, err);
    st->failing = true;
    return;
  }
  if (st->failing)
    jc_logf(&r->log, JC_LOG_INFO, "RAPL zone %s (%s): energy_uj reads again",
            z->id, z->label);
  st->failing = false;
  e->read = true;
  uint64_t dt = now_ns > st->prev_ns ? now_ns - st->prev_ns : 0;
  if (st->have_prev && may_wrap_twice(r, z, dt)) {
    e->gaps++;
  } else if (st->have_prev) {
    /* Down means one wrap: the counter ran to its range and on from 0. */
    e->energy_uj = v >= st->prev_uj ? v - st->prev_uj
                                    : (z->range_uj - st->prev_uj) + v;
    e->interval_ns = dt;
    e->total_uj += e->energy_uj;
    e->fresh = true;
  }
  st->have_prev = true;
  st->prev_uj = v;
  st->prev_ns = now_ns;
}

void jc_rapl_read(jc_rapl *r, uint64_t now_ns) {
  for (size_t i = 0; i < r->count; i++)
    if (r->zone[i].readable)
      read_zone(r, i, now_ns);
}

double jc_rapl_watts(const jc_rapl_energy *e) {
  if (!e->fresh || e->interval_ns == 0)
    return 0;
  return (double)e->energy_uj * 1e3 / (double)e->interval_ns;
}
