/**
 * @file rupture.c  Codelet "rupture": one step of a block of fault faces (thesis §3.6.3, ch. 7).  The
 * task reads both sides' time derivatives (ghost tiles included: they arrive by the halo exchange),
 * updates the block's friction state and adds the imposed flux to the owned sides' dofs.  It is
 * inserted between a cluster's predictor and its neighbour fluxes, so StarPU orders it after both
 * sides' ader tasks and before the dofs are touched again.
 */
#include "sq_codelets.h"
#include "sq_fault.h"

/* Fixed buffers, then nslot derivative blocks, then the dofs of the owned slots. */
enum { RP_REF, RP_FACES, RP_POINTS, RP_FIRST };

typedef struct rupture_args {
  sq_precision precision;
  int order, npoint, nslot;
  double t0, dt;
  sq_fault_options opt;
  sq_fault_station_log *logs; /* host-side station logs (CPU body only): the fault's, or NULL */
  int dofs_buffer[]; /* per slot: buffer index of its dofs, or -1 (ghost: read only) */
} rupture_args;

static void rupture_cpu(void *buffers[], void *cl_arg) {
  const rupture_args *a = cl_arg;
  const void *derivs[a->nslot];
  void *dofs[a->nslot];
  for (int s = 0; s < a->nslot; ++s) {
    derivs[s] = (const void *)STARPU_VECTOR_GET_PTR(buffers[RP_FIRST + s]);
    dofs[s] = a->dofs_buffer[s] >= 0 ? (void *)STARPU_VECTOR_GET_PTR(buffers[a->dofs_buffer[s]]) : NULL;
  }
  int64_t bad = -1;
  const int64_t nbad =
      sq_fault_update(a->precision, a->order, a->npoint, (const double *)STARPU_VECTOR_GET_PTR(buffers[RP_REF]),
                      &a->opt, STARPU_VECTOR_GET_NX(buffers[RP_FACES]),
                      (const sq_fault_face *)STARPU_VECTOR_GET_PTR(buffers[RP_FACES]),
                      (sq_fault_point *)STARPU_VECTOR_GET_PTR(buffers[RP_POINTS]), derivs, dofs, a->t0, a->dt,
                      a->logs, &bad);
  if (nbad) {
    const sq_fault_face *fc = (const sq_fault_face *)STARPU_VECTOR_GET_PTR(buffers[RP_FACES]) + bad;
    fprintf(stderr, "starquake: error: the friction solve did not converge at %lld fault points at t=%g (first: "
                    "fault face %lld = mesh cell %lld face %lld)\n",
            (long long)nbad, a->t0, (long long)bad, (long long)(fc->gid / 4), (long long)(fc->gid % 4));
    abort();
  }
}

static struct starpu_perfmodel rupture_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_rupture"};

static struct starpu_codelet rupture_cl = {
    .cpu_funcs = {rupture_cpu},
    .cpu_funcs_name = {"rupture_cpu"},
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &rupture_model,
    .name = "sq_rupture",
};

int sq_runtime_attach_fault(sq_runtime *rt, sq_fault *f) {
  rt->fault = f;
  if (!f) return SQ_SUCCESS;
  starpu_vector_data_register(&rt->fault_ref, STARPU_MAIN_RAM, (uintptr_t)f->ref, (uint32_t)f->ref_len, sizeof(double));
  SQ_CALL(SQ_CALLOC(rt->fault_faces, f->ntile + 1));
  SQ_CALL(SQ_CALLOC(rt->fault_points, f->ntile + 1));
  for (int t = 0; t < f->ntile; ++t) {
    const sq_fault_tile *tl = &f->tile[t];
    const uint32_t n = (uint32_t)(tl->end - tl->begin);
    starpu_vector_data_register(&rt->fault_faces[t], STARPU_MAIN_RAM, (uintptr_t)(f->face + tl->begin), n,
                                sizeof(sq_fault_face));
    starpu_vector_data_register(&rt->fault_points[t], STARPU_MAIN_RAM, (uintptr_t)(f->point + tl->begin * f->npoint),
                                n, sizeof(sq_fault_point) * f->npoint);
  }
  return SQ_SUCCESS;
}

void sq_runtime_detach_fault(sq_runtime *rt) {
  sq_fault *f = rt->fault;
  if (!f) return;
  for (int t = 0; t < f->ntile; ++t) {
    starpu_data_unregister(rt->fault_faces[t]);
    starpu_data_unregister(rt->fault_points[t]);
  }
  starpu_data_unregister(rt->fault_ref);
  SQ_FREE(rt->fault_faces);
  SQ_FREE(rt->fault_points);
  rt->fault = NULL;
}

int sq_runtime_fault_tiles(const sq_runtime *rt, int cluster, int *first, int *end) {
  const sq_fault *f = rt->fault;
  *first = *end = 0;
  if (!f) return 0;
  int t = 0;
  while (t < f->ntile && f->tile[t].cluster < cluster) ++t;
  *first = t;
  while (t < f->ntile && f->tile[t].cluster == cluster) ++t;
  *end = t;
  return *end > *first;
}

int sq_insert_rupture(sq_runtime *rt, int ftile, double t0, double dt) {
  const sq_disc *d = rt->disc;
  const sq_fault *f = rt->fault;
  const sq_fault_tile *tl = &f->tile[ftile];
  const size_t args_size = sizeof(rupture_args) + sizeof(int) * tl->nslot;
  rupture_args *a = malloc(args_size);
  struct starpu_data_descr *descr = malloc(sizeof(*descr) * (RP_FIRST + 2 * tl->nslot));
  SQ_CHECK(a && descr, SQ_ERR_MEMORY, "out of memory");
  *a = (rupture_args){.precision = d->opt.precision, .order = d->opt.order, .npoint = f->npoint, .nslot = tl->nslot,
                      .t0 = t0, .dt = dt, .opt = f->opt, .logs = f->log};
  int nbuf = 0;
  descr[nbuf++] = (struct starpu_data_descr){rt->fault_ref, STARPU_R};
  descr[nbuf++] = (struct starpu_data_descr){rt->fault_faces[ftile], STARPU_R};
  descr[nbuf++] = (struct starpu_data_descr){rt->fault_points[ftile], STARPU_RW};
  for (int s = 0; s < tl->nslot; ++s) {
    SQ_CHECK(rt->derivs[tl->slot[s]], SQ_ERR_INTERNAL, "fault tile %d: tile %d keeps no derivatives", ftile, tl->slot[s]);
    descr[nbuf++] = (struct starpu_data_descr){rt->derivs[tl->slot[s]], STARPU_R};
  }
  for (int s = 0; s < tl->nslot; ++s) {
    const int et = tl->slot[s];
    a->dofs_buffer[s] = -1;
    if (d->tile[et].layer == SQ_LAYER_GHOST) continue;
    a->dofs_buffer[s] = nbuf;
    descr[nbuf++] = (struct starpu_data_descr){rt->dofs[et], STARPU_RW};
  }
  int ret = starpu_task_insert(&rupture_cl, STARPU_CL_ARGS, a, args_size, STARPU_PRIORITY, tl->priority,
                               STARPU_CALLBACK_WITH_ARG_NFREE, sq_profile_callback(rt), sq_profile_arg(rt, SQ_TASK_RUPTURE),
                               STARPU_DATA_MODE_ARRAY, descr, nbuf, 0);
  free(descr);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting rupture task for fault tile %d failed (%d)", ftile, ret);
  return SQ_SUCCESS;
}
