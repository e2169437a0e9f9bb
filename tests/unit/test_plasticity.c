/** @file test_plasticity.c  Check suite for plasticity.c: return mapping (eq. 2.27-2.34) and nodal kernels
 * (eq. 8.2-8.3). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_locate.h"
#include "sq_plasticity.h"
#include "sq_ref.h"
#include "sq_sim.h"
#include "sq_sim_setup.h"

/* cohesion, bulk friction, shear modulus used throughout; the initial stress is isotropic compression */
#define COHESION 1.0
#define FRICTION 0.6
#define MU       3.0
#define PRESSURE 2.0

static double rand_unit(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (double)(*state >> 8) / (double)(1u << 24) * 2.0 - 1.0;
}

static double mean_of(const double s[6]) { return (s[0] + s[1] + s[2]) / 3.0; }
static void deviator(const double s[6], double dev[6]) {
  const double m = mean_of(s);
  for (int p = 0; p < 6; ++p) dev[p] = s[p] - (p < 3 ? m : 0.0);
}
static double tau_of(const double s[6]) {
  double d[6];
  deviator(s, d);
  return sqrt(0.5 * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + d[3] * d[3] + d[4] * d[4] + d[5] * d[5]);
}
/* eq. 2.28 written out independently of the library: phi = atan(bulk friction) */
static double tau_c_of(const double s[6], double cohesion, double friction) {
  const double phi = atan(friction);
  return fmax(0.0, cohesion * cos(phi) - mean_of(s) * sin(phi));
}

/*
 * Element dofs (double, B x 9) of the field: initial stress + wave stress, wave stress linear with
 * s_xy = shear * xi_x so that only the part of the element with large xi_x can yield, plus small
 * random polynomial perturbations of all quantities.  Modal coefficients by L2 projection with the
 * quadrature of sq_ref (orthonormal basis): independent of the nodal Vandermonde under test.
 */
static void make_element(int order, double shear, unsigned seed, double *dofs) {
  const int B = sq_nbasis(order);
  double coef[9][4];
  for (int p = 0; p < 9; ++p)
    for (int e = 0; e < 4; ++e) coef[p][e] = 0.05 * rand_unit(&seed);
  double *point, *weight, psi[84];
  int npoints;
  ck_assert_int_eq(sq_quad_tet(order + 2, &point, &weight, &npoints), 0);
  memset(dofs, 0, sizeof(double) * 9 * B);
  for (int q = 0; q < npoints; ++q) {
    const double *xi = point + 3 * q;
    sq_basis_eval(order, xi, psi);
    for (int p = 0; p < 9; ++p) {
      double value = coef[p][0] + coef[p][1] * xi[0] + coef[p][2] * xi[1] + coef[p][3] * xi[1] * xi[2];
      if (p == 3) value += shear * xi[0];
      for (int k = 0; k < B; ++k) dofs[p * B + k] += weight[q] * value * psi[k];
    }
  }
  free(point);
  free(weight);
}

static const double initial_stress[6] = {-PRESSURE, -PRESSURE, -PRESSURE, 0, 0, 0};

/* initial_stress at every nodal point, in the kernels' layout (6 x B, precision p) */
static const void *const_init(sq_precision p, int B) {
  static double d[6 * 84];
  static float f[6 * 84];
  void *buf = p == SQ_F64 ? (void *)d : (void *)f;
  sq_plasticity_stress_set(p, B, buf, -1, initial_stress);
  return buf;
}

/* total nodal stress at node i from modal dofs, through the library's V (checked in nodal_round_trip) */
static void nodal_stress(const sq_plasticity_ref *ref, const double *dofs, int i, double s[6]) {
  const int B = ref->nbasis;
  for (int p = 0; p < 6; ++p) {
    s[p] = initial_stress[p];
    for (int k = 0; k < B; ++k) s[p] += ref->V[i + k * B] * dofs[p * B + k];
  }
}

static int count_yielding(const sq_plasticity_ref *ref, const double *dofs) {
  int count = 0;
  for (int i = 0; i < ref->nbasis; ++i) {
    double s[6];
    nodal_stress(ref, dofs, i, s);
    count += tau_of(s) > tau_c_of(s, COHESION, FRICTION);
  }
  return count;
}

/* (1) inside the yield surface nothing changes, bitwise, in both precisions */
START_TEST(test_inside_unchanged) {
  const int order = _i;
  sq_plasticity_ref *ref;
  ck_assert_int_eq(sq_plasticity_ref_create(order, &ref), 0);
  const int B = ref->nbasis;
  double dofs[84 * 9], copy[84 * 9], strain[7] = {1, 2, 3, 4, 5, 6, 7}, strain0[7];
  float dofs32[84 * 9], copy32[84 * 9];
  make_element(order, 0.5, 11u + order, dofs);
  ck_assert_int_eq(count_yielding(ref, dofs), 0);
  memcpy(copy, dofs, sizeof(copy));
  memcpy(strain0, strain, sizeof(strain));
  ck_assert_int_eq(sq_plasticity_element(SQ_F64, ref, dofs, const_init(SQ_F64, ref->nbasis), COHESION, FRICTION, 0.0,
                                         1e-3, MU, strain),
                   0);
  ck_assert(memcmp(dofs, copy, sizeof(double) * 9 * B) == 0);
  for (int k = 0; k < 9 * B; ++k) dofs32[k] = (float)dofs[k];
  memcpy(copy32, dofs32, sizeof(copy32));
  ck_assert_int_eq(sq_plasticity_element(SQ_F32, ref, dofs32, const_init(SQ_F32, ref->nbasis), COHESION, FRICTION, 0.0,
                                         1e-3, MU, strain),
                   0);
  ck_assert(memcmp(dofs32, copy32, sizeof(float) * 9 * B) == 0);
  ck_assert(memcmp(strain, strain0, sizeof(strain)) == 0);
  /* point-wise */
  const double s[6] = {-3.0, -2.5, -2.0, 0.3, -0.2, 0.1};
  double out[6], inc[7];
  ck_assert_int_eq(sq_plasticity_point(s, COHESION, FRICTION, 0.1, 1e-3, MU, out, inc), 0);
  ck_assert(memcmp(s, out, sizeof(out)) == 0);
  for (int p = 0; p < 7; ++p) ck_assert(inc[p] == 0.0);
  sq_plasticity_ref_destroy(ref);
}
END_TEST

/* (2) one step outside the surface scales the deviator by r of eq. 2.34; (3) point-wise mean stress kept */
START_TEST(test_outside_factor) {
  unsigned seed = 7u;
  const double tvs[3] = {0.01, 0.003, 1.0}, dt = 2e-3;
  int tested = 0;
  for (int trial = 0; trial < 200; ++trial) {
    double s[6], out[6], inc[7], dev_old[6], dev_new[6];
    for (int p = 0; p < 6; ++p) s[p] = 3.0 * rand_unit(&seed) - (p < 3 ? 1.0 : 0.0);
    const double tau = tau_of(s), tau_c = tau_c_of(s, COHESION, FRICTION), tv = tvs[trial % 3];
    const int yields = sq_plasticity_point(s, COHESION, FRICTION, tv, dt, MU, out, inc);
    ck_assert_int_eq(yields, tau > tau_c);
    if (!yields) continue;
    ++tested;
    const double r = 1.0 - (1.0 - exp(-dt / tv)) * (1.0 - tau_c / tau);
    deviator(s, dev_old);
    deviator(out, dev_new);
    double scale = 0.0, eta = 0.0;
    for (int p = 0; p < 6; ++p) scale = fmax(scale, fabs(dev_old[p]));
    for (int p = 0; p < 6; ++p) {
      ck_assert_double_eq_tol(dev_new[p], r * dev_old[p], 1e-14 * scale);
      ck_assert_double_eq_tol(inc[p], (s[p] - out[p]) / (2.0 * MU), 1e-15 * scale);
      eta += (p < 3 ? 0.5 : 1.0) * inc[p] * inc[p];
    }
    ck_assert_double_eq_tol(inc[6], sqrt(eta), 1e-15 * scale);
    ck_assert_double_eq_tol(mean_of(out), mean_of(s), 1e-15 * fmax(scale, fabs(mean_of(s))));
    ck_assert(tau_of(out) < tau && tau_of(out) > tau_c); /* towards, not onto, the surface */
  }
  ck_assert_int_gt(tested, 20);
  /* pure shear: eta equals the plastic shear strain (tensor component) */
  const double shear[6] = {0, 0, 0, 5.0, 0, 0};
  double out[6], inc[7];
  ck_assert_int_eq(sq_plasticity_point(shear, COHESION, FRICTION, 0.0, dt, MU, out, inc), 1);
  ck_assert_double_eq_tol(out[3], COHESION * cos(atan(FRICTION)), 1e-14);
  ck_assert_double_eq_tol(inc[6], (5.0 - out[3]) / (2.0 * MU), 1e-15);
}
END_TEST

/* (2) element level: a constant stress state changes by exactly (r - 1) dev in mode 0 only */
START_TEST(test_element_constant_state) {
  const int order = _i;
  sq_plasticity_ref *ref;
  ck_assert_int_eq(sq_plasticity_ref_create(order, &ref), 0);
  const int B = ref->nbasis;
  const double wave[6] = {0.4, -0.3, 0.1, 2.5, -0.7, 0.9}, tv = 5e-3, dt = 1e-3;
  double dofs[84 * 9] = {0}, total[6], dev[6], strain[7] = {0}, expect_strain[7], out[6];
  for (int p = 0; p < 9; ++p) dofs[p * B] = (p < 6 ? wave[p] : 1.0) / ref->psi0;
  for (int p = 0; p < 6; ++p) total[p] = wave[p] + initial_stress[p];
  const double tau = tau_of(total), tau_c = tau_c_of(total, COHESION, FRICTION);
  ck_assert(tau > tau_c);
  const double r = 1.0 - (1.0 - exp(-dt / tv)) * (1.0 - tau_c / tau);
  deviator(total, dev);
  ck_assert_int_eq(
      sq_plasticity_element(SQ_F64, ref, dofs, const_init(SQ_F64, ref->nbasis), COHESION, FRICTION, tv, dt, MU, strain),
      1);
  for (int p = 0; p < 6; ++p) {
    ck_assert_double_eq_tol(dofs[p * B] * ref->psi0, wave[p] + (r - 1.0) * dev[p], 1e-13);
    for (int k = 1; k < B; ++k) ck_assert_double_eq_tol(dofs[p * B + k], 0.0, 1e-13);
  }
  ck_assert_int_eq(sq_plasticity_point(total, COHESION, FRICTION, tv, dt, MU, out, expect_strain), 1);
  for (int p = 0; p < 7; ++p) ck_assert_double_eq_tol(strain[p], expect_strain[p], 1e-14);
  /* a barely yielding state still counts as yielding */
  const double tau_c0 = tau_c_of(initial_stress, COHESION, FRICTION);
  memset(dofs, 0, sizeof(dofs));
  dofs[3 * B] = tau_c0 * (1.0 + 1e-9) / ref->psi0;
  ck_assert_int_eq(
      sq_plasticity_element(SQ_F64, ref, dofs, const_init(SQ_F64, ref->nbasis), COHESION, FRICTION, tv, dt, MU, strain),
      1);
  ck_assert_double_eq_tol(dofs[3 * B] * ref->psi0, tau_c0, 1e-9 * tau_c0);
  sq_plasticity_ref_destroy(ref);
}
END_TEST

/* (3) element-wise: the trace (all modes, so also the cell-average mean stress) is unchanged; velocities untouched */
START_TEST(test_element_mean_preserved) {
  const int order = _i;
  sq_plasticity_ref *ref;
  ck_assert_int_eq(sq_plasticity_ref_create(order, &ref), 0);
  const int B = ref->nbasis;
  double dofs[84 * 9], copy[84 * 9], strain[7] = {0};
  make_element(order, 3.5, 5u + order, dofs);
  memcpy(copy, dofs, sizeof(copy));
  ck_assert_int_eq(sq_plasticity_element(SQ_F64, ref, dofs, const_init(SQ_F64, ref->nbasis), COHESION, FRICTION, 0.0,
                                         1e-3, MU, strain),
                   1);
  for (int k = 0; k < B; ++k) {
    const double before = copy[k] + copy[B + k] + copy[2 * B + k], after = dofs[k] + dofs[B + k] + dofs[2 * B + k];
    ck_assert_double_eq_tol(after, before, 1e-14 * 10);
  }
  ck_assert(memcmp(dofs + 6 * B, copy + 6 * B, sizeof(double) * 3 * B) == 0);
  ck_assert(memcmp(dofs, copy, sizeof(double) * 6 * B) != 0);
  ck_assert_double_eq_tol(strain[0] + strain[1] + strain[2], 0.0, 1e-15 * 10);
  /* the strain is the cell average of the correction (mode 0), consistent with the stress change: eq. 2.33 */
  for (int p = 0; p < 6; ++p)
    ck_assert_double_eq_tol(strain[p], -(dofs[p * B] - copy[p * B]) * ref->psi0 / (2.0 * MU), 1e-15 * 10);
  ck_assert(strain[6] > 0.0);
  sq_plasticity_ref_destroy(ref);
}
END_TEST

/* (4) Tv -> 0 recovers the plain return mapping: the new tau is tau_c */
START_TEST(test_tv_zero_return_mapping) {
  unsigned seed = 3u;
  const double tvs[2] = {0.0, 1e-12}, dt = 1e-3;
  for (int trial = 0; trial < 100; ++trial) {
    double s[6], out[6];
    for (int p = 0; p < 6; ++p) s[p] = 4.0 * rand_unit(&seed) - (p < 3 ? 2.0 : 0.0);
    const double tau = tau_of(s), tau_c = tau_c_of(s, COHESION, FRICTION);
    if (!(tau > tau_c)) continue;
    for (int t = 0; t < 2; ++t) {
      ck_assert_int_eq(sq_plasticity_point(s, COHESION, FRICTION, tvs[t], dt, MU, out, NULL), 1);
      ck_assert_double_eq_tol(tau_of(out), tau_c, 1e-14 * tau);
    }
    /* finite relaxation time: only part of the way */
    sq_plasticity_point(s, COHESION, FRICTION, dt, dt, MU, out, NULL);
    ck_assert(tau_of(out) > tau_c + 1e-3 * (tau - tau_c));
  }
  /* tension beyond the apex of the cone (tau_c clamped at 0): the deviator vanishes, the mean stays */
  const double tension[6] = {5.0, 4.0, 6.0, 0.3, -0.1, 0.2};
  double out[6];
  ck_assert_int_eq(sq_plasticity_point(tension, COHESION, FRICTION, 0.0, dt, MU, out, NULL), 1);
  ck_assert_double_eq_tol(tau_of(out), 0.0, 1e-14);
  ck_assert_double_eq_tol(mean_of(out), 5.0, 1e-14);
}
END_TEST

/* (5) nodal round trip modal -> nodal -> modal and the node set itself */
START_TEST(test_nodal_round_trip) {
  const int order = _i;
  sq_plasticity_ref *ref;
  ck_assert_int_eq(sq_plasticity_ref_create(order, &ref), 0);
  const int B = ref->nbasis;
  ck_assert_int_eq(B, sq_nbasis(order));
  unsigned seed = 99u;
  double modal[84], nodal[84], back[84], psi[84];
  for (int k = 0; k < B; ++k) modal[k] = rand_unit(&seed);
  for (int i = 0; i < B; ++i) {
    nodal[i] = 0.0;
    for (int k = 0; k < B; ++k) nodal[i] += ref->V[i + k * B] * modal[k];
    /* V really is the basis at the nodes (eq. 8.2) */
    sq_basis_eval(order, ref->node + 3 * i, psi);
    double direct = 0.0;
    for (int k = 0; k < B; ++k) direct += psi[k] * modal[k];
    ck_assert_double_eq_tol(nodal[i], direct, 1e-13);
  }
  for (int k = 0; k < B; ++k) {
    back[k] = 0.0;
    for (int i = 0; i < B; ++i) back[k] += ref->Vinv[k + i * B] * nodal[i];
    ck_assert_double_eq_tol(back[k], modal[k], 1e-12);
  }
  /* nodes inside the tet, the 4 vertices among them */
  int vertices = 0;
  for (int i = 0; i < B; ++i) {
    const double *x = ref->node + 3 * i;
    ck_assert(x[0] >= -1e-15 && x[1] >= -1e-15 && x[2] >= -1e-15 && x[0] + x[1] + x[2] <= 1 + 1e-15);
    const double corner[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int v = 0; v < 4; ++v)
      vertices += fabs(x[0] - corner[v][0]) + fabs(x[1] - corner[v][1]) + fabs(x[2] - corner[v][2]) < 1e-14;
  }
  ck_assert_int_eq(vertices, 4);
  ck_assert(ref->cond1 > 1.0 && ref->cond1 < 500.0);
  ck_assert_double_eq_tol(ref->psi0, sqrt(6.0), 1e-14);
  sq_plasticity_ref_destroy(ref);
}
END_TEST

/* (6) a field yielding in part of the element is corrected only there; afterwards tau <= tau_c at all nodes */
START_TEST(test_element_partial_yield) {
  const int order = _i;
  sq_plasticity_ref *ref;
  ck_assert_int_eq(sq_plasticity_ref_create(order, &ref), 0);
  const int B = ref->nbasis;
  double dofs[84 * 9], before[84 * 9], strain[7] = {0};
  make_element(order, 2.5, 21u + order, dofs);
  memcpy(before, dofs, sizeof(before));
  const int nyield = count_yielding(ref, dofs);
  ck_assert_int_gt(nyield, 0);
  ck_assert_int_lt(nyield, B);
  ck_assert_int_eq(sq_plasticity_element(SQ_F64, ref, dofs, const_init(SQ_F64, ref->nbasis), COHESION, FRICTION, 0.0,
                                         1e-3, MU, strain),
                   1);
  for (int i = 0; i < B; ++i) {
    double s_old[6], s_new[6];
    nodal_stress(ref, before, i, s_old);
    nodal_stress(ref, dofs, i, s_new);
    const double tau_c = tau_c_of(s_old, COHESION, FRICTION);
    ck_assert(tau_of(s_new) <= tau_c + 1e-12);
    if (tau_of(s_old) > tau_c) ck_assert_double_eq_tol(tau_of(s_new), tau_c, 1e-12); /* returned onto the surface */
    else
      for (int p = 0; p < 6; ++p) ck_assert_double_eq_tol(s_new[p], s_old[p], 1e-12); /* untouched node */
  }
  sq_plasticity_ref_destroy(ref);
}
END_TEST

/* (7) single and double precision agree */
START_TEST(test_float_double_agree) {
  const int order = _i;
  sq_plasticity_ref *ref;
  ck_assert_int_eq(sq_plasticity_ref_create(order, &ref), 0);
  const int B = ref->nbasis;
  double dofs[84 * 9], strain64[7] = {0}, strain32[7] = {0}, scale = 0.0, sscale = 0.0;
  float dofs32[84 * 9];
  make_element(order, 3.0, 31u + order, dofs);
  for (int k = 0; k < 9 * B; ++k) dofs32[k] = (float)dofs[k], scale = fmax(scale, fabs(dofs[k]));
  for (int step = 0; step < 3; ++step) {
    ck_assert_int_eq(sq_plasticity_element(SQ_F64, ref, dofs, const_init(SQ_F64, ref->nbasis), COHESION, FRICTION, 2e-3,
                                           1e-3, MU, strain64),
                     1);
    ck_assert_int_eq(sq_plasticity_element(SQ_F32, ref, dofs32, const_init(SQ_F32, ref->nbasis), COHESION, FRICTION,
                                           2e-3, 1e-3, MU, strain32),
                     1);
  }
  for (int k = 0; k < 9 * B; ++k) ck_assert_double_eq_tol(dofs32[k], dofs[k], 1e-5 * scale);
  for (int p = 0; p < 7; ++p) sscale = fmax(sscale, fabs(strain64[p]));
  ck_assert(sscale > 0.0);
  for (int p = 0; p < 7; ++p) ck_assert_double_eq_tol(strain32[p], strain64[p], 1e-5 * sscale);
  sq_plasticity_ref_destroy(ref);
}
END_TEST

/* the tile loop: count, flags, and per-element results identical to sq_plasticity_element */
START_TEST(test_tile) {
  const int order = 4, n = 6;
  sq_plasticity_ref *ref;
  ck_assert_int_eq(sq_plasticity_ref_create(order, &ref), 0);
  const int B = ref->nbasis;
  double *dofs = calloc((size_t)n * 9 * B, sizeof(double)), *expect = calloc((size_t)n * 9 * B, sizeof(double));
  double init[6 * 6 * 84], params[6 * 3], mu[6], strain[6 * 7] = {0}, expect_strain[6 * 7] = {0};
  uint8_t yielded[6];
  for (int e = 0; e < n; ++e) {
    make_element(order, (e % 2) ? 3.0 : 0.5, 41u + e, dofs + e * 9 * B);
    for (int i = 0; i < B; ++i) { /* a little more compression at some nodes: each element's own row is read */
      double s0[6];
      memcpy(s0, initial_stress, sizeof(s0));
      s0[0] -= 1e-3 * (i % 3) * (e + 1);
      sq_plasticity_stress_set(SQ_F64, B, init + 6 * B * e, i, s0);
    }
    params[3 * e] = COHESION, params[3 * e + 1] = FRICTION, params[3 * e + 2] = 1e-3 * e;
    mu[e] = MU + e;
  }
  memcpy(expect, dofs, sizeof(double) * n * 9 * B);
  int64_t count = 0;
  for (int e = 0; e < n; ++e)
    count += sq_plasticity_element(SQ_F64, ref, expect + e * 9 * B, init + 6 * B * e, params[3 * e], params[3 * e + 1],
                                   params[3 * e + 2], 1e-3, mu[e], expect_strain + 7 * e);
  ck_assert_int_eq(count, 3);
  ck_assert_int_eq(sq_plasticity_tile(SQ_F64, ref, n, dofs, init, params, mu, 1e-3, strain, yielded), 3);
  for (int e = 0; e < n; ++e) ck_assert_int_eq(yielded[e], e % 2);
  ck_assert(memcmp(dofs, expect, sizeof(double) * n * 9 * B) == 0);
  ck_assert(memcmp(strain, expect_strain, sizeof(strain)) == 0);
  free(dofs);
  free(expect);
  sq_plasticity_ref_destroy(ref);
}
END_TEST

/* (8) parameter validation names the parameter and its value */
START_TEST(test_check_params) {
  char why[200];
  ck_assert_int_eq(sq_plasticity_check_params(1e6, 0.6, 0.05, why, sizeof(why)), 0);
  ck_assert_int_eq(sq_plasticity_check_params(0.0, 0.0, 0.0, why, sizeof(why)), 0);
  ck_assert_int_eq(sq_plasticity_check_params(-1.0, 0.6, 0.05, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(why, "cohesion"));
  ck_assert_ptr_nonnull(strstr(why, "-1"));
  ck_assert_int_eq(sq_plasticity_check_params(1.0, -0.25, 0.05, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(why, "bulk_friction"));
  ck_assert_ptr_nonnull(strstr(why, "-0.25"));
  ck_assert_int_eq(sq_plasticity_check_params(1.0, NAN, 0.05, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(why, "bulk_friction"));
  ck_assert_int_eq(sq_plasticity_check_params(1.0, 0.6, -0.5, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(why, "tv"));
  ck_assert_ptr_nonnull(strstr(why, "-0.5"));
  ck_assert_int_eq(sq_plasticity_check_params(1.0, 0.6, INFINITY, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_int_eq(sq_plasticity_check_params(-1.0, 0.6, 0.05, NULL, 0), SQ_ERR_INPUT);
  sq_plasticity_ref *ref = (sq_plasticity_ref *)1;
  ck_assert_int_eq(sq_plasticity_ref_create(1, &ref), SQ_ERR_INPUT);
  ck_assert_ptr_null(ref);
  ck_assert_int_eq(sq_plasticity_ref_create(SQ_ORDER_MAX + 1, &ref), SQ_ERR_INPUT);
}
END_TEST

/* (9) a nodally varying initial stress: the kernel checks each node against its own initial stress.  No
 * wave stress; s_xy^0 grows linearly with xi_x, beyond the yield stress at the nodes with large xi_x but
 * not at the centroid (xi_x = 1/4).  Every node ends where the point-wise return mapping of its own
 * initial stress puts it; the same element with the centroid value everywhere does not yield at all. */
START_TEST(test_element_nodal_stress) {
  const int order = _i;
  sq_plasticity_ref *ref;
  ck_assert_int_eq(sq_plasticity_ref_create(order, &ref), 0);
  const int B = ref->nbasis;
  const double tau_c = tau_c_of(initial_stress, COHESION, FRICTION), shear = 2.0 * tau_c;
  double init[6 * 84], centroid[6 * 84], dofs[84 * 9] = {0}, strain[7] = {0};
  float init32[6 * 84], dofs32[84 * 9] = {0};
  double s_c[6];
  memcpy(s_c, initial_stress, sizeof(s_c));
  s_c[3] = shear * 0.25;
  for (int i = 0; i < B; ++i) {
    double s0[6];
    memcpy(s0, initial_stress, sizeof(s0));
    s0[3] = shear * ref->node[3 * i];
    sq_plasticity_stress_set(SQ_F64, B, init, i, s0);
    sq_plasticity_stress_set(SQ_F32, B, init32, i, s0);
    double back[6];
    sq_plasticity_stress_get(SQ_F64, B, init, i, back);
    ck_assert(memcmp(back, s0, sizeof(back)) == 0);
  }
  sq_plasticity_stress_set(SQ_F64, B, centroid, -1, s_c);
  ck_assert_double_lt(tau_of(s_c), tau_c_of(s_c, COHESION, FRICTION));
  ck_assert_int_eq(sq_plasticity_element(SQ_F64, ref, dofs, centroid, COHESION, FRICTION, 0.0, 1e-3, MU, strain), 0);
  ck_assert_int_eq(sq_plasticity_element(SQ_F64, ref, dofs, init, COHESION, FRICTION, 0.0, 1e-3, MU, strain), 1);
  ck_assert_int_eq(sq_plasticity_element(SQ_F32, ref, dofs32, init32, COHESION, FRICTION, 0.0, 1e-3, MU, strain), 1);
  int yielded = 0;
  for (int i = 0; i < B; ++i) {
    double s0[6], expect[6], got[6] = {0};
    sq_plasticity_stress_get(SQ_F64, B, init, i, s0);
    yielded += sq_plasticity_point(s0, COHESION, FRICTION, 0.0, 1e-3, MU, expect, NULL);
    for (int p = 0; p < 6; ++p) {
      got[p] = s0[p];
      for (int k = 0; k < B; ++k) got[p] += ref->V[i + k * B] * dofs[p * B + k];
      ck_assert_double_eq_tol(got[p], expect[p], 1e-10 * PRESSURE);
      double got32 = s0[p];
      for (int k = 0; k < B; ++k) got32 += ref->V[i + k * B] * dofs32[p * B + k];
      ck_assert_double_eq_tol(got32, expect[p], 1e-4 * PRESSURE);
    }
  }
  ck_assert_int_gt(yielded, 0);
  ck_assert_int_lt(yielded, B);
  sq_plasticity_ref_destroy(ref);
}
END_TEST

/* ---- the set-up (sim/plasticity.c): the initial stress at the nodal points of every element ---------- */

/* the closed form the configs below give: linear in x, y, z (depth-dependent as in TPV13) */
static void closed_form(const double x[3], double s[6]) {
  s[0] = 1000.0 + 11242.17 * x[2];
  s[1] = 5824.34 * x[2];
  s[2] = 16660.0 * x[2];
  s[3] = 70.0 * x[0] - 30.0 * x[1];
  s[4] = 0.0;
  s[5] = 20.0 * x[2] + 5.0;
}

#define BOX_YAML                                                                                                       \
  "mesh: {type: box, box: {cells: [3, 2, 2], lo: [0, 0, -3000], hi: [3000, 2000, 0]}}\n"                               \
  "materials: {%s}\n"                                                                                                  \
  "equations: {order: %d, end_time: 0.1}\n"

static const char *native_plasticity = "plasticity:\n  cohesion: 1e6\n  bulk_friction: 0.6\n  tv: 0.05\n%s"
                                       "  initial_stress: {xx: 1000 + 11242.17 * z, yy: 5824.34 * z, zz: 16660 * z, "
                                       "xy: 70 * x - 30 * y, xz: 20 * z + 5}\n";

/* a sim with the mesh, the disc and the plasticity of @p yaml (one rank, no runtime) */
static void setup_sim(const char *yaml, int order, sq_precision prec, sq_sim *s, sq_material **mat) {
  memset(s, 0, sizeof(*s));
  ck_assert_int_eq(sq_config_load_string(yaml, "plast.yaml", &s->cfg), 0);
  ck_assert_int_eq(sq_mesh_box(&s->cfg.box, &s->mesh), 0);
  *mat = malloc(sizeof(sq_material) * s->mesh->ncell);
  for (int64_t c = 0; c < s->mesh->ncell; ++c) (*mat)[c] = (sq_material){.rho = 2700, .lambda = 3e10, .mu = 3e10};
  const sq_disc_options opt = {
      .order = order, .precision = prec, .cfl = 0.5, .tile_size = 16, .lts_rate = 1, .max_clusters = 1};
  ck_assert_int_eq(sq_disc_create(s->mesh, *mat, &opt, &s->disc), 0);
  s->nranks = 1;
  ck_assert_int_eq(sq_sim_plasticity_create(s), 0);
}

static void teardown_sim(sq_sim *s, sq_material *mat) {
  sq_plastic_state_destroy(s->plastic);
  sq_disc_destroy(s->disc);
  sq_mesh_destroy(s->mesh);
  free(mat);
}

/*
 * Checks the initial stress of every element against the closed form: @p at_nodes: at each nodal point,
 * located here from the cell's vertices and the reference nodes (x = v0 + sum_k xi_k (v_k - v0)), and at
 * the vertex nodes equal to the value at the mesh vertex itself; else the centroid value at every node.
 * Returns the largest |nodal - centroid value| over all nodes and components (0 for the centroid).
 */
static double check_stress(const sq_sim *s, int at_nodes, double tol) {
  const sq_plastic_state *ps = s->plastic;
  const int B = ps->ref->nbasis;
  double spread = 0.0;
  int vertex_nodes = 0;
  for (int64_t e = 0; e < s->disc->nelem; ++e) {
    const int64_t c = s->disc->cell_of[e];
    const double *v[4];
    for (int k = 0; k < 4; ++k) v[k] = s->mesh->vert + 3 * s->mesh->cell_vert[4 * c + k];
    double sc[6];
    closed_form(s->mesh->centroid + 3 * c, sc);
    for (int i = 0; i < B; ++i) {
      const double *xi = ps->ref->node + 3 * i;
      double x[3], expect[6], got[6];
      for (int d = 0; d < 3; ++d)
        x[d] = v[0][d] + xi[0] * (v[1][d] - v[0][d]) + xi[1] * (v[2][d] - v[0][d]) + xi[2] * (v[3][d] - v[0][d]);
      closed_form(at_nodes ? x : s->mesh->centroid + 3 * c, expect);
      sq_plasticity_stress_get(ps->precision, B, sq_plastic_state_stress(ps, e), i, got);
      for (int p = 0; p < 6; ++p) {
        ck_assert_msg(fabs(got[p] - expect[p]) <= tol * (fabs(expect[p]) + 1e3),
                      "element %lld node %d component %d: %.17g, expected %.17g", (long long)e, i, p, got[p],
                      expect[p]);
        spread = fmax(spread, fabs(got[p] - sc[p]));
      }
      /* a vertex node carries the value at that mesh vertex */
      const int vk = xi[0] == 1 ? 1 : xi[1] == 1 ? 2 : xi[2] == 1 ? 3 : xi[0] == 0 && xi[1] == 0 && xi[2] == 0 ? 0 : -1;
      if (at_nodes && vk >= 0) {
        closed_form(v[vk], expect);
        for (int p = 0; p < 6; ++p) ck_assert_double_eq_tol(got[p], expect[p], tol * (fabs(expect[p]) + 1e3));
        ++vertex_nodes;
      }
    }
    /* the interpolant of the nodal values: the closed form anywhere in the element (linear), so its cell
     * average is the centroid value */
    const double mid[3] = {0.2, 0.3, 0.1};
    double xm[3], at[6], expect[6];
    sq_mesh_ref_to_phys(s->mesh, c, mid, xm);
    sq_plastic_state_stress_at(ps, e, mid, at);
    closed_form(at_nodes ? xm : s->mesh->centroid + 3 * c, expect);
    for (int p = 0; p < 6; ++p) ck_assert_double_eq_tol(at[p], expect[p], tol * (fabs(expect[p]) + 1e3));
  }
  if (at_nodes) ck_assert_int_eq(vertex_nodes, 4 * s->disc->nelem);
  return spread;
}

/* (10) native expressions: nodes (the default) and centroid, both precisions */
START_TEST(test_setup_native) {
  const int order = 3;
  for (int prec = 0; prec < 2; ++prec) {
    const sq_precision p = prec ? SQ_F32 : SQ_F64;
    const double tol = p == SQ_F64 ? 1e-13 : 1e-6;
    for (int at = 0; at < 3; ++at) {
      char plast[1024], yaml[2048];
      snprintf(plast, sizeof(plast), native_plasticity,
               at == 0   ? ""
               : at == 1 ? "  initial_stress_at: nodes\n"
                         : "  initial_stress_at: centroid\n");
      snprintf(yaml, sizeof(yaml), BOX_YAML "%s", "default: {rho: 2700, lambda: 3e10, mu: 3e10}", order, plast);
      sq_sim s;
      sq_material *mat;
      setup_sim(yaml, order, p, &s, &mat);
      ck_assert_int_eq(s.cfg.plasticity.stress_at, at == 2 ? SQ_PLAST_STRESS_AT_CENTROID : SQ_PLAST_STRESS_AT_NODES);
      const double spread = check_stress(&s, at < 2, tol);
      /* nodes: 16660 Pa/m over cells 1 km deep and more; centroid: one value per element */
      if (at < 2) ck_assert_double_gt(spread, 1e6);
      else ck_assert_double_le(spread, tol * 1e8);
      for (int64_t e = 0; e < s.disc->nelem; ++e) ck_assert_double_eq(s.plastic->params[3 * e], 1e6);
      teardown_sim(&s, mat);
    }
  }
}
END_TEST

/* (11) the same stress from an easi material model (SeisSol's s_xx ... s_xz, plastCo, ...), evaluated at
 * the nodal points too */
START_TEST(test_setup_easi) {
  const int order = 2;
  char path[] = "/tmp/sq_test_plast_XXXXXX.yaml";
  const int fd = mkstemps(path, 5);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "!FunctionMap\nmap:\n  rho: return 2700;\n  mu: return 3e10;\n  lambda: return 3e10;\n"
             "  plastCo: return 1e6;\n  bulkFriction: return 0.6;\n  Tv: return 0.05;\n"
             "  s_xx: return 1000 + 11242.17 * z;\n  s_yy: return 5824.34 * z;\n  s_zz: return 16660 * z;\n"
             "  s_xy: return 70 * x - 30 * y;\n  s_yz: return 0;\n  s_xz: return 20 * z + 5;\n");
  fclose(f);
  for (int at = 0; at < 2; ++at) {
    char mat_key[512], yaml[2048];
    snprintf(mat_key, sizeof(mat_key), "easi: %s", path);
    snprintf(yaml, sizeof(yaml), BOX_YAML "plasticity: {%s}\n", mat_key, order,
             at ? "initial_stress_at: centroid" : "");
    sq_sim s;
    sq_material *mat;
    setup_sim(yaml, order, SQ_F64, &s, &mat);
    const double spread = check_stress(&s, !at, 1e-13);
    if (!at) ck_assert_double_gt(spread, 1e6);
    else ck_assert_double_le(spread, 1e-5);
    for (int64_t e = 0; e < s.disc->nelem; ++e) ck_assert_double_eq(s.plastic->params[3 * e + 2], 0.05);
    teardown_sim(&s, mat);
  }
  remove(path);
}
END_TEST

/* (12) a bad word for initial_stress_at is refused, naming the key */
START_TEST(test_setup_bad_word) {
  char yaml[2048];
  snprintf(yaml, sizeof(yaml),
           BOX_YAML "plasticity: {cohesion: 1, bulk_friction: 0.6, tv: 0, initial_stress_at: cell}\n",
           "default: {rho: 1, lambda: 2, mu: 1}", 2);
  sq_config cfg;
  ck_assert_int_eq(sq_config_load_string(yaml, "plast.yaml", &cfg), SQ_ERR_INPUT);
}
END_TEST

static Suite *plasticity_suite(void) {
  Suite *suite = suite_create("plasticity");
  struct {
    const char *name;
    const TTest *test;
    int loop_start, loop_end; /* 0,0: plain test */
  } cases[] = {
      {"inside_unchanged", test_inside_unchanged, SQ_ORDER_MIN, SQ_ORDER_MAX + 1},
      {"outside_factor", test_outside_factor, 0, 0},
      {"element_constant_state", test_element_constant_state, SQ_ORDER_MIN, SQ_ORDER_MAX + 1},
      {"element_mean_preserved", test_element_mean_preserved, SQ_ORDER_MIN, SQ_ORDER_MAX + 1},
      {"tv_zero_return_mapping", test_tv_zero_return_mapping, 0, 0},
      {"nodal_round_trip", test_nodal_round_trip, SQ_ORDER_MIN, SQ_ORDER_MAX + 1},
      {"element_partial_yield", test_element_partial_yield, SQ_ORDER_MIN, SQ_ORDER_MAX + 1},
      {"float_double_agree", test_float_double_agree, SQ_ORDER_MIN, SQ_ORDER_MAX + 1},
      {"tile", test_tile, 0, 0},
      {"check_params", test_check_params, 0, 0},
      {"element_nodal_stress", test_element_nodal_stress, SQ_ORDER_MIN, SQ_ORDER_MAX + 1},
      {"setup_native", test_setup_native, 0, 0},
      {"setup_easi", test_setup_easi, 0, 0},
      {"setup_bad_word", test_setup_bad_word, 0, 0},
  };
  for (size_t m = 0; m < sizeof(cases) / sizeof(cases[0]); m++) {
    TCase *tcase = tcase_create(cases[m].name);
    tcase_set_timeout(tcase, 60);
    if (cases[m].loop_end > cases[m].loop_start)
      tcase_add_loop_test(tcase, cases[m].test, cases[m].loop_start, cases[m].loop_end);
    else tcase_add_test(tcase, cases[m].test);
    suite_add_tcase(suite, tcase);
  }
  return suite;
}

int main(void) {
  SRunner *runner = srunner_create(plasticity_suite());
  srunner_run_all(runner, CK_NORMAL);
  const int failures = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failures != 0 ? 1 : 0;
}
