/**
 * @file qs_part.c  One rank's part of the quasi-static P2 mesh (sq_qs_part.h): its cells, its nodes in the whole
 * mesh's order, the owner of each node (the lowest rank with a cell at it) and the nodes shared with each peer.
 */
#include <stdlib.h>
#include <string.h>

#include "sq_qs_part.h"

/* (peer, local node) pairs, sorted by peer then node */
static int pair_cmp(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb;
  if (a[0] != b[0]) return (a[0] > b[0]) - (a[0] < b[0]);
  return (a[1] > b[1]) - (a[1] < b[1]);
}

void sq_qs_part_destroy(sq_qs_part *p) {
  if (!p) return;
  SQ_FREE(p->peer);
  SQ_FREE(p->ptr);
  SQ_FREE(p->node);
  SQ_FREE(p->nvert);
  SQ_FREE(p->snode);
  SQ_FREE(p->slot);
  free(p);
}

/* The local mesh: cells, nodes, geometry, boundary values, offsets, tiles; lmap[g]: local node of whole node g
 * (-1 where absent). */
static int part_mesh(const sq_qs_mesh *w, const int *cell_rank, int rank, int tile_size, const int *minr, int64_t *lmap,
                     sq_qs_mesh *qm) {
  int64_t nc = 0;
  for (int64_t c = 0; c < w->ncell; ++c) nc += cell_rank[c] == rank;
  qm->ncell = nc;
  for (int64_t g = 0; g < w->nnode; ++g) lmap[g] = -1;
  for (int64_t c = 0; c < w->ncell; ++c)
    if (cell_rank[c] == rank)
      for (int a = 0; a < SQ_QS_NLOC; ++a) lmap[w->cell_node[10 * c + a]] = 0;
  int64_t nn = 0, nv = 0;
  for (int64_t g = 0; g < w->nnode; ++g)
    if (lmap[g] == 0) {
      lmap[g] = nn++;
      nv += g < w->nvert;
    } else lmap[g] = -1;
  qm->nnode = nn;
  qm->nvert = nv;
  qm->nedge = nn - nv;
  SQ_CALL(SQ_CALLOC(qm->cell_node, 10 * nc));
  SQ_CALL(SQ_CALLOC(qm->geo, SQ_QS_NGEO * nc));
  SQ_CALL(SQ_CALLOC(qm->geo32, SQ_QS_NGEO * nc));
  SQ_CALL(SQ_CALLOC(qm->xyz, 3 * nn));
  SQ_CALL(SQ_CALLOC(qm->fixed, 3 * nn));
  SQ_CALL(SQ_CALLOC(qm->ubc, 3 * nn));
  SQ_CALL(SQ_CALLOC(qm->own, nn));
  SQ_CALL(SQ_CALLOC(qm->gnode, nn));
  SQ_CALL(SQ_CALLOC(qm->edge_vert, 2 * (qm->nedge > 0 ? qm->nedge : 1)));
  SQ_CALL(SQ_CALLOC(qm->vert_edge_ptr, nv + 1));
  SQ_CALL(SQ_CALLOC(qm->vert_edge, 2 * (qm->nedge > 0 ? qm->nedge : 1)));
  int64_t *cmap = NULL; /* whole cell -> local cell */
  SQ_CALL(SQ_CALLOC(cmap, w->ncell));
  for (int64_t c = 0, k = 0; c < w->ncell; ++c) {
    cmap[c] = cell_rank[c] == rank ? k : -1;
    if (cell_rank[c] != rank) continue;
    for (int a = 0; a < SQ_QS_NLOC; ++a) qm->cell_node[10 * k + a] = lmap[w->cell_node[10 * c + a]];
    memcpy(qm->geo + SQ_QS_NGEO * k, w->geo + SQ_QS_NGEO * c, sizeof(double) * SQ_QS_NGEO);
    memcpy(qm->geo32 + SQ_QS_NGEO * k, w->geo32 + SQ_QS_NGEO * c, sizeof(float) * SQ_QS_NGEO);
    ++k;
  }
  for (int64_t g = 0; g < w->nnode; ++g) {
    const int64_t l = lmap[g];
    if (l < 0) continue;
    qm->gnode[l] = g;
    qm->own[l] = minr[g] == rank;
    memcpy(qm->xyz + 3 * l, w->xyz + 3 * g, 3 * sizeof(double));
    memcpy(qm->fixed + 3 * l, w->fixed + 3 * g, 3);
    memcpy(qm->ubc + 3 * l, w->ubc + 3 * g, 3 * sizeof(double));
    if (g >= w->nvert) {
      const int64_t e = l - nv, ge = g - w->nvert;
      qm->edge_vert[2 * e] = lmap[w->edge_vert[2 * ge]];
      qm->edge_vert[2 * e + 1] = lmap[w->edge_vert[2 * ge + 1]];
    }
  }
  /* the edges of each local vertex, in the whole mesh's order */
  for (int64_t e = 0; e < qm->nedge; ++e)
    for (int k = 0; k < 2; ++k) qm->vert_edge_ptr[qm->edge_vert[2 * e + k] + 1]++;
  for (int64_t v = 0; v < nv; ++v) qm->vert_edge_ptr[v + 1] += qm->vert_edge_ptr[v];
  for (int64_t v = 0, k = 0; v < w->nvert; ++v) {
    if (lmap[v] < 0) continue;
    for (int64_t j = w->vert_edge_ptr[v]; j < w->vert_edge_ptr[v + 1]; ++j) {
      const int64_t le = lmap[w->nvert + w->vert_edge[j]];
      if (le >= 0) qm->vert_edge[k++] = le - nv;
    }
  }
  /* fault offsets of the local cells (the whole mesh's are sorted by cell, and so stay) */
  int64_t no = 0;
  for (int64_t k = 0; k < w->noff; ++k) no += cmap[w->off_cell[k]] >= 0;
  qm->noff = no;
  int ierr = SQ_CALLOC(qm->off_cell, no > 0 ? no : 1);
  if (!ierr) ierr = SQ_CALLOC(qm->off_loc, no > 0 ? no : 1);
  if (!ierr) ierr = SQ_CALLOC(qm->off_u, 3 * (no > 0 ? no : 1));
  for (int64_t k = 0, j = 0; !ierr && k < w->noff; ++k) {
    const int64_t lc = cmap[w->off_cell[k]];
    if (lc < 0) continue;
    qm->off_cell[j] = lc;
    qm->off_loc[j] = w->off_loc[k];
    memcpy(qm->off_u + 3 * j, w->off_u + 3 * k, 3 * sizeof(double));
    ++j;
  }
  SQ_FREE(cmap);
  SQ_CALL(ierr);
  qm->nfault_face = w->nfault_face;
  qm->nfault_node = w->nfault_node;
  qm->ntip_node = w->ntip_node;
  return sq_qs_mesh_build_tiles(qm, tile_size);
}

/* The nodes shared with each peer: (rank, node) pairs of the interface nodes from every cell. */
static int part_peers(const sq_qs_mesh *w, const int *cell_rank, int rank, const int *minr, const int *maxr,
                      const int64_t *lmap, sq_qs_part *p) {
  int64_t npair = 0, cap = 1024;
  int64_t *pair = malloc(sizeof(int64_t) * 2 * (size_t)cap); /* (rank, whole node) */
  SQ_CHECK(pair, SQ_ERR_MEMORY, "quasi-static partition: no memory");
  for (int64_t c = 0; c < w->ncell; ++c)
    for (int a = 0; a < SQ_QS_NLOC; ++a) {
      const int64_t g = w->cell_node[10 * c + a];
      if (minr[g] == maxr[g] || lmap[g] < 0 || cell_rank[c] == rank) continue;
      if (npair == cap) {
        int64_t *t = realloc(pair, sizeof(int64_t) * 4 * (size_t)cap);
        if (!t) {
          free(pair);
          return sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "quasi-static partition: no memory for %lld pairs",
                          (long long)(2 * cap));
        }
        pair = t;
        cap *= 2;
      }
      pair[2 * npair] = cell_rank[c];
      pair[2 * npair + 1] = lmap[g];
      ++npair;
    }
  qsort(pair, (size_t)npair, 2 * sizeof(int64_t), pair_cmp);
  int64_t nu = 0;
  for (int64_t i = 0; i < npair; ++i)
    if (i == 0 || pair[2 * i] != pair[2 * nu - 2] || pair[2 * i + 1] != pair[2 * nu - 1]) {
      pair[2 * nu] = pair[2 * i];
      pair[2 * nu + 1] = pair[2 * i + 1];
      ++nu;
    }
  p->npeer = 0;
  for (int64_t i = 0; i < nu; ++i) p->npeer += i == 0 || pair[2 * i] != pair[2 * i - 2];
  int ierr = SQ_CALLOC(p->peer, p->npeer > 0 ? p->npeer : 1);
  if (!ierr) ierr = SQ_CALLOC(p->ptr, p->npeer + 1);
  if (!ierr) ierr = SQ_CALLOC(p->nvert, p->npeer > 0 ? p->npeer : 1);
  if (!ierr) ierr = SQ_CALLOC(p->node, nu > 0 ? nu : 1);
  if (!ierr) ierr = SQ_CALLOC(p->slot, nu > 0 ? nu : 1);
  if (ierr) {
    free(pair);
    return ierr;
  }
  int k = -1;
  for (int64_t i = 0; i < nu; ++i) {
    if (i == 0 || pair[2 * i] != pair[2 * i - 2]) {
      p->peer[++k] = (int)pair[2 * i];
      p->ptr[k] = i;
    }
    p->node[i] = pair[2 * i + 1];
  }
  p->ptr[p->npeer] = nu;
  free(pair);
  return SQ_SUCCESS;
}

/* The distinct shared nodes and each list entry's slot among them. */
static int part_slots(const sq_qs_mesh *qm, sq_qs_part *p) {
  const int64_t ne = p->ptr[p->npeer];
  int64_t *slot_of = NULL;
  SQ_CALL(SQ_CALLOC(slot_of, qm->nnode));
  for (int64_t i = 0; i < ne; ++i) slot_of[p->node[i]] = 1;
  p->nshared = p->nshared_vert = 0;
  for (int64_t l = 0; l < qm->nnode; ++l)
    if (slot_of[l]) {
      slot_of[l] = p->nshared++;
      p->nshared_vert += l < qm->nvert;
    }
  int ierr = SQ_CALLOC(p->snode, p->nshared > 0 ? p->nshared : 1);
  for (int64_t i = 0; !ierr && i < ne; ++i) {
    p->slot[i] = slot_of[p->node[i]];
    p->snode[p->slot[i]] = p->node[i];
  }
  for (int k = 0; !ierr && k < p->npeer; ++k) {
    p->nvert[k] = 0;
    for (int64_t i = p->ptr[k]; i < p->ptr[k + 1]; ++i) p->nvert[k] += p->node[i] < qm->nvert;
  }
  SQ_FREE(slot_of);
  return ierr;
}

int sq_qs_mesh_part(const sq_qs_mesh *whole, const int *cell_rank, int nranks, int rank, int tile_size,
                    sq_qs_mesh **part, sq_qs_part **info) {
  *part = NULL;
  *info = NULL;
  SQ_CHECK(nranks >= 1 && rank >= 0 && rank < nranks, SQ_ERR_INPUT,
           "quasi-static partition: rank %d of %d ranks does not exist", rank, nranks);
  SQ_CHECK(tile_size >= 1, SQ_ERR_INPUT, "quasi-static partition: tile size must be >= 1 (got %d)", tile_size);
  SQ_CHECK(whole->ncell >= nranks, SQ_ERR_INPUT,
           "quasi-static partition: %d MPI ranks for a mesh of %lld cells; every rank needs at least one cell (run "
           "with at most %lld ranks)",
           nranks, (long long)whole->ncell, (long long)whole->ncell);
  int64_t ncell_me = 0;
  for (int64_t c = 0; c < whole->ncell; ++c) {
    SQ_CHECK(cell_rank[c] >= 0 && cell_rank[c] < nranks, SQ_ERR_INPUT,
             "quasi-static partition: cell %lld is given to rank %d of %d ranks", (long long)c, cell_rank[c], nranks);
    ncell_me += cell_rank[c] == rank;
  }
  SQ_CHECK(ncell_me > 0, SQ_ERR_INPUT,
           "quasi-static partition: rank %d got no cell of the %lld cells (%d ranks): run with fewer MPI ranks", rank,
           (long long)whole->ncell, nranks);
  int *minr = NULL, *maxr = NULL;
  int64_t *lmap = NULL;
  sq_qs_mesh *qm = NULL;
  sq_qs_part *p = NULL;
  int ierr = SQ_CALLOC(minr, whole->nnode);
  if (!ierr) ierr = SQ_CALLOC(maxr, whole->nnode);
  if (!ierr) ierr = SQ_CALLOC(lmap, whole->nnode);
  if (!ierr && !(qm = calloc(1, sizeof(*qm))))
    ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "quasi-static partition: no memory");
  if (!ierr && !(p = calloc(1, sizeof(*p))))
    ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "quasi-static partition: no memory");
  if (!ierr) {
    for (int64_t g = 0; g < whole->nnode; ++g) {
      minr[g] = nranks;
      maxr[g] = -1;
    }
    for (int64_t c = 0; c < whole->ncell; ++c)
      for (int a = 0; a < SQ_QS_NLOC; ++a) {
        const int64_t g = whole->cell_node[10 * c + a];
        if (cell_rank[c] < minr[g]) minr[g] = cell_rank[c];
        if (cell_rank[c] > maxr[g]) maxr[g] = cell_rank[c];
      }
    p->rank = rank;
    p->nranks = nranks;
    p->nnode_global = whole->nnode;
    ierr = part_mesh(whole, cell_rank, rank, tile_size, minr, lmap, qm);
  }
  if (!ierr) ierr = part_peers(whole, cell_rank, rank, minr, maxr, lmap, p);
  if (!ierr) ierr = part_slots(qm, p);
  SQ_FREE(minr);
  SQ_FREE(maxr);
  SQ_FREE(lmap);
  if (ierr) {
    sq_qs_mesh_destroy(qm);
    sq_qs_part_destroy(p);
    return ierr;
  }
  *part = qm;
  *info = p;
  return SQ_SUCCESS;
}

void sq_qs_part_pack(const sq_qs_part *p, int k, int p1, int nval, int f32, const void *y, void *buf) {
  const size_t es = (f32 ? sizeof(float) : sizeof(double)) * (size_t)nval;
  const int64_t b = p->ptr[k], cnt = sq_qs_part_count(p, k, p1);
  for (int64_t i = 0; i < cnt; ++i)
    memcpy((char *)buf + es * (size_t)i, (const char *)y + es * (size_t)p->node[b + i], es);
}

/* acc[ia .. ia + nval) += src[is .. is + nval) in the vector's precision */
static void add_values(int f32, int nval, void *acc, int64_t ia, const void *src, int64_t is) {
  if (f32)
    for (int j = 0; j < nval; ++j) ((float *)acc)[ia * nval + j] += ((const float *)src)[is * nval + j];
  else
    for (int j = 0; j < nval; ++j) ((double *)acc)[ia * nval + j] += ((const double *)src)[is * nval + j];
}

void sq_qs_part_sum(const sq_qs_part *p, int p1, int nval, int f32, void *y, const void *const *recv, void *acc) {
  const size_t es = (f32 ? sizeof(float) : sizeof(double)) * (size_t)nval;
  const int64_t ns = p1 ? p->nshared_vert : p->nshared;
  memset(acc, 0, es * (size_t)ns);
  int self = 0;
  for (int k = 0; k <= p->npeer; ++k) {
    if (!self && (k == p->npeer || p->peer[k] > p->rank)) { /* this rank's turn */
      for (int64_t s = 0; s < ns; ++s) add_values(f32, nval, acc, s, y, p->snode[s]);
      self = 1;
    }
    if (k == p->npeer) break;
    const int64_t b = p->ptr[k], cnt = sq_qs_part_count(p, k, p1);
    for (int64_t i = 0; i < cnt; ++i) add_values(f32, nval, acc, p->slot[b + i], recv[k], i);
  }
  for (int64_t s = 0; s < ns; ++s) memcpy((char *)y + es * (size_t)p->snode[s], (const char *)acc + es * (size_t)s, es);
}
