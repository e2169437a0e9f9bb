/**
 * @file ader.c  Codelet "ader": the ADER time predictor of one tile (thesis eq. 3.33-3.34), with the
 * local-time-stepping extras of §3.5: the time derivatives kept for faster neighbours and the
 * buffer of time-integrated DOFs accumulated for slower ones (eq. 3.40).
 */
#include "sq_runtime_impl.h"
#ifdef SQ_USE_CUDA
#include "sq_cuda.h"
#endif

/* Buffers: fixed ones, then the optional derivatives and LTS buffer.  With attenuation (ader_ane_cl) the
 * memory variables and their coefficients come between. */
enum { ADER_PACK, ADER_DOFS, ADER_STAR, ADER_TINT, ADER_FIRST_OPTIONAL };
enum { ADER_ANE_COEF = ADER_FIRST_OPTIONAL, ADER_ANE, ADER_ANE_FIRST_OPTIONAL };

static void ader_cpu(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const sq_step_args *a = cl_arg;
  int next = ADER_FIRST_OPTIONAL;
  void *derivs = a->store_derivs ? (void *)STARPU_VECTOR_GET_PTR(buffers[next++]) : NULL;
  void *buffer = a->buffer != SQ_BUFFER_NONE ? (void *)STARPU_VECTOR_GET_PTR(buffers[next++]) : NULL;
  const int64_t n = STARPU_VECTOR_GET_NX(buffers[ADER_DOFS]);
  void *tint = (void *)STARPU_VECTOR_GET_PTR(buffers[ADER_TINT]);
  sq_kernel_ader(a->precision, a->order, n, (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_PACK]),
                 (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_DOFS]),
                 (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_STAR]), a->dt, tint, derivs);
  if (buffer) sq_kernel_accumulate(a->precision, a->order, n, tint, a->buffer == SQ_BUFFER_RESET, buffer);
}

/* The predictor with the anelastic terms and the memory variables' update (kernels_ane_impl.h); CPU only. */
static void ader_ane_cpu(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const sq_step_args *a = cl_arg;
  int next = ADER_ANE_FIRST_OPTIONAL;
  void *derivs = a->store_derivs ? (void *)STARPU_VECTOR_GET_PTR(buffers[next++]) : NULL;
  void *buffer = a->buffer != SQ_BUFFER_NONE ? (void *)STARPU_VECTOR_GET_PTR(buffers[next++]) : NULL;
  const int64_t n = STARPU_VECTOR_GET_NX(buffers[ADER_DOFS]);
  void *tint = (void *)STARPU_VECTOR_GET_PTR(buffers[ADER_TINT]);
  sq_kernel_ader_ane(a->precision, a->order, a->nmech, n, (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_PACK]),
                     (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_DOFS]),
                     (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_STAR]),
                     (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_ANE_COEF]), a->dt, tint, derivs,
                     (void *)STARPU_VECTOR_GET_PTR(buffers[ADER_ANE]));
  if (buffer) sq_kernel_accumulate(a->precision, a->order, n, tint, a->buffer == SQ_BUFFER_RESET, buffer);
}

#ifdef SQ_USE_CUDA
/* The predictor with attenuation, the LTS buffer included (cuda_ane.cuh). */
static void ader_ane_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const sq_step_args *a = cl_arg;
  int next = ADER_ANE_FIRST_OPTIONAL;
  void *derivs = a->store_derivs ? (void *)STARPU_VECTOR_GET_PTR(buffers[next++]) : NULL;
  void *buffer = a->buffer != SQ_BUFFER_NONE ? (void *)STARPU_VECTOR_GET_PTR(buffers[next++]) : NULL;
  sq_cuda_ader_ane(
      a->precision, a->order, a->nmech, STARPU_VECTOR_GET_NX(buffers[ADER_DOFS]),
      (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_PACK]), (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_DOFS]),
      (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_STAR]),
      (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_ANE_COEF]), a->dt,
      (void *)STARPU_VECTOR_GET_PTR(buffers[ADER_TINT]), derivs, (void *)STARPU_VECTOR_GET_PTR(buffers[ADER_ANE]),
      buffer, a->buffer == SQ_BUFFER_RESET, starpu_cuda_get_local_stream());
}

/* One fused kernel: predictor, derivatives and LTS buffer (ader_cuda.cu), on the worker's stream. */
static void ader_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const sq_step_args *a = cl_arg;
  int next = ADER_FIRST_OPTIONAL;
  void *derivs = a->store_derivs ? (void *)STARPU_VECTOR_GET_PTR(buffers[next++]) : NULL;
  void *buffer = a->buffer != SQ_BUFFER_NONE ? (void *)STARPU_VECTOR_GET_PTR(buffers[next++]) : NULL;
  sq_cuda_ader(
      a->precision, a->order, STARPU_VECTOR_GET_NX(buffers[ADER_DOFS]),
      (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_PACK]), (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_DOFS]),
      (const void *)STARPU_VECTOR_GET_PTR(buffers[ADER_STAR]), a->dt, (void *)STARPU_VECTOR_GET_PTR(buffers[ADER_TINT]),
      derivs, buffer, a->buffer == SQ_BUFFER_RESET, starpu_cuda_get_local_stream());
}
#endif

/* The history's size is the tile's element count with the order and precision (sq_perf_size_key), from which
 * sq_runtime_kind_rates reads the CPU's and GPU's rates; the footprint is StarPU's default (the buffers' element
 * counts: with or without derivatives and LTS buffer) with that size. */
static size_t ader_size(struct starpu_task *task, unsigned nimpl) {
  (void)nimpl;
  const sq_step_args *a = task->cl_arg;
  return sq_perf_size_key((int64_t)starpu_vector_get_nx(STARPU_TASK_GET_HANDLE(task, ADER_DOFS)), a->order,
                          a->precision);
}
static uint32_t ader_footprint(struct starpu_task *task) {
  return sq_perf_footprint(starpu_task_data_footprint(task), ader_size(task, 0));
}
static struct starpu_perfmodel ader_model = {
    .type = STARPU_HISTORY_BASED, .symbol = "sq_ader", .footprint = ader_footprint, .size_base = ader_size};
static struct starpu_perfmodel ader_ane_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_ader_ane"};

static struct starpu_codelet ader_ane_cl = {
    .cpu_funcs = {ader_ane_cpu},
    .cpu_funcs_name = {"ader_ane_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {ader_ane_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &ader_ane_model,
    .name = "sq_ader_ane",
};

static struct starpu_codelet ader_cl = {
    .cpu_funcs = {ader_cpu},
    .cpu_funcs_name = {"ader_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {ader_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &ader_model,
    .name = "sq_ader",
};

int sq_insert_ader(sq_runtime *rt, int tile, double dt, sq_buffer_mode buffer_mode, int priority) {
  const sq_tile *tl = &rt->disc->tile[tile];
  SQ_CHECK(buffer_mode == SQ_BUFFER_NONE || tl->needs_buffer, SQ_ERR_INTERNAL, "tile %d has no LTS buffer", tile);
  sq_step_args *a = malloc(sizeof(*a));
  SQ_CHECK(a, SQ_ERR_MEMORY, "out of memory");
  *a = (sq_step_args){.precision = rt->disc->opt.precision,
                      .order = rt->disc->opt.order,
                      .dt = dt,
                      .store_derivs = tl->needs_derivs,
                      .buffer = buffer_mode,
                      .nmech = rt->disc->nmech};
  struct starpu_data_descr descr[ADER_ANE_FIRST_OPTIONAL + 2] = {
      [ADER_PACK] = {rt->pack, STARPU_R},
      [ADER_DOFS] = {rt->dofs[tile], STARPU_R},
      [ADER_STAR] = {rt->star[tile], STARPU_R},
      [ADER_TINT] = {sq_tint_next(rt, tile), STARPU_W},
  };
  int nbuf = ADER_FIRST_OPTIONAL;
  if (rt->ane[tile]) {
    descr[nbuf++] = (struct starpu_data_descr){rt->ane_coef[tile], STARPU_R};
    descr[nbuf++] = (struct starpu_data_descr){rt->ane[tile], STARPU_RW};
  }
  if (a->store_derivs) descr[nbuf++] = (struct starpu_data_descr){rt->derivs[tile], STARPU_W};
  if (buffer_mode != SQ_BUFFER_NONE)
    descr[nbuf++] = (struct starpu_data_descr){rt->buffer[tile], buffer_mode == SQ_BUFFER_RESET ? STARPU_W : STARPU_RW};
  int ret = starpu_task_insert(rt->ane[tile] ? &ader_ane_cl : &ader_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_PRIORITY,
                               priority, SQ_TILE_PLACEMENT(rt, tile), SQ_PROFILE(rt, SQ_TASK_ADER, tile),
                               STARPU_DATA_MODE_ARRAY, descr, nbuf, 0);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting ader task for tile %d failed (%d)", tile, ret);
  return SQ_SUCCESS;
}
