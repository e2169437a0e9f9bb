/** @file test_savage_prescott.c  Check suite for the Savage & Prescott (1978) series (src/savage_prescott.c): the
 * elastic start, the relaxed limits, the Laplace transform of the series against the elastic layer over a
 * half-space of modulus mu(s), symmetry, convergence, and v = du/dt. */
#include "sq_check.h"
#include <math.h>

#include "sq_savage_prescott.h"

#define PI 3.14159265358979323846

static const double xs[] = {0.3e3, 2e3, 10e3, 25e3, 80e3, 400e3};

/* t = 0: the elastic screw dislocation b/pi atan(D/x), for D = H and D < H (same modulus above and below). */
START_TEST(elastic_start) {
  for (int k = 0; k < 2; ++k) {
    const sq_savage_prescott m = {.H = 20e3, .D = k ? 12e3 : 20e3, .b = 3, .tau = 10};
    for (int i = 0; i < 6; ++i) {
      double u, v;
      ck_assert_int_gt(sq_savage_prescott_eval(&m, xs[i], 0, 1e-12, &u, &v), 0);
      EXPECT_NEAR(u, m.b / PI * atan(m.D / xs[i]), 1e-14);
      /* the first velocity: b/(pi tau) (atan((2H + D)/x) - atan((2H - D)/x)) */
      EXPECT_NEAR(v, m.b / (PI * m.tau) * (atan((2 * m.H + m.D) / xs[i]) - atan((2 * m.H - m.D) / xs[i])), 1e-14);
    }
  }
}
END_TEST

/* t -> infinity: the layer cut through (D = H) moves as a rigid block, b/2 sgn x; a partly cut layer (D < H)
   moves far from the fault by the depth-averaged slip b D / H / 2; u(t) approaches u(infinity) as 1/t. */
START_TEST(relaxed_limit) {
  const sq_savage_prescott cut = {.H = 20e3, .D = 20e3, .b = 2, .tau = 5};
  for (int i = 0; i < 6; ++i) {
    double u, v;
    ck_assert_int_gt(sq_savage_prescott_eval(&cut, xs[i], INFINITY, 1e-12, &u, &v), 0);
    EXPECT_NEAR(u, 1, 1e-11);
    EXPECT_NEAR(v, 0, 0);
  }
  const sq_savage_prescott part = {.H = 30e3, .D = 10e3, .b = 2, .tau = 5};
  double u;
  ck_assert_int_gt(sq_savage_prescott_eval(&part, 3e6, INFINITY, 1e-12, &u, NULL), 0);
  EXPECT_NEAR(u, part.b * part.D / part.H / 2, 1e-6);
  double uinf, prev = 1e30;
  ck_assert_int_gt(sq_savage_prescott_eval(&part, 25e3, INFINITY, 1e-12, &uinf, NULL), 0);
  for (double t = 1e2; t <= 1e5; t *= 10) {
    ck_assert_int_gt(sq_savage_prescott_eval(&part, 25e3, t * part.tau, 1e-12, &u, NULL), 0);
    const double err = fabs(u - uinf);
    EXPECT_MSG(err < prev / 8 && err < 1e-3 * 100 / t, "t = %g tau: |u - u_inf| = %g after %g", t, err, prev);
    prev = err;
  }
}
END_TEST

/* The correspondence principle, checked in the Laplace domain: int_0^inf e^{-s t} u(x, t) dt (quadrature of the
   series) = u_e(x; Gamma(s)) / s, with u_e the elastic layer over a half-space of modulus mu(s) = mu s/(s + mu/eta):
   images with the reflection coefficient Gamma = (mu - mu(s)) / (mu + mu(s)) = 1 / (1 + s tau). */
START_TEST(laplace_transform) {
  const sq_savage_prescott m = {.H = 15e3, .D = 9e3, .b = 1, .tau = 2};
  for (int k = 0; k < 3; ++k) {
    const double s = (0.3 + k) / m.tau, gamma = 1 / (1 + s * m.tau);
    for (int i = 1; i < 5; ++i) {
      /* Simpson in t over [0, 60 / s] (e^{-60} below the tolerance; u is smooth in t) */
      const int n = 6000;
      const double tmax = 60 / s, h = tmax / n;
      double sum = 0;
      for (int j = 0; j <= n; ++j) {
        double u;
        ck_assert_int_gt(sq_savage_prescott_eval(&m, xs[i], j * h, 1e-13, &u, NULL), 0);
        sum += (j == 0 || j == n ? 1 : j % 2 ? 4 : 2) * exp(-s * j * h) * u;
      }
      const double quad = sum * h / 3;
      double ue = atan(m.D / xs[i]), gn = 1;
      for (int nn = 1; nn < 2000; ++nn) {
        gn *= gamma;
        ue += gn * (atan((2 * nn * m.H + m.D) / xs[i]) - atan((2 * nn * m.H - m.D) / xs[i]));
      }
      ue *= m.b / PI / s;
      EXPECT_MSG(fabs(quad - ue) < 1e-8 * fabs(ue), "s tau = %g, x = %g: quadrature %.12g, elastic %.12g", s * m.tau,
                 xs[i], quad, ue);
    }
  }
}
END_TEST

/* Antisymmetry in x; u(0+) = b/2 at all times; v = du/dt (fourth-order differences); the truncation holds its
   tolerance (a looser tolerance sums fewer terms and stays within it). */
START_TEST(symmetry_rate_convergence) {
  const sq_savage_prescott m = {.H = 20e3, .D = 15e3, .b = 1.5, .tau = 4};
  const double ts[] = {0.5, 3, 11, 40};
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 4; ++k) {
      double u, v, um, vm, u0;
      const int nt = sq_savage_prescott_eval(&m, xs[i], ts[k], 1e-13, &u, &v);
      ck_assert_int_gt(nt, 0);
      ck_assert_int_gt(sq_savage_prescott_eval(&m, -xs[i], ts[k], 1e-13, &um, &vm), 0);
      EXPECT_NEAR(um, -u, 1e-15);
      EXPECT_NEAR(vm, -v, 1e-15);
      ck_assert_int_gt(sq_savage_prescott_eval(&m, 1e-6, ts[k], 1e-13, &u0, NULL), 0);
      EXPECT_NEAR(u0, m.b / 2, 1e-9);
      const double h = 1e-2;
      double w[4];
      for (int j = 0; j < 4; ++j)
        ck_assert_int_gt(sq_savage_prescott_eval(&m, xs[i], ts[k] + (j < 2 ? j - 2 : j - 1) * h, 1e-14, &w[j], NULL),
                         0);
      EXPECT_NEAR((w[0] - 8 * w[1] + 8 * w[2] - w[3]) / (12 * h), v, 1e-9);
      double ul;
      const int nl = sq_savage_prescott_eval(&m, xs[i], ts[k], 1e-5, &ul, NULL);
      ck_assert_int_gt(nl, 0);
      ck_assert_int_le(nl, nt);
      EXPECT_NEAR(ul, u, 1e-5 * m.b);
    }
  double u;
  const sq_savage_prescott bad[] = {
      {.H = 1, .D = 2, .b = 1, .tau = 1}, {.H = 1, .D = 0, .b = 1, .tau = 1}, {.H = 1, .D = 1, .b = 1, .tau = 0}};
  for (int k = 0; k < 3; ++k) ck_assert_int_eq(sq_savage_prescott_eval(&bad[k], 1, 1, 1e-8, &u, NULL), -1);
  ck_assert_int_eq(sq_savage_prescott_eval(&m, 1, -1, 1e-8, &u, NULL), -1);
}
END_TEST

int main(void) {
  const TTest *const tests[] = {elastic_start, relaxed_limit, laplace_transform, symmetry_rate_convergence, NULL};
  return sq_test_run(sq_test_suite("savage_prescott", 60, tests), 1);
}
