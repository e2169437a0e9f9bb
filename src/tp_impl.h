/**
 * @file tp_impl.h  Thermal pressurization of the pore fluid at one fault point (Rice 2006; Noda & Lapusta
 * 2010, as SeisSol discretises it) as `static inline` host/device functions, shared by the CPU code and the
 * CUDA rupture kernel through friction_impl.h.  Double precision, <math.h> only.
 *
 * Across the fault (y normal to it) temperature T and pore pressure p obey
 *   dT/dt = a_th d2T/dy2 + tau V g(y) / (rho c),       g(y) = exp(-y^2 / (2 w^2)) / (sqrt(2 pi) w),
 *   dp/dt = a_hy d2p/dy2 + Lambda dT/dt,
 * with the frictional heat tau V spread over a Gaussian of half-width w.  With the cosine transform
 * X(y) = (1/pi) int_0^inf X_k cos(k y) dk, each wavenumber k evolves independently:
 *   dTheta_k/dt = -A Theta_k + S,   dPi_k/dt = -B Pi_k + Lambda dTheta_k/dt,
 *   A = a_th k^2, B = a_hy k^2, S = (tau V / rho c) exp(-k^2 w^2 / 2).
 * Over a step dt with constant S both have exact solutions:
 *   Theta(dt) = Theta e^-A dt + S (1 - e^-A dt) / A,
 *   Pi(dt)    = Pi e^-B dt + Lambda (S - A Theta) phi,   phi = int_0^dt e^-B (dt - s) e^-A s ds,
 * (phi has no singularity at a_th = a_hy: it is computed without cancellation for every A, B).  Both are affine
 * in the heating rate, so one pass over the grid (sq_tp_response) gives the pore pressure for every iterate
 * of the friction solve, and a second (sq_tp_step) advances the coefficients.
 * The state (sq_tp_state) holds Theta_k and Pi_k on n wavenumbers k_i = k_max e^{-delta (n - 1 - i)} / w, log-spaced
 * from k_min w = SQ_TP_K_MAX e^-SQ_TP_LOG_SPAN to k_max w = SQ_TP_K_MAX, delta = SQ_TP_LOG_SPAN / (n - 1)
 * (n = 60 gives SeisSol's spacing 0.3); the fault-centre values T(0) - T0 and p(0) - p0 are the
 * trapezoidal rule in ln k of (1/pi) int Theta_k k d(ln k), plus (1/pi) k_min Theta_{k_min} for [0, k_min].
 */
#ifndef SQ_TP_IMPL_H
#define SQ_TP_IMPL_H

#include <math.h>

#include "sq_friction.h"

#ifdef __CUDACC__
#define SQ_TP_HD __host__ __device__
#else
#define SQ_TP_HD
#endif

#define SQ_TP_PI 3.14159265358979323846

/** (1 - e^-x) / x, 1 at x = 0, without cancellation. */
static inline SQ_TP_HD double sq_tp_relax(double x) { return x > 1e-12 ? -expm1(-x) / x : 1.0 - 0.5 * x; }

/** phi = int_0^dt e^{-B (dt - s)} e^{-A s} ds for A, B >= 0, given ea = e^{-A dt} and eb = e^{-B dt}. */
static inline SQ_TP_HD double sq_tp_phi_e(double A, double B, double dt, double ea, double eb) {
  const double x = (B - A) * dt;
  if (fabs(x) < 0.5) return x == 0 ? dt * eb : dt * eb * (expm1(x) / x);
  return (ea - eb) / (B - A);
}

/** phi = int_0^dt e^{-B (dt - s)} e^{-A s} ds for A, B >= 0. */
static inline SQ_TP_HD double sq_tp_phi(double A, double B, double dt) {
  return sq_tp_phi_e(A, B, dt, exp(-A * dt), exp(-B * dt));
}

/** The grid of @p p: k_0 w = SQ_TP_K_MAX e^-SQ_TP_LOG_SPAN, k_{i+1} = k_i e^delta; returns delta. */
static inline SQ_TP_HD double sq_tp_grid(const sq_friction_params *p, double *kw0) {
  *kw0 = SQ_TP_K_MAX * exp(-SQ_TP_LOG_SPAN);
  return SQ_TP_LOG_SPAN / (p->tp_points - 1);
}

/**
 * Wavenumber @p i (k w = @p kw) of point @p s over a step @p dt: m[0] its weight (times pi w: the trapezoidal
 * rule in ln k, plus k_min for [0, k_min], where Theta is flat), the new coefficients as affine functions of
 * the heating rate tau V: Theta(dt) = m[1] + tau V m[2], Pi(dt) = m[3] + tau V m[4].
 */
static inline SQ_TP_HD void sq_tp_mode(const sq_friction_params *p, const sq_tp_state *s, int i, double kw,
                                       double delta, double dt, double m[5]) {
  const int n = p->tp_points;
  const double k2 = kw * kw / (p->tp_half_width * p->tp_half_width), A = p->tp_alpha_th * k2, B = p->tp_alpha_hy * k2;
  const double a = A * dt, ea = exp(-a), eb = exp(-B * dt); /* (1 - ea) / a cancels only for small a */
  const double g = exp(-0.5 * kw * kw) / p->tp_rho_c, th0 = s->theta[i];
  const double phi = p->tp_lambda * sq_tp_phi_e(A, B, dt, ea, eb);
  m[0] = kw * delta * (i == 0 || i == n - 1 ? 0.5 : 1.0) + (i == 0 ? kw : 0.0);
  m[1] = th0 * ea;
  m[2] = g * dt * (a > 0.5 ? (1.0 - ea) / a : sq_tp_relax(a));
  m[3] = s->pi[i] * eb - A * th0 * phi;
  m[4] = g * phi;
}

/**
 * The fault-centre temperature and pore pressure after a step @p dt of point @p s as affine functions of the
 * heating rate tau V: T = T0 + out[0] + tau V out[1], p = p0 + out[2] + tau V out[3] (the coefficients' ODEs
 * are linear in the source).  One pass over the grid serves every pass of the friction solve.
 */
static inline SQ_TP_HD void sq_tp_response(const sq_friction_params *p, const sq_tp_state *s, double dt,
                                           double out[4]) {
  double sum[4] = {0.0, 0.0, 0.0, 0.0}, kw, m[5];
  const double delta = sq_tp_grid(p, &kw), grow = exp(delta);
  for (int i = 0; i < p->tp_points; ++i, kw *= grow) {
    sq_tp_mode(p, s, i, kw, delta, dt, m);
    for (int k = 0; k < 4; ++k) sum[k] += m[0] * m[1 + k];
  }
  const double scale = 1.0 / (SQ_TP_PI * p->tp_half_width);
  for (int k = 0; k < 4; ++k) out[k] = scale * sum[k];
}

/**
 * One step of length @p dt of the spectral coefficients @p tp of a point at the constant heating rate
 * @p tau_v = tau V (W/m^2): the new coefficients are stored in @p tp, the temperature T0 + dT and the pore
 * pressure p0 + dp at the fault centre in @p s.  Returns the pore pressure.
 */
static inline SQ_TP_HD double sq_tp_step(const sq_friction_params *p, sq_friction_state *s, sq_tp_state *tp,
                                         double tau_v, double dt) {
  double dT = 0.0, dp = 0.0, kw, m[5];
  const double delta = sq_tp_grid(p, &kw), grow = exp(delta);
  for (int i = 0; i < p->tp_points; ++i, kw *= grow) {
    sq_tp_mode(p, tp, i, kw, delta, dt, m);
    const double th1 = m[1] + tau_v * m[2], pi1 = m[3] + tau_v * m[4];
    dT += m[0] * th1;
    dp += m[0] * pi1;
    tp->theta[i] = th1, tp->pi[i] = pi1;
  }
  const double scale = 1.0 / (SQ_TP_PI * p->tp_half_width);
  s->temperature = p->tp_T0 + scale * dT;
  s->pressure = p->tp_p0 + scale * dp;
  return s->pressure;
}

#endif
