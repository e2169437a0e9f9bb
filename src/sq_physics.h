/**
 * @file sq_physics.h  Linear elasticity (thesis §2.1): Jacobians, star matrices (eq. 3.16), the
 * rotation to face-aligned frames (eq. 3.2), Godunov flux solvers for heterogeneous materials
 * (eq. 3.11) with free-surface (eq. 3.43) and absorbing (eq. 3.41) boundaries, and plane-wave
 * eigenvectors for analytic solutions.
 *
 * Quantities are ordered (s_xx, s_yy, s_zz, s_xy, s_yz, s_xz, u, v, w): stresses, then particle
 * velocities.  The system is dq/dt + A dq/dx + B dq/dy + C dq/dz = 0.  All 9x9 matrices are row-major.
 */
#ifndef SQ_PHYSICS_H
#define SQ_PHYSICS_H

#include "sq_common.h"

/** Number of elastic quantities. */
#define SQ_NQ 9

/** Isotropic elastic material (Lame parameters and density), with its quality factors. */
typedef struct sq_material {
  double rho, lambda, mu;
  double qp, qs; /**< quality factors of P and S waves for viscoelastic attenuation; 0: not given (no attenuation) */
} sq_material;

/** P-wave speed sqrt((lambda + 2 mu) / rho). */
double sq_material_vp(const sq_material *m);
/** S-wave speed sqrt(mu / rho). */
double sq_material_vs(const sq_material *m);

/** @brief Jacobian n_x A + n_y B + n_z C of the elastic system along direction @p n (eq. 2.8). */
void sq_jacobian(const sq_material *m, const double n[3], double jac[81]);

/**
 * Non-zero pattern of every Jacobian and star matrix (sq_jacobian, sq_star_matrices): 24 of the 81
 * entries, bit q of SQ_STAR_ROW_MASK(p) for entry (p, q).  Stress rows take the velocities their
 * strain rate contains (s_xx, s_yy, s_zz: u, v, w; s_xy: u, v; s_yz: v, w; s_xz: u, w), velocity rows
 * the stresses of their divergence (u: s_xx, s_xy, s_xz; v: s_yy, s_xy, s_yz; w: s_zz, s_yz, s_xz).
 * It holds for every isotropic material, acoustic ones (mu = 0) included.  The GPU kernels apply
 * the star matrices as this sparse pattern (src/cuda/cuda_device.cuh); sq_star_pattern_ok checks it.
 */
#define SQ_STAR_ROW_MASK(p)                                                                                            \
  ((p) < 3    ? 0x1C0                                                                                                  \
   : (p) == 3 ? 0x0C0                                                                                                  \
   : (p) == 4 ? 0x180                                                                                                  \
   : (p) == 5 ? 0x140                                                                                                  \
   : (p) == 6 ? 0x029                                                                                                  \
   : (p) == 7 ? 0x01A                                                                                                  \
              : 0x034)
#define SQ_STAR_NONZERO(p, q) ((SQ_STAR_ROW_MASK(p) >> (q)) & 1)
/** Number of entries of the pattern. */
#define SQ_STAR_NNZ 24

/** @brief Whether the row-major 9x9 matrix @p a is zero outside the star pattern (SQ_STAR_NONZERO). */
int sq_star_pattern_ok(const double a[81]);

/**
 * @brief Star matrices A*_e = sum_d A_d d(xi_e)/d(x_d) (eq. 3.16), e = 0,1,2.
 * @param jac_inv d(xi_e)/d(x_d) at [e*3+d] (sq_mesh.jac_inv)
 */
void sq_star_matrices(const sq_material *m, const double jac_inv[9], double star[3][81]);

/**
 * @brief Rotation T from the face-aligned frame (x' along @p n) to the global frame and its inverse
 * (eq. 3.2): q_global = T q_aligned.  The tangents are any orthonormal completion of n.
 */
void sq_rotation(const double n[3], double T[81], double Tinv[81]);

/** @brief As sq_rotation, with the tangents given: frame (n, s, t), right-handed and orthonormal. */
void sq_rotation_frame(const double n[3], const double s[3], const double t[3], double T[81], double Tinv[81]);
/** Face kinds seen by the flux solver. */
typedef enum { SQ_FLUX_REGULAR, SQ_FLUX_FREE, SQ_FLUX_ABSORB } sq_flux_kind;

/**
 * @brief Godunov flux solvers of one face (eq. 3.11): the normal flux through the face with outward
 * normal @p n is  F = local * q_minus + neighbor * q_plus.
 * For SQ_FLUX_FREE the mirrored ghost state is folded into @p local and @p neighbor is zero;
 * for SQ_FLUX_ABSORB the incoming waves are dropped (neighbor zero).
 * @return SQ_ERR_NUMERIC if the eigenvector matrix is singular (e.g. rho <= 0).
 */
int sq_flux_solvers(const sq_material *minus, const sq_material *plus, const double n[3], sq_flux_kind kind,
                    double local[81], double neighbor[81]);

/** Plane-wave modes. */
typedef enum { SQ_WAVE_P = 0, SQ_WAVE_S1 = 1, SQ_WAVE_S2 = 2 } sq_wave_kind;

/**
 * @brief Eigenvector r of the Jacobian along unit direction @p k for a wave of kind @p kind moving
 * along +k (direction = +1) or -k (-1): q(x,t) = r f(k.x - speed t) solves the system.
 * Normalised so that the velocity part has unit length.  S1/S2 use the tangents of sq_rotation(k).
 * @param speed set to +c or -c
 */
void sq_plane_wave_eigenvector(const sq_material *m, const double k[3], sq_wave_kind kind, int direction, double r[9],
                               double *speed);

/** @brief Elastic + kinetic energy density of state @p q: (1/2) rho |v|^2 + (1/2) sigma : eps. */
double sq_energy_density(const sq_material *m, const double q[9]);

/** @brief Solve the dense n x n system A x = b (row-major, partial pivoting); A and b are overwritten. */
int sq_solve_dense(int n, double *A, double *b);
/** @brief sq_solve_dense for @p nrhs right-hand sides at once: @p B (n x nrhs, row-major) becomes A^{-1} B; each
 * column gets the same operations as sq_solve_dense would apply to it alone (the same bits). */
int sq_solve_dense_multi(int n, int nrhs, double *A, double *B);

#endif
