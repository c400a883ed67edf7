/*
 * jc_net — see jc_net.h.
 */
#include "jc_net.h"

#include "jc_hier.h"
#include "jc_internal.h"
#include "jc_netdev.h"
#include "jc_netsnmp.h"
#include "jc_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* net/dev read at most: about 6,000 interfaces, far past IFACES_MAX. */
#define NETDEV_MAX (1u << 20)
#define PROCS_MAX (4u << 20)

/* One interface of the namespace a cgroup owns. */
typedef struct {
  char raw[JC_NETDEV_NAME_SIZE];  /* as the kernel wrote it */
  char name[JC_NETDEV_NAME_SIZE]; /* as sent: the type instance */
  uint64_t last[JC_NETDEV_COUNTERS];  /* the kernel's, at the last read */
  uint64_t total[JC_NETDEV_COUNTERS]; /* what is sent: never backwards */
  bool present; /* in the last read */
  bool now;     /* in this read */
  bool chosen;  /* NetInterface lets it out */
} iface;

/* The namespace's health counters (opt-in lists), in list order. */
#define HEALTH 4
static const struct {
  const char *file, *prefix, *name;
} health[HEALTH] = {
    {"snmp", "Tcp", "RetransSegs"},
    {"netstat", "TcpExt", "ListenOverflows"},
    {"netstat", "TcpExt", "ListenDrops"},
    {"snmp", "Udp", "RcvbufErrors"},
};

/* What a cgroup that owns a namespace keeps. */
typedef struct {
  uint64_t h_last[HEALTH], h_total[HEALTH];
  bool h_seen[HEALTH]; /* h_last holds a read of this namespace */
  bool h_now[HEALTH];  /* read this pass */
  uint64_t ns;  /* the namespace the interfaces are of */
  iface *ifs;
  size_t count;
  bool read;    /* this pass: read, the figures go out */
  bool said_full, said_bad;
} owned;

/* The slot: a cgroup's namespace, and what it owns. */
typedef struct {
  pid_t pid;   /* the process its namespace was found through; 0: none */
  uint64_t ns; /* 0: none known */
  bool owner_now; /* owns a namespace this pass */
  owned *own;
} net_slot;

typedef struct {
  uint64_t ns;
  size_t i; /* in c->tracked */
} member;

typedef struct {
  char proc[PATH_MAX];     /* ProcRoot */
  char root_kpath[PATH_MAX]; /* CgroupRoot as /proc/<pid>/cgroup says it */
  uint64_t host_ns;
  bool off; /* no permission, found in a pass */
  bool said_host, said_hidden;
  member *m;
  size_t m_cap;
  char *buf; /* net/dev */
  size_t buf_size;
} net_self;

static net_self *self(const jc_collector *c) {
  return jc_step_self(c, JC_STEP_NET);
}

static net_slot *slot_of(const jc_collector *c, const jc_tracked *t) {
  return jc_step_slot(c, t, JC_STEP_NET);
}

/* ---- a process's namespace ------------------------------------------------- */

/* The inode of pid's network namespace: 0 or a negative errno (-ENOENT:
 * no such process here, -EACCES: not ours to look at). */
static int ns_of_pid(const net_self *n, pid_t pid, uint64_t *ret_ns) {
  char path[PATH_MAX + 32], link[64];
  snprintf(path, sizeof(path), "%s/%d/ns/net", n->proc, (int)pid);
  ssize_t len = readlink(path, link, sizeof(link) - 1);
  if (len < 0)
    return -errno;
  link[len] = '\0';
  unsigned long long ino;
  char end;
  if (sscanf(link, "net:[%llu%c", &ino, &end) != 2 || end != ']' || !ino)
    return -EBADMSG;
  *ret_ns = ino;
  return 0;
}

/* Is pid in the cgroup at relpath still?  Its /proc/<pid>/cgroup's v2
 * path (jc_proc) against CgroupRoot's kernel path joined with relpath. */
static bool pid_in(const net_self *n, pid_t pid, const char *relpath) {
  char path[PATH_MAX], want[PATH_MAX * 2];
  if (jc_proc_cgroup_at(n->proc, pid, path, sizeof(path)) < 0)
    return false;
  bool top = strcmp(n->root_kpath, "/") == 0;
  snprintf(want, sizeof(want), "%s%s%s", top ? "" : n->root_kpath,
           relpath[0] || top ? "/" : "", relpath);
  return strcmp(path, want) == 0;
}

/* What a look at a cgroup's processes found. */
typedef struct {
  pid_t pid;
  uint64_t ns;
  size_t hidden; /* pids this /proc lacks: 0 in cgroup.procs */
} look;

/* The namespace of the first process of t that /proc has: 0 (ret->pid 0
 * when it has none), or a negative errno of its cgroup.procs, or -EACCES
 * / -EPERM when none of its processes' namespaces is ours to see. */
static int find_ns(jc_collector *c, const jc_tracked *t, look *ret) {
  net_self *n = self(c);
  int dirfd = t->dirfd;
  if (dirfd < 0) {
    dirfd = jc_hier_open_relpath(c->rootfd, t->relpath, NULL, 0);
    if (dirfd < 0)
      return dirfd;
  }
  char *buf;
  ssize_t len = jc_hier_read_file_grown(dirfd, "cgroup.procs", PROCS_MAX, &buf);
  if (dirfd != t->dirfd)
    close(dirfd);
  if (len < 0)
    return (int)len;
  look l = {0, 0, 0};
  int r = 0;
  for (const char *p = buf, *end = buf + len; p < end && !l.pid;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t linelen = nl ? (size_t)(nl - p) : (size_t)(end - p);
    uint64_t pid;
    p += linelen + 1;
    if (jc_parse_single(p - linelen - 1, linelen, &pid) < 0 ||
        pid > 4194304)
      continue;
    if (pid == 0) { /* in a PID namespace that is not ours */
      l.hidden++;
      continue;
    }
    int e = ns_of_pid(n, (pid_t)pid, &l.ns);
    if (e == 0)
      l.pid = (pid_t)pid;
    else if (e == -EACCES || e == -EPERM)
      r = e; /* one not ours to see (an init more privileged): the next */
    /* else it exited since the list was read: the next one */
  }
  free(buf);
  if (!l.pid && r < 0)
    return r; /* none of them ours to see */
  *ret = l;
  return 0;
}

static void say_off(jc_collector *c, int err) {
  jc_logf(&c->log, JC_LOG_INFO,
          "Collect \"network\" is off: another process's network namespace "
          "(%s/<pid>/ns/net) cannot be read (%s); collectd needs root or "
          "CAP_SYS_PTRACE for it; the other figures go on",
          self(c)->proc, JC_STRERROR(-err));
  self(c)->off = true;
}

/* After t was read in a pass: its namespace, kept while its process is
 * still in it and in t. */
static void note(jc_collector *c, jc_tracked *t, const jc_read *r) {
  net_self *n = self(c);
  net_slot *s = slot_of(c, t);
  if (n->off || !r->in_pass)
    return;
  uint64_t ns;
  if (s->pid && ns_of_pid(n, s->pid, &ns) == 0 && ns == s->ns &&
      pid_in(n, s->pid, t->relpath))
    return;
  look l = {0, 0, 0};
  int e = find_ns(c, t, &l);
  if (e == -EACCES || e == -EPERM) {
    say_off(c, e);
    return;
  }
  s->pid = e == 0 ? l.pid : 0;
  s->ns = e == 0 && l.pid ? l.ns : 0;
  if (e == 0 && !l.pid && l.hidden && !n->said_hidden) {
    n->said_hidden = true;
    jc_logf(&c->log, JC_LOG_INFO,
            "Collect \"network\": cgroup %s lists processes that %s does not "
            "have: collectd runs in a PID namespace of its own; give it the "
            "host's (hostPID: true in Kubernetes, --pid=host with Docker or "
            "Podman) and the host's /proc (ProcRoot) for network figures; "
            "the other figures go on",
            t->relpath[0] ? t->relpath : "/", n->proc);
  }
}

/* ---- a namespace's interfaces ---------------------------------------------- */

/* Reads path into n->buf, at most NETDEV_MAX bytes, up to the last whole
 * line when there is more: 0 with *ret_len and *ret_cut, or a negative
 * errno. */
static int read_netdev(net_self *n, const char *path, size_t *ret_len,
                       bool *ret_cut) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  size_t have = 0;
  bool cut = false;
  for (;;) {
    if (have == n->buf_size) {
      if (n->buf_size >= NETDEV_MAX) {
        cut = true;
        break;
      }
      size_t size = n->buf_size ? n->buf_size * 2 : 16384;
      char *grown = realloc(n->buf, size);
      if (!grown) {
        close(fd);
        return -ENOMEM;
      }
      n->buf = grown;
      n->buf_size = size;
    }
    ssize_t got = read(fd, n->buf + have, n->buf_size - have);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int e = -errno;
      close(fd);
      return e;
    }
    if (got == 0)
      break;
    have += (size_t)got;
  }
  close(fd);
  if (cut)
    while (have > 0 && n->buf[have - 1] != '\n')
      have--;
  *ret_len = have;
  *ret_cut = cut;
  return 0;
}

/* A name writers take as a type instance: bytes other than letters,
 * digits and . _ - @ + become '_' (a Linux name may hold almost any). */
static bool safe_name(const char *raw, char *out) {
  bool same = true;
  size_t i = 0;
  for (; raw[i]; i++) {
    char ch = raw[i];
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              (ch >= '0' && ch <= '9') || strchr("._-@+", ch);
    out[i] = ok ? ch : '_';
    same &= ok;
  }
  out[i] = '\0';
  return same;
}

/* raw as a log may print it: other bytes as \xNN. */
static void printable(const char *raw, char *out, size_t size) {
  size_t k = 0;
  for (size_t i = 0; raw[i] && k + 5 < size; i++) {
    unsigned char ch = (unsigned char)raw[i];
    if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\')
      out[k++] = (char)ch;
    else
      k += (size_t)snprintf(out + k, size - k, "\\x%02x", ch);
  }
  out[k] = '\0';
}

/* NetInterface and NetIgnoreSelected: loopback is left out unless a
 * pattern selects it. */
static bool chosen_iface(const jc_config *cfg, const char *name) {
  bool matched = false;
  for (size_t i = 0; i < cfg->net_interface_count && !matched; i++)
    matched = jc_pattern_match(cfg->net_interface[i], name);
  if (cfg->net_interface_count && !cfg->net_ignore_selected)
    return matched;
  return !matched && strcmp(name, "lo") != 0;
}

/* The entry of raw in o: found, or new (an absent one makes room when o
 * is full); NULL when full of present ones. */
static iface *entry(jc_collector *c, const jc_tracked *t, owned *o,
                    const char *raw) {
  for (size_t i = 0; i < o->count; i++)
    if (strcmp(o->ifs[i].raw, raw) == 0)
      return &o->ifs[i];
  iface *e = NULL;
  if (o->count < JC_NET_IFACES_MAX) {
    iface *grown = realloc(o->ifs, (o->count + 1) * sizeof(*grown));
    if (!grown)
      return NULL;
    o->ifs = grown;
    e = &o->ifs[o->count++];
  } else {
    for (size_t i = 0; i < o->count && !e; i++)
      if (!o->ifs[i].present && !o->ifs[i].now)
        e = &o->ifs[i]; /* gone: its series ends, as a counter reset */
    if (!e)
      return NULL;
  }
  *e = (iface){0};
  snprintf(e->raw, sizeof(e->raw), "%s", raw);
  e->chosen = chosen_iface(c->cfg, raw);
  if (!safe_name(raw, e->name) && e->chosen) {
    char shown[JC_NETDEV_NAME_SIZE * 4 + 1];
    printable(raw, shown, sizeof(shown));
    jc_logf(&c->log, JC_LOG_INFO,
            "cgroup %s: interface \"%s\" is sent as \"%s\" (characters "
            "other than letters, digits and ._-@+ become _)",
            t->instance, shown, e->name);
  }
  return e;
}

/* The new counters of an interface: totals that never run backwards.  One
 * that was absent from the last read, or a counter lower than before,
 * is an interface made again: its counters start from 0. */
static void advance(iface *e, const uint64_t *v) {
  for (int k = 0; k < JC_NETDEV_COUNTERS; k++) {
    uint64_t growth = e->present && v[k] >= e->last[k] ? v[k] - e->last[k]
                                                        : v[k];
    e->total[k] = jc_sample_sum(e->total[k], growth);
    if (e->total[k] > (uint64_t)INT64_MAX)
      e->total[k] = (uint64_t)INT64_MAX; /* a DERIVE holds no more */
    e->last[k] = v[k];
  }
  e->now = true;
}

static void say_bad(jc_collector *c, const jc_tracked *t, owned *o,
                    const char *path, int err, const char *what) {
  if (o->said_bad)
    return;
  o->said_bad = true;
  jc_logf(&c->log, JC_LOG_WARNING,
          "cgroup %s: %s: %s (%s); the other interfaces are read",
          t->instance, path, what, JC_STRERROR(-err));
}

/* Parses the net/dev text in n->buf[0..len) into o. */
static void take(jc_collector *c, const jc_tracked *t, owned *o,
                 const char *path, size_t len, bool cut) {
  net_self *n = self(c);
  jc_netdev_cursor cur;
  int r = jc_netdev_begin(&cur, n->buf, len);
  if (r < 0) {
    say_bad(c, t, o, path, r, "not the format of net/dev");
    return;
  }
  bool full = cut;
  jc_netdev_iface f;
  while ((r = jc_netdev_next(&cur, &f)) != 0) {
    if (r < 0) {
      say_bad(c, t, o, path, r, "a line was skipped");
      continue;
    }
    iface *e = entry(c, t, o, f.name);
    if (!e) {
      full = true;
      continue;
    }
    if (!e->now)
      advance(e, f.v); /* a name twice: the first line counts */
  }
  for (size_t i = 0; i < o->count; i++) { /* those absent now are gone */
    o->ifs[i].present = o->ifs[i].now;
    o->ifs[i].now = false;
  }
  if (full && !o->said_full) {
    o->said_full = true;
    jc_logf(&c->log, JC_LOG_WARNING,
            "cgroup %s: its network namespace has more than %d interfaces "
            "(or %s is longer than %u bytes): the first are sent, the "
            "rest left out",
            t->instance, JC_NET_IFACES_MAX, path, NETDEV_MAX);
  }
  o->read = true;
}

/* ---- the pass's end: owners, reads, lists ------------------------------------ */

static int by_ns(const void *a, const void *b) {
  const member *x = a, *y = b;
  if (x->ns != y->ns)
    return x->ns < y->ns ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* The tracked cgroups whose processes are in a namespace not the host's,
 * sorted by namespace, then walk order; how many. */
static size_t gather(jc_collector *c) {
  net_self *n = self(c);
  if (n->m_cap < c->tracked_count) {
    member *grown = realloc(n->m, c->tracked_count * sizeof(*grown));
    if (!grown)
      return 0; /* out of memory: no figures this pass */
    n->m = grown;
    n->m_cap = c->tracked_count;
  }
  size_t count = 0;
  bool host = false;
  for (size_t i = 0; i < c->tracked_count; i++) {
    jc_tracked *t = c->tracked[i];
    net_slot *s = slot_of(c, t);
    s->owner_now = false;
    if (t->gone || !s->ns)
      continue;
    if (s->ns == n->host_ns)
      host = true;
    else
      n->m[count++] = (member){s->ns, i};
  }
  if (host && !n->said_host) {
    n->said_host = true;
    jc_logf(&c->log, JC_LOG_INFO,
            "Collect \"network\": cgroups in the host's network namespace "
            "(that of PID 1: services, hostNetwork pods) get no network "
            "figures; the host's interfaces are the interface plugin's");
  }
  qsort(n->m, count, sizeof(*n->m), by_ns);
  return count;
}

/* The length of the longest common path of a and b, at a level's end. */
static size_t common(const char *a, size_t alen, const char *b) {
  size_t i = 0, level = 0;
  for (; i < alen && a[i] && a[i] == b[i]; i++)
    if (a[i] == '/')
      level = i;
  if (i == alen && (b[i] == '\0' || b[i] == '/'))
    return alen;
  return level;
}

/* The owner of the namespace of members m[0..count) (jc_net.h); NULL
 * when it has none this pass. */
static jc_tracked *owner_of(jc_collector *c, const member *m, size_t count) {
  const char *first = c->tracked[m[0].i]->relpath;
  size_t len = strlen(first);
  for (size_t k = 1; k < count; k++)
    len = common(first, len, c->tracked[m[k].i]->relpath);
  char lca[PATH_MAX];
  snprintf(lca, sizeof(lca), "%.*s", (int)len, first);
  /* Walk order puts a cgroup's ancestors before it, the nearest last. */
  for (size_t j = m[0].i + 1; j-- > 0;) {
    jc_tracked *t = c->tracked[j];
    if (t->gone || !jc_hier_is_within(lca, t->relpath))
      continue;
    if (!slot_of(c, t)->owner_now)
      return t;
    break;
  }
  jc_tracked *t = c->tracked[m[0].i];
  return slot_of(c, t)->owner_now ? NULL : t;
}

static bool chosen_list(const jc_collector *c, jc_list_id id) {
  return c->cfg->sel.list[id] != JC_SEL_OFF;
}

/* The health counters chosen, from pid's net/snmp and net/netstat (read
 * only when one of theirs is chosen): totals that never run backwards. */
static void read_health(jc_collector *c, owned *o, pid_t pid) {
  net_self *n = self(c);
  static const char *const files[] = {"snmp", "netstat"};
  for (int k = 0; k < HEALTH; k++)
    o->h_now[k] = false;
  for (size_t f = 0; f < 2; f++) {
    bool want = false;
    for (int k = 0; k < HEALTH; k++)
      want |= !strcmp(health[k].file, files[f]) &&
              chosen_list(c, JC_LIST_TCP_RETRANS_SEGS + k);
    if (!want)
      continue;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/%d/net/%s", n->proc, (int)pid, files[f]);
    size_t len = 0;
    bool cut;
    if (read_netdev(n, path, &len, &cut) < 0)
      continue; /* gone since net/dev: the next pass */
    for (int k = 0; k < HEALTH; k++) {
      uint64_t v;
      if (strcmp(health[k].file, files[f]) != 0 ||
          jc_netsnmp_find(n->buf, len, health[k].prefix, health[k].name,
                          &v) < 0)
        continue;
      uint64_t growth = o->h_seen[k] && v >= o->h_last[k] ? v - o->h_last[k]
                                                          : v;
      o->h_total[k] = jc_sample_sum(o->h_total[k], growth);
      if (o->h_total[k] > (uint64_t)INT64_MAX)
        o->h_total[k] = (uint64_t)INT64_MAX;
      o->h_last[k] = v;
      o->h_seen[k] = o->h_now[k] = true;
    }
  }
}

/* Reads the namespace of m[0..count) into owner t's figures, through the
 * first member's process that is still there. */
static void read_ns(jc_collector *c, jc_tracked *t, const member *m,
                    size_t count) {
  net_self *n = self(c);
  net_slot *s = slot_of(c, t);
  if (!s->own && !(s->own = calloc(1, sizeof(*s->own))))
    return;
  owned *o = s->own;
  if (o->ns != m[0].ns) { /* another namespace: its counters are new */
    for (size_t i = 0; i < o->count; i++)
      o->ifs[i].present = false;
    memset(o->h_seen, 0, sizeof(o->h_seen));
    o->ns = m[0].ns;
  }
  for (size_t k = 0; k < count; k++) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/%d/net/dev", n->proc,
             (int)slot_of(c, c->tracked[m[k].i])->pid);
    size_t len = 0;
    bool cut;
    int r = read_netdev(n, path, &len, &cut);
    if (r == -ENOENT || r == -ESRCH)
      continue; /* exited since: the next one */
    if (r == -EACCES || r == -EPERM) {
      say_off(c, r);
      return;
    }
    if (r < 0) {
      say_bad(c, t, o, path, r, "cannot be read");
      return;
    }
    take(c, t, o, path, len, cut);
    read_health(c, o, slot_of(c, c->tracked[m[k].i])->pid);
    return;
  }
}

static void put(jc_collector *c, jc_collect_fn emit, void *ctx,
                const jc_target *target, jc_list_id id, const iface *e,
                int rx) {
  if (c->cfg->sel.list[id] == JC_SEL_OFF)
    return;
  jc_metric m = {.list = id, .type = jc_lists[id].type,
                 .type_instance = e->name, .kind = JC_DERIVE, .count = 2,
                 .derive = {(int64_t)e->total[rx],
                            (int64_t)e->total[rx + JC_NETDEV_TX_BYTES]}};
  emit(ctx, target, &m);
}

static void send(jc_collector *c, const jc_tracked *t, jc_collect_fn emit,
                 void *ctx) {
  const owned *o = slot_of(c, t)->own;
  jc_target target = jc_tracked_target(c, t);
  for (size_t i = 0; i < o->count; i++) {
    const iface *e = &o->ifs[i];
    if (!e->present || !e->chosen)
      continue;
    put(c, emit, ctx, &target, JC_LIST_IF_OCTETS, e, JC_NETDEV_RX_BYTES);
    put(c, emit, ctx, &target, JC_LIST_IF_PACKETS, e, JC_NETDEV_RX_PACKETS);
    put(c, emit, ctx, &target, JC_LIST_IF_ERRORS, e, JC_NETDEV_RX_ERRS);
    put(c, emit, ctx, &target, JC_LIST_IF_DROPPED, e, JC_NETDEV_RX_DROP);
  }
  for (int k = 0; k < HEALTH; k++) {
    jc_list_id id = JC_LIST_TCP_RETRANS_SEGS + k;
    if (!o->h_now[k] || !chosen_list(c, id))
      continue;
    jc_metric m = {.list = id, .type = jc_lists[id].type,
                   .type_instance = jc_lists[id].type_instance,
                   .kind = JC_DERIVE, .count = 1,
                   .derive = {(int64_t)o->h_total[k]}};
    emit(ctx, &target, &m);
  }
}

/* After every cgroup: each namespace once, under its owner. */
static void end(jc_collector *c, jc_collect_fn emit, void *ctx) {
  net_self *n = self(c);
  if (n->off)
    return;
  size_t count = gather(c);
  for (size_t a = 0, b; a < count && !n->off; a = b) {
    for (b = a + 1; b < count && n->m[b].ns == n->m[a].ns; b++)
      ;
    jc_tracked *t = owner_of(c, &n->m[a], b - a);
    if (!t)
      continue;
    slot_of(c, t)->owner_now = true;
    read_ns(c, t, &n->m[a], b - a);
    if (emit && !n->off && slot_of(c, t)->own && slot_of(c, t)->own->read)
      send(c, t, emit, ctx);
    if (slot_of(c, t)->own)
      slot_of(c, t)->own->read = false;
  }
}

/* The figures of the namespace t owned at the last pass, over its
 * interfaces sent. */
static void totals(const jc_collector *c, const jc_tracked *t,
                   jc_totals *ret) {
  const owned *o = slot_of(c, t)->own;
  if (!o || !o->count)
    return;
  jc_totals sum = *ret;
  sum.have_net = false;
  for (size_t i = 0; i < o->count; i++) {
    const iface *e = &o->ifs[i];
    if (!e->chosen)
      continue;
    sum.have_net = true;
    sum.net_rx_bytes = jc_sample_sum(sum.net_rx_bytes, e->total[JC_NETDEV_RX_BYTES]);
    sum.net_tx_bytes = jc_sample_sum(sum.net_tx_bytes, e->total[JC_NETDEV_TX_BYTES]);
    sum.net_rx_packets =
        jc_sample_sum(sum.net_rx_packets, e->total[JC_NETDEV_RX_PACKETS]);
    sum.net_tx_packets =
        jc_sample_sum(sum.net_tx_packets, e->total[JC_NETDEV_TX_PACKETS]);
  }
  if (sum.have_net)
    *ret = sum;
}

/* ---- life ------------------------------------------------------------------- */

static void track(jc_collector *c, jc_tracked *t) {
  *slot_of(c, t) = (net_slot){0};
}

static void release(jc_collector *c, jc_tracked *t) {
  net_slot *s = slot_of(c, t);
  if (s->own)
    free(s->own->ifs);
  free(s->own);
  *s = (net_slot){0};
}

static void net_free(jc_collector *c, void *state) {
  (void)c;
  net_self *n = state;
  free(n->m);
  free(n->buf);
  free(n);
}

/*
 * On when a network list is chosen.  The host's namespace is PID 1's:
 * the host's when collectd has the host's PID namespace, as it needs to
 * see the containers' processes at all; collectd's own may be a
 * container's.  Where PID 1's is not ours to read (an init more
 * privileged than collectd), collectd's own, said at INFO.  Off, with one
 * INFO, when neither can be read.
 */
static int init(jc_collector *c, void **ret_self) {
  if (!jc_lists_any(&c->cfg->sel, JC_LIST_IF_OCTETS, 4 + HEALTH))
    return 0;
  net_self *n = calloc(1, sizeof(*n));
  if (!n) {
    jc_logf(&c->log, JC_LOG_ERR, "out of memory");
    return -ENOMEM;
  }
  snprintf(n->proc, sizeof(n->proc), "%s",
           c->cfg->proc_root ? c->cfg->proc_root : "/proc");
  *ret_self = n; /* for say_off's message */
  int r = ns_of_pid(n, 1, &n->host_ns);
  if ((r == -EACCES || r == -EPERM) && ns_of_pid(n, getpid(), &n->host_ns) == 0)
    jc_logf(&c->log, JC_LOG_INFO,
            "Collect \"network\": PID 1's network namespace cannot be read "
            "(%s): collectd's own is taken for the host's",
            JC_STRERROR(-r));
  else if (r == -EACCES || r == -EPERM)
    say_off(c, r);
  else if (r < 0)
    jc_logf(&c->log, JC_LOG_INFO,
            "Collect \"network\" is off: the host's network namespace "
            "(%s/1/ns/net) cannot be read (%s)",
            n->proc, JC_STRERROR(-r));
  if (n->off || (r < 0 && !n->host_ns)) {
    *ret_self = NULL;
    net_free(c, n);
    return 0;
  }
  jc_hier_root_cgroup(c->rootfd, c->root, n->root_kpath,
                      sizeof(n->root_kpath));
  return 0;
}

const jc_step jc_net_step = {
    .name = "net",
    .slot_size = sizeof(net_slot),
    .init = init,
    .free = net_free,
    .cgroup = note,
    .totals = totals,
    .end = end,
    .track = track,
    .release = release,
};
