/**
 * @file qs_ebe.c  Codelets of the quasi-static solver: "qs_ebe", the element-by-element product of one tile into
 * its tile-local rows (src/qs_impl.h), and "qs_reduce", the addition of a tile's rows into the global vector.
 * The products of all tiles run concurrently (each writes its own rows); the reductions commute.  CPU bodies and
 * CUDA bodies (src/cuda/qs_cuda.cu): the GPU product runs blocks of SQ_QS_CUDA_BLOCK_CELLS cells, each reducing
 * its cells' rows in shared memory before adding them into the tile's rows (the tile's sq_qs_blocks, three more
 * buffers that the CPU body does not read).
 */
#include <stdlib.h>
#include <string.h>

#include "sq_qs.h"
#include "sq_qs_blocks.h"
#include "sq_runtime_impl.h"

#ifdef SQ_USE_CUDA
#include "sq_cuda_qs.h"
#endif

enum { QS_EBE_GEO, QS_EBE_IN, QS_EBE_OUT, QS_EBE_X, QS_EBE_ROWS, QS_EBE_BPTR, QS_EBE_BROW, QS_EBE_BLOCAL, QS_EBE_NBUF };
enum { QS_RED_ROWS, QS_RED_NODE, QS_RED_Y, QS_RED_NBUF };

static void qs_ebe_cpu(void *buffers[], void *cl_arg) {
  const sq_qs_task_args *a = cl_arg;
  const int64_t *in = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_EBE_IN]);
  const int64_t *out = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_EBE_OUT]);
  const int64_t nc = STARPU_VECTOR_GET_NX(buffers[QS_EBE_IN]) / 10;
  const void *geo = (const void *)STARPU_VECTOR_GET_PTR(buffers[QS_EBE_GEO]);
  const void *x = (const void *)STARPU_VECTOR_GET_PTR(buffers[QS_EBE_X]);
  void *rows = (void *)STARPU_VECTOR_GET_PTR(buffers[QS_EBE_ROWS]);
  const int nv = a->nvec > 1 ? a->nvec : 1;
  memset(rows, 0, (size_t)(3 * a->nrows * nv) * sq_real_size(a->precision));
  if (nv > 1) {
    if (a->precision == SQ_F64)
      (a->p1 ? sq_qs_ebe_p1_f64_multi : sq_qs_ebe_p2_f64_multi)(nc, in, out, geo, nv, x, rows);
    else (a->p1 ? sq_qs_ebe_p1_f32_multi : sq_qs_ebe_p2_f32_multi)(nc, in, out, geo, nv, x, rows);
  } else if (a->precision == SQ_F64) (a->p1 ? sq_qs_ebe_p1_f64 : sq_qs_ebe_p2_f64)(nc, in, out, geo, x, rows);
  else (a->p1 ? sq_qs_ebe_p1_f32 : sq_qs_ebe_p2_f32)(nc, in, out, geo, x, rows);
}

static void qs_reduce_cpu(void *buffers[], void *cl_arg) {
  const sq_qs_task_args *a = cl_arg;
  const int64_t *node = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_RED_NODE]);
  const void *rows = (const void *)STARPU_VECTOR_GET_PTR(buffers[QS_RED_ROWS]);
  void *y = (void *)STARPU_VECTOR_GET_PTR(buffers[QS_RED_Y]);
  const int m = 3 * (a->nvec > 1 ? a->nvec : 1); /* values per node */
  for (int64_t k = 0; k < a->nrows; ++k)
    for (int i = 0; i < m; ++i) {
      if (a->precision == SQ_F64) ((double *)y)[m * node[k] + i] += ((const double *)rows)[m * k + i];
      else ((float *)y)[m * node[k] + i] += ((const float *)rows)[m * k + i];
    }
}

#ifdef SQ_USE_CUDA
static void qs_ebe_cuda(void *buffers[], void *cl_arg) {
  const sq_qs_task_args *a = cl_arg;
  cudaStream_t stream = starpu_cuda_get_local_stream();
  void *rows = (void *)STARPU_VECTOR_GET_PTR(buffers[QS_EBE_ROWS]);
  const int nv = a->nvec > 1 ? a->nvec : 1;
  cudaMemsetAsync(rows, 0, (size_t)(3 * a->nrows * nv) * sq_real_size(a->precision), stream);
  const sq_cuda_qs_blocks blk = {.cells = a->blk_cells,
                                 .nblk = a->nblk,
                                 .max_rows = a->blk_max_rows,
                                 .ptr = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_EBE_BPTR]),
                                 .row = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_EBE_BROW]),
                                 .gather = (const uint16_t *)STARPU_VECTOR_GET_PTR(buffers[QS_EBE_BLOCAL])};
  sq_cuda_qs_ebe(a->precision, a->p1, nv, STARPU_VECTOR_GET_NX(buffers[QS_EBE_IN]) / 10,
                 (const void *)STARPU_VECTOR_GET_PTR(buffers[QS_EBE_GEO]),
                 (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_EBE_IN]), &blk,
                 (const void *)STARPU_VECTOR_GET_PTR(buffers[QS_EBE_X]), rows, stream);
}

static void qs_reduce_cuda(void *buffers[], void *cl_arg) {
  const sq_qs_task_args *a = cl_arg;
  sq_cuda_qs_scatter_add(a->precision, a->nvec > 1 ? a->nvec : 1, a->nrows,
                         (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_RED_NODE]),
                         (const void *)STARPU_VECTOR_GET_PTR(buffers[QS_RED_ROWS]),
                         (void *)STARPU_VECTOR_GET_PTR(buffers[QS_RED_Y]), starpu_cuda_get_local_stream());
}
#endif

static struct starpu_perfmodel qs_ebe_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_qs_ebe"};
static struct starpu_codelet qs_ebe_cl = {
    .cpu_funcs = {qs_ebe_cpu},
    .cpu_funcs_name = {"qs_ebe_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {qs_ebe_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = QS_EBE_NBUF,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_R, STARPU_R, STARPU_R},
    .model = &qs_ebe_model,
    .name = "sq_qs_ebe",
};

static struct starpu_perfmodel qs_reduce_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_qs_reduce"};
static struct starpu_codelet qs_reduce_cl = {
    .cpu_funcs = {qs_reduce_cpu},
    .cpu_funcs_name = {"qs_reduce_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {qs_reduce_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = QS_RED_NBUF,
    .modes = {STARPU_R, STARPU_R, STARPU_RW | STARPU_COMMUTE},
    .model = &qs_reduce_model,
    .name = "sq_qs_reduce",
};

static int64_t tile_rows(const sq_qs_runtime *qr, int t, int p1) {
  return p1 ? qr->qm->tile[t].ncoarse : qr->qm->tile[t].nnode;
}

int sq_insert_qs_ebe(sq_qs_runtime *qr, int t, sq_precision prec, int p1, starpu_data_handle_t x) {
  return sq_insert_qs_ebe_multi(qr, t, prec, p1, 1, x, qr->rows[t]);
}

int sq_insert_qs_ebe_multi(sq_qs_runtime *qr, int t, sq_precision prec, int p1, int nvec, starpu_data_handle_t x,
                           starpu_data_handle_t rows) {
  sq_qs_task_args *a = malloc(sizeof(*a)); /* StarPU frees it */
  SQ_CHECK(a, SQ_ERR_MEMORY, "out of memory");
  const struct sq_qs_blocks *b = qr->blk[p1][t];
  *a = (sq_qs_task_args){.precision = prec,
                         .p1 = p1,
                         .nrows = tile_rows(qr, t, p1),
                         .blk_cells = b->cells,
                         .nblk = b->nblk,
                         .blk_max_rows = b->max_rows,
                         .nvec = nvec};
  const int ret = starpu_task_insert(&qs_ebe_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_R,
                                     prec == SQ_F64 ? qr->geo[t] : qr->geo32[t], STARPU_R, qr->in[t], STARPU_R,
                                     qr->out[t], STARPU_R, x, STARPU_W, rows, STARPU_R, qr->blk_ptr[p1][t], STARPU_R,
                                     qr->blk_row[p1][t], STARPU_R, qr->blk_local[p1][t], 0);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting the quasi-static EBE task of tile %d failed (%d)", t, ret);
  ++qr->nebe;
  return SQ_SUCCESS;
}

int sq_insert_qs_reduce(sq_qs_runtime *qr, int t, sq_precision prec, int p1, starpu_data_handle_t y) {
  return sq_insert_qs_reduce_multi(qr, t, prec, p1, 1, qr->rows[t], y);
}

int sq_insert_qs_reduce_multi(sq_qs_runtime *qr, int t, sq_precision prec, int p1, int nvec, starpu_data_handle_t rows,
                              starpu_data_handle_t y) {
  sq_qs_task_args *a = malloc(sizeof(*a)); /* StarPU frees it */
  SQ_CHECK(a, SQ_ERR_MEMORY, "out of memory");
  *a = (sq_qs_task_args){.precision = prec, .p1 = p1, .nrows = tile_rows(qr, t, p1), .nvec = nvec};
  const int ret = starpu_task_insert(&qs_reduce_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_R, rows, STARPU_R,
                                     qr->node[t], STARPU_RW | STARPU_COMMUTE, y, 0);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting the quasi-static reduction task of tile %d failed (%d)", t, ret);
  ++qr->nreduce;
  return SQ_SUCCESS;
}
