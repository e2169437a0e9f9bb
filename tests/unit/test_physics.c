/** @file test_physics.c  Check suite for physics.c, the kernels and the serial solver. */
#include "sq_check.h"
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_physics.h"
#include "sq_fields.h"
#include "sq_solver.h"

static const sq_material mat1 = {.rho = 2.7, .lambda = 3.2, .mu = 3.3};
static const sq_material mat2 = {.rho = 1.0, .lambda = 2.0, .mu = 1.0};

static void mat_mul(const double *a, const double *b, double *c) {
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) {
      double s = 0;
      for (int k = 0; k < 9; ++k) s += a[i * 9 + k] * b[k * 9 + j];
      c[i * 9 + j] = s;
    }
}

static void unit_normal(double n[3], double a, double b, double c) {
  const double l = sqrt(a * a + b * b + c * c);
  n[0] = a / l, n[1] = b / l, n[2] = c / l;
}

START_TEST(rotation_inverse_and_jacobian) {
  double n[3], T[81], Ti[81], P[81], Ax[81], An[81], tmp[81], rot[81];
  unit_normal(n, 0.3, -0.8, 0.5);
  sq_rotation(n, T, Ti);
  mat_mul(T, Ti, P);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) ck_assert_double_eq_tol(P[i * 9 + j], i == j ? 1.0 : 0.0, 1e-14);
  const double ex[3] = {1, 0, 0};
  sq_jacobian(&mat1, ex, Ax);
  sq_jacobian(&mat1, n, An);
  mat_mul(Ax, Ti, tmp);
  mat_mul(T, tmp, rot); /* rotational invariance: T A_x T^-1 = A_n */
  for (int i = 0; i < 81; ++i) ck_assert_double_eq_tol(rot[i], An[i], 1e-13);
}
END_TEST

START_TEST(star_matrices_identity_map) {
  const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double star[3][81], A[81];
  sq_star_matrices(&mat1, I, star);
  for (int e = 0; e < 3; ++e) {
    const double dir[3] = {e == 0, e == 1, e == 2};
    sq_jacobian(&mat1, dir, A);
    for (int i = 0; i < 81; ++i) ck_assert_double_eq(star[e][i], A[i]);
  }
}
END_TEST

/* The star pattern the GPU kernels apply sparsely (SQ_STAR_NONZERO): 24 entries, every one of them non-zero for a
 * general map and material, none outside them, also for an acoustic material (mu = 0). */
START_TEST(star_matrices_sparsity_pattern) {
  int nnz = 0;
  for (int p = 0; p < 9; ++p)
    for (int q = 0; q < 9; ++q) nnz += SQ_STAR_NONZERO(p, q);
  ck_assert_int_eq(nnz, SQ_STAR_NNZ);
  const double jinv[9] = {0.7, -0.2, 0.4, 0.1, 1.3, -0.6, -0.5, 0.3, 0.9};
  const sq_material acoustic = {.rho = 1.0, .lambda = 2.25, .mu = 0.0};
  const sq_material *mats[3] = {&mat1, &mat2, &acoustic};
  for (int m = 0; m < 3; ++m) {
    double star[3][81];
    sq_star_matrices(mats[m], jinv, star);
    for (int e = 0; e < 3; ++e) {
      ck_assert(sq_star_pattern_ok(star[e]));
      for (int p = 0; p < 9; ++p)
        for (int q = 0; q < 9; ++q) /* the pattern is not larger than it must be */
          if (SQ_STAR_NONZERO(p, q) && mats[m]->mu > 0) ck_assert(star[e][p * 9 + q] != 0.0);
    }
  }
  double a[81] = {0};
  a[0 * 9 + 3] = 1.0; /* s_xx from s_xy: outside the pattern */
  ck_assert(!sq_star_pattern_ok(a));
}
END_TEST

START_TEST(flux_consistency_homogeneous) {
  /* For q- = q+ the numerical flux is the physical flux A_n q. */
  double n[3], loc[81], nb[81], An[81];
  unit_normal(n, -0.2, 0.4, 0.9);
  ck_assert_int_eq(sq_flux_solvers(&mat1, &mat1, n, SQ_FLUX_REGULAR, loc, nb), 0);
  sq_jacobian(&mat1, n, An);
  for (int i = 0; i < 81; ++i) ck_assert_double_eq_tol(loc[i] + nb[i], An[i], 1e-12 * 10);
}
END_TEST

START_TEST(flux_upwind_outgoing_waves) {
  /* In a homogeneous medium an outgoing wave (positive speed along n) passes the face unchanged:
   * the local part alone gives its exact flux c r. */
  double n[3], loc[81], nb[81], r[9], c;
  unit_normal(n, 0.5, 0.5, -0.7);
  ck_assert_int_eq(sq_flux_solvers(&mat1, &mat1, n, SQ_FLUX_REGULAR, loc, nb), 0);
  for (int kind = 0; kind < 3; ++kind) {
    sq_plane_wave_eigenvector(&mat1, n, (sq_wave_kind)kind, +1, r, &c);
    for (int i = 0; i < 9; ++i) {
      double s = 0;
      for (int j = 0; j < 9; ++j) s += loc[i * 9 + j] * r[j];
      ck_assert_double_eq_tol(s, c * r[i], 1e-12 * 10);
    }
    sq_plane_wave_eigenvector(&mat1, n, (sq_wave_kind)kind, -1, r, &c);
    /* an incoming wave from the neighbour is carried entirely by the neighbour part */
    for (int i = 0; i < 9; ++i) {
      double s = 0, sl = 0;
      for (int j = 0; j < 9; ++j) s += nb[i * 9 + j] * r[j], sl += loc[i * 9 + j] * r[j];
      ck_assert_double_eq_tol(s, c * r[i], 1e-11);
      ck_assert_double_eq_tol(sl, 0.0, 1e-11);
    }
  }
}
END_TEST

START_TEST(flux_interface_continuity) {
  /* The flux seen from both sides of an interface is equal and opposite (conservation). */
  double n[3], mn[3], l1[81], n1[81], l2[81], n2[81], qa[9], qb[9];
  unit_normal(n, 0.1, 0.7, 0.2);
  for (int d = 0; d < 3; ++d) mn[d] = -n[d];
  ck_assert_int_eq(sq_flux_solvers(&mat1, &mat2, n, SQ_FLUX_REGULAR, l1, n1), 0);
  ck_assert_int_eq(sq_flux_solvers(&mat2, &mat1, mn, SQ_FLUX_REGULAR, l2, n2), 0);
  for (int i = 0; i < 9; ++i) qa[i] = sin(i + 1.0), qb[i] = cos(3.0 * i);
  /* velocity rows are -(1/rho) traction: the traction rho*F_v must be opposite */
  double Fa[9] = {0}, Fb[9] = {0};
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) {
      Fa[i] += l1[i * 9 + j] * qa[j] + n1[i * 9 + j] * qb[j];
      Fb[i] += l2[i * 9 + j] * qb[j] + n2[i * 9 + j] * qa[j];
    }
  for (int i = 6; i < 9; ++i) ck_assert_double_eq_tol(mat1.rho * Fa[i], -mat2.rho * Fb[i], 1e-12);
}
END_TEST

START_TEST(free_surface_zero_traction) {
  /* The interface state of a free surface carries no traction: the velocity rows of the flux vanish. */
  double n[3], loc[81], nb[81];
  unit_normal(n, 0.3, 0.3, 0.9);
  ck_assert_int_eq(sq_flux_solvers(&mat1, &mat1, n, SQ_FLUX_FREE, loc, nb), 0);
  for (int i = 6; i < 9; ++i)
    for (int j = 0; j < 9; ++j) ck_assert_double_eq_tol(loc[i * 9 + j], 0.0, 1e-13);
  for (int i = 0; i < 81; ++i) ck_assert_double_eq(nb[i], 0.0);
  /* and it is not the absorbing flux */
  double la[81], na[81], diff = 0;
  ck_assert_int_eq(sq_flux_solvers(&mat1, &mat1, n, SQ_FLUX_ABSORB, la, na), 0);
  for (int i = 0; i < 81; ++i) diff += fabs(la[i] - loc[i]);
  ck_assert(diff > 1e-3);
}
END_TEST

START_TEST(flux_rejects_bad_material) {
  const sq_material bad = {.rho = -1, .lambda = 1, .mu = 1};
  double n[3] = {1, 0, 0}, loc[81], nb[81];
  ck_assert_int_ne(sq_flux_solvers(&bad, &mat1, n, SQ_FLUX_REGULAR, loc, nb), 0);
}
END_TEST

START_TEST(plane_wave_eigenvectors) {
  double k[3], A[81], r[9], c;
  unit_normal(k, 1, 2, -1);
  sq_jacobian(&mat1, k, A);
  for (int kind = 0; kind < 3; ++kind)
    for (int dir = -1; dir <= 1; dir += 2) {
      sq_plane_wave_eigenvector(&mat1, k, (sq_wave_kind)kind, dir, r, &c);
      const double expect = (kind == 0 ? sq_material_vp(&mat1) : sq_material_vs(&mat1)) * dir;
      ck_assert_double_eq_tol(c, expect, 1e-14);
      for (int i = 0; i < 9; ++i) {
        double s = 0;
        for (int j = 0; j < 9; ++j) s += A[i * 9 + j] * r[j];
        ck_assert_double_eq_tol(s, c * r[i], 1e-12);
      }
    }
}
END_TEST

START_TEST(dense_solver) {
  double A[9] = {0, 2, 1, 1, 1, 1, 2, 0, 3}, b[3] = {5, 6, 13}; /* x = (2, 1, 3) */
  ck_assert_int_eq(sq_solve_dense(3, A, b), 0);
  ck_assert_double_eq_tol(b[0], 2, 1e-14);
  ck_assert_double_eq_tol(b[1], 1, 1e-14);
  ck_assert_double_eq_tol(b[2], 3, 1e-14);
  double S[4] = {1, 2, 2, 4}, c[2] = {1, 1};
  ck_assert_int_ne(sq_solve_dense(2, S, c), 0);
}
END_TEST

/* Several right-hand sides at once: the same bits as one solve per column, and A X = I for X = A^{-1}. */
START_TEST(dense_solver_multi) {
  double A[81], X[81], M[81];
  unsigned seed = 7;
  for (int i = 0; i < 81; ++i) {
    seed = seed * 1103515245u + 12345u;
    A[i] = (double)((seed >> 8) % 2001) / 1000.0 - 1.0; /* in [-1, 1]: rows get swapped by the pivoting */
  }
  A[0] = 0.0; /* a zero first pivot candidate */
  memcpy(M, A, sizeof(M));
  for (int i = 0; i < 81; ++i) X[i] = i % 10 == 0 ? 1.0 : 0.0;
  ck_assert_int_eq(sq_solve_dense_multi(9, 9, M, X), 0);
  for (int c = 0; c < 9; ++c) {
    double A1[81], b[9];
    memcpy(A1, A, sizeof(A1));
    for (int i = 0; i < 9; ++i) b[i] = i == c ? 1.0 : 0.0;
    ck_assert_int_eq(sq_solve_dense(9, A1, b), 0);
    for (int i = 0; i < 9; ++i) ck_assert(memcmp(&b[i], &X[i * 9 + c], sizeof(double)) == 0);
  }
  double P[81];
  mat_mul(A, X, P);
  for (int i = 0; i < 81; ++i) ck_assert_double_eq_tol(P[i], i % 10 == 0 ? 1.0 : 0.0, 1e-11);
  double S[4] = {1, 2, 2, 4}, B[4] = {1, 0, 0, 1};
  ck_assert_int_ne(sq_solve_dense_multi(2, 2, S, B), 0);
}
END_TEST

/* A small periodic box with a plane wave, stepped by the serial reference solver. */
static sq_disc *make_disc(int order, sq_precision prec, int n, int tile, sq_mesh **mesh, sq_planewave *pw) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = n;
  ck_assert_int_eq(sq_mesh_box(&bp, mesh), 0);
  sq_material *m = malloc(sizeof(sq_material) * (*mesh)->ncell);
  for (int64_t c = 0; c < (*mesh)->ncell; ++c) m[c] = mat2;
  sq_disc_options opt = {
      .order = order, .precision = prec, .cfl = 0.5, .tile_size = tile, .lts_rate = 1, .max_clusters = 1};
  sq_disc *d;
  ck_assert_int_eq(sq_disc_create(*mesh, m, &opt, &d), 0);
  free(m);
  const double k[3] = {2 * M_PI, 2 * M_PI, 0};
  const sq_wave_kind kinds[2] = {SQ_WAVE_P, SQ_WAVE_S2};
  const int dirs[2] = {1, -1};
  const double amp[2] = {1.0, 0.5};
  sq_planewave_init(pw, &mat2, k, 0, 0, 0, 2, kinds, dirs, amp);
  sq_disc_project(d, sq_planewave_eval, pw, 0.0);
  return d;
}

START_TEST(ader_constant_state) {
  /* For a constant state the time derivatives vanish: tint = dt * dofs. */
  sq_mesh *mesh;
  sq_planewave pw;
  sq_disc *d = make_disc(4, SQ_F64, 2, 16, &mesh, &pw);
  double *q = d->dofs;
  const int B = d->nbasis;
  memset(q, 0, sq_disc_elem_bytes(d) * d->nelem);
  for (int64_t e = 0; e < d->nelem; ++e)
    for (int p = 0; p < 9; ++p) q[e * B * 9 + p * B] = 1.0 + p;
  sq_kernel_ader(SQ_F64, 4, d->nelem, d->pack, d->dofs, d->star, 0.25, d->tint, NULL);
  const double *ti = d->tint;
  for (int64_t i = 0; i < d->nelem * B * 9; ++i) ck_assert_double_eq_tol(ti[i], 0.25 * q[i], 1e-14);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}
END_TEST

START_TEST(energy_sums_thread_independent) {
  /* the energy sums are threaded over blocks of SQ_SUM_BLOCK elements and added in block order: the
   * same bits with 1, 2 and 3 threads, over several blocks (12^3 x 6 = 10 368 elements) */
  sq_mesh *mesh;
  sq_planewave pw;
  sq_disc *d = make_disc(3, SQ_F64, 12, 512, &mesh, &pw);
  ck_assert_int_gt(d->nelem, 2 * SQ_SUM_BLOCK);
  double e[3], kin[3], el[3];
  for (int t = 0; t < 3; ++t) {
    sq_set_threads(t + 1);
    e[t] = sq_disc_energy(d);
    sq_fields_energy(d, &kin[t], &el[t]);
  }
  sq_set_threads(1);
  for (int t = 1; t < 3; ++t) {
    ck_assert(memcmp(&e[t], &e[0], sizeof(double)) == 0);
    ck_assert(memcmp(&kin[t], &kin[0], sizeof(double)) == 0);
    ck_assert(memcmp(&el[t], &el[0], sizeof(double)) == 0);
  }
  ck_assert_double_eq_tol(kin[0] + el[0], e[0], 1e-12 * e[0]);
  ck_assert(e[0] > 0);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}
END_TEST

START_TEST(serial_step_energy_and_error) {
  /* Upwind fluxes dissipate: the energy never grows in a periodic box; the error stays small. */
  sq_mesh *mesh;
  sq_planewave pw;
  sq_disc *d = make_disc(4, SQ_F64, 3, 20, &mesh, &pw);
  const double e0 = sq_disc_energy(d);
  double t = 0, last = e0;
  for (int s = 0; s < 10; ++s) {
    sq_disc_step_serial(d, d->dt_min);
    t += d->dt_min;
    const double e = sq_disc_energy(d);
    ck_assert(e <= last * (1 + 1e-12));
    last = e;
  }
  ck_assert(last > 0.9 * e0);
  double err, norm;
  sq_disc_l2_error(d, sq_planewave_eval, &pw, t, &err, &norm);
  ck_assert(err / norm < 0.05);
  /* and a wrong time gives a much larger error, so the comparison can fail */
  double err2;
  sq_disc_l2_error(d, sq_planewave_eval, &pw, t + 0.1, &err2, &norm);
  ck_assert(err2 > 10 * err);
  sq_disc_destroy(d);
  sq_mesh_destroy(mesh);
}
END_TEST

START_TEST(single_matches_double) {
  sq_mesh *m1, *m2;
  sq_planewave pw;
  sq_disc *d64 = make_disc(3, SQ_F64, 2, 8, &m1, &pw);
  sq_disc *d32 = make_disc(3, SQ_F32, 2, 8, &m2, &pw);
  for (int s = 0; s < 5; ++s) {
    sq_disc_step_serial(d64, d64->dt_min);
    sq_disc_step_serial(d32, d64->dt_min);
  }
  const double *a = d64->dofs;
  const float *b = d32->dofs;
  double num = 0, den = 0;
  for (int64_t i = 0; i < d64->nelem * d64->nbasis * 9; ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += a[i] * a[i];
  }
  ck_assert(sqrt(num / den) < 1e-5);
  ck_assert(sqrt(num / den) > 0); /* really computed in single precision */
  sq_disc_destroy(d64);
  sq_disc_destroy(d32);
  sq_mesh_destroy(m1);
  sq_mesh_destroy(m2);
}
END_TEST

START_TEST(tile_size_bitwise) {
  /* Tiles change only the grouping, never the arithmetic of an element. */
  sq_mesh *m1, *m2;
  sq_planewave pw;
  sq_disc *a = make_disc(3, SQ_F64, 3, 7, &m1, &pw);
  sq_disc *b = make_disc(3, SQ_F64, 3, 1000, &m2, &pw);
  for (int s = 0; s < 3; ++s) {
    sq_disc_step_serial(a, a->dt_min);
    sq_disc_step_serial(b, a->dt_min);
  }
  ck_assert_uint_eq(sq_disc_hash(a), sq_disc_hash(b));
  sq_disc_destroy(a);
  sq_disc_destroy(b);
  sq_mesh_destroy(m1);
  sq_mesh_destroy(m2);
}
END_TEST

int main(void) {
  const TTest *tests[] = {rotation_inverse_and_jacobian,
                          star_matrices_identity_map,
                          star_matrices_sparsity_pattern,
                          flux_consistency_homogeneous,
                          flux_upwind_outgoing_waves,
                          flux_interface_continuity,
                          free_surface_zero_traction,
                          flux_rejects_bad_material,
                          plane_wave_eigenvectors,
                          dense_solver,
                          dense_solver_multi,
                          NULL};
  Suite *s = sq_test_suite("physics", 0, tests);
  TCase *tk = tcase_create("kernels");
  tcase_set_timeout(tk, 120);
  tcase_add_test(tk, ader_constant_state);
  tcase_add_test(tk, serial_step_energy_and_error);
  tcase_add_test(tk, energy_sums_thread_independent);
  tcase_add_test(tk, single_matches_double);
  tcase_add_test(tk, tile_size_bitwise);
  suite_add_tcase(s, tk);
  return sq_test_run(s, 1);
}
