/**
 * @file basis.c  Orthogonal hierarchical Dubiner basis on the reference tetrahedron (thesis §3.3,
 * eq. 3.17-3.19) and its gradient.
 *
 * psi_{p,q,r} = P_p^{(0,0)}(a) ((1-b)/2)^p P_q^{(2p+1,0)}(b) ((1-c)/2)^{p+q} P_r^{(2p+2q+2,0)}(c),
 * with a = 2 xi1/(1-xi2-xi3) - 1, b = 2 xi2/(1-xi3) - 1, c = 2 xi3 - 1.
 *
 * The collapsed coordinates are singular on the edge xi2+xi3 = 1 and at the vertex xi3 = 1, but
 * psi is a polynomial.  We never form a or b: with s = 1-xi2-xi3 and t = 1-xi3,
 *   ((1-b)/2)^p P_p(a) ((1-c)/2)^p = S_p^{(0,0)}(2 xi1 - s, s)
 *   ((1-c)/2)^q P_q(b)             = S_q^{(2p+1,0)}(2 xi2 - t, t)
 * where S_n(x,y) = y^n P_n(x/y) is the homogeneous ("scaled") Jacobi polynomial, evaluated by the
 * three-term recurrence multiplied through by y^n.  This is exact everywhere on the closed tet,
 * faces, edges and vertices included.  Gradients differentiate that recurrence in x and y, which is
 * the chain rule with dP_n/dx = (n+alpha+beta+1)/2 P_{n-1}^{(alpha+1,beta+1)} carried out
 * inside the recurrence, and is also valid everywhere.
 *
 * Ordering (hierarchical): by total degree d = p+q+r ascending; within one degree by p descending,
 * then r ascending (q = d-p-r), i.e.
 *   for d = 0..O-1: for p = d..0: for r = 0..d-p: (p, d-p-r, r).
 * Degree 1 is (1,0,0), (0,1,0), (0,0,1); degree 2 starts (2,0,0), (1,1,0), (1,0,1), (0,2,0), ...
 *
 * Any order 1..SQ_BASIS_DEGREE_LIMIT+1 works (beyond SQ_ORDER_MAX, e.g. for error measurement).
 */
#include <math.h>

#include "sq_ref.h"

#include <stdlib.h>

/** Largest polynomial degree handled (order up to SQ_BASIS_DEGREE_LIMIT + 1); sizes the stack tables. */
#define SQ_BASIS_DEGREE_LIMIT 15

/**
 * Scaled Jacobi polynomials S_n^{(alpha,0)}(x, y) = y^n P_n^{(alpha,0)}(x/y), n = 0..nmax, and
 * optionally their partial derivatives in x and y (dx, dy may be NULL together).
 */
static void scaled_jacobi(int nmax, double alpha, double x, double y, double *val, double *dx, double *dy) {
  const double beta = 0.0;
  val[0] = 1.0;
  if (dx) dx[0] = dy[0] = 0.0;
  if (nmax < 1) return;
  val[1] = 0.5 * ((alpha + beta + 2.0) * x + (alpha - beta) * y);
  if (dx) {
    dx[1] = 0.5 * (alpha + beta + 2.0);
    dy[1] = 0.5 * (alpha - beta);
  }
  for (int n = 2; n <= nmax; n++) {
    /* A&S 22.7.1 times y^n. */
    const double ab = alpha + beta;
    const double two_n_ab = 2.0 * n + ab;
    const double inv_denom = 1.0 / (2.0 * n * (n + ab) * (two_n_ab - 2.0));
    const double coef_x = (two_n_ab - 1.0) * two_n_ab * (two_n_ab - 2.0);
    const double coef_y = (two_n_ab - 1.0) * (alpha * alpha - beta * beta);
    const double coef_old = 2.0 * (n + alpha - 1.0) * (n + beta - 1.0) * two_n_ab;
    const double linear = coef_x * x + coef_y * y;
    val[n] = (linear * val[n - 1] - coef_old * y * y * val[n - 2]) * inv_denom;
    if (dx) {
      dx[n] = (coef_x * val[n - 1] + linear * dx[n - 1] - coef_old * y * y * dx[n - 2]) * inv_denom;
      dy[n] = (coef_y * val[n - 1] + linear * dy[n - 1] - coef_old * (2.0 * y * val[n - 2] + y * y * dy[n - 2])) *
              inv_denom;
    }
  }
}

/** Stop on an order this file cannot handle: a programming error, not user input. */
static void check_order(int order) {
  if (order < 1 || order > SQ_BASIS_DEGREE_LIMIT + 1) {
    fprintf(stderr, "starquake: internal error: basis of order %d requested, supported 1..%d\n", order,
            SQ_BASIS_DEGREE_LIMIT + 1);
    abort();
  }
}

/**
 * The triangle's Dubiner basis (sq_ref.h), with the collapsed coordinates of the tetrahedron's first
 * two factors: ((1-b)/2)^p P_p(a) = S_p^{(0,0)}(x, y) with x = 2 chi1 + chi2 - 1, y = 1 - chi2, exact on
 * the closed triangle (also at chi2 = 1, where a is undefined), and P_q^{(2p+1,0)}(b) = S_q^{(2p+1,0)}(b, 1).
 */
void sq_face_basis_eval(int order, const double chi[2], double *out) {
  check_order(order);
  const double x = 2.0 * chi[0] + chi[1] - 1.0, y = 1.0 - chi[1], b = 2.0 * chi[1] - 1.0;
  double first[SQ_BASIS_DEGREE_LIMIT + 1], second[SQ_BASIS_DEGREE_LIMIT + 1][SQ_BASIS_DEGREE_LIMIT + 1];
  scaled_jacobi(order - 1, 0.0, x, y, first, NULL, NULL);
  for (int p = 0; p < order; p++) scaled_jacobi(order - 1 - p, 2.0 * p + 1.0, b, 1.0, second[p], NULL, NULL);
  int index = 0;
  for (int degree = 0; degree < order; degree++)
    for (int p = degree; p >= 0; p--) {
      const int q = degree - p;
      /* int_{ref tri} (P_p(a) ((1-b)/2)^p P_q^{(2p+1,0)}(b))^2 dchi = 1 / ((2p+1)(2p+2q+2)) */
      out[index++] = sqrt((2.0 * p + 1.0) * (2.0 * p + 2.0 * q + 2.0)) * first[p] * second[p][q];
    }
}

/**
 * Factor tables at one point, for degree <= degree_max:
 *   f1[p]         = S_p^{(0,0)}(2 xi1 - s, s)
 *   f2[p][q]      = S_q^{(2p+1,0)}(2 xi2 - t, t)
 *   f3[p+q][r]    = P_r^{(2(p+q)+2,0)}(2 xi3 - 1)
 * and, when with_derivatives, their partials in the two scaled arguments (the third factor
 * depends on one variable only: its x-derivative).
 */
typedef struct basis_factors {
  double f1[SQ_BASIS_DEGREE_LIMIT + 1], f1_x[SQ_BASIS_DEGREE_LIMIT + 1], f1_y[SQ_BASIS_DEGREE_LIMIT + 1];
  double f2[SQ_BASIS_DEGREE_LIMIT + 1][SQ_BASIS_DEGREE_LIMIT + 1];
  double f2_x[SQ_BASIS_DEGREE_LIMIT + 1][SQ_BASIS_DEGREE_LIMIT + 1];
  double f2_y[SQ_BASIS_DEGREE_LIMIT + 1][SQ_BASIS_DEGREE_LIMIT + 1];
  double f3[SQ_BASIS_DEGREE_LIMIT + 1][SQ_BASIS_DEGREE_LIMIT + 1];
  double f3_x[SQ_BASIS_DEGREE_LIMIT + 1][SQ_BASIS_DEGREE_LIMIT + 1];
  double f3_y[SQ_BASIS_DEGREE_LIMIT + 1][SQ_BASIS_DEGREE_LIMIT + 1];
} basis_factors;

static void basis_factors_compute(int degree_max, const double xi[3], int with_derivatives, basis_factors *fac) {
  const double s = 1.0 - xi[1] - xi[2];
  const double t = 1.0 - xi[2];
  scaled_jacobi(degree_max, 0.0, 2.0 * xi[0] - s, s, fac->f1, with_derivatives ? fac->f1_x : NULL,
                with_derivatives ? fac->f1_y : NULL);
  for (int p = 0; p <= degree_max; p++) {
    scaled_jacobi(degree_max - p, 2.0 * p + 1.0, 2.0 * xi[1] - t, t, fac->f2[p], with_derivatives ? fac->f2_x[p] : NULL,
                  with_derivatives ? fac->f2_y[p] : NULL);
  }
  for (int pq = 0; pq <= degree_max; pq++) {
    scaled_jacobi(degree_max - pq, 2.0 * pq + 2.0, 2.0 * xi[2] - 1.0, 1.0, fac->f3[pq],
                  with_derivatives ? fac->f3_x[pq] : NULL, with_derivatives ? fac->f3_y[pq] : NULL);
  }
}

/* 1 / ||psi_pqr||: the unnormalised function's squared norm on the reference tet is
 * 1 / (2 (2p+1) (p+q+1) (2d+3)).  Normalising makes the mass matrix the identity, which keeps the
 * coefficients of every degree of similar size -- it matters for single precision. */
static double norm_factor(int p, int q, int d) { return sqrt(2.0 * (2 * p + 1) * (p + q + 1) * (2 * d + 3)); }

void sq_basis_eval(int order, const double xi[3], double *out) {
  check_order(order);
  const int degree_max = order - 1;
  basis_factors fac;
  basis_factors_compute(degree_max, xi, 0, &fac);
  int k = 0;
  for (int d = 0; d <= degree_max; d++) {
    for (int p = d; p >= 0; p--) {
      for (int r = 0; r <= d - p; r++) {
        const int q = d - p - r;
        out[k++] = norm_factor(p, q, d) * fac.f1[p] * fac.f2[p][q] * fac.f3[p + q][r];
      }
    }
  }
}

void sq_basis_grad(int order, const double xi[3], double *out) {
  check_order(order);
  const int degree_max = order - 1;
  basis_factors fac;
  basis_factors_compute(degree_max, xi, 1, &fac);
  /*
   * Arguments as functions of xi and their gradients:
   *   factor 1: x1 = 2 xi1 + xi2 + xi3 - 1 -> (2,1,1);  y1 = s = 1 - xi2 - xi3 -> (0,-1,-1)
   *   factor 2: x2 = 2 xi2 + xi3 - 1       -> (0,2,1);  y2 = t = 1 - xi3       -> (0,0,-1)
   *   factor 3: x3 = 2 xi3 - 1             -> (0,0,2)
   */
  int k = 0;
  for (int d = 0; d <= degree_max; d++) {
    for (int p = d; p >= 0; p--) {
      for (int r = 0; r <= d - p; r++) {
        const int q = d - p - r;
        const double v1 = fac.f1[p], v2 = fac.f2[p][q], v3 = fac.f3[p + q][r];
        const double g1[3] = {2.0 * fac.f1_x[p], fac.f1_x[p] - fac.f1_y[p], fac.f1_x[p] - fac.f1_y[p]};
        const double g2[3] = {0.0, 2.0 * fac.f2_x[p][q], fac.f2_x[p][q] - fac.f2_y[p][q]};
        const double g3[3] = {0.0, 0.0, 2.0 * fac.f3_x[p + q][r]};
        const double c = norm_factor(p, q, d);
        for (int e = 0; e < 3; e++) out[3 * k + e] = c * (g1[e] * v2 * v3 + v1 * g2[e] * v3 + v1 * v2 * g3[e]);
        k++;
      }
    }
  }
}
