/**
 * @file sq_graph.h  The time-stepping algorithm expressed as task insertions.  The runtime derives every
 * dependency from the data each task reads and writes; nothing here waits inside a sync interval.
 */
#ifndef SQ_GRAPH_H
#define SQ_GRAPH_H

#include "sq_runtime.h"

/** Most LTS clusters the graph takes. */
#define SQ_GRAPH_MAX_CLUSTERS 64

/** Task priority of a layer: copy-layer work first, so that halo sends can start early. */
int sq_graph_layer_priority(int layer);

/** Options of the task graph: which passes run over the LTS events (graph/passes.c). */
typedef struct sq_graph_options {
  int merge_neighbor_clusters; /**< submit the predictors of clusters l+1 and l that start together as one task,
                                    and their corrections that end together unless merge_predictors_only */
  int merge_predictors_only;   /**< with merge_neighbor_clusters: merge the predictors alone (the config's
                                    default, runtime.merge_corrections: false) */
  int fuse_predictor;          /**< ader + local of each tile as one task (fewer tasks per step: small clusters) */
  int fuse_steps;              /**< the whole step as one task where a tile allows it (sq_step_fusable) */
  int steps_per_task;          /**< with fuse_steps: a cluster whose tiles all take whole steps takes up to this
                                    many consecutive sub-steps of a slower step (with one cluster: global
                                    steps, sq_graph_sync_intervals) per task; <= 1: one */
  int fuse_chain_correction;   /**< with steps_per_task >= the LTS rate: the whole-step task of a fastest-cluster tile
                                    also takes the neighbour fluxes of the cluster-1 tiles that read it
                                    (sq_step_fold_target) at the end of each step of cluster 1 */
  int fuse_chain_prediction;   /**< with fuse_chain_correction (and without merge_neighbor_clusters): that task then
                                    also takes those tiles' predictors of their next step, where nothing between
                                    reads what they write (sq_pass_fold_corrections) */
  double t_begin, t_end;       /**< sq_graph_sync_interval: the interval's time span (point sources and
                                    receivers use it); consecutive intervals must share the boundary exactly */
} sq_graph_options;

/** What one or more sync intervals submitted (optional output). */
typedef struct sq_graph_stats {
  int64_t predict[SQ_GRAPH_MAX_CLUSTERS]; /**< per cluster: predictor steps submitted */
  int64_t correct[SQ_GRAPH_MAX_CLUSTERS]; /**< per cluster: corrector steps submitted */
  int64_t grouped;                        /**< groups of sub-steps submitted as one task per tile */
  int64_t merged_predict;                 /**< merged predictor tasks of two tiles */
  int64_t merged_predict_across_gpus;     /**< those of them whose tiles are placed on different GPUs */
  int64_t merged_correct;                 /**< merged neighbour-flux tasks of two tiles */
  int64_t folded;                         /**< cluster-1 tile corrections taken by a whole-step task */
  int64_t folded_predict;                 /**< cluster-1 tile predictors taken ahead by a whole-step task */
} sq_graph_stats;

/**
 * @brief Submit one sync interval of clustered local time stepping (thesis §3.5, §4.4): the
 * slowest cluster takes one step of @p dt_sync, cluster l takes rate^(L-1-l) steps of dt_sync /
 * rate^(L-1-l).  With one cluster this is one global time step.  Returns once submitted.
 * @param opt    options (NULL: none; the interval is then [0, dt_sync])
 * @param stats  NULL, or counters to add what was submitted to
 */
int sq_graph_sync_interval(sq_runtime *rt, double dt_sync, const sq_graph_options *opt, sq_graph_stats *stats);

/**
 * @brief Submit @p n consecutive sync intervals of @p dt_sync; interval i spans [times[i], times[i + 1]]
 * (@p times: n + 1 values; point sources and receivers use them).  With one cluster whose tiles all take
 * whole steps (fuse_steps, sq_step_fusable), opt->steps_per_task consecutive steps go as one task per tile.
 */
int sq_graph_sync_intervals(sq_runtime *rt, double dt_sync, int64_t n, const double *times, const sq_graph_options *opt,
                            sq_graph_stats *stats);

#endif
