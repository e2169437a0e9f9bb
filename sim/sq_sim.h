/** @file sq_sim.h  One simulation: its set-up from a configuration, its time advancement and its measures. */
#ifndef SQ_SIM_H
#define SQ_SIM_H

#include "sq_config.h"
#include "sq_fault.h"
#include "sq_graph.h"
#include "sq_plan.h"
#include "sq_plastic_state.h"
#include "sq_receiver.h"
#include "sq_solver.h"
#include "sq_source.h"

/** One simulation: configuration, mesh, discretisation and (unless serial) its StarPU handles. */
/** The phases of sq_sim_create that it times: mesh and materials, runtime start, discretisation (operators
 * and initial condition), points and fault, runtime data (registration, pinning). */
#define SQ_SIM_SETUP_PHASES 5
/** @brief The name of set-up phase @p k (sq_sim.setup_seconds). */
const char *sq_sim_setup_phase(int k);

typedef struct sq_sim {
  sq_config cfg;
  sq_mesh *mesh; /**< with several ranks: this rank's part (owned + ghost cells, sq_mesh_extract) */
  sq_material *cell_material;
  sq_material_stats material_stats; /**< cells each material entry matched, with its value ranges (all ranks) */
  sq_disc *disc;
  sq_runtime *rt; /**< NULL in serial mode */
  int serial;     /**< 1: reference stepping without StarPU */
  double time;
  int64_t steps;   /**< time steps done */
  sq_planewave pw; /**< analytic solution when the initial condition is a plane wave */
  int has_analytic;
  int rank, nranks;  /**< MPI */
  int *cell_rank;    /**< owner of every mesh cell (NULL on one rank) */
  int *cell_part;    /**< GPU region of every mesh cell (NULL: one GPU, several ranks, or no runtime.gpu_affinity) */
  int *cell_cluster; /**< LTS cluster of every mesh cell, from the whole mesh (NULL on one rank) */
  /** cell_part has cluster 0 and cluster 1's cells next to it in one region (sq_gather_fast_chain) */
  int fast_chain;
  sq_partition_stats part_stats;
  double part_target[8]; /**< node-speed shares of the first ranks (0 when not measured) */
  /* time plan: sync boundary k lies at plan_t0 + (k - plan_step0) plan_dt, computed the same way in
   * every run, so that a restarted run evaluates sources and samples receivers at identical times */
  double plan_t0, plan_dt;
  double submit_seconds;                     /**< wall time spent inserting tasks (sq_graph_sync_interval) */
  double setup_seconds[SQ_SIM_SETUP_PHASES]; /**< wall time of sq_sim_create's phases (sq_sim_setup_phase names them) */
  int64_t grouped_tasks;                     /**< groups of consecutive whole steps submitted as one task per tile
                                                  (runtime.steps_per_task) */
  int64_t folded_corrections;                /**< cluster-1 tile corrections taken by a whole-step task
                                                   (runtime.fuse_chain_correction) */
  int64_t folded_predictions;                /**< cluster-1 tile predictors taken ahead by a whole-step task
                                                   (runtime.fuse_chain_prediction) */
  int64_t plan_step0;
  sq_source_list sources;         /**< point sources of the configuration (sim/points.c) */
  sq_source_set *source_set;      /**< the sources located in this rank's elements */
  sq_receiver_set *receivers;     /**< receivers (NULL: none) */
  sq_fault *fault;                /**< dynamic rupture faces (NULL: none; sim/fault.c) */
  char restart_path[SQ_PATH_MAX]; /**< the checkpoint this run restarted from ("" for a new run) */
  sq_plastic_state *plastic;      /**< off-fault plasticity (NULL: none; sim/plasticity.c) */
  struct sq_sim_backup *backup;   /**< the state at the start of the chunk in flight (sim/rollback.c) */
  int cancelled;                  /**< a stop cancelled tasks of the last advance: sq_sim_rollback is due */
} sq_sim;

/**
 * @brief The fault values at the points @p x[0..n) (3 coordinates each) as the run's set-up makes them
 * (sim/fault.c, `starquake probe`): for a point that a fault face holds (sq_fault_locate), @p face[i] is
 * that face and @p pt[i] the values evaluated at the point itself in that face's frame (n, strike, dip),
 * with the initial slip rate's magnitude in state.slip_rate[0]; else @p face[i] = -1.  @p dist[i]: the
 * distance to the nearest fault face.
 */
int sq_sim_fault_probe(const sq_sim *sim, int n, const double *x, int64_t *face, double *dist, sq_fault_point *pt);

/** @brief The run header's lines about the materials: per entry, the cells it matched and its vp, vs, rho. */
void sq_sim_print_materials(const sq_sim *sim, FILE *out);

/** @brief This rank's speed in element updates/s from a short proxy run on its workers (StarPU running). */
int sq_measure_node_speed(const sq_config *cfg, double *speed);
/** @brief On MPI ranks other than 0, hold error messages (sq_error_hold) while every rank does the same work. */
void sq_sim_hold_errors(void);
/**
 * @brief End sq_sim_hold_errors (collective): a held message is printed only if rank 0 did not fail,
 * i.e. if this rank failed alone.  Returns @p ierr.
 */
int sq_sim_release_errors(int ierr);
/** This process's MPI rank (0 without MPI). */
int sq_sim_mpi_rank(void);
/** Number of MPI ranks (1 without MPI). */
int sq_sim_mpi_nranks(void);
/** @brief Total energy over all ranks. */
double sq_sim_energy(const sq_sim *sim);
/** Kinetic and elastic energy, summed over ranks (threaded on the host, in a fixed order). */
void sq_sim_energy_split(const sq_sim *sim, double *kinetic, double *elastic);
/** @brief L2 error and norm against the plane wave, over all ranks. */
void sq_sim_l2_error(const sq_sim *sim, double *err, double *norm);
/** @brief Hash of all ranks' dofs in global cell order (equal to the one-rank hash). */
uint64_t sq_sim_hash(const sq_sim *sim);
/**
 * @brief 64-bit FNV-1a hash of a per-element array (@p row_bytes per local element, local element order)
 * over all ranks' owned elements in global cell order; equal on any number of ranks.  Collective.
 */
uint64_t sq_sim_hash_rows(const sq_sim *sim, const void *rows, size_t row_bytes);

/** @brief Start StarPU with scheduler @p sched (NULL/"" : STARPU_SCHED or our default). */
int sq_sim_starpu_start(const char *sched, int cpu_task_threads);
/** @brief Shut StarPU down (safe if it was not started). */
void sq_sim_starpu_stop(void);
/**
 * @brief Pause StarPU's workers (if it runs): they poll for tasks, and threaded host loops (OpenMP) want
 * the cores meanwhile.  Pair with sq_sim_workers_resume.
 */
void sq_sim_workers_pause(void);
/** @brief Resume the workers paused by sq_sim_workers_pause. */
void sq_sim_workers_resume(void);

/** @brief Build the mesh, materials, discretisation and initial condition of @p cfg. */
int sq_sim_create(const sq_config *cfg, int serial, sq_sim **sim);
/**
 * @brief Advance by @p nsteps sync intervals of @p dt (one GTS step each without LTS) and wait for the
 * result; with @p fetch the dofs (and plastic state) are then valid on the host as well, otherwise they
 * stay where the tasks left them (a GPU) until sq_sim_fetch.
 */
int sq_sim_advance(sq_sim *sim, int64_t nsteps, double dt, int fetch);
/** @brief Make the host copies of the dofs and plastic state valid (after sq_sim_advance without fetch). */
int sq_sim_fetch(sq_sim *sim);
/** @brief Make the host copy of the friction state valid (fault snapshots, without the dofs). */
int sq_sim_fetch_fault(sq_sim *sim);
/**
 * @brief Make the host copies of the dofs, the fault state and the plastic state the only valid ones, before
 * the caller overwrites them (a new initial state, a checkpoint): the set-up may already have sent them to the
 * GPUs.  Nothing is fetched.
 */
int sq_sim_host_overwrite(sq_sim *sim);
/** @brief This rank's first element holding NaN/Inf in its host dofs, or -1 (threaded scan). */
int64_t sq_sim_find_nonfinite(const sq_sim *sim);
/**
 * @brief The plan from the current time to @p t_end (sq_plan_steps): equal sync intervals of @p dt, at
 * most the stable one (the slowest cluster's step), @p nsteps of them, with t_end and the times of the
 * configuration's outputs (sq_sim_plan_events) on sync points.
 */
void sq_sim_plan(const sq_sim *sim, double t_end, double *dt, int64_t *nsteps);
/** Outputs asked for at intervals of simulated time, which the plan puts on sync points in this order. */
#define SQ_SIM_PLAN_EVENTS 3
/** @brief The configuration's outputs at intervals: output.interval, fault.output_interval, checkpoint.interval. */
void sq_sim_plan_events(const sq_sim *sim, sq_plan_event ev[SQ_SIM_PLAN_EVENTS]);
/** @brief Start a plan of sync intervals of @p dt at the current time and step (sq_sim_time_at). */
void sq_sim_plan_start(sq_sim *sim, double dt);
/** @brief The stable sync interval: the step of the slowest LTS cluster. */
double sq_sim_stable_step(const sq_sim *sim);
/** Free the simulation (unregisters StarPU data first). */
void sq_sim_destroy(sq_sim *sim);

/** @brief Time of sync-interval boundary @p k under the current plan (see sq_sim). */
double sq_sim_time_at(const sq_sim *sim, int64_t k);

/*
 * Stopping within a sync interval (sim/rollback.c): sq_sim_save before an advance; a stop request
 * (sq_sim_interrupt, from a signal handler) during that advance cancels the tasks not yet started, and
 * sq_sim_rollback then puts back the saved state, at a sync point, for the checkpoint.
 */
/** @brief Copy the dofs, friction state, station log lengths, plastic state and time aside (after a fetch). */
int sq_sim_save(sq_sim *sim);
/** @brief Back to the saved state (all submitted tasks are waited for first); clears a cancellation. */
int sq_sim_rollback(sq_sim *sim);
/** @brief Free the saved state. */
void sq_sim_save_free(sq_sim *sim);
/**
 * @brief A stop request: async-signal-safe.  While an advance that starts at the saved state is in flight,
 * its tasks that have not started are cancelled (the caller must then sq_sim_rollback).
 */
void sq_sim_interrupt(void);
/** @brief Whether a stop cancelled tasks of the last advance (its state is then stale: roll back). */
int sq_sim_cancelled(const sq_sim *sim);
/** @brief Used by sq_sim_advance: accept cancellation while its tasks run (only from the saved state). */
void sq_sim_arm(const sq_sim *sim);
void sq_sim_disarm(void);

/** Plasticity statistics at the end of a run (over all ranks). */
typedef struct sq_plasticity_stats {
  uint64_t strain_hash;  /**< hash of the plastic strain and eta rows in global cell order */
  int64_t yield_updates; /**< element updates that yielded (this process's run only, after a restart) */
  int64_t yielded_cells; /**< cells with eta > 0 */
  double max_eta;        /**< largest accumulated plastic strain eta */
} sq_plasticity_stats;

/** @brief Collect the statistics (collective; zero without plasticity). */
void sq_sim_plasticity_stats(const sq_sim *sim, sq_plasticity_stats *stats);

/** The rupture so far, over the fault quadrature points of all ranks (each point counted once). */
typedef struct sq_rupture_stats {
  double seismic_moment;  /**< M0 = sum of mu |slip| dA (N m), as the energy file's seismic_moment */
  double fault_area;      /**< the fault's area (m^2) */
  double ruptured_area;   /**< area of the points with a rupture time (|V| once above the threshold), m^2 */
  double peak_slip;       /**< largest |slip| of any point (m) */
  double peak_slip_at[3]; /**< where that point lies (m) */
  double peak_face_slip;  /**< largest |slip| averaged over a fault face's points (m) */
  double peak_slip_rate;  /**< largest peak slip rate of any point (m/s) */
} sq_rupture_stats;

/** @brief Collect the rupture statistics (collective; zero without a fault). */
void sq_sim_rupture_stats(const sq_sim *sim, sq_rupture_stats *stats);

#endif
