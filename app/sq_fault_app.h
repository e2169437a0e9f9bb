/**
 * @file sq_fault_app.h  The fault of a run (app/fault_app.c): set-up from the config and the fault
 * outputs (XDMF snapshots of the fault, on-fault stations, rupture-time contours).
 */
#ifndef SQ_FAULT_APP_H
#define SQ_FAULT_APP_H
#include "sq_app.h"

/** @brief Errors when the config has a fault but the mesh has no rupture faces; a note for the reverse. */
int sq_sim_fault_check_mesh(const sq_config *cfg, const sq_mesh *mesh);
/** @brief sq_sim_fault_check_mesh given the number @p nrupture of rupture faces of the mesh @p source. */
int sq_sim_fault_check_count(const sq_config *cfg, const char *source, int64_t nrupture);
/** @brief Build sim->fault from sim->cfg.fault (after sq_disc_create, before sq_runtime_create). */
int sq_sim_fault_create(sq_sim *sim);

/** Fault outputs of one run (opaque). */
typedef struct sq_fault_output sq_fault_output;
/**
 * @brief Open the fault outputs (none without a fault: *out = NULL) and write the t = 0 rows, or, with
 * @p restart (a fault checkpoint), continue the files of the interrupted run.  Collective.
 */
int sq_fault_output_open(sq_sim *sim, int64_t nsteps, double dt, const char *restart, sq_fault_output **out);
/** @brief Path of the fault checkpoint that goes with checkpoint @p ckpt: "CKPT.fault". */
void sq_fault_checkpoint_path(const char *ckpt, char *out, size_t len);
/** @brief Write the friction state and the output counters of step @p step to @p path.  Collective: each
 * rank writes the faces whose "-" side it owns (parallel HDF5). */
int sq_fault_checkpoint_write(const sq_fault_output *o, const char *path, int64_t step);
/** @brief Read the friction state of step @p step back from @p path (the same mesh and config; any number of
 * ranks: each reads the rows of its own faces).  Collective. */
int sq_fault_checkpoint_read(sq_sim *sim, const char *path, int64_t step);
/** @brief Sync intervals after @p done until the next fault output (INT64_MAX without a fault). */
int64_t sq_fault_output_steps_to_event(const sq_fault_output *o, int64_t done);
/** @brief Write the fault outputs due after sync interval @p done.  Collective. */
int sq_fault_output_after(sq_fault_output *o, int64_t done);
/** @brief Write the rupture-time file, close and free (NULL is fine).  Collective. */
int sq_fault_output_close(sq_fault_output *o);

#endif
