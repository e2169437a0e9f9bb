/**
 * @file sq_source.h  Kinematic point sources (thesis eq. 2.25, 3.21, 3.29-3.35): source time functions,
 * moment tensors from strike/dip/rake, the discretisation of a point source in its element, the
 * source kernel (predictor and update), and the closed-form full-space solution used to verify it.
 *
 * Sign convention (docs/SOURCES.md derives it).  The elastic system of sq_physics.h is
 *   d(sigma)/dt - C : grad(v) = S_sigma,    rho dv/dt - div(sigma) = S_v.
 * A seismic moment tensor M(t) (N m, Aki & Richards' convention: M = M0 (n d + d n) for slip d on a
 * plane with normal n) is a stress glut, sigma = C : (eps - eps_I) with M = int C : eps_I dV, so
 *   S_sigma = -dM/dt delta(x - x_s)           (moment-rate tensor, subtracted),
 * and a single force F(t) (N) gives S_v = F(t) delta(x - x_s) / rho, i.e. dv/dt gets +F/rho.
 * A source is q s(t) delta(x - x_s) with a constant quantity vector q (9 entries, the ordering of
 * sq_physics.h) and a normalised rate function s(t) (the source time function, "STF").
 *
 * Frame: x, y, z with z up (x east, y north for strike/dip/rake).  No StarPU here.
 */
#ifndef SQ_SOURCE_H
#define SQ_SOURCE_H

#include "sq_physics.h"
#include "sq_solver.h"

/** Largest number of basis functions (order 7). */
#define SQ_MAXB 84

/** Shapes of source time functions; all are rates (moment rate per unit M0, or force per unit F). */
typedef enum sq_stf_kind {
  SQ_STF_GAUSSIAN = 0, /**< exp(-((t-delay)/width)^2) / (width sqrt(pi)); integral 1 */
  SQ_STF_RICKER = 1,   /**< (1 - 2 a u^2) exp(-a u^2), a = (pi f)^2, u = t - delay; peak 1, integral 0 */
  SQ_STF_BRUNE = 2,    /**< t/T^2 exp(-t/T) for t >= 0 with T = 1/(2 pi f_c); integral 1 */
  SQ_STF_LOH1 = 3,     /**< the same shape with T given directly (LOH.1: T = 0.1 s); integral 1 */
  SQ_STF_TABLE = 4     /**< piecewise-linear samples (time, value); zero outside the table */
} sq_stf_kind;

/** A source time function s(t).  All shapes are shifted by onset: s(t) = f(t - onset). */
typedef struct sq_stf {
  sq_stf_kind kind;
  double onset;     /**< time shift applied to every shape (causal shapes are zero before it) */
  double delay;     /**< GAUSSIAN, RICKER: centre of the pulse */
  double width;     /**< GAUSSIAN: 1/e half width */
  double frequency; /**< RICKER: peak frequency */
  double period;    /**< BRUNE, LOH1: T */
  int64_t nsample;  /**< TABLE: number of samples (>= 2) */
  double *time;     /**< TABLE: ascending sample times (owned by the enclosing sq_source_list) */
  double *value;    /**< TABLE: sample values */
} sq_stf;

/** @brief s(t). */
double sq_stf_rate(const sq_stf *stf, double t);
/** @brief ds/dt (one-sided from the right at the kinks of TABLE). */
double sq_stf_derivative(const sq_stf *stf, double t);
/** @brief Exact integral of s over [a, b] (closed forms; piecewise exact for TABLE). */
double sq_stf_integral(const sq_stf *stf, double a, double b);
/** @brief Cumulative integral of s from -infinity (or the start of a causal shape) to @p t. */
double sq_stf_cumulative(const sq_stf *stf, double t);
/**
 * @brief Time derivatives at @p t0 of the L2 projection of s onto polynomials of degree order-1 over
 * [t0, t0 + dt] (thesis eq. 3.29-3.32): deriv[i] = d^i p / dt^i (t0), i = 0..order-1.
 * The projection uses a composite Gauss-Legendre rule (4 x 8 points), so kinks of TABLE inside the
 * step are integrated accurately but not exactly; the update uses sq_stf_integral (exact).
 */
void sq_stf_taylor(const sq_stf *stf, double t0, double dt, int order, double *deriv);

/** What a point source is (the discretisation uses moment and force alike: both may be non-zero). */
typedef enum sq_source_kind {
  SQ_SOURCE_MOMENT = 0, /**< moment tensor: S_sigma = -M s(t) delta */
  SQ_SOURCE_FORCE = 1,  /**< single force: S_v = F s(t) delta / rho */
  SQ_SOURCE_SLIP = 2    /**< slip on a small fault patch (NRF sub-faults): the moment tensor
                             area C : (n d), symmetrised, with C of the containing element (mu of
                             the patch where it gives one), computed at discretisation */
} sq_source_kind;

/** One kinematic point source as the user gives it. */
typedef struct sq_point_source {
  sq_source_kind kind;
  double x[3];      /**< location */
  double moment[6]; /**< MOMENT: M_xx, M_yy, M_zz, M_xy, M_yz, M_xz (N m, scaled by s) */
  double force[3];  /**< FORCE: F_x, F_y, F_z (N, scaled by s) */
  double area;      /**< SLIP: patch area (m^2) */
  double mu;        /**< SLIP: shear modulus of the patch (Pa); 0: the element's */
  double normal[3]; /**< SLIP: unit normal n of the patch */
  double slip[3];   /**< SLIP: unit slip direction d (the slip rate s(t) is along it) */
  sq_stf stf;       /**< normalised time function */
  char origin[160]; /**< where it was defined ("run.yaml:12", "fault.fsrm:40"), for messages */
} sq_point_source;

/** A list of point sources and the storage of their tabulated time functions. */
typedef struct sq_source_list {
  int n, cap;
  sq_point_source *src;
} sq_source_list;

/** @brief Append a copy of @p src (its TABLE arrays are taken over by the list). */
int sq_source_list_push(sq_source_list *list, const sq_point_source *src);
/** @brief Free the list's sources and tables (the struct itself is not freed). */
void sq_source_list_clear(sq_source_list *list);

/**
 * @brief Moment tensor of a shear dislocation, M = m0 (n d^T + d n^T), in Voigt order
 * (xx, yy, zz, xy, yz, xz) for the frame x east, y north, z up.  Angles in degrees: strike
 * clockwise from north, dip down from horizontal to the right of strike, rake in the fault plane
 * from the strike direction, counter-clockwise seen from the hanging wall (90 = reverse).
 * @param normal, slip if not NULL: the unit fault normal (into the hanging wall, upwards) and slip direction
 */
void sq_moment_from_sdr(double strike, double dip, double rake, double m0, double moment[6], double normal[3],
                        double slip[3]);

/**
 * @brief Quantity vector q of a source (9 entries) in an element of material @p mat: (-M, F / rho).
 * For SQ_SOURCE_SLIP, M = area (lambda (n . d) I + mu (n d^T + d n^T)) with lambda of @p mat and mu of
 * the source, or of @p mat where the source's is 0 (Aki & Richards eq. 3.19 for a displacement jump d
 * across a patch of normal n).
 */
void sq_source_quantities(const sq_point_source *src, const sq_material *mat, double q[9]);

/** A point source discretised in its element (thesis eq. 3.21). */
typedef struct sq_source_point {
  int32_t elem;        /**< element index within its tile */
  int32_t index;       /**< index into the source list */
  double q[9];         /**< quantity vector (amplitude included) */
  double phi[SQ_MAXB]; /**< psi_k(xi_s) / (|J| M_k): the projected delta */
} sq_source_point;

/** The sources of one discretisation, grouped by tile (then by element). */
typedef struct sq_source_set {
  int n;
  sq_source_point *point;     /**< n, sorted by tile, element, source index */
  const sq_source_list *list; /**< the specifications (time functions), not owned */
  int ntile;
  int *tile_begin; /**< ntile + 1: points of tile t are [tile_begin[t], tile_begin[t+1]) */
  int predictor;   /**< 1 (default): the sources enter the predictor (eq. 3.33); 0: only the
                        update (eq. 3.35), for comparison (docs/VERIFICATION.md) */
} sq_source_set;

struct sq_locator;

/**
 * @brief Locate every source of @p list in @p disc and project it.  Sources outside the mesh are an
 * error that lists every one of them (with its origin) and the mesh bounding box.
 */
int sq_source_set_create(const sq_disc *disc, const struct sq_locator *loc, const sq_source_list *list,
                         sq_source_set **set);
/** Free (NULL is fine). */
void sq_source_set_destroy(sq_source_set *set);
/** Number of sources in tile @p tile. */
static inline int sq_source_set_count(const sq_source_set *s, int tile) {
  return s ? s->tile_begin[tile + 1] - s->tile_begin[tile] : 0;
}

/**
 * @brief Per-step coefficients of the sources of tile @p tile over [t0, t0 + dt]: for each source
 * (order + 1) numbers, the derivatives sq_stf_taylor() then the exact integral.
 */
void sq_source_set_coefficients(const sq_source_set *set, int tile, double t0, double dt, int order, double *coef);

/**
 * @brief Add @p n point sources (one tile's) over one ADER step of size @p dt (thesis eq. 3.33-3.35).
 * The predictor part: per element the source's own time derivatives D_s^{i+1} = -sum_e Kder_e D_s^i A*_e^T
 * + S^{(i)} with D_s^0 = 0 (eq. 3.33; linearity lets them be added to those of the homogeneous
 * predictor) and their time integral I_s (eq. 3.34).  Then tint += I_s, buffer += I_s, derivs[i] +=
 * D_s^i (where given), dofs += volume/local flux of I_s (the local update the element already applied
 * to its own tint), and dofs += phi q int s (eq. 3.35, last term).
 * @param coef  n x (order+1) from sq_source_set_coefficients
 * @param predictor  0: skip the predictor part (update only)
 * @param star, flux_local, dofs, tint, derivs, buffer  the tile's arrays (derivs, buffer may be NULL)
 */
void sq_kernel_point_sources(sq_precision prec, int order, int n, const sq_source_point *pts, const double *coef,
                             double dt, int predictor, const void *pack, const void *star, const void *flux_local,
                             void *dofs, void *tint, void *derivs, void *buffer, int nmech, const void *ane_coef,
                             void *ane);

/**
 * @brief Closed-form particle velocity of a point source in a homogeneous full space (Aki & Richards
 * eq. 4.23 for a force, eq. 4.29 for a moment tensor, differentiated in time), including near-,
 * intermediate- and far-field terms.
 * @param src  the source (moment tensor or force), with its time function
 * @param x    receiver location (!= src->x)
 * @param v    velocity at time @p t
 */
void sq_fullspace_velocity(const sq_point_source *src, const sq_material *mat, const double x[3], double t,
                           double v[3]);

struct sq_atten_band;
struct sq_visco;
/**
 * @brief Velocity seismogram of a point source (moment tensor or force) in a homogeneous viscoelastic full
 * space: sq_fullspace_velocity's solution in the frequency domain with the complex velocities of the relaxed
 * moduli lambda(iw), mu(iw) of @p v (sq_visco_moduli), transformed to the time domain with FFTW.
 * @param vel  nt x 3: the velocity at times j dt, j = 0 .. nt - 1 (the time function is sampled over a period of
 *             at least 16 nt dt centred on t = 0, and must vanish outside it)
 */
int sq_fullspace_velocity_visco(const sq_point_source *src, double rho, const struct sq_atten_band *band,
                                const struct sq_visco *v, const double x[3], double dt, int nt, double *vel);
/** @brief The matching displacement (for the wave-equation self-test). */
void sq_fullspace_displacement(const sq_point_source *src, const sq_material *mat, const double x[3], double t,
                               double u[3]);

#endif
