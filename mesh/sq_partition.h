/**
 * @file sq_partition.h  METIS k-way partitioning of the cell dual graph with the LTS vertex weights of
 * thesis §4.4 and §6.5.4.
 */
#ifndef SQ_PARTITION_H
#define SQ_PARTITION_H

#include "sq_mesh.h"

/** Vertex weighting of the dual graph. */
typedef enum {
  SQ_PART_BW = 0,     /**< one constraint: update frequency rate^(L-1-l) of the cell's cluster */
  SQ_PART_BWM = 1,    /**< two constraints: BW and 1 (memory) */
  SQ_PART_ENCODED = 2 /**< L constraints: one-hot vector of the cell's cluster */
} sq_part_weights;

/** Balance figures of a partition. */
typedef struct sq_partition_stats {
  double work_imbalance;   /**< max over parts of the BW work / mean */
  double memory_imbalance; /**< max over parts of the cell count / mean */
  int64_t edge_cut;        /**< faces whose two cells are in different parts */
} sq_partition_stats;

/**
 * @brief Partition @p mesh into @p nparts with METIS k-way (deterministic: every rank computing it
 * gets the same result).  @p cluster gives each cell's LTS cluster (0..ncluster-1), @p rate the LTS
 * rate.  @p target optionally gives each part's share of the work (sums to 1; node-speed weights,
 * thesis eq. 4.10); NULL means equal shares.  Writes @p part[cell] and, if non-NULL, @p stats.
 */
int sq_partition(const sq_mesh *mesh, const int *cluster, int ncluster, int rate, int nparts, sq_part_weights weights,
                 const double *target, int *part, sq_partition_stats *stats);

/**
 * @brief sq_partition on the dual graph alone: @p face_neighbor (n x 4, the neighbour cell across each
 * face or -1, as sq_mesh.face_neighbor) is all it reads of the mesh.  A distributed run gathers just
 * this (and the clusters) on one rank.
 */
int sq_partition_faces(int64_t n, const int64_t *face_neighbor, const int *cluster, int ncluster, int rate, int nparts,
                       sq_part_weights weights, const double *target, int *part, sq_partition_stats *stats);

/** @brief Name of a weighting ("bw", "bwm", "encoded"). */
const char *sq_part_weights_name(sq_part_weights w);

#endif
