/**
 * @file plasticity.c  Codelet "plasticity": the Drucker-Prager viscoplastic correction of one tile after
 * its update (thesis §2.4 eq. 2.27-2.34, ch. 8 eq. 8.2-8.3).  It is inserted right after the tile's
 * neighbour task with the tile's cluster time step, so StarPU orders it after every contribution to the
 * dofs of that step and before the next predictor reads them.  Every element pays the nodal yield check;
 * only yielding ones pay the return mapping and the projection back (their flags are written).
 *
 * Buffers: the reference matrices (V, V^-1 in the working precision), then the tile's dofs, its
 * plasticity blocks (the initial stress at the nodal points in the working precision, parameters, mu,
 * strain, flags) and its yield counter.  The CPU body calls the pure kernel in src/; the CUDA body
 * (plasticity_cuda.cu) runs the same point-wise functions (src/plasticity_impl.h, host/device inline)
 * with threads over the nodes.  The run statistic "yielding element updates" is a per-tile counter
 * handle that both bodies add to where the data lives; sq_runtime_sync_plasticity collects it.
 *
 * With attenuation (plasticity_ane_cl, two more buffers: the anelastic coefficients and memory variables) the
 * correction leaves the memory variables theta_l alone while it changes the stress, so the stored
 * phi_l = theta_l - C_u^-1 sigma move by -C_u^-1 times the change: phi is turned into theta before the
 * correction and back after it (sq_kernel_ane_shift), on the CPU and on the GPU alike.
 */
#include "sq_runtime_impl.h"
#include "sq_plastic_state.h"

#ifdef SQ_USE_CUDA
#include "sq_cuda.h"
#endif

enum {
  PL_REF,
  PL_DOFS,
  PL_STRESS,
  PL_PARAMS,
  PL_MU,
  PL_STRAIN,
  PL_YIELDED,
  PL_COUNT,
  PL_NBUFFERS,
  PL_ANE_COEF = PL_NBUFFERS,
  PL_ANE
};

/** Arguments of one plasticity task. */
typedef struct plasticity_args {
  sq_precision precision;
  int order;
  double psi0; /**< value of the constant basis function (cell averages of the strain) */
  double dt;   /**< the tile's cluster time step (relaxation over the step, eq. 2.34) */
  int nmech;   /**< attenuation: relaxation mechanisms (plasticity_ane_cl); 0 without */
} plasticity_args;

static void plasticity_cpu(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const plasticity_args *a = cl_arg;
  const int64_t yielded = sq_plastic_state_block(
      a->precision, a->order, a->psi0, (const void *)STARPU_VECTOR_GET_PTR(buffers[PL_REF]),
      STARPU_VECTOR_GET_NX(buffers[PL_DOFS]), (void *)STARPU_VECTOR_GET_PTR(buffers[PL_DOFS]),
      (const void *)STARPU_VECTOR_GET_PTR(buffers[PL_STRESS]),
      (const double *)STARPU_VECTOR_GET_PTR(buffers[PL_PARAMS]), (const double *)STARPU_VECTOR_GET_PTR(buffers[PL_MU]),
      a->dt, (double *)STARPU_VECTOR_GET_PTR(buffers[PL_STRAIN]),
      (uint8_t *)STARPU_VECTOR_GET_PTR(buffers[PL_YIELDED]));
  *(int64_t *)STARPU_VECTOR_GET_PTR(buffers[PL_COUNT]) += yielded;
}

/* With attenuation: phi -> theta, the correction, theta -> phi. */
static void plasticity_ane_cpu(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const plasticity_args *a = cl_arg;
  const int64_t n = STARPU_VECTOR_GET_NX(buffers[PL_DOFS]);
  const void *coef = (const void *)STARPU_VECTOR_GET_PTR(buffers[PL_ANE_COEF]);
  void *dofs = (void *)STARPU_VECTOR_GET_PTR(buffers[PL_DOFS]), *ane = (void *)STARPU_VECTOR_GET_PTR(buffers[PL_ANE]);
  sq_kernel_ane_shift(a->precision, a->order, a->nmech, n, coef, dofs, 1, ane);
  plasticity_cpu(buffers, cl_arg);
  sq_kernel_ane_shift(a->precision, a->order, a->nmech, n, coef, dofs, -1, ane);
}

#ifdef SQ_USE_CUDA
static void plasticity_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const plasticity_args *a = cl_arg;
  sq_cuda_plasticity(
      a->precision, a->order, STARPU_VECTOR_GET_NX(buffers[PL_DOFS]), a->psi0,
      (const void *)STARPU_VECTOR_GET_PTR(buffers[PL_REF]), (void *)STARPU_VECTOR_GET_PTR(buffers[PL_DOFS]),
      (const void *)STARPU_VECTOR_GET_PTR(buffers[PL_STRESS]),
      (const double *)STARPU_VECTOR_GET_PTR(buffers[PL_PARAMS]), (const double *)STARPU_VECTOR_GET_PTR(buffers[PL_MU]),
      a->dt, (double *)STARPU_VECTOR_GET_PTR(buffers[PL_STRAIN]), (uint8_t *)STARPU_VECTOR_GET_PTR(buffers[PL_YIELDED]),
      (int64_t *)STARPU_VECTOR_GET_PTR(buffers[PL_COUNT]), starpu_cuda_get_local_stream());
}

static void plasticity_ane_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const plasticity_args *a = cl_arg;
  const int64_t n = STARPU_VECTOR_GET_NX(buffers[PL_DOFS]);
  const void *coef = (const void *)STARPU_VECTOR_GET_PTR(buffers[PL_ANE_COEF]);
  void *dofs = (void *)STARPU_VECTOR_GET_PTR(buffers[PL_DOFS]), *ane = (void *)STARPU_VECTOR_GET_PTR(buffers[PL_ANE]);
  cudaStream_t stream = starpu_cuda_get_local_stream();
  sq_cuda_ane_shift(a->precision, a->order, a->nmech, n, coef, dofs, 1, ane, stream);
  plasticity_cuda(buffers, cl_arg); /* the same stream: the three kernels run in order */
  sq_cuda_ane_shift(a->precision, a->order, a->nmech, n, coef, dofs, -1, ane, stream);
}
#endif

static struct starpu_perfmodel plasticity_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_plasticity"};

static struct starpu_codelet plasticity_cl = {
    .cpu_funcs = {plasticity_cpu},
    .cpu_funcs_name = {"plasticity_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {plasticity_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = PL_NBUFFERS,
    .modes = {STARPU_R, STARPU_RW, STARPU_R, STARPU_R, STARPU_R, STARPU_RW, STARPU_W, STARPU_RW},
    .model = &plasticity_model,
    .name = "sq_plasticity",
};

static struct starpu_perfmodel plasticity_ane_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_plasticity_ane"};

static struct starpu_codelet plasticity_ane_cl = {
    .cpu_funcs = {plasticity_ane_cpu},
    .cpu_funcs_name = {"plasticity_ane_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {plasticity_ane_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS, /* more than STARPU_NMAXBUFS: the modes come with the task */
    .model = &plasticity_ane_model,
    .name = "sq_plasticity_ane",
};

static void register_rows(starpu_data_handle_t *h, void *base, int64_t begin, int64_t n, size_t row_bytes) {
  starpu_vector_data_register(h, STARPU_MAIN_RAM, (uintptr_t)((char *)base + (size_t)begin * row_bytes), (uint32_t)n,
                              row_bytes);
}

static void detach_plasticity(sq_runtime *rt) {
  if (!rt->plastic) return;
  for (int t = 0; t < rt->disc->ntile; ++t) {
    if (!rt->plastic_strain[t]) continue;
    starpu_data_unregister(rt->plastic_stress[t]);
    starpu_data_unregister(rt->plastic_params[t]);
    starpu_data_unregister(rt->plastic_mu[t]);
    starpu_data_unregister(rt->plastic_strain[t]);
    starpu_data_unregister(rt->plastic_yielded[t]);
    starpu_data_unregister(rt->plastic_count[t]);
    rt->plastic->yield_updates += rt->plastic_count_value[t]; /* counted since the last sync */
  }
  starpu_data_unregister(rt->plastic_ref);
  SQ_FREE(rt->plastic_stress);
  SQ_FREE(rt->plastic_params);
  SQ_FREE(rt->plastic_mu);
  SQ_FREE(rt->plastic_strain);
  SQ_FREE(rt->plastic_yielded);
  SQ_FREE(rt->plastic_count);
  SQ_FREE(rt->plastic_count_value);
  rt->plastic = NULL;
}

int sq_runtime_attach_plasticity(sq_runtime *rt, struct sq_plastic_state *ps) {
  rt->plastic = ps;
  if (!ps) return SQ_SUCCESS;
  const sq_disc *d = rt->disc;
  SQ_CHECK(ps->nelem == d->nelem, SQ_ERR_INTERNAL, "plasticity state of %lld elements for a disc of %lld",
           (long long)ps->nelem, (long long)d->nelem);
  starpu_vector_data_register(&rt->plastic_ref, STARPU_MAIN_RAM, (uintptr_t)ps->ref_pack, 1, ps->ref_pack_bytes);
  SQ_CALL(SQ_CALLOC(rt->plastic_stress, d->ntile));
  SQ_CALL(SQ_CALLOC(rt->plastic_params, d->ntile));
  SQ_CALL(SQ_CALLOC(rt->plastic_mu, d->ntile));
  SQ_CALL(SQ_CALLOC(rt->plastic_strain, d->ntile));
  SQ_CALL(SQ_CALLOC(rt->plastic_yielded, d->ntile));
  SQ_CALL(SQ_CALLOC(rt->plastic_count, d->ntile));
  SQ_CALL(SQ_CALLOC(rt->plastic_count_value, d->ntile));
  for (int t = 0; t < d->ntile; ++t) {
    const sq_tile *tl = &d->tile[t];
    if (tl->layer == SQ_LAYER_GHOST) continue; /* the owner rank corrects its cells */
    const int64_t b = tl->begin, n = tl->end - tl->begin;
    register_rows(&rt->plastic_stress[t], ps->initial_stress, b, n, ps->stress_row_bytes);
    register_rows(&rt->plastic_params[t], ps->params, b, n, 3 * sizeof(double));
    register_rows(&rt->plastic_mu[t], ps->mu, b, n, sizeof(double));
    register_rows(&rt->plastic_strain[t], ps->strain, b, n, SQ_PLASTIC_STRAIN_COLS * sizeof(double));
    register_rows(&rt->plastic_yielded[t], ps->yielded, b, n, sizeof(uint8_t));
    register_rows(&rt->plastic_count[t], rt->plastic_count_value, t, 1, sizeof(int64_t));
  }
  SQ_CALL(sq_runtime_on_destroy(rt, detach_plasticity));
  rt->sync_hook = sq_runtime_sync_plasticity;
  return SQ_SUCCESS;
}

int sq_runtime_tile_has_plasticity(const sq_runtime *rt, int tile) {
  return rt->plastic && rt->plastic_strain[tile] != NULL;
}

int sq_runtime_sync_plasticity(sq_runtime *rt, int write) {
  const enum starpu_data_access_mode mode = write ? STARPU_W : STARPU_R;
  for (int t = 0; rt->plastic && t < rt->disc->ntile; ++t) {
    if (!rt->plastic_strain[t]) continue;
    int ret = starpu_data_acquire(rt->plastic_strain[t], mode);
    SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_data_acquire failed (%d) on the plastic strain of tile %d", ret, t);
    starpu_data_release(rt->plastic_strain[t]);
    ret = starpu_data_acquire(rt->plastic_yielded[t], mode);
    SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_data_acquire failed (%d) on the yield flags of tile %d", ret, t);
    starpu_data_release(rt->plastic_yielded[t]);
    /* the run statistic: move the tile's count into the state, and restart it from zero */
    ret = starpu_data_acquire(rt->plastic_count[t], STARPU_RW);
    SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_data_acquire failed (%d) on the yield counter of tile %d", ret, t);
    rt->plastic->yield_updates += rt->plastic_count_value[t];
    rt->plastic_count_value[t] = 0;
    starpu_data_release(rt->plastic_count[t]);
  }
  return SQ_SUCCESS;
}

int sq_insert_plasticity(sq_runtime *rt, int tile, double dt, int priority) {
  sq_plastic_state *ps = rt->plastic;
  SQ_CHECK(sq_runtime_tile_has_plasticity(rt, tile), SQ_ERR_INTERNAL, "tile %d has no plasticity data", tile);
  plasticity_args *a = malloc(sizeof(*a));
  SQ_CHECK(a, SQ_ERR_MEMORY, "out of memory");
  const int ane = rt->ane[tile] != NULL;
  *a = (plasticity_args){.precision = rt->disc->opt.precision,
                         .order = rt->disc->opt.order,
                         .psi0 = ps->ref->psi0,
                         .dt = dt,
                         .nmech = ane ? rt->disc->nmech : 0};
  if (ane) {
    struct starpu_data_descr descr[PL_ANE + 1] = {[PL_REF] = {rt->plastic_ref, STARPU_R},
                                                  [PL_DOFS] = {rt->dofs[tile], STARPU_RW},
                                                  [PL_STRESS] = {rt->plastic_stress[tile], STARPU_R},
                                                  [PL_PARAMS] = {rt->plastic_params[tile], STARPU_R},
                                                  [PL_MU] = {rt->plastic_mu[tile], STARPU_R},
                                                  [PL_STRAIN] = {rt->plastic_strain[tile], STARPU_RW},
                                                  [PL_YIELDED] = {rt->plastic_yielded[tile], STARPU_W},
                                                  [PL_COUNT] = {rt->plastic_count[tile], STARPU_RW},
                                                  [PL_ANE_COEF] = {rt->ane_coef[tile], STARPU_R},
                                                  [PL_ANE] = {rt->ane[tile], STARPU_RW}};
    const int ret = starpu_task_insert(&plasticity_ane_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_PRIORITY, priority,
                                       SQ_TILE_PLACEMENT(rt, tile), SQ_PROFILE(rt, SQ_TASK_PLASTICITY, tile),
                                       STARPU_DATA_MODE_ARRAY, descr, PL_ANE + 1, 0);
    SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting plasticity task for tile %d failed (%d)", tile, ret);
    return SQ_SUCCESS;
  }
  const int ret = starpu_task_insert(
      &plasticity_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_PRIORITY, priority, SQ_TILE_PLACEMENT(rt, tile),
      SQ_PROFILE(rt, SQ_TASK_PLASTICITY, tile), STARPU_R, rt->plastic_ref, STARPU_RW, rt->dofs[tile], STARPU_R,
      rt->plastic_stress[tile], STARPU_R, rt->plastic_params[tile], STARPU_R, rt->plastic_mu[tile], STARPU_RW,
      rt->plastic_strain[tile], STARPU_W, rt->plastic_yielded[tile], STARPU_RW, rt->plastic_count[tile], 0);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting plasticity task for tile %d failed (%d)", tile, ret);
  return SQ_SUCCESS;
}
