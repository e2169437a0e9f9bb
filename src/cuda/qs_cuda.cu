/**
 * @file qs_cuda.cu  Launchers of the quasi-static solver's kernels (sq_cuda_qs.h): the dispatch over precision,
 * P1/P2 and vectors per kernel (1 .. 4) onto the templates of qs_cuda.cuh.  The EBE product always reduces in
 * shared memory by gathering each row's slots (Reduction::Gather; the other reductions are the benchmark's,
 * tests/bench/qs_bench.cu).
 */
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "qs_cuda.cuh"
#include "sq_cuda_qs.h"

namespace {

constexpr int kTransferThreads = 256;

void check(const char *kernel, sq_precision prec, int nv, int64_t n) {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return;
  fprintf(stderr, "starquake: CUDA kernel %s (%s precision, %d vectors, %lld items) failed: %s\n", kernel,
          prec == SQ_F64 ? "double" : "single", nv, (long long)n, cudaGetErrorString(err));
  abort();
}

/** f(R(), std::integral_constant<int, NV>()) for the precision and 1 <= nv <= 4 (else a message and abort). */
template <class F> void dispatch(const char *kernel, sq_precision prec, int nv, F f) {
  auto with_nv = [&](auto r) {
    switch (nv) {
    case 1: f(r, std::integral_constant<int, 1>()); break;
    case 2: f(r, std::integral_constant<int, 2>()); break;
    case 3: f(r, std::integral_constant<int, 3>()); break;
    case 4: f(r, std::integral_constant<int, 4>()); break;
    default:
      fprintf(stderr, "starquake: the quasi-static %s kernel runs 1 to 4 vectors, not %d\n", kernel, nv);
      abort();
    }
  };
  if (prec == SQ_F64) with_nv(double());
  else with_nv(float());
}

template <typename R, int NV, bool P1>
void ebe(int64_t nc, const void *geo, const int64_t *in, const sq_cuda_qs_blocks *blk, const void *x, void *y,
         cudaStream_t s) {
  constexpr int NL = P1 ? 4 : 10;
  const size_t smem = (size_t)blk->cells * NL * 3 * NV * sizeof(R);
  auto kernel = sq_qs_cuda::ebe_kernel<R, NV, P1, sq_qs_cuda::Reduction::Gather>;
  if (smem > 48 * 1024 && cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)) {
    fprintf(stderr, "starquake: the quasi-static EBE kernel needs %zu bytes of shared memory (%d cells per block)\n",
            smem, blk->cells);
    abort();
  }
  kernel<<<(unsigned)blk->nblk, (unsigned)(blk->cells * NV), smem, s>>>(
      nc, static_cast<const R *>(geo), in, nullptr, blk->ptr, blk->row, nullptr, static_cast<const R *>(x),
      static_cast<R *>(y), blk->gather, blk->gather + NL * nc);
}

} // namespace

extern "C" void sq_cuda_qs_ebe(sq_precision prec, int p1, int nv, int64_t nc, const void *geo, const int64_t *in,
                               const sq_cuda_qs_blocks *blk, const void *x, void *y, void *stream) {
  if (nc <= 0) return;
  if (blk->cells < 1 || blk->cells * nv > 1024) {
    fprintf(stderr, "starquake: the quasi-static EBE kernel's blocks of %d cells on %d vectors exceed 1024 threads\n",
            blk->cells, nv);
    abort();
  }
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  dispatch("EBE", prec, nv, [&](auto r, auto n) {
    using R = decltype(r);
    if (p1) ebe<R, decltype(n)::value, true>(nc, geo, in, blk, x, y, s);
    else ebe<R, decltype(n)::value, false>(nc, geo, in, blk, x, y, s);
  });
  check("qs_ebe", prec, nv, nc);
}

extern "C" void sq_cuda_qs_scatter_add(sq_precision prec, int nv, int64_t n, const int64_t *node, const void *rows,
                                       void *y, void *stream) {
  if (n <= 0) return;
  const unsigned grid = (unsigned)((n + kTransferThreads - 1) / kTransferThreads);
  dispatch("reduction", prec, nv, [&](auto r, auto k) {
    using R = decltype(r);
    sq_qs_cuda::scatter_add_kernel<R, decltype(k)::value>
        <<<grid, kTransferThreads, 0, static_cast<cudaStream_t>(stream)>>>(n, node, static_cast<const R *>(rows),
                                                                           static_cast<R *>(y));
  });
  check("qs_scatter_add", prec, nv, n);
}

extern "C" void sq_cuda_qs_restrict(sq_precision prec, int nv, int64_t nvert, const int64_t *vert_edge_ptr,
                                    const int64_t *vert_edge, int64_t v0, int64_t v1, const void *r, void *rc,
                                    void *stream) {
  if (v1 <= v0) return;
  const unsigned grid = (unsigned)((v1 - v0 + kTransferThreads - 1) / kTransferThreads);
  dispatch("restriction", prec, nv, [&](auto re, auto k) {
    using R = decltype(re);
    sq_qs_cuda::restrict_kernel<R, decltype(k)::value>
        <<<grid, kTransferThreads, 0, static_cast<cudaStream_t>(stream)>>>(
            nvert, vert_edge_ptr, vert_edge, v0, v1, static_cast<const R *>(r), static_cast<R *>(rc));
  });
  check("qs_restrict", prec, nv, v1 - v0);
}

extern "C" void sq_cuda_qs_prolong(sq_precision prec, int nv, int64_t nvert, const int64_t *edge_vert, int64_t n0,
                                   int64_t n1, const void *zc, void *z, void *stream) {
  if (n1 <= n0) return;
  const unsigned grid = (unsigned)((n1 - n0 + kTransferThreads - 1) / kTransferThreads);
  dispatch("prolongation", prec, nv, [&](auto re, auto k) {
    using R = decltype(re);
    sq_qs_cuda::prolong_kernel<R, decltype(k)::value><<<grid, kTransferThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        nvert, edge_vert, n0, n1, static_cast<const R *>(zc), static_cast<R *>(z));
  });
  check("qs_prolong", prec, nv, n1 - n0);
}
