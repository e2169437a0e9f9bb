/**
 * @file neighbor_cuda.cu  CUDA launcher of the neighbour-flux update (codelet "neighbor"): the dense
 * kernel of cuda_kernels.cuh (one B x B F^+ per face from the read-only cache), or with
 * SQ_CUDA_NEIGHBOR_FACTORED=1 the factorised one of cuda_neighbor.cuh.  The factorised kernel measured
 * slower at every order (H100, 512k elements, single precision, M updates/s dense -> factorised: order 2
 * 552 -> 297, order 4 240 -> 156, order 6 63.0 -> 30.1; docs/PERFORMANCE.md, session 8): its blocks
 * hold 2 per SM at order 6.  It stays selectable to be tuned and measured.
 */
#include "cuda_cell.cuh"
#include "cuda_neighbor.cuh"

namespace {

template <int ORDER, typename Real> struct NeighborLaunch {
  template <int NARROW>
  static void launch(int64_t n, const void *pack, const sq_face_link *links, const void *flux_nb,
                     const sq_cuda_slots *slots, void *dofs, cudaStream_t stream) {
    using T = sq_cuda::NeighborShape<ORDER, Real, NARROW>;
    const size_t smem = sizeof(Real) * T::SMEM;
    const sq_cuda::Grid g =
        sq_cuda::grid_for<T>(sq_cuda::neighbor_kernel<ORDER, Real, NARROW>, n, smem, "neighbor", ORDER);
    sq_cuda::neighbor_kernel<ORDER, Real, NARROW><<<g.blocks, T::THREADS, smem, stream>>>(
        n, g.epb, (const Real *)pack, links, (const Real *)flux_nb, *slots, (Real *)dofs);
    sq_cuda::check_launch("neighbor", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }

  template <int P>
  static void cell(int64_t n, const void *pack, const sq_face_link *links, const void *flux_nb,
                   const sq_cuda_slots *slots, void *dofs, cudaStream_t stream) {
    using C = sq_cuda::CellShape<ORDER, Real, P>;
    const size_t smem = sizeof(Real) * C::SMEM_NEIGHBOR;
    const sq_cuda::Grid g =
        sq_cuda::grid_for<C>(sq_cuda::neighbor_cell_kernel<ORDER, Real, P>, n, smem, "neighbor (cell)", ORDER);
    sq_cuda::neighbor_cell_kernel<ORDER, Real, P><<<g.blocks, C::THREADS, smem, stream>>>(
        n, g.epb, (const Real *)pack, links, (const Real *)flux_nb, *slots, (Real *)dofs);
    sq_cuda::check_launch("neighbor (cell)", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }

  /* Where the default shape is narrow only for the neighbour kernel (single precision, orders above
   * SQ_CUDA_NARROW_MAX_ORDER_SP), narrow rows pay on large tiles and lose on small ones (order 6, H100:
   * 48.4 -> 59.1 M updates/s at 512k elements, 1.31e7 -> 1.17e7 for a 4k-element step): the wide
   * variant takes tiles whose narrow grid would fill fewer than SQ_CUDA_NARROW_MIN_WAVES waves.  Both
   * do the same arithmetic per element, in the same order: bitwise the same result. */
  static void run_dense(int64_t n, const void *pack, const sq_face_link *links, const void *flux_nb,
                        const sq_cuda_slots *slots, void *dofs, cudaStream_t stream) {
    if constexpr (ORDER <= SQ_CUDA_CELL_MAX_ORDER) { /* small tiles at low orders: cuda_cell.cuh */
      if (sq_cuda::cell_tile(sq_cuda::CELL_NEIGHBOR, ORDER, n)) {
        sq_cuda::with_cell_cols<ORDER, NeighborLaunch>(n, pack, links, flux_nb, slots, dofs, stream);
        return;
      }
    }
    using TN = sq_cuda::NeighborShape<ORDER, Real, 1>;
    constexpr bool both =
        TN::RS == 4 && sq_cuda::NeighborShape<ORDER, Real>::NARROW && ORDER > SQ_CUDA_NARROW_MAX_ORDER_SP;
    if constexpr (both) {
      if (sq_cuda::few_waves<TN>(sq_cuda::neighbor_kernel<ORDER, Real, 1>, n, sizeof(Real) * TN::SMEM, "neighbor",
                                 ORDER))
        launch<0>(n, pack, links, flux_nb, slots, dofs, stream);
      else launch<1>(n, pack, links, flux_nb, slots, dofs, stream);
    } else {
      if constexpr (sq_cuda::has_fine(ORDER, sizeof(Real))) { /* small tiles at low orders: fine row groups */
        using T = sq_cuda::NeighborShape<ORDER, Real>;
        if (sq_cuda::fine_tile<T>(sq_cuda::neighbor_kernel<ORDER, Real>, n, sizeof(Real) * T::SMEM, "neighbor",
                                  ORDER)) {
          launch<2>(n, pack, links, flux_nb, slots, dofs, stream);
          return;
        }
      }
      launch<-1>(n, pack, links, flux_nb, slots, dofs, stream);
    }
  }

  static void run(int64_t n, const void *pack, const sq_face_link *links, const void *flux_nb,
                  const sq_cuda_slots *slots, void *dofs, cudaStream_t stream) {
    static const bool dense = [] {
      const char *v = getenv("SQ_CUDA_NEIGHBOR_FACTORED");
      return !(v && !strcmp(v, "1"));
    }();
    if (dense) {
      run_dense(n, pack, links, flux_nb, slots, dofs, stream);
      return;
    }
    using T = sq_cuda::NeighborFactorShape<ORDER, Real>;
    const size_t smem = sizeof(Real) * T::SMEM;
    const sq_cuda::Grid g =
        sq_cuda::grid_for<T>(sq_cuda::neighbor_factor_kernel<ORDER, Real>, n, smem, "neighbor (factorised)", ORDER);
    sq_cuda::neighbor_factor_kernel<ORDER, Real><<<g.blocks, T::THREADS, smem, stream>>>(
        n, g.epb, (const Real *)pack, links, (const Real *)flux_nb, *slots, (Real *)dofs);
    sq_cuda::check_launch("neighbor (factorised)", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }
};

} // namespace

extern "C" void sq_cuda_neighbor(sq_precision prec, int order, int64_t n, const void *pack, const sq_face_link *links,
                                 const void *flux_nb, const sq_cuda_slots *slots, void *dofs, void *stream) {
  if (n <= 0) return;
  if (slots->nslot < 0 || slots->nslot > SQ_CUDA_MAX_SLOTS) {
    fprintf(stderr, "starquake: CUDA kernel neighbor: %d neighbour slots, at most %d fit the kernel parameters\n",
            slots->nslot, SQ_CUDA_MAX_SLOTS);
    abort();
  }
  sq_cuda::dispatch<NeighborLaunch>("neighbor", prec, order, n, pack, links, flux_nb, slots, dofs,
                                    (cudaStream_t)stream);
}
