/**
 * @file qs_bench_problem.h  The problem of the quasi-static benchmarks (qs-step-bench, qs-multistep-bench): the unit
 * box in n^3 cubes (6 tetrahedra each), a vertical strike-slip fault (x = 1/2, 1/4 <= y <= 3/4, 1/2 <= z <= 1, unit
 * slip along y) reaching the free top, sides and bottom fixed, lambda = mu = 1, an elastic upper half over a Maxwell
 * lower half (eta = 1).
 */
#ifndef SQ_QS_BENCH_PROBLEM_H
#define SQ_QS_BENCH_PROBLEM_H

#include <math.h>
#include <stdlib.h>

#include "sq_mesh.h"
#include "sq_qs.h"

static void qs_bench_slip(void *ctx, const double x[3], double s[3]) {
  (void)ctx, (void)x;
  s[0] = 0, s[1] = 1, s[2] = 0;
}

/** The linear mesh @p m, its P2 mesh @p q in tiles of @p tile cells with boundary conditions and fault set, and the
 *  viscosity @p eta of each cell (free it); 1 on failure. */
static int qs_bench_problem(int n, int tile, sq_mesh **m, sq_qs_mesh **q, double **eta) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = n;
  for (int i = 0; i < 5; ++i) bp.bc[i] = SQ_BC_ABSORB; /* the fixed sides and bottom */
  bp.bc[5] = SQ_BC_FREE;
  bp.has_fault = 1;
  const double lo[3] = {0.5, 0.25, 0.5}, hi[3] = {0.5, 0.75, 1.0};
  for (int i = 0; i < 3; ++i) bp.fault_lo[i] = lo[i], bp.fault_hi[i] = hi[i];
  if (sq_mesh_box(&bp, m)) return 1;
  double *lam = malloc(sizeof(double) * (*m)->ncell), *mu = malloc(sizeof(double) * (*m)->ncell);
  *eta = malloc(sizeof(double) * (*m)->ncell);
  for (int64_t c = 0; c < (*m)->ncell; ++c)
    lam[c] = mu[c] = 1, (*eta)[c] = (*m)->centroid[3 * c + 2] < 0.5 ? 1.0 : INFINITY;
  const int ierr = sq_qs_mesh_create(*m, lam, mu, tile, q);
  free(lam);
  free(mu);
  if (ierr) return 1;
  sq_qs_bc_kind kind[256] = {0};
  kind[SQ_BC_ABSORB] = SQ_QS_DIRICHLET;
  const double nref[3] = {1, 0, 0};
  return sq_qs_set_bc(*q, kind, NULL, NULL) || sq_qs_set_fault(*q, nref, qs_bench_slip, NULL);
}

#endif
