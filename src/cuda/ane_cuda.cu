/** @file ane_cuda.cu  CUDA launchers of the anelastic kernels (codelets "ader" and "local" with attenuation);
 *  kernels in cuda_ane.cuh. */
#include "cuda_ane.cuh"
#include "cuda_launch.cuh"

namespace {

template <typename Real>
void ader(int order, int nmech, int64_t n, const void *pack, const void *dofs, const void *star, const void *coef,
          double dt, void *tint, void *derivs, void *ane, void *lts_buffer, int buffer_reset, cudaStream_t stream) {
  const int B = sq_nbasis(order);
  const size_t smem = sizeof(Real) * sq_cuda::ane_smem(B);
  sq_cuda::ane_ader_kernel<Real><<<(unsigned)n, sq_cuda::ANE_THREADS, smem, stream>>>(
      order, nmech, n, (const Real *)pack, (const Real *)dofs, (const Real *)star, (const Real *)coef, dt, (Real *)tint,
      (Real *)derivs, (Real *)ane, (Real *)lts_buffer, buffer_reset);
  sq_cuda::check_launch("ader (anelastic)", order, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
}

} // namespace

extern "C" void sq_cuda_ader_ane(sq_precision prec, int order, int nmech, int64_t n, const void *pack, const void *dofs,
                                 const void *star, const void *coef, double dt, void *tint, void *derivs, void *ane,
                                 void *lts_buffer, int buffer_reset, void *stream) {
  if (n <= 0) return;
  if (prec == SQ_F64)
    ader<double>(order, nmech, n, pack, dofs, star, coef, dt, tint, derivs, ane, lts_buffer, buffer_reset,
                 (cudaStream_t)stream);
  else
    ader<float>(order, nmech, n, pack, dofs, star, coef, dt, tint, derivs, ane, lts_buffer, buffer_reset,
                (cudaStream_t)stream);
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
