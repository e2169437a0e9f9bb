/** @file partition.c  METIS partitioning with LTS weights (thesis §4.4, §6.5.4). */
#include "sq_partition.h"

#include <math.h>
#include <metis.h>
#include <stdlib.h>

const char *sq_part_weights_name(sq_part_weights w) {
  return w == SQ_PART_BWM ? "bwm" : w == SQ_PART_ENCODED ? "encoded" : "bw";
}

static int64_t ipow(int base, int e) {
  int64_t r = 1;
  while (e-- > 0) r *= base;
  return r;
}

int sq_partition(const sq_mesh *m, const int *cluster, int ncluster, int rate, int nparts, sq_part_weights weights,
                 const double *target, int *part, sq_partition_stats *stats) {
  return sq_partition_faces(m->ncell, m->face_neighbor, cluster, ncluster, rate, nparts, weights, target, part, stats);
}

int sq_partition_faces(int64_t n, const int64_t *face_neighbor, const int *cluster, int ncluster, int rate, int nparts,
                       sq_part_weights weights, const double *target, int *part, sq_partition_stats *stats) {
  SQ_CHECK(nparts >= 1, SQ_ERR_INPUT, "partition: need at least one part (got %d)", nparts);
  SQ_CHECK(n < INT32_MAX / 4, SQ_ERR_INPUT, "partition: %lld cells exceed METIS's 32-bit indices", (long long)n);
  if (nparts == 1 || n == 0) {
    for (int64_t c = 0; c < n; ++c) part[c] = 0;
  } else {
    /* dual graph: cells adjacent through faces (periodic ones included), without self loops or repeats */
    idx_t *xadj, *adj, *vwgt;
    SQ_CALL(SQ_CALLOC(xadj, n + 1));
    SQ_CALL(SQ_CALLOC(adj, 4 * n));
    const int ncon = weights == SQ_PART_BW ? 1 : weights == SQ_PART_BWM ? 2 : ncluster;
    SQ_CALL(SQ_CALLOC(vwgt, (size_t)n * ncon));
    idx_t nadj = 0;
    for (int64_t c = 0; c < n; ++c) {
      xadj[c] = nadj;
      for (int f = 0; f < 4; ++f) {
        const int64_t nb = face_neighbor[c * 4 + f];
        int dup = nb < 0 || nb == c;
        for (idx_t k = xadj[c]; k < nadj && !dup; ++k) dup = adj[k] == nb;
        if (!dup) adj[nadj++] = (idx_t)nb;
      }
      const idx_t bw = (idx_t)ipow(rate, ncluster - 1 - cluster[c]);
      if (weights == SQ_PART_BW) vwgt[c] = bw;
      else if (weights == SQ_PART_BWM) vwgt[2 * c] = bw, vwgt[2 * c + 1] = 1;
      else vwgt[(size_t)c * ncon + cluster[c]] = 1;
    }
    xadj[n] = nadj;
    idx_t nv = (idx_t)n, nc = ncon, np = nparts, objval = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;
    options[METIS_OPTION_NUMBERING] = 0;
    real_t *tp = NULL;
    if (target) {
      SQ_CALL(SQ_CALLOC(tp, (size_t)nparts * ncon));
      for (int p = 0; p < nparts; ++p)
        for (int k = 0; k < ncon; ++k) tp[p * ncon + k] = (real_t)target[p];
    }
    idx_t *pt;
    SQ_CALL(SQ_CALLOC(pt, n));
    const int ret = METIS_PartGraphKway(&nv, &nc, xadj, adj, vwgt, NULL, NULL, &np, tp, NULL, options, &objval, pt);
    for (int64_t c = 0; c < n; ++c) part[c] = (int)pt[c];
    SQ_FREE(pt);
    SQ_FREE(tp);
    SQ_FREE(xadj);
    SQ_FREE(adj);
    SQ_FREE(vwgt);
    SQ_CHECK(ret == METIS_OK, SQ_ERR_RUNTIME, "METIS_PartGraphKway failed (code %d) for %lld cells into %d parts", ret,
             (long long)n, nparts);
  }
  if (stats) {
    double *work = calloc(nparts, sizeof(double)), *cells = calloc(nparts, sizeof(double));
    SQ_CHECK(work && cells, SQ_ERR_MEMORY, "out of memory");
    int64_t cut = 0;
    for (int64_t c = 0; c < n; ++c) {
      work[part[c]] += (double)ipow(rate, ncluster - 1 - cluster[c]);
      cells[part[c]] += 1.0;
      for (int f = 0; f < 4; ++f) {
        const int64_t nb = face_neighbor[c * 4 + f];
        if (nb > c && part[nb] != part[c]) ++cut;
      }
    }
    double wsum = 0, wmax = 0, csum = 0, cmax = 0;
    for (int p = 0; p < nparts; ++p) {
      wsum += work[p], csum += cells[p];
      wmax = fmax(wmax, work[p]), cmax = fmax(cmax, cells[p]);
    }
    stats->work_imbalance = wsum > 0 ? wmax / (wsum / nparts) : 1.0;
    stats->memory_imbalance = csum > 0 ? cmax / (csum / nparts) : 1.0;
    stats->edge_cut = cut;
    free(work);
    free(cells);
  }
  return SQ_SUCCESS;
}
