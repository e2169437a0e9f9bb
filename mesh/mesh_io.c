/**
 * @file mesh_io.c  The extension dispatch of sq_mesh_read()/sq_mesh_write(): `.msh` is Gmsh (gmsh_*.c),
 * `.h5` and `.hdf5` are PUML (puml.c).  Conventions: sq_mesh_io.h.
 */
#include "sq_mesh_io.h"

#include <ctype.h>
#include <string.h>

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  if (k > n) return 0;
  for (size_t i = 0; i < k; i++)
    if (tolower((unsigned char)s[n - k + i]) != tolower((unsigned char)suffix[i])) return 0;
  return 1;
}

sq_mesh_format sq_mesh_format_from_path(const char *path) {
  if (!path) return SQ_MESH_FORMAT_UNKNOWN;
  if (ends_with(path, ".msh")) return SQ_MESH_FORMAT_GMSH;
  if (ends_with(path, ".h5") || ends_with(path, ".hdf5")) return SQ_MESH_FORMAT_PUML;
  return SQ_MESH_FORMAT_UNKNOWN;
}

int sq_mesh_read(const char *path, sq_mesh **mesh) {
  SQ_CHECK(path && mesh, SQ_ERR_INTERNAL, "sq_mesh_read: NULL argument");
  switch (sq_mesh_format_from_path(path)) {
  case SQ_MESH_FORMAT_GMSH: return sq_mesh_read_gmsh(path, mesh);
  case SQ_MESH_FORMAT_PUML: return sq_mesh_read_puml(path, mesh);
  default:
    *mesh = NULL;
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "mesh file %s: cannot tell the format from the extension (use .msh for Gmsh, .puml.h5 or .h5 "
                    "for PUML)",
                    path);
  }
}

int sq_mesh_write(const char *path, const sq_mesh *mesh) {
  SQ_CHECK(path && mesh, SQ_ERR_INTERNAL, "sq_mesh_write: NULL argument");
  switch (sq_mesh_format_from_path(path)) {
  case SQ_MESH_FORMAT_GMSH: return sq_mesh_write_gmsh(path, mesh);
  case SQ_MESH_FORMAT_PUML: return sq_mesh_write_puml(path, mesh);
  default:
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "mesh file %s: cannot tell the format from the extension (use .msh for Gmsh, .puml.h5 or .h5 "
                    "for PUML)",
                    path);
  }
}
