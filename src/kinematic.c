/** @file kinematic.c  Kinematic sources on the fault: parameter checks and host wrappers of kinematic_impl.h. */
#include <math.h>
#include <stdio.h>

#include "sq_common.h"
#include "sq_kinematic.h"
#include "kinematic_impl.h"

/* "name = value must be <rule>" into why */
static int kin_fail(const char *name, double value, const char *rule, char *why, size_t why_len) {
  if (why && why_len) snprintf(why, why_len, "%s = %g must be %s", name, value, rule);
  return SQ_ERR_INPUT;
}

int sq_kinematic_check_params(sq_friction_law law, const sq_friction_params *p, char *why, size_t why_len) {
  if (why && why_len) why[0] = '\0';
  if (!isfinite(p->slip_strike)) return kin_fail("strike_slip", p->slip_strike, "finite", why, why_len);
  if (!isfinite(p->slip_dip)) return kin_fail("dip_slip", p->slip_dip, "finite", why, why_len);
  if (!(isfinite(p->onset) && p->onset >= 0))
    return kin_fail("rupture_onset", p->onset, "finite and >= 0 (the run starts at t = 0)", why, why_len);
  if (law == SQ_FRICTION_KINEMATIC_YOFFE && !(isfinite(p->tau_s) && p->tau_s > 0))
    return kin_fail("tau_S", p->tau_s, "finite and > 0 (the half-width of the Yoffe function's smoothing triangle)",
                    why, why_len);
  if ((law == SQ_FRICTION_KINEMATIC_YOFFE || law == SQ_FRICTION_KINEMATIC_GAUSSIAN) &&
      !(isfinite(p->rise_time) && p->rise_time > 0))
    return kin_fail("rise_time", p->rise_time,
                    law == SQ_FRICTION_KINEMATIC_YOFFE ? "finite and > 0 (the Yoffe function's rise time tau_R)"
                                                       : "finite and > 0 (the duration of the slip)",
                    why, why_len);
  if (!sq_friction_is_kinematic(law)) {
    if (why && why_len) snprintf(why, why_len, "friction law %d is not kinematic", (int)law);
    return SQ_ERR_INPUT;
  }
  return SQ_SUCCESS;
}

double sq_kinematic_rate(sq_friction_law law, const sq_friction_params *p, double t) {
  const double s = t - p->onset;
  if (law == SQ_FRICTION_KINEMATIC_YOFFE) return sq_kinematic_yoffe(s, p->tau_s, p->rise_time, 0);
  if (law == SQ_FRICTION_KINEMATIC_GAUSSIAN) return sq_kinematic_gaussian(s, p->rise_time, 0);
  return 0.0;
}

double sq_kinematic_slip_fraction(sq_friction_law law, const sq_friction_params *p, double t) {
  return sq_kinematic_fraction(law, p, t);
}

double sq_kinematic_end_time(sq_friction_law law, const sq_friction_params *p) {
  if (law == SQ_FRICTION_KINEMATIC_YOFFE) return p->onset + p->rise_time + 2 * p->tau_s;
  if (law == SQ_FRICTION_KINEMATIC_GAUSSIAN) return p->onset + p->rise_time;
  return p->onset;
}
