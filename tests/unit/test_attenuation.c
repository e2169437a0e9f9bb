/** @file test_attenuation.c  Check suite for attenuation.c: the constant-Q fit and the moduli conventions. */
#include "sq_check.h"
#include <check.h>
#include <complex.h>
#include <math.h>

#include <stdlib.h>
#include <string.h>

#include "sq_attenuation.h"
#include "sq_kernels.h"
#include "sq_solver.h"

static const sq_material central = {.rho = 1.0, .lambda = 2.0, .mu = 1.0};

/* A periodic box of n^3 x 6 cells with a P and an S plane wave in the viscoelastic medium of quality factors
 * qp, qs (Q = infinity with nmech 0: the elastic medium and the elastic kernels), stepped by the serial solver. */
typedef struct visco_case {
  sq_mesh *mesh;
  sq_disc *disc;
  sq_planewave pw;
  sq_atten_band band;
  sq_visco visco;
} visco_case;

static void visco_case_init(visco_case *vc, int order, sq_precision prec, int n, int nmech, double qp, double qs) {
  sq_box_params bp;
  sq_box_params_default(&bp);
  bp.n[0] = bp.n[1] = bp.n[2] = n;
  ck_assert_int_eq(sq_mesh_box(&bp, &vc->mesh), 0);
  sq_material unrelaxed = central;
  ck_assert_int_eq(sq_atten_band_init(nmech ? nmech : 3, 2.0, 100, &vc->band), SQ_SUCCESS);
  ck_assert_int_eq(sq_visco_init(&vc->band, &central, qp, qs, &vc->visco, &unrelaxed), SQ_SUCCESS);
  const int64_t nc = vc->mesh->ncell;
  sq_material *m = malloc(sizeof(sq_material) * nc);
  double *coef = malloc(sizeof(double) * SQ_ANE_NCOEF * nc);
  for (int64_t c = 0; c < nc; ++c) {
    m[c] = unrelaxed;
    sq_visco_coefficients(&vc->band, &vc->visco, coef + c * SQ_ANE_NCOEF);
  }
  sq_disc_options opt = {
      .order = order, .precision = prec, .cfl = 0.5, .tile_size = 50, .lts_rate = 1, .max_clusters = 1};
  ck_assert_int_eq(sq_disc_create(vc->mesh, m, &opt, &vc->disc), 0);
  if (nmech) ck_assert_int_eq(sq_disc_set_attenuation(vc->disc, nmech, coef), SQ_SUCCESS);
  free(m);
  free(coef);
  const double k[3] = {2 * M_PI, 2 * M_PI, 0};
  const sq_wave_kind kinds[2] = {SQ_WAVE_P, SQ_WAVE_S2};
  const int dirs[2] = {1, -1};
  const double amp[2] = {1.0, 0.5};
  sq_planewave_init(&vc->pw, &unrelaxed, k, 0, 0, 0, 2, kinds, dirs, amp);
  if (nmech) ck_assert_int_eq(sq_planewave_attenuate(&vc->pw, &vc->band, &vc->visco, central.rho), SQ_SUCCESS);
  sq_disc_project(vc->disc, sq_planewave_eval, &vc->pw, 0.0);
  sq_disc_project_ane(vc->disc, sq_planewave_eval_ane, &vc->pw, 0.0);
}

/* Step to time t_end in equal steps; the relative L2 error against the closed form. */
static double visco_case_run(visco_case *vc, double t_end) {
  const int64_t steps = (int64_t)ceil(t_end / vc->disc->dt_min);
  for (int64_t i = 0; i < steps; ++i) sq_disc_step_serial(vc->disc, t_end / steps);
  double err, norm;
  sq_disc_l2_error(vc->disc, sq_planewave_eval, &vc->pw, t_end, &err, &norm);
  return err / norm;
}

static void visco_case_free(visco_case *vc) {
  sq_disc_destroy(vc->disc);
  sq_mesh_destroy(vc->mesh);
}

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
      fprintf(stderr, "fit n = 3, ratio %g, Q %g: largest Q deviation over the band %.2f%%\n", ratios[r], qs[iq],
              100 * worst);
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

/* sq_kernel_ane_shift around a stress change (the plastic correction's use): theta_l = phi_l + C_u^-1 sigma is the
 * same before and after, i.e. phi moved by -C_u^-1 times the change; both precisions, order 3, 3 mechanisms, 2
 * elements with their own coefficients. */
START_TEST(shift_keeps_theta) {
  sq_atten_band band;
  ck_assert_int_eq(sq_atten_band_init(3, 2.5, 100, &band), SQ_SUCCESS);
  double coef[2 * SQ_ANE_NCOEF];
  for (int e = 0; e < 2; ++e) {
    const sq_material c = {.rho = 1, .lambda = 2.0 + e, .mu = 1.0 + 0.5 * e};
    sq_visco v;
    sq_material u;
    ck_assert_int_eq(sq_visco_init(&band, &c, 20, 10, &v, &u), SQ_SUCCESS);
    sq_visco_coefficients(&band, &v, coef + e * SQ_ANE_NCOEF);
  }
  enum { O = 3, B = 10, NM = 3, NA = B * 6 * (NM + 1) };
  for (int prec = 0; prec < 2; ++prec) {
    const sq_precision p = prec ? SQ_F32 : SQ_F64;
    const size_t rs = sq_real_size(p);
    double dofs[2 * B * 9], ane[2 * NA], theta[2 * NM * B * 6];
    unsigned seed = 7;
    for (int i = 0; i < 2 * B * 9; ++i) dofs[i] = (double)(seed = seed * 1103515245u + 12345u) / 4294967296.0 - 0.5;
    for (int i = 0; i < 2 * NA; ++i) ane[i] = (double)(seed = seed * 1103515245u + 12345u) / 4294967296.0 - 0.5;
    /* theta = phi + C_u^-1 sigma, in double */
    for (int e = 0; e < 2; ++e)
      for (int l = 0; l < NM; ++l)
        for (int k = 0; k < B; ++k) {
          const double *c = coef + e * SQ_ANE_NCOEF, *sg = dofs + e * B * 9;
          const double tr = sg[k] + sg[k + B] + sg[k + 2 * B];
          for (int q = 0; q < 6; ++q)
            theta[((e * NM + l) * 6 + q) * B + k] =
                ane[e * NA + l * B * 6 + q * B + k] + c[SQ_ANE_C1] * sg[k + q * B] - (q < 3 ? c[SQ_ANE_C2] * tr : 0);
        }
    char wd[sizeof dofs], wa[sizeof ane], wc[sizeof coef];
    sq_kernel_ane_coef(p, 2, coef, wc);
    for (int i = 0; i < 2 * B * 9; ++i)
      p == SQ_F64 ? (((double *)wd)[i] = dofs[i]) : (((float *)wd)[i] = (float)dofs[i]);
    for (int i = 0; i < 2 * NA; ++i) p == SQ_F64 ? (((double *)wa)[i] = ane[i]) : (((float *)wa)[i] = (float)ane[i]);
    sq_kernel_ane_shift(p, O, NM, 2, wc, wd, 1, wa);
    for (int e = 0; e < 2; ++e) /* a stress change: the first six quantities, every basis function */
      for (int i = 0; i < B * 6; ++i) {
        const double d = 0.3 * sin(1.0 + i + 7 * e);
        if (p == SQ_F64) ((double *)wd)[e * B * 9 + i] += d;
        else ((float *)wd)[e * B * 9 + i] += (float)d;
      }
    sq_kernel_ane_shift(p, O, NM, 2, wc, wd, -1, wa);
    double worst = 0;
    for (int e = 0; e < 2; ++e)
      for (int l = 0; l < NM; ++l)
        for (int k = 0; k < B; ++k) {
          const double *c = coef + e * SQ_ANE_NCOEF;
          double sg[B * 6], ph[6];
          for (int q = 0; q < 6; ++q) {
            const size_t id = (size_t)e * B * 9 + q * B + k, ia = (size_t)e * NA + l * B * 6 + q * B + k;
            sg[q] = p == SQ_F64 ? ((double *)wd)[id] : ((float *)wd)[id];
            ph[q] = p == SQ_F64 ? ((double *)wa)[ia] : ((float *)wa)[ia];
          }
          const double tr = sg[0] + sg[1] + sg[2];
          for (int q = 0; q < 6; ++q) {
            const double th = ph[q] + c[SQ_ANE_C1] * sg[q] - (q < 3 ? c[SQ_ANE_C2] * tr : 0);
            worst = fmax(worst, fabs(th - theta[((e * NM + l) * 6 + q) * B + k]));
          }
        }
    EXPECT_MSG(worst < (p == SQ_F64 ? 1e-14 : 1e-6), "%s: theta moved by %g", p == SQ_F64 ? "double" : "single", worst);
    (void)rs;
  }
}
END_TEST

/* The closed form: Q = infinity is the elastic plane wave; a mode's temporal decay has the fitted Q. */
START_TEST(planewave_closed_form) {
  sq_atten_band band;
  ck_assert_int_eq(sq_atten_band_init(3, 2.0, 100, &band), SQ_SUCCESS);
  const double k[3] = {2 * M_PI, 2 * M_PI, 0};
  const sq_wave_kind kinds[3] = {SQ_WAVE_P, SQ_WAVE_S1, SQ_WAVE_S2};
  const int dirs[3] = {1, -1, 1};
  const double amp[3] = {1.0, 0.5, -0.3};
  sq_visco v;
  sq_material u;
  sq_planewave el, ve;
  ck_assert_int_eq(sq_visco_init(&band, &central, INFINITY, INFINITY, &v, &u), SQ_SUCCESS);
  sq_planewave_init(&el, &u, k, 0, 0, 0, 3, kinds, dirs, amp);
  ve = el;
  ck_assert_int_eq(sq_planewave_attenuate(&ve, &band, &v, u.rho), SQ_SUCCESS);
  for (int i = 0; i < 20; ++i) {
    const double x[3] = {0.1 * i, 0.37 - 0.05 * i, 0.2}, t = 0.013 * i;
    double a[9], b[9], phi[18];
    sq_planewave_eval(&el, x, t, a);
    sq_planewave_eval(&ve, x, t, b);
    for (int p = 0; p < 9; ++p) EXPECT_NEAR(a[p], b[p], 1e-13);
    sq_planewave_eval_ane(&ve, x, t, phi);
    for (int p = 0; p < 18; ++p) EXPECT(isfinite(phi[p]));
  }
  ck_assert_int_eq(sq_visco_init(&band, &central, 30, 15, &v, &u), SQ_SUCCESS);
  sq_planewave_init(&el, &u, k, 0, 0, 0, 3, kinds, dirs, amp);
  ck_assert_int_eq(sq_planewave_attenuate(&el, &band, &v, u.rho), SQ_SUCCESS);
  const double qwant[3] = {30, 15, 15};
  for (int i = 0; i < 3; ++i) {
    const double qmode = fabs(cimag(el.s[i])) / (-2 * creal(el.s[i]));
    EXPECT_MSG(fabs(qmode / qwant[i] - 1) < 0.06, "mode %d: Q %g, want %g", i, qmode, qwant[i]);
  }
}
END_TEST

/* Q = infinity through the anelastic kernels gives the elastic run, to round-off. */
START_TEST(infinite_q_is_elastic) {
  visco_case a, b;
  visco_case_init(&a, 3, SQ_F64, 2, 0, INFINITY, INFINITY);
  visco_case_init(&b, 3, SQ_F64, 2, 3, INFINITY, INFINITY);
  visco_case_run(&a, 0.05);
  visco_case_run(&b, 0.05);
  const double *qa = a.disc->dofs, *qb = b.disc->dofs;
  double num = 0, den = 0;
  for (int64_t i = 0; i < a.disc->nelem * a.disc->nbasis * 9; ++i) {
    num += (qa[i] - qb[i]) * (qa[i] - qb[i]);
    den += qa[i] * qa[i];
  }
  EXPECT_MSG(sqrt(num / den) < 1e-13, "relative difference %g", sqrt(num / den));
  visco_case_free(&a);
  visco_case_free(&b);
}
END_TEST

/* The viscoelastic plane wave converges at the order of the scheme; at order 3 the elastic closed form is
 * far off (the test fails if the anelastic terms are dropped). */
START_TEST(planewave_convergence) {
  const int orders[2] = {2, 3}, mesh[2][2] = {{4, 8}, {4, 8}};
  for (int io = 0; io < 2; ++io) {
    double err[2];
    for (int m = 0; m < 2; ++m) {
      visco_case vc;
      visco_case_init(&vc, orders[io], SQ_F64, mesh[io][m], 3, 20, 10);
      err[m] = visco_case_run(&vc, 0.2);
      if (m == 1 && orders[io] == 3) {
        visco_case el;
        visco_case_init(&el, orders[io], SQ_F64, 1, 0, INFINITY, INFINITY);
        double e, norm;
        sq_disc_l2_error(vc.disc, sq_planewave_eval, &el.pw, 0.2, &e, &norm);
        EXPECT_MSG(e / norm > 4 * err[1], "order %d: the elastic solution is as close (%g) as the viscoelastic (%g)",
                   orders[io], e / norm, err[1]);
        visco_case_free(&el);
      }
      visco_case_free(&vc);
    }
    const double rate = log(err[0] / err[1]) / log(2.0);
    fprintf(stderr, "order %d: errors %.3e %.3e, rate %.2f\n", orders[io], err[0], err[1], rate);
    EXPECT_MSG(rate > orders[io] - 0.2, "order %d: rate %.2f", orders[io], rate);
  }
}
END_TEST

int main(void) {
  const TTest *tests[] = {fit_constant_q_over_band, band_frequencies,      central_frequency_convention,
                          kernel_coefficients,      planewave_closed_form, infinite_q_is_elastic,
                          planewave_convergence,    shift_keeps_theta,     NULL};
  return sq_test_run(sq_test_suite("attenuation", 300, tests), 1);
}
