/**
 * @file qs_comm.c  The quasi-static solver's MPI exchange (sq_qs_comm.h): the shared nodes' sums, assembled in
 * rank order, and the global sums of its dot products, on a duplicate of MPI_COMM_WORLD (apart from StarPU-MPI's
 * messages).
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sq_qs_comm.h"
#include "sq_qs_part.h"

struct sq_qs_comm {
  const sq_qs_mesh *qm;
  const sq_qs_part *p;
  MPI_Comm comm;
  int nranks;
  size_t cap;        /* bytes of each buffer below */
  char *send, *recv; /* ptr[npeer] entries x nval values */
  char *acc;         /* nshared x nval values */
  MPI_Request *req;  /* 2 npeer */
  double *gathered;  /* nranks x n of the global sums */
  int gathered_cap;
};

static int mpi_check(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return SQ_SUCCESS;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "quasi-static exchange: %s failed: %s", what, msg);
}

int sq_qs_comm_create(const sq_qs_mesh *qm, const sq_qs_part *p, sq_qs_comm **out) {
  *out = NULL;
  sq_qs_comm *qc = calloc(1, sizeof(*qc));
  SQ_CHECK(qc, SQ_ERR_MEMORY, "quasi-static exchange: no memory");
  qc->qm = qm;
  qc->p = p;
  int ierr = mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &qc->comm), "MPI_Comm_dup");
  if (!ierr) MPI_Comm_size(qc->comm, &qc->nranks);
  if (!ierr && qc->nranks != p->nranks)
    ierr = sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "quasi-static exchange: a partition of %d ranks on %d ranks",
                    p->nranks, qc->nranks);
  if (!ierr) {
    const int64_t ne = p->ptr[p->npeer] > 0 ? p->ptr[p->npeer] : 1, ns = p->nshared > 0 ? p->nshared : 1;
    const size_t cap = sizeof(double) * 3 * SQ_QS_MAXVEC;
    qc->cap = cap;
    qc->send = malloc(cap * (size_t)ne);
    qc->recv = malloc(cap * (size_t)ne);
    qc->acc = malloc(cap * (size_t)ns);
    qc->req = malloc(sizeof(MPI_Request) * 2 * (size_t)(p->npeer + 1));
    if (!qc->send || !qc->recv || !qc->acc || !qc->req)
      ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "quasi-static exchange: no memory for %lld shared entries",
                      (long long)ne);
  }
  if (ierr) {
    sq_qs_comm_destroy(qc);
    return ierr;
  }
  *out = qc;
  return SQ_SUCCESS;
}

void sq_qs_comm_destroy(sq_qs_comm *qc) {
  if (!qc) return;
  if (qc->comm != MPI_COMM_NULL && qc->nranks > 0) MPI_Comm_free(&qc->comm);
  free(qc->send);
  free(qc->recv);
  free(qc->acc);
  free(qc->req);
  free(qc->gathered);
  free(qc);
}

/* acc[ia .. ia + nval) += src[is .. is + nval) in the vector's precision */
static void add_values(int f32, int nval, char *acc, int64_t ia, const char *src, int64_t is) {
  if (f32)
    for (int j = 0; j < nval; ++j) ((float *)acc)[ia * nval + j] += ((const float *)src)[is * nval + j];
  else
    for (int j = 0; j < nval; ++j) ((double *)acc)[ia * nval + j] += ((const double *)src)[is * nval + j];
}

/* The shared nodes' values of y (the vertices' alone for p1) summed over the ranks holding them, in rank order. */
static int exchange(sq_qs_comm *qc, int p1, int nval, int f32, void *vy) {
  const sq_qs_part *p = qc->p;
  SQ_CHECK(nval >= 1 && nval <= 3 * SQ_QS_MAXVEC, SQ_ERR_INTERNAL,
           "quasi-static exchange: %d values per node (at most %d)", nval, 3 * SQ_QS_MAXVEC);
  char *y = vy;
  const size_t es = (f32 ? sizeof(float) : sizeof(double)) * (size_t)nval; /* bytes per node */
  const MPI_Datatype type = f32 ? MPI_FLOAT : MPI_DOUBLE;
  int nreq = 0;
  for (int k = 0; k < p->npeer; ++k) {
    const int64_t b = p->ptr[k], cnt = p1 ? p->nvert[k] : p->ptr[k + 1] - b;
    for (int64_t i = 0; i < cnt; ++i) memcpy(qc->send + es * (size_t)(b + i), y + es * (size_t)p->node[b + i], es);
    SQ_CALL(mpi_check(
        MPI_Irecv(qc->recv + es * (size_t)b, (int)(cnt * nval), type, p->peer[k], 7, qc->comm, &qc->req[nreq++]),
        "MPI_Irecv"));
    SQ_CALL(mpi_check(
        MPI_Isend(qc->send + es * (size_t)b, (int)(cnt * nval), type, p->peer[k], 7, qc->comm, &qc->req[nreq++]),
        "MPI_Isend"));
  }
  SQ_CALL(mpi_check(MPI_Waitall(nreq, qc->req, MPI_STATUSES_IGNORE), "MPI_Waitall"));
  const int64_t ns = p1 ? p->nshared_vert : p->nshared;
  memset(qc->acc, 0, es * (size_t)ns);
  int self = 0;
  for (int k = 0; k <= p->npeer; ++k) {
    if (!self && (k == p->npeer || p->peer[k] > p->rank)) {
      for (int64_t s = 0; s < ns; ++s) add_values(f32, nval, qc->acc, s, y, p->snode[s]);
      self = 1;
    }
    if (k == p->npeer) break;
    const int64_t b = p->ptr[k], cnt = p1 ? p->nvert[k] : p->ptr[k + 1] - b;
    for (int64_t i = b; i < b + cnt; ++i) add_values(f32, nval, qc->acc, p->slot[i], qc->recv, i);
  }
  for (int64_t s = 0; s < ns; ++s) memcpy(y + es * (size_t)p->snode[s], qc->acc + es * (size_t)s, es);
  return SQ_SUCCESS;
}

static int exchange_f64(void *ctx, int p1, int nval, double *y) { return exchange(ctx, p1, nval, 0, y); }
static int exchange_f32(void *ctx, int p1, int nval, float *y) { return exchange(ctx, p1, nval, 1, y); }

static int allreduce(void *ctx, double *v, int n) {
  sq_qs_comm *qc = ctx;
  if (n > qc->gathered_cap) {
    free(qc->gathered);
    qc->gathered = malloc(sizeof(double) * (size_t)n * (size_t)qc->nranks);
    SQ_CHECK(qc->gathered, SQ_ERR_MEMORY, "quasi-static exchange: no memory for %d sums", n);
    qc->gathered_cap = n;
  }
  SQ_CALL(mpi_check(MPI_Allgather(v, n, MPI_DOUBLE, qc->gathered, n, MPI_DOUBLE, qc->comm), "MPI_Allgather"));
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int r = 0; r < qc->nranks; ++r) s += qc->gathered[(size_t)r * n + i];
    v[i] = s;
  }
  return SQ_SUCCESS;
}

void sq_qs_comm_ops(sq_qs_comm *qc, sq_qs_ops *ops) {
  ops->comm = qc;
  ops->exchange_f64 = exchange_f64;
  ops->exchange_f32 = exchange_f32;
  ops->allreduce = allreduce;
}

int sq_qs_comm_gather(sq_qs_comm *qc, int nval, const double *x, double *whole) {
  const sq_qs_mesh *qm = qc->qm;
  const int64_t n = (int64_t)nval * qc->p->nnode_global;
  memset(whole, 0, sizeof(double) * (size_t)n);
  for (int64_t l = 0; l < qm->nnode; ++l)
    if (qm->own[l]) memcpy(whole + (size_t)nval * qm->gnode[l], x + (size_t)nval * l, sizeof(double) * nval);
  /* one owner per node: the sum is the owner's value exactly */
  for (int64_t b = 0; b < n; b += (int64_t)1 << 28) {
    const int64_t c = n - b < ((int64_t)1 << 28) ? n - b : ((int64_t)1 << 28);
    SQ_CALL(mpi_check(MPI_Allreduce(MPI_IN_PLACE, whole + b, (int)c, MPI_DOUBLE, MPI_SUM, qc->comm), "MPI_Allreduce"));
  }
  return SQ_SUCCESS;
}
