/**
 * @file sq_graph.h  The time-stepping algorithm expressed as task insertions.  StarPU derives every
 * dependency from the access modes; nothing here waits inside a step.
 */
#ifndef SQ_GRAPH_H
#define SQ_GRAPH_H

#include "sq_codelets.h"

/** Task priority of a layer: copy-layer work first, so that halo sends can start early. */
int sq_graph_layer_priority(int layer);

/**
 * @brief Submit one global time step (GTS) of size @p dt: every tile's predictor, then its local
 * and neighbour updates.  Returns as soon as the tasks are submitted.
 */
int sq_graph_gts_step(sq_runtime *rt, double dt);

#endif
