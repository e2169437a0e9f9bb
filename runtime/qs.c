/**
 * @file qs.c  The quasi-static solver's tiles registered with StarPU, and its operator products as tasks
 * (sq_qs_runtime_ops): the global input and output vectors are registered for the duration of one product.
 */
#include <stdlib.h>
#include <string.h>

#include "sq_qs.h"
#include "sq_runtime_impl.h"

static void reg(starpu_data_handle_t *h, const void *p, int64_t n, size_t elem) {
  starpu_vector_data_register(h, STARPU_MAIN_RAM, (uintptr_t)p, (uint32_t)n, elem);
}

int sq_qs_runtime_create(const sq_qs_mesh *qm, sq_qs_runtime **out) {
  *out = NULL;
  sq_qs_runtime *qr = calloc(1, sizeof(*qr));
  SQ_CHECK(qr, SQ_ERR_MEMORY, "quasi-static runtime: no memory");
  qr->qm = qm;
  qr->ntile = qm->ntile;
  const int nt = qm->ntile;
  int ierr = SQ_CALLOC(qr->geo, nt);
  if (!ierr) ierr = SQ_CALLOC(qr->geo32, nt);
  if (!ierr) ierr = SQ_CALLOC(qr->in, nt);
  if (!ierr) ierr = SQ_CALLOC(qr->out, nt);
  if (!ierr) ierr = SQ_CALLOC(qr->node, nt);
  if (!ierr) ierr = SQ_CALLOC(qr->rows, nt);
  if (!ierr) ierr = SQ_CALLOC(qr->rows_mem, nt);
  for (int t = 0; !ierr && t < nt; ++t) {
    const sq_qs_tile *tl = qm->tile + t;
    const int64_t nc = tl->c1 - tl->c0;
    ierr = sq_calloc_aligned(&qr->rows_mem[t], (size_t)(3 * tl->nnode), sizeof(double));
    if (ierr) break;
    reg(&qr->geo[t], qm->geo + SQ_QS_NGEO * tl->c0, SQ_QS_NGEO * nc, sizeof(double));
    reg(&qr->geo32[t], qm->geo32 + SQ_QS_NGEO * tl->c0, SQ_QS_NGEO * nc, sizeof(float));
    reg(&qr->in[t], qm->cell_node + 10 * tl->c0, 10 * nc, sizeof(int64_t));
    reg(&qr->out[t], tl->local, 10 * nc, sizeof(int64_t));
    reg(&qr->node[t], tl->node, tl->nnode, sizeof(int64_t));
    reg(&qr->rows[t], qr->rows_mem[t], 3 * tl->nnode, sizeof(double));
  }
  if (ierr) {
    sq_qs_runtime_destroy(qr);
    return ierr;
  }
  *out = qr;
  return SQ_SUCCESS;
}

void sq_qs_runtime_destroy(sq_qs_runtime *qr) {
  if (!qr) return;
  starpu_data_handle_t *all[6] = {qr->geo, qr->geo32, qr->in, qr->out, qr->node, qr->rows};
  for (int k = 0; k < 6; ++k) {
    for (int t = 0; all[k] && t < qr->ntile; ++t)
      if (all[k][t]) starpu_data_unregister(all[k][t]);
  }
  for (int t = 0; qr->rows_mem && t < qr->ntile; ++t) free(qr->rows_mem[t]);
  SQ_FREE(qr->geo);
  SQ_FREE(qr->geo32);
  SQ_FREE(qr->in);
  SQ_FREE(qr->out);
  SQ_FREE(qr->node);
  SQ_FREE(qr->rows);
  SQ_FREE(qr->rows_mem);
  free(qr);
}

/* y = K x with the tasks: the products of all tiles, then their reductions into y (cleared here). */
static int product(sq_qs_runtime *qr, sq_precision prec, int p1, const void *x, void *y) {
  const int64_t n = 3 * (p1 ? qr->qm->nvert : qr->qm->nnode);
  const size_t es = sq_real_size(prec);
  memset(y, 0, (size_t)n * es);
  starpu_data_handle_t hx, hy;
  reg(&hx, x, n, es);
  reg(&hy, y, n, es);
  int ierr = SQ_SUCCESS;
  for (int t = 0; !ierr && t < qr->ntile; ++t) ierr = sq_insert_qs_ebe(qr, t, prec, p1, hx);
  for (int t = 0; !ierr && t < qr->ntile; ++t) ierr = sq_insert_qs_reduce(qr, t, prec, p1, hy);
  starpu_task_wait_for_all();
  starpu_data_unregister(hx);
  starpu_data_unregister(hy);
  return ierr;
}

static int apply_f64(void *ctx, const double *x, double *y) { return product(ctx, SQ_F64, 0, x, y); }
static int apply_f32(void *ctx, const float *x, float *y) { return product(ctx, SQ_F32, 0, x, y); }
static int apply_coarse_f32(void *ctx, const float *x, float *y) { return product(ctx, SQ_F32, 1, x, y); }

void sq_qs_runtime_ops(sq_qs_runtime *qr, sq_qs_ops *ops) {
  *ops = (sq_qs_ops){.ctx = qr, .apply_f64 = apply_f64, .apply_f32 = apply_f32, .apply_coarse_f32 = apply_coarse_f32};
}

void sq_qs_runtime_counts(const sq_qs_runtime *qr, int64_t *ebe, int64_t *reduce) {
  *ebe = qr->nebe;
  *reduce = qr->nreduce;
}
