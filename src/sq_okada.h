/**
 * @file sq_okada.h  Okada (1992) displacement at any point of a homogeneous, isotropic elastic half-space
 * (z <= 0, traction-free surface z = 0) due to a finite rectangular dislocation: the "DC3D" solution
 * (strike slip, dip slip and opening), used as closed-form reference and as Dirichlet data at depth.
 *
 * Conventions (docs/postseismic-closed-forms.md):
 *  - global frame x east, y north, z up; the half-space is z <= 0;
 *  - strike clockwise from north (y), dip in [0, 90] degrees down to the right of the strike direction
 *    (Aki & Richards), rake counter-clockwise from the strike direction in the fault plane;
 *  - slip is the motion of the hanging wall (the side above the fault, into which sq_okada_normal
 *    points; for a vertical fault the side to the right of the strike) relative to the foot wall: rake 0 left-lateral,
 * rake 90 reverse (thrust); opening > 0 separates the two walls. No StarPU here.
 */
#ifndef SQ_OKADA_H
#define SQ_OKADA_H

/** A rectangular dislocation. */
typedef struct {
  double x, y, depth; /**< fault reference point: centre of the top edge (m), depth > 0 below z = 0 */
  double strike_deg, dip_deg, rake_deg;
  double length, width; /**< along strike, down dip (m) */
  double slip, opening; /**< (m) */
} sq_okada_fault;

/** u = displacement at x (x[2] <= 0) in the global frame (x east, y north, z up); returns 0, or -1 for a
 *  point on the fault's edge (singular) or above the surface (u is then set to 0); strike measured
 *  clockwise from north (y).  lambda, mu: Lame parameters (only their ratio matters). */
int sq_okada_displacement(const sq_okada_fault *f, double lambda, double mu, const double x[3], double u[3]);

/** The sum over @p n faults (slip patches) of sq_okada_displacement; -1 when any of them is singular at x. */
int sq_okada_displacement_sum(const sq_okada_fault *f, int n, double lambda, double mu, const double x[3], double u[3]);

/** sq_okada_displacement with the displacement gradient grad[i][j] = d u_i / d x_j (global frame), by
 *  fourth-order central differences of the closed form with a step of 1e-3 of the distance to the fault
 *  (relative accuracy ~1e-10); -1 on the fault. */
int sq_okada_displacement_gradient(const sq_okada_fault *f, double lambda, double mu, const double x[3], double u[3],
                                   double grad[3][3]);

/** Okada's DC3D in his own frame: x along strike, y horizontal to the left of the strike (the fault dips
 *  towards -y), z up (z <= 0); the reference point (0, 0, -depth) is the origin of the strike and up-dip
 *  coordinates xi, eta, and the rectangle spans al1 <= xi <= al2, aw1 <= eta <= aw2; disl1..3: strike
 *  slip, dip slip, tensile; alpha = (lambda + mu) / (lambda + 2 mu).  Returns 0, or -1 at a singular
 *  point (u = 0). */
int sq_okada_dc3d(double alpha, double x, double y, double z, double depth, double dip_deg, double al1, double al2,
                  double aw1, double aw2, double disl1, double disl2, double disl3, double u[3]);

/** Slip vector (global frame) of f: the hanging wall's motion relative to the foot wall, plus opening
 *  along the normal. */
void sq_okada_slip_vector(const sq_okada_fault *f, double s[3]);

/** Unit normal of the fault plane pointing into the hanging wall (upwards for dip < 90). */
void sq_okada_normal(const sq_okada_fault *f, double n[3]);

#endif
