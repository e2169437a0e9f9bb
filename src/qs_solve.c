/**
 * @file qs_solve.c  The quasi-static elastic solve (sq_qs.h): a flexible conjugate gradient in double precision
 * whose preconditioner is an inner solve in single precision: a Jacobi-preconditioned CG on the P1 coarse mesh
 * (the restricted residual, to a loose tolerance), prolonged as the start of a Jacobi-preconditioned CG on the
 * P2 mesh (to a loose tolerance).  The preconditioner changes from one application to the next, hence the
 * flexible (Polak-Ribiere) update of the search direction.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_qs.h"

void sq_qs_solver_opts_default(sq_qs_solver_opts *o) {
  memset(o, 0, sizeof(*o));
  o->tol = 1e-10;
  o->max_outer = 1000;
  o->inner_tol = 0.1;
  o->max_inner = 30;
  o->coarse_tol = 0.1;
  o->max_coarse = 300;
}

typedef struct qs_work {
  const sq_qs_mesh *qm;
  const sq_qs_ops *ops;
  sq_qs_precond pc;
  int ierr; /* the first failed product */
} qs_work;

static void keep_error(qs_work *w, int ierr) {
  if (ierr && !w->ierr) w->ierr = ierr;
}

int sq_qs_exchange_f64(const sq_qs_ops *ops, int p1, int nval, double *y) {
  return ops && ops->exchange_f64 ? ops->exchange_f64(ops->comm, p1, nval, y) : SQ_SUCCESS;
}

int sq_qs_exchange_f32(const sq_qs_ops *ops, int p1, int nval, float *y) {
  return ops && ops->exchange_f32 ? ops->exchange_f32(ops->comm, p1, nval, y) : SQ_SUCCESS;
}

int sq_qs_allreduce(const sq_qs_ops *ops, double *v, int n) {
  return ops && ops->allreduce ? ops->allreduce(ops->comm, v, n) : SQ_SUCCESS;
}

double sq_qs_dot_local_f64(const sq_qs_mesh *qm, int nval, int64_t n, const double *a, const double *b) {
  double s = 0;
  if (!qm->own)
    for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  else
    for (int64_t i = 0; i < n; ++i)
      if (qm->own[i / nval]) s += a[i] * b[i];
  return s;
}

double sq_qs_dot_local_f32(const sq_qs_mesh *qm, int nval, int64_t n, const float *a, const float *b) {
  double s = 0;
  if (!qm->own)
    for (int64_t i = 0; i < n; ++i) s += (double)a[i] * b[i];
  else
    for (int64_t i = 0; i < n; ++i)
      if (qm->own[i / nval]) s += (double)a[i] * b[i];
  return s;
}

/* y = K x, assembled over the ranks. */
static void apply_f64(qs_work *w, const double *x, double *y) {
  const sq_qs_mesh *qm = w->qm;
  if (w->ops && w->ops->apply_f64) {
    keep_error(w, w->ops->apply_f64(w->ops->ctx, x, y));
  } else {
    memset(y, 0, sizeof(double) * 3 * (size_t)qm->nnode);
    sq_qs_ebe_p2_f64(qm->ncell, qm->cell_node, qm->cell_node, qm->geo, x, y);
  }
  keep_error(w, sq_qs_exchange_f64(w->ops, 0, 3, y));
}

static void apply_f32(qs_work *w, int p1, const float *x, float *y) {
  const sq_qs_mesh *qm = w->qm;
  if (w->ops && (p1 ? w->ops->apply_coarse_f32 != NULL : w->ops->apply_f32 != NULL)) {
    keep_error(w, (p1 ? w->ops->apply_coarse_f32 : w->ops->apply_f32)(w->ops->ctx, x, y));
  } else {
    memset(y, 0, sizeof(float) * 3 * (size_t)(p1 ? qm->nvert : qm->nnode));
    if (p1) sq_qs_ebe_p1_f32(qm->ncell, qm->cell_node, qm->cell_node, qm->geo32, x, y);
    else sq_qs_ebe_p2_f32(qm->ncell, qm->cell_node, qm->cell_node, qm->geo32, x, y);
  }
  keep_error(w, sq_qs_exchange_f32(w->ops, p1, 3, y));
}

/* Global dot products: the owned entries of each rank, summed over the ranks (k pairs at once). */
static double dot32(qs_work *w, int64_t n, const float *a, const float *b) {
  double s = sq_qs_dot_local_f32(w->qm, 3, n, a, b);
  keep_error(w, sq_qs_allreduce(w->ops, &s, 1));
  return s;
}

static double dot64(qs_work *w, int64_t n, const double *a, const double *b) {
  double s = sq_qs_dot_local_f64(w->qm, 3, n, a, b);
  keep_error(w, sq_qs_allreduce(w->ops, &s, 1));
  return s;
}

/* Jacobi-preconditioned CG in single precision on the P2 (p1 0) or P1 (p1 1) operator: x (start value in, result
 * out) for the right-hand side b, to the relative residual tol or maxit iterations.  Returns the iterations. */
static int inner_cg(qs_work *w, int p1, const float *b, float *x, double tol, int maxit) {
  const int64_t n = 3 * (p1 ? w->qm->nvert : w->qm->nnode);
  const float *dinv = p1 ? w->pc.dinv_c : w->pc.dinv;
  float *r = w->pc.cr, *z = w->pc.cz, *p = w->pc.cp, *q = w->pc.cq;
  apply_f32(w, p1, x, q);
  for (int64_t i = 0; i < n; ++i) r[i] = dinv[i] != 0 ? b[i] - q[i] : 0;
  const double bn = sqrt(dot32(w, n, b, b));
  if (bn == 0) return 0;
  for (int64_t i = 0; i < n; ++i) p[i] = z[i] = dinv[i] * r[i];
  double rz = dot32(w, n, r, z);
  int it = 0;
  while (it < maxit && sqrt(dot32(w, n, r, r)) > tol * bn) {
    apply_f32(w, p1, p, q);
    for (int64_t i = 0; i < n; ++i)
      if (dinv[i] == 0) q[i] = 0;
    const double pq = dot32(w, n, p, q);
    if (!(pq > 0)) break;
    const float alpha = (float)(rz / pq);
    for (int64_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      z[i] = dinv[i] * r[i];
    }
    const double rz1 = dot32(w, n, r, z);
    const float beta = (float)(rz1 / rz);
    rz = rz1;
    for (int64_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
    ++it;
  }
  return it;
}

/* z = M(r): the single-precision preconditioner. */
static void precondition(qs_work *w, const double *r, double *z, sq_qs_solver_opts *o) {
  const sq_qs_mesh *qm = w->qm;
  const int64_t n = 3 * qm->nnode, nc = 3 * qm->nvert;
  for (int64_t i = 0; i < n; ++i) w->pc.rf[i] = (float)r[i];
  /* under MPI, P^T sums over every edge at a vertex, some of them on other ranks only: each rank restricts the
   * entries of the nodes it owns, and the exchange sums the ranks' shares */
  const float *rr = w->pc.rf;
  if (qm->own) {
    for (int64_t i = 0; i < n; ++i) w->pc.cq[i] = qm->own[i / 3] ? w->pc.rf[i] : 0.0f;
    rr = w->pc.cq;
  }
  if (w->ops && w->ops->restrict_f32) keep_error(w, w->ops->restrict_f32(w->ops->ctx, rr, w->pc.rc));
  else sq_qs_restrict_f32(qm, rr, w->pc.rc);
  keep_error(w, sq_qs_exchange_f32(w->ops, 1, 3, w->pc.rc));
  /* the coarse solve starts from the Jacobi estimate at the vertices */
  for (int64_t i = 0; i < nc; ++i) {
    if (w->pc.fixed_c[i]) w->pc.rc[i] = 0;
    w->pc.zc[i] = w->pc.dinv[i] * w->pc.rf[i];
  }
  o->coarse_iters += inner_cg(w, 1, w->pc.rc, w->pc.zc, o->coarse_tol, o->max_coarse);
  if (w->ops && w->ops->prolong_f32) keep_error(w, w->ops->prolong_f32(w->ops->ctx, w->pc.zc, w->pc.zf));
  else sq_qs_prolong_f32(qm, w->pc.zc, w->pc.zf);
  for (int64_t i = 0; i < n; ++i)
    if (qm->fixed[i]) w->pc.zf[i] = 0;
  o->inner_iters += inner_cg(w, 0, w->pc.rf, w->pc.zf, o->inner_tol, o->max_inner);
  for (int64_t i = 0; i < n; ++i) z[i] = qm->fixed[i] ? 0 : w->pc.zf[i];
}

/* b += -sum_e K_e d_e: the equivalent nodal forces of the fault offsets (sorted by cell). */
static void fault_forces(const sq_qs_mesh *qm, double *b) {
  for (int64_t k = 0; k < qm->noff;) {
    const int64_t c = qm->off_cell[k];
    double de[30] = {0}, ye[30];
    for (; k < qm->noff && qm->off_cell[k] == c; ++k)
      for (int d = 0; d < 3; ++d) de[3 * qm->off_loc[k] + d] += qm->off_u[3 * k + d];
    sq_qs_elem_p2_f64(qm->geo + SQ_QS_NGEO * c, de, ye);
    for (int a = 0; a < 10; ++a)
      for (int d = 0; d < 3; ++d) b[3 * qm->cell_node[10 * c + a] + d] -= ye[3 * a + d];
  }
}

int sq_qs_jacobi_inverse(const sq_qs_mesh *qm, const sq_qs_ops *ops, double *work, float *dinv, float *dinv_c,
                         uint8_t *fixed_c) {
  const int64_t n = 3 * qm->nnode, nc = 3 * qm->nvert;
  sq_qs_diag_p2(qm, work);
  SQ_CALL(sq_qs_exchange_f64(ops, 0, 3, work));
  for (int64_t i = 0; i < n; ++i) dinv[i] = qm->fixed[i] ? 0.0f : (float)(1.0 / work[i]);
  sq_qs_diag_p1(qm, work);
  SQ_CALL(sq_qs_exchange_f64(ops, 1, 3, work));
  for (int64_t i = 0; i < nc; ++i) {
    fixed_c[i] = qm->fixed[i];
    dinv_c[i] = qm->fixed[i] ? 0.0f : (float)(1.0 / work[i]);
  }
  return SQ_SUCCESS;
}

void sq_qs_precond_destroy(sq_qs_precond *pc) {
  SQ_FREE(pc->dinv);
  SQ_FREE(pc->dinv_c);
  SQ_FREE(pc->fixed_c);
  SQ_FREE(pc->rf);
  SQ_FREE(pc->zf);
  SQ_FREE(pc->rc);
  SQ_FREE(pc->zc);
  SQ_FREE(pc->cr);
  SQ_FREE(pc->cz);
  SQ_FREE(pc->cp);
  SQ_FREE(pc->cq);
}

int sq_qs_precond_create(const sq_qs_mesh *qm, const sq_qs_ops *ops, int nv, double *work, sq_qs_precond *pc) {
  const int64_t n = 3 * qm->nnode, nc = 3 * qm->nvert, N = n * nv;
  memset(pc, 0, sizeof(*pc));
  int ierr = SQ_CALLOC(pc->dinv, n);
  if (!ierr) ierr = SQ_CALLOC(pc->dinv_c, nc);
  if (!ierr) ierr = SQ_CALLOC(pc->fixed_c, nc);
  if (!ierr) ierr = SQ_CALLOC(pc->rf, N);
  if (!ierr) ierr = SQ_CALLOC(pc->zf, N);
  if (!ierr) ierr = SQ_CALLOC(pc->rc, nc * nv);
  if (!ierr) ierr = SQ_CALLOC(pc->zc, nc * nv);
  if (!ierr) ierr = SQ_CALLOC(pc->cr, N);
  if (!ierr) ierr = SQ_CALLOC(pc->cz, N);
  if (!ierr) ierr = SQ_CALLOC(pc->cp, N);
  if (!ierr) ierr = SQ_CALLOC(pc->cq, N);
  if (!ierr) ierr = sq_qs_jacobi_inverse(qm, ops, work, pc->dinv, pc->dinv_c, pc->fixed_c);
  if (ierr) sq_qs_precond_destroy(pc);
  return ierr;
}

int sq_qs_solve(const sq_qs_mesh *qm, const sq_qs_ops *ops, const double *f, double *u, sq_qs_solver_opts *o) {
  const int64_t n = 3 * qm->nnode;
  o->outer_iters = 0;
  o->inner_iters = o->coarse_iters = 0;
  qs_work w = {.qm = qm, .ops = ops};
  double *b = NULL, *r = NULL, *z = NULL, *zold = NULL, *p = NULL, *q = NULL, *dg = NULL;
  int ierr = SQ_CALLOC(b, n);
  if (!ierr) ierr = SQ_CALLOC(r, n);
  if (!ierr) ierr = SQ_CALLOC(z, n);
  if (!ierr) ierr = SQ_CALLOC(zold, n);
  if (!ierr) ierr = SQ_CALLOC(p, n);
  if (!ierr) ierr = SQ_CALLOC(q, n);
  if (!ierr) ierr = SQ_CALLOC(dg, n);
  if (!ierr) ierr = sq_qs_precond_create(qm, ops, 1, dg, &w.pc);
  if (ierr) goto done;
  /* right-hand side: f + fault forces (kept in dg) - K (prescribed values), on the free components */
  memset(dg, 0, sizeof(double) * (size_t)n);
  if (f) memcpy(dg, f, sizeof(double) * (size_t)n);
  fault_forces(qm, dg);
  ierr = sq_qs_exchange_f64(ops, 0, 3, dg);
  if (ierr) goto done;
  if (o->use_start) memcpy(zold, u, sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) u[i] = qm->ubc[i];
  apply_f64(&w, u, q);
  for (int64_t i = 0; i < n; ++i) b[i] = qm->fixed[i] ? 0 : dg[i] - q[i];
  /* the reference of the relative tolerance: the right-hand side's norm (with a zero start) */
  const double bn = fmax(sqrt(dot64(&w, n, b, b)), o->ref_norm > 0 ? o->ref_norm : 0);
  o->rel_residual = 0;
  if (bn == 0) goto done;
  /* flexible PCG on the free components, from zero or from the given start */
  memcpy(r, b, sizeof(double) * (size_t)n);
  if (o->use_start) {
    for (int64_t i = 0; i < n; ++i)
      if (!qm->fixed[i]) u[i] = zold[i];
    apply_f64(&w, u, q);
    for (int64_t i = 0; i < n; ++i) r[i] = qm->fixed[i] ? 0 : dg[i] - q[i];
  }
  double rn = sqrt(dot64(&w, n, r, r)), rz = 0;
  if (rn > o->tol * bn) {
    precondition(&w, r, z, o);
    memcpy(p, z, sizeof(double) * (size_t)n);
    rz = dot64(&w, n, r, z);
  }
  while (rn > o->tol * bn) {
    if (w.ierr) {
      ierr = w.ierr;
      goto done;
    }
    if (o->outer_iters >= o->max_outer) {
      ierr = sq_error(SQ_ERR_NUMERIC, __FILE__, __LINE__,
                      "quasi-static solve: relative residual %.3e after %d outer iterations (tolerance %.1e)", rn / bn,
                      o->outer_iters, o->tol);
      goto done;
    }
    apply_f64(&w, p, q);
    for (int64_t i = 0; i < n; ++i)
      if (qm->fixed[i]) q[i] = 0;
    const double pq = dot64(&w, n, p, q);
    if (!(pq > 0)) {
      ierr =
          w.ierr
              ? w.ierr
              : sq_error(SQ_ERR_NUMERIC, __FILE__, __LINE__,
                         "quasi-static solve: the operator is not positive definite on the free components (p.Kp = %g "
                         "at outer iteration %d): are enough displacements prescribed?",
                         pq, o->outer_iters);
      goto done;
    }
    const double alpha = rz / pq;
    for (int64_t i = 0; i < n; ++i) {
      u[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    rn = sqrt(dot64(&w, n, r, r));
    ++o->outer_iters;
    if (o->verbose)
      fprintf(stderr, "quasi-static: outer %d, relative residual %.3e, inner %lld, coarse %lld\n", o->outer_iters,
              rn / bn, (long long)o->inner_iters, (long long)o->coarse_iters);
    if (rn <= o->tol * bn) break;
    double *t = zold;
    zold = z;
    z = t;
    precondition(&w, r, z, o);
    double rzz[2] = {sq_qs_dot_local_f64(qm, 3, n, r, z), sq_qs_dot_local_f64(qm, 3, n, r, zold)};
    keep_error(&w, sq_qs_allreduce(ops, rzz, 2));
    const double rz1 = rzz[0], rzold = rzz[1];
    const double beta = (rz1 - rzold) / rz;
    rz = rz1;
    for (int64_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
  }
  /* the true residual, in double */
  apply_f64(&w, u, q);
  for (int64_t i = 0; i < n; ++i) q[i] = qm->fixed[i] ? 0 : dg[i] - q[i];
  double res = sq_qs_dot_local_f64(qm, 3, n, q, q);
  keep_error(&w, sq_qs_allreduce(ops, &res, 1));
  o->rel_residual = sqrt(res) / bn;
  if (w.ierr) ierr = w.ierr;
done:
  SQ_FREE(b);
  SQ_FREE(r);
  SQ_FREE(z);
  SQ_FREE(zold);
  SQ_FREE(p);
  SQ_FREE(q);
  SQ_FREE(dg);
  sq_qs_precond_destroy(&w.pc);
  return ierr;
}
