/*
 * gpu_alloc — a process that makes a CUDA context on GPU 0 and allocates
 * a known amount of its memory, for tests/gpu_real.sh: libcuda.so.1 is
 * loaded at run time (dlopen; no CUDA header or toolkit), through the
 * driver API.
 *
 *   gpu_alloc MIB SECONDS [busy]
 *
 * Allocates MIB MiB and touches it (cuMemsetD8), prints "ready PID" on
 * stdout, then holds it SECONDS seconds: idle, or with "busy" setting the
 * memory over and over (memset kernels on the SMs).  Exits 2 when the
 * driver or a GPU is missing, with the reason on stderr.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;

static void *lib;

static void *sym(const char *name) {
  void *f = dlsym(lib, name);
  if (!f) {
    fprintf(stderr, "gpu_alloc: libcuda.so.1 has no %s\n", name);
    exit(2);
  }
  return f;
}

static void check(CUresult r, const char *what) {
  if (r != 0) {
    fprintf(stderr, "gpu_alloc: %s: CUDA error %d\n", what, r);
    exit(2);
  }
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: gpu_alloc MIB SECONDS [busy]\n");
    return 2;
  }
  size_t bytes = (size_t)strtoull(argv[1], NULL, 10) << 20;
  double seconds = strtod(argv[2], NULL);
  int busy = argc > 3 && strcmp(argv[3], "busy") == 0;
  lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "gpu_alloc: %s\n", dlerror());
    return 2;
  }
  CUresult (*init)(unsigned) = (CUresult(*)(unsigned))sym("cuInit");
  CUresult (*device)(CUdevice *, int) =
      (CUresult(*)(CUdevice *, int))sym("cuDeviceGet");
  CUresult (*ctx_create)(CUcontext *, unsigned, CUdevice) =
      (CUresult(*)(CUcontext *, unsigned, CUdevice))sym("cuCtxCreate_v2");
  CUresult (*mem_alloc)(CUdeviceptr *, size_t) =
      (CUresult(*)(CUdeviceptr *, size_t))sym("cuMemAlloc_v2");
  CUresult (*memset8)(CUdeviceptr, unsigned char, size_t) =
      (CUresult(*)(CUdeviceptr, unsigned char, size_t))sym("cuMemsetD8_v2");
  CUresult (*sync)(void) = (CUresult(*)(void))sym("cuCtxSynchronize");
  CUdevice dev;
  CUcontext ctx;
  CUdeviceptr p;
  check(init(0), "cuInit");
  check(device(&dev, 0), "cuDeviceGet");
  check(ctx_create(&ctx, 0, dev), "cuCtxCreate");
  check(mem_alloc(&p, bytes), "cuMemAlloc");
  check(memset8(p, 1, bytes), "cuMemsetD8");
  check(sync(), "cuCtxSynchronize");
  printf("ready %d\n", (int)getpid());
  fflush(stdout);
  double end = now() + seconds;
  unsigned char v = 0;
  while (now() < end) {
    if (busy) {
      check(memset8(p, v++, bytes), "cuMemsetD8");
      check(sync(), "cuCtxSynchronize");
    } else {
      usleep(100000);
    }
  }
  return 0;
}
