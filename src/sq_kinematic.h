/**
 * @file sq_kinematic.h  Kinematic sources on the fault (imposed slip rates): host helpers.  The numerics are
 * the `static inline` functions of kinematic_impl.h, shared with CUDA; docs/RUPTURE.md, *Kinematic sources*.
 */
#ifndef SQ_KINEMATIC_H
#define SQ_KINEMATIC_H

#include <stddef.h>

#include "sq_friction.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Validate the parameters kinematic law @p law reads: slip_strike and slip_dip finite, onset finite and
 *        >= 0; Yoffe tau_s > 0 and rise_time > 0; Gaussian rise_time > 0.
 * @param why  receives a message naming the parameter (may be NULL)
 * @return SQ_SUCCESS or SQ_ERR_INPUT (nothing is printed).
 */
int sq_kinematic_check_params(sq_friction_law law, const sq_friction_params *p, char *why, size_t why_len);

/** @brief The slip-rate function of @p law at time @p t, normalised to unit integral (1/s): 0 before the onset
 *         and after the end; the delta function has no point values (0). */
double sq_kinematic_rate(sq_friction_law law, const sq_friction_params *p, double t);

/** @brief Its integral from the onset: the fraction of the final slip reached at @p t (sq_kinematic_fraction). */
double sq_kinematic_slip_fraction(sq_friction_law law, const sq_friction_params *p, double t);

/** @brief The time from which the slip is complete: onset + tau_R + 2 tau_S (Yoffe), onset + T (Gaussian),
 *         onset (delta). */
double sq_kinematic_end_time(sq_friction_law law, const sq_friction_params *p);

#ifdef __cplusplus
}
#endif

#endif
