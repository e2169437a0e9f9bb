/**
 * @file test_kinematic.c  Check suite for the kinematic sources (imposed slip rates: kinematic_impl.h,
 * kinematic.c): each slip-rate function integrates to its fraction of the slip and to 1, the regularised
 * Yoffe function equals a numerical convolution of the Yoffe function with the triangle, and a point driven
 * through the friction solver step by step slips exactly the prescribed slip.
 */
#include "sq_check.h"
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sq_common.h"
#include "sq_friction.h"
#include "sq_kinematic.h"
#include "sq_ref.h"
#include "friction_impl.h"

#define NGAUSS 48
static double gx[NGAUSS], gw[NGAUSS];

static void gauss(void) { ck_assert_int_eq(sq_gauss_jacobi(NGAUSS, 0.0, 0.0, gx, gw), 0); } /* on [-1, 1] */

/* Integral of the slip rate of law over [a, b] with t = a + (b - a) (1 - cos q) / 2: the square-root
 * behaviour of the Yoffe function's pieces at both ends becomes analytic in q. */
static double integrate_rate(sq_friction_law law, const sq_friction_params *p, double a, double b) {
  double s = 0.0;
  for (int k = 0; k < NGAUSS; ++k) {
    const double q = 0.5 * M_PI * (gx[k] + 1), t = a + 0.5 * (b - a) * (1 - cos(q));
    s += 0.5 * M_PI * gw[k] * 0.5 * (b - a) * sin(q) * sq_kinematic_rate(law, p, t);
  }
  return s;
}

static int cmp_double(const void *x, const void *y) {
  const double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* (tau_S, tau_R): tau_R > 2 tau_S, tau_R < 2 tau_S, tau_R < tau_S, a sharp one */
static const double yoffe_cases[][2] = {{0.05, 1.0}, {0.1, 0.15}, {0.3, 0.2}, {0.02, 0.4}, {0.25, 1.0}};
enum { NYOFFE = sizeof(yoffe_cases) / sizeof(yoffe_cases[0]) };

/* The Yoffe function's integral between its kinks equals the fraction F, and F ends at exactly 1. */
START_TEST(yoffe_integral) {
  gauss();
  for (int c = 0; c < NYOFFE; ++c) {
    const double ts = yoffe_cases[c][0], tr = yoffe_cases[c][1], onset = 0.7;
    const sq_friction_params p = {.onset = onset, .tau_s = ts, .rise_time = tr};
    const sq_friction_law law = SQ_FRICTION_KINEMATIC_YOFFE;
    /* the kinks, with the midpoints of the pieces between them */
    double b[13] = {0, ts, 2 * ts, tr, tr + ts, tr + 2 * ts};
    qsort(b, 6, sizeof(double), cmp_double);
    for (int k = 0; k < 5; ++k) b[6 + k] = 0.5 * (b[k] + b[k + 1]);
    qsort(b, 11, sizeof(double), cmp_double);
    const double tol = 4e-16 * fmax(1.0, (tr / ts) * (tr / ts)) * 10;
    double sum = 0.0;
    EXPECT(sq_kinematic_slip_fraction(law, &p, onset) == 0.0);
    for (int k = 0; k < 10; ++k) {
      sum += integrate_rate(law, &p, onset + b[k], onset + b[k + 1]);
      EXPECT_MSG(fabs(sum - sq_kinematic_slip_fraction(law, &p, onset + b[k + 1])) <= tol,
                 "case %d, t - onset = %g: %.17g vs %.17g", c, b[k + 1], sum,
                 sq_kinematic_slip_fraction(law, &p, onset + b[k + 1]));
    }
    EXPECT_NEAR(sum, 1.0, tol);
    EXPECT(sq_kinematic_slip_fraction(law, &p, onset + tr + 2 * ts) == 1.0);
    EXPECT(sq_kinematic_slip_fraction(law, &p, 1e3) == 1.0);
    EXPECT(sq_kinematic_rate(law, &p, onset - 1e-3) == 0.0 && sq_kinematic_rate(law, &p, onset + tr + 2 * ts) == 0.0);
    EXPECT_NEAR(sq_kinematic_end_time(law, &p), onset + tr + 2 * ts, 1e-15);
  }
}
END_TEST

/* The triangle of half-width ts and unit area, from 0 to 2 ts. */
static double triangle(double u, double ts) {
  return u <= 0 || u >= 2 * ts ? 0.0 : (u < ts ? u : 2 * ts - u) / (ts * ts);
}

/* (Y * triangle)(s) numerically: with r = tau_R sin^2 q the Yoffe function Y(r) dr = (4 / pi) cos^2 q dq, and
 * the integrand is a polynomial in sin^2 q between the triangle's kinks. */
static double yoffe_convolution(double s, double ts, double tr) {
  double r[4] = {fmax(0.0, s - 2 * ts), fmax(0.0, s - ts), fmin(s, tr), 0};
  if (r[1] > r[2]) r[1] = r[2];
  double sum = 0.0;
  for (int piece = 0; piece < 2; ++piece) {
    const double lo = r[piece], hi = r[piece + 1];
    if (!(hi > lo)) continue;
    const double qa = asin(sqrt(lo / tr)), qb = asin(sqrt(fmin(1.0, hi / tr)));
    for (int k = 0; k < NGAUSS; ++k) {
      const double q = qa + 0.5 * (qb - qa) * (gx[k] + 1), sq = sin(q);
      sum += 0.5 * (qb - qa) * gw[k] * (4 / M_PI) * cos(q) * cos(q) * triangle(s - tr * sq * sq, ts);
    }
  }
  return sum;
}

START_TEST(yoffe_convolution_matches) {
  gauss();
  for (int c = 0; c < NYOFFE; ++c) {
    const double ts = yoffe_cases[c][0], tr = yoffe_cases[c][1];
    const sq_friction_params p = {.onset = 0.0, .tau_s = ts, .rise_time = tr};
    double peak = 0.0, err = 0.0;
    for (int k = 1; k < 400; ++k) {
      const double s = (tr + 2 * ts) * k / 400.0;
      const double v = sq_kinematic_rate(SQ_FRICTION_KINEMATIC_YOFFE, &p, s), ref = yoffe_convolution(s, ts, tr);
      peak = fmax(peak, fabs(ref));
      err = fmax(err, fabs(v - ref));
    }
    EXPECT_MSG(err <= 1e-12 * peak, "tau_S %g tau_R %g: |rate - convolution| = %g of the peak %g", ts, tr, err, peak);
  }
}
END_TEST

/* The Gaussian (smooth step) and the delta function. */
START_TEST(gaussian_and_delta) {
  gauss();
  const sq_friction_params p = {.onset = 0.3, .rise_time = 0.8};
  const sq_friction_law law = SQ_FRICTION_KINEMATIC_GAUSSIAN;
  double sum = 0.0;
  for (int k = 0; k < 8; ++k) { /* the rate is smooth; its derivatives vanish at both ends */
    sum += integrate_rate(law, &p, 0.3 + 0.1 * k, 0.3 + 0.1 * (k + 1));
    EXPECT_NEAR(sum, sq_kinematic_slip_fraction(law, &p, 0.3 + 0.1 * (k + 1)), 1e-14);
  }
  EXPECT_NEAR(sum, 1.0, 1e-14);
  EXPECT(sq_kinematic_slip_fraction(law, &p, 1.1) == 1.0 && sq_kinematic_slip_fraction(law, &p, 0.3) == 0.0);
  /* the rate against a central difference of the fraction */
  for (int k = 1; k < 20; ++k) {
    const double t = 0.3 + 0.8 * k / 20.0, e = 1e-6;
    const double fd =
        (sq_kinematic_slip_fraction(law, &p, t + e) - sq_kinematic_slip_fraction(law, &p, t - e)) / (2 * e);
    EXPECT_NEAR(sq_kinematic_rate(law, &p, t), fd, 1e-7 * fmax(1.0, fabs(fd)));
  }
  const sq_friction_params d = {.onset = 0.5};
  EXPECT(sq_kinematic_slip_fraction(SQ_FRICTION_KINEMATIC_DELTA, &d, 0.5) == 0.0);
  EXPECT(sq_kinematic_slip_fraction(SQ_FRICTION_KINEMATIC_DELTA, &d, nextafter(0.5, 1.0)) == 1.0);
  EXPECT(sq_kinematic_end_time(SQ_FRICTION_KINEMATIC_DELTA, &d) == 0.5);
}
END_TEST

/*
 * A point stepped through sq_friction_solve_point with the Gauss points of unequal steps: the slip after each
 * step is D F(t) to rounding, the mean slip rates integrate to it, the traction is tau_lock - eta V, and the
 * final slip is D exactly.
 */
START_TEST(solve_point_slip) {
  static const sq_friction_law laws[3] = {SQ_FRICTION_KINEMATIC_YOFFE, SQ_FRICTION_KINEMATIC_GAUSSIAN,
                                          SQ_FRICTION_KINEMATIC_DELTA};
  double x[3], w[3];
  ck_assert_int_eq(sq_gauss_jacobi(3, 0.0, 0.0, x, w), 0);
  for (int l = 0; l < 3; ++l) {
    const sq_friction_law law = laws[l];
    const sq_friction_params p = {.slip_strike = 1.7, .slip_dip = -0.6, .onset = 0.05, .tau_s = 0.03, .rise_time = 0.4};
    const double eta = 2.5e9, tau_lock[2] = {30e6, -4e6}, sn = -50e6;
    sq_friction_state s;
    sq_friction_init_state(law, &p, 0.0, hypot(tau_lock[0], tau_lock[1]), sn, &s);
    double t0 = 0.0, integral[2] = {0, 0}, peak = 0;
    for (int step = 0; step < 200; ++step) {
      const double dt = 0.002 + 0.001 * (step % 3); /* steps of 2, 3 and 4 ms */
      for (int k = 0; k < 3; ++k) {
        const double wk = 0.5 * w[k] * dt;
        ck_assert_int_eq(sq_friction_solve_point(law, &p, t0 + 0.5 * (x[k] + 1) * dt, wk, sn, tau_lock, eta, &s, NULL),
                         0);
        for (int a = 0; a < 2; ++a) {
          integral[a] += s.slip_rate[a] * wk;
          EXPECT_NEAR(s.traction[a], tau_lock[a] - eta * s.slip_rate[a], 1e-9);
        }
        peak = fmax(peak, hypot(s.slip_rate[0], s.slip_rate[1]));
        EXPECT(s.mu == 0.0 && s.normal_stress == sn);
      }
      t0 += dt;
      /* the state is the time the slip is imposed to (t0 up to the rounding of the sum of the weights) */
      const double F = sq_kinematic_slip_fraction(law, &p, s.state);
      EXPECT_NEAR(s.state, t0, 1e-14);
      EXPECT(s.slip[0] == p.slip_strike * F && s.slip[1] == p.slip_dip * F);
      if (law != SQ_FRICTION_KINEMATIC_DELTA) /* a step: state and t0 may straddle the onset by rounding */
        EXPECT_NEAR(s.slip[0], p.slip_strike * sq_kinematic_slip_fraction(law, &p, t0), 1e-12);
      EXPECT_NEAR(integral[0], s.slip[0], 1e-13);
      EXPECT_NEAR(integral[1], s.slip[1], 1e-13);
    }
    /* 0.6 s: every function has ended */
    EXPECT_MSG(s.slip[0] == p.slip_strike && s.slip[1] == p.slip_dip, "%s: slip (%.17g, %.17g)",
               sq_friction_law_name(law), s.slip[0], s.slip[1]);
    EXPECT(s.slip_path == hypot(p.slip_strike, p.slip_dip));
    EXPECT(s.slip_rate[0] == 0.0 && s.slip_rate[1] == 0.0);
    EXPECT(s.rupture_time >= p.onset && s.rupture_time < sq_kinematic_end_time(law, &p) + 0.005);
    EXPECT(s.peak_slip_rate == peak && peak > 0);
    /* the work: int (tau_lock - eta V) . V dt, less than tau_lock . D */
    EXPECT(s.work < tau_lock[0] * p.slip_strike + tau_lock[1] * p.slip_dip);
  }
}
END_TEST

START_TEST(check_params) {
  char why[256];
  sq_friction_params p = {.slip_strike = 1, .onset = 0, .tau_s = 0.1, .rise_time = 1};
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_KINEMATIC_YOFFE, &p, why, sizeof(why)), SQ_SUCCESS);
  p.tau_s = 0;
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_KINEMATIC_YOFFE, &p, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_msg(strstr(why, "tau_S = 0 must be"), "%s", why);
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_KINEMATIC_GAUSSIAN, &p, why, sizeof(why)), SQ_SUCCESS);
  p.rise_time = -1;
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_KINEMATIC_GAUSSIAN, &p, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_msg(strstr(why, "rise_time = -1 must be"), "%s", why);
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_KINEMATIC_DELTA, &p, why, sizeof(why)), SQ_SUCCESS);
  p.onset = -0.5;
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_KINEMATIC_DELTA, &p, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_msg(strstr(why, "rupture_onset = -0.5"), "%s", why);
  p.onset = 0, p.slip_dip = NAN;
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_KINEMATIC_DELTA, &p, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_msg(strstr(why, "dip_slip"), "%s", why);
  static const char *const names[3] = {"imposed_slip_rate_yoffe", "imposed_slip_rate_gaussian",
                                       "imposed_slip_rate_delta"};
  for (int k = 0; k < 3; ++k) {
    sq_friction_law law;
    ck_assert_int_eq(sq_friction_law_from_name(names[k], &law), SQ_SUCCESS);
    ck_assert(sq_friction_is_kinematic(law));
    ck_assert_str_eq(sq_friction_law_name(law), names[k]);
  }
  ck_assert(!sq_friction_is_kinematic(SQ_FRICTION_LSW) && !sq_friction_is_kinematic(SQ_FRICTION_RS_FVW));
  /* a non-finite input fails and leaves the history as it was */
  sq_friction_state s, before;
  p.slip_dip = 0;
  sq_friction_init_state(SQ_FRICTION_KINEMATIC_DELTA, &p, 0, 0, -1, &s);
  before = s;
  const double bad[2] = {NAN, 0};
  ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_KINEMATIC_DELTA, &p, 0.1, 0.01, -1, bad, 1.0, &s, NULL),
                   SQ_FRICTION_NO_CONVERGENCE);
  ck_assert(!memcmp(&s, &before, sizeof(s)));
}
END_TEST

int main(void) {
  Suite *s = suite_create("kinematic");
  TCase *tc = tcase_create("kinematic");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, yoffe_integral);
  tcase_add_test(tc, yoffe_convolution_matches);
  tcase_add_test(tc, gaussian_and_delta);
  tcase_add_test(tc, solve_point_slip);
  tcase_add_test(tc, check_params);
  suite_add_tcase(s, tc);
  return sq_test_run(s, 1);
}
