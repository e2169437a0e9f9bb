/**
 * @file cuda_device.cuh  Device building blocks of the GPU element kernels (cuda_kernels.cuh,
 * cuda_cell.cuh): vector rows, loads and stores of an element's rows, staging into shared memory, and
 * the products X Q and Y M^T that every update is made of.
 */
#ifndef SQ_CUDA_DEVICE_CUH
#define SQ_CUDA_DEVICE_CUH

#include "cuda_shape.cuh"

namespace sq_cuda {

/** Alignment of a vector of @p bytes: 16, or the largest power of two that divides a shorter one. */
__host__ __device__ constexpr int vector_align(int bytes) { return bytes % 16 == 0 ? 16 : bytes % 8 == 0 ? 8 : 4; }

/** Register array of N reals, loaded or stored as one vector access (16 bytes, or 8 or 4 for short rows). */
template <typename Real, int N> struct alignas(vector_align(N *(int)sizeof(Real))) Row { Real v[N]; };

#ifdef SQ_CUDA_EMULATE
#define SQ_CUDA_ALIGNED(p, align)                                                                                      \
  do {                                                                                                                 \
    if ((uintptr_t)(p) % (align)) {                                                                                    \
      fprintf(stderr, "misaligned vector access %p at %s:%d\n", (const void *)(p), __FILE__, __LINE__);                \
      abort();                                                                                                         \
    }                                                                                                                  \
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
 * go through it.  Batches of 4 measured slower than 1 (docs/PERFORMANCE.md): the other blocks of an SM
 * already hide the staging's latency.
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
 * product from shared memory (product, the whole-staged predictor).
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
 * columns' global loads the compiler may issue ahead, which the kernel's stalls wait on most.  The
 * whole loop (B columns) where B <= 48 and in double precision, else 28: each the fastest of the
 * unrollings measured at orders 4-7 (docs/PERFORMANCE.md).  The arithmetic and its order do not
 * change (tests/test_cuda_emu.sh checks that unrolling 2 gives the same report).
 * SQ_CUDA_GLOBAL_UNROLL=N (> 0, at compile time) sets it for every shape.
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

/**
 * acc(i, p) += sum_q Y(i, q) M(p, q) over RR rows: M a 9 x 9 matrix in shared rows of S (already signed).
 * PATTERN: M is a star matrix, and only the 24 terms of its non-zero pattern are formed (SQ_STAR_NONZERO,
 * sq_physics.h; test_physics checks that every star matrix keeps it).  The terms it skips are products with
 * exact zeros, and an accumulator that starts at +0 never becomes -0, so the sums are bitwise the dense ones.
 */
template <int S, bool PATTERN = false, typename Real, int RR>
__device__ __forceinline__ void apply_star(const Real (&Y)[RR][9], const Real *M, Real (&acc)[RR][9]) {
#pragma unroll
  for (int p = 0; p < 9; ++p) {
    const Row<Real, S> m = load_row<Real, S>(M + p * S);
#pragma unroll
    for (int i = 0; i < RR; ++i)
#pragma unroll
      for (int q = 0; q < 9; ++q)
        if (!PATTERN || SQ_STAR_NONZERO(p, q)) acc[i][p] = fma(Y[i][q], m.v[q], acc[i][p]);
  }
}

/** Dynamic shared memory of the block, 16-byte aligned. */
#ifdef SQ_CUDA_EMULATE
#define SQ_CUDA_SHARED(type, name) type *name = reinterpret_cast<type *>(sq_emu_shared())
#else
#define SQ_CUDA_SHARED(type, name)                                                                                     \
  extern __shared__ __align__(16) unsigned char sq_cuda_smem_bytes[];                                                  \
  type *name = reinterpret_cast<type *>(sq_cuda_smem_bytes)
#endif

/**
 * Every element kernel takes blocks of @p epb <= E consecutive elements (grid: ceil(n / epb) blocks of
 * THREADS; grid_for, cuda_launch.cuh): E, or fewer where E would leave multiprocessors without a
 * block.  The block's elements are e0 .. block_end - 1; its thread slots past them only take part in
 * the staging and the barriers.
 */
__device__ __forceinline__ int64_t block_end(int64_t n, int64_t e0, int epb) { return n < e0 + epb ? n : e0 + epb; }

} // namespace sq_cuda

#endif
