/**
 * @file fullspace.c  Closed-form wavefield of a point source in a homogeneous, unbounded elastic
 * medium (Aki & Richards 2002, eq. 4.23 for a single force, eq. 4.29 for a moment tensor), with the
 * near-field integral evaluated by composite Gauss-Legendre quadrature; and its viscoelastic counterpart (the
 * same solution in the frequency domain with complex velocities, transformed back with FFTW).  Used to verify
 * the source discretisation (docs/VERIFICATION.md, docs/ATTENUATION.md).
 */
#include <complex.h>
#include <fftw3.h>
#include <math.h>

#include "sq_attenuation.h"
#include "sq_source.h"

static const double sq_pi = 3.14159265358979323846;

/*
 * The time function at derivative level L.  A moment source's displacement follows the moment
 * M(t) = cumulative of the rate s; a force's follows the force history s itself.
 */
static double level(const sq_point_source *src, int L, double t) {
  if (src->kind == SQ_SOURCE_MOMENT) L -= 1;
  if (L < 0) return sq_stf_cumulative(&src->stf, t);
  if (L == 0) return sq_stf_rate(&src->stf, t);
  return sq_stf_derivative(&src->stf, t);
}

/* int_a^b tau f_L(t - tau) dtau */
static double near_integral(const sq_point_source *src, int L, double t, double a, double b) {
  static const double g[4][2] = {{-0.86113631159405258, 0.34785484513745386},
                                 {-0.33998104358485626, 0.65214515486254614},
                                 {0.33998104358485626, 0.65214515486254614},
                                 {0.86113631159405258, 0.34785484513745386}};
  const int nsub = 512;
  const double h = (b - a) / nsub;
  double sum = 0.0;
  for (int s = 0; s < nsub; ++s)
    for (int q = 0; q < 4; ++q) {
      const double tau = a + h * (s + 0.5 * (1.0 + g[q][0]));
      sum += 0.5 * h * g[q][1] * tau * level(src, L, t - tau);
    }
  return sum;
}

/* The radiation patterns of a moment tensor M for component n in direction g (Aki & Richards eq. 4.29): near
 * field AN, intermediate P and S AIP, AIS, far P and S AFP, AFS. */
static void radiation(const double g[3], const double M[3][3], int n, double *AN, double *AIP, double *AIS, double *AFP,
                      double *AFS) {
  *AN = *AIP = *AIS = *AFP = *AFS = 0;
  for (int p = 0; p < 3; ++p)
    for (int q = 0; q < 3; ++q) {
      const double dpq = p == q, dnq = n == q, dnp = n == p, ggg = g[n] * g[p] * g[q];
      *AN += (15.0 * ggg - 3.0 * g[n] * dpq - 3.0 * g[p] * dnq - 3.0 * g[q] * dnp) * M[p][q];
      *AIP += (6.0 * ggg - g[n] * dpq - g[p] * dnq - g[q] * dnp) * M[p][q];
      *AIS -= (6.0 * ggg - g[n] * dpq - g[p] * dnq - 2.0 * g[q] * dnp) * M[p][q];
      *AFP += ggg * M[p][q];
      *AFS -= (g[n] * g[p] - dnp) * g[q] * M[p][q];
    }
}

static void fullspace(const sq_point_source *src, const sq_material *mat, const double x[3], double t, int L,
                      double out[3]) {
  const double alpha = sq_material_vp(mat), beta = sq_material_vs(mat), rho = mat->rho;
  double dx[3], r = 0.0, g[3];
  for (int d = 0; d < 3; ++d) {
    dx[d] = x[d] - src->x[d];
    r += dx[d] * dx[d];
  }
  r = sqrt(r);
  for (int d = 0; d < 3; ++d) g[d] = dx[d] / r;
  const double ta = t - r / alpha, tb = t - r / beta;
  const double near = near_integral(src, L, t, r / alpha, r / beta);
  const double c = 1.0 / (4.0 * sq_pi * rho);
  if (src->kind == SQ_SOURCE_FORCE) {
    const double fa = level(src, L, ta), fb = level(src, L, tb);
    for (int i = 0; i < 3; ++i) {
      double u = 0.0;
      for (int j = 0; j < 3; ++j) {
        const double dij = i == j, F = src->force[j];
        u += (3.0 * g[i] * g[j] - dij) * F / (r * r * r) * near;
        u += g[i] * g[j] * F / (alpha * alpha * r) * fa;
        u -= (g[i] * g[j] - dij) * F / (beta * beta * r) * fb;
      }
      out[i] = c * u;
    }
    return;
  }
  const double *mv = src->moment;
  const double M[3][3] = {{mv[0], mv[3], mv[5]}, {mv[3], mv[1], mv[4]}, {mv[5], mv[4], mv[2]}};
  const double fa = level(src, L, ta), fb = level(src, L, tb);
  const double da = level(src, L + 1, ta), db = level(src, L + 1, tb);
  for (int n = 0; n < 3; ++n) {
    double AN, AIP, AIS, AFP, AFS;
    radiation(g, M, n, &AN, &AIP, &AIS, &AFP, &AFS);
    out[n] = c * (AN / (r * r * r * r) * near + AIP / (alpha * alpha * r * r) * fa + AIS / (beta * beta * r * r) * fb +
                  AFP / (alpha * alpha * alpha * r) * da + AFS / (beta * beta * beta * r) * db);
  }
}

void sq_fullspace_displacement(const sq_point_source *src, const sq_material *mat, const double x[3], double t,
                               double u[3]) {
  fullspace(src, mat, x, t, 0, u);
}

void sq_fullspace_velocity(const sq_point_source *src, const sq_material *mat, const double x[3], double t,
                           double v[3]) {
  fullspace(src, mat, x, t, 1, v);
}

/* ---------------------------------------------------------------------------------------------- */
/* Viscoelastic full space                                                                        */
/* ---------------------------------------------------------------------------------------------- */

/* The frequency-domain response (time dependence e^{iwt}) of the velocity at x to the spectrum 1 of the base
 * time function: the elastic solution above is analytic in the velocities, so the viscoelastic one is the same
 * expression with the complex velocities alpha(w), beta(w) of the relaxed moduli at s = iw (correspondence
 * principle).  Each delayed term f(t - r/c) becomes e^{-iwr/c}, and the near-field integral
 * int_{r/alpha}^{r/beta} tau f(t - tau) dtau becomes J = [e^{-iw tau} (1 + iw tau) / w^2] between its ends. */
static void visco_response(const sq_point_source *src, double rho, const sq_atten_band *band, const sq_visco *v,
                           const double x[3], double w, double complex out[3]) {
  double complex lam, mu;
  sq_visco_moduli(band, v, I * w, &lam, &mu);
  const double complex alpha = csqrt((lam + 2.0 * mu) / rho), beta = csqrt(mu / rho);
  double dx[3], r = 0.0, g[3];
  for (int d = 0; d < 3; ++d) {
    dx[d] = x[d] - src->x[d];
    r += dx[d] * dx[d];
  }
  r = sqrt(r);
  for (int d = 0; d < 3; ++d) g[d] = dx[d] / r;
  const double complex ta = r / alpha, tb = r / beta;
  const double complex ea = cexp(-I * w * ta), eb = cexp(-I * w * tb);
  const double complex near =
      w == 0.0 ? 0.5 * (tb * tb - ta * ta) : (eb * (1.0 + I * w * tb) - ea * (1.0 + I * w * ta)) / (w * w);
  const double c = 1.0 / (4.0 * sq_pi * rho);
  if (src->kind == SQ_SOURCE_FORCE) {
    for (int i = 0; i < 3; ++i) {
      double complex u = 0.0;
      for (int j = 0; j < 3; ++j) {
        const double dij = i == j, F = src->force[j];
        u += (3.0 * g[i] * g[j] - dij) * F / (r * r * r) * near;
        u += g[i] * g[j] * F / (alpha * alpha * r) * ea;
        u -= (g[i] * g[j] - dij) * F / (beta * beta * r) * eb;
      }
      out[i] = c * u * (I * w); /* the force history s is the displacement's time function */
    }
    return;
  }
  const double *mv = src->moment;
  const double M[3][3] = {{mv[0], mv[3], mv[5]}, {mv[3], mv[1], mv[4]}, {mv[5], mv[4], mv[2]}};
  for (int n = 0; n < 3; ++n) {
    double AN, AIP, AIS, AFP, AFS;
    radiation(g, M, n, &AN, &AIP, &AIS, &AFP, &AFS);
    /* the moment rate s is the velocity's time function; the far field carries its derivative (iw) */
    out[n] = c * (AN / (r * r * r * r) * near + AIP / (alpha * alpha * r * r) * ea + AIS / (beta * beta * r * r) * eb +
                  AFP / (alpha * alpha * alpha * r) * (I * w) * ea + AFS / (beta * beta * beta * r) * (I * w) * eb);
  }
}

int sq_fullspace_velocity_visco(const sq_point_source *src, double rho, const sq_atten_band *band, const sq_visco *v,
                                const double x[3], double dt, int nt, double *vel) {
  SQ_CHECK(nt > 0 && dt > 0, SQ_ERR_INPUT, "viscoelastic full space: %d samples of step %g", nt, dt);
  /* a period 16 times the record (at least 8192 samples): the signal and its causal tails end well within it */
  int N = 8192;
  while (N < 16 * nt) N *= 2;
  const int nf = N / 2 + 1;
  double *s = fftw_alloc_real((size_t)N), *out = fftw_alloc_real((size_t)N);
  fftw_complex *S = fftw_alloc_complex((size_t)nf), *V = fftw_alloc_complex((size_t)nf);
  if (!s || !out || !S || !V) {
    fftw_free(s), fftw_free(out), fftw_free(S), fftw_free(V);
    return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "viscoelastic full space: out of memory (%d samples)", N);
  }
  fftw_plan fwd = fftw_plan_dft_r2c_1d(N, s, S, FFTW_ESTIMATE);
  fftw_plan inv = fftw_plan_dft_c2r_1d(N, V, out, FFTW_ESTIMATE);
  /* the period [-N dt / 2, N dt / 2): a time function with a tail before t = 0 (a Gaussian) is not cut */
  for (int j = 0; j < N; ++j) s[j] = sq_stf_rate(&src->stf, (j - N / 2) * dt);
  fftw_execute(fwd);
  for (int d = 0; d < 3; ++d) {
    for (int k = 0; k < nf; ++k) {
      double complex h[3] = {0, 0, 0};
      if (k < N / 2) visco_response(src, rho, band, v, x, 2.0 * sq_pi * k / (N * dt), h); /* Nyquist bin: 0 */
      V[k] = h[d] * S[k] / N; /* complex.h before fftw3.h: fftw_complex is double complex */
    }
    fftw_execute(inv);
    for (int j = 0; j < nt; ++j) vel[3 * j + d] = out[j + N / 2];
  }
  fftw_destroy_plan(fwd);
  fftw_destroy_plan(inv);
  fftw_free(s), fftw_free(out), fftw_free(S), fftw_free(V);
  return SQ_SUCCESS;
}
