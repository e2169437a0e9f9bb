/**
 * @file qs_cuda.cu  Launchers of the quasi-static solver's kernels (sq_cuda_qs.h): the dispatch over precision,
 * P1/P2, vectors per kernel (1 or 4) and reduction onto the templates of qs_cuda.cuh.
 */
#include <cstdio>
#include <cstdlib>

#include "qs_cuda.cuh"
#include "sq_cuda_qs.h"

namespace {

using sq_qs_cuda::Reduction;

constexpr int kAtomicThreads = 128; /* cells per block of the direct-atomics product */
constexpr int kTransferThreads = 256;

void check(const char *kernel, sq_precision prec, int nv, int64_t n) {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return;
  fprintf(stderr, "starquake: CUDA kernel %s (%s precision, %d vectors, %lld items) failed: %s\n", kernel,
          prec == SQ_F64 ? "double" : "single", nv, (long long)n, cudaGetErrorString(err));
  abort();
}

template <typename R, int NV, bool P1>
void ebe(int64_t nc, const void *geo, const int64_t *in, const int64_t *out, const sq_cuda_qs_blocks *blk,
         const void *x, void *y, cudaStream_t s) {
  if (nc <= 0) return;
  const R *g = static_cast<const R *>(geo), *xv = static_cast<const R *>(x);
  R *yv = static_cast<R *>(y);
  if (!blk) {
    const unsigned grid = (unsigned)((nc + kAtomicThreads - 1) / kAtomicThreads);
    sq_qs_cuda::ebe_kernel<R, NV, P1, Reduction::Atomic>
        <<<grid, kAtomicThreads, 0, s>>>(nc, g, in, out, nullptr, nullptr, nullptr, xv, yv);
    return;
  }
  const size_t smem = (size_t)blk->max_rows * 3 * NV * sizeof(R);
  auto kernel = sq_qs_cuda::ebe_kernel<R, NV, P1, Reduction::Shared>;
  if (smem > 48 * 1024 && cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)) {
    fprintf(stderr, "starquake: the quasi-static EBE kernel needs %zu bytes of shared memory (%lld rows per block)\n",
            smem, (long long)blk->max_rows);
    abort();
  }
  kernel<<<(unsigned)blk->nblk, blk->cells, smem, s>>>(nc, g, in, nullptr, blk->ptr, blk->row, blk->local, xv, yv);
}

template <typename R, int NV>
void ebe_nv(int p1, int64_t nc, const void *geo, const int64_t *in, const int64_t *out, const sq_cuda_qs_blocks *blk,
            const void *x, void *y, cudaStream_t s) {
  if (p1) ebe<R, NV, true>(nc, geo, in, out, blk, x, y, s);
  else ebe<R, NV, false>(nc, geo, in, out, blk, x, y, s);
}

template <typename R>
void ebe_r(int p1, int nv, int64_t nc, const void *geo, const int64_t *in, const int64_t *out,
           const sq_cuda_qs_blocks *blk, const void *x, void *y, cudaStream_t s) {
  if (nv == 4) ebe_nv<R, 4>(p1, nc, geo, in, out, blk, x, y, s);
  else if (nv == 1) ebe_nv<R, 1>(p1, nc, geo, in, out, blk, x, y, s);
  else {
    fprintf(stderr, "starquake: the quasi-static EBE kernel runs 1 or 4 vectors, not %d\n", nv);
    abort();
  }
}

template <typename R, int NV>
void transfer(bool restr, int64_t nvert, const int64_t *a, const int64_t *b, int64_t i0, int64_t i1, const void *in,
              void *out, cudaStream_t s) {
  if (i1 <= i0) return;
  const unsigned grid = (unsigned)((i1 - i0 + kTransferThreads - 1) / kTransferThreads);
  if (restr)
    sq_qs_cuda::restrict_kernel<R, NV>
        <<<grid, kTransferThreads, 0, s>>>(nvert, a, b, i0, i1, static_cast<const R *>(in), static_cast<R *>(out));
  else
    sq_qs_cuda::prolong_kernel<R, NV>
        <<<grid, kTransferThreads, 0, s>>>(nvert, a, i0, i1, static_cast<const R *>(in), static_cast<R *>(out));
}

void transfer_any(sq_precision prec, int nv, bool restr, int64_t nvert, const int64_t *a, const int64_t *b, int64_t i0,
                  int64_t i1, const void *in, void *out, cudaStream_t s) {
  if (nv != 1 && nv != 4) {
    fprintf(stderr, "starquake: the quasi-static transfer kernels run 1 or 4 vectors, not %d\n", nv);
    abort();
  }
  if (prec == SQ_F64) (nv == 4 ? transfer<double, 4> : transfer<double, 1>)(restr, nvert, a, b, i0, i1, in, out, s);
  else (nv == 4 ? transfer<float, 4> : transfer<float, 1>)(restr, nvert, a, b, i0, i1, in, out, s);
}

template <typename R, int NV>
void scatter_add(int64_t n, const int64_t *node, const void *rows, void *y, cudaStream_t s) {
  if (n <= 0) return;
  const unsigned grid = (unsigned)((n + kTransferThreads - 1) / kTransferThreads);
  sq_qs_cuda::scatter_add_kernel<R, NV>
      <<<grid, kTransferThreads, 0, s>>>(n, node, static_cast<const R *>(rows), static_cast<R *>(y));
}

} // namespace

extern "C" void sq_cuda_qs_scatter_add(sq_precision prec, int nv, int64_t n, const int64_t *node, const void *rows,
                                       void *y, void *stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (nv != 1 && nv != 4) {
    fprintf(stderr, "starquake: the quasi-static reduction kernel runs 1 or 4 vectors, not %d\n", nv);
    abort();
  }
  if (prec == SQ_F64) (nv == 4 ? scatter_add<double, 4> : scatter_add<double, 1>)(n, node, rows, y, s);
  else (nv == 4 ? scatter_add<float, 4> : scatter_add<float, 1>)(n, node, rows, y, s);
  check("qs_scatter_add", prec, nv, n);
}

extern "C" void sq_cuda_qs_ebe(sq_precision prec, int p1, int nv, int64_t nc, const void *geo, const int64_t *in,
                               const int64_t *out, const sq_cuda_qs_blocks *blk, const void *x, void *y, void *stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (prec == SQ_F64) ebe_r<double>(p1, nv, nc, geo, in, out, blk, x, y, s);
  else ebe_r<float>(p1, nv, nc, geo, in, out, blk, x, y, s);
  check(blk ? "qs_ebe (shared-memory reduction)" : "qs_ebe (atomics)", prec, nv, nc);
}

extern "C" void sq_cuda_qs_restrict(sq_precision prec, int nv, int64_t nvert, const int64_t *vert_edge_ptr,
                                    const int64_t *vert_edge, int64_t v0, int64_t v1, const void *r, void *rc,
                                    void *stream) {
  transfer_any(prec, nv, true, nvert, vert_edge_ptr, vert_edge, v0, v1, r, rc, static_cast<cudaStream_t>(stream));
  check("qs_restrict", prec, nv, v1 - v0);
}

extern "C" void sq_cuda_qs_prolong(sq_precision prec, int nv, int64_t nvert, const int64_t *edge_vert, int64_t n0,
                                   int64_t n1, const void *zc, void *z, void *stream) {
  transfer_any(prec, nv, false, nvert, edge_vert, nullptr, n0, n1, zc, z, static_cast<cudaStream_t>(stream));
  check("qs_prolong", prec, nv, n1 - n0);
}
