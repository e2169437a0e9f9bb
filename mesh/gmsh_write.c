/**
 * @file gmsh_write.c  Gmsh `.msh` writer (format 4.1 ASCII): what sq_mesh_read_gmsh() and Gmsh read back.
 */
#include "sq_mesh_io.h"
#include "sq_ref.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------ */
/* Writer (4.1 ASCII)                                                                                */
/* ------------------------------------------------------------------------------------------------ */

static int cmp_int32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Is cell-face @p cf written as a triangle?  Tagged faces are; a rupture face shared by two cells once. */
static int writes_triangle(const sq_mesh *m, int64_t cf, int code) {
  if (m->face_bc[cf] != code) return 0;
  if (code != SQ_BC_RUPTURE || !m->face_neighbor) return 1;
  int64_t nb = m->face_neighbor[cf];
  return nb < 0 || cf / 4 < nb || (cf / 4 == nb && cf % 4 < m->face_nbface[cf]);
}

static int write_gmsh_body(FILE *fp, const sq_mesh *m, const int32_t *groups, int64_t ngroups) {
  static const int codes[4] = {SQ_BC_FREE, SQ_BC_RUPTURE, SQ_BC_ABSORB, SQ_BC_PERIODIC};
  static const char *code_names[4] = {"free surface", "dynamic rupture", "absorbing", "periodic"};
  int64_t ntri[4] = {0, 0, 0, 0}, nsurf = 0, ntri_all = 0;
  for (int k = 0; k < 4; k++) {
    for (int64_t cf = 0; cf < 4 * m->ncell; cf++) ntri[k] += writes_triangle(m, cf, codes[k]);
    nsurf += ntri[k] > 0;
    ntri_all += ntri[k];
  }
  double lo[3], hi[3];
  for (int d = 0; d < 3; d++) {
    lo[d] = m->nvert ? m->vert[d] : 0;
    hi[d] = lo[d];
  }
  for (int64_t v = 0; v < m->nvert; v++)
    for (int d = 0; d < 3; d++) {
      lo[d] = fmin(lo[d], m->vert[3 * v + d]);
      hi[d] = fmax(hi[d], m->vert[3 * v + d]);
    }
  int64_t nphys = nsurf;
  for (int64_t g = 0; g < ngroups; g++) nphys += groups[g] > 0;
  fprintf(fp, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n");
  fprintf(fp, "$PhysicalNames\n%lld\n", (long long)nphys);
  for (int k = 0; k < 4; k++)
    if (ntri[k]) fprintf(fp, "2 %d \"%s\"\n", 100 + codes[k], code_names[k]);
  for (int64_t g = 0; g < ngroups; g++)
    if (groups[g] > 0) fprintf(fp, "3 %d \"group %d\"\n", groups[g], groups[g]);
  fprintf(fp, "$EndPhysicalNames\n");
  /* Entities: surface s+1 per boundary code present, volume g+1 per group. */
  fprintf(fp, "$Entities\n0 0 %lld %lld\n", (long long)nsurf, (long long)ngroups);
  int64_t stag = 0;
  for (int k = 0; k < 4; k++)
    if (ntri[k])
      fprintf(fp, "%lld %.17g %.17g %.17g %.17g %.17g %.17g 1 %d 0\n", (long long)++stag, lo[0], lo[1], lo[2], hi[0],
              hi[1], hi[2], 100 + codes[k]);
  for (int64_t g = 0; g < ngroups; g++) {
    fprintf(fp, "%lld %.17g %.17g %.17g %.17g %.17g %.17g ", (long long)(g + 1), lo[0], lo[1], lo[2], hi[0], hi[1],
            hi[2]);
    if (groups[g] > 0) fprintf(fp, "1 %d 0\n", groups[g]);
    else fprintf(fp, "0 0\n");
  }
  fprintf(fp, "$EndEntities\n");
  /* All nodes on volume entity 1, tags 1..nvert. */
  fprintf(fp, "$Nodes\n1 %lld 1 %lld\n3 1 0 %lld\n", (long long)m->nvert, (long long)m->nvert, (long long)m->nvert);
  for (int64_t v = 0; v < m->nvert; v++) fprintf(fp, "%lld\n", (long long)(v + 1));
  for (int64_t v = 0; v < m->nvert; v++)
    fprintf(fp, "%.17g %.17g %.17g\n", m->vert[3 * v], m->vert[3 * v + 1], m->vert[3 * v + 2]);
  fprintf(fp, "$EndNodes\n");
  /* Tetrahedra in mesh order: one block per run of equal groups, so that element tags follow cells. */
  int64_t nruns = 0;
  for (int64_t c = 0; c < m->ncell; c++) nruns += c == 0 || m->group[c] != m->group[c - 1];
  int64_t nelem = m->ncell + ntri_all;
  fprintf(fp, "$Elements\n%lld %lld 1 %lld\n", (long long)(nruns + nsurf), (long long)nelem, (long long)nelem);
  for (int64_t c = 0; c < m->ncell;) {
    int64_t end = c;
    while (end < m->ncell && m->group[end] == m->group[c]) end++;
    const int32_t *g = bsearch(&m->group[c], groups, (size_t)ngroups, sizeof *groups, cmp_int32);
    fprintf(fp, "3 %lld 4 %lld\n", (long long)(g - groups + 1), (long long)(end - c));
    for (; c < end; c++)
      fprintf(fp, "%lld %lld %lld %lld %lld\n", (long long)(c + 1), (long long)(m->cell_vert[4 * c] + 1),
              (long long)(m->cell_vert[4 * c + 1] + 1), (long long)(m->cell_vert[4 * c + 2] + 1),
              (long long)(m->cell_vert[4 * c + 3] + 1));
  }
  int64_t tag = m->ncell;
  stag = 0;
  for (int k = 0; k < 4; k++) {
    if (!ntri[k]) continue;
    fprintf(fp, "2 %lld 2 %lld\n", (long long)++stag, (long long)ntri[k]);
    for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
      if (!writes_triangle(m, cf, codes[k])) continue;
      const int64_t *cv = &m->cell_vert[4 * (cf / 4)];
      const int *fv = sq_ref_face_vertices[cf % 4];
      fprintf(fp, "%lld %lld %lld %lld\n", (long long)++tag, (long long)(cv[fv[0]] + 1), (long long)(cv[fv[1]] + 1),
              (long long)(cv[fv[2]] + 1));
    }
  }
  fprintf(fp, "$EndElements\n");
  return SQ_SUCCESS;
}

int sq_mesh_write_gmsh(const char *path, const sq_mesh *m) {
  SQ_CHECK(path && m && m->vert && m->cell_vert && m->group && m->face_bc, SQ_ERR_INTERNAL,
           "sq_mesh_write_gmsh: NULL argument or incomplete mesh");
  for (int64_t c = 0; c < m->ncell; c++)
    SQ_CHECK(m->group[c] >= 0, SQ_ERR_INPUT,
             "Gmsh file %s: cell %lld has group %d; Gmsh physical tags must be positive (0: no physical volume)", path,
             (long long)c, m->group[c]);
  for (int64_t cf = 0; cf < 4 * m->ncell; cf++) {
    int tag = m->face_bc[cf];
    SQ_CHECK(tag == SQ_BC_REGULAR || tag == SQ_BC_FREE || tag == SQ_BC_RUPTURE || tag == SQ_BC_ABSORB ||
                 tag == SQ_BC_PERIODIC,
             SQ_ERR_INPUT, "Gmsh file %s: face %d of cell %lld has boundary tag %d, which has no physical surface",
             path, (int)(cf % 4), (long long)(cf / 4), tag);
  }
  /* Distinct groups, ascending: volume entity g+1 holds group groups[g]. */
  int32_t *groups = NULL;
  SQ_CALL(SQ_CALLOC(groups, m->ncell));
  memcpy(groups, m->group, (size_t)m->ncell * sizeof *groups);
  qsort(groups, (size_t)m->ncell, sizeof *groups, cmp_int32);
  int64_t ngroups = 0;
  for (int64_t c = 0; c < m->ncell; c++)
    if (ngroups == 0 || groups[c] != groups[ngroups - 1]) groups[ngroups++] = groups[c];
  FILE *fp = fopen(path, "w");
  int ierr = SQ_SUCCESS;
  if (!fp) {
    ierr = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "Gmsh file %s: cannot create it: %s", path, strerror(errno));
  } else {
    ierr = write_gmsh_body(fp, m, groups, ngroups);
    int bad = ferror(fp);
    if (fclose(fp) != 0 || bad)
      if (!ierr) ierr = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "Gmsh file %s: write error (disk full?)", path);
  }
  SQ_FREE(groups);
  return ierr;
}
