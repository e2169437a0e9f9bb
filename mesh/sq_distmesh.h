/**
 * @file sq_distmesh.h  Distributed start-up from a PUML file (mesh/distmesh.c): no rank reads or holds
 * the whole mesh.
 */
#ifndef SQ_DISTMESH_H
#define SQ_DISTMESH_H
#include "sq_partition.h"
#include "sq_solver.h"

/** What the distributed start-up is given besides the file: how to fill the cells, how to partition. */
typedef struct sq_distmesh_input {
  const char *mesh_file;     /**< the mesh (anything but PUML is left to the whole-mesh readers) */
  sq_part_weights partition; /**< METIS vertex weights */
  const double *target;      /**< per-rank work shares (node-speed weights) or NULL */
  /** @brief The material of a cell at centroid @p x in group @p group. */
  sq_material (*material_at)(const void *ctx, const double x[3], int group);
  /**
   * @brief Called once the faces are matched with the number of rupture faces of mesh @p source, on
   * every rank alike; a non-zero return stops the start-up with that error.
   */
  int (*check_rupture)(const void *ctx, const char *source, int64_t nrupture);
  const void *ctx; /**< passed to material_at and check_rupture */
} sq_distmesh_input;

/** This rank's part of a distributed mesh and what was computed with it over the whole mesh. */
typedef struct sq_distmesh_part {
  sq_mesh *mesh;              /**< owned + ghost cells (sq_mesh_extract's layout) */
  int *cell_rank;             /**< owner of each cell of the part */
  int *cell_cluster;          /**< LTS cluster of each cell of the part */
  sq_material *cell_material; /**< material of each cell of the part */
  sq_partition_stats part_stats;
} sq_distmesh_part;

/**
 * @brief With several ranks and a PUML mesh: read this rank's block of cells, match faces, compute the
 * LTS clusters and the METIS partition (rank 0 holds the dual graph only) and keep this rank's part
 * (sq_mesh_extract's layout).  Fills @p part and @p opt's cell_rank, cell_cluster (pointing into
 * @p part), ncluster and dt_min, and sets *@p done = 1.  Leaves everything alone with *@p done = 0 where
 * the mesh must be read whole: one rank, a Gmsh file or the built-in box, a PUML file with periodic faces
 * or unused vertices, or fewer than 4 cells a rank.  Collective.
 * @param is_file  0 for a mesh that is not read from in->mesh_file (the built-in box): nothing is done
 */
int sq_mesh_read_distributed(const sq_distmesh_input *in, int is_file, int rank, int nranks, sq_disc_options *opt,
                             sq_distmesh_part *part, int *done);

#endif
