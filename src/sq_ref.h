/**
 * @file sq_ref.h  Reference tetrahedron: Dubiner basis, collapsed Gauss-Jacobi quadrature and the
 * reference matrices of thesis eq. 3.23, all computed at start-up in double precision.
 *
 * Conventions (fixed for the whole code base):
 * - Reference tetrahedron v0=(0,0,0), v1=(1,0,0), v2=(0,1,0), v3=(0,0,1).
 * - Faces (SeisSol numbering), each listed with outward orientation:
 *   face0=(v0,v2,v1), face1=(v0,v1,v3), face2=(v0,v3,v2), face3=(v1,v2,v3).
 * - Face parametrisation: a point chi=(chi1,chi2) of the reference triangle (0,0),(1,0),(0,1) maps
 *   to xi = P0 + chi1 (P1-P0) + chi2 (P2-P0) with (P0,P1,P2) the face's vertices in the order above.
 * - Neighbour orientation h in {0,1,2}: the neighbour's face vertex 0 is our face vertex h.  Because
 *   both faces are listed outward, the neighbour sees the shared triangle reversed, so its vertices
 *   are (our h, our h-1, our h-2) modulo 3.  sq_ref_face_neighbor_chi() maps chi accordingly.
 * - Basis: orthogonal hierarchical Dubiner basis psi_k, k = 0..B-1, B = O(O+1)(O+2)/6, ordered by
 *   total degree (all degree-0, then degree-1, ... functions), so that the first B(d) functions
 *   span the polynomials of degree < d.  psi_0 is constant.  Normalised: the basis is orthonormal on the
 *   reference tet, so mass is all ones (well-scaled coefficients matter in single precision).
 * - Matrices are stored column-major, B x B: entry (l,k) at [l + k*B].
 */
#ifndef SQ_REF_H
#define SQ_REF_H

#include "sq_common.h"

/** Lowest and highest supported convergence orders O = N+1. */
#define SQ_ORDER_MIN 2
#define SQ_ORDER_MAX 7

/** Number of basis functions of order O: O(O+1)(O+2)/6. */
static inline int sq_nbasis(int order) { return order * (order + 1) * (order + 2) / 6; }
/** Number of face basis functions of order O (polynomials of degree <= O-1 on a triangle): O(O+1)/2. */
static inline int sq_nface_basis(int order) { return order * (order + 1) / 2; }

/** Reference data for one order, in double precision. */
typedef struct sq_ref {
  int order;  /**< O = N+1 */
  int nbasis; /**< B */
  /** Volume quadrature, exact for polynomials of degree 2*O+2 (enough for products of basis functions with the analytic
   * solution's errors). */
  int nvol;           /**< number of volume points */
  double *vol_point;  /**< nvol x 3, reference coordinates, point-major: point q is [3q..3q+2] */
  double *vol_weight; /**< nvol, sum = 1/6 */
  /** Triangle quadrature on the reference triangle, exact for degree 2*O+2. */
  int ntri;
  double *tri_point;  /**< ntri x 2, point-major: point q is [2q..2q+1] */
  double *tri_weight; /**< ntri, sum = 1/2 */
  double *mass;       /**< B, diagonal of M_kl = int psi_k psi_l */
  /** stiff[e](l,k) = int d(psi_l)/d(xi_e) psi_k dxi  (e = 0,1,2; the K^xi of eq. 3.23, volume term). */
  double *stiff[3];
  /** flux_local[j](l,k) = int_{ref tri} psi_l(xi^j(chi)) psi_k(xi^j(chi)) dchi  (F^-_j). */
  double *flux_local[4];
  /**
   * flux_neighbor[sq_ref_flux_index(j,i,h)](l,k) =
   *   int_{ref tri} psi_l(xi^j(chi)) psi_k(xi^i(chi'_h(chi))) dchi   (F^+_{j,i,h}, 48 matrices),
   * where i is the neighbour's face and chi'_h = sq_ref_face_neighbor_chi(h, chi).
   */
  double *flux_neighbor[48];
  /**
   * Factorisation of F^+ through a face basis theta_m, m = 0..Bf-1 (sq_face_basis_eval: orthonormal
   * for int dchi on the reference triangle, degree <= O-1).  Every psi_k(xi^i(chi)) has degree <= O-1
   * on the face, so it equals sum_m E_i(k,m) theta_m(chi), and
   *   F^+_{j,i,h} = E_j R_h^T E_i^T   exactly (up to rounding; tests/unit/test_ref.c checks it).
   */
  int nface_basis; /**< Bf = O(O+1)/2 */
  /** face_project[j](l,m) = int_{ref tri} psi_l(xi^j(chi)) theta_m(chi) dchi: B x Bf, column-major. */
  double *face_project[4];
  /**
   * face_rotate[h](m',m) = int_{ref tri} theta_m'(chi'_h(chi)) theta_m(chi) dchi: Bf x Bf, column-major;
   * theta_m'(chi'_h(chi)) = sum_m R_h(m',m) theta_m(chi), and R_h is orthogonal.
   */
  double *face_rotate[3];
} sq_ref;

/** Index of F^+_{j,i,h} in sq_ref.flux_neighbor. */
static inline int sq_ref_flux_index(int face, int nbface, int orient) { return (face * 4 + nbface) * 3 + orient; }

/**
 * @brief Build all reference data for @p order (SQ_ORDER_MIN..SQ_ORDER_MAX).
 * @return SQ_SUCCESS, SQ_ERR_INPUT for an unsupported order.
 */
int sq_ref_create(int order, sq_ref **ref);
/** Free everything from sq_ref_create (NULL is fine). */
void sq_ref_destroy(sq_ref *ref);

/**
 * @brief FLOPs per element update counted on non-zeros only: 2 per multiply-add whose reference-matrix entry
 * is non-zero (at most 1e-12 of the matrix's largest entry counts as zero: quadrature round-off), with the
 * star matrices' SQ_STAR_NNZ entries applied on the smaller side of each stiffness product, and the flux
 * matrices in their factored form through the face basis (F^-_j = E_j E_j^T, F^+_{j,i,h} = E_j R_h^T E_i^T,
 * the 9 x 9 flux solver applied to Bf face coefficients).  The least work of an element update: the ceiling
 * against which a kernel's rate is judged (docs/PERFORMANCE.md).
 * @param f f[0] ADER predictor, f[1] volume + local flux, f[2] neighbour flux (F^+ averaged over its 48 variants)
 */
void sq_ref_flops_nonzero(const sq_ref *ref, double f[3]);

/** @brief Evaluate all B basis functions of @p order at reference point @p xi into @p out[B]. */
void sq_basis_eval(int order, const double xi[3], double *out);
/**
 * @brief Evaluate the Bf = O(O+1)/2 face basis functions of @p order (1..SQ_ORDER_MAX) at reference-triangle point @p
 * chi into @p out[Bf]: the orthonormal Dubiner basis of the triangle, theta_{p,q} = sqrt((2p+1)(2p+2q+2)) P_p(a)
 * ((1-b)/2)^p P_q^{(2p+1,0)}(b),  a = 2 chi1/(1-chi2) - 1, b = 2 chi2 - 1, ordered by total degree (for d = 0..O-1: for
 * p = d..0: q = d-p), so that theta_0 is constant.
 */
void sq_face_basis_eval(int order, const double chi[2], double *out);
/** @brief Evaluate gradients: out[k*3+e] = d psi_k / d xi_e at @p xi (interior points). */
void sq_basis_grad(int order, const double xi[3], double *out);

/**
 * @brief Gauss-Jacobi rule with @p n points for weight (1-x)^alpha (1+x)^beta on [-1,1].
 * Exact for polynomials of degree 2n-1.  Nodes are ascending.
 */
int sq_gauss_jacobi(int n, double alpha, double beta, double *x, double *w);
/** @brief Jacobi polynomial P_n^{(alpha,beta)}(x). */
double sq_jacobi(int n, double alpha, double beta, double x);

/** @brief Collapsed Gauss-Jacobi rule on the reference tet, n points per direction (n^3 points); exact to degree 2n-1.
 */
int sq_quad_tet(int n, double **point, double **weight, int *npoints);
/** @brief Collapsed Gauss-Jacobi rule on the reference triangle, n^2 points; exact to degree 2n-1. */
int sq_quad_tri(int n, double **point, double **weight, int *npoints);

/** @brief Map a reference-triangle point to face @p face of the reference tet. */
void sq_ref_face_point(int face, const double chi[2], double xi[3]);
/** @brief Map chi on our face to chi' on the neighbour's face for orientation @p orient (see file doc). */
void sq_ref_face_neighbor_chi(int orient, const double chi[2], double chi_out[2]);

/** Reference-tet vertex indices of each face, in outward order. */
extern const int sq_ref_face_vertices[4][3];

#endif
