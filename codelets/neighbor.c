/**
 * @file neighbor.c  Codelet "neighbor": neighbour-flux update of one tile (thesis eq. 4.2).  The task
 * reads the data of every tile its faces touch -- the time-integrated DOFs of same-cluster tiles,
 * the accumulated buffers of faster ones, the derivatives of slower ones (§3.5) -- and that read
 * list is what lets StarPU order it after their predictors, with no explicit barrier.
 */
#include "sq_codelets.h"
#ifdef SQ_USE_CUDA
#include "sq_cuda.h"
#endif

/* Fixed buffers before the variable list of neighbour tiles. */
enum { NB_PACK, NB_FLUX, NB_LINK, NB_DOFS, NB_FIRST };

/** Arguments: the step args plus, per neighbour slot, the integration interval for derivatives. */
typedef struct neighbor_args {
  sq_step_args step;
  int nslot;
  double interval[]; /* nslot x {t0, t1} */
} neighbor_args;

static void neighbor_cpu(void *buffers[], void *cl_arg) {
  const neighbor_args *a = cl_arg;
  const unsigned nbuf = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current());
  const void *nb_data[nbuf];
  double t0[nbuf], t1[nbuf];
  for (unsigned s = NB_FIRST; s < nbuf; ++s) {
    nb_data[s - NB_FIRST] = (const void *)STARPU_VECTOR_GET_PTR(buffers[s]);
    t0[s - NB_FIRST] = a->interval[2 * (s - NB_FIRST)];
    t1[s - NB_FIRST] = a->interval[2 * (s - NB_FIRST) + 1];
  }
  sq_kernel_neighbor(a->step.precision, a->step.order, STARPU_VECTOR_GET_NX(buffers[NB_DOFS]),
                     (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_PACK]),
                     (const sq_face_link *)STARPU_VECTOR_GET_PTR(buffers[NB_LINK]),
                     (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_FLUX]), nb_data, t0, t1,
                     (void *)STARPU_VECTOR_GET_PTR(buffers[NB_DOFS]));
}

#ifdef SQ_USE_CUDA
/*
 * The slot table (device pointer and interval per neighbour tile) travels by value in the kernel's
 * parameters, so it holds at most SQ_CUDA_MAX_SLOTS entries: a task with more neighbour tiles is
 * refused by neighbor_can_execute on CUDA workers and runs on a CPU worker.
 */
static void neighbor_cuda(void *buffers[], void *cl_arg) {
  const neighbor_args *a = cl_arg;
  const unsigned nbuf = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current());
  sq_cuda_slots slots;
  slots.nslot = (int)(nbuf - NB_FIRST);
  STARPU_ASSERT_MSG(slots.nslot <= SQ_CUDA_MAX_SLOTS, "neighbor task with %d slots on a CUDA worker", slots.nslot);
  for (int s = 0; s < slots.nslot; ++s) {
    slots.data[s] = (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_FIRST + s]);
    slots.t0[s] = a->interval[2 * s];
    slots.t1[s] = a->interval[2 * s + 1];
  }
  sq_cuda_neighbor(a->step.precision, a->step.order, STARPU_VECTOR_GET_NX(buffers[NB_DOFS]),
                   (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_PACK]),
                   (const sq_face_link *)STARPU_VECTOR_GET_PTR(buffers[NB_LINK]),
                   (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_FLUX]), &slots,
                   (void *)STARPU_VECTOR_GET_PTR(buffers[NB_DOFS]), starpu_cuda_get_local_stream());
}

static int neighbor_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl) {
  (void)nimpl;
  if (starpu_worker_get_type((int)workerid) != STARPU_CUDA_WORKER) return 1;
  return (int)STARPU_TASK_GET_NBUFFERS(task) - NB_FIRST <= SQ_CUDA_MAX_SLOTS;
}
#endif

/*
 * The cost of a neighbour task follows the size of its own tile, not the sizes of the tiles it reads.
 * StarPU's default footprint hashes every buffer's size, so each distinct neighbour set would need its
 * own calibration (about ten runs on every kind of worker) before dmda/dmdas trust the model: one
 * footprint per tile size instead.
 */
static uint32_t neighbor_footprint(struct starpu_task *task) { return sq_footprint_of_buffer(task, NB_DOFS); }

static struct starpu_perfmodel neighbor_model = {
    .type = STARPU_HISTORY_BASED, .symbol = "sq_neighbor", .footprint = neighbor_footprint};

static struct starpu_codelet neighbor_cl = {
    .cpu_funcs = {neighbor_cpu},
    .cpu_funcs_name = {"neighbor_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {neighbor_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
    .can_execute = neighbor_can_execute,
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &neighbor_model,
    .name = "sq_neighbor",
};

int sq_insert_neighbor(sq_runtime *rt, int tile, double dt, int substep, int priority) {
  const sq_disc *d = rt->disc;
  const sq_tile *tl = &d->tile[tile];
  const int nbuf = NB_FIRST + tl->nneighbor;
  const size_t args_size = sizeof(neighbor_args) + 2 * sizeof(double) * tl->nneighbor;
  struct starpu_data_descr *descr = malloc(sizeof(*descr) * nbuf);
  neighbor_args *a = malloc(args_size);
  SQ_CHECK(descr && a, SQ_ERR_MEMORY, "out of memory");
  a->step = (sq_step_args){.precision = d->opt.precision, .order = d->opt.order, .dt = dt};
  a->nslot = tl->nneighbor;
  descr[NB_PACK] = (struct starpu_data_descr){rt->pack, STARPU_R};
  descr[NB_FLUX] = (struct starpu_data_descr){rt->flux_nb[tile], STARPU_R};
  descr[NB_LINK] = (struct starpu_data_descr){rt->link[tile], STARPU_R};
  descr[NB_DOFS] = (struct starpu_data_descr){rt->dofs[tile], STARPU_RW};
  for (int s = 0; s < tl->nneighbor; ++s) {
    const int nt = tl->neighbor[s], lnb = d->tile[nt].cluster;
    starpu_data_handle_t h = rt->tint[nt];
    a->interval[2 * s] = a->interval[2 * s + 1] = 0.0;
    if (lnb < tl->cluster) h = rt->buffer[nt]; /* faster: its tint accumulated over our step */
    if (lnb > tl->cluster) {                   /* slower: its derivatives over our sub-interval */
      h = rt->derivs[nt];
      a->interval[2 * s] = substep * dt;
      a->interval[2 * s + 1] = (substep + 1) * dt;
    }
    SQ_CHECK(h, SQ_ERR_INTERNAL, "tile %d: neighbour tile %d lacks its LTS data", tile, nt);
    descr[NB_FIRST + s] = (struct starpu_data_descr){h, STARPU_R};
  }
  int ret = starpu_task_insert(&neighbor_cl, STARPU_CL_ARGS, a, args_size, STARPU_PRIORITY, priority,
                               SQ_TILE_PLACEMENT(rt, tile),
                               SQ_PROFILE(rt, SQ_TASK_NEIGHBOR, tile),
                               STARPU_DATA_MODE_ARRAY, descr, nbuf, 0);
  free(descr);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting neighbor task for tile %d failed (%d)", tile, ret);
  return SQ_SUCCESS;
}
