/**
 * @file test_kernels.c  Check suite for the CPU element kernels (kernels_impl.h): at every order and
 * precision, the products run by libxsmm (SQ_GEMM_BEST) against plain C (SQ_GEMM_PLAIN), and both
 * against a naive transcription of eq. 3.33-3.35 in double precision; the sparse plans against the dense one
 * (SQ_GEMM_DENSE), the anelastic predictor included; bitwise-repeatable results,
 * also from concurrent threads; the implementation name matches the build (libxsmm or not).
 * Tolerances: relative L2 <= 1e-13 in double, 1e-5 in single precision.
 */
#include "sq_check.h"
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sq_solver.h"
#include "sq_test_data.h"

static double tolerance(sq_precision p) { return p == SQ_F64 ? 1e-13 : 1e-5; }

static double get(sq_precision p, const void *a, size_t i) {
  return p == SQ_F64 ? ((const double *)a)[i] : (double)((const float *)a)[i];
}

/* ||a - b|| / ||b||, a in precision p, b in double (a non-finite value gives infinity). */
static double rel_l2(sq_precision p, const void *a, const double *b, size_t len) {
  double num = 0, den = 0;
  for (size_t i = 0; i < len; ++i) {
    const double x = get(p, a, i);
    if (!isfinite(x)) return INFINITY;
    num += (x - b[i]) * (x - b[i]);
    den += b[i] * b[i];
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

static double *to_double(sq_precision p, const void *a, size_t len) {
  double *d = malloc(len * sizeof(double));
  ck_assert(d);
  for (size_t i = 0; i < len; ++i) d[i] = get(p, a, i);
  return d;
}

static void check_close(const char *what, int order, sq_precision p, const void *got, const double *ref, size_t len) {
  const double err = rel_l2(p, got, ref, len);
  printf("  %-26s O%d %s  rel L2 %.3e\n", what, order, prec_name(p), err);
  ck_assert_msg(err <= tolerance(p), "%s order %d %s: relative L2 difference %.3e > %.0e", what, order, prec_name(p),
                err, tolerance(p));
}

/* Compare two results of the same precision, the second taken as reference. */
static void check_impls(const char *what, int order, sq_precision p, const void *best, const void *plain, size_t len) {
  double *ref = to_double(p, plain, len);
  check_close(what, order, p, best, ref, len);
  free(ref);
}

/* Jittered periodic box of 3^3 cubes (162 elements) with varying materials. */
static sq_disc *make_disc(int order, sq_precision prec, sq_mesh **mesh) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = 3;
  bp.jitter = 0.15;
  ck_assert_int_eq(sq_mesh_box(&bp, mesh), 0);
  sq_material *m = malloc(sizeof(sq_material) * (*mesh)->ncell);
  for (int64_t c = 0; c < (*mesh)->ncell; ++c) {
    const double s = 1.0 + (*mesh)->centroid[c * 3];
    m[c] = (sq_material){.rho = 1.0 + 0.5 * s, .lambda = 2.0 * s * s, .mu = s};
  }
  sq_disc_options opt = {
      .order = order, .precision = prec, .cfl = 0.5, .tile_size = 1 << 20, .lts_rate = 1, .max_clusters = 1};
  sq_disc *d;
  ck_assert_int_eq(sq_disc_create(*mesh, m, &opt, &d), 0);
  free(m);
  return d;
}

/* ---- naive transcriptions (double precision, full products, no truncation) -------------------- */

/* out(B x 9) = X(B x B) . (in(B x 9) . M^T), M row-major 9 x 9 */
static void naive_product(int B, const double *X, const double *in, const double *M, double *out) {
  double *t = calloc((size_t)B * 9, sizeof(double));
  for (int p = 0; p < 9; ++p)
    for (int k = 0; k < B; ++k)
      for (int q = 0; q < 9; ++q) t[k + p * B] += in[k + q * B] * M[p * 9 + q];
  for (int p = 0; p < 9; ++p)
    for (int l = 0; l < B; ++l) {
      double s = 0;
      for (int k = 0; k < B; ++k) s += X[l + k * B] * t[k + p * B];
      out[l + p * B] = s;
    }
  free(t);
}

/* eq. 3.33, 3.34 for one element: derivs (order x B x 9) and tint */
static void naive_ader(int order, int B, const double *pack, const double *q, const double *star, double dt,
                       double *tint, double *derivs) {
  const int nq = B * 9;
  double *prod = malloc(nq * sizeof(double));
  memcpy(derivs, q, nq * sizeof(double));
  double factor = dt;
  for (int k = 0; k < nq; ++k) tint[k] = factor * q[k];
  for (int i = 1; i < order; ++i) {
    double *cur = derivs + (i - 1) * nq, *next = derivs + i * nq;
    memset(next, 0, nq * sizeof(double));
    for (int d = 0; d < 3; ++d) {
      naive_product(B, pack + (SQ_PACK_KDER + d) * B * B, cur, star + d * 81, prod);
      for (int k = 0; k < nq; ++k) next[k] -= prod[k];
    }
    factor *= dt / (i + 1);
    for (int k = 0; k < nq; ++k) tint[k] += factor * next[k];
  }
  free(prod);
}

/* ---- one order and precision -------------------------------------------------------------------- */

typedef struct kernel_data {
  sq_disc *disc;
  int order;
  sq_precision prec;
  int64_t n;
  size_t nq, len, blk;
  double dt;
  void *dofs, *tint, *derivs;
  sq_face_link *links;
  const void *nb_data[3];
  double t0[3], t1[3];
} kernel_data;

/* ader, local and neighbor by impl from the same inputs; outputs malloc'ed into out[0..4]. */
static void run_all(const kernel_data *k, sq_gemm_impl impl, void *out[5]) {
  const sq_disc *d = k->disc;
  out[0] = malloc(k->blk);             /* tint */
  out[1] = malloc(k->blk * k->order);  /* derivs */
  out[2] = dup_bytes(k->dofs, k->blk); /* local onto dofs */
  out[3] = dup_bytes(k->dofs, k->blk); /* neighbor onto dofs */
  out[4] = malloc(k->blk);             /* tint again, without derivatives */
  sq_kernel_ader_impl(impl, k->prec, k->order, k->n, d->pack, k->dofs, d->star, k->dt, out[0], out[1]);
  sq_kernel_ader_impl(impl, k->prec, k->order, k->n, d->pack, k->dofs, d->star, k->dt, out[4], NULL);
  sq_kernel_local_impl(impl, k->prec, k->order, k->n, d->pack, k->tint, d->star, d->flux_local, out[2]);
  sq_kernel_neighbor_impl(impl, k->prec, k->order, k->n, d->pack, k->links, d->flux_nb, k->nb_data, k->t0, k->t1,
                          out[3]);
}

static void free_all(void *out[5]) {
  for (int i = 0; i < 5; ++i) free(out[i]);
}

static void kernel_data_create(int order, sq_precision p, kernel_data *k, sq_mesh **mesh) {
  k->disc = make_disc(order, p, mesh);
  k->order = order, k->prec = p, k->n = k->disc->nelem;
  k->nq = (size_t)k->disc->nbasis * 9, k->len = k->n * k->nq, k->blk = k->len * sq_real_size(p);
  k->dt = k->disc->cluster_dt[0];
  k->dofs = malloc(k->blk), k->tint = malloc(k->blk), k->derivs = malloc(k->blk * order);
  fill_random(p, k->dofs, k->len, 1.0);
  fill_random(p, k->tint, k->len, k->dt);
  fill_random(p, k->derivs, k->len * order, 1.0);
  /* random links over all 48 flux variants, two tint slots and one derivatives slot; element 7 has none */
  const int64_t n = k->n;
  k->links = malloc(sizeof(sq_face_link) * n * 4);
  for (int64_t i = 0; i < n * 4; ++i) {
    const int kind = i / 4 == 7 ? SQ_LINK_NONE : i < 48 ? SQ_LINK_TINT : (int)((rnd() + 1.0) * 1.5) % 3;
    k->links[i] = (sq_face_link){.kind = kind,
                                 .flux = i < 48 ? (int)i : (int)((rnd() + 1.0) * 24.0) % 48,
                                 .slot = kind == SQ_LINK_DERIVS ? 2 : (int)((rnd() + 1.0)) % 2,
                                 .index = (int)((rnd() + 1.0) * 0.5 * n) % (int)n};
  }
  k->nb_data[0] = k->tint, k->nb_data[1] = k->dofs, k->nb_data[2] = k->derivs;
  k->t0[0] = k->t0[1] = 0, k->t1[0] = k->t1[1] = 0;
  k->t0[2] = 0.5 * k->dt, k->t1[2] = k->dt;
}

static void kernel_data_destroy(kernel_data *k, sq_mesh *mesh) {
  free(k->dofs), free(k->tint), free(k->derivs), free(k->links);
  sq_disc_destroy(k->disc);
  sq_mesh_destroy(mesh);
}

static void naive_all(const kernel_data *k, double *ref[4]) {
  const sq_disc *d = k->disc;
  const int B = d->nbasis, O = k->order, nq = (int)k->nq;
  const sq_precision p = k->prec;
  double *pack = to_double(p, d->pack, (size_t)SQ_PACK_NMAT * B * B);
  double *dofs = to_double(p, k->dofs, k->len), *tint = to_double(p, k->tint, k->len);
  double *derivs = to_double(p, k->derivs, k->len * O);
  double *star = to_double(p, d->star, k->n * 243), *floc = to_double(p, d->flux_local, k->n * 324);
  double *fnb = to_double(p, d->flux_nb, k->n * 324);
  double *prod = malloc(nq * sizeof(double)), *integ = malloc(nq * sizeof(double));
  for (int i = 0; i < 4; ++i) ref[i] = malloc(k->len * (i == 1 ? O : 1) * sizeof(double));
  for (int64_t e = 0; e < k->n; ++e) {
    naive_ader(O, B, pack, dofs + e * nq, star + e * 243, k->dt, ref[0] + e * nq, ref[1] + e * O * nq);
    double *q = ref[2] + e * nq;
    memset(q, 0, nq * sizeof(double));
    for (int d3 = 0; d3 < 3; ++d3) {
      naive_product(B, pack + (SQ_PACK_KVOL + d3) * B * B, tint + e * nq, star + e * 243 + d3 * 81, prod);
      for (int i = 0; i < nq; ++i) q[i] += prod[i];
    }
    for (int j = 0; j < 4; ++j) {
      naive_product(B, pack + (SQ_PACK_FLOCAL + j) * B * B, tint + e * nq, floc + e * 324 + j * 81, prod);
      for (int i = 0; i < nq; ++i) q[i] -= prod[i];
    }
    for (int i = 0; i < nq; ++i) q[i] += dofs[e * nq + i];
    q = ref[3] + e * nq;
    for (int i = 0; i < nq; ++i) q[i] = 0;
    for (int j = 0; j < 4; ++j) {
      const sq_face_link *ln = k->links + e * 4 + j;
      const double *src;
      if (ln->kind == SQ_LINK_NONE) continue;
      if (ln->kind == SQ_LINK_TINT) {
        src = (ln->slot == 0 ? tint : dofs) + (size_t)ln->index * nq;
      } else {
        const double *dd = derivs + (size_t)ln->index * O * nq;
        double p0 = k->t0[2], p1 = k->t1[2];
        for (int i = 0; i < nq; ++i) integ[i] = 0;
        for (int o = 0; o < O; ++o) {
          for (int i = 0; i < nq; ++i) integ[i] += (p1 - p0) * dd[o * nq + i];
          p0 *= k->t0[2] / (o + 2), p1 *= k->t1[2] / (o + 2);
        }
        src = integ;
      }
      naive_product(B, pack + (SQ_PACK_FNB + ln->flux) * B * B, src, fnb + e * 324 + j * 81, prod);
      for (int i = 0; i < nq; ++i) q[i] -= prod[i];
    }
    for (int i = 0; i < nq; ++i) q[i] += dofs[e * nq + i];
  }
  free(pack), free(dofs), free(tint), free(derivs), free(star), free(floc), free(fnb), free(prod), free(integ);
}

static void compare_one(int order, sq_precision p) {
  sq_mesh *mesh;
  kernel_data k;
  kernel_data_create(order, p, &k, &mesh);
  void *best[5], *plain[5], *again[5];
  run_all(&k, SQ_GEMM_BEST, best);
  run_all(&k, SQ_GEMM_PLAIN, plain);
  run_all(&k, SQ_GEMM_BEST, again);
  const char *names[5] = {"ader tint", "ader derivs", "local", "neighbor", "ader tint, no derivs"};
  const size_t lens[5] = {k.len, k.len * order, k.len, k.len, k.len};
  const size_t rs = sq_real_size(p);
  for (int i = 0; i < 5; ++i) {
    char what[64];
    snprintf(what, sizeof(what), "%s: best vs plain", names[i]);
    check_impls(what, order, p, best[i], plain[i], lens[i]);
    ck_assert_msg(!memcmp(best[i], again[i], lens[i] * rs), "%s O%d %s: two runs differ", names[i], order,
                  prec_name(p));
  }
  /* the time integral does not depend on whether the derivatives are stored */
  ck_assert_msg(!memcmp(best[0], best[4], k.blk), "ader O%d %s: tint differs with and without derivs", order,
                prec_name(p));
  double *ref[4];
  naive_all(&k, ref);
  for (int i = 0; i < 4; ++i) {
    char what[64];
    snprintf(what, sizeof(what), "%s: best vs naive", names[i]);
    check_close(what, order, p, best[i], ref[i], lens[i]);
    snprintf(what, sizeof(what), "%s: plain vs naive", names[i]);
    check_close(what, order, p, plain[i], ref[i], lens[i]);
  }
  /* the increments alone (the dofs dominate the two updates above) */
  for (int i = 2; i < 4; ++i) {
    const double *q0 = NULL;
    double *incr_ref = malloc(k.len * sizeof(double)), *incr_best = malloc(k.len * sizeof(double));
    double *incr_plain = malloc(k.len * sizeof(double));
    double *q = to_double(p, k.dofs, k.len);
    q0 = q;
    for (size_t j = 0; j < k.len; ++j) {
      incr_ref[j] = ref[i][j] - q0[j];
      incr_best[j] = get(p, best[i], j) - q0[j];
      incr_plain[j] = get(p, plain[i], j) - q0[j];
    }
    const double eb = rel_l2(SQ_F64, incr_best, incr_ref, k.len), ep = rel_l2(SQ_F64, incr_plain, incr_ref, k.len);
    const double ebp = rel_l2(SQ_F64, incr_best, incr_plain, k.len);
    /* in single precision the increment carries the rounding of the (larger) dofs */
    const double tol = p == SQ_F64 ? 1e-13 : 1e-4;
    printf("  %-26s O%d %s  rel L2 best-naive %.3e plain-naive %.3e best-plain %.3e\n",
           i == 2 ? "local increment" : "neighbor increment", order, prec_name(p), eb, ep, ebp);
    ck_assert_msg(eb <= tol && ep <= tol && ebp <= tol, "%s increment O%d %s: %.3e %.3e %.3e > %.0e", names[i], order,
                  prec_name(p), eb, ep, ebp, tol);
    free(incr_ref), free(incr_best), free(incr_plain), free(q);
  }
  for (int i = 0; i < 4; ++i) free(ref[i]);
  free_all(best), free_all(plain), free_all(again);
  kernel_data_destroy(&k, mesh);
}

START_TEST(best_vs_plain_vs_naive) {
  printf("products: %s (f64), %s (f32)\n", sq_kernel_gemm_name(SQ_F64), sq_kernel_gemm_name(SQ_F32));
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order) {
    compare_one(order, SQ_F64);
    compare_one(order, SQ_F32);
  }
}
END_TEST

/* ---- sparse against dense ------------------------------------------------------------------------ */

/* |a - b| / |b - base| over len values of precision p (base NULL: 0): the difference of two results relative to
 * the increment they share */
static double rel_incr(sq_precision p, const void *a, const void *b, const void *base, size_t len) {
  double num = 0, den = 0;
  for (size_t i = 0; i < len; ++i) {
    const double x = get(p, a, i), y = get(p, b, i), z = base ? get(p, base, i) : 0;
    if (!isfinite(x)) return INFINITY;
    num += (x - y) * (x - y);
    den += (y - z) * (y - z);
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* The sparse plans (SQ_GEMM_BEST, SQ_GEMM_PLAIN: the star matrices by their non-zero blocks, K_vol and K_der by
 * their degree blocks) against the dense formulation (SQ_GEMM_DENSE) from the same inputs: derivatives, time
 * integral, the increments of local and neighbor, and the anelastic predictor, within round-off.  A dropped
 * non-zero changes an output by its share of the increment, orders of magnitude above these bounds. */
static void sparse_vs_dense_one(int order, sq_precision p) {
  sq_mesh *mesh;
  kernel_data k;
  kernel_data_create(order, p, &k, &mesh);
  void *dense[5], *sparse[2][5];
  run_all(&k, SQ_GEMM_DENSE, dense);
  run_all(&k, SQ_GEMM_BEST, sparse[0]);
  run_all(&k, SQ_GEMM_PLAIN, sparse[1]);
  const char *names[5] = {"ader tint", "ader derivs", "local increment", "neighbor increment", "ader tint, no derivs"};
  const size_t lens[5] = {k.len, k.len * order, k.len, k.len, k.len};
  const double tol = p == SQ_F64 ? 1e-12 : 1e-4;
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 5; ++i) {
      const double err = rel_incr(p, sparse[s][i], dense[i], i == 2 || i == 3 ? k.dofs : NULL, lens[i]);
      printf("  %-22s O%d %s  %s vs dense  rel L2 %.3e\n", names[i], order, prec_name(p), s ? "plain" : "best", err);
      ck_assert_msg(err <= tol, "%s O%d %s: %s vs dense %.3e > %.0e", names[i], order, prec_name(p),
                    s ? "plain" : "best", err, tol);
    }
  /* the anelastic predictor (3 mechanisms, random coefficients): the star stage is sparse, the rest dense */
  const int nmech = 3, B = k.disc->nbasis;
  const size_t ncoef = (size_t)k.n * SQ_ANE_NCOEF, nane = (size_t)k.n * B * 6 * (nmech + 1), rs = sq_real_size(p);
  void *coef = malloc(ncoef * rs), *ane0 = malloc(nane * rs), *out[3][3];
  fill_random(p, coef, ncoef, 0.1);
  fill_random(p, ane0, nane, 1.0);
  const sq_gemm_impl impls[3] = {SQ_GEMM_DENSE, SQ_GEMM_BEST, SQ_GEMM_PLAIN};
  for (int s = 0; s < 3; ++s) {
    out[s][0] = malloc(k.blk), out[s][1] = malloc(k.blk * order), out[s][2] = dup_bytes(ane0, nane * rs);
    sq_kernel_ader_ane_impl(impls[s], p, order, nmech, k.n, k.disc->pack, k.dofs, k.disc->star, coef, k.dt, out[s][0],
                            out[s][1], out[s][2]);
  }
  const size_t alens[3] = {k.len, k.len * order, nane};
  const char *anames[3] = {"ader_ane tint", "ader_ane derivs", "ader_ane memory"};
  for (int s = 1; s < 3; ++s)
    for (int i = 0; i < 3; ++i) {
      const double err = rel_incr(p, out[s][i], out[0][i], NULL, alens[i]);
      printf("  %-22s O%d %s  %s vs dense  rel L2 %.3e\n", anames[i], order, prec_name(p), s == 2 ? "plain" : "best",
             err);
      ck_assert_msg(err <= tol, "%s O%d %s: %.3e > %.0e", anames[i], order, prec_name(p), err, tol);
    }
  for (int s = 0; s < 3; ++s)
    for (int i = 0; i < 3; ++i) free(out[s][i]);
  free(coef), free(ane0);
  free_all(dense), free_all(sparse[0]), free_all(sparse[1]);
  kernel_data_destroy(&k, mesh);
}

/* The dense plan executes the CPU FLOP model of docs/PERFORMANCE.md (order 6: 219 330, 458 640, 262 080), the
 * sparse plans less */
START_TEST(flops_model) {
  double f[3], g[3];
  sq_kernel_flops(SQ_GEMM_DENSE, SQ_F64, 6, f);
  ck_assert_double_eq(f[0], 219330);
  ck_assert_double_eq(f[1], 458640);
  ck_assert_double_eq(f[2], 262080);
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order) {
    sq_kernel_flops(SQ_GEMM_DENSE, SQ_F32, order, f);
    sq_kernel_flops(SQ_GEMM_BEST, SQ_F32, order, g);
    printf("  O%d kFLOP per update: dense %.1f, sparse %.1f\n", order, (f[0] + f[1] + f[2]) * 1e-3,
           (g[0] + g[1] + g[2]) * 1e-3);
    ck_assert(g[0] < f[0] && g[1] < f[1] && g[2] <= f[2]);
  }
}
END_TEST

START_TEST(sparse_vs_dense) {
  for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order) {
    sparse_vs_dense_one(order, SQ_F64);
    sparse_vs_dense_one(order, SQ_F32);
  }
}
END_TEST

/* ---- implementation name and threads --------------------------------------------------------- */

START_TEST(gemm_name_matches_build) {
  for (int ip = 0; ip < 2; ++ip) {
    const char *name = sq_kernel_gemm_name(ip ? SQ_F32 : SQ_F64);
    ck_assert_ptr_nonnull(name);
#ifdef SQ_USE_XSMM
    /* LIBXSMM_TARGET may select a target without JIT on purpose; by default every shape must JIT */
    if (!getenv("LIBXSMM_TARGET"))
      ck_assert_msg(!strncmp(name, "libxsmm JIT (", 13) && !strstr(name, "plain"),
                    "built with libxsmm but the products run as '%s'", name);
#else
    ck_assert_str_eq(name, "plain C (built without libxsmm)");
#endif
  }
}
END_TEST

typedef struct thread_job {
  pthread_barrier_t *start;
  const kernel_data *k;
  const char *names[2];
  void *out[5];
} thread_job;

static void *thread_first_use(void *arg) {
  thread_job *job = arg;
  pthread_barrier_wait(job->start);
  job->names[0] = sq_kernel_gemm_name(SQ_F64);
  job->names[1] = sq_kernel_gemm_name(SQ_F32);
  return NULL;
}

static void *thread_run(void *arg) {
  thread_job *job = arg;
  pthread_barrier_wait(job->start);
  run_all(job->k, SQ_GEMM_BEST, job->out);
  return NULL;
}

enum { NTHREAD = 4 };

static void run_threads(thread_job jobs[NTHREAD], void *(*fn)(void *), const kernel_data *k) {
  pthread_barrier_t start;
  pthread_t th[NTHREAD];
  ck_assert_int_eq(pthread_barrier_init(&start, NULL, NTHREAD), 0);
  for (int t = 0; t < NTHREAD; ++t) {
    jobs[t].start = &start, jobs[t].k = k;
    ck_assert_int_eq(pthread_create(&th[t], NULL, fn, &jobs[t]), 0);
  }
  for (int t = 0; t < NTHREAD; ++t) ck_assert_int_eq(pthread_join(th[t], NULL), 0);
  pthread_barrier_destroy(&start);
}

/* First use of the JIT table from four threads at once (this test runs in its own process, forked
 * by Check, so the table is still empty), then the kernels from four threads at once: each
 * thread's results must equal a serial run bitwise. */
START_TEST(concurrent_use) {
  thread_job jobs[NTHREAD];
  memset(jobs, 0, sizeof(jobs));
  run_threads(jobs, thread_first_use, NULL);
  for (int t = 1; t < NTHREAD; ++t)
    for (int ip = 0; ip < 2; ++ip) ck_assert_ptr_eq(jobs[t].names[ip], jobs[0].names[ip]);
  for (int ip = 0; ip < 2; ++ip) {
    const sq_precision p = ip ? SQ_F32 : SQ_F64;
    sq_mesh *mesh;
    kernel_data k;
    kernel_data_create(5, p, &k, &mesh);
    run_threads(jobs, thread_run, &k);
    void *serial[5];
    run_all(&k, SQ_GEMM_BEST, serial);
    const size_t lens[5] = {k.blk, k.blk * 5, k.blk, k.blk, k.blk};
    for (int t = 0; t < NTHREAD; ++t) {
      for (int i = 0; i < 5; ++i)
        ck_assert_msg(!memcmp(jobs[t].out[i], serial[i], lens[i]), "%s: thread %d, output %d differs", prec_name(p), t,
                      i);
      free_all(jobs[t].out);
    }
    free_all(serial);
    kernel_data_destroy(&k, mesh);
  }
}
END_TEST

/* sq_kernel_set_threads: an OpenMP team over each call's elements gives bitwise the serial results, at
 * every order and in both precisions. */
START_TEST(team_matches_serial) {
  for (int ip = 0; ip < 2; ++ip)
    for (int order = SQ_ORDER_MIN; order <= SQ_ORDER_MAX; ++order) {
      const sq_precision p = ip ? SQ_F32 : SQ_F64;
      sq_mesh *mesh;
      kernel_data k;
      kernel_data_create(order, p, &k, &mesh);
      void *serial[5], *team[5];
      sq_kernel_set_threads(1);
      run_all(&k, SQ_GEMM_BEST, serial);
      sq_kernel_set_threads(3);
      ck_assert_int_eq(sq_kernel_threads(), 3);
      run_all(&k, SQ_GEMM_BEST, team);
      sq_kernel_set_threads(1);
      const size_t lens[5] = {k.len, k.len * order, k.len, k.len, k.len};
      for (int i = 0; i < 5; ++i)
        ck_assert_msg(!memcmp(team[i], serial[i], lens[i] * sq_real_size(p)),
                      "O%d %s: output %d differs with 3 threads", order, prec_name(p), i);
      free_all(serial), free_all(team);
      kernel_data_destroy(&k, mesh);
    }
}
END_TEST

static Suite *kernels_suite(void) {
  const TTest *tests[] = {gemm_name_matches_build,
                          concurrent_use,
                          team_matches_serial,
                          best_vs_plain_vs_naive,
                          sparse_vs_dense,
                          flops_model,
                          NULL};
  Suite *s = sq_test_suite("kernels", 600, tests);
  return s;
}

int main(void) { return sq_test_run(kernels_suite(), 1); }
