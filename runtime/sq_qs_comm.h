/**
 * @file sq_qs_comm.h  The quasi-static solver under MPI: the exchange of the nodes shared between ranks and the
 * global sums, as the sq_qs_ops hooks (src/sq_qs.h), over the lists of sq_qs_part (src/sq_qs_part.h).  No StarPU
 * type here.
 */
#ifndef SQ_QS_COMM_H
#define SQ_QS_COMM_H

#include <stdint.h>

struct sq_qs_mesh;
struct sq_qs_ops;
struct sq_qs_part;
/** One rank's communication state (opaque). */
typedef struct sq_qs_comm sq_qs_comm;

/** @brief The exchange state of the part @p p of mesh @p qm (both must outlive it); collective (it duplicates
 *  MPI_COMM_WORLD).  @p tasks 1: the exchange as StarPU tasks with StarPU-MPI transfers (StarPU-MPI running, as
 *  for the DG halo); 0: MPI calls (no StarPU). */
int sq_qs_comm_create(const struct sq_qs_mesh *qm, const struct sq_qs_part *p, int tasks, sq_qs_comm **qc);
/** @brief Free @p qc (NULL is fine); collective. */
void sq_qs_comm_destroy(sq_qs_comm *qc);
/**
 * @brief Set the MPI members of @p ops (comm, exchange_f64, exchange_f32, allreduce), leaving the products.
 * The exchange sends each peer the rank's values at the nodes they share and sums, at every shared node, the
 * contributions of the ranks holding it in ascending rank order, so every rank gets the same bits.  The global
 * sum gathers every rank's values and adds them in rank order (the same bits on every rank and from run to run).
 */
void sq_qs_comm_ops(sq_qs_comm *qc, struct sq_qs_ops *ops);
/** @brief The whole mesh's vector (@p nval values per node, sq_qs_part.nnode_global nodes) on every rank from each
 *  rank's local vector @p x: each node's values from its owner; collective. */
int sq_qs_comm_gather(sq_qs_comm *qc, int nval, const double *x, double *whole);

#endif
