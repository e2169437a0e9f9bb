/**
 * @file sq_cuda.h  CUDA launchers of the element kernels (*_cuda.cu), of the rupture and of the plasticity
 * kernels, callable from C.
 *
 * No CUDA type appears here: device pointers are `void *`, streams pass as `void *` (a
 * cudaStream_t; NULL is the default stream).  Every launcher enqueues one fused kernel on the stream
 * and returns at once, without waiting for it; it checks cudaGetLastError() after the launch and aborts
 * with a message naming the kernel, order and precision on failure.
 *
 * Data layouts are those of sq_kernels.h, in device memory; the results agree with the CPU kernels
 * of sq_kernels.h up to rounding (tests/unit/test_cuda.c: relative L2 <= 1e-12 in double, 1e-5 in single).
 */
#ifndef SQ_CUDA_H
#define SQ_CUDA_H

#include "sq_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most neighbour tiles one neighbour task may read on a GPU (the slot table travels by value). */
#define SQ_CUDA_MAX_SLOTS 128

/**
 * Neighbour slots of one neighbour task, passed to the kernel by value (3 KiB, under CUDA's 4 KiB
 * parameter limit).  Tasks with more slots run on a CPU worker (codelets/neighbor.c).
 */
typedef struct sq_cuda_slots {
  int nslot;
  const void *data[SQ_CUDA_MAX_SLOTS]; /**< device base pointer per slot: tint, buffer or derivatives */
  double t0[SQ_CUDA_MAX_SLOTS];        /**< SQ_LINK_DERIVS: integrate the Taylor series over [t0, t1] */
  double t1[SQ_CUDA_MAX_SLOTS];
} sq_cuda_slots;

/**
 * Element tiles of one rupture task, passed to the kernel by value (2 KiB): each slot's time derivatives
 * and dofs (NULL for a ghost tile, which is read only).  Tasks with more slots run on a CPU worker
 * (codelets/rupture.c).
 */
typedef struct sq_cuda_rupture_slots {
  int nslot;
  const void *derivs[SQ_CUDA_MAX_SLOTS]; /**< device pointer per slot: O x B x 9 per element */
  void *dofs[SQ_CUDA_MAX_SLOTS];         /**< device pointer per slot: B x 9 per element, or NULL */
} sq_cuda_rupture_slots;

struct sq_fault_face;
struct sq_fault_point;
struct sq_tp_state;
struct sq_fault_options;
struct sq_fault_station;

/** On-fault stations of a rupture task (device pointers): their rows after the step go to @p rows. */
typedef struct sq_cuda_rupture_stations {
  const struct sq_fault_station *stations; /**< the tile's stations; their faces are numbered from face0 */
  int nstation;
  int64_t face0; /**< the tile's first face */
  double *rows;  /**< nstation x SQ_FAULT_LOG_COLS */
} sq_cuda_rupture_stations;

/**
 * @brief Rupture step of a tile of fault faces on the GPU (sq_fault_update, and sq_fault_record_stations
 * for @p stations): one block per face, one thread per face point (thesis ch. 7); the point-wise physics is
 * fault_impl.h's.
 * @param npoint           face points, (order + 1)^2
 * @param nface            faces of the tile
 * @param ref, faces, points  device copies of the fault's reference data, the tile's faces and their
 *                         friction state (updated)
 * @param tp               device copy of their thermal-pressurization states (updated), NULL without it
 * @param slots            host struct, copied into the kernel's parameters (nslot <= SQ_CUDA_MAX_SLOTS)
 * @param opt              host pointer: friction law and nucleation time
 * @param shared_elements  nonzero when some owned element has several faces in the tile: those faces
 *                         then run in a second, one-block launch in face order (deterministic sums)
 * @param stations         NULL, or host struct of the tile's on-fault stations: each face's block then
 *                         writes the rows of its stations (sq_fault_record_stations on the GPU)
 */
void sq_cuda_rupture(sq_precision prec, int order, int npoint, int64_t nface, const double *ref,
                     const struct sq_fault_face *faces, struct sq_fault_point *points, struct sq_tp_state *tp,
                     const sq_cuda_rupture_slots *slots, const struct sq_fault_options *opt, double t0, double dt,
                     int shared_elements, const sq_cuda_rupture_stations *stations, void *stream);

/**
 * @brief ADER predictor on the GPU (sq_kernel_ader), fused with the LTS buffer update
 * (sq_kernel_accumulate): one kernel per call.
 * @param derivs      NULL, or O x B x 9 per element: receives D^0..D^N
 * @param lts_buffer  NULL, or B x 9 per element: buffer = tint (@p buffer_reset) or buffer += tint
 */
void sq_cuda_ader(sq_precision prec, int order, int64_t n, const void *pack, const void *dofs, const void *star,
                  double dt, void *tint, void *derivs, void *lts_buffer, int buffer_reset, void *stream);

/** @brief The predictor with attenuation on the GPU (sq_kernel_ader_ane, then sq_kernel_accumulate into
 *  @p lts_buffer where given). */
void sq_cuda_ader_ane(sq_precision prec, int order, int nmech, int64_t n, const void *pack, const void *dofs,
                      const void *star, const void *coef, double dt, void *tint, void *derivs, void *ane,
                      void *lts_buffer, int buffer_reset, void *stream);
/** @brief phi_l += sign C_u^-1 sigma on the GPU (sq_kernel_ane_shift). */
void sq_cuda_ane_shift(sq_precision prec, int order, int nmech, int64_t n, const void *coef, const void *dofs, int sign,
                       void *ane, void *stream);
/** @brief The anelastic part of the local update on the GPU (sq_kernel_ane_source). */
void sq_cuda_ane_source(sq_precision prec, int order, int nmech, int64_t n, const void *ane, void *dofs, void *stream);

/** @brief Volume + local-flux update on the GPU (sq_kernel_local). */
void sq_cuda_local(sq_precision prec, int order, int64_t n, const void *pack, const void *tint, const void *star,
                   const void *flux_local, void *dofs, void *stream);

/** @brief sq_cuda_local through the split sparse kernel (local_split_kernel, src/cuda/cuda_sparse.cuh) at any order
 *  and precision, whether sq_cuda_local takes it there or not: for tests. */
void sq_cuda_local_split(sq_precision prec, int order, int64_t n, const void *pack, const void *tint, const void *star,
                         const void *flux_local, void *dofs, void *stream);

/** @brief sq_cuda_local through the tensor-core kernel (local_tensor_kernel, src/cuda/cuda_tensor.cuh) at any order, in
 *  double precision (its only precision), whether sq_cuda_local takes it there or not: for tests. */
void sq_cuda_local_tensor(int order, int64_t n, const void *pack, const void *tint, const void *star,
                          const void *flux_local, void *dofs, void *stream);

/**
 * @brief Neighbour-flux update on the GPU (sq_kernel_neighbor); the 48 flux matrices are selected per
 * face inside the kernel (link.flux), derivatives links integrate over [t0, t1] of their slot.
 * @param slots  host struct, copied into the kernel's parameters (nslot <= SQ_CUDA_MAX_SLOTS)
 */
void sq_cuda_neighbor(sq_precision prec, int order, int64_t n, const void *pack, const sq_face_link *links,
                      const void *flux_nb, const sq_cuda_slots *slots, void *dofs, void *stream);

/** One tile of a merged predictor launch (sq_cuda_predict_segments): its arrays (device pointers), time step
 *  and LTS-buffer mode; first_block is set by the launcher. */
typedef struct sq_cuda_segment {
  int64_t n;
  void *dofs;
  const void *star, *flux_local;
  void *tint, *derivs, *lts_buffer;
  double dt;
  int buffer_reset;
  unsigned first_block;
} sq_cuda_segment;
/** Most tiles of one merged predictor launch. */
#define SQ_CUDA_MAX_SEGMENTS 8
/** The segment table, passed by value as a kernel parameter. */
typedef struct sq_cuda_segments {
  int nseg, epb;
  sq_cuda_segment seg[SQ_CUDA_MAX_SEGMENTS];
} sq_cuda_segments;

/**
 * @brief Fused predictor (merged codelet): ader (+ LTS buffer) and the local update in one kernel;
 * tint stays in shared memory between the two, and is also written to @p tint.
 */
void sq_cuda_predict(sq_precision prec, int order, int64_t n, const void *pack, void *dofs, const void *star,
                     const void *flux_local, double dt, void *tint, void *derivs, void *lts_buffer, int buffer_reset,
                     void *stream);
/**
 * @brief The fused predictor of up to SQ_CUDA_MAX_SEGMENTS tiles in one launch (a merged task, thesis §6.5.3):
 * the blocks of all segments form one grid, sized as for their total element count.  Bitwise the same as
 * sq_cuda_predict per segment.  @p segs: nseg and each segment's arrays; the launcher fills the rest.
 */
void sq_cuda_predict_segments(sq_precision prec, int order, sq_cuda_segments *segs, const void *pack, void *stream);

/**
 * @brief Plasticity correction of a tile on the GPU (sq_plasticity_tile, thesis ch. 8): threads over the B
 * nodes of an element, several elements per block; the return mapping is plasticity_impl.h's.  Results
 * agree with the CPU body bit for bit where the relaxation time is 0 (no FMA, the CPU's summation order),
 * else to the last bits of expm1.
 * @param ref_pack     V then V^-1 (B x B each, column-major) in the working precision
 * @param dofs         n x B x 9 (stress columns updated where an element yields)
 * @param initial_stress, params, mu, strain, yielded  the tile's rows of the plasticity blocks
 *                     (n x 6 x B nodal initial stress in the working precision, n x 3, n, n x 7
 *                     updated, n flags written)
 * @param yield_count  one int64 in device memory: the number of yielding elements is added to it
 */
void sq_cuda_plasticity(sq_precision prec, int order, int64_t n, double psi0, const void *ref_pack, void *dofs,
                        const void *initial_stress, const double *params, const double *mu, double dt, double *strain,
                        uint8_t *yielded, int64_t *yield_count, void *stream);

/**
 * @brief Load, on the current GPU, the kernels that the ader, local, neighbour and fused predictor launchers select
 * for tiles of each of the @p nsize element counts @p sizes, without launching anything.  CUDA otherwise loads a
 * kernel at its first launch, inside the first tasks of the time stepping.
 */
void sq_cuda_load_kernels(sq_precision prec, int order, const int64_t *sizes, int nsize);

/** @brief Number of CUDA devices visible (0 when there is none or the driver fails). */
int sq_cuda_device_count(void);

#ifdef __cplusplus
}
#endif

#endif
