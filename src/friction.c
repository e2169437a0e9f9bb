/** @file friction.c  Host side of the friction laws: parameter checks, names, initial state, wrapper. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sq_common.h"
#include "sq_friction.h"
#include "friction_impl.h"
#include "sq_kinematic.h"

static const char *const sq_friction_names[] = {"none", "linear_slip_weakening", "rate_state_aging", "rate_state_slip",
                                                "rate_state_fast_velocity_weakening"};
/* the kinematic sources, from SQ_FRICTION_KINEMATIC_YOFFE on */
static const char *const sq_kinematic_names[] = {"imposed_slip_rate_yoffe", "imposed_slip_rate_gaussian",
                                                 "imposed_slip_rate_delta"};
#define SQ_FRICTION_NLAWS ((int)(sizeof(sq_friction_names) / sizeof(sq_friction_names[0])))

/** Rules a parameter value can be held to. */
enum sq_friction_rule { SQ_RULE_FINITE, SQ_RULE_NONNEGATIVE, SQ_RULE_POSITIVE };

/** Check one value; on failure write "name = value must be <rule>" to @p why. */
static int sq_friction_check_value(const char *name, double value, enum sq_friction_rule rule, char *why,
                                   size_t why_len) {
  static const char *const text[] = {"finite", ">= 0", "> 0"};
  const int ok =
      isfinite(value) && (rule == SQ_RULE_FINITE || value > 0 || (rule == SQ_RULE_NONNEGATIVE && value == 0));
  if (ok) return SQ_SUCCESS;
  if (why && why_len)
    snprintf(why, why_len, "%s = %g must be %s%s", name, value,
             isfinite(value) || rule == SQ_RULE_FINITE ? "" : "finite and ", text[rule]);
  return SQ_ERR_INPUT;
}

/** The Prakash-Clifton regularisation, which every law may use: off (pc_length = 0) or L > 0 and V* > 0. */
static int sq_friction_check_prakash_clifton(const sq_friction_params *p, char *why, size_t why_len) {
  SQ_CALL(sq_friction_check_value("pc_length", p->pc_length, SQ_RULE_NONNEGATIVE, why, why_len));
  if (p->pc_length == 0) return SQ_SUCCESS;
  return sq_friction_check_value("pc_v_star", p->pc_v_star, SQ_RULE_POSITIVE, why, why_len);
}

int sq_friction_check_params(sq_friction_law law, const sq_friction_params *p, char *why, size_t why_len) {
  if (why && why_len) why[0] = '\0';
  if (!p) {
    if (why && why_len) snprintf(why, why_len, "no friction parameters given");
    return SQ_ERR_INPUT;
  }
  if (!(isfinite(p->cohesion) && p->cohesion >= 0)) {
    if (why && why_len)
      snprintf(why, why_len,
               "cohesion = %g must be finite and >= 0 (it adds strength here; a negative SeisSol/TPV13 "
               "cohesion C is given as -C)",
               p->cohesion);
    return SQ_ERR_INPUT;
  }
  if (p->tp_points) SQ_CALL(sq_tp_check_params(law, p, why, why_len));
  SQ_CALL(sq_friction_check_prakash_clifton(p, why, why_len));
  switch (law) {
  case SQ_FRICTION_NONE: return SQ_SUCCESS;
  case SQ_FRICTION_LSW:
    SQ_CALL(sq_friction_check_value("mu_s", p->mu_s, SQ_RULE_NONNEGATIVE, why, why_len));
    SQ_CALL(sq_friction_check_value("mu_d", p->mu_d, SQ_RULE_NONNEGATIVE, why, why_len));
    SQ_CALL(sq_friction_check_value("d_c", p->d_c, SQ_RULE_POSITIVE, why, why_len));
    SQ_CALL(sq_friction_check_value("t0", p->t0, SQ_RULE_FINITE, why, why_len));
    if (p->mu_d > p->mu_s) {
      if (why && why_len)
        snprintf(why, why_len, "mu_d = %g > mu_s = %g: dynamic friction must not exceed static friction", p->mu_d,
                 p->mu_s);
      return SQ_ERR_INPUT;
    }
    if (isnan(p->forced_time) || p->forced_time == -INFINITY) {
      if (why && why_len)
        snprintf(why, why_len, "forced_time = %g must be a time (1e300 disables forced rupture)", p->forced_time);
      return SQ_ERR_INPUT;
    }
    return SQ_SUCCESS;
  case SQ_FRICTION_RS_AGING:
  case SQ_FRICTION_RS_SLIP:
  case SQ_FRICTION_RS_FVW: {
    const int fvw = law == SQ_FRICTION_RS_FVW;
    SQ_CALL(sq_friction_check_value("a", p->a, SQ_RULE_POSITIVE, why, why_len));
    /* aging/slip: b = 0 would leave the state unobservable (and init_state divides by b) */
    SQ_CALL(sq_friction_check_value("b", p->b, fvw ? SQ_RULE_NONNEGATIVE : SQ_RULE_POSITIVE, why, why_len));
    SQ_CALL(sq_friction_check_value("L", p->L, SQ_RULE_POSITIVE, why, why_len));
    SQ_CALL(sq_friction_check_value("V0", p->V0, SQ_RULE_POSITIVE, why, why_len));
    /* FVW: psi_ss needs sinh(f_ss / a) > 0 */
    SQ_CALL(sq_friction_check_value("f0", p->f0, fvw ? SQ_RULE_POSITIVE : SQ_RULE_FINITE, why, why_len));
    if (!fvw) return SQ_SUCCESS;
    SQ_CALL(sq_friction_check_value("f_w", p->f_w, SQ_RULE_POSITIVE, why, why_len));
    SQ_CALL(sq_friction_check_value("V_w", p->V_w, SQ_RULE_POSITIVE, why, why_len));
    return SQ_SUCCESS;
  }
  case SQ_FRICTION_KINEMATIC_YOFFE:
  case SQ_FRICTION_KINEMATIC_GAUSSIAN:
  case SQ_FRICTION_KINEMATIC_DELTA: return sq_kinematic_check_params(law, p, why, why_len);
  }
  if (why && why_len) snprintf(why, why_len, "unknown friction law %d", (int)law);
  return SQ_ERR_INPUT;
}

int sq_friction_law_from_name(const char *name, sq_friction_law *law) {
  SQ_CHECK(name && law, SQ_ERR_INTERNAL, "sq_friction_law_from_name: NULL argument");
  for (int k = 0; k < SQ_FRICTION_NLAWS; ++k)
    if (!strcmp(name, sq_friction_names[k])) {
      *law = (sq_friction_law)k;
      return SQ_SUCCESS;
    }
  for (int k = 0; k < 3; ++k)
    if (!strcmp(name, sq_kinematic_names[k])) {
      *law = (sq_friction_law)(SQ_FRICTION_KINEMATIC_YOFFE + k);
      return SQ_SUCCESS;
    }
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                  "unknown friction law '%s' (known: none, linear_slip_weakening, rate_state_aging, "
                  "rate_state_slip, rate_state_fast_velocity_weakening, imposed_slip_rate_yoffe, "
                  "imposed_slip_rate_gaussian, imposed_slip_rate_delta)",
                  name);
}

const char *sq_friction_law_name(sq_friction_law law) {
  if (sq_friction_is_kinematic(law)) return sq_kinematic_names[law - SQ_FRICTION_KINEMATIC_YOFFE];
  return (int)law >= 0 && (int)law < SQ_FRICTION_NLAWS ? sq_friction_names[law] : "unknown";
}

double sq_friction_steady_state(sq_friction_law law, const sq_friction_params *p, double V) {
  switch (law) {
  case SQ_FRICTION_RS_AGING:
  case SQ_FRICTION_RS_SLIP: return p->L / V;
  case SQ_FRICTION_RS_FVW: return sq_friction_fvw_psi_ss(p, V);
  default: return 0;
  }
}

void sq_friction_init_state(sq_friction_law law, const sq_friction_params *p, double V_init, double tau_abs,
                            double sigma_n, sq_friction_state *s) {
  memset(s, 0, sizeof(*s));
  s->slip_rate[0] = V_init;
  s->traction[0] = tau_abs;
  s->normal_stress = sigma_n;
  s->sigma_pc = sigma_n;
  s->rupture_time = -1;
  s->temperature = p->tp_T0;
  s->pressure = p->tp_p0;
  if (p->tp_points) sigma_n += p->tp_p0; /* the initial pore pressure lowers the compression too */
  if (law == SQ_FRICTION_LSW) {
    s->mu = p->mu_s;
    return;
  }
  if (law != SQ_FRICTION_RS_AGING && law != SQ_FRICTION_RS_SLIP && law != SQ_FRICTION_RS_FVW) return;
  const double sn = sigma_n < 0 ? -sigma_n : 0, mu = sn > 0 ? tau_abs / sn : 0;
  if (mu > 0 && isfinite(mu)) {
    /* invert mu = a asinh(V_init / (2 V0) exp(Psi / a)): Psi = a ln((2 V0 / V_init) sinh(mu / a)) */
    const double psi = p->a * (log(2 * p->V0) - log(V_init) + sq_friction_log_sinh(mu / p->a));
    s->state = law == SQ_FRICTION_RS_FVW ? psi : (p->L / p->V0) * exp((psi - p->f0) / p->b);
    s->mu = mu;
  } else {
    double dmu;
    s->state = sq_friction_steady_state(law, p, V_init);
    s->mu = sq_friction_rs_mu(p->a, sq_friction_rs_log_c(law, p, s->state), V_init, &dmu);
  }
}

/* the checkpoint's "state" rows are the leading doubles of sq_friction_state, slip .. work */
_Static_assert(offsetof(sq_friction_state, sigma_pc) == SQ_FRICTION_STATE_SAVED * sizeof(double),
               "SQ_FRICTION_STATE_SAVED must count the fields before sigma_pc");

int sq_friction_solve(sq_friction_law law, const sq_friction_params *p, double t, double dt, double sigma_n,
                      const double tau_lock[2], double eta, sq_friction_state *s, sq_tp_state *tp) {
  SQ_CHECK(sq_friction_solve_point(law, p, t, dt, sigma_n, tau_lock, eta, s, tp) == 0, SQ_ERR_NUMERIC,
           "friction law %s failed at t = %g (dt = %g): sigma_n = %g, tau_lock = (%g, %g), eta = %g, state = %g, "
           "previous slip rate = (%g, %g); an input is not finite or the slip-rate solve did not converge",
           sq_friction_law_name(law), t, dt, sigma_n, tau_lock[0], tau_lock[1], eta, s->state, s->slip_rate[0],
           s->slip_rate[1]);
  return SQ_SUCCESS;
}
