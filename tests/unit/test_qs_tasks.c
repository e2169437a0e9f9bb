/** @file test_qs_tasks.c  Check suite for the quasi-static solver's tasks (runtime/qs.c, codelets/qs_*.c): each
 *  product and transfer through StarPU against the serial loops, for several tile sizes, and a whole solve. */
#include "sq_check.h"
#include <check.h>
#include <math.h>
#include <starpu.h>
#include <stdlib.h>
#include <string.h>

#include "qs_test_mesh.h"
#include "sq_qs.h"
#include "sq_runtime.h"

static double rnd(void) { return (double)rand() / RAND_MAX - 0.5; }

START_TEST(test_products) {
  const int tiles[3] = {1, 37, 100000};
  for (int k = 0; k < 3; ++k) {
    sq_mesh *m = NULL;
    sq_qs_mesh *q = qs_test_box(3, tiles[k], &m);
    sq_qs_runtime *qr = NULL;
    ck_assert_int_eq(sq_qs_runtime_create(q, &qr), 0);
    sq_qs_ops ops;
    sq_qs_runtime_ops(qr, &ops);
    const int64_t n = 3 * q->nnode, nc = 3 * q->nvert;
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *ys = calloc(n, sizeof(double));
    float *xf = malloc(sizeof(float) * n), *yf = malloc(sizeof(float) * n), *ysf = calloc(n, sizeof(float)),
          *cf = malloc(sizeof(float) * nc), *csf = malloc(sizeof(float) * nc);
    srand(7 + k);
    for (int64_t i = 0; i < n; ++i) xf[i] = (float)(x[i] = rnd());
    /* P2, double */
    ck_assert_int_eq(ops.apply_f64(ops.ctx, x, y), 0);
    sq_qs_ebe_p2_f64(q->ncell, q->cell_node, q->cell_node, q->geo, x, ys);
    for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(y[i], ys[i], 1e-12 * (1 + fabs(ys[i])));
    /* P2, single */
    ck_assert_int_eq(ops.apply_f32(ops.ctx, xf, yf), 0);
    sq_qs_ebe_p2_f32(q->ncell, q->cell_node, q->cell_node, q->geo32, xf, ysf);
    for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(yf[i], ysf[i], 1e-5 * (1 + fabs(ysf[i])));
    /* P1, single */
    memset(ysf, 0, sizeof(float) * n);
    ck_assert_int_eq(ops.apply_coarse_f32(ops.ctx, xf, yf), 0);
    sq_qs_ebe_p1_f32(q->ncell, q->cell_node, q->cell_node, q->geo32, xf, ysf);
    for (int64_t i = 0; i < nc; ++i) EXPECT_NEAR(yf[i], ysf[i], 1e-5 * (1 + fabs(ysf[i])));
    /* restriction and prolongation: exactly the serial loops */
    ck_assert_int_eq(ops.restrict_f32(ops.ctx, xf, cf), 0);
    sq_qs_restrict_f32(q, xf, csf);
    for (int64_t i = 0; i < nc; ++i) EXPECT(cf[i] == csf[i]);
    ck_assert_int_eq(ops.prolong_f32(ops.ctx, cf, yf), 0);
    sq_qs_prolong_f32(q, cf, ysf);
    for (int64_t i = 0; i < n; ++i) EXPECT(yf[i] == ysf[i]);
    int64_t ne, nr, nt;
    sq_qs_runtime_counts(qr, &ne, &nr, &nt);
    EXPECT_EQ(ne, 3 * q->ntile);
    EXPECT_EQ(nr, 3 * q->ntile);
    EXPECT(nt >= 2);
    free(x);
    free(y);
    free(ys);
    free(xf);
    free(yf);
    free(ysf);
    free(cf);
    free(csf);
    sq_qs_runtime_destroy(qr);
    sq_qs_mesh_destroy(q);
    sq_mesh_destroy(m);
  }
}
END_TEST

START_TEST(test_solve) {
  /* a whole solve with tasks gives the serial solve's answer and iterations */
  sq_mesh *m = NULL;
  sq_qs_mesh *q = qs_test_box(3, 40, &m);
  sq_qs_bc_kind kind[256] = {0};
  kind[5] = SQ_QS_DIRICHLET;
  ck_assert_int_eq(sq_qs_set_bc(q, kind, qs_test_boundary_values, NULL), 0);
  sq_qs_runtime *qr = NULL;
  ck_assert_int_eq(sq_qs_runtime_create(q, &qr), 0);
  sq_qs_ops ops;
  sq_qs_runtime_ops(qr, &ops);
  const int64_t n = 3 * q->nnode;
  double *u = calloc(n, sizeof(double)), *us = calloc(n, sizeof(double));
  sq_qs_solver_opts o, os;
  sq_qs_solver_opts_default(&o);
  sq_qs_solver_opts_default(&os);
  ck_assert_int_eq(sq_qs_solve(q, &ops, NULL, u, &o), 0);
  ck_assert_int_eq(sq_qs_solve(q, NULL, NULL, us, &os), 0);
  EXPECT(o.rel_residual < 1e-10);
  EXPECT_EQ(o.outer_iters, os.outer_iters);
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(u[i], us[i], 1e-9);
  free(u);
  free(us);
  sq_qs_runtime_destroy(qr);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_multi) {
  /* the multi-vector products and transfers through the tasks against the serial multi-vector loops (4 vectors;
   * the transfers bit for bit), and a four-vector solve with tasks against the serial one, also through the
   * one-vector products alone */
  const int nv = SQ_QS_MAXVEC;
  sq_mesh *m = NULL;
  sq_qs_mesh *q = qs_test_box(3, 37, &m);
  sq_qs_runtime *qr = NULL;
  ck_assert_int_eq(sq_qs_runtime_create(q, &qr), 0);
  sq_qs_ops ops;
  sq_qs_runtime_ops(qr, &ops);
  const int64_t n = 3 * q->nnode * nv, nc = 3 * q->nvert * nv;
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *ys = calloc(n, sizeof(double));
  float *xf = malloc(sizeof(float) * n), *yf = malloc(sizeof(float) * n), *ysf = calloc(n, sizeof(float)),
        *cf = malloc(sizeof(float) * nc), *csf = malloc(sizeof(float) * nc);
  srand(11);
  for (int64_t i = 0; i < n; ++i) xf[i] = (float)(x[i] = rnd());
  ck_assert_int_eq(ops.apply_f64_multi(ops.ctx, nv, x, y), 0);
  sq_qs_ebe_p2_f64_multi(q->ncell, q->cell_node, q->cell_node, q->geo, nv, x, ys);
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(y[i], ys[i], 1e-12 * (1 + fabs(ys[i])));
  ck_assert_int_eq(ops.apply_f32_multi(ops.ctx, nv, xf, yf), 0);
  sq_qs_ebe_p2_f32_multi(q->ncell, q->cell_node, q->cell_node, q->geo32, nv, xf, ysf);
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(yf[i], ysf[i], 1e-5 * (1 + fabs(ysf[i])));
  memset(ysf, 0, sizeof(float) * n);
  ck_assert_int_eq(ops.apply_coarse_f32_multi(ops.ctx, nv, xf, yf), 0);
  sq_qs_ebe_p1_f32_multi(q->ncell, q->cell_node, q->cell_node, q->geo32, nv, xf, ysf);
  for (int64_t i = 0; i < nc; ++i) EXPECT_NEAR(yf[i], ysf[i], 1e-5 * (1 + fabs(ysf[i])));
  ck_assert_int_eq(ops.restrict_f32_multi(ops.ctx, nv, xf, cf), 0);
  sq_qs_restrict_range_f32_multi(q->nvert, q->vert_edge_ptr, q->vert_edge, nv, 0, q->nvert, xf, csf);
  for (int64_t i = 0; i < nc; ++i) ck_assert(cf[i] == csf[i]);
  ck_assert_int_eq(ops.prolong_f32_multi(ops.ctx, nv, cf, yf), 0);
  sq_qs_prolong_range_f32_multi(q->nvert, q->edge_vert, nv, 0, q->nnode, cf, ysf);
  for (int64_t i = 0; i < n; ++i) ck_assert(yf[i] == ysf[i]);
  /* the one-vector transfers are the multi-vector ones' vector v */
  float *xs = malloc(sizeof(float) * n / nv), *cs = malloc(sizeof(float) * nc / nv);
  for (int v = 0; v < nv; ++v) {
    for (int64_t i = 0; i < n / nv; ++i) xs[i] = xf[i * nv + v];
    sq_qs_restrict_f32(q, xs, cs);
    for (int64_t i = 0; i < nc / nv; ++i) ck_assert(cs[i] == csf[i * nv + v]);
  }
  /* a solve of four right-hand sides with tasks and serially */
  sq_qs_bc_kind kind[256] = {0};
  kind[5] = SQ_QS_DIRICHLET;
  ck_assert_int_eq(sq_qs_set_bc(q, kind, qs_test_boundary_values, NULL), 0);
  for (int64_t i = 0; i < n; ++i) x[i] = 0.01 * sin(0.1 * i);
  double *u = calloc(n, sizeof(double)), *us = calloc(n, sizeof(double));
  sq_qs_solver_opts o, os;
  sq_qs_solver_opts_default(&o);
  sq_qs_solver_opts_default(&os);
  ck_assert_int_eq(sq_qs_solve_multi(q, &ops, nv, x, u, &o, 0), 0);
  ck_assert_int_eq(sq_qs_solve_multi(q, NULL, nv, x, us, &os, 0), 0);
  EXPECT(o.rel_residual < 1e-10);
  EXPECT_EQ(o.outer_iters, os.outer_iters);
  for (int64_t i = 0; i < n; i += nv) EXPECT_NEAR(u[i], us[i], 1e-9);
  /* ops without the multi-vector members: their one-vector products vector by vector, the same solve */
  sq_qs_ops one = ops;
  one.apply_f64_multi = NULL, one.apply_f32_multi = NULL, one.apply_coarse_f32_multi = NULL;
  one.restrict_f32_multi = NULL, one.prolong_f32_multi = NULL;
  memset(u, 0, sizeof(double) * n);
  sq_qs_solver_opts_default(&o);
  ck_assert_int_eq(sq_qs_solve_multi(q, &one, nv, x, u, &o, 0), 0);
  EXPECT(o.rel_residual < 1e-10);
  EXPECT_EQ(o.outer_iters, os.outer_iters);
  for (int64_t i = 0; i < n; i += nv) EXPECT_NEAR(u[i], us[i], 1e-9);
  free(u);
  free(us);
  free(xs);
  free(cs);
  free(x);
  free(y);
  free(ys);
  free(xf);
  free(yf);
  free(ysf);
  free(cf);
  free(csf);
  sq_qs_runtime_destroy(qr);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

int main(void) {
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  conf.ncuda = 0;
  conf.ncpus = 2;
  if (starpu_init(&conf) != 0) {
    fprintf(stderr, "starpu_init failed\n");
    return EXIT_FAILURE;
  }
  const TTest *tests[] = {test_products, test_solve, test_multi, NULL};
  const int rc = sq_test_run(sq_test_suite("qs_tasks", 120, tests), 0);
  starpu_shutdown();
  return rc;
}
