/** @file kernels_f64.c  Double-precision instantiation of kernels_impl.h plus the precision dispatchers. */
#include "sq_kernels.h"

#define SQ_MAXB9 (84 * 9)
#define SQ_REAL double
#define SQ_FN(name) sq_internal_##name##_f64
#define SQ_XSMM_FUNCTION libxsmm_dmmfunction
#define SQ_XSMM_DISPATCH libxsmm_dmmdispatch
#include "kernels_impl.h"
#undef SQ_REAL
#undef SQ_FN

/* single-precision entry points, instantiated in kernels_f32.c */
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

static int kernel_threads = 1;

void sq_kernel_set_threads(int nthreads) { kernel_threads = nthreads > 1 ? nthreads : 1; }

int sq_kernel_threads(void) { return kernel_threads; }

const char *sq_kernel_gemm_name(sq_precision prec) {
  return prec == SQ_F64 ? sq_internal_gemm_name_f64() : sq_internal_gemm_name_f32_entry();
}

int sq_kernel_pack(const sq_ref *ref, sq_precision prec, void **pack, size_t *bytes) {
  const size_t nb = (size_t)SQ_PACK_NMAT * ref->nbasis * ref->nbasis;
  *bytes = nb * sq_real_size(prec);
  void *buf;
  SQ_CALL(sq_calloc_aligned(&buf, nb, sq_real_size(prec)));
  if (prec == SQ_F64) sq_internal_pack_f64(ref, buf);
  else sq_internal_pack_f32_entry(ref, buf);
  (void)sq_kernel_gemm_name(prec); /* JIT the products now, not inside the first task */
  *pack = buf;
  return SQ_SUCCESS;
}

void sq_kernel_ader_impl(sq_gemm_impl impl, sq_precision prec, int order, int64_t n, const void *pack,
                         const void *dofs, const void *star, double dt, void *tint, void *derivs) {
  if (prec == SQ_F64)
    sq_internal_ader_f64(sq_internal_plan_get_f64(impl, order), order, n, pack, dofs, star, dt, tint, derivs);
  else sq_internal_ader_f32_entry(impl, order, n, pack, dofs, star, dt, tint, derivs);
}

void sq_kernel_local_impl(sq_gemm_impl impl, sq_precision prec, int order, int64_t n, const void *pack,
                          const void *tint, const void *star, const void *flux_local, void *dofs) {
  if (prec == SQ_F64)
    sq_internal_local_f64(sq_internal_plan_get_f64(impl, order), order, n, pack, tint, star, flux_local, dofs);
  else sq_internal_local_f32_entry(impl, order, n, pack, tint, star, flux_local, dofs);
}

void sq_kernel_neighbor_impl(sq_gemm_impl impl, sq_precision prec, int order, int64_t n, const void *pack,
                             const sq_face_link *links, const void *flux_nb, const void *const *nb_data,
                             const double *nb_t0, const double *nb_t1, void *dofs) {
  if (prec == SQ_F64)
    sq_internal_neighbor_f64(sq_internal_plan_get_f64(impl, order), order, n, pack, links, flux_nb, nb_data, nb_t0,
                             nb_t1, dofs);
  else sq_internal_neighbor_f32_entry(impl, order, n, pack, links, flux_nb, nb_data, nb_t0, nb_t1, dofs);
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
  if (prec == SQ_F64) sq_internal_taylor_f64(order, n, derivs, t0, t1, tint);
  else sq_internal_taylor_f32_entry(order, n, derivs, t0, t1, tint);
}

void sq_kernel_accumulate(sq_precision prec, int order, int64_t n, const void *tint, int reset, void *buffer) {
  if (prec == SQ_F64) sq_internal_accumulate_f64(order, n, tint, reset, buffer);
  else sq_internal_accumulate_f32_entry(order, n, tint, reset, buffer);
}
