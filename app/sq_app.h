/** @file sq_app.h  The starquake program: simulation object, run and verify sub-commands. */
#ifndef SQ_APP_H
#define SQ_APP_H

#include "sq_config.h"
#include "sq_graph.h"
#include "sq_solver.h"

/** One simulation: configuration, mesh, discretisation and (unless serial) its StarPU handles. */
typedef struct sq_sim {
  sq_config cfg;
  sq_mesh *mesh;
  sq_material *cell_material;
  sq_disc *disc;
  sq_runtime *rt;   /**< NULL in serial mode */
  int serial;       /**< 1: reference stepping without StarPU */
  double time;
  int64_t steps;    /**< time steps done */
  sq_planewave pw;  /**< analytic solution when the initial condition is a plane wave */
  int has_analytic;
} sq_sim;

/** @brief Start StarPU with scheduler @p sched (NULL/"" : STARPU_SCHED or our default). */
int sq_app_starpu_start(const char *sched);
/** @brief Shut StarPU down (safe if it was not started). */
void sq_app_starpu_stop(void);

/** @brief Build the mesh, materials, discretisation and initial condition of @p cfg. */
int sq_sim_create(const sq_config *cfg, int serial, sq_sim **sim);
/** @brief Advance by @p nsteps sync intervals of @p dt (one GTS step each without LTS) and wait for the result. */
int sq_sim_advance(sq_sim *sim, int64_t nsteps, double dt);
/** @brief The sync interval (slowest cluster's step) that reaches @p t_end in a whole number: sets @p dt, @p nsteps. */
void sq_sim_plan(const sq_sim *sim, double t_end, double *dt, int64_t *nsteps);
/** Free the simulation (unregisters StarPU data first). */
void sq_sim_destroy(sq_sim *sim);

/** @brief `starquake CONFIG` */
int sq_cmd_run(int argc, char **argv);
/** @brief `starquake verify ...` */
int sq_cmd_verify(int argc, char **argv);
/** @brief `starquake mesh info FILE | convert IN OUT` (app/mesh_cmd.c) */
int sq_cmd_mesh(int argc, char **argv);

#endif
