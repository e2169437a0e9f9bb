/**
 * @file quadrature.c  Jacobi polynomials, Gauss-Jacobi rules and the collapsed (Duffy) rules on the
 * reference triangle and tetrahedron (thesis §3.2-3.3: every integral of eq. 3.23 is evaluated with
 * these rules).
 *
 * Collapsed rules return points point-major (point q at [dim*q .. dim*q+dim-1]), ordered with the
 * first collapsed direction fastest; all weights are positive and all points interior.
 */
#include "sq_ref.h"

#include <math.h>

/** Newton iterations allowed per Gauss-Jacobi node before giving up. */
#define SQ_GAUSS_JACOBI_MAX_NEWTON 100

double sq_jacobi(int n, double alpha, double beta, double x) {
  if (n <= 0) return 1.0;
  /* Three-term recurrence (Abramowitz & Stegun 22.7.1). */
  double p_prev = 1.0;
  double p_cur = 0.5 * ((alpha + beta + 2.0) * x + (alpha - beta));
  for (int k = 2; k <= n; k++) {
    const double ab = alpha + beta;
    const double two_k_ab = 2.0 * k + ab;
    const double denom = 2.0 * k * (k + ab) * (two_k_ab - 2.0);
    const double c_lin = (two_k_ab - 1.0) * (two_k_ab * (two_k_ab - 2.0) * x + alpha * alpha - beta * beta);
    const double c_old = 2.0 * (k + alpha - 1.0) * (k + beta - 1.0) * two_k_ab;
    const double p_next = (c_lin * p_cur - c_old * p_prev) / denom;
    p_prev = p_cur;
    p_cur = p_next;
  }
  return p_cur;
}

/** d/dx P_n^{(alpha,beta)}(x) = (n+alpha+beta+1)/2 P_{n-1}^{(alpha+1,beta+1)}(x). */
static double jacobi_derivative(int n, double alpha, double beta, double x) {
  if (n <= 0) return 0.0;
  return 0.5 * (n + alpha + beta + 1.0) * sq_jacobi(n - 1, alpha + 1.0, beta + 1.0, x);
}

int sq_gauss_jacobi(int n, double alpha, double beta, double *x, double *w) {
  SQ_CHECK(n >= 1, SQ_ERR_INPUT, "Gauss-Jacobi rule needs at least one point (got n = %d)", n);
  SQ_CHECK(alpha > -1.0 && beta > -1.0, SQ_ERR_INPUT,
           "Gauss-Jacobi weight exponents must exceed -1 (got alpha = %g, beta = %g)", alpha, beta);
  /*
   * Nodes: Newton's method on P_n with deflation of the roots already found, so that each start
   * converges to a new root (Karniadakis & Sherwin, App. B).  Roots are found in ascending order
   * from Chebyshev-node starting values averaged with the previous root.
   */
  const double pi = 3.14159265358979323846;
  for (int k = 0; k < n; k++) {
    double root = -cos((2.0 * k + 1.0) * pi / (2.0 * n));
    if (k > 0) root = 0.5 * (root + x[k - 1]);
    int converged = 0;
    for (int it = 0; it < SQ_GAUSS_JACOBI_MAX_NEWTON; it++) {
      const double poly = sq_jacobi(n, alpha, beta, root);
      const double dpoly = jacobi_derivative(n, alpha, beta, root);
      double deflation = 0.0;
      for (int j = 0; j < k; j++) deflation += 1.0 / (root - x[j]);
      const double step = -poly / (dpoly - deflation * poly);
      root += step;
      if (fabs(step) <= 1e-16 * (1.0 + fabs(root))) {
        converged = 1;
        break;
      }
    }
    /* A final step that stalls at rounding level (|step| ~ 1e-16) is still a converged root. */
    if (!converged) {
      const double poly = sq_jacobi(n, alpha, beta, root);
      const double dpoly = jacobi_derivative(n, alpha, beta, root);
      converged = fabs(poly) <= 1e-13 * fabs(dpoly);
    }
    SQ_CHECK(converged, SQ_ERR_NUMERIC,
             "Gauss-Jacobi Newton iteration did not converge (n = %d, alpha = %g, beta = %g, node %d)", n, alpha, beta,
             k);
    x[k] = root;
  }
  /* Insertion sort: the roots come out ascending already, but make it a guarantee. */
  for (int k = 1; k < n; k++) {
    const double value = x[k];
    int j = k - 1;
    while (j >= 0 && x[j] > value) {
      x[j + 1] = x[j];
      j--;
    }
    x[j + 1] = value;
  }
  /*
   * Weights: w_k = 2^{a+b+1} G(n+a+1) G(n+b+1) / (G(n+a+b+1) n!) / ((1-x_k^2) P_n'(x_k)^2)
   * (Abramowitz & Stegun 25.4.33 in the normalisation of 22.2.1).
   */
  const double scale = pow(2.0, alpha + beta + 1.0) * tgamma(n + alpha + 1.0) * tgamma(n + beta + 1.0) /
                       (tgamma(n + alpha + beta + 1.0) * tgamma(n + 1.0));
  for (int k = 0; k < n; k++) {
    const double dpoly = jacobi_derivative(n, alpha, beta, x[k]);
    w[k] = scale / ((1.0 - x[k] * x[k]) * dpoly * dpoly);
  }
  return SQ_SUCCESS;
}

int sq_quad_tri(int n, double **point, double **weight, int *npoints) {
  SQ_CHECK(n >= 1, SQ_ERR_INPUT, "triangle quadrature needs at least one point per direction (got %d)", n);
  double *node_a = NULL, *weight_a = NULL, *node_b = NULL, *weight_b = NULL;
  double *pts = NULL, *wts = NULL;
  int ierr = SQ_CALLOC(node_a, n);
  if (!ierr) ierr = SQ_CALLOC(weight_a, n);
  if (!ierr) ierr = SQ_CALLOC(node_b, n);
  if (!ierr) ierr = SQ_CALLOC(weight_b, n);
  if (!ierr) ierr = SQ_CALLOC(pts, 2 * n * n);
  if (!ierr) ierr = SQ_CALLOC(wts, n * n);
  /* Collapsed coordinates: xi1 = (1+a)/2 (1-b)/2, xi2 = (1+b)/2, dxi = (1-b)/8 da db. */
  if (!ierr) ierr = sq_gauss_jacobi(n, 0.0, 0.0, node_a, weight_a);
  if (!ierr) ierr = sq_gauss_jacobi(n, 1.0, 0.0, node_b, weight_b);
  if (!ierr) {
    for (int ib = 0; ib < n; ib++) {
      for (int ia = 0; ia < n; ia++) {
        const int q = ib * n + ia;
        pts[2 * q + 0] = 0.25 * (1.0 + node_a[ia]) * (1.0 - node_b[ib]);
        pts[2 * q + 1] = 0.5 * (1.0 + node_b[ib]);
        wts[q] = 0.125 * weight_a[ia] * weight_b[ib];
      }
    }
  }
  SQ_FREE(node_a);
  SQ_FREE(weight_a);
  SQ_FREE(node_b);
  SQ_FREE(weight_b);
  if (ierr) {
    SQ_FREE(pts);
    SQ_FREE(wts);
    return ierr;
  }
  *point = pts;
  *weight = wts;
  *npoints = n * n;
  return SQ_SUCCESS;
}

int sq_quad_tet(int n, double **point, double **weight, int *npoints) {
  SQ_CHECK(n >= 1, SQ_ERR_INPUT, "tetrahedron quadrature needs at least one point per direction (got %d)", n);
  double *node_a = NULL, *weight_a = NULL, *node_b = NULL, *weight_b = NULL, *node_c = NULL, *weight_c = NULL;
  double *pts = NULL, *wts = NULL;
  int ierr = SQ_CALLOC(node_a, n);
  if (!ierr) ierr = SQ_CALLOC(weight_a, n);
  if (!ierr) ierr = SQ_CALLOC(node_b, n);
  if (!ierr) ierr = SQ_CALLOC(weight_b, n);
  if (!ierr) ierr = SQ_CALLOC(node_c, n);
  if (!ierr) ierr = SQ_CALLOC(weight_c, n);
  if (!ierr) ierr = SQ_CALLOC(pts, 3 * n * n * n);
  if (!ierr) ierr = SQ_CALLOC(wts, n * n * n);
  /*
   * Collapsed coordinates: xi3 = (1+c)/2, xi2 = (1+b)/2 (1-c)/2, xi1 = (1+a)/2 (1-b)/2 (1-c)/2,
   * dxi = (1-b)(1-c)^2/64 da db dc; the factors (1-b), (1-c)^2 go into the Gauss-Jacobi weights.
   */
  if (!ierr) ierr = sq_gauss_jacobi(n, 0.0, 0.0, node_a, weight_a);
  if (!ierr) ierr = sq_gauss_jacobi(n, 1.0, 0.0, node_b, weight_b);
  if (!ierr) ierr = sq_gauss_jacobi(n, 2.0, 0.0, node_c, weight_c);
  if (!ierr) {
    for (int ic = 0; ic < n; ic++) {
      for (int ib = 0; ib < n; ib++) {
        for (int ia = 0; ia < n; ia++) {
          const int q = (ic * n + ib) * n + ia;
          const double one_minus_c = 0.5 * (1.0 - node_c[ic]);
          const double one_minus_b = 0.5 * (1.0 - node_b[ib]);
          pts[3 * q + 0] = 0.5 * (1.0 + node_a[ia]) * one_minus_b * one_minus_c;
          pts[3 * q + 1] = 0.5 * (1.0 + node_b[ib]) * one_minus_c;
          pts[3 * q + 2] = 0.5 * (1.0 + node_c[ic]);
          wts[q] = weight_a[ia] * weight_b[ib] * weight_c[ic] / 64.0;
        }
      }
    }
  }
  SQ_FREE(node_a);
  SQ_FREE(weight_a);
  SQ_FREE(node_b);
  SQ_FREE(weight_b);
  SQ_FREE(node_c);
  SQ_FREE(weight_c);
  if (ierr) {
    SQ_FREE(pts);
    SQ_FREE(wts);
    return ierr;
  }
  *point = pts;
  *weight = wts;
  *npoints = n * n * n;
  return SQ_SUCCESS;
}
