/**
 * @file neighbor.c  Codelet "neighbor": neighbour-flux update of one tile (thesis eq. 4.2).  The task
 * reads the time-integrated DOFs of every tile its faces touch; that read list is what lets StarPU
 * order it after those tiles' predictors, with no explicit barrier.
 */
#include "sq_codelets.h"

/* Fixed buffers before the variable list of neighbour tiles. */
enum { NB_PACK, NB_FLUX, NB_LINK, NB_DOFS, NB_FIRST };

static void neighbor_cpu(void *buffers[], void *cl_arg) {
  const sq_step_args *a = cl_arg;
  const unsigned nbuf = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current());
  const void *nb_data[nbuf];
  for (unsigned s = NB_FIRST; s < nbuf; ++s) nb_data[s - NB_FIRST] = (const void *)STARPU_VECTOR_GET_PTR(buffers[s]);
  sq_kernel_neighbor(a->precision, a->order, STARPU_VECTOR_GET_NX(buffers[NB_DOFS]),
                     (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_PACK]),
                     (const sq_face_link *)STARPU_VECTOR_GET_PTR(buffers[NB_LINK]),
                     (const void *)STARPU_VECTOR_GET_PTR(buffers[NB_FLUX]), nb_data, NULL, NULL,
                     (void *)STARPU_VECTOR_GET_PTR(buffers[NB_DOFS]));
}

static struct starpu_perfmodel neighbor_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_neighbor"};

static struct starpu_codelet neighbor_cl = {
    .cpu_funcs = {neighbor_cpu},
    .cpu_funcs_name = {"neighbor_cpu"},
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &neighbor_model,
    .name = "sq_neighbor",
};

int sq_insert_neighbor(sq_runtime *rt, int tile, int priority) {
  const sq_tile *tl = &rt->disc->tile[tile];
  const int nbuf = NB_FIRST + tl->nneighbor;
  struct starpu_data_descr *descr = malloc(sizeof(*descr) * nbuf);
  sq_step_args *a = malloc(sizeof(*a));
  SQ_CHECK(descr && a, SQ_ERR_MEMORY, "out of memory");
  a->precision = rt->disc->opt.precision;
  a->order = rt->disc->opt.order;
  a->dt = 0.0;
  descr[NB_PACK] = (struct starpu_data_descr){.handle = rt->pack, .mode = STARPU_R};
  descr[NB_FLUX] = (struct starpu_data_descr){.handle = rt->flux_nb[tile], .mode = STARPU_R};
  descr[NB_LINK] = (struct starpu_data_descr){.handle = rt->link[tile], .mode = STARPU_R};
  descr[NB_DOFS] = (struct starpu_data_descr){.handle = rt->dofs[tile], .mode = STARPU_RW};
  for (int s = 0; s < tl->nneighbor; ++s)
    descr[NB_FIRST + s] = (struct starpu_data_descr){.handle = rt->tint[tl->neighbor[s]], .mode = STARPU_R};
  int ret = starpu_task_insert(&neighbor_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_PRIORITY, priority,
                               STARPU_DATA_MODE_ARRAY, descr, nbuf, 0);
  free(descr);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting neighbor task for tile %d failed (%d)", tile, ret);
  return SQ_SUCCESS;
}
