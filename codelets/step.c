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
 * The task may also take, after its sub-steps, the neighbour fluxes of cluster-1 tiles that read it (a
 * "tail", runtime.fuse_chain_correction): their correction waits for this tile's LTS buffer and nothing of
 * their own step writes what they read after it, so the chain of the fastest clusters' steps loses a task and
 * its wait per step of cluster 1.  It may then also take those tiles' predictors of their next step
 * (runtime.fuse_chain_prediction): the next whole-step task then waits on nothing of its own GPU but this one.
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

/** A neighbour slot: its buffer in the task (-1: this tile's tint), and whether it holds a slower tile's
 * derivatives (integrated over the reader's sub-interval). */
typedef struct step_slot {
  int buffer, derivs;
} step_slot;

/** A tail tile: its neighbour-flux matrices, face links and dofs in the task, its slots [slot0, slot0 + nslot), and
 * where the task predicts its next step, that predictor's segment with the positions of its buffers in the task. */
typedef struct step_tail_tile {
  int flux, link, dofs, slot0, nslot;
  sq_segment pseg;
  int pbuf[SQ_SEGMENT_MAX_BUFFERS];
} step_tail_tile;

/** Arguments: the predictor's (its buffer mode that of the first sub-step), the sub-steps substep ..
 * substep + nsub - 1, the tail's tiles with their step and sub-step, then the slots: this tile's nslot first. */
typedef struct step_args {
  sq_precision precision;
  int order;
  sq_segment seg;
  int substep, nsub;
  int nslot;
  int ntail;
  double tail_dt;
  int tail_substep;
  int tail_predict; /**< the tail's tiles' next predictors follow their corrections */
  int first;        /**< every kernel at the GPU's highest stream priority (sq_runtime_set_chain_priority) */
  step_tail_tile tail[SQ_STEP_MAX_TAIL];
  step_slot slot[];
} step_args;

/* Sub-step k of the task (0 .. nsub - 1): the segment with its buffer mode (the first sub-step's; the
 * others accumulate), and each slot's interval of the slower neighbours' derivatives, as a task of that
 * one sub-step would have them. */
static sq_segment substep_segment(const step_args *a, int k) {
  sq_segment sg = a->seg;
  if (k > 0 && sg.buffer != SQ_BUFFER_NONE) sg.buffer = SQ_BUFFER_ACCUMULATE;
  return sg;
}
static void derivs_interval(const step_slot *sl, int substep, double dt, double *t0, double *t1) {
  *t0 = *t1 = 0.0;
  if (!sl->derivs) return;
  *t0 = substep * dt;
  *t1 = (substep + 1) * dt;
}
static void slot_interval(const step_args *a, int k, int s, double *t0, double *t1) {
  derivs_interval(&a->slot[s], a->substep + k, a->seg.dt, t0, t1);
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

int sq_step_fold_target(const sq_runtime *rt, int tile) {
  const sq_disc *d = rt->disc;
  const sq_tile *tl = &d->tile[tile];
  if (tl->cluster != 1 || tl->layer != SQ_LAYER_INTERIOR) return -1;
  int first, end;
  if (sq_runtime_fault_tiles(rt, 1, &first, &end) && end > first) return -1; /* its rupture tasks come first */
  int target = -1;
  for (int s = 0; s < tl->nneighbor; ++s) {
    const int nt = tl->neighbor[s];
    if (d->tile[nt].cluster != 0) continue;
    if (target >= 0 && target != nt) return -1; /* the buffers of two tasks */
    target = nt;
  }
  if (target < 0 || !sq_step_fusable(rt, target)) return -1;
  return sq_runtime_tile_gpu(rt, tile) == sq_runtime_tile_gpu(rt, target) ? target : -1;
}

/* The neighbour-slot data of tail tile j. */
static void tail_slot_data(const step_args *a, void *buffers[], int j, const void **data, double *t0, double *t1) {
  const step_tail_tile *tt = &a->tail[j];
  for (int s = 0; s < tt->nslot; ++s) {
    data[s] = (const void *)STARPU_VECTOR_GET_PTR(buffers[a->slot[tt->slot0 + s].buffer]);
    derivs_interval(&a->slot[tt->slot0 + s], a->tail_substep, a->tail_dt, &t0[s], &t1[s]);
  }
}

/* The buffers of tail tile j's predictor, in a segment's order. */
static void tail_segment(const step_args *a, void *buffers[], int j, void **sb) {
  for (int k = 0; k < a->tail[j].pseg.nbuf; ++k) sb[k] = buffers[a->tail[j].pbuf[k]];
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
  for (int j = 0; j < a->ntail; ++j) {
    const step_tail_tile *tt = &a->tail[j];
    const void *data[tt->nslot > 0 ? tt->nslot : 1];
    double u0[tt->nslot > 0 ? tt->nslot : 1], u1[tt->nslot > 0 ? tt->nslot : 1];
    tail_slot_data(a, buffers, j, data, u0, u1);
    sq_kernel_neighbor(a->precision, a->order, STARPU_VECTOR_GET_NX(buffers[tt->dofs]), pack,
                       (const sq_face_link *)STARPU_VECTOR_GET_PTR(buffers[tt->link]),
                       (const void *)STARPU_VECTOR_GET_PTR(buffers[tt->flux]), data, u0, u1,
                       (void *)STARPU_VECTOR_GET_PTR(buffers[tt->dofs]));
  }
  for (int j = 0; j < a->ntail && a->tail_predict; ++j) {
    void *sb[SQ_SEGMENT_MAX_BUFFERS];
    tail_segment(a, buffers, j, sb);
    sq_segment_cpu(a->precision, a->order, &a->tail[j].pseg, pack, sb);
  }
}

#ifdef SQ_USE_CUDA
/* The tail's neighbour kernels on @p stream. */
static void tail_corrections_cuda(const step_args *a, void *buffers[], const void *pack, cudaStream_t stream) {
  for (int j = 0; j < a->ntail; ++j) {
    const step_tail_tile *tt = &a->tail[j];
    STARPU_ASSERT_MSG(tt->nslot <= SQ_CUDA_MAX_SLOTS, "step task's tail with %d slots on a CUDA worker", tt->nslot);
    sq_cuda_slots slots;
    slots.nslot = tt->nslot;
    tail_slot_data(a, buffers, j, slots.data, slots.t0, slots.t1);
    sq_cuda_neighbor(a->precision, a->order, STARPU_VECTOR_GET_NX(buffers[tt->dofs]), pack,
                     (const sq_face_link *)STARPU_VECTOR_GET_PTR(buffers[tt->link]),
                     (const void *)STARPU_VECTOR_GET_PTR(buffers[tt->flux]), &slots,
                     (void *)STARPU_VECTOR_GET_PTR(buffers[tt->dofs]), stream);
  }
}

/* Per sub-step the fused predictor kernel, then the neighbour kernel, on the worker's stream; with a->first on its
 * first side stream, at its GPU's highest priority, after what the worker's stream was given and before what it is
 * given next.  The tail's corrections need only the last sub-step's predictor (the LTS buffer) and write only their
 * own tiles' dofs, which nothing of the last sub-step's neighbour kernel reads: they run beside that kernel on the
 * second side stream, at the highest priority.  The tail's predictors wait for both, since they write the
 * derivatives that kernel reads. */
static void step_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const step_args *a = cl_arg;
  void **seg = buffers + ST_SEGMENT, **nb = seg + a->seg.nbuf;
  const void *pack = (const void *)STARPU_VECTOR_GET_PTR(buffers[ST_PACK]);
  const cudaStream_t own = starpu_cuda_get_local_stream();
  cudaStream_t run = own, beside = a->ntail > 0 ? sq_cuda_side_stream(1) : NULL;
  if (beside && a->first) { /* a worker has both side streams or neither */
    run = sq_cuda_side_stream(0);
    sq_cuda_stream_follow(run, own);
  }
  sq_cuda_slots slots;
  slots.nslot = a->nslot;
  STARPU_ASSERT_MSG(slots.nslot <= SQ_CUDA_MAX_SLOTS, "step task with %d slots on a CUDA worker", slots.nslot);
  for (int s = 0; s < a->nslot; ++s) slots.data[s] = slot_data(a, buffers, s);
  for (int k = 0; k < a->nsub; ++k) {
    const sq_segment sg = substep_segment(a, k);
    sq_segment_cuda(a->precision, a->order, &sg, pack, seg, run);
    if (k == a->nsub - 1 && beside) {
      sq_cuda_stream_follow(beside, run);
      tail_corrections_cuda(a, buffers, pack, beside);
    }
    for (int s = 0; s < a->nslot; ++s) slot_interval(a, k, s, &slots.t0[s], &slots.t1[s]);
    sq_cuda_neighbor(a->precision, a->order, STARPU_VECTOR_GET_NX(seg[0]), pack,
                     (const sq_face_link *)STARPU_VECTOR_GET_PTR(nb[ST_LINK]),
                     (const void *)STARPU_VECTOR_GET_PTR(nb[ST_FLUX_NB]), &slots, (void *)STARPU_VECTOR_GET_PTR(seg[0]),
                     run);
  }
  if (beside) sq_cuda_stream_follow(run, beside);
  else tail_corrections_cuda(a, buffers, pack, run);
  for (int j = 0; j < a->ntail && a->tail_predict; ++j) {
    void *sb[SQ_SEGMENT_MAX_BUFFERS];
    tail_segment(a, buffers, j, sb);
    sq_segment_cuda(a->precision, a->order, &a->tail[j].pseg, pack, sb, run);
  }
  if (run != own) sq_cuda_stream_follow(own, run); /* StarPU's end of the task: the event on the worker's stream */
}

static int step_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl) {
  (void)nimpl;
  if (starpu_worker_get_type((int)workerid) != STARPU_CUDA_WORKER) return 1;
  const step_args *a = task->cl_arg;
  if (a->nslot > SQ_CUDA_MAX_SLOTS) return 0;
  for (int j = 0; j < a->ntail; ++j)
    if (a->tail[j].nslot > SQ_CUDA_MAX_SLOTS) return 0;
  return 1;
}
#endif

/* The cost follows the tile's size, whatever it reads (see neighbor.c), times its sub-steps, and its tail's sizes
 * and predictors. */
static uint32_t step_footprint(struct starpu_task *task) {
  const step_args *a = task->cl_arg;
  /* the segment's first buffer: dofs */
  uint32_t f =
      starpu_hash_crc32c_be((uint32_t)(a->nsub + 256 * a->tail_predict), sq_footprint_of_buffer(task, ST_SEGMENT));
  for (int j = 0; j < a->ntail; ++j) f = starpu_hash_crc32c_be(sq_footprint_of_buffer(task, a->tail[j].dofs), f);
  return f;
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

/* The position of @p h among the first @p n buffers of @p descr, or -1. */
static int find_buffer(const struct starpu_data_descr *descr, int n, starpu_data_handle_t h) {
  for (int i = 0; i < n; ++i)
    if (descr[i].handle == h) return i;
  return -1;
}

/* Append the flux matrices, links, dofs and neighbour slots of tail tile @p t (j-th of the tail) to the task. A
 * slot whose data the task already has (this tile's LTS buffer, written by its sub-steps; a tile two tails read)
 * points at that buffer. */
static int add_tail(const sq_runtime *rt, int step_tile, int t, int j, step_args *a, struct starpu_data_descr *descr,
                    int *nbuf, int *nslot) {
  const sq_disc *d = rt->disc;
  const sq_tile *tl = &d->tile[t];
  SQ_CHECK(sq_step_fold_target(rt, t) == step_tile, SQ_ERR_INTERNAL,
           "tile %d's correction cannot follow the whole steps of tile %d", t, step_tile);
  step_tail_tile *tt = &a->tail[j];
  tt->flux = *nbuf;
  descr[(*nbuf)++] = (struct starpu_data_descr){rt->flux_nb[t], STARPU_R};
  tt->link = *nbuf;
  descr[(*nbuf)++] = (struct starpu_data_descr){rt->link[t], STARPU_R};
  tt->dofs = *nbuf;
  descr[(*nbuf)++] = (struct starpu_data_descr){rt->dofs[t], STARPU_RW};
  tt->slot0 = *nslot;
  tt->nslot = tl->nneighbor;
  for (int s = 0; s < tl->nneighbor; ++s) {
    const int nt = tl->neighbor[s], lnb = d->tile[nt].cluster;
    const starpu_data_handle_t h = sq_neighbour_handle(rt, tl->cluster, nt);
    SQ_CHECK(h, SQ_ERR_INTERNAL, "tile %d: neighbour tile %d lacks its LTS data", t, nt);
    step_slot *sl = &a->slot[(*nslot)++];
    sl->derivs = sq_neighbour_reads(tl->cluster, lnb) == SQ_READS_DERIVS;
    sl->buffer = find_buffer(descr, *nbuf, h);
    if (sl->buffer < 0) {
      sl->buffer = *nbuf;
      descr[(*nbuf)++] = (struct starpu_data_descr){h, STARPU_R};
    }
  }
  return SQ_SUCCESS;
}

/* Append the data of tail tile j's next predictor (buffer mode @p mode) that the task does not hold yet; one it
 * holds gets the predictor's access too (its dofs, updated by the correction; its derivatives, read by the sub-steps
 * and written by the predictor). */
static int add_tail_predict(const sq_runtime *rt, int t, int j, sq_buffer_mode mode, step_args *a,
                            struct starpu_data_descr *descr, int *nbuf) {
  SQ_CHECK(rt->tint_alt && rt->tint_alt[t], SQ_ERR_INTERNAL,
           "tile %d: a predictor taken ahead needs a second time-integral array", t);
  struct starpu_data_descr seg[SQ_SEGMENT_MAX_BUFFERS];
  step_tail_tile *tt = &a->tail[j];
  SQ_CALL(sq_segment_buffers_ahead(rt, t, a->tail_dt, mode, seg, &tt->pseg));
  for (int k = 0; k < tt->pseg.nbuf; ++k) {
    int b = find_buffer(descr, *nbuf, seg[k].handle);
    if (b < 0) descr[b = (*nbuf)++] = seg[k];
    else descr[b].mode = (enum starpu_data_access_mode)(descr[b].mode | seg[k].mode);
    tt->pbuf[k] = b;
  }
  return SQ_SUCCESS;
}

int sq_insert_step(sq_runtime *rt, int tile, double dt, int substep, int nsub, sq_buffer_mode buffer_mode,
                   const sq_step_tail *tail, int priority) {
  const sq_disc *d = rt->disc;
  const sq_tile *tl = &d->tile[tile];
  SQ_CHECK(sq_step_fusable(rt, tile), SQ_ERR_INTERNAL, "tile %d cannot take its whole step as one task", tile);
  SQ_CHECK(nsub >= 1 && substep >= 0, SQ_ERR_INTERNAL, "tile %d: %d sub-steps from %d", tile, nsub, substep);
  const int ntail = tail ? tail->ntile : 0;
  SQ_CHECK(ntail >= 0 && ntail <= SQ_STEP_MAX_TAIL, SQ_ERR_INTERNAL, "tile %d: a tail of %d tiles", tile, ntail);
  int maxslot = tl->nneighbor;
  for (int j = 0; j < ntail; ++j) maxslot += d->tile[tail->tile[j]].nneighbor;
  const size_t args_size = sizeof(step_args) + sizeof(step_slot) * (size_t)maxslot;
  step_args *a = calloc(1, args_size);
  struct starpu_data_descr *descr = malloc(sizeof(*descr) * (size_t)(1 + SQ_SEGMENT_MAX_BUFFERS + ST_AFTER_SEGMENT +
                                                                     (3 + SQ_SEGMENT_MAX_BUFFERS) * ntail + maxslot));
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
  a->ntail = ntail;
  a->tail_dt = ntail ? tail->dt : 0.0;
  a->tail_substep = ntail ? tail->substep : 0;
  a->tail_predict = ntail && tail->predict;
  a->first = ntail && rt->chain_priority;
  int nbuf = 0;
  descr[nbuf++] = (struct starpu_data_descr){rt->pack, STARPU_R};
  int ierr = sq_segment_buffers(rt, tile, dt, buffer_mode, descr + nbuf, &a->seg);
  nbuf += ierr ? 0 : a->seg.nbuf;
  descr[nbuf++] = (struct starpu_data_descr){rt->flux_nb[tile], STARPU_R};
  descr[nbuf++] = (struct starpu_data_descr){rt->link[tile], STARPU_R};
  for (int s = 0; s < tl->nneighbor && !ierr; ++s) {
    const int nt = tl->neighbor[s];
    a->slot[s].buffer = -1;
    a->slot[s].derivs = 0;
    if (nt == tile) continue; /* its own tint, written by its segment in the same task */
    /* sq_step_fusable: every other neighbour tile is slower; its derivatives over our sub-interval */
    if (!rt->derivs[nt]) {
      ierr =
          sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "tile %d: neighbour tile %d lacks its derivatives", tile, nt);
      break;
    }
    a->slot[s].buffer = nbuf; /* its derivatives over each sub-step: slot_interval */
    a->slot[s].derivs = 1;
    descr[nbuf++] = (struct starpu_data_descr){rt->derivs[nt], STARPU_R};
  }
  for (int j = 0, nslot = tl->nneighbor; j < ntail && !ierr; ++j)
    ierr = add_tail(rt, tile, tail->tile[j], j, a, descr, &nbuf, &nslot);
  for (int j = 0; j < ntail && a->tail_predict && !ierr; ++j)
    ierr = add_tail_predict(rt, tail->tile[j], j, tail->predict[j], a, descr, &nbuf);
  if (ierr) {
    free(a);
    free(descr);
    return ierr;
  }
  /* the predictors taken ahead forward their outputs as the predictor tasks would (runtime.prefetch_halo) */
  void *ahead = a->tail_predict ? sq_forward_ahead_arg(rt, ntail, tail->tile) : NULL;
  void (*done)(void *) = ahead ? sq_forward_ahead_done : sq_task_callback(rt, SQ_TASK_STEP, tile);
  void *done_arg = ahead ? ahead : sq_task_callback_arg(rt, SQ_TASK_STEP, tile);
  int ret =
      starpu_task_insert(&step_cl, STARPU_CL_ARGS, a, args_size, STARPU_PRIORITY, priority, SQ_TILE_PLACEMENT(rt, tile),
                         SQ_TASK_CALLBACK(done, done_arg, tile), STARPU_DATA_MODE_ARRAY, descr, nbuf, 0);
  if (ret != 0 && ahead) free(ahead);
  free(descr);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting step task for tile %d failed (%d)", tile, ret);
  return SQ_SUCCESS;
}
