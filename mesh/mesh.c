/** @file mesh.c  Mesh allocation and sq_mesh_finalize(): orientation check, face connectivity,
 *  boundary-tag checks, periodic pairing and per-cell geometry. */
#include "sq_mesh.h"
#include "sq_mesh_hash.h"
#include "sq_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char axis_name[3] = {'x', 'y', 'z'};

/* Name of the mesh for messages. */
static const char *mesh_name(const sq_mesh *m) { return m->source[0] ? m->source : "(unnamed mesh)"; }

static const char *bc_name(int tag) {
  switch (tag) {
  case SQ_BC_REGULAR: return "regular (0)";
  case SQ_BC_FREE: return "free surface (1)";
  case SQ_BC_RUPTURE: return "rupture (3)";
  case SQ_BC_ABSORB: return "absorbing (5)";
  case SQ_BC_PERIODIC: return "periodic (6)";
  default: return "unknown";
  }
}

static int is_boundary_tag(int tag) { return tag == SQ_BC_FREE || tag == SQ_BC_ABSORB || tag == SQ_BC_PERIODIC; }

/* ------------------------------------------------------------------------------------------------ */
/* Allocation                                                                                        */
/* ------------------------------------------------------------------------------------------------ */

int sq_mesh_alloc(int64_t nvert, int64_t ncell, sq_mesh **mesh) {
  SQ_CHECK(mesh, SQ_ERR_INTERNAL, "sq_mesh_alloc: NULL output pointer");
  *mesh = NULL;
  SQ_CHECK(nvert >= 0 && ncell >= 0, SQ_ERR_INPUT, "sq_mesh_alloc: negative size (%lld vertices, %lld cells)",
           (long long)nvert, (long long)ncell);
  sq_mesh *m = NULL;
  SQ_CALL(SQ_CALLOC(m, 1));
  m->nvert = nvert;
  m->ncell = ncell;
  m->nvert_global = nvert;
  m->nglobal = ncell;
  int ierr = SQ_CALLOC(m->vert, 3 * nvert);
  if (!ierr) ierr = SQ_CALLOC(m->cell_vert, 4 * ncell);
  if (!ierr) ierr = SQ_CALLOC(m->group, ncell);
  if (!ierr) ierr = SQ_CALLOC(m->face_bc, 4 * ncell);
  if (ierr) {
    sq_mesh_destroy(m);
    return ierr;
  }
  *mesh = m;
  return SQ_SUCCESS;
}

void sq_mesh_destroy(sq_mesh *m) {
  if (!m) return;
  SQ_FREE(m->vert);
  SQ_FREE(m->cell_vert);
  SQ_FREE(m->group);
  SQ_FREE(m->face_bc);
  SQ_FREE(m->face_neighbor);
  SQ_FREE(m->face_nbface);
  SQ_FREE(m->face_orient);
  SQ_FREE(m->volume);
  SQ_FREE(m->insphere);
  SQ_FREE(m->centroid);
  SQ_FREE(m->face_normal);
  SQ_FREE(m->face_area);
  SQ_FREE(m->jac_inv);
  SQ_FREE(m->global_id);
  SQ_FREE(m->vert_global);
  SQ_FREE(m->vert_writer);
  SQ_FREE(m->surface_first);
  sq_free_aligned(m);
}

/* Arrays filled by finalize; kept when present so that finalize may be called again. */
static int mesh_alloc_outputs(sq_mesh *m) {
  int64_t n = m->ncell;
  if (!m->face_neighbor) SQ_CALL(SQ_CALLOC(m->face_neighbor, 4 * n));
  if (!m->face_nbface) SQ_CALL(SQ_CALLOC(m->face_nbface, 4 * n));
  if (!m->face_orient) SQ_CALL(SQ_CALLOC(m->face_orient, 4 * n));
  if (!m->volume) SQ_CALL(SQ_CALLOC(m->volume, n));
  if (!m->insphere) SQ_CALL(SQ_CALLOC(m->insphere, n));
  if (!m->centroid) SQ_CALL(SQ_CALLOC(m->centroid, 3 * n));
  if (!m->face_normal) SQ_CALL(SQ_CALLOC(m->face_normal, 12 * n));
  if (!m->face_area) SQ_CALL(SQ_CALLOC(m->face_area, 4 * n));
  if (!m->jac_inv) SQ_CALL(SQ_CALLOC(m->jac_inv, 9 * n));
  for (int64_t cf = 0; cf < 4 * n; cf++) {
    m->face_neighbor[cf] = -1;
    m->face_nbface[cf] = -1;
    m->face_orient[cf] = -1;
  }
  return SQ_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Small helpers                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

static inline void vsub(const double *a, const double *b, double *out) {
  out[0] = a[0] - b[0];
  out[1] = a[1] - b[1];
  out[2] = a[2] - b[2];
}
static inline void vcross(const double *a, const double *b, double *out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}
static inline double vdot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Global vertex ids of face @p face of @p cell, in the outward order of sq_ref.h. */
static inline void cell_face_vertices(const sq_mesh *m, int64_t cell, int face, int64_t out[3]) {
  for (int k = 0; k < 3; k++) out[k] = m->cell_vert[cell * 4 + sq_ref_face_vertices[face][k]];
}

/* Sorted vertex triple of cell-face cf = cell*4+face: the face's identity. */
static inline void face_key(const sq_mesh *m, int64_t cf, int64_t key[3]) {
  cell_face_vertices(m, cf / 4, (int)(cf % 4), key);
  sq_sort3(key);
}

/* Capacity: a power of two at least twice @p n (load factor <= 1/2). */
static uint64_t table_capacity(int64_t n) {
  uint64_t cap = 16;
  while (cap < 2 * (uint64_t)n) cap *= 2;
  return cap;
}

/*
 * Open-addressing table of cell-faces keyed by their sorted vertex triple.  Slots hold cf or -1;
 * the key of a stored entry is recomputed from cell_vert, which keeps the table at 8 bytes a slot.
 */
typedef struct face_table {
  int64_t *slot;
  uint64_t mask;
} face_table;

static int face_table_create(int64_t nentries, face_table *t) {
  uint64_t cap = table_capacity(nentries);
  t->mask = cap - 1;
  SQ_CALL(SQ_CALLOC(t->slot, cap));
  for (uint64_t s = 0; s < cap; s++) t->slot[s] = -1;
  return SQ_SUCCESS;
}

/* Slot holding the face with @p key, or the empty slot where it belongs. */
static int64_t *face_table_find(const face_table *t, const sq_mesh *m, const int64_t key[3]) {
  uint64_t s = sq_hash3(key) & t->mask;
  for (;;) {
    int64_t cf = t->slot[s];
    if (cf < 0) return &t->slot[s];
    int64_t other[3];
    face_key(m, cf, other);
    if (other[0] == key[0] && other[1] == key[1] && other[2] == key[2]) return &t->slot[s];
    s = (s + 1) & t->mask;
  }
}

/*
 * Orientation h of a shared face: the neighbour's vertex 0 is our vertex h, and because both faces
 * are listed outward the neighbour must see (ours[h], ours[h-1], ours[h-2]).  Returns -1 otherwise.
 */
static int face_orientation(const int64_t ours[3], const int64_t theirs[3]) {
  for (int h = 0; h < 3; h++) {
    if (theirs[0] != ours[h]) continue;
    if (theirs[1] == ours[(h + 2) % 3] && theirs[2] == ours[(h + 1) % 3]) return h;
    return -1;
  }
  return -1;
}

/* Writes "(x, y, z)" of vertex @p v into @p buf. */
static const char *vertex_str(const sq_mesh *m, int64_t v, char *buf, size_t len) {
  const double *x = &m->vert[3 * v];
  snprintf(buf, len, "vertex %lld (%.9g, %.9g, %.9g)", (long long)sq_mesh_global_vert(m, v), x[0], x[1], x[2]);
  return buf;
}

/* ------------------------------------------------------------------------------------------------ */
/* Duplicate vertices (for messages about unpaired faces)                                            */
/* ------------------------------------------------------------------------------------------------ */

typedef struct vertex_key {
  double x[3];
  int64_t v;
} vertex_key;

static int cmp_vertex_key(const void *pa, const void *pb) {
  const vertex_key *a = pa, *b = pb;
  for (int d = 0; d < 3; d++)
    if (a->x[d] != b->x[d]) return a->x[d] < b->x[d] ? -1 : 1;
  return (a->v > b->v) - (a->v < b->v);
}

int sq_mesh_vertex_twins(const sq_mesh *m, int64_t **twin_out) {
  int64_t *twin = NULL;
  char *used = NULL;
  vertex_key *key = NULL;
  *twin_out = NULL;
  int ierr = SQ_CALLOC(twin, m->nvert);
  if (!ierr) ierr = SQ_CALLOC(used, m->nvert);
  if (ierr) goto done;
  for (int64_t k = 0; k < 4 * m->ncell; k++)
    if (m->cell_vert[k] >= 0 && m->cell_vert[k] < m->nvert) used[m->cell_vert[k]] = 1;
  int64_t n = 0;
  for (int64_t v = 0; v < m->nvert; v++) n += used[v];
  if ((ierr = SQ_CALLOC(key, n))) goto done;
  n = 0;
  for (int64_t v = 0; v < m->nvert; v++) {
    twin[v] = -1;
    if (!used[v]) continue;
    memcpy(key[n].x, &m->vert[3 * v], sizeof key[n].x);
    key[n++].v = v;
  }
  qsort(key, (size_t)n, sizeof *key, cmp_vertex_key);
  /* equal coordinates are adjacent after the sort: link each vertex to its predecessor (the first of
   * a group to the second) */
  for (int64_t i = 1; i < n; i++) {
    if (memcmp(key[i].x, key[i - 1].x, sizeof key[i].x) != 0) continue;
    twin[key[i].v] = key[i - 1].v;
    if (twin[key[i - 1].v] < 0) twin[key[i - 1].v] = key[i].v;
  }
  *twin_out = twin;
  twin = NULL;
done:
  SQ_FREE(twin);
  SQ_FREE(used);
  SQ_FREE(key);
  return ierr;
}

/* ------------------------------------------------------------------------------------------------ */
/* Input checks, bounding box, geometry                                                              */
/* ------------------------------------------------------------------------------------------------ */

static int mesh_check_input(const sq_mesh *m) {
  const char *name = mesh_name(m);
  SQ_CHECK(m->ncell > 0, SQ_ERR_INPUT, "mesh %s has no cells", name);
  SQ_CHECK(m->nvert >= 4, SQ_ERR_INPUT, "mesh %s has only %lld vertices", name, (long long)m->nvert);
  for (int64_t v = 0; v < m->nvert; v++) {
    const double *x = &m->vert[3 * v];
    SQ_CHECK(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]), SQ_ERR_INPUT,
             "mesh %s: vertex %lld (0-based) has a non-finite coordinate (%g, %g, %g)", name,
             (long long)sq_mesh_global_vert(m, v), x[0], x[1], x[2]);
  }
  for (int64_t c = 0; c < m->ncell; c++) {
    for (int k = 0; k < 4; k++) {
      int64_t v = m->cell_vert[4 * c + k];
      SQ_CHECK(v >= 0 && v < m->nvert, SQ_ERR_INPUT,
               "mesh %s: cell %lld (0-based) refers to vertex %lld, outside 0..%lld", name,
               (long long)sq_mesh_global_cell(m, c), (long long)v, (long long)(m->nvert - 1));
    }
    for (int j = 0; j < 4; j++) {
      int tag = m->face_bc[4 * c + j];
      SQ_CHECK(tag == SQ_BC_REGULAR || tag == SQ_BC_RUPTURE || is_boundary_tag(tag), SQ_ERR_INPUT,
               "mesh %s: face %d of cell %lld (0-based) has boundary tag %d; valid tags are 0 regular, "
               "1 free surface, 3 rupture, 5 absorbing, 6 periodic",
               name, j, (long long)sq_mesh_global_cell(m, c), tag);
    }
  }
  return SQ_SUCCESS;
}

static void mesh_bbox(sq_mesh *m) {
  for (int d = 0; d < 3; d++) {
    m->bbox_lo[d] = m->vert[d];
    m->bbox_hi[d] = m->vert[d];
  }
  for (int64_t v = 1; v < m->nvert; v++) {
    for (int d = 0; d < 3; d++) {
      double x = m->vert[3 * v + d];
      if (x < m->bbox_lo[d]) m->bbox_lo[d] = x;
      if (x > m->bbox_hi[d]) m->bbox_hi[d] = x;
    }
  }
}

/*
 * Orientation check (a) and geometry (d).  Cells must be positively oriented:
 * det[v1-v0, v2-v0, v3-v0] > 0.  Degenerate means |V| < 1e-12 (longest edge)^3.
 */
static int mesh_geometry(sq_mesh *m) {
  int64_t nbad = 0, first_bad = -1;
  double first_vol = 0, first_edge = 0;
  for (int64_t c = 0; c < m->ncell; c++) {
    const double *p[4];
    for (int k = 0; k < 4; k++) p[k] = &m->vert[3 * m->cell_vert[4 * c + k]];
    double col[3][3], cr[3][3];
    for (int e = 0; e < 3; e++) vsub(p[e + 1], p[0], col[e]);
    vcross(col[1], col[2], cr[0]);
    vcross(col[2], col[0], cr[1]);
    vcross(col[0], col[1], cr[2]);
    double det = vdot(col[0], cr[0]);
    double vol = det / 6.0;
    double longest = 0;
    for (int a = 0; a < 4; a++) {
      for (int b = a + 1; b < 4; b++) {
        double d[3];
        vsub(p[b], p[a], d);
        double len = sqrt(vdot(d, d));
        if (len > longest) longest = len;
      }
    }
    if (!(vol >= 1e-12 * longest * longest * longest)) {
      if (nbad++ == 0) {
        first_bad = c;
        first_vol = vol;
        first_edge = longest;
      }
      continue;
    }
    m->volume[c] = vol;
    /* jac_inv[e*3+d] = d xi_e / d x_d: row e of J^{-1} is (col[e+1] x col[e+2]) / det. */
    for (int e = 0; e < 3; e++)
      for (int d = 0; d < 3; d++) m->jac_inv[9 * c + 3 * e + d] = cr[e][d] / det;
    double area_sum = 0;
    for (int j = 0; j < 4; j++) {
      const double *q0 = p[sq_ref_face_vertices[j][0]], *q1 = p[sq_ref_face_vertices[j][1]],
                   *q2 = p[sq_ref_face_vertices[j][2]];
      double a[3], b[3], n[3];
      vsub(q1, q0, a);
      vsub(q2, q0, b);
      vcross(a, b, n);
      double nn = sqrt(vdot(n, n));
      m->face_area[4 * c + j] = 0.5 * nn;
      for (int d = 0; d < 3; d++) m->face_normal[12 * c + 3 * j + d] = n[d] / nn;
      area_sum += 0.5 * nn;
    }
    /* Insphere radius r = 3V / A_total, so the diameter is 6V / A_total. */
    m->insphere[c] = 6.0 * vol / area_sum;
    for (int d = 0; d < 3; d++) m->centroid[3 * c + d] = 0.25 * (p[0][d] + p[1][d] + p[2][d] + p[3][d]);
  }
  if (nbad) {
    char v[4][96];
    for (int k = 0; k < 4; k++) vertex_str(m, m->cell_vert[4 * first_bad + k], v[k], sizeof v[k]);
    int inverted = first_vol < 0 && fabs(first_vol) >= 1e-12 * first_edge * first_edge * first_edge;
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "mesh %s: cell %lld (0-based) is %s: signed volume %.6g (longest edge %.6g); "
                    "its vertices are %s, %s, %s, %s; %lld cell(s) in all are inverted or degenerate "
                    "(cells must satisfy det[v1-v0, v2-v0, v3-v0] > 0; finalize does not reorder them)",
                    mesh_name(m), (long long)sq_mesh_global_cell(m, first_bad), inverted ? "inverted" : "degenerate",
                    first_vol, first_edge, v[0], v[1], v[2], v[3], (long long)nbad);
  }
  return SQ_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Connectivity (b)                                                                                  */
/* ------------------------------------------------------------------------------------------------ */

static void link_faces(sq_mesh *m, int64_t cf_a, int64_t cf_b, int h) {
  m->face_neighbor[cf_a] = cf_b / 4;
  m->face_nbface[cf_a] = (int8_t)(cf_b % 4);
  m->face_orient[cf_a] = (int8_t)h;
  m->face_neighbor[cf_b] = cf_a / 4;
  m->face_nbface[cf_b] = (int8_t)(cf_a % 4);
  m->face_orient[cf_b] = (int8_t)h; /* h is symmetric: our vertex 0 is the neighbour's vertex h */
}

static int mesh_connect(sq_mesh *m) {
  face_table table;
  SQ_CALL(face_table_create(4 * m->ncell, &table));
  int ierr = SQ_SUCCESS;
  for (int64_t cf = 0; cf < 4 * m->ncell && !ierr; cf++) {
    int64_t key[3];
    face_key(m, cf, key);
    int64_t *slot = face_table_find(&table, m, key);
    if (*slot < 0) {
      *slot = cf;
      continue;
    }
    int64_t cf0 = *slot;
    char v[3][96];
    if (m->face_neighbor[cf0] >= 0) {
      for (int k = 0; k < 3; k++) vertex_str(m, key[k], v[k], sizeof v[k]);
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "mesh %s: the face with %s, %s, %s is shared by more than two cells: cells %lld, "
                      "%lld and %lld (0-based; faces %d, %d, %d)",
                      mesh_name(m), v[0], v[1], v[2], (long long)(cf0 / 4), (long long)m->face_neighbor[cf0],
                      (long long)(cf / 4), (int)(cf0 % 4), (int)m->face_nbface[cf0], (int)(cf % 4));
      break;
    }
    int64_t ours[3], theirs[3];
    cell_face_vertices(m, cf0 / 4, (int)(cf0 % 4), ours);
    cell_face_vertices(m, cf / 4, (int)(cf % 4), theirs);
    int h = face_orientation(ours, theirs);
    if (h < 0) {
      for (int k = 0; k < 3; k++) vertex_str(m, key[k], v[k], sizeof v[k]);
      /* Both cells are positively oriented, so they lie on the same side of the face: overlapping or
       * duplicated cells in the input. */
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "mesh %s: cells %lld and %lld (0-based, faces %d and %d) share the face with %s, %s, %s "
                      "but lie on the same side of it (overlapping or duplicated cells)",
                      mesh_name(m), (long long)(cf0 / 4), (long long)(cf / 4), (int)(cf0 % 4), (int)(cf % 4), v[0],
                      v[1], v[2]);
      break;
    }
    link_faces(m, cf0, cf, h);
  }
  SQ_FREE(table.slot);
  return ierr;
}

/*
 * Boundary tags.  A face without a neighbour must be free (1), absorbing (5) or periodic (6); a face
 * with one must be regular (0) or rupture (3).  Rupture faces may be given on one side only (that is
 * how readers pass fault faces): the other side is then tagged 3 as well.
 */
static int mesh_check_tags(sq_mesh *m) {
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    int tag = m->face_bc[cf];
    int64_t nb = m->face_neighbor[cf];
    int64_t cell = cf / 4;
    int face = (int)(cf % 4);
    if (nb < 0) {
      if (!is_boundary_tag(tag)) {
        /* A face that should be interior but found no partner: most often duplicate vertices */
        int64_t *twin = NULL, fv[3];
        char v[3][96];
        if (tag == SQ_BC_REGULAR && sq_mesh_vertex_twins(m, &twin) == SQ_SUCCESS) {
          for (int64_t cf2 = cf; cf2 < 4 * m->ncell; cf2++) {
            if (m->face_neighbor[cf2] >= 0 || m->face_bc[cf2] != SQ_BC_REGULAR) continue;
            cell_face_vertices(m, cf2 / 4, (int)(cf2 % 4), fv);
            for (int k = 0; k < 3; k++) {
              if (twin[fv[k]] < 0) continue;
              for (int j = 0; j < 3; j++) vertex_str(m, fv[j], v[j], sizeof v[j]);
              const double *x = &m->vert[3 * fv[k]];
              const int64_t a = fv[k] < twin[fv[k]] ? fv[k] : twin[fv[k]];
              const int64_t b = fv[k] < twin[fv[k]] ? twin[fv[k]] : fv[k];
              SQ_FREE(twin);
              return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                              "mesh %s: face %d of cell %lld (0-based), with %s, %s, %s, has no neighbour: "
                              "vertex %lld and vertex %lld have identical coordinates (%.9g, %.9g, %.9g), so the "
                              "mesh is not conforming (cells that should share this face use different vertices); "
                              "merge the duplicate vertices",
                              mesh_name(m), (int)(cf2 % 4), (long long)(cf2 / 4), v[0], v[1], v[2], (long long)a,
                              (long long)b, x[0], x[1], x[2]);
            }
          }
        }
        SQ_FREE(twin);
        cell_face_vertices(m, cell, face, fv);
        for (int k = 0; k < 3; k++) vertex_str(m, fv[k], v[k], sizeof v[k]);
        return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                        "mesh %s: face %d of cell %lld (0-based), with %s, %s, %s, has no neighbour but is "
                        "tagged %s; a boundary face must be free surface (1), absorbing (5) or periodic (6)",
                        mesh_name(m), face, (long long)cell, v[0], v[1], v[2], bc_name(tag));
      }
      continue;
    }
    int64_t nbcf = 4 * nb + m->face_nbface[cf];
    if (is_boundary_tag(tag)) {
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "mesh %s: face %d of cell %lld (0-based) is tagged %s but is shared with cell %lld "
                      "(face %d); boundary tags 1, 5 and 6 belong on faces with one cell",
                      mesh_name(m), face, (long long)cell, bc_name(tag), (long long)nb, (int)(nbcf % 4));
    }
    if (tag == SQ_BC_RUPTURE && m->face_bc[nbcf] == SQ_BC_REGULAR) m->face_bc[nbcf] = SQ_BC_RUPTURE;
  }
  return SQ_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Periodic pairing (c)                                                                              */
/* ------------------------------------------------------------------------------------------------ */

/* Open-addressing table of vertices binned by their two in-plane coordinates. */
typedef struct vertex_bin {
  int64_t bu, bv, vid; /* vid < 0: empty */
} vertex_bin;

typedef struct bin_table {
  vertex_bin *slot;
  uint64_t mask;
} bin_table;

static inline uint64_t hash2(int64_t a, int64_t b) {
  return sq_mix64((uint64_t)a * 0x9E3779B97F4A7C15ULL ^ sq_mix64((uint64_t)b + 0x632BE59BD9B4E019ULL));
}

static void bin_table_insert(bin_table *t, int64_t bu, int64_t bv, int64_t vid) {
  uint64_t s = hash2(bu, bv) & t->mask;
  while (t->slot[s].vid >= 0) {
    if (t->slot[s].vid == vid) return;
    s = (s + 1) & t->mask;
  }
  t->slot[s].bu = bu;
  t->slot[s].bv = bv;
  t->slot[s].vid = vid;
}

typedef struct periodic_plane {
  int axis, u, v;  /* normal axis and the two in-plane axes */
  double bin, tol; /* bin width and matching tolerance */
} periodic_plane;

/* Closest binned vertex within tol (max norm over the in-plane axes) of @p x, or -1. */
static int64_t bin_table_match(const bin_table *t, const sq_mesh *m, const periodic_plane *pl, const double *x) {
  double xu = x[pl->u] - m->bbox_lo[pl->u], xv = x[pl->v] - m->bbox_lo[pl->v];
  int64_t bu = (int64_t)floor(xu / pl->bin), bv = (int64_t)floor(xv / pl->bin);
  int64_t best = -1;
  double best_dist = 0;
  for (int64_t du = -1; du <= 1; du++) {
    for (int64_t dv = -1; dv <= 1; dv++) {
      uint64_t s = hash2(bu + du, bv + dv) & t->mask;
      for (; t->slot[s].vid >= 0; s = (s + 1) & t->mask) {
        if (t->slot[s].bu != bu + du || t->slot[s].bv != bv + dv) continue;
        const double *y = &m->vert[3 * t->slot[s].vid];
        double dist = fmax(fabs(y[pl->u] - x[pl->u]), fabs(y[pl->v] - x[pl->v]));
        if (dist <= pl->tol && (best < 0 || dist < best_dist)) {
          best = t->slot[s].vid;
          best_dist = dist;
        }
      }
    }
  }
  return best;
}

static int periodic_unpaired(const sq_mesh *m, int64_t cf, int axis, int side, const char *why) {
  int64_t fv[3];
  cell_face_vertices(m, cf / 4, (int)(cf % 4), fv);
  double cen[3];
  for (int d = 0; d < 3; d++) cen[d] = (m->vert[3 * fv[0] + d] + m->vert[3 * fv[1] + d] + m->vert[3 * fv[2] + d]) / 3.0;
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                  "mesh %s: periodic face %d of cell %lld (0-based), centroid (%.9g, %.9g, %.9g), on the "
                  "%s %c plane has no partner on the opposite plane: %s",
                  mesh_name(m), (int)(cf % 4), (long long)(cf / 4), cen[0], cen[1], cen[2], side ? "high" : "low",
                  axis_name[axis], why);
}

/* Pair the periodic faces of one axis: @p lo / @p hi list the cell-faces on either plane. */
static int periodic_pair_axis(sq_mesh *m, const periodic_plane *pl, const int64_t *lo, int64_t nlo, const int64_t *hi,
                              int64_t nhi, int64_t *partner) {
  int ierr = SQ_SUCCESS;
  bin_table bins = {NULL, 0};
  face_table faces = {NULL, 0};
  uint64_t cap = table_capacity(3 * nlo);
  bins.mask = cap - 1;
  SQ_CALL(SQ_CALLOC(bins.slot, cap));
  for (uint64_t s = 0; s < cap; s++) bins.slot[s].vid = -1;
  ierr = face_table_create(nlo, &faces);
  /* Bin the low-plane vertices by their in-plane coordinates, and the low faces by vertex triple. */
  for (int64_t f = 0; f < nlo && !ierr; f++) {
    int64_t fv[3];
    cell_face_vertices(m, lo[f] / 4, (int)(lo[f] % 4), fv);
    for (int k = 0; k < 3; k++) {
      const double *x = &m->vert[3 * fv[k]];
      bin_table_insert(&bins, (int64_t)floor((x[pl->u] - m->bbox_lo[pl->u]) / pl->bin),
                       (int64_t)floor((x[pl->v] - m->bbox_lo[pl->v]) / pl->bin), fv[k]);
    }
    sq_sort3(fv);
    *face_table_find(&faces, m, fv) = lo[f];
  }
  /* Each high face: translate its vertices to their low partners, then look the face up. */
  for (int64_t f = 0; f < nhi && !ierr; f++) {
    int64_t cf = hi[f], fv[3], mapped[3];
    cell_face_vertices(m, cf / 4, (int)(cf % 4), fv);
    for (int k = 0; k < 3 && !ierr; k++) {
      if (partner[fv[k]] < 0) partner[fv[k]] = bin_table_match(&bins, m, pl, &m->vert[3 * fv[k]]);
      mapped[k] = partner[fv[k]];
      if (mapped[k] < 0) {
        char why[160];
        char vs[96];
        snprintf(why, sizeof why, "no vertex of a low-plane periodic face matches %s",
                 vertex_str(m, fv[k], vs, sizeof vs));
        ierr = periodic_unpaired(m, cf, pl->axis, 1, why);
      }
    }
    if (ierr) break;
    int64_t key[3] = {mapped[0], mapped[1], mapped[2]};
    sq_sort3(key);
    int64_t *slot = face_table_find(&faces, m, key);
    if (*slot < 0) {
      ierr = periodic_unpaired(m, cf, pl->axis, 1, "its vertices match but no low-plane face has all three");
      break;
    }
    int64_t cf0 = *slot;
    if (m->face_neighbor[cf0] >= 0) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "mesh %s: periodic face %d of cell %lld (0-based) on the low %c plane matches two faces "
                      "on the high plane: face %d of cell %lld and face %d of cell %lld (duplicated vertices?)",
                      mesh_name(m), (int)(cf0 % 4), (long long)(cf0 / 4), axis_name[pl->axis], (int)m->face_nbface[cf0],
                      (long long)m->face_neighbor[cf0], (int)(cf % 4), (long long)(cf / 4));
      break;
    }
    int64_t ours[3];
    cell_face_vertices(m, cf0 / 4, (int)(cf0 % 4), ours);
    int h = face_orientation(ours, mapped);
    if (h < 0) {
      ierr = sq_error(SQ_ERR_INTERNAL, __FILE__, __LINE__,
                      "mesh %s: periodic faces %d of cell %lld and %d of cell %lld do not have opposite "
                      "orientations after translation along %c",
                      mesh_name(m), (int)(cf0 % 4), (long long)(cf0 / 4), (int)(cf % 4), (long long)(cf / 4),
                      axis_name[pl->axis]);
      break;
    }
    link_faces(m, cf0, cf, h);
  }
  for (int64_t f = 0; f < nlo && !ierr; f++) {
    if (m->face_neighbor[lo[f]] < 0)
      ierr = periodic_unpaired(m, lo[f], pl->axis, 0, "no high-plane face translates onto it");
  }
  /* Reset the partners of this axis: an edge vertex has a different partner along another axis. */
  for (int64_t f = 0; f < nhi; f++) {
    int64_t fv[3];
    cell_face_vertices(m, hi[f] / 4, (int)(hi[f] % 4), fv);
    for (int k = 0; k < 3; k++) partner[fv[k]] = -1;
  }
  SQ_FREE(bins.slot);
  SQ_FREE(faces.slot);
  return ierr;
}

/*
 * Faces tagged periodic (6) and still without a neighbour are paired with the face on the opposite
 * side of the bounding box: the same vertex coordinates after a translation by the box extent along
 * the face normal's dominant axis.
 */
static int mesh_pair_periodic(sq_mesh *m) {
  int64_t nper = 0;
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++)
    if (m->face_neighbor[cf] < 0 && m->face_bc[cf] == SQ_BC_PERIODIC) nper++;
  if (nper == 0) return SQ_SUCCESS;

  double size = 0;
  for (int d = 0; d < 3; d++) size = fmax(size, m->bbox_hi[d] - m->bbox_lo[d]);
  const double tol = 1e-9 * size;

  int64_t *list = NULL, *partner = NULL;
  int8_t *plane = NULL; /* 2*axis + side of each listed face */
  int ierr = SQ_CALLOC(list, nper);
  if (!ierr) ierr = SQ_CALLOC(plane, nper);
  if (!ierr) ierr = SQ_CALLOC(partner, m->nvert);
  if (!ierr) {
    for (int64_t v = 0; v < m->nvert; v++) partner[v] = -1;
    int64_t n = 0;
    for (int64_t cf = 0; cf < 4 * m->ncell && !ierr; cf++) {
      if (m->face_neighbor[cf] >= 0 || m->face_bc[cf] != SQ_BC_PERIODIC) continue;
      const double *nrm = &m->face_normal[3 * cf];
      int axis = 0;
      for (int d = 1; d < 3; d++)
        if (fabs(nrm[d]) > fabs(nrm[axis])) axis = d;
      int side = nrm[axis] > 0;
      double at = side ? m->bbox_hi[axis] : m->bbox_lo[axis];
      int64_t fv[3];
      cell_face_vertices(m, cf / 4, (int)(cf % 4), fv);
      for (int k = 0; k < 3 && !ierr; k++) {
        if (fabs(m->vert[3 * fv[k] + axis] - at) > tol) {
          char vs[96];
          ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                          "mesh %s: periodic face %d of cell %lld (0-based) faces %s%c but its %s is not on the "
                          "bounding-box plane %c = %.9g; periodic faces must lie on the box planes",
                          mesh_name(m), (int)(cf % 4), (long long)(cf / 4), side ? "+" : "-", axis_name[axis],
                          vertex_str(m, fv[k], vs, sizeof vs), axis_name[axis], at);
        }
      }
      list[n] = cf;
      plane[n] = (int8_t)(2 * axis + side);
      n++;
    }
  }
  int64_t *lo = NULL, *hi = NULL;
  if (!ierr) ierr = SQ_CALLOC(lo, nper);
  if (!ierr) ierr = SQ_CALLOC(hi, nper);
  for (int axis = 0; axis < 3 && !ierr; axis++) {
    int64_t nlo = 0, nhi = 0;
    for (int64_t f = 0; f < nper; f++) {
      if (plane[f] == 2 * axis) lo[nlo++] = list[f];
      if (plane[f] == 2 * axis + 1) hi[nhi++] = list[f];
    }
    if (nlo == 0 && nhi == 0) continue;
    periodic_plane pl = {axis, (axis + 1) % 3, (axis + 2) % 3, 4 * tol, tol};
    if (nlo == 0 || nhi == 0) {
      ierr =
          periodic_unpaired(m, nlo ? lo[0] : hi[0], axis, nlo == 0, "the opposite plane has no periodic faces at all");
      break;
    }
    ierr = periodic_pair_axis(m, &pl, lo, nlo, hi, nhi, partner);
  }
  SQ_FREE(lo);
  SQ_FREE(hi);
  SQ_FREE(list);
  SQ_FREE(plane);
  SQ_FREE(partner);
  return ierr;
}

/* ------------------------------------------------------------------------------------------------ */

int sq_mesh_geometry(sq_mesh *m) {
  SQ_CHECK(m && m->vert && m->cell_vert && m->face_bc && m->group, SQ_ERR_INTERNAL,
           "sq_mesh_geometry: mesh or its input arrays are NULL");
  SQ_CALL(mesh_check_input(m));
  SQ_CALL(mesh_alloc_outputs(m));
  mesh_bbox(m);
  return mesh_geometry(m);
}

int sq_mesh_finalize(sq_mesh *m) {
  SQ_CHECK(m && m->vert && m->cell_vert && m->face_bc && m->group, SQ_ERR_INTERNAL,
           "sq_mesh_finalize: mesh or its input arrays are NULL");
  SQ_CALL(mesh_check_input(m));
  SQ_CALL(mesh_alloc_outputs(m));
  mesh_bbox(m);
  SQ_CALL(mesh_geometry(m));
  SQ_CALL(mesh_connect(m));
  SQ_CALL(mesh_check_tags(m));
  SQ_CALL(mesh_pair_periodic(m));
  /* Invariant: every face now has a neighbour unless it is free surface or absorbing. */
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    int tag = m->face_bc[cf];
    SQ_CHECK((m->face_neighbor[cf] >= 0) == !(tag == SQ_BC_FREE || tag == SQ_BC_ABSORB), SQ_ERR_INTERNAL,
             "mesh %s: face %d of cell %lld: neighbour %lld inconsistent with tag %d", mesh_name(m), (int)(cf % 4),
             (long long)(cf / 4), (long long)m->face_neighbor[cf], tag);
  }
  return SQ_SUCCESS;
}
