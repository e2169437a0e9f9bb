/**
 * @file cuda_cell.cuh  Small-tile kernels of the low orders: one thread per entry (l, p) of an element's
 * B x 9 block ("cell" kernels: 9 B threads per element), for the fused predictor, ader, local and the
 * neighbour flux.
 *
 * The kernels of cuda_kernels.cuh give each thread one or more whole rows (l, 0..8) and stage every
 * operand of a product in shared memory before it.  At orders 2 and 3 a tile of a few thousand elements
 * then has a handful of warps per SM, each of them running a chain of staging rounds and barriers, and
 * its stalls are on global loads and at barriers (docs/PERFORMANCE.md).  Here a block's per-element
 * 9 x 9 matrices are staged in shared memory in one round of coalesced loads by all its threads, every
 * load issued before the first store (held in registers instead, they cost so many registers per thread
 * that the grid ran two waves deep), the reference matrices come from the read-only cache, and each
 * product is two halves with a barrier between:
 *
 *   Y(l, p) = sum_k X(l, k) Q(k, p)            thread (l, p), Q from shared memory
 *   acc(l, p) += sum_q Y(l, q) M(p, q)         thread (l, p), rows of Y and M as 16-byte vectors
 *
 * Each sum runs in the order of cuda_kernels.cuh's kernels (fold_rows, product_global, apply_star), so
 * the results are bitwise those of the default kernels (tests/cuda_emu checks it at every order it
 * covers, in both precisions).  The launchers (merged, ader, local and neighbor_cuda.cu) take these kernels
 * for every tile up to order SQ_CUDA_CELL_MAX_ORDER (cell_tile).
 */
#ifndef SQ_CUDA_CELL_CUH
#define SQ_CUDA_CELL_CUH

#include "cuda_kernels.cuh"

/**
 * Highest order with cell kernels.  At orders 3 and 4 they lost to the fine-row kernels even on small
 * tiles, with any register bound (docs/PERFORMANCE.md).
 */
#ifndef SQ_CUDA_CELL_MAX_ORDER
#define SQ_CUDA_CELL_MAX_ORDER 2
#endif
/** Threads a cell block aims at (whole elements). */
#ifndef SQ_CUDA_CELL_THREADS
#define SQ_CUDA_CELL_THREADS 256
#endif
/** Most shared memory (bytes) of a cell block of the predictor. */
#ifndef SQ_CUDA_CELL_SMEM
#define SQ_CUDA_CELL_SMEM (48 * 1024)
#endif
/**
 * Threads an SM should hold at least (the kernels' __launch_bounds__ minimum of blocks).  Higher bounds
 * (fewer registers per thread) were no faster at order 3 and slower at order 2.
 */
#ifndef SQ_CUDA_CELL_MIN_THREADS
#define SQ_CUDA_CELL_MIN_THREADS 1024
#endif

namespace sq_cuda {

/**
 * Shape of the cell kernels of one order and precision.  Each thread takes P = 1 column of an element's
 * B x 9 block (9 B threads per element): three columns per thread lost at orders 2-4.
 */
template <int ORDER_, typename Real_> struct CellShape {
  using Real = Real_;
  static constexpr int ORDER = ORDER_, P = 1, B = nbasis(ORDER), NQ = 9 * B, RS = (int)sizeof(Real);
  static constexpr int TPE = B * (9 / P);      /**< threads per element */
  static constexpr int S = RS == 4 ? 12 : 10;  /**< padded row of 9 in shared memory (16-byte multiple) */
  static constexpr int BS = B * S, MS = 9 * S; /**< a B x 9 block, a 9 x 9 matrix, in padded rows */
  /**
   * Shared reals per element slot, each B x 9 block or 9 x 9 matrix in rows of S.  Predictor: the 3 star
   * and 4 local flux matrices, D^{I-1}, D^I, I, and the 7 products' Y; neighbour: the 4 neighbour flux
   * matrices, the 4 faces' neighbour data and their 4 Y.
   */
  static constexpr int PER_PREDICT = 7 * MS + 10 * BS, PER_NEIGHBOR = 4 * MS + 8 * BS;
  /** elements per block: SQ_CUDA_CELL_THREADS threads, within SQ_CUDA_CELL_SMEM bytes of the predictor */
  static constexpr int E = cmax(1, cmin(SQ_CUDA_CELL_THREADS / TPE, SQ_CUDA_CELL_SMEM / (RS * PER_PREDICT)));
  static constexpr int THREADS = E * TPE;
  static constexpr int SMEM_PREDICT = E * PER_PREDICT, SMEM_NEIGHBOR = E * PER_NEIGHBOR;
  /** Blocks an SM should hold (__launch_bounds__): at least SQ_CUDA_CELL_MIN_THREADS threads */
  static constexpr int MIN_BLOCKS = cmax(1, SQ_CUDA_CELL_MIN_THREADS / THREADS);
};

/** This thread's element slot, row l and first column p0: its entries are (l, p0 .. p0 + P - 1). */
template <class C> struct CellIndex {
  int el, l, p0;
  __device__ __forceinline__ CellIndex() {
    el = threadIdx.x / C::TPE;
    const int t = threadIdx.x - el * C::TPE, g = t / C::B;
    l = t - g * C::B;
    p0 = g * C::P;
  }
  /** index of entry (l, p0 + i) in an element's block in global memory (column major) */
  __device__ __forceinline__ int idx(int i) const { return (p0 + i) * C::B + l; }
};

/**
 * Copy the block's elements' NMAT row-major 9 x 9 matrices per element (src: those of element e0 on,
 * ne <= E of them) times @p scale into shared rows: matrix m of slot el at dst + el * stride + m * MS,
 * row p at + p S.  Every load of a thread is issued before its first store.  Called by all threads.
 */
template <class C, int NMAT>
__device__ __forceinline__ void cell_stage_matrices(const typename C::Real *__restrict__ src, int ne,
                                                    typename C::Real scale, typename C::Real *dst, int stride) {
  using Real = typename C::Real;
  constexpr int PER = NMAT * 81, U = (C::E * PER + C::THREADS - 1) / C::THREADS;
  Real v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int idx = threadIdx.x + u * C::THREADS;
    v[u] = idx < ne * PER ? scale * src[idx] : Real(0);
  }
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int idx = threadIdx.x + u * C::THREADS;
    if (idx < ne * PER) {
      const int el = idx / PER, r = idx - el * PER, m = r / 81, pq = r - m * 81, p = pq / 9, q = pq - p * 9;
      dst[el * stride + m * C::MS + p * C::S + q] = v[u];
    }
  }
}

/**
 * y[i] = sum_k X(l, k) Q(k, p0 + i), k < NIN: X column major (leading dimension B) from the read-only
 * cache, Q in shared rows of S.  The first half of every product (fold_rows' order).
 */
template <class C, int NIN>
__device__ __forceinline__ void cell_column_products(const typename C::Real *__restrict__ X, const typename C::Real *Q,
                                                     const CellIndex<C> &c, typename C::Real (&y)[C::P]) {
  using Real = typename C::Real;
#pragma unroll
  for (int i = 0; i < C::P; ++i) y[i] = Real(0);
#pragma unroll
  for (int k = 0; k < NIN; ++k) {
    const Real x = __ldg(X + k * C::B + c.l);
#pragma unroll
    for (int i = 0; i < C::P; ++i) y[i] = fma(x, Q[k * C::S + c.p0 + i], y[i]);
  }
}

/**
 * acc[i] += sum_q Y(l, q) sign M(p0 + i, q): row l of Y and rows of M from shared rows of S as 16-byte
 * vectors.  The second half of every product (apply_star's order).
 */
template <class C>
__device__ __forceinline__ void cell_row_products(const typename C::Real *Yrow, const typename C::Real *M,
                                                  const CellIndex<C> &c, typename C::Real sign,
                                                  typename C::Real (&acc)[C::P]) {
  using Real = typename C::Real;
  const Row<Real, C::S> y = load_row<Real, C::S>(Yrow);
#pragma unroll
  for (int i = 0; i < C::P; ++i) {
    const Row<Real, C::S> m = load_row<Real, C::S>(M + (c.p0 + i) * C::S);
#pragma unroll
    for (int q = 0; q < 9; ++q) acc[i] = fma(y.v[q], sign * m.v[q], acc[i]);
  }
}

/** One Cauchy-Kovalevski step I of cell_predict (ader_step's arithmetic), then step I + 1. */
template <class C, int I>
__device__ __forceinline__ void cell_ader_step(const typename C::Real *__restrict__ pack, const typename C::Real *Ms,
                                               typename C::Real *cur, typename C::Real *nxt, typename C::Real *Ys,
                                               const CellIndex<C> &c, int64_t e, bool active, double dt, double factor,
                                               typename C::Real (&ti)[C::P], typename C::Real *__restrict__ derivs) {
  if constexpr (I < C::ORDER) {
    using Real = typename C::Real;
    constexpr int B = C::B, S = C::S, NIN = nbasis(C::ORDER - I + 1), NOUT = nbasis(C::ORDER - I);
    __syncthreads(); /* cur (and the matrices) complete, Ys free */
    if (c.l < NOUT)
#pragma unroll
      for (int d = 0; d < 3; ++d) {
        Real y[C::P];
        cell_column_products<C, NIN>(pack + (SQ_PACK_KDER + d) * B * B, cur, c, y);
#pragma unroll
        for (int i = 0; i < C::P; ++i) Ys[(d * B + c.l) * S + c.p0 + i] = y[i];
      }
    __syncthreads();
    Real D[C::P];
#pragma unroll
    for (int i = 0; i < C::P; ++i) D[i] = Real(0);
    if (c.l < NOUT)
#pragma unroll
      for (int d = 0; d < 3; ++d) cell_row_products<C>(Ys + (d * B + c.l) * S, Ms + d * C::MS, c, Real(-1), D);
    factor *= dt / (I + 1);
    const Real f = (Real)factor;
#pragma unroll
    for (int i = 0; i < C::P; ++i) {
      nxt[c.l * S + c.p0 + i] = D[i];
      if (derivs && active) derivs[(e * C::ORDER + I) * C::NQ + c.idx(i)] = D[i];
      if (c.l < NOUT) ti[i] += f * D[i];
    }
    cell_ader_step<C, I + 1>(pack, Ms, nxt, cur, Ys, c, e, active, dt, factor, ti, derivs);
  }
}

/**
 * Shared memory of an element slot of the predictor kernels: [M x 7][D^{I-1}][D^I][I][Y x 7] (the ader
 * kernel uses the first three matrices, the local kernel no derivative buffers).
 */
template <class C> struct CellPredictSlot {
  typename C::Real *Ms, *cur, *nxt, *Is, *Ys;
  __device__ __forceinline__ CellPredictSlot(typename C::Real *smem, int el) {
    Ms = smem + el * C::PER_PREDICT;
    cur = Ms + 7 * C::MS;
    nxt = cur + C::BS;
    Is = nxt + C::BS;
    Ys = Is + C::BS;
  }
};

/**
 * ADER predictor of the thread's entries (ader_body's arithmetic), the star matrices staged in the slot:
 * from d0 = dofs, leaves tint in @p ti and writes it, the derivatives and the LTS buffer.
 */
template <class C>
__device__ __forceinline__ void
cell_ader(const CellIndex<C> &c, int64_t e, bool active, const typename C::Real *__restrict__ pack,
          const typename C::Real (&d0)[C::P], double dt, typename C::Real *__restrict__ tint,
          typename C::Real *__restrict__ derivs, typename C::Real *__restrict__ lts_buffer, int buffer_reset,
          const CellPredictSlot<C> &sl, typename C::Real (&ti)[C::P]) {
  using Real = typename C::Real;
  constexpr int NQ = C::NQ, P = C::P;
#pragma unroll
  for (int i = 0; i < P; ++i) {
    sl.cur[c.l * C::S + c.p0 + i] = d0[i];
    ti[i] = (Real)dt * d0[i];
    if (derivs && active) derivs[e * C::ORDER * NQ + c.idx(i)] = d0[i];
  }
  cell_ader_step<C, 1>(pack, sl.Ms, sl.cur, sl.nxt, sl.Ys, c, e, active, dt, dt, ti, derivs);
  if (active)
#pragma unroll
    for (int i = 0; i < P; ++i) {
      tint[e * NQ + c.idx(i)] = ti[i];
      if (lts_buffer) {
        Real *buf = lts_buffer + e * NQ + c.idx(i);
        if (buffer_reset) *buf = ti[i];
        else *buf = *buf + ti[i];
      }
    }
}

/**
 * dofs = d0 + sum_d Kvol_d I A*_d^T - sum_j Flocal_j I Alocal_j^T for the thread's entries (local_update's
 * arithmetic), I = @p ti, the star and negated local flux matrices staged in the slot.  Starts with a
 * barrier: the caller's reads of the slot's Y are done.
 */
template <class C>
__device__ __forceinline__ void cell_local(const CellIndex<C> &c, int64_t e, bool active,
                                           const typename C::Real *__restrict__ pack,
                                           const typename C::Real (&ti)[C::P], const typename C::Real (&d0)[C::P],
                                           typename C::Real *__restrict__ dofs, const CellPredictSlot<C> &sl) {
  using Real = typename C::Real;
  constexpr int B = C::B, S = C::S, P = C::P;
#pragma unroll
  for (int i = 0; i < P; ++i) sl.Is[c.l * S + c.p0 + i] = ti[i];
  __syncthreads(); /* Is (and the matrices) complete; every earlier read of Ys done */
#pragma unroll
  for (int m = 0; m < 7; ++m) {
    Real y[P];
    if (m < 3) /* Kvol_d's columns from nb(O - 1) on are zero (local_update) */
      cell_column_products<C, nbasis(C::ORDER - 1)>(pack + (SQ_PACK_KVOL + m) * B * B, sl.Is, c, y);
    else cell_column_products<C, B>(pack + (SQ_PACK_FLOCAL + m - 3) * B * B, sl.Is, c, y);
#pragma unroll
    for (int i = 0; i < P; ++i) sl.Ys[(m * B + c.l) * S + c.p0 + i] = y[i];
  }
  __syncthreads();
  Real acc[P];
#pragma unroll
  for (int i = 0; i < P; ++i) acc[i] = Real(0);
#pragma unroll
  for (int m = 0; m < 7; ++m) cell_row_products<C>(sl.Ys + (m * B + c.l) * S, sl.Ms + m * C::MS, c, Real(1), acc);
  if (active)
#pragma unroll
    for (int i = 0; i < P; ++i) dofs[e * C::NQ + c.idx(i)] = d0[i] + acc[i];
}

/** The thread's entries of an element's block in global memory (0 for an element slot past the block's end). */
template <class C>
__device__ __forceinline__ void cell_load(const CellIndex<C> &c, int64_t e, bool active,
                                          const typename C::Real *__restrict__ src, typename C::Real (&v)[C::P]) {
#pragma unroll
  for (int i = 0; i < C::P; ++i) v[i] = active ? src[e * C::NQ + c.idx(i)] : typename C::Real(0);
}

/**
 * Fused predictor (predict_block's arithmetic) of elements e0 .. nb - 1: ader (+ derivatives, + LTS
 * buffer), then volume and local flux, all seven per-element matrices staged at once.
 */
template <class C>
__device__ __forceinline__ void
cell_predict(int64_t e0, int64_t nb, const typename C::Real *__restrict__ pack, typename C::Real *__restrict__ dofs,
             const typename C::Real *__restrict__ star, const typename C::Real *__restrict__ flux_local, double dt,
             typename C::Real *__restrict__ tint, typename C::Real *__restrict__ derivs,
             typename C::Real *__restrict__ lts_buffer, int buffer_reset, typename C::Real *smem) {
  using Real = typename C::Real;
  const CellIndex<C> c;
  const CellPredictSlot<C> sl(smem, c.el);
  const int64_t e = e0 + c.el;
  const bool active = e < nb;
  /* the star matrices as they are, the local flux matrices negated (local_update's scales) */
  cell_stage_matrices<C, 3>(star + e0 * 243, (int)(nb - e0), Real(1), smem, C::PER_PREDICT);
  cell_stage_matrices<C, 4>(flux_local + e0 * 324, (int)(nb - e0), Real(-1), smem + 3 * C::MS, C::PER_PREDICT);
  Real d0[C::P], ti[C::P];
  cell_load<C>(c, e, active, dofs, d0);
  cell_ader<C>(c, e, active, pack, d0, dt, tint, derivs, lts_buffer, buffer_reset, sl, ti);
  cell_local<C>(c, e, active, pack, ti, d0, dofs, sl);
}

/** ADER predictor over one tile, cell-wise (ader_kernel's results). */
template <int ORDER, typename Real>
__global__ void __launch_bounds__(CellShape<ORDER, Real>::THREADS, CellShape<ORDER, Real>::MIN_BLOCKS)
    ader_cell_kernel(int64_t n, int epb, const Real *__restrict__ pack, const Real *__restrict__ dofs,
                     const Real *__restrict__ star, double dt, Real *__restrict__ tint, Real *__restrict__ derivs,
                     Real *__restrict__ lts_buffer, int buffer_reset) {
  using C = CellShape<ORDER, Real>;
  SQ_CUDA_SHARED(Real, smem);
  const CellIndex<C> c;
  const CellPredictSlot<C> sl(smem, c.el);
  const int64_t e0 = (int64_t)blockIdx.x * epb, nb = block_end(n, e0, epb), e = e0 + c.el;
  cell_stage_matrices<C, 3>(star + e0 * 243, (int)(nb - e0), Real(1), smem, C::PER_PREDICT);
  Real d0[C::P], ti[C::P];
  cell_load<C>(c, e, e < nb, dofs, d0);
  cell_ader<C>(c, e, e < nb, pack, d0, dt, tint, derivs, lts_buffer, buffer_reset, sl, ti);
}

/** Volume + local flux over one tile, cell-wise (local_kernel's results). */
template <int ORDER, typename Real>
__global__ void __launch_bounds__(CellShape<ORDER, Real>::THREADS, CellShape<ORDER, Real>::MIN_BLOCKS)
    local_cell_kernel(int64_t n, int epb, const Real *__restrict__ pack, const Real *__restrict__ tint,
                      const Real *__restrict__ star, const Real *__restrict__ flux_local, Real *__restrict__ dofs) {
  using C = CellShape<ORDER, Real>;
  SQ_CUDA_SHARED(Real, smem);
  const CellIndex<C> c;
  const CellPredictSlot<C> sl(smem, c.el);
  const int64_t e0 = (int64_t)blockIdx.x * epb, nb = block_end(n, e0, epb), e = e0 + c.el;
  cell_stage_matrices<C, 3>(star + e0 * 243, (int)(nb - e0), Real(1), smem, C::PER_PREDICT);
  cell_stage_matrices<C, 4>(flux_local + e0 * 324, (int)(nb - e0), Real(-1), smem + 3 * C::MS, C::PER_PREDICT);
  Real ti[C::P], d0[C::P];
  cell_load<C>(c, e, e < nb, tint, ti);
  cell_load<C>(c, e, e < nb, dofs, d0);
  cell_local<C>(c, e, e < nb, pack, ti, d0, dofs, sl);
}

/** Fused predictor over one tile, cell-wise (predict_kernel's results). */
template <int ORDER, typename Real>
__global__ void __launch_bounds__(CellShape<ORDER, Real>::THREADS, CellShape<ORDER, Real>::MIN_BLOCKS)
    predict_cell_kernel(int64_t n, int epb, const Real *__restrict__ pack, Real *__restrict__ dofs,
                        const Real *__restrict__ star, const Real *__restrict__ flux_local, double dt,
                        Real *__restrict__ tint, Real *__restrict__ derivs, Real *__restrict__ lts_buffer,
                        int buffer_reset) {
  using C = CellShape<ORDER, Real>;
  SQ_CUDA_SHARED(Real, smem);
  const int64_t e0 = (int64_t)blockIdx.x * epb;
  cell_predict<C>(e0, block_end(n, e0, epb), pack, dofs, star, flux_local, dt, tint, derivs, lts_buffer, buffer_reset,
                  smem);
}

/** The fused predictor over the tiles of a merged task in one grid, cell-wise (predict_segments_kernel). */
template <int ORDER, typename Real>
__global__ void __launch_bounds__(CellShape<ORDER, Real>::THREADS, CellShape<ORDER, Real>::MIN_BLOCKS)
    predict_cell_segments_kernel(const __grid_constant__ sq_cuda_segments segs, const Real *__restrict__ pack) {
  using C = CellShape<ORDER, Real>;
  SQ_CUDA_SHARED(Real, smem);
  int64_t e0;
  const sq_cuda_segment &g = segment_of_block(segs, &e0);
  cell_predict<C>(e0, block_end(g.n, e0, segs.epb), pack, (Real *)g.dofs, (const Real *)g.star,
                  (const Real *)g.flux_local, g.dt, (Real *)g.tint, (Real *)g.derivs, (Real *)g.lts_buffer,
                  g.buffer_reset, smem);
}

/**
 * Neighbour flux, cell-wise (neighbor_kernel's results): all four faces' neighbour data staged at once
 * (stage_neighbor's Taylor integral, entry by entry), then Y_j = F+_j I_j per face, then
 * dofs -= sum_j Y_j Anb_j^T.  Shared memory per element slot: [M x 4][I x 4][Y x 4].
 */
template <int ORDER, typename Real>
__global__ void __launch_bounds__(CellShape<ORDER, Real>::THREADS, CellShape<ORDER, Real>::MIN_BLOCKS)
    neighbor_cell_kernel(int64_t n_all, int epb, const Real *__restrict__ pack, const sq_face_link *__restrict__ links,
                         const Real *__restrict__ flux_nb, const __grid_constant__ sq_cuda_slots slots,
                         Real *__restrict__ dofs) {
  using C = CellShape<ORDER, Real>;
  constexpr int B = C::B, S = C::S, BS = C::BS, MS = C::MS, NQ = C::NQ;
  SQ_CUDA_SHARED(Real, smem);
  const CellIndex<C> c;
  const int64_t e0 = (int64_t)blockIdx.x * epb, nb = block_end(n_all, e0, epb), e = e0 + c.el;
  const bool active = e < nb;
  Real *Ms = smem + c.el * C::PER_NEIGHBOR, *Is = Ms + 4 * MS, *Ys = Is + 4 * BS;
  cell_stage_matrices<C, 4>(flux_nb + e0 * 324, (int)(nb - e0), Real(-1), smem, C::PER_NEIGHBOR);
  int kind[4], flux[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const sq_face_link ln = active ? links[e * 4 + j] : sq_face_link{SQ_LINK_NONE, 0, 0, 0};
    kind[j] = ln.kind;
    flux[j] = ln.flux;
#pragma unroll
    for (int i = 0; i < C::P; ++i) {
      Real v = Real(0);
      if (ln.kind == SQ_LINK_TINT) {
        v = reinterpret_cast<const Real *>(slots.data[ln.slot])[(int64_t)ln.index * NQ + c.idx(i)];
      } else if (ln.kind == SQ_LINK_DERIVS) {
        const Real *d = reinterpret_cast<const Real *>(slots.data[ln.slot]) + (int64_t)ln.index * ORDER * NQ + c.idx(i);
        const double t0 = slots.t0[ln.slot], t1 = slots.t1[ln.slot];
        double p0 = t0, p1 = t1; /* t^{i+1} / (i+1)! */
#pragma unroll
        for (int o = 0; o < ORDER; ++o) {
          v += (Real)(p1 - p0) * d[o * NQ];
          p0 *= t0 / (o + 2);
          p1 *= t1 / (o + 2);
        }
      }
      Is[j * BS + c.l * S + c.p0 + i] = v;
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (kind[j] != SQ_LINK_NONE) {
      Real y[C::P];
      cell_column_products<C, B>(pack + (SQ_PACK_FNB + flux[j]) * B * B, Is + j * BS, c, y);
#pragma unroll
      for (int i = 0; i < C::P; ++i) Ys[j * BS + c.l * S + c.p0 + i] = y[i];
    }
  __syncthreads();
  Real acc[C::P];
#pragma unroll
  for (int i = 0; i < C::P; ++i) acc[i] = Real(0);
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (kind[j] != SQ_LINK_NONE) cell_row_products<C>(Ys + j * BS + c.l * S, Ms + j * MS, c, Real(1), acc);
  if (active)
#pragma unroll
    for (int i = 0; i < C::P; ++i) dofs[e * NQ + c.idx(i)] = dofs[e * NQ + c.idx(i)] + acc[i];
}

#ifndef SQ_CUDA_EMULATE
/**
 * Whether a tile of n elements takes the cell variant of a kernel: every tile up to order
 * SQ_CUDA_CELL_MAX_ORDER.  At order 2 they were faster at every tile size measured, in both precisions,
 * for the whole step and for separate ader and local tasks (docs/PERFORMANCE.md).
 */
inline bool cell_tile(int order, int64_t n) { return order <= SQ_CUDA_CELL_MAX_ORDER && n > 0; }
#endif

} // namespace sq_cuda

#endif
