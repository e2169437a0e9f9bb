/**
 * @file cuda_kernels.cuh  One source for the fused GPU element kernels (thesis §6.3.2), templated on
 * the order and the precision.  The launchers live in ader_cuda.cu, local_cuda.cu, neighbor_cuda.cu
 * and merged_cuda.cu; docs/GPU.md describes the design.
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
 *
 * The same source compiles as plain C++ (SQ_CUDA_EMULATE, tests/cuda_emu/) so that the index
 * arithmetic, the barriers and the alignment of vector accesses can be checked without a GPU.
 */
#ifndef SQ_CUDA_KERNELS_CUH
#define SQ_CUDA_KERNELS_CUH

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SQ_CUDA_EMULATE
#include "sq_cuda_emu.h"
#else
#include <cuda_runtime.h>
#endif

extern "C" {
#include "sq_cuda.h"
}

namespace sq_cuda {

/** Basis size of order O. */
__host__ __device__ constexpr int nbasis(int order) { return order * (order + 1) * (order + 2) / 6; }
__host__ __device__ constexpr int cmin(int a, int b) { return a < b ? a : b; }
__host__ __device__ constexpr int cmax(int a, int b) { return a > b ? a : b; }

/** @p reals of @p rs bytes, padded so that the byte length is 16 past a multiple of 128. */
__host__ __device__ constexpr int pad16(int reals, int rs) { return reals + ((16 - (reals * rs) % 128 + 128) % 128) / rs; }

/** Threads a block aims at, and the shared memory a block may take (bytes). */
#ifndef SQ_CUDA_BLOCK_TARGET
#define SQ_CUDA_BLOCK_TARGET 128
#endif
#ifndef SQ_CUDA_SMEM_BUDGET
#define SQ_CUDA_SMEM_BUDGET (64 * 1024)
#endif
/**
 * The same for large blocks, taken where they measured faster (H100, docs/PERFORMANCE.md, session 7):
 * twice the elements share each staged reference matrix, at two blocks per SM instead of three.
 */
#ifndef SQ_CUDA_BLOCK_TARGET_LARGE
#define SQ_CUDA_BLOCK_TARGET_LARGE 256
#endif
#ifndef SQ_CUDA_SMEM_BUDGET_LARGE
#define SQ_CUDA_SMEM_BUDGET_LARGE (110 * 1024)
#endif
/**
 * The same for the predictor kernel `ader` (not the fused one) where it stages its K_d whole
 * (ader_whole below): 76 KiB lets order 6 in single precision keep 9 elements (126 threads) per block
 * at 3 blocks per SM.  Measured on the H100, 512k elements (docs/PERFORMANCE.md, session 8): order 6
 * 69.3 M updates/s at 64 KiB (7 elements, 4 blocks per SM), 83.0 at 76 KiB, 52.7 with 110 KiB and 256
 * threads (15 elements, 2 blocks per SM); orders 3-5 unchanged (their blocks are bounded by threads).
 */
#ifndef SQ_CUDA_BLOCK_TARGET_ADER
#define SQ_CUDA_BLOCK_TARGET_ADER SQ_CUDA_BLOCK_TARGET
#endif
#ifndef SQ_CUDA_SMEM_BUDGET_ADER
#define SQ_CUDA_SMEM_BUDGET_ADER (76 * 1024)
#endif
/**
 * Orders up to these (single, double precision; the neighbour kernel in single precision) give each
 * thread half as many rows (R = 2 in single, 1 in double precision).  At low orders the elements are
 * small (B = 4, 10, 20): with one 16-byte row group per thread an order-2 element was one thread's
 * serial work.  The neighbour kernel, whose flux matrices come from the read-only cache rather than
 * shared memory, gains on large tiles at every order (it has a wide variant too, for small tiles:
 * neighbor_cuda.cu); ader and local lose from order 5 on (measured, H100: docs/PERFORMANCE.md,
 * session 7).
 */
#ifndef SQ_CUDA_NARROW_MAX_ORDER_SP
#define SQ_CUDA_NARROW_MAX_ORDER_SP 4
#endif
/**
 * The predictor kernel `ader` in single precision: narrow up to order 5 (H100, 512k elements, with its
 * K_d staged whole: order 5 154 -> 165 M updates/s narrow; order 6 81.4 -> 67.2, or 77.8 with 256-thread
 * blocks; docs/PERFORMANCE.md, session 8).
 */
#ifndef SQ_CUDA_NARROW_MAX_ORDER_SP_ADER
#define SQ_CUDA_NARROW_MAX_ORDER_SP_ADER 5
#endif
#ifndef SQ_CUDA_NARROW_MAX_ORDER_SP_NEIGHBOR
#define SQ_CUDA_NARROW_MAX_ORDER_SP_NEIGHBOR 7
#endif
#ifndef SQ_CUDA_NARROW_MAX_ORDER_DP
#define SQ_CUDA_NARROW_MAX_ORDER_DP 0
#endif
/**
 * Single-precision kernels up to this order also come with fine row groups (R = 1, twice the threads
 * per element of the narrow ones), which tiles too small to fill SQ_CUDA_NARROW_MIN_WAVES waves of the
 * default shape take (fine_tile below; SQ_CUDA_FINE_ROWS=0 at run time keeps the default shape).  A
 * small tile at a low order has too few threads to hide latency: 4 374 elements at order 4 give 331
 * threads per SM of the H100 with R = 2.
 */
#ifndef SQ_CUDA_FINE_MAX_ORDER_SP
#define SQ_CUDA_FINE_MAX_ORDER_SP 4
#endif
/** The narrow neighbour kernel above SQ_CUDA_NARROW_MAX_ORDER_SP takes tiles that fill this many waves. */
#ifndef SQ_CUDA_NARROW_MIN_WAVES
#define SQ_CUDA_NARROW_MIN_WAVES 4
#endif
/** Most bytes of one staged chunk of a reference matrix. */
#ifndef SQ_CUDA_XS_BUDGET
#define SQ_CUDA_XS_BUDGET (16 * 1024)
#endif
/**
 * Most bytes of the three derivative matrices K_d, truncated to the rows of D^1, that the predictor
 * stages once for all its Cauchy-Kovalevski steps (with the three star matrices of each element):
 * one barrier per step instead of two per product.  Larger ones (order 7; order 6 in double
 * precision) are staged a chunk at a time per product.  0 stages every order per product.
 */
#ifndef SQ_CUDA_ADER_WHOLE_BUDGET
#define SQ_CUDA_ADER_WHOLE_BUDGET (32 * 1024)
#endif

/** Which kernel a shape is for: the elements per block follow from its shared memory. */
enum Kind { KIND_ADER = 0, KIND_LOCAL = 1, KIND_NEIGHBOR = 2, KIND_PREDICT = 3 };

/**
 * Whether a kernel takes large blocks: order 7, and at order 6 the kernels that apply the seven
 * volume and local-flux matrices (local, and the fused predictor).  Elsewhere they measured slower
 * (`ader` at order 6: 57.5 -> 46.3 M updates/s; orders 2-5).
 */
__host__ __device__ constexpr bool large_blocks(int order, int kind) {
  return order >= 7 || (order == 6 && (kind == KIND_LOCAL || kind == KIND_PREDICT));
}

/**
 * Whether the predictor stages its K_d whole (SQ_CUDA_ADER_WHOLE_BUDGET): from order 3 on, not in the
 * large blocks of the fused predictor.  Measured on the H100 (docs/PERFORMANCE.md, session 8), 512k
 * elements, single precision, `ader` M updates/s per product chunk -> whole: order 3 602 -> 760,
 * order 4 288 -> 409, order 5 116 -> 156, order 6 58.0 -> 69.5; but order 2 1210 -> 648 (the three
 * star matrices per element crowd out elements: 64 -> 38 per block), and the order-6 fused
 * predictor 26.4 -> 23.8 (18 -> 15 elements per block).
 */
__host__ __device__ constexpr bool ader_whole(int order, int kind) {
  return order >= 3 && (kind == KIND_ADER || (kind == KIND_PREDICT && !large_blocks(order, kind)));
}

/**
 * Resident warps per SM that a kernel asks the compiler to make room for (0: no bound): its
 * __launch_bounds__ then asks for enough blocks per SM (Shape::MIN_BLOCKS, at most what the shared
 * memory allows), and the compiler caps the registers to fit them.  Left to itself, ptxas gives `local`
 * at order 6 in single precision 121 registers (2 blocks of 252 threads per SM where the shared memory
 * holds 3), `local` at orders 6 and 7 in double precision 130 (one block per SM), `ader` at order 7 227.
 * Measured on the H100 (docs/PERFORMANCE.md, session 9; 512k elements, 2 CUDA workers, M element
 * updates/s, no bound -> these): order 6 single precision all 22.3 -> 24.0 (local 65.1 -> 71.1), order 5
 * 39.1 -> 45.0, order 7 (256k) 7.92 -> 8.45, order 6 double precision (64k) 7.15 -> 8.78; orders 3 and 4
 * within 2.4 %, and the 4k-element whole steps of orders 4-7 within 2.5 %.  The single-precision
 * neighbour kernel takes its bound only in its large-tile narrow variant at orders above
 * SQ_CUDA_NARROW_MAX_ORDER_SP (order 6: 7 -> 9 blocks of 112 threads, 66 -> 56 registers; alone 59.0 ->
 * 56.5, but the whole step, where it shares the GPU with the other kernels, gains 4 %): its wide variant
 * for small tiles lost 17 % at 4k elements with it (spills), and order 4 lost 7 % at 512k.  The fused
 * predictor has none: at order 6 it gained 5 % at 4k elements, at orders 4 and 7 it lost 16 and 5 %.
 */
#ifndef SQ_CUDA_WARPS_ADER_SP
#define SQ_CUDA_WARPS_ADER_SP 16
#endif
#ifndef SQ_CUDA_WARPS_ADER_DP
#define SQ_CUDA_WARPS_ADER_DP 16
#endif
#ifndef SQ_CUDA_WARPS_LOCAL_SP
#define SQ_CUDA_WARPS_LOCAL_SP 24
#endif
#ifndef SQ_CUDA_WARPS_LOCAL_DP
#define SQ_CUDA_WARPS_LOCAL_DP 16
#endif
#ifndef SQ_CUDA_WARPS_NEIGHBOR_SP
#define SQ_CUDA_WARPS_NEIGHBOR_SP 36
#endif
#ifndef SQ_CUDA_WARPS_NEIGHBOR_DP
#define SQ_CUDA_WARPS_NEIGHBOR_DP 20
#endif
#ifndef SQ_CUDA_WARPS_PREDICT_SP
#define SQ_CUDA_WARPS_PREDICT_SP 0
#endif
#ifndef SQ_CUDA_WARPS_PREDICT_DP
#define SQ_CUDA_WARPS_PREDICT_DP 0
#endif
/** The resident-warp bound of a kernel shape (the macros above; row-group level as in Shape). */
__host__ __device__ constexpr int resident_warps(int kind, int real_size, int order, int level) {
  return real_size == 4 ? (kind == KIND_ADER    ? SQ_CUDA_WARPS_ADER_SP
                           : kind == KIND_LOCAL ? SQ_CUDA_WARPS_LOCAL_SP
                           : kind == KIND_NEIGHBOR
                               ? (level == 1 && order > SQ_CUDA_NARROW_MAX_ORDER_SP ? SQ_CUDA_WARPS_NEIGHBOR_SP : 0)
                               : SQ_CUDA_WARPS_PREDICT_SP)
                        : (kind == KIND_ADER    ? SQ_CUDA_WARPS_ADER_DP
                           : kind == KIND_LOCAL ? SQ_CUDA_WARPS_LOCAL_DP
                           : kind == KIND_NEIGHBOR ? SQ_CUDA_WARPS_NEIGHBOR_DP
                                                   : SQ_CUDA_WARPS_PREDICT_DP);
}
/** Shared memory of an sm_90 multiprocessor, and what each block costs the driver on top of its own. */
#define SQ_CUDA_SM_SMEM (228 * 1024)
#define SQ_CUDA_BLOCK_SMEM_RESERVED 1024

/** Whether a kernel's default shape has narrow row groups (the macros above). */
__host__ __device__ constexpr bool default_narrow(int order, int real_size, int kind) {
  return real_size == 4 ? order <= (kind == KIND_NEIGHBOR ? SQ_CUDA_NARROW_MAX_ORDER_SP_NEIGHBOR
                                    : kind == KIND_ADER   ? SQ_CUDA_NARROW_MAX_ORDER_SP_ADER
                                                          : SQ_CUDA_NARROW_MAX_ORDER_SP)
                        : order <= SQ_CUDA_NARROW_MAX_ORDER_DP;
}

/** Whether kernels of this order and real size have the fine variant (SQ_CUDA_FINE_MAX_ORDER_SP). */
__host__ __device__ constexpr bool has_fine(int order, int real_size) {
  return real_size == 4 && order <= SQ_CUDA_FINE_MAX_ORDER_SP;
}

/**
 * Compile-time shape of one kernel of one order and precision.  NARROW_ overrides the default row
 * groups: 0 wide (one 16-byte vector of rows per thread), 1 narrow (half of one), 2 fine (a quarter:
 * one row in single precision; only where has_fine).
 */
template <int ORDER_, typename Real_, int KIND_, int NARROW_ = -1> struct Shape {
  using Real = Real_;
  static constexpr int ORDER = ORDER_, KIND = KIND_;
  static constexpr int B = nbasis(ORDER);        /**< basis functions */
  static constexpr int B1 = nbasis(ORDER - 1);   /**< non-zero rows of D^1 */
  static constexpr int NQ = B * 9;               /**< reals per element block */
  static constexpr int RS = (int)sizeof(Real);
  static constexpr int LEVEL = NARROW_ >= 0 ? NARROW_ : default_narrow(ORDER, RS, KIND) ? 1 : 0;
  static_assert(LEVEL < 2 || has_fine(ORDER, RS), "fine row groups only where has_fine");
  static constexpr bool NARROW = LEVEL > 0;
  /** rows per thread: one 16-byte vector, or half of one (NARROW), or a quarter (fine) */
  static constexpr int R = cmax(1, (RS == 4 ? 4 : 2) >> LEVEL);
  static constexpr int G = (B + R - 1) / R;      /**< threads per element */
  static constexpr int LDX = G * R;              /**< padded rows of a staged reference matrix */
  static constexpr int S = RS == 4 ? 12 : 10;    /**< padded length of a row of 9 (16-byte multiple) */
  static constexpr int KC = cmax(1, cmin(B, SQ_CUDA_XS_BUDGET / (LDX * RS))); /**< columns per staged chunk */
  /**
   * The predictor's K_d staged whole (rows 0 .. LDK - 1, those of D^1 rounded up to row groups; all
   * B columns; Xs[(d * B + k) * LDK + l]) when they fit SQ_CUDA_ADER_WHOLE_BUDGET, with all three
   * star matrices of each element; else a chunk of KC columns per product, and one star matrix.
   */
  static constexpr int LDK = (B1 + R - 1) / R * R;
  static constexpr bool ADER_WHOLE = ader_whole(ORDER, KIND) && 3 * LDK * B * RS <= SQ_CUDA_ADER_WHOLE_BUDGET;
  static constexpr int NSTAR = ADER_WHOLE ? 3 : 1; /**< star matrices staged per element */
  static constexpr int XS = KIND == KIND_NEIGHBOR ? 0
                            : ADER_WHOLE          ? cmax(3 * LDK * B, KIND == KIND_PREDICT ? LDX * KC : 0)
                                                  : LDX * KC; /**< staged reference matrices, reals */
  /**
   * Element stride of the shared B x 9 (and B1 x 9) blocks: padded to 16 bytes past a multiple of
   * 128, so that the threads of a warp reading the same row k of different elements hit different
   * banks (one wavefront per 128-bit load).
   */
  static constexpr int QS = pad16(B * S, RS), QS1 = pad16(B1 * S, RS);
  /** Shared reals per element: Q-like blocks, one 9x9 matrix, links. */
  static constexpr int PER_ELEMENT = KIND == KIND_NEIGHBOR ? QS + 9 * S + 4 * 16 / RS
                                     : KIND == KIND_LOCAL  ? QS + 9 * S
                                                           : QS + QS1 + NSTAR * 9 * S;
  static constexpr bool LARGE = large_blocks(ORDER, KIND);
  static constexpr int TARGET = LARGE ? SQ_CUDA_BLOCK_TARGET_LARGE
                                : KIND == KIND_ADER && ADER_WHOLE ? SQ_CUDA_BLOCK_TARGET_ADER : SQ_CUDA_BLOCK_TARGET;
  static constexpr int BUDGET = LARGE ? SQ_CUDA_SMEM_BUDGET_LARGE
                                : KIND == KIND_ADER && ADER_WHOLE ? SQ_CUDA_SMEM_BUDGET_ADER : SQ_CUDA_SMEM_BUDGET;
  /** elements per block */
  static constexpr int E = cmax(1, cmin(cmax(1, TARGET / G), (BUDGET / RS - XS) / PER_ELEMENT));
  static constexpr int THREADS = G * E;
  static constexpr int IS = E * QS;   /**< one B x 9 block per element */
  static constexpr int IS1 = E * QS1; /**< a D^1-sized block per element */
  static constexpr int MS = E * 9 * S;   /**< one 9 x 9 matrix per element (NSTAR of them at OFF_MS) */
  /* regions, in reals from the block's base; each a multiple of 16 bytes */
  static constexpr int OFF_XS = 0, OFF_EVEN = XS, OFF_ODD = OFF_EVEN + IS;
  static constexpr int OFF_MS = KIND == KIND_NEIGHBOR || KIND == KIND_LOCAL ? XS + IS : OFF_ODD + IS1;
  static constexpr int OFF_LINKS = OFF_MS + NSTAR * MS; /**< neighbour kernel: E x 4 sq_face_link */
  static constexpr int SMEM = E * PER_ELEMENT + XS;
  /**
   * Blocks an SM should hold at least (__launch_bounds__; resident_warps), no more than its shared
   * memory takes.  0 where the kernel has no bound: no .minnctapersm at all, which leaves the registers
   * to the compiler (a bound of 1 block is not the same: ptxas then gave the neighbour kernel at order
   * 6 in single precision 91 registers instead of 66, and `local` 46.5 instead of 65.1 M updates/s).
   */
  static constexpr int WARPS = (THREADS + 31) / 32, WANT_WARPS = resident_warps(KIND, RS, ORDER, LEVEL);
  static constexpr int MIN_BLOCKS = WANT_WARPS <= 0 ? 0
                                                    : cmax(1, cmin((WANT_WARPS + WARPS - 1) / WARPS,
                                                                   SQ_CUDA_SM_SMEM / (SMEM * RS + SQ_CUDA_BLOCK_SMEM_RESERVED)));
  static_assert((XS * RS) % 16 == 0 && (IS * RS) % 16 == 0 && (IS1 * RS) % 16 == 0 && (MS * RS) % 16 == 0,
                "shared regions must stay 16-byte aligned");
};

/** Alignment of a vector of @p bytes: 16, or the largest power of two that divides a shorter one. */
__host__ __device__ constexpr int vector_align(int bytes) { return bytes % 16 == 0 ? 16 : bytes % 8 == 0 ? 8 : 4; }

/** Register array of N reals, loaded or stored as one vector access (16 bytes, or 8 or 4 for short rows). */
template <typename Real, int N> struct alignas(vector_align(N * (int)sizeof(Real))) Row {
  Real v[N];
};

#ifdef SQ_CUDA_EMULATE
#define SQ_CUDA_ALIGNED(p, align)                                                                    \
  do {                                                                                               \
    if ((uintptr_t)(p) % (align)) {                                                                  \
      fprintf(stderr, "misaligned vector access %p at %s:%d\n", (const void *)(p), __FILE__, __LINE__); \
      abort();                                                                                       \
    }                                                                                                \
  } while (0)
#else
#define SQ_CUDA_ALIGNED(p, align) ((void)0)
#endif

/* ---- helpers ------------------------------------------------------------------------------- */

/** Load N reals from memory aligned as Row<Real, N> (one vector access). */
template <typename Real, int N> __device__ __forceinline__ Row<Real, N> load_row(const Real *p) {
  SQ_CUDA_ALIGNED(p, alignof(Row<Real, N>));
  return *reinterpret_cast<const Row<Real, N> *>(p);
}

/** Store N reals to memory aligned as Row<Real, N> (one vector access). */
template <typename Real, int N> __device__ __forceinline__ void store_row(Real *p, const Row<Real, N> &r) {
  SQ_CUDA_ALIGNED(p, alignof(Row<Real, N>));
  *reinterpret_cast<Row<Real, N> *>(p) = r;
}

/** Zero a register tile of RR rows. */
template <typename Real, int RR> __device__ __forceinline__ void zero(Real (&a)[RR][9]) {
#pragma unroll
  for (int i = 0; i < RR; ++i)
#pragma unroll
    for (int q = 0; q < 9; ++q) a[i][q] = Real(0);
}

/**
 * Rows row0 .. row0 + R - 1 of all 9 columns of an element's B x 9 block in global memory (column
 * major, basis index fastest); rows >= B read as 0.  Vector access when columns are 16-byte aligned.
 */
template <class T>
__device__ __forceinline__ void global_load_rows(const typename T::Real *__restrict__ elem, int row0,
                                                 typename T::Real (&v)[T::R][9]) {
  using Real = typename T::Real;
#pragma unroll
  for (int q = 0; q < 9; ++q) {
    if constexpr (T::B % T::R == 0) {
      const Row<Real, T::R> r = load_row<Real, T::R>(elem + q * T::B + row0);
#pragma unroll
      for (int i = 0; i < T::R; ++i) v[i][q] = r.v[i];
    } else {
#pragma unroll
      for (int i = 0; i < T::R; ++i) v[i][q] = row0 + i < T::B ? elem[q * T::B + row0 + i] : Real(0);
    }
  }
}

/** Store rows row0 .. row0 + R - 1 (those < B) of all 9 columns of an element's block in global memory. */
template <class T>
__device__ __forceinline__ void global_store_rows(typename T::Real *__restrict__ elem, int row0,
                                                  const typename T::Real (&v)[T::R][9]) {
  using Real = typename T::Real;
#pragma unroll
  for (int q = 0; q < 9; ++q) {
    if constexpr (T::B % T::R == 0) {
      Row<Real, T::R> r;
#pragma unroll
      for (int i = 0; i < T::R; ++i) r.v[i] = v[i][q];
      store_row(elem + q * T::B + row0, r);
    } else {
#pragma unroll
      for (int i = 0; i < T::R; ++i)
        if (row0 + i < T::B) elem[q * T::B + row0 + i] = v[i][q];
    }
  }
}

/**
 * For idx = threadIdx.x, + THREADS, ... < total: store(idx, load(idx)), with the loads of
 * SQ_CUDA_STAGE_BATCH consecutive iterations issued before their stores.  The staging loops below all
 * go through it.  Batches of 4 measured slower than 1 on the H100 (512k elements, single precision,
 * M updates/s: order 6 `ader` 81.5 -> 68.9, `local` 65.2 -> 63.6, order 2 `all` 179 -> 135;
 * docs/PERFORMANCE.md, session 8): the other blocks of an SM already hide the staging's latency.
 */
#ifndef SQ_CUDA_STAGE_BATCH
#define SQ_CUDA_STAGE_BATCH 1
#endif
template <class T, class Load, class Store>
__device__ __forceinline__ void copy_batched(int total, Load load, Store store) {
  using Real = typename T::Real;
  constexpr int U = SQ_CUDA_STAGE_BATCH;
  for (int base = threadIdx.x; base < total; base += U * T::THREADS) {
    Real v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = base + u * T::THREADS < total ? load(base + u * T::THREADS) : Real(0);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (base + u * T::THREADS < total) store(base + u * T::THREADS, v[u]);
  }
}

/** elem(rows row0 .. row0 + R - 1, :) += acc: an element's update added to its block in global memory. */
template <class T>
__device__ __forceinline__ void global_add_rows(typename T::Real *__restrict__ elem, int row0,
                                                const typename T::Real (&acc)[T::R][9]) {
  typename T::Real q[T::R][9];
  global_load_rows<T>(elem, row0, q);
#pragma unroll
  for (int i = 0; i < T::R; ++i)
#pragma unroll
    for (int p = 0; p < 9; ++p) q[i][p] += acc[i][p];
  global_store_rows<T>(elem, row0, q);
}

/**
 * Copy the B x 9 blocks of the block's elements e0 .. n - 1 (at most E, contiguous in global memory)
 * into shared rows [el][k][S].  The rows of the block's other element slots are left as they are:
 * no thread stores a result computed from them.  Called by all threads of the block.
 */
template <class T>
__device__ __forceinline__ void stage_blocks(const typename T::Real *__restrict__ src, int64_t e0, int64_t n,
                                             typename T::Real *dst) {
  const int ne = (int)(n - e0); /* the block's end: at most E */
  const typename T::Real *__restrict__ s = src + e0 * T::NQ;
  copy_batched<T>(
      ne * T::NQ, [&](int idx) { return s[idx]; },
      [&](int idx, typename T::Real v) {
        const int el = idx / T::NQ, rem = idx - el * T::NQ, q = rem / T::B, k = rem - q * T::B;
        dst[el * T::QS + k * T::S + q] = v;
      });
}

/**
 * Copy 9 x 9 matrix number @p mat of the @p nmat row-major matrices per element, for the block's
 * elements e0 .. n - 1, into shared rows [el][p][S], times @p scale (other slots as in stage_blocks).
 */
template <class T>
__device__ __forceinline__ void stage_matrix(const typename T::Real *__restrict__ src, int nmat, int mat,
                                             typename T::Real scale, int64_t e0, int64_t n, typename T::Real *dst) {
  const int ne = (int)(n - e0); /* the block's end: at most E */
  copy_batched<T>(
      ne * 81,
      [&](int idx) {
        const int el = idx / 81, pq = idx - el * 81;
        return scale * src[((e0 + el) * nmat + mat) * 81 + pq];
      },
      [&](int idx, typename T::Real v) {
        const int el = idx / 81, pq = idx - el * 81, p = pq / 9, q = pq - p * 9;
        dst[(el * 9 + p) * T::S + q] = v;
      });
}

/**
 * Y += Xs(row0 .. row0 + RR - 1, 0 .. nin - 1) Q(k0 .. k0 + nin - 1, :) for a matrix staged in shared
 * memory as Xs[k * ld + l] (its columns from k0 on, for a chunk) and Q in shared rows of S reals: a
 * thread's RR rows are one vector load per k, the Q row a broadcast.  The one inner loop of every
 * product from shared memory (product, the whole-staged predictor, the factorised neighbour kernel).
 */
template <typename Real, int RR, int S>
__device__ __forceinline__ void fold_rows(const Real *Xs, int ld, const Real *Q, int k0, int row0, int nin,
                                          Real (&Y)[RR][9]) {
#pragma unroll 2
  for (int k = 0; k < nin; ++k) {
    const Row<Real, RR> x = load_row<Real, RR>(Xs + k * ld + row0);
    const Row<Real, S> v = load_row<Real, S>(Q + (k0 + k) * S);
#pragma unroll
    for (int i = 0; i < RR; ++i)
#pragma unroll
      for (int q = 0; q < 9; ++q) Y[i][q] = fma(x.v[i], v.v[q], Y[i][q]);
  }
}

/**
 * Y = X(row0 .. row0 + R - 1, 0 .. NIN - 1) Q(0 .. NIN - 1, :) for the B x B column-major reference
 * matrix X in global memory, rows >= NOUT taken as zero.  X is staged into @p Xs a chunk of KC
 * columns at a time as Xs[k * LDX + l]; all threads of the block take part in the staging and the
 * barriers, those with @p compute false skip the arithmetic.  @p mat_src/@p Ms: a 9 x 9 matrix per
 * element staged with the first chunk (stage_matrix arguments), or mat_src NULL.
 */
template <class T, int NOUT, int NIN>
__device__ __forceinline__ void product(const typename T::Real *__restrict__ X, const typename T::Real *Q, int row0,
                                        bool compute, typename T::Real (&Y)[T::R][9], typename T::Real *Xs,
                                        const typename T::Real *__restrict__ mat_src, int nmat, int mat,
                                        typename T::Real scale, int64_t e0, int64_t n, typename T::Real *Ms) {
  using Real = typename T::Real;
  zero(Y);
  for (int k0 = 0; k0 < NIN; k0 += T::KC) {
    const int kc = cmin(T::KC, NIN - k0);
    __syncthreads(); /* Xs (and Ms) free */
    copy_batched<T>(
        kc * T::LDX,
        [&](int idx) {
          const int k = idx / T::LDX, l = idx - k * T::LDX;
          return l < NOUT ? X[(k0 + k) * T::B + l] : Real(0);
        },
        [&](int idx, Real v) { Xs[idx] = v; });
    if (k0 == 0 && mat_src) stage_matrix<T>(mat_src, nmat, mat, scale, e0, n, Ms);
    __syncthreads();
    if (compute) fold_rows<Real, T::R, T::S>(Xs, T::LDX, Q, k0, row0, kc, Y);
  }
}

/**
 * Unrolling of the neighbour kernel's loop over the B columns of F+ (product_global): how many
 * columns' global loads the compiler may issue ahead.  Nsight Compute found 47 % of that kernel's
 * stalls waiting on them (order 6, session 9).  The whole loop (B columns) where B <= 48 and in double
 * precision, else 28.  Measured (docs/PERFORMANCE.md, session 10; 512k elements unless noted, M element
 * updates/s of the whole step, unrolling 2 -> this): H100 order 6 single 23.97 -> 25.49 (45.1 % of the
 * FP32 peak; the neighbour kernel alone 56.6 -> 78.4); H200 order 6 single 24.06 -> 25.54 (full
 * unrolling 25.16, 14 columns 25.43), order 5 45.4 -> 49.8 (28 columns: 47.8), order 7 (256k) 8.43 ->
 * 8.93, order 4 97.6 -> 102.4, order 6 double (64k) 8.87 -> 9.18 (14 or 28 columns lost: 8.20, 8.09).
 * The arithmetic and its order do not change (tests/test_cuda_emu.sh checks unrolling 2 gives the
 * same report).
 * SQ_CUDA_GLOBAL_UNROLL=N (> 0) sets it for every shape, for experiments.
 */
#ifndef SQ_CUDA_GLOBAL_UNROLL
#define SQ_CUDA_GLOBAL_UNROLL 0
#endif
__host__ __device__ constexpr int global_unroll(int b, int real_size) {
  return SQ_CUDA_GLOBAL_UNROLL > 0 ? SQ_CUDA_GLOBAL_UNROLL : real_size == 8 || b <= 48 ? b : 28;
}

/** Y = X(rows, :) Q with the B x B column-major X read from global memory through the read-only cache. */
template <class T>
__device__ __forceinline__ void product_global(const typename T::Real *__restrict__ X, const typename T::Real *Q,
                                               int row0, typename T::Real (&Y)[T::R][9]) {
  using Real = typename T::Real;
  zero(Y);
  constexpr int U = global_unroll(T::B, T::RS);
#pragma unroll U
  for (int k = 0; k < T::B; ++k) {
    Real x[T::R];
    if constexpr (T::B % T::R == 0) {
      const Row<Real, T::R> r = load_row<Real, T::R>(X + k * T::B + row0);
#pragma unroll
      for (int i = 0; i < T::R; ++i) x[i] = r.v[i];
    } else {
#pragma unroll
      for (int i = 0; i < T::R; ++i) x[i] = __ldg(X + k * T::B + (row0 + i < T::B ? row0 + i : T::B - 1));
    }
    const Row<Real, T::S> v = load_row<Real, T::S>(Q + k * T::S);
#pragma unroll
    for (int i = 0; i < T::R; ++i)
#pragma unroll
      for (int q = 0; q < 9; ++q) Y[i][q] = fma(x[i], v.v[q], Y[i][q]);
  }
}

/**
 * Stage the three derivative matrices K_d (pack, B x B column-major) for ADER_WHOLE shapes: rows
 * 0 .. LDK - 1 (those >= B1, the non-zero rows of D^1, as 0), all B columns, as
 * Xs[(d * B + k) * LDK + l].  Called by all threads of the block; the caller syncs.
 */
template <class T>
__device__ __forceinline__ void stage_kder(const typename T::Real *__restrict__ pack, typename T::Real *Xs) {
  using Real = typename T::Real;
  copy_batched<T>(
      3 * T::B * T::LDK,
      [&](int idx) {
        const int col = idx / T::LDK, l = idx - col * T::LDK; /* col = d * B + k */
        return l < T::B1 ? pack[SQ_PACK_KDER * T::B * T::B + col * T::B + l] : Real(0);
      },
      [&](int idx, Real v) { Xs[idx] = v; });
}

/** acc(i, p) += sum_q Y(i, q) M(p, q) over RR rows: M a 9 x 9 matrix in shared rows of S (already signed). */
template <int S, typename Real, int RR>
__device__ __forceinline__ void apply_star(const Real (&Y)[RR][9], const Real *M, Real (&acc)[RR][9]) {
#pragma unroll
  for (int p = 0; p < 9; ++p) {
    const Row<Real, S> m = load_row<Real, S>(M + p * S);
#pragma unroll
    for (int i = 0; i < RR; ++i)
#pragma unroll
      for (int q = 0; q < 9; ++q) acc[i][p] = fma(Y[i][q], m.v[q], acc[i][p]);
  }
}

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
                                          const typename T::Real *__restrict__ star, typename T::Real *smem,
                                          int64_t e0, int64_t n, int el, int row0, bool active, double dt,
                                          double factor, typename T::Real (&tint)[T::R][9],
                                          typename T::Real *__restrict__ derivs) {
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
          apply_star<T::S>(Y, smem + T::OFF_MS + (d * T::E + cel) * 9 * T::S, D); /* star staged negated */
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
        product<T, NOUT, NIN>(pack + (SQ_PACK_KDER + d) * T::B * T::B, smem + CUR + cel * CUR_STRIDE, crow0, compute,
                              Y, smem + T::OFF_XS, star, 3, d, Real(-1), e0, n, smem + T::OFF_MS);
        if (compute) apply_star<T::S>(Y, smem + T::OFF_MS + cel * 9 * T::S, D); /* star staged negated */
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
__device__ __forceinline__ void ader_body(int64_t e0, int64_t n, const typename T::Real *__restrict__ pack,
                                          const typename T::Real *__restrict__ dofs,
                                          const typename T::Real *__restrict__ star, double dt,
                                          typename T::Real *__restrict__ tint_out,
                                          typename T::Real *__restrict__ derivs,
                                          typename T::Real *__restrict__ lts_buffer, int buffer_reset,
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
    if (m < 3)
      product<T, T::B, T::B>(pack + (SQ_PACK_KVOL + m) * T::B * T::B, Is, row0, active, Y, smem + T::OFF_XS, star, 3,
                             m, Real(1), e0, n, smem + T::OFF_MS);
    else
      product<T, T::B, T::B>(pack + (SQ_PACK_FLOCAL + m - 3) * T::B * T::B, Is, row0, active, Y, smem + T::OFF_XS,
                             flux_local, 4, m - 3, Real(-1), e0, n, smem + T::OFF_MS);
    if (active) apply_star<T::S>(Y, smem + T::OFF_MS + el * 9 * T::S, acc);
  }
  if (active) global_add_rows<T>(dofs + e * T::NQ, row0, acc);
}

/* ---- kernels ----------------------------------------------------------------------------------- */

/** Dynamic shared memory of the block, 16-byte aligned. */
#ifdef SQ_CUDA_EMULATE
#define SQ_CUDA_SHARED(type, name) type *name = reinterpret_cast<type *>(sq_emu_shared())
#else
#define SQ_CUDA_SHARED(type, name)                                                                   \
  extern __shared__ __align__(16) unsigned char sq_cuda_smem_bytes[];                               \
  type *name = reinterpret_cast<type *>(sq_cuda_smem_bytes)
#endif

template <int ORDER, typename Real, int NARROW = -1> using AderShape = Shape<ORDER, Real, KIND_ADER, NARROW>;
template <int ORDER, typename Real, int NARROW = -1> using LocalShape = Shape<ORDER, Real, KIND_LOCAL, NARROW>;
template <int ORDER, typename Real, int NARROW = -1> using NeighborShape = Shape<ORDER, Real, KIND_NEIGHBOR, NARROW>;
template <int ORDER, typename Real, int NARROW = -1> using PredictShape = Shape<ORDER, Real, KIND_PREDICT, NARROW>;

/**
 * Every element kernel takes blocks of @p epb <= E consecutive elements (grid: ceil(n / epb) blocks of
 * THREADS; grid_for below): E, or fewer where E would leave multiprocessors without a block.  The
 * block's elements are e0 .. block_end - 1; its thread slots past them only take part in the staging
 * and the barriers.
 */
__device__ __forceinline__ int64_t block_end(int64_t n, int64_t e0, int epb) { return n < e0 + epb ? n : e0 + epb; }

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
__device__ __forceinline__ void predict_block(int64_t e0, int64_t nb, const typename T::Real *__restrict__ pack,
                                              typename T::Real *__restrict__ dofs,
                                              const typename T::Real *__restrict__ star,
                                              const typename T::Real *__restrict__ flux_local, double dt,
                                              typename T::Real *__restrict__ tint, typename T::Real *__restrict__ derivs,
                                              typename T::Real *__restrict__ lts_buffer, int buffer_reset,
                                              typename T::Real *smem) {
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
__global__ void __launch_bounds__(PredictShape<ORDER, Real, NARROW>::THREADS, PredictShape<ORDER, Real, NARROW>::MIN_BLOCKS)
    predict_kernel(int64_t n, int epb, const Real *__restrict__ pack, Real *__restrict__ dofs,
                   const Real *__restrict__ star, const Real *__restrict__ flux_local, double dt,
                   Real *__restrict__ tint, Real *__restrict__ derivs, Real *__restrict__ lts_buffer,
                   int buffer_reset) {
  using T = PredictShape<ORDER, Real, NARROW>;
  SQ_CUDA_SHARED(Real, smem);
  const int64_t e0 = (int64_t)blockIdx.x * epb;
  predict_block<T>(e0, block_end(n, e0, epb), pack, dofs, star, flux_local, dt, tint, derivs, lts_buffer,
                   buffer_reset, smem);
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
__global__ void __launch_bounds__(PredictShape<ORDER, Real, NARROW>::THREADS, PredictShape<ORDER, Real, NARROW>::MIN_BLOCKS)
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
__global__ void __launch_bounds__(NeighborShape<ORDER, Real, NARROW>::THREADS, NeighborShape<ORDER, Real, NARROW>::MIN_BLOCKS)
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

/* ---- host side: dispatch over order and precision, launch checks -------------------------------- */
#ifndef SQ_CUDA_EMULATE

/** Abort with a message naming the kernel when its launch failed (bad configuration, no device, ...). */
inline void check_launch(const char *kernel, int order, sq_precision prec, int64_t n) {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return;
  fprintf(stderr, "starquake: CUDA kernel %s (order %d, %s precision, %lld elements) failed: %s (%s)\n", kernel,
          order, prec == SQ_F64 ? "double" : "single", (long long)n, cudaGetErrorString(err), cudaGetErrorName(err));
  abort();
}

/**
 * Raise a kernel's dynamic shared-memory limit above the default 48 KiB, once per device.  Templated
 * on the shape T (order, precision, kind) so that each kernel has its own flags: kernels of
 * different orders share one function type.
 */
/** The current device, as an index into the per-device tables below (0 where it cannot be told). */
inline int current_device() {
  int dev = 0;
  return cudaGetDevice(&dev) == cudaSuccess && dev >= 0 && dev < 64 ? dev : 0;
}

template <class T, typename Kernel> inline void allow_shared(Kernel kernel, size_t bytes, const char *name, int order) {
  if (bytes <= 48 * 1024) return;
  const int dev = current_device();
  static bool done[64]; /* per T; a repeated call is harmless */
  if (done[dev]) return;
  const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
  if (err != cudaSuccess) {
    fprintf(stderr, "starquake: CUDA kernel %s (order %d) needs %zu bytes of shared memory: %s\n", name, order, bytes,
            cudaGetErrorString(err));
    abort();
  }
  done[dev] = true;
}

/** Launch shape of an element kernel: blocks of epb elements. */
struct Grid {
  unsigned blocks;
  int epb;
};

/**
 * Blocks of the kernel @p kernel (shape T, @p smem bytes of shared memory) that all multiprocessors of
 * the current device hold at once.  Raises the kernel's shared-memory limit first (allow_shared), which
 * the occupancy depends on.
 */
template <class T, typename Kernel> inline int64_t wave_of(Kernel kernel, size_t smem, const char *name, int order) {
  allow_shared<T>(kernel, smem, name, order);
  const int dev = current_device();
  static int wave[64]; /* per T and device; a repeated computation is harmless */
  if (!wave[dev]) {
    int sms = 0, per_sm = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T::THREADS, smem) != cudaSuccess)
      sms = per_sm = 1;
    wave[dev] = sms * per_sm > 1 ? sms * per_sm : 1;
  }
  return wave[dev];
}

/**
 * Grid of the kernel @p kernel of shape T over n elements (also raises its shared-memory limit).
 * Blocks of E elements, unless that gives fewer blocks than one wave (the blocks of this kernel that
 * all multiprocessors hold at once, from its shared memory and threads): then blocks of
 * ceil(n / wave) elements, so that a small cluster spreads over every multiprocessor instead of
 * leaving most of them idle (at order 2, E = 77: 57 blocks of 4 374 elements on 132 SMs).  Every
 * element's arithmetic is the same either way.  SQ_CUDA_SMALL_BLOCKS=0 keeps E elements per block.
 */
template <class T, typename Kernel>
inline Grid grid_for(Kernel kernel, int64_t n, size_t smem, const char *name, int order) {
  const int64_t full = (n + T::E - 1) / T::E;
  static const bool small_blocks = [] {
    const char *v = getenv("SQ_CUDA_SMALL_BLOCKS");
    return !(v && !strcmp(v, "0"));
  }();
  const int64_t wave = wave_of<T>(kernel, smem, name, order);
  if (!small_blocks || full >= wave || n <= 0) return {(unsigned)full, T::E};
  const int epb = (int)((n + wave - 1) / wave);
  return {(unsigned)((n + epb - 1) / epb), epb};
}

/**
 * Whether the kernel @p kernel of shape T (@p smem bytes) would fill fewer than
 * SQ_CUDA_NARROW_MIN_WAVES waves of resident blocks with a tile of n elements in blocks of E: the
 * test by which a small tile takes a variant with more threads per element (fine_tile, and the
 * neighbour kernel's wide/narrow choice in neighbor_cuda.cu).
 */
template <class T, typename Kernel>
inline bool few_waves(Kernel kernel, int64_t n, size_t smem, const char *name, int order) {
  return (n + T::E - 1) / T::E < SQ_CUDA_NARROW_MIN_WAVES * wave_of<T>(kernel, smem, name, order);
}

/**
 * Whether a tile of n elements takes the fine variant of a kernel whose default shape is T (launched
 * as @p kernel with @p smem bytes): where has_fine, and few_waves.  SQ_CUDA_FINE_ROWS=0 turns it off.
 * Every row is summed in the same order in every variant: the results are bitwise the same.
 */
template <class T, typename Kernel>
inline bool fine_tile(Kernel kernel, int64_t n, size_t smem, const char *name, int order) {
  if constexpr (!has_fine(T::ORDER, T::RS)) {
    return false;
  } else {
    static const bool on = [] {
      const char *v = getenv("SQ_CUDA_FINE_ROWS");
      return !(v && !strcmp(v, "0"));
    }();
    return on && T::LEVEL < 2 && few_waves<T>(kernel, n, smem, name, order);
  }
}

/**
 * Call Launch<ORDER, Real>::run(args...) for the run-time order and precision: the one switch that
 * instantiates every kernel for orders 2..7 in single and double precision.
 */
template <template <int, typename> class Launch, typename... Args>
inline void dispatch(const char *name, sq_precision prec, int order, Args... args) {
  switch (order) {
#define SQ_CUDA_CASE(O)                                                                              \
  case O:                                                                                            \
    if (prec == SQ_F64) Launch<O, double>::run(args...);                                             \
    else Launch<O, float>::run(args...);                                                             \
    break;
    SQ_CUDA_CASE(2)
    SQ_CUDA_CASE(3)
    SQ_CUDA_CASE(4)
    SQ_CUDA_CASE(5)
    SQ_CUDA_CASE(6)
    SQ_CUDA_CASE(7)
#undef SQ_CUDA_CASE
  default:
    fprintf(stderr, "starquake: CUDA kernel %s: order %d is outside %d..%d\n", name, order, SQ_ORDER_MIN,
            SQ_ORDER_MAX);
    abort();
  }
}

#endif /* !SQ_CUDA_EMULATE */

} // namespace sq_cuda

#endif
