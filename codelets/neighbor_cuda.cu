/** @file neighbor_cuda.cu  CUDA launcher of the neighbour-flux update (codelet "neighbor"). */
#include "cuda_kernels.cuh"

namespace {

template <int ORDER, typename Real> struct NeighborLaunch {
  static void run(int64_t n, const void *pack, const sq_face_link *links, const void *flux_nb,
                  const sq_cuda_slots *slots, void *dofs, cudaStream_t stream) {
    using T = sq_cuda::NeighborShape<ORDER, Real>;
    const size_t smem = sizeof(Real) * T::SMEM;
    const sq_cuda::Grid g = sq_cuda::grid_for<T>(sq_cuda::neighbor_kernel<ORDER, Real>, n, smem, "neighbor", ORDER);
    sq_cuda::neighbor_kernel<ORDER, Real><<<g.blocks, T::THREADS, smem, stream>>>(
        n, g.epb, (const Real *)pack, links, (const Real *)flux_nb, *slots, (Real *)dofs);
    sq_cuda::check_launch("neighbor", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
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
