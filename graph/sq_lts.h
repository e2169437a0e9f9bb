/**
 * @file sq_lts.h  Inside graph/: the cluster objects, the events of the LTS algorithm, the passes that
 * rewrite them into fewer or larger tasks, and their submission.  One sync interval goes
 *
 *     sq_lts_walk  ->  events  ->  passes (merge, group)  ->  sq_lts_submit  ->  sq_insert_*()
 *
 * The walk is the thesis's algorithm and nothing else; every optimisation is a pass over its events.
 */
#ifndef SQ_LTS_H
#define SQ_LTS_H

#include "sq_graph.h"

/** Most GPUs per process that merged tasks pair tiles on. */
#define SQ_GRAPH_MAX_GPUS 64

/** One LTS cluster: its tiles in mesh order, its time step and its fault tiles. */
typedef struct sq_cluster {
  int id;                     /**< 0: the fastest */
  double dt;                  /**< its step in the current sync interval */
  int ntile;                  /**< its tiles */
  const int *tile;            /**< ntile tile indices, ascending */
  int fault_first, fault_end; /**< its fault tiles [first, end); equal: none */
  int whole_steps;            /**< every tile takes whole steps and none has plasticity: its sub-steps may be
                                   grouped (steps_per_task) */
} sq_cluster;

/** The clusters of one runtime, with what the passes ask of each tile, read once. */
typedef struct sq_clustering {
  sq_runtime *rt;
  sq_graph_options opt;
  int ncluster, ntile, rate;
  sq_cluster cluster[SQ_GRAPH_MAX_CLUSTERS];
  int *tiles;                  /**< ntile: tile indices grouped by cluster (the clusters' `tile` point here) */
  unsigned char *whole_step;   /**< per tile: takes its whole step as one task (fuse_steps, sq_step_fusable) */
  unsigned char *plastic;      /**< per tile: has plasticity tasks */
  int *fold_into;              /**< per tile of cluster 1: the fastest-cluster tile whose whole-step task takes its
                                    correction (fuse_chain_correction), else -1 */
  unsigned char *fold_predict; /**< per tile of cluster 1 with fold_into: that task may take its next predictor too
                                    (fuse_chain_prediction; all of the tiles of one task or none) */
} sq_clustering;

/** @brief Read the clusters of @p rt; @p opt may be NULL. */
int sq_clustering_create(sq_runtime *rt, const sq_graph_options *opt, sq_clustering **out);
/** @brief Set every cluster's step for a sync interval of @p dt_sync: dt_l = dt_sync / rate^(L-1-l). */
void sq_clustering_set_dt(sq_clustering *c, double dt_sync);
/** @brief Free @p c. */
void sq_clustering_destroy(sq_clustering *c);

/** One step of one cluster. */
typedef struct sq_step_ref {
  int cluster;
  int substep; /**< within the step of cluster + 1 (0 for the slowest cluster) */
  double t0, t1;
} sq_step_ref;

/** Kinds of events. */
typedef enum {
  SQ_EVENT_PREDICT,  /**< ader + local (+ point sources, receivers) of the step's tiles */
  SQ_EVENT_EXCHANGE, /**< the halo exchange of a cluster after its prediction */
  SQ_EVENT_CORRECT,  /**< rupture faces, neighbour fluxes (+ plasticity) of the step's tiles */
  SQ_EVENT_STEPS     /**< consecutive whole steps of a cluster, one task per tile and group (grouping pass) */
} sq_event_kind;

/** An event of the LTS algorithm, or what a pass made of several. */
typedef struct sq_event {
  sq_event_kind kind;
  int n; /**< PREDICT, CORRECT: steps covered; 2 after merging neighbour clusters, step[0] the slower */
  sq_step_ref step[2];
  int halo_kinds; /**< EXCHANGE: SQ_GHOST_* mask */
  int nsub;       /**< STEPS: sub-steps step[0].substep .. + nsub - 1 */
  int counted;    /**< STEPS: the first sub-step's predictor went with a merged predictor */
  int fold;       /**< STEPS: 1, its tasks also correct the tiles folded into them, over cluster 1's step step[1];
                       3, then also predict those with fold_predict, over cluster 1's sub-step `ahead`.
                       CORRECT: leaves the folded tiles out.  PREDICT: 1, leaves out those predicted ahead
                       (sq_pass_fold_corrections) */
  int ahead;      /**< STEPS with fold 3: the sub-step of cluster 1's next step */
} sq_event;

/** A growing list of events. */
typedef struct sq_event_list {
  int64_t n, capacity;
  sq_event *event;
} sq_event_list;

/** @brief Append @p e to @p list. */
int sq_event_push(sq_event_list *list, const sq_event *e);
/** @brief Free the events of @p list (the list itself is the caller's). */
void sq_event_list_free(sq_event_list *list);

/**
 * @brief The LTS algorithm over one sync interval [t0, t1] (thesis §3.5): a step of cluster l predicts l,
 * exchanges its halo, lets cluster l - 1 take its `rate` sub-steps inside the step, then corrects l.
 * Appends the events to @p out.
 */
int sq_lts_walk(const sq_clustering *c, double t0, double t1, sq_event_list *out);

/** A pass: rewrites the events of @p list in place. */
typedef int (*sq_lts_pass)(const sq_clustering *c, sq_event_list *list);
/** @brief Merged neighbour-cluster predictors (thesis §6.5.3): P(l, k) and P(l - 1, 0) start together. */
int sq_pass_merge_predictors(const sq_clustering *c, sq_event_list *list);
/** @brief Merged neighbour-flux tasks (thesis §6.5.3): C(l - 1, last) and C(l, k) end together. */
int sq_pass_merge_corrections(const sq_clustering *c, sq_event_list *list);
/** @brief Consecutive whole steps of a cluster whose tiles all take them, steps_per_task per task. */
int sq_pass_group_steps(const sq_clustering *c, sq_event_list *list);
/** @brief The last grouped whole steps of the fastest cluster in a step of cluster 1 take that step's correction of
 *  the cluster-1 tiles folded into them (fuse_chain_correction), and then their next predictors where the next
 *  event of cluster 1 is that predictor and nothing between reads their LTS buffer (fuse_chain_prediction). */
int sq_pass_fold_corrections(const sq_clustering *c, sq_event_list *list);
/** @brief The passes the options ask for, in their order (merge predictors, group steps, merge corrections, fold
 *  corrections). */
int sq_lts_run_passes(const sq_clustering *c, sq_event_list *list);

/** @brief Insert the tasks of @p list, in order; add to @p stats where not NULL. */
int sq_lts_submit(const sq_clustering *c, const sq_event_list *list, sq_graph_stats *stats);

#endif
