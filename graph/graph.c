/**
 * @file graph.c  One or more sync intervals of clustered local time stepping: read the clusters, walk the
 * LTS algorithm into events, run the passes the options ask for, submit (sq_lts.h).
 */
#include <stdlib.h>

#include "sq_lts.h"

int sq_graph_sync_intervals(sq_runtime *rt, double dt_sync, int64_t n, const double *times, const sq_graph_options *opt,
                            sq_graph_stats *stats) {
  sq_clustering *c;
  SQ_CALL(sq_clustering_create(rt, opt, &c));
  sq_clustering_set_dt(c, dt_sync);
  sq_event_list events = {0};
  int ierr = SQ_SUCCESS;
  /* with one cluster, all the intervals' events go through the passes together (grouped global steps span
   * intervals); with several, no pass crosses the slowest cluster's correction that ends an interval */
  const int64_t batch = c->ncluster == 1 ? n : 1;
  for (int64_t i = 0; !ierr && i < n; i += batch) {
    events.n = 0;
    for (int64_t j = i; !ierr && j < i + batch && j < n; ++j) ierr = sq_lts_walk(c, times[j], times[j + 1], &events);
    if (!ierr) ierr = sq_lts_run_passes(c, &events);
    if (!ierr) ierr = sq_lts_submit(c, &events, stats);
  }
  sq_event_list_free(&events);
  sq_clustering_destroy(c);
  return ierr;
}

int sq_graph_sync_interval(sq_runtime *rt, double dt_sync, const sq_graph_options *opt, sq_graph_stats *stats) {
  const double times[2] = {opt ? opt->t_begin : 0.0, opt ? opt->t_end : dt_sync};
  return sq_graph_sync_intervals(rt, dt_sync, 1, times, opt, stats);
}
