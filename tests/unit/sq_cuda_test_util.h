/**
 * @file sq_cuda_test_util.h  Helpers shared by the GPU-against-CPU suites (test_cuda_rupture.c,
 * test_cuda_plasticity.c): checked CUDA calls and copies, a wall clock, StarPU started with the GPU
 * alone or two CPU workers alone, and the tasks each kind of worker executed.  Include it after
 * <check.h> and <starpu.h>, in code built with CUDA.
 */
#ifndef SQ_CUDA_TEST_UTIL_H
#define SQ_CUDA_TEST_UTIL_H

#include <cuda_runtime.h>
#include <time.h>

#include <starpu.h>

#include "sq_common.h"
#include "sq_test_data.h" /* prec_name */

#define CUDA_OK(expr)                                                                                                  \
  do {                                                                                                                 \
    cudaError_t err_ = (expr);                                                                                         \
    ck_assert_msg(err_ == cudaSuccess, "%s: %s", #expr, cudaGetErrorString(err_));                                     \
  } while (0)

static inline void *dev_copy(const void *host, size_t bytes) {
  void *d;
  CUDA_OK(cudaMalloc(&d, bytes ? bytes : 1));
  CUDA_OK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}

static inline void host_copy(void *host, const void *dev, size_t bytes) {
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
}

static inline double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/** Start StarPU with one CUDA worker and no CPU worker (@p gpu) or two CPU workers; profiling on. */
static inline int start_starpu(int gpu) {
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  conf.sched_policy_name = "lws";
  conf.ncuda = gpu ? 1 : 0;
  conf.ncpus = gpu ? 0 : 2;
  conf.nopencl = 0;
  ck_assert_int_eq(starpu_init(&conf), 0);
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  return (int)starpu_cuda_worker_get_count();
}

/** Tasks executed so far by the CPU workers and by the CUDA workers. */
static inline void task_counts(int64_t *cpu, int64_t *gpu) {
  *cpu = *gpu = 0;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    struct starpu_profiling_worker_info info;
    ck_assert_int_eq(starpu_profiling_worker_get_info((int)w, &info), 0);
    if (starpu_worker_get_type((int)w) == STARPU_CUDA_WORKER) *gpu += info.executed_tasks;
    else *cpu += info.executed_tasks;
  }
}

#endif
