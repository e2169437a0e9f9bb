/** @file physics.c  Elastic Jacobians, star matrices, rotations and Godunov flux solvers (thesis §2.1, §3.1). */
#include "sq_physics.h"

#include <math.h>
#include <string.h>

double sq_material_vp(const sq_material *m) { return sqrt((m->lambda + 2.0 * m->mu) / m->rho); }
double sq_material_vs(const sq_material *m) { return sqrt(m->mu / m->rho); }

void sq_jacobian(const sq_material *m, const double n[3], double jac[81]) {
  const double lam = m->lambda, mu = m->mu, irho = 1.0 / m->rho;
  memset(jac, 0, 81 * sizeof(double));
#define J(r, c) jac[(r)*9 + (c)]
  /* stress rows: d(sigma)/dt - lambda div(v) I - mu (grad v + grad v^T) = 0 */
  for (int d = 0; d < 3; ++d) {
    for (int s = 0; s < 3; ++s) J(s, 6 + d) = -lam * n[d];
    J(d, 6 + d) -= 2.0 * mu * n[d];
  }
  J(3, 6) = -mu * n[1];
  J(3, 7) = -mu * n[0]; /* xy */
  J(4, 7) = -mu * n[2];
  J(4, 8) = -mu * n[1]; /* yz */
  J(5, 6) = -mu * n[2];
  J(5, 8) = -mu * n[0]; /* xz */
  /* velocity rows: rho dv/dt - div(sigma) = 0 */
  J(6, 0) = -irho * n[0];
  J(6, 3) = -irho * n[1];
  J(6, 5) = -irho * n[2];
  J(7, 3) = -irho * n[0];
  J(7, 1) = -irho * n[1];
  J(7, 4) = -irho * n[2];
  J(8, 5) = -irho * n[0];
  J(8, 4) = -irho * n[1];
  J(8, 2) = -irho * n[2];
#undef J
}

int sq_star_pattern_ok(const double a[81]) {
  for (int p = 0; p < 9; ++p)
    for (int q = 0; q < 9; ++q)
      if (!SQ_STAR_NONZERO(p, q) && a[p * 9 + q] != 0.0) return 0;
  return 1;
}

void sq_star_matrices(const sq_material *m, const double jac_inv[9], double star[3][81]) {
  for (int e = 0; e < 3; ++e) {
    const double dir[3] = {jac_inv[e * 3 + 0], jac_inv[e * 3 + 1], jac_inv[e * 3 + 2]};
    sq_jacobian(m, dir, star[e]); /* linear in the direction: sum_d A_d dxi_e/dx_d */
  }
}

static void matmul9(const double *a, const double *b, double *c) {
  double tmp[81];
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) {
      double s = 0.0;
      for (int k = 0; k < 9; ++k) s += a[i * 9 + k] * b[k * 9 + j];
      tmp[i * 9 + j] = s;
    }
  memcpy(c, tmp, sizeof(tmp));
}

/* Voigt index of the symmetric tensor component (i,j). */
static int voigt(int i, int j) {
  static const int map[3][3] = {{0, 3, 5}, {3, 1, 4}, {5, 4, 2}};
  return map[i][j];
}

/* Matrix of q -> (R sigma R^T, R v) in Voigt ordering, for a 3x3 rotation R (row-major). */
static void tensor_rotation(const double R[9], double T[81]) {
  memset(T, 0, 81 * sizeof(double));
  for (int c = 0; c < 6; ++c) { /* image of the c-th Voigt unit tensor */
    double s[3][3] = {{0}};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) s[i][j] = (voigt(i, j) == c) ? 1.0 : 0.0;
    for (int i = 0; i < 3; ++i)
      for (int j = i; j < 3; ++j) {
        double v = 0.0;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) v += R[i * 3 + a] * s[a][b] * R[j * 3 + b];
        T[voigt(i, j) * 9 + c] = v;
      }
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) T[(6 + i) * 9 + 6 + j] = R[i * 3 + j];
}

static void tangents(const double n[3], double s[3], double t[3]) {
  double e[3] = {0, 0, 0};
  if (fabs(n[0]) < 0.9) e[0] = 1.0;
  else e[1] = 1.0;
  const double en = e[0] * n[0] + e[1] * n[1] + e[2] * n[2];
  for (int d = 0; d < 3; ++d) s[d] = e[d] - en * n[d];
  const double len = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  for (int d = 0; d < 3; ++d) s[d] /= len;
  t[0] = n[1] * s[2] - n[2] * s[1];
  t[1] = n[2] * s[0] - n[0] * s[2];
  t[2] = n[0] * s[1] - n[1] * s[0];
}

void sq_rotation(const double n[3], double T[81], double Tinv[81]) {
  double s[3], t[3], R[9], Rt[9];
  tangents(n, s, t);
  for (int d = 0; d < 3; ++d) { /* columns n, s, t */
    R[d * 3 + 0] = n[d];
    R[d * 3 + 1] = s[d];
    R[d * 3 + 2] = t[d];
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Rt[i * 3 + j] = R[j * 3 + i];
  tensor_rotation(R, T);
  tensor_rotation(Rt, Tinv);
}

void sq_rotation_frame(const double n[3], const double s[3], const double t[3], double T[81], double Tinv[81]) {
  double R[9], Rt[9];
  for (int d = 0; d < 3; ++d) R[d * 3 + 0] = n[d], R[d * 3 + 1] = s[d], R[d * 3 + 2] = t[d];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Rt[i * 3 + j] = R[j * 3 + i];
  tensor_rotation(R, T);
  tensor_rotation(Rt, Tinv);
}

int sq_solve_dense_multi(int n, int nrhs, double *A, double *B) {
  for (int col = 0; col < n; ++col) {
    int piv = col;
    for (int r = col + 1; r < n; ++r)
      if (fabs(A[r * n + col]) > fabs(A[piv * n + col])) piv = r;
    double amax = 0.0;
    for (int r = 0; r < n; ++r) amax = fmax(amax, fabs(A[r * n + col]));
    SQ_CHECK(fabs(A[piv * n + col]) > 1e-14 * amax && amax > 0.0, SQ_ERR_NUMERIC, "singular %dx%d system", n, n);
    if (piv != col) {
      for (int c = 0; c < n; ++c) {
        double tmp = A[col * n + c];
        A[col * n + c] = A[piv * n + c];
        A[piv * n + c] = tmp;
      }
      for (int k = 0; k < nrhs; ++k) {
        double tmp = B[col * nrhs + k];
        B[col * nrhs + k] = B[piv * nrhs + k];
        B[piv * nrhs + k] = tmp;
      }
    }
    for (int r = col + 1; r < n; ++r) {
      const double f = A[r * n + col] / A[col * n + col];
      if (f == 0.0) continue;
      for (int c = col; c < n; ++c) A[r * n + c] -= f * A[col * n + c];
      for (int k = 0; k < nrhs; ++k) B[r * nrhs + k] -= f * B[col * nrhs + k];
    }
  }
  for (int k = 0; k < nrhs; ++k)
    for (int r = n - 1; r >= 0; --r) {
      double s = B[r * nrhs + k];
      for (int c = r + 1; c < n; ++c) s -= A[r * n + c] * B[c * nrhs + k];
      B[r * nrhs + k] = s / A[r * n + r];
    }
  return SQ_SUCCESS;
}

int sq_solve_dense(int n, double *A, double *b) { return sq_solve_dense_multi(n, 1, A, b); }

/*
 * Face-aligned right eigenvectors (eq. 3.6): columns for speeds -cp,-cs,-cs (minus material, waves
 * entering our element), three zero-speed ones, then +cs,+cs,+cp (plus material).
 */
static void mixed_eigenvectors(const sq_material *mi, const sq_material *pl, double R[81]) {
  const double cpm = sq_material_vp(mi), csm = sq_material_vs(mi);
  const double cpp = sq_material_vp(pl), csp = sq_material_vs(pl);
  memset(R, 0, 81 * sizeof(double));
#define C(r, c) R[(r)*9 + (c)]
  C(0, 0) = mi->lambda + 2 * mi->mu;
  C(1, 0) = mi->lambda;
  C(2, 0) = mi->lambda;
  C(6, 0) = cpm;
  C(3, 1) = mi->mu;
  C(7, 1) = csm;
  C(5, 2) = mi->mu;
  C(8, 2) = csm;
  C(1, 3) = 1.0;
  C(2, 4) = 1.0;
  C(4, 5) = 1.0;
  C(5, 6) = pl->mu;
  C(8, 6) = -csp;
  C(3, 7) = pl->mu;
  C(7, 7) = -csp;
  C(0, 8) = pl->lambda + 2 * pl->mu;
  C(1, 8) = pl->lambda;
  C(2, 8) = pl->lambda;
  C(6, 8) = -cpp;
#undef C
}

int sq_flux_solvers(const sq_material *minus, const sq_material *plus, const double n[3], sq_flux_kind kind,
                    double local[81], double neighbor[81]) {
  SQ_CHECK(minus->rho > 0 && minus->mu > 0 && plus->rho > 0 && plus->mu > 0, SQ_ERR_NUMERIC,
           "flux solver needs rho > 0 and mu > 0 on both sides (got rho %g/%g, mu %g/%g)", minus->rho, plus->rho,
           minus->mu, plus->mu);
  const sq_material *pl = (kind == SQ_FLUX_REGULAR) ? plus : minus;
  double T[81], Tinv[81], R[81], A[81], W[81];
  sq_rotation(n, T, Tinv);
  mixed_eigenvectors(minus, pl, R);
  const double ex[3] = {1, 0, 0};
  sq_jacobian(minus, ex, A);
  /* W = R X R^{-1}, X selecting the three waves that enter our element (eq. 3.8-3.9). Row-wise:
   * W^T = R^{-T} X R^T, so solve R^T y = e_i per column. */
  double Rinv[81], M[81]; /* R^{-1}: one factorisation for the nine unit right-hand sides */
  memcpy(M, R, sizeof(M));
  for (int i = 0; i < 81; ++i) Rinv[i] = i % 10 == 0 ? 1.0 : 0.0;
  SQ_CALL(sq_solve_dense_multi(9, 9, M, Rinv));
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) {
      double s = 0.0;
      for (int w = 0; w < 3; ++w) s += R[i * 9 + w] * Rinv[w * 9 + j];
      W[i * 9 + j] = s;
    }
  double Lm[81], Np[81];
  for (int i = 0; i < 81; ++i) Lm[i] = -W[i];
  for (int i = 0; i < 9; ++i) Lm[i * 9 + i] += 1.0;
  memcpy(Np, W, sizeof(Np));
  if (kind == SQ_FLUX_FREE) {
    /* ghost state mirrors the normal tractions (eq. 3.42-3.43): q+ = D q-, folded into the local part */
    static const double mirror[9] = {-1, 1, 1, -1, 1, -1, 1, 1, 1};
    for (int i = 0; i < 9; ++i)
      for (int j = 0; j < 9; ++j) Lm[i * 9 + j] += W[i * 9 + j] * mirror[j];
    memset(Np, 0, sizeof(Np));
  } else if (kind == SQ_FLUX_ABSORB) {
    memset(Np, 0, sizeof(Np)); /* eq. 3.41: no incoming waves */
  }
  double tmp[81];
  matmul9(A, Lm, tmp);
  matmul9(tmp, Tinv, tmp);
  matmul9(T, tmp, local);
  matmul9(A, Np, tmp);
  matmul9(tmp, Tinv, tmp);
  matmul9(T, tmp, neighbor);
  return SQ_SUCCESS;
}

void sq_plane_wave_eigenvector(const sq_material *m, const double k[3], sq_wave_kind kind, int direction, double r[9],
                               double *speed) {
  const double cp = sq_material_vp(m), cs = sq_material_vs(m);
  const double len = sqrt(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
  const double n[3] = {k[0] / len, k[1] / len, k[2] / len};
  double ra[9] = {0}, T[81], Tinv[81];
  const double sgn = direction >= 0 ? 1.0 : -1.0;
  if (kind == SQ_WAVE_P) {
    ra[0] = -sgn * (m->lambda + 2 * m->mu) / cp;
    ra[1] = ra[2] = -sgn * m->lambda / cp;
    ra[6] = 1.0;
    *speed = sgn * cp;
  } else if (kind == SQ_WAVE_S1) {
    ra[3] = -sgn * m->mu / cs;
    ra[7] = 1.0;
    *speed = sgn * cs;
  } else {
    ra[5] = -sgn * m->mu / cs;
    ra[8] = 1.0;
    *speed = sgn * cs;
  }
  sq_rotation(n, T, Tinv);
  for (int i = 0; i < 9; ++i) {
    double s = 0.0;
    for (int j = 0; j < 9; ++j) s += T[i * 9 + j] * ra[j];
    r[i] = s;
  }
}

double sq_energy_density(const sq_material *m, const double q[9]) {
  const double kin = 0.5 * m->rho * (q[6] * q[6] + q[7] * q[7] + q[8] * q[8]);
  if (m->mu <= 0.0) return kin;
  const double tr = q[0] + q[1] + q[2];
  const double ss = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + 2.0 * (q[3] * q[3] + q[4] * q[4] + q[5] * q[5]);
  /* (1/2) sigma : C^{-1} sigma with C^{-1} sigma = (sigma - lambda/(3 lambda + 2 mu) tr(sigma) I) / (2 mu) */
  const double el = (ss - m->lambda / (3.0 * m->lambda + 2.0 * m->mu) * tr * tr) / (4.0 * m->mu);
  return kin + el;
}
