/**
 * @file cuda_ane.cuh  The anelastic GPU kernels (viscoelastic attenuation; the CPU source is
 * src/kernels_ane_impl.h, whose formulation they follow): the predictor with the memory variables, and the
 * anelastic part of the local update.  One block per element, one thread per basis function (row): the
 * memory variables' operations are row-local, so each thread keeps its row of them in registers, and only the
 * elastic derivative and its star products go through shared memory.  Templated over the precision only (the
 * order is a run-time argument).  Compiles as plain C++ too (SQ_CUDA_EMULATE, tests/cuda_emu/).
 */
#ifndef SQ_CUDA_ANE_CUH
#define SQ_CUDA_ANE_CUH

#include "cuda_device.cuh"

extern "C" {
#include "sq_attenuation.h"
#include "sq_kernels.h"
}

namespace sq_cuda {

/** Threads of a block of the anelastic kernels: at least the largest basis (84). */
constexpr int ANE_THREADS = 96;

/** Shared memory (reals) of ane_ader_kernel for @p B basis functions: the derivative B x 9, the stars 243,
 *  the star products B x 27. */
__host__ __device__ constexpr int ane_smem(int B) { return B * 9 + 243 + B * 27; }

/* strain of the stress s[6] into e[6] (+= with add): c1 s - c2 tr(s) I */
template <typename Real> __device__ __forceinline__ void ane_strain(const Real *c, const Real *s, bool add, Real *e) {
  const Real tr = s[0] + s[1] + s[2];
  for (int p = 0; p < 6; ++p) {
    const Real v = c[SQ_ANE_C1] * s[p] - (p < 3 ? c[SQ_ANE_C2] * tr : Real(0));
    e[p] = add ? e[p] + v : v;
  }
}

/* g[6] = sum_l a_l tr(theta_l) I + b_l theta_l */
template <typename Real>
__device__ __forceinline__ void ane_stress(int nmech, const Real *c, const Real (*th)[6], Real *g) {
  for (int p = 0; p < 6; ++p) g[p] = 0;
  for (int l = 0; l < nmech; ++l) {
    const Real tr = th[l][0] + th[l][1] + th[l][2];
    for (int p = 0; p < 6; ++p) g[p] += c[SQ_ANE_B + l] * th[l][p] + (p < 3 ? c[SQ_ANE_A + l] * tr : Real(0));
  }
}

/** The predictor with attenuation of element blockIdx.x (sq_kernel_ader_ane), with the LTS buffer of
 *  sq_kernel_accumulate when @p lts_buffer is given. */
template <typename Real>
__global__ void __launch_bounds__(ANE_THREADS)
    ane_ader_kernel(int order, int nmech, int64_t n, const Real *__restrict__ pack, const Real *__restrict__ dofs,
                    const Real *__restrict__ star, const Real *__restrict__ coef, double dt, Real *__restrict__ tint,
                    Real *__restrict__ derivs, Real *__restrict__ ane, Real *__restrict__ lts_buffer,
                    int buffer_reset) {
  const int B = (order * (order + 1) * (order + 2)) / 6, BB = B * B, nq = B * 9, na = B * 6;
  const int64_t e = blockIdx.x;
  const int k = threadIdx.x;
  SQ_CUDA_SHARED(Real, smem);
  Real *cur = smem, *nstar = smem + nq, *tmp = smem + nq + 243;
  const bool row = k < B && e < n;
  const Real *c = coef + e * SQ_ANE_NCOEF;
  Real *phi = ane + e * (int64_t)na * (nmech + 1);
  Real ti[9], th[SQ_MECH_MAX][6], ith[SQ_MECH_MAX][6];
  for (int i = k; i < 243; i += ANE_THREADS) nstar[i] = e < n ? -star[e * 243 + i] : Real(0);
  if (row) {
    Real q[9];
    for (int p = 0; p < 9; ++p) q[p] = dofs[e * nq + k + p * B], cur[k + p * B] = q[p];
    for (int p = 0; p < 9; ++p) ti[p] = (Real)dt * q[p];
    if (derivs)
      for (int p = 0; p < 9; ++p) derivs[e * order * nq + k + p * B] = q[p];
    for (int l = 0; l < nmech; ++l) {
      for (int p = 0; p < 6; ++p) th[l][p] = phi[l * na + k + p * B];
      ane_strain(c, q, true, th[l]);
      for (int p = 0; p < 6; ++p) ith[l][p] = (Real)dt * th[l][p];
    }
  }
  double factor = dt;
  for (int i = 1; i < order; ++i) {
    __syncthreads(); /* cur and the stars are in place */
    if (row)         /* T_d = cur (-A*_d)^T: row k of the B x 27 stack */
      for (int d = 0; d < 3; ++d)
        for (int p = 0; p < 9; ++p) {
          Real s = 0;
          for (int q = 0; q < 9; ++q) s += cur[k + q * B] * nstar[d * 81 + p * 9 + q];
          tmp[k + (d * 9 + p) * B] = s;
        }
    __syncthreads();
    if (row) {
      Real next[9], nth[SQ_MECH_MAX][6], g[6];
      for (int p = 0; p < 9; ++p) {
        Real s = 0;
        for (int d = 0; d < 3; ++d) {
          const Real *K = pack + (SQ_PACK_KDER + d) * BB, *T = tmp + d * nq + p * B;
          for (int j = 0; j < B; ++j) s += K[k + j * B] * T[j];
        }
        next[p] = s;
      }
      for (int l = 0; l < nmech; ++l) {
        ane_strain(c, next, false, nth[l]);
        for (int p = 0; p < 6; ++p) nth[l][p] -= c[SQ_ANE_W + l] * th[l][p];
      }
      ane_stress(nmech, c, th, g);
      for (int p = 0; p < 6; ++p) next[p] -= g[p];
      factor *= dt / (i + 1);
      for (int p = 0; p < 9; ++p) ti[p] += (Real)factor * next[p], cur[k + p * B] = next[p];
      for (int l = 0; l < nmech; ++l)
        for (int p = 0; p < 6; ++p) ith[l][p] += (Real)factor * nth[l][p], th[l][p] = nth[l][p];
      if (derivs)
        for (int p = 0; p < 9; ++p) derivs[(e * order + i) * nq + k + p * B] = next[p];
    }
  }
  if (!row) return;
  for (int p = 0; p < 9; ++p) {
    tint[e * nq + k + p * B] = ti[p];
    if (lts_buffer) {
      Real *b = lts_buffer + e * nq + k + p * B;
      *b = buffer_reset ? ti[p] : *b + ti[p];
    }
  }
  Real g[6];
  ane_stress(nmech, c, ith, g);
  for (int p = 0; p < 6; ++p) phi[nmech * na + k + p * B] = g[p];
  for (int l = 0; l < nmech; ++l) {
    Real ph[6];
    for (int p = 0; p < 6; ++p) ph[p] = phi[l * na + k + p * B];
    ane_strain(c, g, true, ph);
    for (int p = 0; p < 6; ++p) phi[l * na + k + p * B] = ph[p] - c[SQ_ANE_W + l] * ith[l][p];
  }
}

/** The anelastic part of the local update (sq_kernel_ane_source): the stresses -= the kept source. */
template <typename Real>
__global__ void __launch_bounds__(ANE_THREADS)
    ane_source_kernel(int order, int nmech, int64_t n, const Real *__restrict__ ane, Real *__restrict__ dofs) {
  const int B = (order * (order + 1) * (order + 2)) / 6, na = B * 6;
  const int64_t e = blockIdx.x;
  const int k = threadIdx.x;
  if (k >= B || e >= n) return;
  for (int p = 0; p < 6; ++p)
    dofs[e * B * 9 + k + p * B] -= ane[e * (int64_t)na * (nmech + 1) + nmech * na + k + p * B];
}

/* phi_l += sign C_u^-1 sigma (sq_kernel_ane_shift): one block per element, one thread per basis function */
template <typename Real>
__global__ void __launch_bounds__(ANE_THREADS)
    ane_shift_kernel(int order, int nmech, int64_t n, const Real *__restrict__ coef, const Real *__restrict__ dofs,
                     int sign, Real *__restrict__ ane) {
  const int B = (order * (order + 1) * (order + 2)) / 6, na = B * 6;
  const int64_t e = blockIdx.x;
  const int k = threadIdx.x;
  if (k >= B || e >= n) return;
  const Real *c = coef + e * SQ_ANE_NCOEF, *s = dofs + e * B * 9;
  const Real tr = s[k] + s[k + B] + s[k + 2 * B];
  for (int p = 0; p < 6; ++p) {
    const Real eps = c[SQ_ANE_C1] * s[k + p * B] - (p < 3 ? c[SQ_ANE_C2] * tr : Real(0));
    for (int l = 0; l < nmech; ++l) ane[e * (int64_t)na * (nmech + 1) + l * na + k + p * B] += Real(sign) * eps;
  }
}

} // namespace sq_cuda

#endif
