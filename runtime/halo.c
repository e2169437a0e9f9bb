/**
 * @file halo.c  Halo exchange as data flow (thesis §4.4): copy-layer data is gathered per
 * (cluster, peer rank, chunk) by a `halo_pack` task and sent with starpu_mpi_isend_detached; ghost
 * tiles receive with starpu_mpi_irecv_detached.  Neighbour tasks read the ghost handles, so StarPU
 * overlaps the communication with interior work on its own.  Both sides derive the same chunks
 * from the partition (cells sorted by global id, cut by the tile size), so no set-up messages are
 * needed.
 */
#include <starpu_mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sq_runtime_impl.h"

/** One message's worth of copy elements for one peer. */
typedef struct sq_halo_chunk {
  int peer, cluster, index; /**< index: chunk number within (cluster, peer) -> message tag */
  int kinds;                /**< SQ_GHOST_* the peer reads */
  int64_t n;
  int64_t *elem; /**< local element indices, ascending global id */
  int ntile;     /**< copy tiles holding them */
  int *tile;
  int32_t *map;  /**< per element: slot in `tile`, index within that tile */
  void *buf[3];  /**< send buffers per kind (tint, buffer, derivs), whole pages */
  int pinned[3]; /**< 1 where buf[k] is page-locked (GPU workers present) */
  starpu_data_handle_t handle[3];
} sq_halo_chunk;

struct sq_halo {
  int nchunk;
  sq_halo_chunk *chunk;
};

static int kind_index(int kind) { return kind == SQ_GHOST_TINT ? 0 : kind == SQ_GHOST_BUFFER ? 1 : 2; }

static starpu_mpi_tag_t halo_tag(int cluster, int kind, int index) {
  return ((starpu_mpi_tag_t)(cluster * 3 + kind_index(kind)) << 20) | (starpu_mpi_tag_t)index;
}

/* (kinds mask, cell): the order of the receiver's ghost cells (src/solver.c build_tiles) */
static int cmp_kind_cell(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  if (x[0] != y[0]) return (x[0] > y[0]) - (x[0] < y[0]);
  return (x[1] > y[1]) - (x[1] < y[1]);
}

int sq_halo_create(sq_runtime *rt) {
  sq_disc *d = rt->disc;
  const sq_mesh *m = d->mesh;
  struct sq_halo *h;
  SQ_CALL(SQ_CALLOC(h, 1));
  rt->halo = h;
  if (!d->opt.cell_rank || d->opt.nranks < 2) return SQ_SUCCESS;
  const int me = d->opt.rank, ts = d->opt.tile_size;
  int *tile_of;
  SQ_CALL(SQ_CALLOC(tile_of, d->nelem > 0 ? d->nelem : 1));
  for (int t = 0; t < d->ntile; ++t)
    for (int64_t e = d->tile[t].begin; e < d->tile[t].end; ++e) tile_of[e] = t;
  int64_t *cells, *kinds;
  SQ_CALL(SQ_CALLOC(cells, 2 * (d->nelem + 1)));
  SQ_CALL(SQ_CALLOC(kinds, m->ncell));
  int cap = 16;
  SQ_CALL(SQ_CALLOC(h->chunk, cap));
  for (int l = 0; l < d->ncluster; ++l)
    for (int peer = 0; peer < d->opt.nranks; ++peer) {
      if (peer == me) continue;
      int64_t n = 0;
      for (int64_t e = 0; e < d->nelem; ++e) {
        const int64_t c = d->cell_of[e];
        if (d->is_ghost[e] || d->cluster[c] != l) continue;
        int k = 0;
        for (int f = 0; f < 4; ++f) {
          const int64_t nb = m->face_neighbor[c * 4 + f];
          if (nb < 0 || d->opt.cell_rank[nb] != peer) continue;
          /* a rupture face reads both sides' derivatives (the fault is solved on both ranks) */
          k |= sq_disc_is_rupture_face(d, c, f) ? SQ_GHOST_DERIVS : sq_halo_kind(l, d->cluster[nb]);
        }
        if (k) cells[2 * n] = k, cells[2 * n + 1] = c, kinds[c] = k, ++n;
      }
      /* one message per receiver ghost tile: grouped by kinds mask, then by global id (= local cell
       * order), cut by the tile size; a message carries a kind only for the cells that need it */
      qsort(cells, n, 2 * sizeof(int64_t), cmp_kind_cell);
      for (int64_t i = 0; i < n; ++i) cells[i] = cells[2 * i + 1];
      for (int64_t b = 0, idx = 0; b < n; ++idx) {
        if (h->nchunk == cap) {
          sq_halo_chunk *grown;
          SQ_CALL(SQ_CALLOC(grown, 2 * cap));
          memcpy(grown, h->chunk, sizeof(*grown) * cap);
          SQ_FREE(h->chunk);
          h->chunk = grown;
          cap *= 2;
        }
        sq_halo_chunk *ch = &h->chunk[h->nchunk++];
        ch->peer = peer, ch->cluster = l, ch->index = (int)idx;
        int64_t group_end = b; /* the end of this kinds group */
        while (group_end < n && kinds[cells[group_end]] == kinds[cells[b]]) ++group_end;
        ch->n = group_end - b < ts ? group_end - b : ts;
        SQ_CALL(SQ_CALLOC(ch->elem, ch->n));
        SQ_CALL(SQ_CALLOC(ch->map, 2 * ch->n));
        SQ_CALL(SQ_CALLOC(ch->tile, ch->n));
        for (int64_t i = 0; i < ch->n; ++i) {
          const int64_t c = cells[b + i], e = d->elem_of[c];
          ch->elem[i] = e;
          ch->kinds |= kinds[c];
          const int t = tile_of[e];
          int slot = 0;
          while (slot < ch->ntile && ch->tile[slot] != t) ++slot;
          if (slot == ch->ntile) ch->tile[ch->ntile++] = t;
          ch->map[2 * i] = slot;
          ch->map[2 * i + 1] = (int32_t)(e - d->tile[t].begin);
        }
        /* every copy tile holding part of the message must keep the data kinds the peer reads */
        for (int s = 0; s < ch->ntile; ++s) {
          sq_tile *ct = &d->tile[ch->tile[s]];
          if (ch->kinds & SQ_GHOST_DERIVS) ct->needs_derivs = 1;
          if (ch->kinds & SQ_GHOST_BUFFER) ct->needs_buffer = 1;
        }
        const size_t eb = sq_disc_elem_bytes(d);
        for (int k = 0; k < 3; ++k) {
          const int kind = 1 << k;
          if (!(ch->kinds & kind)) continue;
          const size_t bytes = eb * (kind == SQ_GHOST_DERIVS ? d->opt.order : 1);
          /* whole pages, so that page-locking one buffer never overlaps another */
          const size_t page = 4096, total = ((size_t)ch->n * bytes + page - 1) / page * page;
          SQ_CHECK(posix_memalign(&ch->buf[k], page, total) == 0, SQ_ERR_MEMORY,
                   "out of memory for a halo buffer of %zu bytes", total);
          memset(ch->buf[k], 0, total);
          ch->pinned[k] = sq_host_pin(ch->buf[k], total);
          starpu_vector_data_register(&ch->handle[k], STARPU_MAIN_RAM, (uintptr_t)ch->buf[k], (uint32_t)ch->n, bytes);
        }
        b += ch->n;
      }
    }
  SQ_FREE(cells);
  SQ_FREE(kinds);
  SQ_FREE(tile_of);
  return SQ_SUCCESS;
}

void sq_halo_bytes(const sq_runtime *rt, double *sent, double *sent_unsplit) {
  const struct sq_halo *h = rt->halo;
  const sq_disc *d = rt->disc;
  *sent = *sent_unsplit = 0;
  if (!h) return;
  const double eb = (double)sq_disc_elem_bytes(d);
  /* sent_unsplit: every cell of a (cluster, peer) group carrying every kind any of them needs */
  for (int i = 0; i < h->nchunk;) {
    int j = i, kinds = 0;
    double n = 0;
    for (; j < h->nchunk && h->chunk[j].cluster == h->chunk[i].cluster && h->chunk[j].peer == h->chunk[i].peer; ++j)
      kinds |= h->chunk[j].kinds, n += (double)h->chunk[j].n;
    for (int k = i; k < j; ++k)
      for (int kind = 1; kind <= 4; kind <<= 1)
        if (h->chunk[k].kinds & kind)
          *sent += (double)h->chunk[k].n * eb * (kind == SQ_GHOST_DERIVS ? d->opt.order : 1);
    for (int kind = 1; kind <= 4; kind <<= 1)
      if (kinds & kind) *sent_unsplit += n * eb * (kind == SQ_GHOST_DERIVS ? d->opt.order : 1);
    i = j;
  }
}

void sq_halo_destroy(sq_runtime *rt) {
  struct sq_halo *h = rt->halo;
  if (!h) return;
  for (int i = 0; i < h->nchunk; ++i) {
    sq_halo_chunk *ch = &h->chunk[i];
    for (int k = 0; k < 3; ++k)
      if (ch->buf[k]) {
        starpu_data_unregister(ch->handle[k]);
        if (ch->pinned[k]) starpu_memory_unpin(ch->buf[k], 0);
        SQ_FREE(ch->buf[k]);
      }
    SQ_FREE(ch->elem);
    SQ_FREE(ch->map);
    SQ_FREE(ch->tile);
  }
  SQ_FREE(h->chunk);
  SQ_FREE(rt->halo);
}

/* ------------------------------------------------------------------------ halo_pack codelet */

typedef struct pack_args {
  int64_t n;
  size_t bytes;  /* per element */
  int32_t map[]; /* 2 n: slot, index */
} pack_args;

static void pack_cpu(void *buffers[], void *cl_arg) {
  const pack_args *a = cl_arg;
  char *out = (char *)STARPU_VECTOR_GET_PTR(buffers[0]);
  for (int64_t i = 0; i < a->n; ++i) {
    const char *src = (const char *)STARPU_VECTOR_GET_PTR(buffers[1 + a->map[2 * i]]);
    memcpy(out + i * a->bytes, src + (size_t)a->map[2 * i + 1] * a->bytes, a->bytes);
  }
}

#ifdef SQ_USE_CUDA
/* The same rows, copied on the GPU where the copy tiles live; StarPU-MPI then stages the message to
 * the host for MPI (Open MPI here is not CUDA-aware), and the ghost tiles travel up when a GPU reads them. */
static void pack_cuda(void *buffers[], void *cl_arg) {
  const pack_args *a = cl_arg;
  char *out = (char *)STARPU_VECTOR_GET_PTR(buffers[0]);
  cudaStream_t stream = starpu_cuda_get_local_stream();
  for (int64_t i = 0; i < a->n;) {
    int64_t j = i + 1; /* consecutive rows of one tile move in one copy */
    while (j < a->n && a->map[2 * j] == a->map[2 * i] && a->map[2 * j + 1] == a->map[2 * j - 1] + 1) ++j;
    const char *src =
        (const char *)STARPU_VECTOR_GET_PTR(buffers[1 + a->map[2 * i]]) + (size_t)a->map[2 * i + 1] * a->bytes;
    const cudaError_t err =
        cudaMemcpyAsync(out + i * a->bytes, src, (size_t)(j - i) * a->bytes, cudaMemcpyDeviceToDevice, stream);
    if (err != cudaSuccess) {
      fprintf(stderr, "starquake: halo packing on the GPU failed: %s\n", cudaGetErrorString(err));
      abort();
    }
    i = j;
  }
}
#endif

static struct starpu_perfmodel pack_model = {.type = STARPU_HISTORY_BASED, .symbol = "sq_halo_pack"};

static struct starpu_codelet pack_cl = {
    .cpu_funcs = {pack_cpu},
    .cpu_funcs_name = {"pack_cpu"},
#ifdef SQ_USE_CUDA
    .cuda_funcs = {pack_cuda},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &pack_model,
    .name = "sq_halo_pack",
};

static starpu_data_handle_t tile_handle(const sq_runtime *rt, int tile, int kind) {
  return kind == SQ_GHOST_TINT ? rt->tint[tile] : kind == SQ_GHOST_BUFFER ? rt->buffer[tile] : rt->derivs[tile];
}

static int pack_and_send(sq_runtime *rt, sq_halo_chunk *ch, int kind) {
  const sq_disc *d = rt->disc;
  const size_t args_size = sizeof(pack_args) + 2 * sizeof(int32_t) * ch->n;
  pack_args *a = malloc(args_size);
  struct starpu_data_descr *descr = malloc(sizeof(*descr) * (1 + ch->ntile));
  SQ_CHECK(a && descr, SQ_ERR_MEMORY, "out of memory");
  a->n = ch->n;
  a->bytes = sq_disc_elem_bytes(d) * (kind == SQ_GHOST_DERIVS ? d->opt.order : 1);
  memcpy(a->map, ch->map, 2 * sizeof(int32_t) * ch->n);
  const int k = kind_index(kind);
  descr[0] = (struct starpu_data_descr){ch->handle[k], STARPU_W};
  for (int s = 0; s < ch->ntile; ++s) {
    starpu_data_handle_t h = tile_handle(rt, ch->tile[s], kind);
    SQ_CHECK(h, SQ_ERR_INTERNAL, "copy tile %d lacks the data rank %d needs", ch->tile[s], ch->peer);
    descr[1 + s] = (struct starpu_data_descr){h, STARPU_R};
  }
  int ret =
      starpu_task_insert(&pack_cl, STARPU_CL_ARGS, a, args_size, STARPU_PRIORITY, STARPU_MAX_PRIO,
                         SQ_PROFILE(rt, SQ_TASK_HALO, ch->tile[0]), STARPU_DATA_MODE_ARRAY, descr, 1 + ch->ntile, 0);
  free(descr);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "inserting halo_pack task failed (%d)", ret);
  ret = starpu_mpi_isend_detached(ch->handle[k], ch->peer, halo_tag(ch->cluster, kind, ch->index), MPI_COMM_WORLD, NULL,
                                  NULL);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_mpi_isend_detached to rank %d failed (%d)", ch->peer, ret);
  return SQ_SUCCESS;
}

int sq_halo_exchange(sq_runtime *rt, int cluster, int kinds) {
  struct sq_halo *h = rt->halo;
  const sq_disc *d = rt->disc;
  if (!h || d->opt.nranks < 2) return SQ_SUCCESS;
  for (int i = 0; i < h->nchunk; ++i) {
    sq_halo_chunk *ch = &h->chunk[i];
    if (ch->cluster != cluster) continue;
    for (int kind = 1; kind <= 4; kind <<= 1)
      if (ch->kinds & kinds & kind) SQ_CALL(pack_and_send(rt, ch, kind));
  }
  /* ghost tiles of this cluster, one message per tile and kind, numbered per (cluster, peer) */
  int index[256] = {0};
  SQ_CHECK(d->opt.nranks <= 256, SQ_ERR_INPUT, "at most 256 ranks are supported (got %d)", d->opt.nranks);
  for (int t = 0; t < d->ntile; ++t) {
    const sq_tile *tl = &d->tile[t];
    if (tl->layer != SQ_LAYER_GHOST || tl->cluster != cluster) continue;
    const int idx = index[tl->peer]++;
    for (int kind = 1; kind <= 4; kind <<= 1) {
      if (!(tl->ghost_kinds & kinds & kind)) continue;
      const int ret = starpu_mpi_irecv_detached(tile_handle(rt, t, kind), tl->peer, halo_tag(cluster, kind, idx),
                                                MPI_COMM_WORLD, NULL, NULL);
      SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "starpu_mpi_irecv_detached from rank %d failed (%d)", tl->peer, ret);
    }
  }
  return SQ_SUCCESS;
}
