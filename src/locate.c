/** @file locate.c  Point location: a uniform bucket grid over the cells' bounding boxes. */
#include "sq_locate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sq_locator {
  const sq_mesh *mesh;
  double lo[3], cell[3]; /* grid origin and bucket size */
  int64_t dim[3];
  int64_t *start; /* dim0*dim1*dim2 + 1: CSR offsets */
  int64_t *item;  /* cell ids per bucket, ascending */
  int ndecided;   /* points whose cell was decided by the caller (sq_locator_decide) */
  double *decided_x;
  int64_t *decided_cell;
};

static int64_t clamp_index(double v, int64_t n) {
  if (!(v > 0)) return 0; /* also NaN */
  if (v >= (double)(n - 1)) return n - 1;
  return (int64_t)v;
}

static void cell_bbox(const sq_mesh *m, int64_t c, double lo[3], double hi[3]) {
  for (int d = 0; d < 3; ++d) lo[d] = INFINITY, hi[d] = -INFINITY;
  for (int k = 0; k < 4; ++k) {
    const double *v = &m->vert[m->cell_vert[c * 4 + k] * 3];
    for (int d = 0; d < 3; ++d) lo[d] = fmin(lo[d], v[d]), hi[d] = fmax(hi[d], v[d]);
  }
}

int sq_locator_create(const sq_mesh *m, sq_locator **out) {
  sq_locator *l;
  SQ_CALL(SQ_CALLOC(l, 1));
  *out = l;
  l->mesh = m;
  double ext[3], vol = 1.0;
  for (int d = 0; d < 3; ++d) {
    l->lo[d] = m->bbox_lo[d];
    ext[d] = fmax(m->bbox_hi[d] - m->bbox_lo[d], 1e-300);
    vol *= ext[d];
  }
  /* about one bucket per cell, cube-shaped */
  const double h = cbrt(vol / (double)(m->ncell > 0 ? m->ncell : 1));
  int64_t nb = 1;
  for (int d = 0; d < 3; ++d) {
    l->dim[d] = (int64_t)fmax(1.0, fmin(1024.0, floor(ext[d] / h)));
    l->cell[d] = ext[d] / (double)l->dim[d];
    nb *= l->dim[d];
  }
  SQ_CALL(SQ_CALLOC(l->start, nb + 1));
  /* two passes: count, then fill (cells ascending within a bucket) */
  for (int pass = 0; pass < 2; ++pass) {
    int64_t *fill = NULL;
    if (pass == 1) {
      for (int64_t b = 0; b < nb; ++b) l->start[b + 1] += l->start[b];
      SQ_CALL(SQ_CALLOC(l->item, l->start[nb] > 0 ? l->start[nb] : 1));
      SQ_CALL(SQ_CALLOC(fill, nb));
    }
    for (int64_t c = 0; c < m->ncell; ++c) {
      double lo[3], hi[3];
      int64_t a[3], b[3];
      cell_bbox(m, c, lo, hi);
      for (int d = 0; d < 3; ++d) {
        a[d] = clamp_index((lo[d] - l->lo[d]) / l->cell[d] - 1e-9, l->dim[d]);
        b[d] = clamp_index((hi[d] - l->lo[d]) / l->cell[d] + 1e-9, l->dim[d]);
      }
      for (int64_t i = a[0]; i <= b[0]; ++i)
        for (int64_t j = a[1]; j <= b[1]; ++j)
          for (int64_t k = a[2]; k <= b[2]; ++k) {
            const int64_t bucket = (i * l->dim[1] + j) * l->dim[2] + k;
            if (pass == 0) l->start[bucket + 1]++;
            else l->item[l->start[bucket] + fill[bucket]++] = c;
          }
    }
    SQ_FREE(fill);
  }
  return SQ_SUCCESS;
}

void sq_locator_destroy(sq_locator *l) {
  if (!l) return;
  SQ_FREE(l->start);
  SQ_FREE(l->item);
  SQ_FREE(l->decided_x);
  SQ_FREE(l->decided_cell);
  SQ_FREE(l);
}

/* Reference coordinates of x in cell c: xi_e = sum_d dxi_e/dx_d (x_d - v0_d). */
static void phys_to_ref(const sq_mesh *m, int64_t c, const double x[3], double xi[3]) {
  const double *v0 = &m->vert[m->cell_vert[c * 4] * 3];
  const double *J = &m->jac_inv[c * 9];
  for (int e = 0; e < 3; ++e)
    xi[e] = J[e * 3 + 0] * (x[0] - v0[0]) + J[e * 3 + 1] * (x[1] - v0[1]) + J[e * 3 + 2] * (x[2] - v0[2]);
}

/* Smallest barycentric coordinate: >= 0 inside. */
static double depth(const double xi[3]) { return fmin(fmin(xi[0], xi[1]), fmin(xi[2], 1.0 - xi[0] - xi[1] - xi[2])); }

/* Reference coordinates of @p x in cell @p c, clamped onto the tetrahedron (points within the
 * tolerance outside). */
static void clamped_ref(const sq_mesh *m, int64_t c, const double x[3], double xi[3]) {
  phys_to_ref(m, c, x, xi);
  for (int e = 0; e < 3; ++e) xi[e] = fmax(0.0, xi[e]);
  const double s = xi[0] + xi[1] + xi[2];
  if (s > 1.0)
    for (int e = 0; e < 3; ++e) xi[e] /= s;
}

int sq_locator_decide(sq_locator *l, int n, const double *x, const int64_t *cell) {
  SQ_FREE(l->decided_x);
  SQ_FREE(l->decided_cell);
  l->ndecided = 0;
  SQ_CALL(SQ_CALLOC(l->decided_x, 3 * (size_t)(n > 0 ? n : 1)));
  SQ_CALL(SQ_CALLOC(l->decided_cell, n > 0 ? n : 1));
  memcpy(l->decided_x, x, sizeof(double) * 3 * (size_t)n);
  memcpy(l->decided_cell, cell, sizeof(int64_t) * (size_t)n);
  l->ndecided = n;
  return SQ_SUCCESS;
}

int64_t sq_locator_find(const sq_locator *l, const double x[3], double xi[3]) {
  for (int i = 0; i < l->ndecided; ++i) {
    if (memcmp(&l->decided_x[3 * i], x, 3 * sizeof(double))) continue;
    const int64_t c = l->decided_cell[i];
    if (c >= 0 && xi) clamped_ref(l->mesh, c, x, xi);
    return c;
  }
  return sq_locator_find_depth(l, x, xi, NULL);
}

int64_t sq_locator_find_depth(const sq_locator *l, const double x[3], double xi[3], double *depth_out) {
  const sq_mesh *m = l->mesh;
  if (depth_out) *depth_out = -INFINITY;
  int64_t ib[3];
  for (int d = 0; d < 3; ++d) {
    const double v = (x[d] - l->lo[d]) / l->cell[d];
    if (!(v > -1e-6 && v < (double)l->dim[d] + 1e-6)) return -1; /* outside the bounding box (or NaN) */
    ib[d] = clamp_index(v, l->dim[d]);
  }
  const int64_t bucket = (ib[0] * l->dim[1] + ib[1]) * l->dim[2] + ib[2];
  int64_t best = -1;
  double best_depth = -1e-9;
  for (int64_t i = l->start[bucket]; i < l->start[bucket + 1]; ++i) {
    const int64_t c = l->item[i];
    double r[3];
    phys_to_ref(m, c, x, r);
    const double dp = depth(r);
    if (dp > best_depth) { /* strictly deeper wins; ascending ids make ties go to the lowest id */
      best = c;
      best_depth = dp;
    }
  }
  if (best >= 0 && xi) clamped_ref(m, best, x, xi);
  if (best >= 0 && depth_out) *depth_out = best_depth;
  return best;
}

void sq_mesh_ref_to_phys(const sq_mesh *m, int64_t c, const double xi[3], double x[3]) {
  const int64_t *v = &m->cell_vert[c * 4];
  const double *p0 = &m->vert[v[0] * 3];
  for (int d = 0; d < 3; ++d) {
    x[d] = p0[d];
    for (int k = 1; k < 4; ++k) x[d] += xi[k - 1] * (m->vert[v[k] * 3 + d] - p0[d]);
  }
}
