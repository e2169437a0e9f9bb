/**
 * @file sq_runtime.h  The task runtime as the rest of starquake sees it: an opaque handle over one
 * discretisation, one sq_insert_<step>() function per kind of task, and queries about tiles and clusters.
 * It names no StarPU type: the handles, codelets and worker placement live behind it (sq_runtime_impl.h),
 * so graph/ and sim/ compile without StarPU's headers.
 */
#ifndef SQ_RUNTIME_H
#define SQ_RUNTIME_H

#include <stdio.h>

#include "sq_solver.h"

/** The registered data of one discretisation (opaque). */
typedef struct sq_runtime sq_runtime;

struct sq_source_set;
struct sq_receiver_set;
struct sq_fault;
struct sq_plastic_state;

/** What the predictor does with the LTS buffer of a tile whose elements have slower neighbours. */
typedef enum {
  SQ_BUFFER_NONE = 0,      /**< no slower neighbour: no buffer */
  SQ_BUFFER_RESET = 1,     /**< first sub-step of the slower cluster's step: buffer = tint */
  SQ_BUFFER_ACCUMULATE = 2 /**< later sub-steps: buffer += tint (eq. 3.40) */
} sq_buffer_mode;

/* ---- life cycle ------------------------------------------------------------------------------------ */

/** @brief Register every tile's data of @p disc with the runtime (the runtime must be initialised). */
int sq_runtime_create(sq_disc *disc, sq_runtime **rt);
/** @brief Unregister everything (data returns to the host arrays) and free @p rt. */
void sq_runtime_destroy(sq_runtime *rt);
/**
 * @brief Wait for all submitted tasks and halo messages; only the on-fault stations' rows come to the host
 * (their logs).  The dofs and the friction state stay where the tasks left them: a GPU-only run moves no
 * element or fault data here (the friction state of a million-element fault is over a gigabyte).
 */
int sq_runtime_wait(sq_runtime *rt);
/** @brief sq_runtime_wait, then make the host copies of the friction state valid (fault outputs). */
int sq_runtime_sync_fault(sq_runtime *rt);
/**
 * @brief sq_runtime_wait, then make the host copies of the dofs, the friction state and the plastic state
 * valid (for outputs).
 */
int sq_runtime_sync(sq_runtime *rt);
/**
 * @brief sq_runtime_wait, then make the host arrays of the dofs, the fault state and the plastic state the
 * only valid copies, without fetching them: the caller overwrites them next (sq_sim_rollback).
 */
int sq_runtime_host_overwrite(sq_runtime *rt);
/**
 * @brief Make every task body that has not started yet return at once, without touching its data
 * (async-signal-safe: a stop request calls it from a signal handler).  The data those tasks would have
 * written are then stale; the caller restores a saved state after sq_runtime_wait (sq_sim_rollback).
 */
void sq_runtime_cancel(void);
/** @brief 1 after sq_runtime_cancel (until cleared): a codelet body then returns at once, first thing. */
int sq_runtime_cancelled(void);
/** @brief Undo sq_runtime_cancel (once the caller has restored the state). */
void sq_runtime_cancel_clear(void);
/**
 * @brief OpenMP threads per CPU task (runtime.cpu_task_threads, sq_kernel_set_threads); above 1, the
 * runtime is told to leave its workers unbound so that a task's team can use the cores.  Call before the
 * runtime is initialised.
 */
void sq_runtime_set_cpu_task_threads(int nthreads);
/** Number of GPU (CUDA) workers of the started runtime. */
int sq_runtime_gpu_workers(void);
/** @brief Bytes of GPU memory the runtime may use, over its @p ngpu GPU memory nodes (0 and 0: none). */
double sq_runtime_gpu_memory(int *ngpu);

/* ---- where tasks run --------------------------------------------------------------------------------- */

/**
 * @brief Static CPU/GPU split of the element work: in every cluster, the first tiles holding a fraction
 * @p cpu_share of its owned elements run their element tasks (ader, local, neighbour, merged, sources,
 * receivers, plasticity) on CPU workers only, the others on GPU workers only.  Contiguous tiles keep
 * the data of each part on its own memory node, so only the tiles on the border move each step.  No-op
 * unless both kinds of worker are present; tiles that a GPU cannot take (too many neighbour tiles) go to
 * CPUs.
 * @return the fraction of owned elements placed on CPUs (-1: no split)
 */
double sq_runtime_split_tiles(sq_runtime *rt, double cpu_share);
/**
 * @brief With several GPUs in this process, give each GPU its region's tiles where the discretisation's
 * tiles were cut by one region per GPU (sq_disc_options.cell_part: then only the regions' halo tiles are
 * read across GPUs), else a contiguous part (in mesh order) of every cluster's tiles: the element tasks of
 * a tile then run on that GPU's workers (or on CPU workers, where any are allowed), so a tile's data stays
 * on one GPU.  Call after sq_runtime_split_tiles and before any task is submitted.
 * @return the number of GPUs the tiles were spread over (0: no placement, fewer than 2 GPUs)
 */
int sq_runtime_place_tiles_on_gpus(sq_runtime *rt);
/**
 * @brief After sq_runtime_place_tiles_on_gpus: the fastest LTS cluster's tiles all on one GPU, the slowest
 * clusters' tiles of that GPU moved to the others until the work is balanced again (runtime.fast_cluster_gpu).
 * With @p keep_chain (the regions came from sq_gather_fast_chain), the tiles of cluster 1 that read cluster 0
 * stay on that GPU too.  That GPU aims at @p fast_share (0..1] of an equal share of the work, the others at equal
 * parts of the rest (runtime.fast_gpu_share).
 * @return that GPU, or -1 (no change)
 */
int sq_runtime_place_fastest_cluster(sq_runtime *rt, int keep_chain, double fast_share);
/**
 * @brief Before the tiles are cut (runtime.fast_cluster_gpu): every cell of the fastest cluster (@p cluster 0
 * of @p ncluster, LTS rate @p rate) into the region among @p nparts that holds most of them, so that its cells
 * next to the other regions, and theirs next to it, are halo tiles; sq_runtime_place_fastest_cluster then
 * balances the work by tiles.  Only where that cluster's element updates are at most one region's share.
 * @return that region, or -1 (no change)
 */
int sq_gather_cluster_cells(int64_t ncell, const int *cluster, int ncluster, int rate, int nparts, int *part);
/**
 * @brief sq_gather_cluster_cells, and with it the cells of cluster 1 that have a face neighbour in cluster 0
 * (runtime.fast_cluster_chain): in every step of cluster 1 their correction reads cluster 0's buffer and
 * cluster 0's sub-steps read their derivatives, the chain of dependent tasks that bounds a sync interval.  The
 * region's other cells of cluster 1 go to neighbouring regions, so that its tiles of cluster 1 are those
 * cells alone; the other regions' cells of cluster 1 then read them with a whole step of cluster 0 to spare.
 * Only where cluster 0 and those cells are at most one region's share of the element updates
 * (@p face_neighbor: ncell x 4 face neighbours, -1 none, as sq_mesh's).
 * @return that region, or -1 (no change: the caller may still gather cluster 0 alone)
 */
int sq_gather_fast_chain(int64_t ncell, const int *cluster, int ncluster, int rate, const int64_t *face_neighbor,
                         int nparts, int *part);

/**
 * @brief With tiles placed on several GPUs (sq_runtime_place_tiles_on_gpus): from now on, each predictor task
 * (ader, or ader + local) of a tile whose time integrals or derivatives a neighbour task on another GPU reads
 * starts copying them there as it ends (an asynchronous prefetch from its callback), instead of the copy starting
 * when the reading task becomes ready (runtime.prefetch_halo).  A faster tile's buffer, summed over several
 * predictors, is left to the reader; a merged predictor task of two tiles forwards its first tile's outputs.
 * The copies are hints: the tasks' data dependencies and every result stay the same.  Call after the placement
 * and before tasks are submitted; again to plan anew.
 * @param ncopies  the (tile output, GPU) pairs that are copied ahead, 0 on one GPU
 */
int sq_runtime_forward_outputs(sq_runtime *rt, int64_t *ncopies);

/**
 * @brief From now on (@p on != 0), a whole-step task inserted with a tail (sq_step_tail: the chain of dependent tasks
 * that bounds LTS on several GPUs) runs all of its kernels on a CUDA worker at its GPU's highest stream priority, so
 * that their blocks go before those of the other tasks' kernels on that GPU (runtime.chain_priority).  Without it
 * only the tail's corrections do, beside the last sub-step.  The results stay the same, bit for bit.
 */
void sq_runtime_set_chain_priority(sq_runtime *rt, int on);

/** What sq_runtime_upload asked for. */
typedef struct sq_upload_stats {
  int64_t tiles;        /**< tiles whose data goes to a GPU */
  double input_bytes;   /**< bytes copied there (solution, element matrices, face links, reference matrices) */
  double output_bytes;  /**< bytes allocated there for what the tasks write first (time integrals, derivatives,
                             LTS buffers) */
  double replica_bytes; /**< bytes allocated on other GPUs for the copies of those outputs that their tiles read */
} sq_upload_stats;
/**
 * @brief Start moving each GPU tile's data to the GPU its element tasks run on (sq_runtime_split_tiles,
 * sq_runtime_place_tiles_on_gpus; with one GPU and no CPU workers: every tile), the faster clusters first:
 * the inputs are copied, room is made for the outputs that the tasks write before reading (no copy), and for the
 * copies of those outputs on the other GPUs whose tiles read them (no copy either; a second time-integral array,
 * sq_runtime_double_tint, gets both when it is made); a GPU whose tiles would fill more than 90 % of its memory is
 * left to StarPU's fetches and evictions as before, and one whose tiles and copies would, gets no room for the copies.
 * Returns at once: the copies run while the set-up finishes and the first tasks are submitted, and a task waits only
 * for its own data.  Call before the time stepping; a caller that overwrites the host data afterwards (a restart, a new
 * initial state) goes through sq_runtime_host_overwrite first.  No-op without GPU workers.
 * @param stats  NULL, or what was asked for
 */
int sq_runtime_upload(sq_runtime *rt, sq_upload_stats *stats);

/* ---- default CPU/GPU split (hybrid.c) --------------------------------------------------------------- */

/** Elements per tile by default: CPU workers only; with CUDA workers a few large tiles (sq_hybrid_gpu_tile,
 *  between SQ_GPU_TILE_MIN and SQ_GPU_TILE_MAX); the CPU part of a split gets tiles of
 *  SQ_CPU_SHARE_TILE_DEFAULT. */
#define SQ_CPU_TILE_DEFAULT       256
#define SQ_GPU_TILE_MIN           16384
#define SQ_GPU_TILE_MAX           262144
#define SQ_CPU_SHARE_TILE_DEFAULT 1024
/** The CPUs get element tiles only where the split is modelled at least this much faster than the GPUs alone. */
#define SQ_HYBRID_MIN_GAIN 0.05
/** Perf-model entries with fewer samples do not count as a measured rate. */
#define SQ_HYBRID_MIN_SAMPLES 3

/** What the split rule (sq_hybrid_split) is given. */
typedef struct sq_hybrid_input {
  double rate_cpu;         /**< element updates/s of all CPU workers together (<= 0: unknown) */
  double rate_gpu;         /**< element updates/s of all GPUs together at their tile (<= 0: unknown) */
  int64_t nelem;           /**< owned elements */
  double elem_bytes;       /**< bytes of one element's time-integrated DOFs (9 B x real size) */
  double link_bytes_per_s; /**< host-GPU bandwidth */
  int gpu_tile;            /**< elements per GPU tile */
} sq_hybrid_input;

/** What the split rule decides. */
typedef struct sq_hybrid_plan {
  double cpu_share;   /**< fraction of each cluster's owned elements on the CPU workers (0: none) */
  double ideal_share; /**< rate_cpu / (rate_cpu + rate_gpu): the share without transfers */
  double sum_ratio;   /**< rate_gpu / (rate_cpu + rate_gpu): the GPUs alone against the sum of the rates */
  double speedup;     /**< modelled step time of the GPUs alone over that of the split (1: GPUs alone) */
  const char *reason; /**< why, in words */
} sq_hybrid_plan;

/**
 * @brief The CPU's share of the element work from each kind's rate.  With share s the CPUs take s N / r_cpu
 * per step and the GPUs (1 - s) N / r_gpu plus the transfers between the two regions (the CPU tiles' DOFs
 * and two GPU tiles' worth, at the host-GPU bandwidth), counted on the GPUs' critical path.  s balances the
 * two; if the step is then not at least SQ_HYBRID_MIN_GAIN faster than the GPUs alone, or a rate is
 * unknown, the share is 0: the GPUs do all element work.
 */
void sq_hybrid_split(const sq_hybrid_input *in, sq_hybrid_plan *out);

/**
 * @brief The default tile with CUDA workers: each GPU's part of @p nelem elements in one tile (GTS) or two
 * (@p lts: the clusters are smaller than the mesh, and every GPU should get a part of each,
 * runtime.gpu_affinity), within [SQ_GPU_TILE_MIN, SQ_GPU_TILE_MAX].  On a GPU larger tiles run faster (fewer
 * tasks, fuller kernels: order 6 single on an H100, 64k elements: tile 16384 2.16e7, 32768 2.52e7, one tile
 * 2.57e7 updates/s; 512k: 131072 2.71e7, 262144 2.74e7; docs/PERFORMANCE.md).
 */
int sq_hybrid_gpu_tile(int64_t nelem, int ngpu, int lts);

/**
 * @brief Each kind's element update rate for this order and precision, from the performance models of the
 * ader, local and neighbour tasks that earlier runs calibrated (STARPU_HOME): per kind the least time per
 * element of each task over the tile sizes measured, times the workers of the kind (CUDA: devices).
 * @return 1 if both kinds have calibrated entries of all three tasks, else 0 (rates 0)
 */
int sq_runtime_kind_rates(int order, sq_precision precision, double *rate_cpu, double *rate_gpu);
/**
 * @brief One worker's time per element update (µs) of the CPU (@p cuda 0) or CUDA kind, for this order and
 * precision: the sum over ader, local and neighbour of the least time per element among their calibrated
 * entries (at least SQ_HYBRID_MIN_SAMPLES samples).  -1: no worker of the kind, or some task never calibrated.
 */
double sq_runtime_kind_us_per_element(int cuda, int order, sq_precision precision);

/** A run's tile and split settings as given (0 or < 0: not given, the default applies). */
typedef struct sq_hybrid_request {
  int order;
  sq_precision precision;
  int64_t nelem;     /**< owned elements */
  int lts;           /**< local time stepping (runtime.lts_rate > 1) */
  int tile_size;     /**< runtime.tile_size, 0: default */
  int cpu_tile_size; /**< runtime.cpu_tile_size, 0: default */
  double cpu_share;  /**< runtime.cpu_share, < 0: default */
} sq_hybrid_request;

/** The settings a run uses. */
typedef struct sq_hybrid_defaults {
  int tile_size;             /**< SQ_CPU_TILE_DEFAULT on CPUs only, sq_hybrid_gpu_tile with CUDA workers */
  int cpu_tile_size;         /**< tiles of the CPU part */
  double cpu_share;          /**< for sq_runtime_split_tiles: < 0 no split (one kind of worker), else the CPU's share */
  double rate_cpu, rate_gpu; /**< the rates used (0: not calibrated) */
  sq_hybrid_plan plan;
} sq_hybrid_defaults;

/**
 * @brief The defaults of the started runtime's workers: given settings stay; with CUDA workers the tiles are
 * large (sq_hybrid_gpu_tile) and the CPUs' share comes from sq_hybrid_split on the calibrated rates (none
 * before the models of both kinds are calibrated: the GPUs alone then).
 */
int sq_runtime_hybrid_defaults(const sq_hybrid_request *req, sq_hybrid_defaults *out);

/* ---- queries ------------------------------------------------------------------------------------------ */

/** The discretisation @p rt was created over. */
sq_disc *sq_runtime_disc(const sq_runtime *rt);
/** Number of tiles. */
int sq_runtime_ntile(const sq_runtime *rt);
/** Number of LTS clusters (1: global time stepping). */
int sq_runtime_ncluster(const sq_runtime *rt);
/** Sub-steps of cluster l per step of cluster l + 1. */
int sq_runtime_lts_rate(const sq_runtime *rt);
/** The LTS cluster of @p tile. */
int sq_runtime_tile_cluster(const sq_runtime *rt, int tile);
/** The layer of @p tile (enum sq_layer: interior, copy, ghost). */
int sq_runtime_tile_layer(const sq_runtime *rt, int tile);
/** Does @p tile keep an LTS buffer for slower neighbours? */
int sq_runtime_tile_needs_buffer(const sq_runtime *rt, int tile);
/** The GPU that @p tile's element tasks run on (sq_runtime_place_tiles_on_gpus), -1: any. */
int sq_runtime_tile_gpu(const sq_runtime *rt, int tile);
/**
 * @brief Can @p tile take its whole step (ader, local, neighbour fluxes) as one task?  Yes for an interior
 * tile of the fastest cluster whose faces see only itself and slower clusters, without point sources,
 * receivers or fault faces in its cluster.
 */
int sq_step_fusable(const sq_runtime *rt, int tile);
/**
 * @brief Can the neighbour fluxes of @p tile follow, in the same task, the whole steps of a fastest-cluster tile
 * (runtime.fuse_chain_correction)?  Yes for an interior tile of cluster 1, in a cluster without fault faces, whose
 * faces see one tile of the fastest cluster, fusable and placed on the same GPU.
 * @return that tile, or -1
 */
int sq_step_fold_target(const sq_runtime *rt, int tile);
/**
 * @brief Give the time integrals of @p tile and of its interior neighbour tiles of the same cluster a second array,
 * which the tiles' predictors write every other step (the first on the GPU or CPU that uses it: no host memory).  A
 * predictor of step k + 1 then never waits for the readers of step k: a correction folded into a whole-step task
 * (runtime.fuse_chain_correction) reads the time integrals of its cluster-1 neighbours for as long as that task
 * runs.  Interior tiles only (a copy tile's halo messages read its one array); a tile that has two already keeps them.
 */
int sq_runtime_double_tint(sq_runtime *rt, int tile);
/**
 * @brief The predictor of @p tile that comes now was taken ahead by a whole-step task's tail
 * (sq_step_tail.predict): its time-integral arrays advance as that predictor's insertion would have advanced them.
 */
void sq_runtime_tint_advance(sq_runtime *rt, int tile);
/** Does tile @p tile hold point sources? */
int sq_runtime_tile_has_sources(const sq_runtime *rt, int tile);
/** Does tile @p tile hold receivers? */
int sq_runtime_tile_has_receivers(const sq_runtime *rt, int tile);
/** Does tile @p tile get plasticity tasks (plasticity on, tile owned)? */
int sq_runtime_tile_has_plasticity(const sq_runtime *rt, int tile);
/** Does the run attenuate (memory variables beside the dofs, which only separate ader and local tasks carry)? */
int sq_runtime_attenuates(const sq_runtime *rt);
/** @brief Fault tiles [*first, *end) of cluster @p cluster; returns whether there are any. */
int sq_runtime_fault_tiles(const sq_runtime *rt, int cluster, int *first, int *end);

/* ---- tasks --------------------------------------------------------------------------------------------- */

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
/** Most tiles in the tail of a whole-step task. */
#define SQ_STEP_MAX_TAIL 64
/** Tiles of cluster 1 whose neighbour fluxes over their step @p dt, sub-step @p substep of the slower cluster's
 *  step, a whole-step task takes after its own sub-steps (each tile's sq_step_fold_target is the task's tile); and,
 *  where @p predict is not NULL, then their predictors of their next step (of the same size), with these LTS
 *  buffer modes.  The tiles predicted ahead need two time-integral arrays (sq_runtime_double_tint), and their
 *  predictor's own turn calls sq_runtime_tint_advance instead. */
typedef struct sq_step_tail {
  int ntile; /**< at most SQ_STEP_MAX_TAIL */
  const int *tile;
  double dt;
  int substep;
  const sq_buffer_mode *predict; /**< NULL, or per tile the buffer mode of its next predictor */
} sq_step_tail;
/**
 * @brief Insert the whole steps of a fusable @p tile over sub-steps @p substep .. @p substep + @p nsub - 1 of
 * the slower cluster's step (of size @p dt each) as one task: per sub-step ader (+ derivatives, + LTS buffer,
 * @p buffer_mode for the first sub-step, accumulated after it), local, then the neighbour fluxes.  With one
 * cluster, the sub-steps are consecutive global steps.  Then, where @p tail is not NULL, the neighbour fluxes of its
 * tiles: they read this tile's LTS buffer after its last sub-step, which must end the slower cluster's step.
 */
int sq_insert_step(sq_runtime *rt, int tile, double dt, int substep, int nsub, sq_buffer_mode buffer_mode,
                   const sq_step_tail *tail, int priority);
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
/**
 * @brief Insert the rupture step of fault tile @p ftile over [t0, t0 + dt] (after both sides'
 * predictors, before their neighbour fluxes): reads both sides' derivatives, updates the friction
 * state and the owned sides' dofs.
 */
int sq_insert_rupture(sq_runtime *rt, int ftile, double t0, double dt);
/**
 * @brief Insert the plasticity correction of @p tile after its update over a step @p dt (right after
 * the tile's neighbour task): updates the stress dofs of yielding elements, accumulates their plastic
 * strain and writes the yield flags.
 */
int sq_insert_plasticity(sq_runtime *rt, int tile, double dt, int priority);
/**
 * @brief Post the halo exchange of cluster @p cluster for the data kinds @p kinds (SQ_GHOST_* mask):
 * pack + send of our copy data that other ranks read, receive into our ghost tiles.
 */
int sq_halo_exchange(sq_runtime *rt, int cluster, int kinds);

/* ---- attached data: point sources, receivers, fault, plasticity ---------------------------------------- */

/** @brief Register the per-tile source blocks of @p set (after sq_runtime_create; NULL: none). */
int sq_runtime_attach_sources(sq_runtime *rt, const struct sq_source_set *set);
/** @brief Register the per-tile receiver blocks of @p set; their tiles must keep derivatives. */
int sq_runtime_attach_receivers(sq_runtime *rt, struct sq_receiver_set *set);
/** @brief Register the fault's data (after sq_runtime_create; NULL: no fault). */
int sq_runtime_attach_fault(sq_runtime *rt, struct sq_fault *fault);
/** @brief Register the per-tile plasticity blocks of @p state (after sq_runtime_create; NULL: none). */
int sq_runtime_attach_plasticity(sq_runtime *rt, struct sq_plastic_state *state);

/* ---- halo statistics, profiling, tracing ------------------------------------------------------------------ */

/**
 * @brief Bytes this rank's halo messages hold, all clusters and kinds once (@p sent), and what they
 * would hold if every cell of a (cluster, peer) group carried every kind any of them needs
 * (@p sent_unsplit: the plan before messages were split by kinds).
 */
void sq_halo_bytes(const sq_runtime *rt, double *sent, double *sent_unsplit);
/** @brief Turn the runtime's profiling on and accumulate per-kind task times from now on. */
void sq_runtime_enable_profiling(sq_runtime *rt);
/** @brief Print the per-kind time breakdown and each worker's idle fraction. */
void sq_runtime_print_profile(const sq_runtime *rt, FILE *out);
/** @brief Zero the per-kind times, the workers' counters and, unless @p keep_trace, the trace (no task may be
 *  running): profile what follows. */
void sq_runtime_profile_reset(sq_runtime *rt, int keep_trace);
/** @brief Keep the workers' counters as they are now (the end of the time stepping): the report then shows
 *  them rather than counters that ran on through the outputs. */
int sq_runtime_profile_freeze(sq_runtime *rt);
/** @brief Record up to @p capacity executed tasks from now on (needs profiling on). */
int sq_runtime_trace_start(sq_runtime *rt, int64_t capacity);
/** @brief Write the trace as CSV (one task per line: kind, tile, cluster, layer, worker, then submit, start, end,
 *  ready (its dependencies met), popped (its worker took it) and fetched (its inputs on its worker's memory node)
 *  in µs from the first submission); the events lost to the capacity are counted in a comment. */
int sq_runtime_trace_write(const sq_runtime *rt, const char *path);

/* ---- the quasi-static solver's tasks (src/sq_qs.h) ------------------------------------------------- */

struct sq_qs_mesh;
struct sq_qs_ops;
/** The registered tiles of a quasi-static mesh (opaque). */
typedef struct sq_qs_runtime sq_qs_runtime;
/** @brief Register the tiles of @p qm (geometry in both precisions, node lists, product rows) with the runtime
 *  (StarPU must be started); @p qm must outlive it. */
int sq_qs_runtime_create(const struct sq_qs_mesh *qm, sq_qs_runtime **qr);
/** @brief Unregister everything and free @p qr (NULL is fine). */
void sq_qs_runtime_destroy(sq_qs_runtime *qr);
/** @brief Operator products and transfers as tasks, for sq_qs_solve: per tile an EBE product into the tile's
 *  rows, then per tile its reduction into the global vector; restriction and prolongation per block of output
 *  rows; each waits for its tasks. */
void sq_qs_runtime_ops(sq_qs_runtime *qr, struct sq_qs_ops *ops);
/** @brief Tasks submitted so far: EBE products, reductions, transfers (restrictions and prolongations). */
void sq_qs_runtime_counts(const sq_qs_runtime *qr, int64_t *ebe, int64_t *reduce, int64_t *transfer);

#endif
