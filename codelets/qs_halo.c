/**
 * @file qs_halo.c  Codelets of the quasi-static solver's exchange between MPI ranks (runtime/qs_comm.c):
 * "qs_pack" gathers the values of the nodes shared with one peer into its send buffer, "qs_sum" adds the peers'
 * received values and this rank's at every shared node in rank order (src/qs_part.c).  The StarPU-MPI transfers
 * between them follow the halo exchange of runtime/halo.c (pack task, starpu_mpi_isend_detached,
 * starpu_mpi_irecv_detached, a task reading the received handles).  CPU bodies only: the solver's vectors live in
 * host memory between products.
 */
#include <stdlib.h>

#include "sq_qs_part.h"
#include "sq_runtime_impl.h"

enum { QS_PACK_Y, QS_PACK_BUF, QS_PACK_NBUF };

static void qs_pack_cpu(void *buffers[], void *cl_arg) {
  const sq_qs_halo_args *a = cl_arg;
  sq_qs_part_pack(a->part, a->peer, a->p1, a->nval, a->f32, (const void *)STARPU_VECTOR_GET_PTR(buffers[QS_PACK_Y]),
                  (void *)STARPU_VECTOR_GET_PTR(buffers[QS_PACK_BUF]));
}

/* buffers: y, then the received values of each peer */
static void qs_sum_cpu(void *buffers[], void *cl_arg) {
  const sq_qs_halo_args *a = cl_arg;
  const void *recv[a->part->npeer > 0 ? a->part->npeer : 1];
  for (int k = 0; k < a->part->npeer; ++k) recv[k] = (const void *)STARPU_VECTOR_GET_PTR(buffers[1 + k]);
  sq_qs_part_sum(a->part, a->p1, a->nval, a->f32, (void *)STARPU_VECTOR_GET_PTR(buffers[0]), recv, a->acc);
}

static struct starpu_perfmodel qs_pack_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_qs_pack"};
static struct starpu_codelet qs_pack_cl = {
    .cpu_funcs = {qs_pack_cpu},
    .cpu_funcs_name = {"qs_pack_cpu"},
    .nbuffers = QS_PACK_NBUF,
    .modes = {STARPU_R, STARPU_W},
    .model = &qs_pack_model,
    .name = "sq_qs_pack",
};

static struct starpu_perfmodel qs_sum_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_qs_sum"};
static struct starpu_codelet qs_sum_cl = {
    .cpu_funcs = {qs_sum_cpu},
    .cpu_funcs_name = {"qs_sum_cpu"},
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &qs_sum_model,
    .name = "sq_qs_sum",
};

int sq_insert_qs_pack(const sq_qs_halo_args *args, starpu_data_handle_t y, starpu_data_handle_t buf) {
  sq_qs_halo_args *a = malloc(sizeof(*a)); /* StarPU frees it */
  SQ_CHECK(a, SQ_ERR_MEMORY, "out of memory");
  *a = *args;
  const int ret = starpu_task_insert(&qs_pack_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_R, y, STARPU_W, buf,
                                     STARPU_PRIORITY, STARPU_MAX_PRIO, 0);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting the pack task for rank %d failed (%d)", args->part->peer[args->peer],
           ret);
  return SQ_SUCCESS;
}

int sq_insert_qs_sum(const sq_qs_halo_args *args, starpu_data_handle_t y, const starpu_data_handle_t *recv) {
  const int np = args->part->npeer;
  struct starpu_data_descr *d = malloc(sizeof(*d) * (size_t)(np + 1));
  sq_qs_halo_args *a = malloc(sizeof(*a)); /* StarPU frees it */
  if (!d || !a) {
    free(d);
    free(a);
    return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory");
  }
  *a = *args;
  d[0] = (struct starpu_data_descr){.handle = y, .mode = STARPU_RW};
  for (int k = 0; k < np; ++k) d[1 + k] = (struct starpu_data_descr){.handle = recv[k], .mode = STARPU_R};
  const int ret = starpu_task_insert(&qs_sum_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_DATA_MODE_ARRAY, d, np + 1,
                                     STARPU_PRIORITY, STARPU_MAX_PRIO, 0);
  free(d);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting the sum task of the shared nodes failed (%d)", ret);
  return SQ_SUCCESS;
}
