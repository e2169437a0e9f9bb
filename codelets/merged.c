/**
 * @file merged.c  Codelet "merged": the predictor (ader) and local update of tiles from neighbouring
 * LTS clusters that start a step at the same time, run as one task (thesis §6.5.3).  Each segment
 * has its own time step; per element the arithmetic is exactly that of the separate ader and local
 * tasks, so merged and unmerged runs agree bitwise.  Fewer, larger tasks are meant for small clusters,
 * where launch and scheduling overhead dominate (docs/PERFORMANCE.md compares merged and unmerged LTS).
 */
#include <stdlib.h>

#include "sq_runtime_impl.h"
#ifdef SQ_USE_CUDA
#include "sq_cuda.h"
#endif

/* A segment's buffers: dofs, star, flux_local, tint, then the optional derivatives and buffer. */
enum { SEG_DOFS, SEG_STAR, SEG_FLUX, SEG_TINT, SEG_FIXED };

/* The segment of @p tile whose predictor writes the time integrals @p tint. */
static int segment_buffers(const sq_runtime *rt, int tile, double dt, sq_buffer_mode mode, starpu_data_handle_t tint,
                           struct starpu_data_descr *descr, sq_segment *seg) {
  const sq_tile *tl = &rt->disc->tile[tile];
  SQ_CHECK(mode == SQ_BUFFER_NONE || tl->needs_buffer, SQ_ERR_INTERNAL, "tile %d has no LTS buffer", tile);
  int n = 0;
  descr[n++] = (struct starpu_data_descr){rt->dofs[tile], STARPU_RW};
  descr[n++] = (struct starpu_data_descr){rt->star[tile], STARPU_R};
  descr[n++] = (struct starpu_data_descr){rt->flux_local[tile], STARPU_R};
  descr[n++] = (struct starpu_data_descr){tint, STARPU_W};
  if (tl->needs_derivs) descr[n++] = (struct starpu_data_descr){rt->derivs[tile], STARPU_W};
  if (mode != SQ_BUFFER_NONE)
    descr[n++] = (struct starpu_data_descr){rt->buffer[tile], mode == SQ_BUFFER_RESET ? STARPU_W : STARPU_RW};
  *seg = (sq_segment){.dt = dt, .store_derivs = tl->needs_derivs, .buffer = mode, .nbuf = n};
  return SQ_SUCCESS;
}

int sq_segment_buffers(sq_runtime *rt, int tile, double dt, sq_buffer_mode mode, struct starpu_data_descr *descr,
                       sq_segment *seg) {
  return segment_buffers(rt, tile, dt, mode, sq_tint_next(rt, tile), descr, seg);
}

int sq_segment_buffers_ahead(const sq_runtime *rt, int tile, double dt, sq_buffer_mode mode,
                             struct starpu_data_descr *descr, sq_segment *seg) {
  return segment_buffers(rt, tile, dt, mode, sq_tint_ahead(rt, tile), descr, seg);
}

void *sq_segment_tint(void **buf) { return (void *)STARPU_VECTOR_GET_PTR(buf[SEG_TINT]); }

void sq_segment_cpu(sq_precision prec, int order, const sq_segment *sg, const void *pack, void **buf) {
  const int64_t n = STARPU_VECTOR_GET_NX(buf[SEG_DOFS]);
  void *dofs = (void *)STARPU_VECTOR_GET_PTR(buf[SEG_DOFS]);
  const void *star = (const void *)STARPU_VECTOR_GET_PTR(buf[SEG_STAR]);
  void *tint = sq_segment_tint(buf);
  int next = SEG_FIXED;
  void *derivs = sg->store_derivs ? (void *)STARPU_VECTOR_GET_PTR(buf[next++]) : NULL;
  void *lts_buffer = sg->buffer != SQ_BUFFER_NONE ? (void *)STARPU_VECTOR_GET_PTR(buf[next++]) : NULL;
  sq_kernel_ader(prec, order, n, pack, dofs, star, sg->dt, tint, derivs);
  if (lts_buffer) sq_kernel_accumulate(prec, order, n, tint, sg->buffer == SQ_BUFFER_RESET, lts_buffer);
  sq_kernel_local(prec, order, n, pack, tint, star, (const void *)STARPU_VECTOR_GET_PTR(buf[SEG_FLUX]), dofs);
}

#ifdef SQ_USE_CUDA
/* A segment's device arrays, time step and buffer mode from its task buffers @p buf. */
static sq_cuda_segment segment_arrays(const sq_segment *sg, void **buf) {
  int next = SEG_FIXED; /* the optional buffers in order: derivatives, then the LTS buffer */
  void *derivs = sg->store_derivs ? (void *)STARPU_VECTOR_GET_PTR(buf[next++]) : NULL;
  void *lts_buffer = sg->buffer != SQ_BUFFER_NONE ? (void *)STARPU_VECTOR_GET_PTR(buf[next++]) : NULL;
  return (sq_cuda_segment){.n = STARPU_VECTOR_GET_NX(buf[SEG_DOFS]),
                           .dofs = (void *)STARPU_VECTOR_GET_PTR(buf[SEG_DOFS]),
                           .star = (const void *)STARPU_VECTOR_GET_PTR(buf[SEG_STAR]),
                           .flux_local = (const void *)STARPU_VECTOR_GET_PTR(buf[SEG_FLUX]),
                           .tint = sq_segment_tint(buf),
                           .derivs = derivs,
                           .lts_buffer = lts_buffer,
                           .dt = sg->dt,
                           .buffer_reset = sg->buffer == SQ_BUFFER_RESET};
}

void sq_segment_cuda(sq_precision prec, int order, const sq_segment *sg, const void *pack, void **buf,
                     cudaStream_t stream) {
  const sq_cuda_segment g = segment_arrays(sg, buf);
  sq_cuda_predict(prec, order, g.n, pack, g.dofs, g.star, g.flux_local, g.dt, g.tint, g.derivs, g.lts_buffer,
                  g.buffer_reset, stream);
}
#endif

typedef struct merged_args {
  sq_precision precision;
  int order;
  int nseg;
  sq_segment seg[];
} merged_args;

static void merged_cpu(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const merged_args *a = cl_arg;
  const void *pack = (const void *)STARPU_VECTOR_GET_PTR(buffers[0]);
  for (int s = 0, b = 1; s < a->nseg; b += a->seg[s].nbuf, ++s)
    sq_segment_cpu(a->precision, a->order, &a->seg[s], pack, buffers + b);
}

#ifdef SQ_USE_CUDA
/* The fused predictor (ader + LTS buffer + local, merged_cuda.cu) of all segments as one grid, so that
 * small clusters' tiles fill the GPU together (thesis §6.5.3); more segments than one grid's parameters
 * hold (SQ_CUDA_MAX_SEGMENTS): one launch per segment, on the worker's stream. */
static void merged_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const merged_args *a = cl_arg;
  const void *pack = (const void *)STARPU_VECTOR_GET_PTR(buffers[0]);
  if (a->nseg > SQ_CUDA_MAX_SEGMENTS) {
    for (int s = 0, b = 1; s < a->nseg; b += a->seg[s].nbuf, ++s)
      sq_segment_cuda(a->precision, a->order, &a->seg[s], pack, buffers + b, starpu_cuda_get_local_stream());
    return;
  }
  sq_cuda_segments segs = {.nseg = a->nseg};
  for (int s = 0, b = 1; s < a->nseg; b += a->seg[s].nbuf, ++s) segs.seg[s] = segment_arrays(&a->seg[s], buffers + b);
  sq_cuda_predict_segments(a->precision, a->order, &segs, pack, starpu_cuda_get_local_stream());
}
#endif

static struct starpu_perfmodel merged_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_merged"};

static struct starpu_codelet merged_cl = {
    .cpu_funcs = {merged_cpu},
    .cpu_funcs_name = {"merged_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {merged_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &merged_model,
    .name = "sq_merged",
};

int sq_insert_merged_predict(sq_runtime *rt, int ntile, const int *tiles, const double *dt,
                             const sq_buffer_mode *buffer_mode, int priority) {
  const sq_disc *d = rt->disc;
  const size_t args_size = sizeof(merged_args) + sizeof(sq_segment) * ntile;
  merged_args *a = malloc(args_size);
  struct starpu_data_descr *descr = malloc(sizeof(*descr) * (1 + SQ_SEGMENT_MAX_BUFFERS * ntile));
  SQ_CHECK(a && descr, SQ_ERR_MEMORY, "out of memory");
  a->precision = d->opt.precision;
  a->order = d->opt.order;
  a->nseg = ntile;
  int nbuf = 0;
  descr[nbuf++] = (struct starpu_data_descr){rt->pack, STARPU_R};
  for (int s = 0; s < ntile; ++s) {
    const int ierr = sq_segment_buffers(rt, tiles[s], dt[s], buffer_mode[s], descr + nbuf, &a->seg[s]);
    if (ierr) {
      free(a);
      free(descr);
      return ierr;
    }
    nbuf += a->seg[s].nbuf;
  }
  unsigned long long where = sq_tile_where(rt, tiles[0]); /* tiles placed apart: anywhere */
  int gpu = sq_tile_gpu(rt, tiles[0]);
  for (int s = 1; s < ntile; ++s) {
    if (sq_tile_where(rt, tiles[s]) != where) where = (unsigned long long)-1;
    if (sq_tile_gpu(rt, tiles[s]) != gpu) gpu = -1;
  }
  int ret =
      starpu_task_insert(&merged_cl, STARPU_CL_ARGS, a, args_size, STARPU_PRIORITY, priority, STARPU_EXECUTE_WHERE,
                         where, STARPU_TASK_WORKERIDS, sq_gpu_words(rt, gpu), sq_gpu_workers(rt, gpu),
                         SQ_PROFILE(rt, SQ_TASK_MERGED, tiles[0]), STARPU_DATA_MODE_ARRAY, descr, nbuf, 0);
  free(descr);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting merged predictor task failed (%d)", ret);
  return SQ_SUCCESS;
}
