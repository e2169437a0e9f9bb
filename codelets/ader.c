/** @file ader.c  Codelet "ader": the ADER time predictor of one tile (thesis eq. 3.33-3.34). */
#include "sq_codelets.h"

static void ader_cpu(void *buffers[], void *cl_arg) {
  const sq_step_args *a = cl_arg;
  const void *pack = (const void *)STARPU_VECTOR_GET_PTR(buffers[0]);
  const void *dofs = (const void *)STARPU_VECTOR_GET_PTR(buffers[1]);
  const void *star = (const void *)STARPU_VECTOR_GET_PTR(buffers[2]);
  void *tint = (void *)STARPU_VECTOR_GET_PTR(buffers[3]);
  const int64_t n = STARPU_VECTOR_GET_NX(buffers[1]);
  sq_kernel_ader(a->precision, a->order, n, pack, dofs, star, a->dt, tint, NULL);
}

static struct starpu_perfmodel ader_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_ader"};

static struct starpu_codelet ader_cl = {
    .cpu_funcs = {ader_cpu},
    .cpu_funcs_name = {"ader_cpu"},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &ader_model,
    .name = "sq_ader",
};

int sq_insert_ader(sq_runtime *rt, int tile, double dt, int priority) {
  sq_step_args *a = malloc(sizeof(*a));
  SQ_CHECK(a, SQ_ERR_MEMORY, "out of memory");
  a->precision = rt->disc->opt.precision;
  a->order = rt->disc->opt.order;
  a->dt = dt;
  int ret = starpu_task_insert(&ader_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_PRIORITY, priority, STARPU_R, rt->pack,
                               STARPU_R, rt->dofs[tile], STARPU_R, rt->star[tile], STARPU_W, rt->tint[tile], 0);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting ader task for tile %d failed (%d)", tile, ret);
  return SQ_SUCCESS;
}
