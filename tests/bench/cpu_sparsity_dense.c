/**
 * @file cpu_sparsity_dense.c  For tests/bench/starquake-proxy-dense only: the element kernels' default entry points
 * (sq_kernel_ader, sq_kernel_local, sq_kernel_neighbor, sq_kernel_ader_ane), which the codelets call, run the dense
 * reference plan (SQ_GEMM_DENSE) instead of the sparse one (SQ_GEMM_BEST).  That program is linked with
 * -Wl,--wrap=NAME for each of them (tests/Makefile.am): every call of NAME in the libraries goes to __wrap_NAME
 * here, so its StarPU tasks measure the dense formulation with everything else the same
 * (tests/bench/cpu_sparsity_workers.sh).
 */
#include <stdio.h>

#include "sq_kernels.h"

void __wrap_sq_kernel_ader(sq_precision prec, int order, int64_t n, const void *pack, const void *dofs,
                           const void *star, double dt, void *tint, void *derivs);
void __wrap_sq_kernel_local(sq_precision prec, int order, int64_t n, const void *pack, const void *tint,
                            const void *star, const void *flux_local, void *dofs);
void __wrap_sq_kernel_neighbor(sq_precision prec, int order, int64_t n, const void *pack, const sq_face_link *links,
                               const void *flux_nb, const void *const *nb_data, const double *nb_t0,
                               const double *nb_t1, void *dofs);
void __wrap_sq_kernel_ader_ane(sq_precision prec, int order, int nmech, int64_t n, const void *pack, const void *dofs,
                               const void *star, const void *coef, double dt, void *tint, void *derivs, void *ane);

void __wrap_sq_kernel_ader(sq_precision prec, int order, int64_t n, const void *pack, const void *dofs,
                           const void *star, double dt, void *tint, void *derivs) {
  sq_kernel_ader_impl(SQ_GEMM_DENSE, prec, order, n, pack, dofs, star, dt, tint, derivs);
}
void __wrap_sq_kernel_local(sq_precision prec, int order, int64_t n, const void *pack, const void *tint,
                            const void *star, const void *flux_local, void *dofs) {
  sq_kernel_local_impl(SQ_GEMM_DENSE, prec, order, n, pack, tint, star, flux_local, dofs);
}
void __wrap_sq_kernel_neighbor(sq_precision prec, int order, int64_t n, const void *pack, const sq_face_link *links,
                               const void *flux_nb, const void *const *nb_data, const double *nb_t0,
                               const double *nb_t1, void *dofs) {
  sq_kernel_neighbor_impl(SQ_GEMM_DENSE, prec, order, n, pack, links, flux_nb, nb_data, nb_t0, nb_t1, dofs);
}
void __wrap_sq_kernel_ader_ane(sq_precision prec, int order, int nmech, int64_t n, const void *pack, const void *dofs,
                               const void *star, const void *coef, double dt, void *tint, void *derivs, void *ane) {
  sq_kernel_ader_ane_impl(SQ_GEMM_DENSE, prec, order, nmech, n, pack, dofs, star, coef, dt, tint, derivs, ane);
}

/* say so in the program's output, before its own lines */
static void __attribute__((constructor)) announce(void) {
  printf("# element kernels: the dense reference plan (SQ_GEMM_DENSE), linked in by --wrap\n");
}
