/**
 * @file sq_distmesh.h  Distributed start-up from a PUML file (app/distmesh.c): no rank reads or holds
 * the whole mesh.
 */
#ifndef SQ_DISTMESH_H
#define SQ_DISTMESH_H
#include "sq_app.h"

/**
 * @brief With several ranks and a PUML mesh: read this rank's block of cells, match faces, compute the
 * LTS clusters and the METIS partition (rank 0 holds the dual graph only) and keep this rank's part
 * (sq_mesh_extract's layout).  Sets sim->mesh, cell_rank, cell_cluster, cell_material, part_stats and
 * @p opt's cell_rank, cell_cluster, ncluster and dt_min, and *@p done = 1.  Leaves everything alone
 * with *@p done = 0 where the mesh must be read whole: one rank, a Gmsh file or the built-in box, a
 * PUML file with periodic faces or unused vertices, or fewer than 4 cells a rank.  Collective.
 * @param target  per-rank work shares (node-speed weights) or NULL
 */
int sq_sim_read_distributed(sq_sim *sim, const sq_config *cfg, sq_disc_options *opt, const double *target, int *done);

#endif
