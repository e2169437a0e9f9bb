/**
 * @file cuda_shape.cuh  Compile-time shapes of the GPU element kernels of cuda_kernels.cuh: threads per
 * element, rows per thread, elements per block and the layout of a block's shared memory, for each
 * order, precision and kernel, and the tuning constants they follow from (each a macro, so that a
 * build may set it with -D).
 *
 * The same source compiles as plain C++ (SQ_CUDA_EMULATE, tests/cuda_emu/) so that the index
 * arithmetic, the barriers and the alignment of vector accesses can be checked without a GPU.
 */
#ifndef SQ_CUDA_SHAPE_CUH
#define SQ_CUDA_SHAPE_CUH

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef SQ_CUDA_EMULATE
#include "sq_cuda_emu.h"
#else
#include <cuda_runtime.h>
#endif

extern "C" {
#include "sq_cuda.h"
#include "sq_physics.h"
}

namespace sq_cuda {

/** Basis size of order O. */
__host__ __device__ constexpr int nbasis(int order) { return order * (order + 1) * (order + 2) / 6; }
__host__ __device__ constexpr int cmin(int a, int b) { return a < b ? a : b; }
__host__ __device__ constexpr int cmax(int a, int b) { return a > b ? a : b; }

/** @p reals of @p rs bytes, padded so that the byte length is 16 past a multiple of 128. */
__host__ __device__ constexpr int pad16(int reals, int rs) {
  return reals + ((16 - (reals * rs) % 128 + 128) % 128) / rs;
}

/** Threads a block aims at, and the shared memory a block may take (bytes). */
#ifndef SQ_CUDA_BLOCK_TARGET
#define SQ_CUDA_BLOCK_TARGET 128
#endif
#ifndef SQ_CUDA_SMEM_BUDGET
#define SQ_CUDA_SMEM_BUDGET (64 * 1024)
#endif
/**
 * The same for large blocks, taken where they measured faster (docs/PERFORMANCE.md): twice the
 * elements share each staged reference matrix, at two blocks per SM instead of three.
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
 * at 3 blocks per SM, which measured faster than 64 KiB (7 elements, 4 blocks per SM) and than 110 KiB
 * with 256 threads (15 elements, 2 blocks per SM); orders 3-5 are bounded by threads, not by this.
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
 * neighbor_cuda.cu); ader and local lose from order 5 on (docs/PERFORMANCE.md).
 */
#ifndef SQ_CUDA_NARROW_MAX_ORDER_SP
#define SQ_CUDA_NARROW_MAX_ORDER_SP 4
#endif
/**
 * The predictor kernel `ader` in single precision: narrow up to order 5 (with its K_d staged whole,
 * narrow rows gain at order 5 and lose at order 6; docs/PERFORMANCE.md).
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
 * default shape take (fine_tile, cuda_launch.cuh).  A small tile at a low order has too few threads
 * to hide latency: a few thousand elements at order 4 give a few hundred threads per SM with R = 2.
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
 * (`ader` at order 6; orders 2-5).
 */
__host__ __device__ constexpr bool large_blocks(int order, int kind) {
  return order >= 7 || (order == 6 && (kind == KIND_LOCAL || kind == KIND_PREDICT));
}

/**
 * Whether the predictor stages its K_d whole (SQ_CUDA_ADER_WHOLE_BUDGET): from order 3 on, not in the
 * large blocks of the fused predictor.  Whole staging is faster than a chunk per product at orders 3-6
 * (docs/PERFORMANCE.md), but not at order 2, where the three star matrices per element crowd out
 * elements (64 -> 38 per block), nor in the order-6 fused predictor (18 -> 15 elements per block).
 */
__host__ __device__ constexpr bool ader_whole(int order, int kind) {
  return order >= 3 && (kind == KIND_ADER || (kind == KIND_PREDICT && !large_blocks(order, kind)));
}

/**
 * Resident warps per SM that a kernel asks the compiler to make room for (0: no bound): its
 * __launch_bounds__ then asks for enough blocks per SM (Shape::MIN_BLOCKS, at most what the shared
 * memory allows), and the compiler caps the registers to fit them.  Left to itself, ptxas gives `local`
 * at order 6 in single precision so many registers that 2 blocks per SM fit where the shared memory
 * holds 3, `local` at orders 6 and 7 in double precision one block per SM, and `ader` at order 7 over
 * 200 registers.  The bounds gain at orders 5-7 in both precisions and are neutral at orders 3 and 4
 * (docs/PERFORMANCE.md).  The single-precision neighbour kernel takes its bound only in its large-tile
 * narrow variant at orders above SQ_CUDA_NARROW_MAX_ORDER_SP: alone it is a little slower, but the
 * whole step, where it shares the GPU with the other kernels, gains; its wide variant for small tiles
 * spills with it, and order 4 loses.  The fused predictor has none: it lost at orders 4 and 7.
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
/**
 * The double-precision neighbour kernel from order SQ_CUDA_WARPS_NEIGHBOR_DP_HIGH_ORDER on: 16 warps leave it the
 * registers it needs there.  On an H100, 511 104 elements, 16 against 20 warps: order 6 13.3 against 16.4 ms,
 * order 7 25.4 against 31.8 ms; 24 warps: 16.6 ms at order 6 (docs/PERFORMANCE.md).  A launch bound changes the
 * register allocation only, not the arithmetic.
 */
#ifndef SQ_CUDA_WARPS_NEIGHBOR_DP_HIGH
#define SQ_CUDA_WARPS_NEIGHBOR_DP_HIGH 16
#endif
#ifndef SQ_CUDA_WARPS_NEIGHBOR_DP_HIGH_ORDER
#define SQ_CUDA_WARPS_NEIGHBOR_DP_HIGH_ORDER 6
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
                           : kind == KIND_NEIGHBOR
                               ? (order >= SQ_CUDA_WARPS_NEIGHBOR_DP_HIGH_ORDER ? SQ_CUDA_WARPS_NEIGHBOR_DP_HIGH
                                                                                : SQ_CUDA_WARPS_NEIGHBOR_DP)
                               : SQ_CUDA_WARPS_PREDICT_DP);
}
/** Shared memory of an sm_90 multiprocessor, and what each block costs the driver on top of its own. */
#define SQ_CUDA_SM_SMEM             (228 * 1024)
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
  static constexpr int B = nbasis(ORDER);      /**< basis functions */
  static constexpr int B1 = nbasis(ORDER - 1); /**< non-zero rows of D^1 */
  static constexpr int NQ = B * 9;             /**< reals per element block */
  static constexpr int RS = (int)sizeof(Real);
  static constexpr int LEVEL = NARROW_ >= 0 ? NARROW_ : default_narrow(ORDER, RS, KIND) ? 1 : 0;
  static_assert(LEVEL < 2 || has_fine(ORDER, RS), "fine row groups only where has_fine");
  static constexpr bool NARROW = LEVEL > 0;
  /** rows per thread: one 16-byte vector, or half of one (NARROW), or a quarter (fine) */
  static constexpr int R = cmax(1, (RS == 4 ? 4 : 2) >> LEVEL);
  static constexpr int G = (B + R - 1) / R;   /**< threads per element */
  static constexpr int LDX = G * R;           /**< padded rows of a staged reference matrix */
  static constexpr int S = RS == 4 ? 12 : 10; /**< padded length of a row of 9 (16-byte multiple) */
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
  static constexpr int TARGET = LARGE                             ? SQ_CUDA_BLOCK_TARGET_LARGE
                                : KIND == KIND_ADER && ADER_WHOLE ? SQ_CUDA_BLOCK_TARGET_ADER
                                                                  : SQ_CUDA_BLOCK_TARGET;
  static constexpr int BUDGET = LARGE                             ? SQ_CUDA_SMEM_BUDGET_LARGE
                                : KIND == KIND_ADER && ADER_WHOLE ? SQ_CUDA_SMEM_BUDGET_ADER
                                                                  : SQ_CUDA_SMEM_BUDGET;
  /** elements per block */
  static constexpr int E = cmax(1, cmin(cmax(1, TARGET / G), (BUDGET / RS - XS) / PER_ELEMENT));
  static constexpr int THREADS = G * E;
  static constexpr int IS = E * QS;    /**< one B x 9 block per element */
  static constexpr int IS1 = E * QS1;  /**< a D^1-sized block per element */
  static constexpr int MS = E * 9 * S; /**< one 9 x 9 matrix per element (NSTAR of them at OFF_MS) */
  /* regions, in reals from the block's base; each a multiple of 16 bytes */
  static constexpr int OFF_XS = 0, OFF_EVEN = XS, OFF_ODD = OFF_EVEN + IS;
  static constexpr int OFF_MS = KIND == KIND_NEIGHBOR || KIND == KIND_LOCAL ? XS + IS : OFF_ODD + IS1;
  static constexpr int OFF_LINKS = OFF_MS + NSTAR * MS; /**< neighbour kernel: E x 4 sq_face_link */
  static constexpr int SMEM = E * PER_ELEMENT + XS;
  /**
   * Blocks an SM should hold at least (__launch_bounds__; resident_warps), no more than its shared
   * memory takes.  0 where the kernel has no bound: no .minnctapersm at all, which leaves the registers
   * to the compiler (a bound of 1 block is not the same: ptxas then gives the neighbour kernel at order
   * 6 in single precision more registers, and `local` runs slower).
   */
  static constexpr int WARPS = (THREADS + 31) / 32, WANT_WARPS = resident_warps(KIND, RS, ORDER, LEVEL);
  static constexpr int MIN_BLOCKS = WANT_WARPS <= 0
                                        ? 0
                                        : cmax(1, cmin((WANT_WARPS + WARPS - 1) / WARPS,
                                                       SQ_CUDA_SM_SMEM / (SMEM * RS + SQ_CUDA_BLOCK_SMEM_RESERVED)));
  static_assert((XS * RS) % 16 == 0 && (IS * RS) % 16 == 0 && (IS1 * RS) % 16 == 0 && (MS * RS) % 16 == 0,
                "shared regions must stay 16-byte aligned");
};

/** The shape of each kernel: ader, local, neighbour flux and the fused predictor (ader + local). */
template <int ORDER, typename Real, int NARROW = -1> using AderShape = Shape<ORDER, Real, KIND_ADER, NARROW>;
template <int ORDER, typename Real, int NARROW = -1> using LocalShape = Shape<ORDER, Real, KIND_LOCAL, NARROW>;
template <int ORDER, typename Real, int NARROW = -1> using NeighborShape = Shape<ORDER, Real, KIND_NEIGHBOR, NARROW>;
template <int ORDER, typename Real, int NARROW = -1> using PredictShape = Shape<ORDER, Real, KIND_PREDICT, NARROW>;

} // namespace sq_cuda

#endif
