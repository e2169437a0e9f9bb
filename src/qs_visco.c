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
  double *sigma; /* ncell x SQ_QS_NQ x SQ_QS_NSTRESS */
  double *du_hist[NPRED];
  int nhist; /* accurate increments kept (the newest at du_hist[nhist - 1]) */
  double *f, *du;
  sq_qs_visco_opts o;
  sq_qs_visco_stats st;
  double ref; /* norm of the elastic right-hand side (the scale of the steps' tolerances) */
  int nstep, have_elastic;
};

void sq_qs_visco_opts_default(sq_qs_visco_opts *o) {
  memset(o, 0, sizeof(*o));
  o->dt = 1;
  o->alpha = 0.5;
  o->predictor = 1;
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
  if (!ierr) ierr = SQ_CALLOC(v->sigma, SQ_QS_NQ * SQ_QS_NSTRESS * nc);
  if (!ierr) ierr = SQ_CALLOC(v->f, n);
  if (!ierr) ierr = SQ_CALLOC(v->du, n);
  for (int k = 0; k < NPRED && !ierr; ++k) ierr = SQ_CALLOC(v->du_hist[k], n);
  if (ierr) {
    sq_qs_visco_destroy(v);
    return ierr;
  }
  memcpy(v->eta, eta, sizeof(double) * (size_t)nc);
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
  SQ_FREE(v->sigma);
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

int sq_qs_visco_step(sq_qs_visco *v, const sq_qs_ops *ops, double *u) {
  if (!v->have_elastic)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "viscoelastic: sq_qs_visco_elastic must come before a step");
  const sq_qs_mesh *qm = v->qm;
  const int64_t n = 3 * qm->nnode;
  const double dt = v->o.dt, alpha = v->o.alpha;
  /* f = -sum_e int B^T (sigma^n - dt D^v beta^n), dt D^v beta^n = (mu_v dt / eta) dev(sigma^n) */
  memset(v->f, 0, sizeof(double) * (size_t)n);
  for (int64_t c = 0; c < qm->ncell; ++c) {
    const double *g = qm->geo + SQ_QS_NGEO * c;
    const double *sig = v->sigma + SQ_QS_NQ * SQ_QS_NSTRESS * c;
    double t[SQ_QS_NQ * 6], ye[30];
    memcpy(t, sig, sizeof(t));
    if (!isinf(v->eta[c])) {
      const double s = mu_v(g[11], v->eta[c], alpha, dt) * dt / v->eta[c];
      for (int q = 0; q < SQ_QS_NQ; ++q) sub_dev(s, sig + 6 * q, t + 6 * q);
    }
    sq_qs_elem_p2_stress_forces_f64(g, t, ye);
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i) v->f[3 * qm->cell_node[10 * c + a] + i] -= ye[3 * a + i];
  }
  sq_qs_solver_opts so = v->o.solver;
  so.use_start = v->o.predictor;
  so.ref_norm = so.tol > 0 ? v->ref * 1e-3 : 0;
  if (v->o.predictor) predict(v, v->du);
  SQ_CALL(sq_qs_solve(&v->view, ops, v->f, v->du, &so));
  count(v, &so);
  /* sigma^{n+1} = sigma^n + D^v (B du - dt beta^n) */
  for (int64_t c = 0; c < qm->ncell; ++c) {
    const double *gv = v->geo_v + SQ_QS_NGEO * c;
    double *sig = v->sigma + SQ_QS_NQ * SQ_QS_NSTRESS * c;
    double xe[30], eps[SQ_QS_NQ * 6];
    gather(qm, v->du, c, 0, xe);
    sq_qs_elem_p2_strain_f64(gv, xe, eps);
    const double s = isinf(v->eta[c]) ? 0 : gv[11] * dt / v->eta[c];
    for (int q = 0; q < SQ_QS_NQ; ++q) {
      double old[6];
      memcpy(old, sig + 6 * q, sizeof(old));
      add_hooke(gv[10], gv[11], eps + 6 * q, sig + 6 * q);
      if (s != 0) sub_dev(s, old, sig + 6 * q);
    }
  }
  for (int64_t i = 0; i < n; ++i) u[i] += v->du[i];
  /* keep the increment for the predictor */
  if (v->nhist == NPRED) {
    double *t = v->du_hist[0];
    memmove(v->du_hist, v->du_hist + 1, sizeof(double *) * (NPRED - 1));
    v->du_hist[NPRED - 1] = t;
    v->nhist--;
  }
  memcpy(v->du_hist[v->nhist++], v->du, sizeof(double) * (size_t)n);
  v->nstep++;
  return SQ_SUCCESS;
}
