/**
 * @file submit.c  The events of one or more sync intervals as tasks, tile by tile: the only file of graph/
 * that calls sq_insert_*().
 */
#include "sq_lts.h"

/* Buffer mode of a tile's predictor at sub-step k of the slower cluster's step. */
static sq_buffer_mode buffer_mode(const sq_clustering *c, int tile, int substep) {
  if (!sq_runtime_tile_needs_buffer(c->rt, tile)) return SQ_BUFFER_NONE;
  return substep == 0 ? SQ_BUFFER_RESET : SQ_BUFFER_ACCUMULATE;
}

/* Task priority of a tile: copy-layer work first (its halo sends start early), then the faster clusters.  The
 * LTS steps of neighbouring clusters wait on each other (a cluster's correction on the faster one's buffer, the
 * faster one's next sub-step on the slower one's derivatives), so the chain of the fast clusters' sub-steps
 * bounds a sync interval, and the slow clusters' tiles away from it fill the gaps (with a scheduler that
 * orders by priority, e.g. dmdas). */
static int priority(const sq_clustering *c, int tile) {
  const int layer = sq_graph_layer_priority(sq_runtime_tile_layer(c->rt, tile));
  return c->ncluster * layer + c->ncluster - 1 - sq_runtime_tile_cluster(c->rt, tile);
}

/* Point sources and receivers of a tile in its step [t0, t1) of size dt, after its predictor. */
static int point_tasks(const sq_clustering *c, int tile, double t0, double t1, double dt, sq_buffer_mode mode) {
  if (sq_runtime_tile_has_sources(c->rt, tile)) SQ_CALL(sq_insert_source(c->rt, tile, t0, dt, mode, priority(c, tile)));
  if (sq_runtime_tile_has_receivers(c->rt, tile)) SQ_CALL(sq_insert_receivers(c->rt, tile, t0, t1, priority(c, tile)));
  return SQ_SUCCESS;
}

/* ader + local (+ sources, receivers) of every tile of a step; one fused task per tile with fuse_predictor.
 * Tiles that take whole steps predict in their correction's task, those a whole-step task predicted ahead in it. */
static int predict(const sq_clustering *c, const sq_event *e) {
  const sq_step_ref *s = &e->step[0];
  const sq_cluster *cl = &c->cluster[s->cluster];
  for (int i = 0; i < cl->ntile; ++i) {
    const int t = cl->tile[i];
    if (c->whole_step[t]) continue;
    if (e->fold && c->fold_predict[t]) {
      sq_runtime_tint_advance(c->rt, t);
      continue;
    }
    const sq_buffer_mode mode = buffer_mode(c, t, s->substep);
    if (c->opt.fuse_predictor) {
      SQ_CALL(sq_insert_merged_predict(c->rt, 1, &t, &cl->dt, &mode, priority(c, t)));
    } else {
      SQ_CALL(sq_insert_ader(c->rt, t, cl->dt, mode, priority(c, t)));
      SQ_CALL(sq_insert_local(c->rt, t, priority(c, t)));
    }
    SQ_CALL(point_tasks(c, t, s->t0, s->t1, cl->dt, mode));
  }
  return SQ_SUCCESS;
}

/* The correction of one tile at a sub-step: its neighbour fluxes (or its whole step where it takes it as
 * one task), then its plasticity correction over the step (thesis ch. 8: after the element update). */
static int correct_tile(const sq_clustering *c, int t, int substep) {
  const double dt = c->cluster[sq_runtime_tile_cluster(c->rt, t)].dt;
  if (c->whole_step[t])
    SQ_CALL(sq_insert_step(c->rt, t, dt, substep, 1, buffer_mode(c, t, substep), NULL, priority(c, t)));
  else SQ_CALL(sq_insert_neighbor(c->rt, t, dt, substep, priority(c, t)));
  if (c->plastic[t]) SQ_CALL(sq_insert_plasticity(c->rt, t, dt, priority(c, t)));
  return SQ_SUCCESS;
}

/* Rupture faces, then the correction of every tile of a step (but those the whole-step tasks before took). */
static int correct(const sq_clustering *c, const sq_event *e) {
  const sq_step_ref *s = &e->step[0];
  const sq_cluster *cl = &c->cluster[s->cluster];
  for (int ft = cl->fault_first; ft < cl->fault_end; ++ft) SQ_CALL(sq_insert_rupture(c->rt, ft, s->t0, cl->dt));
  for (int i = 0; i < cl->ntile; ++i)
    if (!e->fold || c->fold_into[cl->tile[i]] < 0) SQ_CALL(correct_tile(c, cl->tile[i], s->substep));
  return SQ_SUCCESS;
}

/* Which tiles of a cluster a merged task may take. */
typedef int (*tile_filter)(const sq_clustering *c, int tile);

static int mergeable_predictor(const sq_clustering *c, int t) { return !c->whole_step[t]; }

/* Not a tile that takes its whole step as one task, nor one with plasticity (its own task follows its update). */
static int mergeable_correction(const sq_clustering *c, int t) { return !c->whole_step[t] && !c->plastic[t]; }

/* A merged task of n tiles (1 or 2), for emit_pairs. */
typedef int (*pair_task)(const sq_clustering *c, const sq_event *e, int n, const int *tiles, sq_graph_stats *stats);

/* Position in cluster `cl`'s tiles from `from` on of the next tile that `admit` takes and that is placed on
 * GPU `gpu`, or cl->ntile. */
static int next_on_gpu(const sq_clustering *c, const sq_cluster *cl, tile_filter admit, int gpu, int from) {
  while (from < cl->ntile && (!admit(c, cl->tile[from]) || sq_runtime_tile_gpu(c->rt, cl->tile[from]) != gpu)) ++from;
  return from;
}

/*
 * Pair the tiles of the slower cluster of merged event e with those of the faster, in mesh order, each
 * with the next unpaired one placed on the same GPU (a pair across two GPUs would move one tile's data to
 * the other GPU and back every step); submit each pair, each slower tile left alone, then each faster
 * tile left over, as tasks.
 */
static int emit_pairs(const sq_clustering *c, const sq_event *e, tile_filter admit, pair_task task,
                      sq_graph_stats *stats) {
  const sq_cluster *slow = &c->cluster[e->step[0].cluster], *fast = &c->cluster[e->step[1].cluster];
  int cursor[SQ_GRAPH_MAX_GPUS + 1]; /* per GPU, -1 first: position of the next faster tile to pair */
  for (int g = 0; g <= SQ_GRAPH_MAX_GPUS; ++g) cursor[g] = 0;
  for (int i = 0; i < slow->ntile; ++i) {
    const int ta = slow->tile[i];
    if (!admit(c, ta)) continue;
    const int g = sq_runtime_tile_gpu(c->rt, ta);
    SQ_CHECK(g < SQ_GRAPH_MAX_GPUS, SQ_ERR_INPUT, "at most %d GPUs per process are supported (tile %d is on %d)",
             SQ_GRAPH_MAX_GPUS, ta, g);
    const int j = cursor[g + 1] = next_on_gpu(c, fast, admit, g, cursor[g + 1]);
    const int tiles[2] = {ta, j < fast->ntile ? fast->tile[j] : -1};
    SQ_CALL(task(c, e, j < fast->ntile ? 2 : 1, tiles, stats));
    if (j < fast->ntile) ++cursor[g + 1];
  }
  for (int j = 0; j < fast->ntile; ++j) {
    const int tb = fast->tile[j];
    if (admit(c, tb) && j >= cursor[sq_runtime_tile_gpu(c->rt, tb) + 1]) SQ_CALL(task(c, e, 1, &tb, stats));
  }
  return SQ_SUCCESS;
}

/* The step of e that tile t belongs to. */
static const sq_step_ref *step_of(const sq_clustering *c, const sq_event *e, int t) {
  return e->n == 2 && sq_runtime_tile_cluster(c->rt, t) == e->step[1].cluster ? &e->step[1] : &e->step[0];
}

/* One merged predictor task over n tiles of the two steps of e, and their point tasks. */
static int predict_task(const sq_clustering *c, const sq_event *e, int n, const int *tiles, sq_graph_stats *stats) {
  double dt[2] = {0, 0};
  sq_buffer_mode mode[2] = {SQ_BUFFER_NONE, SQ_BUFFER_NONE};
  int prio = 0;
  for (int i = 0; i < n; ++i) {
    const sq_step_ref *s = step_of(c, e, tiles[i]);
    dt[i] = c->cluster[s->cluster].dt;
    mode[i] = buffer_mode(c, tiles[i], s->substep);
    const int p = priority(c, tiles[i]);
    prio = p > prio ? p : prio;
  }
  if (n == 2 && stats) {
    stats->merged_predict++;
    stats->merged_predict_across_gpus += sq_runtime_tile_gpu(c->rt, tiles[0]) != sq_runtime_tile_gpu(c->rt, tiles[1]);
  }
  SQ_CALL(sq_insert_merged_predict(c->rt, n, tiles, dt, mode, prio));
  for (int i = 0; i < n; ++i) {
    const sq_step_ref *s = step_of(c, e, tiles[i]);
    SQ_CALL(point_tasks(c, tiles[i], s->t0, s->t1, dt[i], mode[i]));
  }
  return SQ_SUCCESS;
}

/* One merged neighbour-flux task over n tiles of the two steps of e. */
static int correct_task(const sq_clustering *c, const sq_event *e, int n, const int *tiles, sq_graph_stats *stats) {
  double dt[2];
  int sub[2], prio = 0;
  for (int i = 0; i < n; ++i) {
    const sq_step_ref *s = step_of(c, e, tiles[i]);
    dt[i] = c->cluster[s->cluster].dt;
    sub[i] = s->substep;
    const int p = priority(c, tiles[i]);
    prio = p > prio ? p : prio;
  }
  if (n == 2 && stats) stats->merged_correct++;
  return sq_insert_neighbors(c->rt, n, tiles, dt, sub, prio);
}

/* The corrections of the two steps of a merged event: first, in mesh order, the tiles no merged task takes,
 * then the merged neighbour-flux tasks. */
static int correct_pair(const sq_clustering *c, const sq_event *e, sq_graph_stats *stats) {
  const sq_cluster *slow = &c->cluster[e->step[0].cluster], *fast = &c->cluster[e->step[1].cluster];
  for (int i = 0, j = 0; i < slow->ntile || j < fast->ntile;) { /* the two clusters' tiles, merged in mesh order */
    const int from_slow = j == fast->ntile || (i < slow->ntile && slow->tile[i] < fast->tile[j]);
    const int t = from_slow ? slow->tile[i++] : fast->tile[j++];
    if (!mergeable_correction(c, t)) SQ_CALL(correct_tile(c, t, from_slow ? e->step[0].substep : e->step[1].substep));
  }
  return emit_pairs(c, e, mergeable_correction, correct_task, stats);
}

/* Grouped whole steps: sub-steps substep .. substep + nsub - 1 of cluster l, one task per tile, each with the
 * corrections of the cluster-1 tiles folded into it where the event says so, and then their next predictors. */
static int steps(const sq_clustering *c, const sq_event *e, sq_graph_stats *stats) {
  const sq_cluster *cl = &c->cluster[e->step[0].cluster];
  const int k = e->step[0].substep;
  int tail_tiles[SQ_STEP_MAX_TAIL];
  sq_buffer_mode modes[SQ_STEP_MAX_TAIL];
  for (int i = 0; i < cl->ntile; ++i) {
    const int t = cl->tile[i];
    sq_step_tail tail = {.tile = tail_tiles};
    if (e->fold) { /* sq_pass_fold_corrections: step[1] is cluster 1's step */
      const sq_cluster *c1 = &c->cluster[e->step[1].cluster];
      tail.dt = c1->dt;
      tail.substep = e->step[1].substep;
      for (int j = 0; j < c1->ntile; ++j)
        if (c->fold_into[c1->tile[j]] == t) tail_tiles[tail.ntile++] = c1->tile[j];
      if (e->fold == 3 && tail.ntile && c->fold_predict[tail_tiles[0]]) { /* fold_predict: all of them or none */
        for (int j = 0; j < tail.ntile; ++j) modes[j] = buffer_mode(c, tail_tiles[j], e->ahead);
        tail.predict = modes;
        if (stats) stats->folded_predict += tail.ntile;
      }
    }
    if (stats) stats->folded += tail.ntile;
    SQ_CALL(
        sq_insert_step(c->rt, t, cl->dt, k, e->nsub, buffer_mode(c, t, k), tail.ntile ? &tail : NULL, priority(c, t)));
  }
  return SQ_SUCCESS;
}

/* Add what event e submits to the counters. */
static void count(const sq_event *e, sq_graph_stats *s) {
  switch (e->kind) {
  case SQ_EVENT_PREDICT:
    for (int i = 0; i < e->n; ++i) s->predict[e->step[i].cluster]++;
    break;
  case SQ_EVENT_CORRECT:
    for (int i = 0; i < e->n; ++i) s->correct[e->step[i].cluster]++;
    break;
  case SQ_EVENT_STEPS:
    s->predict[e->step[0].cluster] += e->nsub - e->counted;
    s->correct[e->step[0].cluster] += e->nsub;
    s->grouped++;
    break;
  case SQ_EVENT_EXCHANGE: break;
  }
}

int sq_lts_submit(const sq_clustering *c, const sq_event_list *list, sq_graph_stats *stats) {
  for (int64_t i = 0; i < list->n; ++i) {
    const sq_event *e = &list->event[i];
    /* a stop cancelled the tasks and the state goes back anyway: only the halo exchanges, which other ranks
     * match, remain to be submitted */
    if (e->kind != SQ_EVENT_EXCHANGE && sq_runtime_cancelled()) continue;
    if (stats) count(e, stats);
    switch (e->kind) {
    case SQ_EVENT_PREDICT:
      SQ_CALL(e->n == 2 ? emit_pairs(c, e, mergeable_predictor, predict_task, stats) : predict(c, e));
      break;
    case SQ_EVENT_EXCHANGE: SQ_CALL(sq_halo_exchange(c->rt, e->step[0].cluster, e->halo_kinds)); break;
    case SQ_EVENT_CORRECT: SQ_CALL(e->n == 2 ? correct_pair(c, e, stats) : correct(c, e)); break;
    case SQ_EVENT_STEPS: SQ_CALL(steps(c, e, stats)); break;
    }
  }
  return SQ_SUCCESS;
}
