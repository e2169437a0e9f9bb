/**
 * @file memory.c  Memory for GPUs: what the GPUs offer, page-locking the host ranges that cross PCIe often,
 * the upload of each tile's data to the GPU its tasks run on before the time stepping, and the row staging of
 * the tasks that touch a few elements of a tile that stays on the GPU.
 */
#include <stdlib.h>

#include "sq_runtime_impl.h"

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

/* The memory node of GPU g as sq_runtime_place_tiles_on_gpus numbers them (the distinct CUDA devices in
 * worker order), -1 if there is no such GPU. */
static int gpu_node(int g) {
  int devid[STARPU_NMAXWORKERS], ngpu = 0;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    if (starpu_worker_get_type((int)w) != STARPU_CUDA_WORKER) continue;
    const int dev = starpu_worker_get_devid((int)w);
    int k = 0;
    while (k < ngpu && devid[k] != dev) ++k;
    if (k == ngpu) devid[ngpu++] = dev;
    if (k == g) return (int)starpu_worker_get_memory_node(w);
  }
  return -1;
}

int sq_runtime_tile_node(const sq_runtime *rt, int tile) {
  if (starpu_cuda_worker_get_count() == 0) return -1;
  if (rt->tile_where && rt->tile_where[tile] != STARPU_CUDA) return -1; /* CPU workers, or a ghost tile */
  if (rt->tile_gpu) return rt->tile_gpu[tile] >= 0 ? gpu_node(rt->tile_gpu[tile]) : -1;
  /* no placement: known only where every element task runs on the one GPU */
  if (!rt->tile_where && starpu_cpu_worker_get_count() > 0) return -1;
  return gpu_node(1) < 0 ? gpu_node(0) : -1;
}

int sq_runtime_upload(sq_runtime *rt, sq_upload_stats *stats) {
  const sq_disc *d = rt->disc;
  sq_upload_stats st = {0};
  unsigned char pack_sent[STARPU_MAXNODES] = {0};
  /* the faster clusters first: their tasks come first (the graph's priorities) and most often */
  for (int l = 0; l < d->ncluster; ++l)
    for (int t = 0; t < d->ntile; ++t) {
      const sq_tile *tl = &d->tile[t];
      const int node = tl->cluster == l && tl->layer != SQ_LAYER_GHOST ? sq_runtime_tile_node(rt, t) : -1;
      if (node < 0) continue;
      if (!pack_sent[node]) {
        pack_sent[node] = 1;
        SQ_CHECK(starpu_data_prefetch_on_node(rt->pack, (unsigned)node, 1) == 0, SQ_ERR_RUNTIME,
                 "prefetch of the reference matrices to memory node %d failed", node);
        st.input_bytes += d->pack_bytes;
      }
      /* what the tasks read before they write it: the solution, the element matrices, the face links */
      starpu_data_handle_t in[] = {rt->dofs[t], rt->star[t], rt->flux_local[t], rt->flux_nb[t],
                                   rt->link[t], rt->ane[t],  rt->ane_coef[t]};
      for (size_t k = 0; k < sizeof(in) / sizeof(in[0]); ++k) {
        if (!in[k]) continue;
        SQ_CHECK(starpu_data_prefetch_on_node(in[k], (unsigned)node, 1) == 0, SQ_ERR_RUNTIME,
                 "prefetch of tile %d's data to memory node %d failed", t, node);
        st.input_bytes += starpu_data_get_size(in[k]);
      }
      /* what every task writes before any reads it (time integral, derivatives, LTS buffer: the predictor's
       * STARPU_W): room only, nothing crosses the bus */
      starpu_data_handle_t out[] = {rt->tint[t], rt->derivs[t], rt->buffer[t]};
      for (size_t k = 0; k < sizeof(out) / sizeof(out[0]); ++k) {
        if (!out[k]) continue;
        SQ_CHECK(starpu_data_request_allocation(out[k], (unsigned)node) == 0, SQ_ERR_RUNTIME,
                 "allocation of tile %d's outputs on memory node %d failed", t, node);
        st.output_bytes += starpu_data_get_size(out[k]);
      }
      st.tiles++;
    }
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
