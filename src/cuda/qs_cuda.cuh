/**
 * @file qs_cuda.cuh  Device code of the quasi-static solver (sq_qs.h): the matrix-free element-by-element (EBE)
 * product of P2 (10-node) and P1 cells on NV vectors at once, the restriction and the prolongation between the
 * P2 mesh and its P1 coarse mesh.  One template over the precision, the number of vectors and the reduction;
 * qs_cuda.cu instantiates and launches them, tests/cuda_emu/emu_qs.cc runs them on the CPU.
 *
 * Vectors of NV (1 .. 4) right-hand sides are interleaved: x[node * 3 NV + component * NV + v] (NV = 1: sq_qs.h's
 * node-major layout).  One thread per (cell, vector), the NV threads of a cell side by side (the papers' layout: a
 * block of 128 threads is 32 cells x 4 vectors), computes the cell's product on its vector from the cell's geometry
 * (sq_qs.h's SQ_QS_NGEO reals: d xi / d x, volume, lambda, mu), as the CPU kernel of qs_impl.h does, with the
 * 4-point rule of degree 2 folded into sums over the barycentric coordinates (the gradients of the quadratic
 * shape functions are linear in them):
 *   h_q = 4 sum_k L_k(q) M_k - C,  M_k = x_k g_k^T + sum_{edges (k, j)} x_e g_j^T,  C = sum_vertices x_a g_a^T,
 *   s_q = w (mu (h_q + h_q^T) + lambda tr(h_q) I),  S_k = sum_q L_k(q) s_q,  S = sum_k S_k,
 *   vertex a: y_a = (4 S_a - S) g_a,  edge (p, q): y_e = 4 (S_p g_q + S_q g_p).
 *
 * Two reductions of the cells' contributions into the global vector y (which the caller clears or not):
 *   Reduction::Shared (the papers'): a block of cells owns a list of the distinct rows it touches (sq_qs_blocks,
 *     built on the host by sq_qs_blocks_create); its threads add their cells' rows into shared memory, then the
 *     block adds the block's rows into y with one atomic addition per row entry;
 *   Reduction::Gather: the same blocks, without atomics in shared memory: each thread stores its cell's rows into
 *     its own slots, then each block row sums its slots (sq_qs_blocks.gather, in a fixed order) and adds the sum into
 *     y with one atomic addition per entry;
 *   Reduction::Atomic: every cell adds its 30 NV values straight into y with atomics: the absence of the shared-memory
 *     reduction, instantiated only by the benchmark (tests/bench/qs_bench.cu) and the emulator test, never by the
 *     launchers of qs_cuda.cu.
 */
#ifndef SQ_QS_CUDA_CUH
#define SQ_QS_CUDA_CUH

#include <stdint.h>

#ifdef SQ_CUDA_EMULATE
#define SQ_QS_SHARED(type, name) type *name = reinterpret_cast<type *>(sq_emu_shared())
#else
#define SQ_QS_SHARED(type, name)                                                                                       \
  extern __shared__ __align__(16) unsigned char sq_qs_smem_bytes[];                                                    \
  type *name = reinterpret_cast<type *>(sq_qs_smem_bytes)
#endif

namespace sq_qs_cuda {

enum class Reduction { Shared, Gather, Atomic };

/** Local edges of the 10-node tetrahedron (sq_qs_edge_vertices). */
__device__ __forceinline__ int edge_v(int e, int end) {
  /* (0,1) (1,2) (0,2) (0,3) (1,3) (2,3) */
  const int a[6] = {0, 1, 0, 0, 1, 2}, b[6] = {1, 2, 2, 3, 3, 3};
  return end ? b[e] : a[e];
}

/** s = w (mu (h + h^T) + lambda tr(h) I), symmetric, stored xx yy zz xy yz xz. */
template <typename R> __device__ __forceinline__ void stress(const R (&h)[3][3], R w, R lam, R mu, R (&s)[6]) {
  const R tr = h[0][0] + h[1][1] + h[2][2];
  s[0] = w * (mu * (h[0][0] + h[0][0]) + lam * tr);
  s[1] = w * (mu * (h[1][1] + h[1][1]) + lam * tr);
  s[2] = w * (mu * (h[2][2] + h[2][2]) + lam * tr);
  s[3] = w * (mu * (h[0][1] + h[1][0]));
  s[4] = w * (mu * (h[1][2] + h[2][1]));
  s[5] = w * (mu * (h[0][2] + h[2][0]));
}

/** Row i of the symmetric s (6) times g. */
template <typename R> __device__ __forceinline__ R srow(const R *s, int i, const R *g) {
  const int d[3][3] = {{0, 3, 5}, {3, 1, 4}, {5, 4, 2}};
  return s[d[i][0]] * g[0] + s[d[i][1]] * g[1] + s[d[i][2]] * g[2];
}

/**
 * One cell's product on one of NV interleaved vectors: calls add(a, i, value) for each local node a (10 for P2, 4 for
 * P1) and component i.  @p geo: the cell's SQ_QS_NGEO reals; @p in: its 10 global nodes; @p x: the vector's first
 * value (x + v of the interleaved array: node n's component i at x[3 NV n + NV i]).
 */
template <typename R, int NV, bool P1, class Add>
__device__ __forceinline__ void cell_product(const R *__restrict__ geo, const int64_t *__restrict__ in,
                                             const R *__restrict__ x, Add add) {
  R g[4][3];
#pragma unroll
  for (int d = 0; d < 3; ++d) {
    g[1][d] = geo[d], g[2][d] = geo[3 + d], g[3][d] = geo[6 + d];
    g[0][d] = -(g[1][d] + g[2][d] + g[3][d]);
  }
  const R vol = geo[9], lam = geo[10], mu = geo[11];
  constexpr int NL = P1 ? 4 : 10;
  R xv[NL][3];
#pragma unroll
  for (int a = 0; a < NL; ++a) {
    const R *xa = x + in[a] * 3 * NV;
#pragma unroll
    for (int i = 0; i < 3; ++i) xv[a][i] = xa[i * NV];
  }
  R C[3][3] = {};
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int i = 0; i < 3; ++i)
#pragma unroll
      for (int j = 0; j < 3; ++j) C[i][j] += xv[a][i] * g[a][j];
  if constexpr (P1) {
    R s[6];
    stress<R>(C, vol, lam, mu, s);
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int i = 0; i < 3; ++i) add(a, i, srow<R>(s, i, g[a]));
  } else {
    /* M_k: the vertex's own term, then each edge's into both its vertices */
    R M[4][3][3];
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int i = 0; i < 3; ++i)
#pragma unroll
        for (int j = 0; j < 3; ++j) M[a][i][j] = xv[a][i] * g[a][j];
#pragma unroll
    for (int e = 0; e < 6; ++e) {
      const int p = edge_v(e, 0), q = edge_v(e, 1);
#pragma unroll
      for (int i = 0; i < 3; ++i)
#pragma unroll
        for (int j = 0; j < 3; ++j) M[p][i][j] += xv[4 + e][i] * g[q][j], M[q][i][j] += xv[4 + e][i] * g[p][j];
    }
    const R qa = R(0.5854101966249685), qb = R(0.1381966011250105), w = vol / 4;
    R s[4][6];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      R h[3][3];
#pragma unroll
      for (int i = 0; i < 3; ++i)
#pragma unroll
        for (int j = 0; j < 3; ++j) {
          R m = 0;
#pragma unroll
          for (int k = 0; k < 4; ++k) m += (k == q ? qa : qb) * M[k][i][j];
          h[i][j] = 4 * m - C[i][j];
        }
      stress<R>(h, w, lam, mu, s[q]);
    }
    /* S_k = sum_q L_k(q) s_q and S = sum_q s_q */
    R S[4][6], St[6];
#pragma unroll
    for (int c = 0; c < 6; ++c) {
      St[c] = s[0][c] + s[1][c] + s[2][c] + s[3][c];
#pragma unroll
      for (int k = 0; k < 4; ++k) S[k][c] = qb * St[c] + (qa - qb) * s[k][c];
    }
#pragma unroll
    for (int a = 0; a < 4; ++a) {
      R T[6];
#pragma unroll
      for (int c = 0; c < 6; ++c) T[c] = 4 * S[a][c] - St[c];
#pragma unroll
      for (int i = 0; i < 3; ++i) add(a, i, srow<R>(T, i, g[a]));
    }
#pragma unroll
    for (int e = 0; e < 6; ++e) {
      const int p = edge_v(e, 0), q = edge_v(e, 1);
#pragma unroll
      for (int i = 0; i < 3; ++i) add(4 + e, i, 4 * (srow<R>(S[p], i, g[q]) + srow<R>(S[q], i, g[p])));
    }
  }
}

/**
 * y += K x over cells [0, nc) on NV (1 .. 4) interleaved vectors: one thread per (cell, vector), thread t of a block
 * of blockDim.x = cells x NV threads computes cell blockIdx.x cells + t / NV on vector t % NV.  The NV threads of a
 * cell are neighbours in a warp: they read the cell's geometry and nodes together (one memory transaction), and
 * their gathers of a node's component are NV consecutive values of x (coalesced); each thread holds the registers
 * of the one-vector product.
 * @p in: 10 rows of x per cell; @p out: 10 rows of y per cell (Atomic); @p blk_ptr, @p blk_row, @p local:
 * sq_qs_blocks of blockDim.x / NV cells (Shared: block b adds its rows blk_row[blk_ptr[b] ..] of y; local[10 c + a]
 * is the block row of cell c's node a).  Shared memory (Shared): 3 NV reals per row of the largest block.
 */
template <typename R, int NV, bool P1, Reduction RED>
__global__ void ebe_kernel(int64_t nc, const R *__restrict__ geo, const int64_t *__restrict__ in,
                           const int64_t *__restrict__ out, const int64_t *__restrict__ blk_ptr,
                           const int64_t *__restrict__ blk_row, const uint16_t *__restrict__ local,
                           const R *__restrict__ x, R *__restrict__ y, const uint16_t *__restrict__ gather = nullptr,
                           const uint16_t *__restrict__ gend = nullptr) {
  static_assert(NV >= 1 && NV <= 4, "1 to 4 vectors per kernel");
  const int v = (int)(threadIdx.x % NV);
  const int64_t c = (int64_t)blockIdx.x * (blockDim.x / NV) + threadIdx.x / NV;
  if constexpr (RED == Reduction::Atomic) {
    if (c >= nc) return;
    cell_product<R, NV, P1>(geo + 12 * c, in + 10 * c, x + v,
                            [&](int a, int i, R val) { atomicAdd(y + out[10 * c + a] * 3 * NV + i * NV + v, val); });
  } else if constexpr (RED == Reduction::Gather) {
    constexpr int NL = P1 ? 4 : 10;
    SQ_QS_SHARED(R, ys); /* 3 NV reals per slot: cells x NL slots */
    const int64_t cl = threadIdx.x / NV;
    if (c < nc)
      cell_product<R, NV, P1>(geo + 12 * c, in + 10 * c, x + v,
                              [&](int a, int i, R val) { ys[(cl * NL + a) * 3 * NV + i * NV + v] = val; });
    __syncthreads();
    const int64_t r0 = blk_ptr[blockIdx.x], nrow = blk_ptr[blockIdx.x + 1] - r0;
    const uint16_t *slot = gather + (int64_t)blockIdx.x * (blockDim.x / NV) * NL;
    for (int64_t k = threadIdx.x; k < 3 * NV * nrow; k += blockDim.x) {
      const int64_t r = k / (3 * NV), cv = k % (3 * NV);
      R sum = 0;
      for (int j = r ? gend[r0 + r - 1] : 0; j < gend[r0 + r]; ++j) sum += ys[slot[j] * 3 * NV + cv];
      atomicAdd(y + blk_row[r0 + r] * 3 * NV + cv, sum);
    }
  } else {
    SQ_QS_SHARED(R, ys);
    const int64_t r0 = blk_ptr[blockIdx.x], nrow = blk_ptr[blockIdx.x + 1] - r0;
    for (int64_t k = threadIdx.x; k < 3 * NV * nrow; k += blockDim.x) ys[k] = 0;
    __syncthreads();
    if (c < nc)
      cell_product<R, NV, P1>(geo + 12 * c, in + 10 * c, x + v, [&](int a, int i, R val) {
        atomicAdd(ys + (int64_t)local[10 * c + a] * 3 * NV + i * NV + v, val);
      });
    __syncthreads();
    for (int64_t k = threadIdx.x; k < 3 * NV * nrow; k += blockDim.x)
      atomicAdd(y + blk_row[r0 + k / (3 * NV)] * 3 * NV + k % (3 * NV), ys[k]);
  }
}

/** r_c = P^T r over vertices [v0, v1) (sq_qs_restrict_range_f32), NV interleaved vectors; rc at vertex v0. */
template <typename R, int NV>
__global__ void restrict_kernel(int64_t nvert, const int64_t *__restrict__ vptr, const int64_t *__restrict__ vedge,
                                int64_t v0, int64_t v1, const R *__restrict__ r, R *__restrict__ rc) {
  const int64_t v = v0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= v1) return;
  for (int k = 0; k < 3 * NV; ++k) {
    R s = r[3 * NV * v + k];
    for (int64_t e = vptr[v]; e < vptr[v + 1]; ++e) s += R(0.5) * r[3 * NV * (nvert + vedge[e]) + k];
    rc[3 * NV * (v - v0) + k] = s;
  }
}

/** z = P z_c over P2 nodes [n0, n1) (sq_qs_prolong_range_f32), NV interleaved vectors; z at node n0. */
template <typename R, int NV>
__global__ void prolong_kernel(int64_t nvert, const int64_t *__restrict__ edge_vert, int64_t n0, int64_t n1,
                               const R *__restrict__ zc, R *__restrict__ z) {
  const int64_t p = n0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n1) return;
  for (int k = 0; k < 3 * NV; ++k)
    z[3 * NV * (p - n0) + k] =
        p < nvert
            ? zc[3 * NV * p + k]
            : R(0.5) * (zc[3 * NV * edge_vert[2 * (p - nvert)] + k] + zc[3 * NV * edge_vert[2 * (p - nvert) + 1] + k]);
}

/** y[node[k] rows] += rows[k] for k in [0, n), NV interleaved vectors (a tile's reduction; the tiles' reductions
 *  run one after the other, so no atomics). */
template <typename R, int NV>
__global__ void scatter_add_kernel(int64_t n, const int64_t *__restrict__ node, const R *__restrict__ rows,
                                   R *__restrict__ y) {
  const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  for (int c = 0; c < 3 * NV; ++c) y[3 * NV * node[k] + c] += rows[3 * NV * k + c];
}

} // namespace sq_qs_cuda

#endif
