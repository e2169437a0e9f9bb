/**
 * @file sq_runtime_impl.h  The StarPU side of sq_runtime.h, private to runtime/ and codelets/: the data
 * handles per tile, worker placement, profiling and the helpers the codelet files share.  Each codelet
 * lives in its own file in codelets/ with its CPU body, its CUDA launcher call and its history-based
 * performance model.
 */
#ifndef SQ_RUNTIME_IMPL_H
#define SQ_RUNTIME_IMPL_H

#include <starpu.h>

#include "sq_runtime.h"

/** Task kinds for the per-kind time breakdown (profiling). */
enum sq_task_kind {
  SQ_TASK_ADER,
  SQ_TASK_LOCAL,
  SQ_TASK_NEIGHBOR,
  SQ_TASK_MERGED,
  SQ_TASK_STEP,
  SQ_TASK_HALO,
  SQ_TASK_RUPTURE,
  SQ_TASK_PLASTICITY,
  SQ_TASK_OTHER,
  SQ_NTASK_KINDS
};

/** Accumulated execution time of one task kind (filled from task callbacks when profiling is on). */
typedef struct sq_task_profile {
  int64_t count;
  int64_t nanoseconds;
  struct sq_runtime *rt; /**< back pointers for the callback, which gets only this struct */
  int kind;
} sq_task_profile;

/** One executed task in a trace (sq_runtime_trace_start): times in ns of the monotonic clock.  ready: its
 * dependencies were met and it went to the scheduler; popped: its worker took it; fetched: its input data was on
 * its worker's memory node. */
typedef struct sq_trace_event {
  int64_t submit, ready, popped, fetched, start, end;
  int32_t tile; /**< the tile it computes (the first one of a merged task, a halo message's first copy tile) */
  int16_t worker;
  int8_t kind; /**< enum sq_task_kind */
} sq_trace_event;

/** StarPU handles of one discretisation, registered tile by tile over the arrays of sq_disc. */
struct sq_runtime {
  sq_disc *disc;
  starpu_data_handle_t pack;              /**< reference matrices (read-only, replicated where needed) */
  starpu_data_handle_t *dofs;             /**< per tile */
  starpu_data_handle_t *tint;             /**< per tile */
  starpu_data_handle_t *star;             /**< per tile, read-only */
  starpu_data_handle_t *flux_local;       /**< per tile, read-only */
  starpu_data_handle_t *flux_nb;          /**< per tile, read-only */
  starpu_data_handle_t *link;             /**< per tile, read-only face links */
  starpu_data_handle_t *derivs;           /**< per tile with needs_derivs (LTS), else NULL entries */
  starpu_data_handle_t *buffer;           /**< per tile with needs_buffer (LTS), else NULL entries */
  starpu_data_handle_t *ane;              /**< per owned tile with attenuation: memory variables, else NULL */
  starpu_data_handle_t *ane_coef;         /**< per owned tile with attenuation: kernel coefficients (read-only) */
  struct sq_halo *halo;                   /**< MPI send plan (halo.c) */
  const struct sq_source_set *sources;    /**< point sources (source.c), NULL: none */
  starpu_data_handle_t *source_points;    /**< per tile with sources: its sq_source_point block, else NULL */
  struct sq_receiver_set *receivers;      /**< receivers (receivers.c), NULL: none */
  starpu_data_handle_t *receiver_points;  /**< per tile with receivers: its sq_receiver_point block, else NULL */
  struct sq_fault *fault;                 /**< dynamic rupture faces (rupture.c), NULL: none */
  starpu_data_handle_t fault_ref;         /**< the fault's reference matrices (read-only) */
  starpu_data_handle_t *fault_faces;      /**< per fault tile: its faces (read-only) */
  starpu_data_handle_t *fault_points;     /**< per fault tile: its friction state */
  starpu_data_handle_t *fault_tp;         /**< per fault tile: its thermal-pressurization state (NULL: none) */
  int *fault_shared;                      /**< per fault tile: 1 if an owned element has several of its faces */
  struct sq_fault_samples *fault_samples; /**< the on-fault stations' sample buffers (rupture.c), NULL: none */
  struct sq_plastic_state *plastic;       /**< off-fault plasticity data (plasticity.c), NULL: none */
  starpu_data_handle_t plastic_ref;       /**< V and V^-1 in the working precision (read-only) */
  starpu_data_handle_t *plastic_stress;   /**< per owned tile: initial stress (read-only); NULL for ghosts */
  starpu_data_handle_t *plastic_params;   /**< per owned tile: cohesion, bulk friction, Tv (read-only) */
  starpu_data_handle_t *plastic_mu;       /**< per owned tile: shear modulus (read-only) */
  starpu_data_handle_t *plastic_strain;   /**< per owned tile: accumulated plastic strain and eta */
  starpu_data_handle_t *plastic_yielded;  /**< per owned tile: yield flags of the last update */
  starpu_data_handle_t *plastic_count;    /**< per owned tile: yielding element updates since the last sync */
  int64_t *plastic_count_value;           /**< ntile: the host copies of those counters */
  void **pinned;                          /**< page-locked host ranges of the ghost tiles (unpinned at destroy) */
  int npinned;
  int32_t *tile_where;   /**< per tile: STARPU_CPU or STARPU_CUDA for its element tasks
                              (sq_runtime_split_tiles); NULL: wherever StarPU chooses */
  int16_t *tile_gpu;     /**< per tile: the GPU its element tasks run on (sq_runtime_place_tiles_on_gpus),
                              -1: any; NULL: no placement */
  uint32_t *gpu_workers; /**< per GPU: bitmap (gpu_words words) of the workers its tiles may use */
  unsigned gpu_words;
  int side_user;      /**< its upload made the CUDA workers' side streams or found them (memory.c) */
  int chain_priority; /**< sq_runtime_set_chain_priority */
  unsigned char upload_fits[STARPU_MAXNODES]; /**< per memory node: what sq_runtime_upload made room for there
                                                   (SQ_FITS_OWN, SQ_FITS_COPIES) */
  int profile;                                /**< 1: accumulate per-kind task times (needs STARPU_PROFILING) */
  starpu_data_handle_t *tint_alt; /**< NULL, or per tile NULL or a second time-integral array (sq_runtime_double_tint):
                                       consecutive predictors of the tile write tint and tint_alt in turn */
  unsigned char *tint_odd;        /**< per tile with tint_alt: the last submitted predictor wrote tint_alt */
  struct sq_forward *forward;     /**< per tile: the GPUs its predictor's outputs go to at once (forward.c); NULL */
  struct sq_forward_arg *forward_arg; /**< per tile and forwarding task kind: that task's callback argument */
  sq_task_profile prof[SQ_NTASK_KINDS];
  sq_trace_event *trace;               /**< NULL, or one event per executed task (up to trace_capacity) */
  int64_t trace_capacity, trace_count; /**< trace_count may pass the capacity: the events beyond are lost */
  double *frozen_total, *frozen_exec;  /**< per worker: the counters at sq_runtime_profile_freeze (NULL: none) */
  unsigned frozen_workers;
  int nhook; /**< detach hooks, run in reverse order by sq_runtime_destroy */
  void (*hook[8])(sq_runtime *);
  int (*sync_hook)(sq_runtime *, int write); /**< run by sq_runtime_sync (write 0) and sq_runtime_host_overwrite
                                                 (write 1) after the dofs (plasticity: its state) */
  int (*wait_hook)(sq_runtime *);            /**< run by sq_runtime_wait after the tasks (fault stations: their rows) */
};

/** @brief Have sq_runtime_destroy call @p detach (an attach function's undo) before it unregisters the tiles. */
int sq_runtime_on_destroy(sq_runtime *rt, void (*detach)(sq_runtime *));

/** @brief Callback for task insertion: the function to pass with STARPU_CALLBACK_WITH_ARG_NFREE (NULL unless
 * profiling). */
void (*sq_profile_callback(const sq_runtime *rt))(void *);
/** @brief Its argument for a task of kind @p kind. */
void *sq_profile_arg(sq_runtime *rt, enum sq_task_kind kind);
/** @brief The profiling callback itself, for a task of the kind whose profile is @p prof. */
void sq_profile_task_done(void *prof);
/** @brief The completion callback of a task of @p kind that computes @p tile: the forwarding of its outputs to
 * other GPUs (sq_runtime_forward_outputs) where it has any, then the profiling; NULL where neither applies. */
void (*sq_task_callback(const sq_runtime *rt, enum sq_task_kind kind, int tile))(void *);
/** @brief Its argument. */
void *sq_task_callback_arg(sq_runtime *rt, enum sq_task_kind kind, int tile);
/** Which array of a neighbour tile of cluster @p nb a tile of cluster @p reader reads in its neighbour flux (§3.5):
 * of its own cluster the time integrals, of a slower one the derivatives over the reader's sub-interval, of a faster
 * one the LTS buffer accumulated over the reader's step. */
enum sq_neighbour_array { SQ_READS_TINT, SQ_READS_DERIVS, SQ_READS_BUFFER };
static inline enum sq_neighbour_array sq_neighbour_reads(int reader, int nb) {
  return nb == reader ? SQ_READS_TINT : nb > reader ? SQ_READS_DERIVS : SQ_READS_BUFFER;
}
/** The time integrals of @p tile that tasks submitted now read: those of its last submitted predictor. */
static inline starpu_data_handle_t sq_tint_handle(const sq_runtime *rt, int tile) {
  return rt->tint_alt && rt->tint_alt[tile] && rt->tint_odd[tile] ? rt->tint_alt[tile] : rt->tint[tile];
}
/** The time integrals that a predictor of @p tile submitted now writes (the other copy, where it has two). */
static inline starpu_data_handle_t sq_tint_next(sq_runtime *rt, int tile) {
  if (rt->tint_alt && rt->tint_alt[tile]) rt->tint_odd[tile] ^= 1;
  return sq_tint_handle(rt, tile);
}
/** The time integrals that the next predictor of @p tile will write, chosen now without advancing (a whole-step
 * task's tail predicting ahead, sq_runtime_tint_advance when that predictor's turn comes). */
static inline starpu_data_handle_t sq_tint_ahead(const sq_runtime *rt, int tile) {
  return rt->tint_alt && rt->tint_alt[tile] && !rt->tint_odd[tile] ? rt->tint_alt[tile] : rt->tint[tile];
}
/** The handle that a neighbour task of a tile of cluster @p reader reads of its neighbour tile @p nt, submitted now
 * (sq_neighbour_reads; of its own cluster the time integrals of nt's last submitted predictor). */
static inline starpu_data_handle_t sq_neighbour_handle(const sq_runtime *rt, int reader, int nt) {
  switch (sq_neighbour_reads(reader, rt->disc->tile[nt].cluster)) {
  case SQ_READS_TINT: return sq_tint_handle(rt, nt);
  case SQ_READS_DERIVS: return rt->derivs[nt];
  default: return rt->buffer[nt];
  }
}
/** The completion callback's argument of a whole-step task that predicts @p tiles ahead (sq_step_tail.predict): the
 * copies of their outputs to the other GPUs that read them (sq_runtime_forward_outputs), resolved now, and the
 * profiling; NULL where nothing is forwarded.  Its callback is sq_forward_ahead_done, which frees it. */
void *sq_forward_ahead_arg(sq_runtime *rt, int ntile, const int *tiles);
/** The callback for sq_forward_ahead_arg's argument. */
void sq_forward_ahead_done(void *arg);
/** Free the second time-integral copies (sq_runtime_destroy). */
void sq_tint_alt_destroy(sq_runtime *rt);
/** Free what sq_runtime_forward_outputs planned (sq_runtime_destroy). */
void sq_forward_destroy(sq_runtime *rt);
/** The task-insertion arguments for the completion callback (forwarding, profiling, tracing) of a task of @p kind
 * that computes @p tile. */
#define SQ_PROFILE(rt, kind, tile)                                                                                     \
  SQ_TASK_CALLBACK(sq_task_callback(rt, kind, tile), sq_task_callback_arg(rt, kind, tile), tile)
/** The same with the callback @p done and its argument @p arg given (the tile's tag as SQ_PROFILE's). */
#define SQ_TASK_CALLBACK(done, arg, tile)                                                                              \
  STARPU_CALLBACK_WITH_ARG_NFREE, done, arg, STARPU_TAG_ONLY, (starpu_tag_t)(tile)

/**
 * @brief Build the halo send plan and its buffers (no-op on one rank).  Called by sq_runtime_create
 * before the tiles are registered: copy tiles that hold part of a message keep every data kind
 * (derivatives, buffer) the peer reads.
 */
int sq_halo_create(sq_runtime *rt);
/** Free the halo plan. */
void sq_halo_destroy(sq_runtime *rt);
/** @brief Page-lock @p bytes at @p ptr for asynchronous GPU copies (only with GPU workers); 1 if pinned. */
int sq_host_pin(void *ptr, size_t bytes);

/** Where the element tasks of @p tile may run (the value for STARPU_EXECUTE_WHERE; -1: anywhere). */
static inline unsigned long long sq_tile_where(const sq_runtime *rt, int tile) {
  return rt->tile_where ? (unsigned long long)(uint32_t)rt->tile_where[tile] : (unsigned long long)-1;
}
/**
 * The distinct CUDA devices of the started runtime, in worker order (the numbering of the GPUs everywhere in
 * runtime/): their device ids into @p devid and the first worker of each into @p first_worker (either may be
 * NULL).  Returns how many.
 */
int sq_runtime_cuda_devices(int devid[STARPU_NMAXWORKERS], int first_worker[STARPU_NMAXWORKERS]);
/** The GPU that @p tile's element tasks run on, -1: any. */
static inline int sq_tile_gpu(const sq_runtime *rt, int tile) { return rt->tile_gpu ? rt->tile_gpu[tile] : -1; }
/** Most GPUs of one process that sq_place_fastest_cluster takes. */
#define SQ_MAX_PLACED_GPUS 64
/** Most LTS clusters that sq_gather_cluster_cells takes. */
#define SQ_MAX_PLACED_CLUSTERS 64
/**
 * @brief Put every tile of the fastest LTS cluster on one GPU (the one holding most of its work) and move
 * tiles of the slowest clusters off that GPU until its element updates per sync interval are back near an
 * equal share: the fastest cluster's sub-steps, the longest chain of dependent tasks, then never wait for a
 * copy between GPUs among themselves.  With @p keep_chain, cluster 1's tiles that read cluster 0 (its chain's
 * other half, sq_gather_fast_chain) stay on that GPU too, and the other GPUs then even out their loads among
 * themselves by tiles of clusters 2 and slower (the gathering moved cells of cluster 1 between their regions).
 * That GPU aims at @p fast_share (0..1] of an equal share of the element updates, the others at equal parts of
 * the rest (runtime.fast_gpu_share): below 1, they take more of its slow tiles.
 * @p tile_gpu (per tile, -1: not on a GPU) is rewritten.
 * @return that GPU, or -1 (nothing changed: one cluster, one GPU, @p fast_share outside (0, 1], or a fastest
 *         cluster with more than one GPU's share of the work that is not on one GPU already)
 */
int sq_place_fastest_cluster(const sq_disc *d, int ngpu, int keep_chain, double fast_share, int16_t *tile_gpu);
/**
 * @brief sq_runtime_upload for one tile: prefetch its inputs to memory node @p node and, with @p outputs, make
 * room there for its outputs (a write-only access, released at once: no copy, the host copy goes stale).
 */
int sq_runtime_upload_tile(sq_runtime *rt, int tile, int node, int outputs, sq_upload_stats *st);
/** The memory node of the GPU that all of @p tile's element tasks run on, -1 if not one known GPU. */
int sq_runtime_tile_node(const sq_runtime *rt, int tile);
/** sq_runtime_upload's flags per memory node: its tiles' data went there, and room for their copies of the
 *  other GPUs' outputs that they read. */
#define SQ_FITS_OWN    1
#define SQ_FITS_COPIES 2
/** The worker bitmap of GPU @p gpu for STARPU_TASK_WORKERIDS (NULL with length 0: any worker). */
static inline uint32_t *sq_gpu_workers(const sq_runtime *rt, int gpu) {
  return gpu >= 0 ? rt->gpu_workers + (size_t)gpu * rt->gpu_words : NULL;
}
static inline unsigned sq_gpu_words(const sq_runtime *rt, int gpu) { return gpu >= 0 ? rt->gpu_words : 0; }
/** The task-insertion arguments that place the element tasks of @p tile (CPU/GPU split, GPU affinity). */
#define SQ_TILE_PLACEMENT(rt, tile)                                                                                    \
  STARPU_EXECUTE_WHERE, sq_tile_where(rt, tile), STARPU_TASK_WORKERIDS, sq_gpu_words(rt, sq_tile_gpu(rt, tile)),       \
      sq_gpu_workers(rt, sq_tile_gpu(rt, tile))

/** A perf-model footprint from the byte size of the task's buffer @p i alone (a tile's dofs): tasks whose other
 *  buffers vary (neighbour sets) then share one calibration per tile size. */
static inline uint32_t sq_footprint_of_buffer(struct starpu_task *task, int i) {
  const starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
  return starpu_hash_crc32c_be((uint32_t)(starpu_vector_get_nx(h) * starpu_vector_get_elemsize(h)), 0);
}

/** The perf models' size of an element task (size_base of ader, local, neighbour): its tile's element count
 *  times SQ_PERF_KEY_BASE plus a code of order and precision, so that sq_runtime_kind_rates can read a
 *  time per element back for one order and precision. */
#define SQ_PERF_KEY_BASE 256
static inline size_t sq_perf_size_key(int64_t nelem, int order, sq_precision precision) {
  return (size_t)nelem * SQ_PERF_KEY_BASE + (size_t)(2 * order + (precision == SQ_F64));
}
/** A footprint @p base extended by the size key: StarPU's default footprint hashes the element counts of the
 *  buffers only, so that the same tile at another order or precision would share its history. */
static inline uint32_t sq_perf_footprint(uint32_t base, size_t key) {
  return starpu_hash_crc32c_be_n(&key, sizeof(key), base);
}

/** The predictor's part of a task for one tile: its time step, what it stores, its buffers in the task. */
typedef struct sq_segment {
  double dt;
  int store_derivs;      /**< a derivatives buffer follows tint */
  sq_buffer_mode buffer; /**< an LTS buffer follows */
  int nbuf;              /**< buffers of this segment */
} sq_segment;
/** Most buffers of one segment. */
#define SQ_SEGMENT_MAX_BUFFERS 6
/**
 * @brief Append to @p descr the predictor's data of @p tile (merged.c): dofs (RW), star, flux_local, tint
 * (W), then the derivatives (W) where the tile keeps them and the LTS buffer (W to reset, RW to
 * accumulate) for @p mode; describe them in @p seg.  The merged and the whole-step tasks use it.
 */
int sq_segment_buffers(sq_runtime *rt, int tile, double dt, sq_buffer_mode mode, struct starpu_data_descr *descr,
                       sq_segment *seg);
/** The same for the tile's next predictor, taken ahead: its time integrals are sq_tint_ahead's, and the arrays do
 * not advance (sq_runtime_tint_advance does that when the predictor's turn comes). */
int sq_segment_buffers_ahead(const sq_runtime *rt, int tile, double dt, sq_buffer_mode mode,
                             struct starpu_data_descr *descr, sq_segment *seg);
/** The tint buffer's pointer among a segment's buffers @p buf. */
void *sq_segment_tint(void **buf);
/** Run a segment on the CPU: ader, LTS buffer, local, on the task buffers @p buf of sq_segment_buffers. */
void sq_segment_cpu(sq_precision prec, int order, const sq_segment *seg, const void *pack, void **buf);
#ifdef SQ_USE_CUDA
/** The same as one fused predictor kernel on @p stream. */
void sq_segment_cuda(sq_precision prec, int order, const sq_segment *seg, const void *pack, void **buf,
                     cudaStream_t stream);
#endif

/** Arguments shared by the step codelets. */
typedef struct sq_step_args {
  sq_precision precision;
  int order;
  double dt;
  int store_derivs;      /**< ader: a derivatives buffer follows tint */
  sq_buffer_mode buffer; /**< ader: an LTS buffer follows */
  int nmech;             /**< ader, local with attenuation: relaxation mechanisms */
} sq_step_args;

#ifdef SQ_USE_CUDA
/**
 * @brief CUDA bodies of the source and receiver tasks: copy the rows of the @p ne elements @p elems
 * (ascending) of a tile array on the GPU (@p dev, @p row_bytes per element) into the packed host
 * array @p host (gather), or back (scatter), on @p stream.  The caller synchronises the stream.
 * These tasks touch a handful of elements per tile, so they stage those elements instead of the tile:
 * the tile's data stays on the GPU and the arithmetic is the CPU body's, bit for bit.
 */
void sq_cuda_stage_rows(int to_device, void *dev, void *host, size_t row_bytes, int ne, const int32_t *elems,
                        cudaStream_t stream);
/** @brief Wait for @p stream; abort with a message naming @p what on a CUDA error. */
void sq_cuda_stage_wait(cudaStream_t stream, const char *what);
/** Side streams per CUDA worker. */
#define SQ_CUDA_SIDE_STREAMS 2
/**
 * @brief The calling CUDA worker's side stream @p k (0 .. SQ_CUDA_SIDE_STREAMS - 1), made at the upload at its GPU's
 * highest stream priority, on which a task runs kernels beside or before those of the other streams; NULL where the
 * worker has none (then the task keeps to its own stream).
 */
cudaStream_t sq_cuda_side_stream(int k);
/** @brief What @p waiter is given next follows what @p waited was given so far (streams of the calling worker's GPU;
 *  aborts with a message on a CUDA error). */
void sq_cuda_stream_follow(cudaStream_t waiter, cudaStream_t waited);
/** @brief The side streams are destroyed with the last runtime whose upload made or found them (sq_runtime_destroy). */
void sq_runtime_side_release(sq_runtime *rt);
#endif

/** @brief Make the host copies of the plastic strain and yield flags valid, or (@p write) the only valid
 *  ones, about to be overwritten (the plasticity's sync hook). */
int sq_runtime_sync_plasticity(sq_runtime *rt, int write);

/* ---- quasi-static solver (runtime/qs.c, codelets/qs_ebe.c) ---- */
struct sq_qs_runtime {
  const struct sq_qs_mesh *qm;
  int ntile;
  starpu_data_handle_t *geo, *geo32; /**< per tile: its cells' geometry rows, double and single */
  starpu_data_handle_t *in;          /**< per tile: its cells' global nodes (cell_node rows) */
  starpu_data_handle_t *out;         /**< per tile: its cells' tile-local nodes */
  starpu_data_handle_t *node;        /**< per tile: the global node of each tile-local node */
  starpu_data_handle_t *rows;        /**< per tile: the product's tile-local rows (3 nnode reals, double size) */
  void **rows_mem;
  starpu_data_handle_t edge_vert, vert_edge_ptr, vert_edge; /**< the mesh's transfer tables */
  int nchunk;                                               /**< chunks of the transfers' outputs */
  /* per tile, [0] P2 and [1] P1: blocks of cells over the tile-local rows (sq_qs_blocks.h), for the CUDA body's
   * shared-memory reduction; their row offsets, rows and gather slots (blk_local: sq_qs_blocks.gather) as handles */
  struct sq_qs_blocks **blk[2];
  starpu_data_handle_t *blk_ptr[2], *blk_row[2], *blk_local[2];
  int64_t nebe, nreduce, ntransfer;
  /* per tile: the rows of the multi-vector products (3 nnode SQ_QS_MAXVEC reals, double size), made at the first */
  starpu_data_handle_t *rows_multi;
  void **rows_multi_mem;
};
/** Arguments of the quasi-static tasks. */
typedef struct sq_qs_task_args {
  sq_precision precision;
  int p1;        /**< the P1 operator on the vertices (else P2) */
  int64_t nrows; /**< tile-local nodes the product writes (all, or the vertices for P1) */
  /* the tile's blocks of cells (CUDA body): cells per block, blocks, rows of the largest block */
  int blk_cells;
  int64_t nblk, blk_max_rows;
  int nvec; /**< vectors interleaved per component (0: 1) */
} sq_qs_task_args;
/** Cells per block of the CUDA EBE body (threads per GPU block). */
#define SQ_QS_CUDA_BLOCK_CELLS 64
/** Arguments of the transfer tasks: the rows [first, end) of the output (vertices or P2 nodes). */
typedef struct sq_qs_transfer_args {
  int64_t nvert, first, end;
  int nvec; /**< vectors interleaved per component (0: 1) */
} sq_qs_transfer_args;
/** @brief Insert the restriction of the vertices [v0, v1) into @p rc_part (that block of rc) from @p r. */
int sq_insert_qs_restrict(sq_qs_runtime *qr, int64_t v0, int64_t v1, starpu_data_handle_t r,
                          starpu_data_handle_t rc_part);
/** @brief Insert the prolongation of the P2 nodes [n0, n1) into @p z_part (that block of z) from @p zc. */
int sq_insert_qs_prolong(sq_qs_runtime *qr, int64_t n0, int64_t n1, starpu_data_handle_t zc,
                         starpu_data_handle_t z_part);
/** @brief Insert the EBE product of tile @p t: rows = K_tile x. */
int sq_insert_qs_ebe(sq_qs_runtime *qr, int t, sq_precision prec, int p1, starpu_data_handle_t x);
/** @brief Insert the reduction of tile @p t: y += its rows (commuting with the other tiles' reductions). */
int sq_insert_qs_reduce(sq_qs_runtime *qr, int t, sq_precision prec, int p1, starpu_data_handle_t y);
/** @brief The same for @p nvec vectors interleaved per component, into/from the rows handle @p rows of tile t. */
int sq_insert_qs_ebe_multi(sq_qs_runtime *qr, int t, sq_precision prec, int p1, int nvec, starpu_data_handle_t x,
                           starpu_data_handle_t rows);
int sq_insert_qs_reduce_multi(sq_qs_runtime *qr, int t, sq_precision prec, int p1, int nvec, starpu_data_handle_t rows,
                              starpu_data_handle_t y);
/** @brief The transfers for @p nvec vectors interleaved per component. */
int sq_insert_qs_restrict_multi(sq_qs_runtime *qr, int nvec, int64_t v0, int64_t v1, starpu_data_handle_t r,
                                starpu_data_handle_t rc_part);
int sq_insert_qs_prolong_multi(sq_qs_runtime *qr, int nvec, int64_t n0, int64_t n1, starpu_data_handle_t zc,
                               starpu_data_handle_t z_part);

/* ---- the quasi-static solver's exchange between ranks (runtime/qs_comm.c, codelets/qs_halo.c) ---- */
struct sq_qs_part;
typedef struct sq_qs_halo_args {
  const struct sq_qs_part *part;
  int peer;          /**< qs_pack: the peer's index in part->peer */
  int p1, nval, f32; /**< the P1 mesh's vertices alone; values a node; single precision */
  void *acc;         /**< qs_sum: workspace of nshared x nval values */
} sq_qs_halo_args;
/** @brief Insert the gather of the values @p y holds at the nodes shared with peer args->peer into @p buf. */
int sq_insert_qs_pack(const sq_qs_halo_args *args, starpu_data_handle_t y, starpu_data_handle_t buf);
/** @brief Insert the sums at the shared nodes of @p y with the peers' values @p recv (part->npeer handles). */
int sq_insert_qs_sum(const sq_qs_halo_args *args, starpu_data_handle_t y, const starpu_data_handle_t *recv);

#endif
