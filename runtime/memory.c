/**
 * @file memory.c  Memory for GPUs: what the GPUs offer, page-locking the host ranges that cross PCIe often,
 * and the row staging of the tasks that touch a few elements of a tile that stays on the GPU.
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
