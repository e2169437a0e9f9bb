/**
 * @file sq_config.h  Typed, validated run configuration read from YAML (libyaml).
 *
 * Every error names the file, the line and the key; a misspelt key gets the nearest valid key as a
 * suggestion.  Unknown keys, wrong types, out-of-range values and missing required values are errors.
 * docs/CONFIG.md is the reference for every key (keep it in sync with the schema in config.c).
 */
#ifndef SQ_CONFIG_H
#define SQ_CONFIG_H

#include "sq_common.h"
#include "sq_mesh.h"
#include "sq_physics.h"

#define SQ_PATH_MAX 1024
#define SQ_MAX_MATERIALS 64
#define SQ_MAX_MODES 8

/** One material rule; rules apply in file order over the default, later ones win. */
typedef struct sq_material_rule {
  enum { SQ_MAT_LAYER, SQ_MAT_REGION, SQ_MAT_GROUP } kind;
  double z_top, z_bottom;   /**< LAYER: applies to cells whose centroid z lies in [z_bottom, z_top) */
  double lo[3], hi[3];      /**< REGION: applies to cells whose centroid lies in the box */
  int group;                /**< GROUP: applies to cells of this mesh group */
  sq_material mat;
} sq_material_rule;

/** One plane-wave mode of the initial condition. */
typedef struct sq_wave_mode {
  enum { SQ_MODE_P, SQ_MODE_S1, SQ_MODE_S2 } type;
  double amplitude;
  int direction; /**< +1: travels along +k, -1: along -k */
} sq_wave_mode;

/** The whole run configuration. */
typedef struct sq_config {
  char path[SQ_PATH_MAX]; /**< the file it was read from */

  /* mesh: */
  enum { SQ_MESH_BOX, SQ_MESH_GMSH, SQ_MESH_PUML } mesh_kind;
  char mesh_file[SQ_PATH_MAX]; /**< GMSH / PUML: mesh.file resolved against the config's folder */
  sq_box_params box;           /**< BOX */

  /* materials: */
  sq_material material_default;
  int nrules;
  sq_material_rule rules[SQ_MAX_MATERIALS];

  /* initial_condition: */
  enum { SQ_IC_ZERO, SQ_IC_PLANEWAVE } ic_kind;
  double ic_wave_vector[3];   /**< k, rad per length unit (planewave) */
  enum { SQ_PROFILE_SINE, SQ_PROFILE_GAUSSIAN } ic_profile;
  double ic_center;           /**< gaussian: position of the packet centre along k-hat at t=0 */
  double ic_width;            /**< gaussian: 1/e half width along k-hat */
  int ic_nmodes;
  sq_wave_mode ic_modes[SQ_MAX_MODES];

  /* equations: */
  int order;              /**< 2..7 */
  sq_precision precision; /**< "double" | "single" */
  double cfl;             /**< (0, 1] */
  double end_time;        /**< > 0 */
  int lts_rate;           /**< 1 = GTS, >= 2 LTS */
  int lts_max_clusters;   /**< >= 1 */

  /* output: */
  char output_dir[SQ_PATH_MAX]; /**< created if missing */
  char output_prefix[256];
  double output_interval;       /**< simulated time between energy/field outputs; 0 = end only */

  /* runtime: */
  int tile_size;          /**< elements per task tile */
  char scheduler[32];     /**< StarPU scheduler name, "" = STARPU_SCHED or default dmdas */
  int merge_neighbor_clusters; /**< bool */
} sq_config;

/** @brief Fill @p cfg with defaults (order 4, double, CFL 0.5, GTS, box default, ...). */
void sq_config_default(sq_config *cfg);

/**
 * @brief Read and validate @p path into @p cfg (defaults first, then the file).
 * On error prints one message "FILE:LINE: key 'a.b': what is wrong [; did you mean 'x'?]" and
 * returns SQ_ERR_INPUT (or SQ_ERR_IO if the file cannot be read).
 */
int sq_config_load(const char *path, sq_config *cfg);

/** @brief Same as sq_config_load but from a string; @p name is used in messages. */
int sq_config_load_string(const char *yaml, const char *name, sq_config *cfg);

/** @brief Material of a cell with centroid @p x and group @p group under the config's rules. */
sq_material sq_config_material_at(const sq_config *cfg, const double x[3], int group);

/** @brief Levenshtein distance (exposed for tests). */
int sq_edit_distance(const char *a, const char *b);

#endif
