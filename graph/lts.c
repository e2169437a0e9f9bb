/**
 * @file lts.c  Clustered local time stepping as a sequence of events (thesis §3.5, eq. 3.35, 3.40, 4.1-4.2).
 *
 * A step of cluster l over [T, T + dt_l] predicts cluster l (ader + local), posts its halo exchange, lets
 * the faster cluster l - 1 take its `rate` sub-steps inside [T, T + dt_l] -- those read l's derivatives and
 * fill their buffer for l -- and finally corrects cluster l with the neighbour fluxes.  The runtime turns
 * the data accesses of the resulting tasks into the DAG, so independent clusters and tiles overlap freely.
 * Fault faces are corrected by rupture tasks just before the neighbour fluxes of their cluster; both sides
 * of a fault face share a cluster, so one step covers both.
 */
#include <stdlib.h>
#include <string.h>

#include "sq_lts.h"

int sq_event_push(sq_event_list *list, const sq_event *e) {
  if (list->n == list->capacity) {
    const int64_t cap = list->capacity ? 2 * list->capacity : 64;
    sq_event *grown = realloc(list->event, sizeof(*grown) * (size_t)cap);
    SQ_CHECK(grown, SQ_ERR_MEMORY, "out of memory for %lld task-graph events", (long long)cap);
    list->event = grown;
    list->capacity = cap;
  }
  list->event[list->n++] = *e;
  return SQ_SUCCESS;
}

void sq_event_list_free(sq_event_list *list) {
  free(list->event);
  memset(list, 0, sizeof(*list));
}

/* Sub-step k of [t0, t1] in steps of dt: consecutive sub-steps share their boundary exactly. */
static void substep_interval(double t0, double t1, int k, int rate, double dt, double *a, double *b) {
  *a = k == 0 ? t0 : t0 + k * dt;
  *b = k + 1 == rate ? t1 : t0 + (k + 1) * dt;
}

static int push_step(sq_event_list *out, sq_event_kind kind, int l, int substep, double t0, double t1) {
  const sq_event e = {.kind = kind, .n = 1, .step = {{.cluster = l, .substep = substep, .t0 = t0, .t1 = t1}}};
  return sq_event_push(out, &e);
}

/* One step [t0, t1) of cluster l, sub-step `substep` of cluster l + 1's current step. */
static int cluster_step(const sq_clustering *c, int l, int substep, double t0, double t1, sq_event_list *out) {
  SQ_CALL(push_step(out, SQ_EVENT_PREDICT, l, substep, t0, t1));
  /* other ranks' neighbours of this cluster need its new prediction and its derivatives; its buffer is
   * complete after the last sub-step of the slower cluster's step */
  const int last = substep == c->rate - 1;
  const sq_event x = {.kind = SQ_EVENT_EXCHANGE,
                      .n = 1,
                      .step = {{.cluster = l, .substep = substep, .t0 = t0, .t1 = t1}},
                      .halo_kinds = SQ_GHOST_TINT | SQ_GHOST_DERIVS | (last ? SQ_GHOST_BUFFER : 0)};
  SQ_CALL(sq_event_push(out, &x));
  if (l > 0)
    for (int k = 0; k < c->rate; ++k) {
      double a, b;
      substep_interval(t0, t1, k, c->rate, c->cluster[l - 1].dt, &a, &b);
      SQ_CALL(cluster_step(c, l - 1, k, a, b, out));
    }
  return push_step(out, SQ_EVENT_CORRECT, l, substep, t0, t1);
}

int sq_lts_walk(const sq_clustering *c, double t0, double t1, sq_event_list *out) {
  return cluster_step(c, c->ncluster - 1, 0, t0, t1, out);
}
