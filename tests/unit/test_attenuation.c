/** @file test_attenuation.c  Check suite for attenuation.c: the constant-Q fit and the moduli conventions. */
#include "sq_check.h"
#include <check.h>
#include <complex.h>
#include <math.h>

#include "sq_attenuation.h"

/* The discrete Q(w) of the fitted body stays within 5% of the target over the whole band, n = 3. */
START_TEST(fit_constant_q_over_band) {
  const double qs[] = {10, 20, 50, 100, 200, 500, 1000};
  const double ratios[] = {10, 100};
  for (int r = 0; r < 2; ++r) {
    sq_atten_band band;
    ck_assert_int_eq(sq_atten_band_init(3, 1.5, ratios[r], &band), SQ_SUCCESS);
    for (unsigned iq = 0; iq < sizeof(qs) / sizeof(qs[0]); ++iq) {
      double y[SQ_MECH_MAX];
      ck_assert_int_eq(sq_atten_fit(&band, qs[iq], y), SQ_SUCCESS);
      double worst = 0;
      for (int k = 0; k <= 400; ++k) {
        const double w = 2 * M_PI * band.fc / sqrt(band.ratio) * pow(band.ratio, k / 400.0);
        const double dev = fabs(sq_atten_q(&band, y, w) / qs[iq] - 1);
        if (dev > worst) worst = dev;
      }
      EXPECT_MSG(worst < 0.05, "ratio %g, Q = %g: Q(w) deviates by %.3f%% over the band", ratios[r], qs[iq],
                 100 * worst);
    }
  }
}
END_TEST

/* The relaxation frequencies span the band log-uniformly, as SeisSol's FreqCentral/FreqRatio. */
START_TEST(band_frequencies) {
  sq_atten_band band;
  ck_assert_int_eq(sq_atten_band_init(3, 2.0, 100, &band), SQ_SUCCESS);
  EXPECT_NEAR(band.omega[0], 2 * M_PI * 0.2, 1e-12);
  EXPECT_NEAR(band.omega[1], 2 * M_PI * 2.0, 1e-12);
  EXPECT_NEAR(band.omega[2], 2 * M_PI * 20.0, 1e-11);
  ck_assert_int_eq(sq_atten_band_init(1, 2.0, 100, &band), SQ_SUCCESS);
  EXPECT_NEAR(band.omega[0], 2 * M_PI * 2.0, 1e-12);
  ck_assert_int_ne(sq_atten_band_init(0, 2.0, 100, &band), SQ_SUCCESS);
  ck_assert_int_ne(sq_atten_band_init(6, 2.0, 100, &band), SQ_SUCCESS);
  ck_assert_int_ne(sq_atten_band_init(3, -1, 100, &band), SQ_SUCCESS);
  ck_assert_int_ne(sq_atten_band_init(3, 1, 0.5, &band), SQ_SUCCESS);
  double y[SQ_MECH_MAX];
  ck_assert_int_ne(sq_atten_fit(&band, 0, y), SQ_SUCCESS);
}
END_TEST

/* The configured moduli are those at the central frequency: the phase velocities there are the elastic
 * ones; Q = infinity is the elastic material. */
START_TEST(central_frequency_convention) {
  sq_atten_band band;
  ck_assert_int_eq(sq_atten_band_init(3, 0.8, 100, &band), SQ_SUCCESS);
  const sq_material c = {.rho = 2600, .lambda = 2.0e10, .mu = 1.4e10};
  sq_visco v;
  sq_material u;
  ck_assert_int_eq(sq_visco_init(&band, &c, 40, 20, &v, &u), SQ_SUCCESS);
  EXPECT(u.mu > c.mu && u.lambda + 2 * u.mu > c.lambda + 2 * c.mu); /* unrelaxed is stiffer */
  double complex lam, mu;
  const double wc = 2 * M_PI * band.fc;
  sq_visco_moduli(&band, &v, I * wc, &lam, &mu);
  /* phase velocity w / Re k with k = w sqrt(rho / M) */
  const double vp = wc / creal(wc * csqrt(c.rho / (lam + 2 * mu)));
  const double vs = wc / creal(wc * csqrt(c.rho / mu));
  EXPECT_NEAR(vp / sq_material_vp(&c), 1, 1e-13);
  EXPECT_NEAR(vs / sq_material_vs(&c), 1, 1e-13);
  EXPECT_NEAR(creal(lam + 2 * mu) / cimag(lam + 2 * mu), 40, 2); /* Qp, Qs at fc, within the fit's tolerance */
  EXPECT_NEAR(creal(mu) / cimag(mu), 20, 1);
  ck_assert_int_eq(sq_visco_init(&band, &c, INFINITY, INFINITY, &v, &u), SQ_SUCCESS);
  ck_assert(u.lambda == c.lambda && u.mu == c.mu);
  double coef[SQ_ANE_NCOEF];
  sq_visco_coefficients(&band, &v, coef);
  for (int l = 0; l < 3; ++l) ck_assert(coef[SQ_ANE_A + l] == 0 && coef[SQ_ANE_B + l] == 0);
}
END_TEST

/* The kernel coefficients: the stress source of strain-rate memory theta is C(Y) : theta. */
START_TEST(kernel_coefficients) {
  sq_atten_band band;
  ck_assert_int_eq(sq_atten_band_init(2, 3.0, 50, &band), SQ_SUCCESS);
  const sq_material c = {.rho = 2000, .lambda = 1.0e10, .mu = 0.7e10};
  sq_visco v;
  sq_material u;
  ck_assert_int_eq(sq_visco_init(&band, &c, 30, 15, &v, &u), SQ_SUCCESS);
  double coef[SQ_ANE_NCOEF];
  sq_visco_coefficients(&band, &v, coef);
  for (int l = 0; l < 2; ++l) {
    /* P-modulus part: a + b = w_l (lambda_u + 2 mu_u) Y^P_l */
    EXPECT_NEAR((coef[SQ_ANE_A + l] + coef[SQ_ANE_B + l]) / (band.omega[l] * (u.lambda + 2 * u.mu) * v.yp[l]), 1,
                1e-13);
    EXPECT_NEAR(coef[SQ_ANE_B + l] / (2 * band.omega[l] * u.mu * v.ys[l]), 1, 1e-13);
  }
  /* compliance: the strain of the stress of a strain is that strain */
  const double eps[3] = {0.3, -0.2, 0.5}, tr = eps[0] + eps[1] + eps[2];
  for (int i = 0; i < 3; ++i) {
    const double s = u.lambda * tr + 2 * u.mu * eps[i];
    const double trs = (3 * u.lambda + 2 * u.mu) * tr;
    EXPECT_NEAR(coef[SQ_ANE_C1] * s - coef[SQ_ANE_C2] * trs, eps[i], 1e-14);
  }
}
END_TEST

int main(void) {
  const TTest *tests[] = {fit_constant_q_over_band, band_frequencies, central_frequency_convention, kernel_coefficients,
                          NULL};
  return sq_test_run(sq_test_suite("attenuation", 0, tests), 1);
}
