/**
 * @file sq_kernels.h  Element kernels of the ADER-DG update (thesis eq. 3.33-3.35, 4.1-4.2), for a
 * contiguous block of elements, in single or double precision from one source (kernels_impl.h).
 *
 * Data layout, per element (all in the working precision):
 * - dofs, tint:  B x 9 column-major (basis index fastest): entry (k, p) at [k + p*B];
 * - derivs:      O blocks of B x 9 (time derivatives D^0..D^N, eq. 3.33), only where LTS needs them;
 * - star:        3 x 81, A*_e row-major (eq. 3.16);
 * - flux_local:  4 x 81, local flux solver of face j, scaled by |S_j|/|J| (eq. 3.11);
 * - flux_nb:     4 x 81, neighbour flux solver of face j, scaled by |S_j|/|J|.
 * A row-major 9x9 matrix A read column-major is A^T, so "X . Q . A^T" is one right-multiplication.
 *
 * Every kernel is a sequence of small column-major GEMMs (the star stage Q . A^T, then the stiffness
 * stage X . (Q A^T)), run by JIT kernels of libxsmm when configured (m4/sq_xsmm.m4), else by plain
 * C loops; see kernels_impl.h and docs/PERFORMANCE.md.
 */
#ifndef SQ_KERNELS_H
#define SQ_KERNELS_H

#include "sq_common.h"
#include "sq_ref.h"

/**
 * Reference matrices packed in one buffer: SQ_PACK_* are offsets in units of B x B reals (slots), each
 * slot one B x B column-major matrix.
 */
enum {
  SQ_PACK_KDER = 0,   /**< 3: M^-1 (int psi_l dpsi_k/dxi_e): time derivatives (eq. 3.33) */
  SQ_PACK_KVOL = 3,   /**< 3: M^-1 (int dpsi_l/dxi_e psi_k): volume term */
  SQ_PACK_FLOCAL = 6, /**< 4: M^-1 F^-_j */
  SQ_PACK_FNB = 10,   /**< 48: M^-1 F^+_{j,i,h}, index sq_ref_flux_index(j,i,h) */
  /* the flux matrices factored through the face basis (sq_ref: F^-_j = E_j E_j^T, F^+_{j,i,h} = E_j R_h^T E_i^T),
   * for the CPU's sparse kernels; each region holds its matrices back to back from its first slot */
  SQ_PACK_LIFT = 58,  /**< 4: [M^-1 E_1 .. M^-1 E_4], one B x 4Bf matrix */
  SQ_PACK_PROJ = 62,  /**< 4: [E_1^T; ..; E_4^T], one 4Bf x B matrix */
  SQ_PACK_RPROJ = 66, /**< 12: R_h^T E_i^T (Bf x B), one per slot, slot 3i + h */
  SQ_PACK_NMAT = 78
};

/** How a face reads its neighbour's data (LTS, thesis §3.5). */
enum sq_link_kind {
  SQ_LINK_NONE = 0,  /**< boundary face without neighbour */
  SQ_LINK_TINT = 1,  /**< neighbour's time-integrated DOFs over our own step (same cluster / accumulated buffer) */
  SQ_LINK_DERIVS = 2 /**< neighbour's derivatives: integrate over our sub-interval (slower neighbour) */
};

/** Per element and face: where the neighbour's data lives within the task's buffers. */
typedef struct sq_face_link {
  int32_t kind;  /**< enum sq_link_kind */
  int32_t flux;  /**< sq_ref_flux_index(j, i, h) of F^+ */
  int32_t slot;  /**< which neighbour buffer of the task */
  int32_t index; /**< element index within that buffer */
} sq_face_link;

/**
 * @brief Threads of the OpenMP team that shares the elements of each sq_kernel_ader, sq_kernel_local
 * and sq_kernel_neighbor call (default 1: the calling thread alone).  For a caller that owns several
 * cores, such as one CPU worker standing for a whole socket beside a GPU.  Elements are independent,
 * so the results are bitwise the same for any count.
 */
void sq_kernel_set_threads(int nthreads);
/** @brief The count set by sq_kernel_set_threads. */
int sq_kernel_threads(void);

/**
 * Implementation of the small products inside sq_kernel_ader, sq_kernel_local, sq_kernel_neighbor.  The sparse
 * ones apply the star matrices as their SQ_STAR_NNZ non-zeros and the stiffness matrices K_vol, K_der by their
 * non-zero blocks (kernels_impl.h); the dense one multiplies whole matrices.
 */
typedef enum sq_gemm_impl {
  SQ_GEMM_BEST = 0,  /**< sparse, libxsmm JIT kernels where configured and the host CPU has them, else plain C */
  SQ_GEMM_PLAIN = 1, /**< sparse, plain C loops (the reference that tests compare libxsmm against) */
  SQ_GEMM_DENSE = 2  /**< dense, as SQ_GEMM_BEST otherwise (the reference that the sparse kernels are tested and
                          measured against) */
} sq_gemm_impl;

/**
 * @brief What SQ_GEMM_BEST runs in precision @p prec, for reports: "libxsmm JIT (<arch>)", "plain C
 * (built without libxsmm)", or a mix if libxsmm declined some shapes.  Dispatches the JIT kernels
 * of every order on first use (as does sq_kernel_pack); thread-safe.
 */
const char *sq_kernel_gemm_name(sq_precision prec);

/**
 * @brief FLOPs per element update that @p impl executes at @p order (2 m n k per product as the kernels run them,
 * the Taylor terms of the predictor included): @p f[0] sq_kernel_ader, f[1] sq_kernel_local, f[2] sq_kernel_neighbor
 * with four faces and no Taylor integral.  With SQ_GEMM_DENSE this is the CPU model of docs/PERFORMANCE.md.
 */
void sq_kernel_flops(sq_gemm_impl impl, sq_precision prec, int order, double f[3]);

/**
 * @brief Pack the reference matrices of @p ref into a new buffer in precision @p prec, and make sure
 * the JIT kernels of @p prec are dispatched (once per process, at start-up rather than in a task).
 */
int sq_kernel_pack(const sq_ref *ref, sq_precision prec, void **pack, size_t *bytes);

/**
 * @brief ADER predictor: time derivatives by Cauchy-Kovalevski (eq. 3.33) and the time integral over
 * [0, dt] (eq. 3.34) for @p n elements.  @p derivs may be NULL; if given it receives D^0..D^N.
 */
void sq_kernel_ader(sq_precision prec, int order, int64_t n, const void *pack, const void *dofs, const void *star,
                    double dt, void *tint, void *derivs);

/**
 * @brief Volume and local-flux update: dofs += sum_e Kvol_e I A*_e^T - sum_j Flocal_j I Alocal_j^T.
 */
void sq_kernel_local(sq_precision prec, int order, int64_t n, const void *pack, const void *tint, const void *star,
                     const void *flux_local, void *dofs);

/**
 * @brief Neighbour-flux update: dofs -= sum_j Fnb_{j,i,h} I_nb Anb_j^T.
 * @param links  n x 4 face links; slot/index address @p nb_data
 * @param nb_data  per slot: base pointer of a neighbour buffer (tint, or derivs for SQ_LINK_DERIVS)
 * @param nb_t0, nb_t1 for SQ_LINK_DERIVS: integrate the neighbour's Taylor series over [nb_t0, nb_t1]
 *        measured from the neighbour's expansion time (one interval per slot)
 */
void sq_kernel_neighbor(sq_precision prec, int order, int64_t n, const void *pack, const sq_face_link *links,
                        const void *flux_nb, const void *const *nb_data, const double *nb_t0, const double *nb_t1,
                        void *dofs);

/** @brief sq_kernel_ader with the products run by @p impl (tests compare the implementations). */
void sq_kernel_ader_impl(sq_gemm_impl impl, sq_precision prec, int order, int64_t n, const void *pack, const void *dofs,
                         const void *star, double dt, void *tint, void *derivs);
/** @brief sq_kernel_local with the products run by @p impl. */
void sq_kernel_local_impl(sq_gemm_impl impl, sq_precision prec, int order, int64_t n, const void *pack,
                          const void *tint, const void *star, const void *flux_local, void *dofs);
/** @brief sq_kernel_neighbor with the products run by @p impl. */
void sq_kernel_neighbor_impl(sq_gemm_impl impl, sq_precision prec, int order, int64_t n, const void *pack,
                             const sq_face_link *links, const void *flux_nb, const void *const *nb_data,
                             const double *nb_t0, const double *nb_t1, void *dofs);

/** @brief LTS buffer (eq. 3.40): buffer = tint (@p reset) or buffer += tint, for @p n elements. */
void sq_kernel_accumulate(sq_precision prec, int order, int64_t n, const void *tint, int reset, void *buffer);

/** @brief Time integral over [t0, t1] of the Taylor series with derivatives D^0..D^N (eq. 3.34, 3.40). */
void sq_kernel_taylor(sq_precision prec, int order, int64_t n, const void *derivs, double t0, double t1, void *tint);

/**
 * @brief ADER predictor with viscoelastic attenuation (kernels_ane_impl.h): as sq_kernel_ader, with the
 * anelastic source terms of @p nmech mechanisms in the Cauchy-Kovalevski recursion (the derivatives are then
 * full polynomials), and the element-local update of the memory variables.
 * @param coef  n x SQ_ANE_NCOEF coefficients (sq_visco_coefficients) in the working precision
 * @param ane   n x B x 6 (nmech + 1): the memory variables phi_l (updated over [0, dt]) and, after the call,
 *              the time-integrated stress source that sq_kernel_ane_source applies
 */
void sq_kernel_ader_ane(sq_precision prec, int order, int nmech, int64_t n, const void *pack, const void *dofs,
                        const void *star, const void *coef, double dt, void *tint, void *derivs, void *ane);
/** @brief sq_kernel_ader_ane with the products run by @p impl. */
void sq_kernel_ader_ane_impl(sq_gemm_impl impl, sq_precision prec, int order, int nmech, int64_t n, const void *pack,
                             const void *dofs, const void *star, const void *coef, double dt, void *tint, void *derivs,
                             void *ane);
/** @brief The anelastic part of the local update: the stresses of @p dofs -= the source kept in @p ane. */
void sq_kernel_ane_source(sq_precision prec, int order, int nmech, int64_t n, const void *ane, void *dofs);
/**
 * @brief phi_l += @p sign C_u^-1 sigma(@p dofs) for every mechanism of @p n elements: +1 turns the stored phi_l into
 * theta_l, -1 back.  Around a stress change that leaves theta alone (the plastic correction), phi then moves by
 * -C_u^-1 times the change.
 */
void sq_kernel_ane_shift(sq_precision prec, int order, int nmech, int64_t n, const void *coef, const void *dofs,
                         int sign, void *ane);
/** @brief Convert @p n elements' SQ_ANE_NCOEF double coefficients to precision @p prec. */
void sq_kernel_ane_coef(sq_precision prec, int64_t n, const double *coef, void *out);

#endif
