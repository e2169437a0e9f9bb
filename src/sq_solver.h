/**
 * @file sq_solver.h  The discretisation of one rank's mesh: element ordering by LTS cluster and layer,
 * tiles (the unit of a task), per-element operators (star matrices, flux solvers), face links, the
 * solution arrays, and projection / error / energy evaluation.  No StarPU here: the runtime layer
 * registers these arrays tile by tile.
 */
#ifndef SQ_SOLVER_H
#define SQ_SOLVER_H

#include "sq_kernels.h"
#include "sq_mesh.h"
#include "sq_physics.h"
#include "sq_attenuation.h"

/** Layers of a cluster (thesis §4.4): interior elements, copy elements (read by other ranks), ghosts. */
enum sq_layer { SQ_LAYER_INTERIOR = 0, SQ_LAYER_COPY = 1, SQ_LAYER_GHOST = 2, SQ_NLAYERS = 3 };

/** Data a ghost tile receives (bit mask). */
enum { SQ_GHOST_TINT = 1, SQ_GHOST_BUFFER = 2, SQ_GHOST_DERIVS = 4 };
/**
 * @brief The data a reader in LTS cluster @p reader needs from a face neighbour in cluster @p cluster
 * (thesis §3.5): a slower neighbour lends its derivatives, a faster one its accumulated buffer, one of
 * the same cluster its time-integrated dofs.
 */
static inline int sq_halo_kind(int cluster, int reader) {
  return cluster > reader ? SQ_GHOST_DERIVS : cluster < reader ? SQ_GHOST_BUFFER : SQ_GHOST_TINT;
}

/** A tile: a contiguous block of elements of one cluster and layer; the unit of one task. */
typedef struct sq_tile {
  int64_t begin, end; /**< element range [begin, end) in local ordering */
  int cluster, layer;
  int nneighbor;    /**< number of tiles this tile's faces read from (itself included if needed) */
  int *neighbor;    /**< their indices, ascending; the face links' slot indexes this list */
  int peer;         /**< ghost tiles: the owner rank (the tile is one message's worth); else -1 */
  int ghost_kinds;  /**< ghost tiles: SQ_GHOST_* data our elements read from it */
  int needs_derivs; /**< some element has a neighbour in a faster cluster: keep the time derivatives */
  int needs_buffer; /**< some element has a neighbour in a slower cluster: accumulate tint (eq. 3.40) */
  int part;         /**< its region of opt.cell_part (-1: none, or a ghost tile) */
  int part_border;  /**< its cells have a face neighbour in another region (the region's halo cells) */
} sq_tile;

/** Options for sq_disc_create. */
typedef struct sq_disc_options {
  int order;
  sq_precision precision;
  double cfl;
  int tile_size;
  int lts_rate; /**< 1 = GTS */
  int max_clusters;
  const int *cell_rank; /**< owner rank of every mesh cell (NULL: all cells are ours) */
  /** LTS clusters of every mesh cell, computed over the whole mesh (NULL: computed here from this mesh).
   *  A rank's part of a distributed mesh needs them: the clusters are normalised over face neighbours,
   *  which a part lacks beyond its ghost layer.  With them come the global ncluster and dt_min. */
  const int *cell_cluster;
  int ncluster;
  double dt_min;
  int rupture;      /**< 1: faces tagged SQ_BC_RUPTURE are dynamic-rupture faces (fault.c imposes their
                         flux); 0: they are ordinary faces */
  int rank, nranks; /**< this rank and the number of ranks */
  /** The first small_share (0..1) of each cluster's owned elements (interior, then copy) are cut into
   *  tiles of small_tile_size instead of tile_size: the CPU part of a static CPU/GPU split
   *  (runtime.cpu_share, runtime.cpu_tile_size), where smaller tiles keep every CPU worker busy.
   *  small_tile_size <= 0: no small tiles. */
  double small_share;
  int small_tile_size;
  /** With several LTS clusters: the fastest cluster's interior and copy cells are cut into tiles of this many
   *  elements instead of tile_size (small tiles, above, still come first); <= 0: tile_size.  A small fastest
   *  cluster in one tile whose faces see only slower clusters takes its whole step as one task
   *  (runtime.fuse_steps): fewer dependent tasks in the chain of its sub-steps. */
  int fast_tile_size;
  /** Viscoelastic attenuation: the fastest relaxation frequency omega_max (rad/s) of the memory variables,
   *  whose decay the predictor integrates explicitly; every element's step is then at most 2 / omega_max,
   *  where the order-2 scheme's truncated exponential 1 - z + z^2 / 2 stops damping (higher orders are stable
   *  a little further) (0: no such limit). */
  double relax_rate;
  /** The region (0 .. nparts - 1) of every mesh cell, one per GPU of the process (NULL: none).  Each
   *  cluster's interior and copy cells are then cut into tiles region by region, and within a region its
   *  cells with a face neighbour in another region (its halo cells) go into tiles of their own: a GPU
   *  reads of another GPU's region only those small tiles (sq_runtime_place_tiles_on_gpus).  nparts: the
   *  regions; sq_disc_create sets it to 0 where the tiles were not cut by regions. */
  const int *cell_part;
  int nparts;
} sq_disc_options;

/** The discretisation (owns everything but the mesh). */
typedef struct sq_disc {
  sq_disc_options opt;
  int nbasis;
  const sq_mesh *mesh;
  sq_ref *ref;
  int64_t nelem;         /**< local elements: owned (interior + copy) and ghosts */
  int64_t *cell_of;      /**< local element -> mesh cell (global id: sq_mesh_global_cell) */
  int64_t *elem_of;      /**< mesh cell -> local element, -1 if not local */
  uint8_t *is_ghost;     /**< per local element: 1 for ghosts (other ranks' cells) */
  sq_material *material; /**< per mesh cell */
  double *dt_stable;     /**< per mesh cell: CFL time step (eq. 3.36) */
  int *cluster;          /**< per mesh cell: LTS cluster */
  int ncluster;
  double *cluster_dt; /**< per cluster time step */
  double dt_min;      /**< smallest element time step */
  int ntile;
  sq_tile *tile;
  /* working-precision arrays, contiguous per tile */
  void *pack; /**< reference matrices (sq_kernel_pack) */
  size_t pack_bytes;
  void *dofs, *tint;  /**< nelem x B x 9 */
  void *derivs;       /**< nelem x O x B x 9 time derivatives (LTS only, else NULL) */
  void *buffer;       /**< nelem x B x 9 accumulated tint for slower neighbours (LTS only, else NULL) */
  void *star;         /**< nelem x 3 x 81 */
  void *flux_local;   /**< nelem x 4 x 81 */
  void *flux_nb;      /**< nelem x 4 x 81 */
  sq_face_link *link; /**< nelem x 4 */
  /* viscoelastic attenuation (sq_disc_set_attenuation; else nmech 0 and NULL) */
  int nmech;      /**< relaxation mechanisms */
  void *ane;      /**< nelem x B x 6 (nmech + 1): memory variables and the last source (kernels_ane_impl.h) */
  void *ane_coef; /**< nelem x SQ_ANE_NCOEF kernel coefficients */
} sq_disc;

/** An analytic field q(x, t) used for initial conditions and errors. */
typedef void (*sq_field_fn)(const void *ctx, const double x[3], double t, double q[9]);

/**
 * @brief Build the discretisation of @p mesh with per-cell materials @p cell_material.
 * Elements are ordered by cluster, then layer, then mesh order, and cut into tiles of at most
 * opt->tile_size elements.  Fails with a message naming the cell for a non-physical material.
 */
int sq_disc_create(const sq_mesh *mesh, const sq_material *cell_material, const sq_disc_options *opt, sq_disc **disc);
/** Free everything (NULL is fine). */
void sq_disc_destroy(sq_disc *disc);
/** @brief CFL time step of a cell of insphere diameter @p insphere and material @p mat (eq. 3.36). */
double sq_disc_dt_stable(const sq_disc_options *opt, double insphere, const sq_material *mat);
/** @brief Cluster of a cell with time step @p dt_stable before the neighbour normalisation (eq. 3.38):
 *  the largest l < max_clusters with dt_min rate^l <= dt_stable. */
int sq_disc_cluster_level(const sq_disc_options *opt, double dt_min, double dt_stable);
/** @brief The LTS clusters sq_disc_create would assign (per mesh cell), e.g. for partitioning first, and
 *  the smallest element time step @p dt_min (may be NULL). */
int sq_disc_clusters(const sq_mesh *mesh, const sq_material *cell_material, const sq_disc_options *opt, int *cluster,
                     int *ncluster, double *dt_min);

/** Is face @p face of mesh cell @p cell a dynamic-rupture face (opt.rupture set, tagged SQ_BC_RUPTURE)? */
int sq_disc_is_rupture_face(const sq_disc *disc, int64_t cell, int face);

/** Bytes of one element's B x 9 block in the working precision. */
size_t sq_disc_elem_bytes(const sq_disc *disc);

/** @brief dofs := L2 projection of @p fn at time @p t. */
void sq_disc_project(sq_disc *disc, sq_field_fn fn, const void *ctx, double t);
/**
 * @brief L2 error of the dofs against @p fn at time @p t, over all 9 quantities:
 * @p err = ||q_h - q||, @p norm = ||q||.
 */
void sq_disc_l2_error(const sq_disc *disc, sq_field_fn fn, const void *ctx, double t, double *err, double *norm);
/** @brief Total elastic + kinetic energy of the dofs. */
double sq_disc_energy(const sq_disc *disc);
/** @brief Index of the first element whose dofs hold a NaN/Inf, or -1. */
int64_t sq_disc_find_nonfinite(const sq_disc *disc);
/** @brief Evaluate the numerical solution of local element @p e at reference point @p xi. */
void sq_disc_eval(const sq_disc *disc, int64_t e, const double xi[3], double q[9]);
/** @brief 64-bit FNV-1a hash of the owned dofs in mesh-cell order (bitwise reproducibility checks). */
uint64_t sq_disc_hash(const sq_disc *disc);

/**
 * @brief One global time step of size @p dt without any runtime system: ader on every tile, then
 * local and neighbour updates tile by tile.  Per element it performs exactly the floating-point
 * operations of the task graph, so task-based runs must match it bitwise.
 */
void sq_disc_step_serial(sq_disc *disc, double dt);
/** @brief The first half of sq_disc_step_serial: ader (keeping derivatives where tiles need them) and local. */
void sq_disc_predict_serial(sq_disc *disc, double dt);
/** @brief The second half: neighbour fluxes (rupture faces, if any, go in between: sq_fault_step_serial). */
void sq_disc_correct_serial(sq_disc *disc);

/**
 * @brief Split every cluster's owned tiles into @p nparts contiguous runs in mesh order (tiles sorted by
 * their first cell), of about equal element counts: compact parts in space, e.g. one per GPU.  On entry
 * part[t] < 0 leaves tile t out (it stays -1); ghost tiles always get -1.
 */
int sq_disc_split_parts(const sq_disc *disc, int nparts, int16_t *part);
/** @brief Work of one sync interval (largest cluster step): element updates with LTS and with GTS. */
void sq_disc_lts_work(const sq_disc *disc, double *lts_updates, double *gts_updates);
/** @brief Number of steps cluster @p l takes per sync interval: rate^(L-1-l). */
int64_t sq_disc_cluster_steps(const sq_disc *disc, int l);
/** @brief Print the cluster table (elements, dt, updates per sync interval, LTS/GTS work ratio). */
void sq_disc_print_clusters(const sq_disc *disc, FILE *out);

/** Pointer to element @p e of a B x 9 per-element array in the working precision. */
void *sq_disc_elem_ptr(const sq_disc *disc, void *base, int64_t e);

/** @brief Bytes of one element's anelastic block (B x 6 (nmech + 1) reals; 0 without attenuation). */
size_t sq_disc_ane_bytes(const sq_disc *disc);
/** Element @p e of disc->ane and of disc->ane_coef. */
void *sq_disc_ane_ptr(const sq_disc *disc, int64_t e);
void *sq_disc_ane_coef_ptr(const sq_disc *disc, int64_t e);
/**
 * @brief Switch on viscoelastic attenuation with @p nmech mechanisms: per element the kernel coefficients
 * @p cell_coef (SQ_ANE_NCOEF doubles per mesh cell, sq_visco_coefficients) and zero memory variables.
 * The disc must have been created with the unrelaxed materials.
 */
int sq_disc_set_attenuation(sq_disc *disc, int nmech, const double *cell_coef);
/** @brief Doubles per element of the memory variables phi (B x 6 nmech; 0 without attenuation). */
int sq_disc_ane_ncol(const sq_disc *disc);
/** @brief Copy the memory variables phi of every local element out to (@p to_disc 0) or in from (1) the
 *  doubles @p buf (nelem x sq_disc_ane_ncol), exactly (a float widened to double comes back the same). */
void sq_disc_ane_copy(sq_disc *disc, double *buf, int to_disc);
/** @brief The memory variables phi := L2 projection of @p fn's 6 nmech values (mechanism-major) at @p t. */
void sq_disc_project_ane(sq_disc *disc, sq_field_fn fn, const void *ctx, double t);

/** Plane-wave (or Gaussian packet) superposition in a homogeneous material. */
typedef struct sq_planewave {
  double k[3];  /**< wave vector (rad per length unit) */
  int gaussian; /**< 0: sin(|k| s), 1: exp(-(s - center)^2 / width^2) with s = khat.x - c t */
  double center, width;
  int nmode;
  double r[8][9];  /**< eigenvector times amplitude per mode */
  double speed[8]; /**< signed speed per mode */
  /* viscoelastic modes (sq_planewave_attenuate): q = sum_i Im(rc_i exp(i |k| khat.x + s_i t)) */
  int nmech;                               /**< 0: elastic modes above */
  double _Complex s[8];                    /**< Laplace variable of each mode (Re s < 0: decay) */
  double _Complex rc[8][9];                /**< complex eigenvector times amplitude */
  double _Complex phi[8][6 * SQ_MECH_MAX]; /**< the memory variables phi_l of the mode */
} sq_planewave;

/** @brief Set up a plane wave of @p nmode modes (kinds, directions, amplitudes) in material @p m. */
void sq_planewave_init(sq_planewave *pw, const sq_material *m, const double k[3], int gaussian, double center,
                       double width, int nmode, const sq_wave_kind *kind, const int *direction,
                       const double *amplitude);
/** sq_field_fn for an sq_planewave context. */
void sq_planewave_eval(const void *ctx, const double x[3], double t, double q[9]);
/**
 * @brief Turn the sine modes of @p pw into viscoelastic ones of the same wave vector and velocity amplitude in
 * the medium (@p band, @p visco, density @p rho): each mode's s solves rho s^2 = -|k|^2 M(s), with M(s) the
 * complex P modulus lambda(s) + 2 mu(s) or mu(s) of the generalised Maxwell body (Newton from the elastic
 * root).  SQ_ERR_INPUT for Gaussian packets, SQ_ERR_NUMERIC if Newton does not converge.
 */
int sq_planewave_attenuate(sq_planewave *pw, const sq_atten_band *band, const sq_visco *visco, double rho);
/** sq_field_fn of the memory variables phi_l (6 nmech values) of an attenuated sq_planewave. */
void sq_planewave_eval_ane(const void *ctx, const double x[3], double t, double *phi);

#endif
