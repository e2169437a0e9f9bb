/** @file merged_cuda.cu  CUDA launchers of the fused predictor, ader + local in one kernel, for one tile and for
 *  the tiles of a merged task in one grid (codelet "merged"). */
#include "cuda_cell.cuh"
#include "cuda_sparse.cuh"

namespace {

/* Blocks of epb elements for every segment of a merged task's grid: sets epb and each segment's first block,
 * returns the grid's block count. */
unsigned assign_blocks(sq_cuda_segments *segs, int epb) {
  unsigned blocks = 0;
  segs->epb = epb;
  for (int s = 0; s < segs->nseg; ++s) {
    segs->seg[s].first_block = blocks;
    blocks += (unsigned)((segs->seg[s].n + epb - 1) / epb);
  }
  return blocks;
}

template <int ORDER, typename Real> struct PredictLaunch {
  template <int NARROW>
  static void launch(int64_t n, const void *pack, void *dofs, const void *star, const void *flux_local, double dt,
                     void *tint, void *derivs, void *lts_buffer, int buffer_reset, cudaStream_t stream) {
    using T = sq_cuda::PredictShape<ORDER, Real, NARROW>;
    const size_t smem = sizeof(Real) * T::SMEM;
    const sq_cuda::Grid g =
        sq_cuda::grid_for<T>(sq_cuda::predict_kernel<ORDER, Real, NARROW>, n, smem, "predict", ORDER);
    sq_cuda::predict_kernel<ORDER, Real, NARROW><<<g.blocks, T::THREADS, smem, stream>>>(
        n, g.epb, (const Real *)pack, (Real *)dofs, (const Real *)star, (const Real *)flux_local, dt, (Real *)tint,
        (Real *)derivs, (Real *)lts_buffer, buffer_reset);
    sq_cuda::check_launch("predict", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }

  /* low orders: one thread per entry (cuda_cell.cuh) */
  static void cell(int64_t n, const void *pack, void *dofs, const void *star, const void *flux_local, double dt,
                   void *tint, void *derivs, void *lts_buffer, int buffer_reset, cudaStream_t stream) {
    using C = sq_cuda::CellShape<ORDER, Real>;
    const size_t smem = sizeof(Real) * C::SMEM_PREDICT;
    const sq_cuda::Grid g =
        sq_cuda::grid_for<C>(sq_cuda::predict_cell_kernel<ORDER, Real>, n, smem, "predict (cell)", ORDER);
    sq_cuda::predict_cell_kernel<ORDER, Real><<<g.blocks, C::THREADS, smem, stream>>>(
        n, g.epb, (const Real *)pack, (Real *)dofs, (const Real *)star, (const Real *)flux_local, dt, (Real *)tint,
        (Real *)derivs, (Real *)lts_buffer, buffer_reset);
    sq_cuda::check_launch("predict (cell)", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, n);
  }

  /* with the sparse ader, ader and local apart (cuda_sparse.cuh); low orders: the cell kernel (cuda_cell.cuh);
   * small tiles: fine row groups (cuda_kernels.cuh, fine_tile) */
  static void run(int64_t n, const void *pack, void *dofs, const void *star, const void *flux_local, double dt,
                  void *tint, void *derivs, void *lts_buffer, int buffer_reset, cudaStream_t stream) {
    using T = sq_cuda::PredictShape<ORDER, Real>;
    if constexpr (sq_cuda::sparse_ader(ORDER, sizeof(Real))) {
      if (!sq_cuda::small_tile_keeps_rows<ORDER, Real>(n)) {
        /* with the sparse ader, ader and local as two kernels (through tint in global memory) beat the fused
         * kernel, but for the small tiles that keep the cell or fine-row local */
        const sq_precision prec = sizeof(Real) == 8 ? SQ_F64 : SQ_F32;
        sq_cuda_ader(prec, ORDER, n, pack, dofs, star, dt, tint, derivs, lts_buffer, buffer_reset, stream);
        sq_cuda_local(prec, ORDER, n, pack, tint, star, flux_local, dofs, stream);
        return;
      }
    }
    if constexpr (ORDER <= SQ_CUDA_CELL_MAX_ORDER) {
      if (sq_cuda::cell_tile(ORDER, n)) {
        cell(n, pack, dofs, star, flux_local, dt, tint, derivs, lts_buffer, buffer_reset, stream);
        return;
      }
    }
    if constexpr (sq_cuda::has_fine(ORDER, sizeof(Real))) {
      if (sq_cuda::fine_tile<T>(sq_cuda::predict_kernel<ORDER, Real>, n, sizeof(Real) * T::SMEM, "predict", ORDER)) {
        launch<2>(n, pack, dofs, star, flux_local, dt, tint, derivs, lts_buffer, buffer_reset, stream);
        return;
      }
    }
    launch<-1>(n, pack, dofs, star, flux_local, dt, tint, derivs, lts_buffer, buffer_reset, stream);
  }
};

/* All segments of a merged task in one grid: blocks of epb elements (grid_for over the total), the
 * variant (cell, fine rows or the default) chosen for the total as for one tile of that size; where the
 * sparse ader runs for a tile of that size, each segment as one tile instead. */
template <int ORDER, typename Real> struct PredictSegmentsLaunch {
  template <int NARROW>
  static void launch(sq_cuda_segments *segs, int64_t total, const void *pack, cudaStream_t stream) {
    using T = sq_cuda::PredictShape<ORDER, Real, NARROW>;
    const size_t smem = sizeof(Real) * T::SMEM;
    const sq_cuda::Grid g = sq_cuda::grid_for<T>(sq_cuda::predict_segments_kernel<ORDER, Real, NARROW>, total, smem,
                                                 "predict (segments)", ORDER);
    const unsigned blocks = assign_blocks(segs, g.epb);
    sq_cuda::predict_segments_kernel<ORDER, Real, NARROW>
        <<<blocks, T::THREADS, smem, stream>>>(*segs, (const Real *)pack);
    sq_cuda::check_launch("predict (segments)", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, total);
  }

  static void cell(sq_cuda_segments *segs, int64_t total, const void *pack, cudaStream_t stream) {
    using C = sq_cuda::CellShape<ORDER, Real>;
    const size_t smem = sizeof(Real) * C::SMEM_PREDICT;
    const sq_cuda::Grid g = sq_cuda::grid_for<C>(sq_cuda::predict_cell_segments_kernel<ORDER, Real>, total, smem,
                                                 "predict (cell, segments)", ORDER);
    const unsigned blocks = assign_blocks(segs, g.epb);
    sq_cuda::predict_cell_segments_kernel<ORDER, Real><<<blocks, C::THREADS, smem, stream>>>(*segs, (const Real *)pack);
    sq_cuda::check_launch("predict (cell, segments)", ORDER, sizeof(Real) == 8 ? SQ_F64 : SQ_F32, total);
  }

  static void run(sq_cuda_segments *segs, int64_t total, const void *pack, cudaStream_t stream) {
    using T = sq_cuda::PredictShape<ORDER, Real>;
    if constexpr (sq_cuda::sparse_ader(ORDER, sizeof(Real))) {
      if (!sq_cuda::small_tile_keeps_rows<ORDER, Real>(total)) {
        /* with the sparse ader the fused grid is the slower form: each segment as one tile (sq_cuda_predict),
         * one after the other on the stream; the same bits as unmerged tasks by construction */
        for (int s = 0; s < segs->nseg; ++s) {
          const sq_cuda_segment &g = segs->seg[s];
          if (g.n > 0)
            PredictLaunch<ORDER, Real>::run(g.n, pack, g.dofs, g.star, g.flux_local, g.dt, g.tint, g.derivs,
                                            g.lts_buffer, g.buffer_reset, stream);
        }
        return;
      }
    }
    if constexpr (ORDER <= SQ_CUDA_CELL_MAX_ORDER) {
      if (sq_cuda::cell_tile(ORDER, total)) {
        cell(segs, total, pack, stream);
        return;
      }
    }
    if constexpr (sq_cuda::has_fine(ORDER, sizeof(Real))) {
      if (sq_cuda::fine_tile<T>(sq_cuda::predict_segments_kernel<ORDER, Real>, total, sizeof(Real) * T::SMEM,
                                "predict (segments)", ORDER)) {
        launch<2>(segs, total, pack, stream);
        return;
      }
    }
    launch<-1>(segs, total, pack, stream);
  }
};

} // namespace

extern "C" void sq_cuda_predict_segments(sq_precision prec, int order, sq_cuda_segments *segs, const void *pack,
                                         void *stream) {
  int64_t total = 0;
  for (int s = 0; s < segs->nseg; ++s) total += segs->seg[s].n;
  if (total <= 0) return;
  sq_cuda::dispatch<PredictSegmentsLaunch>("predict (segments)", prec, order, segs, total, pack, (cudaStream_t)stream);
}

extern "C" void sq_cuda_predict(sq_precision prec, int order, int64_t n, const void *pack, void *dofs, const void *star,
                                const void *flux_local, double dt, void *tint, void *derivs, void *lts_buffer,
                                int buffer_reset, void *stream) {
  if (n <= 0) return;
  sq_cuda::dispatch<PredictLaunch>("predict", prec, order, n, pack, dofs, star, flux_local, dt, tint, derivs,
                                   lts_buffer, buffer_reset, (cudaStream_t)stream);
}
