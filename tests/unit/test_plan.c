/**
 * @file test_plan.c  Check suite for the time plan (sim/plan.c): the sync step never exceeds the stable
 * one, puts the end time and every time of each output it takes on a sync point (to 1e-12 relative), is
 * the largest step that does (checked against every smaller number of steps), takes the outputs in their
 * order while the step stays >= half the stable one, and continues from a restart's time; the schedules
 * of the outputs under a plan fall on exactly those sync points.
 */
#include "sq_check.h"
#include <stdint.h>

#include "sq_plan.h"

/* Whether time @p t is a sync point of the plan (t0, 0, dt), to 1e-12 relative; the point in *k. */
static int on_grid(double t0, double dt, double t, double scale, int64_t *k) {
  *k = (int64_t)llround((t - t0) / dt);
  return fabs(sq_plan_time(t0, 0, dt, *k) - t) <= 1e-12 * scale;
}

/* Whether every multiple of @p interval in (t0, t_end) is a sync point of the plan (t0, 0, dt). */
static int hits_all(double t0, double t_end, double dt, double interval) {
  int64_t k;
  for (double j = floor(t0 / interval * (1 + 1e-12)) + 1; j * interval < t_end * (1 - 1e-12); j += 1)
    if (!on_grid(t0, dt, j * interval, t_end, &k)) return 0;
  return 1;
}

/*
 * Plan (t0, t_end, dt_stable, the events) and check it: dt <= dt_stable; t_end the last sync point; every
 * time of each event taken a sync point, and its schedule (sq_plan_schedule_of) due at exactly those;
 * the step >= SQ_PLAN_MIN_STEP dt_stable where an event was taken or the run is long enough; no smaller
 * number of steps hits the same times with a stable step.  Returns the number of steps.
 */
static int64_t check_plan(double t0, double t_end, double dt_stable, int nev, sq_plan_event *ev, double *dt_out) {
  double dt;
  const int64_t n = sq_plan_steps(t0, t_end, dt_stable, nev, ev, &dt);
  EXPECT_MSG(n >= 1 && dt <= dt_stable, "t0 %g t_end %g: %lld steps of %.17g above the stable %.17g", t0, t_end,
             (long long)n, dt, dt_stable);
  EXPECT_NEAR(sq_plan_time(t0, 0, dt, n), t_end, 1e-12 * t_end);
  int taken = 0;
  for (int e = 0; e < nev; ++e) {
    if (!ev[e].hit || !(ev[e].interval > 0)) continue;
    ++taken;
    EXPECT_MSG(hits_all(t0, t_end, dt, ev[e].interval), "%s = %g taken, but a time of it is not a sync point of dt %g",
               ev[e].key, ev[e].interval, dt);
    /* the schedule under this plan is due at the sync points of its times, and nowhere else */
    const sq_plan_schedule s = sq_plan_schedule_of(t0, 0, dt, n, ev[e].interval);
    if ((floor(t0 / ev[e].interval) + 1) * ev[e].interval >= t_end * (1 - 1e-12)) continue; /* none before the end */
    EXPECT_MSG(s.exact, "%s = %g: the schedule of a taken event is not exact (t0 %g, t_end %g, dt %.17g)", ev[e].key,
               ev[e].interval, t0, t_end, dt);
    for (int64_t k = 1; k <= n; ++k) {
      const double t = sq_plan_time(t0, 0, dt, k), q = t / ev[e].interval;
      const int at_time = fabs(q - llround(q)) <= 1e-9 * fmax(1.0, q);
      EXPECT_MSG(sq_plan_due(&s, k) == at_time, "%s = %g: due %d at t = %.17g", ev[e].key, ev[e].interval,
                 sq_plan_due(&s, k), t);
      if (at_time) EXPECT_NEAR(t, llround(q) * ev[e].interval, 1e-12 * t_end);
    }
  }
  if (taken > 0 && t_end - t0 >= SQ_PLAN_MIN_STEP * dt_stable) EXPECT(dt >= SQ_PLAN_MIN_STEP * dt_stable * (1 - 1e-9));
  for (int64_t m = 1; m < n; ++m) { /* the largest step: fewer steps either exceed dt_stable or miss a time */
    const double d = (t_end - t0) / (double)m;
    if (d > dt_stable) continue;
    int all = 1;
    for (int e = 0; e < nev && all; ++e)
      if (ev[e].hit && ev[e].interval > 0) all = hits_all(t0, t_end, d, ev[e].interval);
    EXPECT_MSG(!all, "t0 %g t_end %g: %lld steps of %.17g hit the same times, fewer than the plan's %lld", t0, t_end,
               (long long)m, d, (long long)n);
  }
  if (dt_out) *dt_out = dt;
  return n;
}

START_TEST(plan_commensurate) {
  double dt;
  /* output every 0.1 and checkpoints every 0.15 to 0.45, stable 0.00797: common period 0.05, 7 steps each */
  sq_plan_event ev[3] = {
      {"output.interval", 0.1, 0}, {"fault.output_interval", 0, 0}, {"checkpoint.interval", 0.15, 0}};
  EXPECT_EQ(check_plan(0.0, 0.45, 0.007971543725, 3, ev, &dt), 63);
  EXPECT(ev[0].hit && ev[1].hit && ev[2].hit);
  EXPECT_NEAR(dt, 0.05 / 7, 1e-15);
  /* round intervals with a stable step that divides none: 1.0, 0.5 and 2.0 to 12 with 0.0839 */
  sq_plan_event ev2[3] = {
      {"output.interval", 1.0, 0}, {"fault.output_interval", 0.5, 0}, {"checkpoint.interval", 2, 0}};
  EXPECT_EQ(check_plan(0.0, 12.0, 0.0839161, 3, ev2, &dt), 24 * 6);
  EXPECT(ev2[0].hit && ev2[1].hit && ev2[2].hit);
  /* a long run with intervals of common period 0.1: 0.3 and 7 to 100, stable 0.0123 */
  sq_plan_event ev3[2] = {{"output.interval", 0.3, 0}, {"checkpoint.interval", 7, 0}};
  EXPECT_EQ(check_plan(0.0, 100.0, 0.0123, 2, ev3, &dt), 1000 * 9);
  EXPECT(ev3[0].hit && ev3[1].hit);
  /* no output at intervals: the end alone, as few steps as the stable one allows */
  EXPECT_EQ(check_plan(0.0, 0.45, 0.007971543725, 0, NULL, &dt), 57);
  /* an interval longer than the run has no time before the end: nothing to hit */
  sq_plan_event ev4[1] = {{"output.interval", 5.0, 0}};
  EXPECT_EQ(check_plan(0.0, 1.0, 0.3, 1, ev4, &dt), 4);
  EXPECT(ev4[0].hit);
  /* the stable step divides the period exactly: dt is never above it, not by an ulp */
  sq_plan_event ev5[1] = {{"output.interval", 0.1, 0}};
  check_plan(0.0, 0.7, 0.1, 1, ev5, &dt);
  check_plan(0.0, 0.3, 0.1, 1, ev5, &dt);
  check_plan(0.0, 6.0, 0.02, 1, ev5, &dt);
}
END_TEST

START_TEST(plan_incommensurate) {
  double dt;
  /* 0.0123 and 0.45 have the common period 0.0003, far under half the stable step: not taken */
  sq_plan_event ev[3] = {
      {"output.interval", 0.0123, 0}, {"fault.output_interval", 0, 0}, {"checkpoint.interval", 0, 0}};
  EXPECT_EQ(check_plan(0.0, 0.45, 0.007971543725, 3, ev, &dt), 57);
  EXPECT(!ev[0].hit);
  const sq_plan_schedule s = sq_plan_schedule_of(0.0, 0, dt, 57, 0.0123);
  EXPECT(!s.exact);
  EXPECT_EQ(s.every, 2); /* the nearest whole number of steps, as the warning says */
  EXPECT_EQ(s.first, 2);
  /* in order: the output and the checkpoints are taken, the fault output between them is not */
  sq_plan_event ev2[3] = {
      {"output.interval", 0.1, 0}, {"fault.output_interval", 0.0123, 0}, {"checkpoint.interval", 0.15, 0}};
  EXPECT_EQ(check_plan(0.0, 0.45, 0.007971543725, 3, ev2, &dt), 63);
  EXPECT(ev2[0].hit && !ev2[1].hit && ev2[2].hit);
  /* an interval far under the stable step (snapshots after every sync step): not taken */
  sq_plan_event ev3[1] = {{"output.interval", 1e-4, 0}};
  check_plan(0.0, 0.6, 0.02, 1, ev3, &dt);
  EXPECT(!ev3[0].hit);
  EXPECT(dt > 0.019);
  /* an interval between half the stable step and the stable step is taken: two steps per period at most */
  sq_plan_event ev4[1] = {{"output.interval", 0.015, 0}};
  check_plan(0.0, 0.6, 0.02, 1, ev4, &dt);
  EXPECT(ev4[0].hit);
  EXPECT_NEAR(dt, 0.015, 1e-15);
  /* a run shorter than half the stable step: one step, and an output inside it is not taken */
  sq_plan_event ev5[1] = {{"output.interval", 0.0005, 0}};
  EXPECT_EQ(check_plan(0.0, 0.001, 0.01, 1, ev5, &dt), 1);
  EXPECT(!ev5[0].hit);
}
END_TEST

START_TEST(plan_from_restart) {
  /* from a checkpoint at t = 0.35 (not a multiple of the intervals) to 1.0: outputs at 0.4, 0.5, ...
   * and checkpoints at 0.6, 0.9 fall on sync points of the new plan */
  double dt;
  sq_plan_event ev[2] = {{"output.interval", 0.1, 0}, {"checkpoint.interval", 0.3, 0}};
  const int64_t n = check_plan(0.35, 1.0, 0.0123, 2, ev, &dt);
  EXPECT(ev[0].hit && ev[1].hit);
  EXPECT_NEAR(dt, 0.05 / 5, 1e-15);
  /* its schedules, for a plan that starts at step 40 */
  const sq_plan_schedule out = sq_plan_schedule_of(0.35, 40, dt, 40 + n, 0.1),
                         ck = sq_plan_schedule_of(0.35, 40, dt, 40 + n, 0.3);
  EXPECT(out.exact && ck.exact);
  EXPECT_EQ(out.first, 45);
  EXPECT_EQ(out.every, 10);
  EXPECT_EQ(ck.first, 65);
  EXPECT_EQ(ck.every, 30);
  EXPECT_NEAR(sq_plan_time(0.35, 40, dt, ck.first), 0.6, 1e-15);
  EXPECT(sq_plan_due(&out, 45) && sq_plan_due(&out, 55) && !sq_plan_due(&out, 50) && !sq_plan_due(&out, 40));
  EXPECT_EQ(sq_plan_steps_to(&out, 40), 5);
  EXPECT_EQ(sq_plan_steps_to(&out, 45), 10);
  EXPECT_EQ(sq_plan_steps_to(&ck, 66), 29);
  EXPECT_EQ(40 + n, 105);
  /* a checkpoint time on the intervals' multiples adds no offset */
  sq_plan_event ev2[1] = {{"output.interval", 0.25, 0}};
  check_plan(0.5, 2.0, 0.03, 1, ev2, &dt);
  EXPECT(ev2[0].hit);
  EXPECT_NEAR(dt, 0.25 / 9, 1e-15);
  /* no interval: never due */
  const sq_plan_schedule none = sq_plan_schedule_of(0.0, 0, dt, 10, 0.0);
  EXPECT(!sq_plan_due(&none, 0) && !sq_plan_due(&none, 9));
  EXPECT(sq_plan_steps_to(&none, 3) == INT64_MAX);
}
END_TEST

START_TEST(plan_random) {
  /* decimal intervals (hundredths), ends and stable steps drawn at random: every plan checked in full */
  unsigned seed = 12345u;
  int ntaken = 0, nleft = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    seed = seed * 1103515245u + 12345u;
    const double t_end = (double)(1 + (seed >> 8) % 300) / 100.0; /* 0.01 .. 3.00 */
    seed = seed * 1103515245u + 12345u;
    const double dt_stable = 0.003 + 0.05 * (double)((seed >> 8) % 1000) / 1000.0;
    sq_plan_event ev[3] = {{"output.interval", 0, 0}, {"fault.output_interval", 0, 0}, {"checkpoint.interval", 0, 0}};
    for (int e = 0; e < 3; ++e) {
      seed = seed * 1103515245u + 12345u;
      const unsigned r = (seed >> 8) % 120;
      ev[e].interval = r < 20 ? 0.0 : (double)r / 100.0 * (e == 2 ? 3 : 1);
    }
    seed = seed * 1103515245u + 12345u;
    const double t0 = (seed >> 8) % 3 == 0 ? t_end * 0.37 : 0.0; /* some from a restart's time */
    check_plan(t0, t_end, dt_stable, 3, ev, NULL);
    ntaken += ev[0].hit && ev[0].interval > 0;
    nleft += !ev[0].hit;
  }
  EXPECT_MSG(ntaken > 1000 && nleft > 500, "the draws took output.interval %d times, left it %d times", ntaken, nleft);
}
END_TEST

int main(void) {
  const TTest *tests[] = {plan_commensurate, plan_incommensurate, plan_from_restart, plan_random, NULL};
  Suite *s = sq_test_suite("plan", 60, tests);
  return sq_test_run(s, 1);
}
