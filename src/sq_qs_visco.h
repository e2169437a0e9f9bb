/**
 * @file sq_qs_visco.h  Maxwell viscoelastic crustal deformation after a fault slip: the elastic (t = 0) solution
 * with the slip as a split-node dislocation, then time steps of the stress relaxation (Algorithm 1 of the papers
 * in docs/POSTSEISMIC.md).  Equations: equilibrium sigma_ij,j = 0, the Maxwell law
 *   d sigma / dt = lambda tr(d eps/dt) I + 2 mu d eps/dt - (mu / eta) dev(sigma),
 * eps the symmetric gradient of u; eta per cell (INFINITY: elastic).
 *
 * Discretisation per step (the papers' Algorithm 1 with beta = D^-1 A sigma = dev(sigma) / (2 eta), the viscous
 * strain rate): the stress lives at each cell's 4 quadrature points, and
 *   K^v du = -sum_e int B^T (sigma^n - dt D^v beta^n),   sigma^{n+1} = sigma^n + D^v (B du - dt beta^n),
 * with D^v = (D^-1 + alpha dt beta')^-1.  For the isotropic Maxwell law D^v is isotropic: the bulk modulus of D
 * and the shear modulus mu / (1 + alpha dt mu / eta), so K^v is the elastic operator of sq_qs.h with these
 * moduli (a view of the mesh with its own geo arrays).  alpha = 1/2 (the default) is the trapezoidal rule
 * (second order in dt), alpha = 1 backward Euler (first order).
 *
 * Prescribed displacements keep their t = 0 values (du = 0 there); the slip does not change after t = 0.
 * The predictor (opts.predictor): each step's solve starts from an extrapolation of the last accurate increments:
 * the least-squares line through the last 7 (the papers' linear predictor; with 2..6 of them, the line through
 * the last two; with one, that one).  sq_qs_visco_predict_weights gives the weights (for 4 steps ahead they are
 * the papers' (-17, -10, -3, 4, 11, 18, 25) / 28).  The converged solution does not depend on the start: the
 * tolerance is relative to the norm of the step's right-hand side either way (at least 1e-3 of the norm of the
 * elastic stress's nodal forces |B^T sigma| summed per node: steps whose right-hand side is round-off, as with
 * eta = INFINITY, are not solved to round-off of round-off).
 *
 * Several steps together (opts.multistep = W > 1; the papers' Algorithm 1 with W = 4): the window of steps
 * n+1 .. n+W is one solve of W vectors (sq_qs_solve_multi: each product reads an element once for the W), each
 * step from the stress its predecessors' current estimates give.  A pass computes the W right-hand sides from
 * the stresses, runs opts.pass_iters outer iterations of the W-vector solve (convergence judged on step n+1, whose
 * stress is accurate), and updates the stresses of steps n+2 .. n+W from the new estimates; passes repeat until step
 * n+1 meets the tolerance (lines 13-17).  Then step n+1 is accepted, the stress after the last step's estimate
 * starts a new last step (lines 18-19), whose increment starts from the regression line through the last 7
 * accurate increments, W steps ahead (from 7 accurate steps on), the extrapolation 2 du_{k-1} - du_{k-2} of the two
 * estimates before it (4 to 6 accurate steps: the papers' second-order Adams-Bashforth), or zero (lines 7-12).
 * Step n+1's solution is that of the one-step path to the tolerance (its stress is accurate, the tolerance is
 * relative to its right-hand side); a pass ending only when step n+1 has converged (pass_iters 0) leaves the later
 * steps solved against their predecessors' start values, which gains nothing: short passes let the estimates of
 * the window improve together.
 *
 * No StarPU here: the products may run as tasks through sq_qs_ops (runtime/), built for sq_qs_visco_mesh(v).
 */
#ifndef SQ_QS_VISCO_H
#define SQ_QS_VISCO_H

#include "sq_qs.h"

/** Quadrature points per cell, stress components per point (11, 22, 33, 12, 23, 13). */
#define SQ_QS_NQ      4
#define SQ_QS_NSTRESS 6

/** Settings of a viscoelastic run. */
typedef struct sq_qs_visco_opts {
  double dt;                /**< time step (the unit of eta / mu: e.g. eta in Pa yr, mu in Pa -> years) */
  double alpha;             /**< 0.5 (trapezoidal, default) or 1 (backward Euler); in (0, 1] */
  int predictor;            /**< 1: start each step's solve from the predictor (default), 0: from zero */
  int multistep;            /**< steps solved together (1 .. SQ_QS_MAXVEC; 1: one at a time) */
  int pass_iters;           /**< multistep > 1: outer iterations per pass of the window's solve (default 2; 0: a
                                 pass ends only when the window's first step has converged) */
  sq_qs_solver_opts solver; /**< tolerances of every solve (sq_qs_solver_opts_default) */
} sq_qs_visco_opts;

void sq_qs_visco_opts_default(sq_qs_visco_opts *o);

/** Iteration statistics, summed over the solves since creation (the elastic one included; with multistep > 1 a
 *  solve is one pass of a window, an iteration one iteration of the W-vector solve). */
typedef struct sq_qs_visco_stats {
  int nsolve;                      /**< solves (1 elastic + steps) */
  int64_t outer_iters;             /**< double-precision outer iterations */
  int64_t inner_iters;             /**< single-precision P2 inner iterations */
  int64_t coarse_iters;            /**< single-precision P1 inner iterations */
  double max_rel_residual;         /**< the largest final relative residual (recomputed in double) */
  int last_outer;                  /**< the last solve's outer iterations (multistep > 1: the last step's passes) */
  int64_t last_inner, last_coarse; /**< the last solve's inner iterations (likewise) */
} sq_qs_visco_stats;

typedef struct sq_qs_visco sq_qs_visco;

/**
 * @brief A viscoelastic problem on @p qm (boundary conditions and fault already set with sq_qs_set_bc and
 * sq_qs_set_fault; not owned, must outlive the object) with the viscosity @p eta of each cell (ncell values, > 0,
 * INFINITY for elastic cells; copied).  Errors name the first bad cell or setting.
 */
int sq_qs_visco_create(const sq_qs_mesh *qm, const double *eta, const sq_qs_visco_opts *o, sq_qs_visco **v);
void sq_qs_visco_destroy(sq_qs_visco *v);

/** The mesh view whose operator is K^v (for building sq_qs_ops for the steps). */
const sq_qs_mesh *sq_qs_visco_mesh(const sq_qs_visco *v);

/**
 * @brief The elastic solution at t = 0: @p u (3 nnode) the continuous field (fault offsets per cell with
 * sq_qs_cell_displacement), and the stress at every quadrature point.  @p ops: for qm (NULL: serial loops).
 */
int sq_qs_visco_elastic(sq_qs_visco *v, const sq_qs_ops *ops, double *u);

/**
 * @brief One time step t_n -> t_{n+1} = t_n + dt: @p u (3 nnode) becomes the continuous field at t_{n+1}.
 * @p ops: for sq_qs_visco_mesh(v) (NULL: serial loops).  Call sq_qs_visco_elastic first.
 */
int sq_qs_visco_step(sq_qs_visco *v, const sq_qs_ops *ops, double *u);

/** The time of the current state (0 after the elastic solve) and the steps taken. */
double sq_qs_visco_time(const sq_qs_visco *v);
int sq_qs_visco_nstep(const sq_qs_visco *v);

/** The statistics so far. */
void sq_qs_visco_get_stats(const sq_qs_visco *v, sq_qs_visco_stats *s);

/** The stress of cell @p c at its quadrature points: SQ_QS_NQ x SQ_QS_NSTRESS values (read only). */
const double *sq_qs_visco_stress(const sq_qs_visco *v, int64_t c);

/**
 * @brief Predictor weights: the least-squares line through values at steps 1..@p n (n >= 2) evaluated at step
 * n + @p ahead: w[0..n-1].  n = 7, ahead = 4: the papers' weights.
 */
void sq_qs_visco_predict_weights(int n, int ahead, double *w);

#endif
