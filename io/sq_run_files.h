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
 * frictional work, the seismic moment M0 and its moment magnitude (sq_moment_magnitude); flushed at once.
 */
int sq_energy_file_row(sq_energy_file *f, double time, const double e[3], const double *fault);
/**
 * @brief sq_energy_file_open in SeisSol's style (@p seissol): the long CSV `time,variable,measurement` of
 * SeisSol's EnergyOutput, SQ_ENERGY_SEISSOL_LINES lines per row (sq_energy_file_row_seissol).
 */
int sq_energy_file_open_style(const char *dir, const char *prefix, int with_fault, int seissol, int64_t restart_rows,
                              sq_energy_file **out);
/** Lines of one row of the SeisSol-style energy file. */
#define SQ_ENERGY_SEISSOL_LINES 9
/**
 * @brief One row of the SeisSol-style file: gravitational, acoustic and acoustic kinetic energy (0: starquake
 * has no acoustic layer), elastic energy e[2], elastic kinetic energy e[1], and @p src: total frictional work,
 * static frictional work, seismic moment (sq_fault_energies_seissol), plastic moment.
 */
int sq_energy_file_row_seissol(sq_energy_file *f, double time, const double e[3], const double src[4]);
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
  int64_t folded_corrections; /**< cluster-1 tile corrections taken by whole-step tasks */
  int64_t folded_predictions; /**< cluster-1 tile predictors taken ahead by whole-step tasks */
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
  int has_fault;                    /**< the rupture lines are reported (seismic_moment ... peak_slip_rate) */
  double seismic_moment;            /**< M0 = integral of mu |slip| over the fault (N m); Mw is derived from it */
  double fault_area, ruptured_area; /**< the fault's area and that of its ruptured points (m^2) */
  double peak_slip, peak_slip_rate; /**< largest |slip| (m) and largest slip rate so far (m/s) of any point */
  double peak_slip_at[3];           /**< where the point of the largest |slip| lies (m) */
  double peak_face_slip;            /**< largest |slip| averaged over a fault face's points (m) */
} sq_run_summary;

/**
 * @brief Moment magnitude Mw = 2/3 (log10 M0 - 9.1) of the seismic moment @p m0 in N m (Hanks and
 * Kanamori; the IASPEI standard constant 9.1); NaN for M0 <= 0 (no slip yet).
 */
double sq_moment_magnitude(double m0);

/** @brief Write the summary @p s to @p path. */
int sq_run_summary_write(const char *path, const sq_run_summary *s);

/**
 * The manifest of a run: DIR/PREFIX-manifest.txt lists every file the run wrote (PREFIX-* in the output
 * folder and in the checkpoint folder), one a line, sorted: a file of the output folder by its name
 * in it, one elsewhere by its path.  A new run removes the files of the
 * previous manifest of its prefix before it writes its own (so that none of an earlier, larger run is
 * left beside its files), unless told to keep them; a restart continues the files of the run it
 * continues, which stay in the manifest.  Rank 0 alone keeps it.
 */
typedef struct sq_run_files sq_run_files;

/**
 * @brief Before the first output: read the previous manifest of @p prefix in @p dir; for a new run
 * (@p restart 0) remove the files it lists, or with @p keep_stale keep them (they are then reported as
 * stale, not listed); then mark the start of this run.  @p ckpt_dir: checkpoint.directory ("" or NULL:
 * @p dir).
 */
/**
 * @brief Create the folder @p path and its parents (as mkdir -p); an error names the first one that cannot be
 * created, as "cannot create <what>directory" (@p what: e.g. "output ", or "").
 */
int sq_mkdir_p(const char *path, const char *what);

int sq_run_files_begin(const char *dir, const char *ckpt_dir, const char *prefix, int restart, int keep_stale,
                       sq_run_files **out);
/** @brief After the last output: list the run's files and write the manifest (NULL is fine). */
int sq_run_files_finish(sq_run_files *f);
/** @brief The manifest's path. */
const char *sq_run_files_manifest(const sq_run_files *f);
/** @brief Files listed by the last sq_run_files_finish, and the @p i-th of them. */
int sq_run_files_count(const sq_run_files *f);
/** @brief The @p i-th file of the manifest, as the manifest writes it. */
const char *sq_run_files_path(const sq_run_files *f, int i);
/** @brief Files of the previous run kept (keep_stale) and not written again, and the @p i-th of them. */
int sq_run_files_stale_count(const sq_run_files *f);
/** @brief The @p i-th stale file. */
const char *sq_run_files_stale_path(const sq_run_files *f, int i);
/** @brief Free (NULL is fine). */
void sq_run_files_destroy(sq_run_files *f);

#endif
