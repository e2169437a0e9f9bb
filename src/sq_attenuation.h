/**
 * @file sq_attenuation.h  Viscoelastic attenuation: a generalised Maxwell body of n standard linear
 * solids (relaxation mechanisms) whose anelastic coefficients are fitted so that the quality factor Q is
 * nearly constant over a frequency band (Emmerich & Korn 1987; Kaeser, Dumbser, de la Puente & Igel 2007;
 * the band and the fit as SeisSol's FreqCentral and FreqRatio).
 *
 * Conventions (time dependence e^{i w t}):
 * - a modulus M relaxes as  M(w) = M_u (1 - sum_l Y_l w_l / (w_l + i w)),  M_u the unrelaxed modulus;
 *   Q(w) = Re M / Im M;
 * - the relaxation frequencies w_l are log-spaced over [2 pi fc / sqrt(ratio), 2 pi fc sqrt(ratio)];
 * - the configured moduli (lambda, mu, or the wave speeds) are those at the central frequency fc: the
 *   phase velocity at 2 pi fc is sqrt(M_c / rho), which gives M_u = M_c (R + psi1) / (2 R^2) with
 *   M(2 pi fc) / M_u = psi1 + i psi2 and R = |psi1 + i psi2| (as SeisSol);
 * - the P modulus lambda + 2 mu relaxes with Qp, mu with Qs; lambda's coefficients follow.
 */
#ifndef SQ_ATTENUATION_H
#define SQ_ATTENUATION_H

#include "sq_physics.h"

/** Largest number of mechanisms. */
#define SQ_MECH_MAX 5

/** The frequency band and the mechanisms' relaxation frequencies (one per run). */
typedef struct sq_atten_band {
  int n;                     /**< mechanisms, 1..SQ_MECH_MAX */
  double fc, ratio;          /**< central frequency (Hz) and band ratio f_max / f_min (>= 1) */
  double omega[SQ_MECH_MAX]; /**< relaxation angular frequencies w_l (rad/s) */
} sq_atten_band;

/** The viscoelastic description of one material. */
typedef struct sq_visco {
  double lambda_u, mu_u;                   /**< unrelaxed Lame parameters */
  double yp[SQ_MECH_MAX], ys[SQ_MECH_MAX]; /**< anelastic coefficients of lambda + 2 mu and of mu */
} sq_visco;

/** @brief The band of @p n mechanisms around @p fc (Hz) with ratio @p ratio; SQ_ERR_INPUT if out of range. */
int sq_atten_band_init(int n, double fc, double ratio, sq_atten_band *band);

/**
 * @brief Least-squares fit of the anelastic coefficients for a constant @p q over the band: Q^-1(w) = q^-1 at
 * 2n - 1 log-spaced frequencies of the band.  Q = infinity gives Y = 0.  SQ_ERR_INPUT if q <= 0.
 */
int sq_atten_fit(const sq_atten_band *band, double q, double y[SQ_MECH_MAX]);

/** @brief M(s) / M_u at the Laplace variable s (s = i w for a frequency w): 1 - sum_l Y_l w_l / (w_l + s). */
double _Complex sq_atten_relax(const sq_atten_band *band, const double y[SQ_MECH_MAX], double _Complex s);

/** @brief The quality factor Re M / Im M of the fitted body at angular frequency @p w. */
double sq_atten_q(const sq_atten_band *band, const double y[SQ_MECH_MAX], double w);

/**
 * @brief The viscoelastic material with quality factors @p qp, @p qs whose moduli at the central frequency
 * are those of @p central; @p unrelaxed gets the unrelaxed Lame parameters (the ones of the elastic
 * Jacobians).  SQ_ERR_INPUT if a Q is not positive or the unrelaxed material is not admissible.
 */
int sq_visco_init(const sq_atten_band *band, const sq_material *central, double qp, double qs, sq_visco *v,
                  sq_material *unrelaxed);

/**
 * @brief The viscoelastic material with quality factors @p qp, @p qs whose unrelaxed moduli are those of
 * @p unrelaxed (the result of sq_visco_init: the same fit, the same coefficients).
 */
int sq_visco_init_unrelaxed(const sq_atten_band *band, const sq_material *unrelaxed, double qp, double qs, sq_visco *v);

/** @brief The complex Lame parameters lambda(s), mu(s) of @p v at the Laplace variable s. */
void sq_visco_moduli(const sq_atten_band *band, const sq_visco *v, double _Complex s, double _Complex *lambda,
                     double _Complex *mu);

/**
 * Per-element coefficients of the anelastic kernels (SQ_ANE_NCOEF reals): the relaxation frequencies w_l,
 * a_l = w_l lambda_u Y^lambda_l, b_l = 2 w_l mu_u Y^mu_l, and the compliance c1 = 1 / (2 mu_u),
 * c2 = lambda_u / (2 mu_u (3 lambda_u + 2 mu_u)).  The stress source of mechanism l is
 * -(a_l tr(theta_l) I + b_l theta_l), and the strain of a stress sigma is c1 sigma - c2 tr(sigma) I.
 */
#define SQ_ANE_NCOEF 18
#define SQ_ANE_W     0
#define SQ_ANE_A     5
#define SQ_ANE_B     10
#define SQ_ANE_C1    15
#define SQ_ANE_C2    16

/** @brief Fill the SQ_ANE_NCOEF kernel coefficients of @p v (unused mechanisms get zeros). */
void sq_visco_coefficients(const sq_atten_band *band, const sq_visco *v, double coef[SQ_ANE_NCOEF]);

#endif
