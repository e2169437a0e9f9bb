/**
 * @file ref.c  Reference-element data of thesis eq. 3.23 (mass, stiffness and flux matrices),
 * computed at start-up in double precision with collapsed Gauss-Jacobi quadrature.
 */
#include "sq_ref.h"
#include "sq_physics.h"

#include <math.h>
#include <string.h>

const int sq_ref_face_vertices[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

/** Vertices of the reference tetrahedron. */
static const double ref_vertex[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

void sq_ref_face_point(int face, const double chi[2], double xi[3]) {
  const double *p0 = ref_vertex[sq_ref_face_vertices[face][0]];
  const double *p1 = ref_vertex[sq_ref_face_vertices[face][1]];
  const double *p2 = ref_vertex[sq_ref_face_vertices[face][2]];
  for (int e = 0; e < 3; e++) xi[e] = p0[e] + chi[0] * (p1[e] - p0[e]) + chi[1] * (p2[e] - p0[e]);
}

void sq_ref_face_neighbor_chi(int orient, const double chi[2], double chi_out[2]) {
  /*
   * Barycentrics of the point w.r.t. our face vertices (g0,g1,g2); the neighbour's vertices are
   * (g_h, g_{h-1}, g_{h-2}), so its chi'_1 = beta_{h-1}, chi'_2 = beta_{h-2} (thesis Table 3.1).
   */
  const double bary[3] = {1.0 - chi[0] - chi[1], chi[0], chi[1]};
  chi_out[0] = bary[(orient + 2) % 3];
  chi_out[1] = bary[(orient + 1) % 3];
}

void sq_ref_destroy(sq_ref *ref) {
  if (!ref) return;
  SQ_FREE(ref->vol_point);
  SQ_FREE(ref->vol_weight);
  SQ_FREE(ref->tri_point);
  SQ_FREE(ref->tri_weight);
  SQ_FREE(ref->mass);
  for (int e = 0; e < 3; e++) SQ_FREE(ref->stiff[e]);
  for (int j = 0; j < 4; j++) SQ_FREE(ref->flux_local[j]);
  for (int m = 0; m < 48; m++) SQ_FREE(ref->flux_neighbor[m]);
  for (int j = 0; j < 4; j++) SQ_FREE(ref->face_project[j]);
  for (int h = 0; h < 3; h++) SQ_FREE(ref->face_rotate[h]);
  SQ_FREE(ref);
}

/**
 * Replace quadrature round-off in entries that are exactly zero in exact arithmetic by 0, so that
 * sparsity patterns are exact.  Measured for orders 2..7: every true non-zero entry is at least
 * 6e-7 times the matrix's largest entry, round-off stays below 1e-14 times it, so the cut at 1e-13
 * leaves six decades of margin on either side.
 */
static void clean_roundoff(int count, double *matrix) {
  double largest = 0.0;
  for (int m = 0; m < count; m++) largest = fmax(largest, fabs(matrix[m]));
  const double threshold = 1e-13 * largest;
  for (int m = 0; m < count; m++)
    if (fabs(matrix[m]) < threshold) matrix[m] = 0.0;
}

/**
 * out(l,k) = sum_q weight[q] left[q*nleft + l] right[q*nright + k], nleft x nright column-major:
 * the quadrature of a product of two basis-valued tables.
 */
static void weighted_product(int npoints, int nleft, int nright, const double *weight, const double *left,
                             const double *right, double *out) {
  memset(out, 0, sizeof(double) * (size_t)nleft * (size_t)nright);
  for (int q = 0; q < npoints; q++) {
    const double *left_q = left + (size_t)q * (size_t)nleft;
    const double *right_q = right + (size_t)q * (size_t)nright;
    for (int k = 0; k < nright; k++) {
      const double wr = weight[q] * right_q[k];
      double *column = out + (size_t)k * (size_t)nleft;
      for (int l = 0; l < nleft; l++) column[l] += left_q[l] * wr;
    }
  }
  clean_roundoff(nleft * nright, out);
}

/** Fill every matrix of @p ref (order and nbasis set). Partial allocations are freed by the caller. */
static int ref_build(sq_ref *ref) {
  const int order = ref->order, nbasis = ref->nbasis;
  /* n = O+2 points per direction: exact to degree 2O+3 >= 2O+2 promised in sq_ref.h. */
  const int npoints_1d = order + 2;
  SQ_CALL(sq_quad_tet(npoints_1d, &ref->vol_point, &ref->vol_weight, &ref->nvol));
  SQ_CALL(sq_quad_tri(npoints_1d, &ref->tri_point, &ref->tri_weight, &ref->ntri));
  const int nvol = ref->nvol, ntri = ref->ntri;
  const size_t bb = (size_t)nbasis * (size_t)nbasis;

  SQ_CALL(SQ_CALLOC(ref->mass, nbasis));
  for (int e = 0; e < 3; e++) SQ_CALL(SQ_CALLOC(ref->stiff[e], bb));
  for (int j = 0; j < 4; j++) SQ_CALL(SQ_CALLOC(ref->flux_local[j], bb));
  for (int m = 0; m < 48; m++) SQ_CALL(SQ_CALLOC(ref->flux_neighbor[m], bb));

  /* Volume tables: values [q*B + k], gradients per direction e [e][q*B + k]. */
  double *vol_value = NULL, *vol_grad = NULL, *grad_point = NULL;
  int ierr = SQ_CALLOC(vol_value, (size_t)nvol * nbasis);
  if (!ierr) ierr = SQ_CALLOC(vol_grad, 3 * (size_t)nvol * nbasis);
  if (!ierr) ierr = SQ_CALLOC(grad_point, 3 * (size_t)nbasis);
  if (!ierr) {
    for (int q = 0; q < nvol; q++) {
      const double *xi = ref->vol_point + 3 * (size_t)q;
      sq_basis_eval(order, xi, vol_value + (size_t)q * nbasis);
      sq_basis_grad(order, xi, grad_point);
      for (int k = 0; k < nbasis; k++)
        for (int e = 0; e < 3; e++) vol_grad[((size_t)e * nvol + q) * nbasis + k] = grad_point[3 * k + e];
    }
    /* M_kl = int psi_k psi_l: diagonal by orthogonality. */
    for (int q = 0; q < nvol; q++)
      for (int k = 0; k < nbasis; k++) {
        const double value = vol_value[(size_t)q * nbasis + k];
        ref->mass[k] += ref->vol_weight[q] * value * value;
      }
    /* K^xi_e(l,k) = int d(psi_l)/d(xi_e) psi_k (eq. 3.23). */
    for (int e = 0; e < 3; e++)
      weighted_product(nvol, nbasis, nbasis, ref->vol_weight, vol_grad + (size_t)e * nvol * nbasis, vol_value,
                       ref->stiff[e]);
  }
  SQ_FREE(vol_value);
  SQ_FREE(vol_grad);
  SQ_FREE(grad_point);
  if (ierr) return ierr;

  /*
   * Face tables: face_value[j] = psi_k(xi^j(chi_q)) and neighbour_value[i][h] = psi_k(xi^i(chi'_h(chi_q))),
   * each [q*B + k].  Then F^-_j = sum_q w_q psi(xi^j) psi(xi^j)^T and
   * F^+_{j,i,h} = sum_q w_q psi(xi^j) psi(xi^i(chi'_h))^T (eq. 3.23).
   */
  double *face_value = NULL, *neighbor_value = NULL;
  ierr = SQ_CALLOC(face_value, 4 * (size_t)ntri * nbasis);
  if (!ierr) ierr = SQ_CALLOC(neighbor_value, 12 * (size_t)ntri * nbasis);
  if (!ierr) {
    for (int i = 0; i < 4; i++) {
      for (int q = 0; q < ntri; q++) {
        const double *chi = ref->tri_point + 2 * (size_t)q;
        double xi[3];
        sq_ref_face_point(i, chi, xi);
        sq_basis_eval(order, xi, face_value + ((size_t)i * ntri + q) * nbasis);
        for (int h = 0; h < 3; h++) {
          double chi_neighbor[2];
          sq_ref_face_neighbor_chi(h, chi, chi_neighbor);
          sq_ref_face_point(i, chi_neighbor, xi);
          sq_basis_eval(order, xi, neighbor_value + (((size_t)i * 3 + h) * ntri + q) * nbasis);
        }
      }
    }
    for (int j = 0; j < 4; j++) {
      const double *ours = face_value + (size_t)j * ntri * nbasis;
      weighted_product(ntri, nbasis, nbasis, ref->tri_weight, ours, ours, ref->flux_local[j]);
      for (int i = 0; i < 4; i++)
        for (int h = 0; h < 3; h++)
          weighted_product(ntri, nbasis, nbasis, ref->tri_weight, ours,
                           neighbor_value + ((size_t)i * 3 + h) * ntri * nbasis,
                           ref->flux_neighbor[sq_ref_flux_index(j, i, h)]);
    }
  }
  /*
   * Face basis tables: theta_m(chi_q) and theta_m(chi'_h(chi_q)), each [q*Bf + m].  Then
   * E_j = sum_q w_q psi(xi^j(chi_q)) theta(chi_q)^T and R_h = sum_q w_q theta(chi'_h(chi_q)) theta(chi_q)^T,
   * both exact: the integrands have degree <= 2O-2.
   */
  const int nface = ref->nface_basis;
  double *theta = NULL, *theta_rotated = NULL;
  if (!ierr) ierr = SQ_CALLOC(theta, (size_t)ntri * nface);
  if (!ierr) ierr = SQ_CALLOC(theta_rotated, 3 * (size_t)ntri * nface);
  for (int j = 0; j < 4 && !ierr; j++) ierr = SQ_CALLOC(ref->face_project[j], (size_t)nbasis * nface);
  for (int h = 0; h < 3 && !ierr; h++) ierr = SQ_CALLOC(ref->face_rotate[h], (size_t)nface * nface);
  if (!ierr) {
    for (int q = 0; q < ntri; q++) {
      const double *chi = ref->tri_point + 2 * (size_t)q;
      sq_face_basis_eval(order, chi, theta + (size_t)q * nface);
      for (int h = 0; h < 3; h++) {
        double chi_neighbor[2];
        sq_ref_face_neighbor_chi(h, chi, chi_neighbor);
        sq_face_basis_eval(order, chi_neighbor, theta_rotated + ((size_t)h * ntri + q) * nface);
      }
    }
    for (int j = 0; j < 4; j++)
      weighted_product(ntri, nbasis, nface, ref->tri_weight, face_value + (size_t)j * ntri * nbasis, theta,
                       ref->face_project[j]);
    for (int h = 0; h < 3; h++)
      weighted_product(ntri, nface, nface, ref->tri_weight, theta_rotated + (size_t)h * ntri * nface, theta,
                       ref->face_rotate[h]);
  }
  SQ_FREE(theta);
  SQ_FREE(theta_rotated);
  SQ_FREE(face_value);
  SQ_FREE(neighbor_value);
  return ierr;
}

int sq_ref_create(int order, sq_ref **ref) {
  *ref = NULL;
  SQ_CHECK(order >= SQ_ORDER_MIN && order <= SQ_ORDER_MAX, SQ_ERR_INPUT,
           "convergence order %d is not supported: choose an order from %d to %d", order, SQ_ORDER_MIN, SQ_ORDER_MAX);
  sq_ref *data = NULL;
  SQ_CALL(SQ_CALLOC(data, 1));
  data->order = order;
  data->nbasis = sq_nbasis(order);
  data->nface_basis = sq_nface_basis(order);
  const int ierr = ref_build(data);
  if (ierr) {
    sq_ref_destroy(data);
    return ierr;
  }
  *ref = data;
  return SQ_SUCCESS;
}

/* Non-zeros of the rows < nr, columns < nc of the matrix a with entry (l, k) at a[l rs + k cs], relative to its
 * largest entry; the rows and columns that hold any in @p rows / @p cols (either may be NULL). */
static double count_nonzero(const double *a, int rs, int cs, int nr, int nc, int *rows, int *cols) {
#define A(l, k) fabs(a[(size_t)(l)*rs + (size_t)(k)*cs])
  double amax = 0.0;
  for (int k = 0; k < nc; ++k)
    for (int l = 0; l < nr; ++l) amax = fmax(amax, A(l, k));
  int nnz = 0, nrow = 0, ncol = 0;
  for (int l = 0; l < nr; ++l) {
    int any = 0;
    for (int k = 0; k < nc; ++k) any |= A(l, k) > 1e-12 * amax;
    nrow += any;
  }
  for (int k = 0; k < nc; ++k) {
    int any = 0;
    for (int l = 0; l < nr; ++l) {
      const int nz = A(l, k) > 1e-12 * amax;
      nnz += nz;
      any |= nz;
    }
    ncol += any;
  }
#undef A
  if (rows) *rows = nrow;
  if (cols) *cols = ncol;
  return nnz;
}

void sq_ref_flops_nonzero(const sq_ref *ref, double f[3]) {
  const int O = ref->order, B = ref->nbasis, Bf = ref->nface_basis;
  const double star = 2.0 * SQ_STAR_NNZ, solver = 2.0 * 81;
  /* predictor: D^i = -sum_d Kder_d D^{i-1} A*_d^T on the nb(O-i) x nb(O-i+1) block, Kder_d(l,k) = stiff_d(k,l),
   * then the Taylor term */
  double ader = 9.0 * B;
  for (int i = 1; i < O; ++i) {
    const int nin = sq_nbasis(O - i + 1), nout = sq_nbasis(O - i);
    for (int d = 0; d < 3; ++d) {
      int rows, cols;
      ader += 18.0 * count_nonzero(ref->stiff[d], B, 1, nout, nin, &rows, &cols) + star * (rows < cols ? rows : cols);
    }
    ader += 18.0 * nout;
  }
  double local = 0.0;
  for (int d = 0; d < 3; ++d) {
    int rows, cols;
    local += 18.0 * count_nonzero(ref->stiff[d], 1, B, B, B, &rows, &cols) + star * (rows < cols ? rows : cols);
  }
  double proj[4];
  for (int j = 0; j < 4; ++j) {
    proj[j] = count_nonzero(ref->face_project[j], 1, B, B, Bf, NULL, NULL);
    local += 18.0 * 2.0 * proj[j] + solver * Bf;
  }
  double nb = 0.0;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 4; ++i)
      for (int h = 0; h < 3; ++h)
        nb += 18.0 * (proj[j] + proj[i] + count_nonzero(ref->face_rotate[h], 1, Bf, Bf, Bf, NULL, NULL)) + solver * Bf;
  f[0] = ader;
  f[1] = local;
  f[2] = nb / 12.0; /* four faces, each averaged over its 12 (i, h) */
}
