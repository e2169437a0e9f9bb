/** @file sq_app.h  The starquake program: its sub-commands. */
#ifndef SQ_APP_H
#define SQ_APP_H

#include "sq_sim.h"

/** @brief `starquake CONFIG` */
int sq_cmd_run(int argc, char **argv);
/** @brief `starquake verify ...` */
int sq_cmd_verify(int argc, char **argv);
/** @brief `starquake verify pointsource ...` (app/verify_source.c) */
int sq_cmd_verify_pointsource(int argc, char **argv);
/** @brief `starquake verify thermal-pressurization ...` (app/verify_tp.c) */
int sq_cmd_verify_tp(int argc, char **argv);
/** @brief `starquake verify kinematic ...` (app/verify_kinematic.c) */
int sq_cmd_verify_kinematic(int argc, char **argv);
/** @brief `starquake verify okada ...` (app/verify_okada.c) */
int sq_cmd_verify_okada(int argc, char **argv);
/** `starquake postseismic CONFIG.yaml`: quasi-static relaxation after a fault slip (app/postseismic.c). */
int sq_cmd_postseismic(int argc, char **argv);
/** @brief `starquake verify savage-prescott ...` (app/verify_savage_prescott.c) */
int sq_cmd_verify_savage_prescott(int argc, char **argv);
/** @brief `starquake mesh info FILE | convert IN OUT` (app/mesh_cmd.c) */
int sq_cmd_mesh(int argc, char **argv);

/** @brief `starquake seissol-import parameters.par [-o run.yaml]` (app/seissol_cmd.c) */
int sq_cmd_seissol_import(int argc, char **argv);
/** @brief Load the SeisSol set-up @p path (a parameters.par) as a configuration: imported into native YAML
 * in memory, its file names relative to its folder, then loaded with the --set overrides @p sets. */
int sq_seissol_load(const char *path, const char *const *sets, int nsets, sq_config *cfg);

/** @brief `starquake probe CONFIG --points ...`: material, plasticity and fault values at points (app/probe.c) */
int sq_cmd_probe(int argc, char **argv);

/** @brief Print the help of command @p name ("run", "verify planewave", "mesh info", ...; NULL: the whole
 * program's) on @p out (app/help.c); SQ_ERR_INPUT for an unknown name. */
int sq_help_print(FILE *out, const char *name);
/** @brief Print the man page (troff) of the same text on @p out: docs/starquake.1. */
void sq_help_man(FILE *out);

#endif
