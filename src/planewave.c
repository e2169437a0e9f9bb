/** @file planewave.c  Analytic plane waves and Gaussian packets in a homogeneous elastic or viscoelastic medium. */
#include <complex.h>
#include <math.h>

#include "sq_solver.h"

void sq_planewave_init(sq_planewave *pw, const sq_material *m, const double k[3], int gaussian, double center,
                       double width, int nmode, const sq_wave_kind *kind, const int *direction,
                       const double *amplitude) {
  for (int d = 0; d < 3; ++d) pw->k[d] = k[d];
  pw->gaussian = gaussian;
  pw->center = center;
  pw->width = width;
  pw->nmode = nmode > 8 ? 8 : nmode;
  pw->nmech = 0;
  for (int i = 0; i < pw->nmode; ++i) {
    sq_plane_wave_eigenvector(m, k, kind[i], direction[i], pw->r[i], &pw->speed[i]);
    for (int p = 0; p < 9; ++p) pw->r[i][p] *= amplitude[i];
  }
}

void sq_planewave_eval(const void *ctx, const double x[3], double t, double q[9]) {
  const sq_planewave *pw = ctx;
  const double kn = sqrt(pw->k[0] * pw->k[0] + pw->k[1] * pw->k[1] + pw->k[2] * pw->k[2]);
  const double s0 = (pw->k[0] * x[0] + pw->k[1] * x[1] + pw->k[2] * x[2]) / kn;
  for (int p = 0; p < 9; ++p) q[p] = 0.0;
  if (pw->nmech) {
    for (int i = 0; i < pw->nmode; ++i) {
      const double complex f = cexp(I * kn * s0 + pw->s[i] * t);
      for (int p = 0; p < 9; ++p) q[p] += cimag(pw->rc[i][p] * f);
    }
    return;
  }
  for (int i = 0; i < pw->nmode; ++i) {
    const double s = s0 - pw->speed[i] * t;
    const double f = pw->gaussian ? exp(-(s - pw->center) * (s - pw->center) / (pw->width * pw->width)) : sin(kn * s);
    for (int p = 0; p < 9; ++p) q[p] += pw->r[i][p] * f;
  }
}

void sq_planewave_eval_ane(const void *ctx, const double x[3], double t, double *phi) {
  const sq_planewave *pw = ctx;
  const double kn = sqrt(pw->k[0] * pw->k[0] + pw->k[1] * pw->k[1] + pw->k[2] * pw->k[2]);
  const double s0 = (pw->k[0] * x[0] + pw->k[1] * x[1] + pw->k[2] * x[2]) / kn;
  for (int p = 0; p < 6 * pw->nmech; ++p) phi[p] = 0.0;
  for (int i = 0; i < pw->nmode && pw->nmech; ++i) {
    const double complex f = cexp(I * kn * s0 + pw->s[i] * t);
    for (int p = 0; p < 6 * pw->nmech; ++p) phi[p] += cimag(pw->phi[i][p] * f);
  }
}

/* the symmetric tensor sym(a (x) b) in stress order xx yy zz xy yz xz */
static void sym_outer(const double a[3], const double b[3], double out[6]) {
  out[0] = a[0] * b[0], out[1] = a[1] * b[1], out[2] = a[2] * b[2];
  out[3] = 0.5 * (a[0] * b[1] + a[1] * b[0]);
  out[4] = 0.5 * (a[1] * b[2] + a[2] * b[1]);
  out[5] = 0.5 * (a[0] * b[2] + a[2] * b[0]);
}

int sq_planewave_attenuate(sq_planewave *pw, const sq_atten_band *band, const sq_visco *v, double rho) {
  SQ_CHECK(!pw->gaussian, SQ_ERR_INPUT, "attenuation: the viscoelastic plane wave is a sine (no Gaussian packets)");
  const double kn = sqrt(pw->k[0] * pw->k[0] + pw->k[1] * pw->k[1] + pw->k[2] * pw->k[2]);
  const double khat[3] = {pw->k[0] / kn, pw->k[1] / kn, pw->k[2] / kn};
  const double c1 = 1 / (2 * v->mu_u), c2 = v->lambda_u / (2 * v->mu_u * (3 * v->lambda_u + 2 * v->mu_u));
  for (int i = 0; i < pw->nmode; ++i) {
    /* velocity amplitude alpha along the unit polarisation d (the elastic mode's velocity part) */
    const double *rv = &pw->r[i][6];
    const double alpha = sqrt(rv[0] * rv[0] + rv[1] * rv[1] + rv[2] * rv[2]);
    SQ_CHECK(alpha > 0, SQ_ERR_INPUT, "attenuation: plane-wave mode %d has no velocity", i);
    const double d[3] = {rv[0] / alpha, rv[1] / alpha, rv[2] / alpha};
    const int pwave = fabs(d[0] * khat[0] + d[1] * khat[1] + d[2] * khat[2]) > 0.5;
    const double *y = pwave ? v->yp : v->ys, mu = pwave ? v->lambda_u + 2 * v->mu_u : v->mu_u;
    /* rho s^2 + |k|^2 M_u R(s) = 0, R(s) = 1 - sum_l Y_l w_l / (w_l + s), from the elastic root */
    double complex s = -I * kn * pw->speed[i];
    int it = 0;
    for (; it < 100; ++it) {
      double complex r = 1, dr = 0;
      for (int l = 0; l < band->n; ++l) {
        r -= y[l] * band->omega[l] / (band->omega[l] + s);
        dr += y[l] * band->omega[l] / ((band->omega[l] + s) * (band->omega[l] + s));
      }
      const double complex f = rho * s * s + kn * kn * mu * r, df = 2 * rho * s + kn * kn * mu * dr;
      const double complex ds = f / df;
      s -= ds;
      if (cabs(ds) <= 1e-15 * cabs(s)) break;
    }
    SQ_CHECK(it < 100, SQ_ERR_NUMERIC, "attenuation: the dispersion relation of plane-wave mode %d did not converge",
             i);
    pw->s[i] = s;
    double complex lam, muc;
    sq_visco_moduli(band, v, s, &lam, &muc);
    double e6[6];
    sym_outer(khat, d, e6);
    const double complex scale = I * kn * alpha / s; /* strain = scale sym(khat (x) d) */
    const double complex tr = scale * (e6[0] + e6[1] + e6[2]);
    double complex sig[6], trs = 0;
    for (int p = 0; p < 6; ++p) sig[p] = 2 * muc * scale * e6[p] + (p < 3 ? lam * tr : 0);
    for (int p = 0; p < 3; ++p) trs += sig[p];
    for (int p = 0; p < 6; ++p) pw->rc[i][p] = sig[p];
    for (int p = 0; p < 3; ++p) pw->rc[i][6 + p] = alpha * d[p];
    for (int l = 0; l < band->n; ++l)
      for (int p = 0; p < 6; ++p) /* theta_l = s strain / (s + w_l), phi_l = theta_l - C_u^-1 sigma */
        pw->phi[i][6 * l + p] = s * scale * e6[p] / (s + band->omega[l]) - (c1 * sig[p] - (p < 3 ? c2 * trs : 0));
  }
  pw->nmech = band->n;
  return SQ_SUCCESS;
}
