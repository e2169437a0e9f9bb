/**
 * @file distmesh.c  Distributed start-up from a PUML file: every rank reads a block of cells, the
 * face connectivity, LTS clusters and the partition are computed without any rank holding the whole
 * mesh, and each rank ends with its part (owned cells and the ghost layer, numbered locally).
 *
 * Steps (P ranks, N cells; rank r's block is the rows [r N / P, (r + 1) N / P) of /connect):
 *  1. read the block (sq_mesh_read_puml_range: hyperslabs) and compute its cells' geometry;
 *  2. match faces across ranks: each cell face goes, keyed by its sorted global vertex triple, to the
 *     rank the key hashes to, which pairs the two sides and answers each with its neighbour, the
 *     neighbour's face, the orientation and the completed tag (MPI_Alltoallv there and back);
 *  3. materials, CFL time steps and LTS clusters per block; the global dt_min by MPI_Allreduce; the
 *     neighbour normalisation iterates with an exchange of the clusters across block boundaries
 *     until no cluster changes on any rank (the result is the unique fixpoint the whole-mesh sweep
 *     reaches);
 *  4. rank 0 gathers the dual graph only (4 neighbour ids and the cluster per cell: 36 bytes a cell),
 *     runs METIS as sq_partition does, frees the graph and scatters each block's owners;
 *  5. each block sends its cells (vertex ids and coordinates, group, tags, neighbour ids, owner,
 *     cluster, surface numbering) to their owner and, as ghosts, to the owners of their face
 *     neighbours; the vertices' output writers (lowest owning rank) are agreed through the ranks the
 *     vertex ids hash to.  The block is freed.
 * Periodic faces need coordinates of the opposite boundary: a PUML mesh with periodic faces (and
 * every Gmsh file or built-in box) is read whole on every rank and cut down (sq_mesh_extract).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "sq_distmesh.h"
#include "sq_mesh_hash.h"
#include "sq_ref.h"
#include "sq_mesh_io.h"

/* Rank r's block of N cells over P ranks starts at N r / P. */
static int64_t block_begin(int64_t n, int p, int r) { return (int64_t)((__int128)n * r / p); }

/* The rank whose block holds global cell (or vertex) @p g. */
static int block_owner(int64_t n, int p, int64_t g) {
  int r = (int)((__int128)g * p / (n > 0 ? n : 1));
  while (r + 1 < p && block_begin(n, p, r + 1) <= g) ++r;
  while (r > 0 && block_begin(n, p, r) > g) --r;
  return r;
}

/* Any rank failed: all return (the failing ones have printed their message). */
static int agree(int ierr) {
  int any = ierr != 0;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return ierr ? ierr : any ? SQ_ERR_INPUT : SQ_SUCCESS;
}

/*
 * MPI_Alltoallv of fixed-size items: @p send holds @p scount[r] items for each rank r, in rank order.
 * Allocates *@p recv and fills @p rcount (items per source rank, may be NULL) and *@p nrecv.
 */
static int exchange(const void *send, const int *scount, size_t item, void **recv, int *rcount_out, int64_t *nrecv) {
  int p;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int *sc = calloc(4 * (size_t)p, sizeof(int));
  SQ_CHECK(sc, SQ_ERR_MEMORY, "out of memory distributing the mesh");
  int *sd = sc + p, *rc = sc + 2 * p, *rd = sc + 3 * p;
  int64_t so = 0, ro = 0;
  for (int r = 0; r < p; ++r) sc[r] = (int)(scount[r] * item);
  MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < p; ++r) {
    SQ_CHECK(so + sc[r] < INT_MAX && ro + rc[r] < INT_MAX, SQ_ERR_INPUT,
             "distributing the mesh: more than 2 GiB between two ranks in one exchange; run on more ranks");
    sd[r] = (int)so, rd[r] = (int)ro;
    so += sc[r], ro += rc[r];
  }
  *recv = malloc((size_t)ro + 1);
  SQ_CHECK(*recv, SQ_ERR_MEMORY, "out of memory distributing the mesh");
  MPI_Alltoallv(send, sc, sd, MPI_BYTE, *recv, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
  if (rcount_out)
    for (int r = 0; r < p; ++r) rcount_out[r] = (int)(rc[r] / item);
  *nrecv = ro / (int64_t)item;
  free(sc);
  return SQ_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Face matching                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/* Reference-tet vertex indices of each face in outward order (as in mesh/mesh.c and sq_ref.h). */

typedef struct face_rec {
  int64_t key[3]; /* sorted global vertex ids */
  int64_t vtx[3]; /* outward order */
  int64_t gid;    /* cell */
  int32_t face;   /* 0..3 */
  int32_t bc;     /* tag as read */
} face_rec;

typedef struct face_reply {
  int64_t nb; /* neighbour cell or -1 */
  int32_t nbface, orient, bc, err;
} face_reply;

static int cmp_face_rec(const void *pa, const void *pb) {
  const face_rec *a = pa, *b = pb;
  for (int k = 0; k < 3; ++k)
    if (a->key[k] != b->key[k]) return a->key[k] < b->key[k] ? -1 : 1;
  if (a->gid != b->gid) return a->gid < b->gid ? -1 : 1;
  return a->face - b->face;
}

static int orientation(const int64_t ours[3], const int64_t theirs[3]) {
  for (int h = 0; h < 3; h++) {
    if (theirs[0] != ours[h]) continue;
    if (theirs[1] == ours[(h + 2) % 3] && theirs[2] == ours[(h + 1) % 3]) return h;
    return -1;
  }
  return -1;
}

static int boundary_tag(int tag) { return tag == SQ_BC_FREE || tag == SQ_BC_ABSORB || tag == SQ_BC_PERIODIC; }

/* The block being distributed. */
typedef struct block {
  int rank, nranks;
  int64_t begin, n, nglobal, nvert_global;
  sq_mesh *mesh; /* the block's cells: global_id, vert_global set; geometry computed */
  int64_t *nb;   /* n x 4: neighbour's global id or -1 */
  int8_t *nbface, *orient;
  sq_material *mat;
  int *cluster, *owner;
  int64_t *surface_first;
  /* cells outside the block next to it: ascending global ids (grouped by block owner), with the
   * ranks serving them */
  int64_t nhalo, *halo;
  int *halo_count;        /* per rank: ids asked of it */
  int64_t nserve, *serve; /* ids others ask of us, as block indices, in their order */
  int *serve_count;
} block;

static void block_free(block *b) {
  sq_mesh_destroy(b->mesh);
  free(b->nb), free(b->nbface), free(b->orient), free(b->mat), free(b->cluster), free(b->owner);
  free(b->surface_first), free(b->halo), free(b->halo_count), free(b->serve), free(b->serve_count);
}

/* Step 2: face_neighbor, nbface, orient and the completed tags of the block's cells. */
static int match_faces(block *b) {
  const sq_mesh *m = b->mesh;
  const int p = b->nranks;
  const int64_t nf = 4 * b->n;
  face_rec *send = malloc(sizeof(face_rec) * (size_t)(nf + 1));
  int *count = calloc((size_t)p, sizeof(int)), *fill = calloc((size_t)p, sizeof(int));
  int64_t *slot = malloc(sizeof(int64_t) * (size_t)(nf + 1)); /* send position of cell-face cf */
  SQ_CHECK(send && count && fill && slot, SQ_ERR_MEMORY, "out of memory matching the faces of %s", m->source);
  int *dest = malloc(sizeof(int) * (size_t)(nf + 1));
  SQ_CHECK(dest, SQ_ERR_MEMORY, "out of memory matching the faces of %s", m->source);
  for (int64_t cf = 0; cf < nf; ++cf) {
    int64_t k[3];
    for (int v = 0; v < 3; ++v) k[v] = m->vert_global[m->cell_vert[4 * (cf / 4) + sq_ref_face_vertices[cf % 4][v]]];
    sq_sort3(k);
    dest[cf] = (int)(sq_hash3(k) % (uint64_t)p);
    count[dest[cf]]++;
  }
  for (int r = 1, o = count[0]; r < p; o += count[r++]) fill[r] = o;
  for (int64_t cf = 0; cf < nf; ++cf) {
    face_rec *fr = &send[slot[cf] = fill[dest[cf]]++];
    memset(fr, 0, sizeof *fr);
    for (int v = 0; v < 3; ++v)
      fr->vtx[v] = m->vert_global[m->cell_vert[4 * (cf / 4) + sq_ref_face_vertices[cf % 4][v]]];
    memcpy(fr->key, fr->vtx, sizeof fr->key);
    int64_t *k = fr->key, t;
    if (k[0] > k[1]) t = k[0], k[0] = k[1], k[1] = t;
    if (k[1] > k[2]) t = k[1], k[1] = k[2], k[2] = t;
    if (k[0] > k[1]) t = k[0], k[0] = k[1], k[1] = t;
    fr->gid = b->begin + cf / 4;
    fr->face = (int32_t)(cf % 4);
    fr->bc = m->face_bc[cf];
  }
  free(dest);
  face_rec *recv = NULL;
  int64_t nrecv = 0;
  int *rcount = calloc((size_t)p, sizeof(int));
  SQ_CHECK(rcount, SQ_ERR_MEMORY, "out of memory matching the faces of %s", m->source);
  int ierr = exchange(send, count, sizeof(face_rec), (void **)&recv, rcount, &nrecv);
  free(send);
  /* pair them: sort by key, carrying each record's arrival index for the answer */
  typedef struct {
    face_rec r;
    int64_t i;
  } tagged; /* the record leads: cmp_face_rec applies */
  face_reply *reply = ierr ? NULL : calloc((size_t)(nrecv + 1), sizeof(face_reply));
  tagged *tg = ierr ? NULL : malloc(sizeof(tagged) * (size_t)(nrecv + 1));
  if (!ierr && (!reply || !tg)) ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory matching faces");
  if (!ierr) {
    for (int64_t i = 0; i < nrecv; ++i) tg[i].r = recv[i], tg[i].i = i;
    qsort(tg, (size_t)nrecv, sizeof(tagged), cmp_face_rec);
    for (int64_t i = 0; !ierr && i < nrecv;) {
      int64_t j = i + 1;
      while (j < nrecv && !memcmp(tg[j].r.key, tg[i].r.key, sizeof tg[i].r.key)) ++j;
      const face_rec *a = &tg[i].r;
      if (j - i > 2) {
        ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                        "mesh %s: the face with vertices %lld, %lld, %lld (0-based rows of /geometry) is shared by "
                        "more than two cells: cells %lld, %lld and %lld (rows of /connect)",
                        m->source, (long long)a->key[0], (long long)a->key[1], (long long)a->key[2],
                        (long long)tg[i].r.gid, (long long)tg[i + 1].r.gid, (long long)tg[i + 2].r.gid);
      } else if (j - i == 2) {
        const face_rec *c = &tg[i + 1].r;
        const int h = orientation(a->vtx, c->vtx);
        if (h < 0)
          ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                          "mesh %s: cells %lld and %lld (rows of /connect, faces %d and %d) share the face with "
                          "vertices %lld, %lld, %lld but lie on the same side of it (overlapping or duplicated cells)",
                          m->source, (long long)a->gid, (long long)c->gid, a->face, c->face, (long long)a->key[0],
                          (long long)a->key[1], (long long)a->key[2]);
        const face_rec *side[2] = {a, c};
        for (int s = 0; s < 2 && !ierr; ++s)
          if (boundary_tag(side[s]->bc))
            ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                            "mesh %s: face %d of cell %lld (row of /connect) is tagged %d but is shared with cell "
                            "%lld (face %d); boundary tags 1, 5 and 6 belong on faces with one cell",
                            m->source, side[s]->face, (long long)side[s]->gid, side[s]->bc, (long long)side[1 - s]->gid,
                            side[1 - s]->face);
        /* a rupture tag on one side marks both (as sq_mesh_finalize does) */
        const int bc = a->bc == SQ_BC_RUPTURE || c->bc == SQ_BC_RUPTURE ? SQ_BC_RUPTURE : SQ_BC_REGULAR;
        reply[tg[i].i] = (face_reply){.nb = c->gid, .nbface = c->face, .orient = h, .bc = bc};
        reply[tg[i + 1].i] = (face_reply){.nb = a->gid, .nbface = a->face, .orient = h, .bc = bc};
      } else {
        if (!boundary_tag(a->bc) || a->bc == SQ_BC_PERIODIC)
          ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                          "mesh %s: face %d of cell %lld (row of /connect), with vertices %lld, %lld, %lld (rows of "
                          "/geometry), has no neighbour but is tagged %d; a boundary face must be free surface (1) or "
                          "absorbing (5) (duplicate vertices make a mesh non-conforming: merge them)",
                          m->source, a->face, (long long)a->gid, (long long)a->key[0], (long long)a->key[1],
                          (long long)a->key[2], a->bc);
        reply[tg[i].i] = (face_reply){.nb = -1, .nbface = -1, .orient = -1, .bc = a->bc};
      }
      i = j;
    }
  }
  free(tg), free(recv);
  ierr = agree(ierr);
  face_reply *back = NULL;
  int64_t nback = 0;
  if (!ierr) ierr = exchange(reply, rcount, sizeof(face_reply), (void **)&back, NULL, &nback);
  free(reply), free(rcount), free(count), free(fill);
  if (!ierr) {
    for (int64_t cf = 0; cf < nf; ++cf) {
      const face_reply *fr = &back[slot[cf]];
      b->nb[cf] = fr->nb;
      b->nbface[cf] = (int8_t)fr->nbface;
      b->orient[cf] = (int8_t)fr->orient;
      b->mesh->face_bc[cf] = (int8_t)fr->bc;
    }
  }
  free(back), free(slot);
  return ierr;
}

/* ------------------------------------------------------------------------------------------------ */
/* Values of the cells next to the block                                                             */
/* ------------------------------------------------------------------------------------------------ */

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Index of @p key in ascending @p a[n], or -1. */
static int64_t find_i64(const int64_t *a, int64_t n, int64_t key) {
  const int64_t *hit = bsearch(&key, a, (size_t)n, sizeof(int64_t), cmp_i64);
  return hit ? hit - a : -1;
}

/* The cells outside the block with a face on it, and who serves them. */
static int halo_plan(block *b) {
  const int p = b->nranks;
  int64_t n = 0;
  SQ_CHECK((b->halo = malloc(sizeof(int64_t) * (size_t)(4 * b->n + 1))) != NULL, SQ_ERR_MEMORY, "out of memory");
  for (int64_t cf = 0; cf < 4 * b->n; ++cf)
    if (b->nb[cf] >= 0 && (b->nb[cf] < b->begin || b->nb[cf] >= b->begin + b->n)) b->halo[n++] = b->nb[cf];
  qsort(b->halo, (size_t)n, sizeof(int64_t), cmp_i64);
  int64_t u = 0;
  for (int64_t i = 0; i < n; ++i)
    if (u == 0 || b->halo[u - 1] != b->halo[i]) b->halo[u++] = b->halo[i];
  b->nhalo = u;
  b->halo_count = calloc((size_t)p, sizeof(int));
  b->serve_count = calloc((size_t)p, sizeof(int));
  SQ_CHECK(b->halo_count && b->serve_count, SQ_ERR_MEMORY, "out of memory");
  for (int64_t i = 0; i < u; ++i) b->halo_count[block_owner(b->nglobal, p, b->halo[i])]++;
  SQ_CALL(exchange(b->halo, b->halo_count, sizeof(int64_t), (void **)&b->serve, b->serve_count, &b->nserve));
  for (int64_t i = 0; i < b->nserve; ++i) b->serve[i] -= b->begin;
  return SQ_SUCCESS;
}

/* @p out[i]: the value of @p mine (per block cell) at halo cell i. */
static int halo_ints(const block *b, const int *mine, int *out) {
  int *send = malloc(sizeof(int) * (size_t)(b->nserve + 1)), *recv = NULL;
  SQ_CHECK(send, SQ_ERR_MEMORY, "out of memory");
  for (int64_t i = 0; i < b->nserve; ++i) send[i] = mine[b->serve[i]];
  int64_t n = 0;
  const int ierr = exchange(send, b->serve_count, sizeof(int), (void **)&recv, NULL, &n);
  if (!ierr) memcpy(out, recv, sizeof(int) * (size_t)n);
  free(send), free(recv);
  return ierr;
}

/* ------------------------------------------------------------------------------------------------ */
/* Clusters                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

static int block_clusters(block *b, const sq_disc_options *opt_in, int *ncluster, double *dt_min) {
  sq_disc_options opt = *opt_in;
  if (opt.lts_rate < 1) opt.lts_rate = 1;
  if (opt.max_clusters < 1) opt.max_clusters = 1;
  double *dt = malloc(sizeof(double) * (size_t)(b->n + 1));
  int *halo = malloc(sizeof(int) * (size_t)(b->nhalo + 1));
  SQ_CHECK(dt && halo, SQ_ERR_MEMORY, "out of memory");
  double lo = INFINITY;
  for (int64_t c = 0; c < b->n; ++c) {
    dt[c] = sq_disc_dt_stable(&opt, b->mesh->insphere[c], &b->mat[c]);
    lo = fmin(lo, dt[c]);
  }
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  *dt_min = lo;
  for (int64_t c = 0; c < b->n; ++c) b->cluster[c] = sq_disc_cluster_level(&opt, lo, dt[c]);
  /* cluster[c] <= cluster[nb] + 1 (= cluster[nb] across rupture faces): only decreases, so every
   * sweep order ends at the same fixpoint as the whole-mesh sweep of sq_disc_clusters */
  int ierr = SQ_SUCCESS;
  for (int changed = 1; changed && !ierr;) {
    changed = 0;
    ierr = halo_ints(b, b->cluster, halo);
    for (int64_t cf = 0; cf < 4 * b->n && !ierr; ++cf) {
      const int64_t nb = b->nb[cf];
      if (nb < 0) continue;
      const int64_t c = cf / 4;
      const int cnb =
          nb >= b->begin && nb < b->begin + b->n ? b->cluster[nb - b->begin] : halo[find_i64(b->halo, b->nhalo, nb)];
      const int limit = b->mesh->face_bc[cf] == SQ_BC_RUPTURE ? cnb : cnb + 1;
      if (b->cluster[c] > limit) b->cluster[c] = limit, changed = 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  }
  int maxc = 0;
  for (int64_t c = 0; c < b->n; ++c) maxc = b->cluster[c] > maxc ? b->cluster[c] : maxc;
  MPI_Allreduce(MPI_IN_PLACE, &maxc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  *ncluster = maxc + 1;
  free(dt), free(halo);
  return ierr;
}

/* ------------------------------------------------------------------------------------------------ */
/* Partition: the dual graph on rank 0                                                               */
/* ------------------------------------------------------------------------------------------------ */

static int block_partition(block *b, int ncluster, int rate, sq_part_weights weights, const double *target,
                           sq_partition_stats *stats) {
  const int p = b->nranks;
  int *counts = NULL, *displs = NULL, *counts4 = NULL, *displs4 = NULL, *cluster = NULL, *part = NULL;
  int64_t *nb = NULL;
  int ierr = SQ_SUCCESS;
  SQ_CHECK(b->nglobal < INT_MAX / 4, SQ_ERR_INPUT, "partition: %lld cells exceed METIS's 32-bit indices",
           (long long)b->nglobal);
  if (b->rank == 0) {
    counts = calloc((size_t)p, sizeof(int)), displs = calloc((size_t)p, sizeof(int));
    counts4 = calloc((size_t)p, sizeof(int)), displs4 = calloc((size_t)p, sizeof(int));
    nb = malloc(sizeof(int64_t) * (size_t)(4 * b->nglobal + 1));
    cluster = malloc(sizeof(int) * (size_t)(b->nglobal + 1));
    part = malloc(sizeof(int) * (size_t)(b->nglobal + 1));
    if (!counts || !displs || !counts4 || !displs4 || !nb || !cluster || !part)
      ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__,
                      "out of memory gathering the dual graph of %lld cells on rank 0", (long long)b->nglobal);
    for (int r = 0; !ierr && r < p; ++r) {
      displs[r] = (int)block_begin(b->nglobal, p, r);
      counts[r] = (int)(block_begin(b->nglobal, p, r + 1) - displs[r]);
      displs4[r] = 4 * displs[r], counts4[r] = 4 * counts[r];
    }
  }
  ierr = agree(ierr);
  if (!ierr) {
    MPI_Gatherv(b->nb, (int)(4 * b->n), MPI_INT64_T, nb, counts4, displs4, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Gatherv(b->cluster, (int)b->n, MPI_INT, cluster, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (b->rank == 0)
      ierr = sq_partition_faces(b->nglobal, nb, cluster, ncluster, rate, p, weights, target, part, stats);
    free(nb), free(cluster);
    nb = NULL, cluster = NULL;
    ierr = agree(ierr);
  }
  if (!ierr) {
    MPI_Scatterv(part, counts, displs, MPI_INT, b->owner, (int)b->n, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(stats, (int)sizeof(*stats), MPI_BYTE, 0, MPI_COMM_WORLD);
  }
  free(counts), free(displs), free(counts4), free(displs4), free(part), free(nb), free(cluster);
  return ierr;
}

/* ------------------------------------------------------------------------------------------------ */
/* Redistribution                                                                                    */
/* ------------------------------------------------------------------------------------------------ */

typedef struct cell_rec {
  int64_t gid;
  int64_t vert[4]; /* global vertex ids */
  int64_t nb[4];   /* neighbours' global ids or -1 */
  int64_t surface_first;
  double x[12]; /* vertex coordinates */
  int32_t group, owner, cluster;
  int8_t bc[4], nbface[4], orient[4];
} cell_rec;

static int cmp_cell_rec(const void *pa, const void *pb) {
  const cell_rec *a = pa, *b = pb;
  return (a->gid > b->gid) - (a->gid < b->gid);
}

typedef struct vert_rec {
  int64_t gid;
  double x[3];
} vert_rec;

static int cmp_vert_rec(const void *pa, const void *pb) {
  const vert_rec *a = pa, *b = pb;
  return (a->gid > b->gid) - (a->gid < b->gid);
}

typedef struct vert_owner {
  int64_t gid;
  int32_t rank;
} vert_owner;

/* The rank hashing vertex @p v (for agreeing on its writer). */
static int vert_home(const block *b, int64_t v) { return block_owner(b->nvert_global, b->nranks, v); }

/* Lowest owning rank of each vertex, gathered at the vertex's home: @p writer[v - vbegin]. */
static int vertex_writers_home(const block *b, int **writer, int64_t *vbegin) {
  const int p = b->nranks;
  const sq_mesh *m = b->mesh;
  *vbegin = block_begin(b->nvert_global, p, b->rank);
  const int64_t nv = block_begin(b->nvert_global, p, b->rank + 1) - *vbegin;
  int *count = calloc((size_t)p, sizeof(int)), *fill = calloc((size_t)p, sizeof(int));
  vert_owner *send = malloc(sizeof(vert_owner) * (size_t)(4 * b->n + 1)), *recv = NULL;
  *writer = malloc(sizeof(int) * (size_t)(nv + 1));
  SQ_CHECK(count && fill && send && *writer, SQ_ERR_MEMORY, "out of memory");
  for (int64_t k = 0; k < 4 * b->n; ++k) count[vert_home(b, m->vert_global[m->cell_vert[k]])]++;
  for (int r = 1, o = count[0]; r < p; o += count[r++]) fill[r] = o;
  for (int64_t k = 0; k < 4 * b->n; ++k) {
    const int64_t v = m->vert_global[m->cell_vert[k]];
    send[fill[vert_home(b, v)]++] = (vert_owner){.gid = v, .rank = b->owner[k / 4]};
  }
  int64_t n = 0;
  const int ierr = exchange(send, count, sizeof(vert_owner), (void **)&recv, NULL, &n);
  for (int64_t v = 0; v < nv; ++v) (*writer)[v] = INT_MAX;
  for (int64_t i = 0; !ierr && i < n; ++i) {
    int *w = &(*writer)[recv[i].gid - *vbegin];
    if (recv[i].rank < *w) *w = recv[i].rank;
  }
  free(count), free(fill), free(send), free(recv);
  return ierr;
}

/* Vertices of /geometry that no cell uses, over all ranks (the whole-mesh reader drops them, which
 * renumbers the vertices: such files are read whole). */
static int unused_vertices(const block *b, int64_t *nunused) {
  const int p = b->nranks;
  const sq_mesh *m = b->mesh;
  const int64_t vbegin = block_begin(b->nvert_global, p, b->rank);
  const int64_t nv = block_begin(b->nvert_global, p, b->rank + 1) - vbegin;
  int *count = calloc((size_t)p, sizeof(int));
  char *used = calloc((size_t)(nv + 1), 1);
  SQ_CHECK(count && used, SQ_ERR_MEMORY, "out of memory");
  for (int64_t v = 0; v < m->nvert; ++v) count[vert_home(b, m->vert_global[v])]++; /* ascending: grouped */
  int64_t *recv = NULL, n = 0;
  const int ierr = exchange(m->vert_global, count, sizeof(int64_t), (void **)&recv, NULL, &n);
  for (int64_t i = 0; !ierr && i < n; ++i) used[recv[i] - vbegin] = 1;
  *nunused = 0;
  for (int64_t v = 0; v < nv; ++v) *nunused += !used[v];
  MPI_Allreduce(MPI_IN_PLACE, nunused, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  free(count), free(used), free(recv);
  return ierr;
}

/* Build this rank's part from the cells it received (sorted by global id). */
static int build_part(const block *b, cell_rec *cells, int64_t ncell, const int *home_writer, int64_t vbegin,
                      sq_mesh **out, int **cell_rank, int **cell_cluster) {
  const int p = b->nranks;
  vert_rec *vr = malloc(sizeof(vert_rec) * (size_t)(4 * ncell + 1));
  SQ_CHECK(vr, SQ_ERR_MEMORY, "out of memory");
  for (int64_t c = 0; c < ncell; ++c)
    for (int k = 0; k < 4; ++k) {
      vr[4 * c + k].gid = cells[c].vert[k];
      memcpy(vr[4 * c + k].x, &cells[c].x[3 * k], 3 * sizeof(double));
    }
  qsort(vr, (size_t)(4 * ncell), sizeof(vert_rec), cmp_vert_rec);
  int64_t nvert = 0;
  for (int64_t i = 0; i < 4 * ncell; ++i)
    if (nvert == 0 || vr[nvert - 1].gid != vr[i].gid) vr[nvert++] = vr[i];
  sq_mesh *m = NULL;
  int ierr = sq_mesh_alloc(nvert, ncell, &m);
  if (!ierr) ierr = SQ_CALLOC(m->global_id, ncell);
  if (!ierr) ierr = SQ_CALLOC(m->vert_global, nvert);
  if (!ierr) ierr = SQ_CALLOC(m->vert_writer, nvert);
  if (!ierr) ierr = SQ_CALLOC(m->surface_first, ncell);
  if (!ierr) ierr = SQ_CALLOC(*cell_rank, ncell > 0 ? ncell : 1);
  if (!ierr) ierr = SQ_CALLOC(*cell_cluster, ncell > 0 ? ncell : 1);
  if (ierr) {
    free(vr);
    sq_mesh_destroy(m);
    return ierr;
  }
  m->nglobal = b->nglobal;
  m->nvert_global = b->nvert_global;
  memcpy(m->source, b->mesh->source, sizeof m->source);
  for (int64_t v = 0; v < nvert; ++v) {
    m->vert_global[v] = vr[v].gid;
    memcpy(&m->vert[3 * v], vr[v].x, 3 * sizeof(double));
  }
  free(vr);
  for (int64_t c = 0; c < ncell; ++c) {
    const cell_rec *r = &cells[c];
    m->global_id[c] = r->gid;
    m->group[c] = r->group;
    m->surface_first[c] = r->surface_first;
    (*cell_rank)[c] = r->owner;
    (*cell_cluster)[c] = r->cluster;
    for (int k = 0; k < 4; ++k) {
      m->cell_vert[4 * c + k] = find_i64(m->vert_global, nvert, r->vert[k]);
      m->face_bc[4 * c + k] = r->bc[k];
    }
  }
  /* geometry as sq_mesh_finalize computes it (same vertices, same arithmetic), then the faces */
  ierr = sq_mesh_geometry(m);
  for (int64_t c = 0; !ierr && c < ncell; ++c)
    for (int k = 0; k < 4; ++k) {
      const int64_t nb = cells[c].nb[k] >= 0 ? find_i64(m->global_id, ncell, cells[c].nb[k]) : -1;
      m->face_neighbor[4 * c + k] = nb;
      m->face_nbface[4 * c + k] = nb >= 0 ? cells[c].nbface[k] : -1;
      m->face_orient[4 * c + k] = nb >= 0 ? cells[c].orient[k] : -1;
    }
  /* the bounding box of the whole mesh */
  if (!ierr) {
    MPI_Allreduce(MPI_IN_PLACE, m->bbox_lo, 3, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, m->bbox_hi, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  /* the writers of our vertices, from their homes */
  int *count = calloc((size_t)p, sizeof(int)), *rcount = calloc((size_t)p, sizeof(int));
  int64_t *ask = NULL, nask = 0;
  int *answer = NULL, *back = NULL;
  int64_t nback = 0;
  if (!ierr && (!count || !rcount)) ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory");
  if (!ierr) {
    for (int64_t v = 0; v < nvert; ++v) count[vert_home(b, m->vert_global[v])]++; /* ascending: grouped by home */
    ierr = exchange(m->vert_global, count, sizeof(int64_t), (void **)&ask, rcount, &nask);
  }
  if (!ierr) {
    answer = malloc(sizeof(int) * (size_t)(nask + 1));
    if (!answer) ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory");
    for (int64_t i = 0; !ierr && i < nask; ++i) answer[i] = home_writer[ask[i] - vbegin];
  }
  if (!ierr) ierr = exchange(answer, rcount, sizeof(int), (void **)&back, NULL, &nback);
  for (int64_t v = 0; !ierr && v < nvert; ++v) m->vert_writer[v] = back[v];
  free(count), free(rcount), free(ask), free(answer), free(back);
  if (ierr) {
    sq_mesh_destroy(m);
    return ierr;
  }
  *out = m;
  return SQ_SUCCESS;
}

/* Step 5: send the block's cells to their owners and, as ghosts, to their neighbours' owners. */
static int redistribute(block *b, sq_mesh **part, int **cell_rank, int **cell_cluster) {
  const int p = b->nranks;
  const sq_mesh *m = b->mesh;
  int *owner_halo = malloc(sizeof(int) * (size_t)(b->nhalo + 1));
  int *count = calloc((size_t)p, sizeof(int)), *fill = calloc((size_t)p, sizeof(int));
  SQ_CHECK(owner_halo && count && fill, SQ_ERR_MEMORY, "out of memory");
  int ierr = halo_ints(b, b->owner, owner_halo);
  /* destinations of each cell: its owner, then each other rank owning a face neighbour */
  int *dest = malloc(sizeof(int) * 5 * (size_t)(b->n + 1));
  if (!dest) ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory");
  int64_t nsend = 0;
  for (int64_t c = 0; !ierr && c < b->n; ++c) {
    int *d = &dest[5 * c], nd = 1;
    d[0] = b->owner[c];
    for (int k = 0; k < 4; ++k) {
      const int64_t nb = b->nb[4 * c + k];
      if (nb < 0) continue;
      const int o = nb >= b->begin && nb < b->begin + b->n ? b->owner[nb - b->begin]
                                                           : owner_halo[find_i64(b->halo, b->nhalo, nb)];
      int dup = 0;
      for (int i = 0; i < nd; ++i) dup |= d[i] == o;
      if (!dup) d[nd++] = o;
    }
    for (int i = nd; i < 5; ++i) d[i] = -1;
    for (int i = 0; i < nd; ++i) count[d[i]]++, ++nsend;
  }
  cell_rec *send = ierr ? NULL : malloc(sizeof(cell_rec) * (size_t)(nsend + 1));
  if (!ierr && !send) ierr = sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory");
  if (!ierr) {
    for (int r = 1, o = count[0]; r < p; o += count[r++]) fill[r] = o;
    for (int64_t c = 0; c < b->n; ++c) {
      cell_rec rec;
      memset(&rec, 0, sizeof rec);
      rec.gid = b->begin + c;
      rec.group = m->group[c];
      rec.owner = b->owner[c];
      rec.cluster = b->cluster[c];
      rec.surface_first = b->surface_first[c];
      for (int k = 0; k < 4; ++k) {
        const int64_t v = m->cell_vert[4 * c + k];
        rec.vert[k] = m->vert_global[v];
        memcpy(&rec.x[3 * k], &m->vert[3 * v], 3 * sizeof(double));
        rec.nb[k] = b->nb[4 * c + k];
        rec.bc[k] = m->face_bc[4 * c + k];
        rec.nbface[k] = b->nbface[4 * c + k];
        rec.orient[k] = b->orient[4 * c + k];
      }
      for (int i = 0; i < 5 && dest[5 * c + i] >= 0; ++i) send[fill[dest[5 * c + i]]++] = rec;
    }
  }
  free(dest), free(owner_halo), free(fill);
  int *home_writer = NULL;
  int64_t vbegin = 0;
  if (!ierr) ierr = vertex_writers_home(b, &home_writer, &vbegin);
  cell_rec *recv = NULL;
  int64_t nrecv = 0;
  if (!ierr) ierr = exchange(send, count, sizeof(cell_rec), (void **)&recv, NULL, &nrecv);
  free(send), free(count);
  if (!ierr) {
    qsort(recv, (size_t)nrecv, sizeof(cell_rec), cmp_cell_rec);
    ierr = build_part(b, recv, nrecv, home_writer, vbegin, part, cell_rank, cell_cluster);
  }
  free(recv), free(home_writer);
  return agree(ierr);
}

/* ------------------------------------------------------------------------------------------------ */

int sq_mesh_read_distributed(const sq_distmesh_input *in, int is_file, int rank, int nranks, sq_disc_options *opt,
                             sq_distmesh_part *out, int *done) {
  *done = 0;
  const int p = nranks, me = rank;
  if (p < 2 || !is_file || sq_mesh_format_from_path(in->mesh_file) != SQ_MESH_FORMAT_PUML) return SQ_SUCCESS;
  int64_t ncell = 0, nvert = 0;
  SQ_CALL(agree(sq_mesh_puml_size(in->mesh_file, &ncell, &nvert)));
  if (ncell < 4 * (int64_t)p) return SQ_SUCCESS; /* tiny mesh: read it whole */
  block b = {.rank = me, .nranks = p, .nglobal = ncell, .nvert_global = nvert};
  b.begin = block_begin(ncell, p, me);
  b.n = block_begin(ncell, p, me + 1) - b.begin;
  /* 1. the block, its geometry */
  sq_puml_part *pp = NULL;
  int ierr = sq_mesh_read_puml_range(in->mesh_file, b.begin, b.begin + b.n, &pp);
  if (!ierr) {
    b.mesh = pp->mesh, pp->mesh = NULL;
    b.mesh->vert_global = pp->vert_global, pp->vert_global = NULL;
    b.mesh->nvert_global = nvert;
    ierr = SQ_CALLOC(b.mesh->global_id, b.n);
    for (int64_t c = 0; !ierr && c < b.n; ++c) b.mesh->global_id[c] = b.begin + c;
  }
  sq_puml_part_destroy(pp);
  /* periodic faces are paired by coordinates across the whole boundary, and unused vertices renumber
   * the others: read such meshes whole */
  int periodic = 0;
  int64_t unused = 0;
  for (int64_t cf = 0; !ierr && cf < 4 * b.n; ++cf) periodic |= b.mesh->face_bc[cf] == SQ_BC_PERIODIC;
  ierr = agree(ierr);
  if (!ierr) MPI_Allreduce(MPI_IN_PLACE, &periodic, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!ierr) ierr = agree(unused_vertices(&b, &unused));
  if (ierr || periodic || unused) {
    block_free(&b);
    return ierr;
  }
  ierr = agree(sq_mesh_geometry(b.mesh));
  if (!ierr) {
    b.nb = malloc(sizeof(int64_t) * (size_t)(4 * b.n)), b.nbface = malloc((size_t)(4 * b.n));
    b.orient = malloc((size_t)(4 * b.n)), b.mat = malloc(sizeof(sq_material) * (size_t)b.n);
    b.cluster = malloc(sizeof(int) * (size_t)b.n), b.owner = malloc(sizeof(int) * (size_t)b.n);
    b.surface_first = malloc(sizeof(int64_t) * (size_t)b.n);
    ierr = agree(b.nb && b.nbface && b.orient && b.mat && b.cluster && b.owner && b.surface_first
                     ? SQ_SUCCESS
                     : sq_error(SQ_ERR_MEMORY, __FILE__, __LINE__, "out of memory reading %s", in->mesh_file));
  }
  /* 2. faces */
  if (!ierr) ierr = match_faces(&b);
  if (!ierr) ierr = agree(halo_plan(&b));
  /* rupture faces (each counted from both sides) and the free-surface numbering, in global order */
  int64_t nrupture = 0, nsurf = 0, before = 0;
  for (int64_t cf = 0; !ierr && cf < 4 * b.n; ++cf) {
    nrupture += b.mesh->face_bc[cf] == SQ_BC_RUPTURE && b.nb[cf] >= 0;
    if (cf % 4 == 0) b.surface_first[cf / 4] = nsurf;
    nsurf += b.mesh->face_bc[cf] == SQ_BC_FREE && b.nb[cf] < 0;
  }
  int64_t nsurface_global = nsurf;
  if (!ierr) {
    MPI_Allreduce(MPI_IN_PLACE, &nrupture, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&nsurf, &before, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) before = 0;
    MPI_Allreduce(MPI_IN_PLACE, &nsurface_global, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    for (int64_t c = 0; c < b.n; ++c) b.surface_first[c] += before;
    ierr = agree(in->check_rupture(in->ctx, b.mesh->source, nrupture / 2));
  }
  /* 3. materials and clusters */
  for (int64_t c = 0; !ierr && c < b.n; ++c)
    b.mat[c] = in->material_at(in->ctx, &b.mesh->centroid[3 * c], b.mesh->group[c]);
  int ncluster = 1;
  double dt_min = 0;
  if (!ierr) ierr = agree(block_clusters(&b, opt, &ncluster, &dt_min));
  /* 4. partition */
  if (!ierr)
    ierr = block_partition(&b, ncluster, opt->lts_rate > 1 ? opt->lts_rate : 1, in->partition, in->target,
                           &out->part_stats);
  /* 5. the parts */
  sq_mesh *part = NULL;
  int *cell_rank = NULL, *cell_cluster = NULL;
  if (!ierr) ierr = redistribute(&b, &part, &cell_rank, &cell_cluster);
  block_free(&b);
  if (ierr) {
    sq_mesh_destroy(part);
    SQ_FREE(cell_rank);
    SQ_FREE(cell_cluster);
    return ierr;
  }
  part->nsurface_global = nsurface_global;
  out->mesh = part;
  out->cell_rank = cell_rank;
  out->cell_cluster = cell_cluster;
  ierr = SQ_CALLOC(out->cell_material, part->ncell > 0 ? part->ncell : 1);
  for (int64_t c = 0; !ierr && c < part->ncell; ++c)
    out->cell_material[c] = in->material_at(in->ctx, &part->centroid[3 * c], part->group[c]);
  SQ_CALL(agree(ierr));
  opt->cell_rank = out->cell_rank;
  opt->cell_cluster = out->cell_cluster;
  opt->ncluster = ncluster;
  opt->dt_min = dt_min;
  *done = 1;
  return SQ_SUCCESS;
}
