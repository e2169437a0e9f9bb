/**
 * @file output_impl.h  Private declarations of the output writers (receiver_writer.c, xdmf.c,
 * checkpoint.c): the MPI agreement and the HDF5 helpers of h5io.c.
 */
#ifndef SQ_OUTPUT_IMPL_H
#define SQ_OUTPUT_IMPL_H

#include "sq_output.h"

#include <hdf5.h>
#include <mpi.h>

#ifndef H5_HAVE_PARALLEL
#error "starquake needs the parallel (MPI-IO) build of HDF5: apt-get install libhdf5-openmpi-dev, then ./configure"
#endif

#define SQ_OUT_PATH 1400

/* ---- MPI (h5io.c) ---------------------------------------------------------------------------- */

/** This rank (0 without MPI). */
int sq_io_rank(void);
/** Ranks (1 without MPI). */
int sq_io_nranks(void);
/** The worst status over the ranks (0: success, < 0: a failure), so that every rank takes the same branch. */
int sq_io_agree(int st);
/** Rank 0's status on every rank (after what rank 0 alone does, such as the XDMF text). */
int sq_io_root(int st);

/* A failure every rank agreed on: one message (rank 0's), every rank returns @p code. */
#define io_error(code, line, ...) sq_error_once((code), __FILE__, (line), __VA_ARGS__)

/* One collective step: evaluated only while every rank has succeeded so far; then every rank learns
 * whether it failed anywhere. */
#define IO_STEP(st, expr)                                                                                              \
  do {                                                                                                                 \
    if (!(st)) (st) = sq_io_agree((expr) < 0 ? -1 : 0);                                                                \
  } while (0)

/* ---- HDF5 (h5io.c) --------------------------------------------------------------------------- */

/** HDF5's automatic error printing, saved while it is off. */
typedef struct h5_quiet {
  H5E_auto2_t func;
  void *data;
} h5_quiet;

/** Turn HDF5's error printing off (saving it in @p q) / back on. */
void sq_h5_quiet_begin(h5_quiet *q);
void sq_h5_quiet_end(const h5_quiet *q);
/**
 * Create (truncate) or open @p path on every rank (collective under MPI).  When it failed on any rank,
 * every rank gets -1.
 */
hid_t sq_h5_file(const char *path, int create, unsigned flags);
/** Close @p *file (collective) and mark it closed; < 0 on failure. */
herr_t sq_h5_close(hid_t *file);
/** Close @p *file without HDF5's messages (after a failure every rank has already reported). */
void sq_h5_close_quiet(hid_t *file);
/** Scalar attributes: write (replacing one of that name), read (-1 when absent), write a string. */
int sq_h5_attr_write(hid_t obj, const char *name, hid_t type, const void *value);
int sq_h5_attr_read(hid_t obj, const char *name, hid_t type, void *value);
int sq_h5_attr_string(hid_t obj, const char *name, const char *value);
/** Write (or read) this rank's rows of the whole dataset @p set, packed in @p data; collective. */
int sq_h5_rows_transfer(hid_t set, hid_t type, const sq_rows *rows, void *data, int write);
/** Create dataset @p name (replacing one of that name) of @p ndim dims and write this rank's rows of it;
 * collective, and agreed: every rank returns the same status. */
int sq_h5_write_dataset(hid_t loc, const char *name, hid_t type, int ndim, const hsize_t *dims, const sq_rows *rows,
                        const void *data);
/** Extend the extendible @p set to @p at + @p count rows and write rows [at, at + count): every value on
 * rank 0 (@p cols NULL) or the columns that @p cols marks, on every rank.  Collective and agreed. */
int sq_h5_append(hid_t set, int ndim, int64_t at, int64_t count, const int *cols, const double *data);
/** Make PATH.tmp durable (rank 0, after the collective close) and rename it to PATH; agreed. */
int sq_commit_tmp(const char *tmp, const char *path);

#endif
