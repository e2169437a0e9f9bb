/**
 * @file sq_fault_app.h  The fault of a run (app/fault_app.c): set-up from the config (its outputs are
 * io/fault_output.c's).
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

#endif
