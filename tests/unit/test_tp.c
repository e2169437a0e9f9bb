/** @file test_tp.c  Check suite for thermal pressurization (tp_impl.h, thermal_pressurization.c, its coupling in
 * friction_impl.h). */
#include "sq_check.h"
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sq_common.h"
#include "sq_friction.h"
#include "friction_impl.h"

/* TPV105 inside the velocity-weakening region: a_th, a_hy, rho c, Lambda, w, T0, p0 */
static sq_friction_params tpv105(int n) {
  return (sq_friction_params){.a = 0.01,
                              .b = 0.014,
                              .L = 0.4,
                              .f0 = 0.6,
                              .V0 = 1e-6,
                              .f_w = 0.2,
                              .V_w = 0.1,
                              .tp_alpha_th = 1e-6,
                              .tp_alpha_hy = 4e-4,
                              .tp_rho_c = 2.7e6,
                              .tp_lambda = 0.1e6,
                              .tp_half_width = 0.02,
                              .tp_T0 = 483.15,
                              .tp_p0 = 0.0,
                              .tp_points = n};
}

/* Largest relative error of dT and dp against the closed forms at 8 times in [1 ms, 10 s]. */
static double heating_error(const sq_friction_params *p, double tau_v, double dt) {
  double times[8], T[8], P[8], err = 0;
  for (int k = 0; k < 8; ++k) times[k] = 1e-3 * pow(1e4, k / 7.0);
  ck_assert_int_eq(sq_tp_constant_heating(p, tau_v, dt, 8, times, T, P), SQ_SUCCESS);
  for (int k = 0; k < 8; ++k) {
    double dT, dp;
    sq_tp_closed_form(p->tp_alpha_th, p->tp_alpha_hy, p->tp_rho_c, p->tp_lambda, p->tp_half_width, tau_v, times[k], &dT,
                      &dp);
    err = fmax(err, fmax(fabs(T[k] - p->tp_T0 - dT) / dT, fabs(P[k] - p->tp_p0 - dp) / dp));
  }
  return err;
}

/* The spectral update against Rice's closed forms, and its convergence in the number of wavenumbers */
START_TEST(constant_heating) {
  const sq_friction_params p60 = tpv105(60), p30 = tpv105(30), p16 = tpv105(16);
  const double e60 = heating_error(&p60, 8e6, 1e-3), e30 = heating_error(&p30, 8e6, 1e-3);
  const double e16 = heating_error(&p16, 8e6, 1e-3);
  ck_assert_msg(e60 < 1e-5, "60 points: error %g", e60);
  ck_assert_msg(e16 > 1e-3 && e30 < 0.2 * e16 && e60 < 0.01 * e30, "no convergence: %g %g %g", e16, e30, e60);
  /* the update is exact at constant heating: the step does not matter */
  const double big = heating_error(&p60, 8e6, 0.37);
  ck_assert_msg(fabs(big - e60) < 1e-9, "step 0.37 s: error %g, step 1 ms: %g", big, e60);
  /* equal diffusivities (phi's removable singularity) */
  sq_friction_params eq = p60;
  eq.tp_alpha_hy = eq.tp_alpha_th;
  ck_assert_double_lt(heating_error(&eq, 8e6, 1e-3), 1e-5);
}
END_TEST

/* The closed forms against quadrature of the convolution integrals, and the slip-on-a-plane limits */
START_TEST(closed_forms) {
  for (int k = 0; k < 3; ++k) {
    const double w = k == 0 ? 0.02 : k == 1 ? 1e-3 : 0.1, t = k == 0 ? 2.0 : k == 1 ? 0.01 : 30.0;
    double dT, dp, qT, qp;
    sq_tp_closed_form(1e-6, 4e-4, 2.7e6, 0.1e6, w, 1e7, t, &dT, &dp);
    sq_tp_quadrature(1e-6, 4e-4, 2.7e6, 0.1e6, w, 1e7, t, &qT, &qp);
    ck_assert_double_le(fabs(qT - dT), 1e-10 * dT);
    ck_assert_double_le(fabs(qp - dp), 1e-10 * dp);
  }
  double dT, dp;
  const double t = 3.0, a = 1e-6, h = 4e-4, heat = 1e7 / 2.7e6;
  sq_tp_closed_form(a, h, 2.7e6, 0.1e6, 0.0, 1e7, t, &dT, &dp);
  ck_assert_double_le(fabs(dT - heat * sqrt(t / (M_PI * a))), 1e-12 * dT);
  ck_assert_double_le(fabs(dp - 0.1e6 * heat * sqrt(t / M_PI) / (sqrt(a) + sqrt(h))), 1e-12 * dp);
  /* phi is continuous across A = B */
  ck_assert_double_le(fabs(sq_tp_phi(3.0, 3.0 * (1 + 1e-9), 0.2) - sq_tp_phi(3.0, 3.0, 0.2)), 1e-9);
  ck_assert_double_le(fabs(sq_tp_phi(3.0, 5.0, 0.2) - (exp(-0.6) - exp(-1.0)) / 2.0), 1e-15);
}
END_TEST

/* The pore pressure lowers the effective normal stress in the friction solve */
START_TEST(coupled_solve) {
  const double eta = 0.5 * 2670 * 3464, sigma_n = -40e6, V_init = 1.0, tau0 = 10e6; /* sliding at about 1 m/s */
  sq_friction_params off = tpv105(60), dry = tpv105(60), wet = tpv105(60);
  off.tp_points = 0;
  dry.tp_lambda = 0.0; /* heats, but does not pressurize */
  sq_friction_state s_off, s_dry, s_wet;
  sq_tp_state tp_dry, tp_wet; /* the spectral states, apart from the friction state; none without TP */
  memset(&tp_dry, 0, sizeof(tp_dry));
  memset(&tp_wet, 0, sizeof(tp_wet));
  sq_friction_init_state(SQ_FRICTION_RS_FVW, &off, V_init, tau0, sigma_n, &s_off);
  sq_friction_init_state(SQ_FRICTION_RS_FVW, &dry, V_init, tau0, sigma_n, &s_dry);
  sq_friction_init_state(SQ_FRICTION_RS_FVW, &wet, V_init, tau0, sigma_n, &s_wet);
  ck_assert_double_eq(s_wet.temperature, 483.15);
  ck_assert_double_eq(s_wet.pressure, 0.0);
  const double tau_lock[2] = {tau0 + eta * V_init, 0.0};
  /* thermal pressurization without its state is refused, and leaves the history as it was */
  sq_friction_state before = s_wet;
  ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_RS_FVW, &wet, 0, 1e-3, sigma_n, tau_lock, eta, &s_wet, NULL),
                   SQ_FRICTION_NO_CONVERGENCE);
  ck_assert(memcmp(&before, &s_wet, sizeof(before)) == 0);
  for (int k = 0; k < 2000; ++k) {
    const double t = 1e-3 * k;
    ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_RS_FVW, &off, t, 1e-3, sigma_n, tau_lock, eta, &s_off, NULL),
                     0);
    ck_assert_int_eq(
        sq_friction_solve_point(SQ_FRICTION_RS_FVW, &dry, t, 1e-3, sigma_n, tau_lock, eta, &s_dry, &tp_dry), 0);
    ck_assert_int_eq(
        sq_friction_solve_point(SQ_FRICTION_RS_FVW, &wet, t, 1e-3, sigma_n, tau_lock, eta, &s_wet, &tp_wet), 0);
  }
  /* no pressure change: the same slip as without thermal pressurization, but the fault heated */
  ck_assert_double_eq(s_dry.slip[0], s_off.slip[0]);
  ck_assert_double_eq(s_dry.pressure, 0.0);
  ck_assert_msg(s_dry.temperature > 483.15 + 10, "temperature %g", s_dry.temperature);
  /* pressurized: weaker, more slip; the traction carried is the strength at the effective stress */
  ck_assert_msg(s_wet.pressure > 1e6, "pore pressure %g", s_wet.pressure);
  ck_assert_msg(s_wet.slip[0] > 1.01 * s_dry.slip[0], "slip %g vs %g", s_wet.slip[0], s_dry.slip[0]);
  const double strength = s_wet.mu * (-sigma_n - s_wet.pressure);
  ck_assert_double_le(fabs(hypot(s_wet.traction[0], s_wet.traction[1]) - strength), 1e-3 * strength);
  /* an initial pore pressure lowers the initial effective stress: the friction that balances tau0 is higher */
  sq_friction_params p0 = wet;
  p0.tp_p0 = 10e6;
  sq_friction_state s_p0;
  sq_friction_init_state(SQ_FRICTION_RS_FVW, &p0, V_init, tau0, sigma_n, &s_p0);
  ck_assert_double_le(fabs(s_p0.mu - tau0 / 30e6), 1e-14);
  ck_assert_double_eq(s_p0.pressure, 10e6);
}
END_TEST

START_TEST(check_params) {
  char why[256];
  sq_friction_params p = tpv105(60);
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_RS_FVW, &p, why, sizeof(why)), SQ_SUCCESS);
  p.tp_half_width = -0.02;
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_RS_FVW, &p, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_msg(strstr(why, "tp_half_width = -0.02") != NULL, "%s", why);
  p = tpv105(61);
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_RS_FVW, &p, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_msg(strstr(why, "tp_grid_points") != NULL, "%s", why);
  p = tpv105(60);
  p.tp_alpha_hy = NAN;
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_RS_AGING, &p, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_msg(strstr(why, "tp_hydraulic_diffusivity") != NULL, "%s", why);
  p = tpv105(60);
  p.mu_s = 0.6, p.mu_d = 0.5, p.d_c = 0.4;
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_LSW, &p, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_msg(strstr(why, "rate-and-state") != NULL, "%s", why);
}
END_TEST

int main(void) {
  Suite *s = suite_create("thermal_pressurization");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, constant_heating);
  tcase_add_test(tc, closed_forms);
  tcase_add_test(tc, coupled_solve);
  tcase_add_test(tc, check_params);
  suite_add_tcase(s, tc);
  return sq_test_run(s, 1);
}
