/**
 * @file graph.c  Clustered local time stepping as a task graph (thesis §3.5, eq. 3.35, 3.40, 4.1-4.2).
 *
 * The walk is the sequential LTS algorithm: a step of cluster l over [T, T + dt_l] predicts cluster
 * l (ader + local), then lets the faster cluster l-1 take its `rate` sub-steps inside [T, T + dt_l]
 * -- those read l's derivatives and fill their buffer for l -- and finally corrects cluster l with
 * the neighbour fluxes.  StarPU turns the data accesses into the DAG, so independent clusters and
 * tiles overlap freely.  With merged neighbour clusters (thesis §6.5.3), the predictors of clusters l and
 * l-1 that start together, and their corrections that end together, go as tasks of two tiles.  A fastest
 * cluster whose tiles take whole steps may take several consecutive sub-steps per task (steps_per_task).
 * Fault faces are corrected by rupture tasks just before the neighbour fluxes of their cluster; both sides
 * of a fault face share a cluster, so one step covers both.
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

/* The correction of tile t at sub-step `substep` of its cluster's parent step: its neighbour fluxes (or its
 * whole step where it takes it as one task), then its plasticity correction over the cluster's step
 * (thesis ch. 8: after the element update). */
static int correct_tile(const lts_walk *w, int t, int substep) {
  const sq_tile *tl = &w->rt->disc->tile[t];
  const double dt = w->dt[tl->cluster];
  if (whole_step(w, t))
    SQ_CALL(
        sq_insert_step(w->rt, t, dt, substep, 1, buffer_mode(tl, substep), sq_graph_layer_priority(tl->layer)));
  else
    SQ_CALL(sq_insert_neighbor(w->rt, t, dt, substep, sq_graph_layer_priority(tl->layer)));
  if (sq_runtime_tile_has_plasticity(w->rt, t))
    SQ_CALL(sq_insert_plasticity(w->rt, t, dt, sq_graph_layer_priority(tl->layer)));
  return SQ_SUCCESS;
}

/* rupture faces, then the correction of every tile of cluster l over its step from t0. */
static int correct(const lts_walk *w, int l, int substep, double t0) {
  const sq_disc *d = w->rt->disc;
  if (w->opt && w->opt->count_correct) w->opt->count_correct[l]++;
  int first, end;
  if (sq_runtime_fault_tiles(w->rt, l, &first, &end))
    for (int ft = first; ft < end; ++ft) SQ_CALL(sq_insert_rupture(w->rt, ft, t0, w->dt[l]));
  for (int t = 0; t < d->ntile; ++t)
    if (d->tile[t].cluster == l) SQ_CALL(correct_tile(w, t, substep));
  return SQ_SUCCESS;
}

/* Any GPU, for next_mergeable (sq_tile_gpu's -1 is a tile placed on none). */
#define SQ_ANY_GPU (-2)

/* The next tile from `from` on of cluster l that a merged predictor may take, on GPU `gpu` (or
 * SQ_ANY_GPU), or ntile. */
static int next_mergeable(const lts_walk *w, int l, int gpu, int from) {
  const sq_disc *d = w->rt->disc;
  while (from < d->ntile && (d->tile[from].cluster != l || whole_step(w, from) ||
                             (gpu != SQ_ANY_GPU && sq_tile_gpu(w->rt, from) != gpu)))
    ++from;
  return from;
}

/* Submit one merged predictor over n tiles (1 or 2) of clusters l and l-1, and their point tasks. */
static int merged_task(const lts_walk *w, int l, int substep, int n, const int *tiles, double t0, double t1) {
  const sq_disc *d = w->rt->disc;
  double t0_fast, t1_fast; /* cluster l-1's first sub-step */
  substep_interval(t0, t1, 0, d->opt.lts_rate, w->dt[l - 1], &t0_fast, &t1_fast);
  double dt[2];
  sq_buffer_mode mode[2];
  int prio = 0;
  for (int i = 0; i < n; ++i) {
    const int fast = d->tile[tiles[i]].cluster == l - 1;
    dt[i] = w->dt[fast ? l - 1 : l];
    mode[i] = buffer_mode(&d->tile[tiles[i]], fast ? 0 : substep);
    const int p = sq_graph_layer_priority(d->tile[tiles[i]].layer);
    prio = p > prio ? p : prio;
  }
  if (n == 2 && w->opt && w->opt->count_merged)
    w->opt->count_merged[0]++, w->opt->count_merged[1] += sq_tile_gpu(w->rt, tiles[0]) != sq_tile_gpu(w->rt, tiles[1]);
  SQ_CALL(sq_insert_merged_predict(w->rt, n, tiles, dt, mode, prio));
  for (int i = 0; i < n; ++i) {
    const int fast = d->tile[tiles[i]].cluster == l - 1;
    SQ_CALL(point_tasks(w, tiles[i], fast ? t0_fast : t0, fast ? t1_fast : t1, dt[i], mode[i]));
  }
  return SQ_SUCCESS;
}

/*
 * Merged neighbour-cluster predictors (thesis §6.5.3): cluster l at sub-step `substep` and cluster
 * l-1 at its sub-step 0 start together, so their ader + local work is independent; submit it as
 * tasks that each take one tile of both clusters, in mesh order, of two tiles placed on the same GPU
 * (a pair across two GPUs would move one tile's data to the other GPU and back every step);
 * leftover tiles alone.
 */
static int predict_merged(const lts_walk *w, int l, int substep, double t0, double t1) {
  const sq_disc *d = w->rt->disc;
  if (w->opt && w->opt->count_predict) w->opt->count_predict[l]++, w->opt->count_predict[l - 1]++;
  int ngpu = 0; /* GPUs 0 .. ngpu - 1 hold tiles; -1: placed nowhere (one GPU, or CPU tiles) */
  for (int t = 0; t < d->ntile; ++t) ngpu = sq_tile_gpu(w->rt, t) >= ngpu ? sq_tile_gpu(w->rt, t) + 1 : ngpu;
  int *cursor; /* per GPU, -1 first: the next tile of cluster l-1 to pair, from it on */
  SQ_CALL(SQ_CALLOC(cursor, (size_t)ngpu + 1));
  int ierr = SQ_SUCCESS;
  for (int ia = next_mergeable(w, l, SQ_ANY_GPU, 0); !ierr && ia < d->ntile;
       ia = next_mergeable(w, l, SQ_ANY_GPU, ia + 1)) {
    const int g = sq_tile_gpu(w->rt, ia);
    const int ib = cursor[g + 1] = next_mergeable(w, l - 1, g, cursor[g + 1]);
    const int tiles[2] = {ia, ib};
    ierr = merged_task(w, l, substep, ib < d->ntile ? 2 : 1, tiles, t0, t1);
    if (ib < d->ntile) ++cursor[g + 1];
  }
  for (int ib = next_mergeable(w, l - 1, SQ_ANY_GPU, 0); !ierr && ib < d->ntile;
       ib = next_mergeable(w, l - 1, SQ_ANY_GPU, ib + 1))
    if (ib >= cursor[sq_tile_gpu(w->rt, ib) + 1]) ierr = merged_task(w, l, substep, 1, &ib, t0, t1); /* unpaired */
  SQ_FREE(cursor);
  return ierr;
}

/* May a merged neighbour-flux task take tile t of cluster l, on GPU `gpu` (or SQ_ANY_GPU)?  Not a tile
 * that takes its whole step as one task, nor one with plasticity (its own task follows its update). */
static int correctable(const lts_walk *w, int t, int l, int gpu) {
  const sq_tile *tl = &w->rt->disc->tile[t];
  return tl->cluster == l && !whole_step(w, t) && !sq_runtime_tile_has_plasticity(w->rt, t) &&
         (gpu == SQ_ANY_GPU || sq_tile_gpu(w->rt, t) == gpu);
}

/* The next tile from `from` on that correctable() admits, or ntile. */
static int next_correctable(const lts_walk *w, int l, int gpu, int from) {
  while (from < w->rt->disc->ntile && !correctable(w, from, l, gpu)) ++from;
  return from;
}

/* Do the corrections of cluster l and of the last sub-step of cluster l - 1 go together (merged
 * neighbour-flux tasks)?  With merged neighbour clusters, where neither cluster has fault faces (their
 * rupture tasks come first). */
static int corrections_merge(const lts_walk *w, int l) {
  int first, end;
  return w->opt && w->opt->merge_neighbor_clusters && !w->opt->merge_predictors_only && l > 0 &&
         !sq_runtime_fault_tiles(w->rt, l, &first, &end) &&
         !sq_runtime_fault_tiles(w->rt, l - 1, &first, &end);
}

/*
 * Merged neighbour-flux tasks (thesis §6.5.3): at the end of a step of cluster l, its correction and that
 * of the last sub-step of cluster l - 1 read each other's LTS buffer and derivatives but update different
 * dofs, so they are independent; submit them as tasks that each take one tile of both clusters on the same
 * GPU, in mesh order; leftover tiles, and those correctable() refuses, alone.
 */
static int correct_pair(const lts_walk *w, int l, int substep) {
  const sq_disc *d = w->rt->disc;
  const int last = d->opt.lts_rate - 1;
  if (w->opt && w->opt->count_correct) w->opt->count_correct[l]++, w->opt->count_correct[l - 1]++;
  for (int t = 0; t < d->ntile; ++t) { /* the tiles no merged task takes */
    const int c = d->tile[t].cluster;
    if ((c == l || c == l - 1) && !correctable(w, t, c, SQ_ANY_GPU)) SQ_CALL(correct_tile(w, t, c == l ? substep : last));
  }
  int ngpu = 0;
  for (int t = 0; t < d->ntile; ++t) ngpu = sq_tile_gpu(w->rt, t) >= ngpu ? sq_tile_gpu(w->rt, t) + 1 : ngpu;
  int cursor[65]; /* per GPU, -1 first: the next tile of cluster l - 1 to pair, from it on */
  SQ_CHECK(ngpu < 65, SQ_ERR_INPUT, "at most 64 GPUs per process are supported (got %d)", ngpu);
  for (int g = 0; g <= ngpu; ++g) cursor[g] = 0;
  const double dt[2] = {w->dt[l], w->dt[l - 1]};
  const int sub[2] = {substep, last};
  for (int ia = next_correctable(w, l, SQ_ANY_GPU, 0); ia < d->ntile; ia = next_correctable(w, l, SQ_ANY_GPU, ia + 1)) {
    const int g = sq_tile_gpu(w->rt, ia);
    const int ib = cursor[g + 1] = next_correctable(w, l - 1, g, cursor[g + 1]);
    const int tiles[2] = {ia, ib};
    int prio = sq_graph_layer_priority(d->tile[ia].layer);
    if (ib < d->ntile) {
      const int pb = sq_graph_layer_priority(d->tile[ib].layer);
      prio = pb > prio ? pb : prio;
      ++cursor[g + 1];
    }
    if (ib < d->ntile && w->opt->count_merged) w->opt->count_merged[2]++;
    SQ_CALL(sq_insert_neighbors(w->rt, ib < d->ntile ? 2 : 1, tiles, dt, sub, prio));
  }
  for (int ib = next_correctable(w, l - 1, SQ_ANY_GPU, 0); ib < d->ntile;
       ib = next_correctable(w, l - 1, SQ_ANY_GPU, ib + 1))
    if (ib >= cursor[sq_tile_gpu(w->rt, ib) + 1]) /* unpaired */
      SQ_CALL(sq_insert_neighbors(w->rt, 1, &ib, dt + 1, sub + 1, sq_graph_layer_priority(d->tile[ib].layer)));
  return SQ_SUCCESS;
}

/* Does cluster l take consecutive sub-steps as one task per tile (opt->steps_per_task > 1)?  Where every tile
 * of l takes whole steps (step.c: then l is the fastest cluster, with neither copy nor ghost tiles, so its
 * halo exchange has nothing to send or receive) and none has plasticity (its own task follows each
 * sub-step). */
static int grouped(const lts_walk *w, int l) {
  if (!w->opt || w->opt->steps_per_task <= 1) return 0;
  const sq_disc *d = w->rt->disc;
  int any = 0;
  for (int t = 0; t < d->ntile; ++t) {
    if (d->tile[t].cluster != l) continue;
    if (!whole_step(w, t) || sq_runtime_tile_has_plasticity(w->rt, t)) return 0;
    any = 1;
  }
  return any;
}

/* Sub-steps 0 .. n - 1 of cluster l (grouped) in steps of dt, steps_per_task of them per task and tile;
 * `predicted`: a merged predictor task has counted sub-step 0's predictor. */
static int grouped_steps(const lts_walk *w, int l, int64_t n, double dt, int predicted) {
  const sq_disc *d = w->rt->disc;
  for (int64_t k = 0; k < n; k += w->opt->steps_per_task) {
    const int nsub = n - k < w->opt->steps_per_task ? (int)(n - k) : w->opt->steps_per_task;
    if (w->opt->count_predict) w->opt->count_predict[l] += nsub - (k == 0 && predicted);
    if (w->opt->count_correct) w->opt->count_correct[l] += nsub;
    if (w->opt->count_grouped) ++*w->opt->count_grouped;
    for (int t = 0; t < d->ntile; ++t) {
      const sq_tile *tl = &d->tile[t];
      if (tl->cluster == l)
        SQ_CALL(sq_insert_step(w->rt, t, dt, (int)k, nsub, buffer_mode(tl, (int)k),
                               sq_graph_layer_priority(tl->layer)));
    }
  }
  return SQ_SUCCESS;
}

/* One step [t0, t1) of cluster l, sub-step `substep` of cluster l+1's current step; `predicted` when
 * a merged task already did this step's predictor; `deferred`: leave this step's correction to the caller,
 * which merges it with its own (the last sub-step of a step of cluster l+1). */
static int cluster_step(const lts_walk *w, int l, int substep, int predicted, int deferred, double t0, double t1) {
  const int merge = w->opt && w->opt->merge_neighbor_clusters && l > 0 && !predicted;
  if (merge) SQ_CALL(predict_merged(w, l, substep, t0, t1));
  else if (!predicted) SQ_CALL(predict(w, l, substep, t0, t1));
  /* other ranks' neighbours of this cluster need its new prediction, and its derivatives; its
   * buffer is complete after the last sub-step of the slower cluster's step */
  const int last = substep == w->rt->disc->opt.lts_rate - 1;
  SQ_CALL(sq_halo_exchange(w->rt, l, SQ_GHOST_TINT | SQ_GHOST_DERIVS | (last ? SQ_GHOST_BUFFER : 0)));

  /* a step not merged into its caller's correction takes the last sub-step's correction of cluster l-1 */
  const int group = l > 0 && grouped(w, l - 1);
  const int pair = !deferred && !group && corrections_merge(w, l);
  const int rate = w->rt->disc->opt.lts_rate;
  if (group) SQ_CALL(grouped_steps(w, l - 1, rate, w->dt[l - 1], merge));
  else if (l > 0)
    for (int k = 0; k < rate; ++k) {
      double a, b;
      substep_interval(t0, t1, k, rate, w->dt[l - 1], &a, &b);
      SQ_CALL(cluster_step(w, l - 1, k, merge && k == 0, pair && k == rate - 1, a, b));
    }
  if (deferred) return SQ_SUCCESS;
  return pair ? correct_pair(w, l, substep) : correct(w, l, substep, t0);
}

int sq_graph_sync_interval(sq_runtime *rt, double dt_sync, const sq_graph_options *opt) {
  const sq_disc *d = rt->disc;
  double dt[64];
  SQ_CHECK(d->ncluster <= 64, SQ_ERR_INPUT, "at most 64 LTS clusters are supported (got %d)", d->ncluster);
  for (int l = d->ncluster - 1; l >= 0; --l) dt[l] = l == d->ncluster - 1 ? dt_sync : dt[l + 1] / d->opt.lts_rate;
  const lts_walk w = {.rt = rt, .opt = opt, .dt = dt};
  return cluster_step(&w, d->ncluster - 1, 0, 0, 0, opt ? opt->t_begin : 0.0, opt ? opt->t_end : dt_sync);
}

int sq_graph_sync_intervals(sq_runtime *rt, double dt_sync, int64_t n, const double *times,
                            const sq_graph_options *opt) {
  const sq_disc *d = rt->disc;
  const double dt[1] = {dt_sync};
  const lts_walk w = {.rt = rt, .opt = opt, .dt = dt};
  if (d->ncluster == 1 && grouped(&w, 0)) /* consecutive global steps of whole-step tiles */
    return grouped_steps(&w, 0, n, dt_sync, 0);
  sq_graph_options one = opt ? *opt : (sq_graph_options){0};
  for (int64_t i = 0; i < n; ++i) {
    one.t_begin = times[i];
    one.t_end = times[i + 1];
    SQ_CALL(sq_graph_sync_interval(rt, dt_sync, &one));
  }
  return SQ_SUCCESS;
}
