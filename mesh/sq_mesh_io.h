/**
 * @file sq_mesh_io.h  Mesh files: Gmsh `.msh` (2.2 and 4.1, ASCII and binary) and SeisSol's PUML HDF5
 * format (written by PUMGen), read into an sq_mesh and written from one.
 *
 * Boundary conventions (SeisSol's):
 * - Gmsh: a physical volume is a material group (sq_mesh.group; 0 where a tetrahedron has none).
 *   Physical surfaces are boundary tags: 101 free surface, 103 dynamic rupture, 105 absorbing,
 *   106 periodic (tag = 100 + enum sq_bc).  Triangles are matched to tetrahedron faces by their sorted
 *   vertex triple; a triangle tagged 103 inside the volume marks both sides of the face as rupture.
 *   Every boundary face needs a triangle of physical surface 101, 105 or 106.  Points and lines are
 *   ignored; any other element type (quadrangles, hexahedra, second-order elements, ...) is an error.
 *   Node and element tags need not be contiguous.  A negatively oriented tetrahedron is accepted and
 *   fixed by swapping its vertices 1 and 2 (Gmsh does not promise an orientation); a degenerate one is
 *   an error naming its element tag, its line (ASCII files) and its volume.
 * - PUML: datasets /geometry (f64, nvert x 3), /connect (u64 or i64, ncell x 4), /group (i32, optional)
 *   and /boundary, whose layout the root attribute `boundary-format` names: "i32" (one i32 per cell,
 *   8 bits per face), "i64" (one i64 per cell, 16 bits per face) or "i32x4" (ncell x 4 i32).  Files
 *   without the attribute are "i32" when /boundary is 1-D with 4-byte integers, "i64" when 1-D with
 *   8-byte integers, "i32x4" when 2-D.  Codes: 0 regular, 1 free surface, 3 dynamic rupture,
 *   5 absorbing, 6 periodic, and codes above 64 are fault-tagged rupture faces (read as
 *   SQ_BC_RUPTURE; the raw code is kept in sq_puml_part.face_tag).  Other codes (2 gravity free
 *   surface, 4 Dirichlet, 7 analytical, 8..64) are errors.  PUML numbers the faces of a cell by the
 *   vertex triples {0,1,2}, {0,1,3}, {1,2,3}, {0,2,3}: PUML face f is our face {0,1,3,2}[f] (sq_ref.h).
 *   Cells are taken as stored: a negatively oriented or degenerate cell is an error (from
 *   sq_mesh_finalize) naming its row of /connect and its volume.
 *
 * All readers set sq_mesh.source to the path and call sq_mesh_finalize(), so that a returned mesh is
 * complete and checked.  Errors name the file and the line, section, dataset or element concerned.
 */
#ifndef SQ_MESH_IO_H
#define SQ_MESH_IO_H

#include "sq_mesh.h"

/** Mesh file formats, chosen by file-name extension. */
typedef enum sq_mesh_format {
  SQ_MESH_FORMAT_UNKNOWN = 0,
  SQ_MESH_FORMAT_GMSH = 1, /**< `*.msh` */
  SQ_MESH_FORMAT_PUML = 2  /**< `*.puml.h5`, `*.h5` */
} sq_mesh_format;

/** @brief The format that the extension of @p path names (SQ_MESH_FORMAT_UNKNOWN if none). */
sq_mesh_format sq_mesh_format_from_path(const char *path);

/**
 * @brief Read a mesh file, choosing the reader by extension (`.msh`: Gmsh; `.h5`: PUML).
 * @param path  file to read
 * @param mesh  on success, a finalized mesh owned by the caller (sq_mesh_destroy)
 * @return SQ_SUCCESS, SQ_ERR_INPUT (bad or unsupported content, unknown extension), SQ_ERR_IO, SQ_ERR_MEMORY
 */
int sq_mesh_read(const char *path, sq_mesh **mesh);

/**
 * @brief Write a mesh, choosing the writer by extension (`.msh`: Gmsh 4.1 ASCII; `.h5`: PUML "i32").
 * @param path  file to create (overwritten)
 * @param mesh  a finalized mesh (or at least one whose vert/cell_vert/group/face_bc are set)
 */
int sq_mesh_write(const char *path, const sq_mesh *mesh);

/**
 * @brief Read a Gmsh mesh: format 2.2 or 4.1, ASCII or binary (see the file documentation for tags).
 * @param path  the `.msh` file
 * @param mesh  on success, a finalized mesh
 */
int sq_mesh_read_gmsh(const char *path, sq_mesh **mesh);

/**
 * @brief Write @p mesh as a Gmsh 4.1 ASCII file that sq_mesh_read_gmsh() and Gmsh read back.
 * Nodes are numbered 1..nvert and tetrahedra 1..ncell in mesh order (so a read-back mesh has the same
 * arrays).  Each group g > 0 becomes a volume entity with physical tag g (group 0: a volume entity
 * without a physical tag); each tagged face becomes a triangle of a surface entity with physical tag
 * 100 + face_bc (a rupture face shared by two cells is written once).  Negative groups are an error.
 */
int sq_mesh_write_gmsh(const char *path, const sq_mesh *mesh);

/**
 * @brief Number of cells and vertices of a PUML file (the sizes of /connect and /geometry), so that
 * each MPI rank can compute its range before calling sq_mesh_read_puml_range().
 */
int sq_mesh_puml_size(const char *path, int64_t *ncell, int64_t *nvert);

/** Cells [cell_begin, cell_end) of a PUML file, with the vertices they use. */
typedef struct sq_puml_part {
  int64_t ncell_global; /**< rows of /connect */
  int64_t nvert_global; /**< rows of /geometry */
  int64_t cell_begin;   /**< first row read */
  int64_t cell_end;     /**< one past the last row read */
  /**
   * Not finalized (a part is not a closed mesh): vert holds the vertices used by the cells, ascending
   * by global id; cell_vert refers to them by local index; group and face_bc (our face numbering) are
   * filled as stored (a rupture face tagged on one side only is completed by sq_mesh_finalize());
   * source is the path.
   */
  sq_mesh *mesh;
  int64_t *vert_global;      /**< mesh->nvert: row of /geometry of each local vertex (ascending) */
  int32_t *face_tag;         /**< ncell x 4 (our face numbering): raw PUML code, e.g. 65 on a fault-tagged face */
  char boundary_format[8];   /**< "i32", "i64" or "i32x4" */
  int boundary_format_given; /**< 1: from the boundary-format attribute; 0: inferred from /boundary */
} sq_puml_part;

/**
 * @brief Read rows [@p begin, @p end) of a PUML file with HDF5 hyperslabs, and the rows of /geometry
 * that these cells use (read in blocks that skip unused stretches).  Meant for one MPI rank's share;
 * sq_mesh_read_puml() is built on it.  HDF5's own error printing is silenced while it runs; failures
 * become messages naming the file and dataset.
 * @param path   the PUML file
 * @param begin  first cell (0-based row of /connect)
 * @param end    one past the last cell; begin == end gives an empty part
 * @param part   on success, owned by the caller (sq_puml_part_destroy)
 */
int sq_mesh_read_puml_range(const char *path, int64_t begin, int64_t end, sq_puml_part **part);

/** Free a part and its mesh (NULL is fine). */
void sq_puml_part_destroy(sq_puml_part *part);

/**
 * @brief Read a whole PUML file (sq_mesh_read_puml_range over all cells) and finalize it.  Vertices
 * keep their /geometry numbering when every vertex is used (PUMGen's files); unused ones are dropped.
 */
int sq_mesh_read_puml(const char *path, sq_mesh **mesh);

/** @brief Write @p mesh as PUML with the "i32" boundary format (PUMGen's default), attribute included. */
int sq_mesh_write_puml(const char *path, const sq_mesh *mesh);

/**
 * @brief Write @p mesh as PUML with boundary format @p boundary_format ("i32", "i64" or "i32x4"),
 * setting the `boundary-format` attribute.  /connect is u64, /group i32, /geometry f64, as PUMGen writes.
 */
int sq_mesh_write_puml_format(const char *path, const sq_mesh *mesh, const char *boundary_format);

#endif
