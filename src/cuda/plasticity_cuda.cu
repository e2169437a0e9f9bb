/**
 * @file plasticity_cuda.cu  CUDA body of the plasticity codelet (thesis ch. 8, eq. 8.2-8.3): the nodal
 * Drucker-Prager correction of a tile, with threads over the B nodes of an element and E elements per
 * block.  The point-wise return mapping is that of the CPU kernel (src/plasticity_impl.h, host/device
 * inline, instantiated here for float and double like src/plasticity.c does); this file only maps the
 * element kernel (plast_element) onto the GPU.
 *
 * Per element, thread i of the element
 * 1. forms the total stress at node i, init(i,p) + sum_k V(i,k) S(k,p) (the initial stress at node i,
 *    read coalesced over i), summing over k in the CPU's order
 *    (V read through the read-only cache: coalesced over i; S staged in shared memory, broadcast);
 * 2. applies the return mapping at node i and writes the nodal change (zero where the node does not
 *    yield) over the staged S; a yielding node sets the element's flag;
 * 3. if the element yields (the branch is uniform per element), thread k forms mode k of the change,
 *    sum over the yielding nodes i of Vinv(k,i) delta(i,p), in the CPU's order, and adds it to the dofs;
 *    thread 0 accumulates the element's plastic strain (its cell average is psi0 times mode 0) and eta.
 * Each block adds its number of yielding elements to the task's counter (one atomic per block).
 *
 * The file is compiled with -fmad=false (src/cuda/Makefile.am): with the CPU's operation order and no
 * fused multiply-adds, the GPU reproduces the CPU body's bits (the CPU build targets x86-64-v2, which has
 * no FMA).  The one function that is not correctly rounded on both sides is expm1 (the relaxation factor
 * for Tv > 0), so an element with Tv > 0 may differ in the last bits.
 *
 * The kernel also compiles as plain C++ under SQ_CUDA_EMULATE (tests/cuda_emu/plasticity.sh).
 */
#include "cuda_kernels.cuh"

#include "plasticity_both.h"

namespace sq_cuda {

/** The point-wise return mapping of plasticity_impl.h for precision Real. */
template <typename Real> struct PlastPoint;
template <> struct PlastPoint<double> {
  static __device__ double factor(const double s[6], double cc, double sp, double relax, double dev[6]) {
    return sq_internal_plast_point_f64(s, cc, sp, relax, dev);
  }
};
template <> struct PlastPoint<float> {
  static __device__ float factor(const float s[6], float cc, float sp, float relax, float dev[6]) {
    return sq_internal_plast_point_f32(s, cc, sp, relax, dev);
  }
};

/** Compile-time shape of the plasticity kernel of one order and precision. */
template <int ORDER_, typename Real_> struct PlastShape {
  using Real = Real_;
  static constexpr int ORDER = ORDER_;
  static constexpr int B = nbasis(ORDER);
  static constexpr int E = cmax(1, SQ_CUDA_BLOCK_TARGET / B);             /**< elements per block */
  static constexpr int THREADS = (E * B + 31) / 32 * 32;                  /**< whole warps */
  static constexpr int NS = 6 * B;                                        /**< stress columns of one element */
  static constexpr size_t SMEM = sizeof(Real) * E * NS + sizeof(int) * E; /**< S / nodal change, flags */
  static_assert(B <= SQ_PLAST_MAXB, "B nodes per element");
};

/** Kernel arguments (device pointers; the tile's rows of the plasticity blocks). */
template <typename Real> struct PlastArgs {
  const Real *V, *Vinv;       /**< B x B each, column-major (the plasticity reference handle) */
  Real *dofs;                 /**< n x B x 9 */
  const Real *initial_stress; /**< n x 6 x B: the initial stress at the nodal points, quantity-major */
  const double *params, *mu;
  double *strain;   /**< n x 7 */
  uint8_t *yielded; /**< n */
  unsigned long long *count;
  int64_t n;
  double psi0, dt;
};

/* products and sums rounded one at a time, as on the CPU (no contraction even if -fmad were on) */
__device__ inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ inline float add_rn(float a, float b) { return __fadd_rn(a, b); }

template <int ORDER, typename Real>
__global__ void __launch_bounds__(PlastShape<ORDER, Real>::THREADS) plasticity_kernel(PlastArgs<Real> a) {
  using T = PlastShape<ORDER, Real>;
  constexpr int B = T::B;
  SQ_CUDA_SHARED(Real, sm);
  int *flags = reinterpret_cast<int *>(sm + T::E * T::NS);
  const int el = threadIdx.x / B, node = threadIdx.x - el * B;
  const int64_t e0 = (int64_t)blockIdx.x * T::E, e = e0 + el;
  const bool active = el < T::E && e < a.n;
  Real *S = sm + el * T::NS; /* this element's stress columns, then its nodal change */

  /* stage the stress columns of the block's elements (contiguous: the first 6 B of each element) */
  const int64_t nel = a.n - e0 < T::E ? a.n - e0 : T::E;
  const Real *src = a.dofs + (size_t)e0 * 9 * B;
  for (int idx = threadIdx.x; idx < nel * T::NS; idx += T::THREADS) {
    const int l = idx / T::NS, m = idx - l * T::NS;
    sm[idx] = src[(size_t)l * 9 * B + m];
  }
  if (threadIdx.x < T::E) flags[threadIdx.x] = 0;
  __syncthreads();

  /* 1-2. nodal total stress (eq. 8.2) and the return mapping at node i */
  Real delta[6];
  if (active) {
    const Real *init = a.initial_stress + (size_t)e * T::NS + node; /* coalesced over the nodes */
    const double *prm = a.params + 3 * e;
    Real s[6];
#pragma unroll
    for (int p = 0; p < 6; ++p) s[p] = init[p * B];
    const Real *Vi = a.V + node;
#pragma unroll 4
    for (int k = 0; k < B; ++k) {
      const Real v = __ldg(Vi + (size_t)k * B);
#pragma unroll
      for (int p = 0; p < 6; ++p) s[p] = add_rn(s[p], mul_rn(v, S[p * B + k]));
    }
    double cohesion_cos, sin_phi, relax;
    sq_plast_coefficients(prm[0], prm[1], prm[2], a.dt, &cohesion_cos, &sin_phi, &relax);
    Real dev[6];
    const Real factor = PlastPoint<Real>::factor(s, (Real)cohesion_cos, (Real)sin_phi, (Real)relax, dev);
#pragma unroll
    for (int p = 0; p < 6; ++p) delta[p] = factor * dev[p];
    if (factor != 0) flags[el] = 1;
  }
  __syncthreads(); /* S read by all, flags set */
  const bool yields = active && flags[el] != 0;
  if (yields)
#pragma unroll
    for (int p = 0; p < 6; ++p) S[p * B + node] = delta[p];
  __syncthreads();

  /* 3. back to the modes (eq. 8.3), only the yielding nodes contribute; plastic strain (eq. 2.33) */
  if (yields) {
    Real change[6];
#pragma unroll
    for (int p = 0; p < 6; ++p) change[p] = 0;
    const Real *Vk = a.Vinv + node;
#pragma unroll 2
    for (int i = 0; i < B; ++i) {
      const Real v = __ldg(Vk + (size_t)i * B);
#pragma unroll
      for (int p = 0; p < 6; ++p) {
        const Real d = S[p * B + i];
        if (d != 0) change[p] = add_rn(change[p], mul_rn(v, d));
      }
    }
    Real *q = a.dofs + (size_t)e * 9 * B;
#pragma unroll
    for (int p = 0; p < 6; ++p) q[p * B + node] = add_rn(q[p * B + node], change[p]);
    if (node == 0) {
      double *ps = a.strain + 7 * e, strain[6];
      const double mu = a.mu[e];
#pragma unroll
      for (int p = 0; p < 6; ++p) {
        strain[p] = __ddiv_rn(__dmul_rn(-(double)change[p], a.psi0), __dmul_rn(2.0, mu));
        ps[p] = __dadd_rn(ps[p], strain[p]);
      }
      const double diag = __dadd_rn(__dadd_rn(__dmul_rn(strain[0], strain[0]), __dmul_rn(strain[1], strain[1])),
                                    __dmul_rn(strain[2], strain[2]));
      double sum = __dmul_rn(0.5, diag);
      for (int p = 3; p < 6; ++p) sum = __dadd_rn(sum, __dmul_rn(strain[p], strain[p]));
      ps[6] = __dadd_rn(ps[6], sqrt(sum));
    }
  }
  if (active && node == 0) a.yielded[e] = (uint8_t)(flags[el] != 0);
  if (threadIdx.x == 0) {
    unsigned long long count = 0;
    for (int l = 0; l < nel; ++l) count += flags[l] != 0;
    if (count) atomicAdd(a.count, count);
  }
}

} // namespace sq_cuda

#ifndef SQ_CUDA_EMULATE
namespace {

template <int ORDER, typename Real> struct PlastLaunch {
  static void run(int64_t n, double psi0, const void *ref_pack, void *dofs, const void *initial_stress,
                  const double *params, const double *mu, double dt, double *strain, uint8_t *yielded,
                  int64_t *yield_count, cudaStream_t stream) {
    using T = sq_cuda::PlastShape<ORDER, Real>;
    const Real *V = (const Real *)ref_pack;
    const sq_cuda::PlastArgs<Real> args = {V,
                                           V + T::B * T::B,
                                           (Real *)dofs,
                                           (const Real *)initial_stress,
                                           params,
                                           mu,
                                           strain,
                                           yielded,
                                           (unsigned long long *)yield_count,
                                           n,
                                           psi0,
                                           dt};
    const unsigned blocks = (unsigned)((n + T::E - 1) / T::E);
    sq_cuda::plasticity_kernel<ORDER, Real><<<blocks, T::THREADS, T::SMEM, stream>>>(args);
    sq_cuda::check_launch("plasticity", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }
};

} // namespace

extern "C" void sq_cuda_plasticity(sq_precision prec, int order, int64_t n, double psi0, const void *ref_pack,
                                   void *dofs, const void *initial_stress, const double *params, const double *mu,
                                   double dt, double *strain, uint8_t *yielded, int64_t *yield_count, void *stream) {
  if (n <= 0) return;
  sq_cuda::dispatch<PlastLaunch>("plasticity", prec, order, n, psi0, ref_pack, dofs, initial_stress, params, mu, dt,
                                 strain, yielded, yield_count, (cudaStream_t)stream);
}
#endif
