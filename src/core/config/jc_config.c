/*
 * jc_config — see jc_config.h.
 */
#include "jc_config.h"
#include "jc_hier.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const jc_runtime_dir_kinds[JC_RUNTIME_DIR_COUNT] = {
    "containerd", "crio", "docker", "podman", "kubelet", "kubelet-root"};

static const char *const default_memstat[] = {"anon", "file",  "kernel",
                                              "kernel_stack", "slab", "shmem"};

const char *jc_config_default_memstat(size_t i) {
  return i < sizeof(default_memstat) / sizeof(*default_memstat)
             ? default_memstat[i]
             : NULL;
}

/* A value the user gave that is refused: the message in why, -EINVAL. */
#define ERR(...) (snprintf(why, n, __VA_ARGS__), -EINVAL)
#define NOMEM() (snprintf(why, n, "out of memory"), -ENOMEM)

jc_config *jc_config_new(void) {
  jc_config *cfg = calloc(1, sizeof(*cfg));
  if (!cfg)
    return NULL;
  cfg->report_root = true;
  cfg->instance_from = JC_INSTANCE_FROM_PATH;
  cfg->collect = JC_COLLECT_DEFAULT;
  cfg->notify_oom = true;
  cfg->max_open_files = -1;
  cfg->disk_walk_entries = JC_DISK_WALK_AUTO;
  cfg->rescan_interval = 60.0;
  return cfg;
}

static void memstat_clear(jc_memstat_keys *k) {
  for (size_t i = 0; i < k->count; i++) {
    free(k->key[i]);
    free(k->derive_instance[i]);
  }
  memset(k, 0, sizeof(*k));
}

static void managed_clear(jc_managed *m) {
  free(m->path);
  free(m->instance);
  free(m->pids);
  for (size_t i = 0; i < m->pid_file_count; i++)
    free(m->pid_files[i]);
  free(m->pid_files);
}

static void patterns_free(jc_pattern **list, size_t count) {
  for (size_t i = 0; i < count; i++)
    jc_pattern_free(list[i]);
  free(list);
}

void jc_config_free(jc_config *cfg) {
  if (!cfg)
    return;
  free(cfg->root);
  free(cfg->powercap_root);
  free(cfg->proc_stat);
  free(cfg->cpu_root);
  free(cfg->proc_root);
  free(cfg->gpu_library);
  patterns_free(cfg->net_interface, cfg->net_interface_count);
  free(cfg->runtime_root);
  for (int k = 0; k < JC_RUNTIME_DIR_COUNT; k++)
    free(cfg->runtime_dir[k]);
  patterns_free(cfg->select, cfg->select_count);
  patterns_free(cfg->ignore, cfg->ignore_count);
  for (size_t i = 0; i < cfg->values_count; i++)
    free(cfg->values[i]);
  free(cfg->values);
  memstat_clear(&cfg->memstat);
  for (size_t i = 0; i < cfg->managed_count; i++)
    managed_clear(&cfg->managed[i]);
  free(cfg->managed);
  free(cfg);
}

/* Grows *array by one element of size elem; returns the new slot. */
static void *append(void *array_ptr, size_t *count, size_t elem) {
  void **array = array_ptr;
  void *grown = realloc(*array, (*count + 1) * elem);
  if (!grown)
    return NULL;
  *array = grown;
  void *slot = (char *)grown + *count * elem;
  memset(slot, 0, elem);
  (*count)++;
  return slot;
}

/* An absolute path into *slot. */
static int set_path(char **slot, const char *path, char *why, size_t n) {
  if (path[0] != '/')
    return ERR("must be an absolute path");
  char *copy = strdup(path);
  if (!copy)
    return NOMEM();
  free(*slot);
  *slot = copy;
  return 0;
}

int jc_config_set_root(jc_config *cfg, const char *path, char *why, size_t n) {
  int r = set_path(&cfg->root, path, why, n);
  if (r < 0)
    return r;
  size_t len = strlen(cfg->root);
  while (len > 1 && cfg->root[len - 1] == '/')
    cfg->root[--len] = '\0'; /* "/sys/fs/cgroup/" names the same root */
  return 0;
}

int jc_config_set_powercap_root(jc_config *cfg, const char *path, char *why,
                                size_t n) {
  return set_path(&cfg->powercap_root, path, why, n);
}

int jc_config_set_cpu_root(jc_config *cfg, const char *path, char *why,
                           size_t n) {
  return set_path(&cfg->cpu_root, path, why, n);
}

int jc_config_set_proc_stat(jc_config *cfg, const char *path, char *why,
                            size_t n) {
  return set_path(&cfg->proc_stat, path, why, n);
}

int jc_config_set_proc_root(jc_config *cfg, const char *path, char *why,
                            size_t n) {
  return set_path(&cfg->proc_root, path, why, n);
}

int jc_config_set_gpu_library(jc_config *cfg, const char *name, char *why,
                              size_t n) {
  if (!name[0])
    return ERR("must name a library (libnvidia-ml.so.1) or be its path");
  if (strchr(name, '/') && name[0] != '/')
    return ERR("must be a library name without '/' or an absolute path");
  char *copy = strdup(name);
  if (!copy)
    return NOMEM();
  free(cfg->gpu_library);
  cfg->gpu_library = copy;
  return 0;
}

int jc_config_add_net_interface(jc_config *cfg, const char *text, char *why,
                                size_t n) {
  jc_pattern *p = NULL;
  int r = jc_pattern_compile(text, &p, why, n);
  if (r < 0)
    return r;
  jc_pattern **slot =
      append(&cfg->net_interface, &cfg->net_interface_count, sizeof(*slot));
  if (!slot) {
    jc_pattern_free(p);
    return NOMEM();
  }
  *slot = p;
  return 0;
}

int jc_config_add_pattern(jc_config *cfg, bool ignore, const char *text,
                          char *why, size_t n) {
  jc_pattern *p = NULL;
  int r = jc_pattern_compile(text, &p, why, n);
  if (r < 0)
    return r;
  jc_pattern ***list = ignore ? &cfg->ignore : &cfg->select;
  size_t *count = ignore ? &cfg->ignore_count : &cfg->select_count;
  jc_pattern **slot = append(list, count, sizeof(*slot));
  if (!slot) {
    jc_pattern_free(p);
    return NOMEM();
  }
  *slot = p;
  return 0;
}

int jc_config_set_instance_from(jc_config *cfg, const char *word, char *why,
                                size_t n) {
  if (strcasecmp(word, "path") == 0)
    cfg->instance_from = JC_INSTANCE_FROM_PATH;
  else if (strcasecmp(word, "basename") == 0)
    cfg->instance_from = JC_INSTANCE_FROM_BASENAME;
  else if (strcasecmp(word, "container") == 0)
    cfg->instance_from = JC_INSTANCE_FROM_CONTAINER;
  else
    return ERR("must be \"path\", \"basename\" or \"container\"");
  return 0;
}

int jc_config_set_container_names(jc_config *cfg, const char *word, char *why,
                                  size_t n) {
  if (strcasecmp(word, "plain") == 0)
    cfg->container_names = JC_NAMES_PLAIN;
  else if (strcasecmp(word, "prefixed") == 0)
    cfg->container_names = JC_NAMES_PREFIXED;
  else if (strcasecmp(word, "levels") == 0)
    cfg->container_names = JC_NAMES_LEVELS;
  else
    return ERR("must be \"plain\", \"prefixed\" or \"levels\"");
  return 0;
}

/* An absolute path with no "." or ".." level (the runtime's files are
 * looked up below RuntimeRoot, never above it). */
static int set_runtime_path(char **slot, const char *path, char *why,
                            size_t n) {
  if (path[0] != '/')
    return ERR("must be an absolute path");
  for (const char *p = path; *p;) {
    p += strspn(p, "/");
    size_t len = strcspn(p, "/");
    if ((len == 1 && p[0] == '.') || (len == 2 && strncmp(p, "..", 2) == 0))
      return ERR("contains \"%.*s\"; give the directory itself", (int)len, p);
    p += len;
  }
  return set_path(slot, path, why, n);
}

int jc_config_set_runtime_root(jc_config *cfg, const char *path, char *why,
                               size_t n) {
  return set_runtime_path(&cfg->runtime_root, path, why, n);
}

int jc_config_set_runtime_dir(jc_config *cfg, const char *kind,
                              const char *path, char *why, size_t n) {
  for (int k = 0; k < JC_RUNTIME_DIR_COUNT; k++)
    if (strcasecmp(kind, jc_runtime_dir_kinds[k]) == 0)
      return set_runtime_path(&cfg->runtime_dir[k], path, why, n);
  return ERR("unknown runtime \"%s\"; known: containerd, crio, docker, "
             "podman, kubelet, kubelet-root", kind);
}

int jc_config_add_collect(jc_config *cfg, const char *word, char *why,
                          size_t n) {
  bool add = word[0] == '+';
  unsigned bit = jc_sample_collect_bit(word + add);
  if (!bit)
    return ERR("unknown group; known: cpu, memory, io, pressure, events, "
               "pids, limits, energy, cgroups, gpu, network (\"+GROUP\" adds "
               "one to the default set)");
  if (!add && !cfg->collect_given) { /* the default goes, "+" ones stay */
    cfg->collect &= cfg->collect_asked;
    cfg->collect_given = true;
  }
  cfg->collect |= bit;
  cfg->collect_asked |= bit;
  return 0;
}

static int memstat_add(jc_memstat_keys *k, const char *key, char *why,
                       size_t n) {
  for (size_t i = 0; i < k->count; i++)
    if (strcmp(k->key[i], key) == 0)
      return 0;
  if (k->count == JC_MEMSTAT_MAX)
    return ERR("more than %d keys", JC_MEMSTAT_MAX);
  if (key[0] == '\0' || strlen(key) > 64 || strpbrk(key, " \t\n/"))
    return ERR("is not a memory.stat key");
  size_t i = k->count;
  k->key[i] = strdup(key);
  k->key_len[i] = (uint8_t)strlen(key);
  k->is_event[i] = jc_sample_memstat_key_is_event(key);
  if (k->key[i] && k->is_event[i] &&
      asprintf(&k->derive_instance[i], "memory_%s", key) < 0)
    k->derive_instance[i] = NULL;
  if (!k->key[i] || (k->is_event[i] && !k->derive_instance[i])) {
    free(k->key[i]);
    return NOMEM();
  }
  k->count++;
  return 0;
}

int jc_config_add_memstat(jc_config *cfg, const char *key, char *why,
                          size_t n) {
  if (!cfg->memstat_given)
    memstat_clear(&cfg->memstat);
  cfg->memstat_given = true;
  return memstat_add(&cfg->memstat, key, why, n);
}

int jc_config_set_max_open_files(jc_config *cfg, double value, char *why,
                                 size_t n) {
  if (!(value >= 0 && value <= 1e9) || value != floor(value))
    return ERR("must be a whole number of files, 0 or more");
  cfg->max_open_files = (long)value;
  return 0;
}

int jc_config_set_disk_walk_entries(jc_config *cfg, double value, char *why,
                                    size_t n) {
  if (!(value >= 0 && value <= 1e9) || value != floor(value))
    return ERR("must be a whole number of entries, 0 or more");
  cfg->disk_walk_entries = (long)value;
  cfg->disk_walk_given = true;
  return 0;
}

int jc_config_set_rescan_interval(jc_config *cfg, double value, char *why,
                                  size_t n) {
  if (!(value >= 0.1 && value <= 86400))
    return ERR("must be between 0.1 and 86400 seconds");
  cfg->rescan_interval = value;
  return 0;
}

int jc_config_add_values(jc_config *cfg, const char *pattern, char *why,
                         size_t n) {
  const char *glob = pattern[0] == '!' ? pattern + 1 : pattern;
  if (glob[0] == '\0')
    return ERR("is empty; a value list name or glob, such as \"memory-*\", "
               "or \"!\" and one to leave out");
  char *copy = strdup(pattern);
  char **slot = copy ? append(&cfg->values, &cfg->values_count, sizeof(*slot))
                     : NULL;
  if (!slot) {
    free(copy);
    return NOMEM();
  }
  *slot = copy;
  return 0;
}

int jc_config_relpath_check(const char *path, char *why, size_t n) {
  if (path[0] == '\0')
    return ERR("is empty; the root cgroup is reported with ReportRoot");
  if (path[0] == '/')
    return ERR("is absolute; <Cgroup> paths are relative to CgroupRoot");
  for (const char *p = path; *p;) {
    size_t len = strcspn(p, "/");
    if (len == 0)
      return ERR("has an empty path level");
    if ((len == 2 && strncmp(p, "..", 2) == 0) ||
        (len == 1 && p[0] == '.'))
      return ERR("contains \"%.*s\"; <Cgroup> paths stay inside CgroupRoot",
                 (int)len, p);
    p += len;
    if (*p == '/' && *++p == '\0')
      return ERR("ends with \"/\"");
  }
  return 0;
}

jc_managed *jc_config_add_managed(jc_config *cfg, const char *path, char *why,
                                  size_t n) {
  if (jc_config_relpath_check(path, why, n) < 0)
    return NULL;
  for (size_t i = 0; i < cfg->managed_count; i++)
    if (strcmp(cfg->managed[i].path, path) == 0) {
      (void)ERR("is given twice");
      return NULL;
    }
  char *copy = strdup(path);
  jc_managed *m = copy ? append(&cfg->managed, &cfg->managed_count,
                                sizeof(*m))
                       : NULL;
  if (!m) {
    free(copy);
    (void)NOMEM();
    return NULL;
  }
  m->path = copy;
  return m;
}

int jc_config_managed_set_instance(jc_managed *m, const char *name, char *why,
                            size_t n) {
  if (name[0] == '\0' || strlen(name) > JC_INSTANCE_MAX || strchr(name, '/'))
    return ERR("must be 1 to %d bytes without \"/\"", JC_INSTANCE_MAX);
  char *copy = strdup(name);
  if (!copy)
    return NOMEM();
  free(m->instance);
  m->instance = copy;
  return 0;
}

int jc_config_managed_add_pid(jc_managed *m, double pid, char *why, size_t n) {
  if (!(pid >= 1 && pid <= 4194304) || pid != floor(pid))
    return ERR("is not a process id");
  pid_t *slot = append(&m->pids, &m->pid_count, sizeof(*slot));
  if (!slot)
    return NOMEM();
  *slot = (pid_t)pid;
  return 0;
}

int jc_config_managed_add_pid_file(jc_managed *m, const char *path, char *why,
                            size_t n) {
  if (path[0] != '/')
    return ERR("must be an absolute path");
  char *copy = strdup(path);
  char **slot = copy ? append(&m->pid_files, &m->pid_file_count, sizeof(*slot))
                     : NULL;
  if (!slot) {
    free(copy);
    return NOMEM();
  }
  *slot = copy;
  return 0;
}

/* With an explicit root, a <Cgroup> that exists must be reached without
 * leaving the root through a symlink, and must be a directory. */
static int check_managed_paths(const jc_config *cfg, char *why, size_t n) {
  if (!cfg->root)
    return 0; /* the root is found at init, which repeats this check */
  int rootfd = open(cfg->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0)
    return 0; /* reported at init, with the hierarchy diagnostics */
  int result = 0;
  for (size_t i = 0; i < cfg->managed_count && result == 0; i++) {
    char level[256];
    int fd = jc_hier_open_relpath(rootfd, cfg->managed[i].path, level,
                                  sizeof(level));
    if (fd >= 0)
      close(fd);
    else if (fd != -ENOENT)
      result = ERR("<Cgroup \"%s\">: %s", cfg->managed[i].path, level);
  }
  close(rootfd);
  return result;
}

/* The value lists sent: a Values pattern that chooses nothing is named. */
static int make_selection(jc_config *cfg, char *why, size_t n) {
  char refused[384];
  size_t failed = 0;
  cfg->values_refused = cfg->values_count;
  if (jc_lists_select(&cfg->sel, &cfg->memstat, cfg->memstat_given,
                        cfg->collect, cfg->values, cfg->values_count, &failed,
                        refused, sizeof(refused)) == 0)
    return 0;
  cfg->values_refused = failed;
  return ERR("Values \"%s\": %s", cfg->values[failed], refused);
}

/* Two blocks with one Instance, or one named like the root: their values
 * would go to one series. */
static int check_instances(const jc_config *cfg, char *why, size_t n) {
  for (size_t i = 0; i < cfg->managed_count; i++) {
    const char *name = cfg->managed[i].instance;
    if (!name)
      continue;
    if (cfg->report_root && strcmp(name, "root") == 0)
      return ERR("<Cgroup \"%s\">: Instance \"root\" is the root cgroup's "
                 "(ReportRoot); choose another",
                 cfg->managed[i].path);
    for (size_t k = 0; k < i; k++)
      if (cfg->managed[k].instance && strcmp(cfg->managed[k].instance, name) == 0)
        return ERR("<Cgroup \"%s\">: Instance \"%s\" is given to <Cgroup "
                   "\"%s\"> too; each needs its own",
                   cfg->managed[i].path, name, cfg->managed[k].path);
  }
  return 0;
}

/* RuntimeRoot and RuntimeDir name where InstanceFrom "container" and
 * Collect "disk" look, ContainerNames how the one names, DiskWalkEntries
 * how far the other walks: without them they would silently do nothing. */
static int check_runtime(const jc_config *cfg, char *why, size_t n) {
  bool names = cfg->instance_from == JC_INSTANCE_FROM_CONTAINER;
  bool disk = cfg->collect & JC_COLLECT_DISK;
  if (cfg->disk_walk_given && !disk)
    return ERR("DiskWalkEntries %ld: is used by Collect \"disk\" only; add "
               "it, or remove DiskWalkEntries", cfg->disk_walk_entries);
  if (cfg->container_names != JC_NAMES_PLAIN && !names)
    return ERR("ContainerNames: is used by InstanceFrom \"container\" only; "
               "add it, or remove ContainerNames");
  if (names || disk)
    return 0;
  if (cfg->runtime_root)
    return ERR("RuntimeRoot \"%s\": is used by InstanceFrom \"container\" "
               "and Collect \"disk\" only; add one, or remove RuntimeRoot",
               cfg->runtime_root);
  for (int k = 0; k < JC_RUNTIME_DIR_COUNT; k++)
    if (cfg->runtime_dir[k])
      return ERR("RuntimeDir \"%s\" \"%s\": is used by InstanceFrom "
                 "\"container\" and Collect \"disk\" only; add one, or "
                 "remove RuntimeDir",
                 jc_runtime_dir_kinds[k], cfg->runtime_dir[k]);
  return 0;
}

int jc_config_finish(jc_config *cfg, char *why, size_t n) {
  int r = 0;
  if (!cfg->memstat_given && cfg->memstat.count == 0)
    for (size_t i = 0; r == 0 && jc_config_default_memstat(i); i++)
      r = memstat_add(&cfg->memstat, jc_config_default_memstat(i), why, n);
  if (r == 0 && cfg->select_count == 0 && cfg->managed_count == 0)
    r = jc_config_add_pattern(cfg, false, "*", why, n);
  if (r == 0)
    r = make_selection(cfg, why, n);
  if (r == 0)
    r = check_instances(cfg, why, n);
  if (r == 0)
    r = check_runtime(cfg, why, n);
  return r < 0 ? r : check_managed_paths(cfg, why, n);
}
