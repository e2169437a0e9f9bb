/**
 * @file cluster.c  The LTS clusters of a runtime (thesis §3.5): each cluster's tiles in mesh order, its
 * time step and fault tiles, and what the passes need to know of each tile, asked of the runtime once.
 */
#include <stdlib.h>

#include "sq_lts.h"

int sq_graph_layer_priority(int layer) { return layer == SQ_LAYER_COPY ? 1 : 0; }

/* fold_predict: the folded tiles whose next predictor the whole-step task may take too, without the point tasks that
 * follow a predictor and without merged predictors (which pair cluster 1's predictors with cluster 2's); the tiles
 * of one whole-step task all or none. */
static int fold_predictions(sq_clustering *c) {
  if (!c->opt.fuse_chain_prediction || c->opt.merge_neighbor_clusters) return SQ_SUCCESS;
  const sq_cluster *c1 = &c->cluster[1];
  for (int i = 0; i < c1->ntile; ++i) {
    const int t = c1->tile[i];
    c->fold_predict[t] = (unsigned char)(c->fold_into[t] >= 0 && !sq_runtime_tile_has_sources(c->rt, t) &&
                                         !sq_runtime_tile_has_receivers(c->rt, t));
  }
  for (int i = 0; i < c1->ntile; ++i) {
    const int t = c1->tile[i];
    if (c->fold_into[t] < 0 || c->fold_predict[t]) continue;
    for (int j = 0; j < c1->ntile; ++j)
      if (c->fold_into[c1->tile[j]] == c->fold_into[t]) c->fold_predict[c1->tile[j]] = 0;
  }
  return SQ_SUCCESS;
}

/* fold_into: each cluster-1 tile without plasticity whose correction may follow the whole steps of the fastest
 * cluster's tile it borders, where that cluster groups a whole step of cluster 1 per task; none for a tile that
 * would get more than SQ_STEP_MAX_TAIL.  The folded tiles and their cluster-1 neighbours get two time-integral
 * arrays: else each of their predictors would wait for the whole-step task that read the previous ones. */
static int fold_corrections(sq_clustering *c) {
  for (int t = 0; t < c->ntile; ++t) c->fold_into[t] = -1;
  if (!c->opt.fuse_chain_correction || c->ncluster < 2 || !c->cluster[0].whole_steps || c->opt.steps_per_task < c->rate)
    return SQ_SUCCESS;
  const sq_cluster *c1 = &c->cluster[1];
  for (int i = 0; i < c1->ntile; ++i) {
    const int t = c1->tile[i];
    if (!c->plastic[t]) c->fold_into[t] = sq_step_fold_target(c->rt, t);
  }
  for (int i = 0; i < c->cluster[0].ntile; ++i) {
    const int s = c->cluster[0].tile[i];
    int n = 0;
    for (int j = 0; j < c1->ntile; ++j) n += c->fold_into[c1->tile[j]] == s;
    if (n > SQ_STEP_MAX_TAIL)
      for (int j = 0; j < c1->ntile; ++j)
        if (c->fold_into[c1->tile[j]] == s) c->fold_into[c1->tile[j]] = -1;
  }
  for (int i = 0; i < c1->ntile; ++i)
    if (c->fold_into[c1->tile[i]] >= 0) SQ_CALL(sq_runtime_double_tint(c->rt, c1->tile[i]));
  return fold_predictions(c);
}

int sq_clustering_create(sq_runtime *rt, const sq_graph_options *opt, sq_clustering **out) {
  const int ncluster = sq_runtime_ncluster(rt), ntile = sq_runtime_ntile(rt);
  SQ_CHECK(ncluster >= 1 && ncluster <= SQ_GRAPH_MAX_CLUSTERS, SQ_ERR_INPUT,
           "at most %d LTS clusters are supported (got %d)", SQ_GRAPH_MAX_CLUSTERS, ncluster);
  sq_clustering *c;
  SQ_CALL(SQ_CALLOC(c, 1));
  c->rt = rt;
  if (opt) c->opt = *opt;
  if (sq_runtime_attenuates(rt)) /* the fused and merged task forms do not carry attenuation's memory variables: */
    c->opt.merge_neighbor_clusters = c->opt.fuse_predictor = c->opt.fuse_steps = 0, /* separate ader, local */
        c->opt.steps_per_task = 1;
  c->ncluster = ncluster;
  c->ntile = ntile;
  c->rate = sq_runtime_lts_rate(rt);
  if (SQ_CALLOC(c->tiles, ntile + 1) || SQ_CALLOC(c->whole_step, ntile + 1) || SQ_CALLOC(c->plastic, ntile + 1) ||
      SQ_CALLOC(c->fold_into, ntile + 1) || SQ_CALLOC(c->fold_predict, ntile + 1)) {
    sq_clustering_destroy(c);
    return SQ_ERR_MEMORY;
  }
  int count[SQ_GRAPH_MAX_CLUSTERS] = {0};
  for (int t = 0; t < ntile; ++t) {
    const int l = sq_runtime_tile_cluster(rt, t);
    if (l < 0 || l >= ncluster) sq_clustering_destroy(c);
    SQ_CHECK(l >= 0 && l < ncluster, SQ_ERR_INTERNAL, "tile %d is in cluster %d of %d", t, l, ncluster);
    ++count[l];
    c->whole_step[t] = (unsigned char)(c->opt.fuse_steps && sq_step_fusable(rt, t));
    c->plastic[t] = (unsigned char)sq_runtime_tile_has_plasticity(rt, t);
  }
  int at = 0;
  for (int l = 0; l < ncluster; ++l) {
    sq_cluster *cl = &c->cluster[l];
    cl->id = l;
    cl->tile = c->tiles + at;
    at += count[l];
    if (!sq_runtime_fault_tiles(rt, l, &cl->fault_first, &cl->fault_end)) cl->fault_first = cl->fault_end = 0;
  }
  for (int t = 0; t < ntile; ++t) {
    sq_cluster *cl = &c->cluster[sq_runtime_tile_cluster(rt, t)];
    ((int *)cl->tile)[cl->ntile++] = t;
  }
  for (int l = 0; l < ncluster; ++l) {
    sq_cluster *cl = &c->cluster[l];
    cl->whole_steps = c->opt.steps_per_task > 1 && cl->ntile > 0;
    for (int i = 0; i < cl->ntile; ++i)
      if (!c->whole_step[cl->tile[i]] || c->plastic[cl->tile[i]]) cl->whole_steps = 0;
  }
  const int ierr = fold_corrections(c);
  if (ierr) {
    sq_clustering_destroy(c);
    return ierr;
  }
  sq_clustering_set_dt(c, 1.0);
  *out = c;
  return SQ_SUCCESS;
}

void sq_clustering_set_dt(sq_clustering *c, double dt_sync) {
  for (int l = c->ncluster - 1; l >= 0; --l)
    c->cluster[l].dt = l == c->ncluster - 1 ? dt_sync : c->cluster[l + 1].dt / c->rate;
}

void sq_clustering_destroy(sq_clustering *c) {
  if (!c) return;
  SQ_FREE(c->tiles);
  SQ_FREE(c->whole_step);
  SQ_FREE(c->plastic);
  SQ_FREE(c->fold_into);
  SQ_FREE(c->fold_predict);
  SQ_FREE(c);
}
