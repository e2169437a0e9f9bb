/**
 * @file cuda_ane.cuh  The anelastic GPU kernels (viscoelastic attenuation; the CPU source is
 * src/kernels_ane_impl.h, whose formulation they follow): the predictor with the memory variables, and the
 * anelastic part of the local update.  The predictor (ane_predict_kernel) is templated on the order, the
 * precision and the mechanism count (AneShape): blocks of E elements, one owner thread per basis row that keeps
 * the row's memory variables in registers (their operations are row-local), and the Cauchy-Kovalevski products
 * of the elastic kernels (cuda_device.cuh) spread over the same threads.  The row-wise kernels (ane_source,
 * ane_shift) take one block per element.  Compiles as plain C++ too (SQ_CUDA_EMULATE, tests/cuda_emu/).
 */
#ifndef SQ_CUDA_ANE_CUH
#define SQ_CUDA_ANE_CUH

#include "cuda_device.cuh"

extern "C" {
#include "sq_attenuation.h"
#include "sq_kernels.h"
}

namespace sq_cuda {

/** Threads of a block of the row-wise anelastic kernels (ane_source, ane_shift): at least the largest basis (84). */
constexpr int ANE_THREADS = 96;

/**
 * Threads a block of the anelastic predictor aims at (whole elements).  At order 6 in single precision 256 (4
 * elements, 224 threads) measured as fast as 512 (3 elements: the shared memory bounds it) and faster than 128
 * (2 elements) on an H100 (docs/ATTENUATION.md).
 */
#ifndef SQ_CUDA_ANE_BLOCK_TARGET
#define SQ_CUDA_ANE_BLOCK_TARGET 256
#endif
/** Most bytes of the three K_d that the anelastic predictor stages whole in shared memory; larger ones (order 7,
 *  order 6 in double precision) are read through the read-only cache. */
#ifndef SQ_CUDA_ANE_WHOLE_BUDGET
#define SQ_CUDA_ANE_WHOLE_BUDGET (32 * 1024)
#endif

/** Rows per thread of the anelastic predictor's products: 2 (4 measured slower at order 6, single precision). */
#ifndef SQ_CUDA_ANE_ROWS
#define SQ_CUDA_ANE_ROWS 2
#endif

/**
 * Shape of the anelastic predictor of one order, precision and mechanism count.  Each basis row of an element
 * has an owner thread that keeps the row's memory variables, all mechanisms, and their time integrals in
 * registers (12 NMECH reals).  The products of a Cauchy-Kovalevski step have B1 = nb(O - 1) non-zero output
 * rows (those of K_d); the block's first E 3 GOUT threads compute them, one direction d and R rows each
 * (compacted as in ader_step), so that the owners' registers also serve the products.  TPE threads per element.
 */
template <int ORDER_, typename Real_, int NMECH_> struct AneShape {
  using Real = Real_;
  static constexpr int ORDER = ORDER_, NMECH = NMECH_, B = nbasis(ORDER), B1 = nbasis(ORDER - 1), NQ = 9 * B;
  static constexpr int NA = 6 * B, RS = (int)sizeof(Real), R = SQ_CUDA_ANE_ROWS;
  static constexpr int GOUT = (B1 + R - 1) / R, LDK = GOUT * R, TPE = cmax(B, 3 * GOUT);
  static constexpr int S = RS == 4 ? 12 : 10; /**< padded row of 9 in shared memory (16-byte multiple) */
  static constexpr int QS = pad16(B * S, RS); /**< element stride of a shared B x 9 block */
  static constexpr bool WHOLE = 3 * LDK * B * RS <= SQ_CUDA_ANE_WHOLE_BUDGET;
  static constexpr int XS = WHOLE ? (3 * LDK * B * RS + 15) / 16 * 16 / RS : 0; /**< K_d staged whole */
  /** D^{I-1}, D^I, the 3 stars, the 3 directions' parts of E^I */
  static constexpr int PER_ELEMENT = 2 * QS + 3 * 9 * S + 3 * LDK * S;
  static constexpr int E =
      cmax(1, cmin(cmax(1, SQ_CUDA_ANE_BLOCK_TARGET / TPE), (SQ_CUDA_SMEM_BUDGET / RS - XS) / PER_ELEMENT));
  static constexpr int THREADS = E * TPE, MS = E * 9 * S;
  static constexpr int OFF_XS = 0, OFF_CUR = XS, OFF_NXT = XS + E * QS, OFF_MS = XS + 2 * E * QS;
  static constexpr int OFF_P = OFF_MS + 3 * MS;
  static constexpr int SMEM = XS + E * PER_ELEMENT;
  static_assert((XS * RS) % 16 == 0 && (QS * RS) % 16 == 0 && (MS * RS) % 16 == 0 && (LDK * S * RS) % 16 == 0,
                "shared regions 16-byte aligned");
};

/* strain of the stress s[6] into e[6] (+= with add): c1 s - c2 tr(s) I */
template <typename Real>
__device__ __forceinline__ void ane_strain(Real c1, Real c2, const Real *s, bool add, Real *e) {
  const Real tr = s[0] + s[1] + s[2];
#pragma unroll
  for (int p = 0; p < 6; ++p) {
    const Real v = c1 * s[p] - (p < 3 ? c2 * tr : Real(0));
    e[p] = add ? e[p] + v : v;
  }
}

/* g[6] = sum_l a_l tr(theta_l) I + b_l theta_l */
template <int NMECH, typename Real>
__device__ __forceinline__ void ane_stress(const Real *a, const Real *b, const Real (&th)[NMECH][6], Real *g) {
#pragma unroll
  for (int p = 0; p < 6; ++p) g[p] = 0;
#pragma unroll
  for (int l = 0; l < NMECH; ++l) {
    const Real tr = th[l][0] + th[l][1] + th[l][2];
#pragma unroll
    for (int p = 0; p < 6; ++p) g[p] += b[l] * th[l][p] + (p < 3 ? a[l] * tr : Real(0));
  }
}

/**
 * fold_rows (cuda_device.cuh) on the stress columns 0..5 of Q only: for the rows of D^{I-1}, I >= 2, past the
 * non-zero rows of K_d, whose velocities are zero (they hold only the anelastic source -G(Theta^{I-2})).
 */
template <typename Real, int RR, int S>
__device__ __forceinline__ void fold_stress(const Real *Xs, int ld, const Real *Q, int k0, int row0, int nin,
                                            Real (&Y)[RR][9]) {
  constexpr int NV = sizeof(Real) == 4 ? 8 : 6; /* the 6 stresses as whole 16-byte vectors */
#pragma unroll 2
  for (int k = 0; k < nin; ++k) {
    const Row<Real, RR> x = load_row<Real, RR>(Xs + k * ld + row0);
    const Row<Real, NV> v = load_row<Real, NV>(Q + (k0 + k) * S);
#pragma unroll
    for (int i = 0; i < RR; ++i)
#pragma unroll
      for (int q = 0; q < 6; ++q) Y[i][q] = fma(x.v[i], v.v[q], Y[i][q]);
  }
}

/**
 * The same with the B x B column-major K (leading dimension @p ld) read through the read-only cache, its rows
 * from NOUT on taken as zero, on the first NCOL columns of Q.
 */
template <typename Real, int RR, int S, int NCOL, int NOUT>
__device__ __forceinline__ void fold_global(const Real *__restrict__ K, int ld, const Real *Q, int k0, int row0,
                                            int nin, Real (&Y)[RR][9]) {
#pragma unroll 4
  for (int k = 0; k < nin; ++k) {
    const Row<Real, S> v = load_row<Real, S>(Q + (k0 + k) * S);
#pragma unroll
    for (int i = 0; i < RR; ++i) {
      const Real x = row0 + i < NOUT ? __ldg(K + (k0 + k) * ld + row0 + i) : Real(0);
#pragma unroll
      for (int q = 0; q < NCOL; ++q) Y[i][q] = fma(x, v.v[q], Y[i][q]);
    }
  }
}

/**
 * The predictor with attenuation (sq_kernel_ader_ane) of the block's elements, with the LTS buffer of
 * sq_kernel_accumulate when @p lts_buffer is given.  Per Cauchy-Kovalevski step I the compute threads form the
 * three directions' parts of E^I = -sum_d K_d D^{I-1} A*_d^T on the B1 non-zero rows with the elastic kernels'
 * building blocks (fold_rows, apply_star with the star pattern; K_d staged whole, or read through the read-only cache
 * where it does not fit) and leave them in shared memory; after a barrier each row's owner sums them, adds the
 * anelastic source, D^I = E^I - [G(Theta^{I-1}); 0], advances its memory variables Theta_l^I = C_u^-1 E^I_sigma - w_l
 * Theta_l^{I-1} and the time integrals, and writes D^I back for the next step.  D^I (I >= 1) has full degree, as on the
 * CPU, but its rows past B1 hold only the anelastic source (no velocities): the products read their stresses only
 * (fold_stress).  The memory variables are read and written once per predictor.
 */
template <class T>
__global__ void __launch_bounds__(T::THREADS)
    ane_predict_kernel(int64_t n, int epb, const typename T::Real *__restrict__ pack,
                       const typename T::Real *__restrict__ dofs, const typename T::Real *__restrict__ star,
                       const typename T::Real *__restrict__ coef, double dt, typename T::Real *__restrict__ tint,
                       typename T::Real *__restrict__ derivs, typename T::Real *__restrict__ ane,
                       typename T::Real *__restrict__ lts_buffer, int buffer_reset) {
  using Real = typename T::Real;
  constexpr int B = T::B, S = T::S, R = T::R, NM = T::NMECH, NA = T::NA;
  SQ_CUDA_SHARED(Real, smem);
  const int64_t e0 = (int64_t)blockIdx.x * epb, nb = block_end(n, e0, epb);
  const int el = threadIdx.x / T::TPE, row = threadIdx.x - el * T::TPE; /* the owner's element and row */
  const int64_t e = e0 + el;
  const bool active = e < nb && row < B;
  /* compacted mapping of the products: the block's first 3 GOUT ne threads, direction cd, rows crow0 .. */
  const int t = threadIdx.x;
  const bool compute = t < (int)(nb - e0) * 3 * T::GOUT;
  const int cel = compute ? t / (3 * T::GOUT) : 0, cr = t - cel * 3 * T::GOUT, cd = compute ? cr / T::GOUT : 0;
  const int crow0 = compute ? (cr - cd * T::GOUT) * R : 0;
  Real *P = smem + T::OFF_P; /* [el][d][LDK rows][S] */
  Real *cur = smem + T::OFF_CUR, *nxt = smem + T::OFF_NXT;
  stage_blocks<T>(dofs, e0, nb, cur);
  for (int d = 0; d < 3; ++d) stage_matrix<T>(star, 3, d, Real(-1), e0, nb, smem + T::OFF_MS + d * T::MS);
  if constexpr (T::WHOLE) stage_kder<T>(pack, smem + T::OFF_XS);
  __syncthreads();
  /* the owner's coefficients, row, memory variables and their time integrals */
  const Real *c = coef + (active ? e : e0) * SQ_ANE_NCOEF;
  Real w[NM], a[NM], b[NM];
#pragma unroll
  for (int l = 0; l < NM; ++l) w[l] = c[SQ_ANE_W + l], a[l] = c[SQ_ANE_A + l], b[l] = c[SQ_ANE_B + l];
  const Real c1 = c[SQ_ANE_C1], c2 = c[SQ_ANE_C2];
  Real *phi = ane + (active ? e : e0) * (int64_t)NA * (NM + 1) + row;
  Real ti[9], th[NM][6], ith[NM][6];
  {
    Real D0[9];
#pragma unroll
    for (int q = 0; q < 9; ++q) {
      D0[q] = active ? cur[el * T::QS + row * S + q] : Real(0);
      ti[q] = (Real)dt * D0[q];
    }
#pragma unroll
    for (int l = 0; l < NM; ++l) {
#pragma unroll
      for (int p = 0; p < 6; ++p) th[l][p] = active ? phi[l * NA + p * B] : Real(0);
      ane_strain(c1, c2, D0, true, th[l]);
#pragma unroll
      for (int p = 0; p < 6; ++p) ith[l][p] = (Real)dt * th[l][p];
    }
    if (derivs && active)
#pragma unroll
      for (int q = 0; q < 9; ++q) derivs[e * T::ORDER * T::NQ + q * B + row] = D0[q];
  }
  double factor = dt;
  for (int I = 1; I < T::ORDER; ++I) {
    /* direction cd's part of E^I on the non-zero rows (the star matrices staged negated) */
    if (compute) {
      Real D[R][9], Y[R][9];
      zero(D);
      zero(Y);
      const Real *Q = cur + cel * T::QS;
      if constexpr (T::WHOLE) {
        const Real *Xs = smem + T::OFF_XS + cd * B * T::LDK;
        fold_rows<Real, R, S>(Xs, T::LDK, Q, 0, crow0, I == 1 ? B : T::B1, Y);
        if (I > 1) fold_stress<Real, R, S>(Xs + T::B1 * T::LDK, T::LDK, Q, T::B1, crow0, B - T::B1, Y);
      } else {
        const Real *K = pack + (SQ_PACK_KDER + cd) * B * B;
        fold_global<Real, R, S, 9, T::B1>(K, B, Q, 0, crow0, I == 1 ? B : T::B1, Y);
        if (I > 1) fold_global<Real, R, S, 6, T::B1>(K, B, Q, T::B1, crow0, B - T::B1, Y);
      }
      apply_star<S, true>(Y, smem + T::OFF_MS + (cd * T::E + cel) * 9 * S, D);
#pragma unroll
      for (int i = 0; i < R; ++i)
        if (crow0 + i < T::B1)
#pragma unroll
          for (int q = 0; q < 9; ++q) P[((cel * 3 + cd) * T::LDK + crow0 + i) * S + q] = D[i][q];
    }
    __syncthreads(); /* E^I complete */
    factor *= dt / (I + 1);
    const Real f = (Real)factor;
    if (active) {
      Real D[9], g[6];
      Real *out = nxt + el * T::QS + row * S;
      const Real *p = P + (el * 3 * T::LDK + row) * S;
#pragma unroll
      for (int q = 0; q < 9; ++q) D[q] = row < T::B1 ? (p[q] + p[T::LDK * S + q]) + p[2 * T::LDK * S + q] : Real(0);
      ane_stress<NM>(a, b, th, g);
#pragma unroll
      for (int l = 0; l < NM; ++l) {
        Real nth[6];
        ane_strain(c1, c2, D, false, nth);
#pragma unroll
        for (int p = 0; p < 6; ++p) th[l][p] = nth[p] - w[l] * th[l][p];
      }
#pragma unroll
      for (int p = 0; p < 6; ++p) D[p] -= g[p];
#pragma unroll
      for (int q = 0; q < 9; ++q) ti[q] += f * D[q], out[q] = D[q];
#pragma unroll
      for (int l = 0; l < NM; ++l)
#pragma unroll
        for (int p = 0; p < 6; ++p) ith[l][p] += f * th[l][p];
      if (derivs)
#pragma unroll
        for (int q = 0; q < 9; ++q) derivs[(e * T::ORDER + I) * T::NQ + q * B + row] = D[q];
    }
    __syncthreads(); /* D^I complete; D^{I-1} free */
    Real *tmp = cur;
    cur = nxt;
    nxt = tmp;
  }
  if (!active) return;
#pragma unroll
  for (int q = 0; q < 9; ++q) {
    tint[e * T::NQ + q * B + row] = ti[q];
    if (lts_buffer) {
      Real *buf = lts_buffer + e * T::NQ + q * B + row;
      *buf = buffer_reset ? ti[q] : *buf + ti[q];
    }
  }
  /* G(I_Theta) kept for the local update; phi_l += C_u^-1 G(I_Theta) - w_l I_Theta_l */
  Real g[6], eps[6];
  ane_stress<NM>(a, b, ith, g);
  ane_strain(c1, c2, g, false, eps);
#pragma unroll
  for (int p = 0; p < 6; ++p) phi[NM * NA + p * B] = g[p];
#pragma unroll
  for (int l = 0; l < NM; ++l)
#pragma unroll
    for (int p = 0; p < 6; ++p) {
      Real *ph = phi + l * NA + p * B;
      *ph = (*ph + eps[p]) - w[l] * ith[l][p];
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
