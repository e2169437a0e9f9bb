/** @file qs_blocks.c  Blocks of cells with their distinct output rows (sq_qs_blocks.h). */
#include <stdlib.h>

#include "sq_qs_blocks.h"

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Position of @p v in the ascending rows[0 .. n). */
static int64_t find_row(const int64_t *rows, int64_t n, int64_t v) {
  int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (rows[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void sq_qs_blocks_destroy(sq_qs_blocks *b) {
  if (!b) return;
  SQ_FREE(b->ptr);
  SQ_FREE(b->row);
  SQ_FREE(b->local);
  SQ_FREE(b->gather);
  free(b);
}

int sq_qs_blocks_create(int64_t nc, const int64_t *out, int nloc, int cells, sq_qs_blocks **blocks) {
  *blocks = NULL;
  SQ_CHECK(nc >= 0 && (nloc == 10 || nloc == 4) && cells >= 1 && cells <= 1024, SQ_ERR_INTERNAL,
           "blocks of %d cells with %d nodes per cell over %lld cells: bad sizes", cells, nloc, (long long)nc);
  sq_qs_blocks *b = calloc(1, sizeof(*b));
  SQ_CHECK(b, SQ_ERR_MEMORY, "out of memory");
  b->cells = cells, b->nloc = nloc, b->ncell = nc, b->nblk = (nc + cells - 1) / cells;
  int64_t *scratch = NULL;
  int ierr = SQ_CALLOC(b->ptr, b->nblk + 1);
  if (!ierr) ierr = SQ_CALLOC(b->local, 10 * nc + 1);
  if (!ierr) ierr = SQ_CALLOC(b->row, (size_t)nloc * nc + 1);        /* at most */
  if (!ierr) ierr = SQ_CALLOC(b->gather, 2 * (size_t)nloc * nc + 1); /* gather, then gend (rows: at most nloc nc) */
  if (!ierr) ierr = SQ_CALLOC(scratch, (size_t)nloc * cells);
  if (ierr) {
    sq_qs_blocks_destroy(b);
    return ierr;
  }
  b->gend = b->gather + (size_t)nloc * nc;
  int64_t nrow = 0;
  for (int64_t k = 0; k < b->nblk; ++k) {
    const int64_t c0 = k * cells, c1 = c0 + cells < nc ? c0 + cells : nc;
    int64_t n = 0;
    for (int64_t c = c0; c < c1; ++c)
      for (int a = 0; a < nloc; ++a) scratch[n++] = out[10 * c + a];
    qsort(scratch, (size_t)n, sizeof(*scratch), cmp_i64);
    int64_t u = 0;
    for (int64_t i = 0; i < n; ++i)
      if (!u || scratch[i] != scratch[u - 1]) scratch[u++] = scratch[i];
    for (int64_t i = 0; i < u; ++i) b->row[nrow + i] = scratch[i];
    for (int64_t c = c0; c < c1; ++c)
      for (int a = 0; a < nloc; ++a) b->local[10 * c + a] = (uint16_t)find_row(scratch, u, out[10 * c + a]);
    /* the slots grouped by row: counts, ends, then each slot at its row's next place */
    uint16_t *gend = b->gend + nrow, *gather = b->gather + c0 * nloc;
    for (int64_t i = 0; i < u; ++i) gend[i] = 0;
    for (int64_t c = c0; c < c1; ++c)
      for (int a = 0; a < nloc; ++a) ++gend[b->local[10 * c + a]];
    for (int64_t i = 1; i < u; ++i) gend[i] = (uint16_t)(gend[i] + gend[i - 1]);
    for (int64_t c = c1 - 1; c >= c0; --c) /* backwards, filling each row from its end */
      for (int a = nloc - 1; a >= 0; --a) {
        const int r = b->local[10 * c + a];
        gather[--gend[r]] = (uint16_t)((c - c0) * nloc + a);
      }
    for (int64_t i = 0; i < u; ++i) gend[i] = (uint16_t)(i + 1 < u ? gend[i + 1] : (c1 - c0) * nloc);
    b->ptr[k] = nrow;
    nrow += u;
    if (u > b->max_rows) b->max_rows = u;
  }
  b->ptr[b->nblk] = nrow;
  b->ngather = nloc * nc + nrow;
  SQ_FREE(scratch);
  *blocks = b;
  return SQ_SUCCESS;
}
