/**
 * @file qs_test_mesh.h  Shared by the quasi-static solver's task and GPU checks (test_qs_tasks.c, test_cuda_qs.c):
 * a jittered box of n^3 cubes, every side tag 5, with Lame parameters varying per cell, as a P2 mesh in tiles of
 * @p tile cells; and smooth displacements for Dirichlet sides.  Include after <check.h>.
 */
#ifndef SQ_QS_TEST_MESH_H
#define SQ_QS_TEST_MESH_H

#include <stdlib.h>

#include "sq_mesh.h"
#include "sq_qs.h"

static sq_qs_mesh *qs_test_box(int n, int tile, sq_mesh **m) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = n;
  for (int i = 0; i < 6; ++i) bp.bc[i] = 5;
  bp.jitter = 0.2;
  ck_assert_int_eq(sq_mesh_box(&bp, m), 0);
  double *lam = malloc(sizeof(double) * (*m)->ncell), *mu = malloc(sizeof(double) * (*m)->ncell);
  for (int64_t c = 0; c < (*m)->ncell; ++c) {
    lam[c] = 2 + (c % 3);
    mu[c] = 1 + 0.5 * (c % 2);
  }
  sq_qs_mesh *q = NULL;
  ck_assert_int_eq(sq_qs_mesh_create(*m, lam, mu, tile, &q), 0);
  free(lam);
  free(mu);
  return q;
}

/** Dirichlet values: linear and bilinear in x. */
static void qs_test_boundary_values(void *ctx, const double x[3], double u[3]) {
  (void)ctx;
  u[0] = 0.01 * x[0] + 0.02 * x[1];
  u[1] = -0.03 * x[2];
  u[2] = 0.01 * x[0] * x[1];
}

#endif
