/**
 * @file peak.cu  Ceilings of the GPU that the proxy's percentages refer to: cuBLAS SGEMM and DGEMM
 * (8192^3, default math mode: no TF32) and a device-to-device copy (bytes read + written), each the
 * median of 10 timed runs after a warm-up.  Prints one line: PEAK sp_gflops=... dp_gflops=... copy_gbs=...
 * Built by tests/bench/device/prepare.sh; run by tests/bench/device/run.sh.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CK(x)                                                                                                          \
  do {                                                                                                                 \
    cudaError_t e_ = (x);                                                                                              \
    if (e_ != cudaSuccess) {                                                                                           \
      fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                                         \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)
#define CB(x)                                                                                                          \
  do {                                                                                                                 \
    cublasStatus_t s_ = (x);                                                                                           \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                                 \
      fprintf(stderr, "%s: cuBLAS status %d\n", #x, (int)s_);                                                          \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

template <typename Real> __global__ void fill(Real *a, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    a[i] = (Real)(((i * 2654435761u + seed) % 2001u) / 1000.0 - 1.0);
}

template <typename F> static double median_ms(F run) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  run(); /* warm-up */
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < 10; ++r) {
    CK(cudaEventRecord(a));
    run();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return 0.5 * (t[4] + t[5]);
}

template <typename Real> static double gemm_gflops(cublasHandle_t h, int n) {
  Real *A, *B, *C;
  const size_t len = (size_t)n * n;
  CK(cudaMalloc(&A, len * sizeof(Real)));
  CK(cudaMalloc(&B, len * sizeof(Real)));
  CK(cudaMalloc(&C, len * sizeof(Real)));
  fill<<<1024, 256>>>(A, len, 1u);
  fill<<<1024, 256>>>(B, len, 7u);
  CK(cudaGetLastError());
  const Real one = 1, zero = 0;
  const double ms = median_ms([&] {
    if constexpr (sizeof(Real) == 4)
      CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, (const float *)&one, (const float *)A, n, (const float *)B,
                     n, (const float *)&zero, (float *)C, n));
    else
      CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, (const double *)&one, (const double *)A, n,
                     (const double *)B, n, (const double *)&zero, (double *)C, n));
  });
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(C));
  return 2.0 * n * (double)n * n / (ms * 1e-3) * 1e-9;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# device: %s, %d SMs, %.1f GiB\n", prop.name, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0);
  cublasHandle_t h;
  CB(cublasCreate(&h));
  CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH)); /* no TF32 */
  const double sp = gemm_gflops<float>(h, 8192), dp = gemm_gflops<double>(h, 8192);
  const size_t bytes = (size_t)1 << 30;
  char *src, *dst;
  CK(cudaMalloc(&src, bytes));
  CK(cudaMalloc(&dst, bytes));
  CK(cudaMemset(src, 1, bytes));
  const double ms = median_ms([&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
  const double copy = 2.0 * bytes / (ms * 1e-3) * 1e-9;
  printf("PEAK sp_gflops=%.0f dp_gflops=%.0f copy_gbs=%.0f\n", sp, dp, copy);
  CB(cublasDestroy(h));
  return 0;
}
