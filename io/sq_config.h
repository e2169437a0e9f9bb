/**
 * @file sq_config.h  Typed, validated run configuration read from YAML (libyaml).
 *
 * Every error names the file, the line and the key; a misspelt key gets the nearest valid key as a
 * suggestion.  Unknown keys, wrong types, out-of-range values and missing required values are errors.
 * docs/CONFIG.md is the reference for every key (keep it in sync with the schema tables in
 * config_tables.c and config_tables_physics.c).
 */
#ifndef SQ_CONFIG_H
#define SQ_CONFIG_H

#include "sq_common.h"
#include "sq_mesh.h"
#include "sq_partition.h"
#include "sq_physics.h"

#define SQ_PATH_MAX      1024
#define SQ_MAX_MATERIALS 64
#define SQ_MAX_MODES     8

/** One plane-wave mode of the initial condition. */
typedef struct sq_wave_mode {
  enum { SQ_MODE_P, SQ_MODE_S1, SQ_MODE_S2 } type;
  double amplitude;
  int direction; /**< +1: travels along +k, -1: along -k */
} sq_wave_mode;

#define SQ_MAX_SOURCES         16
#define SQ_MAX_RECEIVER_POINTS 256

/** Time function of a configured point source (the shapes of sq_source.h). */
typedef struct sq_stf_config {
  enum { SQ_STFCFG_GAUSSIAN, SQ_STFCFG_RICKER, SQ_STFCFG_BRUNE, SQ_STFCFG_LOH1, SQ_STFCFG_TABLE } kind;
  double delay;            /**< gaussian, ricker: centre time */
  double width;            /**< gaussian: 1/e half width */
  double frequency;        /**< ricker: peak frequency */
  double corner_frequency; /**< brune: f_c, T = 1 / (2 pi f_c) */
  double period;           /**< loh1: T */
  char file[SQ_PATH_MAX];  /**< table: "time value" file, resolved against the config's folder */
} sq_stf_config;

/** One item of the `sources` list. */
typedef struct sq_source_config {
  enum {
    SQ_SRCCFG_MOMENT_TENSOR,
    SQ_SRCCFG_DOUBLE_COUPLE,
    SQ_SRCCFG_FORCE,
    SQ_SRCCFG_FINITE,
    SQ_SRCCFG_CMTSOLUTION,
    SQ_SRCCFG_NRF
  } type;
  int line; /**< line of the item in the config file (for messages) */
  double location[3];
  double moment_tensor[6]; /**< xx, yy, zz, xy, yz, xz (N m) */
  double strike, dip, rake, m0;
  double force[3]; /**< N */
  double onset;    /**< time shift of the time function */
  sq_stf_config stf;
  char file[SQ_PATH_MAX]; /**< finite, cmtsolution, nrf: the source file, resolved against the config's folder */
} sq_source_config;

/** The whole run configuration. */
/** A config value that is a number or an expression in x, y, z (io/sq_expr.h), kept as text. */
typedef struct sq_cfg_expr {
  char text[400]; /**< "" when not given */
  int line;       /**< line in the config file */
} sq_cfg_expr;

/** The values of a material entry, in the order of sq_material_rule.value. */
enum sq_mat_value { SQ_MV_RHO, SQ_MV_LAMBDA, SQ_MV_MU, SQ_MV_VP, SQ_MV_VS, SQ_MV_QP, SQ_MV_QS, SQ_NMAT_VALUES };
/** Config key of each enum sq_mat_value ("rho", "lambda", "mu", "vp", "vs", "qp", "qs"). */
extern const char *const sq_mat_value_names[SQ_NMAT_VALUES];

/**
 * One material entry: the default or a rule.  Rules apply in file order over the default, later ones win.
 * Each value is a number or an expression in x, y, z and group (sq_cfg_expr); when all are constant,
 * @c mat holds the material and @c varying is 0, else sq_material_eval computes it per cell.
 */
typedef struct sq_material_rule {
  enum { SQ_MAT_LAYER, SQ_MAT_REGION, SQ_MAT_GROUP, SQ_MAT_DEFAULT } kind;
  double z_top, z_bottom;            /**< LAYER: applies to cells whose centroid z lies in [z_bottom, z_top) */
  double lo[3], hi[3];               /**< REGION: applies to cells whose centroid lies in the box */
  int group;                         /**< GROUP: applies to cells of this mesh group */
  sq_material mat;                   /**< the material when no value varies */
  int line;                          /**< line of the entry in the config file */
  char key[48];                      /**< "materials.default", "materials.layers[0]", ... */
  int velocity;                      /**< given as rho, vp, vs (else rho, lambda, mu) */
  int varying;                       /**< some value is an expression of the position */
  sq_cfg_expr value[SQ_NMAT_VALUES]; /**< as written ("" where not given) */
} sq_material_rule;

/** Spatially varying fault quantities (fault.<name> and fault.patches[i].<name>). */
enum sq_fault_param {
  SQ_FP_MU_S,
  SQ_FP_MU_D,
  SQ_FP_D_C,
  SQ_FP_COHESION,
  SQ_FP_FORCED_TIME,
  SQ_FP_FORCED_DURATION,
  SQ_FP_A,
  SQ_FP_B,
  SQ_FP_L,
  SQ_FP_F0,
  SQ_FP_V0,
  SQ_FP_F_W,
  SQ_FP_V_W,
  SQ_FP_V_INIT,
  SQ_FP_TRACTION_NORMAL,
  SQ_FP_TRACTION_STRIKE,
  SQ_FP_TRACTION_DIP,
  SQ_FP_NUC_NORMAL,
  SQ_FP_NUC_STRIKE,
  SQ_FP_NUC_DIP,
  SQ_FP_S_XX,
  SQ_FP_S_YY,
  SQ_FP_S_ZZ,
  SQ_FP_S_XY,
  SQ_FP_S_YZ,
  SQ_FP_S_XZ,
  SQ_FP_TP_ALPHA_TH,   /**< thermal pressurization: thermal diffusivity */
  SQ_FP_TP_ALPHA_HY,   /**< hydraulic diffusivity */
  SQ_FP_TP_RHO_C,      /**< heat capacity rho c */
  SQ_FP_TP_LAMBDA,     /**< Lambda: pore-pressure rise per degree */
  SQ_FP_TP_HALF_WIDTH, /**< half-width of the shear zone */
  SQ_FP_TP_T0,         /**< initial temperature */
  SQ_FP_TP_P0,         /**< initial pore pressure */
  SQ_FP_STRIKE_SLIP,   /**< kinematic laws: final slip along strike */
  SQ_FP_DIP_SLIP,      /**< kinematic laws: final slip down-dip */
  SQ_FP_RUPTURE_ONSET, /**< kinematic laws: onset time */
  SQ_FP_TAU_S,         /**< kinematic Yoffe: smoothing time */
  SQ_FP_RISE_TIME,     /**< kinematic Yoffe: tau_R; Gaussian: duration */
  SQ_NFAULT_PARAMS
};
/** Config key of each enum sq_fault_param (initial_stress.xx ... for the tensor). */
extern const char *const sq_fault_param_names[SQ_NFAULT_PARAMS];

#define SQ_MAX_FAULT_PATCHES  8
#define SQ_MAX_FAULT_STATIONS 64

/** fault.patches[i]: values that replace the fault-wide ones inside an axis-aligned box. */
typedef struct sq_fault_patch {
  double lo[3], hi[3];
  int line;
  sq_cfg_expr param[SQ_NFAULT_PARAMS];
} sq_fault_patch;

/** The fault section: friction law, parameters, initial stress, nucleation, fault output. */
typedef struct sq_fault_config {
  int enabled; /**< the section is present */
  int line;
  int law;                   /**< sq_friction_law (src/sq_friction.h) */
  double reference_point[3]; /**< a point on the "+" side of the fault (native; see reference_convention) */
  int reference_convention;  /**< SQ_FAULT_REF_NATIVE or SQ_FAULT_REF_SEISSOL (src/sq_fault.h) */
  int reference_method;      /**< SQ_FAULT_REF_POINT or SQ_FAULT_REF_VECTOR: SeisSol's refPointMethod 0 / 1 */
  char output_mask_text[64]; /**< fault.output_mask as written ("" = the default) */
  int output_mask;           /**< bit g - 1: SeisSol output group g (1 .. 12) of the seissol-style fault outputs */
  double nucleation_time;    /**< ramp time of the nucleation tractions */
  sq_cfg_expr param[SQ_NFAULT_PARAMS];
  int npatches;
  sq_fault_patch patches[SQ_MAX_FAULT_PATCHES];
  double output_interval;  /**< fault snapshots (0: at the end only) */
  double station_interval; /**< on-fault station sampling (0: every sync step of the fault's cluster) */
  int nstations;
  double stations[SQ_MAX_FAULT_STATIONS][3];
  int station_line[SQ_MAX_FAULT_STATIONS];
  char easi[SQ_PATH_MAX]; /**< fault.easi: an easi model of the values, resolved against the config's folder */
  int easi_line;
  int thermal_pressurization; /**< fault.thermal_pressurization: rate-and-state laws with TP (tp_* values) */
  int tp_grid_points;         /**< fault.tp_grid_points: wavenumbers of the TP grid (default SQ_TP_MAX_POINTS) */
  double pc_v_star;           /**< fault.pc_v_star: Prakash-Clifton reference slip rate V* (m/s) */
  double pc_length;           /**< fault.pc_length: Prakash-Clifton slip distance L (m); 0: no regularisation */
} sq_fault_config;

/** Spatially varying plasticity quantities (plasticity.<name> and plasticity.initial_stress.<component>). */
enum sq_plast_param {
  SQ_PP_COHESION,
  SQ_PP_BULK_FRICTION,
  SQ_PP_TV,
  SQ_PP_S_XX,
  SQ_PP_S_YY,
  SQ_PP_S_ZZ,
  SQ_PP_S_XY,
  SQ_PP_S_YZ,
  SQ_PP_S_XZ,
  SQ_NPLAST_PARAMS
};
/** Config key of each enum sq_plast_param ("cohesion", ..., "initial_stress.xx", ...). */
extern const char *const sq_plast_param_names[SQ_NPLAST_PARAMS];

/**
 * The plasticity section: off-fault Drucker-Prager plasticity with viscoplastic relaxation (thesis §2.4).
 * Values are numbers or expressions in x, y, z (metres) and group (the mesh group of the element),
 * evaluated once at every element centroid.  initial_stress absent: fault.initial_stress when the
 * fault section gives it, else zero.
 */
typedef struct sq_plasticity_config {
  int enabled; /**< the section is present */
  int line;
  sq_cfg_expr param[SQ_NPLAST_PARAMS];
  int stress_at; /**< plasticity.initial_stress_at: SQ_PLAST_STRESS_AT_NODES (default) or _CENTROID */
} sq_plasticity_config;

/** Where the initial stress of plasticity is evaluated (plasticity.initial_stress_at). */
enum { SQ_PLAST_STRESS_AT_NODES = 0, SQ_PLAST_STRESS_AT_CENTROID = 1 };
/** The attenuation section: viscoelastic attenuation with a constant Q over a band (docs/ATTENUATION.md). */
typedef struct sq_attenuation_config {
  int enabled; /**< the section is present */
  int line;
  int mechanisms;           /**< relaxation mechanisms, 1..5 (default 3) */
  double central_frequency; /**< Hz: the centre of the band, where the materials' moduli apply */
  double frequency_ratio;   /**< f_max / f_min of the band (default 100) */
} sq_attenuation_config;

/** Wavefield output fields after the 9 quantities (bits of sq_config.output_fields): plastic strain and eta. */
enum {
  SQ_FIELD_EP_XX = 9,
  SQ_FIELD_EP_YY,
  SQ_FIELD_EP_ZZ,
  SQ_FIELD_EP_XY,
  SQ_FIELD_EP_YZ,
  SQ_FIELD_EP_XZ,
  SQ_FIELD_ETA,
  SQ_NFIELDS /**< 16 */
};

/** A duration of the postseismic section: the text as written ("30 days", "10 years", "3600", "2.5 yr") and
 *  its value in seconds (units: s, min, h, days, weeks, months (1/12 year), years (Julian), no unit: seconds). */
typedef struct sq_ps_duration {
  char text[64];
  double seconds;
} sq_ps_duration;

#define SQ_PS_MAX_ETA_RULES 32
/** One viscosity entry of postseismic.viscosity: the default, a layer or a mesh group. */
typedef struct sq_ps_eta_rule {
  enum { SQ_PS_ETA_DEFAULT, SQ_PS_ETA_LAYER, SQ_PS_ETA_GROUP } kind;
  double z_top, z_bottom; /**< LAYER: cells whose centroid z lies in [z_bottom, z_top) */
  int group;              /**< GROUP: cells of this mesh group */
  char eta[400];          /**< Pa s: a number, an expression in x, y, z and group, or `elastic` / `.inf` */
  int line;               /**< line of the entry */
  char key[64];           /**< "postseismic.viscosity.layers[0]", ... */
} sq_ps_eta_rule;

/** The postseismic section: quasi-static relaxation after a fault slip (`starquake postseismic`, sim/postseismic.c). */
typedef struct sq_ps_config {
  int enabled; /**< the section is present */
  int line;
  sq_ps_duration dt;                 /**< time step */
  sq_ps_duration end_time;           /**< simulated time span after the slip */
  sq_ps_duration snapshot_interval;  /**< simulated time between surface snapshots (0: every step) */
  char slip_file[SQ_PATH_MAX];       /**< rectangular slip patches (io/sq_postseismic_io.h), "" none (resolved) */
  int slip_line;                     /**< line of slip_file or rupture (negative: a --set) */
  char fault_output[SQ_PATH_MAX];    /**< rupture.fault_output: PREFIX-fault.h5 of a starquake rupture (resolved) */
  int seissol_convention;            /**< rupture.convention: 0 native, 1 seissol */
  char stations[SQ_PATH_MAX];        /**< GPS-like station file, "" none (resolved) */
  int bc_free_surface, bc_absorbing; /**< boundary condition of each boundary kind: 0 free, 1 fixed, 2 roller */
  double tolerance;                  /**< relative residual of each solve */
  int max_iterations;                /**< outer iterations per solve */
  double alpha;                      /**< time integration: 0.5 trapezoidal, 1 backward Euler */
  int predictor;                     /**< bool: the multi-step predictor */
  int serial;                        /**< bool: products as plain loops instead of StarPU tasks */
  int tile_size;                     /**< cells per element-by-element task */
  int multistep;                     /**< time steps solved together: 4 (default) or 1 (sq_qs_visco_opts.multistep) */
  sq_ps_eta_rule eta_default;        /**< viscosity.default (eta[0] == 0: elastic) */
  int neta;
  sq_ps_eta_rule eta[SQ_PS_MAX_ETA_RULES]; /**< viscosity.layers, then viscosity.groups: later entries win */
} sq_ps_config;

typedef struct sq_config {
  char path[SQ_PATH_MAX]; /**< the file it was read from */

  /* mesh: */
  enum { SQ_MESH_BOX, SQ_MESH_GMSH, SQ_MESH_PUML } mesh_kind;
  char mesh_file[SQ_PATH_MAX]; /**< GMSH / PUML: mesh.file resolved against the config's folder */
  int mesh_file_line;          /**< line of mesh.file in the config file */
  sq_box_params box;           /**< BOX */

  /* materials: */
  sq_material material_default;  /**< the default's material (at x = y = z = 0 if it varies) */
  sq_material_rule rule_default; /**< the default as written */
  int nrules;
  sq_material_rule rules[SQ_MAX_MATERIALS];
  char material_easi[SQ_PATH_MAX]; /**< materials.easi: an easi model instead of the rules ("" none) */
  int material_easi_line;

  /* initial_condition: */
  enum { SQ_IC_ZERO, SQ_IC_PLANEWAVE } ic_kind;
  double ic_wave_vector[3]; /**< k, rad per length unit (planewave) */
  enum { SQ_PROFILE_SINE, SQ_PROFILE_GAUSSIAN } ic_profile;
  double ic_center; /**< gaussian: position of the packet centre along k-hat at t=0 */
  double ic_width;  /**< gaussian: 1/e half width along k-hat */
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
  double output_interval; /**< simulated time between energy/field outputs; 0 = end only */

  /* runtime: */
  int tile_size;               /**< elements per task tile; 0: by the workers (runtime/hybrid.c) */
  char scheduler[32];          /**< StarPU scheduler name, "" = STARPU_SCHED or default dmdas */
  int merge_neighbor_clusters; /**< bool */
  int merge_corrections;       /**< bool: with merge_neighbor_clusters, the corrections too */
  int fuse_predictor;          /**< bool: ader + local of a tile as one task */
  int fuse_steps;              /**< bool: the whole step of a tile as one task where it allows it */
  int steps_per_task;          /**< with fuse_steps: consecutive (sub-)steps per whole-step task (1..1024) */
  double cpu_share;            /**< < 0: from the workers' calibrated rates (runtime/hybrid.c); 0..1: fraction of
                                    each cluster's tiles kept on CPU workers, the rest on GPUs (both kinds present) */
  int cpu_tile_size;           /**< tile size of the CPU part of a split (0: SQ_CPU_SHARE_TILE_DEFAULT) */
  int cpu_task_threads;        /**< OpenMP threads that share each CPU task's elements (default 1) */
  int gpu_affinity;            /**< bool: with several GPUs in a process, each GPU takes one METIS region,
                                    its halo cells in tiles of their own (default true) */
  int fast_cluster_gpu; /**< bool: with gpu_affinity, the fastest LTS cluster's tiles on one GPU (default true) */
  /** bool: with fast_cluster_gpu, cluster 1's cells next to the fastest cluster on its GPU too (default false) */
  int fast_cluster_chain;
  int fast_cluster_tile; /**< with several LTS clusters: elements per tile of the fastest cluster (0: tile_size) */
  /** with fast_cluster_gpu: the element updates that the fastest cluster's GPU aims at, as a fraction of an equal
   *  share (0..1]; the other GPUs share the rest (default 1) */
  double fast_gpu_share;
  /** bool: with fuse_steps and steps_per_task at least the LTS rate, the fastest cluster's whole-step task also
   *  takes the correction of the cluster-1 tiles next to it (sq_step_fold_target) */
  int fuse_chain_correction;
  /** bool: with fuse_chain_correction, that task also takes those tiles' next predictors where it may */
  int fuse_chain_prediction;
  /** bool: with tiles on several GPUs, each predictor's outputs that another GPU reads are copied there as soon as
   *  the predictor ends (sq_runtime_forward_outputs) */
  int prefetch_halo;
  /** bool: the whole-step tasks that take cluster-1 corrections run all their kernels at the GPU's highest stream
   *  priority (sq_runtime_set_chain_priority) */
  int chain_priority;
  sq_part_weights partition; /**< METIS vertex weights for MPI runs: bw | bwm | encoded */
  int node_speed_weights;    /**< bool: measure each rank's speed at start-up and size its part by it */

  /* sources: */
  int nsources;
  sq_source_config sources[SQ_MAX_SOURCES];

  /* receivers: */
  int nreceivers; /**< points given in the config */
  double receiver_points[SQ_MAX_RECEIVER_POINTS][3];
  int receiver_line[SQ_MAX_RECEIVER_POINTS]; /**< their lines */
  char receiver_file[SQ_PATH_MAX];           /**< "x y z" file, "" = none (resolved) */
  double receiver_interval;                  /**< sampling interval (> 0 when receivers exist) */
  double receiver_flush;                     /**< simulated time between writes; 0 = checkpoints and end */
  int receiver_hdf5;                         /**< bool: also write PREFIX-receivers.h5 */
  char receiver_stations[SQ_PATH_MAX];       /**< SPECFEM3D STATIONS file, "" = none (resolved) */
  int receiver_displacement;                 /**< bool: also write the displacement u1..u3 */

  /* output (snapshots): */
  int output_fields;               /**< bit p set: field p in the wavefield snapshots: the quantities (sq_physics.h
                                        order), then SQ_FIELD_EP_XX .. SQ_FIELD_ETA (plasticity only) */
  int output_vertex;               /**< bool: vertex-interpolated instead of cell-average values */
  int output_surface;              /**< bool: free-surface snapshots */
  int output_surface_displacement; /**< bool: the free-surface snapshots add u1..u3 */
  enum { SQ_OUTPUT_XDMF, SQ_OUTPUT_NONE } output_format;
  enum { SQ_OUTPUT_STYLE_NATIVE, SQ_OUTPUT_STYLE_SEISSOL } output_style; /**< file names, columns, conventions */

  /* fault: */
  sq_fault_config fault;
  /* plasticity: */
  sq_plasticity_config plasticity;
  /* attenuation: */
  sq_attenuation_config attenuation;
  /* checkpoint: */
  double checkpoint_interval; /**< simulated time between checkpoints; 0 = only on SIGTERM/SIGUSR1 */
  double stop_within;         /**< wall seconds: chunks longer than this save their start so a stop can cancel them */
  char checkpoint_dir[SQ_PATH_MAX]; /**< "" = the output directory */
  /* from the command line: */
  int strict; /**< --strict: the material warnings (a rule matching no cell, implausible values) are errors */
  /* postseismic: */
  sq_ps_config postseismic;
} sq_config;

/** @brief Fill @p cfg with defaults (order 4, double, CFL 0.5, GTS, box default, ...). */
void sq_config_default(sq_config *cfg);

/**
 * @brief Read and validate @p path into @p cfg (defaults first, then the file).
 * On error prints one message "FILE:LINE: key 'a.b': what is wrong [; did you mean 'x'?]" and
 * returns SQ_ERR_INPUT (or SQ_ERR_IO if the file cannot be read).
 */
int sq_config_load(const char *path, sq_config *cfg);

/**
 * @brief sq_config_load with the command line's overrides: @p sets holds @p nsets texts "KEY=VALUE",
 * KEY a dotted path (equations.end_time, materials.layers[0].rho) and VALUE YAML text.  Each value
 * replaces the file's (or adds the key) before the schema checks it, exactly like a value of the file;
 * messages about it name "--set KEY=VALUE" and the key.
 */
int sq_config_load_with_sets(const char *path, const char *const *sets, int nsets, sq_config *cfg);

/** @brief Same as sq_config_load but from a string; @p name is used in messages. */
int sq_config_load_string(const char *yaml, const char *name, sq_config *cfg);
/** @brief sq_config_load_with_sets from the text @p yaml, named @p name in messages, its relative file names
 * taken relative to the folder @p dir ("" or "DIR/"): a configuration made in memory (a SeisSol import). */
int sq_config_load_text(const char *yaml, const char *name, const char *dir, const char *const *sets, int nsets,
                        sq_config *cfg);

/**
 * @brief Material of a cell with centroid @p x and group @p group under the config's rules.  Rules whose
 * values are expressions are compiled on every call (a bad value there gives NaN, quietly): loops over
 * cells use sq_material_eval.
 */
sq_material sq_config_material_at(const sq_config *cfg, const double x[3], int group);

/**
 * @brief The material of one entry at a point, quietly: NaN values where an expression gives a bad value
 * there (sq_material_eval_cell reports those).
 */
sq_material sq_material_rule_at(const sq_material_rule *rule, const double x[3], int group);

/** What the material entries did over the cells (index 0: the default, i + 1: rule i). */
typedef struct sq_material_stats {
  int64_t ncell[SQ_MAX_MATERIALS + 1];  /**< cells the rule matched; the default: cells no rule matched */
  double lo[SQ_MAX_MATERIALS + 1][3];   /**< smallest vp, vs, rho of the entry over those cells */
  double hi[SQ_MAX_MATERIALS + 1][3];   /**< largest */
  double vpvs_lo[SQ_MAX_MATERIALS + 1]; /**< smallest vp/vs over those cells with vs > 0 */
} sq_material_stats;

/** Opaque: the config's material entries with their expressions compiled. */
typedef struct sq_material_eval sq_material_eval;

/** @brief Compile the expressions of the material entries of @p cfg (kept by pointer: it must outlive @p out). */
int sq_material_eval_create(const sq_config *cfg, sq_material_eval **out);
/** @brief Free it (NULL is fine). */
void sq_material_eval_destroy(sq_material_eval *ev);
/** @brief Empty statistics (counts 0, ranges empty). */
void sq_material_stats_init(sq_material_stats *stats);
/**
 * @brief The material of one cell (centroid @p x, mesh group @p group; @p cell names it in messages).
 * Expressions are checked at the cell: finite, rho > 0, mu >= 0 and a positive bulk modulus (lambda, mu),
 * or vp > vs >= 0; a failure is reported as "FILE:LINE: key 'materials.layers[0].vp': ... at (x, y, z)".
 * @param stats NULL, or the statistics to add this cell to
 */
int sq_material_eval_cell(const sq_material_eval *ev, const double x[3], int group, int64_t cell, sq_material *mat,
                          sq_material_stats *stats);
/**
 * @brief The materials of cells 0 .. n - 1 (centroids @p xyz, n x 3; groups @p group), threaded (OpenMP).
 * An easi model is evaluated once over all the cells (sq_easi_eval, its Lua states per thread); rules
 * cell by cell.  The results, the statistics and the error do not depend on the number of threads: a
 * failure reports the lowest failing cell, as sq_material_eval_cell would.
 * @param id        global ids of the cells for messages (NULL: the index)
 * @param cell_rank NULL, or only cells with cell_rank[c] == @p rank are evaluated
 * @param mat       n materials (cells left out are not touched), or NULL
 * @param stats     NULL, or the statistics to add the cells to
 */
int sq_material_eval_cells(const sq_material_eval *ev, int64_t n, const double *xyz, const int32_t *group,
                           const int64_t *id, const int *cell_rank, int rank, sq_material *mat,
                           sq_material_stats *stats);
/**
 * @brief Warn on stderr about each entry that matched no cell and each implausible value (vp < 100 m/s or
 * rho < 500 kg/m^3 in a mesh that spans @p extent >= 1000 m; vp/vs < sqrt(2)), saying what was probably
 * meant.  With cfg->strict the first of them is the error (SQ_ERR_INPUT), reported through sq_error.
 * @param mesh_lo, mesh_hi the mesh's bounding box (for the hints of layers and regions)
 * @param print   print the warnings (rank 0)
 */
int sq_material_stats_check(const sq_config *cfg, const sq_material_stats *stats, const double mesh_lo[3],
                            const double mesh_hi[3], int print);
/** @brief One line per material entry: its key, cells matched, and the ranges of vp, vs, rho. */
void sq_material_stats_print(const sq_config *cfg, const sq_material_stats *stats, FILE *out);

/**
 * @brief Print every key of the schema as markdown tables (name, type, default, allowed values):
 * docs/CONFIG_REFERENCE.md, generated from the tables so that it cannot drift from the loader.
 * `starquake config-reference` calls it.
 */
int sq_config_write_reference(FILE *out);

/**
 * @brief The viscosity (Pa s) of cells 0 .. n - 1 (centroids @p xyz, n x 3; mesh groups @p group, may be NULL)
 * under postseismic.viscosity: INFINITY where elastic.  A bad value (NaN, <= 0) is reported naming the file,
 * line, key and the cell.
 */
int sq_ps_config_eta(const sq_config *cfg, int64_t n, const double *xyz, const int32_t *group, double *eta);

/** @brief Levenshtein distance (exposed for tests). */
int sq_edit_distance(const char *a, const char *b);
/** @brief The index of the candidate nearest to @p given by the rule of the configuration's "did you mean"
 * (io/schema.c), or -1 when none is near enough; other readers (seissol/) suggest keys with it. */
int sq_config_nearest(const char *given, const char *const *candidates, int n);

#endif
