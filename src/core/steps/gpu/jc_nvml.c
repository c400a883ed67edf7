/*
 * jc_nvml — see jc_nvml.h.
 *
 * The declarations below are NVML's, as NVIDIA's public reference
 * ("NVML API Reference Guide") gives them; only what the plugin calls.
 * The process structures differ by version: the plain functions fill
 * {pid, usedGpuMemory}; "_v2" and "_v3" add the MIG instance ids.
 */
#include "jc_nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- NVML's declarations ------------------------------------------------ */

typedef int nvmlReturn_t;
typedef void *nvmlDevice_t;

enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
};

#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
} nvml_process_v1;

typedef struct { /* nvmlProcessInfo_v2_t, and nvmlProcessInfo_t of _v3 */
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvml_process_v2;

typedef struct { /* nvmlProcessUtilizationSample_t */
  unsigned int pid;
  unsigned long long timeStamp;
  unsigned int smUtil, memUtil, encUtil, decUtil;
} nvml_util_sample;

typedef struct { /* nvmlMemory_t (version 1) */
  unsigned long long total, free, used;
} nvml_memory;

typedef nvmlReturn_t (*init_fn)(void);
typedef nvmlReturn_t (*count_fn)(unsigned int *);
typedef nvmlReturn_t (*handle_fn)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*uuid_fn)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*minor_fn)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*procs_fn)(nvmlDevice_t, unsigned int *, void *);
typedef nvmlReturn_t (*util_fn)(nvmlDevice_t, nvml_util_sample *,
                                unsigned int *, unsigned long long);
typedef nvmlReturn_t (*energy_fn)(nvmlDevice_t, unsigned long long *);
typedef nvmlReturn_t (*memory_fn)(nvmlDevice_t, nvml_memory *);
typedef const char *(*strerror_fn)(nvmlReturn_t);
typedef nvmlReturn_t (*mig_mode_fn)(nvmlDevice_t, unsigned int *,
                                    unsigned int *);
typedef nvmlReturn_t (*mig_count_fn)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*mig_handle_fn)(nvmlDevice_t, unsigned int,
                                      nvmlDevice_t *);
typedef nvmlReturn_t (*gi_id_fn)(nvmlDevice_t, unsigned int *);

#define NVML_DEVICE_MIG_ENABLE 1

/* ---- the loaded library ---------------------------------------------------- */

struct jc_nvml {
  void *dl;
  char *library;
  init_fn init, shutdown;
  count_fn count;
  handle_fn handle;
  uuid_fn uuid;
  strerror_fn strerror;
  minor_fn minor;
  procs_fn procs[2]; /* compute, graphics */
  util_fn util;
  energy_fn energy;
  memory_fn memory;
  mig_mode_fn mig_mode;
  mig_count_fn mig_count;
  mig_handle_fn mig_handle;
  gi_id_fn gi_id;
  int version[JC_NVML_FN_COUNT];
  int last; /* NVML's code of the last failure */
  /* scratch, grown: NVML's structures, and ours */
  void *raw;
  size_t raw_size;
  jc_nvml_process *procs_out;
  jc_nvml_sample *samples_out;
  size_t procs_cap, samples_cap;
};

/* The newest of name_v3, name_v2, name (from version `newest` down); its
 * version in *ret_version (0: none). */
static void *find(void *dl, const char *name, int newest, int *ret_version) {
  char versioned[128];
  for (int v = newest; v >= 2; v--) {
    snprintf(versioned, sizeof(versioned), "%s_v%d", name, v);
    void *f = dlsym(dl, versioned);
    if (f) {
      *ret_version = v;
      return f;
    }
  }
  void *f = dlsym(dl, name);
  *ret_version = f ? 1 : 0;
  return f;
}

#define FIND(n, field, type, name, newest, fn)                                 \
  do {                                                                         \
    int v_;                                                                    \
    (n)->field = (type)find((n)->dl, name, newest, &v_);                       \
    if ((int)(fn) >= 0)                                                        \
      (n)->version[fn] = v_;                                                   \
  } while (0)

int jc_nvml_open(const char *library, jc_nvml **ret, char *why, size_t size) {
  const char *lib = library ? library : JC_NVML_LIBRARY_DEFAULT;
  jc_nvml *n = calloc(1, sizeof(*n));
  if (!n || !(n->library = strdup(lib))) {
    free(n);
    return -ENOMEM;
  }
  dlerror();
  n->dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!n->dl) {
    const char *dl_why = dlerror();
    snprintf(why, size, "%s", dl_why ? dl_why : "cannot be loaded");
    jc_nvml_close(n);
    return -ENOENT;
  }
  FIND(n, init, init_fn, "nvmlInit", 2, -1);
  FIND(n, shutdown, init_fn, "nvmlShutdown", 1, -1);
  FIND(n, count, count_fn, "nvmlDeviceGetCount", 2, -1);
  FIND(n, handle, handle_fn, "nvmlDeviceGetHandleByIndex", 2, -1);
  FIND(n, uuid, uuid_fn, "nvmlDeviceGetUUID", 1, -1);
  FIND(n, strerror, strerror_fn, "nvmlErrorString", 1, -1);
  FIND(n, minor, minor_fn, "nvmlDeviceGetMinorNumber", 1, JC_NVML_FN_MINOR);
  FIND(n, procs[0], procs_fn, "nvmlDeviceGetComputeRunningProcesses", 3,
       JC_NVML_FN_COMPUTE);
  FIND(n, procs[1], procs_fn, "nvmlDeviceGetGraphicsRunningProcesses", 3,
       JC_NVML_FN_GRAPHICS);
  FIND(n, util, util_fn, "nvmlDeviceGetProcessUtilization", 1,
       JC_NVML_FN_UTILIZATION);
  FIND(n, energy, energy_fn, "nvmlDeviceGetTotalEnergyConsumption", 1,
       JC_NVML_FN_ENERGY);
  /* nvmlDeviceGetMemoryInfo_v2 takes another structure: the plain one. */
  n->memory = (memory_fn)dlsym(n->dl, "nvmlDeviceGetMemoryInfo");
  n->version[JC_NVML_FN_MEMORY] = n->memory ? 1 : 0;
  n->mig_mode = (mig_mode_fn)dlsym(n->dl, "nvmlDeviceGetMigMode");
  n->mig_count = (mig_count_fn)dlsym(n->dl, "nvmlDeviceGetMaxMigDeviceCount");
  n->mig_handle =
      (mig_handle_fn)dlsym(n->dl, "nvmlDeviceGetMigDeviceHandleByIndex");
  n->gi_id = (gi_id_fn)dlsym(n->dl, "nvmlDeviceGetGpuInstanceId");
  n->version[JC_NVML_FN_MIG] =
      n->mig_mode && n->mig_count && n->mig_handle && n->gi_id ? 1 : 0;
  const char *lacks = !n->init       ? "nvmlInit"
                      : !n->shutdown ? "nvmlShutdown"
                      : !n->count    ? "nvmlDeviceGetCount"
                      : !n->handle   ? "nvmlDeviceGetHandleByIndex"
                      : !n->uuid     ? "nvmlDeviceGetUUID"
                                     : NULL;
  if (lacks) {
    snprintf(why, size, "it has no %s: it is not NVML", lacks);
    jc_nvml_close(n);
    return -ENOSYS;
  }
  *ret = n;
  return 0;
}

void jc_nvml_close(jc_nvml *n) {
  if (!n)
    return;
  if (n->dl)
    dlclose(n->dl);
  free(n->library);
  free(n->raw);
  free(n->procs_out);
  free(n->samples_out);
  free(n);
}

const char *jc_nvml_library(const jc_nvml *n) { return n->library; }

bool jc_nvml_has(const jc_nvml *n, jc_nvml_fn fn) {
  return n->version[fn] > 0;
}

int jc_nvml_version(const jc_nvml *n, jc_nvml_fn fn) { return n->version[fn]; }

const char *jc_nvml_last_error(const jc_nvml *n) {
  const char *s = n->strerror ? n->strerror(n->last) : NULL;
  return s ? s : "unknown NVML error";
}

/* NVML's code as an errno (jc_nvml.h); the code kept for its words. */
static int fail(jc_nvml *n, nvmlReturn_t r) {
  n->last = r;
  switch (r) {
  case NVML_SUCCESS:
    return 0;
  case NVML_ERROR_GPU_IS_LOST:
    return -ENODEV;
  case NVML_ERROR_NOT_SUPPORTED:
    return -EOPNOTSUPP;
  case NVML_ERROR_FUNCTION_NOT_FOUND:
    return -ENOSYS;
  case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
    return -EPROTO;
  case NVML_ERROR_DRIVER_NOT_LOADED:
    return -ENXIO;
  case NVML_ERROR_NO_PERMISSION:
    return -EACCES;
  case NVML_ERROR_NOT_FOUND:
    return -ENOENT;
  case NVML_ERROR_INSUFFICIENT_SIZE:
    return -EAGAIN;
  default:
    return -EIO;
  }
}

int jc_nvml_start(jc_nvml *n) { return fail(n, n->init()); }

void jc_nvml_stop(jc_nvml *n) { n->shutdown(); }

int jc_nvml_count(jc_nvml *n, unsigned *ret_count) {
  unsigned int count = 0;
  int r = fail(n, n->count(&count));
  if (r == 0)
    *ret_count = count;
  return r;
}

int jc_nvml_device_at(jc_nvml *n, unsigned index, jc_nvml_device *ret) {
  jc_nvml_device d = {.minor = -1};
  nvmlDevice_t h = NULL;
  int r = fail(n, n->handle(index, &h));
  if (r == 0)
    r = fail(n, n->uuid(h, d.uuid, sizeof(d.uuid)));
  if (r < 0)
    return r;
  d.uuid[sizeof(d.uuid) - 1] = '\0';
  unsigned int minor;
  if (n->minor && n->minor(h, &minor) == NVML_SUCCESS)
    d.minor = (int)minor;
  d.handle = h;
  *ret = d;
  return 0;
}

/* Room for count elements of size bytes in n's raw scratch. */
static int room(jc_nvml *n, size_t count, size_t size) {
  size_t need = (count ? count : 1) * size;
  if (need <= n->raw_size)
    return 0;
  void *p = realloc(n->raw, need);
  if (!p)
    return -ENOMEM;
  n->raw = p;
  n->raw_size = need;
  return 0;
}

/* Room for count of ours (an array *list of *cap elements of size). */
static int room_out(void **list, size_t *cap, size_t count, size_t size) {
  if (count <= *cap)
    return 0;
  void *p = realloc(*list, count * size);
  if (!p)
    return -ENOMEM;
  *list = p;
  *cap = count;
  return 0;
}

int jc_nvml_processes(jc_nvml *n, const jc_nvml_device *dev, bool graphics,
                      const jc_nvml_process **ret_list, size_t *ret_count) {
  procs_fn f = n->procs[graphics];
  int v = n->version[graphics ? JC_NVML_FN_GRAPHICS : JC_NVML_FN_COMPUTE];
  if (!f)
    return -ENOSYS;
  size_t elem = v >= 2 ? sizeof(nvml_process_v2) : sizeof(nvml_process_v1);
  /* Asked with the room there is; a list that grew says how much it
   * needs now (NVML_ERROR_INSUFFICIENT_SIZE): asked again, a few times,
   * with some more room for the processes that keep coming. */
  unsigned int want = (unsigned int)(n->raw_size / elem);
  nvmlReturn_t nr = NVML_ERROR_INSUFFICIENT_SIZE;
  for (int tries = 0; tries < JC_NVML_TRIES; tries++) {
    if (room(n, want, elem) < 0)
      return -ENOMEM;
    unsigned int count = (unsigned int)(n->raw_size / elem);
    nr = f(dev->handle, &count, n->raw);
    if (nr == NVML_ERROR_INSUFFICIENT_SIZE) {
      want = count + count / 4 + 8;
      continue;
    }
    if (nr != NVML_SUCCESS)
      break;
    if (room_out((void **)&n->procs_out, &n->procs_cap, count,
                 sizeof(*n->procs_out)) < 0)
      return -ENOMEM;
    for (unsigned int i = 0; i < count; i++) {
      jc_nvml_process *p = &n->procs_out[i];
      unsigned long long used;
      if (v >= 2) {
        const nvml_process_v2 *raw = (const nvml_process_v2 *)n->raw + i;
        p->pid = (pid_t)raw->pid;
        used = raw->usedGpuMemory;
        p->gpu_instance = raw->gpuInstanceId;
        p->compute_instance = raw->computeInstanceId;
      } else {
        const nvml_process_v1 *raw = (const nvml_process_v1 *)n->raw + i;
        p->pid = (pid_t)raw->pid;
        used = raw->usedGpuMemory;
        p->gpu_instance = p->compute_instance = UINT32_MAX;
      }
      p->used_known = used != NVML_VALUE_NOT_AVAILABLE;
      p->used_bytes = p->used_known ? used : 0;
    }
    *ret_list = n->procs_out;
    *ret_count = count;
    return 0;
  }
  return fail(n, nr);
}

int jc_nvml_utilization(jc_nvml *n, const jc_nvml_device *dev,
                        uint64_t since_us, const jc_nvml_sample **ret_list,
                        size_t *ret_count) {
  if (!n->util)
    return -ENOSYS;
  size_t elem = sizeof(nvml_util_sample);
  unsigned int want = 0;
  nvmlReturn_t nr;
  /* The size first (a NULL array), then the samples: asked again while
   * more came in between, a few times. */
  unsigned int count = 0;
  nr = n->util(dev->handle, NULL, &count, since_us);
  for (int tries = 0; tries < JC_NVML_TRIES; tries++) {
    if (nr == NVML_ERROR_NOT_FOUND || (nr == NVML_SUCCESS && count == 0)) {
      *ret_list = n->samples_out;
      *ret_count = 0;
      return 0;
    }
    if (nr != NVML_ERROR_INSUFFICIENT_SIZE && nr != NVML_SUCCESS)
      return fail(n, nr);
    want = count + count / 4 + 8;
    if (room(n, want, elem) < 0)
      return -ENOMEM;
    count = (unsigned int)(n->raw_size / elem);
    nr = n->util(dev->handle, n->raw, &count, since_us);
    if (nr == NVML_SUCCESS) {
      if (room_out((void **)&n->samples_out, &n->samples_cap, count,
                   sizeof(*n->samples_out)) < 0)
        return -ENOMEM;
      for (unsigned int i = 0; i < count; i++) {
        const nvml_util_sample *raw = (const nvml_util_sample *)n->raw + i;
        n->samples_out[i] = (jc_nvml_sample){
            (pid_t)raw->pid, raw->timeStamp, raw->smUtil,
            raw->memUtil,    raw->encUtil,   raw->decUtil};
      }
      *ret_list = n->samples_out;
      *ret_count = count;
      return 0;
    }
  }
  return fail(n, nr);
}

int jc_nvml_memory_total(jc_nvml *n, const jc_nvml_device *dev,
                         uint64_t *ret_bytes) {
  if (!n->memory)
    return -ENOSYS;
  nvml_memory m;
  int r = fail(n, n->memory(dev->handle, &m));
  if (r == 0)
    *ret_bytes = m.total;
  return r;
}

int jc_nvml_instances(jc_nvml *n, const jc_nvml_device *dev, bool *ret_mig,
                      jc_nvml_instance *ret, size_t cap, size_t *ret_count) {
  *ret_mig = false;
  *ret_count = 0;
  if (!n->version[JC_NVML_FN_MIG])
    return 0;
  unsigned int current = 0, pending = 0, max = 0;
  nvmlReturn_t nr = n->mig_mode(dev->handle, &current, &pending);
  if (nr == NVML_ERROR_NOT_SUPPORTED || nr == NVML_ERROR_FUNCTION_NOT_FOUND)
    return 0; /* a board without MIG */
  if (nr != NVML_SUCCESS)
    return fail(n, nr);
  if (current != NVML_DEVICE_MIG_ENABLE)
    return 0;
  *ret_mig = true;
  nr = n->mig_count(dev->handle, &max);
  if (nr != NVML_SUCCESS)
    return fail(n, nr);
  size_t count = 0;
  for (unsigned int i = 0; i < max; i++) {
    nvmlDevice_t mig = NULL;
    unsigned int id;
    nr = n->mig_handle(dev->handle, i, &mig);
    if (nr == NVML_ERROR_NOT_FOUND || nr == NVML_ERROR_INVALID_ARGUMENT)
      continue; /* no MIG device at this index */
    if (nr == NVML_SUCCESS)
      nr = n->gi_id(mig, &id);
    if (nr != NVML_SUCCESS)
      return fail(n, nr);
    size_t k = 0;
    while (k < count && ret[k].id != id)
      k++;
    if (k < count || count == cap)
      continue; /* another compute instance of one seen, or no room */
    nvml_memory m;
    ret[count] = (jc_nvml_instance){.id = id};
    if (n->memory && n->memory(mig, &m) == NVML_SUCCESS) {
      ret[count].total_known = true;
      ret[count].total_bytes = m.total;
    }
    count++;
  }
  *ret_count = count;
  return 0;
}

int jc_nvml_energy(jc_nvml *n, const jc_nvml_device *dev, uint64_t *ret_mj) {
  if (!n->energy)
    return -ENOSYS;
  unsigned long long mj = 0;
  int r = fail(n, n->energy(dev->handle, &mj));
  if (r == 0)
    *ret_mj = mj;
  return r;
}
