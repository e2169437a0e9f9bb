/**
 * @file forward.c  Copies between GPUs as soon as the data is written: a predictor's time integrals and
 * derivatives go to the other GPUs whose tiles read them from the predictor task's callback, so that the
 * reading task finds them there when it becomes ready instead of asking for them then.
 */
#include <stdlib.h>

#include "sq_runtime_impl.h"

/* One tile's copies: n (handle, memory node) pairs. */
typedef struct sq_forward {
  int n;
  starpu_data_handle_t *h;
  int *node;
} sq_forward;

/* The argument of a forwarding task's callback: the tile's copies, the profile of the task's kind, and where the
 * task wrote the tile's second time-integral array (sq_runtime_double_tint) the pair (first array, second) so that
 * that one is copied instead. */
typedef struct sq_forward_arg {
  const sq_forward *fwd;
  sq_task_profile *prof;
  starpu_data_handle_t tint, tint_alt;
} sq_forward_arg;

/* The task kinds that write a tile's time integrals and derivatives, and so forward them. */
static int forward_slot(enum sq_task_kind kind) { return kind == SQ_TASK_ADER ? 0 : kind == SQ_TASK_MERGED ? 1 : -1; }

/* Add (h, node) to f unless it is there already. */
static int forward_add(sq_forward *f, starpu_data_handle_t h, int node) {
  for (int i = 0; i < f->n; ++i)
    if (f->h[i] == h && f->node[i] == node) return SQ_SUCCESS;
  starpu_data_handle_t *nh = realloc(f->h, sizeof(*nh) * (size_t)(f->n + 1));
  if (nh) f->h = nh;
  int *nn = nh ? realloc(f->node, sizeof(*nn) * (size_t)(f->n + 1)) : NULL;
  if (nn) f->node = nn;
  SQ_CHECK(nh && nn, SQ_ERR_MEMORY, "out of memory");
  f->h[f->n] = h;
  f->node[f->n++] = node;
  return SQ_SUCCESS;
}

static void forward_free(sq_runtime *rt) {
  if (!rt->forward) return;
  for (int t = 0; t < rt->disc->ntile; ++t) {
    free(rt->forward[t].h);
    free(rt->forward[t].node);
  }
  SQ_FREE(rt->forward);
  SQ_FREE(rt->forward_arg);
}

int sq_runtime_forward_outputs(sq_runtime *rt, int64_t *ncopies) {
  const sq_disc *d = rt->disc;
  *ncopies = 0;
  forward_free(rt);
  if (!rt->tile_gpu) return SQ_SUCCESS; /* one GPU, or none: nothing crosses */
  SQ_CALL(SQ_CALLOC(rt->forward, d->ntile));
  if (SQ_CALLOC(rt->forward_arg, 4 * (size_t)d->ntile)) {
    SQ_FREE(rt->forward);
    return SQ_ERR_MEMORY;
  }
  int ierr = SQ_SUCCESS;
  /* every read across GPUs that a neighbour task makes: the reader's GPU gets the handle it reads (sq_insert_neighbors:
   * a tile of its cluster's time integrals, a slower one's derivatives; a faster one's buffer is summed over several
   * predictors and left to the reader) */
  for (int r = 0; r < d->ntile && !ierr; ++r) {
    const int node = sq_runtime_tile_node(rt, r);
    if (node < 0) continue;
    const sq_tile *tl = &d->tile[r];
    for (int s = 0; s < tl->nneighbor && !ierr; ++s) {
      const int nt = tl->neighbor[s];
      if (nt == r || sq_runtime_tile_node(rt, nt) < 0 || sq_runtime_tile_node(rt, nt) == node) continue;
      const enum sq_neighbour_array reads = sq_neighbour_reads(tl->cluster, d->tile[nt].cluster);
      const starpu_data_handle_t h = reads == SQ_READS_TINT     ? rt->tint[nt]
                                     : reads == SQ_READS_DERIVS ? rt->derivs[nt]
                                                                : NULL;
      if (!h) continue;
      ierr = forward_add(&rt->forward[nt], h, node);
    }
  }
  for (int t = 0; t < d->ntile; ++t) *ncopies += rt->forward[t].n;
  /* per tile, kind and array written: [4 t + 2 kind + odd] */
  for (int t = 0; t < d->ntile; ++t)
    for (int k = 0; k < 4; ++k)
      rt->forward_arg[4 * t + k] = (sq_forward_arg){
          .fwd = &rt->forward[t], .prof = &rt->prof[k / 2 == 0 ? SQ_TASK_ADER : SQ_TASK_MERGED], .tint = rt->tint[t]};
  if (ierr) forward_free(rt);
  return ierr;
}

void sq_forward_destroy(sq_runtime *rt) { forward_free(rt); }

static void forward_done(void *arg) {
  const sq_forward_arg *a = arg;
  for (int i = 0; i < a->fwd->n; ++i) {
    const starpu_data_handle_t h = a->tint_alt && a->fwd->h[i] == a->tint ? a->tint_alt : a->fwd->h[i];
    starpu_data_prefetch_on_node(h, (unsigned)a->fwd->node[i], 1);
  }
  sq_profile_task_done(a->prof);
}

/* The copies of a whole-step task's predictors taken ahead, resolved at insertion: (handle, node) pairs. */
typedef struct sq_forward_ahead {
  sq_task_profile *prof;
  int n;
  starpu_data_handle_t *h;
  int *node;
} sq_forward_ahead;

void *sq_forward_ahead_arg(sq_runtime *rt, int ntile, const int *tiles) {
  if (!rt->forward) return NULL;
  int n = 0;
  for (int j = 0; j < ntile; ++j) n += rt->forward[tiles[j]].n;
  if (n == 0) return NULL;
  sq_forward_ahead *f = malloc(sizeof(*f) + (sizeof(starpu_data_handle_t) + sizeof(int)) * (size_t)n);
  if (!f) return NULL; /* no early copies: the readers fetch what they read when they start */
  f->prof = &rt->prof[SQ_TASK_STEP];
  f->h = (starpu_data_handle_t *)(f + 1);
  f->node = (int *)(f->h + n);
  f->n = 0;
  for (int j = 0; j < ntile; ++j) {
    const int t = tiles[j];
    const sq_forward *fw = &rt->forward[t];
    for (int i = 0; i < fw->n; ++i) {
      f->h[f->n] = fw->h[i] == rt->tint[t] ? sq_tint_ahead(rt, t) : fw->h[i];
      f->node[f->n++] = fw->node[i];
    }
  }
  return f;
}

void sq_forward_ahead_done(void *arg) {
  sq_forward_ahead *f = arg;
  for (int i = 0; i < f->n; ++i) starpu_data_prefetch_on_node(f->h[i], (unsigned)f->node[i], 1);
  sq_profile_task_done(f->prof);
  free(f);
}

void (*sq_task_callback(const sq_runtime *rt, enum sq_task_kind kind, int tile))(void *) {
  if (rt->forward && forward_slot(kind) >= 0 && rt->forward[tile].n > 0) return forward_done;
  return sq_profile_callback(rt);
}

void *sq_task_callback_arg(sq_runtime *rt, enum sq_task_kind kind, int tile) {
  if (rt->forward && forward_slot(kind) >= 0 && rt->forward[tile].n > 0) {
    /* called as the task is inserted, after its predictor chose the array it writes (sq_tint_next) */
    const int odd = sq_tint_handle(rt, tile) != rt->tint[tile];
    sq_forward_arg *a = &rt->forward_arg[4 * tile + 2 * forward_slot(kind) + odd];
    a->tint_alt = odd ? rt->tint_alt[tile] : NULL; /* the second array may come after the planning */
    return a;
  }
  return sq_profile_arg(rt, kind);
}
