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
#include <sys/stat.h>
#include <unistd.h>

#define ID_PREFIX "intel-rapl:"
#define CONSTRAINTS_MAX 8 /* RAPL has 3 (long_term, short_term, peak_power) */

/* What the read path keeps of a zone between reads. */
typedef struct {
  int zone, sub;  /* of the id: N and M (-1) */
  int fd;         /* energy_uj; -1 when not readable */
  dev_t dev;      /* the energy_uj kept open: another file under its */
  ino_t ino;      /* name is the zone registered again */
  bool present;   /* listed at the last look */
  uint64_t own_power_uw; /* twice its largest constraint; 0: none */
  bool denied;    /* energy_uj could not be opened: EACCES, EPERM */
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
  bool absence_said; /* the INFO that there is no zone (at open or since) */
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

/* A zone as listed: its id, parsed. */
typedef struct {
  char id[32];
  int zone, sub;
} listed_zone;

#define LISTED_MAX (2 * JC_RAPL_ZONES_MAX)

static bool listed_before(const listed_zone *a, const listed_zone *b) {
  return a->zone != b->zone ? a->zone < b->zone : a->sub < b->sub;
}

/* The ids below the root, in the order of (zone, sub): 0 and *ret_count
 * (*ret_skipped beyond LISTED_MAX), or -errno when it cannot be listed. */
static int list_zones(int rootfd, listed_zone *out, size_t *ret_count,
                      size_t *ret_skipped) {
  int fd = dup(rootfd);
  DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
  if (!dir) {
    int e = errno;
    if (fd >= 0)
      close(fd);
    return -e;
  }
  size_t n = 0, skipped = 0;
  struct dirent *d;
  while ((d = readdir(dir))) {
    listed_zone z;
    size_t len = strlen(d->d_name);
    if (len >= sizeof(z.id) ||
        jc_rapl_parse_id(d->d_name, len, &z.zone, &z.sub) < 0)
      continue;
    if (n == LISTED_MAX) {
      skipped++;
      continue;
    }
    memcpy(z.id, d->d_name, len + 1);
    size_t i = n++;
    for (; i > 0 && listed_before(&z, &out[i - 1]); i--)
      out[i] = out[i - 1];
    out[i] = z;
  }
  closedir(dir);
  *ret_count = n;
  *ret_skipped = skipped;
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

/* A decimal number at *p (advanced past it), or -1. */
static int leading_number(const char **p) {
  if (**p < '0' || **p > '9')
    return -1;
  long v = 0;
  while (**p >= '0' && **p <= '9' && v < 1000000)
    v = v * 10 + (*(*p)++ - '0');
  return v < 1000000 ? (int)v : -1;
}

/* "package-N" or "package-N-die-M": N and M (-1 without a die); both -1
 * for any other name. */
static void parse_package(const char *name, int *ret_package, int *ret_die) {
  *ret_package = *ret_die = -1;
  if (strncmp(name, "package-", 8) != 0)
    return;
  const char *p = name + 8;
  int n = leading_number(&p), m = -1;
  if (n < 0)
    return;
  if (strncmp(p, "-die-", 5) == 0) {
    p += 5;
    if ((m = leading_number(&p)) < 0)
      return;
  }
  if (*p != '\0')
    return;
  *ret_package = n;
  *ret_die = m;
}

/* Why a zone that was found cannot be read, said once for that zone. */
static void say_unusable(jc_rapl *r, const jc_rapl_zone *z, const char *file,
                         const char *why) {
  jc_logf(&r->log, JC_LOG_INFO,
          "RAPL zone %s (%s) in %s: %s %s: its energy is not reported",
          z->id, z->name[0] ? z->name : "no name", r->root, file, why);
}

/* The name file of a zone directory, as a name. */
static void read_name(int dirfd, char *out, size_t size) {
  char buf[64];
  out[0] = '\0';
  ssize_t len = jc_hier_read_file_at(dirfd, "name", buf, sizeof(buf));
  if (len > 0)
    set_name(out, size, buf, (size_t)len);
}

/* Opens zone i's energy_uj; its identity is kept.  *ret_denied when it
 * is root's only; quiet: nothing said (a zone tried again). */
static void open_counter(jc_rapl *r, int dirfd, size_t i, bool quiet,
                         bool *ret_denied) {
  jc_rapl_zone *z = &r->zone[i];
  zone_state *st = &r->st[i];
  int fd = jc_hier_open_file(dirfd, "energy_uj", true);
  struct stat sb;
  if (fd >= 0 && fstat(fd, &sb) < 0) {
    close(fd);
    fd = -errno;
  }
  st->denied = fd == -EACCES || fd == -EPERM;
  if (st->denied)
    *ret_denied = true;
  else if (fd < 0 && !quiet)
    say_unusable(r, z, "energy_uj:", JC_STRERROR(-fd));
  st->fd = fd >= 0 ? fd : -1;
  z->readable = fd >= 0;
  st->have_prev = false;
  st->failing = false;
  if (fd >= 0) {
    st->dev = sb.st_dev;
    st->ino = sb.st_ino;
  }
}

/* Learns zone i (id set) from its directory: name, kind, range, power,
 * and opens its counter. */
static void learn_zone(jc_rapl *r, int rootfd, size_t i, bool quiet,
                       bool *ret_denied) {
  jc_rapl_zone *z = &r->zone[i];
  z->package = -1;
  z->readable = false;
  int dirfd = openat(rootfd, z->id, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0) {
    if (!quiet)
      say_unusable(r, z, "the directory:", JC_STRERROR(errno));
    return;
  }
  read_name(dirfd, z->name, sizeof(z->name));
  z->kind = kind_of(z->name);
  parse_package(z->name, &z->package_id, &z->die_id);
  r->st[i].own_power_uw = 2 * constraint_power(dirfd);
  z->range_uj = read_number(dirfd, "max_energy_range_uj");
  if (z->range_uj == 0) {
    if (!quiet)
      say_unusable(r, z, "max_energy_range_uj",
                   "cannot be read as a positive number (so its wraps "
                   "cannot be counted)");
  } else {
    open_counter(r, dirfd, i, quiet, ret_denied);
  }
  close(dirfd);
}

/* A subzone's package, the maximum power it falls back on, its label. */
static void relate_zone(jc_rapl *r, size_t i) {
  jc_rapl_zone *z = &r->zone[i];
  z->package = -1;
  for (size_t k = 0; k < r->count && r->st[i].sub >= 0; k++)
    if (r->st[k].zone == r->st[i].zone && r->st[k].sub < 0)
      z->package = (int)k;
  const jc_rapl_zone *pkg = z->package >= 0 ? &r->zone[z->package] : NULL;
  uint64_t own = r->st[i].own_power_uw;
  uint64_t of_pkg = pkg ? r->st[z->package].own_power_uw : 0;
  if (own) {
    z->power_source = JC_RAPL_POWER_CONSTRAINT;
    z->max_power_uw = own;
  } else if (of_pkg) {
    z->power_source = JC_RAPL_POWER_PACKAGE;
    z->max_power_uw = of_pkg;
  } else if (pkg) {
    z->power_source = JC_RAPL_POWER_PACKAGE; /* the package's fallback */
    z->max_power_uw = JC_RAPL_FALLBACK_POWER_UW;
  } else {
    z->power_source = JC_RAPL_POWER_FALLBACK;
    z->max_power_uw = JC_RAPL_FALLBACK_POWER_UW;
  }
  const char *name = z->name[0] ? z->name : z->id;
  char label[JC_RAPL_LABEL_MAX];
  if (pkg)
    snprintf(label, sizeof(label), "%s-%s", pkg->label, name);
  else
    snprintf(label, sizeof(label), "%s", name);
  for (size_t k = 0; k < r->count; k++)
    if (k < i && strcmp(r->zone[k].label, label) == 0)
      snprintf(label, sizeof(label), "%s", z->id);
  memcpy(z->label, label, sizeof(label));
}

static void say_denied(jc_rapl *r, size_t denied, size_t of) {
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
          denied, of, r->root);
}

/* No zone to read (at open, or at a look that finds none), said once. */
static void say_no_tree(jc_rapl *r, int err) {
  if (r->absence_said)
    return;
  r->absence_said = true;
  jc_logf(&r->log, JC_LOG_INFO,
          "no powercap tree at %s (%s): there is no RAPL energy to measure "
          "on this host",
          r->root, JC_STRERROR(err));
}

static void say_no_zone(jc_rapl *r, int err) {
  if (r->absence_said)
    return;
  r->absence_said = true;
  jc_logf(&r->log, JC_LOG_INFO,
          "no RAPL zone (intel-rapl:*) in %s%s%s: there is no RAPL energy "
          "to measure on this host",
          r->root, err < 0 ? ": " : "", err < 0 ? JC_STRERROR(-err) : "");
}

static void update_state(jc_rapl *r) {
  size_t present = 0, readable = 0;
  for (size_t i = 0; i < r->count; i++) {
    present += r->st[i].present;
    readable += r->zone[i].readable;
  }
  r->state = readable ? JC_RAPL_READY
                      : present ? JC_RAPL_UNREADABLE : JC_RAPL_ABSENT;
}

/* A new slot for a listed zone; its index, or -1 when every one is used. */
static int add_slot(jc_rapl *r, const listed_zone *l) {
  if (r->count == JC_RAPL_ZONES_MAX)
    return -1;
  size_t i = r->count++;
  r->zone[i] = (jc_rapl_zone){.package = -1, .package_id = -1, .die_id = -1};
  snprintf(r->zone[i].id, sizeof(r->zone[i].id), "%s", l->id);
  r->st[i] = (zone_state){.zone = l->zone, .sub = l->sub, .fd = -1,
                          .present = true};
  r->energy[i] = (jc_rapl_energy){0};
  return (int)i;
}

static void say_beyond(jc_rapl *r, size_t skipped) {
  if (skipped)
    jc_logf(&r->log, JC_LOG_INFO,
            "%zu RAPL zones in %s beyond the first %d are not reported",
            skipped, r->root, JC_RAPL_ZONES_MAX);
}

static void discover(jc_rapl *r, int rootfd) {
  listed_zone listed[LISTED_MAX];
  size_t n = 0, skipped = 0;
  int err = list_zones(rootfd, listed, &n, &skipped);
  size_t denied = 0, beyond = skipped;
  for (size_t k = 0; err == 0 && k < n; k++) {
    int i = add_slot(r, &listed[k]);
    if (i < 0) {
      beyond++;
      continue;
    }
    bool zone_denied = false;
    learn_zone(r, rootfd, (size_t)i, false, &zone_denied);
    denied += zone_denied;
  }
  say_beyond(r, beyond);
  for (size_t i = 0; i < r->count; i++)
    relate_zone(r, i);
  if (denied)
    say_denied(r, denied, r->count);
  update_state(r);
  if (r->count == 0)
    say_no_zone(r, err);
}

int jc_rapl_open(const char *root, const jc_log *log, jc_rapl **ret) {
  jc_rapl *r = calloc(1, sizeof(*r));
  if (!r)
    return -ENOMEM;
  r->log = log ? *log : (jc_log){0};
  r->state = JC_RAPL_ABSENT;
  snprintf(r->root, sizeof(r->root), "%s", root ? root : JC_RAPL_ROOT_DEFAULT);
  int rootfd = open(r->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0) {
    say_no_tree(r, errno);
  } else {
    discover(r, rootfd);
    close(rootfd);
  }
  *ret = r;
  return 0;
}

/* ---- looking again ----------------------------------------------------------- */

static int find_slot(const jc_rapl *r, const char *id, const char *name) {
  for (size_t i = 0; i < r->count; i++)
    if (strcmp(r->zone[i].id, id) == 0 && strcmp(r->zone[i].name, name) == 0)
      return (int)i;
  return -1;
}

/* Zone i's interval since its last read is given up, for why. */
static void give_up(jc_rapl *r, size_t i, jc_rapl_gap why) {
  zone_state *st = &r->st[i];
  if (st->have_prev) {
    r->energy[i].gaps++;
    r->energy[i].gap = why;
    r->energy[i].gap_ns = 0;
  }
  st->have_prev = false;
  r->energy[i].read = false;
  r->energy[i].fresh = false;
}

static void close_zone(jc_rapl *r, size_t i, jc_rapl_gap why) {
  give_up(r, i, why);
  if (r->st[i].fd >= 0)
    close(r->st[i].fd);
  r->st[i].fd = -1;
  r->zone[i].readable = false;
}

/* Is energy_uj of zone i still the file kept open? */
static bool same_counter(const jc_rapl *r, int rootfd, size_t i) {
  char path[64];
  struct stat sb;
  snprintf(path, sizeof(path), "%s/energy_uj", r->zone[i].id);
  return fstatat(rootfd, path, &sb, 0) == 0 && sb.st_dev == r->st[i].dev &&
         sb.st_ino == r->st[i].ino;
}

/* Zone i, listed again: opened again where it was closed, could not be
 * opened, or is another file now.  true when it changed. */
static bool refresh_zone(jc_rapl *r, int rootfd, size_t i, size_t *denied) {
  zone_state *st = &r->st[i];
  bool was_present = st->present, was_readable = r->zone[i].readable;
  st->present = true;
  if (was_present && was_readable && same_counter(r, rootfd, i))
    return false;
  if (was_readable)
    close_zone(r, i, JC_RAPL_GAP_REOPENED);
  bool zone_denied = false, was_denied = st->denied;
  learn_zone(r, rootfd, i, was_present, &zone_denied);
  if (zone_denied && !was_denied)
    (*denied)++;
  if (r->zone[i].readable && (was_denied || !was_present))
    jc_logf(&r->log, JC_LOG_INFO, "RAPL zone %s (%s) in %s can be read %s",
            r->zone[i].id, r->zone[i].label, r->root,
            was_present ? "now" : "again");
  return r->zone[i].readable != was_readable || was_readable;
}

/* Zones the look found for the first time: one INFO naming them. */
static void say_found(jc_rapl *r, size_t first) {
  char names[512] = "";
  size_t len = 0;
  for (size_t i = first; i < r->count && len < sizeof(names); i++)
    len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s (%s)",
                            i > first ? ", " : "", r->zone[i].label,
                            r->zone[i].id);
  jc_logf(&r->log, JC_LOG_INFO,
          "RAPL zones found in %s: %s; their energy is reported from now on",
          r->root, names);
}

bool jc_rapl_look(jc_rapl *r) {
  listed_zone listed[LISTED_MAX];
  size_t n = 0, skipped = 0, denied = 0, first_new = r->count;
  bool changed = false, listed_now[JC_RAPL_ZONES_MAX] = {false};
  int rootfd = open(r->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0 || list_zones(rootfd, listed, &n, &skipped) < 0)
    n = 0;
  for (size_t k = 0; k < n; k++) {
    char name[32] = "", path[64];
    snprintf(path, sizeof(path), "%s", listed[k].id);
    int dirfd = openat(rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd >= 0) {
      read_name(dirfd, name, sizeof(name));
      close(dirfd);
    }
    int i = find_slot(r, listed[k].id, name);
    if (i < 0 && (i = add_slot(r, &listed[k])) >= 0) {
      bool zone_denied = false;
      learn_zone(r, rootfd, (size_t)i, false, &zone_denied);
      denied += zone_denied;
      changed = true;
    } else if (i >= 0) {
      changed |= refresh_zone(r, rootfd, (size_t)i, &denied);
    }
    if (i >= 0)
      listed_now[i] = true;
  }
  for (size_t i = 0; i < r->count; i++)
    if (!listed_now[i] && r->st[i].present) {
      r->st[i].present = false;
      if (r->zone[i].readable)
        jc_logf(&r->log, JC_LOG_INFO,
                "RAPL zone %s (%s) is gone from %s: its energy is not "
                "reported until it is back",
                r->zone[i].id, r->zone[i].label, r->root);
      close_zone(r, i, JC_RAPL_GAP_UNREADABLE);
      changed = true;
    }
  if (rootfd >= 0)
    close(rootfd);
  if (changed)
    for (size_t i = 0; i < r->count; i++)
      relate_zone(r, i);
  if (r->count > first_new)
    say_found(r, first_new);
  if (denied)
    say_denied(r, denied, r->count);
  update_state(r);
  return changed;
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

/* The time zone z's counter takes to wrap at its maximum power. */
static uint64_t wrap_ns(const jc_rapl_zone *z) {
  double ns = (double)z->range_uj / (double)z->max_power_uw * 1e9;
  return ns < 1.8e19 ? (uint64_t)ns : UINT64_MAX;
}

static void read_zone(jc_rapl *r, size_t i, uint64_t now_ns) {
  const jc_rapl_zone *z = &r->zone[i];
  zone_state *st = &r->st[i];
  jc_rapl_energy *e = &r->energy[i];
  uint64_t v = 0;
  e->fresh = false;
  int err = read_counter(st, z, &v);
  if (err < 0) {
    /* the energy since the last good read is given up */
    give_up(r, i, err == -ERANGE ? JC_RAPL_GAP_RANGE : JC_RAPL_GAP_UNREADABLE);
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
  if (st->have_prev && dt > wrap_ns(z)) {
    /* It may have wrapped more than once: not guessed. */
    jc_logf(&r->log, JC_LOG_DEBUG,
            "RAPL zone %s (%s): %.3f s since its previous read, longer than "
            "the %.3f s its counter takes to wrap at %.1f W: that interval "
            "may hold more than one wrap, its energy is not counted",
            z->id, z->label, (double)dt / 1e9, (double)wrap_ns(z) / 1e9,
            (double)z->max_power_uw / 1e6);
    e->gaps++;
    e->gap = JC_RAPL_GAP_TOO_LONG;
    e->gap_ns = dt;
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

uint64_t jc_rapl_due_ns(const jc_rapl *r) {
  uint64_t due = UINT64_MAX;
  for (size_t i = 0; i < r->count; i++) {
    if (!r->zone[i].readable || !r->st[i].have_prev)
      continue;
    /* A quarter of the time to wrap: a read held up by a loaded host
     * still comes before the counter can wrap twice. */
    uint64_t period = wrap_ns(&r->zone[i]) / 4;
    if (period < JC_RAPL_MIN_PERIOD_NS)
      period = JC_RAPL_MIN_PERIOD_NS;
    uint64_t at = r->st[i].prev_ns + period;
    due = at < due && at >= r->st[i].prev_ns ? at : due;
  }
  return due;
}

double jc_rapl_watts(const jc_rapl_energy *e) {
  if (!e->fresh || e->interval_ns == 0)
    return 0;
  return (double)e->energy_uj * 1e3 / (double)e->interval_ns;
}
