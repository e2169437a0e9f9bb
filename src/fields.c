/** @file fields.c  Solution values for output: cell averages, vertex values, free surface, energies. */
#include "sq_fields.h"

#include <stdlib.h>
#include <string.h>

const char *const sq_quantity_names[9] = {"s_xx", "s_yy", "s_zz", "s_xy", "s_yz", "s_xz", "v1", "v2", "v3"};

int sq_quantity_index(const char *name) {
  for (int p = 0; p < 9; ++p)
    if (!strcmp(name, sq_quantity_names[p])) return p;
  return -1;
}

static double dof(const sq_disc *d, int64_t e, int k, int p) {
  const size_t i = ((size_t)e * 9 + p) * d->nbasis + k;
  return d->opt.precision == SQ_F64 ? ((const double *)d->dofs)[i] : (double)((const float *)d->dofs)[i];
}

void sq_fields_cell_average(const sq_disc *d, int p, double *out) {
  static const double centre[3] = {0.25, 0.25, 0.25};
  double phi[84];
  sq_basis_eval(d->opt.order, centre, phi); /* psi_0 is the constant; the others average to zero */
  for (int64_t c = 0; c < d->mesh->ncell; ++c) {
    const int64_t e = d->elem_of[c];
    out[c] = e >= 0 && !d->is_ghost[e] ? dof(d, e, 0, p) * phi[0] : 0.0; /* MPI: other ranks' cells 0 */
  }
}

static double eval_at(const sq_disc *d, int64_t e, const double *phi, int p) {
  double s = 0.0;
  for (int k = 0; k < d->nbasis; ++k) s += phi[k] * dof(d, e, k, p);
  return s;
}

void sq_fields_vertex_values(const sq_disc *d, int p, double *out) {
  const sq_mesh *m = d->mesh;
  static const double corner[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double phi[4][84];
  for (int v = 0; v < 4; ++v) sq_basis_eval(d->opt.order, corner[v], phi[v]);
  int *count = calloc((size_t)(m->nvert > 0 ? m->nvert : 1), sizeof(int));
  memset(out, 0, sizeof(double) * (size_t)m->nvert);
  for (int64_t c = 0; c < m->ncell; ++c) {
    const int64_t e = d->elem_of[c];
    if (e < 0 || d->is_ghost[e]) continue;
    for (int v = 0; v < 4; ++v) {
      const int64_t id = m->cell_vert[c * 4 + v];
      out[id] += eval_at(d, e, phi[v], p);
      if (count) count[id]++;
    }
  }
  for (int64_t v = 0; v < m->nvert; ++v)
    if (count && count[v] > 0) out[v] /= count[v];
  free(count);
}

int sq_surface_create(const sq_mesh *m, sq_surface **out) {
  sq_surface *s;
  SQ_CALL(SQ_CALLOC(s, 1));
  *out = s;
  for (int64_t i = 0; i < m->ncell * 4; ++i) s->nface += m->face_bc[i] == SQ_BC_FREE && m->face_neighbor[i] < 0;
  const int64_t n = s->nface > 0 ? s->nface : 1;
  SQ_CALL(SQ_CALLOC(s->cell, n));
  SQ_CALL(SQ_CALLOC(s->face, n));
  SQ_CALL(SQ_CALLOC(s->tri, 3 * n));
  int64_t k = 0;
  for (int64_t c = 0; c < m->ncell; ++c)
    for (int f = 0; f < 4; ++f) {
      if (m->face_bc[c * 4 + f] != SQ_BC_FREE || m->face_neighbor[c * 4 + f] >= 0) continue;
      s->cell[k] = c;
      s->face[k] = (int8_t)f;
      for (int v = 0; v < 3; ++v) s->tri[k * 3 + v] = m->cell_vert[c * 4 + sq_ref_face_vertices[f][v]];
      ++k;
    }
  return SQ_SUCCESS;
}

void sq_surface_destroy(sq_surface *s) {
  if (!s) return;
  SQ_FREE(s->cell);
  SQ_FREE(s->face);
  SQ_FREE(s->tri);
  SQ_FREE(s);
}

void sq_fields_surface_values(const sq_disc *d, const sq_surface *s, int p, double *out) {
  double phi[4][84];
  for (int f = 0; f < 4; ++f) {
    static const double chi[2] = {1.0 / 3.0, 1.0 / 3.0};
    double xi[3];
    sq_ref_face_point(f, chi, xi);
    sq_basis_eval(d->opt.order, xi, phi[f]);
  }
  for (int64_t i = 0; i < s->nface; ++i) {
    const int64_t e = d->elem_of[s->cell[i]];
    out[i] = e >= 0 && !d->is_ghost[e] ? eval_at(d, e, phi[s->face[i]], p) : 0.0;
  }
}

static void energy_split_block(int64_t lo, int64_t hi, double *acc, const void *ctx) {
  const sq_disc *d = ctx;
  const int B = d->nbasis;
  for (int64_t e = lo; e < hi; ++e) {
    if (d->is_ghost[e]) continue;
    const int64_t c = d->cell_of[e];
    const double jac = 6.0 * d->mesh->volume[c];
    const sq_material *mat = &d->material[c];
    for (int k = 0; k < B; ++k) {
      double q[9];
      for (int p = 0; p < 9; ++p) q[p] = dof(d, e, k, p);
      const double w = jac * d->ref->mass[k];
      const double ke = 0.5 * mat->rho * (q[6] * q[6] + q[7] * q[7] + q[8] * q[8]);
      acc[0] += w * ke;
      acc[1] += w * (sq_energy_density(mat, q) - ke);
    }
  }
}

void sq_fields_energy(const sq_disc *d, double *kinetic, double *elastic) {
  /* The energy density is a quadratic form in q and the basis is orthogonal (int psi_k psi_l =
   * M_k delta_kl), so per element  int e(q) = |J| sum_k M_k e(Q_k)  exactly, with Q_k the 9
   * coefficients of psi_k.  Threaded, in a fixed order. */
  double sums[2];
  sq_sum_blocks(d->nelem, 2, energy_split_block, d, sums);
  *kinetic = sums[0];
  *elastic = sums[1];
}
