/**
 * @file sq_codelets.h  StarPU side of the solver: data handles per tile and one insert function per
 * step.  Each step lives in its own file (ader.c, local.c, neighbor.c) with its CPU body, its CUDA
 * launcher (when built with CUDA) and its history-based performance model.
 */
#ifndef SQ_CODELETS_H
#define SQ_CODELETS_H

#include <starpu.h>

#include "sq_solver.h"

/** Task kinds for the per-kind time breakdown (profiling). */
enum sq_task_kind {
  SQ_TASK_ADER, SQ_TASK_LOCAL, SQ_TASK_NEIGHBOR, SQ_TASK_MERGED, SQ_TASK_STEP, SQ_TASK_HALO, SQ_TASK_RUPTURE, SQ_TASK_PLASTICITY,
  SQ_TASK_OTHER, SQ_NTASK_KINDS
};

/** Accumulated execution time of one task kind (filled from task callbacks when profiling is on). */
typedef struct sq_task_profile {
  int64_t count;
  int64_t nanoseconds;
  struct sq_runtime *rt; /**< back pointers for the callback, which gets only this struct */
  int kind;
} sq_task_profile;

/** One executed task in a trace (sq_runtime_trace_start): times in ns of the monotonic clock. */
typedef struct sq_trace_event {
  int64_t submit, start, end;
  int32_t tile; /**< the tile it computes (the first one of a merged task, a halo message's first copy tile) */
  int16_t worker;
  int8_t kind; /**< enum sq_task_kind */
} sq_trace_event;

/** StarPU handles of one discretisation, registered tile by tile over the arrays of sq_disc. */
typedef struct sq_runtime {
  sq_disc *disc;
  starpu_data_handle_t pack;        /**< reference matrices (read-only, replicated where needed) */
  starpu_data_handle_t *dofs;       /**< per tile */
  starpu_data_handle_t *tint;       /**< per tile */
  starpu_data_handle_t *star;       /**< per tile, read-only */
  starpu_data_handle_t *flux_local; /**< per tile, read-only */
  starpu_data_handle_t *flux_nb;    /**< per tile, read-only */
  starpu_data_handle_t *link;       /**< per tile, read-only face links */
  starpu_data_handle_t *derivs;     /**< per tile with needs_derivs (LTS), else NULL entries */
  starpu_data_handle_t *buffer;     /**< per tile with needs_buffer (LTS), else NULL entries */
  struct sq_halo *halo;             /**< MPI send plan (halo.c) */
  const struct sq_source_set *sources;  /**< point sources (source.c), NULL: none */
  starpu_data_handle_t *source_points;  /**< per tile with sources: its sq_source_point block, else NULL */
  struct sq_receiver_set *receivers;    /**< receivers (receivers.c), NULL: none */
  starpu_data_handle_t *receiver_points;/**< per tile with receivers: its sq_receiver_point block, else NULL */
  struct sq_fault *fault;                /**< dynamic rupture faces (rupture.c), NULL: none */
  starpu_data_handle_t fault_ref;        /**< the fault's reference matrices (read-only) */
  starpu_data_handle_t *fault_faces;     /**< per fault tile: its faces (read-only) */
  starpu_data_handle_t *fault_points;    /**< per fault tile: its friction state */
  int *fault_shared;                     /**< per fault tile: 1 if an owned element has several of its faces */
  struct sq_plastic_state *plastic;      /**< off-fault plasticity data (plasticity.c), NULL: none */
  starpu_data_handle_t plastic_ref;      /**< V and V^-1 in the working precision (read-only) */
  starpu_data_handle_t *plastic_stress;  /**< per owned tile: initial stress (read-only); NULL for ghosts */
  starpu_data_handle_t *plastic_params;  /**< per owned tile: cohesion, bulk friction, Tv (read-only) */
  starpu_data_handle_t *plastic_mu;      /**< per owned tile: shear modulus (read-only) */
  starpu_data_handle_t *plastic_strain;  /**< per owned tile: accumulated plastic strain and eta */
  starpu_data_handle_t *plastic_yielded; /**< per owned tile: yield flags of the last update */
  starpu_data_handle_t *plastic_count;   /**< per owned tile: yielding element updates since the last sync */
  int64_t *plastic_count_value;          /**< ntile: the host copies of those counters */
  void **pinned;                    /**< page-locked host ranges of the ghost tiles (unpinned at destroy) */
  int npinned;
  int32_t *tile_where;              /**< per tile: STARPU_CPU or STARPU_CUDA for its element tasks
                                         (sq_runtime_split_tiles); NULL: wherever StarPU chooses */
  int16_t *tile_gpu;                /**< per tile: the GPU its element tasks run on (sq_runtime_place_tiles_on_gpus),
                                         -1: any; NULL: no placement */
  uint32_t *gpu_workers;            /**< per GPU: bitmap (gpu_words words) of the workers its tiles may use */
  unsigned gpu_words;
  int profile;                      /**< 1: accumulate per-kind task times (needs STARPU_PROFILING) */
  sq_task_profile prof[SQ_NTASK_KINDS];
  sq_trace_event *trace;            /**< NULL, or one event per executed task (up to trace_capacity) */
  int64_t trace_capacity, trace_count; /**< trace_count may pass the capacity: the events beyond are lost */
  double *frozen_total, *frozen_exec; /**< per worker: the counters at sq_runtime_profile_freeze (NULL: none) */
  unsigned frozen_workers;
} sq_runtime;

/** @brief Callback for task insertion: the function to pass with STARPU_CALLBACK_WITH_ARG_NFREE (NULL unless profiling). */
void (*sq_profile_callback(const sq_runtime *rt))(void *);
/** @brief Its argument for a task of kind @p kind. */
void *sq_profile_arg(sq_runtime *rt, enum sq_task_kind kind);
/** @brief Print the per-kind time breakdown and each worker's idle fraction. */
void sq_runtime_print_profile(const sq_runtime *rt, FILE *out);
/** @brief Zero the per-kind times, the workers' counters and the trace (no task may be running): profile
 *  what follows. */
void sq_runtime_profile_reset(sq_runtime *rt);
/** @brief Keep the workers' counters as they are now (the end of the time stepping): the report then shows
 *  them rather than counters that ran on through the outputs. */
int sq_runtime_profile_freeze(sq_runtime *rt);
/** @brief Record up to @p capacity executed tasks from now on (needs profiling on). */
int sq_runtime_trace_start(sq_runtime *rt, int64_t capacity);
/** @brief Write the trace as CSV (one task per line: kind, tile, cluster, layer, worker, submit, start and
 *  end in µs from the first submission); the events lost to the capacity are counted in a comment. */
int sq_runtime_trace_write(const sq_runtime *rt, const char *path);
/** The task-insertion arguments for profiling and tracing a task of @p kind that computes @p tile. */
#define SQ_PROFILE(rt, kind, tile)                                                                            \
  STARPU_CALLBACK_WITH_ARG_NFREE, sq_profile_callback(rt), sq_profile_arg(rt, kind), STARPU_TAG_ONLY,           \
      (starpu_tag_t)(tile)

/**
 * @brief Build the halo send plan and its buffers (no-op on one rank).  Called by sq_runtime_create
 * before the tiles are registered: copy tiles that hold part of a message keep every data kind
 * (derivatives, buffer) the peer reads.
 */
int sq_halo_create(sq_runtime *rt);
/** @brief Page-lock @p bytes at @p ptr for asynchronous GPU copies (only with CUDA workers); 1 if pinned. */
int sq_host_pin(void *ptr, size_t bytes);
/**
 * @brief OpenMP threads per CPU task (runtime.cpu_task_threads, sq_kernel_set_threads); above 1, StarPU is
 * told to leave its workers unbound so that a task's team can use the cores.  Call before starpu_init.
 */
void sq_runtime_set_cpu_task_threads(int nthreads);
/**
 * @brief Bytes this rank's halo messages hold, all clusters and kinds once (@p sent), and what they
 * would hold if every cell of a (cluster, peer) group carried every kind any of them needs
 * (@p sent_unsplit: the plan before messages were split by kinds).
 */
void sq_halo_bytes(const sq_runtime *rt, double *sent, double *sent_unsplit);
/** Free the halo plan. */
void sq_halo_destroy(sq_runtime *rt);
/**
 * @brief Post the halo exchange of cluster @p cluster for the data kinds @p kinds (SQ_GHOST_* mask):
 * pack + isend of our copy data that other ranks read, irecv into our ghost tiles.
 */
int sq_halo_exchange(sq_runtime *rt, int cluster, int kinds);

/** What the predictor does with the LTS buffer of a tile whose elements have slower neighbours. */
typedef enum {
  SQ_BUFFER_NONE = 0,      /**< no slower neighbour: no buffer */
  SQ_BUFFER_RESET = 1,     /**< first sub-step of the slower cluster's step: buffer = tint */
  SQ_BUFFER_ACCUMULATE = 2 /**< later sub-steps: buffer += tint (eq. 3.40) */
} sq_buffer_mode;

/** @brief Register every tile's data of @p disc with StarPU (starpu_init must have been called). */
int sq_runtime_create(sq_disc *disc, sq_runtime **rt);
/**
 * @brief Static CPU/GPU split of the element work: in every cluster, the first tiles holding a fraction
 * @p cpu_share of its owned elements run their element tasks (ader, local, neighbour, merged, sources,
 * receivers, plasticity) on CPU workers only, the others on CUDA workers only.  Contiguous tiles keep
 * the data of each part on its own memory node, so only the tiles on the border move each step
 * (dmda/dmdas move a tile and its neighbours whenever they hand one task to a CPU).  No-op unless
 * both kinds of worker are present; tiles that a GPU cannot take (too many neighbour tiles) go to CPUs.
 * @return the fraction of owned elements placed on CPUs (-1: no split)
 */
double sq_runtime_split_tiles(sq_runtime *rt, double cpu_share);
/**
 * @brief With several GPUs in this process, give each GPU a contiguous part (in mesh order) of every
 * cluster's tiles: the element tasks of a tile then run on that GPU's workers (or on CPU workers,
 * where any are allowed), so a tile's data stays on one GPU and only the tiles on a part's border
 * are read across GPUs.  Without it, dmda hands neighbouring tiles to different GPUs and every
 * neighbour task pulls whole tiles between them.  Call after sq_runtime_split_tiles and before any task
 * is submitted: StarPU keeps pointers to the worker bitmaps, which a second call would free.
 * @return the number of GPUs the tiles were spread over (0: no placement, fewer than 2 GPUs)
 */
int sq_runtime_place_tiles_on_gpus(sq_runtime *rt);
/** Where the element tasks of @p tile may run (the value for STARPU_EXECUTE_WHERE; -1: anywhere). */
static inline unsigned long long sq_tile_where(const sq_runtime *rt, int tile) {
  return rt->tile_where ? (unsigned long long)(uint32_t)rt->tile_where[tile] : (unsigned long long)-1;
}
/** The GPU that @p tile's element tasks run on, -1: any. */
static inline int sq_tile_gpu(const sq_runtime *rt, int tile) { return rt->tile_gpu ? rt->tile_gpu[tile] : -1; }
/** The worker bitmap of GPU @p gpu for STARPU_TASK_WORKERIDS (NULL with length 0: any worker). */
static inline uint32_t *sq_gpu_workers(const sq_runtime *rt, int gpu) {
  return gpu >= 0 ? rt->gpu_workers + (size_t)gpu * rt->gpu_words : NULL;
}
static inline unsigned sq_gpu_words(const sq_runtime *rt, int gpu) { return gpu >= 0 ? rt->gpu_words : 0; }
/** The task-insertion arguments that place the element tasks of @p tile (CPU/GPU split, GPU affinity). */
#define SQ_TILE_PLACEMENT(rt, tile)                                                                              \
  STARPU_EXECUTE_WHERE, sq_tile_where(rt, tile), STARPU_TASK_WORKERIDS, sq_gpu_words(rt, sq_tile_gpu(rt, tile)), \
      sq_gpu_workers(rt, sq_tile_gpu(rt, tile))

/**
 * @brief Wait for all submitted tasks and halo messages; only the (small) fault state is brought to the
 * host.  The dofs stay where the tasks left them: a GPU-only run moves no element data here.
 */
int sq_runtime_wait(sq_runtime *rt);
/** @brief sq_runtime_wait, then make the host copies of the dofs and plastic state valid (for outputs). */
int sq_runtime_sync(sq_runtime *rt);
/** @brief Unregister everything (data returns to the host arrays) and free @p rt. */
void sq_runtime_destroy(sq_runtime *rt);

/**
 * @brief Insert the ADER predictor of @p tile over a step @p dt: reads dofs, writes tint, and where
 * LTS needs them the derivatives and the buffer (@p buffer_mode).
 */
int sq_insert_ader(sq_runtime *rt, int tile, double dt, sq_buffer_mode buffer_mode, int priority);
/** @brief Insert the volume + local-flux update of @p tile (reads tint, updates dofs). */
int sq_insert_local(sq_runtime *rt, int tile, int priority);
/**
 * @brief Insert the neighbour-flux update of @p tile over its step [t, t + dt], which is sub-step
 * @p substep of the slower cluster's step: reads the same-cluster neighbours' tint, the faster
 * neighbours' buffers and the slower neighbours' derivatives (integrated over
 * [substep dt, (substep + 1) dt] from their expansion time); updates dofs.
 */
int sq_insert_neighbor(sq_runtime *rt, int tile, double dt, int substep, int priority);

/** Most tiles of one neighbour-flux task (a merged task of two neighbour clusters). */
#define SQ_NEIGHBOR_MAX_TILES 2
/**
 * @brief Insert one task doing the neighbour-flux update of @p ntile tiles (at most
 * SQ_NEIGHBOR_MAX_TILES), tile @p tiles[i] over its step @p dt[i], sub-step @p substep[i] (as
 * sq_insert_neighbor): merged neighbour-cluster tasks, thesis §6.5.3.  The tiles' dofs must differ.
 */
int sq_insert_neighbors(sq_runtime *rt, int ntile, const int *tiles, const double *dt, const int *substep,
                        int priority);

/**
 * @brief Insert one task doing ader + local for several tiles, tile @p tiles[i] with step @p dt[i]
 * and LTS buffer mode @p buffer_mode[i] (merged neighbour-cluster tasks, thesis §6.5.3).
 */
int sq_insert_merged_predict(sq_runtime *rt, int ntile, const int *tiles, const double *dt,
                             const sq_buffer_mode *buffer_mode, int priority);

/** A perf-model footprint from the byte size of the task's buffer @p i alone (a tile's dofs): tasks whose other
 *  buffers vary (neighbour sets) then share one calibration per tile size. */
static inline uint32_t sq_footprint_of_buffer(struct starpu_task *task, int i) {
  const starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
  return starpu_hash_crc32c_be((uint32_t)(starpu_vector_get_nx(h) * starpu_vector_get_elemsize(h)), 0);
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
int sq_segment_buffers(const sq_runtime *rt, int tile, double dt, sq_buffer_mode mode, struct starpu_data_descr *descr,
                       sq_segment *seg);
/** The tint buffer's pointer among a segment's buffers @p buf. */
void *sq_segment_tint(void **buf);
/** Run a segment on the CPU: ader, LTS buffer, local, on the task buffers @p buf of sq_segment_buffers. */
void sq_segment_cpu(sq_precision prec, int order, const sq_segment *seg, const void *pack, void **buf);
#ifdef SQ_USE_CUDA
/** The same as one fused predictor kernel on the worker's stream. */
void sq_segment_cuda(sq_precision prec, int order, const sq_segment *seg, const void *pack, void **buf);
#endif

/**
 * @brief Can @p tile take its whole step (ader, local, neighbour fluxes) as one task?  Yes for an interior
 * tile of the fastest cluster whose faces see only itself and slower clusters, without point sources,
 * receivers or fault faces in its cluster (step.c).
 */
int sq_step_fusable(const sq_runtime *rt, int tile);
/**
 * @brief Insert the whole steps of a fusable @p tile over sub-steps @p substep .. @p substep + @p nsub - 1 of
 * the slower cluster's step (of size @p dt each) as one task: per sub-step ader (+ derivatives, + LTS buffer,
 * @p buffer_mode for the first sub-step, accumulated after it), local, then the neighbour fluxes.  With one
 * cluster, the sub-steps are consecutive global steps.
 */
int sq_insert_step(sq_runtime *rt, int tile, double dt, int substep, int nsub, sq_buffer_mode buffer_mode,
                   int priority);

/** Arguments shared by the step codelets. */
typedef struct sq_step_args {
  sq_precision precision;
  int order;
  double dt;
  int store_derivs;         /**< ader: a derivatives buffer follows tint */
  sq_buffer_mode buffer;    /**< ader: an LTS buffer follows */
} sq_step_args;


/* ---- point sources and receivers (source.c, receivers.c) ---------------------------------------- */

/** @brief Register the per-tile source blocks of @p set (after sq_runtime_create; NULL: none). */
int sq_runtime_attach_sources(sq_runtime *rt, const struct sq_source_set *set);
/** @brief Register the per-tile receiver blocks of @p set; their tiles must keep derivatives. */
int sq_runtime_attach_receivers(sq_runtime *rt, struct sq_receiver_set *set);
/** Unregister the source blocks (sq_runtime_destroy calls it). */
void sq_runtime_detach_sources(sq_runtime *rt);
/** Unregister the receiver blocks (sq_runtime_destroy calls it). */
void sq_runtime_detach_receivers(sq_runtime *rt);
/** Does tile @p tile hold point sources? */
int sq_runtime_tile_has_sources(const sq_runtime *rt, int tile);
/** Does tile @p tile hold receivers? */
int sq_runtime_tile_has_receivers(const sq_runtime *rt, int tile);
/**
 * @brief Insert the point sources of @p tile over its step [t0, t0 + dt] (after the tile's ader and
 * local tasks): updates dofs, tint and, where kept, derivatives and the LTS buffer (@p buffer_mode
 * as for the step's ader).
 */
int sq_insert_source(sq_runtime *rt, int tile, double t0, double dt, sq_buffer_mode buffer_mode, int priority);
/**
 * @brief Insert the sampling of @p tile's receivers at the sample times in [t0, t1), the tile's step
 * (after the step's ader and source tasks).  Nothing is inserted when no sample time falls inside.
 */
int sq_insert_receivers(sq_runtime *rt, int tile, double t0, double t1, int priority);

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
#endif

/* ---- dynamic rupture (rupture.c) ---------------------------------------------------------------- */

/** @brief Register the fault's data (after sq_runtime_create; NULL: no fault). */
int sq_runtime_attach_fault(sq_runtime *rt, struct sq_fault *fault);
/** Unregister the fault's data (sq_runtime_destroy calls it). */
void sq_runtime_detach_fault(sq_runtime *rt);
/** @brief Fault tiles [*first, *end) of cluster @p cluster; returns whether there are any. */
int sq_runtime_fault_tiles(const sq_runtime *rt, int cluster, int *first, int *end);
/**
 * @brief Insert the rupture step of fault tile @p ftile over [t0, t0 + dt] (after both sides'
 * predictors, before their neighbour fluxes): reads both sides' derivatives, updates the friction
 * state and the owned sides' dofs.
 */
int sq_insert_rupture(sq_runtime *rt, int ftile, double t0, double dt);

/* ---- off-fault plasticity (plasticity.c) -------------------------------------------------------- */

/** @brief Register the per-tile plasticity blocks of @p state (after sq_runtime_create; NULL: none). */
int sq_runtime_attach_plasticity(sq_runtime *rt, struct sq_plastic_state *state);
/** Unregister the plasticity blocks (sq_runtime_destroy calls it). */
void sq_runtime_detach_plasticity(sq_runtime *rt);
/** Does tile @p tile get plasticity tasks (plasticity on, tile owned)? */
int sq_runtime_tile_has_plasticity(const sq_runtime *rt, int tile);
/** @brief Make the host copies of the plastic strain and yield flags valid (sq_runtime_sync calls it). */
int sq_runtime_sync_plasticity(sq_runtime *rt);
/**
 * @brief Insert the plasticity correction of @p tile after its update over a step @p dt (right after
 * the tile's neighbour task): updates the stress dofs of yielding elements, accumulates their plastic
 * strain and writes the yield flags.
 */
int sq_insert_plasticity(sq_runtime *rt, int tile, double dt, int priority);

#endif
