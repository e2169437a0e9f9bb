/**
 * @file sq_friction.h  Point-wise friction laws of dynamic rupture (thesis §2.2 and §3.6.3, eq. 2.16-2.23,
 * 3.58-3.63): linear slip weakening with forced rupture, rate-and-state (aging and slip law) and fast
 * velocity weakening (TPV104, thesis eq. 9.1-9.2), as pure numerics; the rate-and-state laws optionally with
 * thermal pressurization of the pore fluid (tp_impl.h: Rice 2006, Noda & Lapusta 2010; TPV105).
 *
 * Conventions (the fault code works at one fault quadrature point in the fault-aligned frame: normal n
 * from the "-" to the "+" side, strike s, dip d; every vector below is (strike, dip)):
 * - sigma_n is the TOTAL normal stress, compression negative; the effective normal stress is
 *   max(0, -sigma_n) (eq. 2.17).
 * - tau_lock is the TOTAL shear traction the fault would carry if it stayed locked at this instant
 *   (initial stress + nucleation + locked Godunov traction).  The traction carried is
 *   tau = tau_lock - eta V (eq. 3.56/3.61) with eta = Zs- Zs+ / (Zs- + Zs+), Z = rho c_s.
 * - The slip rate V = v+ - v- is PARALLEL to tau_lock (slip relieves the traction; the thesis writes the
 *   same condition, eq. 2.19, with the opposite sign of tau), and there is no opening.
 * - Strength = cohesion + mu_f max(0, -sigma_n), cohesion >= 0 ADDS strength (SeisSol and TPV13 write
 *   cohesion as a negative number: TPV13's -0.2 MPa is cohesion = 0.2e6 here).
 * - Locked (|tau_lock| <= strength at the current friction): V = 0, tau = tau_lock.  Sliding:
 *   |tau| = strength and |V| = (|tau_lock| - strength) / eta (eq. 3.62/3.63).
 * - SI units: Pa, m, s.  Double precision throughout.
 *
 * The solver itself, sq_friction_solve_point(), is a `static inline` function in friction_impl.h so that
 * CPU and CUDA code share one source; this header holds the types and the host helpers.
 */
#ifndef SQ_FRICTION_H
#define SQ_FRICTION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Friction laws. */
typedef enum sq_friction_law {
  SQ_FRICTION_NONE = 0, /**< welded interface: always locked */
  SQ_FRICTION_LSW,      /**< linear slip weakening with forced rupture (eq. 2.23) */
  SQ_FRICTION_RS_AGING, /**< rate-and-state, regularised friction, aging law (eq. 2.22) */
  SQ_FRICTION_RS_SLIP,  /**< rate-and-state, regularised friction, slip law */
  SQ_FRICTION_RS_FVW,   /**< rate-and-state, fast velocity weakening (TPV104, eq. 9.1-9.2) */

  /* kinematic sources: imposed slip rates (kinematic_impl.h) */
  SQ_FRICTION_KINEMATIC_YOFFE,    /**< regularised Yoffe function */
  SQ_FRICTION_KINEMATIC_GAUSSIAN, /**< the smooth step's derivative (SeisSol's "Gaussian") */
  SQ_FRICTION_KINEMATIC_DELTA     /**< all slip at the onset time */
} sq_friction_law;

/** Is @p law a kinematic source (imposed slip rate) rather than a friction law? */
static inline int sq_friction_is_kinematic(sq_friction_law law) {
  return law == SQ_FRICTION_KINEMATIC_YOFFE || law == SQ_FRICTION_KINEMATIC_GAUSSIAN ||
         law == SQ_FRICTION_KINEMATIC_DELTA;
}

/** Status of sq_friction_solve_point(): the slip-rate solve failed or an input was not finite. */
#define SQ_FRICTION_NO_CONVERGENCE 1
/** Slip rate (m/s) above which a point counts as ruptured (SCEC convention). */
#define SQ_FRICTION_RUPTURE_SLIP_RATE 1e-3
/** forced_time that disables forced rupture. */
#define SQ_FRICTION_NEVER 1e300
/** Newton: relative tolerance on the slip-rate magnitude (width of the bracket around the root). */
#define SQ_FRICTION_V_RTOL 1e-12
/** Newton: absolute floor of the bracket width (m/s), only so that roots in the subnormal range end. */
#define SQ_FRICTION_V_ATOL 1e-300
/** Newton: residual tolerance relative to |tau_lock| (about 500 rounding units of the traction). */
#define SQ_FRICTION_RESIDUAL_RTOL 1e-13
/** Newton: most evaluations of one slip-rate solve (the extreme inputs of the test suite need <= 10). */
#define SQ_FRICTION_NEWTON_MAX_ITER 100
/** Passes of the state / slip-rate fixed point per temporal point (SeisSol's numberStateVariableUpdates). */
#define SQ_FRICTION_STATE_PASSES 2

/** Thermal pressurization (tp_impl.h): most wavenumbers of the spectral grid normal to the fault. */
#define SQ_TP_MAX_POINTS 60
/** Largest dimensionless wavenumber k w of the grid (w: half-width of the shear zone). */
#define SQ_TP_K_MAX 10.0
/** ln(k_max / k_min) of the grid: 60 points are log-spaced by 0.3, as in SeisSol (Noda & Lapusta 2010). */
#define SQ_TP_LOG_SPAN 17.7

/** Friction parameters of one fault point; each law reads only its own fields. */
typedef struct sq_friction_params {
  double mu_s;          /**< LSW: static friction coefficient */
  double mu_d;          /**< LSW: dynamic friction coefficient (<= mu_s) */
  double d_c;           /**< LSW: critical slip distance (m) */
  double cohesion;      /**< all laws: cohesion (Pa, >= 0, adds strength) */
  double forced_time;   /**< LSW: forced rupture time T_forced (s); SQ_FRICTION_NEVER disables it */
  double t0;            /**< LSW: forced rupture weakening time (s); <= 0 weakens instantly */
  double a;             /**< RS: direct-effect parameter */
  double b;             /**< RS: evolution-effect parameter */
  double L;             /**< RS: characteristic slip distance (m) */
  double f0;            /**< RS: reference friction coefficient */
  double V0;            /**< RS: reference slip rate (m/s) */
  double f_w;           /**< FVW: fully weakened friction coefficient */
  double V_w;           /**< FVW: weakening slip rate (m/s) */
  double tp_alpha_th;   /**< TP: thermal diffusivity (m^2/s) */
  double tp_alpha_hy;   /**< TP: hydraulic diffusivity (m^2/s) */
  double tp_rho_c;      /**< TP: volumetric heat capacity rho c (Pa/K) */
  double tp_lambda;     /**< TP: pore-pressure increase per unit temperature increase, undrained (Pa/K) */
  double tp_half_width; /**< TP: half-width w of the Gaussian shear zone (m) */
  double tp_T0;         /**< TP: initial temperature (K) */
  double tp_p0;         /**< TP: initial pore pressure (Pa), subtracted from the compression like the change */
  int tp_points;        /**< TP: wavenumbers of the grid (2..SQ_TP_MAX_POINTS); 0: no thermal pressurization */
  double slip_strike;   /**< kinematic: final slip along strike (m) */
  double slip_dip;      /**< kinematic: final slip down-dip (m) */
  double onset;         /**< kinematic: rupture onset time (s, >= 0) */
  double tau_s;         /**< kinematic Yoffe: smoothing time tau_S, half-width of the triangle (s, > 0) */
  double rise_time;     /**< kinematic: Yoffe rise time tau_R, or the Gaussian's duration (s, > 0) */
  double pc_v_star;     /**< Prakash-Clifton: reference slip rate V* (m/s, > 0) of the normal-stress regularisation */
  double pc_length;     /**< Prakash-Clifton: slip distance L (m, > 0); 0: no regularisation (all laws) */
} sq_friction_params;

/** History of one fault point, updated by every call of sq_friction_solve_point().  The first
 *  SQ_FRICTION_STATE_SAVED fields are those of every fault checkpoint (io/fault_output.c); the rest are written
 *  only by the runs that use them. */
typedef struct sq_friction_state {
  double slip[2];        /**< accumulated slip vector (m) */
  double slip_path;      /**< accumulated slip path length S = int |V| dt (m) */
  double slip_rate[2];   /**< slip rate of the last point (m/s); RS laws reuse its magnitude */
  double state;          /**< theta (aging/slip law, s) or psi (FVW, dimensionless); unused by LSW; kinematic
                              laws: the time up to which the slip has been imposed (s) */
  double mu;             /**< friction coefficient of the last point */
  double traction[2];    /**< total shear traction carried at the last point (Pa) */
  double normal_stress;  /**< total normal stress of the last point (Pa) */
  double rupture_time;   /**< first t with |V| > SQ_FRICTION_RUPTURE_SLIP_RATE, -1 before */
  double peak_slip_rate; /**< max |V| so far (m/s) */
  double work;           /**< frictional work density int tau . V dt (J/m^2) */
  double sigma_pc;       /**< normal stress the strength uses (Pa): the Prakash-Clifton regularised sigma* on a
                              bimaterial face with pc_length > 0, else the normal stress itself */
  double temperature;    /**< TP: temperature at the fault centre (K); T0 without thermal pressurization */
  double pressure;       /**< TP: pore pressure at the fault centre (Pa); p0 without thermal pressurization */
} sq_friction_state;

/** Leading doubles of sq_friction_state that every fault checkpoint holds (slip .. work). */
#define SQ_FRICTION_STATE_SAVED 13

/** Thermal pressurization: the spectral state of one fault point (tp_impl.h).  It lives in its own per-point
 *  array (sq_fault.tp), which only runs with thermal pressurization allocate, copy to a GPU and checkpoint. */
typedef struct sq_tp_state {
  double theta[SQ_TP_MAX_POINTS]; /**< cosine-transform coefficients of T - T0 */
  double pi[SQ_TP_MAX_POINTS];    /**< cosine-transform coefficients of p - p0 */
} sq_tp_state;

/**
 * @brief Validate the parameters @p law reads: LSW mu_s >= mu_d >= 0, d_c > 0, forced_time not NaN;
 *        RS a > 0, b >= 0, L > 0, V0 > 0, f0 finite; FVW also f0 > 0, f_w > 0, V_w > 0; all laws
 *        cohesion >= 0, and pc_length >= 0 with pc_v_star > 0 when pc_length > 0 (Prakash-Clifton).  All values must be
 * finite (forced_time may be +inf).
 * @param why      receives a message naming the parameter, e.g. "d_c = -0.1 must be > 0" (may be NULL)
 * @param why_len  size of @p why
 * @return SQ_SUCCESS or SQ_ERR_INPUT (nothing is printed: the caller adds the fault point).
 */
int sq_friction_check_params(sq_friction_law law, const sq_friction_params *p, char *why, size_t why_len);

/**
 * @brief Parse a law name: "none", "linear_slip_weakening", "rate_state_aging", "rate_state_slip",
 *        "rate_state_fast_velocity_weakening", "imposed_slip_rate_yoffe", "imposed_slip_rate_gaussian",
 *        "imposed_slip_rate_delta".
 * @return SQ_SUCCESS, or SQ_ERR_INPUT (with a message listing the names) for an unknown name.
 */
int sq_friction_law_from_name(const char *name, sq_friction_law *law);

/** @brief The name of @p law as parsed by sq_friction_law_from_name(), "unknown" for a bad value. */
const char *sq_friction_law_name(sq_friction_law law);

/**
 * @brief Steady-state value of the state variable at slip rate @p V > 0: theta_ss = L / V (aging and
 *        slip law), psi_ss(V) = a ln((2 V0 / V) sinh(f_ss(V) / a)) (FVW); 0 for the other laws.
 */
double sq_friction_steady_state(sq_friction_law law, const sq_friction_params *p, double V);

/**
 * @brief Initial history of a fault point: zero slip, work and peak slip rate, rupture_time = -1,
 *        slip_rate = (V_init, 0), traction = (tau_abs, 0), normal_stress = sigma_pc = sigma_n (the solver uses only
 *        the magnitude of slip_rate; the caller may set the directions).
 *        LSW: mu = mu_s.  RS laws (TPV101/104 way): the state solves f(V_init, state) = mu =
 *        tau_abs / max(0, -sigma_n), so that the initial traction is in equilibrium with V_init; when
 *        that ratio is not positive (no traction or no compression) the steady state at V_init is used.
 * @param V_init   initial slip-rate magnitude (m/s, > 0 for RS laws)
 * @param tau_abs  magnitude of the initial shear traction (Pa)
 * @param sigma_n  initial total normal stress (Pa, compression negative)
 */
void sq_friction_init_state(sq_friction_law law, const sq_friction_params *p, double V_init, double tau_abs,
                            double sigma_n, sq_friction_state *s);

/**
 * @brief Host wrapper of sq_friction_solve_point() (friction_impl.h) that reports a failure with its
 *        inputs through sq_error().  @p tp: the point's thermal-pressurization state (NULL when p->tp_points is 0).
 * @return SQ_SUCCESS or SQ_ERR_NUMERIC (the history @p s is then unchanged).
 */
int sq_friction_solve(sq_friction_law law, const sq_friction_params *p, double t, double dt, double sigma_n,
                      const double tau_lock[2], double eta, sq_friction_state *s, sq_tp_state *tp);

/**
 * @brief Validate the thermal-pressurization parameters of @p p when p->tp_points != 0: the law is a
 *        rate-and-state law, 2 <= tp_points <= SQ_TP_MAX_POINTS, tp_alpha_th, tp_alpha_hy, tp_rho_c,
 *        tp_half_width > 0, tp_lambda >= 0, tp_T0, tp_p0 finite.  Messages as sq_friction_check_params().
 */
int sq_tp_check_params(sq_friction_law law, const sq_friction_params *p, char *why, size_t why_len);

/**
 * @brief Closed-form temperature and pore-pressure changes at the centre of a Gaussian shear zone of
 *        half-width @p w heated at the constant rate @p tau_v (W/m^2) from t = 0 (Rice 2006, Andrews 2002):
 *        dT = (tau_v / rho_c) (sqrt(w^2 + 2 a_th t) - w) / (a_th sqrt(2 pi)),
 *        dp = Lambda (tau_v / rho_c) int_0^t ds / sqrt(2 pi (w^2 + 2 a_hy (t - s) + 2 a_th s)), in closed form.
 *        w = 0 gives the slip-on-a-plane solutions dT = (tau_v / rho_c) sqrt(t / (pi a_th)) and
 *        dp = Lambda (tau_v / rho_c) sqrt(t / pi) / (sqrt(a_th) + sqrt(a_hy)).
 */
void sq_tp_closed_form(double a_th, double a_hy, double rho_c, double lambda, double w, double tau_v, double t,
                       double *dT, double *dp);

/**
 * @brief The same changes as sq_tp_closed_form() from the convolution integrals themselves, by adaptive
 *        Simpson quadrature (relative tolerance 1e-13): dT = (tau_v / rho_c) int_0^t ds / sqrt(2 pi (w^2 +
 *        2 a_th (t - s))), dp as in sq_tp_closed_form().  An independent check of the closed forms.
 */
void sq_tp_quadrature(double a_th, double a_hy, double rho_c, double lambda, double w, double tau_v, double t,
                      double *dT, double *dp);

/**
 * @brief Thermal pressurization of one point heated at the constant rate @p tau_v from t = 0, with the spectral
 *        update of the rupture kernel (tp_impl.h, sq_tp_step) in steps of at most @p dt: the temperature
 *        @p T[k] and pore pressure @p P[k] at the fault centre at the increasing @p times[k].
 * @param p  thermal-pressurization parameters (tp_*, tp_points > 0)
 */
int sq_tp_constant_heating(const sq_friction_params *p, double tau_v, double dt, int nsample, const double *times,
                           double *T, double *P);

#ifdef __cplusplus
}
#endif

#endif
