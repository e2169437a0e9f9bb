/**
 * @file passes.c  Optimisation passes over the events of the LTS walk.  Each pass reads the event list
 * and writes a new one in which some events are merged or grouped; the work each task does, and so every
 * result, stays the same.  A new merging policy is one more function of this shape, added to
 * sq_lts_run_passes.
 *
 * - Merged predictors (thesis §6.5.3): P(l, k) is followed, after l's halo exchange, by P(l - 1, 0): both
 *   start at the same time and their ader + local work is independent, so they go as one event of two
 *   steps (and, at submission, tasks of two tiles).  A predictor that went with its slower neighbour is
 *   not merged again with its faster one.
 * - Grouped steps: a cluster whose tiles all take whole steps takes steps_per_task consecutive sub-steps
 *   of one step of the slower cluster (with one cluster: consecutive global steps) per task.
 * - Merged corrections (thesis §6.5.3): the correction of the last sub-step of cluster l - 1 immediately
 *   precedes that of cluster l's step; they read each other's buffer and derivatives but update different
 *   dofs, so they go as one event.  Pairs are taken from the slowest cluster down, and not where either
 *   cluster has fault faces (their rupture tasks come first).
 * - Folded corrections: the whole-step tasks of the fastest cluster's last sub-steps in a step of cluster 1 are
 *   followed by that step's correction of cluster 1, whose tiles next to them read nothing else written after
 *   them: those tiles' corrections go into the whole-step tasks (cluster.c decides which tiles).  Their next
 *   predictors may follow in the same tasks where cluster 1's next event is that predictor: it reads only the tile's
 *   own dofs, and what it writes (a second time-integral array, the derivatives only the whole-step task reads) no
 *   event in between reads; but the LTS buffer, which the slower cluster's correction at the end of its step reads,
 *   only within that step (sub-step > 0).
 */
#include "sq_lts.h"

/* Is e the plain (unmerged) event of `kind` for cluster l? */
static int single(const sq_event *e, sq_event_kind kind, int l) {
  return e->kind == kind && e->n == 1 && e->step[0].cluster == l;
}

/* End a pass that wrote `next`: on success its events replace those of `list`. */
static int finish(sq_event_list *list, sq_event_list *next, int ierr) {
  if (ierr) {
    sq_event_list_free(next);
    return ierr;
  }
  sq_event_list_free(list);
  *list = *next;
  return SQ_SUCCESS;
}

int sq_pass_merge_predictors(const sq_clustering *c, sq_event_list *list) {
  (void)c;
  sq_event_list next = {0};
  int ierr = SQ_SUCCESS;
  const sq_event *e = list->event;
  for (int64_t i = 0; !ierr && i < list->n; ++i) {
    sq_event merged = e[i];
    const int l = e[i].step[0].cluster;
    if (single(&e[i], SQ_EVENT_PREDICT, l) && l > 0 && i + 2 < list->n && single(&e[i + 1], SQ_EVENT_EXCHANGE, l) &&
        single(&e[i + 2], SQ_EVENT_PREDICT, l - 1) && e[i + 2].step[0].substep == 0) {
      merged.n = 2;
      merged.step[1] = e[i + 2].step[0];
      ierr = sq_event_push(&next, &merged);
      if (!ierr) ierr = sq_event_push(&next, &e[i + 1]);
      i += 2;
    } else {
      ierr = sq_event_push(&next, &merged);
    }
  }
  return finish(list, &next, ierr);
}

/* Does cluster l group its sub-steps?  With several clusters, a faster one whose tiles all take whole steps
 * (then it is the fastest, with neither copy nor ghost tiles, so its halo exchange has nothing to send or
 * receive); with one cluster, the global steps of such a cluster. */
static int groups(const sq_clustering *c, int l) {
  return c->cluster[l].whole_steps && (c->ncluster == 1 || l < c->ncluster - 1);
}

/* Is e an unmerged event of cluster l's own steps? */
static int own_step(const sq_event *e, int l) {
  return single(e, SQ_EVENT_PREDICT, l) || single(e, SQ_EVENT_EXCHANGE, l) || single(e, SQ_EVENT_CORRECT, l);
}

int sq_pass_group_steps(const sq_clustering *c, sq_event_list *list) {
  if (c->opt.steps_per_task <= 1) return SQ_SUCCESS;
  sq_event_list next = {0};
  int ierr = SQ_SUCCESS;
  const sq_event *e = list->event;
  for (int64_t i = 0; !ierr && i < list->n;) {
    const int l = e[i].step[0].cluster;
    if (!own_step(&e[i], l) || !groups(c, l)) {
      ierr = sq_event_push(&next, &e[i++]);
      continue;
    }
    /* the run of l's sub-steps inside one step of the slower cluster (with one cluster: all steps) */
    int64_t end = i, nsub = 0;
    for (; end < list->n && own_step(&e[end], l); ++end) nsub += e[end].kind == SQ_EVENT_CORRECT;
    const int counted = e[i].kind != SQ_EVENT_PREDICT; /* its first predictor went with a merged one */
    for (int64_t k = 0; !ierr && k < nsub; k += c->opt.steps_per_task) {
      const sq_event g = {.kind = SQ_EVENT_STEPS,
                          .n = 1,
                          .step = {{.cluster = l, .substep = (int)k}},
                          .nsub = nsub - k < c->opt.steps_per_task ? (int)(nsub - k) : c->opt.steps_per_task,
                          .counted = k == 0 && counted};
      ierr = sq_event_push(&next, &g);
    }
    i = end;
  }
  return finish(list, &next, ierr);
}

/* May the corrections of cluster l and of the last sub-step of l - 1 go together? */
static int corrections_merge(const sq_clustering *c, int l) {
  return l > 0 && c->cluster[l].fault_end == c->cluster[l].fault_first &&
         c->cluster[l - 1].fault_end == c->cluster[l - 1].fault_first;
}

int sq_pass_merge_corrections(const sq_clustering *c, sq_event_list *list) {
  /* from the end: a pair (l - 1, l) leaves C(l - 2, last) before it free to pair with its own predecessor */
  sq_event *e = list->event;
  int64_t w = list->n;
  for (int64_t i = list->n - 1; i >= 0; --i) {
    sq_event merged = e[i];
    const int l = e[i].step[0].cluster;
    if (single(&e[i], SQ_EVENT_CORRECT, l) && corrections_merge(c, l) && i > 0 &&
        single(&e[i - 1], SQ_EVENT_CORRECT, l - 1) && e[i - 1].step[0].substep == c->rate - 1) {
      merged.n = 2;
      merged.step[1] = e[i - 1].step[0];
      --i;
    }
    e[--w] = merged; /* w > i: the events not read yet stay where they are */
  }
  for (int64_t i = w; i < list->n; ++i) e[i - w] = e[i];
  list->n -= w;
  return SQ_SUCCESS;
}

/* Event j > i of cluster 1's next predictor, if the predictors of the tiles folded after e[i] may go ahead into it
 * (`buffered`: some of those tiles have an LTS buffer). */
static int64_t next_prediction(const sq_event_list *list, int64_t i, int buffered) {
  const sq_event *e = list->event;
  for (int64_t j = i + 1; j < list->n; ++j) {
    if (e[j].kind == SQ_EVENT_STEPS) return -1; /* the fastest cluster's next steps read what it writes */
    if (e[j].kind != SQ_EVENT_PREDICT) continue;
    if (!single(&e[j], SQ_EVENT_PREDICT, 1)) {
      if (e[j].step[0].cluster <= 1 || (e[j].n == 2 && e[j].step[1].cluster <= 1)) return -1;
      continue;
    }
    return buffered && e[j].step[0].substep == 0 ? -1 : j;
  }
  return -1;
}

int sq_pass_fold_corrections(const sq_clustering *c, sq_event_list *list) {
  int any = 0, ahead = 0, buffered = 0;
  for (int t = 0; t < c->ntile; ++t) {
    any |= c->fold_into[t] >= 0;
    ahead |= c->fold_predict[t];
    buffered |= c->fold_predict[t] && sq_runtime_tile_needs_buffer(c->rt, t);
  }
  if (!any) return SQ_SUCCESS;
  sq_event *e = list->event;
  for (int64_t i = 0; i + 1 < list->n; ++i)
    if (e[i].kind == SQ_EVENT_STEPS && e[i].step[0].cluster == 0 && e[i].step[0].substep + e[i].nsub == c->rate &&
        single(&e[i + 1], SQ_EVENT_CORRECT, 1)) {
      e[i].fold = e[i + 1].fold = 1;
      e[i].step[1] = e[i + 1].step[0];
      const int64_t j = ahead ? next_prediction(list, i + 1, buffered) : -1;
      if (j < 0) continue;
      e[i].fold = 3;
      e[i].ahead = e[j].step[0].substep;
      e[j].fold = 1;
    }
  return SQ_SUCCESS;
}

int sq_lts_run_passes(const sq_clustering *c, sq_event_list *list) {
  if (c->opt.merge_neighbor_clusters) SQ_CALL(sq_pass_merge_predictors(c, list));
  SQ_CALL(sq_pass_group_steps(c, list));
  if (c->opt.merge_neighbor_clusters && !c->opt.merge_predictors_only) SQ_CALL(sq_pass_merge_corrections(c, list));
  SQ_CALL(sq_pass_fold_corrections(c, list));
  return SQ_SUCCESS;
}
