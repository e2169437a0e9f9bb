/**
 * @file sq_plan.h  The time plan of a run: the sync step, chosen so that the end time and every time an
 * output is asked for are sync points, and when each output falls under a plan.
 *
 * A plan runs from t0 (sync point step0) by equal sync steps dt: sync point k lies at
 * t0 + (k - step0) dt.  An output with interval I is asked for at every multiple j I of I.  Numerics
 * only: no StarPU, no MPI, no simulation object.
 */
#ifndef SQ_PLAN_H
#define SQ_PLAN_H

#include <stdint.h>

/**
 * The smallest sync step, as a fraction of the stable one, that a plan takes on to put an output's
 * times on sync points: hitting them may at most double the number of sync steps.
 */
#define SQ_PLAN_MIN_STEP 0.5

/** Relative tolerance within which two times (or a quotient and a whole number) count as equal. */
#define SQ_PLAN_TOL 1e-9

/** One kind of output, asked for at every multiple of its interval of simulated time. */
typedef struct sq_plan_event {
  const char *key; /**< the configuration key that asks for it (messages) */
  double interval; /**< simulated time between two outputs; <= 0: none (at the end only) */
  int hit;         /**< set by sq_plan_steps: 1 if each of its times before t_end is a sync point */
} sq_plan_event;

/**
 * @brief The sync steps from @p t0 to @p t_end: returns their number n and sets *@p dt = (t_end - t0) / n
 * <= @p dt_stable.  t_end is always a sync point; the events, taken in their order of priority, put
 * their times in (t0, t_end) on sync points too as long as the step that hits all times taken so far
 * stays >= SQ_PLAN_MIN_STEP dt_stable (in a run shorter than that: as long as it stays t_end - t0); an
 * event that would push the step lower is left out (hit = 0).  dt is the largest step <= dt_stable that
 * hits all times taken: G / ceil(G / dt_stable) for their common period G.
 */
int64_t sq_plan_steps(double t0, double t_end, double dt_stable, int nevent, sq_plan_event *ev, double *dt);

/** When one output falls under a plan: at sync points first, first + every, ... */
typedef struct sq_plan_schedule {
  int64_t first; /**< the first sync point (> step0) at which it is written */
  int64_t every; /**< sync steps between two; 0: never (no interval) */
  int exact;     /**< 1: these sync points lie at the multiples of the interval, each and every one */
} sq_plan_schedule;

/** @brief Time of sync point @p k of the plan (t0, step0, dt): t0 + (k - step0) dt. */
double sq_plan_time(double t0, int64_t step0, double dt, int64_t k);
/**
 * @brief The sync points of the plan (@p t0, @p step0, @p dt) that ends at sync point @p end at which an
 * output with @p interval is written: those at the multiples of the interval after t0 where all of them
 * before the end are sync points (exact), else every round(interval / dt) sync steps (at least one) from
 * step0 on.
 */
sq_plan_schedule sq_plan_schedule_of(double t0, int64_t step0, double dt, int64_t end, double interval);
/** @brief Whether the output is due at sync point @p k. */
int sq_plan_due(const sq_plan_schedule *e, int64_t k);
/** @brief Sync steps from sync point @p k to the output's next one after it (INT64_MAX: never). */
int64_t sq_plan_steps_to(const sq_plan_schedule *e, int64_t k);

#endif
