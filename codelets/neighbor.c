/**
 * @file neighbor.c  Codelet "neighbor": neighbour-flux update of one tile (thesis eq. 4.2).  The task
 * reads the data of every tile its faces touch -- the time-integrated DOFs of same-cluster tiles,
 * the accumulated buffers of faster ones, the derivatives of slower ones (§3.5) -- and that read
 * list is what lets StarPU order it after their predictors, with no explicit barrier.
 */
#include "sq_runtime_impl.h"
#ifdef SQ_USE_CUDA
#include "sq_cuda.h"
#endif

/*
 * Buffers: the reference matrices, then per tile i of the task (1 or 2: a merged task of neighbour
 * clusters, thesis §6.5.3) its flux matrices, links and dofs, then the neighbour slots of tile 0, then
 * those of tile 1.
 */
enum { NB_PACK, NB_TILE0 };
#define NB_FLUX(i)      (NB_TILE0 + 3 * (i))
#define NB_LINK(i)      (NB_TILE0 + 3 * (i) + 1)
#define NB_DOFS(i)      (NB_TILE0 + 3 * (i) + 2)
#define NB_SLOTS(ntile) (NB_TILE0 + 3 * (ntile))

/** Arguments: the step args, the tiles' slot counts and, per neighbour slot, the integration interval for derivatives.
 */
typedef struct neighbor_args {
  sq_step_args step;
  int ntile;
  int nslot[SQ_NEIGHBOR_MAX_TILES];
  double interval[]; /* sum of nslot x {t0, t1}, tile 0's slots first */
} neighbor_args;

static void neighbor_cpu(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const neighbor_args *a = cl_arg;
  for (int i = 0, s0 = 0; i < a->ntile; s0 += a->nslot[i++]) {
    const int ns = a->nslot[i];
    const void *nb_data[ns > 0 ? ns : 1];
    double t0[ns > 0 ? ns : 1], t1[ns > 0 ? ns : 1];
    for (int s = 0; s < ns; ++s) {
      nb_data[s] = (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_SLOTS(a->ntile) + s0 + s]);
      t0[s] = a->interval[2 * (s0 + s)];
      t1[s] = a->interval[2 * (s0 + s) + 1];
    }
    sq_kernel_neighbor(a->step.precision, a->step.order, STARPU_VECTOR_GET_NX(buffers[NB_DOFS(i)]),
                       (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_PACK]),
                       (const sq_face_link *)STARPU_VECTOR_GET_PTR(buffers[NB_LINK(i)]),
                       (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_FLUX(i)]), nb_data, t0, t1,
                       (void *)STARPU_VECTOR_GET_PTR(buffers[NB_DOFS(i)]));
  }
}

#ifdef SQ_USE_CUDA
/*
 * The slot table (device pointer and interval per neighbour tile) travels by value in the kernel's
 * parameters, so it holds at most SQ_CUDA_MAX_SLOTS entries: a task with a tile of more neighbour tiles
 * is refused by neighbor_can_execute on CUDA workers and runs on a CPU worker.  One launch per tile.
 */
static void neighbor_cuda(void *buffers[], void *cl_arg) {
  if (sq_runtime_cancelled()) return; /* a stop: the caller restores the state */
  const neighbor_args *a = cl_arg;
  for (int i = 0, s0 = 0; i < a->ntile; s0 += a->nslot[i++]) {
    sq_cuda_slots slots;
    slots.nslot = a->nslot[i];
    STARPU_ASSERT_MSG(slots.nslot <= SQ_CUDA_MAX_SLOTS, "neighbor task with %d slots on a CUDA worker", slots.nslot);
    for (int s = 0; s < slots.nslot; ++s) {
      slots.data[s] = (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_SLOTS(a->ntile) + s0 + s]);
      slots.t0[s] = a->interval[2 * (s0 + s)];
      slots.t1[s] = a->interval[2 * (s0 + s) + 1];
    }
    sq_cuda_neighbor(a->step.precision, a->step.order, STARPU_VECTOR_GET_NX(buffers[NB_DOFS(i)]),
                     (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_PACK]),
                     (const sq_face_link *)STARPU_VECTOR_GET_PTR(buffers[NB_LINK(i)]),
                     (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_FLUX(i)]), &slots,
                     (void *)STARPU_VECTOR_GET_PTR(buffers[NB_DOFS(i)]), starpu_cuda_get_local_stream());
  }
}

static int neighbor_can_execute(unsigned workerid, struct starpu_task *task, unsigned nimpl) {
  (void)nimpl;
  if (starpu_worker_get_type((int)workerid) != STARPU_CUDA_WORKER) return 1;
  const neighbor_args *a = task->cl_arg;
  for (int i = 0; i < a->ntile; ++i)
    if (a->nslot[i] > SQ_CUDA_MAX_SLOTS) return 0;
  return 1;
}
#endif

/* The size as for ader (sq_perf_size_key): the elements of the task's tiles */
static size_t neighbor_size(struct starpu_task *task, unsigned nimpl) {
  (void)nimpl;
  const neighbor_args *a = task->cl_arg;
  int64_t n = 0;
  for (int i = 0; i < a->ntile; ++i) n += (int64_t)starpu_vector_get_nx(STARPU_TASK_GET_HANDLE(task, NB_DOFS(i)));
  return sq_perf_size_key(n, a->step.order, a->step.precision);
}

/*
 * The cost of a neighbour task follows the size of its own tiles, not the sizes of the tiles it reads.
 * StarPU's default footprint hashes every buffer's size, so each distinct neighbour set would need its
 * own calibration (about ten runs on every kind of worker) before dmda/dmdas trust the model: one
 * footprint per tile size (per pair of sizes for a merged task) instead.
 */
static uint32_t neighbor_footprint(struct starpu_task *task) {
  const neighbor_args *a = task->cl_arg;
  uint32_t f = sq_footprint_of_buffer(task, NB_DOFS(0));
  for (int i = 1; i < a->ntile; ++i) f = starpu_hash_crc32c_be(sq_footprint_of_buffer(task, NB_DOFS(i)), f);
  return sq_perf_footprint(f, neighbor_size(task, 0)); /* the order and precision too */
}

static struct starpu_perfmodel neighbor_model = {
    .type = STARPU_HISTORY_BASED, .symbol = "sq_neighbor", .footprint = neighbor_footprint, .size_base = neighbor_size};

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

int sq_insert_neighbors(sq_runtime *rt, int ntile, const int *tiles, const double *dt, const int *substep,
                        int priority) {
  const sq_disc *d = rt->disc;
  SQ_CHECK(ntile >= 1 && ntile <= SQ_NEIGHBOR_MAX_TILES, SQ_ERR_INTERNAL, "neighbor task of %d tiles", ntile);
  int nslot = 0;
  for (int i = 0; i < ntile; ++i) nslot += d->tile[tiles[i]].nneighbor;
  const int nbuf = NB_SLOTS(ntile) + nslot;
  const size_t args_size = sizeof(neighbor_args) + 2 * sizeof(double) * (size_t)nslot;
  struct starpu_data_descr *descr = malloc(sizeof(*descr) * (size_t)nbuf);
  neighbor_args *a = malloc(args_size);
  if (!descr || !a) {
    free(descr);
    free(a);
    SQ_CHECK(0, SQ_ERR_MEMORY, "out of memory");
  }
  a->step = (sq_step_args){.precision = d->opt.precision, .order = d->opt.order, .dt = dt[0]};
  a->ntile = ntile;
  descr[NB_PACK] = (struct starpu_data_descr){rt->pack, STARPU_R};
  int ierr = SQ_SUCCESS;
  for (int i = 0, s0 = 0; i < ntile; s0 += a->nslot[i++]) {
    const int tile = tiles[i];
    const sq_tile *tl = &d->tile[tile];
    a->nslot[i] = tl->nneighbor;
    descr[NB_FLUX(i)] = (struct starpu_data_descr){rt->flux_nb[tile], STARPU_R};
    descr[NB_LINK(i)] = (struct starpu_data_descr){rt->link[tile], STARPU_R};
    descr[NB_DOFS(i)] = (struct starpu_data_descr){rt->dofs[tile], STARPU_RW};
    for (int s = 0; s < tl->nneighbor; ++s) {
      const int nt = tl->neighbor[s], lnb = d->tile[nt].cluster;
      const starpu_data_handle_t h = sq_neighbour_handle(rt, tl->cluster, nt);
      double *iv = a->interval + 2 * (s0 + s);
      iv[0] = iv[1] = 0.0;
      if (sq_neighbour_reads(tl->cluster, lnb) == SQ_READS_DERIVS) { /* over our sub-interval */
        iv[0] = substep[i] * dt[i];
        iv[1] = (substep[i] + 1) * dt[i];
      }
      if (!h) {
        ierr = sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__, "tile %d: neighbour tile %d lacks its LTS data", tile, nt);
        break;
      }
      descr[NB_SLOTS(ntile) + s0 + s] = (struct starpu_data_descr){h, STARPU_R};
    }
    if (ierr) break;
  }
  int ret = ierr ? 0
                 : starpu_task_insert(&neighbor_cl, STARPU_CL_ARGS, a, args_size, STARPU_PRIORITY, priority,
                                      SQ_TILE_PLACEMENT(rt, tiles[0]), SQ_PROFILE(rt, SQ_TASK_NEIGHBOR, tiles[0]),
                                      STARPU_DATA_MODE_ARRAY, descr, nbuf, 0);
  free(descr);
  if (ierr) {
    free(a);
    return ierr;
  }
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting neighbor task for tile %d failed (%d)", tiles[0], ret);
  return SQ_SUCCESS;
}

int sq_insert_neighbor(sq_runtime *rt, int tile, double dt, int substep, int priority) {
  return sq_insert_neighbors(rt, 1, &tile, &dt, &substep, priority);
}
