/** @file thermal_pressurization.c  Host side of thermal pressurization (tp_impl.h): checks, closed forms. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sq_common.h"
#include "sq_friction.h"
#include "tp_impl.h"

/** Check that @p value of parameter @p name is finite and > 0 (@p positive) or >= 0 (else). */
static int tp_check(const char *name, double value, int positive, char *why, size_t why_len) {
  if (isfinite(value) && (value > 0 || (!positive && value == 0))) return SQ_SUCCESS;
  if (why && why_len) snprintf(why, why_len, "%s = %g must be finite and %s", name, value, positive ? "> 0" : ">= 0");
  return SQ_ERR_INPUT;
}

int sq_tp_check_params(sq_friction_law law, const sq_friction_params *p, char *why, size_t why_len) {
  if (!p->tp_points) return SQ_SUCCESS;
  if (law != SQ_FRICTION_RS_AGING && law != SQ_FRICTION_RS_SLIP && law != SQ_FRICTION_RS_FVW) {
    if (why && why_len)
      snprintf(why, why_len,
               "thermal pressurization needs a rate-and-state friction law (rate_state_aging, rate_state_slip or "
               "rate_state_fast_velocity_weakening)");
    return SQ_ERR_INPUT;
  }
  if (p->tp_points < 2 || p->tp_points > SQ_TP_MAX_POINTS) {
    if (why && why_len)
      snprintf(why, why_len, "tp_grid_points = %d must be between 2 and %d", p->tp_points, SQ_TP_MAX_POINTS);
    return SQ_ERR_INPUT;
  }
  SQ_CALL(tp_check("tp_thermal_diffusivity", p->tp_alpha_th, 1, why, why_len));
  SQ_CALL(tp_check("tp_hydraulic_diffusivity", p->tp_alpha_hy, 1, why, why_len));
  SQ_CALL(tp_check("tp_heat_capacity", p->tp_rho_c, 1, why, why_len));
  SQ_CALL(tp_check("tp_lambda", p->tp_lambda, 0, why, why_len));
  SQ_CALL(tp_check("tp_half_width", p->tp_half_width, 1, why, why_len));
  SQ_CALL(tp_check("tp_initial_temperature", p->tp_T0, 0, why, why_len));
  if (!isfinite(p->tp_p0)) {
    if (why && why_len) snprintf(why, why_len, "tp_initial_pressure = %g must be finite", p->tp_p0);
    return SQ_ERR_INPUT;
  }
  return SQ_SUCCESS;
}

void sq_tp_closed_form(double a_th, double a_hy, double rho_c, double lambda, double w, double tau_v, double t,
                       double *dT, double *dp) {
  /* (sqrt(x) - sqrt(y)) / (A - B) with x - y = 2 t (A - B) is 2 t / (sqrt(x) + sqrt(y)): no cancellation */
  const double heat = tau_v / rho_c, s2pi = sqrt(2.0 * 3.14159265358979323846);
  const double rt = sqrt(w * w + 2 * a_th * t), rh = sqrt(w * w + 2 * a_hy * t);
  *dT = t > 0 ? heat * 2 * t / ((rt + w) * s2pi) : 0.0;
  *dp = t > 0 ? lambda * heat * 2 * t / ((rt + rh) * s2pi) : 0.0;
}

/* Adaptive Simpson on [a, b] of f(s) = 1 / sqrt(2 pi (c0 + c1 s)) (the convolution integrand). */
typedef struct tp_kernel {
  double c0, c1;
} tp_kernel;
static double tp_kernel_eval(const tp_kernel *k, double s) {
  return 1.0 / sqrt(2.0 * 3.14159265358979323846 * (k->c0 + k->c1 * s));
}
static double tp_simpson(const tp_kernel *k, double a, double b, double fa, double fm, double fb, double whole,
                         double tol, int depth) {
  const double m = 0.5 * (a + b), lm = 0.5 * (a + m), rm = 0.5 * (m + b);
  const double flm = tp_kernel_eval(k, lm), frm = tp_kernel_eval(k, rm);
  const double left = (m - a) / 6 * (fa + 4 * flm + fm), right = (b - m) / 6 * (fm + 4 * frm + fb);
  if (depth <= 0 || fabs(left + right - whole) <= 15 * tol) return left + right + (left + right - whole) / 15;
  return tp_simpson(k, a, m, fa, flm, fm, left, 0.5 * tol, depth - 1) +
         tp_simpson(k, m, b, fm, frm, fb, right, 0.5 * tol, depth - 1);
}

void sq_tp_quadrature(double a_th, double a_hy, double rho_c, double lambda, double w, double tau_v, double t,
                      double *dT, double *dp) {
  *dT = *dp = 0.0;
  if (!(t > 0)) return;
  /* temperature: the source at time s, diffused over t - s: variance w^2 + 2 a_th (t - s) */
  const tp_kernel kt = {w * w + 2 * a_th * t, -2 * a_th}, kp = {w * w + 2 * a_hy * t, 2 * (a_th - a_hy)};
  const tp_kernel *ks[2] = {&kt, &kp};
  double out[2];
  for (int j = 0; j < 2; ++j) {
    const double fa = tp_kernel_eval(ks[j], 0), fm = tp_kernel_eval(ks[j], 0.5 * t), fb = tp_kernel_eval(ks[j], t);
    const double whole = t / 6 * (fa + 4 * fm + fb);
    out[j] = tp_simpson(ks[j], 0, t, fa, fm, fb, whole, 1e-13 * fabs(whole), 48);
  }
  *dT = tau_v / rho_c * out[0];
  *dp = lambda * tau_v / rho_c * out[1];
}

int sq_tp_constant_heating(const sq_friction_params *p, double tau_v, double dt, int nsample, const double *times,
                           double *T, double *P) {
  sq_friction_state s;
  sq_tp_state tp;
  memset(&s, 0, sizeof(s));
  memset(&tp, 0, sizeof(tp));
  double t = 0.0;
  for (int k = 0; k < nsample; ++k) {
    SQ_CHECK(times[k] >= t, SQ_ERR_INPUT, "sq_tp_constant_heating: the sample times must increase");
    while (t < times[k]) {
      const int last = times[k] - t <= dt;
      sq_tp_step(p, &s, &tp, tau_v, last ? times[k] - t : dt);
      t = last ? times[k] : t + dt;
    }
    T[k] = s.temperature, P[k] = s.pressure;
  }
  return SQ_SUCCESS;
}
