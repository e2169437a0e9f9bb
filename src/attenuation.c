/** @file attenuation.c  The constant-Q fit of a generalised Maxwell body and its moduli (sq_attenuation.h). */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "sq_attenuation.h"

int sq_atten_band_init(int n, double fc, double ratio, sq_atten_band *band) {
  if (n < 1 || n > SQ_MECH_MAX)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "attenuation: %d mechanisms (choose 1 to %d)", n, SQ_MECH_MAX);
  if (!(fc > 0) || !isfinite(fc))
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "attenuation: central frequency %g must be positive", fc);
  if (!(ratio >= 1) || !isfinite(ratio))
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "attenuation: frequency ratio %g must be at least 1", ratio);
  memset(band, 0, sizeof(*band));
  band->n = n;
  band->fc = fc;
  band->ratio = ratio;
  const double w0 = 2 * M_PI * fc / sqrt(ratio);
  for (int l = 0; l < n; ++l) band->omega[l] = n == 1 ? 2 * M_PI * fc : w0 * pow(ratio, (double)l / (n - 1));
  return SQ_SUCCESS;
}

int sq_atten_fit(const sq_atten_band *band, double q, double y[SQ_MECH_MAX]) {
  for (int l = 0; l < SQ_MECH_MAX; ++l) y[l] = 0;
  if (!(q > 0)) return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "attenuation: quality factor %g must be positive", q);
  if (isinf(q)) return SQ_SUCCESS;
  /* Q^-1(w_k) = q^-1, i.e. sum_l Y_l (w_l w_k + w_l^2 / q) / (w_l^2 + w_k^2) = 1 / q, at FIT_PER_MECH n + 1
   * frequencies w_k log-spaced over the band (edges included), solved in the least-squares sense (normal
   * equations of an n x n system).  SeisSol solves this at 2n - 1 frequencies; that fit's Q deviates by up to
   * 5.7% at the edges of a ratio-100 band for Q = 10.  Here Lawson's iteration then reweights the
   * frequencies by their relative Q deviation, which moves the fit towards the smallest largest deviation
   * (4.6% there). */
  enum { FIT_PER_MECH = 8, LAWSON_ITERATIONS = 20 };
  const int n = band->n, nk = FIT_PER_MECH * n + 1;
  const double w0 = 2 * M_PI * band->fc / sqrt(band->ratio), qi = 1 / q;
  double rows[(FIT_PER_MECH * SQ_MECH_MAX + 1) * SQ_MECH_MAX], wk[FIT_PER_MECH * SQ_MECH_MAX + 1],
      weight[FIT_PER_MECH * SQ_MECH_MAX + 1];
  for (int k = 0; k < nk; ++k) {
    wk[k] = w0 * pow(band->ratio, (double)k / (nk - 1));
    weight[k] = 1.0 / nk;
    for (int l = 0; l < n; ++l) {
      const double wl = band->omega[l];
      rows[k * n + l] = (wl * wk[k] + wl * wl * qi) / (wl * wl + wk[k] * wk[k]);
    }
  }
  for (int it = 0; it <= LAWSON_ITERATIONS; ++it) {
    double ata[SQ_MECH_MAX * SQ_MECH_MAX] = {0}, atb[SQ_MECH_MAX] = {0};
    for (int k = 0; k < nk; ++k)
      for (int i = 0; i < n; ++i) {
        atb[i] += weight[k] * rows[k * n + i] * qi;
        for (int j = 0; j < n; ++j) ata[i * n + j] += weight[k] * rows[k * n + i] * rows[k * n + j];
      }
    int rc = sq_solve_dense(n, ata, atb);
    if (rc != SQ_SUCCESS)
      return sq_error(rc, __FILE__, __LINE__, "attenuation: the constant-Q fit for Q = %g is singular", q);
    for (int l = 0; l < n; ++l) y[l] = atb[l];
    double sum = 0;
    for (int k = 0; k < nk; ++k) {
      weight[k] *= fabs(sq_atten_q(band, y, wk[k]) * qi - 1) + 1e-15;
      sum += weight[k];
    }
    for (int k = 0; k < nk; ++k) weight[k] /= sum;
  }
  return SQ_SUCCESS;
}

double complex sq_atten_relax(const sq_atten_band *band, const double y[SQ_MECH_MAX], double complex s) {
  double complex r = 1;
  for (int l = 0; l < band->n; ++l) r -= y[l] * band->omega[l] / (band->omega[l] + s);
  return r;
}

double sq_atten_q(const sq_atten_band *band, const double y[SQ_MECH_MAX], double w) {
  const double complex r = sq_atten_relax(band, y, I * w);
  return creal(r) / cimag(r);
}

/* M_u / M_c: the unrelaxed modulus whose phase velocity at the central frequency is that of M_c */
static double unrelaxed_factor(const sq_atten_band *band, const double y[SQ_MECH_MAX]) {
  const double complex r = sq_atten_relax(band, y, I * 2 * M_PI * band->fc);
  const double a = cabs(r);
  return (a + creal(r)) / (2 * a * a);
}

int sq_visco_init(const sq_atten_band *band, const sq_material *central, double qp, double qs, sq_visco *v,
                  sq_material *unrelaxed) {
  memset(v, 0, sizeof(*v));
  SQ_CALL(sq_atten_fit(band, qp, v->yp));
  SQ_CALL(sq_atten_fit(band, qs, v->ys));
  const double mp = (central->lambda + 2 * central->mu) * unrelaxed_factor(band, v->yp);
  v->mu_u = central->mu * unrelaxed_factor(band, v->ys);
  v->lambda_u = mp - 2 * v->mu_u;
  if (!(v->mu_u > 0) || !(3 * v->lambda_u + 2 * v->mu_u > 0))
    return sq_error(
        SQ_ERR_INPUT, __FILE__, __LINE__,
        "attenuation: Qp = %g, Qs = %g give unrelaxed moduli lambda = %g, mu = %g, which are not admissible "
        "(need mu > 0 and 3 lambda + 2 mu > 0)",
        qp, qs, v->lambda_u, v->mu_u);
  *unrelaxed = (sq_material){.rho = central->rho, .lambda = v->lambda_u, .mu = v->mu_u};
  return SQ_SUCCESS;
}

int sq_visco_init_unrelaxed(const sq_atten_band *band, const sq_material *unrelaxed, double qp, double qs,
                            sq_visco *v) {
  memset(v, 0, sizeof(*v));
  SQ_CALL(sq_atten_fit(band, qp, v->yp));
  SQ_CALL(sq_atten_fit(band, qs, v->ys));
  v->lambda_u = unrelaxed->lambda;
  v->mu_u = unrelaxed->mu;
  return SQ_SUCCESS;
}

void sq_visco_moduli(const sq_atten_band *band, const sq_visco *v, double complex s, double complex *lambda,
                     double complex *mu) {
  const double complex mp = (v->lambda_u + 2 * v->mu_u) * sq_atten_relax(band, v->yp, s);
  *mu = v->mu_u * sq_atten_relax(band, v->ys, s);
  *lambda = mp - 2 * *mu;
}

void sq_visco_coefficients(const sq_atten_band *band, const sq_visco *v, double coef[SQ_ANE_NCOEF]) {
  for (int i = 0; i < SQ_ANE_NCOEF; ++i) coef[i] = 0;
  const double mp = v->lambda_u + 2 * v->mu_u;
  for (int l = 0; l < band->n; ++l) {
    const double w = band->omega[l];
    coef[SQ_ANE_W + l] = w;
    coef[SQ_ANE_A + l] = w * (mp * v->yp[l] - 2 * v->mu_u * v->ys[l]); /* w_l lambda_u Y^lambda_l */
    coef[SQ_ANE_B + l] = 2 * w * v->mu_u * v->ys[l];
  }
  coef[SQ_ANE_C1] = 1 / (2 * v->mu_u);
  coef[SQ_ANE_C2] = v->lambda_u / (2 * v->mu_u * (3 * v->lambda_u + 2 * v->mu_u));
}
