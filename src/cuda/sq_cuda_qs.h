/**
 * @file sq_cuda_qs.h  CUDA launchers of the quasi-static solver's kernels (qs_cuda.cu, device code in
 * qs_cuda.cuh), callable from C.  Pointers are device pointers, streams `void *` (a cudaStream_t; NULL: the
 * default stream).  Each launcher enqueues one kernel and returns at once; a failed launch aborts with a
 * message naming the kernel.  Vectors of @p nv (1 .. 4) right-hand sides are interleaved:
 * x[node * 3 nv + component * nv + v].  Results agree with the CPU kernels of sq_qs.h up to rounding
 * (tests/unit/test_cuda_qs.c, tests/cuda_emu/emu_qs.cc).
 */
#ifndef SQ_CUDA_QS_H
#define SQ_CUDA_QS_H

#include "sq_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Device copy of sq_qs_blocks (sq_qs_blocks.h): the blocks of cells of the shared-memory reduction. */
typedef struct sq_cuda_qs_blocks {
  int cells;              /**< cells per block */
  int64_t nblk;           /**< blocks */
  int64_t max_rows;       /**< rows of the largest block */
  const int64_t *ptr;     /**< nblk + 1 */
  const int64_t *row;     /**< ptr[nblk] */
  const uint16_t *gather; /**< sq_qs_blocks.gather: ngather entries (each block's slots by row, then gend) */
} sq_cuda_qs_blocks;

/**
 * @brief y += K x on cells [0, nc) (P2, or P1 when @p p1), @p nv vectors: blocks of blk->cells cells, blk->cells x nv
 * threads (at most 1024), one per (cell, vector); each block reduces its cells' rows in shared memory (each cell's
 * values in its own slots, 30 nv reals per P2 cell, 12 nv per P1 cell, summed per block row in a fixed order), then
 * adds them into y with one atomic addition per entry.
 * @param geo   SQ_QS_NGEO reals per cell in precision @p prec
 * @param in    10 rows of x per cell
 * @param blk   host struct of device pointers: the blocks of cells (sq_qs_blocks_create) built for y's rows
 */
void sq_cuda_qs_ebe(sq_precision prec, int p1, int nv, int64_t nc, const void *geo, const int64_t *in,
                    const sq_cuda_qs_blocks *blk, const void *x, void *y, void *stream);

/** @brief r_c = P^T r over the vertices [v0, v1) (sq_qs_restrict_range_f32): rc at vertex v0's row. */
void sq_cuda_qs_restrict(sq_precision prec, int nv, int64_t nvert, const int64_t *vert_edge_ptr,
                         const int64_t *vert_edge, int64_t v0, int64_t v1, const void *r, void *rc, void *stream);

/** @brief z = P z_c over the P2 nodes [n0, n1) (sq_qs_prolong_range_f32): z at node n0's row. */
void sq_cuda_qs_prolong(sq_precision prec, int nv, int64_t nvert, const int64_t *edge_vert, int64_t n0, int64_t n1,
                        const void *zc, void *z, void *stream);

/** @brief y[3 nv node[k] ..] += rows[3 nv k ..] for k in [0, n) (sq_qs_tile_reduce_*; not atomic). */
void sq_cuda_qs_scatter_add(sq_precision prec, int nv, int64_t n, const int64_t *node, const void *rows, void *y,
                            void *stream);

#ifdef __cplusplus
}
#endif

#endif
