/**
 * @file sq_output.h  Output files: receiver time series (SeisSol-compatible text, one HDF5 file with
 * all receivers), XDMF + HDF5 snapshots (wavefield cells or vertices, free-surface triangles), and
 * checkpoints.  Every writer can continue the files of an interrupted run: it cuts them back to what
 * the checkpoint had written, so that a restarted run's files equal an uninterrupted run's, byte for
 * byte.  No StarPU here.
 *
 * Under MPI (MPI_Init was called) the HDF5 files are written with parallel HDF5: every rank opens
 * them through MPI-IO on MPI_COMM_WORLD, writes only the rows it holds (hyperslabs, collective
 * transfers), and reads only the rows it needs.  The HDF5 functions below are then collective: every
 * rank calls them, in the same order, with the same sizes; a failure on any rank fails the call on
 * every rank, and rank 0 alone prints the message.  Without MPI (unit tests) one process writes
 * everything through HDF5's default driver.  Row order in the files is global (mesh cell, vertex,
 * receiver, fault face), so N ranks write the same datasets as one.
 */
#ifndef SQ_OUTPUT_H
#define SQ_OUTPUT_H

#include "sq_solver.h"

/* ---- distributed rows ------------------------------------------------------------------------- */

/**
 * The rows of a dataset that this process holds; the callers' arrays hold them packed, in this order.
 * Under MPI the ranks' rows together cover the dataset, each row once (writes) or as needed (reads).
 */
typedef struct sq_rows {
  int64_t n;         /**< rows held here */
  const int64_t *id; /**< their row numbers in the file, ascending; NULL: the rows first .. first + n - 1 */
  int64_t first;     /**< the first row when @p id is NULL */
} sq_rows;

/**
 * @brief Report a failure that every rank reached together (collective under MPI): rank 0 prints the
 * one message, the others wait until it has, so that their MPI_Abort cannot cut it off.  Returns @p code.
 */
int sq_error_once(int code, const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/**
 * @brief The HDF5 library the files are written with, e.g. "HDF5 1.10.8 parallel (MPI-IO)", into @p out.
 */
void sq_output_hdf5_describe(char *out, size_t len);

/** One dataset of a file written by sq_h5_file_write or read by sq_h5_file_read. */
typedef struct sq_h5_set {
  const char *name;    /**< dataset /NAME */
  int integer;         /**< 1: int64 values; 0: doubles */
  int64_t nrow;        /**< rows in the file */
  int ncol;            /**< values per row; 0: a one-dimensional dataset */
  const sq_rows *rows; /**< the rows held here; NULL: replicated data (written by rank 0, read by every rank) */
  void *data;          /**< rows x max(ncol, 1) values, packed */
} sq_h5_set;

/**
 * @brief Write the HDF5 file @p path holding @p nset datasets, each rank its rows; through PATH.tmp,
 * renamed when complete, so that a crash leaves the previous file intact.  @p what names the file in
 * messages ("the fault checkpoint").
 */
int sq_h5_file_write(const char *path, const char *what, int nset, const sq_h5_set *sets);
/**
 * @brief Read this rank's rows of each of the @p nset datasets of @p path; a dataset that is missing or
 * has another size fails with a message naming @p what, the dataset and both sizes.
 */
int sq_h5_file_read(const char *path, const char *what, int nset, const sq_h5_set *sets);

/* ---- receivers -------------------------------------------------------------------------------- */

/** Receiver files of one run (opaque). */
typedef struct sq_receiver_writer sq_receiver_writer;

/**
 * @brief Create the receiver files, or continue them.
 * Text: `DIR/PREFIX-receiver-NNNNN.dat` (NNNNN = receiver number from 1) for each owned receiver,
 * with the header lines TITLE, VARIABLES and `# x1`, `# x2`, `# x3`, then one E-format row per
 * sample: time, s_xx, s_yy, s_zz, s_xy, s_yz, s_xz, v1, v2, v3.
 * HDF5 (@p hdf5): `DIR/PREFIX-receivers.h5` with /points (n x 3), /time (samples) and /data
 * (samples x n x 9), both extendible, and the attributes `interval` and `variables`; under MPI each
 * receiver's column of /data is written by the rank that owns it (@p owned).
 * @param keep  -1: new files (existing ones are replaced); >= 0: continue files that hold at least
 *              @p keep samples, cutting them to exactly @p keep
 */
int sq_receiver_writer_open(const char *dir, const char *prefix, int n, const double *x, const int *owned,
                            double interval, int hdf5, int64_t keep, sq_receiver_writer **w);
/**
 * @brief sq_receiver_writer_open with names and displacements.  A receiver with a name (@p names NULL,
 * or names[i] NULL: numbered) writes `DIR/PREFIX-receiver-NAME.dat` (e.g. a station's NET.STA).  With
 * @p displacement each text row ends with u1 u2 u3 and the HDF5 file holds /displacement (samples x n x
 * 3): the displacement from t = 0, the trapezoidal time integral of the velocity samples v1..v3.  A
 * restart continues it from the last row the text file keeps.
 */
int sq_receiver_writer_open_named(const char *dir, const char *prefix, int n, const double *x, const int *owned,
                                  char *const *names, double interval, int hdf5, int displacement, int64_t keep,
                                  sq_receiver_writer **w);
/**
 * @brief sq_receiver_writer_open_named in SeisSol's style (@p seissol): `DIR/PREFIX-receiver-NNNNN-RRRRR.dat`
 * (NNNNN the receiver number from 1, RRRRR the writing rank) with SeisSol's header (TITLE "Temporal Signal
 * for receiver number NNNNN", VARIABLES "Time","xx","yy","zz","xy","yz","xz","v1","v2","v3", then
 * `# x1` .. `# x3`) and rows in its number format (%.15e); names are not used in file names.
 */
int sq_receiver_writer_open_style(const char *dir, const char *prefix, int n, const double *x, const int *owned,
                                  char *const *names, double interval, int hdf5, int displacement, int seissol,
                                  int64_t keep, sq_receiver_writer **w);
/** @brief Append samples [@p first, @p first + @p count) (count x n x 9 values; this rank's receivers are
 * read) to every file.  Collective with HDF5: every rank passes the same @p first and @p count. */
int sq_receiver_writer_append(sq_receiver_writer *w, int64_t first, int64_t count, const double *samples);
/** @brief Samples written so far. */
int64_t sq_receiver_writer_count(const sq_receiver_writer *w);
/** Close and free (NULL is fine). */
void sq_receiver_writer_close(sq_receiver_writer *w);

/* ---- XDMF snapshots --------------------------------------------------------------------------- */

/** An XDMF + HDF5 snapshot series (opaque). */
typedef struct sq_xdmf_writer sq_xdmf_writer;

/** Most fields in one snapshot series. */
#define SQ_XDMF_MAX_FIELDS 24
/** Where the values of a snapshot live. */
typedef enum { SQ_XDMF_CELL = 0, SQ_XDMF_NODE = 1 } sq_xdmf_center;

/**
 * @brief Start (or continue) a series `DIR/PREFIX-NAME.xdmf` + `DIR/PREFIX-NAME.h5`: the mesh is
 * /mesh/geometry (nnode x 3) and /mesh/topology (ncell x nvert, 4: tetrahedra, 3: triangles);
 * snapshot k is the group /step_KKKKKK with one dataset per quantity and an attribute `time`.
 * Rank 0 writes the XDMF text.
 * @param node       the rows @p node_rows of the geometry (packed, 3 per row)
 * @param node_rows  NULL: every row (rank 0 writes them)
 * @param topology   the rows @p cell_rows of the topology (packed, @p nvert per row)
 * @param keep       -1: new series; >= 0: keep the first @p keep snapshots of an existing series
 */
int sq_xdmf_open(const char *dir, const char *prefix, const char *name, int64_t nnode, const double *node,
                 const sq_rows *node_rows, int64_t ncell, int nvert, const int64_t *topology, const sq_rows *cell_rows,
                 int64_t keep, sq_xdmf_writer **w);
/**
 * @brief sq_xdmf_open in SeisSol's layout (@p seissol), which SeisSol's readers (seissolxdmf) open: the mesh
 * is /mesh0/geometry and /mesh0/connect, each field NAME one dataset /mesh0/NAME of snapshots x rows (row
 * k: snapshot k), the times /time; the XDMF gives each snapshot's attribute as a HyperSlab of that row.
 * An empty @p name gives `DIR/PREFIX.xdmf` + `DIR/PREFIX.h5` (SeisSol's wavefield).
 */
int sq_xdmf_open_style(const char *dir, const char *prefix, const char *name, int64_t nnode, const double *node,
                       const sq_rows *node_rows, int64_t ncell, int nvert, const int64_t *topology,
                       const sq_rows *cell_rows, int seissol, int64_t keep, sq_xdmf_writer **w);
/**
 * @brief Write one snapshot at @p time of @p nfield arrays (@p center: per cell or per node) and rewrite
 * the XDMF.  @p values[i] holds the rows @p rows of field i, packed (NULL: every row, written by rank 0).
 */
int sq_xdmf_write(sq_xdmf_writer *w, double time, int nfield, const char *const *names, const double *const *values,
                  sq_xdmf_center center, const sq_rows *rows);
/** @brief Snapshots in the series. */
int64_t sq_xdmf_count(const sq_xdmf_writer *w);
/** Close and free (NULL is fine). */
void sq_xdmf_close(sq_xdmf_writer *w);

/* ---- checkpoints ------------------------------------------------------------------------------ */

/** Everything besides the dofs that a restart needs to continue bitwise identically. */
typedef struct sq_checkpoint_info {
  double time;    /**< simulated time reached */
  double dt;      /**< the run's sync interval: a restart reuses it, it does not re-plan */
  double plan_t0; /**< time at which the step plan started: time(k) = plan_t0 + (k - plan_step0) dt */
  int64_t plan_step0;
  int64_t steps;  /**< sync intervals done */
  int64_t nsteps; /**< sync intervals of the whole run */
  int order, precision;
  int64_t ncell;
  int64_t receiver_samples;               /**< samples written to the receiver files */
  int64_t energy_rows;                    /**< data rows in the energy CSV */
  int64_t wavefield_steps, surface_steps; /**< snapshots written */
} sq_checkpoint_info;

/**
 * @brief Write a checkpoint: /dofs (ncell x B*9, working precision, rows by mesh cell = global
 * element id) and the attributes of @p info.  Written to PATH.tmp and renamed, so that a crash while
 * writing leaves the previous checkpoint intact.  Under MPI each rank writes the rows of the cells it
 * owns (not its ghosts), and rank 0's @p info is written.
 */
int sq_checkpoint_write(const char *path, const sq_disc *disc, const sq_checkpoint_info *info);
/**
 * @brief Read a checkpoint into @p disc's dofs; fails with a message when the file does not match
 * (cells, order, precision, or it holds extra per-element data such as the plastic strain).  Each rank
 * reads the rows of its own elements (ghosts included), so any number of ranks restarts any checkpoint.
 */
int sq_checkpoint_read(const char *path, sq_disc *disc, sq_checkpoint_info *info);

/** A per-element array a checkpoint holds besides the dofs (e.g. the plastic strain of plasticity). */
typedef struct sq_checkpoint_field {
  const char *name; /**< dataset /NAME: ncell x ncol doubles, rows by mesh cell */
  int ncol;         /**< doubles per element */
  double *data;     /**< local elements x ncol in the disc's element order (read fills the owned rows) */
} sq_checkpoint_field;

/**
 * @brief sq_checkpoint_write plus the @p nfield arrays @p fields; their names are listed in the file's
 * attribute `fields`, so that a restart can tell a checkpoint with plasticity from one without.
 */
int sq_checkpoint_write_fields(const char *path, const sq_disc *disc, const sq_checkpoint_info *info, int nfield,
                               const sq_checkpoint_field *fields);
/**
 * @brief sq_checkpoint_read plus the @p nfield arrays @p fields; the file must hold exactly these
 * extra arrays (a run with plasticity restarts from a checkpoint with plasticity, and only such a run).
 */
int sq_checkpoint_read_fields(const char *path, sq_disc *disc, sq_checkpoint_info *info, int nfield,
                              const sq_checkpoint_field *fields);

/* ---- small helpers ---------------------------------------------------------------------------- */

/** @brief Cut a text file to its first @p header + @p rows lines (fails if it holds fewer). */
int sq_text_truncate(const char *path, int64_t header, int64_t rows);

#endif
