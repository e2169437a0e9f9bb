/**
 * @file cuda_kernels.cuh  One source for the fused GPU element kernels (thesis §6.3.2), templated on
 * the order and the precision.  Their shapes are in cuda_shape.cuh, their building blocks in
 * cuda_device.cuh, the host side in cuda_launch.cuh (included here); the launchers live in
 * ader_cuda.cu, local_cuda.cu, neighbor_cuda.cu and merged_cuda.cu; docs/GPU.md describes the design.
 *
 * - A thread block takes E consecutive elements; each element gets G threads, and thread g owns R
 *   consecutive basis rows l = g R .. g R + R - 1 of the element's B x 9 result, for all 9
 *   quantities: a register tile of R x 9 accumulators.
 * - Every product of the update has the form out += X (Q M^T), X a B x B reference matrix and M an
 *   element's 9 x 9 star or flux matrix.  It is evaluated as (X Q) M^T: the thread forms
 *   Y = X(rows, :) Q in registers, with Q read from shared memory, and folds Y M^T into its
 *   accumulators.  No intermediate leaves registers.  Q and M sit in shared memory with rows
 *   padded to 16 bytes; all threads of an element read the same address (broadcast), and a
 *   thread's R rows of a column of X are one 16-byte vector (8 bytes up to
 *   SQ_CUDA_NARROW_MAX_ORDER_SP / _DP).
 * - Reference matrices shared by the whole block (K, F^-) are staged in shared memory a chunk of
 *   columns at a time; the predictor stages its three K_d (truncated to the rows of D^1) once for
 *   all its steps where they fit (ader_whole); the neighbour-flux matrices F^+, which differ per element and face
 *   (link.flux, 48 variants), are read through the read-only cache.
 * - The hierarchical truncation of the Cauchy-Kovalevski recursion (D^i has nb(O - i) non-zero
 *   rows) is compile-time: the recursion is unrolled per order, and threads whose rows are all zero
 *   skip the arithmetic.
 * - The star matrices are applied as their 24 non-zeros (apply_star with PATTERN), the volume term on the
 *   nb(O - 1) non-zero columns of Kvol_d; the flux solvers and flux matrices are dense.
 *
 * The same source compiles as plain C++ (SQ_CUDA_EMULATE, tests/cuda_emu/) so that the index
 * arithmetic, the barriers and the alignment of vector accesses can be checked without a GPU.
 */
#ifndef SQ_CUDA_KERNELS_CUH
#define SQ_CUDA_KERNELS_CUH

#include "cuda_device.cuh"
#include "cuda_launch.cuh"

namespace sq_cuda {

/* ---- ADER predictor (eq. 3.33-3.34) ----------------------------------------------------------- */

/**
 * Step I of the Cauchy-Kovalevski recursion: D^I = -sum_d Kder_d (D^{I-1} A*_d^T) on its nb(O - I)
 * non-zero rows, then tint += dt^{I+1}/(I+1)! D^I; D^I goes to @p derivs and to the shared buffer
 * of the next step.  The recursion over I unrolls the steps at compile time.
 *
 * Only GOUT = ceil(nb(O - I) / R) row groups per element carry non-zero rows, so the step remaps
 * the block's first E GOUT threads onto the (element, row group) pairs that do: the idle threads
 * gather in whole warps that issue nothing, instead of leaving every warp partly idle.  The
 * owner of a tint row (fixed mapping) adds D^I from the shared buffer after a barrier.
 */
template <class T, int I>
__device__ __forceinline__ void ader_step(const typename T::Real *__restrict__ pack,
                                          const typename T::Real *__restrict__ star, typename T::Real *smem, int64_t e0,
                                          int64_t n, int el, int row0, bool active, double dt, double factor,
                                          typename T::Real (&tint)[T::R][9], typename T::Real *__restrict__ derivs) {
  if constexpr (I < T::ORDER) {
    using Real = typename T::Real;
    constexpr int NIN = nbasis(T::ORDER - I + 1), NOUT = nbasis(T::ORDER - I), GOUT = (NOUT + T::R - 1) / T::R;
    constexpr int CUR = (I % 2) ? T::OFF_EVEN : T::OFF_ODD, NEXT = (I % 2) ? T::OFF_ODD : T::OFF_EVEN;
    constexpr int CUR_ROWS = (I % 2) ? T::B : T::B1, NEXT_ROWS = (I % 2) ? T::B1 : T::B;
    constexpr int CUR_STRIDE = (I % 2) ? T::QS : T::QS1, NEXT_STRIDE = (I % 2) ? T::QS1 : T::QS;
    static_assert(NIN <= CUR_ROWS && NOUT <= NEXT_ROWS && GOUT <= T::G, "derivative buffers too small");
    /* compacted mapping of this step */
    const int t = threadIdx.x;
    const bool compute = t < (int)(n - e0) * GOUT; /* n - e0 <= E: the block's elements */
    const int cel = compute ? t / GOUT : 0, crow0 = compute ? (t - cel * GOUT) * T::R : 0;
    Real D[T::R][9];
    zero(D);
    if constexpr (T::ADER_WHOLE) { /* K_d and the stars staged by ader_body: no barrier */
      if (compute) {
        for (int d = 0; d < 3; ++d) {
          Real Y[T::R][9];
          zero(Y);
          fold_rows<Real, T::R, T::S>(smem + T::OFF_XS + d * T::B * T::LDK, T::LDK, smem + CUR + cel * CUR_STRIDE, 0,
                                      crow0, NIN, Y);
          apply_star<T::S, true>(Y, smem + T::OFF_MS + (d * T::E + cel) * 9 * T::S, D); /* star staged negated */
        }
        /* staged rows NOUT .. LDK - 1 of K_d are not zero: D^I's rows past NOUT are */
#pragma unroll
        for (int i = 0; i < T::R; ++i)
          if (crow0 + i >= NOUT)
#pragma unroll
            for (int q = 0; q < 9; ++q) D[i][q] = Real(0);
      }
    } else {
      for (int d = 0; d < 3; ++d) {
        Real Y[T::R][9];
        product<T, NOUT, NIN>(pack + (SQ_PACK_KDER + d) * T::B * T::B, smem + CUR + cel * CUR_STRIDE, crow0, compute, Y,
                              smem + T::OFF_XS, star, 3, d, Real(-1), e0, n, smem + T::OFF_MS);
        if (compute) apply_star<T::S, true>(Y, smem + T::OFF_MS + cel * 9 * T::S, D); /* star staged negated */
      }
    }
    factor *= dt / (I + 1);
    const Real f = (Real)factor;
    /* NEXT was CUR of step I-1: every read of it finished before the barrier of step I-1 (whole
     * staging) or before this step's first barrier (product) */
    if (compute) {
      Real *nxt = smem + NEXT + cel * NEXT_STRIDE;
#pragma unroll
      for (int i = 0; i < T::R; ++i)
        if (crow0 + i < NOUT) {
#pragma unroll
          for (int q = 0; q < 9; ++q) nxt[(crow0 + i) * T::S + q] = D[i][q];
        }
      if (derivs && e0 + cel < n) global_store_rows<T>(derivs + ((e0 + cel) * T::ORDER + I) * T::NQ, crow0, D);
    }
    if (derivs && active && row0 >= GOUT * T::R) { /* rows no computing thread covers: zero */
      Real z[T::R][9];
      zero(z);
      global_store_rows<T>(derivs + ((e0 + el) * T::ORDER + I) * T::NQ, row0, z);
    }
    __syncthreads();
    const Real *mine = smem + NEXT + el * NEXT_STRIDE;
#pragma unroll
    for (int i = 0; i < T::R; ++i)
      if (row0 + i < NOUT) {
#pragma unroll
        for (int q = 0; q < 9; ++q) tint[i][q] += f * mine[(row0 + i) * T::S + q];
      }
    ader_step<T, I + 1>(pack, star, smem, e0, n, el, row0, active, dt, factor, tint, derivs);
  }
}

/**
 * ADER predictor of the block's elements: leaves the thread's rows of tint in @p tint and writes
 * tint, the derivatives and the LTS buffer to global memory.  No early return: the fused predictor
 * has barriers after it.
 */
template <class T>
__device__ __forceinline__ void
ader_body(int64_t e0, int64_t n, const typename T::Real *__restrict__ pack, const typename T::Real *__restrict__ dofs,
          const typename T::Real *__restrict__ star, double dt, typename T::Real *__restrict__ tint_out,
          typename T::Real *__restrict__ derivs, typename T::Real *__restrict__ lts_buffer, int buffer_reset,
          typename T::Real *smem, typename T::Real (&tint)[T::R][9]) {
  using Real = typename T::Real;
  const int el = threadIdx.x / T::G, row0 = (threadIdx.x - el * T::G) * T::R;
  const int64_t e = e0 + el;
  const bool active = e < n;
  stage_blocks<T>(dofs, e0, n, smem + T::OFF_EVEN);
  if constexpr (T::ADER_WHOLE) {
    stage_kder<T>(pack, smem + T::OFF_XS);
    for (int d = 0; d < 3; ++d) stage_matrix<T>(star, 3, d, Real(-1), e0, n, smem + T::OFF_MS + d * T::MS);
  }
  __syncthreads();
  const Real *q0 = smem + T::OFF_EVEN + el * T::QS;
  const Real f0 = (Real)dt;
  Real D0[T::R][9];
#pragma unroll
  for (int i = 0; i < T::R; ++i)
#pragma unroll
    for (int q = 0; q < 9; ++q) {
      D0[i][q] = row0 + i < T::B ? q0[(row0 + i) * T::S + q] : Real(0);
      tint[i][q] = f0 * D0[i][q];
    }
  if (derivs && active) global_store_rows<T>(derivs + e * T::ORDER * T::NQ, row0, D0);
  ader_step<T, 1>(pack, star, smem, e0, n, el, row0, active, dt, dt, tint, derivs);
  if (active) {
    global_store_rows<T>(tint_out + e * T::NQ, row0, tint);
    if (lts_buffer) {
      Real *buf = lts_buffer + e * T::NQ;
      if (buffer_reset) global_store_rows<T>(buf, row0, tint);
      else global_add_rows<T>(buf, row0, tint);
    }
  }
}

/* ---- volume + local flux (eq. 4.1) ----------------------------------------------------------- */

/**
 * dofs += sum_d Kvol_d I A*_d^T - sum_j Flocal_j I Alocal_j^T for the block's elements, with I
 * already staged in shared memory at OFF_EVEN ([el][k][S]).
 */
template <class T>
__device__ __forceinline__ void local_update(int64_t e0, int64_t n, const typename T::Real *__restrict__ pack,
                                             const typename T::Real *__restrict__ star,
                                             const typename T::Real *__restrict__ flux_local,
                                             typename T::Real *__restrict__ dofs, typename T::Real *smem) {
  using Real = typename T::Real;
  const int el = threadIdx.x / T::G, row0 = (threadIdx.x - el * T::G) * T::R;
  const int64_t e = e0 + el;
  const bool active = e < n;
  const Real *Is = smem + T::OFF_EVEN + el * T::QS;
  Real acc[T::R][9];
  zero(acc);
  for (int m = 0; m < 7; ++m) {
    Real Y[T::R][9];
    if (m < 3) { /* Kvol_d's columns from B1 on are zero: those of degree O - 1 */
      product<T, T::B, T::B1>(pack + (SQ_PACK_KVOL + m) * T::B * T::B, Is, row0, active, Y, smem + T::OFF_XS, star, 3,
                              m, Real(1), e0, n, smem + T::OFF_MS);
      if (active) apply_star<T::S, true>(Y, smem + T::OFF_MS + el * 9 * T::S, acc);
    } else {
      product<T, T::B, T::B>(pack + (SQ_PACK_FLOCAL + m - 3) * T::B * T::B, Is, row0, active, Y, smem + T::OFF_XS,
                             flux_local, 4, m - 3, Real(-1), e0, n, smem + T::OFF_MS);
      if (active) apply_star<T::S>(Y, smem + T::OFF_MS + el * 9 * T::S, acc);
    }
  }
  if (active) global_add_rows<T>(dofs + e * T::NQ, row0, acc);
}

/* ---- kernels ----------------------------------------------------------------------------------- */

/** ADER predictor (+ derivatives, + LTS buffer). */
template <int ORDER, typename Real, int NARROW = -1>
__global__ void __launch_bounds__(AderShape<ORDER, Real, NARROW>::THREADS, AderShape<ORDER, Real, NARROW>::MIN_BLOCKS)
    ader_kernel(int64_t n, int epb, const Real *__restrict__ pack, const Real *__restrict__ dofs,
                const Real *__restrict__ star, double dt, Real *__restrict__ tint, Real *__restrict__ derivs,
                Real *__restrict__ lts_buffer, int buffer_reset) {
  using T = AderShape<ORDER, Real, NARROW>;
  SQ_CUDA_SHARED(Real, smem);
  const int64_t e0 = (int64_t)blockIdx.x * epb;
  Real ti[T::R][9];
  ader_body<T>(e0, block_end(n, e0, epb), pack, dofs, star, dt, tint, derivs, lts_buffer, buffer_reset, smem, ti);
}

/** Volume + local flux. */
template <int ORDER, typename Real, int NARROW = -1>
__global__ void __launch_bounds__(LocalShape<ORDER, Real, NARROW>::THREADS, LocalShape<ORDER, Real, NARROW>::MIN_BLOCKS)
    local_kernel(int64_t n, int epb, const Real *__restrict__ pack, const Real *__restrict__ tint,
                 const Real *__restrict__ star, const Real *__restrict__ flux_local, Real *__restrict__ dofs) {
  using T = LocalShape<ORDER, Real, NARROW>;
  SQ_CUDA_SHARED(Real, smem);
  const int64_t e0 = (int64_t)blockIdx.x * epb, nb = block_end(n, e0, epb);
  stage_blocks<T>(tint, e0, nb, smem + T::OFF_EVEN); /* product() syncs before use */
  local_update<T>(e0, nb, pack, star, flux_local, dofs, smem);
}

/** Fused predictor of the block's elements e0 .. nb - 1: ader (+ derivatives, + LTS buffer), then the local update. */
template <class T>
__device__ __forceinline__ void
predict_block(int64_t e0, int64_t nb, const typename T::Real *__restrict__ pack, typename T::Real *__restrict__ dofs,
              const typename T::Real *__restrict__ star, const typename T::Real *__restrict__ flux_local, double dt,
              typename T::Real *__restrict__ tint, typename T::Real *__restrict__ derivs,
              typename T::Real *__restrict__ lts_buffer, int buffer_reset, typename T::Real *smem) {
  using Real = typename T::Real;
  Real ti[T::R][9];
  ader_body<T>(e0, nb, pack, dofs, star, dt, tint, derivs, lts_buffer, buffer_reset, smem, ti);
  const int el = threadIdx.x / T::G, row0 = (threadIdx.x - el * T::G) * T::R;
  __syncthreads(); /* every thread is done with the derivative buffers */
  Real *Is = smem + T::OFF_EVEN + el * T::QS;
#pragma unroll
  for (int i = 0; i < T::R; ++i)
    if (row0 + i < T::B)
#pragma unroll
      for (int q = 0; q < 9; ++q) Is[(row0 + i) * T::S + q] = ti[i][q];
  local_update<T>(e0, nb, pack, star, flux_local, dofs, smem); /* product() syncs before use */
}

/** Fused predictor: ader (+ derivatives, + LTS buffer), then the local update from tint in shared memory. */
template <int ORDER, typename Real, int NARROW = -1>
__global__ void __launch_bounds__(PredictShape<ORDER, Real, NARROW>::THREADS,
                                  PredictShape<ORDER, Real, NARROW>::MIN_BLOCKS)
    predict_kernel(int64_t n, int epb, const Real *__restrict__ pack, Real *__restrict__ dofs,
                   const Real *__restrict__ star, const Real *__restrict__ flux_local, double dt,
                   Real *__restrict__ tint, Real *__restrict__ derivs, Real *__restrict__ lts_buffer,
                   int buffer_reset) {
  using T = PredictShape<ORDER, Real, NARROW>;
  SQ_CUDA_SHARED(Real, smem);
  const int64_t e0 = (int64_t)blockIdx.x * epb;
  predict_block<T>(e0, block_end(n, e0, epb), pack, dofs, star, flux_local, dt, tint, derivs, lts_buffer, buffer_reset,
                   smem);
}

/** The segment of a merged task's grid that this block belongs to, and the block's first element in it. */
__device__ __forceinline__ const sq_cuda_segment &segment_of_block(const sq_cuda_segments &segs, int64_t *e0) {
  int s = 0;
  while (s + 1 < segs.nseg && blockIdx.x >= segs.seg[s + 1].first_block) ++s;
  *e0 = (int64_t)(blockIdx.x - segs.seg[s].first_block) * segs.epb;
  return segs.seg[s];
}

/**
 * Fused predictor over the tiles of a merged task (thesis §6.5.3) in one launch: block b belongs to the
 * segment s with first_block[s] <= b < first_block[s + 1] and takes its elements epb (b - first_block[s])
 * onwards.  Each element's arithmetic is that of predict_kernel: bitwise the same results.
 */
template <int ORDER, typename Real, int NARROW = -1>
__global__ void __launch_bounds__(PredictShape<ORDER, Real, NARROW>::THREADS,
                                  PredictShape<ORDER, Real, NARROW>::MIN_BLOCKS)
    predict_segments_kernel(const __grid_constant__ sq_cuda_segments segs, const Real *__restrict__ pack) {
  using T = PredictShape<ORDER, Real, NARROW>;
  SQ_CUDA_SHARED(Real, smem);
  int64_t e0;
  const sq_cuda_segment &g = segment_of_block(segs, &e0);
  predict_block<T>(e0, block_end(g.n, e0, segs.epb), pack, (Real *)g.dofs, (const Real *)g.star,
                   (const Real *)g.flux_local, g.dt, (Real *)g.tint, (Real *)g.derivs, (Real *)g.lts_buffer,
                   g.buffer_reset, smem);
}

/**
 * Stage the neighbour data of face @p face of the block's elements 0 .. ne - 1 (links @p Ls, E x 4)
 * into shared rows [el][k][S]: the neighbour's tint/buffer, or the Taylor integral of its derivatives
 * over the slot's interval; 0 for a face without neighbour.  Called by all threads of the block.
 */
template <class T>
__device__ __forceinline__ void stage_neighbor(const sq_face_link *Ls, int face, int ne, const sq_cuda_slots &slots,
                                               typename T::Real *Is) {
  using Real = typename T::Real;
  for (int idx = threadIdx.x; idx < ne * T::NQ; idx += T::THREADS) {
    const int el2 = idx / T::NQ, rem = idx - el2 * T::NQ, q = rem / T::B, k = rem - q * T::B;
    const sq_face_link ln = Ls[el2 * 4 + face];
    Real v = Real(0);
    if (ln.kind == SQ_LINK_TINT) {
      v = reinterpret_cast<const Real *>(slots.data[ln.slot])[(int64_t)ln.index * T::NQ + rem];
    } else if (ln.kind == SQ_LINK_DERIVS) {
      const Real *d = reinterpret_cast<const Real *>(slots.data[ln.slot]) + (int64_t)ln.index * T::ORDER * T::NQ + rem;
      const double t0 = slots.t0[ln.slot], t1 = slots.t1[ln.slot];
      double p0 = t0, p1 = t1; /* t^{i+1} / (i+1)! */
#pragma unroll
      for (int i = 0; i < T::ORDER; ++i) {
        v += (Real)(p1 - p0) * d[i * T::NQ];
        p0 *= t0 / (i + 2);
        p1 *= t1 / (i + 2);
      }
    }
    Is[el2 * T::QS + k * T::S + q] = v;
  }
}

/**
 * Neighbour flux (eq. 4.2): per face j, stage each element's neighbour data (tint/buffer, or the
 * Taylor integral of its derivatives over the slot's interval), then
 * dofs -= F+_{link.flux} I_nb Anb_j^T, F+ read through the read-only cache.
 */
template <int ORDER, typename Real, int NARROW = -1>
__global__ void __launch_bounds__(NeighborShape<ORDER, Real, NARROW>::THREADS,
                                  NeighborShape<ORDER, Real, NARROW>::MIN_BLOCKS)
    neighbor_kernel(int64_t n_all, int epb, const Real *__restrict__ pack, const sq_face_link *__restrict__ links,
                    const Real *__restrict__ flux_nb, const __grid_constant__ sq_cuda_slots slots,
                    Real *__restrict__ dofs) {
  using T = NeighborShape<ORDER, Real, NARROW>;
  SQ_CUDA_SHARED(Real, smem);
  Real *Is = smem + T::OFF_EVEN, *Ms = smem + T::OFF_MS;
  sq_face_link *Ls = reinterpret_cast<sq_face_link *>(smem + T::OFF_LINKS);
  const int64_t e0 = (int64_t)blockIdx.x * epb, n = block_end(n_all, e0, epb);
  const int ne = (int)(n - e0);
  const int el = threadIdx.x / T::G, row0 = (threadIdx.x - el * T::G) * T::R;
  const int64_t e = e0 + el;
  for (int idx = threadIdx.x; idx < T::E * 4; idx += T::THREADS) {
    const sq_face_link none = {SQ_LINK_NONE, 0, 0, 0};
    Ls[idx] = idx / 4 < ne ? links[e0 * 4 + idx] : none;
  }
  Real acc[T::R][9];
  zero(acc);
  for (int j = 0; j < 4; ++j) {
    __syncthreads(); /* Is, Ms free; Ls complete */
    stage_neighbor<T>(Ls, j, ne, slots, Is);
    stage_matrix<T>(flux_nb, 4, j, Real(-1), e0, n, Ms);
    __syncthreads();
    const sq_face_link me = Ls[el * 4 + j];
    if (me.kind != SQ_LINK_NONE) {
      Real Y[T::R][9];
      product_global<T>(pack + (SQ_PACK_FNB + me.flux) * T::B * T::B, Is + el * T::QS, row0, Y);
      apply_star<T::S>(Y, Ms + el * 9 * T::S, acc);
    }
  }
  if (e < n) global_add_rows<T>(dofs + e * T::NQ, row0, acc);
}

} // namespace sq_cuda

#endif
