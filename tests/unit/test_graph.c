/**
 * @file test_graph.c  Check suite for graph/ without a task runtime: a recording stand-in implements
 * sq_runtime.h, and the tests compare what the LTS walk and the passes submit with the algorithm written
 * out by hand (literal sequences for small cases; for rate 2 and 3 with 1-5 clusters, the same algorithm
 * stated tick by tick of the fastest cluster instead of recursively).
 */
#include "sq_check.h"
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sq_lts.h"

/* ---- the recording stand-in runtime --------------------------------------------------------------- */

#define MAX_TILES 16

struct sq_runtime {
  int ntile, ncluster, rate;
  int cluster[MAX_TILES], layer[MAX_TILES], buffer[MAX_TILES], gpu[MAX_TILES];
  int fusable[MAX_TILES], plastic[MAX_TILES], sources[MAX_TILES], receivers[MAX_TILES];
  int fold[MAX_TILES]; /* sq_step_fold_target + 1 */
  int fault_first[SQ_GRAPH_MAX_CLUSTERS], fault_end[SQ_GRAPH_MAX_CLUSTERS];
  char log[1 << 16]; /* one token per call, space-separated */
  size_t len;
};

/* Calls recorded, by any stand-in; a stop request (sq_runtime_cancelled, which names no runtime) once
 * that many are recorded (0: none). */
static int recorded, cancel_after;

static void record(sq_runtime *rt, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (rt->len) rt->log[rt->len++] = ' ';
  rt->len += (size_t)vsnprintf(rt->log + rt->len, sizeof(rt->log) - rt->len, fmt, ap);
  va_end(ap);
  ++recorded;
  ck_assert_uint_lt(rt->len, sizeof(rt->log) - 64);
}

sq_disc *sq_runtime_disc(const sq_runtime *rt) { return (void)rt, NULL; }
int sq_runtime_ntile(const sq_runtime *rt) { return rt->ntile; }
int sq_runtime_ncluster(const sq_runtime *rt) { return rt->ncluster; }
int sq_runtime_lts_rate(const sq_runtime *rt) { return rt->rate; }
int sq_runtime_tile_cluster(const sq_runtime *rt, int t) { return rt->cluster[t]; }
int sq_runtime_tile_layer(const sq_runtime *rt, int t) { return rt->layer[t]; }
int sq_runtime_tile_needs_buffer(const sq_runtime *rt, int t) { return rt->buffer[t]; }
int sq_runtime_tile_gpu(const sq_runtime *rt, int t) { return rt->gpu[t]; }
int sq_step_fusable(const sq_runtime *rt, int t) { return rt->fusable[t]; }
int sq_step_fold_target(const sq_runtime *rt, int t) { return rt->fold[t] - 1; }
int sq_runtime_double_tint(sq_runtime *rt, int t) { return (void)rt, (void)t, SQ_SUCCESS; }
void sq_runtime_tint_advance(sq_runtime *rt, int t) { record(rt, "T%d", t); }
int sq_runtime_cancelled(void) { return cancel_after > 0 && recorded >= cancel_after; }
int sq_runtime_tile_has_sources(const sq_runtime *rt, int t) { return rt->sources[t]; }
int sq_runtime_tile_has_receivers(const sq_runtime *rt, int t) { return rt->receivers[t]; }
int sq_runtime_tile_has_plasticity(const sq_runtime *rt, int t) { return rt->plastic[t]; }
int sq_runtime_attenuates(const sq_runtime *rt) { return (void)rt, 0; }
int sq_runtime_fault_tiles(const sq_runtime *rt, int l, int *first, int *end) {
  *first = rt->fault_first[l];
  *end = rt->fault_end[l];
  return *end > *first;
}

/* Tokens: A ader, L local, N neighbour (tile.substep), M merged predictor, F merged neighbour fluxes, S whole
 * steps (tile.substep x count, +N tail corrections .substep, +P tail predictors with r/a their buffer mode), X halo
 * exchange (cluster, +b with the LTS buffer), R rupture, Y plasticity, Q sources, V receivers, T a predictor taken
 * ahead (its time integrals advance). */
int sq_insert_ader(sq_runtime *rt, int t, double dt, sq_buffer_mode m, int p) {
  (void)dt, (void)p;
  record(rt, "A%d%s", t, m == SQ_BUFFER_RESET ? "r" : m == SQ_BUFFER_ACCUMULATE ? "a" : "");
  return SQ_SUCCESS;
}
int sq_insert_local(sq_runtime *rt, int t, int p) {
  (void)p;
  record(rt, "L%d", t);
  return SQ_SUCCESS;
}
int sq_insert_neighbor(sq_runtime *rt, int t, double dt, int k, int p) {
  (void)dt, (void)p;
  record(rt, "N%d.%d", t, k);
  return SQ_SUCCESS;
}
int sq_insert_neighbors(sq_runtime *rt, int n, const int *t, const double *dt, const int *k, int p) {
  (void)dt, (void)p;
  if (n == 1) record(rt, "F%d.%d", t[0], k[0]);
  else record(rt, "F%d.%d+%d.%d", t[0], k[0], t[1], k[1]);
  return SQ_SUCCESS;
}
int sq_insert_merged_predict(sq_runtime *rt, int n, const int *t, const double *dt, const sq_buffer_mode *m, int p) {
  (void)dt, (void)m, (void)p;
  if (n == 1) record(rt, "M%d", t[0]);
  else record(rt, "M%d+%d", t[0], t[1]);
  return SQ_SUCCESS;
}
int sq_insert_step(sq_runtime *rt, int t, double dt, int k, int n, sq_buffer_mode m, const sq_step_tail *tail, int p) {
  (void)dt, (void)m, (void)p;
  if (!tail) {
    record(rt, "S%d.%dx%d", t, k, n);
    return SQ_SUCCESS;
  }
  char s[256];
  int len = snprintf(s, sizeof(s), "S%d.%dx%d", t, k, n);
  for (int j = 0; j < tail->ntile; ++j) len += snprintf(s + len, sizeof(s) - (size_t)len, "+N%d", tail->tile[j]);
  len += snprintf(s + len, sizeof(s) - (size_t)len, ".%d", tail->substep);
  for (int j = 0; tail->predict && j < tail->ntile; ++j)
    len += snprintf(s + len, sizeof(s) - (size_t)len, "+P%d%s", tail->tile[j],
                    tail->predict[j] == SQ_BUFFER_RESET        ? "r"
                    : tail->predict[j] == SQ_BUFFER_ACCUMULATE ? "a"
                                                               : "");
  record(rt, "%s", s);
  return SQ_SUCCESS;
}
int sq_insert_source(sq_runtime *rt, int t, double t0, double dt, sq_buffer_mode m, int p) {
  (void)t0, (void)dt, (void)m, (void)p;
  record(rt, "Q%d", t);
  return SQ_SUCCESS;
}
int sq_insert_receivers(sq_runtime *rt, int t, double t0, double t1, int p) {
  (void)t0, (void)t1, (void)p;
  record(rt, "V%d", t);
  return SQ_SUCCESS;
}
int sq_insert_rupture(sq_runtime *rt, int ft, double t0, double dt) {
  (void)t0, (void)dt;
  record(rt, "R%d", ft);
  return SQ_SUCCESS;
}
int sq_insert_plasticity(sq_runtime *rt, int t, double dt, int p) {
  (void)dt, (void)p;
  record(rt, "Y%d", t);
  return SQ_SUCCESS;
}
int sq_halo_exchange(sq_runtime *rt, int l, int kinds) {
  record(rt, "X%d%s", l, kinds & SQ_GHOST_BUFFER ? "b" : "");
  return SQ_SUCCESS;
}

/* A runtime of L clusters at `rate`, one interior tile per cluster (tile l in cluster l), no buffers. */
static sq_runtime *one_tile_per_cluster(int L, int rate) {
  sq_runtime *rt = calloc(1, sizeof(*rt));
  ck_assert_ptr_nonnull(rt);
  rt->ntile = rt->ncluster = L;
  rt->rate = rate;
  for (int t = 0; t < L; ++t) rt->cluster[t] = t, rt->gpu[t] = -1;
  return rt;
}

/* ---- the algorithm written out by hand ------------------------------------------------------------- */

/*
 * The same LTS algorithm, stated tick by tick of the fastest cluster: at tick n (0 .. R^(L-1) - 1), every
 * cluster l whose step begins there (n a multiple of R^l) predicts and exchanges, slowest first; then every
 * cluster whose step ends after the tick ((n + 1) a multiple of R^l) corrects, fastest first.  Its sub-step
 * is (n / R^l) mod R.  Tokens as the recorder writes them for one tile per cluster.
 */
static void by_ticks(int L, int R, char *out, size_t size) {
  size_t len = 0;
  long p[SQ_GRAPH_MAX_CLUSTERS + 1]; /* p[l] = R^l */
  p[0] = 1;
  for (int l = 1; l <= L; ++l) p[l] = p[l - 1] * R;
  for (long n = 0; n < p[L - 1]; ++n) {
    for (int l = L - 1; l >= 0; --l)
      if (n % p[l] == 0) {
        const long k = (n / p[l]) % R;
        len +=
            (size_t)snprintf(out + len, size - len, "%sA%d L%d X%d%s", len ? " " : "", l, l, l, k == R - 1 ? "b" : "");
      }
    for (int l = 0; l < L; ++l)
      if ((n + 1) % p[l] == 0) len += (size_t)snprintf(out + len, size - len, " N%d.%ld", l, (n / p[l]) % R);
  }
}

/* The events of one sync interval as tokens: P, X, C with cluster.substep. */
static void walk_tokens(sq_runtime *rt, char *out, size_t size) {
  sq_clustering *c;
  ck_assert_int_eq(sq_clustering_create(rt, NULL, &c), 0);
  sq_event_list ev = {0};
  ck_assert_int_eq(sq_lts_walk(c, 0.0, 1.0, &ev), 0);
  size_t len = 0;
  for (int64_t i = 0; i < ev.n; ++i) {
    const sq_event *e = &ev.event[i];
    const char kind = e->kind == SQ_EVENT_PREDICT ? 'P' : e->kind == SQ_EVENT_EXCHANGE ? 'X' : 'C';
    len += (size_t)snprintf(out + len, size - len, "%s%c%d.%d", i ? " " : "", kind, e->step[0].cluster,
                            e->step[0].substep);
  }
  sq_event_list_free(&ev);
  sq_clustering_destroy(c);
}

/* Submit one sync interval of dt_sync = 1 with options `opt` and return the recorded calls. */
static const char *submitted(sq_runtime *rt, const sq_graph_options *opt) {
  rt->len = 0;
  rt->log[0] = 0;
  ck_assert_int_eq(sq_graph_sync_interval(rt, 1.0, opt, NULL), 0);
  return rt->log;
}

/* ---- tests ---------------------------------------------------------------------------------------------- */

START_TEST(walk_literal) {
  char got[4096];
  sq_runtime *rt = one_tile_per_cluster(1, 2);
  walk_tokens(rt, got, sizeof(got));
  ck_assert_str_eq(got, "P0.0 X0.0 C0.0");
  free(rt);
  rt = one_tile_per_cluster(2, 2);
  walk_tokens(rt, got, sizeof(got));
  ck_assert_str_eq(got, "P1.0 X1.0 P0.0 X0.0 C0.0 P0.1 X0.1 C0.1 C1.0");
  free(rt);
  rt = one_tile_per_cluster(2, 3);
  walk_tokens(rt, got, sizeof(got));
  ck_assert_str_eq(got, "P1.0 X1.0 P0.0 X0.0 C0.0 P0.1 X0.1 C0.1 P0.2 X0.2 C0.2 C1.0");
  free(rt);
  rt = one_tile_per_cluster(3, 2);
  walk_tokens(rt, got, sizeof(got));
  ck_assert_str_eq(got, "P2.0 X2.0 P1.0 X1.0 P0.0 X0.0 C0.0 P0.1 X0.1 C0.1 C1.0 "
                        "P1.1 X1.1 P0.0 X0.0 C0.0 P0.1 X0.1 C0.1 C1.1 C2.0");
  free(rt);
}
END_TEST

START_TEST(walk_times) {
  /* 3 clusters, rate 3 over [2, 11]: every step's interval is its cluster's dt, consecutive sub-steps share
   * their boundary, and each cluster's steps tile [2, 11] */
  sq_runtime *rt = one_tile_per_cluster(3, 3);
  sq_clustering *c;
  ck_assert_int_eq(sq_clustering_create(rt, NULL, &c), 0);
  sq_clustering_set_dt(c, 9.0);
  ck_assert(c->cluster[2].dt == 9.0 && c->cluster[1].dt == 3.0 && c->cluster[0].dt == 1.0);
  sq_event_list ev = {0};
  ck_assert_int_eq(sq_lts_walk(c, 2.0, 11.0, &ev), 0);
  double end[3] = {2.0, 2.0, 2.0};
  for (int64_t i = 0; i < ev.n; ++i) {
    const sq_step_ref *s = &ev.event[i].step[0];
    if (ev.event[i].kind != SQ_EVENT_PREDICT) continue;
    ck_assert(s->t0 == end[s->cluster]);
    ck_assert(s->t1 - s->t0 == c->cluster[s->cluster].dt);
    end[s->cluster] = s->t1;
  }
  for (int l = 0; l < 3; ++l) ck_assert(end[l] == 11.0);
  sq_event_list_free(&ev);
  sq_clustering_destroy(c);
  free(rt);
}
END_TEST

START_TEST(submitted_as_by_ticks) {
  /* rate 2 and 3, 1-5 clusters: the tasks of the plain graph follow the tick-by-tick statement exactly */
  static char want[1 << 16];
  for (int R = 2; R <= 3; ++R)
    for (int L = 1; L <= 5; ++L) {
      sq_runtime *rt = one_tile_per_cluster(L, R);
      by_ticks(L, R, want, sizeof(want));
      ck_assert_str_eq(submitted(rt, NULL), want);
      free(rt);
    }
}
END_TEST

START_TEST(comparison_sees_drops_and_swaps) {
  /* the expectation itself is sensitive: dropping or swapping any one event of it changes it */
  static char want[1 << 16], changed[1 << 16];
  by_ticks(3, 2, want, sizeof(want));
  char *tok[512];
  int n = 0;
  static char copy[1 << 16];
  snprintf(copy, sizeof(copy), "%s", want);
  for (char *s = strtok(copy, " "); s; s = strtok(NULL, " ")) tok[n++] = s;
  ck_assert_int_gt(n, 20);
  for (int drop = 0; drop < n; ++drop) {
    size_t len = 0;
    for (int i = 0; i < n; ++i)
      if (i != drop) len += (size_t)snprintf(changed + len, sizeof(changed) - len, "%s%s", len ? " " : "", tok[i]);
    ck_assert_str_ne(changed, want);
  }
  for (int a = 0; a + 1 < n; ++a) {
    if (!strcmp(tok[a], tok[a + 1])) continue;
    size_t len = 0;
    for (int i = 0; i < n; ++i) {
      const int j = i == a ? a + 1 : i == a + 1 ? a : i;
      len += (size_t)snprintf(changed + len, sizeof(changed) - len, "%s%s", len ? " " : "", tok[j]);
    }
    ck_assert_str_ne(changed, want);
  }
}
END_TEST

START_TEST(merge_predictors_pass) {
  /* P(l, k) and P(l - 1, 0) start together: with 3 clusters, P2+P1 merge; P0.0 of the first step of cluster 1
   * follows a merged P1 and stays alone; at P1.1 the pair is P1+P0 again */
  sq_runtime *rt = one_tile_per_cluster(3, 2);
  const sq_graph_options merge = {.merge_neighbor_clusters = 1, .merge_predictors_only = 1};
  ck_assert_str_eq(submitted(rt, &merge), "M2+1 X2 X1 A0 L0 X0 N0.0 A0 L0 X0b N0.1 N1.0 "
                                          "M1+0 X1b X0 N0.0 A0 L0 X0b N0.1 N1.1 N2.0");
  free(rt);
}
END_TEST

START_TEST(merge_corrections_pass) {
  /* C(l - 1, last) and C(l, k) end together; pairs are taken from the slowest cluster down, so C(1.0)+C(0.1)
   * pair inside the first step of cluster 1 while C(2.0) takes C(1.1) at the end, leaving C(0.1) alone there */
  sq_runtime *rt = one_tile_per_cluster(3, 2);
  const sq_graph_options merge = {.merge_neighbor_clusters = 1};
  ck_assert_str_eq(submitted(rt, &merge), "M2+1 X2 X1 A0 L0 X0 N0.0 A0 L0 X0b F1.0+0.1 "
                                          "M1+0 X1b X0 N0.0 A0 L0 X0b N0.1 F2.0+1.1");
  /* a cluster with fault faces keeps its correction (rupture first) */
  rt->fault_first[2] = 0, rt->fault_end[2] = 1;
  ck_assert_str_eq(submitted(rt, &merge), "M2+1 X2 X1 A0 L0 X0 N0.0 A0 L0 X0b F1.0+0.1 "
                                          "M1+0 X1b X0 N0.0 A0 L0 X0b F1.1+0.1 R0 N2.0");
  free(rt);
}
END_TEST

START_TEST(merged_pairs_on_same_gpu) {
  /* two clusters, two tiles each, on GPUs 0 and 1: a merged predictor pairs only tiles of one GPU, in mesh
   * order, and leaves the others alone */
  sq_runtime *rt = one_tile_per_cluster(2, 2);
  rt->ntile = 4;
  const int cluster[4] = {1, 0, 1, 0}, gpu[4] = {0, 1, 1, 1};
  for (int t = 0; t < 4; ++t) rt->cluster[t] = cluster[t], rt->gpu[t] = gpu[t];
  const sq_graph_options merge = {.merge_neighbor_clusters = 1, .merge_predictors_only = 1};
  ck_assert_str_eq(submitted(rt, &merge), "M0 M2+1 M3 X1 X0 N1.0 N3.0 A1 L1 A3 L3 X0b N1.1 N3.1 N0.0 N2.0");
  sq_graph_stats st = {0};
  ck_assert_int_eq(sq_graph_sync_interval(rt, 1.0, &merge, &st), 0);
  ck_assert_int_eq(st.merged_predict, 1);
  ck_assert_int_eq(st.predict[0], 2);
  ck_assert_int_eq(st.predict[1], 1);
  free(rt);
}
END_TEST

START_TEST(group_steps_pass) {
  /* cluster 0 takes whole steps: with 3 clusters at rate 3 and two sub-steps per task, its three sub-steps
   * of each step of cluster 1 go as 2 + 1, with no halo exchange of its own */
  sq_runtime *rt = one_tile_per_cluster(3, 3);
  rt->fusable[0] = 1;
  const sq_graph_options group = {.fuse_steps = 1, .steps_per_task = 2};
  ck_assert_str_eq(submitted(rt, &group), "A2 L2 X2 A1 L1 X1 S0.0x2 S0.2x1 N1.0 A1 L1 X1 S0.0x2 S0.2x1 N1.1 "
                                          "A1 L1 X1b S0.0x2 S0.2x1 N1.2 N2.0");
  /* one cluster: consecutive global steps, across sync intervals */
  free(rt);
  rt = one_tile_per_cluster(1, 2);
  rt->fusable[0] = 1;
  const double times[6] = {0, 1, 2, 3, 4, 5};
  sq_graph_stats st = {0};
  ck_assert_int_eq(sq_graph_sync_intervals(rt, 1.0, 5, times, &group, &st), 0);
  ck_assert_str_eq(rt->log, "S0.0x2 S0.2x2 S0.4x1");
  ck_assert_int_eq(st.grouped, 3);
  ck_assert_int_eq(st.predict[0], 5);
  ck_assert_int_eq(st.correct[0], 5);
  free(rt);
}
END_TEST

START_TEST(fold_corrections_pass) {
  /* 3 clusters at rate 2, cluster 0 in tile 0 takes whole steps two per task, tile 1 of cluster 1 reads it:
   * with fuse_chain_correction, each whole-step task also corrects tile 1 at cluster 1's sub-step */
  sq_runtime *rt = one_tile_per_cluster(3, 2);
  rt->fusable[0] = 1;
  rt->fold[1] = 1; /* tile 1 folds into tile 0 */
  const sq_graph_options group = {.fuse_steps = 1, .steps_per_task = 2};
  ck_assert_str_eq(submitted(rt, &group), "A2 L2 X2 A1 L1 X1 S0.0x2 N1.0 A1 L1 X1b S0.0x2 N1.1 N2.0");
  sq_graph_options fold = group;
  fold.fuse_chain_correction = 1;
  ck_assert_str_eq(submitted(rt, &fold), "A2 L2 X2 A1 L1 X1 S0.0x2+N1.0 A1 L1 X1b S0.0x2+N1.1 N2.0");
  sq_graph_stats st = {0};
  ck_assert_int_eq(sq_graph_sync_interval(rt, 1.0, &fold, &st), 0);
  ck_assert_int_eq(st.folded, 2);
  ck_assert_int_eq(st.correct[1], 2);
  /* one sub-step per task: no task ends the step of cluster 1 with the whole of it, nothing folds */
  fold.steps_per_task = 1;
  ck_assert_str_eq(submitted(rt, &fold),
                   "A2 L2 X2 A1 L1 X1 X0 S0.0x1 X0b S0.1x1 N1.0 A1 L1 X1b X0 S0.0x1 X0b S0.1x1 N1.1 N2.0");
  /* plasticity in tile 1: its own task follows its update, no fold */
  fold.steps_per_task = 2;
  rt->plastic[1] = 1;
  ck_assert_str_eq(submitted(rt, &fold), "A2 L2 X2 A1 L1 X1 S0.0x2 N1.0 Y1 A1 L1 X1b S0.0x2 N1.1 Y1 N2.0");
  free(rt);
}
END_TEST

START_TEST(fold_predictions_pass) {
  /* as above, with fuse_chain_prediction: the first whole-step task also predicts tile 1's next step, whose own
   * predictor event then only advances its time integrals; the last has no next prediction in the interval */
  sq_runtime *rt = one_tile_per_cluster(3, 2);
  rt->fusable[0] = 1;
  rt->fold[1] = 1;
  sq_graph_options fold = {.fuse_steps = 1, .steps_per_task = 2, .fuse_chain_correction = 1};
  fold.fuse_chain_prediction = 1;
  ck_assert_str_eq(submitted(rt, &fold), "A2 L2 X2 A1 L1 X1 S0.0x2+N1.0+P1 T1 X1b S0.0x2+N1.1 N2.0");
  sq_graph_stats st = {0};
  ck_assert_int_eq(sq_graph_sync_interval(rt, 1.0, &fold, &st), 0);
  ck_assert_int_eq(st.folded, 2);
  ck_assert_int_eq(st.folded_predict, 1);
  ck_assert_int_eq(st.predict[1], 2);
  /* tile 1 with an LTS buffer: inside cluster 2's step it accumulates */
  rt->buffer[1] = 1;
  ck_assert_str_eq(submitted(rt, &fold), "A2 L2 X2 A1r L1 X1 S0.0x2+N1.0+P1a T1 X1b S0.0x2+N1.1 N2.0");
  /* without fuse_chain_correction, or with merged predictors, or with receivers in tile 1: nothing goes ahead */
  fold.fuse_chain_correction = 0;
  ck_assert_str_eq(submitted(rt, &fold), "A2 L2 X2 A1r L1 X1 S0.0x2 N1.0 A1a L1 X1b S0.0x2 N1.1 N2.0");
  fold.fuse_chain_correction = 1;
  fold.merge_neighbor_clusters = 1;
  ck_assert_str_eq(submitted(rt, &fold), "M2+1 X2 X1 S0.0x2+N1.0 M1 X1b S0.0x2 F2.0+1.1");
  fold.merge_neighbor_clusters = 0;
  rt->receivers[1] = 1;
  ck_assert_str_eq(submitted(rt, &fold), "A2 L2 X2 A1r L1 V1 X1 S0.0x2+N1.0 A1a L1 V1 X1b S0.0x2+N1.1 N2.0");
  free(rt);
  /* four clusters: across a step of cluster 2 too, unless the tile's LTS buffer is read there */
  rt = one_tile_per_cluster(4, 2);
  rt->fusable[0] = 1;
  rt->fold[1] = 1;
  ck_assert_str_eq(submitted(rt, &fold), "A3 L3 X3 A2 L2 X2 A1 L1 X1 S0.0x2+N1.0+P1 T1 X1b S0.0x2+N1.1+P1 N2.0 "
                                         "A2 L2 X2b T1 X1 S0.0x2+N1.0+P1 T1 X1b S0.0x2+N1.1 N2.1 N3.0");
  rt->buffer[1] = 1;
  ck_assert_str_eq(submitted(rt, &fold), "A3 L3 X3 A2 L2 X2 A1r L1 X1 S0.0x2+N1.0+P1a T1 X1b S0.0x2+N1.1 N2.0 "
                                         "A2 L2 X2b A1r L1 X1 S0.0x2+N1.0+P1a T1 X1b S0.0x2+N1.1 N2.1 N3.0");
  free(rt);
}
END_TEST

START_TEST(tile_tasks) {
  /* fused predictor, buffers, point tasks, plasticity and rupture in one step of two clusters */
  sq_runtime *rt = one_tile_per_cluster(2, 2);
  rt->buffer[0] = 1, rt->sources[0] = 1, rt->receivers[1] = 1, rt->plastic[1] = 1;
  rt->fault_first[0] = 0, rt->fault_end[0] = 2;
  ck_assert_str_eq(submitted(rt, NULL), "A1 L1 V1 X1 A0r L0 Q0 X0 R0 R1 N0.0 A0a L0 Q0 X0b R0 R1 N0.1 N1.0 Y1");
  const sq_graph_options fused = {.fuse_predictor = 1};
  ck_assert_str_eq(submitted(rt, &fused), "M1 V1 X1 M0 Q0 X0 R0 R1 N0.0 M0 Q0 X0b R0 R1 N0.1 N1.0 Y1");
  free(rt);
}
END_TEST

START_TEST(stop_ends_submission) {
  /* a stop request ends the submission of computation at the next event: what was submitted is the
   * uncancelled graph's beginning, up to the end of the event in which the request came, then only its
   * halo exchanges (other ranks post the matching messages) */
  static char whole[1 << 16], exchanges[1 << 16];
  sq_runtime *rt = one_tile_per_cluster(3, 2);
  recorded = 0;
  snprintf(whole, sizeof(whole), "%s", submitted(rt, NULL));
  const int ncall = recorded;
  recorded = 0, cancel_after = 4; /* the request comes inside cluster 1's predict event (A1, then L1) */
  const char *part = submitted(rt, NULL);
  const char *head = "A2 L2 X2 A1 L1";
  ck_assert_int_eq(strncmp(part, head, strlen(head)), 0);
  ck_assert_int_eq(strncmp(whole, head, strlen(head)), 0);
  size_t len = 0; /* the exchanges of the whole graph after the head, in order */
  for (const char *tok = whole + strlen(head); *tok;) {
    while (*tok == ' ') ++tok;
    const size_t n = strcspn(tok, " ");
    if (*tok == 'X') len += (size_t)snprintf(exchanges + len, sizeof(exchanges) - len, " %.*s", (int)n, tok);
    tok += n;
  }
  ck_assert_str_eq(part + strlen(head), exchanges);
  ck_assert_int_lt(recorded, ncall);
  cancel_after = 0;
  free(rt);
}
END_TEST

int main(void) {
  const TTest *tests[] = {walk_literal,
                          walk_times,
                          submitted_as_by_ticks,
                          comparison_sees_drops_and_swaps,
                          merge_predictors_pass,
                          merge_corrections_pass,
                          merged_pairs_on_same_gpu,
                          group_steps_pass,
                          fold_corrections_pass,
                          fold_predictions_pass,
                          tile_tasks,
                          stop_ends_submission,
                          NULL};
  Suite *s = sq_test_suite("graph", 0, tests);
  return sq_test_run(s, 1);
}
