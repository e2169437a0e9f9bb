/** @file plan.c  The sync step that puts the end time and the requested output times on sync points. */
#include <math.h>

#include "sq_plan.h"

/*
 * Greatest common period of two positive times, by Euclid's algorithm on doubles: a remainder within
 * @p tol of 0 or of the divisor counts as 0 (decimal inputs such as 0.1 are not exact in binary, so
 * 1.0 mod 0.1 is 0.09999999999999995).  fmod is exact, so the remainders carry only the inputs' own
 * rounding.
 */
static double common_period(double a, double b, double tol) {
  if (a < b) {
    const double t = a;
    a = b;
    b = t;
  }
  while (b > tol) {
    double r = fmod(a, b);
    if (b - r <= tol) r = 0;
    a = b;
    b = r;
  }
  return a;
}

/* Index of the first multiple of @p interval after @p t0 (a multiple within @p tol counts as t0). */
static double first_multiple(double t0, double interval, double tol) { return floor((t0 + tol) / interval) + 1.0; }

int64_t sq_plan_steps(double t0, double t_end, double dt_stable, int nevent, sq_plan_event *ev, double *dt) {
  const double span = t_end - t0;
  for (int e = 0; e < nevent; ++e) ev[e].hit = 1;
  if (!(span > 0) || !(dt_stable > 0)) { /* nothing to run (the caller refuses it): one step to t_end */
    *dt = span;
    return 1;
  }
  const double tol = SQ_PLAN_TOL * 0.1 * fmax(fabs(t_end), fabs(t0));
  double g = span; /* the common period of t_end - t0 and of the times taken so far, from t0 */
  for (int e = 0; e < nevent; ++e) {
    const double interval = ev[e].interval;
    if (!(interval > 0)) continue;
    const double next = first_multiple(t0, interval, tol) * interval; /* its first time after t0 */
    if (next >= t_end - tol) continue;                                /* none before the end */
    const int several = next + interval < t_end - tol; /* else its one time before the end alone counts */
    const double offset = next - t0;                   /* t0 need not be one of its times (a restart) */
    double gn = several ? common_period(g, interval, tol) : g;
    if (!several || interval - offset > tol) gn = common_period(gn, offset, tol);
    if (gn >= SQ_PLAN_MIN_STEP * dt_stable * (1.0 - SQ_PLAN_TOL) || gn >= g * (1.0 - SQ_PLAN_TOL)) g = gn;
    else ev[e].hit = 0;
  }
  const int64_t periods = (int64_t)llround(span / g);
  /* sync steps per common period: the fewest, from below (g carries its inputs' rounding), then checked */
  int64_t per = (int64_t)ceil(span / (double)periods / dt_stable * (1.0 - SQ_PLAN_TOL));
  if (per < 1) per = 1;
  while (span / (double)(periods * per) > dt_stable) ++per; /* never above the stable step, not by one ulp */
  *dt = span / (double)(periods * per);
  return periods * per;
}

double sq_plan_time(double t0, int64_t step0, double dt, int64_t k) {
  return k == step0 ? t0 : t0 + (double)(k - step0) * dt;
}

/* Whether @p x is a whole number within SQ_PLAN_TOL of max(1, |x|), and which. */
static int whole(double x, int64_t *n) {
  *n = (int64_t)llround(x);
  return fabs(x - (double)*n) <= SQ_PLAN_TOL * fmax(1.0, fabs(x));
}

sq_plan_schedule sq_plan_schedule_of(double t0, int64_t step0, double dt, int64_t end, double interval) {
  sq_plan_schedule s = {.first = INT64_MAX, .every = 0, .exact = 1};
  if (!(interval > 0) || !(dt > 0)) return s;
  int64_t every, offset;
  const double t_end = sq_plan_time(t0, step0, dt, end);
  const double tol = SQ_PLAN_TOL * 0.1 * fmax(fmax(fabs(t0), fabs(t_end)), interval);
  const double next = first_multiple(t0, interval, tol) * interval;
  const int period = whole(interval / dt, &every) && every >= 1;
  /* its first time a sync point, and so the others before the end (a single one needs no period) */
  s.exact = whole((next - t0) / dt, &offset) && offset >= 1 && (period || next + interval >= t_end - tol);
  s.every = every >= 1 ? every : 1;
  s.first = step0 + (s.exact ? offset : s.every); /* else the nearest whole number of steps from the start */
  return s;
}

int sq_plan_due(const sq_plan_schedule *e, int64_t k) {
  return e->every > 0 && k >= e->first && (k - e->first) % e->every == 0;
}

int64_t sq_plan_steps_to(const sq_plan_schedule *e, int64_t k) {
  if (e->every <= 0) return INT64_MAX;
  if (k < e->first) return e->first - k;
  return e->every - (k - e->first) % e->every;
}
