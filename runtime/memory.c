/**
 * @file memory.c  Memory for GPUs: what the GPUs offer, page-locking the host ranges that cross PCIe often,
 * the upload of each tile's data to the GPU its tasks run on before the time stepping (and of the kernels the
 * tiles select), and the row staging of the tasks that touch a few elements of a tile that stays on the GPU.
 */
#include <stdlib.h>

#include "sq_runtime_impl.h"
#ifdef SQ_USE_CUDA
#include "sq_cuda.h"
#endif

int sq_runtime_gpu_workers(void) { return (int)starpu_cuda_worker_get_count(); }

double sq_runtime_gpu_memory(int *ngpu) {
  double total = 0;
  *ngpu = 0;
  for (unsigned node = 0; node < starpu_memory_nodes_get_count(); ++node) {
    if (starpu_node_get_kind(node) != STARPU_CUDA_RAM) continue;
    const starpu_ssize_t mem = starpu_memory_get_total(node);
    if (mem > 0) total += (double)mem, ++*ngpu;
  }
  return total;
}

int sq_host_pin(void *ptr, size_t bytes) {
  /* pageable copies to and from a GPU are synchronous and staged through a bounce buffer: the data
   * that crosses PCIe often (halo rows, the solution) is page-locked instead */
  if (starpu_cuda_worker_get_count() == 0 || bytes == 0) return 0;
  return starpu_memory_pin(ptr, bytes) == 0;
}

/* The memory node of GPU g as sq_runtime_place_tiles_on_gpus numbers them, -1 if there is no such GPU. */
static int gpu_node(int g) {
  int worker[STARPU_NMAXWORKERS];
  return g >= 0 && g < sq_runtime_cuda_devices(NULL, worker) ? (int)starpu_worker_get_memory_node((unsigned)worker[g])
                                                             : -1;
}

int sq_runtime_tile_node(const sq_runtime *rt, int tile) {
  if (starpu_cuda_worker_get_count() == 0) return -1;
  if (rt->tile_where && rt->tile_where[tile] != STARPU_CUDA) return -1; /* CPU workers, or a ghost tile */
  if (rt->tile_gpu) return rt->tile_gpu[tile] >= 0 ? gpu_node(rt->tile_gpu[tile]) : -1;
  /* no placement: known only where every element task runs on the one GPU */
  if (!rt->tile_where && starpu_cpu_worker_get_count() > 0) return -1;
  return gpu_node(1) < 0 ? gpu_node(0) : -1;
}

/* The room made for one output handle on one node: released as soon as StarPU has allocated it. */
typedef struct room {
  starpu_data_handle_t handle;
  int node;
} room;

static void room_made(void *arg) {
  room *r = arg;
  starpu_data_release_on_node(r->handle, r->node);
  free(r);
}

/* Room for @p h on @p node without a copy: a write-only access there (allocates, reads nothing); the host
 * copy is then stale, which is what the first task's write-only access would make it anyway. */
static int make_room(starpu_data_handle_t h, int node, int tile) {
  room *r = malloc(sizeof(*r));
  SQ_CHECK(r, SQ_ERR_MEMORY, "out of memory");
  *r = (room){h, node};
  const int ret = starpu_data_acquire_on_node_cb(h, node, STARPU_W, room_made, r);
  if (ret) free(r);
  SQ_CHECK(ret == 0, SQ_ERR_RUNTIME, "room for tile %d's outputs on memory node %d failed (%d)", tile, node, ret);
  return SQ_SUCCESS;
}

/* A tile's inputs and outputs (NULL handles: none), and their bytes. */
static void tile_handles(const sq_runtime *rt, int t, starpu_data_handle_t in[7], starpu_data_handle_t out[3],
                         double bytes[2]) {
  starpu_data_handle_t i[7] = {rt->dofs[t], rt->star[t], rt->flux_local[t], rt->flux_nb[t],
                               rt->link[t], rt->ane[t],  rt->ane_coef[t]};
  /* a second time-integral array (sq_runtime_double_tint) has no home: its room is made where it is first written */
  starpu_data_handle_t o[3] = {rt->tint[t], rt->derivs[t], rt->buffer[t]};
  bytes[0] = bytes[1] = 0;
  for (int k = 0; k < 7; ++k) in[k] = i[k], bytes[0] += i[k] ? (double)starpu_data_get_size(i[k]) : 0;
  for (int k = 0; k < 3; ++k) out[k] = o[k], bytes[1] += o[k] ? (double)starpu_data_get_size(o[k]) : 0;
}

int sq_runtime_upload_tile(sq_runtime *rt, int t, int node, int outputs, sq_upload_stats *st) {
  starpu_data_handle_t in[7], out[3];
  double bytes[2];
  tile_handles(rt, t, in, out, bytes);
  /* what the tasks read before they write it: the solution, the element matrices, the face links */
  for (int k = 0; k < 7; ++k)
    if (in[k])
      SQ_CHECK(starpu_data_prefetch_on_node(in[k], (unsigned)node, 1) == 0, SQ_ERR_RUNTIME,
               "prefetch of tile %d's data to memory node %d failed", t, node);
  st->input_bytes += bytes[0];
  /* what every task graph writes before it reads it (time integral, derivatives, LTS buffer: the predictor's
   * STARPU_W): room only, nothing crosses the bus */
  for (int k = 0; k < 3 && outputs; ++k)
    if (out[k]) SQ_CALL(make_room(out[k], node, t));
  st->output_bytes += outputs ? bytes[1] : 0;
  st->tiles++;
  return SQ_SUCCESS;
}

/* Tile @p t's arrays, indexed as read_by_neighbour returns them: time integrals, their second array
 * (sq_runtime_double_tint), derivatives, LTS buffer (NULL: none). */
enum { TINT, TINT_ALT, DERIVS, BUFFER, NARRAYS };
static void tile_arrays(const sq_runtime *rt, int t, starpu_data_handle_t a[NARRAYS]) {
  a[TINT] = rt->tint[t];
  a[TINT_ALT] = rt->tint_alt ? rt->tint_alt[t] : NULL;
  a[DERIVS] = rt->derivs[t];
  a[BUFFER] = rt->buffer[t];
}

/* The arrays of tile @p nt that its neighbour tile @p r reads, as the neighbour tasks choose them
 * (sq_neighbour_reads; of a tile of r's cluster both time-integral arrays): their indices in tile_arrays, in
 * @p k.  Returns how many (at most 2). */
static int read_by_neighbour(const sq_runtime *rt, int r, int nt, int k[2]) {
  switch (sq_neighbour_reads(rt->disc->tile[r].cluster, rt->disc->tile[nt].cluster)) {
  case SQ_READS_TINT: k[0] = TINT, k[1] = TINT_ALT; return 2;
  case SQ_READS_DERIVS: k[0] = DERIVS; return 1;
  case SQ_READS_BUFFER: k[0] = BUFFER; return 1;
  }
  return 0;
}

/* Room on the other GPUs whose tiles read tile @p t's outputs (read_by_neighbour; @p only: that array alone, NULL:
 * all), where @p fits has SQ_FITS_COPIES, with @p make (their bytes added to @p bytes); else only their bytes added to
 * @p need.  Without it, StarPU allocates each such copy when its first reader fetches it, in the reading GPU's worker
 * thread, which then neither completes nor starts that GPU's tasks: the first sync interval on four GPUs took twice as
 * long. */
static int replica_rooms(const sq_runtime *rt, int t, starpu_data_handle_t only, const unsigned char *fits,
                         double *need, int make, double *bytes) {
  const sq_disc *d = rt->disc;
  const int home = d->tile[t].layer != SQ_LAYER_GHOST ? sq_runtime_tile_node(rt, t) : -1;
  if (home < 0) return SQ_SUCCESS;
  uint64_t done[NARRAYS] = {0}; /* per array, the nodes it has room on */
  const int max_node = (int)(8 * sizeof(done[0]));
  starpu_data_handle_t arrays[NARRAYS];
  tile_arrays(rt, t, arrays);
  for (int k = 0; k < d->tile[t].nneighbor; ++k) {
    const int r = d->tile[t].neighbor[k];
    const int node = r != t && d->tile[r].layer != SQ_LAYER_GHOST ? sq_runtime_tile_node(rt, r) : -1;
    if (node < 0 || node == home || node >= max_node) continue;
    int idx[2];
    const int n = read_by_neighbour(rt, r, t, idx);
    for (int i = 0; i < n; ++i) {
      const int a = idx[i];
      const starpu_data_handle_t h = arrays[a];
      if (!h || (only && h != only) || (done[a] >> node & 1)) continue;
      done[a] |= 1ull << node;
      const double b = (double)starpu_data_get_size(h);
      if (!make) {
        need[node] += b;
      } else if (fits[node] & SQ_FITS_COPIES) {
        SQ_CALL(make_room(h, node, t));
        *bytes += b;
      }
    }
  }
  return SQ_SUCCESS;
}

#ifdef SQ_USE_CUDA
/* The kernels a run's GPU tiles select, loaded on each CUDA worker's GPU (sq_cuda_load_kernels). */
typedef struct kernel_load {
  sq_precision precision;
  int order, nsize;
  int64_t *sizes;
} kernel_load;

/* Per CUDA worker: two more streams of its GPU, at its highest priority (what a task runs there is on the chain that
 * LTS waits on: its blocks go before those of the other streams' kernels), and an event that orders one stream after
 * another (sq_cuda_stream_follow).  Made by each worker's thread at an upload, where it has none; destroyed with the
 * last runtime that made them (sq_runtime_destroy, before StarPU's shutdown resets the GPUs).  A worker whose streams
 * could not be made has none, and its tasks keep to their own stream. */
typedef struct side_streams {
  cudaStream_t stream[SQ_CUDA_SIDE_STREAMS];
  cudaEvent_t order;
} side_streams;
static side_streams side[STARPU_NMAXWORKERS];
static int side_users; /* the runtimes whose upload made side streams or found them */

static void destroy_side(side_streams *s) {
  if (s->order) cudaEventDestroy(s->order);
  for (int k = 0; k < SQ_CUDA_SIDE_STREAMS; ++k)
    if (s->stream[k]) cudaStreamDestroy(s->stream[k]);
  *s = (side_streams){0};
}

static void make_side_streams(void) {
  const int w = starpu_worker_get_id();
  if (w < 0 || side[w].order) return;
  side_streams s = {0};
  int lo = 0, hi = 0; /* the highest priority is the lowest number */
  if (cudaDeviceGetStreamPriorityRange(&lo, &hi) != cudaSuccess) hi = 0;
  int ok = cudaEventCreateWithFlags(&s.order, cudaEventDisableTiming) == cudaSuccess;
  for (int k = 0; k < SQ_CUDA_SIDE_STREAMS && ok; ++k)
    ok = cudaStreamCreateWithPriority(&s.stream[k], cudaStreamNonBlocking, hi) == cudaSuccess;
  if (ok) {
    side[w] = s;
    return;
  }
  (void)cudaGetLastError(); /* not left for a kernel's launch check to find */
  destroy_side(&s);
}

static void destroy_side_streams(void *arg) {
  (void)arg;
  const int w = starpu_worker_get_id();
  if (w >= 0) destroy_side(&side[w]);
}

void sq_runtime_side_release(sq_runtime *rt) {
  if (!rt->side_user) return;
  rt->side_user = 0;
  if (--side_users == 0) starpu_execute_on_each_worker(destroy_side_streams, NULL, STARPU_CUDA);
}

cudaStream_t sq_cuda_side_stream(int k) {
  const int w = starpu_worker_get_id();
  return w >= 0 && k >= 0 && k < SQ_CUDA_SIDE_STREAMS ? side[w].stream[k] : NULL;
}

void sq_cuda_stream_follow(cudaStream_t waiter, cudaStream_t waited) {
  const int w = starpu_worker_get_id();
  /* one event serves every pair: a wait takes the record made before it, whatever is recorded later */
  cudaError_t err = w >= 0 && side[w].order ? cudaEventRecord(side[w].order, waited) : cudaErrorInvalidValue;
  if (err == cudaSuccess) err = cudaStreamWaitEvent(waiter, side[w].order, 0);
  if (err == cudaSuccess) return;
  fprintf(stderr, "starquake: ordering a task's two streams failed: %s\n", cudaGetErrorString(err));
  abort();
}

static void load_kernels(void *arg) {
  const kernel_load *k = arg;
  sq_cuda_load_kernels(k->precision, k->order, k->sizes, k->nsize);
  make_side_streams();
}

/* Load on every GPU the element kernels that the sizes of the tiles on GPUs select, before the first task: CUDA
 * loads a kernel at its first launch, else, in the driver thread of the GPU that launches it, which meanwhile
 * neither ends nor starts that GPU's tasks (docs/PERFORMANCE.md, "Start-up").  With several workers per GPU each
 * loads; the later ones find the kernels loaded.  Each worker also makes its side streams here. */
static int load_gpu_kernels(sq_runtime *rt) {
  const sq_disc *d = rt->disc;
  if (starpu_cuda_worker_get_count() == 0) return SQ_SUCCESS;
  kernel_load k = {.precision = d->opt.precision, .order = d->opt.order};
  SQ_CALL(SQ_CALLOC(k.sizes, d->ntile > 0 ? d->ntile : 1));
  for (int t = 0; t < d->ntile; ++t) {
    if (d->tile[t].layer == SQ_LAYER_GHOST || sq_runtime_tile_node(rt, t) < 0) continue;
    const int64_t n = d->tile[t].end - d->tile[t].begin;
    int i = 0;
    while (i < k.nsize && k.sizes[i] != n) ++i;
    if (i == k.nsize) k.sizes[k.nsize++] = n;
  }
  if (k.nsize > 0) starpu_execute_on_each_worker(load_kernels, &k, STARPU_CUDA);
  if (k.nsize > 0 && !rt->side_user) rt->side_user = 1, ++side_users;
  SQ_FREE(k.sizes);
  return SQ_SUCCESS;
}
#endif

int sq_runtime_upload(sq_runtime *rt, sq_upload_stats *stats) {
  const sq_disc *d = rt->disc;
  sq_upload_stats st = {0};
  unsigned char pack_sent[STARPU_MAXNODES] = {0}, fits[STARPU_MAXNODES] = {0};
  /* what each GPU would hold: its own tiles' bytes, and those of its copies of the other GPUs' tiles it reads */
  double need[STARPU_MAXNODES] = {0}, copies[STARPU_MAXNODES] = {0};
  for (int t = 0; t < d->ntile; ++t) {
    const int node = d->tile[t].layer != SQ_LAYER_GHOST ? sq_runtime_tile_node(rt, t) : -1;
    if (node < 0) continue;
    starpu_data_handle_t in[7], out[3];
    double bytes[2];
    tile_handles(rt, t, in, out, bytes);
    need[node] += bytes[0] + bytes[1];
    SQ_CALL(replica_rooms(rt, t, NULL, fits, copies, 0, NULL));
  }
  /* only where everything fits with a margin: else StarPU's own eviction decides what stays, as the tasks come;
   * the copies only where they fit too */
  for (unsigned node = 0; node < starpu_memory_nodes_get_count() && node < STARPU_MAXNODES; ++node) {
    const double room = 0.9 * (double)starpu_memory_get_total(node);
    if (need[node] > 0 && need[node] < room) fits[node] = SQ_FITS_OWN;
    if (fits[node] && need[node] + copies[node] < room) fits[node] |= SQ_FITS_COPIES;
  }
  /* room for the copies on the reading GPUs first, for the tile's own outputs on its GPU last: the copy there
   * stays the valid one */
  for (int t = 0; t < d->ntile; ++t) SQ_CALL(replica_rooms(rt, t, NULL, fits, need, 1, &st.replica_bytes));
  for (unsigned node = 0; node < STARPU_MAXNODES; ++node) rt->upload_fits[node] = fits[node];
  /* the faster clusters first: their tasks come first (the graph's priorities) and most often */
  for (int l = 0; l < d->ncluster; ++l)
    for (int t = 0; t < d->ntile; ++t) {
      const sq_tile *tl = &d->tile[t];
      const int node = tl->cluster == l && tl->layer != SQ_LAYER_GHOST ? sq_runtime_tile_node(rt, t) : -1;
      if (node < 0 || !(fits[node] & SQ_FITS_OWN)) continue;
      if (!pack_sent[node]) {
        pack_sent[node] = 1;
        SQ_CHECK(starpu_data_prefetch_on_node(rt->pack, (unsigned)node, 1) == 0, SQ_ERR_RUNTIME,
                 "prefetch of the reference matrices to memory node %d failed", node);
        st.input_bytes += (double)d->pack_bytes;
      }
      SQ_CALL(sq_runtime_upload_tile(rt, t, node, 1, &st));
    }
#ifdef SQ_USE_CUDA
  SQ_CALL(load_gpu_kernels(rt));
#endif
  if (stats) *stats = st;
  return SQ_SUCCESS;
}

#ifdef SQ_USE_CUDA
void sq_cuda_stage_rows(int to_device, void *dev, void *host, size_t row_bytes, int ne, const int32_t *elems,
                        cudaStream_t stream) {
  for (int j = 0; j < ne;) {
    int k = j + 1; /* a run of consecutive elements moves in one copy */
    while (k < ne && elems[k] == elems[k - 1] + 1) ++k;
    char *d = (char *)dev + (size_t)elems[j] * row_bytes, *h = (char *)host + (size_t)j * row_bytes;
    const size_t bytes = (size_t)(k - j) * row_bytes;
    const cudaError_t err = to_device ? cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, stream)
                                      : cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, stream);
    if (err != cudaSuccess) {
      fprintf(stderr, "starquake: CUDA copy of %zu bytes failed: %s\n", bytes, cudaGetErrorString(err));
      abort();
    }
    j = k;
  }
}

void sq_cuda_stage_wait(cudaStream_t stream, const char *what) {
  const cudaError_t err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess) {
    fprintf(stderr, "starquake: %s on the GPU failed: %s\n", what, cudaGetErrorString(err));
    abort();
  }
}
#endif

/* One more array for tile t's time integrals, unless it has one or is not interior. */
static int double_one(sq_runtime *rt, int t) {
  const sq_disc *d = rt->disc;
  if (rt->tint_alt[t] || d->tile[t].layer != SQ_LAYER_INTERIOR) return SQ_SUCCESS;
  starpu_vector_data_register(&rt->tint_alt[t], -1, 0, (uint32_t)(d->tile[t].end - d->tile[t].begin),
                              sq_disc_elem_bytes(d));
  /* after the upload (sq_runtime_upload), its room on its readers' GPUs and its own, as for the first array */
  const int home = sq_runtime_tile_node(rt, t);
  if (home < 0 || !(rt->upload_fits[home] & SQ_FITS_OWN)) return SQ_SUCCESS;
  double bytes = 0;
  SQ_CALL(replica_rooms(rt, t, rt->tint_alt[t], rt->upload_fits, NULL, 1, &bytes));
  return make_room(rt->tint_alt[t], home, t);
}

int sq_runtime_double_tint(sq_runtime *rt, int tile) {
  const sq_disc *d = rt->disc;
  if (!rt->tint_alt) {
    SQ_CALL(SQ_CALLOC(rt->tint_alt, d->ntile));
    if (SQ_CALLOC(rt->tint_odd, d->ntile)) {
      SQ_FREE(rt->tint_alt);
      return SQ_ERR_MEMORY;
    }
  }
  const sq_tile *tl = &d->tile[tile];
  SQ_CALL(double_one(rt, tile));
  for (int s = 0; s < tl->nneighbor; ++s)
    if (d->tile[tl->neighbor[s]].cluster == tl->cluster) SQ_CALL(double_one(rt, tl->neighbor[s]));
  return SQ_SUCCESS;
}

void sq_runtime_tint_advance(sq_runtime *rt, int tile) { (void)sq_tint_next(rt, tile); }

void sq_tint_alt_destroy(sq_runtime *rt) {
  if (!rt->tint_alt) return;
  for (int t = 0; t < rt->disc->ntile; ++t)
    if (rt->tint_alt[t]) starpu_data_unregister_no_coherency(rt->tint_alt[t]);
  SQ_FREE(rt->tint_alt);
  SQ_FREE(rt->tint_odd);
}
