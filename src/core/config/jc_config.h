/*
 * jc_config — the plugin's configuration (docs/configuration.md) as plain data, with the
 * validation every front end shares: collectd's <Plugin joule_cgroup>
 * block and the joule-cgroup command's options both end up here.
 *
 * Setters return 0, or -EINVAL (-ENOMEM) with the reason in why
 * ("contains \"..\"", ...): only the setter knows which part of the value
 * was wrong; the caller names the key and value when it reports it.  The config owns
 * everything it points to; jc_config_free() releases it all (NULL-safe).
 */
#ifndef JC_CONFIG_H
#define JC_CONFIG_H

#include "jc_lists.h"
#include "jc_name.h"
#include "jc_pattern.h"
#include "jc_sample.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The container runtimes' state directories, each an absolute path inside
 * RuntimeRoot (RuntimeDir KIND DIR, docs/configuration.md#runtimedir; the
 * defaults are jc_runtime's). */
typedef enum {
  JC_RUNTIME_CONTAINERD, /* /run/containerd (k3s: /run/k3s/containerd) */
  JC_RUNTIME_CRIO,       /* /run/containers/storage */
  JC_RUNTIME_DOCKER,     /* /var/lib/docker */
  JC_RUNTIME_PODMAN,     /* /var/lib/containers/storage (rootful) */
  JC_RUNTIME_KUBELET,    /* /var/log: its pods/ and containers/ */
  JC_RUNTIME_KUBELET_ROOT, /* /var/lib/kubelet: its pods' volumes
                              (Collect "disk") */
  JC_RUNTIME_DIR_COUNT
} jc_runtime_dir;

/* RuntimeDir's KIND of each: "containerd", "crio", ... */
extern const char *const jc_runtime_dir_kinds[JC_RUNTIME_DIR_COUNT];

/* A <Cgroup "path"> block: a cgroup the plugin manages (profiler lifecycle). */
typedef struct {
  char *path;     /* relative to CgroupRoot, validated */
  char *instance; /* NULL: derived like any other cgroup */
  bool create;
  pid_t *pids;
  size_t pid_count;
  char **pid_files;
  size_t pid_file_count;
  bool keep; /* leave it in place at shutdown even if we created it */
  /* A parent that does not hand down a controller Collect reads: one
   * WARNING each and those values left out (joule-cgroup run measures
   * what a delegated subtree has), not an init error (the plugin). */
  bool without_missing_controllers;
} jc_managed;

typedef struct {
  char *root;       /* NULL: the first cgroup2 mount in /proc/self/mountinfo */
  char *powercap_root; /* Collect "energy": NULL for /sys/class/powercap */
  char *proc_stat;     /* the host's CPU time: NULL for /proc/stat */
  char *cpu_root;      /* the CPUs' topology: NULL for /sys/devices/system/cpu */
  char *proc_root;     /* Collect "gpu" and "network": NULL for /proc */
  char *gpu_library;   /* Collect "gpu": NVML, NULL for libnvidia-ml.so.1 */
  jc_pattern **net_interface; /* NetInterface patterns (jc_net) */
  size_t net_interface_count;
  bool net_ignore_selected;   /* NetIgnoreSelected */
  bool report_root; /* default true */
  jc_pattern **select;
  size_t select_count;
  jc_pattern **ignore;
  size_t ignore_count;
  jc_instance_from instance_from;
  char *runtime_root; /* InstanceFrom "container", Collect "disk": NULL
                         for "/" */
  jc_container_names container_names; /* ContainerNames */
  char *runtime_dir[JC_RUNTIME_DIR_COUNT]; /* RuntimeDir: NULL, the default */
  unsigned collect;    /* JC_COLLECT_*: the groups read */
  bool collect_given;  /* a group was named: the default set is replaced */
  unsigned collect_asked; /* the groups named, with or without "+" */
  jc_memstat_keys memstat;
  bool memstat_given;
  char **values;       /* Values patterns, in order */
  size_t values_count;
  size_t values_refused; /* jc_config_finish: the pattern it refused, by
                            index; values_count when none */
  jc_selection sel;    /* the value lists sent (jc_config_finish) */
  bool path_meta;      /* PathMetaData: the `cgroup` meta data on every list */
  bool per_device;
  bool notify_oom;     /* NotifyOOM: a notification per OOM kill (default) */
  bool notify_end;     /* NotifyEnd: a notification per cgroup that ends */
  long max_open_files; /* -1: derived from RLIMIT_NOFILE */
  long disk_walk_entries; /* DiskWalkEntries: entries a pass's walks look
                             at; JC_DISK_WALK_AUTO: from the cgroups */
  bool disk_walk_given;
  double rescan_interval; /* seconds between safety-net full walks */
  jc_managed *managed;
  size_t managed_count;
  /* A preview of the configuration (joule-cgroup check, sample
   * --config): nothing is created, attached or removed; a <Cgroup> that
   * exists is read, one that does not is said at init. */
  bool preview;
} jc_config;

jc_config *jc_config_new(void);
void jc_config_free(jc_config *cfg);

int jc_config_set_root(jc_config *cfg, const char *path, char *why, size_t n);
/* PowercapRoot, ProcStat and CpuRoot: absolute paths (Collect "energy"). */
int jc_config_set_powercap_root(jc_config *cfg, const char *path, char *why,
                                size_t n);
int jc_config_set_cpu_root(jc_config *cfg, const char *path, char *why,
                           size_t n);
int jc_config_set_proc_stat(jc_config *cfg, const char *path, char *why,
                            size_t n);
/* ProcRoot: an absolute path, where /proc is (Collect "gpu": where
 * /proc/PID/cgroup and /proc/PID/stat are read; Collect "network":
 * /proc/PID/net/dev, net/snmp and net/netstat).  GpuLibrary: NVML's
 * library, a name dlopen looks up or an absolute path. */
int jc_config_set_proc_root(jc_config *cfg, const char *path, char *why,
                            size_t n);
int jc_config_set_gpu_library(jc_config *cfg, const char *name, char *why,
                              size_t n);
/* NetInterface: a glob or /regex/ over interface names (jc_pattern). */
int jc_config_add_net_interface(jc_config *cfg, const char *text, char *why,
                                size_t n);
int jc_config_add_pattern(jc_config *cfg, bool ignore, const char *text,
                          char *why, size_t n);
int jc_config_set_instance_from(jc_config *cfg, const char *word, char *why,
                                size_t n);
/* RuntimeRoot DIR and RuntimeDir KIND DIR (InstanceFrom "container",
 * Collect "disk"):
 * absolute, without "." or ".." levels; KIND one of jc_runtime_dir_kinds. */
int jc_config_set_runtime_root(jc_config *cfg, const char *path, char *why,
                               size_t n);
int jc_config_set_runtime_dir(jc_config *cfg, const char *kind,
                              const char *path, char *why, size_t n);
/* ContainerNames "plain"|"prefixed"|"levels" (InstanceFrom "container"). */
int jc_config_set_container_names(jc_config *cfg, const char *word, char *why,
                                  size_t n);
/* A Collect group: "events" replaces the default set (the first one
 * named does; later ones add to it), "+events" adds to the default set,
 * or to the named ones, wherever it comes. */
int jc_config_add_collect(jc_config *cfg, const char *word, char *why,
                          size_t n);
int jc_config_add_memstat(jc_config *cfg, const char *key, char *why,
                          size_t n);
/* The i-th MemoryStat key read when none is given (docs/configuration.md,
 * MemoryStat); NULL past the last.  The command's CSV has a column for
 * each (jcli_csv.c). */
const char *jc_config_default_memstat(size_t i);
/* RescanInterval: seconds between the safety-net walks, 0.1 to 86400. */
int jc_config_set_rescan_interval(jc_config *cfg, double value, char *why,
                                  size_t n);
int jc_config_set_max_open_files(jc_config *cfg, double value, char *why,
                                 size_t n);
/* DiskWalkEntries (Collect "disk"): the entries the walks of a read pass
 * look at, all together: a whole number, 0 (no walk: project quotas only)
 * to 1,000,000,000; JC_DISK_WALK_AUTO (the default): half the number of
 * cgroups the pass reads, at least JC_DISK_WALK_LEAST, so that the walks
 * cost the pass a share of what its cgroups do (docs/performance.md). */
#define JC_DISK_WALK_AUTO (-1)
#define JC_DISK_WALK_LEAST 48
int jc_config_set_disk_walk_entries(jc_config *cfg, double value, char *err,
                                    size_t n);
/* A Values pattern: a glob over value list names that adds them, or with
 * a leading "!" removes them (jc_lists.h); applied in order by finish. */
int jc_config_add_values(jc_config *cfg, const char *pattern, char *why,
                         size_t n);

/* Adds a <Cgroup> block; NULL (with why) when the path is not acceptable. */
jc_managed *jc_config_add_managed(jc_config *cfg, const char *path, char *why,
                                  size_t n);
int jc_config_managed_set_instance(jc_managed *m, const char *name, char *why,
                            size_t n);
int jc_config_managed_add_pid(jc_managed *m, double pid, char *why, size_t n);
int jc_config_managed_add_pid_file(jc_managed *m, const char *path, char *why,
                            size_t n);

/*
 * Completes the configuration after the last key: applies defaults, makes
 * the selection of value lists, and runs the checks that need every key
 * (Values patterns that match nothing collected, Instances given twice,
 * symlinks out of an explicit CgroupRoot).  On failure why names the
 * offending key and value itself.  Called again (after jc_config_set_root)
 * it repeats the checks and changes nothing it made the first time.
 */
int jc_config_finish(jc_config *cfg, char *why, size_t n);

/* Validates a path relative to CgroupRoot (no "..", not absolute, ...). */
int jc_config_relpath_check(const char *path, char *why, size_t n);

#endif
