/** @file ader_cuda.cu  CUDA launcher of the ADER predictor (codelet "ader"); kernels in cuda_kernels.cuh and
 *  cuda_cell.cuh. */
#include "cuda_cell.cuh"
#include "cuda_sparse.cuh"

namespace {

template <int ORDER, typename Real> struct AderLaunch {
  template <int NARROW>
  static void launch(int64_t n, const void *pack, const void *dofs, const void *star, double dt, void *tint,
                     void *derivs, void *lts_buffer, int buffer_reset, cudaStream_t stream) {
    using T = sq_cuda::AderShape<ORDER, Real, NARROW>;
    const size_t smem = sizeof(Real) * T::SMEM;
    const sq_cuda::Grid g = sq_cuda::grid_for<T>(sq_cuda::ader_kernel<ORDER, Real, NARROW>, n, smem, "ader", ORDER);
    sq_cuda::ader_kernel<ORDER, Real, NARROW>
        <<<g.blocks, T::THREADS, smem, stream>>>(n, g.epb, (const Real *)pack, (const Real *)dofs, (const Real *)star,
                                                 dt, (Real *)tint, (Real *)derivs, (Real *)lts_buffer, buffer_reset);
    sq_cuda::check_launch("ader", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }

  static void cell(int64_t n, const void *pack, const void *dofs, const void *star, double dt, void *tint, void *derivs,
                   void *lts_buffer, int buffer_reset, cudaStream_t stream) {
    using C = sq_cuda::CellShape<ORDER, Real>;
    const size_t smem = sizeof(Real) * C::SMEM_PREDICT;
    const sq_cuda::Grid g = sq_cuda::grid_for<C>(sq_cuda::ader_cell_kernel<ORDER, Real>, n, smem, "ader (cell)", ORDER);
    sq_cuda::ader_cell_kernel<ORDER, Real>
        <<<g.blocks, C::THREADS, smem, stream>>>(n, g.epb, (const Real *)pack, (const Real *)dofs, (const Real *)star,
                                                 dt, (Real *)tint, (Real *)derivs, (Real *)lts_buffer, buffer_reset);
    sq_cuda::check_launch("ader (cell)", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }

  static void sparse(int64_t n, const void *pack, const void *dofs, const void *star, double dt, void *tint,
                     void *derivs, void *lts_buffer, int buffer_reset, cudaStream_t stream) {
    constexpr int NS = sq_cuda::sparse_ader_parts(ORDER, sizeof(Real));
    const char *name = NS > 1 ? "ader (sparse, split)" : "ader (sparse)";
    using S = sq_cuda::SparseShape<ORDER, Real, NS>;
    const size_t smem = sizeof(Real) * S::SMEM;
    const sq_cuda::Grid g = sq_cuda::grid_for<S>(sq_cuda::ader_sparse_kernel<ORDER, Real, NS>, n, smem, name, ORDER);
    sq_cuda::ader_sparse_kernel<ORDER, Real, NS>
        <<<g.blocks, S::THREADS, smem, stream>>>(n, g.epb, (const Real *)pack, (const Real *)dofs, (const Real *)star,
                                                 dt, (Real *)tint, (Real *)derivs, (Real *)lts_buffer, buffer_reset);
    sq_cuda::check_launch(name, ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }

  /* the sparse kernel where sparse_ader, split where sparse_ader_split (cuda_sparse.cuh); low orders: the cell kernel
   * (cuda_cell.cuh); small tiles: fine row groups (cuda_kernels.cuh, fine_tile) */
  static void run(int64_t n, const void *pack, const void *dofs, const void *star, double dt, void *tint, void *derivs,
                  void *lts_buffer, int buffer_reset, cudaStream_t stream) {
    using T = sq_cuda::AderShape<ORDER, Real>;
    if constexpr (sq_cuda::sparse_ader(ORDER, sizeof(Real))) {
      sparse(n, pack, dofs, star, dt, tint, derivs, lts_buffer, buffer_reset, stream);
      return;
    }
    if constexpr (ORDER <= SQ_CUDA_CELL_MAX_ORDER) {
      if (sq_cuda::cell_tile(ORDER, n)) {
        cell(n, pack, dofs, star, dt, tint, derivs, lts_buffer, buffer_reset, stream);
        return;
      }
    }
    if constexpr (sq_cuda::has_fine(ORDER, sizeof(Real))) {
      if (sq_cuda::fine_tile<T>(sq_cuda::ader_kernel<ORDER, Real>, n, sizeof(Real) * T::SMEM, "ader", ORDER)) {
        launch<2>(n, pack, dofs, star, dt, tint, derivs, lts_buffer, buffer_reset, stream);
        return;
      }
    }
    launch<-1>(n, pack, dofs, star, dt, tint, derivs, lts_buffer, buffer_reset, stream);
  }
};

} // namespace

extern "C" void sq_cuda_ader(sq_precision prec, int order, int64_t n, const void *pack, const void *dofs,
                             const void *star, double dt, void *tint, void *derivs, void *lts_buffer, int buffer_reset,
                             void *stream) {
  if (n <= 0) return;
  sq_cuda::dispatch<AderLaunch>("ader", prec, order, n, pack, dofs, star, dt, tint, derivs, lts_buffer, buffer_reset,
                                (cudaStream_t)stream);
}

extern "C" int sq_cuda_device_count(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError(); /* clear the sticky-free error of a missing driver */
    return 0;
  }
  return count;
}
