/**
 * @file qs_solve_multi.c  The quasi-static solve of sq_qs.h for several right-hand sides together
 * (sq_qs_solve_multi): the papers' Algorithm 2 on four vectors.  A flexible conjugate gradient in double precision,
 * preconditioned by single-precision inner solves (a Jacobi-preconditioned CG on the P1 coarse mesh, prolonged as
 * the start of a Jacobi-preconditioned CG on the P2 mesh), where every vector is interleaved per component,
 * x[(3 node + i) nvec + v], so that each product reads an element once for all vectors.  Every vector has its own
 * coefficients (alpha, beta, the residual norms); the loops end when vector 0 meets its tolerance (the time step
 * being solved exactly), a later vector is frozen once it meets its own or its search direction breaks down.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_qs.h"

typedef int (*qsm_op64)(void *ctx, const double *x, double *y);
typedef int (*qsm_op32)(void *ctx, const float *x, float *y);

typedef struct qsm_work {
  const sq_qs_mesh *qm;
  const sq_qs_ops *ops;
  int nv;           /* vectors */
  sq_qs_precond pc; /* nv vectors interleaved */
  double *t64[2];   /* one vector each, for products through one-vector ops */
  float *t32[2];
  int ierr; /* the first failed product */
} qsm_work;

static void keep_error(qsm_work *w, int ierr) {
  if (ierr && !w->ierr) w->ierr = ierr;
}

/* y = op(x) vector by vector through an operation on one vector (nin, nout: values of one vector). */
static void per_vector64(qsm_work *w, qsm_op64 op, int64_t nin, int64_t nout, const double *x, double *y) {
  const int nv = w->nv;
  for (int v = 0; v < nv; ++v) {
    for (int64_t i = 0; i < nin; ++i) w->t64[0][i] = x[i * nv + v];
    keep_error(w, op(w->ops->ctx, w->t64[0], w->t64[1]));
    for (int64_t i = 0; i < nout; ++i) y[i * nv + v] = w->t64[1][i];
  }
}

static void per_vector32(qsm_work *w, qsm_op32 op, int64_t nin, int64_t nout, const float *x, float *y) {
  const int nv = w->nv;
  for (int v = 0; v < nv; ++v) {
    for (int64_t i = 0; i < nin; ++i) w->t32[0][i] = x[i * nv + v];
    keep_error(w, op(w->ops->ctx, w->t32[0], w->t32[1]));
    for (int64_t i = 0; i < nout; ++i) y[i * nv + v] = w->t32[1][i];
  }
}

/* The products and transfers: the ops' multi-vector members, else their one-vector members per vector, else the
 * serial multi-vector loops; products assembled over the ranks (sq_qs_exchange_*, 3 nv values per node). */
static void apply_f64(qsm_work *w, const double *x, double *y) {
  const sq_qs_mesh *qm = w->qm;
  const int64_t n = 3 * qm->nnode;
  if (w->ops && w->ops->apply_f64_multi) keep_error(w, w->ops->apply_f64_multi(w->ops->ctx, w->nv, x, y));
  else if (w->ops && w->ops->apply_f64) per_vector64(w, w->ops->apply_f64, n, n, x, y);
  else {
    memset(y, 0, sizeof(double) * (size_t)(n * w->nv));
    sq_qs_ebe_p2_f64_multi(qm->ncell, qm->cell_node, qm->cell_node, qm->geo, w->nv, x, y);
  }
  keep_error(w, sq_qs_exchange_f64(w->ops, 0, 3 * w->nv, y));
}

static void apply_f32(qsm_work *w, int p1, const float *x, float *y) {
  const sq_qs_mesh *qm = w->qm;
  const int64_t n = 3 * (p1 ? qm->nvert : qm->nnode);
  int (*multi)(void *, int, const float *, float *) = NULL;
  qsm_op32 one = NULL;
  if (w->ops) {
    multi = p1 ? w->ops->apply_coarse_f32_multi : w->ops->apply_f32_multi;
    one = p1 ? w->ops->apply_coarse_f32 : w->ops->apply_f32;
  }
  if (multi) keep_error(w, multi(w->ops->ctx, w->nv, x, y));
  else if (one) per_vector32(w, one, n, n, x, y);
  else {
    memset(y, 0, sizeof(float) * (size_t)(n * w->nv));
    (p1 ? sq_qs_ebe_p1_f32_multi : sq_qs_ebe_p2_f32_multi)(qm->ncell, qm->cell_node, qm->cell_node, qm->geo32, w->nv, x,
                                                           y);
  }
  keep_error(w, sq_qs_exchange_f32(w->ops, p1, 3 * w->nv, y));
}

static void transfer(qsm_work *w, int restriction, const float *in, float *out) {
  const sq_qs_mesh *qm = w->qm;
  const int64_t nf = 3 * qm->nnode, nc = 3 * qm->nvert;
  int (*multi)(void *, int, const float *, float *) = NULL;
  qsm_op32 one = NULL;
  if (w->ops) {
    multi = restriction ? w->ops->restrict_f32_multi : w->ops->prolong_f32_multi;
    one = restriction ? w->ops->restrict_f32 : w->ops->prolong_f32;
  }
  if (multi) keep_error(w, multi(w->ops->ctx, w->nv, in, out));
  else if (one) per_vector32(w, one, restriction ? nf : nc, restriction ? nc : nf, in, out);
  else if (restriction)
    sq_qs_restrict_range_f32_multi(qm->nvert, qm->vert_edge_ptr, qm->vert_edge, w->nv, 0, qm->nvert, in, out);
  else sq_qs_prolong_range_f32_multi(qm->nvert, qm->edge_vert, w->nv, 0, qm->nnode, in, out);
}

/* The dot products of the nv interleaved vectors a and b (n values each): s[v] = (a_v, b_v), summed in double over
 * the entries of the nodes this rank owns (sq_qs_mesh.own; all for a whole mesh), then over the ranks.  Every dot
 * product of the solve is one of these two. */
static void dots32(qsm_work *w, int64_t n, const float *a, const float *b, double *s) {
  const int nv = w->nv;
  const uint8_t *own = w->qm->own;
  for (int v = 0; v < nv; ++v) s[v] = 0;
  for (int64_t i = 0; i < n; ++i)
    if (!own || own[i / 3])
      for (int v = 0; v < nv; ++v) s[v] += (double)a[i * nv + v] * b[i * nv + v];
  keep_error(w, sq_qs_allreduce(w->ops, s, nv));
}

static void dots64(qsm_work *w, int64_t n, const double *a, const double *b, double *s) {
  const int nv = w->nv;
  const uint8_t *own = w->qm->own;
  for (int v = 0; v < nv; ++v) s[v] = 0;
  for (int64_t i = 0; i < n; ++i)
    if (!own || own[i / 3])
      for (int v = 0; v < nv; ++v) s[v] += a[i * nv + v] * b[i * nv + v];
  keep_error(w, sq_qs_allreduce(w->ops, s, nv));
}

/* Jacobi-preconditioned CG in single precision on the P2 (p1 0) or P1 (p1 1) operator for the nv right-hand sides
 * b: x (start values in, results out), each vector with its own coefficients, until vector 0 reaches the relative
 * residual tol or maxit iterations.  Returns the (multi-vector) iterations. */
static int inner_cg(qsm_work *w, int p1, const float *b, float *x, double tol, int maxit) {
  const int nv = w->nv;
  const int64_t n = 3 * (p1 ? w->qm->nvert : w->qm->nnode);
  const float *dinv = p1 ? w->pc.dinv_c : w->pc.dinv;
  float *r = w->pc.cr, *z = w->pc.cz, *p = w->pc.cp, *q = w->pc.cq;
  double bn[SQ_QS_MAXVEC], rr[SQ_QS_MAXVEC], rz[SQ_QS_MAXVEC], rz1[SQ_QS_MAXVEC], pq[SQ_QS_MAXVEC];
  int act[SQ_QS_MAXVEC];
  apply_f32(w, p1, x, q);
  for (int64_t i = 0; i < n; ++i)
    for (int v = 0; v < nv; ++v) {
      const int64_t j = i * nv + v;
      r[j] = dinv[i] != 0 ? b[j] - q[j] : 0;
      p[j] = z[j] = dinv[i] * r[j];
    }
  dots32(w, n, b, b, bn);
  dots32(w, n, r, z, rz);
  dots32(w, n, r, r, rr);
  for (int v = 0; v < nv; ++v) act[v] = bn[v] > 0 && sqrt(rr[v]) > tol * sqrt(bn[v]);
  int it = 0;
  while (it < maxit && act[0]) {
    apply_f32(w, p1, p, q);
    for (int64_t i = 0; i < n; ++i)
      if (dinv[i] == 0)
        for (int v = 0; v < nv; ++v) q[i * nv + v] = 0;
    dots32(w, n, p, q, pq);
    float alpha[SQ_QS_MAXVEC], beta[SQ_QS_MAXVEC];
    for (int v = 0; v < nv; ++v) {
      if (!(pq[v] > 0)) act[v] = 0;
      alpha[v] = act[v] ? (float)(rz[v] / pq[v]) : 0.0f;
    }
    if (!act[0]) break;
    for (int64_t i = 0; i < n; ++i)
      for (int v = 0; v < nv; ++v) {
        const int64_t j = i * nv + v;
        x[j] += alpha[v] * p[j];
        r[j] -= alpha[v] * q[j];
        z[j] = dinv[i] * r[j];
      }
    dots32(w, n, r, z, rz1);
    dots32(w, n, r, r, rr);
    for (int v = 0; v < nv; ++v) {
      beta[v] = act[v] ? (float)(rz1[v] / rz[v]) : 0.0f;
      rz[v] = rz1[v];
    }
    for (int64_t i = 0; i < n; ++i)
      for (int v = 0; v < nv; ++v)
        if (act[v]) p[i * nv + v] = z[i * nv + v] + beta[v] * p[i * nv + v];
    for (int v = 0; v < nv; ++v)
      if (act[v] && !(sqrt(rr[v]) > tol * sqrt(bn[v]))) act[v] = 0;
    ++it;
  }
  return it;
}

/* z = M(r) for the nv vectors: the single-precision preconditioner. */
static void precondition(qsm_work *w, const double *r, double *z, sq_qs_solver_opts *o) {
  const sq_qs_mesh *qm = w->qm;
  const int nv = w->nv;
  const int64_t n = 3 * qm->nnode, nc = 3 * qm->nvert;
  for (int64_t j = 0; j < n * nv; ++j) w->pc.rf[j] = (float)r[j];
  /* under MPI each rank restricts the entries of the nodes it owns, and the exchange sums the ranks' shares */
  const float *rr = w->pc.rf;
  if (qm->own) {
    for (int64_t j = 0; j < n * nv; ++j) w->pc.cq[j] = qm->own[j / (3 * nv)] ? w->pc.rf[j] : 0.0f;
    rr = w->pc.cq;
  }
  transfer(w, 1, rr, w->pc.rc);
  keep_error(w, sq_qs_exchange_f32(w->ops, 1, 3 * nv, w->pc.rc));
  /* the coarse solve starts from the Jacobi estimate at the vertices */
  for (int64_t i = 0; i < nc; ++i)
    for (int v = 0; v < nv; ++v) {
      const int64_t j = i * nv + v;
      if (w->pc.fixed_c[i]) w->pc.rc[j] = 0;
      w->pc.zc[j] = w->pc.dinv[i] * w->pc.rf[j];
    }
  o->coarse_iters += inner_cg(w, 1, w->pc.rc, w->pc.zc, o->coarse_tol, o->max_coarse);
  transfer(w, 0, w->pc.zc, w->pc.zf);
  for (int64_t i = 0; i < n; ++i)
    if (qm->fixed[i])
      for (int v = 0; v < nv; ++v) w->pc.zf[i * nv + v] = 0;
  o->inner_iters += inner_cg(w, 0, w->pc.rf, w->pc.zf, o->inner_tol, o->max_inner);
  for (int64_t i = 0; i < n; ++i)
    for (int v = 0; v < nv; ++v) z[i * nv + v] = qm->fixed[i] ? 0 : w->pc.zf[i * nv + v];
}

int sq_qs_solve_multi(const sq_qs_mesh *qm, const sq_qs_ops *ops, int nvec, const double *f, double *u,
                      sq_qs_solver_opts *o, int max_pass) {
  o->outer_iters = 0;
  o->inner_iters = o->coarse_iters = 0;
  o->rel_residual = 0;
  if (nvec < 1 || nvec > SQ_QS_MAXVEC)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "quasi-static solve: %d vectors (1 to %d)", nvec, SQ_QS_MAXVEC);
  if (qm->noff > 0)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "quasi-static multi-vector solve: the mesh has fault offsets; solve the dislocation's elastic "
                    "problem with sq_qs_solve");
  const int nv = nvec;
  const int64_t n = 3 * qm->nnode, N = n * nv;
  qsm_work w = {.qm = qm, .ops = ops, .nv = nv};
  double *F = NULL, *r = NULL, *z = NULL, *zold = NULL, *p = NULL, *q = NULL, *dg = NULL;
  int ierr = SQ_CALLOC(F, N);
  if (!ierr) ierr = SQ_CALLOC(r, N);
  if (!ierr) ierr = SQ_CALLOC(z, N);
  if (!ierr) ierr = SQ_CALLOC(zold, N);
  if (!ierr) ierr = SQ_CALLOC(p, N);
  if (!ierr) ierr = SQ_CALLOC(q, N);
  if (!ierr) ierr = SQ_CALLOC(dg, n);
  for (int k = 0; k < 2 && !ierr; ++k) {
    ierr = SQ_CALLOC(w.t64[k], n);
    if (!ierr) ierr = SQ_CALLOC(w.t32[k], n);
  }
  if (!ierr) ierr = sq_qs_precond_create(qm, ops, nv, dg, &w.pc);
  if (ierr) goto done;
  /* the residual is F - K u on the free components, u holding the prescribed values */
  if (f) memcpy(F, f, sizeof(double) * (size_t)N);
  ierr = sq_qs_exchange_f64(ops, 0, 3 * nv, F); /* f: this rank's share, summed at shared nodes */
  if (ierr) goto done;
  if (o->use_start) memcpy(zold, u, sizeof(double) * (size_t)N);
  int lift = 0; /* prescribed values other than zero */
  for (int64_t i = 0; i < n; ++i) {
    lift |= qm->ubc[i] != 0;
    for (int v = 0; v < nv; ++v) u[i * nv + v] = qm->ubc[i];
  }
  if (lift) apply_f64(&w, u, q);
  for (int64_t i = 0; i < n; ++i)
    for (int v = 0; v < nv; ++v) {
      const int64_t j = i * nv + v;
      r[j] = qm->fixed[i] ? 0 : F[j] - q[j];
    }
  /* the references of the relative tolerances: the right-hand sides' norms (with the prescribed values alone) */
  double bn[SQ_QS_MAXVEC], rn[SQ_QS_MAXVEC], rz[SQ_QS_MAXVEC], rz1[SQ_QS_MAXVEC], rzold[SQ_QS_MAXVEC], pq[SQ_QS_MAXVEC];
  int act[SQ_QS_MAXVEC];
  dots64(&w, n, r, r, bn);
  for (int v = 0; v < nv; ++v) bn[v] = fmax(sqrt(bn[v]), o->ref_norm > 0 ? o->ref_norm : 0);
  if (bn[0] == 0) goto done;
  /* flexible PCG on the free components, from the prescribed values or from the given start */
  if (o->use_start) {
    for (int64_t i = 0; i < n; ++i)
      if (!qm->fixed[i])
        for (int v = 0; v < nv; ++v) u[i * nv + v] = zold[i * nv + v];
    apply_f64(&w, u, q);
    for (int64_t i = 0; i < n; ++i)
      for (int v = 0; v < nv; ++v) {
        const int64_t j = i * nv + v;
        r[j] = qm->fixed[i] ? 0 : F[j] - q[j];
      }
  }
  dots64(&w, n, r, r, rn);
  for (int v = 0; v < nv; ++v) act[v] = bn[v] > 0 && sqrt(rn[v]) > o->tol * bn[v];
  if (act[0]) {
    precondition(&w, r, z, o);
    memcpy(p, z, sizeof(double) * (size_t)N);
    dots64(&w, n, r, z, rz);
  }
  while (act[0]) {
    if (w.ierr) {
      ierr = w.ierr;
      goto done;
    }
    if (max_pass > 0 && o->outer_iters >= max_pass) break;
    if (o->outer_iters >= o->max_outer) {
      ierr = sq_error(SQ_ERR_NUMERIC, __FILE__, __LINE__,
                      "quasi-static solve (%d vectors): relative residual %.3e after %d outer iterations (tolerance "
                      "%.1e)",
                      nv, sqrt(rn[0]) / bn[0], o->outer_iters, o->tol);
      goto done;
    }
    apply_f64(&w, p, q);
    for (int64_t i = 0; i < n; ++i)
      if (qm->fixed[i])
        for (int v = 0; v < nv; ++v) q[i * nv + v] = 0;
    dots64(&w, n, p, q, pq);
    if (!(pq[0] > 0)) {
      ierr = w.ierr ? w.ierr
                    : sq_error(SQ_ERR_NUMERIC, __FILE__, __LINE__,
                               "quasi-static solve: the operator is not positive definite on the free components "
                               "(p.Kp = %g at outer iteration %d): are enough displacements prescribed?",
                               pq[0], o->outer_iters);
      goto done;
    }
    double alpha[SQ_QS_MAXVEC], beta[SQ_QS_MAXVEC];
    for (int v = 0; v < nv; ++v) {
      if (!(pq[v] > 0)) act[v] = 0;
      alpha[v] = act[v] ? rz[v] / pq[v] : 0;
    }
    for (int64_t i = 0; i < n; ++i)
      for (int v = 0; v < nv; ++v) {
        const int64_t j = i * nv + v;
        u[j] += alpha[v] * p[j];
        r[j] -= alpha[v] * q[j];
      }
    dots64(&w, n, r, r, rn);
    ++o->outer_iters;
    if (o->verbose)
      fprintf(stderr,
              "quasi-static (%d vectors): outer %d, relative residual of vector 0 %.3e, inner %lld, coarse %lld\n", nv,
              o->outer_iters, sqrt(rn[0]) / bn[0], (long long)o->inner_iters, (long long)o->coarse_iters);
    for (int v = 0; v < nv; ++v)
      if (act[v] && !(sqrt(rn[v]) > o->tol * bn[v])) act[v] = 0;
    if (!act[0]) break;
    double *t = zold;
    zold = z;
    z = t;
    precondition(&w, r, z, o);
    dots64(&w, n, r, z, rz1);
    dots64(&w, n, r, zold, rzold);
    for (int v = 0; v < nv; ++v) {
      beta[v] = act[v] ? (rz1[v] - rzold[v]) / rz[v] : 0;
      rz[v] = rz1[v];
    }
    for (int64_t i = 0; i < n; ++i)
      for (int v = 0; v < nv; ++v)
        if (act[v]) p[i * nv + v] = z[i * nv + v] + beta[v] * p[i * nv + v];
  }
  if (act[0]) { /* the pass ended (max_pass) before vector 0 converged: its recurrence residual */
    o->rel_residual = sqrt(rn[0]) / bn[0];
    goto done;
  }
  /* vector 0's true residual, in double */
  apply_f64(&w, u, q);
  for (int64_t i = 0; i < n; ++i)
    for (int v = 0; v < nv; ++v) r[i * nv + v] = qm->fixed[i] ? 0 : F[i * nv + v] - q[i * nv + v];
  dots64(&w, n, r, r, rn);
  o->rel_residual = sqrt(rn[0]) / bn[0];
  if (w.ierr) ierr = w.ierr;
done:
  SQ_FREE(F);
  SQ_FREE(r);
  SQ_FREE(z);
  SQ_FREE(zold);
  SQ_FREE(p);
  SQ_FREE(q);
  SQ_FREE(dg);
  sq_qs_precond_destroy(&w.pc);
  for (int k = 0; k < 2; ++k) {
    SQ_FREE(w.t64[k]);
    SQ_FREE(w.t32[k]);
  }
  return ierr;
}
