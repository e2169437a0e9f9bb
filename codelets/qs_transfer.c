/**
 * @file qs_transfer.c  Codelets of the quasi-static solver's transfers between the P2 mesh and its P1 coarse mesh
 * (src/qs_mesh.c): "qs_restrict" (r_c = P^T r over a block of vertices, a gather through each vertex's edges) and
 * "qs_prolong" (z = P z_c over a block of P2 nodes).  Each task writes its own block of the output.  CPU bodies
 * and CUDA bodies (src/cuda/qs_cuda.cu) on the same buffers.
 */
#include <stdlib.h>

#include "sq_qs.h"
#include "sq_runtime_impl.h"

#ifdef SQ_USE_CUDA
#include "sq_cuda_qs.h"
#endif

enum { QS_RES_PTR, QS_RES_EDGE, QS_RES_R, QS_RES_RC, QS_RES_NBUF };
enum { QS_PRO_EDGE_VERT, QS_PRO_ZC, QS_PRO_Z, QS_PRO_NBUF };

static void qs_restrict_cpu(void *buffers[], void *cl_arg) {
  const sq_qs_transfer_args *a = cl_arg;
  sq_qs_restrict_range_f32_multi(
      a->nvert, (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_RES_PTR]),
      (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_RES_EDGE]), a->nvec > 1 ? a->nvec : 1, a->first, a->end,
      (const float *)STARPU_VECTOR_GET_PTR(buffers[QS_RES_R]), (float *)STARPU_VECTOR_GET_PTR(buffers[QS_RES_RC]));
}

static void qs_prolong_cpu(void *buffers[], void *cl_arg) {
  const sq_qs_transfer_args *a = cl_arg;
  sq_qs_prolong_range_f32_multi(a->nvert, (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_PRO_EDGE_VERT]),
                                a->nvec > 1 ? a->nvec : 1, a->first, a->end,
                                (const float *)STARPU_VECTOR_GET_PTR(buffers[QS_PRO_ZC]),
                                (float *)STARPU_VECTOR_GET_PTR(buffers[QS_PRO_Z]));
}

#ifdef SQ_USE_CUDA
static void qs_restrict_cuda(void *buffers[], void *cl_arg) {
  const sq_qs_transfer_args *a = cl_arg;
  sq_cuda_qs_restrict(SQ_F32, a->nvec > 1 ? a->nvec : 1, a->nvert,
                      (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_RES_PTR]),
                      (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_RES_EDGE]), a->first, a->end,
                      (const void *)STARPU_VECTOR_GET_PTR(buffers[QS_RES_R]),
                      (void *)STARPU_VECTOR_GET_PTR(buffers[QS_RES_RC]), starpu_cuda_get_local_stream());
}

static void qs_prolong_cuda(void *buffers[], void *cl_arg) {
  const sq_qs_transfer_args *a = cl_arg;
  sq_cuda_qs_prolong(SQ_F32, a->nvec > 1 ? a->nvec : 1, a->nvert,
                     (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[QS_PRO_EDGE_VERT]), a->first, a->end,
                     (const void *)STARPU_VECTOR_GET_PTR(buffers[QS_PRO_ZC]),
                     (void *)STARPU_VECTOR_GET_PTR(buffers[QS_PRO_Z]), starpu_cuda_get_local_stream());
}
#endif

static struct starpu_perfmodel qs_restrict_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_qs_restrict"};
static struct starpu_codelet qs_restrict_cl = {
    .cpu_funcs = {qs_restrict_cpu},
    .cpu_funcs_name = {"qs_restrict_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {qs_restrict_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = QS_RES_NBUF,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &qs_restrict_model,
    .name = "sq_qs_restrict",
};

static struct starpu_perfmodel qs_prolong_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_qs_prolong"};
static struct starpu_codelet qs_prolong_cl = {
    .cpu_funcs = {qs_prolong_cpu},
    .cpu_funcs_name = {"qs_prolong_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {qs_prolong_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = QS_PRO_NBUF,
    .modes = {STARPU_R, STARPU_R, STARPU_W},
    .model = &qs_prolong_model,
    .name = "sq_qs_prolong",
};

int sq_insert_qs_restrict(sq_qs_runtime *qr, int64_t v0, int64_t v1, starpu_data_handle_t r,
                          starpu_data_handle_t rc_part) {
  return sq_insert_qs_restrict_multi(qr, 1, v0, v1, r, rc_part);
}

int sq_insert_qs_restrict_multi(sq_qs_runtime *qr, int nvec, int64_t v0, int64_t v1, starpu_data_handle_t r,
                                starpu_data_handle_t rc_part) {
  sq_qs_transfer_args *a = malloc(sizeof(*a)); /* StarPU frees it */
  SQ_CHECK(a, SQ_ERR_MEMORY, "out of memory");
  *a = (sq_qs_transfer_args){.nvert = qr->qm->nvert, .first = v0, .end = v1, .nvec = nvec};
  const int ret = starpu_task_insert(&qs_restrict_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_R, qr->vert_edge_ptr,
                                     STARPU_R, qr->vert_edge, STARPU_R, r, STARPU_W, rc_part, 0);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting the restriction task of vertices [%lld, %lld) failed (%d)",
           (long long)v0, (long long)v1, ret);
  ++qr->ntransfer;
  return SQ_SUCCESS;
}

int sq_insert_qs_prolong(sq_qs_runtime *qr, int64_t n0, int64_t n1, starpu_data_handle_t zc,
                         starpu_data_handle_t z_part) {
  return sq_insert_qs_prolong_multi(qr, 1, n0, n1, zc, z_part);
}

int sq_insert_qs_prolong_multi(sq_qs_runtime *qr, int nvec, int64_t n0, int64_t n1, starpu_data_handle_t zc,
                               starpu_data_handle_t z_part) {
  sq_qs_transfer_args *a = malloc(sizeof(*a)); /* StarPU frees it */
  SQ_CHECK(a, SQ_ERR_MEMORY, "out of memory");
  *a = (sq_qs_transfer_args){.nvert = qr->qm->nvert, .first = n0, .end = n1, .nvec = nvec};
  const int ret = starpu_task_insert(&qs_prolong_cl, STARPU_CL_ARGS, a, sizeof(*a), STARPU_R, qr->edge_vert, STARPU_R,
                                     zc, STARPU_W, z_part, 0);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting the prolongation task of nodes [%lld, %lld) failed (%d)", (long long)n0,
           (long long)n1, ret);
  ++qr->ntransfer;
  return SQ_SUCCESS;
}
