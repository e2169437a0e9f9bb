/** @file local.c  Codelet "local": volume and local-flux update of one tile (thesis eq. 4.1). */
#include "sq_runtime_impl.h"
#ifdef SQ_USE_CUDA
#include "sq_cuda.h"
#endif

static void local_cpu(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const sq_step_args *a = cl_arg;
  const void *pack = (const void *)STARPU_VECTOR_GET_PTR(buffers[0]);
  const void *tint = (const void *)STARPU_VECTOR_GET_PTR(buffers[1]);
  const void *star = (const void *)STARPU_VECTOR_GET_PTR(buffers[2]);
  const void *flux = (const void *)STARPU_VECTOR_GET_PTR(buffers[3]);
  void *dofs = (void *)STARPU_VECTOR_GET_PTR(buffers[4]);
  const int64_t n = STARPU_VECTOR_GET_NX(buffers[4]);
  sq_kernel_local(a->precision, a->order, n, pack, tint, star, flux, dofs);
}

/* With attenuation: then the time-integrated anelastic source of the predictor (buffer 5); CPU only. */
static void local_ane_cpu(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const sq_step_args *a = cl_arg;
  void *dofs = (void *)STARPU_VECTOR_GET_PTR(buffers[4]);
  const int64_t n = STARPU_VECTOR_GET_NX(buffers[4]);
  sq_kernel_local(a->precision, a->order, n, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]),
                  (const void *)STARPU_VECTOR_GET_PTR(buffers[1]), (const void *)STARPU_VECTOR_GET_PTR(buffers[2]),
                  (const void *)STARPU_VECTOR_GET_PTR(buffers[3]), dofs);
  sq_kernel_ane_source(a->precision, a->order, a->nmech, n, (const void *)STARPU_VECTOR_GET_PTR(buffers[5]), dofs);
}

#ifdef SQ_USE_CUDA
/* With attenuation: the elastic local update, then the anelastic source, on the worker's stream. */
static void local_ane_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const sq_step_args *a = cl_arg;
  const int64_t n = STARPU_VECTOR_GET_NX(buffers[4]);
  void *dofs = (void *)STARPU_VECTOR_GET_PTR(buffers[4]);
  sq_cuda_local(a->precision, a->order, n, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]),
                (const void *)STARPU_VECTOR_GET_PTR(buffers[1]), (const void *)STARPU_VECTOR_GET_PTR(buffers[2]),
                (const void *)STARPU_VECTOR_GET_PTR(buffers[3]), dofs, starpu_cuda_get_local_stream());
  sq_cuda_ane_source(a->precision, a->order, a->nmech, n, (const void *)STARPU_VECTOR_GET_PTR(buffers[5]), dofs,
                     starpu_cuda_get_local_stream());
}

static void local_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const sq_step_args *a = cl_arg;
  sq_cuda_local(a->precision, a->order, STARPU_VECTOR_GET_NX(buffers[4]),
                (const void *)STARPU_VECTOR_GET_PTR(buffers[0]), (const void *)STARPU_VECTOR_GET_PTR(buffers[1]),
                (const void *)STARPU_VECTOR_GET_PTR(buffers[2]), (const void *)STARPU_VECTOR_GET_PTR(buffers[3]),
                (void *)STARPU_VECTOR_GET_PTR(buffers[4]), starpu_cuda_get_local_stream());
}
#endif

/* The size and footprint as for ader (sq_perf_size_key): the dofs are buffer 4 */
static size_t local_size(struct starpu_task *task, unsigned nimpl) {
  (void)nimpl;
  const sq_step_args *a = task->cl_arg;
  return sq_perf_size_key((int64_t)starpu_vector_get_nx(STARPU_TASK_GET_HANDLE(task, 4)), a->order, a->precision);
}
static uint32_t local_footprint(struct starpu_task *task) {
  return sq_perf_footprint(starpu_task_data_footprint(task), local_size(task, 0));
}
static struct starpu_perfmodel local_model = {
    .type = STARPU_HISTORY_BASED, .symbol = "sq_local", .footprint = local_footprint, .size_base = local_size};

static struct starpu_codelet local_cl = {
    .cpu_funcs = {local_cpu},
    .cpu_funcs_name = {"local_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {local_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = 5,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_RW},
    .model = &local_model,
    .name = "sq_local",
};

static struct starpu_perfmodel local_ane_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_local_ane"};

static struct starpu_codelet local_ane_cl = {
    .cpu_funcs = {local_ane_cpu},
    .cpu_funcs_name = {"local_ane_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {local_ane_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = 6,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_RW, STARPU_R},
    .model = &local_ane_model,
    .name = "sq_local_ane",
};

int sq_insert_local(sq_runtime *rt, int tile, int priority) {
  sq_step_args *a = malloc(sizeof(*a));
  SQ_CHECK(a, SQ_ERR_MEMORY, "out of memory");
  *a = (sq_step_args){.precision = rt->disc->opt.precision, .order = rt->disc->opt.order, .nmech = rt->disc->nmech};
  if (rt->ane[tile]) {
    int ret = starpu_task_insert(&local_ane_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_PRIORITY, priority,
                                 SQ_TILE_PLACEMENT(rt, tile), SQ_PROFILE(rt, SQ_TASK_LOCAL, tile), STARPU_R, rt->pack,
                                 STARPU_R, sq_tint_handle(rt, tile), STARPU_R, rt->star[tile], STARPU_R,
                                 rt->flux_local[tile], STARPU_RW, rt->dofs[tile], STARPU_R, rt->ane[tile], 0);
    SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting local task for tile %d failed (%d)", tile, ret);
    return SQ_SUCCESS;
  }
  int ret = starpu_task_insert(&local_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_PRIORITY, priority,
                               SQ_TILE_PLACEMENT(rt, tile), SQ_PROFILE(rt, SQ_TASK_LOCAL, tile), STARPU_R, rt->pack,
                               STARPU_R, sq_tint_handle(rt, tile), STARPU_R, rt->star[tile], STARPU_R,
                               rt->flux_local[tile], STARPU_RW, rt->dofs[tile], 0);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting local task for tile %d failed (%d)", tile, ret);
  return SQ_SUCCESS;
}
