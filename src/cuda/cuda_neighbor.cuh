/**
 * @file cuda_neighbor.cuh  The factorised GPU neighbour-flux kernel (eq. 4.2), templated on the order and
 * the precision; launched by neighbor_cuda.cu, described in docs/GPU.md.
 *
 * The dense kernel (neighbor_kernel in cuda_kernels.cuh) applies one of 48 B x B matrices
 * M^-1 F^+_{j,i,h} per element and face, too many for shared memory.  Through the face basis of
 * sq_ref.h, F^+_{j,i,h} = E_j R_h^T E_i^T, so
 *   dofs -= sum_j M^-1 F^+_{j,i,h} I_nb Anb_j^T = [M^-1 E_0 | .. | M^-1 E_3] [T_0; ..; T_3],
 *   T_j = R_h^T (E_i^T I_nb) (-Anb_j)^T   (Bf x 9; T_j = 0 for a face without neighbour),
 * with (j, i, h) = link.flux (j is the face's own index in a mesh; the kernel adds T to block j of
 * the stack as link.flux says, so that it applies F^+_{link.flux} exactly as the CPU kernel does),
 * and every reference matrix involved (4 E_i^T, 3 R_h^T, the B x 4Bf concatenation) is shared by all
 * elements: staged in shared memory once per block.
 *
 * A block takes E elements with G threads each, as the kernels of cuda_kernels.cuh.  Per face j:
 * - all threads stage the neighbour data of face j (stage_neighbor: tint, or the Taylor integral of
 *   derivatives) and the face's flux solver, negated;
 * - the element's first GF threads own RF consecutive rows of the face's Bf x 9 blocks (RF = R/2
 *   where that fits into G threads, so that more threads share the short face products): they form
 *   U = E_i^T I_nb in registers and write it to shared memory, then T_j = (R_h^T U) (-Anb_j)^T,
 *   added to the element's stack [T_0; ..; T_3] (a thread's rows of the stack are its own: no barrier).
 * Finally every thread forms its R rows of [M^-1 E_j] [T_j] with product() of cuda_kernels.cuh, the
 * concatenated matrix staged over the region of E^T and R^T (a chunk of KC columns at a time where
 * it does not fit), and adds them to dofs.  Per element this is 4 (2 Bf B 9 + 2 Bf^2 9 + 2 Bf 81)
 * + 2 B 4Bf 9 FLOPs against the dense kernel's 4 (2 B 81 + 2 B^2 9).
 */
#ifndef SQ_CUDA_NEIGHBOR_CUH
#define SQ_CUDA_NEIGHBOR_CUH

#include "cuda_kernels.cuh"

namespace sq_cuda {

/** Face basis size of order O: O(O+1)/2 (sq_nface_basis). */
__host__ __device__ constexpr int nface_basis(int order) { return order * (order + 1) / 2; }

/** Most shared memory one block may take (bytes): sm_90's per-block limit. */
#ifndef SQ_CUDA_SMEM_MAX
#define SQ_CUDA_SMEM_MAX (227 * 1024)
#endif

/** Compile-time shape of the factorised neighbour kernel; the members product() and the helpers read keep their names. */
template <int ORDER_, typename Real_> struct NeighborFactorShape {
  using Real = Real_;
  static constexpr int ORDER = ORDER_, KIND = KIND_NEIGHBOR;
  static constexpr int B = nbasis(ORDER);       /**< basis functions */
  static constexpr int BF = nface_basis(ORDER); /**< face basis functions */
  static constexpr int NQ = B * 9;
  static constexpr int RS = (int)sizeof(Real);
  /** row groups as the local kernel, whose reference matrices are in shared memory too */
  static constexpr bool NARROW = default_narrow(ORDER, RS, KIND_LOCAL);
  static constexpr int R = (RS == 4 ? 4 : 2) / (NARROW ? 2 : 1); /**< rows per thread, final product */
  static constexpr int G = (B + R - 1) / R;                        /**< threads per element */
  static constexpr int LDX = G * R;                                /**< padded rows of the staged B x 4Bf matrix */
  static constexpr int S = RS == 4 ? 12 : 10;                      /**< padded row of 9 */
  /** rows per thread of the face products: half a row group where the face's rows then fit into G threads */
  static constexpr int RF = R > 1 && (BF + R / 2 - 1) / (R / 2) <= G ? R / 2 : R;
  static constexpr int GF = (BF + RF - 1) / RF; /**< threads per element with face rows */
  static constexpr int LDF = GF * RF;           /**< padded rows of staged E^T and R^T */
  static_assert(GF <= G, "the face rows must fit into the element's threads");
  static constexpr int ETS = 4 * B * LDF; /**< staged E_i^T, [i][k][LDF] */
  static constexpr int RTS = 3 * BF * LDF; /**< staged R_h^T, [h][m'][LDF] */
  /** columns of [M^-1 E_j] per staged chunk: all where they fit into the region of E^T and R^T (or the usual chunk budget) */
  static constexpr int KC = cmax(1, cmin(4 * BF, cmax(ETS + RTS, SQ_CUDA_XS_BUDGET / RS) / LDX));
  /** the block's reference-matrix region, a multiple of 16 bytes */
  static constexpr int MAT = (cmax(ETS + RTS, KC * LDX) * RS + 15) / 16 * 16 / RS;
  /** per element: neighbour data B x 9, U Bf x 9, the stack 4Bf x 9, in rows of S (see Shape::QS) */
  static constexpr int QS = pad16(B * S, RS), US = pad16(BF * S, RS), TS = pad16(4 * BF * S, RS);
  static constexpr int PER_ELEMENT = QS + US + TS + 9 * S + 4 * 16 / RS;
  static constexpr int TARGET = SQ_CUDA_BLOCK_TARGET;
  /** at least as much room for the elements as for the matrices (order 7, double precision: 94 KB of matrices) */
  static constexpr int BUDGET = cmax(SQ_CUDA_SMEM_BUDGET_LARGE, 2 * MAT * RS);
  static constexpr int E = cmax(1, cmin(cmax(1, TARGET / G), (BUDGET / RS - MAT) / PER_ELEMENT)); /**< elements per block */
  static constexpr int THREADS = G * E;
  /* regions, in reals from the block's base; each a multiple of 16 bytes */
  static constexpr int OFF_ET = 0, OFF_RT = ETS, OFF_XS = 0; /* the B x 4Bf chunks reuse the E^T, R^T region */
  static constexpr int OFF_EVEN = MAT;                      /**< neighbour data of the face, [el][k][S] */
  static constexpr int OFF_U = OFF_EVEN + E * QS;           /**< U, [el][m][S] */
  static constexpr int OFF_T = OFF_U + E * US;              /**< the stack [T_0; ..; T_3], [el][j Bf + m][S] */
  static constexpr int OFF_MS = OFF_T + E * TS;             /**< the face's -Anb_j, [el][p][S] */
  static constexpr int OFF_LINKS = OFF_MS + E * 9 * S;      /**< E x 4 sq_face_link */
  static constexpr int SMEM = MAT + E * PER_ELEMENT;
  static_assert((MAT * RS) % 16 == 0 && (ETS * RS) % (RF * RS) == 0 && (E * 9 * S * RS) % 16 == 0,
                "shared regions must stay aligned");
  static_assert(SMEM * RS <= SQ_CUDA_SMEM_MAX, "the factorised neighbour kernel's shared memory exceeds a block's");
};

/** Stage @p count column-major matrices of @p rows x @p cols (leading dimension rows) as [mat][col][LDF], rows padded with 0. */
template <class T>
__device__ __forceinline__ void stage_face_matrices(const typename T::Real *__restrict__ src, int count, int rows,
                                                    int cols, typename T::Real *dst) {
  using Real = typename T::Real;
  copy_batched<T>(
      count * cols * T::LDF,
      [&](int idx) {
        const int column = idx / T::LDF, m = idx - column * T::LDF; /* column = mat * cols + col */
        return m < rows ? src[column * rows + m] : Real(0);
      },
      [&](int idx, Real v) { dst[idx] = v; });
}

/**
 * Factorised neighbour flux (file comment): dofs -= sum_j M^-1 E_j R_h^T E_i^T I_nb Anb_j^T, with
 * (j, i, h) from link.flux = (j 4 + i) 3 + h.  Same arguments as neighbor_kernel.
 */
template <int ORDER, typename Real>
__global__ void __launch_bounds__(NeighborFactorShape<ORDER, Real>::THREADS)
    neighbor_factor_kernel(int64_t n_all, int epb, const Real *__restrict__ pack,
                           const sq_face_link *__restrict__ links, const Real *__restrict__ flux_nb,
                           const __grid_constant__ sq_cuda_slots slots, Real *__restrict__ dofs) {
  using T = NeighborFactorShape<ORDER, Real>;
  constexpr int BB = T::B * T::B;
  SQ_CUDA_SHARED(Real, smem);
  Real *Is = smem + T::OFF_EVEN, *Us = smem + T::OFF_U, *Ts = smem + T::OFF_T, *Ms = smem + T::OFF_MS;
  const Real *ETs = smem + T::OFF_ET, *RTs = smem + T::OFF_RT;
  sq_face_link *Ls = reinterpret_cast<sq_face_link *>(smem + T::OFF_LINKS);
  const int64_t e0 = (int64_t)blockIdx.x * epb, n = block_end(n_all, e0, epb);
  const int ne = (int)(n - e0);
  const int el = threadIdx.x / T::G, g = threadIdx.x - el * T::G, row0 = g * T::R;
  const int64_t e = e0 + el;
  for (int idx = threadIdx.x; idx < T::E * 4; idx += T::THREADS) {
    const sq_face_link none = {SQ_LINK_NONE, 0, 0, 0};
    Ls[idx] = idx / 4 < ne ? links[e0 * 4 + idx] : none;
  }
  stage_face_matrices<T>(pack + SQ_PACK_FACE_ET * BB, 4, T::BF, T::B, smem + T::OFF_ET);
  stage_face_matrices<T>(pack + SQ_PACK_FACE_RT * BB, 3, T::BF, T::BF, smem + T::OFF_RT);
  /* face rows of this thread: m0 .. m0 + RF - 1 of the element's Bf x 9 face blocks */
  const bool face_rows = g < T::GF;
  const int m0 = g * T::RF;
  const Real *Ie = Is + el * T::QS;
  Real *Ue = Us + el * T::US, *Te = Ts + el * T::TS;
  if (face_rows) /* the stack's rows of this thread start at 0: faces without neighbour add nothing */
    for (int jf = 0; jf < 4; ++jf)
#pragma unroll
      for (int i = 0; i < T::RF; ++i)
        if (m0 + i < T::BF)
#pragma unroll
          for (int p = 0; p < 9; ++p) Te[(jf * T::BF + m0 + i) * T::S + p] = Real(0);
  for (int j = 0; j < 4; ++j) {
    __syncthreads(); /* Is, Us, Ms free; Ls, E^T, R^T complete */
    stage_neighbor<T>(Ls, j, ne, slots, Is);
    stage_matrix<T>(flux_nb, 4, j, Real(-1), e0, n, Ms);
    __syncthreads();
    const sq_face_link me = Ls[el * 4 + j];
    const bool linked = me.kind != SQ_LINK_NONE;
    /* j of F^+_{j,i,h} from the link, as the CPU kernel reads it (it is the face's own j in a mesh) */
    const int flux_face = me.flux / 12, nbface = (me.flux / 3) % 4, orient = me.flux % 3;
    if (face_rows && linked) { /* U = E_i^T I_nb */
      Real U[T::RF][9];
      zero(U);
      fold_rows<Real, T::RF, T::S>(ETs + nbface * T::B * T::LDF, T::LDF, Ie, 0, m0, T::B, U);
#pragma unroll
      for (int i = 0; i < T::RF; ++i)
        if (m0 + i < T::BF)
#pragma unroll
          for (int q = 0; q < 9; ++q) Ue[(m0 + i) * T::S + q] = U[i][q];
    }
    __syncthreads(); /* U complete */
    if (face_rows && linked) { /* T_j = (R_h^T U) (-Anb_j)^T, added to block j of the stack */
      Real V[T::RF][9], Tj[T::RF][9];
      zero(V);
      fold_rows<Real, T::RF, T::S>(RTs + orient * T::BF * T::LDF, T::LDF, Ue, 0, m0, T::BF, V);
      zero(Tj);
      apply_star<T::S>(V, Ms + el * 9 * T::S, Tj);
      Real *block = Te + flux_face * T::BF * T::S;
#pragma unroll
      for (int i = 0; i < T::RF; ++i)
        if (m0 + i < T::BF)
#pragma unroll
          for (int p = 0; p < 9; ++p) block[(m0 + i) * T::S + p] += Tj[i][p];
    }
  }
  /* dofs += [M^-1 E_0 | .. | M^-1 E_3] [T_0; ..; T_3]; product() syncs before it overwrites E^T, R^T */
  Real acc[T::R][9];
  product<T, T::B, 4 * T::BF>(pack + SQ_PACK_FACE_E * BB, Te, row0, e < n, acc, smem + T::OFF_XS,
                               (const Real *)nullptr, 0, 0, Real(0), e0, n, (Real *)nullptr);
  if (e < n) global_add_rows<T>(dofs + e * T::NQ, row0, acc);
}

} // namespace sq_cuda

#endif
