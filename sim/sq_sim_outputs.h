/**
 * @file sq_sim_outputs.h  What a run writes while it advances: energies (CSV), receivers (text + HDF5),
 * wavefield and free-surface snapshots (XDMF + HDF5) and checkpoints, each at its own interval of
 * sync steps, and everything continued seamlessly after a restart.
 *
 * The run loop asks how many sync intervals it may advance before the next output event
 * (sq_outputs_steps_to_event), reserves the receiver buffer (sq_outputs_prepare), advances, and then
 * lets sq_outputs_after write what is due.  A stop request (signal) turns the next call of
 * sq_outputs_after into a checkpoint.  The files themselves are written by io/ (sq_snapshot.h,
 * sq_fault_output.h, sq_run_files.h, sq_output.h); this gathers what they write from the simulation.
 */
#ifndef SQ_SIM_OUTPUTS_H
#define SQ_SIM_OUTPUTS_H

#include "sq_sim.h"
#include "sq_output.h"

/** Output state of one run (opaque). */
typedef struct sq_outputs sq_outputs;

/**
 * @brief Open every output of @p sim for a run of @p nsteps sync intervals of @p dt: new files at
 * t = 0 (with the initial energies and snapshots), or, with @p restart, the files of the interrupted
 * run cut back to what its checkpoint had written.  Collective over MPI ranks.
 */
int sq_outputs_open(sq_sim *sim, int64_t nsteps, double dt, const sq_checkpoint_info *restart, sq_outputs **out);
/**
 * @brief The plan at start-up (rank 0; sq_outputs_open calls it): on stdout, its sync step with the
 * outputs at intervals whose times are sync points; on stderr, a warning for each other one, with the
 * times it is written at instead (docs/CONFIG.md, "Output times").  @p nsteps: the plan's last sync point.
 */
void sq_outputs_report_plan(const sq_sim *sim, int64_t nsteps);
/** @brief Sync intervals from @p done until the next output, flush or checkpoint event (>= 1). */
int64_t sq_outputs_steps_to_event(const sq_outputs *o, int64_t done);
/** @brief Reserve room for the receiver samples of the next @p n sync intervals after @p done. */
int sq_outputs_prepare(sq_outputs *o, int64_t done, int64_t n);
/**
 * @brief Write what is due after sync interval @p done.  With @p stop set, flush everything and
 * write a checkpoint; *@p ckpt_path then names it.  Collective over MPI ranks.
 */
int sq_outputs_after(sq_outputs *o, int64_t done, int stop, const char **ckpt_path);
/**
 * @brief A stop that went back to sync interval @p done (sq_sim_rollback), whose outputs sq_outputs_after
 * has written already: flush the receivers and energies, and write the checkpoint (its path in *ckpt_path).
 */
int sq_outputs_stopped(sq_outputs *o, int64_t done, const char **ckpt_path);
/**
 * @brief Whether sq_outputs_after(@p o, @p done, @p stop) reads the dofs or plastic state (energies,
 * snapshots, checkpoints), so that they must be fetched to the host first (sq_sim_fetch).
 */
int sq_outputs_need_fields(const sq_outputs *o, int64_t done, int stop);
/**
 * @brief Whether sq_outputs_after(@p o, @p done, ...) reads the friction state (a fault snapshot), so that it
 * must be fetched first (sq_sim_fetch_fault, or sq_sim_fetch, which fetches it too).
 */
int sq_outputs_need_fault(const sq_outputs *o, int64_t done);
/**
 * @brief After a blow-up at sync interval @p done: a checkpoint of the broken state for diagnosis, in
 * PREFIX-blowup.h5 next to the checkpoints (the last good checkpoint is kept); *@p path names it.
 * Collective over MPI ranks.
 */
int sq_outputs_blowup_checkpoint(sq_outputs *o, int64_t done, const char **path);
/**
 * @brief Write the buffered receiver samples and the energy rows now (the run loop calls it every few
 * seconds of wall time, so that a crash loses little).  Collective over MPI ranks.
 */
int sq_outputs_flush(sq_outputs *o);
/** @brief Bytes of host memory the outputs hold (receiver buffers, snapshot scratch). */
size_t sq_outputs_memory(const sq_outputs *o);
/** Close every file and free (NULL is fine). */
void sq_outputs_close(sq_outputs *o);

/**
 * @brief Read @p path into @p sim (dofs and the time plan) for a restart; fills @p info.  The run may
 * end at another equations.end_time than the one that wrote the checkpoint: info->nsteps and info->dt
 * are then those of the continued run (the checkpoint's step where the new end lies on its grid).
 */
int sq_outputs_restart(sq_sim *sim, const char *path, sq_checkpoint_info *info);

#endif
