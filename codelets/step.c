/**
 * @file step.c  Codelet "step": the whole update of one tile -- ader (+ LTS buffer), local, then the
 * neighbour fluxes -- as one task, for one or several consecutive (sub-)steps.  It is valid where the
 * neighbour fluxes read nothing that another task of the same step writes: a tile of the fastest cluster
 * whose faces see only itself and slower clusters (their derivatives are ready before the step starts).
 * A small fastest cluster in one tile then costs one task per sub-step instead of three, which shortens
 * the chain of sub-steps that LTS waits on (thesis §6.5.3: per-task overhead dominates small clusters).
 * Several sub-steps of one slower step (or several global steps) in one task go further: on a GPU each
 * dependent task adds StarPU's and the launch's latency to its kernels, which for a small tile at low order
 * is about as long as the kernels themselves (docs/PERFORMANCE.md).
 * Per element the arithmetic is that of the separate ader, local and neighbour tasks, in the same order.
 */
#include "sq_runtime_impl.h"
#ifdef SQ_USE_CUDA
#include "sq_cuda.h"
#endif

/* The reference matrices, the predictor's segment (merged.c: dofs first), the neighbour-flux data, then
 * the neighbour slots that are not the tile itself. */
enum { ST_PACK, ST_SEGMENT };
enum { ST_FLUX_NB, ST_LINK, ST_AFTER_SEGMENT }; /* after the segment */

/** Arguments: the predictor's (its buffer mode that of the first sub-step), the sub-steps substep ..
 * substep + nsub - 1, and per neighbour slot its buffer (-1: this tile's tint). */
typedef struct step_args {
  sq_precision precision;
  int order;
  sq_segment seg;
  int substep, nsub;
  int nslot;
  struct {
    int buffer;
  } slot[];
} step_args;

/* Sub-step k of the task (0 .. nsub - 1): the segment with its buffer mode (the first sub-step's; the
 * others accumulate), and each slot's interval of the slower neighbours' derivatives, as a task of that
 * one sub-step would have them. */
static sq_segment substep_segment(const step_args *a, int k) {
  sq_segment sg = a->seg;
  if (k > 0 && sg.buffer != SQ_BUFFER_NONE) sg.buffer = SQ_BUFFER_ACCUMULATE;
  return sg;
}
static void slot_interval(const step_args *a, int k, int s, double *t0, double *t1) {
  *t0 = *t1 = 0.0;
  if (a->slot[s].buffer < 0) return;
  *t0 = (a->substep + k) * a->seg.dt;
  *t1 = (a->substep + k + 1) * a->seg.dt;
}

/* The neighbour slots' data: a buffer of the task, or the tile's own tint (written by its segment). */
static const void *slot_data(const step_args *a, void *buffers[], int s) {
  const int b = a->slot[s].buffer;
  return b < 0 ? sq_segment_tint(buffers + ST_SEGMENT) : (const void *)STARPU_VECTOR_GET_PTR(buffers[b]);
}

int sq_step_fusable(const sq_runtime *rt, int tile) {
  const sq_disc *d = rt->disc;
  const sq_tile *tl = &d->tile[tile];
  /* copy tiles are out: their halo messages are packed between the predictor and the corrector */
  if (tl->cluster != 0 || tl->layer != SQ_LAYER_INTERIOR) return 0;
  if (sq_runtime_tile_has_sources(rt, tile) || sq_runtime_tile_has_receivers(rt, tile)) return 0;
  int first, end;
  if (sq_runtime_fault_tiles(rt, 0, &first, &end) && end > first) return 0;
  for (int s = 0; s < tl->nneighbor; ++s) {
    const int nt = tl->neighbor[s];
    if (nt != tile && d->tile[nt].cluster == 0) return 0; /* another tile's prediction of this step */
  }
  return 1;
}

static void step_cpu(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const step_args *a = cl_arg;
  void **seg = buffers + ST_SEGMENT, **nb = seg + a->seg.nbuf;
  const void *pack = (const void *)STARPU_VECTOR_GET_PTR(buffers[ST_PACK]);
  const int ns = a->nslot > 0 ? a->nslot : 1;
  const void *nb_data[ns];
  double t0[ns], t1[ns];
  for (int s = 0; s < a->nslot; ++s) nb_data[s] = slot_data(a, buffers, s);
  for (int k = 0; k < a->nsub; ++k) {
    const sq_segment sg = substep_segment(a, k);
    sq_segment_cpu(a->precision, a->order, &sg, pack, seg);
    for (int s = 0; s < a->nslot; ++s) slot_interval(a, k, s, &t0[s], &t1[s]);
    sq_kernel_neighbor(a->precision, a->order, STARPU_VECTOR_GET_NX(seg[0]), pack,
                       (const sq_face_link *)STARPU_VECTOR_GET_PTR(nb[ST_LINK]),
                       (const void *)STARPU_VECTOR_GET_PTR(nb[ST_FLUX_NB]), nb_data, t0, t1,
                       (void *)STARPU_VECTOR_GET_PTR(seg[0]));
  }
}

#ifdef SQ_USE_CUDA
/* Per sub-step the fused predictor kernel, then the neighbour kernel, all on the worker's stream. */
static void step_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const step_args *a = cl_arg;
  void **seg = buffers + ST_SEGMENT, **nb = seg + a->seg.nbuf;
  const void *pack = (const void *)STARPU_VECTOR_GET_PTR(buffers[ST_PACK]);
  sq_cuda_slots slots;
  slots.nslot = a->nslot;
  STARPU_ASSERT_MSG(slots.nslot <= SQ_CUDA_MAX_SLOTS, "step task with %d slots on a CUDA worker", slots.nslot);
  for (int s = 0; s < a->nslot; ++s) slots.data[s] = slot_data(a, buffers, s);
  for (int k = 0; k < a->nsub; ++k) {
    const sq_segment sg = substep_segment(a, k);
    sq_segment_cuda(a->precision, a->order, &sg, pack, seg);
    for (int s = 0; s < a->nslot; ++s) slot_interval(a, k, s, &slots.t0[s], &slots.t1[s]);
    sq_cuda_neighbor(a->precision, a->order, STARPU_VECTOR_GET_NX(seg[0]), pack,
                     (const sq_face_link *)STARPU_VECTOR_GET_PTR(nb[ST_LINK]),
                     (const void *)STARPU_VECTOR_GET_PTR(nb[ST_FLUX_NB]), &slots, (void *)STARPU_VECTOR_GET_PTR(seg[0]),
                     starpu_cuda_get_local_stream());
  }
}

static int step_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl) {
  (void)nimpl;
  if (starpu_worker_get_type((int)workerid) != STARPU_CUDA_WORKER) return 1;
  return ((const step_args *)task->cl_arg)->nslot <= SQ_CUDA_MAX_SLOTS;
}
#endif

/* The cost follows the tile's size, whatever it reads (see neighbor.c), times its sub-steps. */
static uint32_t step_footprint(struct starpu_task *task) {
  const step_args *a = task->cl_arg;
  /* the segment's first buffer: dofs */
  return starpu_hash_crc32c_be((uint32_t)a->nsub, sq_footprint_of_buffer(task, ST_SEGMENT));
}

static struct starpu_perfmodel step_model = {
    .type = STARPU_HISTORY_BASED, .symbol = "sq_step", .footprint = step_footprint};

static struct starpu_codelet step_cl = {
    .cpu_funcs = {step_cpu},
    .cpu_funcs_name = {"step_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {step_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
    .can_execute = step_can_execute,
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &step_model,
    .name = "sq_step",
};

int sq_insert_step(sq_runtime *rt, int tile, double dt, int substep, int nsub, sq_buffer_mode buffer_mode,
                   int priority) {
  const sq_tile *tl = &rt->disc->tile[tile];
  SQ_CHECK(sq_step_fusable(rt, tile), SQ_ERR_INTERNAL, "tile %d cannot take its whole step as one task", tile);
  SQ_CHECK(nsub >= 1 && substep >= 0, SQ_ERR_INTERNAL, "tile %d: %d sub-steps from %d", tile, nsub, substep);
  const size_t args_size = sizeof(step_args) + sizeof(((step_args *)0)->slot[0]) * tl->nneighbor;
  step_args *a = malloc(args_size);
  struct starpu_data_descr *descr =
      malloc(sizeof(*descr) * (1 + SQ_SEGMENT_MAX_BUFFERS + ST_AFTER_SEGMENT + tl->nneighbor));
  if (!a || !descr) {
    free(a);
    free(descr);
    SQ_CHECK(0, SQ_ERR_MEMORY, "out of memory");
  }
  a->precision = rt->disc->opt.precision;
  a->order = rt->disc->opt.order;
  a->substep = substep;
  a->nsub = nsub;
  a->nslot = tl->nneighbor;
  int nbuf = 0;
  descr[nbuf++] = (struct starpu_data_descr){rt->pack, STARPU_R};
  int ierr = sq_segment_buffers(rt, tile, dt, buffer_mode, descr + nbuf, &a->seg);
  nbuf += ierr ? 0 : a->seg.nbuf;
  descr[nbuf++] = (struct starpu_data_descr){rt->flux_nb[tile], STARPU_R};
  descr[nbuf++] = (struct starpu_data_descr){rt->link[tile], STARPU_R};
  for (int s = 0; s < tl->nneighbor && !ierr; ++s) {
    const int nt = tl->neighbor[s];
    a->slot[s].buffer = -1;
    if (nt == tile) continue; /* its own tint, written by its segment in the same task */
    /* sq_step_fusable: every other neighbour tile is slower; its derivatives over our sub-interval */
    if (!rt->derivs[nt]) {
      ierr =
          sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "tile %d: neighbour tile %d lacks its derivatives", tile, nt);
      break;
    }
    a->slot[s].buffer = nbuf; /* its derivatives over each sub-step: slot_interval */
    descr[nbuf++] = (struct starpu_data_descr){rt->derivs[nt], STARPU_R};
  }
  if (ierr) {
    free(a);
    free(descr);
    return ierr;
  }
  int ret =
      starpu_task_insert(&step_cl, STARPU_CL_ARGS, a, args_size, STARPU_PRIORITY, priority, SQ_TILE_PLACEMENT(rt, tile),
                         SQ_PROFILE(rt, SQ_TASK_STEP, tile), STARPU_DATA_MODE_ARRAY, descr, nbuf, 0);
  free(descr);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting step task for tile %d failed (%d)", tile, ret);
  return SQ_SUCCESS;
}
