/**
 * @file sq_sim_setup.h  The pieces sq_sim_create assembles a simulation from (sim/points.c, sim/fault.c,
 * sim/plasticity.c): sources and receivers, the fault and off-fault plasticity, each from its config
 * section, after sq_disc_create and before sq_runtime_create.
 */
#ifndef SQ_SIM_SETUP_H
#define SQ_SIM_SETUP_H
#include "sq_sim.h"

/**
 * @brief Read and locate the sources and receivers of sim->cfg.  Called by sq_sim_create before the
 * runtime registers the data (receiver tiles keep their derivatives).
 */
int sq_sim_points_create(sq_sim *sim);
/** @brief Register the sources and receivers with the runtime (after sq_runtime_create). */
int sq_sim_points_attach(sq_sim *sim);
/** Free the sources and receivers (after sq_runtime_destroy). */
void sq_sim_points_destroy(sq_sim *sim);

/** @brief Errors when the config has a fault but the mesh has no rupture faces; a note for the reverse. */
int sq_sim_fault_check_mesh(const sq_config *cfg, const sq_mesh *mesh);
/** @brief sq_sim_fault_check_mesh given the number @p nrupture of rupture faces of the mesh @p source. */
int sq_sim_fault_check_count(const sq_config *cfg, const char *source, int64_t nrupture);
/** @brief Build sim->fault from sim->cfg.fault (after sq_disc_create, before sq_runtime_create). */
int sq_sim_fault_create(sq_sim *sim);

/**
 * @brief Build sim->plastic from sim->cfg.plasticity (nothing without the section): after sq_disc_create,
 * before sq_runtime_create.  A value that is not finite, a negative cohesion, bulk friction or Tv at some
 * element is an error naming the config line, the position and the mesh cell.
 */
int sq_sim_plasticity_create(sq_sim *sim);

/** @brief Attenuation (sim/attenuation.c): the band of the config's attenuation section. */
int sq_sim_attenuation_band(const sq_config *cfg, sq_atten_band *band);
/**
 * @brief Replace the moduli of material @p m (those at the central frequency, with its qp, qs; 0: elastic) by
 * the unrelaxed ones, which the whole set-up uses; @p x and @p cell name the cell in a message.
 */
int sq_sim_attenuation_unrelax(const sq_config *cfg, const sq_atten_band *band, const double x[3], int64_t cell,
                               sq_material *m);
/** @brief Per mesh cell the anelastic kernel coefficients (SQ_ANE_NCOEF each) of the unrelaxed materials. */
int sq_sim_attenuation_coefficients(const sq_config *cfg, const sq_mesh *mesh, const sq_material *unrelaxed,
                                    double **coef);
/** @brief The fastest relaxation frequency (rad/s) of the run's mechanisms, which bounds every element's step
 *         (sq_disc_options.relax_rate); 0 without attenuation or with a bad band (reported later). */
double sq_sim_attenuation_relax_rate(const sq_config *cfg);
/** @brief Turn the plane-wave initial condition @p pw into the viscoelastic one of the default material. */
int sq_sim_attenuation_wave(const sq_config *cfg, sq_planewave *pw);

#endif
