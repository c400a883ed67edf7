/*
 * jc_nvml — the few functions of NVIDIA's management library (NVML) the
 * plugin uses, loaded at run time with dlopen: no NVML or CUDA header and
 * no link-time dependency, so one build runs on hosts with and without a
 * GPU.  The declarations, taken from NVIDIA's public NVML reference, are
 * in jc_nvml.c alone; this API turns NVML's return codes into negative
 * errnos and its versioned structures into the ones below.
 *
 *   jc_nvml_open(library, &n, why, size);  dlopen, dlsym: once
 *   jc_nvml_start(n);                        nvmlInit_v2: per read
 *     jc_nvml_count / _device_at / _processes / _utilization / _energy
 *   jc_nvml_stop(n);                         nvmlShutdown: per read
 *   jc_nvml_close(n);                        dlclose (NULL-safe)
 *
 * Versions: for each function the newest symbol the library has is taken
 * ("_v3", then "_v2", then the plain name), with the structure of that
 * version.  One the library lacks altogether leaves its figure out
 * (jc_nvml_has says which).
 *
 * Errors (0 or a negative errno, never a log line; jc_nvml_last_error
 * gives NVML's own words for the last failure):
 *   -ENODEV      NVML_ERROR_GPU_IS_LOST: the GPU fell off the bus or was
 *                reset
 *   -EOPNOTSUPP  NVML_ERROR_NOT_SUPPORTED (a board without the counter)
 *   -ENOSYS      the library lacks the function (or NVML says
 *                NVML_ERROR_FUNCTION_NOT_FOUND)
 *   -EPROTO      NVML_ERROR_LIB_RM_VERSION_MISMATCH: the library is not the
 *                kernel module's version (the driver was upgraded)
 *   -ENXIO       NVML_ERROR_DRIVER_NOT_LOADED
 *   -EACCES      NVML_ERROR_NO_PERMISSION
 *   -EAGAIN      a list still grew after JC_NVML_TRIES reads
 *   -EIO         any other NVML error
 */
#ifndef JC_NVML_H
#define JC_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define JC_NVML_LIBRARY_DEFAULT "libnvidia-ml.so.1"
#define JC_NVML_UUID_MAX 96 /* NVML_DEVICE_UUID_V2_BUFFER_SIZE */
/* How many times a list that grew between its size and its read
 * (NVML_ERROR_INSUFFICIENT_SIZE) is asked for again. */
#define JC_NVML_TRIES 4

typedef struct jc_nvml jc_nvml;

/* The functions a driver may lack (jc_nvml_has). */
typedef enum {
  JC_NVML_FN_COMPUTE,     /* nvmlDeviceGetComputeRunningProcesses */
  JC_NVML_FN_GRAPHICS,    /* nvmlDeviceGetGraphicsRunningProcesses */
  JC_NVML_FN_UTILIZATION, /* nvmlDeviceGetProcessUtilization */
  JC_NVML_FN_ENERGY,      /* nvmlDeviceGetTotalEnergyConsumption */
  JC_NVML_FN_MINOR,       /* nvmlDeviceGetMinorNumber */
  JC_NVML_FN_MEMORY,      /* nvmlDeviceGetMemoryInfo */
  JC_NVML_FN_MIG,         /* nvmlDeviceGetMigMode and the MIG device
                             calls (all of them, or none counts) */
  JC_NVML_FN_COUNT
} jc_nvml_fn;

typedef struct {
  void *handle;                  /* nvmlDevice_t, valid until jc_nvml_stop */
  char uuid[JC_NVML_UUID_MAX];   /* "GPU-8c3d...": stable across renumbering */
  int minor;                     /* /dev/nvidia<minor>; -1: not known */
} jc_nvml_device;

/* At most this many GPU instances per GPU (MIG: 7 on an A100 or H100). */
#define JC_NVML_INSTANCES_MAX 8

/* A GPU instance of a GPU whose MIG mode is on. */
typedef struct {
  unsigned id;          /* its GPU instance id, as the process lists give it */
  bool total_known;
  uint64_t total_bytes; /* its memory (nvmlDeviceGetMemoryInfo of a MIG
                           device of it) */
} jc_nvml_instance;

/* A process with a context on a GPU. */
typedef struct {
  pid_t pid;            /* as the host's PID namespace numbers it */
  uint64_t used_bytes;  /* its GPU memory */
  bool used_known;      /* false: NVML_VALUE_NOT_AVAILABLE (no permission) */
  unsigned gpu_instance, compute_instance; /* MIG; UINT32_MAX: none */
} jc_nvml_process;

/* One utilisation sample of one process. */
typedef struct {
  pid_t pid;
  uint64_t time_us;  /* its time stamp (µs, CLOCK_REALTIME) */
  unsigned sm, mem, enc, dec; /* per cent of the sample period */
} jc_nvml_sample;

/*
 * Loads library (NULL: JC_NVML_LIBRARY_DEFAULT; a name is looked up as
 * dlopen does, a path is taken as it is) and finds its functions.  0 and
 * *ret; -ENOENT when it cannot be loaded, -ENOSYS when it lacks nvmlInit,
 * nvmlShutdown, the device count, handles or UUIDs (why says which, or
 * dlerror's words); -ENOMEM.
 */
int jc_nvml_open(const char *library, jc_nvml **ret, char *why, size_t n);
void jc_nvml_close(jc_nvml *n);

/* The library's name as given to jc_nvml_open. */
const char *jc_nvml_library(const jc_nvml *n);

/* Does the library have function fn (any version)?  Its version chosen:
 * 3, 2, 1 (plain), 0 when it has none. */
bool jc_nvml_has(const jc_nvml *n, jc_nvml_fn fn);
int jc_nvml_version(const jc_nvml *n, jc_nvml_fn fn);

/* NVML's words for the last failure ("GPU is lost"). */
const char *jc_nvml_last_error(const jc_nvml *n);

/* nvmlInit_v2 and nvmlShutdown.  Between them the driver is held open:
 * its kernel module cannot be unloaded. */
int jc_nvml_start(jc_nvml *n);
void jc_nvml_stop(jc_nvml *n);

int jc_nvml_count(jc_nvml *n, unsigned *ret_count);
int jc_nvml_device_at(jc_nvml *n, unsigned index, jc_nvml_device *ret);

/*
 * The processes with a compute (graphics false) or graphics context on
 * dev: *ret_list (n's, valid until the next call) and *ret_count.
 */
int jc_nvml_processes(jc_nvml *n, const jc_nvml_device *dev, bool graphics,
                      const jc_nvml_process **ret_list, size_t *ret_count);

/*
 * The utilisation samples of dev's processes newer than since_us (0: all
 * the driver keeps): *ret_list (n's, valid until the next call).  None
 * (NVML_ERROR_NOT_FOUND) is 0 with a count of 0.
 */
int jc_nvml_utilization(jc_nvml *n, const jc_nvml_device *dev,
                        uint64_t since_us, const jc_nvml_sample **ret_list,
                        size_t *ret_count);

/* The GPU's memory, in bytes (nvmlDeviceGetMemoryInfo's total). */
int jc_nvml_memory_total(jc_nvml *n, const jc_nvml_device *dev,
                         uint64_t *ret_bytes);

/*
 * dev's GPU instances where its MIG mode is on, at most cap of them, by
 * their MIG devices (nvmlDeviceGetMigMode, nvmlDeviceGetMaxMigDeviceCount,
 * then per MIG device nvmlDeviceGetMigDeviceHandleByIndex,
 * nvmlDeviceGetGpuInstanceId and nvmlDeviceGetMemoryInfo): a GPU
 * instance of several compute instances is one.  *ret_mig false and a
 * count of 0 where MIG is off, not supported, or the driver lacks the
 * calls.  Per GPU, never per process or cgroup.
 */
int jc_nvml_instances(jc_nvml *n, const jc_nvml_device *dev, bool *ret_mig,
                      jc_nvml_instance *ret, size_t cap, size_t *ret_count);

/* The board's energy counter since the driver was loaded, in mJ. */
int jc_nvml_energy(jc_nvml *n, const jc_nvml_device *dev, uint64_t *ret_mj);

#endif
