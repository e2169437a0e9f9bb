/**
 * @file qs_mesh.c  The second-order mesh of the quasi-static solver: edge nodes, tiles, boundary conditions and
 * the fault's split-node offsets (sq_qs.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_qs.h"
#include "sq_qs_part.h"
#include "sq_ref.h"

typedef struct edge_key {
  int64_t lo, hi, slot; /* slot = 6 cell + local edge */
} edge_key;

static int edge_cmp(const void *pa, const void *pb) {
  const edge_key *a = pa, *b = pb;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  return (a->slot > b->slot) - (a->slot < b->slot);
}

static int i64_cmp(const void *pa, const void *pb) {
  const int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

static int build_edges(sq_qs_mesh *qm) {
  const sq_mesh *m = qm->lin;
  const int64_t nc = m->ncell;
  edge_key *k = malloc(sizeof(edge_key) * (size_t)(6 * nc));
  SQ_CHECK(k, SQ_ERR_MEMORY, "quasi-static mesh: no memory for %lld edges", (long long)(6 * nc));
  for (int64_t c = 0; c < nc; ++c)
    for (int e = 0; e < 6; ++e) {
      const int64_t a = m->cell_vert[4 * c + sq_qs_edge_vertices[e][0]],
                    b = m->cell_vert[4 * c + sq_qs_edge_vertices[e][1]];
      k[6 * c + e] = (edge_key){a < b ? a : b, a < b ? b : a, 6 * c + e};
    }
  qsort(k, (size_t)(6 * nc), sizeof(edge_key), edge_cmp);
  int64_t ne = 0;
  for (int64_t i = 0; i < 6 * nc; ++i)
    if (i == 0 || k[i].lo != k[i - 1].lo || k[i].hi != k[i - 1].hi) ++ne;
  qm->nedge = ne;
  qm->nnode = qm->nvert + ne;
  int ierr = SQ_CALLOC(qm->edge_vert, 2 * ne);
  if (!ierr) ierr = SQ_CALLOC(qm->cell_node, 10 * nc);
  if (!ierr) ierr = SQ_CALLOC(qm->xyz, 3 * qm->nnode);
  if (ierr) {
    free(k);
    return ierr;
  }
  int64_t e = -1;
  for (int64_t i = 0; i < 6 * nc; ++i) {
    if (i == 0 || k[i].lo != k[i - 1].lo || k[i].hi != k[i - 1].hi) {
      ++e;
      qm->edge_vert[2 * e] = k[i].lo;
      qm->edge_vert[2 * e + 1] = k[i].hi;
    }
    qm->cell_node[10 * (k[i].slot / 6) + 4 + k[i].slot % 6] = qm->nvert + e;
  }
  free(k);
  for (int64_t c = 0; c < nc; ++c)
    for (int a = 0; a < 4; ++a) qm->cell_node[10 * c + a] = m->cell_vert[4 * c + a];
  /* the edges of each vertex */
  SQ_CALL(SQ_CALLOC(qm->vert_edge_ptr, qm->nvert + 1));
  SQ_CALL(SQ_CALLOC(qm->vert_edge, 2 * ne + 1));
  for (int64_t i = 0; i < 2 * ne; ++i) ++qm->vert_edge_ptr[qm->edge_vert[i] + 1];
  for (int64_t v = 0; v < qm->nvert; ++v) qm->vert_edge_ptr[v + 1] += qm->vert_edge_ptr[v];
  int64_t *fill = malloc(sizeof(int64_t) * (size_t)(qm->nvert + 1));
  SQ_CHECK(fill, SQ_ERR_MEMORY, "quasi-static mesh: no memory for the vertices' edges");
  memcpy(fill, qm->vert_edge_ptr, sizeof(int64_t) * (size_t)(qm->nvert + 1));
  for (int64_t i = 0; i < 2 * ne; ++i) qm->vert_edge[fill[qm->edge_vert[i]]++] = i / 2;
  free(fill);
  memcpy(qm->xyz, m->vert, sizeof(double) * 3 * (size_t)qm->nvert);
  for (int64_t i = 0; i < ne; ++i)
    for (int d = 0; d < 3; ++d)
      qm->xyz[3 * (qm->nvert + i) + d] =
          0.5 * (m->vert[3 * qm->edge_vert[2 * i] + d] + m->vert[3 * qm->edge_vert[2 * i + 1] + d]);
  return SQ_SUCCESS;
}

static int build_tiles(sq_qs_mesh *qm, int tile_size) {
  const int64_t nc = qm->ncell;
  qm->ntile = (int)((nc + tile_size - 1) / tile_size);
  SQ_CALL(SQ_CALLOC(qm->tile, qm->ntile));
  int64_t *buf = malloc(sizeof(int64_t) * 10 * (size_t)tile_size);
  SQ_CHECK(buf, SQ_ERR_MEMORY, "quasi-static mesh: no memory for a tile of %d cells", tile_size);
  for (int t = 0; t < qm->ntile; ++t) {
    sq_qs_tile *tl = qm->tile + t;
    tl->c0 = (int64_t)t * tile_size;
    tl->c1 = tl->c0 + tile_size < nc ? tl->c0 + tile_size : nc;
    const int64_t n10 = 10 * (tl->c1 - tl->c0);
    memcpy(buf, qm->cell_node + 10 * tl->c0, sizeof(int64_t) * (size_t)n10);
    qsort(buf, (size_t)n10, sizeof(int64_t), i64_cmp);
    int64_t nu = 0;
    for (int64_t i = 0; i < n10; ++i)
      if (i == 0 || buf[i] != buf[i - 1]) buf[nu++] = buf[i];
    tl->nnode = nu;
    int ierr = SQ_CALLOC(tl->node, nu);
    if (!ierr) ierr = SQ_CALLOC(tl->local, n10);
    if (ierr) {
      free(buf);
      return ierr;
    }
    memcpy(tl->node, buf, sizeof(int64_t) * (size_t)nu);
    for (int64_t i = 0; i < nu; ++i)
      if (tl->node[i] < qm->nvert) tl->ncoarse = i + 1;
    for (int64_t i = 0; i < n10; ++i) {
      const int64_t g = qm->cell_node[10 * tl->c0 + i];
      const int64_t *p = bsearch(&g, tl->node, (size_t)nu, sizeof(int64_t), i64_cmp);
      tl->local[i] = p - tl->node;
    }
  }
  free(buf);
  return SQ_SUCCESS;
}

int sq_qs_mesh_build_tiles(sq_qs_mesh *qm, int tile_size) {
  SQ_CHECK(tile_size >= 1, SQ_ERR_INPUT, "quasi-static mesh: tile size must be >= 1 (got %d)", tile_size);
  return build_tiles(qm, tile_size);
}

int sq_qs_mesh_create(const sq_mesh *lin, const double *lambda, const double *mu, int tile_size, sq_qs_mesh **out) {
  *out = NULL;
  SQ_CHECK(tile_size >= 1, SQ_ERR_INPUT, "quasi-static mesh: tile size must be >= 1 (got %d)", tile_size);
  SQ_CHECK(lin->face_neighbor && lin->jac_inv, SQ_ERR_INTERNAL, "quasi-static mesh: the mesh %s is not finalized",
           lin->source);
  for (int64_t c = 0; c < lin->ncell; ++c)
    SQ_CHECK(mu[c] > 0 && lambda[c] > -2.0 / 3.0 * mu[c], SQ_ERR_INPUT,
             "quasi-static mesh: cell %lld has lambda %g, mu %g: not a stable elastic material", (long long)c,
             lambda[c], mu[c]);
  sq_qs_mesh *qm = calloc(1, sizeof(*qm));
  SQ_CHECK(qm, SQ_ERR_MEMORY, "quasi-static mesh: no memory");
  qm->lin = lin;
  qm->nvert = lin->nvert;
  qm->ncell = lin->ncell;
  int ierr = build_edges(qm);
  if (!ierr) ierr = SQ_CALLOC(qm->geo, SQ_QS_NGEO * qm->ncell);
  if (!ierr) ierr = SQ_CALLOC(qm->geo32, SQ_QS_NGEO * qm->ncell);
  if (!ierr) ierr = SQ_CALLOC(qm->fixed, 3 * qm->nnode);
  if (!ierr) ierr = SQ_CALLOC(qm->ubc, 3 * qm->nnode);
  if (!ierr) ierr = build_tiles(qm, tile_size);
  if (ierr) {
    sq_qs_mesh_destroy(qm);
    return ierr;
  }
  for (int64_t c = 0; c < qm->ncell; ++c) {
    double *g = qm->geo + SQ_QS_NGEO * c;
    memcpy(g, lin->jac_inv + 9 * c, sizeof(double) * 9);
    g[9] = lin->volume[c];
    g[10] = lambda[c];
    g[11] = mu[c];
    for (int k = 0; k < SQ_QS_NGEO; ++k) qm->geo32[SQ_QS_NGEO * c + k] = (float)g[k];
  }
  *out = qm;
  return SQ_SUCCESS;
}

void sq_qs_mesh_destroy(sq_qs_mesh *qm) {
  if (!qm) return;
  for (int t = 0; t < qm->ntile && qm->tile; ++t) {
    SQ_FREE(qm->tile[t].node);
    SQ_FREE(qm->tile[t].local);
  }
  SQ_FREE(qm->tile);
  SQ_FREE(qm->cell_node);
  SQ_FREE(qm->edge_vert);
  SQ_FREE(qm->vert_edge_ptr);
  SQ_FREE(qm->vert_edge);
  SQ_FREE(qm->xyz);
  SQ_FREE(qm->geo);
  SQ_FREE(qm->geo32);
  SQ_FREE(qm->fixed);
  SQ_FREE(qm->ubc);
  SQ_FREE(qm->off_cell);
  SQ_FREE(qm->off_loc);
  SQ_FREE(qm->off_u);
  SQ_FREE(qm->own);
  SQ_FREE(qm->gnode);
  free(qm);
}

/* The local node of the edge between local vertices a and b. */
static int edge_local(int a, int b) {
  for (int e = 0; e < 6; ++e)
    if ((sq_qs_edge_vertices[e][0] == a && sq_qs_edge_vertices[e][1] == b) ||
        (sq_qs_edge_vertices[e][0] == b && sq_qs_edge_vertices[e][1] == a))
      return 4 + e;
  return -1;
}

/* The 6 local nodes of face f of a cell: its 3 vertices, then the edges (v0 v1), (v1 v2), (v2 v0). */
static void face_nodes(int f, int loc[6]) {
  const int *v = sq_ref_face_vertices[f];
  for (int k = 0; k < 3; ++k) {
    loc[k] = v[k];
    loc[3 + k] = edge_local(v[k], v[(k + 1) % 3]);
  }
}

int sq_qs_set_bc(sq_qs_mesh *qm, const sq_qs_bc_kind kind[256], sq_qs_field_fn dirichlet, void *ctx) {
  const sq_mesh *m = qm->lin;
  memset(qm->fixed, 0, 3 * (size_t)qm->nnode);
  memset(qm->ubc, 0, sizeof(double) * 3 * (size_t)qm->nnode);
  /* rollers first: a node shared with a Dirichlet face takes the Dirichlet values */
  for (int pass = 0; pass < 2; ++pass)
    for (int64_t c = 0; c < m->ncell; ++c)
      for (int f = 0; f < 4; ++f) {
        if (m->face_neighbor[4 * c + f] >= 0) continue;
        const sq_qs_bc_kind k = kind[(uint8_t)m->face_bc[4 * c + f]];
        if (k != (pass ? SQ_QS_DIRICHLET : SQ_QS_ROLLER)) continue;
        int loc[6];
        face_nodes(f, loc);
        if (k == SQ_QS_ROLLER) {
          const double *n = m->face_normal + 12 * c + 3 * f;
          int axis = -1;
          for (int d = 0; d < 3; ++d)
            if (fabs(n[d]) > 1 - 1e-8) axis = d;
          SQ_CHECK(axis >= 0, SQ_ERR_INPUT,
                   "quasi-static boundary: roller face %d of cell %lld (tag %d) has the normal (%g, %g, %g), not "
                   "along a coordinate axis",
                   f, (long long)sq_mesh_global_cell(m, c), m->face_bc[4 * c + f], n[0], n[1], n[2]);
          for (int j = 0; j < 6; ++j) {
            const int64_t p = qm->cell_node[10 * c + loc[j]];
            qm->fixed[3 * p + axis] = 1;
            qm->ubc[3 * p + axis] = 0;
          }
        } else
          for (int j = 0; j < 6; ++j) {
            const int64_t p = qm->cell_node[10 * c + loc[j]];
            double u[3] = {0, 0, 0};
            if (dirichlet) dirichlet(ctx, qm->xyz + 3 * p, u);
            for (int i = 0; i < 3; ++i) {
              qm->fixed[3 * p + i] = 1;
              qm->ubc[3 * p + i] = u[i];
            }
          }
      }
  return SQ_SUCCESS;
}

int sq_qs_set_fault(sq_qs_mesh *qm, const double nref[3], sq_qs_field_fn slip, void *ctx) {
  const sq_mesh *m = qm->lin;
  const int64_t nn = qm->nnode;
  double *nrm = NULL;
  int8_t *flag = NULL; /* 1: fault node, 2: tip */
  int32_t *ecount = NULL;
  uint8_t *eouter = NULL;
  int ierr = SQ_CALLOC(nrm, 3 * nn);
  if (!ierr) ierr = SQ_CALLOC(flag, nn);
  if (!ierr) ierr = SQ_CALLOC(ecount, qm->nedge);
  if (!ierr) ierr = SQ_CALLOC(eouter, qm->nedge);
  if (ierr) goto done;
  qm->nfault_face = 0;
  for (int64_t c = 0; c < m->ncell; ++c)
    for (int f = 0; f < 4; ++f) {
      const int64_t nb = m->face_neighbor[4 * c + f];
      int loc[6];
      face_nodes(f, loc);
      if (nb < 0)
        for (int j = 3; j < 6; ++j) eouter[qm->cell_node[10 * c + loc[j]] - qm->nvert] = 1;
      if (m->face_bc[4 * c + f] != SQ_BC_RUPTURE || nb < c) continue;
      ++qm->nfault_face;
      const double *n = m->face_normal + 12 * c + 3 * f;
      const double s = n[0] * nref[0] + n[1] * nref[1] + n[2] * nref[2] < 0 ? -1 : 1;
      for (int j = 0; j < 6; ++j) {
        const int64_t p = qm->cell_node[10 * c + loc[j]];
        flag[p] = 1;
        for (int d = 0; d < 3; ++d) nrm[3 * p + d] += s * n[d];
        if (j >= 3) ++ecount[p - qm->nvert];
      }
    }
  /* tips: fault edges on one fault face only, not on the outer boundary */
  for (int64_t e = 0; e < qm->nedge; ++e)
    if (ecount[e] == 1 && !eouter[e]) {
      flag[qm->nvert + e] = 2;
      flag[qm->edge_vert[2 * e]] = 2;
      flag[qm->edge_vert[2 * e + 1]] = 2;
    }
  qm->nfault_node = qm->ntip_node = 0;
  for (int64_t p = 0; p < nn; ++p) {
    qm->nfault_node += flag[p] != 0;
    qm->ntip_node += flag[p] == 2;
  }
  /* offsets of every cell at every slipping fault node */
  int64_t cap = 0;
  for (int pass = 0; pass < 2; ++pass) {
    int64_t k = 0;
    for (int64_t c = 0; c < m->ncell; ++c)
      for (int a = 0; a < 10; ++a) {
        const int64_t p = qm->cell_node[10 * c + a];
        if (!flag[p]) continue;
        if (pass) {
          const double *x = qm->xyz + 3 * p, *n = nrm + 3 * p, *g = m->centroid + 3 * c;
          const double side = (g[0] - x[0]) * n[0] + (g[1] - x[1]) * n[1] + (g[2] - x[2]) * n[2];
          double s[3];
          slip(ctx, x, s);
          qm->off_cell[k] = c;
          qm->off_loc[k] = (int8_t)a;
          const double h = (side > 0 ? 0.5 : -0.5) * (flag[p] == 2 ? 0.5 : 1);
          for (int d = 0; d < 3; ++d) qm->off_u[3 * k + d] = h * s[d];
        }
        ++k;
      }
    if (!pass) {
      cap = k;
      SQ_FREE(qm->off_cell);
      SQ_FREE(qm->off_loc);
      SQ_FREE(qm->off_u);
      ierr = SQ_CALLOC(qm->off_cell, cap + 1);
      if (!ierr) ierr = SQ_CALLOC(qm->off_loc, cap + 1);
      if (!ierr) ierr = SQ_CALLOC(qm->off_u, 3 * cap + 3);
      if (ierr) goto done;
    }
  }
  qm->noff = cap;
done:
  SQ_FREE(nrm);
  SQ_FREE(flag);
  SQ_FREE(ecount);
  SQ_FREE(eouter);
  return ierr;
}

void sq_qs_cell_displacement(const sq_qs_mesh *qm, const double *u, int64_t c, int a, double out[3]) {
  const int64_t p = qm->cell_node[10 * c + a];
  for (int d = 0; d < 3; ++d) out[d] = u[3 * p + d];
  /* the offsets are sorted by cell */
  int64_t lo = 0, hi = qm->noff;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (qm->off_cell[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  for (int64_t k = lo; k < qm->noff && qm->off_cell[k] == c; ++k)
    if (qm->off_loc[k] == a)
      for (int d = 0; d < 3; ++d) out[d] += qm->off_u[3 * k + d];
}

void sq_qs_diag_p2(const sq_qs_mesh *qm, double *d) {
  memset(d, 0, sizeof(double) * 3 * (size_t)qm->nnode);
  for (int64_t c = 0; c < qm->ncell; ++c) {
    double de[30];
    sq_qs_elem_diag_f64(0, qm->geo + SQ_QS_NGEO * c, de);
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i) d[3 * qm->cell_node[10 * c + a] + i] += de[3 * a + i];
  }
}

void sq_qs_diag_p1(const sq_qs_mesh *qm, double *d) {
  memset(d, 0, sizeof(double) * 3 * (size_t)qm->nvert);
  for (int64_t c = 0; c < qm->ncell; ++c) {
    double de[12];
    sq_qs_elem_diag_f64(1, qm->geo + SQ_QS_NGEO * c, de);
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i) d[3 * qm->cell_node[10 * c + a] + i] += de[3 * a + i];
  }
}

void sq_qs_restrict_range_f32_multi(int64_t nvert, const int64_t *vert_edge_ptr, const int64_t *vert_edge, int nvec,
                                    int64_t v0, int64_t v1, const float *r, float *rc) {
  const int m = 3 * nvec; /* values per node */
  for (int64_t v = v0; v < v1; ++v)
    for (int i = 0; i < m; ++i) {
      float s = r[m * v + i];
      for (int64_t k = vert_edge_ptr[v]; k < vert_edge_ptr[v + 1]; ++k) s += 0.5f * r[m * (nvert + vert_edge[k]) + i];
      rc[m * (v - v0) + i] = s;
    }
}

void sq_qs_prolong_range_f32_multi(int64_t nvert, const int64_t *edge_vert, int nvec, int64_t n0, int64_t n1,
                                   const float *zc, float *z) {
  const int m = 3 * nvec;
  for (int64_t p = n0; p < n1; ++p)
    for (int i = 0; i < m; ++i)
      z[m * (p - n0) + i] =
          p < nvert ? zc[m * p + i]
                    : 0.5f * (zc[m * edge_vert[2 * (p - nvert)] + i] + zc[m * edge_vert[2 * (p - nvert) + 1] + i]);
}

void sq_qs_restrict_range_f32(int64_t nvert, const int64_t *vert_edge_ptr, const int64_t *vert_edge, int64_t v0,
                              int64_t v1, const float *r, float *rc) {
  sq_qs_restrict_range_f32_multi(nvert, vert_edge_ptr, vert_edge, 1, v0, v1, r, rc);
}

void sq_qs_prolong_range_f32(int64_t nvert, const int64_t *edge_vert, int64_t n0, int64_t n1, const float *zc,
                             float *z) {
  sq_qs_prolong_range_f32_multi(nvert, edge_vert, 1, n0, n1, zc, z);
}

void sq_qs_restrict_f32(const sq_qs_mesh *qm, const float *r, float *rc) {
  sq_qs_restrict_range_f32(qm->nvert, qm->vert_edge_ptr, qm->vert_edge, 0, qm->nvert, r, rc);
}

void sq_qs_prolong_f32(const sq_qs_mesh *qm, const float *zc, float *z) {
  sq_qs_prolong_range_f32(qm->nvert, qm->edge_vert, 0, qm->nnode, zc, z);
}
