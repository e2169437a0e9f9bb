/**
 * @file cuda_launch.cuh  Host side of the GPU element kernels: launch checks, the shared-memory limit,
 * the grid of a tile (grid_for), the choice of a variant by tile size (few_waves, fine_tile), and the
 * dispatch over the run-time order and precision.  Not compiled under SQ_CUDA_EMULATE.
 */
#ifndef SQ_CUDA_LAUNCH_CUH
#define SQ_CUDA_LAUNCH_CUH

#include "cuda_shape.cuh"

#ifndef SQ_CUDA_EMULATE

namespace sq_cuda {

/**
 * Set by sq_cuda_load_kernels on the calling thread: the launchers choose their kernels as for a launch and load
 * them (grid_for's occupancy query), but launch nothing (an empty grid, whose configuration error check_launch
 * clears).
 */
inline thread_local bool load_only = false;

/** Abort with a message naming the kernel when its launch failed (bad configuration, no device, ...). */
inline void check_launch(const char *kernel, int order, sq_precision prec, int64_t n) {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess || load_only) return;
  fprintf(stderr, "starquake: CUDA kernel %s (order %d, %s precision, %lld elements) failed: %s (%s)\n", kernel, order,
          prec == SQ_F64 ? "double" : "single", (long long)n, cudaGetErrorString(err), cudaGetErrorName(err));
  abort();
}

/** The current device, as an index into the per-device tables below (0 where it cannot be told). */
inline int current_device() {
  int dev = 0;
  return cudaGetDevice(&dev) == cudaSuccess && dev >= 0 && dev < 64 ? dev : 0;
}

/**
 * Raise a kernel's dynamic shared-memory limit above the default 48 KiB, once per device.  Templated
 * on the shape T (order, precision, kind) so that each kernel has its own flags: kernels of
 * different orders share one function type.
 */
template <class T, typename Kernel> inline void allow_shared(Kernel kernel, size_t bytes, const char *name, int order) {
  if (bytes <= 48 * 1024) return;
  const int dev = current_device();
  static bool done[64]; /* per T; a repeated call is harmless */
  if (done[dev]) return;
  const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
  if (err != cudaSuccess) {
    fprintf(stderr, "starquake: CUDA kernel %s (order %d) needs %zu bytes of shared memory: %s\n", name, order, bytes,
            cudaGetErrorString(err));
    abort();
  }
  done[dev] = true;
}

/** Launch shape of an element kernel: blocks of epb elements. */
struct Grid {
  unsigned blocks;
  int epb;
};

/**
 * Blocks of the kernel @p kernel (shape T, @p smem bytes of shared memory) that all multiprocessors of
 * the current device hold at once.  Raises the kernel's shared-memory limit first (allow_shared), which
 * the occupancy depends on.
 */
template <class T, typename Kernel> inline int64_t wave_of(Kernel kernel, size_t smem, const char *name, int order) {
  allow_shared<T>(kernel, smem, name, order);
  const int dev = current_device();
  static int wave[64]; /* per T and device; a repeated computation is harmless */
  if (!wave[dev]) {
    int sms = 0, per_sm = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T::THREADS, smem) != cudaSuccess)
      sms = per_sm = 1;
    wave[dev] = sms * per_sm > 1 ? sms * per_sm : 1;
  }
  return wave[dev];
}

/**
 * Grid of the kernel @p kernel of shape T over n elements (also raises its shared-memory limit).
 * Blocks of E elements, unless that gives fewer blocks than one wave (the blocks of this kernel that
 * all multiprocessors hold at once, from its shared memory and threads): then blocks of
 * ceil(n / wave) elements, so that a small cluster spreads over every multiprocessor instead of
 * leaving most of them idle.  Every element's arithmetic is the same either way.
 */
template <class T, typename Kernel>
inline Grid grid_for(Kernel kernel, int64_t n, size_t smem, const char *name, int order) {
  const int64_t full = (n + T::E - 1) / T::E;
  const int64_t wave = wave_of<T>(kernel, smem, name, order);
  if (load_only) return {0, T::E};
  if (full >= wave || n <= 0) return {(unsigned)full, T::E};
  const int epb = (int)((n + wave - 1) / wave);
  return {(unsigned)((n + epb - 1) / epb), epb};
}

/**
 * Whether the kernel @p kernel of shape T (@p smem bytes) would fill fewer than
 * SQ_CUDA_NARROW_MIN_WAVES waves of resident blocks with a tile of n elements in blocks of E: the
 * test by which a small tile takes a variant with more threads per element (fine_tile, and the
 * neighbour kernel's wide/narrow choice in neighbor_cuda.cu).
 */
template <class T, typename Kernel>
inline bool few_waves(Kernel kernel, int64_t n, size_t smem, const char *name, int order) {
  return (n + T::E - 1) / T::E < SQ_CUDA_NARROW_MIN_WAVES * wave_of<T>(kernel, smem, name, order);
}

/**
 * Whether a tile of n elements takes the fine variant of a kernel whose default shape is T (launched
 * as @p kernel with @p smem bytes): where has_fine, and few_waves.
 * Every row is summed in the same order in every variant: the results are bitwise the same.
 */
template <class T, typename Kernel>
inline bool fine_tile(Kernel kernel, int64_t n, size_t smem, const char *name, int order) {
  if constexpr (!has_fine(T::ORDER, T::RS)) {
    return false;
  } else {
    return T::LEVEL < 2 && few_waves<T>(kernel, n, smem, name, order);
  }
}

/**
 * Call Launch<ORDER, Real>::run(args...) for the run-time order and precision: the one switch that
 * instantiates every kernel for orders 2..7 in single and double precision.
 */
template <template <int, typename> class Launch, typename... Args>
inline void dispatch(const char *name, sq_precision prec, int order, Args... args) {
  switch (order) {
#define SQ_CUDA_CASE(O)                                                                                                \
  case O:                                                                                                              \
    if (prec == SQ_F64) Launch<O, double>::run(args...);                                                               \
    else Launch<O, float>::run(args...);                                                                               \
    break;
    SQ_CUDA_CASE(2)
    SQ_CUDA_CASE(3)
    SQ_CUDA_CASE(4)
    SQ_CUDA_CASE(5)
    SQ_CUDA_CASE(6)
    SQ_CUDA_CASE(7)
#undef SQ_CUDA_CASE
  default:
    fprintf(stderr, "starquake: CUDA kernel %s: order %d is outside %d..%d\n", name, order, SQ_ORDER_MIN, SQ_ORDER_MAX);
    abort();
  }
}

} // namespace sq_cuda

#endif /* !SQ_CUDA_EMULATE */

#endif
