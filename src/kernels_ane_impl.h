/**
 * @file kernels_ane_impl.h  The anelastic element kernels (viscoelastic attenuation, sq_attenuation.h), part
 * of kernels_impl.h's single source for both precisions; included by it.
 *
 * Each of n mechanisms l has strain-rate memory variables theta_l (6 components, stress order, tensor
 * strains) with  d theta_l / dt = eps_dot(v) - w_l theta_l, and the stress gains the source
 * -sum_l (a_l tr(theta_l) I + b_l theta_l).  Since the stress rows of the elastic operator are C_u : eps_dot,
 * the spatial part of every theta_l is the compliance of the stress part of the elastic update, and
 * phi_l = theta_l - C_u^-1 sigma obeys an ordinary differential equation without spatial terms,
 *   d phi_l / dt = C_u^-1 G - w_l theta_l,  G = sum_m (a_m tr(theta_m) I + b_m theta_m):
 * the element stores phi_l, which no flux touches, and its update is local (exact equivalent of the
 * Godunov flux of the extended system, whose memory rows are C_u^-1 times its stress rows).
 *
 * Per element, ane is B x 6 (n + 1) column-major: phi_1..phi_n, then the time-integrated stress source
 * G of the last predictor, which sq_kernel_ane_source subtracts from the stresses after the local update.
 */

/* strain of the stress columns s (B x 6, ld B) into e: c1 s - c2 tr(s) I; with add, e += that */
static void SQ_FN(ane_strain)(int B, const sq_real_t *coef, const sq_real_t *s, int add, sq_real_t *e) {
  const sq_real_t c1 = coef[SQ_ANE_C1], c2 = coef[SQ_ANE_C2];
  for (int k = 0; k < B; ++k) {
    const sq_real_t tr = s[k] + s[k + B] + s[k + 2 * B];
    for (int p = 0; p < 6; ++p) {
      const sq_real_t v = c1 * s[k + p * B] - (p < 3 ? c2 * tr : 0);
      e[k + p * B] = add ? e[k + p * B] + v : v;
    }
  }
}

/* g (B x 6) = sum_l a_l tr(theta_l) I + b_l theta_l over the n mechanisms of th (B x 6n) */
static void SQ_FN(ane_stress)(int B, int nmech, const sq_real_t *coef, const sq_real_t *th, sq_real_t *g) {
  memset(g, 0, (size_t)B * 6 * sizeof(sq_real_t));
  for (int l = 0; l < nmech; ++l) {
    const sq_real_t a = coef[SQ_ANE_A + l], b = coef[SQ_ANE_B + l], *t = th + (size_t)l * 6 * B;
    for (int k = 0; k < B; ++k) {
      const sq_real_t tr = t[k] + t[k + B] + t[k + 2 * B];
      for (int p = 0; p < 6; ++p) g[k + p * B] += b * t[k + p * B] + (p < 3 ? a * tr : 0);
    }
  }
}

/* The predictor with the anelastic source terms (eq. 3.33 extended): for i >= 1
 *   E^i = -sum_d Kder_d D^{i-1} A*_d^T,  D^i = E^i - [G(Theta^{i-1}); 0],  Theta_l^i = C_u^-1 E^i_sigma - w_l
 * Theta_l^{i-1}, with Theta_l^0 = phi_l + C_u^-1 sigma.  The derivatives are full polynomials (the source keeps the
 * degree), so every product has B rows (the star matrices by their non-zeros in the sparse plans, K_der,d whole).  Then
 * phi_l += C_u^-1 G(I_Theta) - w_l I_Theta_l and G(I_Theta) is kept. */
static void SQ_FN(ader_ane)(const SQ_FN(plan) * plan, int order, int nmech, int64_t n, const sq_real_t *pack,
                            const sq_real_t *dofs, const sq_real_t *star, const sq_real_t *coef, double dt,
                            sq_real_t *tint, sq_real_t *derivs, sq_real_t *ane) {
  const int B = sq_nbasis(order), BB = B * B, nq = B * 9, na = B * 6, nth = sq_kernel_threads();
#pragma omp parallel for num_threads(nth) if (nth > 1) schedule(static)
  for (int64_t e = 0; e < n; ++e) {
    _Alignas(64) sq_real_t work[2][SQ_MAXB9], tmp[3 * SQ_MAXB9], nstar[243], g[SQ_MAXB9];
    _Alignas(64) sq_real_t th[2][SQ_MECH_MAX * SQ_MAXB9 * 2 / 3], ith[SQ_MECH_MAX * SQ_MAXB9 * 2 / 3];
    const sq_real_t *cur = dofs + e * nq, *ce = coef + e * SQ_ANE_NCOEF;
    sq_real_t *ti = tint + e * nq, *phi = ane + e * (int64_t)na * (nmech + 1);
    if (e + 1 < n) { /* the next element's blocks, as in ader */
      SQ_FN(prefetch)(cur + nq, nq, 0);
      SQ_FN(prefetch)(star + (e + 1) * 243, 243, 0);
      SQ_FN(prefetch)(phi + na * (nmech + 1), na * (nmech + 1), 1);
      SQ_FN(prefetch)(ti + nq, nq, 1);
    }
    if (derivs) memcpy(derivs + (e * order) * nq, cur, nq * sizeof(sq_real_t));
    double factor = dt;
    SQ_FN(scale)(nq, (sq_real_t)factor, cur, ti);
    SQ_FN(scale)(243, -1, star + e * 243, nstar);
    for (int l = 0; l < nmech; ++l) {
      memcpy(th[0] + l * na, phi + l * na, na * sizeof(sq_real_t));
      SQ_FN(ane_strain)(B, ce, cur, 1, th[0] + l * na);
    }
    SQ_FN(scale)(nmech * na, (sq_real_t)factor, th[0], ith);
    for (int i = 1; i < order; ++i) {
      const sq_real_t *cth = th[(i - 1) & 1];
      sq_real_t *next = derivs ? derivs + (e * order + i) * nq : work[i & 1], *nxt = th[i & 1];
      SQ_FN(ader_star_stage)(plan, &plan->ader_star[1], plan->ader_sv[1], B, cur, nstar, tmp);
      for (int d = 0; d < 3; ++d)
        SQ_FN(gemm_run)(&plan->face_stiff[d > 0], pack + (SQ_PACK_KDER + d) * BB, tmp + d * nq, next);
      for (int l = 0; l < nmech; ++l) {
        sq_real_t *t = nxt + l * na;
        SQ_FN(ane_strain)(B, ce, next, 0, t);
        SQ_FN(axpy)(na, -ce[SQ_ANE_W + l], cth + l * na, t);
      }
      SQ_FN(ane_stress)(B, nmech, ce, cth, g);
      SQ_FN(axpy)(na, -1, g, next);
      factor *= dt / (i + 1);
      SQ_FN(axpy)(nq, (sq_real_t)factor, next, ti);
      SQ_FN(axpy)(nmech * na, (sq_real_t)factor, nxt, ith);
      cur = next;
    }
    sq_real_t *gsave = phi + nmech * na;
    SQ_FN(ane_stress)(B, nmech, ce, ith, gsave);
    for (int l = 0; l < nmech; ++l) {
      SQ_FN(ane_strain)(B, ce, gsave, 1, phi + l * na);
      SQ_FN(axpy)(na, -ce[SQ_ANE_W + l], ith + l * na, phi + l * na);
    }
  }
}

/* dofs' stresses -= the time-integrated anelastic source G kept by ader_ane */
static void SQ_FN(ane_source)(int order, int nmech, int64_t n, const sq_real_t *ane, sq_real_t *dofs) {
  const int B = sq_nbasis(order), na = B * 6;
  for (int64_t e = 0; e < n; ++e)
    SQ_FN(axpy)(na, -1, ane + e * (int64_t)na * (nmech + 1) + nmech * na, dofs + e * (int64_t)B * 9);
}

/* phi_l += sign C_u^-1 sigma for every mechanism (sign +1: phi -> theta, -1: theta -> phi): around a stress change
 * that leaves theta alone (the plastic correction), phi follows it by -C_u^-1 (the change) */
static void SQ_FN(ane_shift)(int order, int nmech, int64_t n, const sq_real_t *coef, const sq_real_t *dofs, int sign,
                             sq_real_t *ane) {
  const int B = sq_nbasis(order), na = B * 6;
  for (int64_t e = 0; e < n; ++e) {
    _Alignas(64) sq_real_t eps[SQ_MAXB9];
    SQ_FN(ane_strain)(B, coef + e * SQ_ANE_NCOEF, dofs + e * (int64_t)B * 9, 0, eps);
    for (int l = 0; l < nmech; ++l) SQ_FN(axpy)(na, (sq_real_t)sign, eps, ane + e * (int64_t)na * (nmech + 1) + l * na);
  }
}

/* coefficients (double, SQ_ANE_NCOEF per element) in the working precision */
static void SQ_FN(ane_coef)(int64_t n, const double *in, sq_real_t *out) {
  for (int64_t i = 0; i < n * SQ_ANE_NCOEF; ++i) out[i] = (sq_real_t)in[i];
}
