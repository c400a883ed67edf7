/*
 * jc_cpus — see jc_cpus.h.
 *
 * The read path is one pread() of /proc/stat into a buffer made once,
 * parsed in place; per CPU, what it read last.  The topology of a CPU is
 * read at open and when the CPU appears in /proc/stat after being away.
 */
#include "jc_cpus.h"

#include "jc_hier.h"
#include "jc_parse.h"
#include "jc_procstat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What is kept of one CPU. */
typedef struct {
  int package, die; /* its topology; package -1: not known */
  int domain;       /* index of the domain it is in, -1: none */
  bool have_prev;   /* listed at the last read: prev is its time then */
  uint32_t listed;  /* the read that listed it last */
  jc_cputimes prev;
} cpu_state;

struct jc_cpus {
  char root[PATH_MAX];
  jc_procstat stat;
  int stat_error;
  size_t ncpu; /* CPUs 0 .. ncpu - 1 are followed */
  cpu_state *cpu;
  jc_cpus_domain want[JC_SHARE_DOMAINS_MAX];
  size_t nwant;
  uint32_t domains; /* domains read gives figures of */
  jc_cputimes acc[JC_SHARE_DOMAINS_MAX];
  char *buf; /* /proc/stat's CPU lines; NULL until domains are set */
  size_t buf_size;
  uint32_t reads; /* reads of the CPU lines, for cpu_state.listed */
};

/* ---- topology --------------------------------------------------------------- */

/* "cpuN" → N, or -1. */
static long cpu_number(const char *name) {
  if (strncmp(name, "cpu", 3) != 0 || name[3] < '0' || name[3] > '9' ||
      (name[3] == '0' && name[4] != '\0'))
    return -1;
  char *end;
  long n = strtol(name + 3, &end, 10);
  return *end == '\0' && n < JC_CPUS_MAX ? n : -1;
}

/* The number of CPU slots: one past the highest cpuN below the root, or
 * what the system says is configured when the root cannot be listed. */
static size_t count_slots(const char *root) {
  long most = -1;
  DIR *dir = opendir(root);
  struct dirent *d;
  while (dir && (d = readdir(dir)))
    if (cpu_number(d->d_name) > most)
      most = cpu_number(d->d_name);
  if (dir)
    closedir(dir);
  if (most < 0)
    most = sysconf(_SC_NPROCESSORS_CONF) - 1;
  if (most < 0)
    most = 0;
  return most >= JC_CPUS_MAX ? JC_CPUS_MAX : (size_t)most + 1;
}

/* A small signed number from a file below the root, or -1. */
static int read_id(const char *root, size_t cpu, const char *file) {
  char path[PATH_MAX], buf[32];
  snprintf(path, sizeof(path), "%s/cpu%zu/topology/%s", root, cpu, file);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t len = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (len <= 0)
    return -1;
  buf[len] = '\0';
  char *end;
  long v = strtol(buf, &end, 10);
  return end != buf && (*end == '\n' || *end == '\0') && v >= 0 && v < INT_MAX
             ? (int)v
             : -1;
}

static int domain_of(const jc_cpus *c, int package, int die) {
  for (size_t d = 0; package >= 0 && d < c->nwant; d++)
    if (c->want[d].package == package &&
        (c->want[d].die < 0 || c->want[d].die == die))
      return (int)d;
  return -1;
}

/* Reads CPU n's package and die (no die_id before Linux 5.2: die 0). */
static void learn_cpu(jc_cpus *c, size_t n) {
  cpu_state *s = &c->cpu[n];
  s->package = read_id(c->root, n, "physical_package_id");
  s->die = s->package >= 0 ? read_id(c->root, n, "die_id") : -1;
  if (s->die < 0)
    s->die = 0;
  s->domain = domain_of(c, s->package, s->die);
}

int jc_cpus_open(const char *cpu_root, const char *proc_stat, jc_cpus **ret) {
  jc_cpus *c = calloc(1, sizeof(*c));
  if (!c)
    return -ENOMEM;
  snprintf(c->root, sizeof(c->root), "%s",
           cpu_root ? cpu_root : JC_CPUS_ROOT_DEFAULT);
  c->ncpu = count_slots(c->root);
  c->cpu = calloc(c->ncpu, sizeof(*c->cpu));
  if (!c->cpu) {
    free(c);
    return -ENOMEM;
  }
  for (size_t n = 0; n < c->ncpu; n++)
    learn_cpu(c, n);
  c->stat_error = jc_procstat_open(&c->stat, proc_stat);
  *ret = c;
  return 0;
}

void jc_cpus_free(jc_cpus *c) {
  if (!c)
    return;
  jc_procstat_close(&c->stat);
  free(c->cpu);
  free(c->buf);
  free(c);
}

int jc_cpus_stat_error(const jc_cpus *c) { return c->stat_error; }
uint32_t jc_cpus_domains(const jc_cpus *c) { return c->domains; }

size_t jc_cpus_known(const jc_cpus *c) {
  size_t known = 0;
  for (size_t n = 0; n < c->ncpu; n++)
    known += c->cpu[n].package >= 0;
  return known;
}

/* A CPU line is at most "cpuNNNN" and 10 numbers of 20 digits. */
#define LINE_MAX_BYTES 224

void jc_cpus_set_domains(jc_cpus *c, const jc_cpus_domain *domains, size_t n,
                         size_t *ret_mapped) {
  c->nwant = n < JC_SHARE_DOMAINS_MAX ? n : JC_SHARE_DOMAINS_MAX;
  memcpy(c->want, domains, c->nwant * sizeof(*domains));
  bool has_cpu[JC_SHARE_DOMAINS_MAX] = {false};
  for (size_t k = 0; k < c->ncpu; k++) {
    cpu_state *s = &c->cpu[k];
    s->domain = domain_of(c, s->package, s->die);
    s->have_prev = false;
    if (s->domain >= 0)
      has_cpu[s->domain] = true;
  }
  size_t mapped = 0;
  for (size_t d = 0; d < c->nwant; d++)
    mapped += has_cpu[d];
  *ret_mapped = mapped;
  c->domains = c->nwant >= 2 && mapped == c->nwant ? (uint32_t)c->nwant : 0;
  memset(c->acc, 0, sizeof(c->acc));
  if (c->domains && !c->buf) {
    size_t size = 1024 + c->ncpu * LINE_MAX_BYTES;
    if ((c->buf = malloc(size)))
      c->buf_size = size;
    else
      c->domains = 0; /* out of memory: the host's time for every zone */
  }
}

/* ---- reading ------------------------------------------------------------------ */

/* Adds CPU n's time since its last read to its domain's counter. */
static void account(jc_cpus *c, size_t n, const jc_cputimes *now) {
  cpu_state *s = &c->cpu[n];
  if (!s->have_prev && s->package < 0)
    learn_cpu(c, n); /* a CPU back, or seen for the first time */
  jc_cputimes d;
  if (s->have_prev && s->domain >= 0 &&
      jc_procstat_delta(&s->prev, now, &d) == 0) {
    c->acc[s->domain].total_usec += d.total_usec;
    c->acc[s->domain].idle_usec += d.idle_usec;
  }
  s->prev = *now;
  s->have_prev = true;
}

/* The per-CPU lines after the first: each CPU's time into its domain's;
 * a CPU not listed now (offline) starts again from its next line. */
static void read_cpu_lines(jc_cpus *c, const char *p, const char *end) {
  uint32_t read = ++c->reads;
  for (const char *nl; p < end && (nl = memchr(p, '\n', (size_t)(end - p)));
       p = nl + 1) {
    int cpu;
    jc_cputimes t;
    if (jc_procstat_parse_line(p, (size_t)(nl - p), c->stat.ticks_per_second,
                               &cpu, &t) < 0)
      break; /* the CPU lines end: "intr ..." */
    if (cpu < 0 || (size_t)cpu >= c->ncpu)
      continue;
    account(c, (size_t)cpu, &t);
    c->cpu[cpu].listed = read;
  }
  for (size_t n = 0; n < c->ncpu; n++)
    if (c->cpu[n].listed != read)
      c->cpu[n].have_prev = false;
}

int jc_cpus_read(jc_cpus *c, jc_share_cpu *ret) {
  char small[1024];
  char *buf = c->domains ? c->buf : small;
  size_t size = c->domains ? c->buf_size : sizeof(small);
  ssize_t len = jc_procstat_read_text(&c->stat, buf, size);
  if (len < 0)
    return (int)len;
  int r = jc_procstat_parse(buf, (size_t)len, c->stat.ticks_per_second,
                            &ret->host);
  if (r < 0)
    return r;
  ret->domains = c->domains;
  if (!c->domains)
    return 0;
  const char *first_nl = memchr(buf, '\n', (size_t)len);
  if (first_nl)
    read_cpu_lines(c, first_nl + 1, buf + len);
  memcpy(ret->domain, c->acc, c->domains * sizeof(c->acc[0]));
  return 0;
}

uint64_t jc_cpus_mask(const jc_cpus *c, const uint64_t *bitmap, size_t nwords) {
  uint64_t mask = 0;
  if (!c->domains)
    return 0;
  for (size_t w = 0; w < nwords; w++)
    for (uint64_t bits = bitmap[w]; bits; bits &= bits - 1) {
      size_t n = w * 64 + (size_t)__builtin_ctzll(bits);
      int d = n < c->ncpu ? c->cpu[n].domain : -1;
      mask |= d >= 0 ? UINT64_C(1) << d : JC_SHARE_OUTSIDE;
    }
  return mask;
}

int jc_cpus_cgroup_mask(const jc_cpus *c, int dirfd, uint64_t *ret_mask) {
  char text[4096];
  uint64_t bitmap[JC_CPUS_WORDS];
  bool beyond;
  ssize_t len = jc_hier_read_file_at(dirfd, "cpuset.cpus.effective", text,
                                     sizeof(text));
  if (len < 0)
    return (int)len;
  if ((size_t)len == sizeof(text) ||
      jc_parse_cpu_list(text, (size_t)len, bitmap, JC_CPUS_WORDS, &beyond) < 0)
    return -EINVAL;
  *ret_mask = beyond ? 0 : jc_cpus_mask(c, bitmap, JC_CPUS_WORDS);
  return 0;
}
