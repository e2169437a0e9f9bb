/**
 * @file qs_visco.c  Maxwell viscoelastic time stepping (sq_qs_visco.h): the elastic solution, the stress per
 * quadrature point, the implicit stress update with D^v, the right-hand side from the stress history, and the
 * predictor of each step's start value.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_qs_visco.h"

enum { NPRED = 7 }; /* accurate increments the linear predictor fits */

struct sq_qs_visco {
  const sq_qs_mesh *qm;
  sq_qs_mesh view; /* qm with the geo arrays of K^v, no fault offsets, zero prescribed values */
  double *geo_v;   /* ncell x SQ_QS_NGEO: D^v's moduli */
  float *geo_v32;
  double *zero_bc;
  double *eta;   /* ncell */
  double *sigma; /* ncell x SQ_QS_NQ x SQ_QS_NSTRESS: the accurate stress (one of sig_mem) */
  double *du_hist[NPRED];
  int nhist; /* accurate increments kept (the newest at du_hist[nhist - 1]) */
  double *f, *du;
  sq_qs_visco_opts o;
  sq_qs_visco_stats st;
  double ref; /* norm of the elastic right-hand side (the scale of the steps' tolerances) */
  int nstep, have_elastic;
  /* multi-step mode (o.multistep = W > 1): the window of steps nstep+1 .. nstep+W, their increments' estimates
   * interleaved (wdu, 3 nnode W; slot 0 the step being solved), right-hand sides (wf) and the stresses at the start
   * of each (wsig[0] = sigma, accurate; the others from the estimates before them); spare: the next window's */
  double *sig_mem[SQ_QS_MAXVEC + 1];
  double *wsig[SQ_QS_MAXVEC], *spare;
  double *wdu, *wf;
  int have_window;
};

void sq_qs_visco_opts_default(sq_qs_visco_opts *o) {
  memset(o, 0, sizeof(*o));
  o->dt = 1;
  o->alpha = 0.5;
  o->predictor = 1;
  o->multistep = 1;
  o->pass_iters = 2;
  sq_qs_solver_opts_default(&o->solver);
}

/* The shear modulus of D^v: mu / (1 + alpha dt mu / eta). */
static double mu_v(double mu, double eta, double alpha, double dt) { return mu / (1 + alpha * dt * mu / eta); }

int sq_qs_visco_create(const sq_qs_mesh *qm, const double *eta, const sq_qs_visco_opts *o, sq_qs_visco **out) {
  *out = NULL;
  if (!(o->dt > 0) || !isfinite(o->dt))
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "viscoelastic: the time step must be positive (got %g)", o->dt);
  if (!(o->alpha > 0 && o->alpha <= 1))
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "viscoelastic: alpha must lie in (0, 1] (got %g)", o->alpha);
  if (o->pass_iters < 0)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "viscoelastic: pass_iters must be >= 0 (got %d)", o->pass_iters);
  if (o->multistep < 1 || o->multistep > SQ_QS_MAXVEC)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "viscoelastic: multistep must lie in 1 .. %d (got %d)",
                    SQ_QS_MAXVEC, o->multistep);
  for (int64_t c = 0; c < qm->ncell; ++c)
    if (!(eta[c] > 0))
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "viscoelastic: cell %lld has viscosity %g; it must be positive (INFINITY: elastic)", (long long)c,
                      eta[c]);
  sq_qs_visco *v = NULL;
  int ierr = SQ_CALLOC(v, 1);
  if (ierr) return ierr;
  v->qm = qm;
  v->o = *o;
  const int64_t n = 3 * qm->nnode, nc = qm->ncell;
  ierr = SQ_CALLOC(v->geo_v, SQ_QS_NGEO * nc);
  if (!ierr) ierr = SQ_CALLOC(v->geo_v32, SQ_QS_NGEO * nc);
  if (!ierr) ierr = SQ_CALLOC(v->zero_bc, n);
  if (!ierr) ierr = SQ_CALLOC(v->eta, nc);
  const int nsig = o->multistep > 1 ? o->multistep + 1 : 1;
  for (int k = 0; k < nsig && !ierr; ++k) ierr = SQ_CALLOC(v->sig_mem[k], SQ_QS_NQ * SQ_QS_NSTRESS * nc);
  if (!ierr && o->multistep > 1) ierr = SQ_CALLOC(v->wdu, n * o->multistep);
  if (!ierr && o->multistep > 1) ierr = SQ_CALLOC(v->wf, n * o->multistep);
  if (!ierr) ierr = SQ_CALLOC(v->f, n);
  if (!ierr) ierr = SQ_CALLOC(v->du, n);
  for (int k = 0; k < NPRED && !ierr; ++k) ierr = SQ_CALLOC(v->du_hist[k], n);
  if (ierr) {
    sq_qs_visco_destroy(v);
    return ierr;
  }
  memcpy(v->eta, eta, sizeof(double) * (size_t)nc);
  v->sigma = v->sig_mem[0];
  for (int64_t c = 0; c < nc; ++c) {
    const double *g = qm->geo + SQ_QS_NGEO * c;
    double *gv = v->geo_v + SQ_QS_NGEO * c;
    memcpy(gv, g, sizeof(double) * SQ_QS_NGEO);
    const double lam = g[10], mu = g[11], kb = lam + 2 * mu / 3, muv = mu_v(mu, eta[c], o->alpha, o->dt);
    gv[11] = muv;
    gv[10] = isinf(eta[c]) ? lam : kb - 2 * muv / 3;
    for (int k = 0; k < SQ_QS_NGEO; ++k) v->geo_v32[SQ_QS_NGEO * c + k] = (float)gv[k];
  }
  v->view = *qm;
  v->view.geo = v->geo_v;
  v->view.geo32 = v->geo_v32;
  v->view.ubc = v->zero_bc;
  v->view.noff = 0;
  *out = v;
  return SQ_SUCCESS;
}

void sq_qs_visco_destroy(sq_qs_visco *v) {
  if (!v) return;
  SQ_FREE(v->geo_v);
  SQ_FREE(v->geo_v32);
  SQ_FREE(v->zero_bc);
  SQ_FREE(v->eta);
  for (int k = 0; k <= SQ_QS_MAXVEC; ++k) SQ_FREE(v->sig_mem[k]);
  SQ_FREE(v->wdu);
  SQ_FREE(v->wf);
  SQ_FREE(v->f);
  SQ_FREE(v->du);
  for (int k = 0; k < NPRED; ++k) SQ_FREE(v->du_hist[k]);
  SQ_FREE(v);
}

const sq_qs_mesh *sq_qs_visco_mesh(const sq_qs_visco *v) { return &v->view; }
double sq_qs_visco_time(const sq_qs_visco *v) { return v->nstep * v->o.dt; }
int sq_qs_visco_nstep(const sq_qs_visco *v) { return v->nstep; }
void sq_qs_visco_get_stats(const sq_qs_visco *v, sq_qs_visco_stats *s) { *s = v->st; }
const double *sq_qs_visco_stress(const sq_qs_visco *v, int64_t c) {
  return v->sigma + (size_t)SQ_QS_NQ * SQ_QS_NSTRESS * (size_t)c;
}

void sq_qs_visco_predict_weights(int n, int ahead, double *w) {
  const double xm = (n + 1) / 2.0, x0 = n + ahead;
  double sxx = 0;
  for (int k = 1; k <= n; ++k) sxx += (k - xm) * (k - xm);
  for (int k = 1; k <= n; ++k) w[k - 1] = 1.0 / n + (k - xm) * (x0 - xm) / sxx;
}

static void count(sq_qs_visco *v, const sq_qs_solver_opts *so) {
  v->st.nsolve++;
  v->st.outer_iters += so->outer_iters;
  v->st.inner_iters += so->inner_iters;
  v->st.coarse_iters += so->coarse_iters;
  v->st.last_outer = so->outer_iters;
  v->st.last_inner = so->inner_iters;
  v->st.last_coarse = so->coarse_iters;
  if (so->rel_residual > v->st.max_rel_residual) v->st.max_rel_residual = so->rel_residual;
}

/* The iterations of one pass of a window's solve (the residual counts once the step is accepted). */
static void count_pass(sq_qs_visco *v, const sq_qs_solver_opts *so) {
  const double r = v->st.max_rel_residual;
  count(v, so);
  v->st.max_rel_residual = r;
}

/* The nodal values of cell c: u gathered (with the fault offsets when offsets is set). */
static void gather(const sq_qs_mesh *qm, const double *u, int64_t c, int offsets, double *xe) {
  for (int a = 0; a < 10; ++a) {
    if (offsets) sq_qs_cell_displacement(qm, u, c, a, xe + 3 * a);
    else
      for (int i = 0; i < 3; ++i) xe[3 * a + i] = u[3 * qm->cell_node[10 * c + a] + i];
  }
}

/* sigma += D' eps with the Lame parameters (lam, mu) of D'. */
static void add_hooke(double lam, double mu, const double *eps, double *sig) {
  const double tr = eps[0] + eps[1] + eps[2];
  for (int k = 0; k < 3; ++k) sig[k] += lam * tr + 2 * mu * eps[k];
  for (int k = 3; k < 6; ++k) sig[k] += 2 * mu * eps[k];
}

/* dev(sigma) scaled by s, subtracted: sigma -= s dev(sigma). */
static void sub_dev(double s, const double *sig, double *out) {
  const double p = (sig[0] + sig[1] + sig[2]) / 3;
  for (int k = 0; k < 3; ++k) out[k] -= s * (sig[k] - p);
  for (int k = 3; k < 6; ++k) out[k] -= s * sig[k];
}

int sq_qs_visco_elastic(sq_qs_visco *v, const sq_qs_ops *ops, double *u) {
  const sq_qs_mesh *qm = v->qm;
  sq_qs_solver_opts so = v->o.solver;
  so.use_start = 0;
  so.ref_norm = 0;
  SQ_CALL(sq_qs_solve(qm, ops, NULL, u, &so));
  count(v, &so);
  /* the scale of the later steps' tolerance: the elastic forces' norm */
  double *fe = v->f;
  memset(fe, 0, sizeof(double) * 3 * (size_t)qm->nnode);
  for (int64_t c = 0; c < qm->ncell; ++c) {
    const double *g = qm->geo + SQ_QS_NGEO * c;
    double xe[30], eps[SQ_QS_NQ * 6], ye[30];
    gather(qm, u, c, 1, xe);
    sq_qs_elem_p2_strain_f64(g, xe, eps);
    double *sig = v->sigma + SQ_QS_NQ * SQ_QS_NSTRESS * c;
    memset(sig, 0, sizeof(double) * SQ_QS_NQ * SQ_QS_NSTRESS);
    for (int q = 0; q < SQ_QS_NQ; ++q) add_hooke(g[10], g[11], eps + 6 * q, sig + 6 * q);
    /* the magnitude of the element forces of the stress (one cell's share), for the reference norm */
    sq_qs_elem_p2_stress_forces_f64(g, sig, ye);
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i) fe[3 * qm->cell_node[10 * c + a] + i] += fabs(ye[3 * a + i]);
  }
  /* (under MPI: summed over the ranks at shared nodes, each node counted once) */
  SQ_CALL(sq_qs_exchange_f64(ops, 0, 3, fe));
  for (int64_t i = 0; i < 3 * qm->nnode; ++i)
    if (qm->fixed[i]) fe[i] = 0;
  double s = sq_qs_dot_local_f64(qm, 3, 3 * qm->nnode, fe, fe);
  SQ_CALL(sq_qs_allreduce(ops, &s, 1));
  v->ref = sqrt(s);
  v->nstep = 0;
  v->nhist = 0;
  v->have_window = 0;
  v->have_elastic = 1;
  return SQ_SUCCESS;
}

/* The start value of the next increment from the accurate increments kept. */
static void predict(const sq_qs_visco *v, double *du) {
  const int64_t n = 3 * v->qm->nnode;
  const int h = v->nhist;
  memset(du, 0, sizeof(double) * (size_t)n);
  if (h == 0) return;
  if (h == 1) {
    memcpy(du, v->du_hist[0], sizeof(double) * (size_t)n);
    return;
  }
  double w[NPRED];
  const int m = h >= NPRED ? NPRED : 2;
  sq_qs_visco_predict_weights(m, 1, w);
  for (int k = 0; k < m; ++k) {
    const double *d = v->du_hist[h - m + k];
    for (int64_t i = 0; i < n; ++i) du[i] += w[k] * d[i];
  }
}

/* The right-hand side of a step from the stress at its start: f_v = -sum_e int B^T (sig - dt D^v beta(sig)), with
 * dt D^v beta = (mu_v dt / eta) dev(sig), written into vector @p off of @p nv interleaved ones (cleared first). */
static void step_rhs(const sq_qs_visco *v, const double *sigma, int nv, int off, double *f) {
  const sq_qs_mesh *qm = v->qm;
  const double dt = v->o.dt, alpha = v->o.alpha;
  for (int64_t i = 0; i < 3 * qm->nnode; ++i) f[i * nv + off] = 0;
  for (int64_t c = 0; c < qm->ncell; ++c) {
    const double *g = qm->geo + SQ_QS_NGEO * c;
    const double *sig = sigma + SQ_QS_NQ * SQ_QS_NSTRESS * c;
    double t[SQ_QS_NQ * 6], ye[30];
    memcpy(t, sig, sizeof(t));
    if (!isinf(v->eta[c])) {
      const double s = mu_v(g[11], v->eta[c], alpha, dt) * dt / v->eta[c];
      for (int q = 0; q < SQ_QS_NQ; ++q) sub_dev(s, sig + 6 * q, t + 6 * q);
    }
    sq_qs_elem_p2_stress_forces_f64(g, t, ye);
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i) f[(3 * qm->cell_node[10 * c + a] + i) * nv + off] -= ye[3 * a + i];
  }
}

/* The stress at the end of a step: out = sig + D^v (B du - dt beta(sig)), du vector @p off of @p nv interleaved
 * ones; out may be sig. */
static void step_stress(const sq_qs_visco *v, const double *sigma, const double *du, int nv, int off, double *out) {
  const sq_qs_mesh *qm = v->qm;
  const double dt = v->o.dt;
  for (int64_t c = 0; c < qm->ncell; ++c) {
    const double *gv = v->geo_v + SQ_QS_NGEO * c;
    const double *sig = sigma + SQ_QS_NQ * SQ_QS_NSTRESS * c;
    double *so = out + SQ_QS_NQ * SQ_QS_NSTRESS * c;
    double xe[30], eps[SQ_QS_NQ * 6];
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i) xe[3 * a + i] = du[(3 * qm->cell_node[10 * c + a] + i) * nv + off];
    sq_qs_elem_p2_strain_f64(gv, xe, eps);
    const double s = isinf(v->eta[c]) ? 0 : gv[11] * dt / v->eta[c];
    for (int q = 0; q < SQ_QS_NQ; ++q) {
      double old[6];
      memcpy(old, sig + 6 * q, sizeof(old));
      memcpy(so + 6 * q, old, sizeof(old));
      add_hooke(gv[10], gv[11], eps + 6 * q, so + 6 * q);
      if (s != 0) sub_dev(s, old, so + 6 * q);
    }
  }
}

/* Keep an accurate increment (vector @p off of @p nv interleaved ones) for the predictor. */
static void keep_increment(sq_qs_visco *v, const double *du, int nv, int off) {
  const int64_t n = 3 * v->qm->nnode;
  if (v->nhist == NPRED) {
    double *t = v->du_hist[0];
    memmove(v->du_hist, v->du_hist + 1, sizeof(double *) * (NPRED - 1));
    v->du_hist[NPRED - 1] = t;
    v->nhist--;
  }
  double *d = v->du_hist[v->nhist++];
  for (int64_t i = 0; i < n; ++i) d[i] = du[i * nv + off];
}

/* The solver settings of a step (start value given, tolerance relative to the elastic forces at least). */
static sq_qs_solver_opts step_solver(const sq_qs_visco *v, int use_start) {
  sq_qs_solver_opts so = v->o.solver;
  so.use_start = use_start;
  so.ref_norm = so.tol > 0 ? v->ref * 1e-3 : 0;
  return so;
}

/* One step at a time (multistep 1). */
static int step_one(sq_qs_visco *v, const sq_qs_ops *ops, double *u) {
  const int64_t n = 3 * v->qm->nnode;
  step_rhs(v, v->sigma, 1, 0, v->f);
  sq_qs_solver_opts so = step_solver(v, v->o.predictor);
  if (v->o.predictor) predict(v, v->du);
  SQ_CALL(sq_qs_solve(&v->view, ops, v->f, v->du, &so));
  count(v, &so);
  step_stress(v, v->sigma, v->du, 1, 0, v->sigma);
  for (int64_t i = 0; i < n; ++i) u[i] += v->du[i];
  keep_increment(v, v->du, 1, 0);
  return SQ_SUCCESS;
}

/* The start value of the window's last step (W = o.multistep; Algorithm 1, lines 7-12), with @p a accurate steps
 * taken: the regression line through the last 7 accurate increments, W steps ahead of the last (a >= 7);
 * the second-order Adams-Bashforth extrapolation of the two steps before it, 2 du_{k-1} - du_{k-2} (4 <= a <= 6:
 * the papers' u^i - 3 u^{i+1} + 2 u^{i+2} in increments); zero before. */
static void predict_window(sq_qs_visco *v, int a) {
  const int W = v->o.multistep;
  const int64_t n = 3 * v->qm->nnode;
  double *x = v->wdu;
  for (int64_t i = 0; i < n; ++i) x[i * W + W - 1] = 0;
  if (!v->o.predictor || a < 4) return;
  if (a >= NPRED) {
    double w[NPRED];
    sq_qs_visco_predict_weights(NPRED, W, w);
    for (int k = 0; k < NPRED; ++k) {
      const double *d = v->du_hist[k];
      for (int64_t i = 0; i < n; ++i) x[i * W + W - 1] += w[k] * d[i];
    }
    return;
  }
  /* the two steps before the last slot: slots W-2 and W-3, the latter the last accurate increment when W = 2 */
  const double *h = v->du_hist[v->nhist - 1];
  for (int64_t i = 0; i < n; ++i) {
    const double d1 = x[i * W + W - 2], d2 = W >= 3 ? x[i * W + W - 3] : h[i];
    x[i * W + W - 1] = 2 * d1 - d2;
  }
}

/* W steps together (Algorithm 1, lines 13-19): the window's increments are solved as W vectors of one solve, each
 * from the stress its predecessors' estimates give, until step nstep+1 (slot 0, whose stress is accurate) meets
 * the tolerance; then it is accepted and the window moves by one. */
static int step_window(sq_qs_visco *v, const sq_qs_ops *ops, double *u) {
  const int W = v->o.multistep;
  const int64_t n = 3 * v->qm->nnode;
  if (!v->have_window) {
    /* the first window: zero estimates (line 4), the stresses they give */
    memset(v->wdu, 0, sizeof(double) * (size_t)(n * W));
    v->wsig[0] = v->sigma;
    int k = 1;
    for (int m = 0; m <= SQ_QS_MAXVEC && k <= W; ++m)
      if (v->sig_mem[m] && v->sig_mem[m] != v->sigma) {
        if (k < W) v->wsig[k] = v->sig_mem[m];
        else v->spare = v->sig_mem[m];
        ++k;
      }
    for (int j = 1; j < W; ++j) step_stress(v, v->wsig[j - 1], v->wdu, W, j - 1, v->wsig[j]);
    v->have_window = 1;
  }
  const int max_pass = v->o.solver.max_outer; /* passes of at least one outer iteration each */
  const sq_qs_visco_stats before = v->st;
  for (int pass = 0;; ++pass) {
    /* lines 14-16: the right-hand sides from the stresses, the solve, the later steps' stresses */
    for (int j = 0; j < W; ++j) step_rhs(v, v->wsig[j], W, j, v->wf);
    sq_qs_solver_opts so = step_solver(v, 1);
    SQ_CALL(sq_qs_solve_multi(&v->view, ops, W, v->wf, v->wdu, &so, v->o.pass_iters));
    count_pass(v, &so);
    for (int j = 1; j < W; ++j) step_stress(v, v->wsig[j - 1], v->wdu, W, j - 1, v->wsig[j]);
    /* line 13: step nstep+1's residual */
    if (so.rel_residual <= so.tol) {
      if (so.rel_residual > v->st.max_rel_residual) v->st.max_rel_residual = so.rel_residual;
      break;
    }
    if (pass + 1 >= max_pass)
      return sq_error(SQ_ERR_NUMERIC, __FILE__, __LINE__,
                      "viscoelastic step %d: relative residual %.3e after %d passes of the %d-step window (tolerance "
                      "%.1e)",
                      v->nstep + 1, so.rel_residual, max_pass, W, so.tol);
  }
  /* the step's iterations: all its passes */
  v->st.last_outer = (int)(v->st.outer_iters - before.outer_iters);
  v->st.last_inner = v->st.inner_iters - before.inner_iters;
  v->st.last_coarse = v->st.coarse_iters - before.coarse_iters;
  /* lines 18-19: accept slot 0; the stress after the last slot's estimate; the window moves by one */
  for (int64_t i = 0; i < n; ++i) u[i] += v->wdu[i * W];
  keep_increment(v, v->wdu, W, 0);
  step_stress(v, v->wsig[W - 1], v->wdu, W, W - 1, v->spare);
  double *old = v->wsig[0];
  for (int j = 0; j + 1 < W; ++j) v->wsig[j] = v->wsig[j + 1];
  v->wsig[W - 1] = v->spare;
  v->spare = old;
  v->sigma = v->wsig[0];
  for (int64_t i = 0; i < n; ++i)
    for (int j = 0; j + 1 < W; ++j) v->wdu[i * W + j] = v->wdu[i * W + j + 1];
  predict_window(v, v->nstep + 1);
  return SQ_SUCCESS;
}

int sq_qs_visco_step(sq_qs_visco *v, const sq_qs_ops *ops, double *u) {
  if (!v->have_elastic)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "viscoelastic: sq_qs_visco_elastic must come before a step");
  SQ_CALL(v->o.multistep > 1 ? step_window(v, ops, u) : step_one(v, ops, u));
  v->nstep++;
  return SQ_SUCCESS;
}
