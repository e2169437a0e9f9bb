/**
 * @file savage_prescott.c  The series of Savage & Prescott (1978) for post-seismic relaxation of an elastic layer
 * over a Maxwell half-space (sq_savage_prescott.h), with a proven truncation bound.
 *
 * Remainder.  g_n = atan((2nH + D)/x) - atan((2nH - D)/x) obeys 0 <= g_n sgn(x) <= 2D|x| / (2nH - D)^2 (mean
 * value theorem), so sum_{n>N} |g_n| <= D|x| / (2 H^2 (N - 1/2)) (n - D/2H >= n - 1/2, integral bound).  The
 * weights P(n, s) and w_{n-1}(s) = e^{-s} s^{n-1}/(n-1)! are at most P(N+1, s) beyond N (P falls with n;
 * sum_{n>N} w_{n-1} = P(N, s)).  For t = infinity (P = 1) the remainder is the midpoint-rule integral
 * int_{N+1/2}^inf g(s) ds, whose error falls as N^-3; the sum stops once that correction is below tol.
 */
#include "sq_savage_prescott.h"

#include <math.h>

#define PI        3.14159265358979323846
#define MAX_TERMS 10000000L

/* P(n, s) for n > s by its upper series e^{-s} s^n/n! (1 + s/(n+1) + s^2/((n+1)(n+2)) + ...). */
static double p_upper(long n, double s) {
  if (s == 0) return 0;
  const double lead = exp(-s + n * log(s) - lgamma(n + 1.0));
  double term = 1, sum = 1;
  for (long k = 1; k < 100000 && term > 1e-17 * sum; ++k) term *= s / (n + k), sum += term;
  return lead * sum;
}

/* The antiderivative in n of g, (x / 2H) [y atan y - ln(1 + y^2)/2] between y- = (2nH - D)/x and y+. */
static double g_integral(double x, double H, double D, double n) {
  const double yp = (2 * n * H + D) / x, ym = (2 * n * H - D) / x;
  /* y atan y - ln(1+y^2)/2 = y (pi/2 sgn y - atan(1/y)) - ln|y| - ln(1 + 1/y^2)/2; the ln|y| and pi/2 parts
     are summed separately for y+ and y- of the same sign (both large), without cancellation */
  const double sg = yp > 0 ? 1 : -1;
  const double a = PI / 2 * sg * (yp - ym) - (yp * atan(1 / yp) - ym * atan(1 / ym)) - log(yp / ym) -
                   0.5 * (log1p(1 / (yp * yp)) - log1p(1 / (ym * ym)));
  return x / (2 * H) * a;
}

/* g'(n) = 2Hx [1/(x^2 + (2nH + D)^2) - 1/(x^2 + (2nH - D)^2)]. */
static double g_slope(double x, double H, double D, double n) {
  const double yp = 2 * n * H + D, ym = 2 * n * H - D;
  return 2 * H * x * (1 / (x * x + yp * yp) - 1 / (x * x + ym * ym));
}

/* w_n(s) = e^{-s} s^n / n! */
static double poisson(long n, double s) { return s == 0 ? (n == 0) : exp(-s + n * log(s) - lgamma(n + 1.0)); }

int sq_savage_prescott_eval(const sq_savage_prescott *m, double x, double t, double tol, double *u, double *v) {
  if (u) *u = 0;
  if (v) *v = 0;
  if (!(m->H > 0) || !(m->D > 0) || !(m->D <= m->H) || !(m->tau > 0) || !(t >= 0) || !(tol > 0) || !isfinite(x) ||
      !isfinite(m->b))
    return -1;
  if (x == 0) return 0;
  const double H = m->H, D = m->D, s = t / m->tau, ax = fabs(x);
  const int relaxed = isinf(t);
  double su = atan(D / x), sv = 0;
  /* P(n, s): from P(1) = 1 - e^{-s} by P(n+1) = P(n) - w_n while n <= s, by the upper series beyond */
  double p = relaxed ? 1 : -expm1(-s);
  int status = 0;
  long n = 1;
  for (;; ++n) {
    const double g = atan((2 * n * H + D) / x) - atan((2 * n * H - D) / x);
    su += p * g;
    if (!relaxed) sv += poisson(n - 1, s) * g;
    if (relaxed) {
      /* past the peak of |g'| (n H >= |x|) the midpoint rule's correction g'/24 bounds its error */
      if (n * H >= ax && fabs(g_slope(x, H, D, n + 0.5)) / 24 < tol) {
        const double f_inf = PI * D / (2 * H) * (x > 0 ? 1 : -1);
        su += f_inf - g_integral(x, H, D, n + 0.5) + g_slope(x, H, D, n + 0.5) / 24;
        break;
      }
    } else {
      const double p_next = n + 1 > s ? p_upper(n + 1, s) : p - poisson(n, s);
      const double gsum = D * ax / (2 * H * H * (n - 0.5));     /* bound on sum_{k>n} |g_k| */
      const double gmax = 2 * D * ax / pow((2 * n + 1) * H, 2); /* bound on |g_k|, k > n */
      if (n > s && fmax(p_next, 0) * gsum / PI < tol && p * gmax / PI < tol) break;
      p = p_next;
    }
    if (n >= MAX_TERMS) {
      status = -2;
      break;
    }
  }
  if (u) *u = m->b / PI * su;
  if (v) *v = relaxed ? 0 : m->b / (PI * m->tau) * sv;
  return status ? status : (int)n;
}
