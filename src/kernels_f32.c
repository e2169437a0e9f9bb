/** @file kernels_f32.c  Single-precision instantiation of kernels_impl.h. */
#include "sq_kernels.h"

#define SQ_MAXB9 (84 * 9)
#define SQ_REAL float
#define SQ_FN(name) sq_internal_##name##_f32
#define SQ_XSMM_FUNCTION libxsmm_smmfunction
#define SQ_XSMM_DISPATCH libxsmm_smmdispatch
#include "kernels_impl.h"

void sq_internal_ader_f32_entry(sq_gemm_impl, int, int64_t, const void *, const void *, const void *, double, void *,
                                void *);
void sq_internal_local_f32_entry(sq_gemm_impl, int, int64_t, const void *, const void *, const void *, const void *,
                                 void *);
void sq_internal_neighbor_f32_entry(sq_gemm_impl, int, int64_t, const void *, const sq_face_link *, const void *,
                                    const void *const *, const double *, const double *, void *);
void sq_internal_taylor_f32_entry(int, int64_t, const void *, double, double, void *);
void sq_internal_pack_f32_entry(const sq_ref *, void *);
void sq_internal_accumulate_f32_entry(int, int64_t, const void *, int, void *);
const char *sq_internal_gemm_name_f32_entry(void);

void sq_internal_ader_f32_entry(sq_gemm_impl impl, int order, int64_t n, const void *pack, const void *dofs,
                                const void *star, double dt, void *tint, void *derivs) {
  sq_internal_ader_f32(sq_internal_plan_get_f32(impl, order), order, n, pack, dofs, star, dt, tint, derivs);
}
void sq_internal_local_f32_entry(sq_gemm_impl impl, int order, int64_t n, const void *pack, const void *tint,
                                 const void *star, const void *flux_local, void *dofs) {
  sq_internal_local_f32(sq_internal_plan_get_f32(impl, order), order, n, pack, tint, star, flux_local, dofs);
}
void sq_internal_neighbor_f32_entry(sq_gemm_impl impl, int order, int64_t n, const void *pack,
                                    const sq_face_link *links, const void *flux_nb, const void *const *nb_data,
                                    const double *nb_t0, const double *nb_t1, void *dofs) {
  sq_internal_neighbor_f32(sq_internal_plan_get_f32(impl, order), order, n, pack, links, flux_nb, nb_data, nb_t0,
                           nb_t1, dofs);
}
void sq_internal_taylor_f32_entry(int order, int64_t n, const void *derivs, double t0, double t1, void *tint) {
  sq_internal_taylor_f32(order, n, derivs, t0, t1, tint);
}
void sq_internal_pack_f32_entry(const sq_ref *ref, void *out) { sq_internal_pack_f32(ref, out); }
void sq_internal_accumulate_f32_entry(int order, int64_t n, const void *tint, int reset, void *buffer) {
  sq_internal_accumulate_f32(order, n, tint, reset, buffer);
}
const char *sq_internal_gemm_name_f32_entry(void) { return sq_internal_gemm_name_f32(); }
