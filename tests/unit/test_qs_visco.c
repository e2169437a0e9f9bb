/** @file test_qs_visco.c  Check suite for the Maxwell viscoelastic time stepping (sq_qs_visco.h): relaxation of a
 *  fixed shear strain against exp(-mu t / eta) and the integrator's order, eta = INFINITY against the elastic
 *  solve, the predictor (same converged solution, fewer iterations), its weights, the multi-vector products. */
#include "sq_check.h"
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_qs_visco.h"
#include "sq_test_util.h"

static const double LAM = 2.0, MU = 1.0;

static sq_mesh *box(int n, int fault) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = n;
  for (int i = 0; i < 6; ++i) bp.bc[i] = 5;
  bp.jitter = 0.2;
  if (fault) { /* buried: [0.25, 0.75]^2 in the plane x = 0.5 */
    bp.jitter = 0;
    bp.has_fault = 1;
    bp.fault_lo[0] = bp.fault_hi[0] = 0.5;
    bp.fault_lo[1] = bp.fault_lo[2] = 0.25;
    bp.fault_hi[1] = bp.fault_hi[2] = 0.75;
  }
  sq_mesh *m = NULL;
  ck_assert_int_eq(sq_mesh_box(&bp, &m), 0);
  return m;
}

static sq_qs_mesh *qs(const sq_mesh *m) {
  double *lam = malloc(sizeof(double) * m->ncell), *mu = malloc(sizeof(double) * m->ncell);
  for (int64_t c = 0; c < m->ncell; ++c) {
    lam[c] = LAM;
    mu[c] = MU;
  }
  sq_qs_mesh *q = NULL;
  ck_assert_int_eq(sq_qs_mesh_create(m, lam, mu, 64, &q), 0);
  free(lam);
  free(mu);
  return q;
}

/* shear plus dilation: u = (g y + e x, e y, e z) */
static const double GAM = 0.01, DIL = 0.002;
static void shear(void *ctx, const double x[3], double u[3]) {
  (void)ctx;
  u[0] = GAM * x[1] + DIL * x[0];
  u[1] = DIL * x[1];
  u[2] = DIL * x[2];
}

/* the largest error of the stress against the closed form after nstep steps of dt */
static double relax_error(double alpha, double dt, int nstep) {
  const double eta = 2.0;
  sq_mesh *m = box(2, 0);
  sq_qs_mesh *q = qs(m);
  sq_qs_bc_kind kind[256] = {0};
  kind[5] = SQ_QS_DIRICHLET;
  ck_assert_int_eq(sq_qs_set_bc(q, kind, shear, NULL), 0);
  double *et = malloc(sizeof(double) * q->ncell), *u = calloc(3 * q->nnode, sizeof(double));
  for (int64_t c = 0; c < q->ncell; ++c) et[c] = eta;
  sq_qs_visco_opts o;
  sq_qs_visco_opts_default(&o);
  o.dt = dt;
  o.alpha = alpha;
  sq_qs_visco *v = NULL;
  ck_assert_int_eq(sq_qs_visco_create(q, et, &o, &v), 0);
  ck_assert_int_eq(sq_qs_visco_elastic(v, NULL, u), 0);
  for (int k = 0; k < nstep; ++k) ck_assert_int_eq(sq_qs_visco_step(v, NULL, u), 0);
  const double t = sq_qs_visco_time(v);
  EXPECT_NEAR(t, nstep * dt, 1e-12);
  /* deviatoric stress relaxes as exp(-mu t / eta), the mean stress stays (3 K e) */
  const double decay = exp(-MU * t / eta), p = (3 * LAM + 2 * MU) * DIL;
  double err = 0;
  for (int64_t c = 0; c < q->ncell; ++c) {
    const double *s = sq_qs_visco_stress(v, c);
    for (int qp = 0; qp < SQ_QS_NQ; ++qp) {
      const double *sq = s + SQ_QS_NSTRESS * qp;
      const double ex[6] = {p, p, p, MU * GAM * decay, 0, 0};
      for (int k = 0; k < 6; ++k) {
        if (k == 3) err = fmax(err, fabs(sq[k] - ex[k]) / (MU * GAM));
        else EXPECT_NEAR(sq[k], ex[k], 1e-9 * MU * GAM);
      }
    }
  }
  /* the displacement stays the prescribed linear field */
  for (int64_t n = 0; n < q->nnode; ++n) {
    double ue[3];
    shear(NULL, q->xyz + 3 * n, ue);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(u[3 * n + i], ue[i], 1e-9 * GAM);
  }
  sq_qs_visco_destroy(v);
  free(et);
  free(u);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
  return err;
}

START_TEST(test_relaxation_order) {
  /* to t = 2 eta / mu: trapezoidal (alpha 1/2) second order, backward Euler (alpha 1) first order */
  const double e1 = relax_error(0.5, 0.4, 10), e2 = relax_error(0.5, 0.2, 20);
  EXPECT_MSG(e1 / e2 > 3.6 && e1 / e2 < 4.4, "alpha 1/2: errors %g, %g", e1, e2);
  EXPECT_MSG(e2 < 2e-3, "alpha 1/2: error %g", e2);
  const double b1 = relax_error(1, 0.4, 10), b2 = relax_error(1, 0.2, 20);
  EXPECT_MSG(b1 / b2 > 1.8 && b1 / b2 < 2.2, "alpha 1: errors %g, %g", b1, b2);
  EXPECT_MSG(b2 < 2e-2, "alpha 1: error %g", b2);
}
END_TEST

static void slip(void *ctx, const double x[3], double s[3]) {
  (void)ctx;
  (void)x;
  s[0] = 0;
  s[1] = 1e-3;
  s[2] = 0.5e-3;
}

/* the buried-fault box with eta per cell: eta_lo below z = 0.5, INFINITY above */
static sq_qs_visco *fault_problem_w(sq_mesh **m, sq_qs_mesh **q, double eta_lo, int predictor, double dt,
                                    int multistep) {
  *m = box(4, 1);
  *q = qs(*m);
  sq_qs_bc_kind kind[256] = {0};
  kind[5] = SQ_QS_DIRICHLET;
  ck_assert_int_eq(sq_qs_set_bc(*q, kind, NULL, NULL), 0);
  const double nref[3] = {1, 0, 0};
  ck_assert_int_eq(sq_qs_set_fault(*q, nref, slip, NULL), 0);
  double *et = malloc(sizeof(double) * (*q)->ncell);
  for (int64_t c = 0; c < (*q)->ncell; ++c) et[c] = (*m)->centroid[3 * c + 2] < 0.5 ? eta_lo : INFINITY;
  sq_qs_visco_opts o;
  sq_qs_visco_opts_default(&o);
  o.dt = dt;
  o.predictor = predictor;
  o.multistep = multistep;
  sq_qs_visco *v = NULL;
  ck_assert_int_eq(sq_qs_visco_create(*q, et, &o, &v), 0);
  free(et);
  return v;
}

static sq_qs_visco *fault_problem(sq_mesh **m, sq_qs_mesh **q, double eta_lo, int predictor, double dt) {
  return fault_problem_w(m, q, eta_lo, predictor, dt, 1);
}

START_TEST(test_elastic_limit) {
  /* eta = INFINITY: the elastic solve's field, bitwise at t = 0, to round-off after steps */
  sq_mesh *m;
  sq_qs_mesh *q;
  sq_qs_visco *v = fault_problem(&m, &q, INFINITY, 1, 0.1);
  const int64_t n = 3 * q->nnode;
  double *u = calloc(n, sizeof(double)), *ue = calloc(n, sizeof(double));
  sq_qs_solver_opts so;
  sq_qs_solver_opts_default(&so);
  ck_assert_int_eq(sq_qs_solve(q, NULL, NULL, ue, &so), 0);
  ck_assert_int_eq(sq_qs_visco_elastic(v, NULL, u), 0);
  double umax = 0;
  for (int64_t i = 0; i < n; ++i) {
    ck_assert(u[i] == ue[i]);
    umax = fmax(umax, fabs(ue[i]));
  }
  EXPECT(umax > 1e-4);
  for (int k = 0; k < 5; ++k) ck_assert_int_eq(sq_qs_visco_step(v, NULL, u), 0);
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(u[i], ue[i], 1e-9 * umax);
  free(u);
  free(ue);
  sq_qs_visco_destroy(v);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_predictor) {
  /* 24 steps with and without the predictor: the same field (the same tolerance), fewer inner iterations */
  const int nstep = 24;
  double *u[2] = {NULL, NULL};
  int64_t inner[2] = {0, 0}, coarse[2] = {0, 0}, outer[2] = {0, 0};
  int64_t n = 0;
  for (int pr = 0; pr < 2; ++pr) {
    sq_mesh *m;
    sq_qs_mesh *q;
    sq_qs_visco *v = fault_problem(&m, &q, 1.0, pr, 0.1);
    n = 3 * q->nnode;
    u[pr] = calloc(n, sizeof(double));
    ck_assert_int_eq(sq_qs_visco_elastic(v, NULL, u[pr]), 0);
    sq_qs_visco_stats s0, s;
    sq_qs_visco_get_stats(v, &s0);
    for (int k = 0; k < nstep; ++k) ck_assert_int_eq(sq_qs_visco_step(v, NULL, u[pr]), 0);
    sq_qs_visco_get_stats(v, &s);
    EXPECT_EQ(s.nsolve, nstep + 1);
    EXPECT(s.max_rel_residual <= 1e-10);
    inner[pr] = s.inner_iters - s0.inner_iters;
    coarse[pr] = s.coarse_iters - s0.coarse_iters;
    outer[pr] = s.outer_iters - s0.outer_iters;
    sq_qs_visco_destroy(v);
    sq_qs_mesh_destroy(q);
    sq_mesh_destroy(m);
  }
  double umax = 0, d = 0;
  for (int64_t i = 0; i < n; ++i) {
    umax = fmax(umax, fabs(u[0][i]));
    d = fmax(d, fabs(u[0][i] - u[1][i]));
  }
  EXPECT_MSG(d <= 1e-8 * umax, "with and without the predictor: max difference %g of %g", d, umax);
  fprintf(stderr, "predictor: outer %lld -> %lld, inner %lld -> %lld, coarse %lld -> %lld\n", (long long)outer[0],
          (long long)outer[1], (long long)inner[0], (long long)inner[1], (long long)coarse[0], (long long)coarse[1]);
  EXPECT_MSG(inner[1] < inner[0] && outer[1] < outer[0], "iterations without %lld/%lld, with %lld/%lld",
             (long long)outer[0], (long long)inner[0], (long long)outer[1], (long long)inner[1]);
  free(u[0]);
  free(u[1]);
}
END_TEST

START_TEST(test_predict_weights) {
  double w[7];
  sq_qs_visco_predict_weights(7, 4, w);
  const double paper[7] = {-17, -10, -3, 4, 11, 18, 25};
  for (int k = 0; k < 7; ++k) EXPECT_NEAR(w[k], paper[k] / 28, 1e-14);
  sq_qs_visco_predict_weights(2, 1, w);
  EXPECT_NEAR(w[0], -1, 1e-14);
  EXPECT_NEAR(w[1], 2, 1e-14);
  /* exact on a line */
  sq_qs_visco_predict_weights(7, 1, w);
  double p = 0;
  for (int k = 0; k < 7; ++k) p += w[k] * (3 + 0.5 * (k + 1));
  EXPECT_NEAR(p, 3 + 0.5 * 8, 1e-13);
}
END_TEST

START_TEST(test_multi_vector) {
  /* nvec interleaved vectors against nvec single products, both precisions, P2 and P1 */
  sq_mesh *m = box(3, 0);
  sq_qs_mesh *q = qs(m);
  const int64_t n = 3 * q->nnode;
  for (int nvec = 1; nvec <= SQ_QS_MAXVEC; ++nvec)
    for (int p1 = 0; p1 < 2; ++p1) {
      double *x = calloc(n * nvec, sizeof(double)), *y = calloc(n * nvec, sizeof(double));
      double *xs = calloc(n, sizeof(double)), *ys = calloc(n, sizeof(double));
      float *xf = calloc(n * nvec, sizeof(float)), *yf = calloc(n * nvec, sizeof(float));
      float *xsf = calloc(n, sizeof(float)), *ysf = calloc(n, sizeof(float));
      for (int64_t i = 0; i < n * nvec; ++i) xf[i] = (float)(x[i] = sin(0.37 * i + 0.1));
      if (p1) {
        sq_qs_ebe_p1_f64_multi(q->ncell, q->cell_node, q->cell_node, q->geo, nvec, x, y);
        sq_qs_ebe_p1_f32_multi(q->ncell, q->cell_node, q->cell_node, q->geo32, nvec, xf, yf);
      } else {
        sq_qs_ebe_p2_f64_multi(q->ncell, q->cell_node, q->cell_node, q->geo, nvec, x, y);
        sq_qs_ebe_p2_f32_multi(q->ncell, q->cell_node, q->cell_node, q->geo32, nvec, xf, yf);
      }
      for (int vv = 0; vv < nvec; ++vv) {
        for (int64_t i = 0; i < n; ++i) xsf[i] = (float)(xs[i] = x[i * nvec + vv]);
        memset(ys, 0, sizeof(double) * n);
        memset(ysf, 0, sizeof(float) * n);
        if (p1) {
          sq_qs_ebe_p1_f64(q->ncell, q->cell_node, q->cell_node, q->geo, xs, ys);
          sq_qs_ebe_p1_f32(q->ncell, q->cell_node, q->cell_node, q->geo32, xsf, ysf);
        } else {
          sq_qs_ebe_p2_f64(q->ncell, q->cell_node, q->cell_node, q->geo, xs, ys);
          sq_qs_ebe_p2_f32(q->ncell, q->cell_node, q->cell_node, q->geo32, xsf, ysf);
        }
        double ymax = 0;
        for (int64_t i = 0; i < n; ++i) ymax = fmax(ymax, fabs(ys[i]));
        EXPECT(ymax > 0);
        for (int64_t i = 0; i < n; ++i) {
          EXPECT_NEAR(y[i * nvec + vv], ys[i], 1e-13 * ymax);
          EXPECT_NEAR(yf[i * nvec + vv], ysf[i], 1e-5 * ymax);
        }
      }
      free(x);
      free(y);
      free(xs);
      free(ys);
      free(xf);
      free(yf);
      free(xsf);
      free(ysf);
    }
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

/* a body force varying in space, scaled by s */
static void body_force(const sq_qs_mesh *q, double s, int nv, int off, double *f) {
  for (int64_t k = 0; k < q->nnode; ++k)
    for (int i = 0; i < 3; ++i) {
      const double *x = q->xyz + 3 * k;
      f[(3 * k + i) * nv + off] = s * 1e-3 * sin(3 * x[0] + i) * cos(2 * x[1] - x[2]);
    }
}

START_TEST(test_solve_multi) {
  /* four identical right-hand sides: each vector equals the one-vector solve (to the tolerance), bit for bit the
   * same as the others; four different ones: vector 0 equals its own one-vector solve */
  sq_mesh *m = box(3, 0);
  sq_qs_mesh *q = qs(m);
  sq_qs_bc_kind kind[256] = {0};
  kind[5] = SQ_QS_DIRICHLET;
  ck_assert_int_eq(sq_qs_set_bc(q, kind, shear, NULL), 0);
  const int64_t n = 3 * q->nnode;
  const int nv = SQ_QS_MAXVEC;
  double *f1 = calloc(n, sizeof(double)), *u1 = calloc(n, sizeof(double));
  double *f4 = calloc(n * nv, sizeof(double)), *u4 = calloc(n * nv, sizeof(double));
  for (int same = 1; same >= 0; --same) {
    for (int v = 0; v < nv; ++v) body_force(q, same ? 1 : 1 + v, nv, v, f4);
    body_force(q, 1, 1, 0, f1);
    sq_qs_solver_opts o1, o4;
    sq_qs_solver_opts_default(&o1);
    sq_qs_solver_opts_default(&o4);
    ck_assert_int_eq(sq_qs_solve(q, NULL, f1, u1, &o1), 0);
    ck_assert_int_eq(sq_qs_solve_multi(q, NULL, nv, f4, u4, &o4, 0), 0);
    EXPECT(o4.rel_residual <= 1e-10);
    double umax = 0;
    for (int64_t i = 0; i < n; ++i) umax = fmax(umax, fabs(u1[i]));
    EXPECT(umax > 1e-3);
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_NEAR(u4[i * nv], u1[i], 1e-8 * umax);
      for (int v = 1; same && v < nv; ++v) ck_assert(u4[i * nv + v] == u4[i * nv]);
    }
    fprintf(stderr,
            "solve_multi (%s right-hand sides): outer %d/%d, inner %lld/%lld, coarse %lld/%lld (1/%d vectors)\n",
            same ? "identical" : "different", o1.outer_iters, o4.outer_iters, (long long)o1.inner_iters,
            (long long)o4.inner_iters, (long long)o1.coarse_iters, (long long)o4.coarse_iters, nv);
    if (same) {
      EXPECT(abs(o1.outer_iters - o4.outer_iters) <= 1);
      /* one vector through the multi-vector solve: the one-vector solve */
      sq_qs_solver_opts o;
      sq_qs_solver_opts_default(&o);
      double *u = calloc(n, sizeof(double));
      ck_assert_int_eq(sq_qs_solve_multi(q, NULL, 1, f1, u, &o, 0), 0);
      for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(u[i], u1[i], 1e-8 * umax);
      free(u);
    }
  }
  free(f1);
  free(u1);
  free(f4);
  free(u4);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

/* nstep steps of the buried-fault problem: the field, the stress of every cell, the iterations of the steps */
static void run_steps(int multistep, int predictor, int nstep, double **u, double **sig, sq_qs_visco_stats *st) {
  sq_mesh *m;
  sq_qs_mesh *q;
  sq_qs_visco *v = fault_problem_w(&m, &q, 1.0, predictor, 0.1, multistep);
  const int64_t n = 3 * q->nnode, ns = SQ_QS_NQ * SQ_QS_NSTRESS;
  *u = calloc(n, sizeof(double));
  *sig = calloc(q->ncell * ns, sizeof(double));
  ck_assert_int_eq(sq_qs_visco_elastic(v, NULL, *u), 0);
  sq_qs_visco_stats s0;
  sq_qs_visco_get_stats(v, &s0);
  for (int k = 0; k < nstep; ++k) ck_assert_int_eq(sq_qs_visco_step(v, NULL, *u), 0);
  EXPECT_EQ(sq_qs_visco_nstep(v), nstep);
  sq_qs_visco_get_stats(v, st);
  st->outer_iters -= s0.outer_iters;
  st->inner_iters -= s0.inner_iters;
  st->coarse_iters -= s0.coarse_iters;
  for (int64_t c = 0; c < q->ncell; ++c) memcpy(*sig + ns * c, sq_qs_visco_stress(v, c), sizeof(double) * ns);
  sq_qs_visco_destroy(v);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}

START_TEST(test_multistep) {
  /* four steps solved together: the one-at-a-time field and stresses (to the solver's tolerance), fewer
   * iterations than without a predictor and fewer coarse iterations than the one-vector predictor */
  const int nstep = 24, cases[3][2] = {{1, 0}, {1, 1}, {4, 1}};
  double *u[3], *sig[3];
  sq_qs_visco_stats st[3];
  for (int k = 0; k < 3; ++k) run_steps(cases[k][0], cases[k][1], nstep, &u[k], &sig[k], &st[k]);
  sq_mesh *m = box(4, 1);
  sq_qs_mesh *q = qs(m);
  const int64_t n = 3 * q->nnode, ns = SQ_QS_NQ * SQ_QS_NSTRESS * q->ncell;
  double umax = 0, smax = 0, du = 0, ds = 0;
  for (int64_t i = 0; i < n; ++i) {
    umax = fmax(umax, fabs(u[1][i]));
    du = fmax(du, fabs(u[2][i] - u[1][i]));
  }
  for (int64_t i = 0; i < ns; ++i) {
    smax = fmax(smax, fabs(sig[1][i]));
    ds = fmax(ds, fabs(sig[2][i] - sig[1][i]));
  }
  EXPECT_MSG(du <= 1e-8 * umax, "multistep 4 against 1: field difference %g of %g", du, umax);
  EXPECT_MSG(ds <= 1e-8 * smax, "multistep 4 against 1: stress difference %g of %g", ds, smax);
  EXPECT(st[2].max_rel_residual <= 1e-10);
  for (int k = 0; k < 3; ++k)
    fprintf(stderr, "multistep %d, predictor %d: outer %lld, inner %lld, coarse %lld (%d solves)\n", cases[k][0],
            cases[k][1], (long long)st[k].outer_iters, (long long)st[k].inner_iters, (long long)st[k].coarse_iters,
            st[k].nsolve);
  EXPECT(st[2].coarse_iters < st[0].coarse_iters && st[2].inner_iters < st[0].inner_iters);
  EXPECT(st[2].coarse_iters < st[1].coarse_iters);
  for (int k = 0; k < 3; ++k) {
    free(u[k]);
    free(sig[k]);
  }
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_bad_input) {
  sq_mesh *m = box(1, 0);
  sq_qs_mesh *q = qs(m);
  double *et = malloc(sizeof(double) * q->ncell);
  for (int64_t c = 0; c < q->ncell; ++c) et[c] = c == 3 ? -1 : 1;
  sq_qs_visco_opts o;
  sq_qs_visco_opts_default(&o);
  sq_qs_visco *v = NULL;
  int saved = sq_test_capture_begin();
  int rc = sq_qs_visco_create(q, et, &o, &v);
  sq_test_capture_end(saved);
  ck_assert_int_eq(rc, SQ_ERR_INPUT);
  ck_assert_msg(strstr(sq_test_msg, "cell 3 has viscosity -1"), "message: %s", sq_test_msg);
  et[3] = 1;
  o.dt = 0;
  saved = sq_test_capture_begin();
  rc = sq_qs_visco_create(q, et, &o, &v);
  sq_test_capture_end(saved);
  ck_assert_int_eq(rc, SQ_ERR_INPUT);
  ck_assert_msg(strstr(sq_test_msg, "time step"), "message: %s", sq_test_msg);
  o.dt = 1;
  o.multistep = 5;
  saved = sq_test_capture_begin();
  rc = sq_qs_visco_create(q, et, &o, &v);
  sq_test_capture_end(saved);
  ck_assert_int_eq(rc, SQ_ERR_INPUT);
  ck_assert_msg(strstr(sq_test_msg, "multistep must lie in 1 .. 4 (got 5)"), "message: %s", sq_test_msg);
  free(et);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

int main(void) {
  const TTest *tests[] = {test_relaxation_order, test_elastic_limit, test_predictor,
                          test_predict_weights,  test_multi_vector,  test_solve_multi,
                          test_multistep,        test_bad_input,     NULL};
  return sq_test_run(sq_test_suite("qs_visco", 120, tests), 1);
}
