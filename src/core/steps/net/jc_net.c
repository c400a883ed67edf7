/*
 * jc_net — see jc_net.h.
 */
#include "jc_net.h"

#include "jc_fd.h"
#include "jc_hier.h"
#include "jc_internal.h"
#include "jc_netdev.h"
#include "jc_netsnmp.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

/* net/dev read at most: about 6,000 interfaces, far past IFACES_MAX. */
#define NETDEV_MAX (1u << 20)
/* cgroup.procs is read in chunks of this (its lines are short). */
#define CHUNK 4096

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

/* The namespace's files, by index: net/dev, then those of the health
 * counters. */
enum { NET_DEV, NET_SNMP, NET_NETSTAT, NET_FILES };
static const char *const ns_files[NET_FILES] = {"dev", "snmp", "netstat"};

/* What a cgroup that owns a namespace keeps. */
typedef struct {
  uint64_t h_last[HEALTH], h_total[HEALTH];
  bool h_seen[HEALTH]; /* h_last holds a read of this namespace */
  bool h_now[HEALTH];  /* read this pass */
  uint64_t ns;  /* the namespace the interfaces are of */
  int fd[NET_FILES]; /* its files, kept open (jc_tracked_keep): each one
                        holds namespace ns, whatever became of the process
                        it was opened through; -1: none */
  pid_t via[NET_FILES]; /* that process, for messages */
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
  int procs;   /* its cgroup.procs, kept (jc_tracked_keep); -1: none */
  int pidfd;   /* pid's pidfd, kept, in the step's epoll set; -1: none */
  bool settled; /* pid checked at a pass after its pidfd was opened, or
                   no pid and none can come (holds_none): not checked
                   again until the pidfd says it ended, or the next full
                   check */
  bool exited;  /* the pidfd said so */
  bool asked;   /* empty, and holds_none asked since the last full check */
  owned *own;
} net_slot;

typedef struct {
  uint64_t ns;
  size_t i; /* in c->tracked */
} member;

typedef struct {
  char proc[PATH_MAX];     /* ProcRoot */
  uint64_t host_ns;
  int epfd; /* the pidfds' epoll set; -1: ProcRoot's pids are not ours,
               or the kernel has no pidfds: every cgroup checked each pass */
  uint64_t full_due_ns; /* the next pass that checks every cgroup */
  bool domain_only; /* CgroupRoot has a domain-only controller (at the
                       last full check): else no cgroup holds_none */
  bool off; /* no permission, found in a pass */
  bool said_host, said_hidden;
  member *m;
  size_t m_cap;
  char *buf; /* net/dev */
  size_t buf_size;
  char chunk[CHUNK]; /* cgroup.procs */
} net_self;

static net_self *self(const jc_collector *c) {
  return jc_step_self(c, JC_STEP_NET);
}

static net_slot *slot_of(const jc_collector *c, const jc_tracked *t) {
  return jc_step_slot(c, t, JC_STEP_NET);
}

/* ---- descriptors kept ---------------------------------------------------------- */

static bool close_own(jc_collector *c, owned *o) {
  bool any = false;
  for (int k = 0; o && k < NET_FILES; k++)
    any |= jc_tracked_close_kept(c, &o->fd[k]);
  return any;
}

/* ---- a process's end, told by the kernel --------------------------------- */

/* A pidfd names a process of collectd's PID namespace: usable where
 * ProcRoot is a /proc of that namespace (its `self` is collectd's pid; a
 * fixture tree has none) and the kernel has pidfds (5.3). */
static void exits_init(net_self *n) {
  n->epfd = -1;
#ifdef SYS_pidfd_open
  char path[PATH_MAX + 8], link[24];
  snprintf(path, sizeof(path), "%s/self", n->proc);
  ssize_t len = readlink(path, link, sizeof(link) - 1);
  if (len <= 0)
    return;
  link[len] = '\0';
  char *end;
  long pid = strtol(link, &end, 10);
  if (*end == '\0' && pid == (long)getpid())
    n->epfd = epoll_create1(EPOLL_CLOEXEC);
#endif
}

/* Stops telling s's process's end. */
static bool unwatch_exit(jc_collector *c, net_slot *s) {
  s->settled = s->exited = false;
  if (s->pidfd < 0)
    return false;
  /* Out of the set before the close: a child forked meanwhile (collectd's
     exec plugin) holds the descriptor until its exec. */
  epoll_ctl(self(c)->epfd, EPOLL_CTL_DEL, s->pidfd, NULL);
  return jc_tracked_close_kept(c, &s->pidfd);
}

/* Has the kernel tell when t's process ends: its pidfd, kept when the
 * budget has room, in the epoll set (one shot: told once).  Without
 * one, t is checked at every pass. */
static void watch_exit(jc_collector *c, jc_tracked *t) {
  net_self *n = self(c);
  net_slot *s = slot_of(c, t);
  unwatch_exit(c, s);
  if (n->epfd < 0 || !s->pid || !jc_tracked_keep(c))
    return;
#ifdef SYS_pidfd_open
  int fd = (int)syscall(SYS_pidfd_open, s->pid, 0);
#else
  int fd = -1;
  errno = ENOSYS;
#endif
  fd = jc_fd_above_select(fd);
  struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.ptr = t};
  if (fd < 0 || epoll_ctl(n->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
    if (fd < 0 && errno == ENOSYS) { /* an older kernel: none from now on */
      close(n->epfd);
      n->epfd = -1;
    }
    if (fd >= 0)
      close(fd); /* else exited already: found anew at the next check */
    jc_tracked_unkept(c);
    return;
  }
  s->pidfd = fd;
}

/* The processes that ended since the last pass: their slots marked. */
static void take_exits(jc_collector *c) {
  net_self *n = self(c);
  struct epoll_event ev[64];
  int got = 64;
  while (n->epfd >= 0 && got == 64) { /* one shot: each told once */
    got = epoll_wait(n->epfd, ev, 64, 0);
    for (int i = 0; i < got; i++)
      slot_of(c, ev[i].data.ptr)->exited = true;
  }
}

/* Everything t's slot keeps open; true when that was anything. */
static bool give_back(jc_collector *c, jc_tracked *t) {
  net_slot *s = slot_of(c, t);
  bool any = jc_tracked_close_kept(c, &s->procs);
  any |= unwatch_exit(c, s);
  return close_own(c, s->own) || any;
}

/* ---- a process's namespace ------------------------------------------------- */

/* "net:[INODE]", len bytes of a readlink (negative: its errno). */
static int parse_ns(const char *link, ssize_t len, uint64_t *ret_ns) {
  if (len < 0)
    return -errno;
  if (len < 7 || len > 26 || memcmp(link, "net:[", 5) != 0 ||
      link[len - 1] != ']')
    return -EBADMSG;
  uint64_t ino = 0;
  for (ssize_t i = 5; i < len - 1; i++) {
    if (link[i] < '0' || link[i] > '9' || ino > (UINT64_MAX - 9) / 10)
      return -EBADMSG;
    ino = ino * 10 + (uint64_t)(link[i] - '0');
  }
  if (!ino)
    return -EBADMSG;
  *ret_ns = ino;
  return 0;
}

/* The inode of pid's network namespace: 0 or a negative errno (-ENOENT:
 * no such process here, -EACCES: not ours to look at). */
static int ns_of_pid(const net_self *n, pid_t pid, uint64_t *ret_ns) {
  char path[PATH_MAX + 32], link[64];
  snprintf(path, sizeof(path), "%s/%d/ns/net", n->proc, (int)pid);
  return parse_ns(link, readlink(path, link, sizeof(link)), ret_ns);
}

/* The same through the process's /proc directory, opened. */
static int ns_at(int piddir, uint64_t *ret_ns) {
  char link[64];
  return parse_ns(link, readlinkat(piddir, "ns/net", link, sizeof(link)),
                  ret_ns);
}

/* t's cgroup.procs: the descriptor kept, or one opened now, kept when the
 * budget has room (*ret_fresh when not: the caller closes it). */
static int procs_fd(jc_collector *c, jc_tracked *t, bool *ret_fresh) {
  net_slot *s = slot_of(c, t);
  *ret_fresh = false;
  if (s->procs >= 0)
    return s->procs;
  char path[PATH_MAX];
  int dirfd;
  const char *name =
      jc_tracked_file(c, t, "cgroup.procs", path, sizeof(path), &dirfd);
  int fd = jc_hier_open_file(dirfd, name, !t->on_cgroupfs);
  if (fd < 0)
    return fd;
  if (jc_tracked_keep(c))
    s->procs = fd = jc_fd_above_select(fd);
  else
    *ret_fresh = true;
  return fd;
}

/* Hands each pid of the cgroup.procs open at fd to fn, from its start (a
 * pread at 0 makes the kernel list them anew), a chunk at a time, until
 * fn returns non-zero: that value, 0 at the list's end, or a negative
 * errno.  Lines that are not a pid are skipped. */
static int each_pid(net_self *n, int fd, int (*fn)(void *ctx, uint64_t pid),
                    void *ctx) {
  char *b = n->chunk;
  size_t have = 0;
  off_t off = 0;
  for (;;) {
    ssize_t got = pread(fd, b + have, CHUNK - have, off);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return -errno;
    off += got;
    size_t end = have + (size_t)got, at = 0;
    for (;;) {
      const char *nl = memchr(b + at, '\n', end - at);
      size_t len = nl ? (size_t)(nl - (b + at)) : end - at;
      if (!nl && got > 0)
        break; /* the rest of the line comes with the next chunk */
      uint64_t pid;
      int r;
      if (len && jc_parse_single(b + at, len, &pid) == 0 && pid <= 4194304 &&
          (r = fn(ctx, pid)) != 0)
        return r;
      at += len + (nl != NULL);
      if (at >= end)
        break;
    }
    if (got == 0)
      return 0;
    have = end - at;
    if (have == CHUNK)
      have = 0; /* a line of a page: no pid */
    memmove(b, b + at, have);
  }
}

static int is_pid(void *ctx, uint64_t pid) {
  return pid == (uint64_t)*(const pid_t *)ctx;
}

/* What a look at a cgroup's processes found. */
typedef struct {
  const net_self *n;
  pid_t pid;
  uint64_t ns;
  size_t hidden; /* pids this /proc lacks: 0 in cgroup.procs */
  int denied;    /* -EACCES or -EPERM: one not ours to see */
} look;

static int try_pid(void *ctx, uint64_t pid) {
  look *l = ctx;
  if (pid == 0) { /* in a PID namespace that is not ours */
    l->hidden++;
    return 0;
  }
  int e = ns_of_pid(l->n, (pid_t)pid, &l->ns);
  if (e == 0) {
    l->pid = (pid_t)pid;
    return 1;
  }
  if (e == -EACCES || e == -EPERM)
    l->denied = e; /* an init more privileged: the next */
  return 0;        /* else it exited since the list was read: the next */
}

/* The namespace of the first process listed at fd that /proc has: 0
 * (l->pid 0 when it has none), or a negative errno of cgroup.procs, or
 * -EACCES / -EPERM when none of its processes' namespaces is ours to
 * see. */
static int find_ns(net_self *n, int fd, look *l) {
  *l = (look){.n = n};
  int r = each_pid(n, fd, try_pid, l);
  if (r < 0)
    return r;
  if (!l->pid && l->denied)
    return l->denied;
  return 0;
}

/* Controllers that are a domain's only (never threaded): a cgroup below
 * the root that hands one of them to its children holds no process of
 * its own (cgroup v2's no-internal-process rule: moving one in fails
 * with EBUSY), as a pod's cgroup on a node that enables them. */
static const char *const domain_only[] = {"memory", "io", "hugetlb", "rdma",
                                          "misc"};

/* Does the controller list file `name` at dirfd (cgroup.controllers or
 * cgroup.subtree_control) name a domain-only controller? */
static bool lists_domain_only(int dirfd, const char *name) {
  char text[256], *save = NULL;
  ssize_t len = jc_hier_read_file_at(dirfd, name, text, sizeof(text) - 1);
  if (len <= 0)
    return false;
  text[len] = '\0';
  for (char *w = strtok_r(text, " \n", &save); w;
       w = strtok_r(NULL, " \n", &save))
    for (size_t i = 0; i < sizeof(domain_only) / sizeof(*domain_only); i++)
      if (!strcmp(w, domain_only[i]))
        return true;
  return false;
}

/* Can t hold no process now?  From its cgroup.subtree_control, on the
 * kernel's files only, where the tree has a domain-only controller. */
static bool holds_none(const jc_collector *c, const jc_tracked *t) {
  if (!self(c)->domain_only || !t->relpath[0] || !t->on_cgroupfs)
    return false;
  char path[PATH_MAX];
  int dirfd;
  const char *name = jc_tracked_file(c, t, "cgroup.subtree_control", path,
                                     sizeof(path), &dirfd);
  return lists_domain_only(dirfd, name);
}

static void drop_all(jc_collector *c) {
  for (size_t i = 0; i < c->tracked_count; i++)
    give_back(c, c->tracked[i]);
}

/* The step is off from now on (err: why), said in one INFO. */
static void say_off(const jc_collector *c, int err) {
  jc_logf(&c->log, JC_LOG_INFO,
          "Collect \"network\" is off: another process's network namespace "
          "(%s/<pid>/ns/net) cannot be read (%s); collectd needs root or "
          "CAP_SYS_PTRACE for it; the other figures go on",
          self(c)->proc, JC_STRERROR(-err));
  self(c)->off = true;
}

/* The same in a pass: what is kept goes back to the budget. */
static void go_off(jc_collector *c, int err) {
  say_off(c, err);
  drop_all(c);
}

/*
 * At the end of a pass, t's namespace.  The process it was found
 * through is kept while it is still listed in t's cgroup.procs and still
 * in that namespace (in this order: a process still there after the list
 * named it is the one it named, never another given its pid since); else
 * the list is looked at again.  cgroup.procs is kept open and read again
 * from its start, only as far as the kept pid (an empty one: one read
 * that returns nothing).  Checked at every pass until a pass after its
 * pidfd was opened finds it there (a runtime puts a process in the
 * cgroup before it enters the container's namespace); then only when
 * the pidfd says it ended, and at every full check.  A cgroup with no
 * process that can hold none (holds_none) is looked at again only at
 * the full check too.
 */
static void check(jc_collector *c, jc_tracked *t, bool full) {
  net_self *n = self(c);
  net_slot *s = slot_of(c, t);
  if (s->settled && !s->pid && holds_none(c, t))
    return; /* a full check: still none can come, its list unread */
  bool fresh;
  int fd = procs_fd(c, t, &fresh);
  uint64_t ns;
  pid_t pid = s->pid;
  if (fd >= 0 && pid && each_pid(n, fd, is_pid, &pid) == 1 &&
      ns_of_pid(n, pid, &ns) == 0 && ns == s->ns) {
    if (fresh)
      close(fd);
    if (s->pidfd < 0 || s->exited)
      watch_exit(c, t); /* none yet, or for the pid's new process */
    else
      s->settled = true;
    return;
  }
  unwatch_exit(c, s);
  look l = {.n = n};
  int e = fd < 0 ? fd : find_ns(n, fd, &l);
  if (fresh)
    close(fd);
  else if (e < 0 && e != -EACCES && e != -EPERM)
    jc_tracked_close_kept(c, &s->procs); /* its cgroup gone or re-created: open it anew */
  if (e == -EACCES || e == -EPERM) {
    go_off(c, e);
    return;
  }
  s->pid = e == 0 ? l.pid : 0;
  s->ns = e == 0 && l.pid ? l.ns : 0;
  watch_exit(c, t);
  /* Empty, and no process can come: looked at again at the full check.
     Asked once between two full checks. */
  if (e != 0 || l.pid || l.hidden) {
    s->asked = false;
  } else if (full || !s->asked) {
    s->asked = true;
    s->settled = holds_none(c, t);
  }
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

/* Reads fd from its start (a pread at 0: a seq_file of /proc makes its
 * text anew) into n->buf, at most NETDEV_MAX bytes, up to the last whole
 * line when there is more: 0 with *ret_len and *ret_cut, or a negative
 * errno. */
static int read_netdev(net_self *n, int fd, size_t *ret_len, bool *ret_cut) {
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
      if (!grown)
        return -ENOMEM;
      n->buf = grown;
      n->buf_size = size;
    }
    ssize_t got = pread(fd, n->buf + have, n->buf_size - have, (off_t)have);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return -errno;
    if (got == 0)
      break;
    have += (size_t)got;
  }
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

/* File k of o's namespace by the path it was opened by, for messages. */
static const char *ns_path(const jc_collector *c, const owned *o, int k,
                           char *out, size_t size) {
  snprintf(out, size, "%s/%d/net/%s", self(c)->proc, (int)o->via[k],
           ns_files[k]);
  return out;
}

/* Parses the net/dev text in n->buf[0..len) into o. */
static void take(jc_collector *c, const jc_tracked *t, owned *o, size_t len,
                 bool cut) {
  net_self *n = self(c);
  char path[PATH_MAX + 48];
  jc_netdev_cursor cur;
  int r = jc_netdev_begin(&cur, n->buf, len);
  if (r < 0) {
    say_bad(c, t, o, ns_path(c, o, NET_DEV, path, sizeof(path)), r,
            "not the format of net/dev");
    return;
  }
  bool full = cut;
  jc_netdev_iface f;
  while ((r = jc_netdev_next(&cur, &f)) != 0) {
    if (r < 0) {
      say_bad(c, t, o, ns_path(c, o, NET_DEV, path, sizeof(path)), r,
              "a line was skipped");
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
            t->instance, JC_NET_IFACES_MAX,
            ns_path(c, o, NET_DEV, path, sizeof(path)), NETDEV_MAX);
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

/*
 * File k of the namespace of members m[0..count) for its owner's o: the
 * descriptor kept, else one opened through the first member's process
 * still in that namespace, in its /proc directory opened first: the
 * namespace read there before and after the file's open (the file holds
 * the namespace the process had when it was opened, for as long as it is
 * open, whatever the process does since; the directory stays that
 * process's, never another's given its pid).  Kept when the budget has
 * room (*ret_fresh when not: the caller closes it).  -ENOENT when no
 * member's process is in it now, -EACCES / -EPERM when not ours to read,
 * another negative errno with path the file that failed.
 */
static int ns_file(jc_collector *c, owned *o, int k, const member *m,
                   size_t count, bool *ret_fresh, char *path, size_t size) {
  net_self *n = self(c);
  *ret_fresh = false;
  if (o->fd[k] >= 0) {
    path[0] = '\0'; /* named only when it fails: read_ns_file */
    return o->fd[k];
  }
  for (size_t j = 0; j < count; j++) {
    pid_t pid = slot_of(c, c->tracked[m[j].i])->pid;
    char dir[PATH_MAX + 32], rel[32];
    snprintf(dir, sizeof(dir), "%s/%d", n->proc, (int)pid);
    snprintf(path, size, "%s/net/%s", dir, ns_files[k]);
    snprintf(rel, sizeof(rel), "net/%s", ns_files[k]);
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = -1, e = d < 0 ? -errno : 0;
    uint64_t before = 0, after = 0;
    if (e == 0 && (e = ns_at(d, &before)) == 0 && before == m[0].ns) {
      fd = openat(d, rel, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        e = -errno;
      else if ((e = ns_at(d, &after)) == 0 && after != before)
        e = -ESTALE;
    } else if (e == 0) {
      e = -ESTALE; /* in another namespace since this pass began */
    }
    if (d >= 0)
      close(d);
    if (e == 0) {
      o->via[k] = pid;
      if (jc_tracked_keep(c))
        o->fd[k] = fd = jc_fd_above_select(fd);
      else
        *ret_fresh = true;
      return fd;
    }
    if (fd >= 0)
      close(fd);
    if (e != -ENOENT && e != -ESRCH && e != -ESTALE)
      return e;
    /* exited since, or in another namespace now: the next one */
  }
  return -ENOENT;
}

/* File k of the namespace into n->buf: 0 with *ret_len and *ret_cut, or
 * a negative errno as ns_file's, path the file. */
static int read_ns_file(jc_collector *c, owned *o, int k, const member *m,
                        size_t count, char *path, size_t size,
                        size_t *ret_len, bool *ret_cut) {
  bool fresh;
  int fd = ns_file(c, o, k, m, count, &fresh, path, size);
  if (fd < 0)
    return fd;
  int r = read_netdev(self(c), fd, ret_len, ret_cut);
  if (r < 0)
    ns_path(c, o, k, path, size);
  if (fresh)
    close(fd);
  else if (r < 0)
    jc_tracked_close_kept(c, &o->fd[k]); /* opened again at the next pass */
  return r;
}

/* The health counters chosen, from the namespace's net/snmp and
 * net/netstat (read only when one of theirs is chosen): totals that never
 * run backwards. */
static void read_health(jc_collector *c, owned *o, const member *m,
                        size_t count) {
  net_self *n = self(c);
  for (int k = 0; k < HEALTH; k++)
    o->h_now[k] = false;
  for (int f = NET_SNMP; f < NET_FILES; f++) {
    bool want = false;
    for (int k = 0; k < HEALTH; k++)
      want |= !strcmp(health[k].file, ns_files[f]) &&
              chosen_list(c, JC_LIST_TCP_RETRANS_SEGS + k);
    if (!want)
      continue;
    char path[PATH_MAX + 48];
    size_t len = 0;
    bool cut;
    if (read_ns_file(c, o, f, m, count, path, sizeof(path), &len, &cut) < 0)
      continue; /* gone since net/dev: the next pass */
    for (int k = 0; k < HEALTH; k++) {
      uint64_t v;
      if (strcmp(health[k].file, ns_files[f]) != 0 ||
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

/* Reads the namespace of m[0..count) into owner t's figures: through the
 * files kept open for it, or opened through a member's process. */
static void read_ns(jc_collector *c, jc_tracked *t, const member *m,
                    size_t count) {
  net_slot *s = slot_of(c, t);
  if (!s->own) {
    if (!(s->own = calloc(1, sizeof(*s->own))))
      return;
    for (int k = 0; k < NET_FILES; k++)
      s->own->fd[k] = -1;
  }
  owned *o = s->own;
  if (o->ns != m[0].ns) { /* another namespace: its counters are new */
    for (size_t i = 0; i < o->count; i++)
      o->ifs[i].present = false;
    memset(o->h_seen, 0, sizeof(o->h_seen));
    close_own(c, o);
    o->ns = m[0].ns;
  }
  char path[PATH_MAX + 48];
  size_t len = 0;
  bool cut;
  int r = read_ns_file(c, o, NET_DEV, m, count, path, sizeof(path), &len,
                       &cut);
  if (r == -ENOENT)
    return; /* every member's process exited since */
  if (r == -EACCES || r == -EPERM) {
    go_off(c, r);
    return;
  }
  if (r < 0) {
    say_bad(c, t, o, path, r, "cannot be read");
    return;
  }
  take(c, t, o, len, cut);
  read_health(c, o, m, count);
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

/* After every cgroup: each cgroup's namespace checked (one loop, after
 * the pass's reads rather than between them: the kernel's paths stay
 * warm), then each namespace read once, under its owner. */
static void end(jc_collector *c, jc_collect_fn emit, void *ctx) {
  net_self *n = self(c);
  /* Every cgroup checked every RescanInterval: a process that stays alive
     and leaves its cgroup, or enters another namespace, is seen then. */
  bool full = c->pass_ns >= n->full_due_ns;
  if (full) {
    n->full_due_ns = c->pass_ns + (uint64_t)(c->cfg->rescan_interval * 1e9);
    n->domain_only = c->root_on_cgroupfs &&
                     lists_domain_only(c->rootfd, "cgroup.controllers");
  }
  take_exits(c);
  for (size_t i = 0; i < c->tracked_count && !n->off; i++) {
    net_slot *s = slot_of(c, c->tracked[i]);
    if (full || !s->settled || s->exited)
      check(c, c->tracked[i], full);
  }
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
  /* A namespace no cgroup owns now is held open no longer: none outlives
   * its processes by more than a pass. */
  for (size_t i = 0; i < c->tracked_count && !n->off; i++) {
    net_slot *s = slot_of(c, c->tracked[i]);
    if (!s->owner_now)
      close_own(c, s->own);
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

static void track(const jc_collector *c, jc_tracked *t) {
  *slot_of(c, t) = (net_slot){.procs = -1, .pidfd = -1};
}

static void release(jc_collector *c, jc_tracked *t) {
  net_slot *s = slot_of(c, t);
  give_back(c, t);
  if (s->own)
    free(s->own->ifs);
  free(s->own);
  *s = (net_slot){0};
}

static void net_free(const jc_collector *c, void *state) {
  (void)c;
  net_self *n = state;
  if (n->epfd >= 0)
    close(n->epfd);
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
static int init(const jc_collector *c, void **ret_self) {
  if (!jc_lists_any(&c->cfg->sel, JC_LIST_IF_OCTETS, 4 + HEALTH))
    return 0;
  net_self *n = calloc(1, sizeof(*n));
  if (!n) {
    jc_logf(&c->log, JC_LOG_ERR, "out of memory");
    return -ENOMEM;
  }
  snprintf(n->proc, sizeof(n->proc), "%s",
           c->cfg->proc_root ? c->cfg->proc_root : "/proc");
  exits_init(n);
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
  return 0;
}

const jc_step jc_net_step = {
    .name = "net",
    .slot_size = sizeof(net_slot),
    .life = {.init = init, .free = net_free},
    .pass = {.totals = totals, .end = end},
    .cgroup_life = {.track = track, .release = release, .give_back = give_back},
};
