/**
 * @file sq_cuda_emu.h  Just enough of CUDA to run the kernels of src/cuda/cuda_kernels.cuh as plain
 * C++ threads on the CPU: one std::thread per CUDA thread of a block, __syncthreads() a barrier, the
 * dynamic shared memory one exactly-sized heap buffer (so that AddressSanitizer sees overruns),
 * refilled with NaN before every block (so that reads of unwritten shared memory show up).
 * A development check of index arithmetic and barriers on machines without a GPU; timing means
 * nothing here.
 */
#ifndef SQ_CUDA_EMU_H
#define SQ_CUDA_EMU_H

#include <barrier>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __grid_constant__
#define __restrict__ __restrict

using std::fma;

struct sq_emu_dim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local sq_emu_dim3 threadIdx, blockIdx, blockDim;
inline thread_local unsigned char *sq_emu_smem_ptr;
inline thread_local std::barrier<> *sq_emu_bar;
inline thread_local std::vector<double> *sq_emu_scratch;

inline unsigned char *sq_emu_shared() { return sq_emu_smem_ptr; }
inline void __syncthreads() { sq_emu_bar->arrive_and_wait(); }
template <class T> inline T __ldg(const T *p) { return *p; }
/** Scratch memory of the block, @p per_thread doubles per thread: where warp-wide operations (mma_tiles,
 * cuda_tensor.cuh) exchange their fragments. */
inline double *sq_emu_warp_scratch(int per_thread) {
  const size_t need = (size_t)per_thread * blockDim.x;
  if (sq_emu_scratch->size() < need) {
    __syncthreads(); /* every thread asks for the same size: one resizes, the others wait */
    if (threadIdx.x == 0) sq_emu_scratch->resize(need);
    __syncthreads();
  }
  return sq_emu_scratch->data();
}

/** Run @p body as a grid of @p grid blocks of @p threads threads with @p smem bytes of shared memory. */
template <class F> void sq_emu_launch(unsigned grid, unsigned threads, size_t smem, F body) {
  std::barrier<> bar((std::ptrdiff_t)threads);
  unsigned char *shared = static_cast<unsigned char *>(aligned_alloc(16, smem ? (smem + 15) / 16 * 16 : 16));
  std::vector<double> scratch;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      threadIdx.x = t;
      blockDim.x = threads;
      sq_emu_bar = &bar;
      sq_emu_smem_ptr = shared;
      sq_emu_scratch = &scratch;
      for (unsigned b = 0; b < grid; ++b) {
        blockIdx.x = b;
        if (t == 0) memset(shared, 0xff, smem); /* NaN in both precisions */
        bar.arrive_and_wait();
        body();
        bar.arrive_and_wait();
      }
    });
  for (auto &th : pool) th.join();
  free(shared);
}

#endif
