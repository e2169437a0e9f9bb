/**
 * @file source.c  Codelet "source": the kinematic point sources of one tile over one ADER step
 * (thesis eq. 3.21, 3.29-3.35).  It runs after the tile's ader and local tasks of that step: it adds
 * the sources' own predictor to tint (and to the LTS buffer and the kept derivatives), the local
 * update of that predictor, and the time-integrated source to the dofs.  Neighbour tasks read tint,
 * buffer and derivatives later, so they see the complete predictor.  The CUDA body stages the
 * source elements' rows to the host, runs the CPU body's arithmetic on them and copies them back, so
 * the tile stays on the GPU and both bodies agree bit for bit.  With attenuation the task also reads the
 * anelastic coefficients and updates the memory variables of the source elements (a stress source moves
 * phi_l = theta_l - C_u^-1 sigma by -C_u^-1 times its stress, and its predictor has the anelastic terms).
 */
#include "sq_attenuation.h"
#include "sq_runtime_impl.h"
#include "sq_source.h"

/* Buffers: fixed ones, then the optional derivatives and LTS buffer, then (attenuation) the anelastic
 * coefficients and memory variables. */
enum { SRC_PACK, SRC_STAR, SRC_FLUX, SRC_POINTS, SRC_DOFS, SRC_TINT, SRC_FIRST_OPTIONAL };

typedef struct source_args {
  sq_precision precision;
  int order;
  double dt;
  int has_derivs, has_buffer;
  int predictor;
  int npoint;
  int nmech;                          /* attenuation: mechanisms (the last two buffers); 0 without */
  const sq_source_point *host_points; /* the tile's points in host memory (CUDA body) */
  const void *host_pack;              /* the reference matrices in host memory (read-only) */
  double coef[];                      /* npoint x (order + 1): sq_source_set_coefficients */
} source_args;

static void source_cpu(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const source_args *a = cl_arg;
  int next = SRC_FIRST_OPTIONAL;
  void *derivs = a->has_derivs ? (void *)STARPU_VECTOR_GET_PTR(buffers[next++]) : NULL;
  void *buffer = a->has_buffer ? (void *)STARPU_VECTOR_GET_PTR(buffers[next++]) : NULL;
  const void *ane_coef = a->nmech ? (const void *)STARPU_VECTOR_GET_PTR(buffers[next++]) : NULL;
  void *ane = a->nmech ? (void *)STARPU_VECTOR_GET_PTR(buffers[next++]) : NULL;
  sq_kernel_point_sources(
      a->precision, a->order, a->npoint, (const sq_source_point *)STARPU_VECTOR_GET_PTR(buffers[SRC_POINTS]), a->coef,
      a->dt, a->predictor, (const void *)STARPU_VECTOR_GET_PTR(buffers[SRC_PACK]),
      (const void *)STARPU_VECTOR_GET_PTR(buffers[SRC_STAR]), (const void *)STARPU_VECTOR_GET_PTR(buffers[SRC_FLUX]),
      (void *)STARPU_VECTOR_GET_PTR(buffers[SRC_DOFS]), (void *)STARPU_VECTOR_GET_PTR(buffers[SRC_TINT]), derivs,
      buffer, a->nmech, ane_coef, ane);
}

#ifdef SQ_USE_CUDA
/* One tile array of the source task: its device rows, row size, and whether the task writes it. */
typedef struct staged {
  void *dev;
  size_t row;
  int written;
} staged;

static void source_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const source_args *a = cl_arg;
  const int order = a->order, n = a->npoint;
  const size_t rs = sq_real_size(a->precision), row = (size_t)sq_nbasis(order) * 9 * rs;
  cudaStream_t stream = starpu_cuda_get_local_stream();
  /* the distinct source elements (the points are sorted by element) and the points renumbered to them */
  int32_t *elems = malloc(sizeof(int32_t) * (size_t)n);
  sq_source_point *pts = malloc(sizeof(sq_source_point) * (size_t)n);
  if (!elems || !pts) {
    fprintf(stderr, "starquake: out of memory in the source task\n");
    abort();
  }
  int ne = 0;
  for (int i = 0; i < n; ++i) {
    if (ne == 0 || elems[ne - 1] != a->host_points[i].elem) elems[ne++] = a->host_points[i].elem;
    pts[i] = a->host_points[i];
    pts[i].elem = ne - 1;
  }
  /* packed host rows: star, flux, dofs, tint, then the optional derivatives and buffer */
  staged arr[8] = {{(void *)STARPU_VECTOR_GET_PTR(buffers[SRC_STAR]), 243 * rs, 0},
                   {(void *)STARPU_VECTOR_GET_PTR(buffers[SRC_FLUX]), 324 * rs, 0},
                   {(void *)STARPU_VECTOR_GET_PTR(buffers[SRC_DOFS]), row, 1},
                   {(void *)STARPU_VECTOR_GET_PTR(buffers[SRC_TINT]), row, 1}};
  int narr = 4, next = SRC_FIRST_OPTIONAL, iderivs = -1, ibuffer = -1;
  if (a->has_derivs)
    iderivs = narr, arr[narr++] = (staged){(void *)STARPU_VECTOR_GET_PTR(buffers[next++]), row * order, 1};
  if (a->has_buffer) ibuffer = narr, arr[narr++] = (staged){(void *)STARPU_VECTOR_GET_PTR(buffers[next++]), row, 1};
  int icoef = -1, iane = -1;
  if (a->nmech) {
    icoef = narr, arr[narr++] = (staged){(void *)STARPU_VECTOR_GET_PTR(buffers[next++]), SQ_ANE_NCOEF * rs, 0};
    iane = narr, arr[narr++] = (staged){(void *)STARPU_VECTOR_GET_PTR(buffers[next++]),
                                        (size_t)sq_nbasis(order) * 6 * (a->nmech + 1) * rs, 1};
  }
  size_t total = 0;
  for (int k = 0; k < narr; ++k) total += arr[k].row * (size_t)ne;
  char *host = malloc(total), *at[8];
  if (!host) {
    fprintf(stderr, "starquake: out of memory in the source task\n");
    abort();
  }
  at[0] = host;
  for (int k = 1; k < narr; ++k) at[k] = at[k - 1] + arr[k - 1].row * (size_t)ne;
  for (int k = 0; k < narr; ++k) sq_cuda_stage_rows(0, arr[k].dev, at[k], arr[k].row, ne, elems, stream);
  sq_cuda_stage_wait(stream, "staging the source elements");
  sq_kernel_point_sources(a->precision, order, n, pts, a->coef, a->dt, a->predictor, a->host_pack, at[0], at[1], at[2],
                          at[3], iderivs < 0 ? NULL : at[iderivs], ibuffer < 0 ? NULL : at[ibuffer], a->nmech,
                          icoef < 0 ? NULL : at[icoef], iane < 0 ? NULL : at[iane]);
  for (int k = 0; k < narr; ++k)
    if (arr[k].written) sq_cuda_stage_rows(1, arr[k].dev, at[k], arr[k].row, ne, elems, stream);
  sq_cuda_stage_wait(stream, "copying the source elements back");
  free(host);
  free(pts);
  free(elems);
}
#endif

static struct starpu_perfmodel source_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_source"};

static struct starpu_codelet source_cl = {
    .cpu_funcs = {source_cpu},
    .cpu_funcs_name = {"source_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {source_cuda}, /* synchronous: it waits for its own copies */
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &source_model,
    .name = "sq_source",
};

static void detach_sources(sq_runtime *rt) {
  if (!rt->source_points) return;
  for (int t = 0; t < rt->disc->ntile; ++t)
    if (rt->source_points[t]) starpu_data_unregister(rt->source_points[t]);
  SQ_FREE(rt->source_points);
  rt->sources = NULL;
}

int sq_runtime_attach_sources(sq_runtime *rt, const sq_source_set *set) {
  rt->sources = set;
  if (!set) return SQ_SUCCESS;
  SQ_CALL(SQ_CALLOC(rt->source_points, rt->disc->ntile));
  for (int t = 0; t < rt->disc->ntile; ++t) {
    const int n = sq_source_set_count(set, t);
    if (n == 0) continue;
    starpu_vector_data_register(&rt->source_points[t], STARPU_MAIN_RAM, (uintptr_t)&set->point[set->tile_begin[t]],
                                (uint32_t)n, sizeof(sq_source_point));
  }
  SQ_CALL(sq_runtime_on_destroy(rt, detach_sources));
  return SQ_SUCCESS;
}

int sq_runtime_tile_has_sources(const sq_runtime *rt, int tile) { return rt->source_points && rt->source_points[tile]; }

int sq_insert_source(sq_runtime *rt, int tile, double t0, double dt, sq_buffer_mode buffer_mode, int priority) {
  const sq_disc *d = rt->disc;
  const sq_tile *tl = &d->tile[tile];
  const int n = sq_source_set_count(rt->sources, tile), order = d->opt.order;
  SQ_CHECK(n > 0, SQ_ERR_INTERNAL, "tile %d has no point sources", tile);
  const size_t args_size = sizeof(source_args) + sizeof(double) * (size_t)n * (order + 1);
  source_args *a = malloc(args_size);
  SQ_CHECK(a, SQ_ERR_MEMORY, "out of memory");
  a->precision = d->opt.precision;
  a->order = order;
  a->dt = dt;
  a->has_derivs = tl->needs_derivs;
  a->has_buffer = buffer_mode != SQ_BUFFER_NONE;
  a->predictor = rt->sources->predictor;
  a->npoint = n;
  a->nmech = rt->ane[tile] ? d->nmech : 0;
  a->host_points = &rt->sources->point[rt->sources->tile_begin[tile]];
  a->host_pack = d->pack;
  /* the time function over [t0, t0 + dt], evaluated here: the task only does arithmetic */
  sq_source_set_coefficients(rt->sources, tile, t0, dt, order, a->coef);
  struct starpu_data_descr descr[SRC_FIRST_OPTIONAL + 4] = {
      [SRC_PACK] = {rt->pack, STARPU_R},
      [SRC_STAR] = {rt->star[tile], STARPU_R},
      [SRC_FLUX] = {rt->flux_local[tile], STARPU_R},
      [SRC_POINTS] = {rt->source_points[tile], STARPU_R},
      [SRC_DOFS] = {rt->dofs[tile], STARPU_RW},
      [SRC_TINT] = {sq_tint_handle(rt, tile), STARPU_RW},
  };
  int nbuf = SRC_FIRST_OPTIONAL;
  if (a->has_derivs) descr[nbuf++] = (struct starpu_data_descr){rt->derivs[tile], STARPU_RW};
  if (a->has_buffer) descr[nbuf++] = (struct starpu_data_descr){rt->buffer[tile], STARPU_RW};
  if (a->nmech) {
    descr[nbuf++] = (struct starpu_data_descr){rt->ane_coef[tile], STARPU_R};
    descr[nbuf++] = (struct starpu_data_descr){rt->ane[tile], STARPU_RW};
  }
  int ret = starpu_task_insert(&source_cl, STARPU_CL_ARGS, a, args_size, STARPU_PRIORITY, priority,
                               STARPU_EXECUTE_WHERE, sq_tile_where(rt, tile), STARPU_DATA_MODE_ARRAY, descr, nbuf, 0);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting source task for tile %d failed (%d)", tile, ret);
  return SQ_SUCCESS;
}
