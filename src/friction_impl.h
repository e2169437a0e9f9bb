/**
 * @file friction_impl.h  The point-wise friction solver (thesis §3.6.3, eq. 3.58-3.63) as `static inline`
 * host/device functions shared by the CPU code and CUDA (.cu) files: double precision, <math.h> only, no
 * allocation, no output, no globals.  Conventions and the state layout are in sq_friction.h.
 */
#ifndef SQ_FRICTION_IMPL_H
#define SQ_FRICTION_IMPL_H

#ifdef __CUDACC__
#define SQ_FRICTION_HD __host__ __device__
#else
#define SQ_FRICTION_HD
#endif

#include <math.h>

#include "sq_friction.h"
#include "tp_impl.h"
#include "kinematic_impl.h"

#define SQ_FRICTION_LN2 0.69314718055994530942

/** ln(sinh(y)) for y > 0 without overflow or cancellation: sinh(y) = e^y (1 - e^-2y) / 2. */
static inline SQ_FRICTION_HD double sq_friction_log_sinh(double y) { return y - SQ_FRICTION_LN2 + log(-expm1(-2 * y)); }

/**
 * Linear slip weakening with forced rupture (eq. 2.23):
 * mu = mu_s - (mu_s - mu_d) max(min(1, S / d_c), f_time), written as a convex combination so that it is
 * exactly mu_s before weakening and exactly mu_d once fully weakened.
 */
static inline SQ_FRICTION_HD double sq_friction_lsw_mu(const sq_friction_params *p, double t, double slip_path) {
  double weight = slip_path / p->d_c;
  if (t >= p->forced_time) weight = fmax(weight, p->t0 > 0 ? (t - p->forced_time) / p->t0 : 1.0);
  weight = fmin(weight, 1.0);
  return (1 - weight) * p->mu_s + weight * p->mu_d;
}

/**
 * The regularised rate-and-state friction is f = a asinh(V c) (eq. 2.22, 9.1) with
 * c = exp(Psi / a) / (2 V0), Psi = f0 + b ln(V0 theta / L) (aging, slip law) or Psi = psi (FVW).
 * Returns ln c, which stays finite where c itself would overflow (small a).
 */
static inline SQ_FRICTION_HD double sq_friction_rs_log_c(sq_friction_law law, const sq_friction_params *p,
                                                         double state) {
  const double psi = law == SQ_FRICTION_RS_FVW ? state : p->f0 + p->b * (log(p->V0 / p->L) + log(state));
  return psi / p->a - log(2 * p->V0);
}

/**
 * f = a asinh(z), z = V e^log_c, and its logarithmic derivative V df/dV = a z / sqrt(1 + z^2) (finite for
 * every V >= 0); asinh(z) = ln(2z) + O(z^-2) is used for z > e^20 (error < 1e-18).
 */
static inline SQ_FRICTION_HD double sq_friction_rs_mu(double a, double log_c, double V, double *v_dmu_dv) {
  const double log_z = V > 0 ? log(V) + log_c : -INFINITY;
  if (log_z > 20) {
    *v_dmu_dv = a;
    return a * (log_z + SQ_FRICTION_LN2);
  }
  const double z = exp(log_z);
  *v_dmu_dv = a * z / sqrt(1 + z * z);
  return a * asinh(z);
}

/**
 * FVW steady-state friction (eq. 9.2): f_ss(V) = f_w + (f_LV - f_w) / (1 + (V/V_w)^8)^(1/8) with the
 * low-velocity steady state f_LV(V) = f0 - (b - a) ln(V/V0).
 */
static inline SQ_FRICTION_HD double sq_friction_fvw_mu_ss(const sq_friction_params *p, double V) {
  const double f_lv = p->f0 - (p->b - p->a) * log(V / p->V0);
  return p->f_w + (f_lv - p->f_w) / pow(1 + pow(V / p->V_w, 8), 0.125);
}

/** FVW steady state psi_ss(V) = a ln((2 V0 / V) sinh(f_ss(V) / a)), safe for tiny V and tiny a. */
static inline SQ_FRICTION_HD double sq_friction_fvw_psi_ss(const sq_friction_params *p, double V) {
  return p->a * (log(2 * p->V0) - log(V) + sq_friction_log_sinh(sq_friction_fvw_mu_ss(p, V) / p->a));
}

/**
 * State after @p dt at a constant slip rate V >= 0, from the exact solutions of the evolution ODEs with
 * x = V dt / L and the steady-state weight m = 1 - e^-x (computed by expm1, so V -> 0 has no 0/0):
 * aging  theta' = 1 - V theta / L:             theta e^-x + (L/V) m = theta e^-x + dt (m / x);
 * slip   theta' = -(V theta/L) ln(V theta/L):  ln theta - m ln(V theta / L);
 * FVW    psi' = -(V/L) (psi - psi_ss(V)):      psi - m (psi - psi_ss(V)).
 */
static inline SQ_FRICTION_HD double sq_friction_evolve_state(sq_friction_law law, const sq_friction_params *p,
                                                             double state, double V, double dt) {
  const double x = V * dt / p->L, m = -expm1(-x);
  if (law == SQ_FRICTION_RS_AGING) return state * exp(-x) + dt * (x > 0 ? m / x : 1.0);
  if (!(m > 0)) return state; /* no slip, no evolution */
  if (law == SQ_FRICTION_RS_SLIP) return state * exp(-m * (log(V) + log(state) - log(p->L)));
  return state - m * (state - sq_friction_fvw_psi_ss(p, V));
}

/**
 * Slip-rate magnitude of a rate-and-state point: the root V of (eq. 3.62 with eq. 3.58)
 *   g(V) = T - c - eta V - sn f(V),   f(V) = a asinh(V e^log_c),
 * T = |tau_lock|, c = cohesion, sn = max(0, -sigma_n).  g decreases strictly from g(0) = T - c to
 * g((T - c) / eta) <= 0, so the root lies in that bracket (V = 0 when T <= c).
 *
 * Two-sided safeguarded Newton.  g is convex in V and concave in ln V (asinh is concave in its argument
 * and convex in its logarithm), so one evaluation at any V > 0 gives, with r = g / (-V g'(V)),
 *   V (1 + r) <= root <= V e^r      (the Newton steps in V and in ln V).
 * These bounds shrink the bracket [lo, hi]; the next point is the Newton step of the model that is exact
 * in the current regime (V-linear: radiation damping or z < 1 dominates; else ln V-linear), or a bisection
 * (geometric while the bracket spans more than a factor 4) when that step is not inside the bracket.
 * Tolerance: |g| <= SQ_FRICTION_RESIDUAL_RTOL T, or a bracket hi - lo <= SQ_FRICTION_V_RTOL hi +
 * SQ_FRICTION_V_ATOL, which is rigorous: near the root hi - lo ~ V r^2 / 2, so it converges quadratically.
 * @return 0, or SQ_FRICTION_NO_CONVERGENCE (a value is not finite, or SQ_FRICTION_NEWTON_MAX_ITER steps).
 */
static inline SQ_FRICTION_HD int sq_friction_rs_slip_rate(double T, double c, double sn, double eta, double a,
                                                          double log_c, double guess, double *V_out, double *mu_out) {
  double lo = 0, hi = (T - c) / eta, v_dmu;
  if (!(hi > 0)) { /* held by cohesion alone, or no traction */
    *V_out = 0;
    *mu_out = 0;
    return hi <= 0 ? 0 : SQ_FRICTION_NO_CONVERGENCE;
  }
  double V = guess > 0 && guess <= hi ? guess : 0.5 * hi;
  for (int it = 0; it < SQ_FRICTION_NEWTON_MAX_ITER; ++it) {
    double mu = sq_friction_rs_mu(a, log_c, V, &v_dmu);
    const double g = T - c - eta * V - sn * mu;
    if (!isfinite(g)) return SQ_FRICTION_NO_CONVERGENCE;
    if (fabs(g) > SQ_FRICTION_RESIDUAL_RTOL * T) {
      const double r = g / (eta * V + sn * v_dmu), V_lin = V * (1 + r), V_log = V * exp(r);
      lo = fmax(lo, V_lin);
      hi = fmin(hi, V_log);
      if (hi - lo > SQ_FRICTION_V_RTOL * hi + SQ_FRICTION_V_ATOL) {
        const double step = eta * V >= sn * v_dmu || v_dmu <= 0.7 * a ? V_lin : V_log;
        if (step > 0 && step >= lo && step <= hi) {
          V = step;
        } else {
          const double lo_pos = lo > 0 ? lo : fmax(1e-300 * hi, 1e-300); /* geometric bisection: lo > 0 */
          V = hi > 4 * lo_pos ? sqrt(lo_pos) * sqrt(hi) : 0.5 * (lo + hi);
        }
        continue;
      }
      V = 0.5 * (lo + hi); /* lo may exceed hi by rounding only */
      mu = sq_friction_rs_mu(a, log_c, V, &v_dmu);
    }
    *V_out = V;
    *mu_out = mu;
    return isfinite(mu) ? 0 : SQ_FRICTION_NO_CONVERGENCE;
  }
  return SQ_FRICTION_NO_CONVERGENCE;
}

/**
 * Prakash-Clifton regularisation of the normal stress (Rubin & Ampuero 2007, eq. 4; SeisSol's friction law 6):
 * d sigma* / dt = -(|V| + V*) / L (sigma* - sigma_n).  Integrated exactly over @p dt at constant |V| and
 * sigma_n: sigma* = sigma_n + (sigma*_old - sigma_n) e^-(|V| + V*) dt / L.  Returns the new sigma*.
 */
static inline SQ_FRICTION_HD double sq_friction_prakash_clifton(double sigma_pc, double sigma_n, double V,
                                                                double v_star, double length, double dt) {
  return sigma_n + (sigma_pc - sigma_n) * exp(-(V + v_star) * dt / length);
}

/**
 * @brief Solve the friction law at one fault point for one temporal Gauss point and update its history.
 *
 * LSW is explicit in time: mu uses the slip path of the previous points, then the slip rate follows from
 * eq. 3.63.  Rate-and-state laws solve the coupled state / slip-rate system like SeisSol: with V_old the
 * slip-rate magnitude of the previous point and V_mid = V_old at first, SQ_FRICTION_STATE_PASSES times
 * (1) evolve the state over dt at constant V_mid (sq_friction_evolve_state), (2) solve g(V) = 0 with that
 * state (sq_friction_rs_slip_rate), (3) set V_mid = (V_old + V) / 2; the stored state is finally evolved
 * with the last V_mid.  mu is f(V, state of the last solve), so that |tau| = strength holds to the Newton
 * tolerance.  The slip rate is parallel to tau_lock, tau = tau_lock - eta V (exactly tau_lock when locked).
 * With thermal pressurization (p->tp_points > 0, tp_impl.h) the normal stress of each solve is the effective
 * one, max(0, -sigma_n - p_f): the pore pressure p_f at the end of dt for the heating tau V_mid, tau the
 * traction of the latest iterate (the previous point's at the first pass); the spectral state is advanced
 * once, after the last pass, with the last tau and V_mid.
 *
 * @param law       friction law (SQ_FRICTION_NONE: welded, always locked)
 * @param p         parameters, validated with sq_friction_check_params()
 * @param t         time of this temporal point (s)
 * @param dt        time this point represents (its Gauss weight; the weights of a step sum to the step)
 * @param sigma_n   total normal stress (Pa, compression negative)
 * @param tau_lock  total locked shear traction (strike, dip) (Pa)
 * @param eta       shear impedance factor Zs- Zs+ / (Zs- + Zs+) (Pa s / m, > 0)
 * @param s         history of the point, updated on success and left unchanged on failure
 * @param tps       the point's thermal-pressurization state when p->tp_points > 0 (updated with @p s), else
 *                  unused (NULL)
 * @return 0, or SQ_FRICTION_NO_CONVERGENCE when an input or the state is not finite, eta <= 0, dt < 0, the
 *         law is unknown, thermal pressurization has no state @p tps, or the slip-rate solve fails.
 */
static inline SQ_FRICTION_HD int sq_friction_solve_point(sq_friction_law law, const sq_friction_params *p, double t,
                                                         double dt, double sigma_n, const double tau_lock[2],
                                                         double eta, sq_friction_state *s, sq_tp_state *tps) {
  if (sq_kinematic_law(law)) return sq_kinematic_solve_point(law, p, t, dt, sigma_n, tau_lock, eta, s);
  const double T = hypot(tau_lock[0], tau_lock[1]);
  if (!(isfinite(T) && isfinite(sigma_n) && isfinite(eta) && eta > 0 && isfinite(dt) && dt >= 0 && !isnan(t)))
    return SQ_FRICTION_NO_CONVERGENCE;
  const double sn = sigma_n < 0 ? -sigma_n : 0; /* effective normal stress, eq. 2.17 */
  double V = 0, mu = 0, state = s->state;
  if (law == SQ_FRICTION_LSW) {
    mu = sq_friction_lsw_mu(p, t, s->slip_path);
    if (!isfinite(mu)) return SQ_FRICTION_NO_CONVERGENCE;
    const double excess = T - (p->cohesion + mu * sn);
    V = excess > 0 ? excess / eta : 0; /* eq. 3.63 */
  } else if (law == SQ_FRICTION_RS_AGING || law == SQ_FRICTION_RS_SLIP || law == SQ_FRICTION_RS_FVW) {
    const double V_old = hypot(s->slip_rate[0], s->slip_rate[1]);
    if (!(isfinite(V_old) && isfinite(s->state))) return SQ_FRICTION_NO_CONVERGENCE;
    double V_mid = V_old;
    /* thermal pressurization (tp_impl.h): each pass heats at tau V_mid with the traction of the latest
       iterate and solves with the pore pressure at the end of the step; the last pass's pair is stored */
    const int tp = p->tp_points > 0;
    if (tp && !tps) return SQ_FRICTION_NO_CONVERGENCE;
    double sn_eff = sn, tau_heat = hypot(s->traction[0], s->traction[1]), tp_resp[4] = {0, 0, 0, 0};
    if (tp) sq_tp_response(p, tps, dt, tp_resp); /* pore pressure = p0 + resp[2] + tau V resp[3] */
    for (int pass = 0; pass < SQ_FRICTION_STATE_PASSES; ++pass) {
      state = sq_friction_evolve_state(law, p, s->state, V_mid, dt);
      if (tp) {
        const double pf = p->tp_p0 + tp_resp[2] + tau_heat * V_mid * tp_resp[3];
        sn_eff = sigma_n + pf < 0 ? -(sigma_n + pf) : 0;
      }
      if (sq_friction_rs_slip_rate(T, p->cohesion, sn_eff, eta, p->a, sq_friction_rs_log_c(law, p, state),
                                   pass ? V : V_old, &V, &mu))
        return SQ_FRICTION_NO_CONVERGENCE;
      tau_heat = fmax(0.0, T - eta * V);
      V_mid = 0.5 * (V_old + V);
    }
    state = sq_friction_evolve_state(law, p, s->state, V_mid, dt);
    if (!isfinite(state)) return SQ_FRICTION_NO_CONVERGENCE;
    if (tp && !isfinite(sq_tp_step(p, s, tps, tau_heat * V_mid, dt))) return SQ_FRICTION_NO_CONVERGENCE;
  } else if (law != SQ_FRICTION_NONE) {
    return SQ_FRICTION_NO_CONVERGENCE;
  }
  const double scale = V > 0 ? V / T : 0; /* V parallel to tau_lock */
  for (int k = 0; k < 2; ++k) {
    s->slip_rate[k] = scale * tau_lock[k];
    s->traction[k] = tau_lock[k] - eta * s->slip_rate[k];
    s->slip[k] += s->slip_rate[k] * dt;
  }
  s->slip_path += V * dt;
  s->work += fmax(0.0, T - eta * V) * V * dt; /* tau . V = |tau| |V| for parallel vectors */
  s->state = state;
  s->mu = mu;
  s->normal_stress = sigma_n;
  if (V > s->peak_slip_rate) s->peak_slip_rate = V;
  if (s->rupture_time < 0 && V > SQ_FRICTION_RUPTURE_SLIP_RATE) s->rupture_time = t;
  return 0;
}

#endif
