/**
 * @file sq_plasticity.h  Off-fault Drucker-Prager plasticity with viscoplastic relaxation (thesis §2.4,
 * eq. 2.27-2.34), applied on a nodal basis per element (thesis ch. 8, eq. 8.2-8.3).
 *
 * Conventions:
 * - Stresses in Voigt order (s_xx, s_yy, s_zz, s_xy, s_yz, s_xz), compression negative.  The yield
 *   check and the return mapping act on the TOTAL stress: wave stress (the dofs) + initial stress, both
 *   at the element's nodal points (the initial stress is given per nodal point, in the working precision).
 * - Element dofs are B x 9, quantity-major (quantity p of basis k at [p*B + k]); only the 6 stress
 *   columns change.
 * - Plastic strain per element: 7 doubles, (e_xx, e_yy, e_zz, e_xy, e_yz, e_xz, eta).  The e_ij are
 *   tensor components (not engineering shear).  They accumulate the element average of the plastic
 *   strain increment de_ij = -ds_ij / (2 mu) (eq. 2.33), taken as the mean mode of the interpolated
 *   nodal increments (exact cell average of the projected correction, so it matches the change of the
 *   cell-average stress; at low order a correction confined to a few vertex nodes can have a cell mean
 *   of the opposite sign, as vertex Lagrange functions have negative mean).  eta accumulates
 *   sqrt(1/2 de_ij de_ij) over the full tensor of those averaged increments (as SeisSol does), i.e.
 *   sqrt(1/2 (de_xx^2 + de_yy^2 + de_zz^2) + de_xy^2 + de_yz^2 + de_xz^2).
 * - Parameters are validated once at set-up (sq_plasticity_check_params); the kernels trust them.
 */
#ifndef SQ_PLASTICITY_H
#define SQ_PLASTICITY_H

#include "sq_common.h"

/**
 * Reference nodal data for one order.  Nodes: the recursive Lobatto-Gauss-Legendre nodes of
 * T. Isaac (SISC 2020) on the reference tet v0=(0,0,0), v1=(1,0,0), v2=(0,1,0), v3=(0,0,1): they contain
 * the vertices, LGL points on the edges, and are fully symmetric; Lebesgue constant 7.2 at O=7
 * (equispaced: 13.6).  Matrices column-major B x B, entry (row i, column k) at [i + k*B]:
 * V(i,k) = psi_k(node_i) maps modal to nodal values (eq. 8.2), Vinv = V^-1 maps back (eq. 8.3).
 */
typedef struct sq_plasticity_ref {
  int order;       /**< convergence order O */
  int nbasis;      /**< B = number of nodes = number of basis functions */
  double *node;    /**< B x 3 reference coordinates, point-major */
  double *V;       /**< Vandermonde, double */
  double *Vinv;    /**< inverse Vandermonde, double */
  float *V_f32;    /**< V rounded to single precision */
  float *Vinv_f32; /**< Vinv rounded to single precision */
  double psi0;     /**< value of the constant basis function: cell average = psi0 * coefficient 0 */
  double cond1;    /**< 1-norm condition number ||V||_1 ||Vinv||_1 */
} sq_plasticity_ref;

/**
 * @brief Build the nodes, V and Vinv for @p order (SQ_ORDER_MIN..SQ_ORDER_MAX).
 * @return SQ_SUCCESS, SQ_ERR_INPUT for an unsupported order, SQ_ERR_NUMERIC if V is singular,
 *         SQ_ERR_MEMORY.
 */
int sq_plasticity_ref_create(int order, sq_plasticity_ref **ref);
/** @brief Free everything from sq_plasticity_ref_create (NULL is fine). */
void sq_plasticity_ref_destroy(sq_plasticity_ref *ref);

/**
 * @brief Validate material parameters: cohesion >= 0, bulk_friction >= 0, tv >= 0, all finite.
 * @param why  receives a message naming the offending parameter and its value (may be NULL)
 * @return SQ_SUCCESS or SQ_ERR_INPUT (nothing is printed; the caller adds its context).
 */
int sq_plasticity_check_params(double cohesion, double bulk_friction, double tv, char *why, size_t len);

/**
 * @brief Point-wise viscoplastic return mapping in double (eq. 2.28, 2.31, 2.33, 2.34).
 * With s_m = tr/3, deviator s_ij, tau = sqrt(J2) (eq. 2.27), tau_c = max(0, C cos(phi) - s_m sin(phi)),
 * phi = atan(bulk_friction): if tau > tau_c the deviator is scaled by
 * r = 1 - (1 - exp(-dt/tv)) (1 - tau_c/tau)  (tv = 0: r = tau_c/tau); the mean stress is kept.
 * @param stress      total stress (6)
 * @param stress_out  corrected stress (6), may alias @p stress
 * @param strain_inc  plastic strain increment (7: de_ij = (s_old - s_new)/(2 mu), then eta increment); may be NULL
 * @return 1 if the point yields, 0 otherwise (then stress_out = stress, strain_inc = 0).
 */
int sq_plasticity_point(const double stress[6], double cohesion, double bulk_friction, double tv, double dt, double mu,
                        double stress_out[6], double strain_inc[7]);

/**
 * @brief Write the initial stress @p stress (6, Voigt) at nodal point @p node (0..B-1; < 0: at every node) of
 * an element's nodal initial stress @p nodal (6 x B, quantity-major: component p of node i at [p*B + i],
 * like the stress columns of the dofs), rounded to precision @p prec.
 */
void sq_plasticity_stress_set(sq_precision prec, int B, void *nodal, int node, const double stress[6]);
/** @brief Read the initial stress at nodal point @p node of @p nodal (see sq_plasticity_stress_set). */
void sq_plasticity_stress_get(sq_precision prec, int B, const void *nodal, int node, double stress[6]);

/**
 * @brief Plasticity correction of one element in working precision @p prec.
 * Nodal stress = V S + initial stress at the nodes (eq. 8.2); if no node yields nothing is touched and 0 is
 * returned.  Otherwise the nodal correction is projected back with Vinv (eq. 8.3), added to the 6 stress
 * columns of @p dofs, the element plastic strain is accumulated into @p plastic_strain, and 1 is returned.
 * @param dofs            B x 9 element dofs (double or float per @p prec)
 * @param initial_stress  the element's initial stress at its B nodal points (6 x B in @p prec, see
 *                        sq_plasticity_stress_set)
 * @param plastic_strain  7 accumulators (see file doc)
 */
int sq_plasticity_element(sq_precision prec, const sq_plasticity_ref *ref, void *dofs, const void *initial_stress,
                          double cohesion, double bulk_friction, double tv, double dt, double mu,
                          double plastic_strain[7]);

/**
 * @brief sq_plasticity_element over @p n consecutive elements.
 * @param initial_stress n x 6 x B in @p prec;  @param params n x 3 (cohesion, bulk_friction, tv);  @param mu n
 * @param plastic_strain n x 7;  @param yielded n flags (0/1), may be NULL
 * @return the number of yielding elements.
 */
int64_t sq_plasticity_tile(sq_precision prec, const sq_plasticity_ref *ref, int64_t n, void *dofs,
                           const void *initial_stress, const double *params, const double *mu, double dt,
                           double *plastic_strain, uint8_t *yielded);

#endif
