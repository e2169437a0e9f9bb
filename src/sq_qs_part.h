/**
 * @file sq_qs_part.h  The quasi-static P2 mesh cut by a cell partition (MPI): one rank's part of the whole P2 mesh,
 * and the nodes it shares with each other rank.  No MPI here: runtime/qs_mpi.c exchanges through these lists.
 *
 * A rank holds the cells the partition gives it and every P2 node of those cells; a node on the interface between
 * parts is held by every rank with a cell at it, and owned by the lowest of them (sq_qs_mesh.own): its entries
 * count once in dot products.  Local nodes keep the whole mesh's order (vertices first, then edge nodes, each
 * ascending in the whole mesh's numbering), so the P1 coarse mesh stays the leading block and the nodes shared
 * with a peer, listed ascending, are the same sequence on both sides, vertices first.
 */
#ifndef SQ_QS_PART_H
#define SQ_QS_PART_H

#include "sq_qs.h"

/** The nodes one rank shares with the others. */
typedef struct sq_qs_part {
  int rank, nranks;
  int npeer;
  int *peer;            /**< npeer ranks sharing nodes with this one, ascending */
  int64_t *ptr;         /**< npeer + 1: peer k's shared nodes are node[ptr[k] .. ptr[k + 1]) */
  int64_t *node;        /**< local nodes, ascending within each peer */
  int64_t *nvert;       /**< npeer: how many of peer k's shared nodes are vertices (they come first) */
  int64_t nshared;      /**< distinct shared local nodes */
  int64_t nshared_vert; /**< of them vertices (they come first) */
  int64_t *snode;       /**< nshared: the distinct shared local nodes, ascending */
  int64_t *slot;        /**< ptr[npeer]: index in snode of each node[] entry */
  int64_t nnode_global; /**< P2 nodes of the whole mesh */
} sq_qs_part;

/**
 * @brief Rank @p rank's part of the whole P2 mesh @p whole (boundary conditions and fault offsets already set on
 * it): the cells c with @p cell_rank[c] == rank, in ascending order, cut into tiles of @p tile_size cells, with
 * their nodes' coordinates, prescribed components and values, the fault offsets of the cells, and own / gnode.
 * Fails with a message naming the rank when it has no cell.
 */
int sq_qs_mesh_part(const sq_qs_mesh *whole, const int *cell_rank, int nranks, int rank, int tile_size,
                    sq_qs_mesh **part, sq_qs_part **info);
void sq_qs_part_destroy(sq_qs_part *p);

/** Nodes exchanged with peer @p k: the shared nodes, or their vertices alone for the P1 mesh (@p p1 1). */
static inline int64_t sq_qs_part_count(const sq_qs_part *p, int k, int p1) {
  return p1 ? p->nvert[k] : p->ptr[k + 1] - p->ptr[k];
}
/** @brief Gather the values of the nodes exchanged with peer @p k from @p y (@p nval values a node, float for
 *  @p f32 1, else double) into @p buf, in the list's order. */
void sq_qs_part_pack(const sq_qs_part *p, int k, int p1, int nval, int f32, const void *y, void *buf);
/**
 * @brief The assembled values at the shared nodes: each gets the sum of the contributions of the ranks holding it,
 * in ascending rank order (this rank's from @p y, peer k's from @p recv[k] as sq_qs_part_pack laid them out), written
 * into @p y; @p acc: workspace of nshared x nval values.  Every rank holding a node computes the same sum.
 */
void sq_qs_part_sum(const sq_qs_part *p, int p1, int nval, int f32, void *y, const void *const *recv, void *acc);

/** @brief Cut @p qm's cells into tiles of at most @p tile_size cells (sq_qs_mesh_create does it for a whole mesh). */
int sq_qs_mesh_build_tiles(sq_qs_mesh *qm, int tile_size);

#endif
