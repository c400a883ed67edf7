/*
 * fake_nvml — a stand-in for NVIDIA's libnvidia-ml.so.1 on hosts without a
 * GPU (CI): the same symbols, with the answers a test scripts.  The tests
 * build it as tests/fake-nvml/libnvidia-ml.so.1 (and, with -DFAKE_OLD, as
 * an older driver's: the plain process functions with their two-field
 * structure, no process utilisation, no energy counter) and name it with
 * the plugin's GpuLibrary option.
 *
 * The script is the file $FAKE_NVML_SCRIPT, read again at every nvmlInit
 * (the plugin initialises NVML once per read), so a test rewrites it
 * between reads.  One statement a line ('#' starts a comment):
 *
 *   gpu UUID MINOR ENERGY_MJ [TOTAL]  a GPU, index by order; its counter,
 *                                    its memory (default 80 GiB)
 *   proc GPU compute|graphics PID BYTES [GI]   a process with a context
 *                                    ("na": NVML_VALUE_NOT_AVAILABLE), on
 *                                    GPU instance GI (MIG; _v2 and later)
 *   mig GPU GI TOTAL [CIS]           GPU's MIG mode on, with GPU instance GI
 *                                    of TOTAL bytes and CIS compute instances
 *                                    (default 1), each a MIG device
 *   util GPU PID TIMESTAMP SM        a utilisation sample (µs, per cent)
 *   fail FUNC GPU CODE               FUNC (init count handle uuid compute
 *                                    graphics util energy mig) answers CODE on
 *                                    GPU (-1: every GPU)
 *   grow GPU N                       the compute list grows by one process
 *                                    between the size and the read, N times
 *
 * $FAKE_NVML_LOG, when set, gets a line per nvmlInit, nvmlShutdown and
 * nvmlDeviceGetMigMode ("init", "shutdown", "mig").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS 8
#define MAX_PROCS 64
#define MAX_SAMPLES 256
#define MAX_FAILS 16
#define MAX_MIG 16 /* MIG devices (compute instances), all GPUs */

typedef struct {
  char uuid[96];
  unsigned minor;
  unsigned long long energy, total;
  int grow;
} gpu;
typedef struct {
  int gpu, graphics;
  unsigned pid;
  unsigned long long bytes;
  unsigned gi; /* 0xFFFFFFFF: none */
} proc;
typedef struct { /* a MIG device: one compute instance of GPU instance gi */
  int gpu;
  unsigned gi;
  unsigned long long total;
} mig;
typedef struct {
  int gpu;
  unsigned pid;
  unsigned long long ts;
  unsigned sm;
} sample;
typedef struct {
  char func[16];
  int gpu, code;
} fault;

static gpu gpus[MAX_GPUS];
static int ngpus;
static proc procs[MAX_PROCS];
static int nprocs;
static sample samples[MAX_SAMPLES];
static int nsamples;
static fault faults[MAX_FAILS];
static int nfaults;
static mig migs[MAX_MIG];
static int nmigs;
static int initialised;

static void note(const char *what) {
  const char *path = getenv("FAKE_NVML_LOG");
  FILE *f = path ? fopen(path, "a") : NULL;
  if (f) {
    fprintf(f, "%s\n", what);
    fclose(f);
  }
}

static void load(void) {
  ngpus = nprocs = nsamples = nfaults = nmigs = 0;
  const char *path = getenv("FAKE_NVML_SCRIPT");
  FILE *f = path ? fopen(path, "r") : NULL;
  if (!f)
    return;
  char line[512], a[128], b[128];
  while (fgets(line, sizeof(line), f)) {
    gpu g = {0};
    proc p = {0};
    sample s = {0};
    fault x = {0};
    mig m = {0};
    int cis = 1, fields;
    g.total = 85899345920ULL; /* 80 GiB, unless the line says */
    if (sscanf(line, "gpu %95s %u %llu %llu", g.uuid, &g.minor, &g.energy,
               &g.total) >= 3 &&
        ngpus < MAX_GPUS)
      gpus[ngpus++] = g;
    else if ((fields = sscanf(line, "proc %d %127s %u %127s %u", &p.gpu, a,
                              &p.pid, b, &p.gi)) >= 4 &&
             nprocs < MAX_PROCS) {
      if (fields == 4)
        p.gi = 0xFFFFFFFFu; /* no GPU instance: MIG off */
      p.graphics = strcmp(a, "graphics") == 0;
      p.bytes = strcmp(b, "na") == 0 ? ~0ULL : strtoull(b, NULL, 10);
      procs[nprocs++] = p;
    } else if (sscanf(line, "util %d %u %llu %u", &s.gpu, &s.pid, &s.ts,
                      &s.sm) == 4 &&
               nsamples < MAX_SAMPLES)
      samples[nsamples++] = s;
    else if (sscanf(line, "fail %15s %d %d", x.func, &x.gpu, &x.code) == 3 &&
             nfaults < MAX_FAILS)
      faults[nfaults++] = x;
    else if (sscanf(line, "mig %d %u %llu %d", &m.gpu, &m.gi, &m.total,
                    &cis) >= 3)
      for (int k = 0; k < cis && nmigs < MAX_MIG; k++)
        migs[nmigs++] = m;
    else if (sscanf(line, "grow %d %d", &g.minor, &g.grow) == 2 &&
             g.minor < (unsigned)ngpus)
      gpus[g.minor].grow = g.grow;
  }
  fclose(f);
}

static int fault_of(const char *func, int g) {
  for (int i = 0; i < nfaults; i++)
    if (strcmp(faults[i].func, func) == 0 && (faults[i].gpu < 0 || faults[i].gpu == g))
      return faults[i].code;
  return 0;
}

/* A device handle is its index + 1. */
static int index_of(void *dev) {
  long i = (long)dev - 1;
  return i >= 0 && i < ngpus ? (int)i : -1;
}

int nvmlInit_v2(void);
int nvmlInit(void);
int nvmlShutdown(void);
const char *nvmlErrorString(int r);
int nvmlDeviceGetCount_v2(unsigned *count);
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **dev);
int nvmlDeviceGetUUID(void *dev, char *uuid, unsigned size);
int nvmlDeviceGetMinorNumber(void *dev, unsigned *minor);

int nvmlInit_v2(void) {
  load();
  int r = fault_of("init", -1);
  if (r)
    return r;
  initialised++;
  note("init");
  return 0;
}
int nvmlInit(void) { return nvmlInit_v2(); }

int nvmlShutdown(void) {
  if (!initialised)
    return 1;
  initialised--;
  note("shutdown");
  return 0;
}

const char *nvmlErrorString(int r) {
  switch (r) {
  case 0: return "Success";
  case 3: return "Not Supported";
  case 6: return "Not Found";
  case 7: return "Insufficient Size";
  case 9: return "Driver Not Loaded";
  case 15: return "GPU is lost";
  case 18: return "RM has detected an NVML/RM version mismatch.";
  default: return "Unknown Error";
  }
}

int nvmlDeviceGetCount_v2(unsigned *count) {
  if (!initialised)
    return 1;
  int r = fault_of("count", -1);
  if (r)
    return r;
  *count = (unsigned)ngpus;
  return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **dev) {
  if (!initialised || i >= (unsigned)ngpus)
    return 2;
  int r = fault_of("handle", (int)i);
  if (r)
    return r;
  *dev = (void *)(long)(i + 1);
  return 0;
}

int nvmlDeviceGetUUID(void *dev, char *uuid, unsigned size) {
  int g = index_of(dev);
  if (g < 0)
    return 2;
  int r = fault_of("uuid", g);
  if (r)
    return r;
  snprintf(uuid, size, "%s", gpus[g].uuid);
  return 0;
}

int nvmlDeviceGetMemoryInfo(void *dev, unsigned long long *memory);
/* A MIG device's handle is 0x10000 + its index among migs. */
static int mig_of(void *dev) {
  long i = (long)dev - 0x10000;
  return i >= 0 && i < nmigs ? (int)i : -1;
}

int nvmlDeviceGetMemoryInfo(void *dev, unsigned long long *memory) {
  int g = index_of(dev), m = mig_of(dev);
  if (initialised && m >= 0) {
    memory[0] = memory[1] = migs[m].total;
    memory[2] = 0;
    return 0;
  }
  if (!initialised || g < 0)
    return 2;
  memory[0] = gpus[g].total; /* total, free, used */
  memory[1] = gpus[g].total;
  memory[2] = 0;
  return 0;
}

int nvmlDeviceGetMinorNumber(void *dev, unsigned *minor) {
  int g = index_of(dev);
  if (g < 0)
    return 2;
  *minor = gpus[g].minor;
  return 0;
}

/* The processes of GPU g: into info (elem bytes each: 2 or 4 fields). */
static int processes(void *dev, unsigned *count, void *info, int graphics,
                     size_t elem) {
  int g = index_of(dev);
  if (!initialised || g < 0)
    return 2;
  int r = fault_of(graphics ? "graphics" : "compute", g);
  if (r)
    return r;
  unsigned n = 0;
  for (int i = 0; i < nprocs; i++)
    n += procs[i].gpu == g && procs[i].graphics == graphics;
  if (!graphics && gpus[g].grow > 0) {
    gpus[g].grow--; /* one more came since the caller asked */
    *count = n + 1;
    return 7;
  }
  if (*count < n || !info) {
    *count = n;
    return n ? 7 : 0;
  }
  unsigned k = 0;
  for (int i = 0; i < nprocs; i++) {
    if (procs[i].gpu != g || procs[i].graphics != graphics)
      continue;
    unsigned char *e = (unsigned char *)info + k++ * elem;
    memset(e, 0, elem);
    memcpy(e, &procs[i].pid, sizeof(unsigned));
    memcpy(e + 8, &procs[i].bytes, sizeof(unsigned long long));
    if (elem > 16) {
      unsigned none = 0xFFFFFFFFu, ci = procs[i].gi == none ? none : 0;
      memcpy(e + 16, &procs[i].gi, sizeof(unsigned));
      memcpy(e + 20, &ci, sizeof(ci));
    }
  }
  *count = n;
  return 0;
}

#define V1 16 /* {pid, usedGpuMemory} */
#define V2 24 /* {pid, usedGpuMemory, gpuInstanceId, computeInstanceId} */

int nvmlDeviceGetComputeRunningProcesses(void *dev, unsigned *count, void *info);
int nvmlDeviceGetGraphicsRunningProcesses(void *dev, unsigned *count, void *info);
int nvmlDeviceGetComputeRunningProcesses(void *dev, unsigned *count, void *info) {
  return processes(dev, count, info, 0, V1);
}
int nvmlDeviceGetGraphicsRunningProcesses(void *dev, unsigned *count, void *info) {
  return processes(dev, count, info, 1, V1);
}

#ifndef FAKE_OLD
int nvmlDeviceGetComputeRunningProcesses_v2(void *dev, unsigned *count, void *info);
int nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned *count, void *info);
int nvmlDeviceGetGraphicsRunningProcesses_v2(void *dev, unsigned *count, void *info);
int nvmlDeviceGetGraphicsRunningProcesses_v3(void *dev, unsigned *count, void *info);
int nvmlDeviceGetProcessUtilization(void *dev, void *util, unsigned *count,
                                    unsigned long long since);
int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj);

int nvmlDeviceGetComputeRunningProcesses_v2(void *dev, unsigned *count, void *info) {
  return processes(dev, count, info, 0, V2);
}
int nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned *count, void *info) {
  return processes(dev, count, info, 0, V2);
}
int nvmlDeviceGetGraphicsRunningProcesses_v2(void *dev, unsigned *count, void *info) {
  return processes(dev, count, info, 1, V2);
}
int nvmlDeviceGetGraphicsRunningProcesses_v3(void *dev, unsigned *count, void *info) {
  return processes(dev, count, info, 1, V2);
}

/* nvmlProcessUtilizationSample_t: pid, timeStamp, sm, mem, enc, dec. */
typedef struct {
  unsigned pid;
  unsigned long long ts;
  unsigned sm, mem, enc, dec;
} util_sample;

int nvmlDeviceGetProcessUtilization(void *dev, void *util, unsigned *count,
                                    unsigned long long since) {
  int g = index_of(dev);
  if (!initialised || g < 0)
    return 2;
  int r = fault_of("util", g);
  if (r)
    return r;
  unsigned n = 0;
  for (int i = 0; i < nsamples; i++)
    n += samples[i].gpu == g && samples[i].ts > since;
  if (n == 0)
    return 6; /* NVML_ERROR_NOT_FOUND: no sample since */
  if (!util || *count < n) {
    *count = n;
    return 7;
  }
  unsigned k = 0;
  util_sample *out = util;
  for (int i = 0; i < nsamples; i++)
    if (samples[i].gpu == g && samples[i].ts > since)
      out[k++] = (util_sample){samples[i].pid, samples[i].ts, samples[i].sm, 0, 0, 0};
  *count = n;
  return 0;
}

/* MIG: the mode is on where the script gives the GPU a GPU instance. */
int nvmlDeviceGetMigMode(void *dev, unsigned *current, unsigned *pending);
int nvmlDeviceGetMaxMigDeviceCount(void *dev, unsigned *count);
int nvmlDeviceGetMigDeviceHandleByIndex(void *dev, unsigned i, void **mig);
int nvmlDeviceGetGpuInstanceId(void *dev, unsigned *id);

int nvmlDeviceGetMigMode(void *dev, unsigned *current, unsigned *pending) {
  int g = index_of(dev);
  if (!initialised || g < 0)
    return 2;
  note("mig"); /* the tests count these: one per GPU and read */
  int r = fault_of("mig", g);
  if (r)
    return r;
  unsigned on = 0;
  for (int i = 0; i < nmigs; i++)
    on |= migs[i].gpu == g;
  *current = *pending = on;
  return 0;
}

int nvmlDeviceGetMaxMigDeviceCount(void *dev, unsigned *count) {
  if (!initialised || index_of(dev) < 0)
    return 2;
  *count = 7; /* an H100's: the slots past the MIG devices made are empty */
  return 0;
}

int nvmlDeviceGetMigDeviceHandleByIndex(void *dev, unsigned i, void **out) {
  int g = index_of(dev);
  if (!initialised || g < 0 || i >= 7)
    return 2;
  unsigned k = 0;
  for (int m = 0; m < nmigs; m++)
    if (migs[m].gpu == g && k++ == i) {
      *out = (void *)(long)(0x10000 + m);
      return 0;
    }
  return 6; /* NVML_ERROR_NOT_FOUND: no MIG device there */
}

int nvmlDeviceGetGpuInstanceId(void *dev, unsigned *id) {
  int m = mig_of(dev);
  if (!initialised || m < 0)
    return 2;
  *id = migs[m].gi;
  return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj) {
  int g = index_of(dev);
  if (!initialised || g < 0)
    return 2;
  int r = fault_of("energy", g);
  if (r)
    return r;
  *mj = gpus[g].energy;
  return 0;
}
#endif
