/**
 * @file cuda_sparse.cuh  The ADER predictor (`ader`) and the volume + local-flux update (`local`) with the reference
 * operators compiled in as sparse code: one thread per (element, quantity p), 9 threads per element, and the
 * non-zeros of the operators as literal multiply-adds.
 *
 * sq_cuda_ops.h (written at build time by sq-gen-ops from src/ref.c; src/cuda/gen_ops.c) lists, per order, the
 * non-zeros of the three K_der,d column by column as an X-macro.  Step i of the Cauchy-Kovalevski recursion,
 *
 *   D^i(l, p) = sum_d sum_k K_der,d(l, k) w_d(k),   w_d(k) = -sum_q A*_d(p, q) D^{i-1}(k, q),
 *
 * runs on thread p of each element: per column k < nb(O - i + 1) it loads the 2-3 entries D^{i-1}(k, q) of the star
 * pattern's row p (SQ_STAR_NONZERO: the same q for every d) from shared memory and forms w_0..w_2 with its star
 * coefficients, which it keeps in registers; then every non-zero (l, k) of a K_der,d is one fused multiply-add
 * out[l] = fma(K_der,d(l, k), w_d(k), out[l]) with the entry a compile-time literal and out[] a register array
 * indexed by constants.  No operator is loaded, and no multiply-add touches a zero of K_der,d.  Every w_d(k) that no
 * entry uses is dead code, and the truncation to the nb(O - i) rows and nb(O - i + 1) columns of step i is
 * compile-time (the degree structure: K_der,d(l, k) != 0 only for deg l < deg k, which test_sparse_ops checks).
 *
 * Column p of D^i goes to shared memory, a barrier, and the block copies D^i to the derivatives output with
 * coalesced stores; thread p adds the Taylor term to its column of tint in registers.  At the end tint goes through
 * shared memory to tint and the LTS buffer (reset or accumulate), coalesced.  Everything ader_kernel does, with the
 * same arguments; ader_cuda.cu takes it for the orders and precisions of sparse_ader (docs/GPU.md). local_sparse_kernel
 * (below) does the same for `local` with K_vol,d and the local flux factored through the face basis; local_cuda.cu
 * takes it where local_takes_sparse.  The split forms (ader_sparse_kernel with NS = 2, local_split_kernel) give each
 * (element, quantity) two threads that share its rows by parity, which halves what a thread holds (sparse_ader_split:
 * `ader` in double precision at orders 6-7; sparse_local_split: nowhere by default).  sq_cuda_predict runs `ader` and
 * `local` as two kernels wherever `ader` is sparse, but for small tiles that keep the cell or fine-row `local`
 * (small_tile_keeps_rows).
 */
#ifndef SQ_CUDA_SPARSE_CUH
#define SQ_CUDA_SPARSE_CUH

#include "cuda_cell.cuh"
#include "sq_cuda_ops.h"

/**
 * The orders at which `ader` and `local` take the sparse kernels, per precision (first and last): where they measured
 * faster than the row-group kernels of cuda_kernels.cuh on an H100 (docs/PERFORMANCE.md).  `ader` is faster at every
 * order in both precisions; `local` in single precision at every order and in double precision up to order 4: from
 * order 5 on, the double-precision sparse `local` needs more than 250 registers (and spills from order 6).
 */
#ifndef SQ_CUDA_SPARSE_ADER_MIN_SP
#define SQ_CUDA_SPARSE_ADER_MIN_SP 2
#endif
#ifndef SQ_CUDA_SPARSE_ADER_MAX_SP
#define SQ_CUDA_SPARSE_ADER_MAX_SP 7
#endif
#ifndef SQ_CUDA_SPARSE_ADER_MIN_DP
#define SQ_CUDA_SPARSE_ADER_MIN_DP 2
#endif
#ifndef SQ_CUDA_SPARSE_ADER_MAX_DP
#define SQ_CUDA_SPARSE_ADER_MAX_DP 7
#endif
#ifndef SQ_CUDA_SPARSE_LOCAL_MIN_SP
#define SQ_CUDA_SPARSE_LOCAL_MIN_SP 2
#endif
#ifndef SQ_CUDA_SPARSE_LOCAL_MAX_SP
#define SQ_CUDA_SPARSE_LOCAL_MAX_SP 7
#endif
#ifndef SQ_CUDA_SPARSE_LOCAL_MIN_DP
#define SQ_CUDA_SPARSE_LOCAL_MIN_DP 2
#endif
#ifndef SQ_CUDA_SPARSE_LOCAL_MAX_DP
#define SQ_CUDA_SPARSE_LOCAL_MAX_DP 4
#endif
/**
 * The orders at which `local` takes the split form of the sparse kernel (local_split_kernel: each (element,
 * quantity) on SQ_CUDA_SPARSE_LOCAL_SPLIT threads, each forming a share of the update's rows), per precision (first
 * and last; a last below the first: none, the default).  It takes precedence over the unsplit range above.  The
 * unsplit kernel in double precision needs more than 250 registers from order 5 on (out[B] and the projections, two
 * registers per value); split in two, it fits 128 (docs/GPU.md), but on an H100 it ran slower than the row-group
 * kernel at orders 5-7 in double precision (docs/PERFORMANCE.md, "Orders, sizes and precisions").
 */
#ifndef SQ_CUDA_SPARSE_LOCAL_SPLIT_MIN_SP
#define SQ_CUDA_SPARSE_LOCAL_SPLIT_MIN_SP 2
#endif
#ifndef SQ_CUDA_SPARSE_LOCAL_SPLIT_MAX_SP
#define SQ_CUDA_SPARSE_LOCAL_SPLIT_MAX_SP 1
#endif
#ifndef SQ_CUDA_SPARSE_LOCAL_SPLIT_MIN_DP
#define SQ_CUDA_SPARSE_LOCAL_SPLIT_MIN_DP 2
#endif
#ifndef SQ_CUDA_SPARSE_LOCAL_SPLIT_MAX_DP
#define SQ_CUDA_SPARSE_LOCAL_SPLIT_MAX_DP 1
#endif
/**
 * The orders at which `ader` takes the split form of the sparse kernel (ader_sparse_kernel with NS > 1: each (element,
 * quantity) on SQ_CUDA_SPARSE_ADER_SPLIT threads, each holding a share of the rows of D^i and tint), per precision
 * (first and last; a last below the first: none): double precision at orders 6 and 7, where it measured faster on an
 * H100 (order 6: 6.3 against 8.7 ms per 511 104 elements, order 7: 18.1 against 36.2; order 5: 1.86 against 1.41,
 * unsplit).
 */
#ifndef SQ_CUDA_SPARSE_ADER_SPLIT_MIN_SP
#define SQ_CUDA_SPARSE_ADER_SPLIT_MIN_SP 2
#endif
#ifndef SQ_CUDA_SPARSE_ADER_SPLIT_MAX_SP
#define SQ_CUDA_SPARSE_ADER_SPLIT_MAX_SP 1
#endif
#ifndef SQ_CUDA_SPARSE_ADER_SPLIT_MIN_DP
#define SQ_CUDA_SPARSE_ADER_SPLIT_MIN_DP 6
#endif
#ifndef SQ_CUDA_SPARSE_ADER_SPLIT_MAX_DP
#define SQ_CUDA_SPARSE_ADER_SPLIT_MAX_DP 7
#endif
/** Threads per (element, quantity) of the split sparse `ader` (rows l with l mod SPLIT = part go to thread part). */
#ifndef SQ_CUDA_SPARSE_ADER_SPLIT
#define SQ_CUDA_SPARSE_ADER_SPLIT 2
#endif
/**
 * The most registers per thread the split sparse `ader` may take (launch bound as SQ_CUDA_SPARSE_SPLIT_MAX_REGS; 0:
 * no bound, the default).  In double precision it takes 118, 150, 210 registers at orders 5, 6, 7 without spills;
 * bound to 128 it spills 16 bytes at order 6 and 636 at order 7.
 */
#ifndef SQ_CUDA_SPARSE_ADER_SPLIT_MAX_REGS
#define SQ_CUDA_SPARSE_ADER_SPLIT_MAX_REGS 0
#endif
/** Threads per (element, quantity) of the split sparse `local` (rows l with l mod SPLIT = part go to thread part). */
#ifndef SQ_CUDA_SPARSE_LOCAL_SPLIT
#define SQ_CUDA_SPARSE_LOCAL_SPLIT 2
#endif
/**
 * The most registers per thread the split sparse `local` may take (a launch bound of 65 536 / (this x threads)
 * blocks per SM; 0: no bound).  At 128 the double-precision kernel of order 7 fits without spills (142 unbounded).
 */
#ifndef SQ_CUDA_SPARSE_SPLIT_MAX_REGS
#define SQ_CUDA_SPARSE_SPLIT_MAX_REGS 128
#endif
/** Threads a block of the sparse kernel aims at (9 per element), and the most shared memory it may take (bytes). */
#ifndef SQ_CUDA_SPARSE_THREADS
#define SQ_CUDA_SPARSE_THREADS 128
#endif
#ifndef SQ_CUDA_SPARSE_SMEM
#define SQ_CUDA_SPARSE_SMEM (64 * 1024)
#endif
/**
 * Blocks per SM that the sparse kernels ask the compiler to make room for (__launch_bounds__; 0: no bound, the
 * registers are the compiler's choice).  4 measured no faster in single precision and slower in double
 * (docs/PERFORMANCE.md).
 */
#ifndef SQ_CUDA_SPARSE_MIN_BLOCKS
#define SQ_CUDA_SPARSE_MIN_BLOCKS 0
#endif

namespace sq_cuda {

/** Whether `ader` of this order and real size takes the sparse kernel. */
__host__ __device__ constexpr bool sparse_ader(int order, int real_size) {
  return real_size == 4 ? order >= SQ_CUDA_SPARSE_ADER_MIN_SP && order <= SQ_CUDA_SPARSE_ADER_MAX_SP
                        : order >= SQ_CUDA_SPARSE_ADER_MIN_DP && order <= SQ_CUDA_SPARSE_ADER_MAX_DP;
}

/** Whether `ader` of this order and real size takes the split sparse kernel (where sparse_ader). */
__host__ __device__ constexpr bool sparse_ader_split(int order, int real_size) {
  return real_size == 4 ? order >= SQ_CUDA_SPARSE_ADER_SPLIT_MIN_SP && order <= SQ_CUDA_SPARSE_ADER_SPLIT_MAX_SP
                        : order >= SQ_CUDA_SPARSE_ADER_SPLIT_MIN_DP && order <= SQ_CUDA_SPARSE_ADER_SPLIT_MAX_DP;
}

/** Whether `local` of this order and real size takes the split sparse kernel (local_split_kernel). */
__host__ __device__ constexpr bool sparse_local_split(int order, int real_size) {
  return real_size == 4 ? order >= SQ_CUDA_SPARSE_LOCAL_SPLIT_MIN_SP && order <= SQ_CUDA_SPARSE_LOCAL_SPLIT_MAX_SP
                        : order >= SQ_CUDA_SPARSE_LOCAL_SPLIT_MIN_DP && order <= SQ_CUDA_SPARSE_LOCAL_SPLIT_MAX_DP;
}

/** Threads per (element, quantity) of the sparse `ader` (NS of ader_sparse_kernel): 1, or the split's. */
__host__ __device__ constexpr int sparse_ader_parts(int order, int real_size) {
  return sparse_ader_split(order, real_size) ? SQ_CUDA_SPARSE_ADER_SPLIT : 1;
}

/** Whether `local` of this order and real size takes a sparse kernel, split (sparse_local_split) or not. */
__host__ __device__ constexpr bool sparse_local(int order, int real_size) {
  return sparse_local_split(order, real_size) ||
         (real_size == 4 ? order >= SQ_CUDA_SPARSE_LOCAL_MIN_SP && order <= SQ_CUDA_SPARSE_LOCAL_MAX_SP
                         : order >= SQ_CUDA_SPARSE_LOCAL_MIN_DP && order <= SQ_CUDA_SPARSE_LOCAL_MAX_DP);
}

/**
 * Shape of the sparse kernel: E elements of 9 NS threads per block (NS: threads per (element, quantity), 1 unless
 * split; parts of SLOTS threads as in SparseLocalShape); per element two shared blocks, stored as the
 * global data (column-major, 9 columns) with an odd column stride, so that the 9 threads of an element reading or
 * writing their columns at one row hit different banks: A (B rows: D^0, the odd steps' input, tint at the end) and
 * D1 (nb(O - 1) rows: the even steps' input).
 */
template <int ORDER_, typename Real_, int NS_ = 1> struct SparseShape {
  using Real = Real_;
  static constexpr int ORDER = ORDER_, B = nbasis(ORDER), B1 = nbasis(ORDER - 1), NQ = 9 * B, RS = (int)sizeof(Real);
  static constexpr int NS = NS_, ROWS = (B + NS - 1) / NS;
  static constexpr int LDA = B | 1, LD1 = B1 | 1; /**< column strides of the two blocks */
  static constexpr int PER_ELEMENT = 9 * (LDA + LD1);
  static constexpr int E = cmax(1, cmin(SQ_CUDA_SPARSE_THREADS / (9 * NS), SQ_CUDA_SPARSE_SMEM / (RS * PER_ELEMENT)));
  static constexpr int SLOTS = NS == 1 ? 9 * E : (9 * E + 31) / 32 * 32;
  static constexpr int THREADS = NS * SLOTS;
  /** ader_sparse_kernel's launch bound (0: none): SQ_CUDA_SPARSE_MIN_BLOCKS, split: blocks per SM for
   *  SQ_CUDA_SPARSE_ADER_SPLIT_MAX_REGS registers */
  static constexpr int MIN_BLOCKS = NS == 1 ? SQ_CUDA_SPARSE_MIN_BLOCKS
                                    : SQ_CUDA_SPARSE_ADER_SPLIT_MAX_REGS > 0
                                        ? 65536 / (SQ_CUDA_SPARSE_ADER_SPLIT_MAX_REGS * THREADS)
                                        : 0;
  static constexpr int OFF_A = 0, OFF_1 = E * 9 * LDA; /**< the two regions, in reals */
  static constexpr int SMEM = E * PER_ELEMENT;
};

/**
 * Shape of the sparse local kernels: E elements of 9 NS threads per block (NS: threads per (element, quantity), 1
 * in local_sparse_kernel); per element tint (B x 9, column-major with an odd column stride; then the update) and two
 * buffers of the projections of tint onto a face's basis, Bf rows of S reals (the 9 quantities padded to a 16-byte
 * vector, so that a thread reads a row as whole vectors).  With NS > 1 the block is NS parts of SLOTS threads, 9 E
 * rounded up to whole warps, so that the threads of a warp share one part (one instruction stream): thread t is slot
 * t mod SLOTS (9 el + p; past 9 E idle) of part t / SLOTS.
 */
template <int ORDER_, typename Real_, int NS_ = 1> struct SparseLocalShape {
  using Real = Real_;
  static constexpr int ORDER = ORDER_, B = nbasis(ORDER), B1 = nbasis(ORDER - 1), BF = ORDER * (ORDER + 1) / 2;
  static constexpr int NQ = 9 * B, RS = (int)sizeof(Real), NS = NS_;
  static constexpr int LDA = B | 1, S = RS == 4 ? 12 : 10, VEC = 16 / RS;
  static constexpr int FACE = BF * S; /**< one face buffer */
  static constexpr int PER_ELEMENT = 9 * LDA + 2 * FACE + VEC;
  static constexpr int E = cmax(1, cmin(SQ_CUDA_SPARSE_THREADS / (9 * NS), SQ_CUDA_SPARSE_SMEM / (RS * PER_ELEMENT)));
  static constexpr int SLOTS = NS == 1 ? 9 * E : (9 * E + 31) / 32 * 32;
  static constexpr int THREADS = NS * SLOTS;
  /** rows of the update (of B) and face functions (of Bf) per thread: l, f = part, part + NS, ... */
  static constexpr int ROWS = (B + NS - 1) / NS, FROWS = (BF + NS - 1) / NS;
  /** the split kernel's launch bound: blocks per SM for SQ_CUDA_SPARSE_SPLIT_MAX_REGS registers (0: none) */
  static constexpr int MIN_BLOCKS = SQ_CUDA_SPARSE_SPLIT_MAX_REGS > 0
                                        ? 65536 / (SQ_CUDA_SPARSE_SPLIT_MAX_REGS * THREADS)
                                        : 0;
  /** tint ([el][q][LDA]), then the face buffers ([el][2][f][S]) from a 16-byte boundary */
  static constexpr int OFF_A = 0, OFF_F = (E * 9 * LDA + VEC - 1) / VEC * VEC;
  static constexpr int SMEM = OFF_F + E * 2 * FACE;
};

/** The lowest set bit of the 9-bit mask @p m (0 for none). */
__host__ __device__ constexpr int low_bit(int m) {
  for (int q = 0; q < 9; ++q)
    if ((m >> q) & 1) return q;
  return 0;
}

/** The order-O list of operator X's non-zeros (sq_cuda_ops.h: KDER, KVOL, PROJ, LIFT) with COL and FMA. */
#define SQ_SPARSE_LIST(O, X, COL, FMA)                                                                                 \
  if constexpr (O == 2) {                                                                                              \
    SQ_OPS_O2_##X(COL, FMA)                                                                                            \
  } else if constexpr (O == 3) {                                                                                       \
    SQ_OPS_O3_##X(COL, FMA)                                                                                            \
  } else if constexpr (O == 4) {                                                                                       \
    SQ_OPS_O4_##X(COL, FMA)                                                                                            \
  } else if constexpr (O == 5) {                                                                                       \
    SQ_OPS_O5_##X(COL, FMA)                                                                                            \
  } else if constexpr (O == 6) {                                                                                       \
    SQ_OPS_O6_##X(COL, FMA)                                                                                            \
  } else if constexpr (O == 7) {                                                                                       \
    SQ_OPS_O7_##X(COL, FMA)                                                                                            \
  }

/** w_d = sum_j c[d][j] x_j: one row of the three star matrices (its pattern's 2-3 entries) applied to a row of Q. */
template <typename Real>
__device__ __forceinline__ void star_row(const Real (&c)[3][3], Real x0, Real x1, Real x2, Real &w0, Real &w1,
                                         Real &w2) {
  w0 = fma(c[0][2], x2, fma(c[0][1], x1, c[0][0] * x0));
  w1 = fma(c[1][2], x2, fma(c[1][1], x1, c[1][0] * x0));
  w2 = fma(c[2][2], x2, fma(c[2][1], x1, c[2][0] * x0));
}

/**
 * Row p of the star pattern: the columns q0, q1, q2 of its 2-3 entries (q2 = q0 where there are 2), and
 * c[d][j] = sign A*_d(p, q_j) of element e (0 for a third of none) in registers.
 */
template <typename Real>
__device__ __forceinline__ void star_pattern_row(const Real *__restrict__ star, int64_t e, int p, Real sign, int &q0,
                                                 int &q1, int &q2, Real (&c)[3][3]) {
  const int mask = SQ_STAR_ROW_MASK(p), m1 = mask & (mask - 1), m2 = m1 & (m1 - 1);
  q0 = low_bit(mask);
  q1 = low_bit(m1);
  q2 = m2 ? low_bit(m2) : q0;
#pragma unroll
  for (int d = 0; d < 3; ++d) {
    const Real *s = star + (e * 3 + d) * 81 + p * 9;
    c[d][0] = sign * s[q0];
    c[d][1] = sign * s[q1];
    c[d][2] = m2 ? sign * s[q2] : Real(0);
  }
}

/**
 * Copy the block's elements' B x 9 blocks from global memory (@p src: the first element's, NQ reals apart) into their
 * shared blocks at @p dst (column stride T::LDA, element stride 9 T::LDA), coalesced; with @p copy also to copy +
 * el * stride (the derivatives output's D^0).  Called by all threads of the block.
 */
template <class T>
__device__ __forceinline__ void sparse_load(typename T::Real *dst, const typename T::Real *__restrict__ src, int ne,
                                            typename T::Real *__restrict__ copy, int64_t stride) {
  using Real = typename T::Real;
  for (int idx = threadIdx.x; idx < ne * T::NQ; idx += T::THREADS) {
    const int el = idx / T::NQ, rem = idx - el * T::NQ, q = rem / T::B, l = rem - q * T::B;
    const Real v = src[idx];
    dst[(el * 9 + q) * T::LDA + l] = v;
    if (copy) copy[el * stride + rem] = v;
  }
}

/**
 * Copy rows 0 .. nrow - 1 of the block's elements' shared blocks (column stride ld, element stride 9 ld) to their
 * B x 9 blocks in global memory at dst + el * stride (rows nrow .. B - 1 as 0), coalesced; @p add: add to dst
 * instead.  Called by all threads of the block.
 */
template <class T>
__device__ __forceinline__ void sparse_store(const typename T::Real *src, int ld, int nrow, int ne,
                                             typename T::Real *__restrict__ dst, int64_t stride, bool add) {
  using Real = typename T::Real;
  for (int idx = threadIdx.x; idx < ne * T::NQ; idx += T::THREADS) {
    const int el = idx / T::NQ, rem = idx - el * T::NQ, q = rem / T::B, l = rem - q * T::B;
    const Real v = l < nrow ? src[(el * 9 + q) * ld + l] : Real(0);
    Real *d = dst + el * stride + rem;
    *d = add ? *d + v : v;
  }
}

/**
 * out += (M^-1 E_J)(:, f) g(f) over f, g(f) = -sum_q Alocal_J(p, q) P_J(f, q) from the element's face-J projections
 * @p Pj (rows of S), with @p arow row p of Alocal_J (row-major in global memory).
 */
template <class T, int J>
__device__ __forceinline__ void sparse_lift(const typename T::Real *Pj, const typename T::Real *__restrict__ arow,
                                            typename T::Real (&out)[T::B]) {
  using Real = typename T::Real;
  Real a[9];
#pragma unroll
  for (int q = 0; q < 9; ++q) a[q] = -arow[q];
  Real g = Real(0);
#define SQ_SPARSE_COL(f)                                                                                               \
  {                                                                                                                    \
    const Row<Real, T::S> r = load_row<Real, T::S>(Pj + (f)*T::S);                                                     \
    g = a[0] * r.v[0];                                                                                                 \
    for (int q = 1; q < 9; ++q) g = fma(a[q], r.v[q], g);                                                              \
  }
#define SQ_SPARSE_FMA(j, l, f, v)                                                                                      \
  if constexpr ((j) == J) out[l] = fma(Real(v), g, out[l]);
  SQ_SPARSE_LIST(T::ORDER, LIFT, SQ_SPARSE_COL, SQ_SPARSE_FMA)
#undef SQ_SPARSE_COL
#undef SQ_SPARSE_FMA
}

/** Column p of tint (@p Ip) projected onto face J's basis, E_J^T I(:, p): entry f to Pp[f S]. */
template <class T, int J>
__device__ __forceinline__ void sparse_project(const typename T::Real *Ip, typename T::Real *Pp) {
  using Real = typename T::Real;
  Real P[T::BF];
#pragma unroll
  for (int f = 0; f < T::BF; ++f) P[f] = Real(0);
  Real x = Real(0);
#define SQ_SPARSE_COL(k) x = Ip[k];
#define SQ_SPARSE_FMA(j, f, k, v)                                                                                      \
  if constexpr ((j) == J) P[f] = fma(Real(v), x, P[f]);
  SQ_SPARSE_LIST(T::ORDER, PROJ, SQ_SPARSE_COL, SQ_SPARSE_FMA)
#undef SQ_SPARSE_COL
#undef SQ_SPARSE_FMA
#pragma unroll
  for (int f = 0; f < T::BF; ++f) Pp[f * T::S] = P[f];
}

/**
 * Volume + local flux (local_kernel's arguments and results) with the operators compiled in, thread p of element
 * el forming column p of the update:
 * - volume: out(l) = sum_d sum_k K_vol,d(l, k) w_d(k), w_d(k) = sum_q A*_d(p, q) I(k, q) over the star pattern;
 * - local flux, F^-_j = E_j E_j^T, face by face: each thread projects its column of tint onto face j's basis
 *   (E_j^T I(:, p)) into a shared buffer; after a barrier, per face-basis function f it forms
 *   g(f) = -sum_q Alocal_j(p, q) P_j(f, q) (the flux solver mixes the quantities: the whole row f of P_j) and lifts
 *   it, out(l) += (M^-1 E_j)(l, f) g(f).  Two buffers alternate: face j + 1 is projected while face j is lifted.
 * The update goes through shared memory and is added to the dofs with coalesced accesses.
 */
template <int ORDER, typename Real>
__global__ void __launch_bounds__(SparseLocalShape<ORDER, Real>::THREADS, SQ_CUDA_SPARSE_MIN_BLOCKS)
    local_sparse_kernel(int64_t n, int epb, const Real *__restrict__ pack, const Real *__restrict__ tint,
                        const Real *__restrict__ star, const Real *__restrict__ flux_local, Real *__restrict__ dofs) {
  using T = SparseLocalShape<ORDER, Real>;
  (void)pack; /* the operators are compiled in */
  SQ_CUDA_SHARED(Real, smem);
  const int64_t e0 = (int64_t)blockIdx.x * epb;
  const int ne = (int)(block_end(n, e0, epb) - e0);
  const int el = threadIdx.x / 9, p = threadIdx.x - el * 9;
  const int64_t e = e0 + (el < ne ? el : 0); /* a thread slot past the block's elements reads element e0's data */
  sparse_load<T>(smem + T::OFF_A, tint + e0 * T::NQ, ne, nullptr, 0);
  int q0, q1, q2;
  Real c[3][3];
  star_pattern_row(star, e, p, Real(1), q0, q1, q2, c);
  __syncthreads();
  Real *I = smem + T::OFF_A + el * 9 * T::LDA, *F0 = smem + T::OFF_F + el * 2 * T::FACE, *F1 = F0 + T::FACE;
  Real out[T::B];
#pragma unroll
  for (int l = 0; l < T::B; ++l) out[l] = Real(0);
  {
    const Real *in0 = I + q0 * T::LDA, *in1 = I + q1 * T::LDA, *in2 = I + q2 * T::LDA;
    Real w0 = Real(0), w1 = Real(0), w2 = Real(0);
#define SQ_SPARSE_COL(k)          star_row(c, in0[k], in1[k], in2[k], w0, w1, w2);
#define SQ_SPARSE_FMA(d, l, k, v) out[l] = fma(Real(v), w##d, out[l]);
    SQ_SPARSE_LIST(T::ORDER, KVOL, SQ_SPARSE_COL, SQ_SPARSE_FMA)
#undef SQ_SPARSE_COL
#undef SQ_SPARSE_FMA
  }
  const Real *Ip = I + p * T::LDA, *arow = flux_local + e * 4 * 81 + p * 9;
  sparse_project<T, 0>(Ip, F0 + p);
  __syncthreads();
  sparse_project<T, 1>(Ip, F1 + p);
  sparse_lift<T, 0>(F0, arow, out);
  __syncthreads(); /* F0 read */
  sparse_project<T, 2>(Ip, F0 + p);
  sparse_lift<T, 1>(F1, arow + 81, out);
  __syncthreads(); /* F1 read */
  sparse_project<T, 3>(Ip, F1 + p);
  sparse_lift<T, 2>(F0, arow + 162, out);
  __syncthreads(); /* tint read for the last time, F1 written */
  sparse_lift<T, 3>(F1, arow + 243, out);
  Real *Up = I + p * T::LDA; /* the update in tint's place */
#pragma unroll
  for (int l = 0; l < T::B; ++l) Up[l] = out[l];
  __syncthreads();
  sparse_store<T>(smem + T::OFF_A, T::LDA, T::B, ne, dofs + e0 * T::NQ, T::NQ, true);
}

/** A part of the split kernel as a type (its index compile-time inside the generic lambdas of for_part). */
template <int H> struct SplitPart { static constexpr int value = H; };

/**
 * Call f(SplitPart<part>{}) for the run-time @p part < NS: every part's code compiled in, each with its rows as
 * compile-time indices.  The part is the same across a warp (SparseLocalShape), so a warp runs one of them.
 */
template <int NS, int H = 0, class F> __device__ __forceinline__ void for_part(int part, F &&f) {
  if constexpr (H + 1 < NS) {
    if (part != H) {
      for_part<NS, H + 1>(part, f);
      return;
    }
  }
  f(SplitPart<H>{});
}

/**
 * `local` split over NS threads per (element, quantity), otherwise local_sparse_kernel: part H of column p holds the
 * update's rows l = H, H + NS, ... (out[l / NS]) and projects face functions f = H, H + NS, ... .  Each part forms
 * the star-pattern products w_d(k) and the flux products g(f) its rows use (so the parts repeat those), and each row's
 * sum runs in the same order as in local_sparse_kernel: the same bits.  What shrinks is the live state, ROWS + FROWS
 * values instead of B + Bf, which the double-precision kernel needs to fit its registers from order 5 on.
 */
template <int ORDER, typename Real>
__global__ void __launch_bounds__(SparseLocalShape<ORDER, Real, SQ_CUDA_SPARSE_LOCAL_SPLIT>::THREADS,
                                  SparseLocalShape<ORDER, Real, SQ_CUDA_SPARSE_LOCAL_SPLIT>::MIN_BLOCKS)
    local_split_kernel(int64_t n, int epb, const Real *__restrict__ pack, const Real *__restrict__ tint,
                       const Real *__restrict__ star, const Real *__restrict__ flux_local, Real *__restrict__ dofs) {
  using T = SparseLocalShape<ORDER, Real, SQ_CUDA_SPARSE_LOCAL_SPLIT>;
  constexpr int NS = T::NS;
  (void)pack; /* the operators are compiled in */
  SQ_CUDA_SHARED(Real, smem);
  const int64_t e0 = (int64_t)blockIdx.x * epb;
  const int ne = (int)(block_end(n, e0, epb) - e0);
  const int part = threadIdx.x / T::SLOTS, slot = threadIdx.x - part * T::SLOTS;
  const bool active = slot < 9 * T::E; /* the slots that round a part up to whole warps only join the barriers */
  const int el = active ? slot / 9 : 0, p = active ? slot - el * 9 : 0;
  const int64_t e = e0 + (el < ne ? el : 0); /* a thread slot past the block's elements reads element e0's data */
  sparse_load<T>(smem + T::OFF_A, tint + e0 * T::NQ, ne, nullptr, 0);
  Real *I = smem + T::OFF_A + el * 9 * T::LDA, *F0 = smem + T::OFF_F + el * 2 * T::FACE, *F1 = F0 + T::FACE;
  const Real *Ip = I + p * T::LDA, *arow = flux_local + e * 4 * 81 + p * 9;
  Real out[T::ROWS];
#pragma unroll
  for (int i = 0; i < T::ROWS; ++i) out[i] = Real(0);
  /* volume: the rows of this part */
  __syncthreads();
  if (active)
    for_part<NS>(part, [&](auto h) {
      constexpr int H = decltype(h)::value;
      int q0, q1, q2;
      Real c[3][3];
      star_pattern_row(star, e, p, Real(1), q0, q1, q2, c);
      const Real *in0 = I + q0 * T::LDA, *in1 = I + q1 * T::LDA, *in2 = I + q2 * T::LDA;
      Real w0 = Real(0), w1 = Real(0), w2 = Real(0);
#define SQ_SPARSE_COL(k) star_row(c, in0[k], in1[k], in2[k], w0, w1, w2);
#define SQ_SPARSE_FMA(d, l, k, v)                                                                                      \
  if constexpr ((l) % NS == H) out[(l) / NS] = fma(Real(v), w##d, out[(l) / NS]);
      SQ_SPARSE_LIST(T::ORDER, KVOL, SQ_SPARSE_COL, SQ_SPARSE_FMA)
#undef SQ_SPARSE_COL
#undef SQ_SPARSE_FMA
    });
  /* face J: this part's face functions of column p of tint projected, E_J^T I(:, p), to Pp[f S] */
  auto project = [&](auto face, Real *Pp) {
    constexpr int J = decltype(face)::value;
    for_part<NS>(part, [&](auto h) {
      constexpr int H = decltype(h)::value;
      Real P[T::FROWS];
#pragma unroll
      for (int i = 0; i < T::FROWS; ++i) P[i] = Real(0);
      Real x = Real(0);
#define SQ_SPARSE_COL(k) x = Ip[k];
#define SQ_SPARSE_FMA(j, f, k, v)                                                                                      \
  if constexpr ((j) == J && (f) % NS == H) P[(f) / NS] = fma(Real(v), x, P[(f) / NS]);
      SQ_SPARSE_LIST(T::ORDER, PROJ, SQ_SPARSE_COL, SQ_SPARSE_FMA)
#undef SQ_SPARSE_COL
#undef SQ_SPARSE_FMA
#pragma unroll
      for (int i = 0; i < T::FROWS; ++i)
        if (i * NS + H < T::BF) Pp[(i * NS + H) * T::S] = P[i];
    });
  };
  /* face J: g(f) = -sum_q Alocal_J(p, q) P_J(f, q) from @p Pj, lifted into this part's rows */
  auto lift = [&](auto face, const Real *Pj) {
    constexpr int J = decltype(face)::value;
    for_part<NS>(part, [&](auto h) {
      constexpr int H = decltype(h)::value;
      Real a[9];
#pragma unroll
      for (int q = 0; q < 9; ++q) a[q] = -arow[J * 81 + q];
      Real g = Real(0);
#define SQ_SPARSE_COL(f)                                                                                               \
  {                                                                                                                    \
    const Row<Real, T::S> r = load_row<Real, T::S>(Pj + (f)*T::S);                                                     \
    g = a[0] * r.v[0];                                                                                                 \
    for (int q = 1; q < 9; ++q) g = fma(a[q], r.v[q], g);                                                              \
  }
#define SQ_SPARSE_FMA(j, l, f, v)                                                                                      \
  if constexpr ((j) == J && (l) % NS == H) out[(l) / NS] = fma(Real(v), g, out[(l) / NS]);
      SQ_SPARSE_LIST(T::ORDER, LIFT, SQ_SPARSE_COL, SQ_SPARSE_FMA)
#undef SQ_SPARSE_COL
#undef SQ_SPARSE_FMA
    });
  };
  if (active) project(SplitPart<0>{}, F0 + p);
  __syncthreads();
  if (active) {
    project(SplitPart<1>{}, F1 + p);
    lift(SplitPart<0>{}, F0);
  }
  __syncthreads(); /* F0 read */
  if (active) {
    project(SplitPart<2>{}, F0 + p);
    lift(SplitPart<1>{}, F1);
  }
  __syncthreads(); /* F1 read */
  if (active) {
    project(SplitPart<3>{}, F1 + p);
    lift(SplitPart<2>{}, F0);
  }
  __syncthreads(); /* tint read for the last time, F1 written */
  if (active) {
    lift(SplitPart<3>{}, F1);
    for_part<NS>(part, [&](auto h) {
      constexpr int H = decltype(h)::value;
      Real *Up = I + p * T::LDA; /* the update in tint's place */
#pragma unroll
      for (int i = 0; i < T::ROWS; ++i)
        if (i * NS + H < T::B) Up[i * NS + H] = out[i];
    });
  }
  __syncthreads();
  sparse_store<T>(smem + T::OFF_A, T::LDA, T::B, ne, dofs + e0 * T::NQ, T::NQ, true);
}

/**
 * Steps I .. O - 1 of the recursion in ader_sparse_kernel (template recursion: every size compile-time): part H of
 * column p forms the rows l = H, H + NS, ... of D^I (every w_d(k) they use) and adds them to its rows of tint.  D^{I-1}
 * is in A for odd I, in D1 for even I; D^I goes into the other (every read of it, step I - 1's input, finished before
 * step I - 1's barrier).
 */
template <class T, int I>
__device__ __forceinline__ void sparse_steps(typename T::Real *smem, int part, bool active, int el, int p, int q0,
                                             int q1, int q2, const typename T::Real (&c)[3][3], int ne, int64_t e0,
                                             double dt, double factor, typename T::Real (&tint)[T::ROWS],
                                             typename T::Real *__restrict__ derivs) {
  if constexpr (I < T::ORDER) {
    using Real = typename T::Real;
    constexpr int NS = T::NS, NIN = nbasis(T::ORDER - I + 1), NOUT = nbasis(T::ORDER - I);
    constexpr int LDI = I % 2 ? T::LDA : T::LD1, LDO = I % 2 ? T::LD1 : T::LDA;
    const Real *in = smem + (I % 2 ? T::OFF_A : T::OFF_1) + el * 9 * LDI;
    Real *outs = smem + (I % 2 ? T::OFF_1 : T::OFF_A);
    factor *= dt / (I + 1);
    const Real f = (Real)factor;
    if (active)
      for_part<NS>(part, [&](auto h) {
        constexpr int H = decltype(h)::value;
        const Real *in0 = in + q0 * LDI, *in1 = in + q1 * LDI, *in2 = in + q2 * LDI;
        Real out[T::ROWS];
#pragma unroll
        for (int i = 0; i < T::ROWS; ++i) out[i] = Real(0);
        Real w0 = Real(0), w1 = Real(0), w2 = Real(0);
#define SQ_SPARSE_COL(k)                                                                                               \
  if constexpr ((k) < NIN) star_row(c, in0[k], in1[k], in2[k], w0, w1, w2);
#define SQ_SPARSE_FMA(d, l, k, v)                                                                                      \
  if constexpr ((k) < NIN && (l) < NOUT && (l) % NS == H) out[(l) / NS] = fma(Real(v), w##d, out[(l) / NS]);
        SQ_SPARSE_LIST(T::ORDER, KDER, SQ_SPARSE_COL, SQ_SPARSE_FMA)
#undef SQ_SPARSE_COL
#undef SQ_SPARSE_FMA
        Real *mine = outs + (el * 9 + p) * LDO;
#pragma unroll
        for (int i = 0; i < T::ROWS; ++i)
          if (i * NS + H < NOUT) {
            mine[i * NS + H] = out[i];
            tint[i] = fma(f, out[i], tint[i]);
          }
      });
    __syncthreads();
    if (derivs) sparse_store<T>(outs, LDO, NOUT, ne, derivs + (e0 * T::ORDER + I) * T::NQ, T::ORDER * T::NQ, false);
    sparse_steps<T, I + 1>(smem, part, active, el, p, q0, q1, q2, c, ne, e0, dt, factor, tint, derivs);
  }
}

/**
 * ADER predictor (+ derivatives, + LTS buffer): ader_kernel's arguments and results with the operators compiled in,
 * NS threads per (element, quantity); part H of them holds the rows l = H, H + NS, ... of each D^i and of tint.  Each
 * row sums in the same order whatever NS: the same bits.
 */
template <int ORDER, typename Real, int NS = 1>
__global__ void __launch_bounds__(SparseShape<ORDER, Real, NS>::THREADS, SparseShape<ORDER, Real, NS>::MIN_BLOCKS)
    ader_sparse_kernel(int64_t n, int epb, const Real *__restrict__ pack, const Real *__restrict__ dofs,
                       const Real *__restrict__ star, double dt, Real *__restrict__ tint_out, Real *__restrict__ derivs,
                       Real *__restrict__ lts_buffer, int buffer_reset) {
  using T = SparseShape<ORDER, Real, NS>;
  (void)pack; /* the operators are compiled in */
  SQ_CUDA_SHARED(Real, smem);
  const int64_t e0 = (int64_t)blockIdx.x * epb;
  const int ne = (int)(block_end(n, e0, epb) - e0);
  const int part = NS == 1 ? 0 : threadIdx.x / T::SLOTS, slot = threadIdx.x - part * T::SLOTS;
  /* the slots that round a part up to whole warps only join the barriers */
  const bool active = NS == 1 || slot < 9 * T::E;
  const int el = active ? slot / 9 : 0, p = active ? slot - el * 9 : 0;
  sparse_load<T>(smem + T::OFF_A, dofs + e0 * T::NQ, ne, derivs ? derivs + e0 * T::ORDER * T::NQ : nullptr,
                 T::ORDER * T::NQ);
  int q0, q1, q2;
  Real c[3][3]; /* -A*_d: D^i = -sum_d K_der,d D^{i-1} A*_d^T */
  star_pattern_row(star, e0 + (el < ne ? el : 0), p, Real(-1), q0, q1, q2, c);
  __syncthreads();
  Real tint[T::ROWS];
  Real *mine = smem + T::OFF_A + (el * 9 + p) * T::LDA;
  if (active)
    for_part<NS>(part, [&](auto h) {
      constexpr int H = decltype(h)::value;
      const Real f0 = (Real)dt;
#pragma unroll
      for (int i = 0; i < T::ROWS; ++i) tint[i] = i * NS + H < T::B ? f0 * mine[i * NS + H] : Real(0);
    });
  sparse_steps<T, 1>(smem, part, active, el, p, q0, q1, q2, c, ne, e0, dt, dt, tint, derivs);
  __syncthreads(); /* A is free (the last step's derivatives copy may read it) */
  if (active)
    for_part<NS>(part, [&](auto h) {
      constexpr int H = decltype(h)::value;
#pragma unroll
      for (int i = 0; i < T::ROWS; ++i)
        if (i * NS + H < T::B) mine[i * NS + H] = tint[i];
    });
  __syncthreads();
  sparse_store<T>(smem + T::OFF_A, T::LDA, T::B, ne, tint_out + e0 * T::NQ, T::NQ, false);
  if (lts_buffer) sparse_store<T>(smem + T::OFF_A, T::LDA, T::B, ne, lts_buffer + e0 * T::NQ, T::NQ, !buffer_reset);
}

#ifndef SQ_CUDA_EMULATE
/**
 * Up to this order, a small tile keeps the row-group launcher's small-tile kernels for `local` (the cell kernel at
 * order 2, fine row groups at order 3 in single precision) where the sparse grid would fill fewer than
 * SQ_CUDA_NARROW_MIN_WAVES waves: on a 4 374-element tile those measured faster than the sparse `local`, which wins
 * on large tiles at every order and on small ones from order 4 on (docs/PERFORMANCE.md, "Small clusters").
 */
#ifndef SQ_CUDA_SPARSE_SMALL_MAX_ORDER
#define SQ_CUDA_SPARSE_SMALL_MAX_ORDER 3
#endif

/**
 * Whether a tile of n elements keeps `local`'s cell or fine-row kernel by the small-tile rule above (and the fused
 * predictor its cell or fine-row form).
 */
template <int ORDER, typename Real> inline bool small_tile_keeps_rows(int64_t n) {
  if constexpr (ORDER > SQ_CUDA_SPARSE_SMALL_MAX_ORDER || !sparse_local(ORDER, sizeof(Real))) {
    return false;
  } else {
    using T = LocalShape<ORDER, Real>;
    bool few;
    if constexpr (sparse_local_split(ORDER, sizeof(Real))) {
      using S = SparseLocalShape<ORDER, Real, SQ_CUDA_SPARSE_LOCAL_SPLIT>;
      few = few_waves<S>(local_split_kernel<ORDER, Real>, n, sizeof(Real) * S::SMEM, "local (sparse, split)", ORDER);
    } else {
      using S = SparseLocalShape<ORDER, Real>;
      few = few_waves<S>(local_sparse_kernel<ORDER, Real>, n, sizeof(Real) * S::SMEM, "local (sparse)", ORDER);
    }
    return few &&
           (cell_tile(ORDER, n) || fine_tile<T>(local_kernel<ORDER, Real>, n, sizeof(Real) * T::SMEM, "local", ORDER));
  }
}

/** Whether `local` of a tile of n elements takes the sparse kernel: sparse_local, but for the small-tile rule. */
template <int ORDER, typename Real> inline bool local_takes_sparse(int64_t n) {
  return sparse_local(ORDER, sizeof(Real)) && !small_tile_keeps_rows<ORDER, Real>(n);
}
#endif

} // namespace sq_cuda

#endif
