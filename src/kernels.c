/** @file kernels.c  The element kernels' precision dispatchers (sq_kernels.h) over kernels_f32.c and kernels_f64.c. */
#include "kernels_entry.h"

/* The entry point `name` of precision `prec`. */
#define SQ_BY_PRECISION(prec, name) ((prec) == SQ_F64 ? sq_internal_##name##_entry_f64 : sq_internal_##name##_entry_f32)

const char *sq_kernel_gemm_name(sq_precision prec) { return SQ_BY_PRECISION(prec, gemm_name)(); }

void sq_kernel_flops(sq_gemm_impl impl, sq_precision prec, int order, double f[3]) {
  SQ_BY_PRECISION(prec, flops)(impl, order, f);
}

int sq_kernel_pack(const sq_ref *ref, sq_precision prec, void **pack, size_t *bytes) {
  const size_t nb = (size_t)SQ_PACK_NMAT * ref->nbasis * ref->nbasis;
  *bytes = nb * sq_real_size(prec);
  void *buf;
  SQ_CALL(sq_calloc_aligned(&buf, nb, sq_real_size(prec)));
  SQ_BY_PRECISION(prec, pack)(ref, buf);
  (void)sq_kernel_gemm_name(prec); /* JIT the products now, not inside the first task */
  *pack = buf;
  return SQ_SUCCESS;
}

void sq_kernel_ader_impl(sq_gemm_impl impl, sq_precision prec, int order, int64_t n, const void *pack, const void *dofs,
                         const void *star, double dt, void *tint, void *derivs) {
  SQ_BY_PRECISION(prec, ader)(impl, order, n, pack, dofs, star, dt, tint, derivs);
}

void sq_kernel_local_impl(sq_gemm_impl impl, sq_precision prec, int order, int64_t n, const void *pack,
                          const void *tint, const void *star, const void *flux_local, void *dofs) {
  SQ_BY_PRECISION(prec, local)(impl, order, n, pack, tint, star, flux_local, dofs);
}

void sq_kernel_neighbor_impl(sq_gemm_impl impl, sq_precision prec, int order, int64_t n, const void *pack,
                             const sq_face_link *links, const void *flux_nb, const void *const *nb_data,
                             const double *nb_t0, const double *nb_t1, void *dofs) {
  SQ_BY_PRECISION(prec, neighbor)(impl, order, n, pack, links, flux_nb, nb_data, nb_t0, nb_t1, dofs);
}

void sq_kernel_ader(sq_precision prec, int order, int64_t n, const void *pack, const void *dofs, const void *star,
                    double dt, void *tint, void *derivs) {
  sq_kernel_ader_impl(SQ_GEMM_BEST, prec, order, n, pack, dofs, star, dt, tint, derivs);
}

void sq_kernel_local(sq_precision prec, int order, int64_t n, const void *pack, const void *tint, const void *star,
                     const void *flux_local, void *dofs) {
  sq_kernel_local_impl(SQ_GEMM_BEST, prec, order, n, pack, tint, star, flux_local, dofs);
}

void sq_kernel_neighbor(sq_precision prec, int order, int64_t n, const void *pack, const sq_face_link *links,
                        const void *flux_nb, const void *const *nb_data, const double *nb_t0, const double *nb_t1,
                        void *dofs) {
  sq_kernel_neighbor_impl(SQ_GEMM_BEST, prec, order, n, pack, links, flux_nb, nb_data, nb_t0, nb_t1, dofs);
}

void sq_kernel_taylor(sq_precision prec, int order, int64_t n, const void *derivs, double t0, double t1, void *tint) {
  SQ_BY_PRECISION(prec, taylor)(order, n, derivs, t0, t1, tint);
}

void sq_kernel_accumulate(sq_precision prec, int order, int64_t n, const void *tint, int reset, void *buffer) {
  SQ_BY_PRECISION(prec, accumulate)(order, n, tint, reset, buffer);
}

void sq_kernel_ader_ane_impl(sq_gemm_impl impl, sq_precision prec, int order, int nmech, int64_t n, const void *pack,
                             const void *dofs, const void *star, const void *coef, double dt, void *tint, void *derivs,
                             void *ane) {
  SQ_BY_PRECISION(prec, ader_ane)(impl, order, nmech, n, pack, dofs, star, coef, dt, tint, derivs, ane);
}
void sq_kernel_ader_ane(sq_precision prec, int order, int nmech, int64_t n, const void *pack, const void *dofs,
                        const void *star, const void *coef, double dt, void *tint, void *derivs, void *ane) {
  sq_kernel_ader_ane_impl(SQ_GEMM_BEST, prec, order, nmech, n, pack, dofs, star, coef, dt, tint, derivs, ane);
}
void sq_kernel_ane_source(sq_precision prec, int order, int nmech, int64_t n, const void *ane, void *dofs) {
  SQ_BY_PRECISION(prec, ane_source)(order, nmech, n, ane, dofs);
}
void sq_kernel_ane_shift(sq_precision prec, int order, int nmech, int64_t n, const void *coef, const void *dofs,
                         int sign, void *ane) {
  SQ_BY_PRECISION(prec, ane_shift)(order, nmech, n, coef, dofs, sign, ane);
}
void sq_kernel_ane_coef(sq_precision prec, int64_t n, const double *coef, void *out) {
  SQ_BY_PRECISION(prec, ane_coef)(n, coef, out);
}
