/**
 * @file plasticity_impl.h  One source for the plasticity kernels, instantiated per precision by
 * plasticity.c (and later by a .cu file), which defines SQ_REAL, SQ_FN(name) and SQ_SQRT(x).
 * The point-wise functions are host/device inline so that a CUDA kernel can run one node per thread.
 */
#ifndef SQ_PLASTICITY_IMPL_ONCE
#define SQ_PLASTICITY_IMPL_ONCE
#include <math.h>
#include <string.h>

#ifdef __CUDACC__
#define SQ_PLAST_HD __host__ __device__
#else
#define SQ_PLAST_HD
#endif
#ifdef __cplusplus
#define SQ_PLAST_RESTRICT __restrict__
#else
#define SQ_PLAST_RESTRICT restrict
#endif

/** Largest B (order 7). */
#define SQ_PLAST_MAXB 84

/**
 * Per-element constants of the yield function (eq. 2.28) and of the relaxation (eq. 2.34), in double:
 * phi = atan(bulk_friction), so cos(phi) = 1/sqrt(1+f^2), sin(phi) = f/sqrt(1+f^2); relax = 1 - exp(-dt/tv),
 * computed with expm1 so that a long relaxation time keeps its small value; tv = 0 means instantaneous.
 */
static inline SQ_PLAST_HD void sq_plast_coefficients(double cohesion, double bulk_friction, double tv, double dt,
                                                     double *cohesion_cos, double *sin_phi, double *relax) {
  const double hyp = sqrt(1.0 + bulk_friction * bulk_friction);
  *cohesion_cos = cohesion / hyp;
  *sin_phi = bulk_friction / hyp;
  *relax = tv > 0 ? -expm1(-dt / tv) : 1.0;
}
#endif

/**
 * Point-wise viscoplastic return mapping.  Writes the deviator of the total stress @p s into @p dev
 * and returns the deviator change factor r - 1 (<= 0), where r = 1 - relax (1 - tau_c/tau) is the
 * adjustment factor of eq. 2.34; returns 0 when F(s) <= 0 (eq. 2.28).  The corrected stress is
 * s + (r-1) dev: the trial deviator scaled by r with the mean stress kept (no volumetric plastic
 * strain, eq. 2.32), and the plastic strain increment is -(r-1) dev / (2 mu) (eq. 2.33).
 * tau_c is clamped at 0: beyond the apex of the cone the deviator relaxes towards zero.
 */
static inline SQ_PLAST_HD SQ_REAL SQ_FN(plast_point)(const SQ_REAL s[6], SQ_REAL cohesion_cos, SQ_REAL sin_phi,
                                                     SQ_REAL relax, SQ_REAL dev[6]) {
  const SQ_REAL mean = (s[0] + s[1] + s[2]) / (SQ_REAL)3;
  dev[0] = s[0] - mean, dev[1] = s[1] - mean, dev[2] = s[2] - mean;
  dev[3] = s[3], dev[4] = s[4], dev[5] = s[5];
  /* J2 of eq. 2.27, the shear components appear twice in s_ij s_ij */
  const SQ_REAL j2 = (dev[0] * dev[0] + dev[1] * dev[1] + dev[2] * dev[2]) / (SQ_REAL)2 + dev[3] * dev[3] +
                     dev[4] * dev[4] + dev[5] * dev[5];
  const SQ_REAL tau = SQ_SQRT(j2);
  SQ_REAL tau_c = cohesion_cos - mean * sin_phi;
  if (tau_c < 0) tau_c = 0;
  if (!(tau > tau_c)) return 0;
  return -relax * ((SQ_REAL)1 - tau_c / tau);
}

/**
 * One element (see sq_plasticity_element).  Nodal stress = V S + initial stress at the nodes (eq. 8.2;
 * @p initial_stress is 6 x B, quantity-major like the stress columns of the dofs), the correction is
 * projected back with Vinv (eq. 8.3).  Returns 1 if any node yields, else 0 with nothing written.
 */
static inline int SQ_FN(plast_element)(int B, const SQ_REAL *V, const SQ_REAL *Vinv, double psi0, SQ_REAL *dofs,
                                       const SQ_REAL *initial_stress, double cohesion, double bulk_friction, double tv,
                                       double dt, double mu, double plastic_strain[7]) {
  SQ_REAL nodal[6 * SQ_PLAST_MAXB], change[SQ_PLAST_MAXB];
  double cohesion_cos, sin_phi, relax;
  sq_plast_coefficients(cohesion, bulk_friction, tv, dt, &cohesion_cos, &sin_phi, &relax);
  for (int p = 0; p < 6; ++p) {
    SQ_REAL *SQ_PLAST_RESTRICT out = nodal + p * B;
    const SQ_REAL *SQ_PLAST_RESTRICT in = dofs + p * B;
    for (int i = 0; i < B; ++i) out[i] = initial_stress[p * B + i];
    for (int k = 0; k < B; ++k) {
      const SQ_REAL c = in[k];
      const SQ_REAL *SQ_PLAST_RESTRICT col = V + (size_t)k * B;
      for (int i = 0; i < B; ++i) out[i] += col[i] * c;
    }
  }
  /* the cheap check every element pays; nodal is overwritten with the nodal stress change */
  int yields = 0;
  for (int i = 0; i < B; ++i) {
    SQ_REAL s[6], dev[6];
    for (int p = 0; p < 6; ++p) s[p] = nodal[p * B + i];
    const SQ_REAL factor = SQ_FN(plast_point)(s, (SQ_REAL)cohesion_cos, (SQ_REAL)sin_phi, (SQ_REAL)relax, dev);
    yields |= factor != 0;
    for (int p = 0; p < 6; ++p) nodal[p * B + i] = factor * dev[p];
  }
  if (!yields) return 0;
  double strain[6];
  for (int p = 0; p < 6; ++p) {
    const SQ_REAL *SQ_PLAST_RESTRICT delta = nodal + p * B;
    for (int k = 0; k < B; ++k) change[k] = 0;
    for (int i = 0; i < B; ++i) {
      const SQ_REAL d = delta[i];
      if (d == 0) continue; /* only the yielding nodes contribute */
      const SQ_REAL *SQ_PLAST_RESTRICT col = Vinv + (size_t)i * B;
      for (int k = 0; k < B; ++k) change[k] += col[k] * d;
    }
    SQ_REAL *SQ_PLAST_RESTRICT q = dofs + p * B;
    for (int k = 0; k < B; ++k) q[k] += change[k];
    /* cell average of the correction = psi0 * mode 0; eq. 2.33: de = -ds / (2 mu) */
    strain[p] = -(double)change[0] * psi0 / (2.0 * mu);
    plastic_strain[p] += strain[p];
  }
  plastic_strain[6] += sqrt(0.5 * (strain[0] * strain[0] + strain[1] * strain[1] + strain[2] * strain[2]) +
                            strain[3] * strain[3] + strain[4] * strain[4] + strain[5] * strain[5]);
  return 1;
}
