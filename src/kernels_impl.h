/**
 * @file kernels_impl.h  One source for the element kernels, instantiated per precision by
 * kernels_f64.c and kernels_f32.c, which define SQ_REAL, SQ_FN(name) and, with libxsmm,
 * SQ_XSMM_FUNCTION and SQ_XSMM_DISPATCH.  The order is a run-time argument.
 *
 * Each kernel is a short sequence of small column-major products, in two stages:
 * - star stage: T = Q . A^T with the element's 9x9 matrices (B x 9 times 9 x 9);
 * - stiffness stage: X . T with the reference matrices (B x B times B x 9), where the work is.
 * A plan (struct plan, one per order and sq_gemm_impl) says how each stage runs:
 * - sparse plans (SQ_GEMM_BEST, SQ_GEMM_PLAIN) apply the star matrices A*_d by the two dense blocks that hold
 *   their SQ_STAR_NNZ non-zeros (star_blocks: 36 multiply-adds per row instead of 81; the 24 non-zeros alone as
 *   plain C loops ran slower than these JIT blocks), stage the volume term on the nb(O-1) rows of I that K_vol reads,
 *   and multiply K_vol and K_der by their non-zero blocks only: K_vol,d(l, k) != 0 needs deg psi_k < deg psi_l,
 *   K_der,d(l, k) != 0 needs deg psi_l < deg psi_k, so each is block-triangular over the degrees and a
 *   column group of degrees [ha, hb] has its non-zeros in one row range (group_rows); plan_groups cuts the
 *   degrees into the groups that minimise a cost model of the small GEMMs (group_cost).  Where it saves a quarter
 *   of their FLOPs (orders 6, 7), the flux matrices go through the face basis of sq_ref, F^-_j = E_j E_j^T and
 *   F^+_{j,i,h} = E_j R_h^T E_i^T (the pack's SQ_PACK_LIFT, SQ_PACK_PROJ, SQ_PACK_RPROJ): the 9 x 9 flux solvers act
 *   on Bf face coefficients; below, the flux products stay dense.
 * - the dense plan (SQ_GEMM_DENSE) runs every product on whole (truncated) blocks: the formulation that the
 *   sparse plans are tested and measured against.
 * Where several products are summed they are laid out so that one GEMM does the sum (local: the 7
 * reference matrices are consecutive in the pack, so [Kvol_1..3 Flocal_1..4] is one B x 7B matrix
 * and the 7 T's are stacked into 7B x 9; the sparse plan keeps that for the 4 flux terms).  Subtracted terms
 * use negated copies of the element's 9x9 matrices (exact), since libxsmm 1.17 supports alpha = 1 only.
 * A GEMM runs a libxsmm JIT kernel, generated at run time for the host CPU (AVX2, AVX-512) and cached in a
 * table per precision and order filled once (pthread_once), or plain C loops over the contiguous row index.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifdef SQ_USE_XSMM
#include <libxsmm.h>
#endif

#include "sq_attenuation.h"
#include "sq_physics.h"

typedef SQ_REAL sq_real_t;

/** c(m x n, ld ldc) = [c +] a(m x k, ld lda) . b(k x n, ld ldb), all column-major. */
typedef struct SQ_FN(gemm) {
  int m, n, k, lda, ldb, ldc;
  int add; /* 1: c += a b (beta = 1); 0: c = a b */
#ifdef SQ_USE_XSMM
  SQ_XSMM_FUNCTION jit; /* NULL: libxsmm declined this shape, use the loops */
  int vzeroupper;       /* jit uses AVX registers: clear their upper halves before SSE code runs */
#endif
} SQ_FN(gemm);

/** One product with a block of a packed reference matrix: out + c_off (+)= (pack + a_off) . (rhs + b_off). */
typedef struct SQ_FN(block) {
  SQ_FN(gemm) g;
  int a_off, b_off, c_off;
} SQ_FN(block);

/** Largest face-basis block Bf x 9. */
#define SQ_MAXBF9 (SQ_ORDER_MAX * (SQ_ORDER_MAX + 1) / 2 * 9)

/** Most blocks of one stiffness stage: 3 matrices of at most SQ_ORDER_MAX column groups, and the flux term. */
#define SQ_NBLOCK_MAX (3 * SQ_ORDER_MAX + 1)

/** Every product of one order; ader_*[i] is time derivative i (1 <= i < order). */
typedef struct SQ_FN(plan) {
  int sparse;             /* star matrices as their non-zeros, reference matrices by their non-zero blocks */
  int nvol;               /* rows of I that the volume term reads: nb(O-1) (sparse) or B */
  SQ_FN(gemm) local_star; /* B x 9 x 9: T_j = I . M_j^T into the 7B x 9 stack */
  int nlocal;             /* blocks of the local stiffness stage */
  SQ_FN(block) local_stiff[SQ_NBLOCK_MAX]; /* [Kvol Flocal] . stack, as blocks */
  SQ_FN(gemm) face_star;                   /* B x 9 x 9: T = I_nb . (-Anb_j)^T */
  SQ_FN(gemm) face_stiff[2];               /* B x 9 x B: Fnb . T, first face (= ) and later faces (+=) */
  SQ_FN(gemm) ader_star[SQ_ORDER_MAX];     /* dense plan: nin x 27 x 9: [T_1 T_2 T_3] = D^{i-1} . [-A_d^T] */
  SQ_FN(gemm) ader_sv[SQ_ORDER_MAX][2];    /* sparse plan: the two non-zero blocks of one star matrix (star_blocks) */
  SQ_FN(gemm) local_sv[2];                 /* sparse plan: the same for the volume term, nvol rows */
  /* sparse plan, flux terms through the face basis (Bf coefficients): local, P = [E_j^T] I (4Bf x 9 x B),
   * S_j = P_j (-Aloc_j)^T (Bf x 9 x 9), update = [M^-1 E_j] S (B x 9 x 4Bf); neighbour, per face
   * P = (R_h^T E_i^T) I_nb (Bf x 9 x B), S_j += P (-Anb_j)^T, then the same lift of all four S_j */
  int flux_factored; /* sparse plan: the flux terms through the face basis (else dense, as the dense plan) */
  SQ_FN(gemm) flux_proj, flux_solver, flux_lift;
  SQ_FN(gemm) nb_proj, nb_solver;
  int nader[SQ_ORDER_MAX];                              /* blocks of step i */
  SQ_FN(block) ader_stiff[SQ_ORDER_MAX][SQ_NBLOCK_MAX]; /* D^i (+)= Kder_d . T_d on nout x nin, as blocks */
} SQ_FN(plan);

/* y = a x and y += a x, unrolled by 4 so that gcc -O2 vectorises them (its loop vectoriser there
 * refuses trip counts that are not known multiples of the vector length; the SLP one does not) */
static inline void SQ_FN(scale)(int len, sq_real_t a, const sq_real_t *restrict x, sq_real_t *restrict y) {
  int i = 0;
  for (; i + 4 <= len; i += 4) {
    y[i] = a * x[i];
    y[i + 1] = a * x[i + 1];
    y[i + 2] = a * x[i + 2];
    y[i + 3] = a * x[i + 3];
  }
  for (; i < len; ++i) y[i] = a * x[i];
}
static inline void SQ_FN(axpy)(int len, sq_real_t a, const sq_real_t *restrict x, sq_real_t *restrict y) {
  int i = 0;
  for (; i + 4 <= len; i += 4) {
    y[i] += a * x[i];
    y[i + 1] += a * x[i + 1];
    y[i + 2] += a * x[i + 2];
    y[i + 3] += a * x[i + 3];
  }
  for (; i < len; ++i) y[i] += a * x[i];
}

/* Ask for len reals at p in the cache ahead of their use (write: about to be stored).  The element loops fetch the
 * next element's blocks while this one computes: where a step's data come from main memory rather than a cache, the
 * kernels wait on it (the sparse plans most, having less arithmetic to hide it behind), and the hardware's stream
 * prefetchers, which stop at page boundaries, start afresh on nearly every block of a few KB (docs/PERFORMANCE.md,
 * "CPU codelets"). */
static inline void SQ_FN(prefetch)(const sq_real_t *p, int len, int write) {
  const char *c = (const char *)p;
  const size_t bytes = (size_t)len * sizeof(sq_real_t);
  for (size_t o = 0; o < bytes; o += 64) {
    if (write) __builtin_prefetch(c + o, 1);
    else __builtin_prefetch(c + o, 0);
  }
}

static void SQ_FN(gemm_loops)(const SQ_FN(gemm) * g, const sq_real_t *restrict a, const sq_real_t *restrict b,
                              sq_real_t *restrict c) {
  for (int j = 0; j < g->n; ++j) {
    sq_real_t *restrict cj = c + (size_t)j * g->ldc;
    if (!g->add)
      for (int i = 0; i < g->m; ++i) cj[i] = 0;
    for (int l = 0; l < g->k; ++l) {
      const sq_real_t blj = b[l + (size_t)j * g->ldb];
      if (blj == 0) continue; /* the star matrices are half zeros */
      SQ_FN(axpy)(g->m, blj, a + (size_t)l * g->lda, cj);
    }
  }
}

#ifdef SQ_USE_XSMM
/* libxsmm 1.17 kernels return without vzeroupper, and the rest of the binary is SSE (x86-64-v2):
 * the first SSE instruction after an AVX kernel pays a state transition, a noticeable part of a small
 * kernel's time.  Not inlined, so that no spilled SSE value is reloaded between call and vzeroupper. */
static __attribute__((noinline)) void SQ_FN(jit_call_avx)(SQ_XSMM_FUNCTION jit, const sq_real_t *a, const sq_real_t *b,
                                                          sq_real_t *c) {
  jit(a, b, c);
  __asm__ volatile("vzeroupper" ::: "memory");
}
#endif

static inline void SQ_FN(gemm_run)(const SQ_FN(gemm) * g, const sq_real_t *a, const sq_real_t *b, sq_real_t *c) {
#ifdef SQ_USE_XSMM
  if (g->jit) {
    if (g->vzeroupper) SQ_FN(jit_call_avx)(g->jit, a, b, c);
    else g->jit(a, b, c);
    return;
  }
#endif
  SQ_FN(gemm_loops)(g, a, b, c);
}

/* Set the shape of g; with jit, ask libxsmm for a kernel.  Returns 1 if g got one. */
static int SQ_FN(gemm_init)(SQ_FN(gemm) * g, int m, int n, int k, int lda, int ldb, int ldc, int add, int jit) {
  *g = (SQ_FN(gemm)){.m = m, .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc, .add = add};
#ifdef SQ_USE_XSMM
  if (jit) {
    const libxsmm_blasint ld[3] = {lda, ldb, ldc};
    const sq_real_t alpha = 1, beta = add ? 1 : 0;
    const int flags = add ? LIBXSMM_GEMM_FLAG_NONE : LIBXSMM_GEMM_FLAG_BETA_0;
    const int prefetch = LIBXSMM_GEMM_PREFETCH_NONE; /* the kernels are called with (a, b, c) only */
    g->jit = SQ_XSMM_DISPATCH(m, n, k, &ld[0], &ld[1], &ld[2], &alpha, &beta, &flags, &prefetch);
    g->vzeroupper = libxsmm_get_target_archid() >= LIBXSMM_X86_AVX;
    return g->jit != NULL;
  }
#endif
  (void)jit;
  return 0;
}

/* The star pattern (SQ_STAR_NONZERO) in two dense blocks: the stress rows 0..5 of a star matrix read only the
 * velocities 6..8, the velocity rows 6..8 only the stresses 0..5.  So T = Q . A^T is
 *   T(:, 0..5) = Q(:, 6..8) . A(0..5, 6..8)^T  (rows x 6 x 3)  and  T(:, 6..8) = Q(:, 0..5) . A(6..8, 0..5)^T (rows x 3
 * x 6), 36 multiply-adds per row instead of 81 (the pattern's 24 and 12 zeros of the shear rows).  A row-major A read
 * column-major with leading dimension 9 is A^T, so both blocks are sub-matrices of it. */
_Static_assert(((SQ_STAR_ROW_MASK(0) | SQ_STAR_ROW_MASK(1) | SQ_STAR_ROW_MASK(2) | SQ_STAR_ROW_MASK(3) |
                 SQ_STAR_ROW_MASK(4) | SQ_STAR_ROW_MASK(5)) &
                ~0x1C0) == 0 &&
                   ((SQ_STAR_ROW_MASK(6) | SQ_STAR_ROW_MASK(7) | SQ_STAR_ROW_MASK(8)) & ~0x03F) == 0,
               "the star pattern lies in the two blocks of star_blocks");
static int SQ_FN(star_blocks_init)(SQ_FN(gemm) g[2], int rows, int ldq, int ldt, int jit) {
  return SQ_FN(gemm_init)(&g[0], rows, 6, 3, ldq, 9, ldt, 0, jit) +
         SQ_FN(gemm_init)(&g[1], rows, 3, 6, ldq, 9, ldt, 0, jit);
}
static inline void SQ_FN(star_blocks_run)(const SQ_FN(gemm) g[2], int ldq, int ldt, const sq_real_t *q,
                                          const sq_real_t *a, sq_real_t *t) {
  SQ_FN(gemm_run)(&g[0], q + 6 * ldq, a + 6, t);
  SQ_FN(gemm_run)(&g[1], q, a + 54, t + 6 * ldt);
}

/* Block-triangular reference matrices.  With deg psi_k the degree of basis function k (k < nb(g + 1) for
 * degree g), K_vol,d(l, k) = int dpsi_l/dxi_d psi_k is zero unless deg psi_k < deg psi_l, and K_der,d = its
 * transpose is zero unless deg psi_l < deg psi_k.  Columns of degrees ha..hb are the columns nb(ha)..nb(hb+1)-1;
 * their non-zeros lie in rows r0..r1-1. */
enum { SQ_TRI_KVOL, SQ_TRI_KDER };
static void SQ_FN(group_rows)(int kind, int B, int ha, int hb, int *r0, int *r1) {
  if (kind == SQ_TRI_KVOL) *r0 = sq_nbasis(ha + 1), *r1 = B;
  else *r0 = 0, *r1 = sq_nbasis(hb);
}

/* Cost model of one block product m x 9 x k, in multiply-adds per column: the multiply-adds, the loads and stores
 * of the output rows (worth about 8 multiply-adds each), and a call (about 64); chosen by cpu-sparsity over a few
 * variants (one group per matrix, m k alone: slower at order 4 double) */
static double SQ_FN(group_cost)(int m, int k) { return (double)m * (k + 8) + 64; }

/* Cut the column degrees lo..hi into consecutive groups of least total group_cost (dynamic programming over the
 * prefixes); first[g] is the lowest degree of group g, in increasing order.  Returns the number of groups. */
static int SQ_FN(plan_groups)(int kind, int B, int lo, int hi, int first[SQ_ORDER_MAX]) {
  double best[SQ_ORDER_MAX + 1];
  int from[SQ_ORDER_MAX + 1], rev[SQ_ORDER_MAX], n = 0;
  best[0] = 0;
  for (int j = 1; j <= hi - lo + 1; ++j) {
    best[j] = -1;
    for (int i = 0; i < j; ++i) {
      int r0, r1;
      SQ_FN(group_rows)(kind, B, lo + i, lo + j - 1, &r0, &r1);
      const double c = best[i] + SQ_FN(group_cost)(r1 - r0, sq_nbasis(lo + j) - sq_nbasis(lo + i));
      if (best[j] < 0 || c < best[j]) best[j] = c, from[j] = i;
    }
  }
  for (int j = hi - lo + 1; j > 0; j = from[j]) rev[n++] = lo + from[j];
  for (int g = 0; g < n; ++g) first[g] = rev[n - 1 - g];
  return n;
}

/* The blocks of group g of the degrees lo..hi cut at first[]: reference matrix slot at pack offset a, right-hand
 * side at b (leading dimension ldb). */
static int SQ_FN(group_block)(SQ_FN(block) * blk, int kind, int B, int hi, const int *first, int ngroup, int g, int a,
                              int b, int ldb, int add, int jit) {
  const int ha = first[g], hb = g + 1 < ngroup ? first[g + 1] - 1 : hi, c0 = sq_nbasis(ha), c1 = sq_nbasis(hb + 1);
  int r0, r1;
  SQ_FN(group_rows)(kind, B, ha, hb, &r0, &r1);
  blk->a_off = a + r0 + c0 * B, blk->b_off = b + c0, blk->c_off = r0;
  return SQ_FN(gemm_init)(&blk->g, r1 - r0, 9, c1 - c0, B, ldb, B, add, jit);
}

/* A block of B whole rows: out (B x 9, ld B) (+)= (pack + a) (B x k, ld B) . (rhs + b) (k x 9, ld ldb) */
static int SQ_FN(block_init)(SQ_FN(block) * blk, int B, int k, int ldb, int add, int jit, int a, int b) {
  blk->a_off = a, blk->b_off = b, blk->c_off = 0;
  return SQ_FN(gemm_init)(&blk->g, B, 9, k, B, ldb, B, add, jit);
}

/* Plans of every order; [impl] for impl = SQ_GEMM_BEST, SQ_GEMM_PLAIN, SQ_GEMM_DENSE.  Written once, read-only
 * after. */
static SQ_FN(plan) SQ_FN(plans)[3][SQ_ORDER_MAX + 1];
static char SQ_FN(plans_name)[160];
static pthread_once_t SQ_FN(plans_once) = PTHREAD_ONCE_INIT;

/* Fill p for one order; returns the JIT kernels it got and sets *want to the products it has. */
static int SQ_FN(plan_init)(SQ_FN(plan) * p, int order, int sparse, int jit, int *want) {
  const int B = sq_nbasis(order), BB = B * B, nq = B * 9;
  int got = 0, n = 4, first[SQ_ORDER_MAX];
  p->sparse = sparse, p->flux_factored = 0;
  p->nvol = sparse ? sq_nbasis(order - 1) : B;
  got += SQ_FN(gemm_init)(&p->local_star, B, 9, 9, B, 9, 7 * B, 0, jit);
  got += SQ_FN(gemm_init)(&p->face_star, B, 9, 9, B, 9, B, 0, jit);
  for (int add = 0; add < 2; ++add) got += SQ_FN(gemm_init)(&p->face_stiff[add], B, 9, B, B, B, B, add, jit);
  /* local: dense, [Kvol Flocal] (B x 7B) . stack in one product; sparse, the flux terms through the face basis
   * (flux_*), then each K_vol,d by its column groups of degrees 0..O-2, added */
  if (!sparse) {
    p->nlocal = 1;
    got += SQ_FN(block_init)(&p->local_stiff[0], B, 7 * B, 7 * B, 0, jit, SQ_PACK_KVOL * BB, 0);
  } else {
    const int Bf = sq_nface_basis(order);
    got += SQ_FN(star_blocks_init)(p->local_sv, p->nvol, B, 7 * B, jit);
    n += 2;
    /* the factored flux products: 2 Bf B 9 + 2 Bf 81 + 2 B Bf 9 FLOPs a face against 2 B 81 + 2 B^2 9, worth
     * their smaller and more numerous GEMMs where they save a quarter (order 6 on) */
    p->flux_factored = 4.0 * Bf * B * 9 + 2.0 * Bf * 81 <= 0.75 * (2.0 * B * 81 + 2.0 * B * B * 9);
    p->nlocal = 0;
    if (p->flux_factored) {
      got += SQ_FN(gemm_init)(&p->flux_proj, 4 * Bf, 9, B, 4 * Bf, B, 4 * Bf, 0, jit);
      got += SQ_FN(gemm_init)(&p->flux_solver, Bf, 9, 9, 4 * Bf, 9, 4 * Bf, 0, jit);
      got += SQ_FN(gemm_init)(&p->flux_lift, B, 9, 4 * Bf, B, 4 * Bf, B, 0, jit);
      got += SQ_FN(gemm_init)(&p->nb_proj, Bf, 9, B, Bf, B, Bf, 0, jit);
      got += SQ_FN(gemm_init)(&p->nb_solver, Bf, 9, 9, Bf, 9, 4 * Bf, 1, jit);
      n += 5;
    } else {
      p->nlocal = 1;
      got += SQ_FN(block_init)(&p->local_stiff[0], B, 4 * B, 7 * B, 0, jit, SQ_PACK_FLOCAL * BB, 3 * B);
    }
    const int ng = SQ_FN(plan_groups)(SQ_TRI_KVOL, B, 0, order - 2, first);
    for (int d = 0; d < 3; ++d)
      for (int g = 0; g < ng; ++g)
        got += SQ_FN(group_block)(&p->local_stiff[p->nlocal++], SQ_TRI_KVOL, B, order - 2, first, ng, g,
                                  (SQ_PACK_KVOL + d) * BB, d * B, 7 * B, 1, jit);
  }
  n += p->nlocal;
  /* ader step i: nout x nin blocks of K_der,d; sparse, by column groups of degrees 1..O-i, the group of the
   * highest degree (rows 0..nout-1) first, so that it sets every row */
  for (int i = 1; i < order; ++i) {
    const int nin = sq_nbasis(order - i + 1), nout = sq_nbasis(order - i);
    SQ_FN(block) *blk = p->ader_stiff[i];
    p->nader[i] = 0;
    if (!sparse) {
      got += SQ_FN(gemm_init)(&p->ader_star[i], nin, 27, 9, B, 9, B, 0, jit);
      ++n;
      for (int d = 0; d < 3; ++d) {
        blk[p->nader[i]] = (SQ_FN(block)){.a_off = (SQ_PACK_KDER + d) * BB, .b_off = d * nq};
        got += SQ_FN(gemm_init)(&blk[p->nader[i]++].g, nout, 9, nin, B, B, B, d > 0, jit);
      }
    } else {
      got += SQ_FN(star_blocks_init)(p->ader_sv[i], nin, B, B, jit);
      n += 2;
      const int ng = SQ_FN(plan_groups)(SQ_TRI_KDER, B, 1, order - i, first);
      for (int d = 0; d < 3; ++d)
        for (int g = ng - 1; g >= 0; --g)
          got += SQ_FN(group_block)(&blk[p->nader[i]++], SQ_TRI_KDER, B, order - i, first, ng, g,
                                    (SQ_PACK_KDER + d) * BB, d * nq, B, d > 0 || g < ng - 1, jit);
    }
    n += p->nader[i];
  }
  *want = n;
  return got;
}

static void SQ_FN(plans_init)(void) {
  int ngemm = 0, njit = 0;
  for (int impl = 0; impl < 3; ++impl)
    for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order) {
      int want;
      const int jit = impl != SQ_GEMM_PLAIN;
      const int got = SQ_FN(plan_init)(&SQ_FN(plans)[impl][order], order, impl != SQ_GEMM_DENSE, jit, &want);
      if (impl == SQ_GEMM_BEST) ngemm += want, njit += got;
    }
#ifdef SQ_USE_XSMM
  if (njit == ngemm)
    snprintf(SQ_FN(plans_name), sizeof(SQ_FN(plans_name)), "libxsmm JIT (%s)", libxsmm_get_target_arch());
  else if (njit > 0)
    snprintf(SQ_FN(plans_name), sizeof(SQ_FN(plans_name)), "libxsmm JIT (%s) for %d of %d shapes, plain C for the rest",
             libxsmm_get_target_arch(), njit, ngemm);
  else
    snprintf(SQ_FN(plans_name), sizeof(SQ_FN(plans_name)), "plain C (libxsmm generated no kernel for target %s)",
             libxsmm_get_target_arch());
#else
  (void)njit;
  (void)ngemm;
  snprintf(SQ_FN(plans_name), sizeof(SQ_FN(plans_name)), "plain C (built without libxsmm)");
#endif
}

static const SQ_FN(plan) * SQ_FN(plan_get)(sq_gemm_impl impl, int order) {
  pthread_once(&SQ_FN(plans_once), SQ_FN(plans_init));
  return &SQ_FN(plans)[impl][order];
}

/* Run the blocks: out + c_off (+)= (pack + a_off) . (rhs + b_off). */
static inline void SQ_FN(blocks_run)(int nblock, const SQ_FN(block) * blk, const sq_real_t *pack, const sq_real_t *rhs,
                                     sq_real_t *out) {
  for (int b = 0; b < nblock; ++b)
    SQ_FN(gemm_run)(&blk[b].g, pack + blk[b].a_off, rhs + blk[b].b_off, out + blk[b].c_off);
}

/* The star stage of a Cauchy-Kovalevski step: T_d = -D . A*_d^T on the first rows of D (ld B), T_d at tmp + d 9B,
 * from the negated star matrices nstar: by the GEMM g (dense plans) or the star blocks sv (sparse plans). */
static inline void SQ_FN(ader_star_stage)(const SQ_FN(plan) * plan, const SQ_FN(gemm) * g, const SQ_FN(gemm) * sv,
                                          int B, const sq_real_t *D, const sq_real_t *nstar, sq_real_t *tmp) {
  if (plan->sparse)
    for (int d = 0; d < 3; ++d) SQ_FN(star_blocks_run)(sv, B, B, D, nstar + d * 81, tmp + d * 9 * B);
  else SQ_FN(gemm_run)(g, D, nstar, tmp);
}

static const char *SQ_FN(gemm_name)(void) {
  pthread_once(&SQ_FN(plans_once), SQ_FN(plans_init));
  return SQ_FN(plans_name);
}

/* Cauchy-Kovalevski (eq. 3.33): D^i = -sum_d Kder_d D^{i-1} A*_d^T, and the time integral (eq. 3.34). */
static void SQ_FN(ader)(const SQ_FN(plan) * plan, int order, int64_t n, const sq_real_t *pack, const sq_real_t *dofs,
                        const sq_real_t *star, double dt, sq_real_t *tint, sq_real_t *derivs) {
  const int B = sq_nbasis(order), nq = B * 9, nth = sq_kernel_threads();
#pragma omp parallel for num_threads(nth) if (nth > 1) schedule(static)
  for (int64_t e = 0; e < n; ++e) {
    _Alignas(64) sq_real_t work[2][SQ_MAXB9], tmp[3 * SQ_MAXB9], nstar[243];
    const sq_real_t *cur = dofs + e * nq, *st = star + e * 243;
    sq_real_t *ti = tint + e * nq;
    if (e + 1 < n) {
      SQ_FN(prefetch)(cur + nq, nq, 0);
      SQ_FN(prefetch)(st + 243, 243, 0);
      SQ_FN(prefetch)(ti + nq, nq, 1);
    }
    if (derivs) memcpy(derivs + (e * order) * nq, cur, nq * sizeof(sq_real_t));
    double factor = dt; /* dt^{i+1} / (i+1)! */
    SQ_FN(scale)(nq, (sq_real_t)factor, cur, ti);
    SQ_FN(scale)(243, -1, st, nstar);
    for (int i = 1; i < order; ++i) {
      /* D^i is a polynomial of degree N - i: only the first nb(order - i) coefficients are non-zero */
      const int nout = sq_nbasis(order - i);
      sq_real_t *next = derivs ? derivs + (e * order + i) * nq : work[i & 1];
      SQ_FN(ader_star_stage)(plan, &plan->ader_star[i], plan->ader_sv[i], B, cur, nstar, tmp);
      SQ_FN(blocks_run)(plan->nader[i], plan->ader_stiff[i], pack, tmp, next);
      if (derivs) /* the stored D^i is B x 9; the work buffers' rows >= nout are never read */
        for (int p = 0; p < 9; ++p)
          for (int k = nout; k < B; ++k) next[k + p * B] = 0;
      factor *= dt / (i + 1);
      for (int p = 0; p < 9; ++p) SQ_FN(axpy)(nout, (sq_real_t)factor, next + p * B, ti + p * B);
      cur = next;
    }
  }
}

/* Volume and local flux: dofs += [Kvol_1..3 Flocal_1..4] . [T_1; ..; T_7], T = I . [A*_d, -Aloc_j]^T; sparse
 * plans run Flocal_j = E_j E_j^T through the face basis and K_vol by its blocks. */
static void SQ_FN(local)(const SQ_FN(plan) * plan, int order, int64_t n, const sq_real_t *pack, const sq_real_t *tint,
                         const sq_real_t *star, const sq_real_t *flux_local, sq_real_t *dofs) {
  const int B = sq_nbasis(order), BB = B * B, nq = B * 9, Bf = sq_nface_basis(order), nth = sq_kernel_threads();
#pragma omp parallel for num_threads(nth) if (nth > 1) schedule(static)
  for (int64_t e = 0; e < n; ++e) {
    _Alignas(64) sq_real_t stack[7 * SQ_MAXB9], update[SQ_MAXB9], nflux[324], proj[4 * SQ_MAXBF9], face[4 * SQ_MAXBF9];
    const sq_real_t *ti = tint + e * nq, *st = star + e * 243;
    sq_real_t *q = dofs + e * nq;
    if (e + 1 < n) {
      SQ_FN(prefetch)(ti + nq, nq, 0);
      SQ_FN(prefetch)(st + 243, 243, 0);
      SQ_FN(prefetch)(flux_local + (e + 1) * 324, 324, 0);
      SQ_FN(prefetch)(q + nq, nq, 1);
    }
    SQ_FN(scale)(324, -1, flux_local + e * 324, nflux);
    /* sum the update first and round it onto the dofs once: the increment is much smaller than the
     * state, so this keeps single-precision round-off well below the discretisation error */
    if (plan->flux_factored) {
      SQ_FN(gemm_run)(&plan->flux_proj, pack + SQ_PACK_PROJ * BB, ti, proj);
      for (int j = 0; j < 4; ++j) SQ_FN(gemm_run)(&plan->flux_solver, proj + j * Bf, nflux + j * 81, face + j * Bf);
      SQ_FN(gemm_run)(&plan->flux_lift, pack + SQ_PACK_LIFT * BB, face, update);
    } else {
      for (int j = 0; j < 4; ++j) SQ_FN(gemm_run)(&plan->local_star, ti, nflux + j * 81, stack + (3 + j) * B);
    }
    for (int d = 0; d < 3; ++d) {
      if (plan->sparse) SQ_FN(star_blocks_run)(plan->local_sv, B, 7 * B, ti, st + d * 81, stack + d * B);
      else SQ_FN(gemm_run)(&plan->local_star, ti, st + d * 81, stack + d * B);
    }
    SQ_FN(blocks_run)(plan->nlocal, plan->local_stiff, pack, stack, update);
    SQ_FN(axpy)(nq, 1, update, q);
  }
}

static void SQ_FN(taylor_one)(int order, int B, const sq_real_t *d, double t0, double t1, sq_real_t *out) {
  const int nq = B * 9;
  memset(out, 0, nq * sizeof(sq_real_t));
  double p0 = t0, p1 = t1; /* t^{i+1} / (i+1)! */
  for (int i = 0; i < order; ++i) {
    SQ_FN(axpy)(nq, (sq_real_t)(p1 - p0), d + i * nq, out);
    p0 *= t0 / (i + 2);
    p1 *= t1 / (i + 2);
  }
}

/* Neighbour flux: dofs -= sum_j Fnb_{j,i,h} . (I_nb Anb_j^T), faces without neighbour skipped; sparse plans run
 * F+ through the face basis. */
static void SQ_FN(neighbor)(const SQ_FN(plan) * plan, int order, int64_t n, const sq_real_t *pack,
                            const sq_face_link *links, const sq_real_t *flux_nb, const void *const *nb_data,
                            const double *nb_t0, const double *nb_t1, sq_real_t *dofs) {
  const int B = sq_nbasis(order), BB = B * B, nq = B * 9, Bf = sq_nface_basis(order), nth = sq_kernel_threads();
#pragma omp parallel for num_threads(nth) if (nth > 1) schedule(static)
  for (int64_t e = 0; e < n; ++e) {
    _Alignas(64) sq_real_t tmp[SQ_MAXB9], integ[SQ_MAXB9], update[SQ_MAXB9], nflux[81], face[4 * SQ_MAXBF9];
    sq_real_t *q = dofs + e * nq;
    int nface = 0;
    if (e + 1 < n) { /* the next element's blocks and its neighbours' time integrals */
      SQ_FN(prefetch)(flux_nb + (e + 1) * 324, 324, 0);
      SQ_FN(prefetch)(q + nq, nq, 1);
      for (int j = 0; j < 4; ++j) {
        const sq_face_link *ln = links + (e + 1) * 4 + j;
        if (ln->kind == SQ_LINK_TINT)
          SQ_FN(prefetch)((const sq_real_t *)nb_data[ln->slot] + (size_t)ln->index * nq, nq, 0);
      }
    }
    for (int j = 0; j < 4; ++j) {
      const sq_face_link *ln = links + e * 4 + j;
      const sq_real_t *src;
      if (ln->kind == SQ_LINK_NONE) continue;
      if (ln->kind == SQ_LINK_TINT) {
        src = (const sq_real_t *)nb_data[ln->slot] + (size_t)ln->index * nq;
      } else {
        const sq_real_t *d = (const sq_real_t *)nb_data[ln->slot] + (size_t)ln->index * order * nq;
        SQ_FN(taylor_one)(order, B, d, nb_t0[ln->slot], nb_t1[ln->slot], integ);
        src = integ;
      }
      SQ_FN(scale)(81, -1, flux_nb + e * 324 + j * 81, nflux);
      /* one rounding onto the dofs, as in local */
      if (plan->flux_factored) { /* F+_{j,i,h} = E_j R_h^T E_i^T, flux = sq_ref_flux_index(j, i, h): S_j += P (-Anb)^T
                                  */
        if (!nface) memset(face, 0, 4 * Bf * 9 * sizeof(sq_real_t));
        SQ_FN(gemm_run)(&plan->nb_proj, pack + (SQ_PACK_RPROJ + ln->flux % 12) * BB, src, tmp);
        SQ_FN(gemm_run)(&plan->nb_solver, tmp, nflux, face + ln->flux / 12 * Bf);
      } else {
        SQ_FN(gemm_run)(&plan->face_star, src, nflux, tmp);
        SQ_FN(gemm_run)(&plan->face_stiff[nface > 0], pack + (SQ_PACK_FNB + ln->flux) * BB, tmp, update);
      }
      ++nface;
    }
    if (nface && plan->flux_factored) SQ_FN(gemm_run)(&plan->flux_lift, pack + SQ_PACK_LIFT * BB, face, update);
    if (nface) SQ_FN(axpy)(nq, 1, update, q);
  }
}

static void SQ_FN(taylor)(int order, int64_t n, const sq_real_t *derivs, double t0, double t1, sq_real_t *tint) {
  const int B = sq_nbasis(order), nq = B * 9;
  for (int64_t e = 0; e < n; ++e) SQ_FN(taylor_one)(order, B, derivs + e * order * nq, t0, t1, tint + e * nq);
}

static void SQ_FN(pack)(const sq_ref *ref, sq_real_t *out) {
  const int B = ref->nbasis, BB = B * B;
  for (int d = 0; d < 3; ++d)
    for (int l = 0; l < B; ++l)
      for (int k = 0; k < B; ++k) {
        out[(SQ_PACK_KDER + d) * BB + l + k * B] = (sq_real_t)(ref->stiff[d][k + l * B] / ref->mass[l]);
        out[(SQ_PACK_KVOL + d) * BB + l + k * B] = (sq_real_t)(ref->stiff[d][l + k * B] / ref->mass[l]);
      }
  for (int j = 0; j < 4; ++j)
    for (int l = 0; l < B; ++l)
      for (int k = 0; k < B; ++k)
        out[(SQ_PACK_FLOCAL + j) * BB + l + k * B] = (sq_real_t)(ref->flux_local[j][l + k * B] / ref->mass[l]);
  for (int f = 0; f < 48; ++f)
    for (int l = 0; l < B; ++l)
      for (int k = 0; k < B; ++k)
        out[(SQ_PACK_FNB + f) * BB + l + k * B] = (sq_real_t)(ref->flux_neighbor[f][l + k * B] / ref->mass[l]);
  const int Bf = ref->nface_basis;
  for (int j = 0; j < 4; ++j)
    for (int m = 0; m < Bf; ++m)
      for (int l = 0; l < B; ++l) {
        const double e = ref->face_project[j][l + m * B]; /* E_j(l, m) */
        out[SQ_PACK_LIFT * BB + l + (j * Bf + m) * B] = (sq_real_t)(e / ref->mass[l]);
        out[SQ_PACK_PROJ * BB + j * Bf + m + l * 4 * Bf] = (sq_real_t)e;
      }
  for (int i = 0; i < 4; ++i)
    for (int h = 0; h < 3; ++h)
      for (int m = 0; m < Bf; ++m)
        for (int k = 0; k < B; ++k) {
          double v = 0; /* (R_h^T E_i^T)(m, k) = sum_m' R_h(m', m) E_i(k, m') */
          for (int mp = 0; mp < Bf; ++mp) v += ref->face_rotate[h][mp + m * Bf] * ref->face_project[i][k + mp * B];
          out[(SQ_PACK_RPROJ + 3 * i + h) * BB + m + k * Bf] = (sq_real_t)v;
        }
}

static void SQ_FN(accumulate)(int order, int64_t n, const sq_real_t *tint, int reset, sq_real_t *buffer) {
  const int64_t len = n * sq_nbasis(order) * 9;
  if (reset) memcpy(buffer, tint, len * sizeof(sq_real_t));
  else
    for (int64_t i = 0; i < len; ++i) buffer[i] += tint[i];
}

/* FLOPs that plan executes per element update (2 m n k per product, plus the Taylor terms of ader): f[0] ader,
 * f[1] local, f[2] neighbor with four faces and no Taylor integral (GTS). */
static double SQ_FN(gemm_flops)(const SQ_FN(gemm) * g) { return 2.0 * g->m * g->n * g->k; }
static double SQ_FN(blocks_flops)(int nblock, const SQ_FN(block) * blk) {
  double f = 0;
  for (int b = 0; b < nblock; ++b) f += SQ_FN(gemm_flops)(&blk[b].g);
  return f;
}
static void SQ_FN(flops)(sq_gemm_impl impl, int order, double f[3]) {
  const SQ_FN(plan) *p = SQ_FN(plan_get)(impl, order);
  const double sv = p->sparse ? SQ_FN(gemm_flops)(&p->local_sv[0]) + SQ_FN(gemm_flops)(&p->local_sv[1]) : 0;
  f[0] = 9.0 * sq_nbasis(order);
  for (int i = 1; i < order; ++i) {
    f[0] += p->sparse ? 3 * (SQ_FN(gemm_flops)(&p->ader_sv[i][0]) + SQ_FN(gemm_flops)(&p->ader_sv[i][1]))
                      : SQ_FN(gemm_flops)(&p->ader_star[i]);
    f[0] += SQ_FN(blocks_flops)(p->nader[i], p->ader_stiff[i]) + 18.0 * sq_nbasis(order - i);
  }
  f[1] = 3 * (p->sparse ? sv : SQ_FN(gemm_flops)(&p->local_star)) + SQ_FN(blocks_flops)(p->nlocal, p->local_stiff);
  if (p->flux_factored) {
    f[1] +=
        SQ_FN(gemm_flops)(&p->flux_proj) + 4 * SQ_FN(gemm_flops)(&p->flux_solver) + SQ_FN(gemm_flops)(&p->flux_lift);
    f[2] = 4 * (SQ_FN(gemm_flops)(&p->nb_proj) + SQ_FN(gemm_flops)(&p->nb_solver)) + SQ_FN(gemm_flops)(&p->flux_lift);
  } else {
    f[1] += 4 * SQ_FN(gemm_flops)(&p->local_star);
    f[2] = 4 * (SQ_FN(gemm_flops)(&p->face_star) + SQ_FN(gemm_flops)(&p->face_stiff[0]));
  }
}

#include "kernels_ane_impl.h"

/* The entry points of this precision, called by the dispatchers of kernels.c (declared in kernels_entry.h). */
void SQ_FN(ader_entry)(sq_gemm_impl impl, int order, int64_t n, const void *pack, const void *dofs, const void *star,
                       double dt, void *tint, void *derivs) {
  SQ_FN(ader)(SQ_FN(plan_get)(impl, order), order, n, pack, dofs, star, dt, tint, derivs);
}
void SQ_FN(local_entry)(sq_gemm_impl impl, int order, int64_t n, const void *pack, const void *tint, const void *star,
                        const void *flux_local, void *dofs) {
  SQ_FN(local)(SQ_FN(plan_get)(impl, order), order, n, pack, tint, star, flux_local, dofs);
}
void SQ_FN(neighbor_entry)(sq_gemm_impl impl, int order, int64_t n, const void *pack, const sq_face_link *links,
                           const void *flux_nb, const void *const *nb_data, const double *nb_t0, const double *nb_t1,
                           void *dofs) {
  SQ_FN(neighbor)(SQ_FN(plan_get)(impl, order), order, n, pack, links, flux_nb, nb_data, nb_t0, nb_t1, dofs);
}
void SQ_FN(taylor_entry)(int order, int64_t n, const void *derivs, double t0, double t1, void *tint) {
  SQ_FN(taylor)(order, n, derivs, t0, t1, tint);
}
void SQ_FN(pack_entry)(const sq_ref *ref, void *out) { SQ_FN(pack)(ref, out); }
void SQ_FN(accumulate_entry)(int order, int64_t n, const void *tint, int reset, void *buffer) {
  SQ_FN(accumulate)(order, n, tint, reset, buffer);
}
const char *SQ_FN(gemm_name_entry)(void) { return SQ_FN(gemm_name)(); }
void SQ_FN(flops_entry)(sq_gemm_impl impl, int order, double f[3]) { SQ_FN(flops)(impl, order, f); }
void SQ_FN(ader_ane_entry)(sq_gemm_impl impl, int order, int nmech, int64_t n, const void *pack, const void *dofs,
                           const void *star, const void *coef, double dt, void *tint, void *derivs, void *ane) {
  SQ_FN(ader_ane)(SQ_FN(plan_get)(impl, order), order, nmech, n, pack, dofs, star, coef, dt, tint, derivs, ane);
}
void SQ_FN(ane_source_entry)(int order, int nmech, int64_t n, const void *ane, void *dofs) {
  SQ_FN(ane_source)(order, nmech, n, ane, dofs);
}
void SQ_FN(ane_coef_entry)(int64_t n, const double *in, void *out) { SQ_FN(ane_coef)(n, in, out); }
void SQ_FN(ane_shift_entry)(int order, int nmech, int64_t n, const void *coef, const void *dofs, int sign, void *ane) {
  SQ_FN(ane_shift)(order, nmech, n, coef, dofs, sign, ane);
}
