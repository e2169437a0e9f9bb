/** @file receiver.c  Receivers: location, sample bookkeeping and the sampling kernel (thesis eq. 3.24). */
#include "sq_receiver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sq_locate.h"

static int cmp_point(const void *a, const void *b) {
  const sq_receiver_point *x = a, *y = b; /* within one tile: by element, then receiver number */
  if (x->elem != y->elem) return x->elem < y->elem ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

int sq_disc_keep_derivs(sq_disc *d, int tile) {
  if (!d->derivs) {
    /* not zeroed on purpose: only the tiles that keep derivatives ever touch their pages */
    const size_t bytes = (size_t)d->nelem * sq_disc_elem_bytes(d) * d->opt.order;
    d->derivs = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    SQ_CHECK(d->derivs, SQ_ERR_MEMORY, "out of memory allocating %zu bytes of time derivatives", bytes);
  }
  d->tile[tile].needs_derivs = 1;
  return SQ_SUCCESS;
}

int sq_receiver_set_create(sq_disc *d, const struct sq_locator *loc, int n, const double *x, const char *const *origin,
                           double interval, int64_t first, sq_receiver_set **out) {
  const sq_mesh *m = d->mesh;
  SQ_CHECK(interval > 0, SQ_ERR_INPUT, "the receiver sampling interval must be > 0 (got %g)", interval);
  sq_receiver_set *s;
  SQ_CALL(SQ_CALLOC(s, 1));
  *out = s;
  s->n = n;
  s->ntile = d->ntile;
  s->interval = interval;
  s->first = first;
  const int nn = n > 0 ? n : 1;
  SQ_CALL(SQ_CALLOC(s->x, 3 * (size_t)nn));
  SQ_CALL(SQ_CALLOC(s->cell, nn));
  SQ_CALL(SQ_CALLOC(s->owned, nn));
  SQ_CALL(SQ_CALLOC(s->point, nn));
  SQ_CALL(SQ_CALLOC(s->tile_begin, d->ntile + 1));
  memcpy(s->x, x, 3 * sizeof(double) * (size_t)n);
  double *xi;
  SQ_CALL(SQ_CALLOC(xi, 3 * (size_t)nn));
  int nout = 0, first_out = -1;
  for (int i = 0; i < n; ++i) {
    s->cell[i] = sq_locator_find(loc, &x[3 * i], &xi[3 * i]);
    const int64_t e = s->cell[i] >= 0 ? d->elem_of[s->cell[i]] : -1;
    s->owned[i] = e >= 0 && !d->is_ghost[e]; /* MPI: the rank owning the cell samples and writes it */
    if (s->cell[i] == -1 && nout++ == 0)     /* SQ_LOCATE_ELSEWHERE: another rank's cell */
      first_out = i;
  }
  if (nout) {
    /* one error line naming the first one (file:line of its definition), then the others */
    char more[80] = "";
    if (nout > 1) snprintf(more, sizeof more, "; %d receivers lie outside in all; the others:", nout);
    const int f = first_out;
    sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
             "%s: receiver %d at (%.9g, %.9g, %.9g) lies outside the mesh %s, which spans x %.9g..%.9g, "
             "y %.9g..%.9g, z %.9g..%.9g%s",
             origin ? origin[f] : "?", f + 1, x[3 * f], x[3 * f + 1], x[3 * f + 2], m->source, m->bbox_lo[0],
             m->bbox_hi[0], m->bbox_lo[1], m->bbox_hi[1], m->bbox_lo[2], m->bbox_hi[2], more);
    for (int i = f + 1; i < n; ++i)
      if (s->cell[i] == -1)
        sq_error_more("  %s: receiver %d at (%.9g, %.9g, %.9g)", origin ? origin[i] : "?", i + 1, x[3 * i],
                      x[3 * i + 1], x[3 * i + 2]);
    SQ_FREE(xi);
    return SQ_ERR_INPUT;
  }
  int *tile_of;
  SQ_CALL(SQ_CALLOC(tile_of, nn));
  for (int i = 0; i < n; ++i) {
    tile_of[i] = -1;
    if (!s->owned[i]) continue;
    const int64_t e = d->elem_of[s->cell[i]];
    int lo = 0, hi = d->ntile - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (d->tile[mid].begin <= e) lo = mid;
      else hi = mid - 1;
    }
    tile_of[i] = lo;
    s->tile_begin[lo + 1]++;
  }
  for (int t = 0; t < d->ntile; ++t) s->tile_begin[t + 1] += s->tile_begin[t];
  int *fill;
  SQ_CALL(SQ_CALLOC(fill, d->ntile > 0 ? d->ntile : 1));
  for (int i = 0; i < n; ++i) {
    const int t = tile_of[i];
    if (t < 0) continue;
    sq_receiver_point *p = &s->point[s->tile_begin[t] + fill[t]++];
    p->elem = (int32_t)(d->elem_of[s->cell[i]] - d->tile[t].begin);
    p->index = i;
    memset(p->phi, 0, sizeof(p->phi));
    sq_basis_eval(d->opt.order, &xi[3 * i], p->phi);
  }
  for (int t = 0; t < d->ntile; ++t)
    if (s->tile_begin[t + 1] > s->tile_begin[t]) {
      qsort(&s->point[s->tile_begin[t]], (size_t)(s->tile_begin[t + 1] - s->tile_begin[t]), sizeof(sq_receiver_point),
            cmp_point);
      SQ_CALL(sq_disc_keep_derivs(d, t));
    }
  SQ_FREE(fill);
  SQ_FREE(tile_of);
  SQ_FREE(xi);
  return SQ_SUCCESS;
}

void sq_receiver_set_destroy(sq_receiver_set *s) {
  if (!s) return;
  SQ_FREE(s->x);
  SQ_FREE(s->cell);
  SQ_FREE(s->owned);
  SQ_FREE(s->point);
  SQ_FREE(s->tile_begin);
  free(s->samples);
  for (int i = 0; s->name && i < s->n; ++i) free(s->name[i]);
  SQ_FREE(s->name);
  SQ_FREE(s);
}

int sq_receiver_set_name(sq_receiver_set *s, int i, const char *name) {
  SQ_CHECK(i >= 0 && i < s->n, SQ_ERR_INTERNAL, "receiver %d of %d named", i + 1, s->n);
  if (!s->name) SQ_CALL(SQ_CALLOC(s->name, s->n > 0 ? s->n : 1));
  free(s->name[i]);
  s->name[i] = strdup(name);
  SQ_CHECK(s->name[i], SQ_ERR_MEMORY, "out of memory naming receiver %d", i + 1);
  return SQ_SUCCESS;
}

/* Smallest j >= 0 with j * interval >= t (exactly as the comparison below evaluates it). */
static int64_t first_at_or_after(double interval, double t) {
  if (!(t > 0)) return 0;
  int64_t j = (int64_t)ceil(t / interval);
  while (j > 0 && (double)(j - 1) * interval >= t) --j;
  while ((double)j * interval < t) ++j;
  return j;
}

void sq_receiver_samples_in(double interval, double t0, double t1, int64_t *jb, int64_t *je) {
  *jb = first_at_or_after(interval, t0);
  *je = first_at_or_after(interval, t1);
  if (*je < *jb) *je = *jb;
}

int sq_receiver_set_reserve(sq_receiver_set *s, double t_end) {
  int64_t jb, je;
  sq_receiver_samples_in(s->interval, 0.0, t_end, &jb, &je);
  const int64_t need = je - s->first;
  if (need <= s->capacity || s->n == 0) return SQ_SUCCESS;
  int64_t cap = s->capacity > 0 ? s->capacity : 64;
  while (cap < need) cap *= 2;
  double *p = realloc(s->samples, (size_t)cap * s->n * 9 * sizeof(double));
  SQ_CHECK(p, SQ_ERR_MEMORY, "out of memory buffering %lld receiver samples", (long long)cap);
  s->samples = p;
  s->capacity = cap;
  return SQ_SUCCESS;
}

double *sq_receiver_set_slot(const sq_receiver_set *s, int64_t j) {
  return s->samples + (size_t)(j - s->first) * s->n * 9;
}

void sq_receiver_set_consume(sq_receiver_set *s, int64_t count) {
  if (count <= 0) return;
  const int64_t keep = s->capacity - count;
  if (keep > 0) memmove(s->samples, s->samples + (size_t)count * s->n * 9, (size_t)keep * s->n * 9 * sizeof(double));
  s->first += count;
}

void sq_kernel_receivers(sq_precision prec, int order, int n, const sq_receiver_point *pts, const void *derivs,
                         double t0, double interval, int64_t jb, int64_t je, double *out, int64_t stride) {
  const int B = sq_nbasis(order), nq = B * 9;
  double point_derivs[SQ_ORDER_MAX][9];
  for (int r = 0; r < n; ++r) {
    const int e = pts[r].elem;
    /* D^i at the receiver: sum_k phi_k D^i_{k,p} */
    for (int i = 0; i < order; ++i)
      for (int p = 0; p < 9; ++p) {
        const size_t base = ((size_t)e * order + i) * nq + (size_t)p * B;
        double sum = 0.0;
        if (prec == SQ_F64)
          for (int k = 0; k < B; ++k) sum += pts[r].phi[k] * ((const double *)derivs)[base + k];
        else
          for (int k = 0; k < B; ++k) sum += pts[r].phi[k] * (double)((const float *)derivs)[base + k];
        point_derivs[i][p] = sum;
      }
    for (int64_t j = jb; j < je; ++j) {
      const double tau = (double)j * interval - t0;
      double *o = out + (j - jb) * stride + (size_t)pts[r].index * 9;
      for (int p = 0; p < 9; ++p) {
        /* Horner in tau: sum_i tau^i / i! D^i */
        double v = point_derivs[order - 1][p];
        for (int i = order - 2; i >= 0; --i) v = point_derivs[i][p] + tau / (i + 1) * v;
        o[p] = v;
      }
    }
  }
}
