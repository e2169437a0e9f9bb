/**
 * @file mesh_cmd.c  `starquake mesh info FILE` (sizes, bounding box, groups, boundary codes) and
 * `starquake mesh convert IN OUT` (Gmsh <-> PUML, formats chosen by extension; see sq_mesh_io.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sq_app.h"
#include "sq_mesh_io.h"

static void mesh_usage(void) {
  printf("usage: starquake mesh info FILE\n"
         "       starquake mesh convert IN OUT\n\n"
         "Formats by extension: .msh is Gmsh (read: 2.2 and 4.1, ASCII or binary; written: 4.1 ASCII),\n"
         ".puml.h5 or .h5 is PUML HDF5 (written with the \"i32\" boundary format).  Gmsh physical surfaces\n"
         "101/103/105/106 are free surface, dynamic rupture, absorbing and periodic faces; physical volumes\n"
         "are material groups.\n");
}

static const char *format_name(sq_mesh_format f) {
  return f == SQ_MESH_FORMAT_GMSH ? "Gmsh" : f == SQ_MESH_FORMAT_PUML ? "PUML HDF5" : "unknown";
}

static int cmp_int32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Cells per group, ascending by group. */
static int print_groups(const sq_mesh *m) {
  int32_t *g = NULL;
  SQ_CALL(SQ_CALLOC(g, m->ncell));
  memcpy(g, m->group, (size_t)m->ncell * sizeof *g);
  qsort(g, (size_t)m->ncell, sizeof *g, cmp_int32);
  int64_t ngroups = 0;
  for (int64_t c = 0; c < m->ncell; c++) ngroups += c == 0 || g[c] != g[c - 1];
  printf("groups:       %lld\n", (long long)ngroups);
  for (int64_t c = 0; c < m->ncell;) {
    int64_t end = c;
    while (end < m->ncell && g[end] == g[c]) end++;
    printf("  group %-6d %lld cells\n", g[c], (long long)(end - c));
    c = end;
  }
  SQ_FREE(g);
  return SQ_SUCCESS;
}

/* PUML extras: the boundary layout and fault tags (raw codes above 64). */
static int print_puml_codes(const char *path, const sq_mesh *m) {
  sq_puml_part *p = NULL;
  SQ_CALL(sq_mesh_read_puml_range(path, 0, m->ncell, &p));
  printf("PUML boundary format: %s (%s)\n", p->boundary_format,
         p->boundary_format_given ? "boundary-format attribute" : "no attribute; inferred from /boundary");
  int32_t *tags = NULL;
  int64_t nfault = 0;
  int ierr = SQ_CALLOC(tags, 4 * p->mesh->ncell);
  for (int64_t cf = 0; !ierr && cf < 4 * p->mesh->ncell; cf++)
    if (p->face_tag[cf] > 64) tags[nfault++] = p->face_tag[cf];
  if (nfault) {
    qsort(tags, (size_t)nfault, sizeof *tags, cmp_int32);
    printf("fault-tagged rupture faces (codes > 64): %lld cell faces\n", (long long)nfault);
    for (int64_t k = 0; k < nfault;) {
      int64_t end = k;
      while (end < nfault && tags[end] == tags[k]) end++;
      printf("  code %-6d %lld cell faces\n", tags[k], (long long)(end - k));
      k = end;
    }
  }
  SQ_FREE(tags);
  sq_puml_part_destroy(p);
  return ierr;
}

static int mesh_info(const char *path) {
  sq_mesh *m = NULL;
  SQ_CALL(sq_mesh_read(path, &m));
  printf("mesh:         %s (%s)\n", path, format_name(sq_mesh_format_from_path(path)));
  printf("cells:        %lld\n", (long long)m->ncell);
  printf("vertices:     %lld\n", (long long)m->nvert);
  printf("bounding box: x [%.9g, %.9g]  y [%.9g, %.9g]  z [%.9g, %.9g]\n", m->bbox_lo[0], m->bbox_hi[0], m->bbox_lo[1],
         m->bbox_hi[1], m->bbox_lo[2], m->bbox_hi[2]);
  double vol = 0, vmin = m->volume[0], vmax = m->volume[0], dmin = m->insphere[0], dmax = m->insphere[0];
  for (int64_t c = 0; c < m->ncell; c++) {
    vol += m->volume[c];
    if (m->volume[c] < vmin) vmin = m->volume[c];
    if (m->volume[c] > vmax) vmax = m->volume[c];
    if (m->insphere[c] < dmin) dmin = m->insphere[c];
    if (m->insphere[c] > dmax) dmax = m->insphere[c];
  }
  printf("volume:       %.9g (cells %.3g .. %.3g)\n", vol, vmin, vmax);
  printf("insphere diameter: %.6g .. %.6g\n", dmin, dmax);
  int ierr = print_groups(m);
  if (!ierr) {
    static const int codes[5] = {SQ_BC_REGULAR, SQ_BC_FREE, SQ_BC_RUPTURE, SQ_BC_ABSORB, SQ_BC_PERIODIC};
    static const char *names[5] = {"regular", "free surface", "dynamic rupture", "absorbing", "periodic"};
    printf("faces by boundary code (cell faces; an interior face counts twice):\n");
    for (int k = 0; k < 5; k++) {
      int64_t n = 0;
      for (int64_t cf = 0; cf < 4 * m->ncell; cf++) n += m->face_bc[cf] == codes[k];
      if (k == 2) printf("  %d %-16s %lld (%lld fault faces)\n", codes[k], names[k], (long long)n, (long long)n / 2);
      else printf("  %d %-16s %lld\n", codes[k], names[k], (long long)n);
    }
    if (sq_mesh_format_from_path(path) == SQ_MESH_FORMAT_PUML) ierr = print_puml_codes(path, m);
  }
  sq_mesh_destroy(m);
  return ierr;
}

static int mesh_convert(const char *in, const char *out) {
  SQ_CHECK(sq_mesh_format_from_path(out) != SQ_MESH_FORMAT_UNKNOWN, SQ_ERR_INPUT,
           "mesh convert: cannot tell the output format from '%s' (use .msh, .puml.h5 or .h5)", out);
  sq_mesh *m = NULL;
  SQ_CALL(sq_mesh_read(in, &m));
  int ierr = sq_mesh_write(out, m);
  if (!ierr && sq_verbosity >= 1)
    printf("wrote %s (%s): %lld cells, %lld vertices\n", out, format_name(sq_mesh_format_from_path(out)),
           (long long)m->ncell, (long long)m->nvert);
  sq_mesh_destroy(m);
  return ierr;
}

int sq_cmd_mesh(int argc, char **argv) {
  if (argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
    mesh_usage();
    return SQ_SUCCESS;
  }
  if (argc == 2 && !strcmp(argv[0], "info")) return mesh_info(argv[1]);
  if (argc == 3 && !strcmp(argv[0], "convert")) return mesh_convert(argv[1], argv[2]);
  mesh_usage();
  return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "mesh: expected `info FILE` or `convert IN OUT`");
}
