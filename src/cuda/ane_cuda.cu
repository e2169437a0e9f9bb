/** @file ane_cuda.cu  CUDA launchers of the anelastic kernels (codelets "ader" and "local" with attenuation);
 *  kernels in cuda_ane.cuh. */
#include "cuda_ane.cuh"
#include "cuda_launch.cuh"

namespace {

/* The anelastic predictor of one order and precision, for the run-time mechanism count (1 .. SQ_MECH_MAX). */
template <int ORDER, typename Real> struct AneLaunch {
  template <int NMECH>
  static void launch(int64_t n, const void *pack, const void *dofs, const void *star, const void *coef, double dt,
                     void *tint, void *derivs, void *ane, void *lts_buffer, int buffer_reset, cudaStream_t stream) {
    using T = sq_cuda::AneShape<ORDER, Real, NMECH>;
    const size_t smem = sizeof(Real) * T::SMEM;
    const sq_cuda::Grid g = sq_cuda::grid_for<T>(sq_cuda::ane_predict_kernel<T>, n, smem, "ader (anelastic)", ORDER);
    sq_cuda::ane_predict_kernel<T><<<g.blocks, T::THREADS, smem, stream>>>(
        n, g.epb, (const Real *)pack, (const Real *)dofs, (const Real *)star, (const Real *)coef, dt, (Real *)tint,
        (Real *)derivs, (Real *)ane, (Real *)lts_buffer, buffer_reset);
    sq_cuda::check_launch("ader (anelastic)", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }

  static void run(int nmech, int64_t n, const void *pack, const void *dofs, const void *star, const void *coef,
                  double dt, void *tint, void *derivs, void *ane, void *lts_buffer, int buffer_reset,
                  cudaStream_t stream) {
    static_assert(SQ_MECH_MAX == 5, "one case per mechanism count");
    switch (nmech) {
#define SQ_ANE_CASE(M)                                                                                                 \
  case M: launch<M>(n, pack, dofs, star, coef, dt, tint, derivs, ane, lts_buffer, buffer_reset, stream); break;
      SQ_ANE_CASE(1)
      SQ_ANE_CASE(2)
      SQ_ANE_CASE(3)
      SQ_ANE_CASE(4)
      SQ_ANE_CASE(5)
#undef SQ_ANE_CASE
    default:
      fprintf(stderr, "starquake: CUDA kernel ader (anelastic): %d mechanisms, not 1..%d\n", nmech, SQ_MECH_MAX);
      abort();
    }
  }
};

} // namespace

extern "C" void sq_cuda_ader_ane(sq_precision prec, int order, int nmech, int64_t n, const void *pack, const void *dofs,
                                 const void *star, const void *coef, double dt, void *tint, void *derivs, void *ane,
                                 void *lts_buffer, int buffer_reset, void *stream) {
  if (n <= 0) return;
  sq_cuda::dispatch<AneLaunch>("ader (anelastic)", prec, order, nmech, n, pack, dofs, star, coef, dt, tint, derivs, ane,
                               lts_buffer, buffer_reset, (cudaStream_t)stream);
}

extern "C" void sq_cuda_ane_shift(sq_precision prec, int order, int nmech, int64_t n, const void *coef,
                                  const void *dofs, int sign, void *ane, void *stream) {
  if (n <= 0) return;
  if (prec == SQ_F64)
    sq_cuda::ane_shift_kernel<double><<<(unsigned)n, sq_cuda::ANE_THREADS, 0, (cudaStream_t)stream>>>(
        order, nmech, n, (const double *)coef, (const double *)dofs, sign, (double *)ane);
  else
    sq_cuda::ane_shift_kernel<float><<<(unsigned)n, sq_cuda::ANE_THREADS, 0, (cudaStream_t)stream>>>(
        order, nmech, n, (const float *)coef, (const float *)dofs, sign, (float *)ane);
  sq_cuda::check_launch("plasticity (anelastic shift)", order, prec, n);
}

extern "C" void sq_cuda_ane_source(sq_precision prec, int order, int nmech, int64_t n, const void *ane, void *dofs,
                                   void *stream) {
  if (n <= 0) return;
  if (prec == SQ_F64)
    sq_cuda::ane_source_kernel<double><<<(unsigned)n, sq_cuda::ANE_THREADS, 0, (cudaStream_t)stream>>>(
        order, nmech, n, (const double *)ane, (double *)dofs);
  else
    sq_cuda::ane_source_kernel<float><<<(unsigned)n, sq_cuda::ANE_THREADS, 0, (cudaStream_t)stream>>>(
        order, nmech, n, (const float *)ane, (float *)dofs);
  sq_cuda::check_launch("local (anelastic)", order, prec, n);
}
