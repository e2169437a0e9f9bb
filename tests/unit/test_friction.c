/** @file test_friction.c  Check suite for the point-wise friction laws (friction_impl.h, friction.c). */
#include "sq_check.h"
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sq_common.h"
#include "sq_friction.h"
#include "friction_impl.h"

/* TPV5 material: rho = 2670, mu = 32038120320 -> Zs = rho c_s, eta = Zs / 2 for equal sides. */
static double eta_tpv5(void) {
  const double zs = sqrt(2670.0 * 32038120320.0);
  return zs * zs / (zs + zs);
}

static sq_friction_params tpv5(void) {
  return (sq_friction_params){.mu_s = 0.677, .mu_d = 0.525, .d_c = 0.4, .forced_time = SQ_FRICTION_NEVER};
}
static sq_friction_params tpv101(void) {
  return (sq_friction_params){.a = 0.008, .b = 0.012, .L = 0.02, .f0 = 0.6, .V0 = 1e-6};
}
static sq_friction_params tpv104(void) {
  return (sq_friction_params){.a = 0.01, .b = 0.014, .L = 0.4, .f0 = 0.6, .V0 = 1e-6, .f_w = 0.2, .V_w = 0.1};
}

/* Closed forms, written out independently of friction_impl.h. */
static double ref_rs_f(const sq_friction_params *p, double V, double psi) {
  return p->a * asinh(V / (2 * p->V0) * exp(psi / p->a));
}
static double ref_aging_psi(const sq_friction_params *p, double theta) {
  return p->f0 + p->b * log(p->V0 * theta / p->L);
}
static double ref_fvw_f_ss(const sq_friction_params *p, double V) {
  const double f_lv = p->f0 - (p->b - p->a) * log(V / p->V0);
  return p->f_w + (f_lv - p->f_w) / pow(1 + pow(V / p->V_w, 8), 1.0 / 8);
}

static double ref_fvw_psi_ss(const sq_friction_params *p, double V) {
  return p->a * log(2 * p->V0 / V * sinh(ref_fvw_f_ss(p, V) / p->a));
}

static double norm2(const double v[2]) { return hypot(v[0], v[1]); }
static double cross2(const double u[2], const double v[2]) { return u[0] * v[1] - u[1] * v[0]; }
static double dot2(const double u[2], const double v[2]) { return u[0] * v[0] + u[1] * v[1]; }

/* Assert that u is parallel to v with the same direction (relative to |u| |v|). */
static void assert_parallel(const double u[2], const double v[2]) {
  const double scale = norm2(u) * norm2(v);
  ck_assert(fabs(cross2(u, v)) <= 1e-14 * scale);
  ck_assert(dot2(u, v) > 0);
}

START_TEST(locked_below_strength) {
  const double eta = eta_tpv5(), sigma_n = -120e6, tau[2] = {-50e6, 60e6}; /* |tau| = 78.1 < 81.24 MPa */
  sq_friction_params p = tpv5();
  sq_friction_state s, before;
  sq_friction_init_state(SQ_FRICTION_LSW, &p, 0, norm2(tau), sigma_n, &s);
  s.slip[0] = 0.01, s.slip_path = 0.01, s.state = 123, s.work = 7; /* some history that must stay put */
  before = s;
  for (int k = 0; k < 10; ++k)
    ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_LSW, &p, k * 1e-3, 1e-3, sigma_n, tau, eta, &s, NULL), 0);
  ck_assert(s.slip_rate[0] == 0 && s.slip_rate[1] == 0);
  ck_assert(s.traction[0] == tau[0] && s.traction[1] == tau[1]);
  ck_assert(s.slip[0] == before.slip[0] && s.slip[1] == before.slip[1]);
  ck_assert(s.slip_path == before.slip_path && s.state == before.state && s.work == before.work);
  ck_assert(s.rupture_time == -1 && s.peak_slip_rate == 0);
  ck_assert_double_eq_tol(s.mu, p.mu_s - (p.mu_s - p.mu_d) * 0.01 / p.d_c, 1e-15);
  ck_assert(s.normal_stress == sigma_n);
  /* cohesion adds strength: just above mu_s sn, held by 1 MPa of cohesion */
  const double tau2[2] = {0, 0.677 * 120e6 + 0.5e6};
  p.cohesion = 1e6;
  sq_friction_init_state(SQ_FRICTION_LSW, &p, 0, 0, sigma_n, &s);
  ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_LSW, &p, 0, 1e-3, sigma_n, tau2, eta, &s, NULL), 0);
  ck_assert(s.slip_rate[1] == 0 && s.traction[1] == tau2[1]);
  p.cohesion = 0;
  ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_LSW, &p, 0, 1e-3, sigma_n, tau2, eta, &s, NULL), 0);
  ck_assert(s.slip_rate[1] > 0);
  /* tension (sigma_n > 0) leaves no frictional strength, for every law */
  for (int law = SQ_FRICTION_LSW; law <= SQ_FRICTION_RS_FVW; ++law) {
    const sq_friction_params q = law == SQ_FRICTION_LSW ? tpv5() : law == SQ_FRICTION_RS_FVW ? tpv104() : tpv101();
    sq_friction_init_state(law, &q, 1e-12, 0, 10e6, &s);
    ck_assert_int_eq(sq_friction_solve_point(law, &q, 0, 1e-3, 10e6, tau, eta, &s, NULL), 0);
    ck_assert_double_eq_tol(norm2(s.slip_rate), norm2(tau) / eta, 1e-14 * norm2(tau) / eta);
    ck_assert(norm2(s.traction) <= 1e-14 * norm2(tau));
  }
  /* a welded interface never slips */
  const double huge[2] = {1e12, -1e12};
  ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_NONE, &p, 0, 1e-3, 0, huge, eta, &s, NULL), 0);
  ck_assert(s.slip_rate[0] == 0 && s.slip_rate[1] == 0 && s.traction[0] == huge[0]);
}
END_TEST

START_TEST(lsw_weakening) {
  const double eta = eta_tpv5(), sigma_n = -120e6, dt = 1e-3, angle = 0.7 + _i;
  sq_friction_params p = tpv5();
  if (_i == 1) p.mu_s = 0.7, p.mu_d = 0.1; /* TPV13 values: mu_s - (mu_s - mu_d) is not mu_d in doubles */
  const double T = p.mu_s * 120e6 + 2e3;   /* just above static strength: starts below 1e-3 m/s */
  const double tau[2] = {T * cos(angle), T * sin(angle)};
  sq_friction_state s;
  sq_friction_init_state(SQ_FRICTION_LSW, &p, 0, T, sigma_n, &s);
  double first_fast = -1, peak = 0;
  int weakened_steps = 0;
  for (int k = 0; k < 1500; ++k) {
    const double t = k * dt, S_prev = s.slip_path, work_prev = s.work;
    ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_LSW, &p, t, dt, sigma_n, tau, eta, &s, NULL), 0);
    /* eq. 2.23: mu is linear in the slip path of the previous points, exactly mu_d after d_c */
    if (S_prev >= p.d_c) {
      ck_assert(s.mu == p.mu_d);
      ++weakened_steps;
    } else {
      ck_assert_double_eq_tol(s.mu, p.mu_s - (p.mu_s - p.mu_d) * S_prev / p.d_c, 1e-15);
    }
    const double strength = s.mu * 120e6, V = norm2(s.slip_rate);
    ck_assert_double_eq_tol(norm2(s.traction), strength, 1e-12 * strength);
    ck_assert_double_eq_tol(V, (T - strength) / eta, 1e-12 * T / eta);
    assert_parallel(s.traction, tau);
    assert_parallel(s.slip_rate, tau);
    ck_assert_double_eq_tol(s.slip_path, S_prev + V * dt, 1e-15);
    ck_assert(s.work > work_prev); /* energy sanity: work grows while slipping */
    ck_assert_double_eq_tol(s.work - work_prev, strength * V * dt, 1e-9 * strength * V * dt);
    if (first_fast < 0 && V > 1e-3) first_fast = t;
    peak = fmax(peak, V);
  }
  ck_assert(weakened_steps > 100);
  ck_assert_double_eq_tol(norm2(s.slip_rate), (T - p.mu_d * 120e6) / eta, 1e-9);
  ck_assert_double_eq_tol(norm2(s.slip), s.slip_path, 1e-12); /* straight slip path */
  ck_assert(first_fast > 0 && s.rupture_time == first_fast);
  ck_assert_double_eq_tol(s.peak_slip_rate, peak, 1e-14 * peak);
}
END_TEST

START_TEST(lsw_forced_rupture) {
  const double eta = eta_tpv5(), sigma_n = -120e6, tau[2] = {0, 70e6}; /* mu_d sn = 63 < 70 < 81.24 MPa */
  sq_friction_params p = tpv5();
  p.forced_time = 1.0, p.t0 = 0.5;
  sq_friction_state s;
  sq_friction_init_state(SQ_FRICTION_LSW, &p, 0, 70e6, sigma_n, &s);
  ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_LSW, &p, 0.999, 1e-3, sigma_n, tau, eta, &s, NULL), 0);
  ck_assert(s.mu == p.mu_s && s.slip_rate[1] == 0);
  ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_LSW, &p, 1.25, 1e-3, sigma_n, tau, eta, &s, NULL), 0);
  ck_assert_double_eq_tol(s.mu, p.mu_s - 0.5 * (p.mu_s - p.mu_d), 1e-15); /* half weakened, no slip yet */
  ck_assert(s.slip_rate[1] == 0 && s.slip_path == 0);
  ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_LSW, &p, 1.6, 1e-3, sigma_n, tau, eta, &s, NULL), 0);
  ck_assert(s.mu == p.mu_d);
  ck_assert_double_eq_tol(s.slip_rate[1], (70e6 - p.mu_d * 120e6) / eta, 1e-12);
  ck_assert(s.rupture_time == 1.6);
  /* t0 <= 0 weakens at once */
  p.t0 = 0;
  sq_friction_init_state(SQ_FRICTION_LSW, &p, 0, 70e6, sigma_n, &s);
  ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_LSW, &p, 1.0, 1e-3, sigma_n, tau, eta, &s, NULL), 0);
  ck_assert(s.mu == p.mu_d && s.slip_rate[1] > 0);
}
END_TEST

/*
 * Hold sigma_n and tau_lock at the values of steady sliding at V_ss (tau_lock = eta V_ss + sn f_ss),
 * start off steady state and step until V and the state settle; compare with the closed forms.
 * Steady sliding under constant load is stable where eta + sn f_ss'(V) > 0, which the cases respect.
 */
static void run_to_steady_state(sq_friction_law law, const sq_friction_params *p, double V_ss, double state_ss,
                                double f_ss, double state_start, double dt, int nsteps) {
  const double eta = eta_tpv5(), sn = 120e6, T = eta * V_ss + sn * f_ss;
  const double tau[2] = {T * 0.6, -T * 0.8};
  sq_friction_state s;
  sq_friction_init_state(law, p, 0.5 * V_ss, T, -sn, &s);
  s.state = state_start;
  for (int k = 0; k < nsteps; ++k)
    ck_assert_int_eq(sq_friction_solve_point(law, p, k * dt, dt, -sn, tau, eta, &s, NULL), 0);
  const double V = norm2(s.slip_rate);
  ck_assert_msg(fabs(V - V_ss) <= 1e-9 * V_ss, "%s: V = %.15g, V_ss = %.15g", sq_friction_law_name(law), V, V_ss);
  ck_assert_msg(fabs(s.state - state_ss) <= 1e-9 * fabs(state_ss), "%s: state = %.15g, steady %.15g",
                sq_friction_law_name(law), s.state, state_ss);
  ck_assert_msg(fabs(s.mu - f_ss) <= 1e-12 * f_ss, "%s: mu = %.15g, f_ss = %.15g", sq_friction_law_name(law), s.mu,
                f_ss);
  assert_parallel(s.slip_rate, tau);
}

START_TEST(rs_steady_state) {
  sq_friction_params p = tpv101();
  for (int law = SQ_FRICTION_RS_AGING; law <= SQ_FRICTION_RS_SLIP; ++law) {
    /* velocity weakening, fast enough for radiation damping to stabilise: V_ss = 1 m/s */
    double V = 1.0, theta = p.L / V, f = ref_rs_f(&p, V, ref_aging_psi(&p, theta));
    ck_assert_double_eq_tol(f, p.f0 + (p.a - p.b) * log(V / p.V0), 1e-6 * f); /* large V / V0 */
    ck_assert_double_eq_tol(sq_friction_steady_state(law, &p, V), theta, 1e-15);
    run_to_steady_state(law, &p, V, theta, f, 5 * theta, 1e-3, 3000);
    /* rate strengthening (TPV101 border, a = 0.016), slow sliding, started below steady state */
    sq_friction_params q = p;
    q.a = 0.016;
    V = 1e-3, theta = q.L / V, f = ref_rs_f(&q, V, ref_aging_psi(&q, theta));
    ck_assert_double_eq_tol(f, q.f0 + (q.a - q.b) * log(V / q.V0), 1e-6 * f);
    run_to_steady_state(law, &q, V, theta, f, 0.2 * theta, 2.0, 3000);
  }
  /* FVW: fully weakened (V_ss = 5 m/s >> V_w) and in the transition (V_ss = 0.5, V_w = 1, a = 0.02) */
  p = tpv104();
  double V = 5.0, f = ref_fvw_f_ss(&p, V), psi = p.a * log(2 * p.V0 / V * sinh(f / p.a));
  ck_assert_double_eq_tol(sq_friction_steady_state(SQ_FRICTION_RS_FVW, &p, V), psi, 1e-13);
  ck_assert_double_eq_tol(ref_rs_f(&p, V, psi), f, 1e-14);
  run_to_steady_state(SQ_FRICTION_RS_FVW, &p, V, psi, f, psi + 0.05, 1e-3, 4000);
  p.a = 0.02, p.V_w = 1.0;
  V = 0.5, f = ref_fvw_f_ss(&p, V), psi = p.a * log(2 * p.V0 / V * sinh(f / p.a));
  ck_assert_double_eq_tol(sq_friction_steady_state(SQ_FRICTION_RS_FVW, &p, V), psi, 1e-13);
  run_to_steady_state(SQ_FRICTION_RS_FVW, &p, V, psi, f, psi + 0.02, 1e-2, 4000);
}
END_TEST

START_TEST(rs_state_evolution) {
  /* sigma_n = 0: no strength, V = |tau_lock| / eta is constant, so the state must follow the exact
   * solution of its evolution law at constant V (t = total time, x = V t / L) */
  const double eta = eta_tpv5(), dt = 1e-3, theta0 = 0.3;
  for (int law = SQ_FRICTION_RS_AGING; law <= SQ_FRICTION_RS_FVW; ++law) {
    const sq_friction_params p = law == SQ_FRICTION_RS_FVW ? tpv104() : tpv101();
    const double V = law == SQ_FRICTION_RS_FVW ? 2.0 : 0.1, tau[2] = {0, eta * V};
    const double state0 = law == SQ_FRICTION_RS_FVW ? 0.7 : theta0;
    sq_friction_state s;
    sq_friction_init_state(law, &p, V, 0, 0, &s);
    s.state = state0;
    for (int k = 1; k <= 400; ++k) {
      ck_assert_int_eq(sq_friction_solve_point(law, &p, k * dt, dt, 0, tau, eta, &s, NULL), 0);
      const double x = V * k * dt / p.L, decay = exp(-x);
      double expect;
      if (law == SQ_FRICTION_RS_AGING) expect = p.L / V + (state0 - p.L / V) * decay;
      else if (law == SQ_FRICTION_RS_SLIP) expect = p.L / V * pow(V * state0 / p.L, decay);
      else expect = ref_fvw_psi_ss(&p, V) + (state0 - ref_fvw_psi_ss(&p, V)) * decay;
      ck_assert_msg(fabs(s.state - expect) <= 1e-12 * fabs(expect), "%s step %d: state %.15g, exact %.15g",
                    sq_friction_law_name(law), k, s.state, expect);
      ck_assert_double_eq_tol(s.slip_rate[1], V, 1e-14 * V);
    }
  }
  /* the state of a point evolves with the mean of the previous and the new slip rate (SeisSol): from
   * rest to V in one point of length dt, the state follows the exact solution at V / 2 */
  for (int law = SQ_FRICTION_RS_AGING; law <= SQ_FRICTION_RS_FVW; ++law) {
    const sq_friction_params p = law == SQ_FRICTION_RS_FVW ? tpv104() : tpv101();
    const double V = 3.0, tau[2] = {eta * V, 0}, x = 0.5 * V * 0.01 / p.L, decay = exp(-x);
    sq_friction_state s;
    sq_friction_init_state(law, &p, 0, 0, 0, &s);
    s.state = law == SQ_FRICTION_RS_FVW ? 0.7 : theta0;
    ck_assert_int_eq(sq_friction_solve_point(law, &p, 0, 0.01, 0, tau, eta, &s, NULL), 0);
    const double expect = law == SQ_FRICTION_RS_AGING ? 2 * p.L / V + (theta0 - 2 * p.L / V) * decay
                          : law == SQ_FRICTION_RS_SLIP
                              ? 2 * p.L / V * pow(0.5 * V * theta0 / p.L, decay)
                              : ref_fvw_psi_ss(&p, 0.5 * V) + (0.7 - ref_fvw_psi_ss(&p, 0.5 * V)) * decay;
    ck_assert_double_eq_tol(s.state, expect, 1e-13 * fabs(expect));
  }
  /* no slip: the aging law heals, theta += dt; the slip law and FVW keep their state */
  for (int law = SQ_FRICTION_RS_AGING; law <= SQ_FRICTION_RS_FVW; ++law) {
    const sq_friction_params p = law == SQ_FRICTION_RS_FVW ? tpv104() : tpv101();
    const double zero[2] = {0, 0};
    sq_friction_state s;
    sq_friction_init_state(law, &p, 0, 0, -1e8, &s);
    s.state = theta0;
    ck_assert_int_eq(sq_friction_solve_point(law, &p, 0, 0.25, -1e8, zero, eta, &s, NULL), 0);
    ck_assert(s.slip_rate[0] == 0 && s.slip_rate[1] == 0);
    ck_assert_double_eq_tol(s.state, law == SQ_FRICTION_RS_AGING ? theta0 + 0.25 : theta0, 1e-15);
  }
}
END_TEST

START_TEST(rs_init_equilibrium) {
  /* TPV101 / TPV104 initial states: the initial traction is in equilibrium with V_init */
  const double eta = eta_tpv5();
  const struct {
    sq_friction_law law;
    sq_friction_params p;
    double V_init, tau, sn;
  } cases[] = {{SQ_FRICTION_RS_AGING, tpv101(), 1e-12, 75e6, 120e6},
               {SQ_FRICTION_RS_SLIP, tpv101(), 1e-12, 75e6, 120e6},
               {SQ_FRICTION_RS_FVW, tpv104(), 1e-16, 40e6, 120e6}};
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
    sq_friction_state s;
    sq_friction_init_state(cases[c].law, &cases[c].p, cases[c].V_init, cases[c].tau, -cases[c].sn, &s);
    const double psi = cases[c].law == SQ_FRICTION_RS_FVW ? s.state : ref_aging_psi(&cases[c].p, s.state);
    ck_assert_double_eq_tol(ref_rs_f(&cases[c].p, cases[c].V_init, psi), cases[c].tau / cases[c].sn, 1e-13);
    ck_assert(s.rupture_time == -1 && s.slip_path == 0 && s.work == 0);
    const double tau[2] = {cases[c].tau + eta * cases[c].V_init, 0};
    ck_assert_int_eq(sq_friction_solve_point(cases[c].law, &cases[c].p, 0, 0, -cases[c].sn, tau, eta, &s, NULL), 0);
    ck_assert_double_eq_tol(s.slip_rate[0], cases[c].V_init, 1e-6 * cases[c].V_init);
    ck_assert_double_eq_tol(s.mu, cases[c].tau / cases[c].sn, 1e-12);
  }
}
END_TEST

/* One solve with dt = 0 (state held) and check convergence, residual and the slip rate. */
static void check_solve(sq_friction_law law, const sq_friction_params *p, double state, double sigma_n, double T,
                        double guess, double V_expect) {
  const double eta = eta_tpv5(), tau[2] = {T * 0.28, T * 0.96};
  sq_friction_state s;
  sq_friction_init_state(law, p, guess, T, sigma_n, &s);
  s.state = state;
  const int status = sq_friction_solve_point(law, p, 0, 0, sigma_n, tau, eta, &s, NULL);
  ck_assert_msg(status == 0, "%s: no convergence: state %g, sigma_n %g, T %g, guess %g", sq_friction_law_name(law),
                state, sigma_n, T, guess);
  const double V = norm2(s.slip_rate), sn = fmax(0, -sigma_n);
  ck_assert(V >= 0 && V <= T / eta * (1 + 1e-15));
  /* a root below the double range (tiny T, tiny a) is returned as 0 within SQ_FRICTION_V_ATOL */
  const double residual = V < 1e-290 ? 0 : T - eta * V - sn * s.mu;
  ck_assert_msg(fabs(residual) <= 1e-12 * T, "%s: residual %g of T = %g (V = %g, a = %g, sigma_n = %g)",
                sq_friction_law_name(law), residual, T, V, p->a, sigma_n);
  if (V_expect >= 0)
    ck_assert_msg(fabs(V - V_expect) <= 1e-6 * V_expect, "%s: V = %.12g, expected %.12g (a = %g, sigma_n = %g)",
                  sq_friction_law_name(law), V, V_expect, p->a, sigma_n);
}

START_TEST(newton_robustness) {
  const double eta = eta_tpv5(), Vs[] = {1e-20, 1e-16, 1e-12, 1e-6, 1e-2, 1, 1e2};
  const double sns[] = {-1e9, -1.2e8, -1e3, -1, 0}, as[] = {1e-2, 1e-4, 1e-6}, guesses[] = {0, 1e-30, 1e3};
  for (int law = SQ_FRICTION_RS_AGING; law <= SQ_FRICTION_RS_FVW; ++law)
    for (size_t ia = 0; ia < 3; ++ia) {
      sq_friction_params p = law == SQ_FRICTION_RS_FVW ? tpv104() : tpv101();
      p.a = as[ia];
      for (size_t iv = 0; iv < sizeof(Vs) / sizeof(Vs[0]); ++iv)
        for (size_t is = 0; is < sizeof(sns) / sizeof(sns[0]); ++is)
          for (size_t ig = 0; ig < 3; ++ig) {
            /* state of steady sliding at V; the traction that makes V the exact root */
            const double V = Vs[iv], state = sq_friction_steady_state(law, &p, V);
            const double psi = law == SQ_FRICTION_RS_FVW ? state : ref_aging_psi(&p, state);
            const double f = p.a * (log(V / (2 * p.V0)) + psi / p.a + log(2.0)); /* asinh(z) ~ ln 2z */
            const double f_exact = psi / p.a + log(V / (2 * p.V0)) > 20 ? f : ref_rs_f(&p, V, psi);
            const double T = eta * V - sns[is] * f_exact;
            check_solve(law, &p, state, sns[is], T, guesses[ig], V);
          }
      /* tiny and huge traction on an arbitrary state */
      const double state = sq_friction_steady_state(law, &p, 1e-9);
      for (size_t ig = 0; ig < 3; ++ig) {
        check_solve(law, &p, state, -1.2e8, 1e-10, guesses[ig], -1);
        check_solve(law, &p, state, -1.2e8, 1e12, guesses[ig], -1);
        check_solve(law, &p, state, 0, 1e12, guesses[ig], 1e12 / eta);
      }
    }
}
END_TEST

START_TEST(failure_status) {
  const double eta = eta_tpv5(), ok[2] = {70e6, 0}, bad[2] = {NAN, 0}, inf[2] = {INFINITY, 0};
  for (int law = SQ_FRICTION_LSW; law <= SQ_FRICTION_RS_FVW; ++law) {
    const sq_friction_params p = law == SQ_FRICTION_LSW ? tpv5() : law == SQ_FRICTION_RS_FVW ? tpv104() : tpv101();
    sq_friction_state s, before;
    sq_friction_init_state(law, &p, 1e-12, 70e6, -120e6, &s);
    before = s;
    ck_assert_int_eq(sq_friction_solve_point(law, &p, 0, 1e-3, -120e6, bad, eta, &s, NULL), SQ_FRICTION_NO_CONVERGENCE);
    ck_assert_int_eq(sq_friction_solve_point(law, &p, 0, 1e-3, -120e6, inf, eta, &s, NULL), SQ_FRICTION_NO_CONVERGENCE);
    ck_assert_int_eq(sq_friction_solve_point(law, &p, 0, 1e-3, NAN, ok, eta, &s, NULL), SQ_FRICTION_NO_CONVERGENCE);
    ck_assert_int_eq(sq_friction_solve_point(law, &p, 0, 1e-3, -120e6, ok, NAN, &s, NULL), SQ_FRICTION_NO_CONVERGENCE);
    ck_assert_int_eq(sq_friction_solve_point(law, &p, 0, 1e-3, -120e6, ok, 0, &s, NULL), SQ_FRICTION_NO_CONVERGENCE);
    ck_assert_int_eq(sq_friction_solve_point(law, &p, 0, NAN, -120e6, ok, eta, &s, NULL), SQ_FRICTION_NO_CONVERGENCE);
    ck_assert_int_eq(sq_friction_solve_point(law, &p, NAN, 1e-3, -120e6, ok, eta, &s, NULL),
                     SQ_FRICTION_NO_CONVERGENCE);
    ck_assert(memcmp(&s, &before, sizeof(s)) == 0); /* history untouched on failure */
    if (law == SQ_FRICTION_LSW) {
      sq_friction_params q = p;
      q.mu_s = NAN;
      ck_assert_int_eq(sq_friction_solve_point(law, &q, 0, 1e-3, -120e6, ok, eta, &s, NULL),
                       SQ_FRICTION_NO_CONVERGENCE);
    } else {
      s.state = NAN;
      ck_assert_int_eq(sq_friction_solve_point(law, &p, 0, 1e-3, -120e6, ok, eta, &s, NULL),
                       SQ_FRICTION_NO_CONVERGENCE);
      sq_friction_params q = p;
      q.a = NAN; /* unvalidated parameters still give a status, not garbage */
      s = before;
      ck_assert_int_eq(sq_friction_solve_point(law, &q, 0, 1e-3, -120e6, ok, eta, &s, NULL),
                       SQ_FRICTION_NO_CONVERGENCE);
    }
  }
  sq_friction_state s;
  const sq_friction_params p = tpv5();
  sq_friction_init_state(SQ_FRICTION_LSW, &p, 0, 0, -1, &s);
  ck_assert_int_eq(sq_friction_solve_point((sq_friction_law)42, &p, 0, 1e-3, -1, ok, eta, &s, NULL),
                   SQ_FRICTION_NO_CONVERGENCE);
  /* prints the expected message "friction law linear_slip_weakening failed at t = 0 ..." */
  ck_assert_int_eq(sq_friction_solve(SQ_FRICTION_LSW, &p, 0, 1e-3, NAN, ok, eta, &s, NULL), SQ_ERR_NUMERIC);
  ck_assert_int_eq(sq_friction_solve(SQ_FRICTION_LSW, &p, 0, 1e-3, -1, ok, eta, &s, NULL), SQ_SUCCESS);
}
END_TEST

/* Expect sq_friction_check_params to reject @p p with a message starting with @p prefix. */
static void expect_bad(sq_friction_law law, sq_friction_params p, const char *prefix) {
  char why[256];
  ck_assert_int_eq(sq_friction_check_params(law, &p, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_msg(strncmp(why, prefix, strlen(prefix)) == 0, "message '%s' does not start with '%s'", why, prefix);
}

START_TEST(check_params) {
  char why[256];
  sq_friction_params p = tpv5(), q = tpv101(), r = tpv104();
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_LSW, &p, why, sizeof(why)), 0);
  ck_assert_str_eq(why, "");
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_RS_AGING, &q, why, sizeof(why)), 0);
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_RS_SLIP, &q, NULL, 0), 0);
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_RS_FVW, &r, why, sizeof(why)), 0);
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_NONE, &p, why, sizeof(why)), 0);
  p.d_c = -0.1;
  expect_bad(SQ_FRICTION_LSW, p, "d_c = -0.1 must be > 0");
  p = tpv5(), p.mu_d = 0.7, p.mu_s = 0.6;
  expect_bad(SQ_FRICTION_LSW, p, "mu_d = 0.7 > mu_s = 0.6");
  p = tpv5(), p.mu_s = NAN;
  expect_bad(SQ_FRICTION_LSW, p, "mu_s = nan must be");
  p = tpv5(), p.cohesion = -0.2e6;
  expect_bad(SQ_FRICTION_LSW, p, "cohesion = -200000 must be");
  p = tpv5(), p.forced_time = NAN;
  expect_bad(SQ_FRICTION_LSW, p, "forced_time = nan");
  q.L = 0;
  expect_bad(SQ_FRICTION_RS_AGING, q, "L = 0 must be > 0");
  q = tpv101(), q.a = 0;
  expect_bad(SQ_FRICTION_RS_SLIP, q, "a = 0 must be > 0");
  q.a = -0.01;
  expect_bad(SQ_FRICTION_RS_AGING, q, "a = -0.01 must be > 0");
  q = tpv101(), q.V0 = -1e-6;
  expect_bad(SQ_FRICTION_RS_AGING, q, "V0 = -1e-06 must be > 0");
  q = tpv101(), q.V0 = INFINITY;
  expect_bad(SQ_FRICTION_RS_AGING, q, "V0 = inf must be finite");
  q = tpv101(), q.b = 0;
  expect_bad(SQ_FRICTION_RS_AGING, q, "b = 0 must be > 0");
  r.V_w = 0;
  expect_bad(SQ_FRICTION_RS_FVW, r, "V_w = 0 must be > 0");
  r = tpv104(), r.L = -0.4;
  expect_bad(SQ_FRICTION_RS_FVW, r, "L = -0.4 must be > 0");
  ck_assert_int_eq(sq_friction_check_params((sq_friction_law)42, &r, why, sizeof(why)), SQ_ERR_INPUT);
  ck_assert_str_eq(why, "unknown friction law 42");
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_LSW, NULL, why, sizeof(why)), SQ_ERR_INPUT);
  /* the Prakash-Clifton regularisation, for every law: off (pc_length 0) or both values > 0 */
  p = tpv5(), p.pc_length = 0.01, p.pc_v_star = 1;
  ck_assert_int_eq(sq_friction_check_params(SQ_FRICTION_LSW, &p, why, sizeof(why)), 0);
  p.pc_v_star = 0;
  expect_bad(SQ_FRICTION_LSW, p, "pc_v_star = 0 must be > 0");
  q = tpv101(), q.pc_length = -0.01;
  expect_bad(SQ_FRICTION_RS_AGING, q, "pc_length = -0.01 must be >= 0");
  r = tpv104(), r.pc_length = NAN;
  expect_bad(SQ_FRICTION_RS_FVW, r, "pc_length = nan must be");
}
END_TEST

/* Prakash-Clifton: d sigma* / dt = -(V + V*)/L (sigma* - sigma_n).  For constant V and sigma_n the closed form is
 * sigma*(t) = sigma_n + (sigma*_0 - sigma_n) e^-(V + V*) t / L; any split of [0, t] into steps gives it (to rounding,
 * the update is exact per step), L -> 0 gives sigma_n exactly, and a later sigma_n is followed with that lag. */
START_TEST(prakash_clifton) {
  const double s0 = -120e6, sn = -100e6, V = 0.7, vs = 1.0, L = 0.01;
  for (int n = 1; n <= 64; n *= 4) {
    const double T = 0.02, dt = T / n;
    double s = s0;
    for (int k = 0; k < n; ++k) s = sq_friction_prakash_clifton(s, sn, V, vs, L, dt);
    const double exact = sn + (s0 - sn) * exp(-(V + vs) * T / L);
    ck_assert_msg(fabs(s - exact) <= 1e-12 * fabs(sn), "%d steps: sigma* = %.17g, closed form %.17g", n, s, exact);
  }
  /* half-life L ln 2 / (V + V*): after it, sigma* is half way */
  const double half = sq_friction_prakash_clifton(s0, sn, V, vs, L, L * log(2.0) / (V + vs));
  ck_assert_double_eq_tol(half, 0.5 * (s0 + sn), 1e-6);
  /* no time, no change; the limit L -> 0 is the plain law's normal stress, bitwise */
  ck_assert_double_eq(sq_friction_prakash_clifton(s0, sn, V, vs, L, 0.0), s0);
  ck_assert_double_eq(sq_friction_prakash_clifton(s0, sn, V, vs, 1e-300, 1e-3), sn);
  /* the strength follows sigma*: a point regularised to sigma* = -120 MPa while sigma_n = -60 MPa stays locked
   * under 70 MPa of shear (0.677 x 120 MPa of strength), the plain law with sigma_n slips */
  const sq_friction_params p = tpv5();
  sq_friction_state a, b;
  sq_friction_init_state(SQ_FRICTION_LSW, &p, 0, 70e6, -120e6, &a);
  ck_assert_double_eq(a.sigma_pc, -120e6);
  b = a;
  const double tau[2] = {70e6, 0}, sig = sq_friction_prakash_clifton(a.sigma_pc, -60e6, 0, vs, L, 1e-6);
  ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_LSW, &p, 0, 1e-6, sig, tau, eta_tpv5(), &a, NULL), 0);
  ck_assert_int_eq(sq_friction_solve_point(SQ_FRICTION_LSW, &p, 0, 1e-6, -60e6, tau, eta_tpv5(), &b, NULL), 0);
  ck_assert_double_eq(hypot(a.slip_rate[0], a.slip_rate[1]), 0.0);
  ck_assert(b.slip_rate[0] > 1.0);
}
END_TEST

START_TEST(law_names) {
  const char *names[] = {"none", "linear_slip_weakening", "rate_state_aging", "rate_state_slip",
                         "rate_state_fast_velocity_weakening"};
  for (int k = 0; k < 5; ++k) {
    sq_friction_law law;
    ck_assert_int_eq(sq_friction_law_from_name(names[k], &law), 0);
    ck_assert_int_eq(law, k);
    ck_assert_str_eq(sq_friction_law_name(law), names[k]);
  }
  sq_friction_law law = SQ_FRICTION_LSW;
  /* prints the expected message "unknown friction law 'slip_weakening' ..." */
  ck_assert_int_eq(sq_friction_law_from_name("slip_weakening", &law), SQ_ERR_INPUT);
  ck_assert_int_eq(law, SQ_FRICTION_LSW);
  ck_assert_str_eq(sq_friction_law_name((sq_friction_law)99), "unknown");
}
END_TEST

START_TEST(rs_nucleation_energy) {
  /* TPV101/104 nucleation at one point: from creep, ramp the load (25 MPa over 1 s / 45 MPa over 0.5 s) */
  const double eta = eta_tpv5(), sn = 120e6, dt = 1e-3;
  const double weights[3] = {0.2777777777777778, 0.4444444444444444, 0.2777777777777778}; /* Gauss, 3 points */
  const double nodes[3] = {0.1127016653792583, 0.5, 0.8872983346207417};
  for (int law = SQ_FRICTION_RS_AGING; law <= SQ_FRICTION_RS_FVW; ++law) {
    const int fvw = law == SQ_FRICTION_RS_FVW;
    const sq_friction_params p = fvw ? tpv104() : tpv101();
    const double tau0 = fvw ? 40e6 : 75e6, dtau = fvw ? 45e6 : 25e6, ramp = fvw ? 0.5 : 1.0;
    sq_friction_state s;
    sq_friction_init_state(law, &p, fvw ? 1e-16 : 1e-12, tau0, -sn, &s);
    double work_prev = 0, peak = 0;
    for (int k = 0; k < 1500; ++k)
      for (int q = 0; q < 3; ++q) {
        const double t = (k + nodes[q]) * dt, T = tau0 + dtau * fmin(1.0, t / ramp);
        const double tau[2] = {T * 0.8, T * 0.6};
        ck_assert_int_eq(sq_friction_solve_point(law, &p, t, weights[q] * dt, -sn, tau, eta, &s, NULL), 0);
        const double V = norm2(s.slip_rate);
        ck_assert(s.work >= work_prev);
        if (V > 1e-6) ck_assert(s.work > work_prev);
        ck_assert_double_eq_tol(norm2(s.traction), s.mu * sn, 1e-11 * T);
        work_prev = s.work, peak = fmax(peak, V);
      }
    ck_assert_msg(s.rupture_time > 0 && s.rupture_time < 1.5, "%s: rupture time %g", sq_friction_law_name(law),
                  s.rupture_time);
    ck_assert_double_eq_tol(s.peak_slip_rate, peak, 1e-14 * peak);
    ck_assert_msg(peak > 1.0, "%s: peak slip rate %g", sq_friction_law_name(law), peak);
    ck_assert(s.work > 0 && s.slip_path > 0.1);
    ck_assert_double_eq_tol(norm2(s.slip), s.slip_path, 1e-12 * s.slip_path);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("friction");
  TCase *tc = tcase_create("friction");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, locked_below_strength);
  tcase_add_loop_test(tc, lsw_weakening, 0, 2);
  tcase_add_test(tc, lsw_forced_rupture);
  tcase_add_test(tc, rs_steady_state);
  tcase_add_test(tc, rs_state_evolution);
  tcase_add_test(tc, rs_init_equilibrium);
  tcase_add_test(tc, newton_robustness);
  tcase_add_test(tc, failure_status);
  tcase_add_test(tc, check_params);
  tcase_add_test(tc, law_names);
  tcase_add_test(tc, rs_nucleation_energy);
  tcase_add_test(tc, prakash_clifton);
  suite_add_tcase(s, tc);
  return sq_test_run(s, 1);
}
