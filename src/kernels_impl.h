/**
 * @file kernels_impl.h  One source for the element kernels, instantiated per precision by
 * kernels_f64.c and kernels_f32.c, which define SQ_REAL and SQ_FN(name).
 * The order is a run-time argument; the inner loops run over the basis index (contiguous) so that
 * the compiler vectorises them.
 */
#include <string.h>

typedef SQ_REAL sq_real_t;

/* out(B x 9) = in(nrow x 9, ld B) . M^T   with M row-major 9x9 (out rows beyond nrow untouched). */
static inline void SQ_FN(rmul9)(int B, int nrow, const sq_real_t *restrict in, const sq_real_t *restrict M,
                                sq_real_t *restrict out) {
  for (int p = 0; p < 9; ++p) {
    sq_real_t *restrict o = out + p * B;
    for (int k = 0; k < nrow; ++k) o[k] = 0;
    for (int q = 0; q < 9; ++q) {
      const sq_real_t m = M[p * 9 + q];
      if (m == 0) continue;
      const sq_real_t *restrict c = in + q * B;
      for (int k = 0; k < nrow; ++k) o[k] += m * c[k];
    }
  }
}

/* out(nout x 9, ld B) += alpha X(B x B, col-major) restricted to rows < nout, cols < nin . in(nin x 9) */
static inline void SQ_FN(lmul)(int B, int nout, int nin, const sq_real_t *restrict X, const sq_real_t *restrict in,
                               sq_real_t alpha, sq_real_t *restrict out) {
  for (int p = 0; p < 9; ++p) {
    sq_real_t *restrict o = out + p * B;
    const sq_real_t *restrict c = in + p * B;
    for (int k = 0; k < nin; ++k) {
      const sq_real_t a = alpha * c[k];
      const sq_real_t *restrict x = X + (size_t)k * B;
      for (int l = 0; l < nout; ++l) o[l] += a * x[l];
    }
  }
}

static void SQ_FN(ader)(int order, int64_t n, const sq_real_t *pack, const sq_real_t *dofs, const sq_real_t *star,
                        double dt, sq_real_t *tint, sq_real_t *derivs) {
  const int B = sq_nbasis(order), BB = B * B, nq = B * 9;
  sq_real_t cur[SQ_MAXB9], next[SQ_MAXB9], tmp[SQ_MAXB9];
  for (int64_t e = 0; e < n; ++e) {
    const sq_real_t *q = dofs + e * nq;
    const sq_real_t *st = star + e * 243;
    sq_real_t *ti = tint + e * nq;
    memcpy(cur, q, nq * sizeof(sq_real_t));
    if (derivs) memcpy(derivs + (e * order) * nq, cur, nq * sizeof(sq_real_t));
    double factor = dt; /* dt^{i+1} / (i+1)! */
    for (int k = 0; k < nq; ++k) ti[k] = (sq_real_t)factor * cur[k];
    for (int i = 1; i < order; ++i) {
      /* D^i is a polynomial of degree N - i: only the first nb(order - i) coefficients are non-zero */
      const int nin = sq_nbasis(order - i + 1), nout = sq_nbasis(order - i);
      memset(next, 0, nq * sizeof(sq_real_t));
      for (int d = 0; d < 3; ++d) {
        SQ_FN(rmul9)(B, nin, cur, st + d * 81, tmp);
        SQ_FN(lmul)(B, nout, nin, pack + (SQ_PACK_KDER + d) * BB, tmp, (sq_real_t)-1, next);
      }
      for (int p = 0; p < 9; ++p)
        for (int k = nout; k < B; ++k) next[k + p * B] = 0;
      memcpy(cur, next, nq * sizeof(sq_real_t));
      factor *= dt / (i + 1);
      for (int p = 0; p < 9; ++p)
        for (int k = 0; k < nout; ++k) ti[k + p * B] += (sq_real_t)factor * cur[k + p * B];
      if (derivs) memcpy(derivs + (e * order + i) * nq, cur, nq * sizeof(sq_real_t));
    }
  }
}

static void SQ_FN(local)(int order, int64_t n, const sq_real_t *pack, const sq_real_t *tint, const sq_real_t *star,
                         const sq_real_t *flux_local, sq_real_t *dofs) {
  const int B = sq_nbasis(order), BB = B * B, nq = B * 9;
  sq_real_t tmp[SQ_MAXB9], update[SQ_MAXB9];
  for (int64_t e = 0; e < n; ++e) {
    const sq_real_t *ti = tint + e * nq;
    sq_real_t *q = dofs + e * nq;
    /* sum the update first and round it onto the dofs once: the increment is much smaller than the
     * state, so this keeps single-precision round-off well below the discretisation error */
    memset(update, 0, nq * sizeof(sq_real_t));
    for (int d = 0; d < 3; ++d) {
      SQ_FN(rmul9)(B, B, ti, star + e * 243 + d * 81, tmp);
      SQ_FN(lmul)(B, B, B, pack + (SQ_PACK_KVOL + d) * BB, tmp, (sq_real_t)1, update);
    }
    for (int j = 0; j < 4; ++j) {
      SQ_FN(rmul9)(B, B, ti, flux_local + e * 324 + j * 81, tmp);
      SQ_FN(lmul)(B, B, B, pack + (SQ_PACK_FLOCAL + j) * BB, tmp, (sq_real_t)-1, update);
    }
    for (int k = 0; k < nq; ++k) q[k] += update[k];
  }
}

static void SQ_FN(taylor_one)(int order, int B, const sq_real_t *d, double t0, double t1, sq_real_t *out) {
  const int nq = B * 9;
  memset(out, 0, nq * sizeof(sq_real_t));
  double p0 = t0, p1 = t1; /* t^{i+1} / (i+1)! */
  for (int i = 0; i < order; ++i) {
    const sq_real_t f = (sq_real_t)(p1 - p0);
    const sq_real_t *di = d + i * nq;
    for (int k = 0; k < nq; ++k) out[k] += f * di[k];
    p0 *= t0 / (i + 2);
    p1 *= t1 / (i + 2);
  }
}

static void SQ_FN(neighbor)(int order, int64_t n, const sq_real_t *pack, const sq_face_link *links,
                            const sq_real_t *flux_nb, const void *const *nb_data, const double *nb_t0,
                            const double *nb_t1, sq_real_t *dofs) {
  const int B = sq_nbasis(order), BB = B * B, nq = B * 9;
  sq_real_t tmp[SQ_MAXB9], integ[SQ_MAXB9], update[SQ_MAXB9];
  for (int64_t e = 0; e < n; ++e) {
    sq_real_t *q = dofs + e * nq;
    memset(update, 0, nq * sizeof(sq_real_t)); /* one rounding onto the dofs, as in local */
    for (int j = 0; j < 4; ++j) {
      const sq_face_link *ln = links + e * 4 + j;
      const sq_real_t *src;
      if (ln->kind == SQ_LINK_NONE) continue;
      if (ln->kind == SQ_LINK_TINT) {
        src = (const sq_real_t *)nb_data[ln->slot] + (size_t)ln->index * nq;
      } else {
        const sq_real_t *d = (const sq_real_t *)nb_data[ln->slot] + (size_t)ln->index * order * nq;
        SQ_FN(taylor_one)(order, B, d, nb_t0[ln->slot], nb_t1[ln->slot], integ);
        src = integ;
      }
      SQ_FN(rmul9)(B, B, src, flux_nb + e * 324 + j * 81, tmp);
      SQ_FN(lmul)(B, B, B, pack + (SQ_PACK_FNB + ln->flux) * BB, tmp, (sq_real_t)-1, update);
    }
    for (int k = 0; k < nq; ++k) q[k] += update[k];
  }
}

static void SQ_FN(taylor)(int order, int64_t n, const sq_real_t *derivs, double t0, double t1, sq_real_t *tint) {
  const int B = sq_nbasis(order), nq = B * 9;
  for (int64_t e = 0; e < n; ++e) SQ_FN(taylor_one)(order, B, derivs + e * order * nq, t0, t1, tint + e * nq);
}

static void SQ_FN(pack)(const sq_ref *ref, sq_real_t *out) {
  const int B = ref->nbasis, BB = B * B;
  for (int d = 0; d < 3; ++d)
    for (int l = 0; l < B; ++l)
      for (int k = 0; k < B; ++k) {
        out[(SQ_PACK_KDER + d) * BB + l + k * B] = (sq_real_t)(ref->stiff[d][k + l * B] / ref->mass[l]);
        out[(SQ_PACK_KVOL + d) * BB + l + k * B] = (sq_real_t)(ref->stiff[d][l + k * B] / ref->mass[l]);
      }
  for (int j = 0; j < 4; ++j)
    for (int l = 0; l < B; ++l)
      for (int k = 0; k < B; ++k)
        out[(SQ_PACK_FLOCAL + j) * BB + l + k * B] = (sq_real_t)(ref->flux_local[j][l + k * B] / ref->mass[l]);
  for (int f = 0; f < 48; ++f)
    for (int l = 0; l < B; ++l)
      for (int k = 0; k < B; ++k)
        out[(SQ_PACK_FNB + f) * BB + l + k * B] = (sq_real_t)(ref->flux_neighbor[f][l + k * B] / ref->mass[l]);
}

static void SQ_FN(accumulate)(int order, int64_t n, const sq_real_t *tint, int reset, sq_real_t *buffer) {
  const int64_t len = n * sq_nbasis(order) * 9;
  if (reset) memcpy(buffer, tint, len * sizeof(sq_real_t));
  else
    for (int64_t i = 0; i < len; ++i) buffer[i] += tint[i];
}
