/**
 * @file sq_plasticity_app.h  Off-fault plasticity of a run (app/plasticity_app.c): the per-element
 * parameters and initial stress from the `plasticity:` section (numbers or expressions in x, y, z and
 * group, evaluated at element centroids) and run statistics.
 */
#ifndef SQ_PLASTICITY_APP_H
#define SQ_PLASTICITY_APP_H
#include "sq_app.h"

/**
 * @brief Build sim->plastic from sim->cfg.plasticity (nothing without the section): after sq_disc_create,
 * before sq_runtime_create.  A value that is not finite, a negative cohesion, bulk friction or Tv at some
 * element is an error naming the config line, the position and the mesh cell.
 */
int sq_sim_plasticity_create(sq_sim *sim);

/** Plasticity statistics at the end of a run (over all ranks). */
typedef struct sq_plasticity_stats {
  uint64_t strain_hash;   /**< hash of the plastic strain and eta rows in global cell order */
  int64_t yield_updates;  /**< element updates that yielded (this process's run only, after a restart) */
  int64_t yielded_cells;  /**< cells with eta > 0 */
  double max_eta;         /**< largest accumulated plastic strain eta */
} sq_plasticity_stats;

/** @brief Collect the statistics (collective; zero without plasticity). */
void sq_sim_plasticity_stats(const sq_sim *sim, sq_plasticity_stats *stats);

#endif
