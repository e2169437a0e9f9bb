/**
 * @file kinematic_impl.h  Kinematic sources on the fault (imposed slip rates, SeisSol's friction laws 33 and
 * 34) as `static inline` host/device functions, shared by the CPU and the CUDA rupture kernels through
 * sq_friction_solve_point() (friction_impl.h).  Double precision, <math.h> only.  docs/RUPTURE.md,
 * *Kinematic sources*, describes the functions and the way the slip is imposed.
 *
 * Every slip-rate function is given by its integral, the fraction F(t) of the final slip reached at time t
 * (0 before the onset, 1 once the slip is complete).  Over each temporal point of a step, which stands
 * for a sub-interval [a, a + w] of the step (w its Gauss weight), the imposed slip rate is the mean
 * D (F(a + w) - F(a)) / w and the slip is D F(a + w): the slip of every point is the integral of the
 * slip-rate function to rounding, whatever the step, and is D exactly once F = 1.
 */
#ifndef SQ_KINEMATIC_IMPL_H
#define SQ_KINEMATIC_IMPL_H

#ifdef __CUDACC__
#define SQ_KINEMATIC_HD __host__ __device__
#else
#define SQ_KINEMATIC_HD
#endif

#include <math.h>

#include "sq_friction.h"

#define SQ_KINEMATIC_PI 3.14159265358979323846

/**
 * The Yoffe function of rise time 1, Y(x) = (2 / pi) sqrt((1 - x) / x) on (0, 1) (unit integral), and its
 * antiderivatives from 0 (with x = sin^2 q, r = sqrt(x (1 - x))):
 *   y1(x) = (2 / pi) (q + r),
 *   y2(x) = ((4 x - 1) q + (1 + 2 x) r) / (2 pi),
 *   y3(x) = ((x^2 - x / 2 + 1 / 8) q + (x^2 / 3 + 5 x / 12 - 1 / 8) r) / pi;
 * 0 for x <= 0; for x >= 1, with u = x - 1: y1 = 1, y2 = 3/4 + u, y3 = 5/16 + 3 u / 4 + u^2 / 2.
 * @p y receives y1, y2, y3.
 */
static inline SQ_KINEMATIC_HD void sq_kinematic_yoffe_antiderivatives(double x, double y[3]) {
  if (!(x > 0)) {
    y[0] = y[1] = y[2] = 0.0;
    return;
  }
  if (x >= 1) {
    const double u = x - 1;
    y[0] = 1.0, y[1] = 0.75 + u, y[2] = 0.3125 + u * (0.75 + 0.5 * u);
    return;
  }
  const double q = atan2(sqrt(x), sqrt(1 - x)), r = sqrt(x * (1 - x)); /* asin(sqrt(x)) loses digits near 1 */
  y[0] = (2 / SQ_KINEMATIC_PI) * (q + r);
  y[1] = ((4 * x - 1) * q + (1 + 2 * x) * r) / (2 * SQ_KINEMATIC_PI);
  y[2] = ((x * x - 0.5 * x + 0.125) * q + (x * x / 3 + 5 * x / 12 - 0.125) * r) / SQ_KINEMATIC_PI;
}

/**
 * The regularised Yoffe function of Tinti et al. (2005), Y (rise time tau_R) convolved with the triangle of
 * half-width tau_S and unit area, at time s after the onset: @p which = 0 its value (1/s), 1 its integral
 * from 0 (the fraction of the slip).  The triangle's second derivative is (delta(s) - 2 delta(s - tau_S) +
 * delta(s - 2 tau_S)) / tau_S^2, so the convolution is the second difference of the Yoffe function's second
 * (value) or third (integral) antiderivative:
 *   S(s) = tau_R / tau_S^2 [y2(s / tau_R) - 2 y2((s - tau_S) / tau_R) + y2((s - 2 tau_S) / tau_R)],
 *   F(s) = tau_R^2 / tau_S^2 [y3(...) - 2 y3(...) + y3(...)],
 * for any tau_R, tau_S > 0 (also tau_R < 2 tau_S).  F = 1 exactly from s = tau_R + 2 tau_S on; before, the
 * second difference costs about (tau_R / tau_S)^2 rounding units.
 */
static inline SQ_KINEMATIC_HD double sq_kinematic_yoffe(double s, double tau_s, double tau_r, int which) {
  if (!(s > 0)) return 0.0;
  if (s >= tau_r + 2 * tau_s) return which ? 1.0 : 0.0;
  double a[3], b[3], c[3];
  sq_kinematic_yoffe_antiderivatives(s / tau_r, a);
  sq_kinematic_yoffe_antiderivatives((s - tau_s) / tau_r, b);
  sq_kinematic_yoffe_antiderivatives((s - 2 * tau_s) / tau_r, c);
  const int n = which ? 2 : 1;
  const double scale = (which ? tau_r * tau_r : tau_r) / (tau_s * tau_s);
  const double v = scale * (a[n] - 2 * b[n] + c[n]);
  return which ? fmin(1.0, fmax(0.0, v)) : fmax(0.0, v);
}

/**
 * SeisSol's "Gaussian" slip-rate function: the derivative of the smooth step G(s) = exp((s - T)^2 / (s (s -
 * 2 T))) of duration T (0 at s = 0, 1 from s = T on; the nucleation ramp of sq_fault_ramp), at time s after
 * the onset: @p which = 0 its value G'(s) = G(s) 2 (T - s) T^2 / (s (s - 2 T))^2, 1 its integral G(s).
 */
static inline SQ_KINEMATIC_HD double sq_kinematic_gaussian(double s, double T, int which) {
  if (!(s > 0)) return 0.0;
  if (s >= T) return which ? 1.0 : 0.0;
  const double u = s - T, d = s * (s - 2 * T), G = exp(u * u / d);
  return which ? G : G * (-2 * u * T * T) / (d * d);
}

/** sq_friction_is_kinematic() for host and device code. */
static inline SQ_KINEMATIC_HD int sq_kinematic_law(sq_friction_law law) {
  return law == SQ_FRICTION_KINEMATIC_YOFFE || law == SQ_FRICTION_KINEMATIC_GAUSSIAN ||
         law == SQ_FRICTION_KINEMATIC_DELTA;
}

/**
 * The fraction of the final slip a point of kinematic law @p law has reached at time @p t: the integral of its
 * slip-rate function from the onset; the delta function puts all slip just after the onset (F = 1 for
 * t > onset).  0 for a law that is not kinematic.
 */
static inline SQ_KINEMATIC_HD double sq_kinematic_fraction(sq_friction_law law, const sq_friction_params *p, double t) {
  const double s = t - p->onset;
  if (law == SQ_FRICTION_KINEMATIC_YOFFE) return sq_kinematic_yoffe(s, p->tau_s, p->rise_time, 1);
  if (law == SQ_FRICTION_KINEMATIC_GAUSSIAN) return sq_kinematic_gaussian(s, p->rise_time, 1);
  if (law == SQ_FRICTION_KINEMATIC_DELTA) return s > 0 ? 1.0 : 0.0;
  return 0.0;
}

/**
 * One temporal point of a kinematic fault point: the slip-rate vector is imposed, and the Riemann problem
 * gives the traction that makes both sides slip at that rate, tau = tau_lock - eta V (eq. 3.56 with V given
 * instead of found by friction).  s->state holds the time a up to which the slip has been imposed; this point
 * stands for [a, a + dt]: V = D (F(a + dt) - F(a)) / dt, slip = D F(a + dt), slip path = |D| F(a + dt), and
 * the state becomes a + dt.  The arguments are those of sq_friction_solve_point(); mu is 0.
 * @return 0, or SQ_FRICTION_NO_CONVERGENCE when an input is not finite, eta <= 0 or dt < 0 (the history is
 *         then unchanged).
 */
static inline SQ_KINEMATIC_HD int sq_kinematic_solve_point(sq_friction_law law, const sq_friction_params *p, double t,
                                                           double dt, double sigma_n, const double tau_lock[2],
                                                           double eta, sq_friction_state *s) {
  if (!(isfinite(tau_lock[0]) && isfinite(tau_lock[1]) && isfinite(sigma_n) && isfinite(eta) && eta > 0 &&
        isfinite(dt) && dt >= 0 && !isnan(t) && isfinite(s->state)))
    return SQ_FRICTION_NO_CONVERGENCE;
  const double a = s->state, b = a + dt;
  const double fb = sq_kinematic_fraction(law, p, b), df = fb - sq_kinematic_fraction(law, p, a);
  const double D[2] = {p->slip_strike, p->slip_dip}, rate = dt > 0 ? df / dt : 0.0;
  double power = 0.0;
  for (int k = 0; k < 2; ++k) {
    s->slip_rate[k] = D[k] * rate;
    s->traction[k] = tau_lock[k] - eta * s->slip_rate[k];
    s->slip[k] = D[k] * fb;
    power += s->traction[k] * s->slip_rate[k];
  }
  const double V = hypot(s->slip_rate[0], s->slip_rate[1]);
  s->slip_path = hypot(D[0], D[1]) * fb;
  s->work += power * dt;
  s->state = b;
  s->mu = 0.0;
  s->normal_stress = sigma_n;
  if (V > s->peak_slip_rate) s->peak_slip_rate = V;
  if (s->rupture_time < 0 && V > SQ_FRICTION_RUPTURE_SLIP_RATE) s->rupture_time = t;
  return 0;
}

#endif
