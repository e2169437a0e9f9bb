/**
 * @file sq_fault.h  Dynamic rupture faces (thesis §2.2, §3.6.3, ch. 7): the fault faces of one rank,
 * their fault-aligned frames, the 2D quadrature on each face, the per-point friction data, and the
 * kernel that imposes the rupture state on both sides of a face.
 *
 * A fault face has a "-" and a "+" side; the normal n points from "-" to "+", and the "+" side is the
 * one holding the configured reference point (SeisSol's XRef).  The fault frame is (n, s, d): strike
 * s = n x e_z / |n x e_z| (e_x for a horizontal fault), down-dip d = n x s.  Slip is the motion of
 * "+" relative to "-"; tractions are sigma . n in that frame, compression negative.
 *
 * The kernel works on one face at a time:
 * 1. project both sides' time derivatives onto the face's (O+1)^2 collapsed-Gauss points and rotate
 *    them into the fault frame (eq. 3.45-3.46);
 * 2. at O Gauss-Legendre times of the step evaluate the Taylor series, solve the Riemann problem with
 *    friction for the traction and the two sides' velocities (eq. 3.52-3.64, sq_friction.h);
 * 3. integrate the imposed states in time and back onto each side's basis (eq. 3.44), replacing the
 *    regular flux of that face (its flux matrices are zero in sq_disc).
 * Both sides of a face share a cluster; a face whose sides live on two ranks is solved on both,
 * identically, each rank updating its own side.
 */
#ifndef SQ_FAULT_H
#define SQ_FAULT_H

#include "sq_friction.h"
#include "sq_solver.h"

/** Friction data of one fault quadrature point. */
typedef struct sq_fault_point {
  sq_friction_params param;
  sq_friction_state state;
  double traction0[3];  /**< initial (normal, strike, dip) traction, Pa */
  double nucleation[3]; /**< (normal, strike, dip) traction added over the nucleation ramp, Pa */
} sq_fault_point;

/** One fault face with everything its kernel needs (flat: it is registered as a runtime block). */
typedef struct sq_fault_face {
  int64_t elem[2];  /**< local element of the "-" and "+" side */
  int64_t gid;      /**< global id: 4 x (mesh cell of "-") + its face */
  int32_t face[2];  /**< each side's local face */
  int32_t orient;   /**< orientation h of the "+" face seen from "-" */
  int32_t owned[2]; /**< 1: that side is ours and receives the update */
  int32_t slot[2];  /**< each side's tile within its fault tile's slot list */
  int32_t index[2]; /**< each side's element index within that tile */
  int32_t cluster;
  int32_t pad;
  double area;
  double frame[9];     /**< n, s, d */
  double tinv[81];     /**< global -> fault frame, row-major (sq_rotation_frame) */
  double flux[2][81];  /**< per side: (+-)|S|/|J| T A'(side material), row-major: fault-frame state -> flux */
  double impedance[4]; /**< Zp-, Zp+, Zs-, Zs+ */
} sq_fault_face;

/** A block of fault faces of one cluster: the unit of one rupture task. */
typedef struct sq_fault_tile {
  int64_t begin, end;                 /**< face range */
  int32_t station_begin, station_end; /**< its on-fault stations: a range of sq_fault.station */
  int cluster;
  int priority; /**< 1 if a side is a copy or ghost element (other ranks wait for it) */
  int nslot;    /**< element tiles its faces touch */
  int *slot;    /**< their indices, ascending */
} sq_fault_tile;

/** Columns of a station log row: t, slip rate (s, d), traction (s, d), normal stress, mu, state, slip (s, d),
 *  slip path, peak slip rate, rupture time, pore pressure, temperature (the last two: thermal pressurization). */
#define SQ_FAULT_LOG_COLS 15

/** Most points of a face rule: (O + 1)^2 for order O <= 7. */
#define SQ_FAULT_MAX_POINTS 64

/**
 * An on-fault station on one face: its values are the L2 projection of the face's point values onto the
 * polynomials of degree O - 1 on the face, evaluated at its position (sq_fault_station_weights), or the
 * values of the quadrature point it lies on.
 */
typedef struct sq_fault_station {
  int64_t face;                       /**< local fault face */
  int32_t id;                         /**< station number (index into the logs and the configuration's list) */
  int32_t point;                      /**< the quadrature point it lies on, or -1: interpolated */
  double chi[2];                      /**< its reference coordinates on the face (those of sq_fault.chi, "-" side) */
  double weight[SQ_FAULT_MAX_POINTS]; /**< value = sum_i weight[i] value_i over the face's points */
} sq_fault_station;

/** Time series of one on-fault station: rows of every step of its face's cluster, appended by the host
 *  (sq_fault_step_serial, or the runtime from the rupture tasks' station buffers at each wait). */
typedef struct sq_fault_station_log {
  int64_t n, cap;
  double *rows; /**< n x SQ_FAULT_LOG_COLS, grown with realloc */
} sq_fault_station_log;

/** Which side of a fault face fault.reference_point marks (docs/RUPTURE.md, *Reference point*). */
enum { SQ_FAULT_REF_NATIVE = 0, SQ_FAULT_REF_SEISSOL = 1 };
/** How the reference is read: a point (SeisSol's refPointMethod 0) or a direction (refPointMethod 1). */
enum { SQ_FAULT_REF_POINT = 0, SQ_FAULT_REF_VECTOR = 1 };

/** Options of the fault. */
typedef struct sq_fault_options {
  sq_friction_law law;
  double reference[3];      /**< a point on the "+" side (native point convention; see reference_convention) */
  int reference_convention; /**< SQ_FAULT_REF_NATIVE: the point is on the "+" side; SQ_FAULT_REF_SEISSOL: on
                                 the "-" side (SeisSol's "+", whose normal points from its "+" to its "-") */
  int reference_method;     /**< SQ_FAULT_REF_VECTOR: @p reference is a direction along the normal ("-" to "+") */
  double nucleation_time;   /**< ramp time T of the nucleation tractions (0: at once) */
  int nstation;             /**< on-fault stations at these positions (sq_fault_add_station) */
  const double (*station)[3];
  /** Several processes: the minimum of @p key over all of them (a collective call); NULL: one process.
   *  A station on an edge or vertex shared by faces of several processes goes to the face of smallest
   *  (global cell, face) key, so exactly one process logs it, the same face as on one process. */
  int64_t (*min_over_processes)(int64_t key, void *ctx);
  void *min_ctx;
  double pc_v_star; /**< Prakash-Clifton regularisation of the normal stress on bimaterial faces: V* (m/s) */
  double pc_length; /**< and L (m); 0: off.  sq_fault_create copies both into every point's parameters */
} sq_fault_options;

/**
 * Per-point initial values, filled by the caller (config evaluation) at the points' positions, in one
 * call for all @p n points of the rank (so that the caller can evaluate them threaded): point p lies at
 * x[3p..3p+2] on a face with frame frame[9p..9p+8] and fault tag group[p] (the face's boundary code as
 * the mesh keeps it, SQ_BC_RUPTURE = 3: SeisSol's easi group of fault points); the caller sets pt[p]
 * (friction parameters, traction0, nucleation, state.slip_rate[0] = the initial slip rate).
 */
typedef int (*sq_fault_init_fn)(void *ctx, int64_t n, const double *x, const double *frame, const int *group,
                                sq_fault_point *pt);

/** The fault of one rank. */
typedef struct sq_fault {
  sq_fault_options opt;
  int order, nbasis, npoint, ntime; /**< npoint = (O+1)^2 face points, ntime = O time points */
  double *ref;                      /**< flat reference data, layout and offsets in fault_impl.h */
  size_t ref_len;                   /**< doubles in ref */
  double *chi;                      /**< npoint x 2 reference-triangle points of the face rule */
  double *chi_weight;               /**< npoint weights (sum 1/2) */
  int64_t nface;
  sq_fault_face *face;
  sq_fault_point *point; /**< nface x npoint */
  sq_tp_state *tp;       /**< nface x npoint thermal-pressurization states; NULL when no point uses it */
  int ntile;
  sq_fault_tile *tile;
  int nstation;
  sq_fault_station_log *log; /**< nstation logs (stations of faces whose "-" side is ours) */
  int nlocal_station;        /**< stations on faces whose "-" side is ours */
  sq_fault_station *station; /**< those, ordered by face (each tile's are a range) */
} sq_fault;

/**
 * @brief Collect the rupture faces of @p disc (created with opt.rupture = 1), build frames and
 * operators, evaluate @p init at every quadrature point and validate the friction parameters
 * (errors name the point and the parameter).  Tiles with fault faces keep their derivatives.
 */
int sq_fault_create(sq_disc *disc, const sq_fault_options *opt, sq_fault_init_fn init, void *ctx, sq_fault **fault);
/** Free the fault (NULL is fine). */
void sq_fault_destroy(sq_fault *fault);

/** @brief Physical position of point @p p of fault face @p face. */
void sq_fault_point_position(const sq_fault *fault, const sq_disc *disc, int64_t face, int p, double x[3]);

/** Nucleation ramp G(t): 0 at t = 0, 1 from t = T on, smooth in between (TPV101/104). */
double sq_fault_ramp(double t, double T);

/**
 * @brief One step [t0, t0 + dt] of faces [0, nface) of @p faces (thesis eq. 3.44-3.64): reads each
 * side's derivatives from @p derivs_slot[slot] (element `index`, O blocks of B x 9 in precision
 * @p prec), updates the friction state in @p points (nface x npoint) and @p tp (nface x npoint, NULL
 * without thermal pressurization), and adds the imposed flux to the dofs of owned sides
 * (@p dofs_slot[slot]).  Returns the number of points whose friction solve did not converge (the first one's
 * face is put in @p bad_face).
 */
int64_t sq_fault_update(sq_precision prec, int order, int npoint, const double *ref, const sq_fault_options *opt,
                        int64_t nface, const sq_fault_face *faces, sq_fault_point *points, sq_tp_state *tp,
                        const void *const *derivs_slot, void *const *dofs_slot, double t0, double dt,
                        int64_t *bad_face);

/**
 * @brief The rows at time @p t of @p nstation stations @p st whose faces are numbered from @p face0
 * (a tile's first face), from the friction state @p points of that tile (face - face0 is the face's
 * index in it): @p rows[k * SQ_FAULT_LOG_COLS ...] for station k (sq_fault_station_row).
 */
void sq_fault_record_stations(int npoint, int nstation, const sq_fault_station *st, int64_t face0,
                              const sq_fault_point *points, double t, double *rows);

/**
 * @brief Weights of the L2 projection onto the face's polynomials evaluated at @p at: with the face rule
 * (@p np points @p chi, weights @p chi_weight) and the orthonormal face basis theta_m of degree < @p order
 * (sq_face_basis_eval), weight_i = chi_weight_i sum_m theta_m(at) theta_m(chi_i).  The rule is exact for
 * degree 2 order + 1, so a polynomial of degree < order is reproduced to rounding.  When @p at is within
 * 1e-9 of a point (reference units), *@p point is that point and the weights select it alone (its values
 * are then copied bitwise); else *@p point = -1.
 */
void sq_fault_station_weights(int order, int np, const double *chi, const double *chi_weight, const double at[2],
                              double *weight, int *point);

/**
 * @brief Log on-fault station @p station at reference coordinates @p chi of face @p face: the rupture
 * tasks then record it after every step of the face's cluster.  Several stations may share a face.  Call it
 * before the fault is attached to a runtime (sq_runtime_attach_fault registers the stations).
 */
int sq_fault_add_station(sq_fault *fault, int64_t face, const double chi[2], int station);

/** @brief Append @p row (SQ_FAULT_LOG_COLS values) to @p log. */
int sq_fault_log_append(sq_fault_station_log *log, const double *row);

/** @brief A face's key, unique over all processes: 4 x (global id of the cell of its "-" side) + that side's face. */
static inline int64_t sq_fault_face_key(const sq_disc *disc, const sq_fault_face *face) {
  return 4 * sq_mesh_global_cell(disc->mesh, disc->cell_of[face->elem[0]]) + face->face[0];
}

/**
 * @brief The face holding point @p x (within 1e-3 of its size off its plane) whose "-" side is ours,
 * the one of smallest sq_fault_face_key where several do, and the reference coordinates @p chi of x's
 * projection onto it (x = p0 + chi1 (p1 - p0) + chi2 (p2 - p0) over the "-" face's vertices, as for
 * sq_fault.chi); *@p face = -1 if none.  @p dist: distance to the nearest face.
 */
void sq_fault_locate(const sq_fault *fault, const sq_disc *disc, const double x[3], int64_t *face, double chi[2],
                     double *dist);

/** @brief Run sq_fault_update over every fault tile of cluster-agnostic serial stepping (GTS). */
int sq_fault_step_serial(sq_fault *fault, sq_disc *disc, double t0, double dt);

/**
 * @brief Averages over face @p face's points (its quadrature weights) of every field of the friction state,
 * as the fault snapshots write them: @p avg, and the mean slip-rate magnitude @p slip_rate (the mean of
 * |V|, not |mean V|).  The peak slip rate is each point's running maximum (SeisSol's PSR), averaged like
 * the rest; the rupture time is averaged once every point has ruptured, -1 before.
 */
void sq_fault_face_average(const sq_fault *fault, int64_t face, sq_friction_state *avg, double *slip_rate);

/** Frictional work (J) and seismic moment (N m) of the points of faces we own the "-" side of. */
void sq_fault_energies(const sq_fault *fault, const sq_disc *disc, double *work, double *moment);
/**
 * SeisSol's fault energies (its energy-output.rst) over the points of faces we own the "-" side of, with the
 * shear traction change dT(t) = T(t) - T0 from the initial traction T0 (without nucleation), the slip vector
 * D and the slip path S:
 * @p out[0] total frictional work   int_fault int_0^t -dT . V dt dA = int_fault (T0 . D - W) dA, W = int T . V dt;
 * @p out[1] static frictional work  int_fault -dT(t) . D(t) / 2 dA;
 * @p out[2] seismic moment          int_fault mu S dA, mu the mean of both sides' shear moduli.
 * Both works are positive where the traction dropped while the fault slipped; out[0] - out[1] is the
 * radiated energy.
 */
void sq_fault_energies_seissol(const sq_fault *fault, const sq_disc *disc, double out[3]);

#endif
