/**
 * @file neighbor_cuda.cu  CUDA launcher of the neighbour-flux update (codelet "neighbor"): one B x B F^+
 * per face from the read-only cache (neighbor_kernel of cuda_kernels.cuh), or the cell kernel of
 * cuda_cell.cuh at the low orders.
 */
#include "cuda_cell.cuh"

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

  static void cell(int64_t n, const void *pack, const sq_face_link *links, const void *flux_nb,
                   const sq_cuda_slots *slots, void *dofs, cudaStream_t stream) {
    using C = sq_cuda::CellShape<ORDER, Real>;
    const size_t smem = sizeof(Real) * C::SMEM_NEIGHBOR;
    const sq_cuda::Grid g =
        sq_cuda::grid_for<C>(sq_cuda::neighbor_cell_kernel<ORDER, Real>, n, smem, "neighbor (cell)", ORDER);
    sq_cuda::neighbor_cell_kernel<ORDER, Real><<<g.blocks, C::THREADS, smem, stream>>>(
        n, g.epb, (const Real *)pack, links, (const Real *)flux_nb, *slots, (Real *)dofs);
    sq_cuda::check_launch("neighbor (cell)", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }

  /* Where the default shape is narrow only for the neighbour kernel (single precision, orders above
   * SQ_CUDA_NARROW_MAX_ORDER_SP), narrow rows pay on large tiles and lose on small ones: the wide
   * variant takes tiles whose narrow grid would fill fewer than SQ_CUDA_NARROW_MIN_WAVES waves.  Both
   * do the same arithmetic per element, in the same order: bitwise the same result. */
  static void run(int64_t n, const void *pack, const sq_face_link *links, const void *flux_nb,
                  const sq_cuda_slots *slots, void *dofs, cudaStream_t stream) {
    if constexpr (ORDER <= SQ_CUDA_CELL_MAX_ORDER) { /* low orders: cuda_cell.cuh */
      if (sq_cuda::cell_tile(ORDER, n)) {
        cell(n, pack, links, flux_nb, slots, dofs, stream);
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
