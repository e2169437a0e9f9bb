/** @file load_cuda.cu  Loading the element kernels that a run's tiles select on the current GPU before the time
 *  stepping (sq_cuda_load_kernels), instead of at their first launch inside the first tasks. */
#include "cuda_launch.cuh"

extern "C" void sq_cuda_load_kernels(sq_precision prec, int order, const int64_t *sizes, int nsize) {
  static const sq_cuda_slots none = {0};
  sq_cuda::load_only = true;
  for (int i = 0; i < nsize; ++i) {
    const int64_t n = sizes[i];
    if (n <= 0) continue;
    sq_cuda_ader(prec, order, n, NULL, NULL, NULL, 0.0, NULL, NULL, NULL, 0, NULL);
    sq_cuda_local(prec, order, n, NULL, NULL, NULL, NULL, NULL, NULL);
    sq_cuda_neighbor(prec, order, n, NULL, NULL, NULL, &none, NULL, NULL);
    sq_cuda_predict(prec, order, n, NULL, NULL, NULL, NULL, 0.0, NULL, NULL, NULL, 0, NULL);
  }
  sq_cuda::load_only = false;
}
