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
 * (phi has no singularity at a_th = a_hy: it is computed without cancellation for every A, B).
 * The state holds Theta_k and Pi_k on n wavenumbers k_i = k_max e^{-delta (n - 1 - i)} / w, log-spaced
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

/** Dimensionless wavenumber k_i w and quadrature weight (times pi w) of point @p i of an @p n-point grid. */
static inline SQ_TP_HD double sq_tp_wavenumber(int i, int n, double *weight) {
  const double delta = SQ_TP_LOG_SPAN / (n - 1), kw = SQ_TP_K_MAX * exp(-delta * (n - 1 - i));
  double wt = kw * delta * (i == 0 || i == n - 1 ? 0.5 : 1.0);
  if (i == 0) wt += kw; /* [0, k_min]: Theta is flat there */
  *weight = wt;
  return kw;
}

/** (1 - e^-x) / x, 1 at x = 0, without cancellation. */
static inline SQ_TP_HD double sq_tp_relax(double x) { return x > 1e-12 ? -expm1(-x) / x : 1.0 - 0.5 * x; }

/** phi = int_0^dt e^{-B (dt - s)} e^{-A s} ds for A, B >= 0. */
static inline SQ_TP_HD double sq_tp_phi(double A, double B, double dt) {
  const double a = A * dt, b = B * dt, x = b - a;
  if (fabs(x) < 0.5) return x == 0 ? dt * exp(-b) : dt * exp(-b) * (expm1(x) / x);
  return (exp(-a) - exp(-b)) / (B - A);
}

/**
 * One step of length @p dt of the spectral coefficients of point @p s at the constant heating rate
 * @p tau_v = tau V (W/m^2).  @p store: write the new coefficients, temperature and pore pressure into @p s;
 * else leave @p s unchanged.  Returns the pore pressure p0 + dp at the fault centre after the step;
 * *@p temp receives the temperature T0 + dT (may be NULL).
 */
static inline SQ_TP_HD double sq_tp_step(const sq_friction_params *p, sq_friction_state *s, double tau_v, double dt,
                                         int store, double *temp) {
  const int n = p->tp_points;
  const double w = p->tp_half_width, heat = tau_v / p->tp_rho_c;
  double dT = 0.0, dp = 0.0;
  for (int i = 0; i < n; ++i) {
    double wt;
    const double kw = sq_tp_wavenumber(i, n, &wt), k2 = kw * kw / (w * w);
    const double A = p->tp_alpha_th * k2, B = p->tp_alpha_hy * k2, S = heat * exp(-0.5 * kw * kw);
    const double th0 = s->tp_theta[i], pi0 = s->tp_pi[i];
    const double th1 = th0 * exp(-A * dt) + S * dt * sq_tp_relax(A * dt);
    const double pi1 = pi0 * exp(-B * dt) + p->tp_lambda * (S - A * th0) * sq_tp_phi(A, B, dt);
    dT += wt * th1;
    dp += wt * pi1;
    if (store) s->tp_theta[i] = th1, s->tp_pi[i] = pi1;
  }
  const double T = p->tp_T0 + dT / (SQ_TP_PI * w), P = p->tp_p0 + dp / (SQ_TP_PI * w);
  if (store) s->temperature = T, s->pressure = P;
  if (temp) *temp = T;
  return P;
}

#endif
