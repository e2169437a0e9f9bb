/**
 * @file cuda_tensor.cuh  The volume + local-flux update (`local`) in double precision on the FP64 tensor cores
 * (mma.sync m16n8k8), for the orders of tensor_local.  local_cuda.cu takes it there; docs/GPU.md describes it.
 *
 * Every term of the update is X (I M^T): X a B x B reference matrix (K_vol,d, or the local flux matrix F^-_j),
 * the same for every element, and M the element's 9 x 9 star or flux-solver matrix.  Evaluated as X (I M^T),
 * the seven terms of a block of E elements are seven matrix products with one left operand each:
 *
 *   C (B x 9E) += X_m (B x B) W_m,   W_m = [I_1 M_m,1^T ... I_E M_m,E^T] (B x 9E),
 *
 * and C collects all seven in the tensor cores' accumulators.  Warp w owns rows 16w .. 16w + 15 of C (one 16-row
 * tile) for all 9E / 8 column tiles; per k-step of 8 it loads one fragment of X (through the read-only cache)
 * and one fragment of W per column tile (shared memory, one 16-byte load).  W_m is formed on the ordinary cores from
 * the element's tint rows, staged in shared memory once, and M, read through the read-only cache, two rows per
 * thread.  K_vol,d's columns of degree O - 1 are zero: its products stop at nb(O - 1).
 *
 * The same source compiles as plain C++ (SQ_CUDA_EMULATE, tests/cuda_emu/), where mma_tiles exchanges the
 * fragments of a warp through shared scratch memory between two barriers.
 */
#ifndef SQ_CUDA_TENSOR_CUH
#define SQ_CUDA_TENSOR_CUH

#include "cuda_device.cuh"
#include "cuda_launch.cuh"

/**
 * The orders at which `local` takes the tensor-core kernel in double precision (first and last): 6 and 7, where it
 * measured faster than the row-group `local` on an H100; at order 5 it is slower (docs/GPU.md).  Single precision
 * keeps the sparse kernel: the tensor cores' single-precision input (TF32) would lose digits.
 */
#ifndef SQ_CUDA_TENSOR_LOCAL_MIN_DP
#define SQ_CUDA_TENSOR_LOCAL_MIN_DP 6
#endif
#ifndef SQ_CUDA_TENSOR_LOCAL_MAX_DP
#define SQ_CUDA_TENSOR_LOCAL_MAX_DP SQ_ORDER_MAX
#endif

namespace sq_cuda {

/** Whether `local` takes the tensor-core kernel at this order and size of real. */
__host__ __device__ constexpr bool tensor_local(int order, int real_size) {
  return real_size == 8 && order >= SQ_CUDA_TENSOR_LOCAL_MIN_DP && order <= SQ_CUDA_TENSOR_LOCAL_MAX_DP;
}

/**
 * Launch bound of the tensor-core `local`: blocks an SM should hold at least (0: none, the registers left to the
 * compiler).
 */
#ifndef SQ_CUDA_TENSOR_MIN_BLOCKS
#define SQ_CUDA_TENSOR_MIN_BLOCKS 0
#endif

/** Shape of the tensor-core `local` of order ORDER. */
template <int ORDER_> struct TensorLocalShape {
  using Real = double;
  static constexpr int ORDER = ORDER_;
  static constexpr int B = nbasis(ORDER), B1 = nbasis(ORDER - 1), NQ = 9 * B;
  static constexpr int E = 8;              /**< elements per block: 9E columns, a multiple of 8 */
  static constexpr int NT = 9 * E / 8;     /**< column tiles of C (8 columns each) */
  static constexpr int MT = (B + 15) / 16; /**< row tiles of C (16 rows each): one warp each */
  static constexpr int THREADS = 32 * MT;
  static constexpr int KVOL = (B1 + 7) / 8 * 8; /**< K extent of the volume products (zero columns past B1) */
  static constexpr int KFLUX = (B + 7) / 8 * 8; /**< K extent of the flux products */
  /** column stride of W and C in shared memory: at least KFLUX, 8 modulo 16 reals, so that the two columns of a
   * fragment that a quarter of a warp reads (8 consecutive reals each, as 16-byte vectors) fall on distinct banks */
  static constexpr int LDW = KFLUX + ((8 - KFLUX % 16) + 16) % 16;
  static constexpr int SMEM_W = 9 * E * LDW;   /**< reals of W (and, at the end, of C) */
  static constexpr int SMEM = SMEM_W + E * NQ; /**< reals of shared memory: W, then the block's tint */
  static constexpr int MIN_BLOCKS = SQ_CUDA_TENSOR_MIN_BLOCKS;
  /** rows of W_m a thread forms at once: each value of M read serves both (4 rows would need 252 registers) */
  static constexpr int RW = 2;
  static_assert((9 * E) % 8 == 0, "the columns of C must fill whole tiles");
  static_assert(KFLUX <= LDW, "W's column stride must hold the padded K extent");
};

/**
 * c[t] += A B_t for the NT 16 x 8 tiles of a warp (mma.sync m16n8k8 in double precision), g = lane / 4, h = lane % 4:
 * A (16 x 8) given as a = {A(g, h), A(g + 8, h), A(g, h + 4), A(g + 8, h + 4)}, B_t (8 x 8) as
 * b[t] = {B_t(h, g), B_t(h + 4, g)}, c[t] = {C_t(g, 2h), C_t(g, 2h + 1), C_t(g + 8, 2h), C_t(g + 8, 2h + 1)}.
 * Below sm_90, which lacks the shape, four m8n8k4 products of its quarters.  Every thread of the block calls it the
 * same number of times (the emulator's exchange takes two block barriers).
 */
template <int NT>
__device__ __forceinline__ void mma_tiles(double (&c)[NT][4], const double (&a)[4], const double (&b)[NT][2]) {
#ifdef SQ_CUDA_EMULATE
  constexpr int PER = 4 + 2 * NT; /* a lane's scratch: a, then b */
  double *scratch = sq_emu_warp_scratch(PER);
  const int lane = threadIdx.x % 32, g = lane / 4, h = lane % 4;
  double *warp = scratch + (threadIdx.x / 32) * 32 * PER;
  for (int i = 0; i < 4; ++i) warp[lane * PER + i] = a[i];
  for (int t = 0; t < NT; ++t)
    for (int i = 0; i < 2; ++i) warp[lane * PER + 4 + 2 * t + i] = b[t][i];
  __syncthreads();
  /* A(r, k) sits in lane 4 (r % 8) + k % 4, slot r / 8 + 2 (k / 4); B_t(k, n) in lane 4 n + k % 4, slot k / 4 */
  auto A = [&](int r, int k) { return warp[(4 * (r % 8) + k % 4) * PER + r / 8 + 2 * (k / 4)]; };
  auto Bt = [&](int t, int k, int n) { return warp[(4 * n + k % 4) * PER + 4 + 2 * t + k / 4]; };
  for (int t = 0; t < NT; ++t)
    for (int i = 0; i < 4; ++i) {
      const int r = g + 8 * (i / 2), n = 2 * h + i % 2;
      for (int k = 0; k < 8; ++k) c[t][i] = fma(A(r, k), Bt(t, k, n), c[t][i]);
    }
  __syncthreads();
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#pragma unroll
  for (int t = 0; t < NT; ++t)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+d"(c[t][0]), "+d"(c[t][1]), "+d"(c[t][2]), "+d"(c[t][3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[t][0]), "d"(b[t][1]));
#else
  /* rows g (a[0], a[2]) and g + 8 (a[1], a[3]), columns k < 4 (a[0], a[1], b[t][0]) and k >= 4 (a[2], a[3], b[t][1]) */
#pragma unroll
  for (int t = 0; t < NT; ++t)
#pragma unroll
    for (int q = 0; q < 4; ++q)
      asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                   : "+d"(c[t][2 * (q % 2)]), "+d"(c[t][2 * (q % 2) + 1])
                   : "d"(a[q]), "d"(b[t][q / 2]));
#endif
}

/**
 * c += X(m0 .. m0 + 15, 0 .. K - 1) W(0 .. K - 1, :) for the warp's row tile: X B x B in global memory (rows and
 * columns past B read as zero), W in shared memory as W[col * LDW + k].  The fragments' k index is a permutation of
 * the k-step's 8 columns: lane h supplies k-slots h and h + 4 with columns k0 + 2h and k0 + 2h + 1, which lie side by
 * side in W, so that each b[t] is one 16-byte load from shared memory.
 */
template <class T, int K>
__device__ __forceinline__ void product_tiles(const double *__restrict__ X, const double *W, int m0,
                                              double (&c)[T::NT][4]) {
  const int lane = threadIdx.x % 32, g = lane / 4, h = lane % 4;
  /* 8 k-steps unrolled (all of them at order 6) keep X's loads of the following steps in flight: at orders 6 and 7
   * faster than 2 on an H100 (docs/GPU.md) */
#pragma unroll 8
  for (int k0 = 0; k0 < K; k0 += 8) {
    const int col = k0 + 2 * h;
    double a[4];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int row = m0 + g + 8 * i;
      a[i] = row < T::B && col < T::B ? __ldg(X + col * T::B + row) : 0.0;
      a[i + 2] = row < T::B && col + 1 < T::B ? __ldg(X + (col + 1) * T::B + row) : 0.0;
    }
    double b[T::NT][2];
#pragma unroll
    for (int t = 0; t < T::NT; ++t) {
      const Row<double, 2> w = load_row<double, 2>(W + (8 * t + g) * T::LDW + col);
      b[t][0] = w.v[0];
      b[t][1] = w.v[1];
    }
    mma_tiles<T::NT>(c, a, b);
  }
}

/**
 * dofs += sum_d Kvol_d I A*_d^T - sum_j Flocal_j I Alocal_j^T for the elements of @p tint (local_kernel's
 * arguments and results), on the FP64 tensor cores.
 */
template <int ORDER>
__global__ void __launch_bounds__(TensorLocalShape<ORDER>::THREADS, TensorLocalShape<ORDER>::MIN_BLOCKS)
    local_tensor_kernel(int64_t n_all, int epb, const double *__restrict__ pack, const double *__restrict__ tint,
                        const double *__restrict__ star, const double *__restrict__ flux_local,
                        double *__restrict__ dofs) {
  using T = TensorLocalShape<ORDER>;
  constexpr int B = T::B, NT = T::NT, LDW = T::LDW;
  SQ_CUDA_SHARED(double, W);
  double *Is = W + T::SMEM_W; /* the block's tint, as in global memory; zero in its empty element slots */
  const int64_t e0 = (int64_t)blockIdx.x * epb, n = block_end(n_all, e0, epb);
  const int ne = (int)(n - e0), lane = threadIdx.x % 32, m0 = 16 * (threadIdx.x / 32);
  /* tint is read once, coalesced: the seven W_m all read it, and from global memory its re-reads missed L1 */
  const double *__restrict__ in = tint + e0 * T::NQ;
  for (int idx = threadIdx.x; idx < T::E * T::NQ; idx += T::THREADS) Is[idx] = idx < ne * T::NQ ? in[idx] : 0.0;
  /* the padded rows B .. KFLUX - 1 of W meet zero columns of X, but must not hold NaN */
  if constexpr (T::KFLUX > B) {
    constexpr int PAD = T::KFLUX - B;
    for (int idx = threadIdx.x; idx < 9 * T::E * PAD; idx += T::THREADS) W[idx / PAD * LDW + B + idx % PAD] = 0.0;
  }
  double c[NT][4];
#pragma unroll
  for (int t = 0; t < NT; ++t)
#pragma unroll
    for (int i = 0; i < 4; ++i) c[t][i] = 0.0;
  __syncthreads(); /* Is staged */
  for (int m = 0; m < 7; ++m) {
    /* W_m = I M^T per element (negated for the flux terms); zero for the block's empty element slots */
    const bool vol = m < 3;
    const double scale = vol ? 1.0 : -1.0;
    constexpr int RW = T::RW, G = (B + RW - 1) / RW; /* rows per thread, row groups per element */
    for (int r = threadIdx.x; r < T::E * G; r += T::THREADS) {
      const int el = r / G, k = (r - el * G) * RW;
      double w[RW][9];
#pragma unroll
      for (int i = 0; i < RW; ++i)
#pragma unroll
        for (int p = 0; p < 9; ++p) w[i][p] = 0.0;
      if (el < ne) {
        const double *I = Is + el * T::NQ + k;
        const double *M = vol ? star + ((e0 + el) * 3 + m) * 81 : flux_local + ((e0 + el) * 4 + m - 3) * 81;
#pragma unroll
        for (int q = 0; q < 9; ++q) {
          double iq[RW];
#pragma unroll
          for (int i = 0; i < RW; ++i) iq[i] = k + i < B ? I[q * B + i] : 0.0;
#pragma unroll
          for (int p = 0; p < 9; ++p)
            if (!vol || SQ_STAR_NONZERO(p, q)) {
              const double mpq = __ldg(M + p * 9 + q);
#pragma unroll
              for (int i = 0; i < RW; ++i) w[i][p] = fma(iq[i], mpq, w[i][p]);
            }
        }
      }
#pragma unroll
      for (int i = 0; i < RW; ++i)
#pragma unroll
        for (int p = 0; p < 9; ++p)
          if (k + i < B) W[(el * 9 + p) * LDW + k + i] = scale * w[i][p];
    }
    __syncthreads();
    /* C += X_m W_m over the K extent of X_m */
    const double *X = pack + (vol ? SQ_PACK_KVOL + m : SQ_PACK_FLOCAL + m - 3) * B * B;
    if (vol) product_tiles<T, T::KVOL>(X, W, m0, c);
    else product_tiles<T, T::KFLUX>(X, W, m0, c);
    __syncthreads(); /* W free */
  }
  /* C through shared memory (as W's columns), then added to dofs coalesced */
#pragma unroll
  for (int t = 0; t < NT; ++t)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int row = m0 + lane / 4 + 8 * (i / 2), col = 8 * t + 2 * (lane % 4) + i % 2;
      if (row < B) W[col * LDW + row] = c[t][i];
    }
  __syncthreads();
  double *__restrict__ out = dofs + e0 * T::NQ;
  for (int idx = threadIdx.x; idx < ne * T::NQ; idx += T::THREADS) {
    const int col = idx / B, k = idx - col * B; /* column el * 9 + q of C: element el, quantity q */
    out[idx] += W[col * LDW + k];
  }
}

} // namespace sq_cuda

#endif
