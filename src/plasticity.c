/** @file plasticity.c  Nodal reference data, parameter checks and per-precision dispatch of the plasticity kernels. */
#include "sq_plasticity.h"

#include <math.h>
#include <stdlib.h>

#include "sq_ref.h"

#include "plasticity_both.h"

/* Lobatto-Gauss-Legendre nodes of degree n >= 1 on [0,1], ascending: the interior ones are the roots of P'_n,
 * i.e. the Gauss-Jacobi(1,1) nodes. */
static int lgl_nodes(int n, double *x) {
  double weight[SQ_ORDER_MAX];
  x[0] = 0.0, x[n] = 1.0;
  if (n >= 2) SQ_CALL(sq_gauss_jacobi(n - 1, 1.0, 1.0, x + 1, weight));
  for (int i = 1; i < n; ++i) x[i] = 0.5 * (x[i] + 1.0);
  return SQ_SUCCESS;
}

/*
 * Recursive node of T. Isaac (SISC 2020) for multi-index alpha (count entries, sum n) in barycentric
 * coordinates: the average of the facets' nodes b(alpha \ i), each with a zero inserted at i, weighted by
 * the 1D LGL node x_{n, n - alpha_i}.  The edges get LGL nodes, the faces the triangle's recursive nodes.
 */
static int recursive_node(int count, const int *alpha, double *bary) {
  if (count == 1) {
    bary[0] = 1.0;
    return SQ_SUCCESS;
  }
  int n = 0;
  for (int i = 0; i < count; ++i) n += alpha[i];
  double lgl[SQ_ORDER_MAX + 1], wsum = 0.0;
  SQ_CALL(lgl_nodes(n, lgl));
  for (int i = 0; i < count; ++i) bary[i] = 0.0;
  for (int i = 0; i < count; ++i) {
    if (alpha[i] == n) continue; /* the facet opposite a vertex node has weight x_{n,0} = 0 */
    int sub[4], m = 0;
    double facet[4];
    for (int j = 0; j < count; ++j)
      if (j != i) sub[m++] = alpha[j];
    SQ_CALL(recursive_node(count - 1, sub, facet));
    const double weight = lgl[n - alpha[i]];
    wsum += weight;
    m = 0;
    for (int j = 0; j < count; ++j)
      if (j != i) bary[j] += weight * facet[m++];
  }
  for (int i = 0; i < count; ++i) bary[i] /= wsum;
  return SQ_SUCCESS;
}

/* Inverse of the column-major n x n matrix A by Gauss-Jordan elimination with partial pivoting. */
static int invert(int n, const double *A, double *inv) {
  double *work;
  SQ_CALL(SQ_CALLOC(work, (size_t)n * n));
  int ierr = SQ_SUCCESS;
  for (int k = 0; k < n * n; ++k) work[k] = A[k], inv[k] = (k % n == k / n);
  for (int col = 0; col < n && !ierr; ++col) {
    int piv = col;
    for (int r = col + 1; r < n; ++r)
      if (fabs(work[r + col * n]) > fabs(work[piv + col * n])) piv = r;
    if (!(fabs(work[piv + col * n]) > 1e-12)) {
      ierr = sq_error(SQ_ERR_NUMERIC, __FILE__, __LINE__, "plasticity: singular %dx%d Vandermonde matrix", n, n);
      break;
    }
    for (int c = 0; c < n; ++c) {
      double t = work[col + c * n];
      work[col + c * n] = work[piv + c * n], work[piv + c * n] = t;
      t = inv[col + c * n];
      inv[col + c * n] = inv[piv + c * n], inv[piv + c * n] = t;
    }
    const double scale = 1.0 / work[col + col * n];
    for (int c = 0; c < n; ++c) work[col + c * n] *= scale, inv[col + c * n] *= scale;
    for (int r = 0; r < n; ++r) {
      const double f = work[r + col * n];
      if (r == col || f == 0.0) continue;
      for (int c = 0; c < n; ++c) work[r + c * n] -= f * work[col + c * n], inv[r + c * n] -= f * inv[col + c * n];
    }
  }
  SQ_FREE(work);
  return ierr;
}

static double norm1(int n, const double *A) {
  double best = 0.0;
  for (int c = 0; c < n; ++c) {
    double s = 0.0;
    for (int r = 0; r < n; ++r) s += fabs(A[r + c * n]);
    if (s > best) best = s;
  }
  return best;
}

static int ref_build(sq_plasticity_ref *ref) {
  const int order = ref->order, B = ref->nbasis, degree = order - 1;
  SQ_CALL(SQ_CALLOC(ref->node, 3 * B));
  SQ_CALL(SQ_CALLOC(ref->V, B * B));
  SQ_CALL(SQ_CALLOC(ref->Vinv, B * B));
  SQ_CALL(SQ_CALLOC(ref->V_f32, B * B));
  SQ_CALL(SQ_CALLOC(ref->Vinv_f32, B * B));
  int count = 0;
  for (int a3 = 0; a3 <= degree; ++a3)
    for (int a2 = 0; a2 <= degree - a3; ++a2)
      for (int a1 = 0; a1 <= degree - a3 - a2; ++a1) {
        const int alpha[4] = {degree - a1 - a2 - a3, a1, a2, a3};
        double bary[4];
        SQ_CALL(recursive_node(4, alpha, bary));
        SQ_CHECK(count < B, SQ_ERR_INTERNAL, "plasticity: too many nodes for order %d", order);
        for (int e = 0; e < 3; ++e) ref->node[3 * count + e] = bary[e + 1]; /* xi = sum_v b_v v_v */
        ++count;
      }
  SQ_CHECK(count == B, SQ_ERR_INTERNAL, "plasticity: %d nodes for order %d, expected %d", count, order, B);
  double psi[SQ_PLAST_MAXB];
  for (int i = 0; i < B; ++i) {
    sq_basis_eval(order, ref->node + 3 * i, psi);
    for (int k = 0; k < B; ++k) ref->V[i + k * B] = psi[k];
  }
  ref->psi0 = psi[0];
  SQ_CALL(invert(B, ref->V, ref->Vinv));
  ref->cond1 = norm1(B, ref->V) * norm1(B, ref->Vinv);
  for (int k = 0; k < B * B; ++k) ref->V_f32[k] = (float)ref->V[k], ref->Vinv_f32[k] = (float)ref->Vinv[k];
  return SQ_SUCCESS;
}

int sq_plasticity_ref_create(int order, sq_plasticity_ref **ref) {
  *ref = NULL;
  SQ_CHECK(order >= SQ_ORDER_MIN && order <= SQ_ORDER_MAX, SQ_ERR_INPUT,
           "plasticity: order %d outside the supported range %d..%d", order, SQ_ORDER_MIN, SQ_ORDER_MAX);
  sq_plasticity_ref *r = calloc(1, sizeof(*r));
  SQ_CHECK(r, SQ_ERR_MEMORY, "plasticity: out of memory");
  r->order = order;
  r->nbasis = sq_nbasis(order);
  const int ierr = ref_build(r);
  if (ierr) {
    sq_plasticity_ref_destroy(r);
    return ierr;
  }
  *ref = r;
  return SQ_SUCCESS;
}

void sq_plasticity_ref_destroy(sq_plasticity_ref *ref) {
  if (!ref) return;
  SQ_FREE(ref->node);
  SQ_FREE(ref->V);
  SQ_FREE(ref->Vinv);
  SQ_FREE(ref->V_f32);
  SQ_FREE(ref->Vinv_f32);
  free(ref);
}

static int check_param(const char *name, double value, char *why, size_t len) {
  if (isfinite(value) && value >= 0.0) return SQ_SUCCESS;
  if (why && len) snprintf(why, len, "plasticity parameter %s = %g must be finite and >= 0", name, value);
  return SQ_ERR_INPUT;
}

int sq_plasticity_check_params(double cohesion, double bulk_friction, double tv, char *why, size_t len) {
  if (why && len) why[0] = '\0';
  SQ_CALL(check_param("cohesion", cohesion, why, len));
  SQ_CALL(check_param("bulk_friction", bulk_friction, why, len));
  SQ_CALL(check_param("tv (plastic relaxation time)", tv, why, len));
  return SQ_SUCCESS;
}

int sq_plasticity_point(const double stress[6], double cohesion, double bulk_friction, double tv, double dt, double mu,
                        double stress_out[6], double strain_inc[7]) {
  double cohesion_cos, sin_phi, relax, dev[6], s[6];
  for (int p = 0; p < 6; ++p) s[p] = stress[p];
  sq_plast_coefficients(cohesion, bulk_friction, tv, dt, &cohesion_cos, &sin_phi, &relax);
  const double factor = sq_internal_plast_point_f64(s, cohesion_cos, sin_phi, relax, dev);
  for (int p = 0; p < 6; ++p) stress_out[p] = s[p] + factor * dev[p];
  if (strain_inc) {
    double sum = 0.0;
    for (int p = 0; p < 6; ++p) {
      strain_inc[p] = -factor * dev[p] / (2.0 * mu); /* eq. 2.33 */
      sum += (p < 3 ? 0.5 : 1.0) * strain_inc[p] * strain_inc[p];
    }
    strain_inc[6] = sqrt(sum);
  }
  return factor != 0.0;
}

void sq_plasticity_stress_set(sq_precision prec, int B, void *nodal, int node, const double stress[6]) {
  const int first = node < 0 ? 0 : node, last = node < 0 ? B : node + 1;
  for (int p = 0; p < 6; ++p)
    for (int i = first; i < last; ++i) {
      if (prec == SQ_F64) ((double *)nodal)[p * B + i] = stress[p];
      else ((float *)nodal)[p * B + i] = (float)stress[p];
    }
}

void sq_plasticity_stress_get(sq_precision prec, int B, const void *nodal, int node, double stress[6]) {
  for (int p = 0; p < 6; ++p)
    stress[p] = prec == SQ_F64 ? ((const double *)nodal)[p * B + node] : ((const float *)nodal)[p * B + node];
}

int sq_plasticity_element(sq_precision prec, const sq_plasticity_ref *ref, void *dofs, const void *initial_stress,
                          double cohesion, double bulk_friction, double tv, double dt, double mu,
                          double plastic_strain[7]) {
  if (prec == SQ_F64)
    return sq_internal_plast_element_f64(ref->nbasis, ref->V, ref->Vinv, ref->psi0, dofs, initial_stress, cohesion,
                                         bulk_friction, tv, dt, mu, plastic_strain);
  return sq_internal_plast_element_f32(ref->nbasis, ref->V_f32, ref->Vinv_f32, ref->psi0, dofs, initial_stress,
                                       cohesion, bulk_friction, tv, dt, mu, plastic_strain);
}

int64_t sq_plasticity_tile(sq_precision prec, const sq_plasticity_ref *ref, int64_t n, void *dofs,
                           const void *initial_stress, const double *params, const double *mu, double dt,
                           double *plastic_strain, uint8_t *yielded) {
  const size_t stride = (size_t)ref->nbasis * 9 * sq_real_size(prec),
               sstride = (size_t)ref->nbasis * 6 * sq_real_size(prec);
  int64_t count = 0;
  for (int64_t e = 0; e < n; ++e) {
    const int y =
        sq_plasticity_element(prec, ref, (char *)dofs + e * stride, (const char *)initial_stress + e * sstride,
                              params[3 * e], params[3 * e + 1], params[3 * e + 2], dt, mu[e], plastic_strain + 7 * e);
    if (yielded) yielded[e] = (uint8_t)y;
    count += y;
  }
  return count;
}
