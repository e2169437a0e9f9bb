/**
 * @file qs.c  The quasi-static solver's tiles registered with StarPU, and its operator products as tasks
 * (sq_qs_runtime_ops): the global input and output vectors are registered for the duration of one product.
 */
#include <stdlib.h>
#include <string.h>

#include "sq_qs.h"
#include "sq_qs_blocks.h"
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
  for (int p1 = 0; p1 < 2; ++p1) {
    if (!ierr) ierr = SQ_CALLOC(qr->blk[p1], nt);
    if (!ierr) ierr = SQ_CALLOC(qr->blk_ptr[p1], nt);
    if (!ierr) ierr = SQ_CALLOC(qr->blk_row[p1], nt);
    if (!ierr) ierr = SQ_CALLOC(qr->blk_local[p1], nt);
  }
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
    for (int p1 = 0; !ierr && p1 < 2; ++p1) {
      ierr = sq_qs_blocks_create(nc, tl->local, p1 ? 4 : 10, SQ_QS_CUDA_BLOCK_CELLS, &qr->blk[p1][t]);
      if (ierr) break;
      const sq_qs_blocks *b = qr->blk[p1][t];
      reg(&qr->blk_ptr[p1][t], b->ptr, b->nblk + 1, sizeof(int64_t));
      reg(&qr->blk_row[p1][t], b->row, b->ptr[b->nblk] ? b->ptr[b->nblk] : 1, sizeof(int64_t));
      reg(&qr->blk_local[p1][t], b->gather, b->ngather ? b->ngather : 1, sizeof(uint16_t));
    }
  }
  if (!ierr) {
    reg(&qr->edge_vert, qm->edge_vert, 2 * qm->nedge, sizeof(int64_t));
    reg(&qr->vert_edge_ptr, qm->vert_edge_ptr, qm->nvert + 1, sizeof(int64_t));
    reg(&qr->vert_edge, qm->vert_edge, 2 * qm->nedge, sizeof(int64_t));
  }
  qr->nchunk = nt;
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
  if (qr->edge_vert) starpu_data_unregister(qr->edge_vert);
  if (qr->vert_edge_ptr) starpu_data_unregister(qr->vert_edge_ptr);
  if (qr->vert_edge) starpu_data_unregister(qr->vert_edge);
  for (int p1 = 0; p1 < 2; ++p1) {
    starpu_data_handle_t *blk[3] = {qr->blk_ptr[p1], qr->blk_row[p1], qr->blk_local[p1]};
    for (int k = 0; k < 3; ++k)
      for (int t = 0; blk[k] && t < qr->ntile; ++t)
        if (blk[k][t]) starpu_data_unregister(blk[k][t]);
    for (int t = 0; qr->blk[p1] && t < qr->ntile; ++t) sq_qs_blocks_destroy(qr->blk[p1][t]);
    SQ_FREE(qr->blk[p1]);
    SQ_FREE(qr->blk_ptr[p1]);
    SQ_FREE(qr->blk_row[p1]);
    SQ_FREE(qr->blk_local[p1]);
  }
  for (int t = 0; qr->rows_mem && t < qr->ntile; ++t) free(qr->rows_mem[t]);
  for (int t = 0; qr->rows_multi && t < qr->ntile; ++t) {
    if (qr->rows_multi[t]) starpu_data_unregister(qr->rows_multi[t]);
    free(qr->rows_multi_mem[t]);
  }
  SQ_FREE(qr->rows_multi);
  SQ_FREE(qr->rows_multi_mem);
  SQ_FREE(qr->geo);
  SQ_FREE(qr->geo32);
  SQ_FREE(qr->in);
  SQ_FREE(qr->out);
  SQ_FREE(qr->node);
  SQ_FREE(qr->rows);
  SQ_FREE(qr->rows_mem);
  free(qr);
}

static int product_multi(sq_qs_runtime *qr, sq_precision prec, int p1, int nvec, const void *x, void *y);
static int transfer_multi(sq_qs_runtime *qr, int restriction, int nvec, const float *in, float *out);

/* y = K x with the tasks: the products of all tiles, then their reductions into y (cleared here). */
static int product(sq_qs_runtime *qr, sq_precision prec, int p1, const void *x, void *y) {
  return product_multi(qr, prec, p1, 1, x, y);
}

/* A transfer: the output (nout rows of 3 floats) cut into blocks of rows, one task per block. */
static int transfer(sq_qs_runtime *qr, int restriction, const float *in, float *out) {
  return transfer_multi(qr, restriction, 1, in, out);
}

static int restrict_f32(void *ctx, const float *r, float *rc) { return transfer(ctx, 1, r, rc); }
static int prolong_f32(void *ctx, const float *zc, float *z) { return transfer(ctx, 0, zc, z); }

static int apply_f64(void *ctx, const double *x, double *y) { return product(ctx, SQ_F64, 0, x, y); }
static int apply_f32(void *ctx, const float *x, float *y) { return product(ctx, SQ_F32, 0, x, y); }
static int apply_coarse_f32(void *ctx, const float *x, float *y) { return product(ctx, SQ_F32, 1, x, y); }

/* The rows of the multi-vector products of every tile (SQ_QS_MAXVEC vectors), made at the first such product. */
static int rows_multi(sq_qs_runtime *qr) {
  if (qr->rows_multi) return SQ_SUCCESS;
  const sq_qs_mesh *qm = qr->qm;
  int ierr = SQ_CALLOC(qr->rows_multi_mem, qr->ntile);
  if (!ierr) ierr = SQ_CALLOC(qr->rows_multi, qr->ntile);
  for (int t = 0; !ierr && t < qr->ntile; ++t) {
    const int64_t m = 3 * SQ_QS_MAXVEC * qm->tile[t].nnode;
    ierr = sq_calloc_aligned(&qr->rows_multi_mem[t], (size_t)m, sizeof(double));
    if (!ierr) reg(&qr->rows_multi[t], qr->rows_multi_mem[t], m, sizeof(double));
  }
  return ierr;
}

/* y = K x for nvec interleaved vectors: per tile a multi-vector product (each element read once for the nvec
 * vectors) into the tile's rows (the multi-vector ones when nvec > 1), then their reductions into y (cleared
 * here). */
static int product_multi(sq_qs_runtime *qr, sq_precision prec, int p1, int nvec, const void *x, void *y) {
  if (nvec > 1) SQ_CALL(rows_multi(qr));
  starpu_data_handle_t *rows = nvec > 1 ? qr->rows_multi : qr->rows;
  const int64_t n = 3 * (p1 ? qr->qm->nvert : qr->qm->nnode) * nvec;
  const size_t es = sq_real_size(prec);
  memset(y, 0, (size_t)n * es);
  starpu_data_handle_t hx, hy;
  reg(&hx, x, n, es);
  reg(&hy, y, n, es);
  int ierr = SQ_SUCCESS;
  for (int t = 0; !ierr && t < qr->ntile; ++t) ierr = sq_insert_qs_ebe_multi(qr, t, prec, p1, nvec, hx, rows[t]);
  for (int t = 0; !ierr && t < qr->ntile; ++t) ierr = sq_insert_qs_reduce_multi(qr, t, prec, p1, nvec, rows[t], hy);
  starpu_task_wait_for_all();
  starpu_data_unregister(hx);
  starpu_data_unregister(hy);
  return ierr;
}

/* A transfer of nvec interleaved vectors: the output cut into blocks of nodes, one task per block. */
static int transfer_multi(sq_qs_runtime *qr, int restriction, int nvec, const float *in, float *out) {
  const sq_qs_mesh *qm = qr->qm;
  const int64_t nin = restriction ? qm->nnode : qm->nvert, nout = restriction ? qm->nvert : qm->nnode;
  const int nb = (int)(nout < qr->nchunk ? nout : qr->nchunk);
  uint32_t *len = malloc(sizeof(uint32_t) * (size_t)nb);
  SQ_CHECK(len, SQ_ERR_MEMORY, "out of memory");
  for (int b = 0; b < nb; ++b) len[b] = (uint32_t)(nout * (b + 1) / nb - nout * b / nb);
  starpu_data_handle_t hin, hout;
  reg(&hin, in, nin, 3 * (size_t)nvec * sizeof(float));
  reg(&hout, out, nout, 3 * (size_t)nvec * sizeof(float));
  struct starpu_data_filter f = {
      .filter_func = starpu_vector_filter_list, .nchildren = (unsigned)nb, .filter_arg_ptr = len};
  starpu_data_partition(hout, &f);
  int ierr = SQ_SUCCESS;
  for (int b = 0; !ierr && b < nb; ++b) {
    const int64_t first = nout * b / nb, end = nout * (b + 1) / nb;
    starpu_data_handle_t part = starpu_data_get_sub_data(hout, 1, b);
    ierr = restriction ? sq_insert_qs_restrict_multi(qr, nvec, first, end, hin, part)
                       : sq_insert_qs_prolong_multi(qr, nvec, first, end, hin, part);
  }
  starpu_task_wait_for_all();
  starpu_data_unpartition(hout, STARPU_MAIN_RAM);
  starpu_data_unregister(hin);
  starpu_data_unregister(hout);
  free(len);
  return ierr;
}

static int apply_f64_multi(void *ctx, int nvec, const double *x, double *y) {
  return product_multi(ctx, SQ_F64, 0, nvec, x, y);
}
static int apply_f32_multi(void *ctx, int nvec, const float *x, float *y) {
  return product_multi(ctx, SQ_F32, 0, nvec, x, y);
}
static int apply_coarse_f32_multi(void *ctx, int nvec, const float *x, float *y) {
  return product_multi(ctx, SQ_F32, 1, nvec, x, y);
}
static int restrict_f32_multi(void *ctx, int nvec, const float *r, float *rc) {
  return transfer_multi(ctx, 1, nvec, r, rc);
}
static int prolong_f32_multi(void *ctx, int nvec, const float *zc, float *z) {
  return transfer_multi(ctx, 0, nvec, zc, z);
}

void sq_qs_runtime_ops(sq_qs_runtime *qr, sq_qs_ops *ops) {
  *ops = (sq_qs_ops){.ctx = qr,
                     .apply_f64 = apply_f64,
                     .apply_f32 = apply_f32,
                     .apply_coarse_f32 = apply_coarse_f32,
                     .restrict_f32 = restrict_f32,
                     .prolong_f32 = prolong_f32,
                     .apply_f64_multi = apply_f64_multi,
                     .apply_f32_multi = apply_f32_multi,
                     .apply_coarse_f32_multi = apply_coarse_f32_multi,
                     .restrict_f32_multi = restrict_f32_multi,
                     .prolong_f32_multi = prolong_f32_multi};
}

void sq_qs_runtime_counts(const sq_qs_runtime *qr, int64_t *ebe, int64_t *reduce, int64_t *transfer) {
  *ebe = qr->nebe;
  *reduce = qr->nreduce;
  *transfer = qr->ntransfer;
}
