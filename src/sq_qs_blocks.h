/**
 * @file sq_qs_blocks.h  Blocks of cells for the GPU's element-by-element product with a shared-memory reduction
 * (src/cuda/qs_cuda.cuh): consecutive cells in blocks of a fixed size, each with the ascending list of the distinct
 * output rows its cells touch, and for each cell the block-local row of each of its nodes.  A GPU thread block
 * accumulates its cells' products in shared memory in block-local rows, then adds those rows into the global
 * vector.  Host-side numerics; no CUDA here.
 */
#ifndef SQ_QS_BLOCKS_H
#define SQ_QS_BLOCKS_H

#include "sq_common.h"

typedef struct sq_qs_blocks {
  int cells;        /**< cells per block (the last block may have fewer) */
  int nloc;         /**< nodes per cell used: 10 (P2) or 4 (P1: the vertices) */
  int64_t ncell;    /**< cells in all */
  int64_t nblk;     /**< blocks */
  int64_t max_rows; /**< rows of the largest block */
  int64_t *ptr;     /**< nblk + 1: block b's rows are row[ptr[b] .. ptr[b + 1]) */
  int64_t *row;     /**< ptr[nblk]: output rows (nodes), ascending within a block */
  uint16_t *local;  /**< 10 ncell: block-local row of each cell's local node (0 for nodes past nloc) */
  /* the same map inverted, for a reduction that gathers each row's values: block b's slots (cell within the block
   * times nloc plus local node) start at gather[b cells nloc], grouped by block row in row order; block row k's
   * slots end at gather[b cells nloc + gend[k]] (k over all blocks' rows, as row[]) */
  uint16_t *gather; /**< nloc ncell, then gend: one array of ngather entries */
  uint16_t *gend;   /**< ptr[nblk] */
  int64_t ngather;  /**< nloc ncell + ptr[nblk] */
} sq_qs_blocks;

/**
 * @brief Cut cells [0, nc) into blocks of @p cells (1 .. 1024) cells; @p out: 10 output rows (nodes) per cell, of
 * which the first @p nloc (10 or 4) are used.  Fails with SQ_ERR_INTERNAL on bad sizes, SQ_ERR_MEMORY.
 */
int sq_qs_blocks_create(int64_t nc, const int64_t *out, int nloc, int cells, sq_qs_blocks **blocks);
void sq_qs_blocks_destroy(sq_qs_blocks *b);

#endif
