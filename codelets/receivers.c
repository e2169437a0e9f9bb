/**
 * @file receivers.c  Codelet "receivers": sample the receivers of one tile from the Taylor expansion
 * of the tile's predictor (thesis eq. 3.24) at the sample times inside the step [t0, t1).  It reads
 * the derivatives the ader (and source) tasks of that step stored and writes the samples straight
 * into the receiver set's host buffer: every task writes its own slots, and the buffer only moves
 * between syncs.  The CUDA body copies the receiver elements' derivatives to the host and samples
 * them with the CPU body's arithmetic (bit for bit the same samples); the tile stays on the GPU.
 */
#include "sq_runtime_impl.h"
#include "sq_receiver.h"

enum { REC_POINTS, REC_DERIVS };

typedef struct receivers_args {
  sq_precision precision;
  int order, npoint;
  double t0, interval;
  int64_t jb, je;
  double *out; /* slot of sample jb */
  int64_t stride;
  const sq_receiver_point *host_points; /* the tile's points in host memory (CUDA body) */
} receivers_args;

static void receivers_cpu(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const receivers_args *a = cl_arg;
  sq_kernel_receivers(
      a->precision, a->order, a->npoint, (const sq_receiver_point *)STARPU_VECTOR_GET_PTR(buffers[REC_POINTS]),
      (const void *)STARPU_VECTOR_GET_PTR(buffers[REC_DERIVS]), a->t0, a->interval, a->jb, a->je, a->out, a->stride);
}

#ifdef SQ_USE_CUDA
static void receivers_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const receivers_args *a = cl_arg;
  const int n = a->npoint;
  const size_t row = (size_t)sq_nbasis(a->order) * 9 * sq_real_size(a->precision) * a->order;
  int32_t *elems = malloc(sizeof(int32_t) * (size_t)n);
  sq_receiver_point *pts = malloc(sizeof(sq_receiver_point) * (size_t)n);
  char *host = malloc(row * (size_t)n);
  if (!elems || !pts || !host) {
    fprintf(stderr, "starquake: out of memory in the receivers task\n");
    abort();
  }
  int ne = 0; /* distinct receiver elements (the points are sorted by element), points renumbered */
  for (int i = 0; i < n; ++i) {
    if (ne == 0 || elems[ne - 1] != a->host_points[i].elem) elems[ne++] = a->host_points[i].elem;
    pts[i] = a->host_points[i];
    pts[i].elem = ne - 1;
  }
  cudaStream_t stream = starpu_cuda_get_local_stream();
  sq_cuda_stage_rows(0, (void *)STARPU_VECTOR_GET_PTR(buffers[REC_DERIVS]), host, row, ne, elems, stream);
  sq_cuda_stage_wait(stream, "staging the receiver elements");
  sq_kernel_receivers(a->precision, a->order, n, pts, host, a->t0, a->interval, a->jb, a->je, a->out, a->stride);
  free(host);
  free(pts);
  free(elems);
}
#endif

static struct starpu_perfmodel receivers_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_receivers"};

static struct starpu_codelet receivers_cl = {
    .cpu_funcs = {receivers_cpu},
    .cpu_funcs_name = {"receivers_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {receivers_cuda}, /* synchronous: it waits for its own copy */
#endif
    .nbuffers = 2,
    .modes = {STARPU_R, STARPU_R},
    .model = &receivers_model,
    .name = "sq_receivers",
};

static void detach_receivers(sq_runtime *rt) {
  if (!rt->receiver_points) return;
  for (int t = 0; t < rt->disc->ntile; ++t)
    if (rt->receiver_points[t]) starpu_data_unregister(rt->receiver_points[t]);
  SQ_FREE(rt->receiver_points);
  rt->receivers = NULL;
}

int sq_runtime_attach_receivers(sq_runtime *rt, sq_receiver_set *set) {
  rt->receivers = set;
  if (!set) return SQ_SUCCESS;
  SQ_CALL(SQ_CALLOC(rt->receiver_points, rt->disc->ntile));
  for (int t = 0; t < rt->disc->ntile; ++t) {
    const int n = sq_receiver_set_count(set, t);
    if (n == 0) continue;
    SQ_CHECK(rt->derivs[t], SQ_ERR_INTERNAL, "tile %d has receivers but keeps no derivatives", t);
    starpu_vector_data_register(&rt->receiver_points[t], STARPU_MAIN_RAM, (uintptr_t)&set->point[set->tile_begin[t]],
                                (uint32_t)n, sizeof(sq_receiver_point));
  }
  SQ_CALL(sq_runtime_on_destroy(rt, detach_receivers));
  return SQ_SUCCESS;
}

int sq_runtime_tile_has_receivers(const sq_runtime *rt, int tile) {
  return rt->receiver_points && rt->receiver_points[tile];
}

int sq_insert_receivers(sq_runtime *rt, int tile, double t0, double t1, int priority) {
  sq_receiver_set *set = rt->receivers;
  int64_t jb, je;
  sq_receiver_samples_in(set->interval, t0, t1, &jb, &je);
  if (je == jb) return SQ_SUCCESS; /* no sample time in this step */
  SQ_CHECK(jb >= set->first && je - set->first <= set->capacity, SQ_ERR_INTERNAL,
           "receiver samples %lld..%lld are outside the reserved buffer (%lld + %lld slots)", (long long)jb,
           (long long)je, (long long)set->first, (long long)set->capacity);
  receivers_args *a = malloc(sizeof(*a));
  SQ_CHECK(a, SQ_ERR_MEMORY, "out of memory");
  *a = (receivers_args){.precision = rt->disc->opt.precision,
                        .order = rt->disc->opt.order,
                        .npoint = sq_receiver_set_count(set, tile),
                        .t0 = t0,
                        .interval = set->interval,
                        .jb = jb,
                        .je = je,
                        .out = sq_receiver_set_slot(set, jb),
                        .stride = (int64_t)set->n * 9,
                        .host_points = &set->point[set->tile_begin[tile]]};
  int ret =
      starpu_task_insert(&receivers_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_PRIORITY, priority, STARPU_EXECUTE_WHERE,
                         sq_tile_where(rt, tile), STARPU_R, rt->receiver_points[tile], STARPU_R, rt->derivs[tile], 0);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting receivers task for tile %d failed (%d)", tile, ret);
  return SQ_SUCCESS;
}
