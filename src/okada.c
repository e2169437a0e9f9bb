/**
 * @file okada.c  Okada (1992), "Internal deformation due to shear and tensile faults in a half-space"
 * (Bull. Seismol. Soc. Am. 82): the displacement of a finite rectangular dislocation at any point of a
 * homogeneous half-space, written from the paper's Table 6 (the terms u^A, u^B, u^C) and its combination
 *   u = u^A(xi, eta, z) - u^A_hat(xi, eta, -z) + u^B(xi, eta, z) + z u^C(xi, eta, z),
 * summed over the four corners of the rectangle (Chinnery's notation).  The surface values of
 * Okada (1985), Table 2, check it (tests/unit/test_okada.c).
 */
#include "sq_okada.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

/* The dip below which cos(dip) is taken as exactly 0 (vertical fault), as in the paper's remark on
   the separate formulas for cos(delta) = 0. */
#define COS_VERTICAL 1e-6

/* ln(R + a) for R = sqrt(a^2 + b2), without cancellation for a < 0: R + a = b2 / (R - a).  On the line
   b2 = 0, a < 0 the singular part ln(b2) is the same at the two corners that share the line and cancels
   in the corner sum; it is dropped there, as the paper prescribes (ln(R + a) -> -ln(R - a)). */
static double log_r_plus(double r, double a, double b2) {
  if (a >= 0) return log(r + a);
  if (b2 <= 0) return -log(r - a);
  return log(b2) - log(r - a);
}

/* 1 / (R (R + a)) with the same care; 0 on the singular line (its terms cancel in the corner sum). */
static double inv_r_r_plus(double r, double a, double b2) {
  if (a >= 0) return 1 / (r * (r + a));
  if (b2 <= 0) return 0;
  return (r - a) / (r * b2);
}

/* The three components (in Okada's frame, before the dip rotation) of the terms for one corner: a = u^A, and
   with @p image also bp = u^B + z u^C and bm = u^B - z u^C (the y and z components take z u^C with opposite
   signs).  Without @p image (the real source's full-space term, evaluated at -z) only a is filled. */
typedef struct {
  double a[3], bp[3], bm[3];
} corner_terms;

static void corner(double alpha, double xi, double eta, double q, double z, double sd, double cd, const double disl[3],
                   int image, corner_terms *t) {
  const double xi2 = xi * xi, eta2 = eta * eta, q2 = q * q;
  const double r2 = xi2 + eta2 + q2, r = sqrt(r2), r3 = r * r2;
  const double ytil = eta * cd + q * sd, dtil = eta * sd - q * cd, ctil = dtil + z;
  const double x11 = inv_r_r_plus(r, xi, eta2 + q2), y11 = inv_r_r_plus(r, eta, xi2 + q2);
  /* X32 = (2R + xi) / (R^3 (R + xi)^2) = X11^2 (2R + xi) / R, likewise Y32 */
  const double x32 = x11 * x11 * (2 * r + xi) / r, y32 = y11 * y11 * (2 * r + eta) / r;
  const double h = q * cd - z, z32 = sd / r3 - h * y32;
  const double theta = q == 0 ? 0 : atan(xi * eta / (q * r));
  const double ln_re = log_r_plus(r, eta, xi2 + q2), ln_rx = log_r_plus(r, xi, eta2 + q2);
  const double a1 = (1 - alpha) / 2, a2 = alpha / 2;
  double ua[3] = {0, 0, 0};
  /* u^A */
  if (disl[0] != 0) {
    ua[0] += disl[0] * (theta / 2 + a2 * xi * q * y11);
    ua[1] += disl[0] * (a2 * q / r);
    ua[2] += disl[0] * (a1 * ln_re - a2 * q2 * y11);
  }
  if (disl[1] != 0) {
    ua[0] += disl[1] * (a2 * q / r);
    ua[1] += disl[1] * (theta / 2 + a2 * eta * q * x11);
    ua[2] += disl[1] * (a1 * ln_rx - a2 * q2 * x11);
  }
  if (disl[2] != 0) {
    ua[0] += disl[2] * (-a1 * ln_re - a2 * q2 * y11);
    ua[1] += disl[2] * (-a1 * ln_rx - a2 * q2 * x11);
    ua[2] += disl[2] * (theta / 2 - a2 * q * (eta * x11 + xi * y11));
  }
  memcpy(t->a, ua, sizeof ua);
  if (!image) return;
  /* u^B: the I integrals (with their separate forms for a vertical fault) */
  const double rd = r + dtil;
  double i3, i4;
  if (cd == 0) {
    i3 = 0.5 * (eta / rd + ytil * q / (rd * rd) - ln_re);
    i4 = 0.5 * xi * ytil / (rd * rd);
  } else {
    const double xx = sqrt(xi2 + q2);
    i3 = ytil / (cd * rd) - (ln_re - sd * log(rd)) / (cd * cd);
    i4 = xi == 0 ? 0
                 : sd / cd * xi / rd +
                       2 / (cd * cd) * atan((eta * (xx + q * cd) + xx * (r + xx) * sd) / (xi * (r + xx) * cd));
  }
  const double i1 = -xi / rd * cd - i4 * sd, i2 = log(rd) + i3 * sd;
  const double ab = (1 - alpha) / alpha;
  double ub[3] = {0, 0, 0}, uc[3] = {0, 0, 0};
  if (disl[0] != 0) {
    ub[0] += disl[0] * (-xi * q * y11 - theta - ab * i1 * sd);
    ub[1] += disl[0] * (-q / r + ab * ytil / rd * sd);
    ub[2] += disl[0] * (q2 * y11 - ab * i2 * sd);
    uc[0] += disl[0] * ((1 - alpha) * xi * y11 * cd - alpha * xi * q * z32);
    uc[1] += disl[0] * ((1 - alpha) * (cd / r + 2 * q * y11 * sd) - alpha * ctil * q / r3);
    uc[2] += disl[0] * ((1 - alpha) * q * y11 * cd - alpha * (ctil * eta / r3 - z * y11 + xi2 * z32));
  }
  if (disl[1] != 0) {
    ub[0] += disl[1] * (-q / r + ab * i3 * sd * cd);
    ub[1] += disl[1] * (-eta * q * x11 - theta - ab * xi / rd * sd * cd);
    ub[2] += disl[1] * (q2 * x11 + ab * i4 * sd * cd);
    uc[0] += disl[1] * ((1 - alpha) * cd / r - q * y11 * sd - alpha * ctil * q / r3);
    uc[1] += disl[1] * ((1 - alpha) * ytil * x11 - alpha * ctil * eta * q * x32);
    uc[2] += disl[1] * (-dtil * x11 - xi * y11 * sd - alpha * ctil * (x11 - q2 * x32));
  }
  if (disl[2] != 0) {
    ub[0] += disl[2] * (q2 * y11 - ab * i3 * sd * sd);
    ub[1] += disl[2] * (q2 * x11 + ab * xi / rd * sd * sd);
    ub[2] += disl[2] * (q * (eta * x11 + xi * y11) - theta - ab * i4 * sd * sd);
    uc[0] += disl[2] * (-(1 - alpha) * (sd / r + q * y11 * cd) - alpha * (z * y11 - q2 * z32));
    uc[1] += disl[2] * ((1 - alpha) * 2 * xi * y11 * sd + dtil * x11 - alpha * ctil * (x11 - q2 * x32));
    uc[2] += disl[2] * ((1 - alpha) * (ytil * x11 + xi * y11 * cd) + alpha * q * (ctil * eta * x32 + xi * z32));
  }
  for (int i = 0; i < 3; ++i) t->bp[i] = ub[i] + z * uc[i], t->bm[i] = ub[i] - z * uc[i];
}

/* The dip's sine and cosine, cos snapped to 0 for a vertical fault. */
static void dip_sin_cos(double dip_deg, double *sd, double *cd) {
  const double d = dip_deg * PI / 180;
  *sd = sin(d), *cd = cos(d);
  if (fabs(*cd) < COS_VERTICAL) *cd = 0, *sd = *sd > 0 ? 1 : -1;
}

/* Is (xi, eta, q) on an edge of the rectangle (q = 0 and on one of its four sides)? */
static int on_edge(const double xi[2], const double et[2], double q, double scale) {
  const double tol = 1e-12 * scale;
  if (fabs(q) > tol) return 0;
  const int in_xi = xi[0] * xi[1] <= 0, in_et = et[0] * et[1] <= 0;
  const int at_xi = fabs(xi[0]) <= tol || fabs(xi[1]) <= tol, at_et = fabs(et[0]) <= tol || fabs(et[1]) <= tol;
  return (in_xi && at_et) || (in_et && at_xi);
}

/* DC3D without the z <= 0 check (the finite differences of the gradient step slightly above z = 0, where
   the closed form continues analytically). */
static int dc3d(double alpha, double x, double y, double z, double depth, double dip_deg, double al1, double al2,
                double aw1, double aw2, const double disl[3], double u[3]) {
  double sd, cd;
  dip_sin_cos(dip_deg, &sd, &cd);
  const double xi[2] = {x - al1, x - al2};
  const double scale = fabs(al2 - al1) + fabs(aw2 - aw1) + fabs(depth);
  double acc_p[3] = {0, 0, 0}, acc_m[3] = {0, 0, 0};
  u[0] = u[1] = u[2] = 0;
  /* the real source's full-space term, u^A at -z (d = depth + z), subtracted */
  for (int pass = 0; pass < 2; ++pass) {
    const double d = pass == 0 ? depth + z : depth - z;
    const double p = y * cd + d * sd, q = y * sd - d * cd;
    const double et[2] = {p - aw1, p - aw2};
    if (on_edge(xi, et, q, scale)) return -1;
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) {
        corner_terms t;
        corner(alpha, xi[j], et[k], q, z, sd, cd, disl, pass, &t);
        const double sgn = (j + k) % 2 == 0 ? 1 : -1;
        for (int i = 0; i < 3; ++i) {
          if (pass == 0) {
            acc_p[i] -= sgn * t.a[i], acc_m[i] -= sgn * t.a[i];
          } else {
            acc_p[i] += sgn * (t.a[i] + t.bp[i]), acc_m[i] += sgn * (t.a[i] + t.bm[i]);
          }
        }
      }
  }
  /* from the dip-rotated components to Okada's x, y, z (the z u^C term enters with opposite signs) */
  u[0] = acc_p[0] / (2 * PI);
  u[1] = (acc_p[1] * cd - acc_p[2] * sd) / (2 * PI);
  u[2] = (acc_m[1] * sd + acc_m[2] * cd) / (2 * PI);
  return 0;
}

int sq_okada_dc3d(double alpha, double x, double y, double z, double depth, double dip_deg, double al1, double al2,
                  double aw1, double aw2, double disl1, double disl2, double disl3, double u[3]) {
  const double disl[3] = {disl1, disl2, disl3};
  if (z > 0 || dc3d(alpha, x, y, z, depth, dip_deg, al1, al2, aw1, aw2, disl, u)) {
    u[0] = u[1] = u[2] = 0;
    return -1;
  }
  return 0;
}

/* Strike direction s and its left t = z x s in the global frame (strike clockwise from north). */
static void strike_frame(const sq_okada_fault *f, double s[2], double t[2]) {
  const double a = f->strike_deg * PI / 180;
  s[0] = sin(a), s[1] = cos(a);
  t[0] = -s[1], t[1] = s[0];
}

void sq_okada_slip_vector(const sq_okada_fault *f, double out[3]) {
  double s[2], t[2], sd, cd;
  strike_frame(f, s, t);
  dip_sin_cos(f->dip_deg, &sd, &cd);
  const double r = f->rake_deg * PI / 180, ss = f->slip * cos(r), ds = f->slip * sin(r);
  /* local: strike slip along x, dip slip up dip (0, cd, sd), opening along the normal (0, -sd, cd) */
  const double loc[3] = {ss, ds * cd - f->opening * sd, ds * sd + f->opening * cd};
  out[0] = loc[0] * s[0] + loc[1] * t[0];
  out[1] = loc[0] * s[1] + loc[1] * t[1];
  out[2] = loc[2];
}

void sq_okada_normal(const sq_okada_fault *f, double n[3]) {
  double s[2], t[2], sd, cd;
  strike_frame(f, s, t);
  dip_sin_cos(f->dip_deg, &sd, &cd);
  n[0] = -sd * t[0], n[1] = -sd * t[1], n[2] = cd;
}

/* Global point -> Okada's frame of f (origin above the top edge's centre), displacement back. */
static int fault_displacement(const sq_okada_fault *f, double alpha, const double x[3], double u[3]) {
  double s[2], t[2];
  strike_frame(f, s, t);
  const double dx = x[0] - f->x, dy = x[1] - f->y;
  const double xl = dx * s[0] + dy * s[1], yl = dx * t[0] + dy * t[1];
  const double r = f->rake_deg * PI / 180;
  const double disl[3] = {f->slip * cos(r), f->slip * sin(r), f->opening};
  double ul[3];
  if (dc3d(alpha, xl, yl, x[2], f->depth, f->dip_deg, -f->length / 2, f->length / 2, -f->width, 0, disl, ul)) return -1;
  u[0] = ul[0] * s[0] + ul[1] * t[0];
  u[1] = ul[0] * s[1] + ul[1] * t[1];
  u[2] = ul[2];
  return 0;
}

int sq_okada_displacement(const sq_okada_fault *f, double lambda, double mu, const double x[3], double u[3]) {
  const double alpha = (lambda + mu) / (lambda + 2 * mu);
  if (x[2] > 0 || fault_displacement(f, alpha, x, u)) {
    u[0] = u[1] = u[2] = 0;
    return -1;
  }
  return 0;
}

int sq_okada_displacement_sum(const sq_okada_fault *f, int n, double lambda, double mu, const double x[3],
                              double u[3]) {
  u[0] = u[1] = u[2] = 0;
  for (int k = 0; k < n; ++k) {
    double v[3];
    if (sq_okada_displacement(&f[k], lambda, mu, x, v)) {
      u[0] = u[1] = u[2] = 0;
      return -1;
    }
    for (int i = 0; i < 3; ++i) u[i] += v[i];
  }
  return 0;
}

/* Distance from x to the fault rectangle. */
static double distance_to_fault(const sq_okada_fault *f, const double x[3]) {
  double s[2], t[2], sd, cd;
  strike_frame(f, s, t);
  dip_sin_cos(f->dip_deg, &sd, &cd);
  const double dx = x[0] - f->x, dy = x[1] - f->y;
  const double xl = dx * s[0] + dy * s[1], yl = dx * t[0] + dy * t[1], d = f->depth + x[2];
  const double p = yl * cd + d * sd, q = yl * sd - d * cd; /* p: up-dip coordinate from the top edge */
  const double cx = fmin(fmax(xl, -f->length / 2), f->length / 2), cp = fmin(fmax(p, -f->width), 0);
  return sqrt((xl - cx) * (xl - cx) + (p - cp) * (p - cp) + q * q);
}

int sq_okada_displacement_gradient(const sq_okada_fault *f, double lambda, double mu, const double x[3], double u[3],
                                   double grad[3][3]) {
  const double alpha = (lambda + mu) / (lambda + 2 * mu);
  memset(grad, 0, 9 * sizeof(double));
  if (sq_okada_displacement(f, lambda, mu, x, u)) return -1;
  /* fourth-order central differences with a step of 1e-3 of the distance to the fault (truncation
     ~1e-12, rounding ~1e-13 relative) */
  const double h = 1e-3 * distance_to_fault(f, x);
  if (!(h > 0)) return -1;
  for (int j = 0; j < 3; ++j) {
    double v[4][3];
    static const double off[4] = {-2, -1, 1, 2};
    for (int k = 0; k < 4; ++k) {
      double y[3] = {x[0], x[1], x[2]};
      y[j] += off[k] * h;
      if (fault_displacement(f, alpha, y, v[k])) return -1;
    }
    for (int i = 0; i < 3; ++i) grad[i][j] = (v[0][i] - 8 * v[1][i] + 8 * v[2][i] - v[3][i]) / (12 * h);
  }
  return 0;
}
