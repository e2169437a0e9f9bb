/**
 * @file sq_run_files.h  The text files of a run (io/run_files.c): the energy CSV, one row per output
 * interval, and the summary written at its end.
 */
#ifndef SQ_RUN_FILES_H
#define SQ_RUN_FILES_H
#include <stdint.h>

#include "sq_common.h"

/** The energy CSV of a run (opaque). */
typedef struct sq_energy_file sq_energy_file;

/**
 * @brief Open DIR/PREFIX-energy.csv: new, with its header (fault columns with @p with_fault), or, with
 * @p restart_rows >= 0, the file of an interrupted run cut back to that many rows.
 */
int sq_energy_file_open(const char *dir, const char *prefix, int with_fault, int64_t restart_rows,
                        sq_energy_file **out);
/**
 * @brief Append the row of time @p time: total, kinetic and elastic energy @p e, and with @p fault the
 * frictional work and seismic moment; flushed at once.
 */
int sq_energy_file_row(sq_energy_file *f, double time, const double e[3], const double *fault);
/** @brief Flush what was written (before a checkpoint). */
void sq_energy_file_flush(sq_energy_file *f);
/** Close and free (NULL is fine). */
void sq_energy_file_close(sq_energy_file *f);

/** What the summary of a run reports, one `key: value` line each. */
typedef struct sq_run_summary {
  const char *config;
  int64_t cells;
  int order;
  sq_precision precision;
  int64_t sync_intervals; /**< run by this process (after a restart: the rest) */
  double dt_sync, end_time;
  double wall_time_steps;           /**< the whole time loop */
  double wall_time_stepping;        /**< the time stepping in all chunks */
  double updates_per_second;        /**< over the whole loop */
  double updates_per_second_steady; /**< the time stepping after the first chunk */
  int64_t steady_sync_intervals;
  double updates_per_second_after_first_chunk; /**< with the outputs and checks */
  double wall_time_fetch, wall_time_outputs;
  double task_submission_seconds;
  int64_t grouped_step_tasks;
  double gts_equivalent_updates_per_second;
  int clusters;
  double lts_work_ratio;
  int ranks;
  double energy;
  int has_l2; /**< l2_error_relative is reported */
  double l2_error_relative;
  uint64_t dofs_hash;
  int has_plastic; /**< the plastic_* lines are reported */
  uint64_t plastic_strain_hash;
  int64_t plastic_yielded_cells, plastic_yield_updates;
  double plastic_yield_fraction, plastic_max_eta;
} sq_run_summary;

/** @brief Write the summary @p s to @p path. */
int sq_run_summary_write(const char *path, const sq_run_summary *s);

#endif
