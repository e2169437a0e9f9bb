/**
 * @file sq_codelets.h  StarPU side of the solver: data handles per tile and one insert function per
 * step.  Each step lives in its own file (ader.c, local.c, neighbor.c) with its CPU body, its CUDA
 * launcher (when built with CUDA) and its history-based performance model.
 */
#ifndef SQ_CODELETS_H
#define SQ_CODELETS_H

#include <starpu.h>

#include "sq_solver.h"

/** StarPU handles of one discretisation, registered tile by tile over the arrays of sq_disc. */
typedef struct sq_runtime {
  sq_disc *disc;
  starpu_data_handle_t pack;        /**< reference matrices (read-only, replicated where needed) */
  starpu_data_handle_t *dofs;       /**< per tile */
  starpu_data_handle_t *tint;       /**< per tile */
  starpu_data_handle_t *star;       /**< per tile, read-only */
  starpu_data_handle_t *flux_local; /**< per tile, read-only */
  starpu_data_handle_t *flux_nb;    /**< per tile, read-only */
  starpu_data_handle_t *link;       /**< per tile, read-only face links */
} sq_runtime;

/** @brief Register every tile's data of @p disc with StarPU (starpu_init must have been called). */
int sq_runtime_create(sq_disc *disc, sq_runtime **rt);
/** @brief Wait for all tasks and make the host copies of the dofs valid (data may live on a GPU). */
int sq_runtime_sync(sq_runtime *rt);
/** @brief Unregister everything (data returns to the host arrays) and free @p rt. */
void sq_runtime_destroy(sq_runtime *rt);

/** @brief Insert the ADER predictor of @p tile over a step @p dt (reads dofs, writes tint). */
int sq_insert_ader(sq_runtime *rt, int tile, double dt, int priority);
/** @brief Insert the volume + local-flux update of @p tile (reads tint, updates dofs). */
int sq_insert_local(sq_runtime *rt, int tile, int priority);
/** @brief Insert the neighbour-flux update of @p tile (reads the neighbour tiles' tint, updates dofs). */
int sq_insert_neighbor(sq_runtime *rt, int tile, int priority);

/** Arguments shared by the step codelets. */
typedef struct sq_step_args {
  sq_precision precision;
  int order;
  double dt;
} sq_step_args;

#endif
