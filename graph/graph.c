/** @file graph.c  Global time stepping as a task graph (thesis eq. 3.35, 4.1-4.2). */
#include "sq_graph.h"

int sq_graph_layer_priority(int layer) { return layer == SQ_LAYER_COPY ? 1 : 0; }

int sq_graph_gts_step(sq_runtime *rt, double dt) {
  const sq_disc *d = rt->disc;
  /* predictor of every tile: time-integrated DOFs over [t, t + dt] */
  for (int t = 0; t < d->ntile; ++t) SQ_CALL(sq_insert_ader(rt, t, dt, sq_graph_layer_priority(d->tile[t].layer)));
  /* element-local update, then the fluxes from the neighbours' predictions */
  for (int t = 0; t < d->ntile; ++t) SQ_CALL(sq_insert_local(rt, t, sq_graph_layer_priority(d->tile[t].layer)));
  for (int t = 0; t < d->ntile; ++t) SQ_CALL(sq_insert_neighbor(rt, t, sq_graph_layer_priority(d->tile[t].layer)));
  return SQ_SUCCESS;
}
