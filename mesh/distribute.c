/** @file distribute.c  One rank's part of a mesh: owned cells plus the ghost layer, numbered locally. */
#include "sq_mesh.h"

#include <string.h>

int sq_mesh_extract(const sq_mesh *w, const int *cell_rank, int rank, sq_mesh **out) {
  SQ_CHECK(w && cell_rank && out && w->face_neighbor, SQ_ERR_INTERNAL,
           "sq_mesh_extract: NULL argument or mesh not finalized");
  *out = NULL;
  const int64_t N = w->ncell;
  int64_t *local = NULL, *vlocal = NULL;
  int *vrank = NULL;
  sq_mesh *m = NULL;
  int ierr = SQ_CALLOC(local, N > 0 ? N : 1);
  if (!ierr) ierr = SQ_CALLOC(vlocal, w->nvert > 0 ? w->nvert : 1);
  if (!ierr) ierr = SQ_CALLOC(vrank, w->nvert > 0 ? w->nvert : 1);
  if (ierr) goto done;
  /* local cells: ours and their face neighbours (ascending global id = local order) */
  for (int64_t c = 0; c < N; ++c) local[c] = -1;
  for (int64_t c = 0; c < N; ++c) {
    if (cell_rank[c] != rank) continue;
    local[c] = 0;
    for (int f = 0; f < 4; ++f)
      if (w->face_neighbor[4 * c + f] >= 0) local[w->face_neighbor[4 * c + f]] = 0;
  }
  int64_t ncell = 0, nvert = 0;
  for (int64_t c = 0; c < N; ++c)
    if (local[c] >= 0) local[c] = ncell++;
  /* vertices: those of local cells; the writer of a vertex is the lowest rank owning a cell at it */
  for (int64_t v = 0; v < w->nvert; ++v) vlocal[v] = -1, vrank[v] = -1;
  for (int64_t c = 0; c < N; ++c)
    for (int k = 0; k < 4; ++k) {
      const int64_t v = w->cell_vert[4 * c + k];
      if (vrank[v] < 0 || cell_rank[c] < vrank[v]) vrank[v] = cell_rank[c];
      if (local[c] >= 0) vlocal[v] = 0;
    }
  for (int64_t v = 0; v < w->nvert; ++v)
    if (vlocal[v] >= 0) vlocal[v] = nvert++;
  if ((ierr = sq_mesh_alloc(nvert, ncell, &m))) goto done;
  m->nglobal = N;
  m->nvert_global = w->nvert;
  memcpy(m->source, w->source, sizeof m->source);
  memcpy(m->bbox_lo, w->bbox_lo, sizeof m->bbox_lo);
  memcpy(m->bbox_hi, w->bbox_hi, sizeof m->bbox_hi);
  ierr = SQ_CALLOC(m->face_neighbor, 4 * ncell);
  if (!ierr) ierr = SQ_CALLOC(m->face_nbface, 4 * ncell);
  if (!ierr) ierr = SQ_CALLOC(m->face_orient, 4 * ncell);
  if (!ierr) ierr = SQ_CALLOC(m->volume, ncell);
  if (!ierr) ierr = SQ_CALLOC(m->insphere, ncell);
  if (!ierr) ierr = SQ_CALLOC(m->centroid, 3 * ncell);
  if (!ierr) ierr = SQ_CALLOC(m->face_normal, 12 * ncell);
  if (!ierr) ierr = SQ_CALLOC(m->face_area, 4 * ncell);
  if (!ierr) ierr = SQ_CALLOC(m->jac_inv, 9 * ncell);
  if (!ierr) ierr = SQ_CALLOC(m->global_id, ncell);
  if (!ierr) ierr = SQ_CALLOC(m->vert_global, nvert);
  if (!ierr) ierr = SQ_CALLOC(m->vert_writer, nvert);
  if (!ierr) ierr = SQ_CALLOC(m->surface_first, ncell);
  if (ierr) goto done;
  for (int64_t v = 0; v < w->nvert; ++v) {
    if (vlocal[v] < 0) continue;
    const int64_t l = vlocal[v];
    memcpy(&m->vert[3 * l], &w->vert[3 * v], 3 * sizeof(double));
    m->vert_global[l] = v;
    m->vert_writer[l] = vrank[v];
  }
  int64_t nsurf = 0;
  for (int64_t c = 0; c < N; ++c) {
    const int64_t l = local[c];
    if (l >= 0) {
      m->global_id[l] = c;
      m->surface_first[l] = nsurf;
      m->group[l] = w->group[c];
      m->volume[l] = w->volume[c];
      m->insphere[l] = w->insphere[c];
      memcpy(&m->centroid[3 * l], &w->centroid[3 * c], 3 * sizeof(double));
      memcpy(&m->face_normal[12 * l], &w->face_normal[12 * c], 12 * sizeof(double));
      memcpy(&m->jac_inv[9 * l], &w->jac_inv[9 * c], 9 * sizeof(double));
      for (int f = 0; f < 4; ++f) {
        const int64_t cf = 4 * c + f, lf = 4 * l + f, nb = w->face_neighbor[cf];
        m->cell_vert[lf] = vlocal[w->cell_vert[cf]];
        m->face_bc[lf] = w->face_bc[cf];
        m->face_area[lf] = w->face_area[cf];
        m->face_neighbor[lf] = nb >= 0 ? local[nb] : -1;
        m->face_nbface[lf] = m->face_neighbor[lf] >= 0 ? w->face_nbface[cf] : -1;
        m->face_orient[lf] = m->face_neighbor[lf] >= 0 ? w->face_orient[cf] : -1;
      }
    }
    for (int f = 0; f < 4; ++f) /* the numbering of sq_surface_create over the whole mesh */
      nsurf += w->face_bc[4 * c + f] == SQ_BC_FREE && w->face_neighbor[4 * c + f] < 0;
  }
  m->nsurface_global = nsurf;
  *out = m;
  m = NULL;
done:
  sq_mesh_destroy(m);
  SQ_FREE(local);
  SQ_FREE(vlocal);
  SQ_FREE(vrank);
  return ierr;
}
