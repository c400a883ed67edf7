/*
 * jcli_energy — see jcli_energy.h.
 */
#include "jcli_energy.h"

#include "jcli_stderr.h"
#include "jc_share.h"

#include <stdio.h>
#include <string.h>

/* jc_log_fn of the meter: what the core says for people (INFO and up)
 * becomes a note, each text once; DEBUG (dropped intervals) is not. */
static void keep_note(void *ctx, int level, const char *msg) {
  jcli_energy_meter *m = ctx;
  if (level > JC_LOG_INFO)
    return;
  for (size_t i = 0; i < m->notes; i++)
    if (strcmp(m->note[i], msg) == 0)
      return;
  if (m->notes < JCLI_ENERGY_NOTES)
    snprintf(m->note[m->notes++], sizeof(m->note[0]), "%s", msg);
}

/* The domain index of (package, die) in d[0..n), or -1. */
static int find_domain(const jc_cpus_domain *d, size_t n, int package, int die) {
  for (size_t k = 0; k < n; k++)
    if (d[k].package == package && d[k].die == die)
      return (int)k;
  return -1;
}

/* Each zone's CPUs: its package's where the topology places CPUs in every
 * package (jc_cpus), else the host's. */
static void map_zones(jcli_energy_meter *m) {
  jc_cpus_domain d[JC_SHARE_DOMAINS_MAX];
  size_t n = 0, mapped = 0;
  for (size_t i = 0; i < m->zones.count; i++) {
    const jc_rapl_zone *z = jc_rapl_zone_at(m->rapl, i);
    if (z->kind == JC_RAPL_PACKAGE && z->package_id >= 0 && z->readable &&
        find_domain(d, n, z->package_id, z->die_id) < 0 &&
        n < JC_SHARE_DOMAINS_MAX)
      d[n++] = (jc_cpus_domain){z->package_id, z->die_id};
  }
  jc_cpus_set_domains(m->cpus, d, n, &mapped);
  bool per_package = jc_cpus_domains(m->cpus) > 0;
  for (size_t i = 0; i < m->zones.count; i++) {
    const jc_rapl_zone *z = jc_rapl_zone_at(m->rapl, i);
    const jc_rapl_zone *pkg =
        z->package >= 0 ? jc_rapl_zone_at(m->rapl, (size_t)z->package) : z;
    m->zones.zone[i].domain =
        per_package ? find_domain(d, n, pkg->package_id, pkg->die_id) : -1;
  }
}

static void learn_zones(jcli_energy_meter *m) {
  if (jc_rapl_state_of(m->rapl) != JC_RAPL_READY)
    return;
  size_t n = jc_rapl_zone_count(m->rapl);
  for (size_t i = 0; i < n; i++) {
    const jc_rapl_zone *z = jc_rapl_zone_at(m->rapl, i);
    snprintf(m->zones.zone[i].label, sizeof(m->zones.zone[i].label), "%s",
             z->label);
    snprintf(m->zones.zone[i].id, sizeof(m->zones.zone[i].id), "%s", z->id);
    m->zones.zone[i].kind = z->kind;
    m->zones.zone[i].domain = -1;
  }
  m->zones.count = n;
}

void jcli_energy_open(jcli_energy_meter *m, const char *powercap_root,
                      const char *proc_stat, const char *cpu_root) {
  memset(m, 0, sizeof(*m));
  m->opened = true;
  m->cgroup_fd = -1;
  jc_log log = {keep_note, m};
  if (jc_rapl_open(powercap_root, &log, &m->rapl) < 0) {
    keep_note(m, JC_LOG_ERR, "out of memory: energy is not measured");
    return;
  }
  learn_zones(m);
  if (m->zones.count == 0)
    return;
  if (jc_cpus_open(cpu_root, proc_stat, &m->cpus) < 0) {
    keep_note(m, JC_LOG_ERR, "out of memory: energy is not measured");
    m->zones.count = 0;
    return;
  }
  int r = jc_cpus_stat_error(m->cpus);
  if (r < 0) {
    char msg[512];
    snprintf(msg, sizeof(msg),
             "%s: %s: the host's CPU time is not known, so neither is the "
             "command's part of the energy",
             proc_stat ? proc_stat : JC_PROCSTAT_DEFAULT, strerror(-r));
    keep_note(m, JC_LOG_INFO, msg);
  }
  map_zones(m);
}

void jcli_energy_close(jcli_energy_meter *m) {
  if (!m->opened)
    return;
  jc_rapl_free(m->rapl);
  m->rapl = NULL;
  jc_cpus_free(m->cpus);
  m->cpus = NULL;
  m->opened = false;
}

void jcli_energy_set_cgroup(jcli_energy_meter *m, int cgroup_fd) {
  m->cgroup_fd = cgroup_fd;
}

uint64_t jcli_energy_due_ns(const jcli_energy_meter *m) {
  return m->opened && m->zones.count ? jc_rapl_due_ns(m->rapl) : UINT64_MAX;
}

void jcli_energy_poll(jcli_energy_meter *m, uint64_t now_ns) {
  if (now_ns >= jcli_energy_due_ns(m))
    jc_rapl_read(m->rapl, now_ns);
}

void jcli_energy_print_notes(const jcli_energy_meter *m) {
  for (size_t i = 0; i < m->notes; i++)
    jcli_error("energy: %s", m->note[i]);
}

/* ---- the split: jc_share's ------------------------------------------------ */

/* A run starts: no stretch before it counts. */
static void start_run(jcli_energy_meter *m, bool have, const jc_share_cpu *cpu,
                      uint64_t usage) {
  jc_share_host_start(&m->host, have, cpu);
  jc_share_usage_start(&m->usage, have, usage);
  for (size_t i = 0; i < m->zones.count; i++)
    jc_share_zone_start(&m->zone[i], jc_rapl_energy_of(m->rapl, i));
}

/* The packages the command's cgroup may run on (0: not known). */
static uint64_t command_mask(const jcli_energy_meter *m) {
  uint64_t mask = 0;
  if (m->cgroup_fd < 0 || jc_cpus_domains(m->cpus) == 0 ||
      jc_cpus_cgroup_mask(m->cpus, m->cgroup_fd, &mask) < 0)
    return 0;
  return mask;
}

/* The stretch since the last reading, split into the counters; one that
 * waits for the next reading (jc_share) leaves them as they are. */
static void end_stretch(jcli_energy_meter *m, bool final, bool have,
                        const jc_share_cpu *cpu, uint64_t usage) {
  jc_share_rule rule = jc_share_host_end(&m->host, have, cpu, final);
  jc_share_usage_end(&m->usage, rule, have, usage);
  /* The command is the one party: its time on each package. */
  jc_share_party party = {m->usage.last_usec, command_mask(m), -1};
  double on[JC_SHARE_DOMAINS_MAX], work[JC_SHARE_DOMAINS_MAX + 1];
  uint32_t domains = m->host.last.domains;
  jc_share_domain_times(&m->host, &party, 1, on, work);
  for (size_t i = 0; i < m->zones.count; i++) {
    jcli_zone_counter *c = &m->now.zone[i];
    int domain = m->zones.zone[i].domain;
    bool known = domain < 0 || (uint32_t)domain < domains;
    double time = known ? jc_share_time_of(&party, 0, on, domains, domain) : 0;
    jc_share_split s;
    int r = jc_share_zone_split(&m->zone[i], &m->host,
                                jc_rapl_energy_of(m->rapl, i), domain, time,
                                &s);
    if (rule == JC_SHARE_WAIT)
      continue;
    if (r < 0 || !m->usage.charged) {
      c->unshared++;
      continue;
    }
    c->proc_uj += jc_share_charge(&s, time);
    c->idle_uj += s.idle_uj;
  }
}

void jcli_energy_take(jcli_energy_meter *m, jcli_energy_edge edge,
                      uint64_t now_ns, bool have_usage, int64_t usage_usec,
                      jcli_energy_counters *ret) {
  memset(ret, 0, sizeof(*ret));
  if (!m->opened || m->zones.count == 0)
    return;
  jc_rapl_read(m->rapl, now_ns);
  for (size_t i = 0; i < m->zones.count; i++) {
    const jc_rapl_energy *e = jc_rapl_energy_of(m->rapl, i);
    jcli_zone_counter *c = &m->now.zone[i];
    c->read = e->read;
    c->gaps = (uint32_t)e->gaps;
    c->host_uj = e->total_uj;
  }
  jc_share_cpu cpu;
  bool have = jc_cpus_read(m->cpus, &cpu) == 0 && have_usage && usage_usec >= 0;
  uint64_t usage = have ? (uint64_t)usage_usec : 0;
  if (edge == JCLI_ENERGY_START)
    start_run(m, have, &cpu, usage);
  else
    end_stretch(m, edge == JCLI_ENERGY_END, have, &cpu, usage);
  *ret = m->now;
}

void jcli_energy_between(const jcli_zone_counter *first,
                         const jcli_zone_counter *last, jcli_zone_energy *ret) {
  *ret = (jcli_zone_energy){0};
  ret->have_host = first->read && last->read && first->gaps == last->gaps;
  if (!ret->have_host)
    return;
  ret->host_uj = (double)(last->host_uj - first->host_uj);
  ret->have_share = first->unshared == last->unshared;
  ret->proc_uj = last->proc_uj - first->proc_uj;
  ret->idle_uj = last->idle_uj - first->idle_uj;
}
