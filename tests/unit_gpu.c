/* Collect "gpu" without a GPU: NVML (jc_nvml) loaded from the fake
 * library the tests build (tests/fake_nvml.c, tests/fake-nvml*), the
 * parsers of /proc/PID/cgroup and /proc/PID/stat (jc_proc), and the step
 * (jc_gpu) through a collector on a fixture tree with a fixture /proc
 * (ProcRoot): memory per cgroup and GPU, SM utilisation, the board's
 * energy split exactly (the parts, the unattributed use and the idle part
 * add up to the counter's increase), MIG (each cgroup's memory per GPU
 * instance, the instances' memory, one MIG query per GPU and read), and
 * the faults: a list that grows, a GPU lost and back, a pid /proc lacks,
 * a pid reused, an older driver, no driver, no GPU, MIG unreadable. */
#include "collect_util.h"
#include "fixture_util.h"
#include "jc_collector.h"
#include "jc_nvml.h"
#include "jc_proc.h"
#include "tap.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

static char fake[PATH_MAX], fake_old[PATH_MAX], script[PATH_MAX],
    nvml_log[PATH_MAX];

/* ---- what the collector said and sent --------------------------------------- */

/* Lines at level (or, level < 0, any) containing part. */
static int said(int level, const char *part) {
  int n = 0;
  for (int i = 0; i < log_count; i++)
    n += (level < 0 || log_level[i] == level) && strstr(logs[i], part);
  return n;
}

/* Lines about GPUs or NVML. */
static int gpu_lines(void) {
  return said(-1, "GPU") + said(-1, "NVML") + said(-1, "NVIDIA") -
         said(-1, "NVML (") - said(-1, "NVIDIA driver: ");
}

static int lists_with(const char *part) {
  int n = 0;
  for (int i = 0; i < value_count; i++)
    n += strstr(values[i].key, part) != NULL;
  return n;
}

/* The totals of a, as the command's read passes make them. */
static jc_totals a_totals;
static bool a_totals_made;

static void totals_cb(void *ctx, const jc_target *t, const jc_totals *tot) {
  (void)ctx;
  if (strcmp(t->relpath, "a") == 0) {
    a_totals = *tot;
    a_totals_made = true;
  }
}

static void with_totals(jc_collector *c) {
  jc_collector_set_totals(c, totals_cb, NULL);
}

static void read_once(jc_collector *c) {
  value_count = 0;
  jc_collector_read(c, collect_cb, NULL);
}

/* ---- the scene: a tree, a /proc, the fake's script ------------------------------ */

static void proc(int pid, unsigned long long start, const char *cgroup) {
  char rel[64];
  snprintf(rel, sizeof(rel), "proc/%d", pid);
  if (access(fx_path(rel), F_OK) == 0)
    fx_remove(rel);
  fx_mkdirs(rel);
  snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
  /* comm with a space and a ')' in it: fields counted from the last ')' */
  fx_writef(rel,
            "%d (gpu) job) S 1 %d %d 0 -1 4194560 100 0 0 0 10 5 0 0 20 0 1 "
            "0 %llu 1000000 100 18446744073709551615\n",
            pid, pid, pid, start);
  snprintf(rel, sizeof(rel), "proc/%d/cgroup", pid);
  fx_writef(rel, "0::%s\n", cgroup);
}

static void write_script(const char *text) {
  FILE *f = fopen(script, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0)
    exit(99);
}

static jc_collector *start(const char *library, const char *values_glob) {
  char err[256];
  jc_config *cfg = jc_config_new();
  int r = jc_config_set_root(cfg, fx_path("cg"), err, sizeof(err));
  r |= jc_config_set_proc_root(cfg, fx_path("proc"), err, sizeof(err));
  r |= jc_config_set_gpu_library(cfg, library, err, sizeof(err));
  r |= jc_config_add_pattern(cfg, false, "*", err, sizeof(err));
  r |= jc_config_add_pattern(cfg, false, "a/x", err, sizeof(err));
  r |= jc_config_add_collect(cfg, "memory", err, sizeof(err));
  r |= jc_config_add_collect(cfg, "gpu", err, sizeof(err));
  r |= jc_config_add_values(cfg, values_glob, err, sizeof(err));
  r |= jc_config_finish(cfg, err, sizeof(err));
  if (r < 0) {
    printf("# config: %s\n", err);
    exit(99);
  }
  return collector_start(cfg, with_totals);
}

/* ---- NVML through the fake ----------------------------------------------------- */

static void test_nvml(void) {
  char err[256];
  jc_nvml *n = NULL;
  ok(jc_nvml_open("/nonexistent/libnvidia-ml.so.1", &n, err, sizeof(err)) ==
             -ENOENT &&
         !n && strstr(err, "nonexistent"),
     "a library that is not there: -ENOENT, dlerror's words (%s)", err);
  ok(jc_nvml_open(fake, &n, err, sizeof(err)) == 0, "the fake loads");
  is_int(jc_nvml_version(n, JC_NVML_FN_COMPUTE), 3,
         "the newest symbol: nvmlDeviceGetComputeRunningProcesses_v3");
  write_script("gpu GPU-1111 0 5000\n"
               "proc 0 compute 200 1000\nproc 0 compute 201 na\n"
               "proc 0 graphics 200 1000\n"
               "util 0 200 10 50\nutil 0 200 20 40\nutil 0 201 20 5\n");
  ok(jc_nvml_start(n) == 0, "nvmlInit_v2");
  unsigned count = 0;
  jc_nvml_device d;
  ok(jc_nvml_count(n, &count) == 0 && count == 1 &&
         jc_nvml_device_at(n, 0, &d) == 0 && strcmp(d.uuid, "GPU-1111") == 0 &&
         d.minor == 0,
     "one GPU, its UUID and minor number");
  const jc_nvml_process *p;
  size_t np = 0;
  ok(jc_nvml_processes(n, &d, false, &p, &np) == 0 && np == 2 &&
         p[0].pid == 200 && p[0].used_bytes == 1000 && p[0].used_known &&
         p[1].pid == 201 && !p[1].used_known && p[1].used_bytes == 0,
     "the compute list: pids, memory; NVML_VALUE_NOT_AVAILABLE is unknown");
  const jc_nvml_sample *s;
  size_t ns = 0;
  ok(jc_nvml_utilization(n, &d, 10, &s, &ns) == 0 && ns == 2 &&
         s[0].time_us == 20 && s[0].sm == 40 && s[1].pid == 201,
     "the samples newer than the time stamp given");
  ok(jc_nvml_utilization(n, &d, 20, &s, &ns) == 0 && ns == 0,
     "none newer (NVML_ERROR_NOT_FOUND): 0 samples");
  uint64_t mj = 0;
  ok(jc_nvml_energy(n, &d, &mj) == 0 && mj == 5000, "the energy counter, mJ");
  jc_nvml_stop(n);
  /* The list grows between the size and the read. */
  write_script("gpu GPU-1111 0 5000\nproc 0 compute 200 1000\ngrow 0 3\n");
  ok(jc_nvml_start(n) == 0 && jc_nvml_device_at(n, 0, &d) == 0 &&
         jc_nvml_processes(n, &d, false, &p, &np) == 0 && np == 1,
     "a list that grew three times between size and read: asked again");
  jc_nvml_stop(n);
  write_script("gpu GPU-1111 0 5000\nproc 0 compute 200 1000\ngrow 0 99\n");
  ok(jc_nvml_start(n) == 0 && jc_nvml_device_at(n, 0, &d) == 0 &&
         jc_nvml_processes(n, &d, false, &p, &np) == -EAGAIN,
     "one that keeps growing: -EAGAIN after %d tries", JC_NVML_TRIES);
  jc_nvml_stop(n);
  write_script("gpu GPU-1111 0 5000\nfail energy 0 15\n");
  ok(jc_nvml_start(n) == 0 && jc_nvml_device_at(n, 0, &d) == 0 &&
         jc_nvml_energy(n, &d, &mj) == -ENODEV &&
         strcmp(jc_nvml_last_error(n), "GPU is lost") == 0,
     "NVML_ERROR_GPU_IS_LOST: -ENODEV, NVML's words");
  jc_nvml_stop(n);
  /* MIG: GPU instance 1 of two compute instances (two MIG devices), 2 of
   * one; the other GPU's mode off. */
  write_script("gpu GPU-1111 0 5000\ngpu GPU-2222 1 5000\n"
               "mig 0 1 4000 2\nmig 0 2 2000\n"
               "proc 0 compute 200 1000 2\n");
  jc_nvml_instance inst[JC_NVML_INSTANCES_MAX];
  size_t ni = 0;
  bool mig = false;
  ok(jc_nvml_has(n, JC_NVML_FN_MIG) && jc_nvml_start(n) == 0 &&
         jc_nvml_device_at(n, 0, &d) == 0 &&
         jc_nvml_instances(n, &d, &mig, inst, JC_NVML_INSTANCES_MAX, &ni) ==
             0 &&
         mig && ni == 2 && inst[0].id == 1 && inst[0].total_known &&
         inst[0].total_bytes == 4000 && inst[1].id == 2 &&
         inst[1].total_bytes == 2000,
     "MIG: two GPU instances (one of two MIG devices), each with its "
     "memory");
  ok(jc_nvml_processes(n, &d, false, &p, &np) == 0 && np == 1 &&
         p[0].gpu_instance == 2 && p[0].compute_instance == 0,
     "a process's GPU instance id from the _v3 list");
  ok(jc_nvml_instances(n, &d, &mig, inst, 1, &ni) == 0 && ni == 1,
     "no more instances than asked for");
  ok(jc_nvml_device_at(n, 1, &d) == 0 &&
         jc_nvml_instances(n, &d, &mig, inst, JC_NVML_INSTANCES_MAX, &ni) ==
             0 &&
         !mig && ni == 0,
     "MIG off: no instance");
  jc_nvml_stop(n);
  write_script("fail init -1 18\n");
  ok(jc_nvml_start(n) == -EPROTO,
     "NVML_ERROR_LIB_RM_VERSION_MISMATCH (a driver upgraded): -EPROTO");
  jc_nvml_close(n);

  ok(jc_nvml_open(fake_old, &n, err, sizeof(err)) == 0 &&
         jc_nvml_version(n, JC_NVML_FN_COMPUTE) == 1 &&
         !jc_nvml_has(n, JC_NVML_FN_UTILIZATION) &&
         !jc_nvml_has(n, JC_NVML_FN_ENERGY) &&
         !jc_nvml_has(n, JC_NVML_FN_MIG),
     "an older driver: the plain process function, no utilisation, no "
     "energy, no MIG");
  write_script("gpu GPU-1111 0 5000\nproc 0 compute 200 1000\n"
               "proc 0 compute 201 2000\n");
  ok(jc_nvml_start(n) == 0 && jc_nvml_device_at(n, 0, &d) == 0 &&
         jc_nvml_processes(n, &d, false, &p, &np) == 0 && np == 2 &&
         p[1].pid == 201 && p[1].used_bytes == 2000 &&
         jc_nvml_energy(n, &d, &mj) == -ENOSYS,
     "its two-field structure read as such; the energy -ENOSYS");
  jc_nvml_stop(n);
  jc_nvml_close(n);
  jc_nvml_close(NULL);
}

/* ---- /proc's text ------------------------------------------------------------- */

static void test_parse(void) {
  char path[64];
  uint64_t v = 7;
  ok(jc_proc_parse_cgroup("12:pids:/x\n0::/a/b\n", path, sizeof(path)) == 0 &&
         strcmp(path, "/a/b") == 0,
     "the 0:: line among v1 lines");
  ok(jc_proc_parse_cgroup("1:name=systemd:/\n", path, sizeof(path)) == -ENOENT,
     "no 0:: line: -ENOENT");
  ok(jc_proc_parse_cgroup("0::a\n", path, sizeof(path)) == -EINVAL &&
         jc_proc_parse_cgroup("0::\n", path, sizeof(path)) == -EINVAL,
     "a path that is not absolute: -EINVAL");
  ok(jc_proc_parse_cgroup("0::/0123456789012345678901234567890123456789012345"
                          "678901234567890123\n",
                          path, sizeof(path)) == -ENAMETOOLONG,
     "one longer than the room: -ENAMETOOLONG");
  ok(jc_proc_parse_stat_field("5 (a) b) c) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 "
                              "15 16 17 18 424242 9\n",
                              JC_PROC_STAT_START_TIME, &v) == 0 &&
         v == 424242,
     "the start time after a comm with ') ' in it");
  v = 7;
  ok(jc_proc_parse_stat_field("5 (a) S 1 2", JC_PROC_STAT_START_TIME, &v) ==
             -EINVAL &&
         v == 7,
     "a short line: -EINVAL, nothing written");
  ok(jc_proc_parse_stat_field("5 a S 1", 4, &v) == -EINVAL,
     "no ')': -EINVAL");
}

/* ---- the step ------------------------------------------------------------------ */

#define GIB 1073741824ull
#define MIB 1048576ull

/* The processes: 101 in a (compute and graphics, counted once), 102 in
 * a/x, 103 in b (on both GPUs), 104 not in /proc. */
static const char *procs_text = "proc 0 compute 101 1073741824\n"
                                "proc 0 graphics 101 1073741824\n"
                                "proc 0 compute 102 536870912\n"
                                "proc 0 compute 103 268435456\n"
                                "proc 0 compute 104 67108864\n"
                                "proc 1 compute 103 104857600\n";

static void scene(void) {
  fx_tmpdir();
  fx_mkdirs("cg");
  fx_write("cg/memory.current", "1000\n");
  fx_cgroup("cg/a", 0);
  fx_cgroup("cg/a/x", 0);
  fx_cgroup("cg/b", 0);
  fx_write("cg/a/memory.current", "4096\n");
  const char *dirs[] = {"cg", "cg/a", "cg/a/x", "cg/b"};
  for (size_t i = 0; i < 4; i++) {
    char rel[64];
    snprintf(rel, sizeof(rel), "%s/cgroup.controllers", dirs[i]);
    fx_write(rel, "cpu memory\n");
    snprintf(rel, sizeof(rel), "%s/cgroup.subtree_control", dirs[i]);
    fx_write(rel, "cpu memory\n");
  }
  proc(101, 5000, "/a");
  proc(102, 5001, "/a/x");
  proc(103, 5002, "/b");
}

/* The fake's script: the two GPUs with their energy counters (mJ), the
 * processes, then more (samples, faults). */
static void gpus(unsigned long long mj_a, unsigned long long mj_b,
                 const char *more) {
  char text[2048];
  snprintf(text, sizeof(text),
           "gpu GPU-aaaa 0 %llu\ngpu GPU-bbbb 1 %llu\n%s%s", mj_a, mj_b,
           procs_text, more);
  write_script(text);
}

static void test_step(void) {
  scene();
  setenv("FAKE_NVML_LOG", nvml_log, 1);
  gpus(1000000, 500000,
       "util 0 101 1000 30\nutil 0 102 1000 20\nutil 0 103 1000 10\n");
  jc_collector *c = start(fake, "*");
  ok(c != NULL, "the collector starts with Collect \"gpu\" on the fake");
  if (!c)
    return;
  ok(said(JC_LOG_INFO, "2 GPUs through") == 1,
     "one INFO line: the GPUs and what the driver has");
  ok(said(JC_LOG_INFO, "process 104, which NVML lists") == 1 &&
         said(-1, "hostPID") == 1,
     "the pid /proc lacks (at the baseline read): said once, with hostPID");
  read_once(c);
  /* The second read: 200 J on GPU-aaaa, 50 J on GPU-bbbb; the samples
   * since the last seen (1000), each process's mean: 101 (40 and 20) 30 %,
   * 102 10 %, 103 20 %, 104 10 % (busy 70 of 100). */
  gpus(1200000, 550000,
       "util 0 101 1000 30\nutil 0 102 1000 20\nutil 0 103 1000 10\n"
       "util 0 101 2000 40\nutil 0 102 2000 10\nutil 0 103 2000 20\n"
       "util 0 104 2000 10\nutil 0 101 3000 20\n");
  log_count = 0;
  read_once(c);
  is_u64(value("a/memory-GPU-aaaa"), GIB + 512 * MIB,
         "a: its process (once, in both lists) and a/x's: 1.5 GiB");
  is_u64(value("a_x/memory-GPU-aaaa"), 512 * MIB, "a/x: 512 MiB");
  is_u64(value("b/memory-GPU-aaaa"), 256 * MIB, "b: 256 MiB");
  is_u64(value("root/memory-GPU-aaaa"), GIB + 512 * MIB + 256 * MIB + 64 * MIB,
         "root: every process, the one /proc lacks included");
  is_u64(value("b/memory-GPU-bbbb"), 100 * MIB, "b on the other GPU");
  is_u64(value("root/memory-GPU-aaaa_total"), 80 * GIB,
         "root: the GPU's memory, nvmlDeviceGetMemoryInfo's total");
  ok(value("a/memory-GPU-aaaa_total") < 0, "a cgroup has no total");
  ok(value("a/memory-GPU-bbbb") < 0, "a never used GPU-bbbb: no list of it");
  is_near(value("a/percent-GPU-aaaa_sm"), 40, 1e-9,
          "a: 101's mean 30 %% + a/x's 10 %%");
  is_near(value("a_x/percent-GPU-aaaa_sm"), 10, 1e-9, "a/x: 10 %%");
  is_near(value("b/percent-GPU-aaaa_sm"), 20, 1e-9, "b: 20 %%");
  is_near(value("root/percent-GPU-aaaa_sm"), 70, 1e-9, "root: all, 70 %%");
  is_u64(value("root/derive-energy_GPU-aaaa_uj"), 200000000,
         "the board's counter: 200 J in µJ");
  is_u64(value("a/derive-energy_GPU-aaaa_uj"), 80000000, "a: 200 J x 40 %%");
  is_u64(value("a_x/derive-energy_GPU-aaaa_uj"), 20000000, "a/x: x 10 %%");
  is_u64(value("b/derive-energy_GPU-aaaa_uj"), 40000000, "b: x 20 %%");
  is_u64(value("root/derive-energy_GPU-aaaa_idle_uj"), 60000000,
         "the idle part: x 30 %%");
  ok(value("a/derive-energy_GPU-aaaa_uj") + value("b/derive-energy_GPU-aaaa_uj") +
             value("root/derive-energy_GPU-aaaa_idle_uj") + 20000000 ==
         value("root/derive-energy_GPU-aaaa_uj"),
     "a + b + idle + the unattributed 20 J = the counter's 200 J");
  is_u64(value("root/derive-energy_GPU-bbbb_idle_uj"), 50000000,
         "GPU-bbbb without a sample: its 50 J all idle");
  is_u64(value("b/derive-energy_GPU-bbbb_uj"), 0, "b's part of it: 0");
  ok(said(-1, "hostPID") == 0, "the pid /proc lacks: not said again");
  FILE *f = fopen(nvml_log, "r");
  int inits = 0, shutdowns = 0;
  char line[64];
  while (f && fgets(line, sizeof(line), f)) {
    inits += line[0] == 'i';
    shutdowns += line[0] == 's';
  }
  if (f)
    fclose(f);
  ok(inits == 4 && shutdowns == 4,
     "NVML started and shut down once per read (init, its baseline read, "
     "two reads): %d, %d",
     inits, shutdowns);

  /* Third read: GPU-bbbb lost; pid 102 reused by a process of b; the
   * compute list grows twice between size and read. */
  proc(102, 9999, "/b");
  gpus(1300000, 560000,
       "util 0 102 4000 50\nfail energy 1 15\ngrow 0 2\n");
  log_count = 0;
  read_once(c);
  is_u64(value("b/memory-GPU-aaaa"), 256 * MIB + 512 * MIB,
         "pid 102 reused by a process of b: b's now, a/x's no more");
  ok(a_totals_made && a_totals.have_gpu &&
         a_totals.gpu_memory_peak == GIB + 512 * MIB &&
         a_totals.gpu_energy_joules == 80,
     "a's totals (its final figures): GPU memory peak 1.5 GiB, GPU energy "
     "80 J charged up to the pass before (%g J)",
     a_totals.gpu_energy_joules);
  is_u64(value("a_x/memory-GPU-aaaa"), 0, "a/x: 0");
  is_u64(value("b/derive-energy_GPU-aaaa_uj"), 40000000 + 50000000,
         "b: 100 J at 50 %%: + 50 J");
  ok(said(JC_LOG_WARNING, "GPU GPU-bbbb: NVML says \"GPU is lost\"") == 1 &&
         lists_with("GPU-bbbb") == 0 && lists_with("GPU-aaaa") > 0,
     "GPU-bbbb lost: one WARNING, its lists stop, GPU-aaaa's go on");
  read_once(c);
  ok(said(JC_LOG_WARNING, "lost") == 1, "said once, not at every read");
  /* Back: its counters from 0. */
  gpus(1300000, 560000, "");
  log_count = 0;
  read_once(c);
  ok(said(JC_LOG_INFO, "GPU GPU-bbbb is read again") == 1 &&
         value("root/derive-energy_GPU-bbbb_uj") == 0,
     "GPU-bbbb back: said, its counter from 0 (a counter reset)");
  gpus(1300000, 561000, "");
  read_once(c);
  is_u64(value("root/derive-energy_GPU-bbbb_uj"), 1000000,
         "and counts again: 1 J");
  /* The counter goes back: a reset. */
  gpus(1000, 561000, "");
  log_count = 0;
  read_once(c);
  ok(said(JC_LOG_INFO, "its energy counter went back") == 1 &&
         value("root/derive-energy_GPU-aaaa_uj") == 0 &&
         value("b/derive-energy_GPU-aaaa_uj") == 0,
     "GPU-aaaa's counter went back: its counters restart from 0");
  ok(said(JC_LOG_WARNING, "") == 0 && said(JC_LOG_ERR, "") == 0,
     "nothing louder than INFO");
  /* The driver upgraded under the plugin: the library it holds is not the
   * module's version (NVML_ERROR_LIB_RM_VERSION_MISMATCH) until the new
   * one is loaded; here the fake says so until the script changes. */
  write_script("fail init -1 18\n");
  log_count = 0;
  read_once(c);
  read_once(c);
  ok(said(JC_LOG_WARNING, "does not start: RM has detected an NVML/RM "
                          "version mismatch") == 1 &&
         lists_with("GPU-") == 0 && value("a/memory-current") >= 0,
     "a driver being upgraded: one WARNING over two reads, no GPU list, the "
     "other lists go on");
  gpus(2000, 561000, "");
  log_count = 0;
  read_once(c);
  ok(said(JC_LOG_INFO, "NVML starts again") == 1 &&
         value("root/memory-GPU-aaaa") > 0,
     "the new driver: said, the GPUs read again");
  jc_collector_free(c);
  unsetenv("FAKE_NVML_LOG");
  fx_cleanup();
}

/* MIG: GPU-aaaa's mode on, GPU instance 1 (40 GiB, two compute
 * instances) and 2 (20 GiB); 101 (a) and 103 (b) on 1, 102 (a/x) and 104
 * (not in /proc) on 2; GPU-bbbb's mode off. */
static const char *mig_text =
    "gpu GPU-aaaa 0 1000\ngpu GPU-bbbb 1 500\n"
    "mig 0 1 42949672960 2\nmig 0 2 21474836480\n"
    "proc 0 compute 101 1073741824 1\nproc 0 compute 102 536870912 2\n"
    "proc 0 compute 103 268435456 1\nproc 0 compute 104 67108864 2\n"
    "proc 1 compute 103 104857600\n";

static int log_lines(char first) {
  FILE *f = fopen(nvml_log, "r");
  int n = 0;
  char line[64];
  while (f && fgets(line, sizeof(line), f))
    n += line[0] == first;
  if (f)
    fclose(f);
  return n;
}

static void test_mig(void) {
  scene();
  unlink(nvml_log);
  setenv("FAKE_NVML_LOG", nvml_log, 1);
  write_script(mig_text);
  jc_collector *c = start(fake, "*");
  ok(c != NULL, "MIG: the collector starts");
  if (!c)
    return;
  read_once(c);
  read_once(c);
  is_u64(value("root/memory-GPU-aaaa_gi1"), GIB + 256 * MIB,
         "root, GPU instance 1: 101's and 103's");
  is_u64(value("root/memory-GPU-aaaa_gi2"), 512 * MIB + 64 * MIB,
         "root, GPU instance 2: 102's and 104's (which /proc lacks)");
  is_u64(value("root/memory-GPU-aaaa_gi1_total"), 40 * GIB,
         "GPU instance 1's memory, once for its two compute instances");
  is_u64(value("root/memory-GPU-aaaa_gi2_total"), 20 * GIB,
         "GPU instance 2's memory");
  is_u64(value("root/memory-GPU-aaaa"), GIB + 512 * MIB + 256 * MIB + 64 * MIB,
         "the GPU's whole as without MIG");
  is_u64(value("a/memory-GPU-aaaa_gi1"), GIB, "a on instance 1: 101's");
  is_u64(value("a/memory-GPU-aaaa_gi2"), 512 * MIB,
         "a on instance 2: a/x's 102 (the rule of memory-<gpu>)");
  is_u64(value("a_x/memory-GPU-aaaa_gi2"), 512 * MIB, "a/x on instance 2");
  ok(value("a_x/memory-GPU-aaaa_gi1") < 0 && value("b/memory-GPU-aaaa_gi2") < 0,
     "no list of an instance a cgroup's processes never used");
  is_u64(value("b/memory-GPU-aaaa_gi1"), 256 * MIB, "b on instance 1");
  ok(value("a/memory-GPU-aaaa_gi1_total") < 0 && lists_with("GPU-bbbb_gi") == 0,
     "the instances' memory on root only; GPU-bbbb (MIG off) has no "
     "instance list");
  int reads = log_lines('i') - 1; /* init's own start reads no GPU */
  ok(reads == 3 && log_lines('m') == 2 * reads,
     "one MIG query per GPU and read, whatever the cgroups: %d for %d reads",
     log_lines('m'), reads);
  /* Instance 2 destroyed, 102 gone with it. */
  write_script("gpu GPU-aaaa 0 1000\ngpu GPU-bbbb 1 500\n"
               "mig 0 1 42949672960 2\n"
               "proc 0 compute 101 1073741824 1\n");
  read_once(c);
  ok(value("root/memory-GPU-aaaa_gi2") < 0 && value("a/memory-GPU-aaaa_gi2") < 0 &&
         value("a/memory-GPU-aaaa_gi1") == GIB &&
         value("b/memory-GPU-aaaa_gi1") == 0,
     "an instance destroyed: its lists stop; instance 1's go on, b's at 0");
  /* Its MIG mode unreadable: read as a whole, said once. */
  write_script("gpu GPU-aaaa 0 1000\ngpu GPU-bbbb 1 500\n"
               "mig 0 1 42949672960\n"
               "proc 0 compute 101 1073741824 1\nfail mig 0 4\n");
  log_count = 0;
  read_once(c);
  read_once(c);
  ok(said(JC_LOG_INFO, "its MIG instances cannot be read (Unknown Error)") == 1 &&
         lists_with("_gi") == 0 && value("a/memory-GPU-aaaa") == GIB,
     "MIG unreadable: one INFO, no instance list, the GPU's lists go on");
  ok(said(JC_LOG_WARNING, "") == 0, "nothing louder than INFO");
  jc_collector_free(c);
  unsetenv("FAKE_NVML_LOG");
  fx_cleanup();
}

static void test_without(void) {
  scene();
  write_script("gpu GPU-aaaa 0 1000\nproc 0 compute 101 4096\n"
               "util 0 101 10 50\n");
  jc_collector *c = start(fake_old, "*");
  ok(c && said(JC_LOG_INFO, "no nvmlDeviceGetProcessUtilization") == 1 &&
         said(JC_LOG_INFO, "no nvmlDeviceGetTotalEnergyConsumption") == 1,
     "an older driver: one INFO for each figure it cannot give");
  if (c) {
    read_once(c);
    read_once(c);
    ok(value("a/memory-GPU-aaaa") == 4096 && lists_with("_sm") == 0 &&
           lists_with("energy_GPU") == 0,
       "its memory figures still go out; no utilisation, no energy");
    jc_collector_free(c);
  }

  c = start("/nonexistent/libnvidia-ml.so.1", "*");
  ok(c && said(JC_LOG_INFO, "no NVIDIA driver") == 1 && gpu_lines() == 1,
     "no driver: exactly one INFO line");
  if (c) {
    read_once(c);
    ok(lists_with("GPU") == 0 && value("a/memory-current") >= 0,
       "no GPU list; the other lists go out");
    jc_collector_free(c);
  }
  write_script("");
  c = start(fake, "*");
  ok(c && said(JC_LOG_INFO, "finds no GPU") == 1 && gpu_lines() == 1,
     "no GPU: exactly one INFO line");
  jc_collector_free(c);
  write_script("fail init -1 9\n");
  c = start(fake, "*");
  ok(c && said(JC_LOG_INFO, "does not start: Driver Not Loaded") == 1 &&
         gpu_lines() == 1,
     "the driver not loaded: exactly one INFO line");
  jc_collector_free(c);
  fx_cleanup();
}

int main(void) {
  const char *build = getenv("top_builddir");
  char here[PATH_MAX];
  if (!build)
    build = getcwd(here, sizeof(here));
  snprintf(fake, sizeof(fake), "%s/tests/fake-nvml/libnvidia-ml.so.1", build);
  snprintf(fake_old, sizeof(fake_old),
           "%s/tests/fake-nvml-old/libnvidia-ml.so.1", build);
  if (access(fake, R_OK) != 0 || access(fake_old, R_OK) != 0) {
    printf("# the fake NVML is not built: %s\n", fake);
    return 99;
  }
  snprintf(script, sizeof(script), "%s/tests/unit_gpu.script", build);
  snprintf(nvml_log, sizeof(nvml_log), "%s/tests/unit_gpu.nvml-log", build);
  unlink(nvml_log);
  setenv("FAKE_NVML_SCRIPT", script, 1);
  test_nvml();
  test_parse();
  test_step();
  test_mig();
  test_without();
  unlink(script);
  unlink(nvml_log);
  return done_testing();
}
