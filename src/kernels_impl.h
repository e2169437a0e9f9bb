/**
 * @file kernels_impl.h  One source for the element kernels, instantiated per precision by
 * kernels_f64.c and kernels_f32.c, which define SQ_REAL, SQ_FN(name) and, with libxsmm,
 * SQ_XSMM_FUNCTION and SQ_XSMM_DISPATCH.  The order is a run-time argument.
 *
 * Each kernel is a short sequence of small column-major GEMMs (struct gemm), in two stages:
 * - star stage: T = Q . A^T with the element's 9x9 matrices (B x 9 times 9 x 9);
 * - stiffness stage: X . T with the reference matrices (B x B times B x 9), where the work is.
 * Where several products are summed they are laid out so that one GEMM does the sum (local: the 7
 * reference matrices are consecutive in the pack, so [Kvol_1..3 Flocal_1..4] is one B x 7B matrix
 * and the 7 T's are stacked into 7B x 9).  Subtracted terms use negated copies of the element's 9x9
 * matrices (exact), since libxsmm 1.17 supports alpha = 1 only.  A GEMM runs a libxsmm JIT kernel,
 * generated at run time for the host CPU (AVX2, AVX-512) and cached in a table per precision and
 * order filled once (pthread_once), or plain C loops over the contiguous row index.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifdef SQ_USE_XSMM
#include <libxsmm.h>
#endif

#include "sq_attenuation.h"

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

/** Every product of one order; ader_*[i] is time derivative i (1 <= i < order). */
typedef struct SQ_FN(plan) {
  SQ_FN(gemm) local_star;                  /* B x 9 x 9: T_i = I . M_i^T into the 7B x 9 stack */
  SQ_FN(gemm) local_stiff;                 /* B x 9 x 7B: [Kvol Flocal] . stack */
  SQ_FN(gemm) face_star;                   /* B x 9 x 9: T = I_nb . (-Anb_j)^T */
  SQ_FN(gemm) face_stiff[2];               /* B x 9 x B: Fnb . T, first face (= ) and later faces (+=) */
  SQ_FN(gemm) ader_star[SQ_ORDER_MAX];     /* nin x 27 x 9: [T_1 T_2 T_3] = D^{i-1} . [-A_1^T -A_2^T -A_3^T] */
  SQ_FN(gemm) ader_stiff[SQ_ORDER_MAX][2]; /* nout x 9 x nin: D^i (+)= Kder_d . T_d */
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

/* Shapes of every order; [0]: SQ_GEMM_BEST, [1]: SQ_GEMM_PLAIN.  Written once, read-only after. */
static SQ_FN(plan) SQ_FN(plans)[2][SQ_ORDER_MAX + 1];
static char SQ_FN(plans_name)[160];
static pthread_once_t SQ_FN(plans_once) = PTHREAD_ONCE_INIT;

static void SQ_FN(plans_init)(void) {
  int ngemm = 0, njit = 0;
  for (int impl = 0; impl < 2; ++impl)
    for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order) {
      SQ_FN(plan) *p = &SQ_FN(plans)[impl][order];
      const int B = sq_nbasis(order), jit = impl == SQ_GEMM_BEST;
      int got = 0, want = 5 + 3 * (order - 1);
      got += SQ_FN(gemm_init)(&p->local_star, B, 9, 9, B, 9, 7 * B, 0, jit);
      got += SQ_FN(gemm_init)(&p->local_stiff, B, 9, 7 * B, B, 7 * B, B, 0, jit);
      got += SQ_FN(gemm_init)(&p->face_star, B, 9, 9, B, 9, B, 0, jit);
      for (int add = 0; add < 2; ++add) got += SQ_FN(gemm_init)(&p->face_stiff[add], B, 9, B, B, B, B, add, jit);
      for (int i = 1; i < order; ++i) {
        const int nin = sq_nbasis(order - i + 1), nout = sq_nbasis(order - i);
        got += SQ_FN(gemm_init)(&p->ader_star[i], nin, 27, 9, B, 9, B, 0, jit);
        for (int add = 0; add < 2; ++add)
          got += SQ_FN(gemm_init)(&p->ader_stiff[i][add], nout, 9, nin, B, B, B, add, jit);
      }
      if (jit) ngemm += want, njit += got;
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
  return &SQ_FN(plans)[impl == SQ_GEMM_PLAIN][order];
}

static const char *SQ_FN(gemm_name)(void) {
  pthread_once(&SQ_FN(plans_once), SQ_FN(plans_init));
  return SQ_FN(plans_name);
}

/* Cauchy-Kovalevski (eq. 3.33): D^i = -sum_d Kder_d D^{i-1} A*_d^T, and the time integral (eq. 3.34). */
static void SQ_FN(ader)(const SQ_FN(plan) * plan, int order, int64_t n, const sq_real_t *pack, const sq_real_t *dofs,
                        const sq_real_t *star, double dt, sq_real_t *tint, sq_real_t *derivs) {
  const int B = sq_nbasis(order), BB = B * B, nq = B * 9, nth = sq_kernel_threads();
#pragma omp parallel for num_threads(nth) if (nth > 1) schedule(static)
  for (int64_t e = 0; e < n; ++e) {
    _Alignas(64) sq_real_t work[2][SQ_MAXB9], tmp[3 * SQ_MAXB9], nstar[243];
    const sq_real_t *cur = dofs + e * nq;
    sq_real_t *ti = tint + e * nq;
    if (derivs) memcpy(derivs + (e * order) * nq, cur, nq * sizeof(sq_real_t));
    double factor = dt; /* dt^{i+1} / (i+1)! */
    SQ_FN(scale)(nq, (sq_real_t)factor, cur, ti);
    SQ_FN(scale)(243, -1, star + e * 243, nstar);
    for (int i = 1; i < order; ++i) {
      /* D^i is a polynomial of degree N - i: only the first nb(order - i) coefficients are non-zero */
      const int nout = sq_nbasis(order - i);
      sq_real_t *next = derivs ? derivs + (e * order + i) * nq : work[i & 1];
      SQ_FN(gemm_run)(&plan->ader_star[i], cur, nstar, tmp);
      for (int d = 0; d < 3; ++d)
        SQ_FN(gemm_run)(&plan->ader_stiff[i][d > 0], pack + (SQ_PACK_KDER + d) * BB, tmp + d * nq, next);
      if (derivs) /* the stored D^i is B x 9; the work buffers' rows >= nout are never read */
        for (int p = 0; p < 9; ++p)
          for (int k = nout; k < B; ++k) next[k + p * B] = 0;
      factor *= dt / (i + 1);
      for (int p = 0; p < 9; ++p) SQ_FN(axpy)(nout, (sq_real_t)factor, next + p * B, ti + p * B);
      cur = next;
    }
  }
}

/* Volume and local flux: dofs += [Kvol_1..3 Flocal_1..4] . [T_1; ..; T_7], T = I . [A*_d, -Aloc_j]^T. */
static void SQ_FN(local)(const SQ_FN(plan) * plan, int order, int64_t n, const sq_real_t *pack, const sq_real_t *tint,
                         const sq_real_t *star, const sq_real_t *flux_local, sq_real_t *dofs) {
  const int B = sq_nbasis(order), BB = B * B, nq = B * 9, nth = sq_kernel_threads();
#pragma omp parallel for num_threads(nth) if (nth > 1) schedule(static)
  for (int64_t e = 0; e < n; ++e) {
    _Alignas(64) sq_real_t stack[7 * SQ_MAXB9], update[SQ_MAXB9], nflux[324];
    const sq_real_t *ti = tint + e * nq;
    sq_real_t *q = dofs + e * nq;
    SQ_FN(scale)(324, -1, flux_local + e * 324, nflux);
    for (int d = 0; d < 3; ++d) SQ_FN(gemm_run)(&plan->local_star, ti, star + e * 243 + d * 81, stack + d * B);
    for (int j = 0; j < 4; ++j) SQ_FN(gemm_run)(&plan->local_star, ti, nflux + j * 81, stack + (3 + j) * B);
    /* sum the update first and round it onto the dofs once: the increment is much smaller than the
     * state, so this keeps single-precision round-off well below the discretisation error */
    SQ_FN(gemm_run)(&plan->local_stiff, pack + SQ_PACK_KVOL * BB, stack, update);
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

/* Neighbour flux: dofs -= sum_j Fnb_{j,i,h} . (I_nb Anb_j^T), faces without neighbour skipped. */
static void SQ_FN(neighbor)(const SQ_FN(plan) * plan, int order, int64_t n, const sq_real_t *pack,
                            const sq_face_link *links, const sq_real_t *flux_nb, const void *const *nb_data,
                            const double *nb_t0, const double *nb_t1, sq_real_t *dofs) {
  const int B = sq_nbasis(order), BB = B * B, nq = B * 9, nth = sq_kernel_threads();
#pragma omp parallel for num_threads(nth) if (nth > 1) schedule(static)
  for (int64_t e = 0; e < n; ++e) {
    _Alignas(64) sq_real_t tmp[SQ_MAXB9], integ[SQ_MAXB9], update[SQ_MAXB9], nflux[81];
    sq_real_t *q = dofs + e * nq;
    int nface = 0;
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
      SQ_FN(gemm_run)(&plan->face_star, src, nflux, tmp);
      /* one rounding onto the dofs, as in local */
      SQ_FN(gemm_run)(&plan->face_stiff[nface > 0], pack + (SQ_PACK_FNB + ln->flux) * BB, tmp, update);
      ++nface;
    }
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
}

static void SQ_FN(accumulate)(int order, int64_t n, const sq_real_t *tint, int reset, sq_real_t *buffer) {
  const int64_t len = n * sq_nbasis(order) * 9;
  if (reset) memcpy(buffer, tint, len * sizeof(sq_real_t));
  else
    for (int64_t i = 0; i < len; ++i) buffer[i] += tint[i];
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
