/** @file test_qs.c  Check suite for the quasi-static solver (sq_qs.h): the P2 element, the EBE operator, the
 *  coarse level, the mixed-precision solve and the fault dislocation. */
#include "sq_check.h"
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_qs.h"
#include "sq_test_util.h"

static const double LAM = 2.0, MU = 1.0;

/* A box [0,1]^3 of n^3 cubes (6 tets each), all sides tagged absorbing (5), jittered. */
static sq_mesh *box(int n, double jitter, int fault) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = n;
  for (int i = 0; i < 6; ++i) bp.bc[i] = 5;
  bp.jitter = jitter;
  if (fault) {
    bp.has_fault = 1;
    bp.fault_lo[0] = bp.fault_hi[0] = 0.5;
    bp.fault_lo[1] = bp.fault_lo[2] = 0;
    bp.fault_hi[1] = bp.fault_hi[2] = 1;
    if (fault == 2) { /* buried: [0.25, 0.75]^2 in the plane x = 0.5 */
      bp.fault_lo[1] = bp.fault_lo[2] = 0.25;
      bp.fault_hi[1] = bp.fault_hi[2] = 0.75;
    }
  }
  sq_mesh *m = NULL;
  ck_assert_int_eq(sq_mesh_box(&bp, &m), 0);
  return m;
}

/* the P2 mesh, homogeneous (LAM, MU) or with Lame parameters varying from cell to cell */
static sq_qs_mesh *qs(const sq_mesh *m, int tile, int hetero) {
  double *lam = malloc(sizeof(double) * m->ncell), *mu = malloc(sizeof(double) * m->ncell);
  for (int64_t c = 0; c < m->ncell; ++c) {
    lam[c] = LAM * (hetero ? 1 + 0.5 * (c % 3) : 1);
    mu[c] = MU * (hetero ? 1 + 0.25 * (c % 5) : 1);
  }
  sq_qs_mesh *q = NULL;
  ck_assert_int_eq(sq_qs_mesh_create(m, lam, mu, tile, &q), 0);
  free(lam);
  free(mu);
  return q;
}

static int on_boundary(const double *x) {
  for (int d = 0; d < 3; ++d)
    if (fabs(x[d]) < 1e-12 || fabs(x[d] - 1) < 1e-12) return 1;
  return 0;
}

/* linear field: u = A x + c */
static const double A[3][3] = {{0.3, -0.2, 0.5}, {0.1, 0.4, -0.3}, {-0.6, 0.2, 0.25}};
static void linear(void *ctx, const double x[3], double u[3]) {
  (void)ctx;
  for (int i = 0; i < 3; ++i) u[i] = 0.1 * (i + 1) + A[i][0] * x[0] + A[i][1] * x[1] + A[i][2] * x[2];
}

/* quadratic field u = (x y, y z, z x) + linear: div sigma = (lambda + mu) (1, 1, 1) */
static void quadratic(void *ctx, const double x[3], double u[3]) {
  linear(ctx, x, u);
  u[0] += x[0] * x[1];
  u[1] += x[1] * x[2];
  u[2] += x[2] * x[0];
}

START_TEST(test_patch) {
  /* a linear field's forces vanish at interior nodes; a rigid motion's vanish everywhere */
  sq_mesh *m = box(3, 0.25, 0);
  sq_qs_mesh *q = qs(m, 17, 0);
  const int64_t n = 3 * q->nnode;
  double *u = calloc(n, sizeof(double)), *y = calloc(n, sizeof(double));
  for (int64_t p = 0; p < q->nnode; ++p) linear(NULL, q->xyz + 3 * p, u + 3 * p);
  sq_qs_ebe_p2_f64(q->ncell, q->cell_node, q->cell_node, q->geo, u, y);
  double ymax = 0;
  for (int64_t i = 0; i < n; ++i) ymax = fmax(ymax, fabs(y[i]));
  EXPECT(ymax > 1e-3); /* the boundary nodes carry the traction */
  for (int64_t p = 0; p < q->nnode; ++p)
    if (!on_boundary(q->xyz + 3 * p))
      for (int i = 0; i < 3; ++i) EXPECT_NEAR(y[3 * p + i], 0, 1e-12);
  /* rigid: translation + rotation (skew) */
  const double w[3] = {0.3, -0.7, 0.2};
  for (int64_t p = 0; p < q->nnode; ++p) {
    const double *x = q->xyz + 3 * p;
    u[3 * p] = 1 + w[1] * x[2] - w[2] * x[1];
    u[3 * p + 1] = -2 + w[2] * x[0] - w[0] * x[2];
    u[3 * p + 2] = 0.5 + w[0] * x[1] - w[1] * x[0];
  }
  sq_qs_mesh_destroy(q);
  q = qs(m, 17, 1);
  memset(y, 0, sizeof(double) * n);
  sq_qs_ebe_p2_f64(q->ncell, q->cell_node, q->cell_node, q->geo, u, y);
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(y[i], 0, 1e-12);
  /* and the P1 operator on the vertices */
  memset(y, 0, sizeof(double) * n);
  sq_qs_ebe_p1_f64(q->ncell, q->cell_node, q->cell_node, q->geo, u, y);
  for (int64_t i = 0; i < 3 * q->nvert; ++i) EXPECT_NEAR(y[i], 0, 1e-12);
  free(u);
  free(y);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

/* The element stiffness by an independent route: B^T D B in Voigt notation with Keast's 5-point rule. */
static void elem_matrix(const double *geo, double K[30][30]) {
  const double pts[5][4] = {{0.25, 0.25, 0.25, 0.25},
                            {0.5, 1. / 6, 1. / 6, 1. / 6},
                            {1. / 6, 0.5, 1. / 6, 1. / 6},
                            {1. / 6, 1. / 6, 0.5, 1. / 6},
                            {1. / 6, 1. / 6, 1. / 6, 0.5}};
  const double wts[5] = {-0.8, 0.45, 0.45, 0.45, 0.45};
  double g[4][3];
  for (int d = 0; d < 3; ++d) {
    g[1][d] = geo[d];
    g[2][d] = geo[3 + d];
    g[3][d] = geo[6 + d];
    g[0][d] = -g[1][d] - g[2][d] - g[3][d];
  }
  const double lam = geo[10], mu = geo[11];
  double D[6][6] = {{0}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) D[i][j] = lam;
    D[i][i] += 2 * mu;
    D[3 + i][3 + i] = mu;
  }
  memset(K, 0, sizeof(double) * 900);
  for (int q = 0; q < 5; ++q) {
    const double *L = pts[q];
    double G[10][3];
    for (int a = 0; a < 4; ++a)
      for (int d = 0; d < 3; ++d) G[a][d] = (4 * L[a] - 1) * g[a][d];
    for (int e = 0; e < 6; ++e) {
      const int i = sq_qs_edge_vertices[e][0], j = sq_qs_edge_vertices[e][1];
      for (int d = 0; d < 3; ++d) G[4 + e][d] = 4 * (L[i] * g[j][d] + L[j] * g[i][d]);
    }
    double B[6][30] = {{0}};
    for (int a = 0; a < 10; ++a) {
      B[0][3 * a] = G[a][0];
      B[1][3 * a + 1] = G[a][1];
      B[2][3 * a + 2] = G[a][2];
      B[3][3 * a + 1] = G[a][2]; /* yz */
      B[3][3 * a + 2] = G[a][1];
      B[4][3 * a] = G[a][2]; /* xz */
      B[4][3 * a + 2] = G[a][0];
      B[5][3 * a] = G[a][1]; /* xy */
      B[5][3 * a + 1] = G[a][0];
    }
    for (int r = 0; r < 30; ++r)
      for (int s = 0; s < 30; ++s) {
        double v = 0;
        for (int k = 0; k < 6; ++k)
          for (int l = 0; l < 6; ++l) v += B[k][r] * D[k][l] * B[l][s];
        K[r][s] += wts[q] * geo[9] * v;
      }
  }
}

START_TEST(test_ebe_assembled) {
  sq_mesh *m = box(2, 0.2, 0);
  sq_qs_mesh *q = qs(m, 7, 1);
  const int64_t n = 3 * q->nnode;
  double *Kg = calloc((size_t)(n * n), sizeof(double));
  for (int64_t c = 0; c < q->ncell; ++c) {
    double K[30][30];
    elem_matrix(q->geo + SQ_QS_NGEO * c, K);
    for (int r = 0; r < 30; ++r)
      for (int s = 0; s < 30; ++s)
        Kg[(3 * q->cell_node[10 * c + r / 3] + r % 3) * n + 3 * q->cell_node[10 * c + s / 3] + s % 3] += K[r][s];
  }
  double *x = malloc(sizeof(double) * n), *y = calloc(n, sizeof(double)), *yt = calloc(n, sizeof(double)),
         *d = malloc(sizeof(double) * n);
  float *xf = malloc(sizeof(float) * n), *yf = calloc(n, sizeof(float)), *ytf = calloc(n, sizeof(float));
  srand(3);
  for (int64_t i = 0; i < n; ++i) xf[i] = (float)(x[i] = (double)rand() / RAND_MAX - 0.5);
  sq_qs_ebe_p2_f64(q->ncell, q->cell_node, q->cell_node, q->geo, x, y);
  sq_qs_ebe_p2_f32(q->ncell, q->cell_node, q->cell_node, q->geo32, xf, yf);
  /* the tiles' products and their reduction */
  EXPECT(q->ntile > 3);
  double *tl = malloc(sizeof(double) * n);
  float *tlf = malloc(sizeof(float) * n);
  for (int t = 0; t < q->ntile; ++t) {
    sq_qs_tile_apply_f64(q, t, 0, x, tl);
    sq_qs_tile_reduce_f64(q, t, 0, tl, yt);
    sq_qs_tile_apply_f32(q, t, 0, xf, tlf);
    sq_qs_tile_reduce_f32(q, t, 0, tlf, ytf);
  }
  double scale = 0;
  for (int64_t i = 0; i < n; ++i) scale = fmax(scale, fabs(y[i]));
  for (int64_t i = 0; i < n; ++i) {
    double v = 0;
    for (int64_t j = 0; j < n; ++j) {
      v += Kg[i * n + j] * x[j];
      EXPECT_NEAR(Kg[i * n + j], Kg[j * n + i], 1e-12 * (1 + fabs(Kg[i * n + j])));
    }
    EXPECT_NEAR(y[i], v, 1e-12 * scale);
    EXPECT_NEAR(yt[i], v, 1e-12 * scale);
    EXPECT_NEAR(yf[i], v, 1e-5 * scale);
    EXPECT_NEAR(ytf[i], v, 1e-5 * scale);
  }
  /* the diagonal */
  sq_qs_diag_p2(q, d);
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(d[i], Kg[i * n + i], 1e-12 * (1 + fabs(d[i])));
  free(Kg);
  free(x);
  free(y);
  free(yt);
  free(d);
  free(xf);
  free(yf);
  free(ytf);
  free(tl);
  free(tlf);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_transfer) {
  /* restriction is the transpose of prolongation; prolongation interpolates linear fields exactly; the P1
   * tile products reduce to the P1 operator */
  sq_mesh *m = box(2, 0.2, 0);
  sq_qs_mesh *q = qs(m, 5, 1);
  const int64_t n = 3 * q->nnode, nc = 3 * q->nvert;
  float *r = malloc(sizeof(float) * n), *z = malloc(sizeof(float) * n), *rc = malloc(sizeof(float) * nc),
        *zc = malloc(sizeof(float) * nc);
  srand(5);
  for (int64_t i = 0; i < n; ++i) r[i] = (float)rand() / RAND_MAX - 0.5f;
  for (int64_t i = 0; i < nc; ++i) zc[i] = (float)rand() / RAND_MAX - 0.5f;
  sq_qs_restrict_f32(q, r, rc);
  sq_qs_prolong_f32(q, zc, z);
  double a = 0, b = 0;
  for (int64_t i = 0; i < nc; ++i) a += (double)rc[i] * zc[i];
  for (int64_t i = 0; i < n; ++i) b += (double)r[i] * z[i];
  EXPECT_NEAR(a, b, 1e-5 * fabs(a));
  for (int64_t p = 0; p < q->nvert; ++p) {
    double u[3];
    linear(NULL, q->xyz + 3 * p, u);
    for (int i = 0; i < 3; ++i) zc[3 * p + i] = (float)u[i];
  }
  sq_qs_prolong_f32(q, zc, z);
  for (int64_t p = 0; p < q->nnode; ++p) {
    double u[3];
    linear(NULL, q->xyz + 3 * p, u);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(z[3 * p + i], u[i], 1e-6);
  }
  double *x = malloc(sizeof(double) * nc), *y = calloc(nc, sizeof(double)), *yt = calloc(nc, sizeof(double)),
         *tl = malloc(sizeof(double) * n);
  for (int64_t i = 0; i < nc; ++i) x[i] = (double)rand() / RAND_MAX - 0.5;
  sq_qs_ebe_p1_f64(q->ncell, q->cell_node, q->cell_node, q->geo, x, y);
  for (int t = 0; t < q->ntile; ++t) {
    sq_qs_tile_apply_f64(q, t, 1, x, tl);
    sq_qs_tile_reduce_f64(q, t, 1, tl, yt);
  }
  for (int64_t i = 0; i < nc; ++i) EXPECT_NEAR(yt[i], y[i], 1e-12 * (1 + fabs(y[i])));
  free(r);
  free(z);
  free(rc);
  free(zc);
  free(x);
  free(y);
  free(yt);
  free(tl);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_solve_quadratic) {
  /* Dirichlet problem with a quadratic exact solution and its constant body force: P2 reproduces it; the
   * mixed-precision solver reaches 1e-10 in double */
  sq_mesh *m = box(4, 0.25, 0);
  double *lam = malloc(sizeof(double) * m->ncell), *mu = malloc(sizeof(double) * m->ncell);
  for (int64_t c = 0; c < m->ncell; ++c) {
    lam[c] = LAM;
    mu[c] = MU;
  }
  sq_qs_mesh *q = NULL;
  ck_assert_int_eq(sq_qs_mesh_create(m, lam, mu, 64, &q), 0);
  sq_qs_bc_kind kind[256] = {0};
  kind[5] = SQ_QS_DIRICHLET;
  ck_assert_int_eq(sq_qs_set_bc(q, kind, quadratic, NULL), 0);
  const int64_t n = 3 * q->nnode;
  double *f = calloc(n, sizeof(double)), *u = calloc(n, sizeof(double));
  /* consistent nodal forces of the body force b = -div sigma = -(lambda + mu)(1,1,1): int N_vertex = -V/20, int N_edge
   * = V/5 */
  for (int64_t c = 0; c < q->ncell; ++c)
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i)
        f[3 * q->cell_node[10 * c + a] + i] -= (LAM + MU) * m->volume[c] * (a < 4 ? -0.05 : 0.2);
  sq_qs_solver_opts o;
  sq_qs_solver_opts_default(&o);
  ck_assert_int_eq(sq_qs_solve(q, NULL, f, u, &o), 0);
  EXPECT(o.rel_residual < 1e-10);
  EXPECT(o.outer_iters > 0 && o.outer_iters < 40);
  EXPECT(o.inner_iters > 0 && o.coarse_iters > 0);
  for (int64_t p = 0; p < q->nnode; ++p) {
    double ue[3];
    quadratic(NULL, q->xyz + 3 * p, ue);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(u[3 * p + i], ue[i], 1e-8);
  }
  /* the coarse level pays: without it (no coarse iterations) the fine inner solves need more iterations */
  const int64_t with_coarse = o.inner_iters;
  o.max_coarse = 0;
  ck_assert_int_eq(sq_qs_solve(q, NULL, f, u, &o), 0);
  EXPECT(o.rel_residual < 1e-10);
  EXPECT_EQ(o.coarse_iters, 0);
  EXPECT_MSG(o.inner_iters > 1.3 * with_coarse, "inner iterations %lld without the coarse level, %lld with it",
             (long long)o.inner_iters, (long long)with_coarse);
  o.max_coarse = 200;
  /* the inner solves are single precision; the outer loop still reaches 1e-12 (double) */
  o.tol = 1e-12;
  ck_assert_int_eq(sq_qs_solve(q, NULL, f, u, &o), 0);
  EXPECT(o.rel_residual < 1e-11);
  free(f);
  free(u);
  free(lam);
  free(mu);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_roller_free) {
  /* rollers on three sides and the bottom, a displaced side, a free top: uniaxial strain with the Poisson
   * contraction towards the free top, exact */
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = 3;
  for (int i = 0; i < 6; ++i) bp.bc[i] = 5;
  sq_mesh *m = NULL;
  ck_assert_int_eq(sq_mesh_box(&bp, &m), 0);
  /* tags by side: -x roller (7), +x Dirichlet (8), +-y and -z roller (9), +z free (1) */
  for (int64_t c = 0; c < m->ncell; ++c)
    for (int f = 0; f < 4; ++f) {
      if (m->face_neighbor[4 * c + f] >= 0) continue;
      const double *nn = m->face_normal + 12 * c + 3 * f;
      m->face_bc[4 * c + f] = nn[0] < -0.5 ? 7 : nn[0] > 0.5 ? 8 : nn[2] > 0.5 ? 1 : 9;
    }
  double *lam = malloc(sizeof(double) * m->ncell), *mu = malloc(sizeof(double) * m->ncell);
  for (int64_t c = 0; c < m->ncell; ++c) {
    lam[c] = LAM;
    mu[c] = MU;
  }
  sq_qs_mesh *q = NULL;
  ck_assert_int_eq(sq_qs_mesh_create(m, lam, mu, 32, &q), 0);
  sq_qs_bc_kind kind[256] = {0};
  kind[7] = kind[9] = SQ_QS_ROLLER;
  kind[8] = SQ_QS_DIRICHLET;
  kind[1] = SQ_QS_FREE;
  ck_assert_int_eq(sq_qs_set_bc(q, kind, NULL, NULL), 0);
  const int64_t n = 3 * q->nnode;
  int64_t nfix = 0;
  for (int64_t i = 0; i < n; ++i) nfix += q->fixed[i];
  EXPECT(nfix > 0 && nfix < n);
  double *u = calloc(n, sizeof(double));
  /* the exact field: u = (e x, 0, uz z), uniform stress with a traction-free top */
  const double e = 0.01, uz = -LAM / (LAM + 2 * MU) * e;
  for (int64_t p = 0; p < q->nnode; ++p) {
    const double ue[3] = {e * q->xyz[3 * p], 0, uz * q->xyz[3 * p + 2]};
    for (int i = 0; i < 3; ++i) q->ubc[3 * p + i] = q->fixed[3 * p + i] ? ue[i] : 0;
  }
  sq_qs_solver_opts o;
  sq_qs_solver_opts_default(&o);
  ck_assert_int_eq(sq_qs_solve(q, NULL, NULL, u, &o), 0);
  for (int64_t p = 0; p < q->nnode; ++p) {
    const double *x = q->xyz + 3 * p;
    EXPECT_NEAR(u[3 * p], e * x[0], 1e-9);
    EXPECT_NEAR(u[3 * p + 1], 0, 1e-9);
    EXPECT_NEAR(u[3 * p + 2], uz * x[2], 1e-9);
  }
  free(u);
  free(lam);
  free(mu);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

/* the slip: the + side (x > 0.5) moves by (0, s, 0.4 s) relative to the - side */
static void slip(void *ctx, const double x[3], double s[3]) {
  (void)ctx;
  (void)x;
  s[0] = 0;
  s[1] = 0.2;
  s[2] = 0.08;
}
static void blocks(void *ctx, const double x[3], double u[3]) {
  double s[3];
  slip(ctx, x, s);
  const double h = x[0] > 0.5 + 1e-12 ? 0.5 : x[0] < 0.5 - 1e-12 ? -0.5 : 0;
  for (int d = 0; d < 3; ++d) u[d] = h * s[d];
}

START_TEST(test_dislocation) {
  /* a fault through the whole box: two rigid blocks, exact; every cell's jump across the fault is the slip */
  sq_mesh *m = box(4, 0, 1);
  sq_qs_mesh *q = qs(m, 64, 1);
  sq_qs_bc_kind kind[256] = {0};
  kind[5] = SQ_QS_DIRICHLET;
  ck_assert_int_eq(sq_qs_set_bc(q, kind, blocks, NULL), 0);
  const double nref[3] = {1, 0, 0};
  ck_assert_int_eq(sq_qs_set_fault(q, nref, slip, NULL), 0);
  EXPECT_EQ(q->nfault_face, 2 * 4 * 4);
  EXPECT_EQ(q->ntip_node, 0);
  const int64_t n = 3 * q->nnode;
  double *u = calloc(n, sizeof(double));
  sq_qs_solver_opts o;
  sq_qs_solver_opts_default(&o);
  ck_assert_int_eq(sq_qs_solve(q, NULL, NULL, u, &o), 0);
  for (int64_t c = 0; c < q->ncell; ++c) {
    const double side = m->centroid[3 * c] > 0.5 ? 0.5 : -0.5;
    for (int a = 0; a < 10; ++a) {
      double uc[3], s[3];
      sq_qs_cell_displacement(q, u, c, a, uc);
      slip(NULL, NULL, s);
      for (int d = 0; d < 3; ++d) EXPECT_NEAR(uc[d], side * s[d], 1e-9);
    }
  }
  free(u);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

/* The jump u(x < 0.5) - u(x > 0.5) at the node at (x, y, z), from the cells on either side; *plus: the x < 0.5 side. */
static void jump_at(const sq_qs_mesh *q, const double *u, double x, double y, double z, double jump[3], double *plus) {
  int64_t node = -1;
  for (int64_t p = 0; p < q->nnode; ++p)
    if (fabs(q->xyz[3 * p] - x) + fabs(q->xyz[3 * p + 1] - y) + fabs(q->xyz[3 * p + 2] - z) < 1e-12) node = p;
  EXPECT(node >= 0);
  double up[3] = {0}, um[3] = {0};
  int np = 0, nm = 0;
  for (int64_t c = 0; c < q->ncell; ++c)
    for (int a = 0; a < 10; ++a)
      if (q->cell_node[10 * c + a] == node) {
        double uc[3];
        sq_qs_cell_displacement(q, u, c, a, uc);
        const int pl = q->lin->centroid[3 * c] < 0.5;
        for (int d = 0; d < 3; ++d) (pl ? up : um)[d] = uc[d];
        np += pl;
        nm += !pl;
      }
  EXPECT(np > 0 && nm > 0);
  for (int d = 0; d < 3; ++d) jump[d] = up[d] - um[d];
  if (plus)
    for (int d = 0; d < 3; ++d) plus[d] = up[d];
}

START_TEST(test_buried_fault) {
  /* a buried fault: the jump is the slip at the fault's inner nodes, half of it at the tips; the field moves */
  sq_mesh *m = box(4, 0, 2);
  sq_qs_mesh *q = qs(m, 64, 1);
  sq_qs_bc_kind kind[256] = {0};
  kind[5] = SQ_QS_DIRICHLET;
  ck_assert_int_eq(sq_qs_set_bc(q, kind, NULL, NULL), 0);
  const double nref[3] = {-1, 0, 0}; /* + side: x < 0.5 */
  ck_assert_int_eq(sq_qs_set_fault(q, nref, slip, NULL), 0);
  EXPECT_EQ(q->nfault_face, 2 * 2 * 2);
  EXPECT(q->ntip_node > 0 && q->ntip_node < q->nfault_node);
  const int64_t n = 3 * q->nnode;
  double *u = calloc(n, sizeof(double));
  sq_qs_solver_opts o;
  sq_qs_solver_opts_default(&o);
  ck_assert_int_eq(sq_qs_solve(q, NULL, NULL, u, &o), 0);
  EXPECT(o.rel_residual < 1e-10);
  double s[3], jc[3], jt[3], plus[3];
  slip(NULL, NULL, s);
  jump_at(q, u, 0.5, 0.5, 0.5, jc, plus); /* the centre of the fault */
  for (int d = 0; d < 3; ++d) EXPECT_NEAR(jc[d], s[d], 1e-12);
  jump_at(q, u, 0.5, 0.25, 0.5, jt, NULL); /* the middle of an edge: a tip */
  for (int d = 0; d < 3; ++d) EXPECT_NEAR(jt[d], 0.5 * s[d], 1e-12);
  EXPECT(fabs(plus[1]) > 0.01); /* the mean field moves */
  free(u);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

START_TEST(test_bad_roller) {
  /* a roller on a face not normal to an axis is refused; so is a material that is not elastically stable */
  sq_mesh *m = box(2, 0.25, 0);
  sq_qs_mesh *q = qs(m, 16, 0);
  sq_qs_bc_kind kind[256] = {0};
  kind[5] = SQ_QS_ROLLER;
  /* the jittered box keeps its outer faces planar, so rollers are accepted there */
  ck_assert_int_eq(sq_qs_set_bc(q, kind, NULL, NULL), 0);
  for (int64_t c = 0; c < m->ncell; ++c) /* tilt one boundary face's normal */
    for (int f = 0; f < 4; ++f)
      if (m->face_neighbor[4 * c + f] < 0 && c == 0) {
        m->face_normal[12 * c + 3 * f] = 0.6;
        m->face_normal[12 * c + 3 * f + 1] = 0.8;
        m->face_normal[12 * c + 3 * f + 2] = 0;
      }
  int saved = sq_test_capture_begin();
  const int rc = sq_qs_set_bc(q, kind, NULL, NULL);
  sq_test_capture_end(saved);
  ck_assert_int_eq(rc, SQ_ERR_INPUT);
  ck_assert_msg(strstr(sq_test_msg, "roller face") && strstr(sq_test_msg, "cell 0") &&
                    strstr(sq_test_msg, "not along a coordinate axis"),
                "message: %s", sq_test_msg);
  double lam = 1, mu = -1;
  sq_mesh *one = box(1, 0, 0);
  double *l = malloc(sizeof(double) * one->ncell), *mm = malloc(sizeof(double) * one->ncell);
  for (int64_t c = 0; c < one->ncell; ++c) {
    l[c] = lam;
    mm[c] = mu;
  }
  sq_qs_mesh *bad = NULL;
  saved = sq_test_capture_begin();
  const int rc2 = sq_qs_mesh_create(one, l, mm, 4, &bad);
  sq_test_capture_end(saved);
  ck_assert_int_eq(rc2, SQ_ERR_INPUT);
  ck_assert_msg(strstr(sq_test_msg, "cell 0 has lambda 1, mu -1"), "message: %s", sq_test_msg);
  free(l);
  free(mm);
  sq_mesh_destroy(one);
  sq_qs_mesh_destroy(q);
  sq_mesh_destroy(m);
}
END_TEST

int main(void) {
  const TTest *tests[] = {test_patch,           test_ebe_assembled, test_transfer,
                          test_solve_quadratic, test_roller_free,   test_dislocation,
                          test_buried_fault,    test_bad_roller,    NULL};
  return sq_test_run(sq_test_suite("qs", 120, tests), 1);
}
