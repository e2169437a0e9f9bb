/**
 * @file sq_mesh.h  Unstructured tetrahedral mesh: vertices, cells, face connectivity and geometry.
 *
 * Every reader (built-in box, Gmsh, PUML) fills vert/cell_vert/group/face_bc and then calls
 * sq_mesh_finalize(), which checks orientation, builds connectivity (sorted-vertex hashing,
 * periodic pairing) and computes geometry.  Face numbering and the orientation h follow sq_ref.h.
 */
#ifndef SQ_MESH_H
#define SQ_MESH_H

#include "sq_common.h"

/** Boundary tags per face (SeisSol's codes). */
enum sq_bc {
  SQ_BC_REGULAR = 0, /**< interior face with a neighbour */
  SQ_BC_FREE = 1,    /**< free surface, eq. 3.43 */
  SQ_BC_RUPTURE = 3, /**< dynamic rupture fault face (has a neighbour) */
  SQ_BC_ABSORB = 5,  /**< absorbing, eq. 3.41 */
  SQ_BC_PERIODIC = 6 /**< periodic: paired with the opposite boundary face */
};

/** A tetrahedral mesh with connectivity and geometry (all arrays owned). */
typedef struct sq_mesh {
  int64_t nvert;
  int64_t ncell;
  double *vert;       /**< nvert x 3 */
  int64_t *cell_vert; /**< ncell x 4, positively oriented after finalize */
  int32_t *group;     /**< ncell: material group / region id (0 if none) */
  int8_t *face_bc;    /**< ncell x 4: enum sq_bc */
  /* --- filled by sq_mesh_finalize --- */
  int64_t *face_neighbor; /**< ncell x 4: neighbour cell, or -1 (free surface / absorbing) */
  int8_t *face_nbface;    /**< ncell x 4: neighbour's local face index i */
  int8_t *face_orient;    /**< ncell x 4: orientation h in {0,1,2} */
  double *volume;         /**< ncell */
  double *insphere;       /**< ncell: insphere diameter d = 6 V / (sum of face areas) */
  double *centroid;       /**< ncell x 3 */
  double *face_normal;    /**< ncell x 4 x 3: unit outward normals */
  double *face_area;      /**< ncell x 4 */
  double *jac_inv;        /**< ncell x 9: d xi_e / d x_d stored at [e*3+d] */
  double bbox_lo[3], bbox_hi[3];
  char source[256]; /**< where the mesh came from, for messages */
  /* --- one rank's part of a distributed mesh (sq_mesh_extract); NULL / 0 for a whole mesh --- */
  int64_t nglobal;         /**< cells of the whole mesh (= ncell for a whole mesh) */
  int64_t nvert_global;    /**< vertices of the whole mesh (= nvert for a whole mesh) */
  int64_t *global_id;      /**< ncell: global cell id of each local cell, ascending (NULL: identity) */
  int64_t *vert_global;    /**< nvert: global vertex id of each local vertex, ascending (NULL: identity) */
  int32_t *vert_writer;    /**< nvert: the rank that writes the vertex in outputs, the lowest rank owning a
                                cell at it (NULL: this one) */
  int64_t *surface_first;  /**< ncell: global index of the cell's first free-surface face in the surface
                                output, faces counted cell by cell in global order (NULL: local numbering) */
  int64_t nsurface_global; /**< free-surface faces of the whole mesh */
} sq_mesh;

/** @brief Global id of local cell @p c (the identity for a whole mesh). */
static inline int64_t sq_mesh_global_cell(const sq_mesh *m, int64_t c) { return m->global_id ? m->global_id[c] : c; }
/** @brief Cells of the whole mesh. */
static inline int64_t sq_mesh_ncell_global(const sq_mesh *m) { return m->global_id ? m->nglobal : m->ncell; }
/** @brief Vertices of the whole mesh. */
static inline int64_t sq_mesh_nvert_global(const sq_mesh *m) { return m->vert_global ? m->nvert_global : m->nvert; }
/** @brief Global id of local vertex @p v (the identity for a whole mesh). */
static inline int64_t sq_mesh_global_vert(const sq_mesh *m, int64_t v) {
  return m->vert_global ? m->vert_global[v] : v;
}

/** Parameters of the built-in box generator. */
typedef struct sq_box_params {
  int n[3];            /**< cubes per direction at the base spacing */
  double lo[3], hi[3]; /**< box extent */
  int tets_per_cube;   /**< 5 (alternating, needs even n for periodic) or 6 (Kuhn split) */
  int bc[6];           /**< tags of faces -x,+x,-y,+y,-z,+z (enum sq_bc; periodic must come in pairs) */
  /** Refinement zones: inside [zone_lo, zone_hi] (per axis) the spacing is divided by zone_factor.
   *  Applied per axis (tensor product), so the mesh stays conforming. */
  int nzones;
  double zone_lo[4][3], zone_hi[4][3];
  int zone_factor[4];
  /** Random interior vertex perturbation, as a fraction of the local spacing (0 = none);
   *  used by tests to make the mesh genuinely unstructured. Deterministic (seeded). */
  double jitter;
  /** A planar fault: the grid faces inside the rectangle [fault_lo, fault_hi], which is flat along one
   *  axis (fault_lo[a] == fault_hi[a], on a grid plane), are tagged SQ_BC_RUPTURE. */
  int has_fault;
  double fault_lo[3], fault_hi[3];
} sq_box_params;

/** @brief Fill @p p with defaults: 4^3 cubes of [0,1]^3, 6 tets/cube, all faces periodic. */
void sq_box_params_default(sq_box_params *p);
/** @brief Generate a conforming box mesh (finalized). */
int sq_mesh_box(const sq_box_params *p, sq_mesh **mesh);

/**
 * @brief Check and complete a mesh whose vert/cell_vert/group/face_bc are set.
 * Fixes nothing silently: an inverted or degenerate cell is an error naming the cell and its volume;
 * a face shared by more than two cells, an interior-tagged face without a neighbour, or an unpaired
 * periodic face are errors too.
 */
int sq_mesh_finalize(sq_mesh *mesh);
/**
 * @brief The first half of sq_mesh_finalize, for a block of cells that is not a closed mesh: input
 * checks, the orientation check and per-cell geometry (volume, insphere, centroid, normals, areas,
 * jac_inv) and the bounding box of its vertices; face_neighbor, face_nbface and face_orient are
 * allocated and set to -1.  Messages name cells and vertices by global id when global_id and
 * vert_global are set.
 */
int sq_mesh_geometry(sq_mesh *mesh);
/**
 * @brief Find duplicate vertices: @p twin (allocated here, nvert entries; free it with SQ_FREE) gets, for every vertex
 * that a cell uses, another such vertex with exactly the same coordinates, or -1.  Meant for error messages: a mesh
 * with duplicate vertices is not conforming, and the faces that should join the two copies' cells come out unpaired.
 */
int sq_mesh_vertex_twins(const sq_mesh *mesh, int64_t **twin);
/**
 * @brief One rank's part of a finalized whole mesh: the cells @p cell_rank gives to @p rank (owned) and
 * their face neighbours on other ranks (ghosts), in ascending global order, with local vertex
 * numbering.  Every per-cell array of the whole mesh is copied (no second finalize: periodic pairs and
 * rupture tags stay as the whole mesh had them); a face toward a cell outside the part (the outer faces
 * of ghosts) gets face_neighbor -1 and keeps its tag, and nothing computes on it.  Sets global_id,
 * vert_global, nglobal, nvert_global, and the output numbering: vert_writer (a vertex is written by the
 * lowest rank owning a cell at it) and surface_first.
 */
int sq_mesh_extract(const sq_mesh *whole, const int *cell_rank, int rank, sq_mesh **part);
/** @brief Allocate an empty mesh with arrays for @p nvert vertices and @p ncell cells. */
int sq_mesh_alloc(int64_t nvert, int64_t ncell, sq_mesh **mesh);
/** Free the mesh (NULL is fine). */
void sq_mesh_destroy(sq_mesh *mesh);

#endif
