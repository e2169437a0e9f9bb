/** @file local_cuda.cu  CUDA launcher of the volume + local-flux update (codelet "local"). */
#include "cuda_cell.cuh"
#include "cuda_sparse.cuh"
#include "cuda_tensor.cuh"

namespace {

template <int ORDER, typename Real> struct LocalLaunch {
  template <int NARROW>
  static void launch(int64_t n, const void *pack, const void *tint, const void *star, const void *flux_local,
                     void *dofs, cudaStream_t stream) {
    using T = sq_cuda::LocalShape<ORDER, Real, NARROW>;
    const size_t smem = sizeof(Real) * T::SMEM;
    const sq_cuda::Grid g = sq_cuda::grid_for<T>(sq_cuda::local_kernel<ORDER, Real, NARROW>, n, smem, "local", ORDER);
    sq_cuda::local_kernel<ORDER, Real, NARROW><<<g.blocks, T::THREADS, smem, stream>>>(
        n, g.epb, (const Real *)pack, (const Real *)tint, (const Real *)star, (const Real *)flux_local, (Real *)dofs);
    sq_cuda::check_launch("local", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }

  static void cell(int64_t n, const void *pack, const void *tint, const void *star, const void *flux_local, void *dofs,
                   cudaStream_t stream) {
    using C = sq_cuda::CellShape<ORDER, Real>;
    const size_t smem = sizeof(Real) * C::SMEM_PREDICT;
    const sq_cuda::Grid g =
        sq_cuda::grid_for<C>(sq_cuda::local_cell_kernel<ORDER, Real>, n, smem, "local (cell)", ORDER);
    sq_cuda::local_cell_kernel<ORDER, Real><<<g.blocks, C::THREADS, smem, stream>>>(
        n, g.epb, (const Real *)pack, (const Real *)tint, (const Real *)star, (const Real *)flux_local, (Real *)dofs);
    sq_cuda::check_launch("local (cell)", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }

  static void split(int64_t n, const void *pack, const void *tint, const void *star, const void *flux_local, void *dofs,
                    cudaStream_t stream) {
    using S = sq_cuda::SparseLocalShape<ORDER, Real, SQ_CUDA_SPARSE_LOCAL_SPLIT>;
    const size_t smem = sizeof(Real) * S::SMEM;
    const sq_cuda::Grid g =
        sq_cuda::grid_for<S>(sq_cuda::local_split_kernel<ORDER, Real>, n, smem, "local (sparse, split)", ORDER);
    sq_cuda::local_split_kernel<ORDER, Real><<<g.blocks, S::THREADS, smem, stream>>>(
        n, g.epb, (const Real *)pack, (const Real *)tint, (const Real *)star, (const Real *)flux_local, (Real *)dofs);
    sq_cuda::check_launch("local (sparse, split)", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }

  static void tensor(int64_t n, const void *pack, const void *tint, const void *star, const void *flux_local,
                     void *dofs, cudaStream_t stream) {
    using T = sq_cuda::TensorLocalShape<ORDER>;
    const size_t smem = sizeof(double) * T::SMEM;
    const sq_cuda::Grid g =
        sq_cuda::grid_for<T>(sq_cuda::local_tensor_kernel<ORDER>, n, smem, "local (tensor cores)", ORDER);
    sq_cuda::local_tensor_kernel<ORDER>
        <<<g.blocks, T::THREADS, smem, stream>>>(n, g.epb, (const double *)pack, (const double *)tint,
                                                 (const double *)star, (const double *)flux_local, (double *)dofs);
    sq_cuda::check_launch("local (tensor cores)", ORDER, SQ_F64, n);
  }

  static void sparse(int64_t n, const void *pack, const void *tint, const void *star, const void *flux_local,
                     void *dofs, cudaStream_t stream) {
    if constexpr (sq_cuda::sparse_local_split(ORDER, sizeof(Real))) {
      split(n, pack, tint, star, flux_local, dofs, stream);
    } else {
      using S = sq_cuda::SparseLocalShape<ORDER, Real>;
      const size_t smem = sizeof(Real) * S::SMEM;
      const sq_cuda::Grid g =
          sq_cuda::grid_for<S>(sq_cuda::local_sparse_kernel<ORDER, Real>, n, smem, "local (sparse)", ORDER);
      sq_cuda::local_sparse_kernel<ORDER, Real><<<g.blocks, S::THREADS, smem, stream>>>(
          n, g.epb, (const Real *)pack, (const Real *)tint, (const Real *)star, (const Real *)flux_local, (Real *)dofs);
      sq_cuda::check_launch("local (sparse)", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
    }
  }

  /* the tensor-core kernel where tensor_local (cuda_tensor.cuh); the sparse kernel where local_takes_sparse, split
   * where sparse_local_split (cuda_sparse.cuh); low orders: the cell kernel (cuda_cell.cuh); small tiles: fine row
   * groups (cuda_kernels.cuh, fine_tile) */
  static void run(int64_t n, const void *pack, const void *tint, const void *star, const void *flux_local, void *dofs,
                  cudaStream_t stream) {
    using T = sq_cuda::LocalShape<ORDER, Real>;
    if constexpr (sq_cuda::tensor_local(ORDER, sizeof(Real))) {
      tensor(n, pack, tint, star, flux_local, dofs, stream);
      return;
    }
    if (sq_cuda::local_takes_sparse<ORDER, Real>(n)) {
      sparse(n, pack, tint, star, flux_local, dofs, stream);
      return;
    }
    if constexpr (ORDER <= SQ_CUDA_CELL_MAX_ORDER) {
      if (sq_cuda::cell_tile(ORDER, n)) {
        cell(n, pack, tint, star, flux_local, dofs, stream);
        return;
      }
    }
    if constexpr (sq_cuda::has_fine(ORDER, sizeof(Real))) {
      if (sq_cuda::fine_tile<T>(sq_cuda::local_kernel<ORDER, Real>, n, sizeof(Real) * T::SMEM, "local", ORDER)) {
        launch<2>(n, pack, tint, star, flux_local, dofs, stream);
        return;
      }
    }
    launch<-1>(n, pack, tint, star, flux_local, dofs, stream);
  }
};

} // namespace

extern "C" void sq_cuda_local(sq_precision prec, int order, int64_t n, const void *pack, const void *tint,
                              const void *star, const void *flux_local, void *dofs, void *stream) {
  if (n <= 0) return;
  sq_cuda::dispatch<LocalLaunch>("local", prec, order, n, pack, tint, star, flux_local, dofs, (cudaStream_t)stream);
}

/* the split form at every order and precision (dispatch instantiates all of them): test_cuda's split case */
namespace {
template <int ORDER, typename Real> struct LocalSplitLaunch {
  static void run(int64_t n, const void *pack, const void *tint, const void *star, const void *flux_local, void *dofs,
                  cudaStream_t stream) {
    LocalLaunch<ORDER, Real>::split(n, pack, tint, star, flux_local, dofs, stream);
  }
};
} // namespace

extern "C" void sq_cuda_local_split(sq_precision prec, int order, int64_t n, const void *pack, const void *tint,
                                    const void *star, const void *flux_local, void *dofs, void *stream) {
  if (n <= 0) return;
  sq_cuda::dispatch<LocalSplitLaunch>("local (split)", prec, order, n, pack, tint, star, flux_local, dofs,
                                      (cudaStream_t)stream);
}

/* the tensor-core form at every order (double precision only): test_cuda's tensor case */
namespace {
template <int ORDER, typename Real> struct LocalTensorLaunch {
  static void run(int64_t n, const void *pack, const void *tint, const void *star, const void *flux_local, void *dofs,
                  cudaStream_t stream) {
    if constexpr (sizeof(Real) == 8) LocalLaunch<ORDER, Real>::tensor(n, pack, tint, star, flux_local, dofs, stream);
  }
};
} // namespace

extern "C" void sq_cuda_local_tensor(int order, int64_t n, const void *pack, const void *tint, const void *star,
                                     const void *flux_local, void *dofs, void *stream) {
  if (n <= 0) return;
  sq_cuda::dispatch<LocalTensorLaunch>("local (tensor cores)", SQ_F64, order, n, pack, tint, star, flux_local, dofs,
                                       (cudaStream_t)stream);
}
