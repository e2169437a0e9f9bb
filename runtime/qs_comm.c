/**
 * @file qs_comm.c  The quasi-static solver's MPI exchange (sq_qs_comm.h): the shared nodes' sums, assembled in
 * rank order, and the global sums of its dot products.  In a run with tasks the exchange is the halo machinery of
 * runtime/halo.c: a pack task per peer (codelets/qs_halo.c), starpu_mpi_isend_detached / starpu_mpi_irecv_detached,
 * and a task that sums the received handles into the vector; without StarPU (plain loops) the same pack and sum
 * (src/qs_part.c) around MPI_Isend / MPI_Irecv.  The global sums are MPI_Allgather on a duplicate of
 * MPI_COMM_WORLD (apart from StarPU-MPI's messages), added in rank order.
 */
#include <starpu_mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sq_qs_comm.h"
#include "sq_qs_part.h"
#include "sq_runtime_impl.h"

struct sq_qs_comm {
  const sq_qs_mesh *qm;
  const sq_qs_part *p;
  MPI_Comm comm;
  int nranks;
  int tasks;         /* 1: pack and sum tasks, StarPU-MPI transfers */
  size_t cap;        /* bytes a node at most (3 SQ_QS_MAXVEC doubles) */
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

int sq_qs_comm_create(const sq_qs_mesh *qm, const sq_qs_part *p, int tasks, sq_qs_comm **out) {
  *out = NULL;
  sq_qs_comm *qc = calloc(1, sizeof(*qc));
  SQ_CHECK(qc, SQ_ERR_MEMORY, "quasi-static exchange: no memory");
  qc->qm = qm;
  qc->p = p;
  qc->tasks = tasks;
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

/* The tag of the exchange messages, apart from the DG halo's (runtime/halo.c: below 2^40). */
static const starpu_mpi_tag_t qs_tag = (starpu_mpi_tag_t)1 << 44;

static void vec_register(starpu_data_handle_t *h, void *p, int64_t n, size_t elem) {
  starpu_vector_data_register(h, STARPU_MAIN_RAM, (uintptr_t)p, (uint32_t)(n > 0 ? n : 1), elem);
}

/* As tasks: pack per peer, StarPU-MPI send and receive, the sum reading the received handles. */
static int exchange_tasks(sq_qs_comm *qc, int p1, int nval, int f32, void *y) {
  const sq_qs_part *p = qc->p;
  const size_t elem = f32 ? sizeof(float) : sizeof(double), es = elem * (size_t)nval;
  const int np = p->npeer;
  starpu_data_handle_t hy, hs[np > 0 ? np : 1], hr[np > 0 ? np : 1];
  vec_register(&hy, y, (p1 ? qc->qm->nvert : qc->qm->nnode) * nval, elem);
  int ierr = SQ_SUCCESS;
  for (int k = 0; k < np; ++k) {
    const int64_t b = p->ptr[k], cnt = sq_qs_part_count(p, k, p1);
    vec_register(&hs[k], qc->send + es * (size_t)b, cnt * nval, elem);
    vec_register(&hr[k], qc->recv + es * (size_t)b, cnt * nval, elem);
    const sq_qs_halo_args a = {.part = p, .peer = k, .p1 = p1, .nval = nval, .f32 = f32};
    if (!ierr) ierr = sq_insert_qs_pack(&a, hy, hs[k]);
    if (!ierr && starpu_mpi_irecv_detached(hr[k], p->peer[k], qs_tag, MPI_COMM_WORLD, NULL, NULL))
      ierr = sq_error(SQ_ERR_RUNTIME, __FILE__, __LINE__, "quasi-static exchange: receive from rank %d failed",
                      p->peer[k]);
    if (!ierr && starpu_mpi_isend_detached(hs[k], p->peer[k], qs_tag, MPI_COMM_WORLD, NULL, NULL))
      ierr = sq_error(SQ_ERR_RUNTIME, __FILE__, __LINE__, "quasi-static exchange: send to rank %d failed", p->peer[k]);
  }
  const sq_qs_halo_args a = {.part = p, .p1 = p1, .nval = nval, .f32 = f32, .acc = qc->acc};
  if (!ierr) ierr = sq_insert_qs_sum(&a, hy, hr);
  /* unregistering waits for the tasks and transfers on each handle and leaves y's result in host memory */
  starpu_data_unregister(hy);
  for (int k = 0; k < np; ++k) {
    starpu_data_unregister(hs[k]);
    starpu_data_unregister(hr[k]);
  }
  return ierr;
}

/* The shared nodes' values of y (the vertices' alone for p1) summed over the ranks holding them, in rank order. */
static int exchange(sq_qs_comm *qc, int p1, int nval, int f32, void *vy) {
  const sq_qs_part *p = qc->p;
  SQ_CHECK(nval >= 1 && nval <= 3 * SQ_QS_MAXVEC, SQ_ERR_INTERNAL,
           "quasi-static exchange: %d values per node (at most %d)", nval, 3 * SQ_QS_MAXVEC);
  if (qc->tasks) return exchange_tasks(qc, p1, nval, f32, vy);
  const size_t es = (f32 ? sizeof(float) : sizeof(double)) * (size_t)nval; /* bytes per node */
  const MPI_Datatype type = f32 ? MPI_FLOAT : MPI_DOUBLE;
  const void *recv[p->npeer > 0 ? p->npeer : 1];
  int nreq = 0;
  for (int k = 0; k < p->npeer; ++k) {
    const int64_t b = p->ptr[k], cnt = sq_qs_part_count(p, k, p1);
    sq_qs_part_pack(p, k, p1, nval, f32, vy, qc->send + es * (size_t)b);
    recv[k] = qc->recv + es * (size_t)b;
    SQ_CALL(mpi_check(
        MPI_Irecv(qc->recv + es * (size_t)b, (int)(cnt * nval), type, p->peer[k], 7, qc->comm, &qc->req[nreq++]),
        "MPI_Irecv"));
    SQ_CALL(mpi_check(
        MPI_Isend(qc->send + es * (size_t)b, (int)(cnt * nval), type, p->peer[k], 7, qc->comm, &qc->req[nreq++]),
        "MPI_Isend"));
  }
  SQ_CALL(mpi_check(MPI_Waitall(nreq, qc->req, MPI_STATUSES_IGNORE), "MPI_Waitall"));
  sq_qs_part_sum(p, p1, nval, f32, vy, recv, qc->acc);
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
