/**
 * @file graph.c  Clustered local time stepping as a task graph (thesis §3.5, eq. 3.35, 3.40, 4.1-4.2).
 *
 * The walk is the sequential LTS algorithm: a step of cluster l over [T, T + dt_l] predicts cluster
 * l (ader + local), then lets the faster cluster l-1 take its `rate` sub-steps inside [T, T + dt_l]
 * -- those read l's derivatives and fill their buffer for l -- and finally corrects cluster l with
 * the neighbour fluxes.  StarPU turns the data accesses into the DAG, so independent clusters and
 * tiles overlap freely.  Fault faces are corrected by rupture tasks just before the neighbour fluxes
 * of their cluster; both sides of a fault face share a cluster, so one step covers both.
 */
#include "sq_graph.h"

int sq_graph_layer_priority(int layer) { return layer == SQ_LAYER_COPY ? 1 : 0; }

typedef struct lts_walk {
  sq_runtime *rt;
  const sq_graph_options *opt;
  const double *dt; /* per cluster */
} lts_walk;

/* Buffer mode of cluster l's predictor at sub-step k of the slower cluster's step. */
static sq_buffer_mode buffer_mode(const sq_tile *t, int substep) {
  if (!t->needs_buffer) return SQ_BUFFER_NONE;
  return substep == 0 ? SQ_BUFFER_RESET : SQ_BUFFER_ACCUMULATE;
}

/* Sub-step k of [t0, t1] in steps of dt: consecutive sub-steps share their boundary exactly. */
static void substep_interval(double t0, double t1, int k, int rate, double dt, double *a, double *b) {
  *a = k == 0 ? t0 : t0 + k * dt;
  *b = k + 1 == rate ? t1 : t0 + (k + 1) * dt;
}

/* Does tile t take its whole step as one task, submitted with the corrections (step.c)? */
static int whole_step(const lts_walk *w, int t) {
  return w->opt && w->opt->fuse_steps && sq_step_fusable(w->rt, t);
}

/* Point sources and receivers of tile t in its step [t0, t1) of size dt, after its predictor. */
static int point_tasks(const lts_walk *w, int t, double t0, double t1, double dt, sq_buffer_mode mode) {
  const int prio = sq_graph_layer_priority(w->rt->disc->tile[t].layer);
  if (sq_runtime_tile_has_sources(w->rt, t)) SQ_CALL(sq_insert_source(w->rt, t, t0, dt, mode, prio));
  if (sq_runtime_tile_has_receivers(w->rt, t)) SQ_CALL(sq_insert_receivers(w->rt, t, t0, t1, prio));
  return SQ_SUCCESS;
}

/* ader + local (+ sources, receivers) of every tile of cluster l over its step [t0, t1); one fused task
 * per tile with opt->fuse_predictor. */
static int predict(const lts_walk *w, int l, int substep, double t0, double t1) {
  const sq_disc *d = w->rt->disc;
  if (w->opt && w->opt->count_predict) w->opt->count_predict[l]++;
  for (int t = 0; t < d->ntile; ++t) {
    const sq_tile *tl = &d->tile[t];
    if (tl->cluster != l || whole_step(w, t)) continue;
    const sq_buffer_mode mode = buffer_mode(tl, substep);
    if (w->opt && w->opt->fuse_predictor) {
      SQ_CALL(sq_insert_merged_predict(w->rt, 1, &t, &w->dt[l], &mode, sq_graph_layer_priority(tl->layer)));
    } else {
      SQ_CALL(sq_insert_ader(w->rt, t, w->dt[l], mode, sq_graph_layer_priority(tl->layer)));
      SQ_CALL(sq_insert_local(w->rt, t, sq_graph_layer_priority(tl->layer)));
    }
    SQ_CALL(point_tasks(w, t, t0, t1, w->dt[l], mode));
  }
  return SQ_SUCCESS;
}

/* rupture faces, then neighbour fluxes of every tile of cluster l over its step from t0 (or the whole step
 * of tiles that take it as one task), each followed by the tile's plasticity correction over the
 * cluster's step (thesis ch. 8: after the element update). */
static int correct(const lts_walk *w, int l, int substep, double t0) {
  const sq_disc *d = w->rt->disc;
  if (w->opt && w->opt->count_correct) w->opt->count_correct[l]++;
  int first, end;
  if (sq_runtime_fault_tiles(w->rt, l, &first, &end))
    for (int ft = first; ft < end; ++ft) SQ_CALL(sq_insert_rupture(w->rt, ft, t0, w->dt[l]));
  for (int t = 0; t < d->ntile; ++t) {
    const sq_tile *tl = &d->tile[t];
    if (tl->cluster != l) continue;
    if (whole_step(w, t))
      SQ_CALL(sq_insert_step(w->rt, t, w->dt[l], substep, buffer_mode(tl, substep), sq_graph_layer_priority(tl->layer)));
    else
      SQ_CALL(sq_insert_neighbor(w->rt, t, w->dt[l], substep, sq_graph_layer_priority(tl->layer)));
    if (sq_runtime_tile_has_plasticity(w->rt, t))
      SQ_CALL(sq_insert_plasticity(w->rt, t, w->dt[l], sq_graph_layer_priority(tl->layer)));
  }
  return SQ_SUCCESS;
}

/*
 * Merged neighbour-cluster predictors (thesis §6.5.3): cluster l at sub-step `substep` and cluster
 * l-1 at its sub-step 0 start together, so their ader + local work is independent; submit it as
 * tasks that each take one tile of both clusters (leftover tiles alone).
 */
static int predict_merged(const lts_walk *w, int l, int substep, double t0, double t1) {
  double t0_fast, t1_fast; /* cluster l-1's first sub-step */
  substep_interval(t0, t1, 0, w->rt->disc->opt.lts_rate, w->dt[l - 1], &t0_fast, &t1_fast);
  const sq_disc *d = w->rt->disc;
  if (w->opt && w->opt->count_predict) w->opt->count_predict[l]++, w->opt->count_predict[l - 1]++;
  int ia = 0, ib = 0;
  for (;;) {
    while (ia < d->ntile && d->tile[ia].cluster != l) ++ia;
    while (ib < d->ntile && (d->tile[ib].cluster != l - 1 || whole_step(w, ib))) ++ib;
    if (ia >= d->ntile && ib >= d->ntile) break;
    int tiles[2], n = 0, prio = 0;
    double dt[2];
    sq_buffer_mode mode[2];
    if (ia < d->ntile) {
      tiles[n] = ia, dt[n] = w->dt[l], mode[n] = buffer_mode(&d->tile[ia], substep), ++n;
      prio = sq_graph_layer_priority(d->tile[ia].layer);
      ++ia;
    }
    if (ib < d->ntile) {
      tiles[n] = ib, dt[n] = w->dt[l - 1], mode[n] = buffer_mode(&d->tile[ib], 0), ++n;
      const int pb = sq_graph_layer_priority(d->tile[ib].layer);
      prio = pb > prio ? pb : prio;
      ++ib;
    }
    SQ_CALL(sq_insert_merged_predict(w->rt, n, tiles, dt, mode, prio));
    for (int i = 0; i < n; ++i) {
      const int fast = d->tile[tiles[i]].cluster == l - 1;
      SQ_CALL(point_tasks(w, tiles[i], fast ? t0_fast : t0, fast ? t1_fast : t1, dt[i], mode[i]));
    }
  }
  return SQ_SUCCESS;
}

/* One step [t0, t1) of cluster l, sub-step `substep` of cluster l+1's current step; `predicted` when
 * a merged task already did this step's predictor. */
static int cluster_step(const lts_walk *w, int l, int substep, int predicted, double t0, double t1) {
  const int merge = w->opt && w->opt->merge_neighbor_clusters && l > 0 && !predicted;
  if (merge) SQ_CALL(predict_merged(w, l, substep, t0, t1));
  else if (!predicted) SQ_CALL(predict(w, l, substep, t0, t1));
  /* other ranks' neighbours of this cluster need its new prediction, and its derivatives; its
   * buffer is complete after the last sub-step of the slower cluster's step */
  const int last = substep == w->rt->disc->opt.lts_rate - 1;
  SQ_CALL(sq_halo_exchange(w->rt, l, SQ_GHOST_TINT | SQ_GHOST_DERIVS | (last ? SQ_GHOST_BUFFER : 0)));

  if (l > 0)
    for (int k = 0; k < w->rt->disc->opt.lts_rate; ++k) {
      double a, b;
      substep_interval(t0, t1, k, w->rt->disc->opt.lts_rate, w->dt[l - 1], &a, &b);
      SQ_CALL(cluster_step(w, l - 1, k, merge && k == 0, a, b));
    }
  return correct(w, l, substep, t0);
}

int sq_graph_sync_interval(sq_runtime *rt, double dt_sync, const sq_graph_options *opt) {
  const sq_disc *d = rt->disc;
  double dt[64];
  SQ_CHECK(d->ncluster <= 64, SQ_ERR_INPUT, "at most 64 LTS clusters are supported (got %d)", d->ncluster);
  for (int l = d->ncluster - 1; l >= 0; --l) dt[l] = l == d->ncluster - 1 ? dt_sync : dt[l + 1] / d->opt.lts_rate;
  const lts_walk w = {.rt = rt, .opt = opt, .dt = dt};
  return cluster_step(&w, d->ncluster - 1, 0, 0, opt ? opt->t_begin : 0.0, opt ? opt->t_end : dt_sync);
}
