/**
 * @file sq_savage_prescott.h  Savage & Prescott (1978): surface displacement and velocity after an earthquake on
 * an infinitely long strike-slip fault that cuts an elastic layer of thickness H (shear modulus mu) over a
 * Maxwell viscoelastic half-space (the same mu, viscosity eta).  The fault slips by b at t = 0 from the surface
 * to depth D <= H; the half-space then relaxes with the time constant tau = 2 eta / mu.  By images and the
 * correspondence principle (docs/postseismic-closed-forms.md):
 *   u(x, t) = b/pi [atan(D/x) + sum_{n>=1} P(n, t/tau) (atan((2nH + D)/x) - atan((2nH - D)/x))],
 *   v(x, t) = du/dt = b/(pi tau) sum_{n>=1} e^{-t/tau} (t/tau)^{n-1}/(n-1)! (atan((2nH + D)/x) - atan((2nH - D)/x)),
 * with P(n, s) = 1 - e^{-s} sum_{k<n} s^k/k! the regularised incomplete gamma function.  u is the displacement
 * parallel to the fault; x the signed distance from it; b = u(0+) - u(0-).  No StarPU here.
 */
#ifndef SQ_SAVAGE_PRESCOTT_H
#define SQ_SAVAGE_PRESCOTT_H

/** The model.  Lengths in one unit (m), times in one unit (s or years), b in a length unit. */
typedef struct {
  double H;   /**< elastic layer thickness (> 0) */
  double D;   /**< locking depth: the fault slips from 0 to D, 0 < D <= H */
  double b;   /**< coseismic slip */
  double tau; /**< relaxation time 2 eta / mu (> 0) */
} sq_savage_prescott;

/** tau = 2 eta / mu. */
static inline double sq_savage_prescott_tau(double eta, double mu) { return 2 * eta / mu; }

/**
 * @brief u(x, t) and v(x, t) (either pointer may be NULL) at distance x from the fault, time t >= 0 after the
 * earthquake (t = INFINITY: the relaxed limit, v = 0), the series truncated once its remainder is provably
 * below tol |b| for u and tol |b| / tau for v (tol > 0, e.g. 1e-10).  Returns the number of terms summed, -1
 * for invalid parameters (x = 0 gives u = 0 as the average of the two sides), -2 when more than 10^7 terms
 * would be needed (u, v set to the partial sums).
 */
int sq_savage_prescott_eval(const sq_savage_prescott *m, double x, double t, double tol, double *u, double *v);

#endif
