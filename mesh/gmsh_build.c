/**
 * @file gmsh_build.c  Gmsh `.msh` files, second pass: the mesh of what gmsh_read.c collected.  Node tags
 * become indices, orientation is fixed, triangles are matched to tetrahedron faces, and what can be named
 * by Gmsh element is checked here (degenerate elements, faces of more than two elements, untagged
 * boundary faces) before sq_mesh_finalize() runs.
 */
#include "gmsh_impl.h"
#include "sq_mesh_hash.h"
#include "sq_ref.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------ */
/* Building the mesh                                                                                 */
/* ------------------------------------------------------------------------------------------------ */

/* Face vertices of our reference numbering (sq_ref.h), repeated to keep mesh/ independent of src/ref.c. */

static void face_key(const sq_mesh *m, int64_t cf, int64_t key[3]) {
  for (int k = 0; k < 3; k++) key[k] = m->cell_vert[4 * (cf / 4) + sq_ref_face_vertices[cf % 4][k]];
  sq_sort3(key);
}

/* Faces by sorted vertex triple: each slot holds the first cell-face seen (or -1); twin[] links the second. */
typedef struct face_index {
  int64_t *slot;
  uint64_t mask;
  int64_t *twin; /* 4 ncell: the other cell-face of a shared face, or -1 */
} face_index;

static int64_t *face_index_find(const face_index *fi, const sq_mesh *m, const int64_t key[3]) {
  uint64_t s = sq_hash3(key) & fi->mask;
  for (;;) {
    int64_t cf = fi->slot[s];
    if (cf < 0) return &fi->slot[s];
    int64_t other[3];
    face_key(m, cf, other);
    if (other[0] == key[0] && other[1] == key[1] && other[2] == key[2]) return &fi->slot[s];
    s = (s + 1) & fi->mask;
  }
}

static const char *node_str(const gmsh_reader *r, const sq_mesh *m, int64_t v, char *buf, size_t len) {
  const double *x = &m->vert[3 * v];
  snprintf(buf, len, "node %lld (%.9g, %.9g, %.9g)", (long long)VEC_AT(r->node_tag, int64_t, v), x[0], x[1], x[2]);
  return buf;
}

/* Tetrahedra: node indices, duplicates (2.2 writes an element once per physical group) dropped,
 * orientation fixed, degenerate ones reported.  Fills cell_vert/group; @p keep[c] = index in tet arrays. */
static int build_cells(const gmsh_reader *r, const tag_map *nodes, sq_mesh *m, int64_t *keep, int64_t *nswapped) {
  char ws[40];
  int64_t ncell = 0;
  tag_map seen;
  SQ_CALL(sq_gmsh_tag_map_create(&seen, r->tet_tag.n));
  int ierr = SQ_SUCCESS;
  *nswapped = 0;
  for (size_t t = 0; t < r->tet_tag.n && !ierr; t++) {
    int64_t tag = VEC_AT(r->tet_tag, int64_t, t), where = VEC_AT(r->tet_where, int64_t, t);
    uint64_t s = sq_gmsh_tag_map_slot(&seen, tag);
    if (seen.key[s] == tag) continue;
    seen.key[s] = tag;
    int64_t *cv = &m->cell_vert[4 * ncell];
    for (int k = 0; k < 4 && !ierr; k++) {
      int64_t ntag = VEC_AT(r->tet_nodes, int64_t, 4 * t + k);
      cv[k] = sq_gmsh_tag_map_get(nodes, ntag);
      if (cv[k] < 0)
        ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                        "Gmsh file %s, %s: tetrahedron element %lld refers to node %lld, which $Nodes does not "
                        "define",
                        r->path, sq_gmsh_where_str(r, where, ws, sizeof ws), (long long)tag, (long long)ntag);
    }
    if (ierr) break;
    const double *p[4];
    for (int k = 0; k < 4; k++) p[k] = &m->vert[3 * cv[k]];
    double a[3], b[3], c[3], longest = 0;
    for (int d = 0; d < 3; d++) {
      a[d] = p[1][d] - p[0][d];
      b[d] = p[2][d] - p[0][d];
      c[d] = p[3][d] - p[0][d];
    }
    double vol =
        (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) /
        6.0;
    for (int i = 0; i < 4; i++)
      for (int j = i + 1; j < 4; j++) {
        double e2 = 0;
        for (int d = 0; d < 3; d++) e2 += (p[j][d] - p[i][d]) * (p[j][d] - p[i][d]);
        longest = fmax(longest, sqrt(e2));
      }
    /* Same criterion as sq_mesh_finalize: |V| < 1e-12 (longest edge)^3 is degenerate. */
    if (!(fabs(vol) >= 1e-12 * longest * longest * longest)) {
      char v[4][112];
      for (int k = 0; k < 4; k++) node_str(r, m, cv[k], v[k], sizeof v[k]);
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "Gmsh file %s, %s: tetrahedron element %lld (cell %lld) is degenerate: volume %.6g, longest "
                      "edge %.6g; its nodes are %s, %s, %s, %s",
                      r->path, sq_gmsh_where_str(r, where, ws, sizeof ws), (long long)tag, (long long)ncell, vol,
                      longest, v[0], v[1], v[2], v[3]);
      break;
    }
    if (vol < 0) { /* Gmsh promises no orientation: swapping vertices 1 and 2 makes det > 0 */
      int64_t tmp = cv[1];
      cv[1] = cv[2];
      cv[2] = tmp;
      (*nswapped)++;
    }
    m->group[ncell] = VEC_AT(r->tet_group, int32_t, t);
    keep[ncell++] = (int64_t)t;
  }
  sq_gmsh_tag_map_free(&seen);
  m->ncell = ncell;
  return ierr;
}

/* Describe face @p cf of cell for messages: element tag, position, cell, nodes. */
static void describe_face(const gmsh_reader *r, const sq_mesh *m, const int64_t *keep, int64_t cf, char *buf,
                          size_t len) {
  char ws[40], v[3][112];
  int64_t cell = cf / 4, t = keep[cell];
  for (int k = 0; k < 3; k++)
    node_str(r, m, m->cell_vert[4 * cell + sq_ref_face_vertices[cf % 4][k]], v[k], sizeof v[k]);
  snprintf(buf, len, "face %d of tetrahedron element %lld (%s; cell %lld), with %s, %s, %s", (int)(cf % 4),
           (long long)VEC_AT(r->tet_tag, int64_t, t),
           sq_gmsh_where_str(r, VEC_AT(r->tet_where, int64_t, t), ws, sizeof ws), (long long)cell, v[0], v[1], v[2]);
}

/* For messages about faces that find no partner: "; node A and node B have identical coordinates ..." when one
 * of the vertices @p v[3] has a duplicate (@p twin from sq_mesh_vertex_twins, NULL: none), else "". */
static const char *duplicate_hint(const gmsh_reader *r, const sq_mesh *m, const int64_t *twin, const int64_t v[3],
                                  char *buf, size_t len) {
  buf[0] = '\0';
  for (int k = 0; k < 3 && twin; k++) {
    if (twin[v[k]] < 0) continue;
    const double *x = &m->vert[3 * v[k]];
    snprintf(buf, len,
             "; node %lld and node %lld have identical coordinates (%.9g, %.9g, %.9g), so the mesh is not conforming "
             "(cells that should share faces use different nodes); merge the duplicate nodes, e.g. with "
             "`Coherence Mesh;` in the .geo file",
             (long long)VEC_AT(r->node_tag, int64_t, v[k]), (long long)VEC_AT(r->node_tag, int64_t, twin[v[k]]), x[0],
             x[1], x[2]);
    break;
  }
  return buf;
}

/* Faces: shared by at most two cells; triangles tag faces; every boundary face tagged. */
static int build_faces(const gmsh_reader *r, const tag_map *nodes, sq_mesh *m, const int64_t *keep) {
  char ws[40], desc[600];
  face_index fi = {NULL, 0, NULL};
  int32_t *face_tri = NULL;
  uint64_t cap = sq_gmsh_capacity_above(4 * (uint64_t)m->ncell);
  fi.mask = cap - 1;
  int ierr = SQ_CALLOC(fi.slot, cap);
  if (!ierr) ierr = SQ_CALLOC(fi.twin, 4 * m->ncell);
  if (!ierr) ierr = SQ_CALLOC(face_tri, 4 * m->ncell);
  if (ierr) goto done;
  for (uint64_t s = 0; s < cap; s++) fi.slot[s] = -1;
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    fi.twin[cf] = -1;
    face_tri[cf] = -1;
  }
  for (int64_t cf = 0; cf < 4 * m->ncell && !ierr; cf++) {
    int64_t key[3];
    face_key(m, cf, key);
    int64_t *slot = face_index_find(&fi, m, key);
    if (*slot < 0) {
      *slot = cf;
    } else if (fi.twin[*slot] < 0) {
      fi.twin[*slot] = cf;
      fi.twin[cf] = *slot;
    } else {
      int64_t t0 = keep[*slot / 4], t1 = keep[fi.twin[*slot] / 4], t2 = keep[cf / 4];
      char v[3][112];
      for (int k = 0; k < 3; k++) node_str(r, m, key[k], v[k], sizeof v[k]);
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "Gmsh file %s: the face with %s, %s, %s belongs to three tetrahedra, elements %lld, %lld and "
                      "%lld (cells %lld, %lld, %lld): the mesh is not manifold (overlapping or duplicated elements)",
                      r->path, v[0], v[1], v[2], (long long)VEC_AT(r->tet_tag, int64_t, t0),
                      (long long)VEC_AT(r->tet_tag, int64_t, t1), (long long)VEC_AT(r->tet_tag, int64_t, t2),
                      (long long)(*slot / 4), (long long)(fi.twin[*slot] / 4), (long long)(cf / 4));
    }
  }
  /* Triangles of physical surfaces tag the faces they cover (both sides of an interior face). */
  for (size_t t = 0; t < r->tri_tag.n && !ierr; t++) {
    int64_t tag = VEC_AT(r->tri_tag, int64_t, t), where = VEC_AT(r->tri_where, int64_t, t), key[3];
    int code = VEC_AT(r->tri_code, int8_t, t);
    for (int k = 0; k < 3 && !ierr; k++) {
      int64_t ntag = VEC_AT(r->tri_nodes, int64_t, 3 * t + k);
      key[k] = sq_gmsh_tag_map_get(nodes, ntag);
      if (key[k] < 0)
        ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                        "Gmsh file %s, %s: triangle element %lld refers to node %lld, which $Nodes does not define",
                        r->path, sq_gmsh_where_str(r, where, ws, sizeof ws), (long long)tag, (long long)ntag);
    }
    if (ierr) break;
    sq_sort3(key);
    int64_t cf = *face_index_find(&fi, m, key);
    if (cf < 0) {
      char v[3][112], hint[400];
      int64_t *twin = NULL;
      for (int k = 0; k < 3; k++) node_str(r, m, key[k], v[k], sizeof v[k]);
      if (sq_mesh_vertex_twins(m, &twin)) twin = NULL;
      ierr =
          sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                   "Gmsh file %s, %s: triangle element %lld (physical surface %d) with %s, %s, %s is not a face "
                   "of any tetrahedron%s",
                   r->path, sq_gmsh_where_str(r, where, ws, sizeof ws), (long long)tag, VEC_AT(r->tri_phys, int32_t, t),
                   v[0], v[1], v[2], duplicate_hint(r, m, twin, key, hint, sizeof hint));
      SQ_FREE(twin);
      break;
    }
    int64_t sides[2] = {cf, fi.twin[cf]};
    if (sides[1] < 0 && code == SQ_BC_RUPTURE) {
      describe_face(r, m, keep, cf, desc, sizeof desc);
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "Gmsh file %s, %s: triangle element %lld of physical surface 103 (dynamic rupture) lies on the "
                      "boundary (%s); rupture faces must be interior faces, with cells on both sides",
                      r->path, sq_gmsh_where_str(r, where, ws, sizeof ws), (long long)tag, desc);
      break;
    }
    if (sides[1] >= 0 && code != SQ_BC_RUPTURE) {
      describe_face(r, m, keep, cf, desc, sizeof desc);
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "Gmsh file %s, %s: triangle element %lld of physical surface %d lies inside the volume (%s, "
                      "shared with cell %lld); only 103 (dynamic rupture) may tag interior faces",
                      r->path, sq_gmsh_where_str(r, where, ws, sizeof ws), (long long)tag,
                      VEC_AT(r->tri_phys, int32_t, t), desc, (long long)(sides[1] / 4));
      break;
    }
    for (int s = 0; s < 2 && sides[s] >= 0 && !ierr; s++) {
      int64_t f = sides[s];
      if (m->face_bc[f] != SQ_BC_REGULAR && m->face_bc[f] != code) {
        int32_t t0 = face_tri[f];
        char ws0[40];
        describe_face(r, m, keep, f, desc, sizeof desc);
        ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                        "Gmsh file %s: %s is tagged twice: physical surface %d (triangle element %lld, %s) and %d "
                        "(triangle element %lld, %s)",
                        r->path, desc, VEC_AT(r->tri_phys, int32_t, t0), (long long)VEC_AT(r->tri_tag, int64_t, t0),
                        sq_gmsh_where_str(r, VEC_AT(r->tri_where, int64_t, t0), ws0, sizeof ws0),
                        VEC_AT(r->tri_phys, int32_t, t), (long long)tag, sq_gmsh_where_str(r, where, ws, sizeof ws));
      }
      m->face_bc[f] = (int8_t)code;
      face_tri[f] = (int32_t)t;
    }
  }
  /* Every boundary face needs a boundary code. */
  if (!ierr) {
    int64_t nuntagged = 0, first = -1;
    for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
      if (fi.twin[cf] < 0 && m->face_bc[cf] == SQ_BC_REGULAR) {
        if (nuntagged++ == 0) first = cf;
      }
    }
    if (nuntagged) {
      /* an untagged face with a duplicated node is most likely a face that lost its partner */
      int64_t *twin = NULL, key[3];
      char hint[400] = "";
      if (sq_mesh_vertex_twins(m, &twin)) twin = NULL;
      for (int64_t cf = first; cf < 4 * m->ncell && twin && !hint[0]; cf++) {
        if (fi.twin[cf] >= 0 || m->face_bc[cf] != SQ_BC_REGULAR) continue;
        face_key(m, cf, key);
        if (duplicate_hint(r, m, twin, key, hint, sizeof hint)[0]) first = cf;
      }
      SQ_FREE(twin);
      describe_face(r, m, keep, first, desc, sizeof desc);
      if (hint[0])
        ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "Gmsh file %s: %s has no neighbouring tetrahedron%s", r->path,
                        desc, hint);
      else
        ierr =
            sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                     "Gmsh file %s: %s lies on the boundary but no triangle of a physical surface tags it (%lld "
                     "boundary faces in all are untagged); every boundary face needs a physical surface 101 (free "
                     "surface), 105 (absorbing) or 106 (periodic), e.g. `Physical Surface(105) = {...};` in the .geo "
                     "file",
                     r->path, desc, (long long)nuntagged);
    }
  }
done:
  SQ_FREE(fi.slot);
  SQ_FREE(fi.twin);
  SQ_FREE(face_tri);
  return ierr;
}

static int build_mesh(const gmsh_reader *r, sq_mesh **mesh) {
  int64_t nnode = (int64_t)r->node_tag.n, ntet = (int64_t)r->tet_tag.n;
  SQ_CHECK(ntet > 0, SQ_ERR_INPUT,
           "Gmsh file %s: the file has no tetrahedra (element type 4); was the mesh generated in 3D (`gmsh -3`), and "
           "do all volumes have a physical group?",
           r->path);
  tag_map nodes;
  SQ_CALL(sq_gmsh_tag_map_create(&nodes, (size_t)nnode));
  sq_mesh *m = NULL;
  int64_t *keep = NULL, nswapped = 0;
  int ierr = sq_mesh_alloc(nnode, ntet, &m);
  if (!ierr) ierr = SQ_CALLOC(keep, ntet);
  if (!ierr) {
    snprintf(m->source, sizeof m->source, "%s", r->path);
    if (nnode) memcpy(m->vert, r->node_xyz.data, (size_t)nnode * 3 * sizeof(double));
    for (int64_t v = 0; v < nnode && !ierr; v++) {
      int64_t tag = VEC_AT(r->node_tag, int64_t, v);
      uint64_t s = sq_gmsh_tag_map_slot(&nodes, tag);
      if (nodes.key[s] == tag)
        ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                        "Gmsh file %s (section $Nodes): node tag %lld is defined twice", r->path, (long long)tag);
      nodes.key[s] = tag;
      nodes.val[s] = v;
    }
  }
  if (!ierr) ierr = build_cells(r, &nodes, m, keep, &nswapped);
  if (!ierr) ierr = build_faces(r, &nodes, m, keep);
  if (!ierr && nswapped && sq_verbosity >= 2)
    fprintf(stderr,
            "starquake: note: Gmsh file %s: %lld of %lld tetrahedra were negatively oriented; their "
            "vertices 1 and 2 were swapped\n",
            r->path, (long long)nswapped, (long long)m->ncell);
  if (!ierr) {
    ierr = sq_mesh_finalize(m);
    if (ierr)
      fprintf(stderr,
              "starquake: note: cell numbers above count the tetrahedra of %s from 0 in file order (cell 0 is "
              "element %lld)\n",
              r->path, (long long)VEC_AT(r->tet_tag, int64_t, keep[0]));
  }
  sq_gmsh_tag_map_free(&nodes);
  SQ_FREE(keep);
  if (ierr) {
    sq_mesh_destroy(m);
    return ierr;
  }
  *mesh = m;
  return SQ_SUCCESS;
}

int sq_mesh_read_gmsh(const char *path, sq_mesh **mesh) {
  SQ_CHECK(path && mesh, SQ_ERR_INTERNAL, "sq_mesh_read_gmsh: NULL argument");
  *mesh = NULL;
  gmsh_reader r = {.path = path, .line = 1, .section = "MeshFormat"};
  r.node_tag.elem = sizeof(int64_t);
  r.node_xyz.elem = sizeof(double);
  r.tet_nodes.elem = r.tet_tag.elem = r.tet_where.elem = sizeof(int64_t);
  r.tet_group.elem = sizeof(int32_t);
  r.tri_nodes.elem = r.tri_tag.elem = r.tri_where.elem = sizeof(int64_t);
  r.tri_code.elem = sizeof(int8_t);
  r.tri_phys.elem = sizeof(int32_t);
  r.ent_dim.elem = sizeof(int32_t);
  r.ent_tag.elem = r.ent_first.elem = r.ent_count.elem = sizeof(int64_t);
  r.ent_phys.elem = sizeof(int32_t);
  r.fp = fopen(path, "rb");
  SQ_CHECK(r.fp, SQ_ERR_IO, "Gmsh file %s: cannot open it: %s", path, strerror(errno));
  int ierr = sq_gmsh_parse_file(&r);
  if (!ierr && ferror(r.fp)) ierr = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "Gmsh file %s: read error", path);
  fclose(r.fp);
  if (!ierr) ierr = build_mesh(&r, mesh);
  sq_gmsh_reader_free(&r);
  return ierr;
}
