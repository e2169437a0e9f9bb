/**
 * @file output.c  Receiver files (text + HDF5), XDMF/HDF5 snapshot series and checkpoints.
 * HDF5's own error stack printing is off while these functions run; failures become one message
 * naming the file and the dataset.  Under MPI every HDF5 file goes through MPI-IO: each rank selects
 * its rows (a union of hyperslabs, one per run of consecutive rows) and the transfers are collective.
 * Each collective step ends with an agreement on its status (io_agree), so that a failure on one rank
 * turns every rank to the same error path instead of leaving the others waiting in HDF5.
 */
#include "sq_output.h"

#include <errno.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sq_fields.h"

#ifndef H5_HAVE_PARALLEL
#error                                                                                                       \
    "starquake needs the parallel (MPI-IO) build of HDF5: apt-get install libhdf5-openmpi-dev, then ./configure"
#endif

#define SQ_OUT_PATH 1400

/* ---- MPI -------------------------------------------------------------------------------------- */

/* The files go through MPI-IO while MPI runs (the starquake program); unit tests without MPI_Init
 * write through HDF5's default driver. */
static int io_mpi(void) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  if (init)
    MPI_Finalized(&fin);
  return init && !fin;
}

static int io_rank(void) {
  int r = 0;
  if (io_mpi())
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

static int io_nranks(void) {
  int n = 1;
  if (io_mpi())
    MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

/* The worst status over the ranks (0: success, < 0: a failure), so that every rank takes the same branch. */
static int io_agree(int st) {
  if (io_nranks() > 1)
    MPI_Allreduce(MPI_IN_PLACE, &st, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return st;
}

/* Rank 0's status on every rank (after what rank 0 alone does, such as the XDMF text). */
static int io_root(int st) {
  if (io_nranks() > 1)
    MPI_Bcast(&st, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return st;
}

int sq_error_once(int code, const char *file, int line, const char *fmt, ...) {
  if (io_rank() == 0) {
    char msg[3 * SQ_OUT_PATH];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    sq_error(code, file, line, "%s", msg);
  }
  if (io_nranks() > 1)
    MPI_Barrier(MPI_COMM_WORLD);
  return code;
}

/* A failure every rank agreed on: one message (rank 0's), every rank returns @p code. */
#define io_error(code, line, ...) sq_error_once((code), __FILE__, (line), __VA_ARGS__)

/* One collective step: evaluated only while every rank has succeeded so far; then every rank learns
 * whether it failed anywhere. */
#define IO_STEP(st, expr)                                                                                    \
  do {                                                                                                       \
    if (!(st))                                                                                               \
      (st) = io_agree((expr) < 0 ? -1 : 0);                                                                  \
  } while (0)

void sq_output_hdf5_describe(char *out, size_t len) {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  snprintf(out, len, "HDF5 %u.%u.%u parallel (MPI-IO)", major, minor, release);
}

/* ---- HDF5 helpers ----------------------------------------------------------------------------- */

typedef struct h5_quiet {
  H5E_auto2_t func;
  void *data;
} h5_quiet;

static void h5_quiet_begin(h5_quiet *q) {
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}
static void h5_quiet_end(const h5_quiet *q) {
  H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

/* File access: MPI-IO on MPI_COMM_WORLD under MPI, HDF5's default driver otherwise. */
static hid_t h5_fapl(void) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl >= 0 && io_mpi() && H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0) {
    H5Pclose(fapl);
    return -1;
  }
  return fapl;
}

/*
 * Create (truncate) or open @p path on every rank (collective under MPI).  When it failed on any rank,
 * every rank gets -1: a handle that opened on some ranks is left open, since closing it is collective
 * and the run stops on this error anyway.
 */
static hid_t h5_file(const char *path, int create, unsigned flags) {
  const hid_t fapl = h5_fapl();
  hid_t file = -1;
  if (fapl >= 0)
    file = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5Fopen(path, flags, fapl);
  if (fapl >= 0)
    H5Pclose(fapl);
  return io_agree(file < 0 ? -1 : 0) ? -1 : file;
}

/* Close @p *file (collective) and mark it closed; < 0 on failure. */
static herr_t h5_close(hid_t *file) {
  const herr_t st = *file >= 0 ? H5Fclose(*file) : 0;
  *file = -1;
  return st;
}

/* Close @p *file without HDF5's messages (after a failure every rank has already reported). */
static void h5_close_quiet(hid_t *file) {
  h5_quiet q;
  h5_quiet_begin(&q);
  h5_close(file);
  h5_quiet_end(&q);
}

/* Raw-data transfers: collective under MPI (every rank calls H5Dwrite / H5Dread, possibly with no rows). */
static hid_t h5_dxpl(void) {
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  if (dxpl >= 0 && io_mpi() && H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0) {
    H5Pclose(dxpl);
    return -1;
  }
  return dxpl;
}

static int h5_attr_write(hid_t obj, const char *name, hid_t type, const void *value) {
  hid_t space = H5Screate(H5S_SCALAR);
  if (H5Aexists(obj, name) > 0)
    H5Adelete(obj, name);
  hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t st = a >= 0 ? H5Awrite(a, type, value) : -1;
  if (a >= 0)
    H5Aclose(a);
  H5Sclose(space);
  return st < 0 ? -1 : 0;
}

static int h5_attr_read(hid_t obj, const char *name, hid_t type, void *value) {
  if (H5Aexists(obj, name) <= 0)
    return -1;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  herr_t st = a >= 0 ? H5Aread(a, type, value) : -1;
  if (a >= 0)
    H5Aclose(a);
  return st < 0 ? -1 : 0;
}

static int h5_attr_string(hid_t obj, const char *name, const char *value) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, strlen(value) + 1);
  int st = h5_attr_write(obj, name, type, value);
  H5Tclose(type);
  return st;
}

/* Rows of a transfer held here: @p rows, or without them every row, on rank 0 for a write (replicated
 * data is written once) and on every rank for a read. */
static int64_t rows_here(const sq_rows *rows, int64_t nrow, int write) {
  return rows ? rows->n : (!write || io_rank() == 0) ? nrow : 0;
}

/* A block of a selection: indices [first, first + len) of one dimension. */
typedef struct h5_run {
  hsize_t first, len;
} h5_run;

/*
 * The union of the blocks @p run[lo, hi) (ascending, disjoint) along dimension @p dim, each spanning
 * @p start / @p count in the other dimensions, as the selection of a copy of @p tmpl.  Halves are
 * built apart and then combined: appending n blocks one by one costs O(n^2) in HDF5 1.10 (every OR
 * walks the whole selection), combining halves O(n log n).
 */
static hid_t h5_runs(hid_t tmpl, int ndim, const hsize_t *start, const hsize_t *count, int dim,
                     const h5_run *run, int64_t lo, int64_t hi) {
  if (hi - lo > 64) {
    const int64_t mid = lo + (hi - lo) / 2;
    hid_t a = h5_runs(tmpl, ndim, start, count, dim, run, lo, mid);
    hid_t b = a >= 0 ? h5_runs(tmpl, ndim, start, count, dim, run, mid, hi) : -1;
    const int st = b < 0 || H5Smodify_select(a, H5S_SELECT_OR, b) < 0;
    if (b >= 0)
      H5Sclose(b);
    if (st && a >= 0)
      H5Sclose(a), a = -1;
    return a;
  }
  hid_t space = H5Scopy(tmpl);
  int st = space < 0 || H5Sselect_none(space) < 0;
  hsize_t s[3], c[3];
  for (int d = 0; d < ndim; ++d)
    s[d] = start[d], c[d] = count[d];
  for (int64_t k = lo; k < hi && !st; ++k) {
    s[dim] = run[k].first;
    c[dim] = run[k].len;
    st = H5Sselect_hyperslab(space, H5S_SELECT_OR, s, NULL, c, NULL) < 0;
  }
  if (st && space >= 0)
    H5Sclose(space), space = -1;
  return space;
}

/* Select the blocks @p run[0, n) of dimension @p dim (see h5_runs) in @p space; none when n is 0. */
static int h5_select_runs(hid_t space, int ndim, const hsize_t *start, const hsize_t *count, int dim,
                          const h5_run *run, int64_t n) {
  if (n == 0)
    return H5Sselect_none(space) < 0 ? -1 : 0;
  const hid_t sel = h5_runs(space, ndim, start, count, dim, run, 0, n);
  const int st = sel < 0 || H5Sselect_copy(space, sel) < 0 ? -1 : 0;
  if (sel >= 0)
    H5Sclose(sel);
  return st;
}

/*
 * Select in @p space (ndim dimensions, @p dims) the rows of a transfer (all of dimensions 1 and 2):
 * one block per run of consecutive rows.  Fails when the rows do not ascend or lie outside the dataset.
 */
static int h5_select_rows(hid_t space, int ndim, const hsize_t *dims, const sq_rows *rows, int write) {
  if (!rows)
    return rows_here(NULL, (int64_t)dims[0], write) > 0 ? H5Sselect_all(space) : H5Sselect_none(space);
  h5_run *run = malloc(sizeof(h5_run) * (size_t)(rows->n > 0 ? rows->n : 1));
  if (!run)
    return -1;
  int64_t nrun = 0, prev = -1;
  for (int64_t k = 0; k < rows->n;) {
    const int64_t first = rows->id ? rows->id[k] : rows->first + k;
    int64_t len = rows->id ? 1 : rows->n - k;
    while (rows->id && k + len < rows->n && rows->id[k + len] == first + len)
      ++len;
    if (first <= prev || first < 0 || (hsize_t)(first + len) > dims[0]) {
      free(run);
      return -1;
    }
    run[nrun++] = (h5_run){(hsize_t)first, (hsize_t)len};
    prev = first + len - 1;
    k += len;
  }
  const hsize_t start[3] = {0, 0, 0}, count[3] = {0, ndim > 1 ? dims[1] : 1, ndim > 2 ? dims[2] : 1};
  const int st = h5_select_runs(space, ndim, start, count, 0, run, nrun);
  free(run);
  return st;
}

/* Write (or read) this rank's rows of the whole dataset @p set, packed in @p data; collective. */
static int h5_rows_transfer(hid_t set, hid_t type, const sq_rows *rows, void *data, int write) {
  hid_t fspace = H5Dget_space(set), dxpl = h5_dxpl(), mspace = -1;
  hsize_t dims[3] = {0, 1, 1};
  const int ndim = fspace >= 0 ? H5Sget_simple_extent_ndims(fspace) : -1;
  int st =
      fspace < 0 || dxpl < 0 || ndim < 1 || ndim > 3 || H5Sget_simple_extent_dims(fspace, dims, NULL) < 0;
  if (!st)
    st = h5_select_rows(fspace, ndim, dims, rows, write) < 0;
  const int64_t n = st ? 0 : rows_here(rows, (int64_t)dims[0], write);
  hsize_t mdims[3] = {(hsize_t)(n > 0 ? n : 1), dims[1], dims[2]};
  if (!st) {
    mspace = H5Screate_simple(ndim, mdims, NULL);
    st = mspace < 0 || (n == 0 && H5Sselect_none(mspace) < 0);
  }
  /* every rank takes part in the collective transfer, also when its own selection failed */
  if (st && fspace >= 0 && mspace >= 0)
    H5Sselect_none(fspace), H5Sselect_none(mspace);
  herr_t io = -1;
  if (fspace >= 0 && mspace >= 0 && dxpl >= 0)
    io = write ? H5Dwrite(set, type, mspace, fspace, dxpl, data)
               : H5Dread(set, type, mspace, fspace, dxpl, data);
  if (mspace >= 0)
    H5Sclose(mspace);
  if (fspace >= 0)
    H5Sclose(fspace);
  if (dxpl >= 0)
    H5Pclose(dxpl);
  return st || io < 0 ? -1 : 0;
}

/* Create dataset @p name (replacing one of that name) of @p ndim dims and write this rank's rows of it;
 * collective, and agreed: every rank returns the same status. */
static int h5_write_dataset(hid_t loc, const char *name, hid_t type, int ndim, const hsize_t *dims,
                            const sq_rows *rows, const void *data) {
  int st = 0;
  hid_t space = -1, set = -1;
  if (H5Lexists(loc, name, H5P_DEFAULT) > 0)
    IO_STEP(st, H5Ldelete(loc, name, H5P_DEFAULT));
  IO_STEP(st, space = H5Screate_simple(ndim, dims, NULL));
  IO_STEP(st, set = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  IO_STEP(st, h5_rows_transfer(set, type, rows, (void *)data, 1));
  if (set >= 0)
    H5Dclose(set);
  if (space >= 0)
    H5Sclose(space);
  return st;
}

/*
 * Extend the extendible @p set (ndim 1 or 3) to @p at + @p count rows and write rows [at, at + count)
 * from @p data (count x dims[1] x dims[2]): every value on rank 0 when @p cols is NULL, else the
 * columns of dimension 1 that @p cols marks, on every rank.  Collective and agreed.
 */
static int h5_append(hid_t set, int ndim, int64_t at, int64_t count, const int *cols, const double *data) {
  hsize_t dims[3] = {0, 1, 1};
  hid_t space = -1, mem = -1, dxpl = -1;
  int st = 0;
  IO_STEP(st, space = H5Dget_space(set));
  IO_STEP(st, H5Sget_simple_extent_ndims(space) == ndim ? H5Sget_simple_extent_dims(space, dims, NULL) : -1);
  if (space >= 0)
    H5Sclose(space);
  space = -1;
  dims[0] = (hsize_t)(at + count);
  IO_STEP(st, H5Dset_extent(set, dims));
  IO_STEP(st, space = H5Dget_space(set));
  const hsize_t mdims[3] = {(hsize_t)count, dims[1], dims[2]};
  IO_STEP(st, mem = H5Screate_simple(ndim, mdims, NULL));
  IO_STEP(st, dxpl = h5_dxpl());
  int sel = st ? -1 : 0;
  if (!sel && !cols) {
    const int mine = io_rank() == 0;
    sel = (mine ? H5Sselect_all(mem) : H5Sselect_none(mem)) < 0;
    const hsize_t start[3] = {(hsize_t)at, 0, 0};
    if (!sel)
      sel = mine ? H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, mdims, NULL) < 0
                 : H5Sselect_none(space) < 0;
  } else if (!sel) { /* the runs of marked columns, the same in the file and in memory */
    h5_run *run = malloc(sizeof(h5_run) * (size_t)(dims[1] > 0 ? dims[1] : 1));
    int64_t nrun = 0;
    for (hsize_t i = 0; run && i < dims[1];) {
      hsize_t len = 0;
      while (i + len < dims[1] && cols[i + len])
        ++len;
      if (len)
        run[nrun++] = (h5_run){i, len};
      i += len ? len : 1;
    }
    const hsize_t fstart[3] = {(hsize_t)at, 0, 0}, mstart[3] = {0, 0, 0},
                  cnt[3] = {(hsize_t)count, 0, dims[2]};
    sel = !run || h5_select_runs(space, ndim, fstart, cnt, 1, run, nrun) < 0 ||
          h5_select_runs(mem, ndim, mstart, cnt, 1, run, nrun) < 0;
    free(run);
  }
  IO_STEP(st, sel ? -1 : 0);
  IO_STEP(st, H5Dwrite(set, H5T_NATIVE_DOUBLE, mem, space, dxpl, data));
  if (dxpl >= 0)
    H5Pclose(dxpl);
  if (mem >= 0)
    H5Sclose(mem);
  if (space >= 0)
    H5Sclose(space);
  return st;
}

/* ---- text helpers ----------------------------------------------------------------------------- */

int sq_text_truncate(const char *path, int64_t header, int64_t rows) {
  FILE *f = fopen(path, "r");
  if (!f)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot open '%s' to continue it: %s", path,
                    strerror(errno));
  const int64_t want = header + rows;
  int64_t lines = 0, offset = 0;
  int c;
  while (lines < want && (c = fgetc(f)) != EOF) {
    ++offset;
    if (c == '\n')
      ++lines;
  }
  fclose(f);
  if (lines < want)
    return sq_error(
        SQ_ERR_INPUT, __FILE__, __LINE__,
        "'%s' holds %lld complete data rows, but the checkpoint counts %lld; was it changed after the "
        "checkpoint was written?",
        path, (long long)(lines > header ? lines - header : 0), (long long)rows);
  if (truncate(path, (off_t)offset))
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot truncate '%s': %s", path, strerror(errno));
  return SQ_SUCCESS;
}

/* ---- files of distributed datasets -------------------------------------------------------------- */

/* Make PATH.tmp durable (rank 0, after the collective close) and rename it to PATH; agreed. */
static int commit_tmp(const char *tmp, const char *path) {
  int ierr = SQ_SUCCESS;
  if (io_rank() == 0) {
    FILE *f = fopen(tmp, "r+");
    if (f) {
      fflush(f);
      fsync(fileno(f));
      fclose(f);
    }
    if (rename(tmp, path))
      ierr = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot rename '%s' to '%s': %s", tmp, path,
                      strerror(errno));
  }
  return io_root(ierr);
}

int sq_h5_file_write(const char *path, const char *what, int nset, const sq_h5_set *sets) {
  char tmp[SQ_OUT_PATH + 8];
  snprintf(tmp, sizeof(tmp), "%s.tmp", path);
  h5_quiet q;
  h5_quiet_begin(&q);
  hid_t file = -1;
  int st = 0;
  IO_STEP(st, file = h5_file(tmp, 1, 0));
  for (int k = 0; k < nset && !st; ++k) {
    const hsize_t dims[2] = {(hsize_t)sets[k].nrow, (hsize_t)sets[k].ncol};
    st = h5_write_dataset(file, sets[k].name, sets[k].integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE,
                          sets[k].ncol > 0 ? 2 : 1, dims, sets[k].rows, sets[k].data);
  }
  IO_STEP(st, h5_close(&file));
  h5_quiet_end(&q);
  if (st) {
    const int ierr = io_error(SQ_ERR_IO, __LINE__, "cannot write %s '%s'", what, tmp);
    h5_close_quiet(&file);
    return ierr;
  }
  return commit_tmp(tmp, path);
}

int sq_h5_file_read(const char *path, const char *what, int nset, const sq_h5_set *sets) {
  h5_quiet q;
  h5_quiet_begin(&q);
  hid_t file = -1;
  int st = 0;
  IO_STEP(st, file = h5_file(path, 0, H5F_ACC_RDONLY));
  h5_quiet_end(&q);
  if (st)
    return io_error(SQ_ERR_IO, __LINE__, "cannot open %s '%s' (missing, unreadable or not an HDF5 file)",
                    what, path);
  int ierr = SQ_SUCCESS;
  for (int k = 0; k < nset && !ierr; ++k) {
    const sq_h5_set *s = &sets[k];
    h5_quiet_begin(&q);
    hid_t set = -1, space = -1;
    hsize_t dims[2] = {0, 0};
    IO_STEP(st, set = H5Dopen2(file, s->name, H5P_DEFAULT));
    const int missing = st != 0;
    IO_STEP(st, space = H5Dget_space(set));
    const int ndim = st ? 0 : H5Sget_simple_extent_ndims(space);
    if (!st && (ndim == 1 || ndim == 2))
      H5Sget_simple_extent_dims(space, dims, NULL);
    const int64_t have = ndim == 2 ? (int64_t)(dims[0] * dims[1]) : (int64_t)dims[0];
    const int64_t want = s->nrow * (s->ncol > 0 ? s->ncol : 1);
    /* the same file on every rank: the agreement only guards the collective read below */
    const int fits = !st && io_agree(ndim == (s->ncol > 0 ? 2 : 1) && (int64_t)dims[0] == s->nrow &&
                                             (s->ncol == 0 || (int64_t)dims[1] == s->ncol)
                                         ? 0
                                         : -1) == 0;
    if (!st && fits)
      IO_STEP(st,
              h5_rows_transfer(set, s->integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, s->rows, s->data, 0));
    if (space >= 0)
      H5Sclose(space);
    if (set >= 0)
      H5Dclose(set);
    h5_quiet_end(&q);
    if (missing)
      ierr = io_error(SQ_ERR_INPUT, __LINE__, "%s '%s' has no dataset '%s'", what, path, s->name);
    else if (!st && !fits)
      ierr = io_error(SQ_ERR_INPUT, __LINE__,
                      "%s '%s': '%s' holds %lld values, this run needs %lld; restart with the mesh and "
                      "configuration that wrote it",
                      what, path, s->name, (long long)have, (long long)want);
    else if (st)
      ierr = io_error(SQ_ERR_IO, __LINE__, "cannot read '%s' from %s '%s'", s->name, what, path);
  }
  h5_close_quiet(&file);
  return ierr;
}

/* ---- receivers -------------------------------------------------------------------------------- */

struct sq_receiver_writer {
  int n;
  int hdf5;
  int64_t count;
  double interval;
  int *owned;
  char **text;          /* per receiver: path of the text file (NULL if not owned) */
  char h5[SQ_OUT_PATH]; /* HDF5 file, "" if none */
};

enum { RECEIVER_HEADER_LINES = 5 };

static int receiver_text_create(const char *path, int number, const double x[3]) {
  FILE *f = fopen(path, "w");
  if (!f)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write receiver file '%s': %s", path,
                    strerror(errno));
  fprintf(f, "TITLE = \"Temporal Signal for receiver number %05d\"\n", number);
  fprintf(f, "VARIABLES = \"Time\"");
  for (int p = 0; p < 9; ++p)
    fprintf(f, ",\"%s\"", sq_quantity_names[p]);
  fprintf(f, "\n# x1 % .16E\n# x2 % .16E\n# x3 % .16E\n", x[0], x[1], x[2]);
  const int bad = ferror(f);
  if (fclose(f) || bad)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write receiver file '%s': %s", path,
                    strerror(errno));
  return SQ_SUCCESS;
}

static int receiver_h5_create(const char *path, int n, const double *x, double interval) {
  h5_quiet q;
  h5_quiet_begin(&q);
  hid_t file = -1;
  int st = 0;
  IO_STEP(st, file = h5_file(path, 1, 0));
  if (!st) { /* the positions are known everywhere: rank 0 writes them */
    const hsize_t pd[2] = {(hsize_t)n, 3};
    st = h5_write_dataset(file, "points", H5T_NATIVE_DOUBLE, 2, pd, NULL, x);
  }
  const int64_t chunk_rows =
      n * 9 > 0 && 16384 / (n * 9) > 1 ? (16384 / (n * 9) < 256 ? 16384 / (n * 9) : 256) : 1;
  for (int k = 0; k < 2 && !st; ++k) {
    const int rank = k == 0 ? 1 : 3;
    const hsize_t dims[3] = {0, (hsize_t)n, 9}, maxd[3] = {H5S_UNLIMITED, (hsize_t)n, 9};
    const hsize_t chunk[3] = {(hsize_t)chunk_rows, (hsize_t)(n > 0 ? n : 1), 9};
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(plist, rank, chunk);
    hid_t set = -1;
    IO_STEP(st, set = H5Dcreate2(file, k == 0 ? "time" : "data", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, plist,
                                 H5P_DEFAULT));
    if (set >= 0)
      H5Dclose(set);
    H5Pclose(plist);
    H5Sclose(space);
  }
  IO_STEP(st, h5_attr_write(file, "interval", H5T_NATIVE_DOUBLE, &interval));
  IO_STEP(st, h5_attr_string(file, "variables", "s_xx s_yy s_zz s_xy s_yz s_xz v1 v2 v3"));
  IO_STEP(st, h5_close(&file));
  h5_quiet_end(&q);
  if (st) {
    const int ierr = io_error(SQ_ERR_IO, __LINE__, "cannot create the receiver file '%s'", path);
    h5_close_quiet(&file);
    return ierr;
  }
  return SQ_SUCCESS;
}

static int receiver_h5_cut(const char *path, int n, int64_t keep) {
  h5_quiet q;
  h5_quiet_begin(&q);
  hid_t file = -1;
  int st = 0, short_file = 0;
  IO_STEP(st, file = h5_file(path, 0, H5F_ACC_RDWR));
  for (int k = 0; k < 2 && !st; ++k) {
    hid_t set = -1, space = -1;
    hsize_t dims[3] = {0, 0, 0};
    IO_STEP(st, set = H5Dopen2(file, k == 0 ? "time" : "data", H5P_DEFAULT));
    IO_STEP(st, space = H5Dget_space(set));
    IO_STEP(st,
            H5Sget_simple_extent_dims(space, dims, NULL) < 0 || (k == 1 && dims[1] != (hsize_t)n) ? -1 : 0);
    if (!st && dims[0] < (hsize_t)keep)
      short_file = 1, st = -1;
    dims[0] = (hsize_t)keep;
    IO_STEP(st, H5Dset_extent(set, dims));
    if (space >= 0)
      H5Sclose(space);
    if (set >= 0)
      H5Dclose(set);
  }
  IO_STEP(st, h5_close(&file));
  h5_quiet_end(&q);
  int ierr = SQ_SUCCESS;
  if (short_file)
    ierr = io_error(SQ_ERR_INPUT, __LINE__, "'%s' holds fewer than the %lld samples the checkpoint counts",
                    path, (long long)keep);
  else if (st)
    ierr = io_error(SQ_ERR_IO, __LINE__,
                    "cannot continue the receiver file '%s' (missing, unreadable, or not %d receivers)", path,
                    n);
  h5_close_quiet(&file);
  return ierr;
}

int sq_receiver_writer_open(const char *dir, const char *prefix, int n, const double *x, const int *owned,
                            double interval, int hdf5, int64_t keep, sq_receiver_writer **out) {
  sq_receiver_writer *w;
  SQ_CALL(SQ_CALLOC(w, 1));
  *out = w;
  w->n = n;
  w->hdf5 = hdf5;
  w->interval = interval;
  w->count = keep > 0 ? keep : 0;
  SQ_CALL(SQ_CALLOC(w->text, n > 0 ? n : 1));
  SQ_CALL(SQ_CALLOC(w->owned, n > 0 ? n : 1));
  for (int i = 0; i < n; ++i) {
    w->owned[i] = owned ? owned[i] : 1;
    if (!w->owned[i])
      continue;
    SQ_CALL(SQ_CALLOC(w->text[i], SQ_OUT_PATH));
    snprintf(w->text[i], SQ_OUT_PATH, "%s/%s-receiver-%05d.dat", dir, prefix, i + 1);
    if (keep < 0)
      SQ_CALL(receiver_text_create(w->text[i], i + 1, &x[3 * i]));
    else
      SQ_CALL(sq_text_truncate(w->text[i], RECEIVER_HEADER_LINES, keep));
  }
  if (hdf5) {
    snprintf(w->h5, sizeof(w->h5), "%s/%s-receivers.h5", dir, prefix);
    if (keep < 0)
      SQ_CALL(receiver_h5_create(w->h5, n, x, interval));
    else
      SQ_CALL(receiver_h5_cut(w->h5, n, keep));
  }
  return SQ_SUCCESS;
}

int sq_receiver_writer_append(sq_receiver_writer *w, int64_t first, int64_t count, const double *samples) {
  if (count <= 0 || w->n == 0)
    return SQ_SUCCESS;
  SQ_CHECK(first == w->count, SQ_ERR_INTERNAL, "receiver samples out of order: %lld written, next %lld",
           (long long)w->count, (long long)first);
  for (int i = 0; i < w->n; ++i) {
    if (!w->owned[i])
      continue;
    FILE *f = fopen(w->text[i], "a");
    if (!f)
      return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot append to '%s': %s", w->text[i],
                      strerror(errno));
    for (int64_t j = 0; j < count; ++j) {
      const double *v = samples + ((size_t)j * w->n + i) * 9;
      fprintf(f, "% .16E", (double)(first + j) * w->interval);
      for (int p = 0; p < 9; ++p)
        fprintf(f, " % .16E", v[p]);
      fputc('\n', f);
    }
    const int bad = ferror(f);
    if (fclose(f) || bad)
      return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot append to '%s': %s", w->text[i],
                      strerror(errno));
  }
  if (w->hdf5) { /* /time from rank 0, each receiver's column of /data from the rank that owns it */
    h5_quiet q;
    h5_quiet_begin(&q);
    double *times = malloc(sizeof(double) * (size_t)count);
    hid_t file = -1;
    int st = 0;
    IO_STEP(st, times ? 0 : -1);
    IO_STEP(st, file = h5_file(w->h5, 0, H5F_ACC_RDWR));
    for (int64_t j = 0; times && j < count; ++j)
      times[j] = (double)(first + j) * w->interval;
    for (int k = 0; k < 2 && !st; ++k) {
      hid_t set = -1;
      IO_STEP(st, set = H5Dopen2(file, k == 0 ? "time" : "data", H5P_DEFAULT));
      if (!st)
        st = h5_append(set, k == 0 ? 1 : 3, first, count, k == 0 ? NULL : w->owned, k == 0 ? times : samples);
      if (set >= 0)
        H5Dclose(set);
    }
    IO_STEP(st, h5_close(&file));
    free(times);
    h5_quiet_end(&q);
    if (st) {
      const int ierr = io_error(SQ_ERR_IO, __LINE__, "cannot append receiver samples to '%s'", w->h5);
      h5_close_quiet(&file);
      return ierr;
    }
  }
  w->count += count;
  return SQ_SUCCESS;
}

int64_t sq_receiver_writer_count(const sq_receiver_writer *w) {
  return w ? w->count : 0;
}

void sq_receiver_writer_close(sq_receiver_writer *w) {
  if (!w)
    return;
  for (int i = 0; i < w->n; ++i)
    SQ_FREE(w->text[i]);
  SQ_FREE(w->text);
  SQ_FREE(w->owned);
  SQ_FREE(w);
}

/* ---- XDMF snapshot series --------------------------------------------------------------------- */

struct sq_xdmf_writer {
  char xdmf[SQ_OUT_PATH], h5[SQ_OUT_PATH], h5base[SQ_OUT_PATH];
  int64_t nnode, ncell;
  int nvert;
  int64_t count, cap;
  double *time;
  int nfield;
  char field[SQ_XDMF_MAX_FIELDS][24];
  sq_xdmf_center center;
};

/* The XDMF text (rank 0 alone writes it). */
static int xdmf_text(const sq_xdmf_writer *w) {
  char tmp[SQ_OUT_PATH + 8];
  snprintf(tmp, sizeof(tmp), "%s.tmp", w->xdmf);
  FILE *f = fopen(tmp, "w");
  if (!f)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", tmp, strerror(errno));
  const char *topo = w->nvert == 4 ? "Tetrahedron" : "Triangle";
  fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n "
             "<Domain>\n");
  fprintf(f, "  <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (int64_t k = 0; k < w->count; ++k) {
    fprintf(f, "   <Grid Name=\"step_%06lld\" GridType=\"Uniform\">\n", (long long)k);
    fprintf(f, "    <Time Value=\"%.17g\"/>\n", w->time[k]);
    fprintf(f, "    <Topology TopologyType=\"%s\" NumberOfElements=\"%lld\">\n", topo, (long long)w->ncell);
    fprintf(f,
            "     <DataItem NumberType=\"Int\" Precision=\"8\" Format=\"HDF\" Dimensions=\"%lld "
            "%d\">%s:/mesh/topology"
            "</DataItem>\n    </Topology>\n",
            (long long)w->ncell, w->nvert, w->h5base);
    fprintf(f,
            "    <Geometry GeometryType=\"XYZ\">\n     <DataItem NumberType=\"Float\" Precision=\"8\" "
            "Format=\"HDF\" "
            "Dimensions=\"%lld 3\">%s:/mesh/geometry</DataItem>\n    </Geometry>\n",
            (long long)w->nnode, w->h5base);
    for (int i = 0; i < w->nfield; ++i)
      fprintf(f,
              "    <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"%s\">\n     <DataItem "
              "NumberType=\"Float\" "
              "Precision=\"8\" Format=\"HDF\" Dimensions=\"%lld\">%s:/step_%06lld/%s</DataItem>\n    "
              "</Attribute>\n",
              w->field[i], w->center == SQ_XDMF_CELL ? "Cell" : "Node",
              (long long)(w->center == SQ_XDMF_CELL ? w->ncell : w->nnode), w->h5base, (long long)k,
              w->field[i]);
    fprintf(f, "   </Grid>\n");
  }
  fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
  const int bad = ferror(f);
  if (fclose(f) || bad || rename(tmp, w->xdmf))
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", w->xdmf, strerror(errno));
  return SQ_SUCCESS;
}

/* Rank 0 rewrites the XDMF text; every rank returns its status. */
static int xdmf_rewrite(const sq_xdmf_writer *w) {
  return io_root(io_rank() == 0 ? xdmf_text(w) : SQ_SUCCESS);
}

/* Continue an existing series: keep snapshots < keep, drop later ones, recover their times and the
 * field list.  0, -1 (HDF5 failure) or -2 (fewer than keep snapshots); agreed. */
static int xdmf_continue(sq_xdmf_writer *w, int64_t keep) {
  hid_t file = -1;
  int st = 0;
  IO_STEP(st, file = h5_file(w->h5, 0, H5F_ACC_RDWR));
  w->cap = keep > 16 ? keep : 16;
  w->time = calloc((size_t)w->cap, sizeof(double));
  IO_STEP(st, w->time ? 0 : -1);
  for (int64_t k = 0; !st; ++k) {
    char g[32];
    snprintf(g, sizeof(g), "step_%06lld", (long long)k);
    if (io_agree(H5Lexists(file, g, H5P_DEFAULT) > 0 ? 0 : -1)) {
      if (k < keep)
        st = -2;
      break;
    }
    if (k >= keep) {
      IO_STEP(st, H5Ldelete(file, g, H5P_DEFAULT));
      continue;
    }
    hid_t grp = -1;
    IO_STEP(st, grp = H5Gopen2(file, g, H5P_DEFAULT));
    IO_STEP(st, h5_attr_read(grp, "time", H5T_NATIVE_DOUBLE, &w->time[k]));
    if (!st && k == 0) { /* the field list of the series */
      H5G_info_t info;
      H5Gget_info(grp, &info);
      w->nfield = 0;
      for (hsize_t i = 0; i < info.nlinks && w->nfield < SQ_XDMF_MAX_FIELDS; ++i) {
        char fname[24];
        if (H5Lget_name_by_idx(grp, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, fname, sizeof(fname),
                               H5P_DEFAULT) < 0 &&
            H5Lget_name_by_idx(grp, ".", H5_INDEX_NAME, H5_ITER_INC, i, fname, sizeof(fname), H5P_DEFAULT) <
                0)
          continue;
        snprintf(w->field[w->nfield++], sizeof(w->field[0]), "%s", fname);
      }
      int center = 0;
      h5_attr_read(grp, "center", H5T_NATIVE_INT, &center);
      w->center = center ? SQ_XDMF_NODE : SQ_XDMF_CELL;
    }
    if (grp >= 0)
      H5Gclose(grp);
  }
  w->count = st ? 0 : keep;
  IO_STEP(st, h5_close(&file));
  if (st)
    h5_close_quiet(&file);
  return st;
}

int sq_xdmf_open(const char *dir, const char *prefix, const char *name, int64_t nnode, const double *node,
                 const sq_rows *node_rows, int64_t ncell, int nvert, const int64_t *topology,
                 const sq_rows *cell_rows, int64_t keep, sq_xdmf_writer **out) {
  sq_xdmf_writer *w;
  SQ_CALL(SQ_CALLOC(w, 1));
  *out = w;
  w->nnode = nnode;
  w->ncell = ncell;
  w->nvert = nvert;
  snprintf(w->xdmf, sizeof(w->xdmf), "%s/%s-%s.xdmf", dir, prefix, name);
  snprintf(w->h5, sizeof(w->h5), "%s/%s-%s.h5", dir, prefix, name);
  snprintf(w->h5base, sizeof(w->h5base), "%s-%s.h5", prefix, name);
  h5_quiet q;
  h5_quiet_begin(&q);
  int st = 0;
  if (keep < 0) {
    hid_t file = -1, grp = -1;
    IO_STEP(st, file = h5_file(w->h5, 1, 0));
    IO_STEP(st, grp = H5Gcreate2(file, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    const hsize_t gd[2] = {(hsize_t)nnode, 3}, td[2] = {(hsize_t)ncell, (hsize_t)nvert};
    if (!st)
      st = h5_write_dataset(grp, "geometry", H5T_NATIVE_DOUBLE, 2, gd, node_rows, node);
    if (!st)
      st = h5_write_dataset(grp, "topology", H5T_NATIVE_INT64, 2, td, cell_rows, topology);
    if (grp >= 0)
      H5Gclose(grp);
    IO_STEP(st, h5_close(&file));
    if (st)
      h5_close_quiet(&file);
  } else {
    st = xdmf_continue(w, keep);
  }
  h5_quiet_end(&q);
  if (st == -2)
    return io_error(SQ_ERR_INPUT, __LINE__, "'%s' holds fewer than the %lld snapshots the checkpoint counts",
                    w->h5, (long long)keep);
  if (st)
    return io_error(SQ_ERR_IO, __LINE__, "cannot %s the snapshot file '%s'", keep < 0 ? "create" : "continue",
                    w->h5);
  if (keep >= 0)
    SQ_CALL(xdmf_rewrite(w));
  return SQ_SUCCESS;
}

int sq_xdmf_write(sq_xdmf_writer *w, double time, int nfield, const char *const *names,
                  const double *const *values, sq_xdmf_center center, const sq_rows *rows) {
  SQ_CHECK(nfield >= 0 && nfield <= SQ_XDMF_MAX_FIELDS, SQ_ERR_INTERNAL, "at most %d fields per snapshot",
           SQ_XDMF_MAX_FIELDS);
  if (w->count == w->cap) {
    const int64_t cap = w->cap ? 2 * w->cap : 16;
    double *t = realloc(w->time, (size_t)cap * sizeof(double));
    SQ_CHECK(t, SQ_ERR_MEMORY, "out of memory");
    w->time = t;
    w->cap = cap;
  }
  w->nfield = nfield;
  w->center = center;
  for (int i = 0; i < nfield; ++i)
    snprintf(w->field[i], sizeof(w->field[i]), "%s", names[i]);
  h5_quiet q;
  h5_quiet_begin(&q);
  hid_t file = -1, grp = -1, plist = -1;
  int st = 0;
  IO_STEP(st, file = h5_file(w->h5, 0, H5F_ACC_RDWR));
  char g[32];
  snprintf(g, sizeof(g), "step_%06lld", (long long)w->count);
  if (!st && H5Lexists(file, g, H5P_DEFAULT) > 0)
    IO_STEP(st, H5Ldelete(file, g, H5P_DEFAULT));
  IO_STEP(st, plist = H5Pcreate(H5P_GROUP_CREATE));
  IO_STEP(st, H5Pset_link_creation_order(plist, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
  IO_STEP(st, grp = H5Gcreate2(file, g, H5P_DEFAULT, plist, H5P_DEFAULT));
  if (plist >= 0)
    H5Pclose(plist);
  const hsize_t dim = (hsize_t)(center == SQ_XDMF_CELL ? w->ncell : w->nnode);
  for (int i = 0; i < nfield && !st; ++i)
    st = h5_write_dataset(grp, names[i], H5T_NATIVE_DOUBLE, 1, &dim, rows, values[i]);
  const int c = center;
  IO_STEP(st, h5_attr_write(grp, "time", H5T_NATIVE_DOUBLE, &time));
  IO_STEP(st, h5_attr_write(grp, "center", H5T_NATIVE_INT, &c));
  if (grp >= 0)
    H5Gclose(grp);
  IO_STEP(st, h5_close(&file));
  h5_quiet_end(&q);
  if (st) {
    const int ierr =
        io_error(SQ_ERR_IO, __LINE__, "cannot write snapshot %lld to '%s'", (long long)w->count, w->h5);
    h5_close_quiet(&file);
    return ierr;
  }
  w->time[w->count++] = time;
  return xdmf_rewrite(w);
}

int64_t sq_xdmf_count(const sq_xdmf_writer *w) {
  return w ? w->count : 0;
}

void sq_xdmf_close(sq_xdmf_writer *w) {
  if (!w)
    return;
  free(w->time);
  SQ_FREE(w);
}

/* ---- checkpoints ------------------------------------------------------------------------------ */

#define CK_I64(name, field)                                                                                  \
  { name, H5T_NATIVE_INT64, offsetof(sq_checkpoint_info, field) }
#define CK_F64(name, field)                                                                                  \
  { name, H5T_NATIVE_DOUBLE, offsetof(sq_checkpoint_info, field) }
#define CK_INT(name, field)                                                                                  \
  { name, H5T_NATIVE_INT, offsetof(sq_checkpoint_info, field) }

typedef struct ck_attr {
  const char *name;
  hid_t type; /* filled at run time: the H5T_NATIVE_* macros are not constants */
  size_t offset;
} ck_attr;

static void ck_attrs(ck_attr *a) {
  const ck_attr list[] = {CK_F64("time", time),
                          CK_F64("dt", dt),
                          CK_F64("plan_t0", plan_t0),
                          CK_I64("plan_step0", plan_step0),
                          CK_I64("steps", steps),
                          CK_I64("nsteps", nsteps),
                          CK_INT("order", order),
                          CK_INT("precision", precision),
                          CK_I64("ncell", ncell),
                          CK_I64("receiver_samples", receiver_samples),
                          CK_I64("energy_rows", energy_rows),
                          CK_I64("wavefield_steps", wavefield_steps),
                          CK_I64("surface_steps", surface_steps)};
  memcpy(a, list, sizeof(list));
}
enum { CK_NATTR = 13 };

/* "a b c": the names of the extra per-element arrays */
static void ck_field_names(int nfield, const sq_checkpoint_field *fields, char *out, size_t size) {
  size_t o = 0;
  out[0] = '\0';
  for (int k = 0; k < nfield && o < size; ++k)
    o += (size_t)snprintf(out + o, size - o, "%s%s", k ? " " : "", fields[k].name);
}

/*
 * The mesh cells whose rows this rank transfers, ascending: the cells it owns (@p owned: a write; each
 * cell is owned by one rank) or every cell it holds, ghosts included (a read); @p rows gets their rows
 * in the file (global cell ids, ascending too: a rank's mesh lists its cells in global order).
 */
static int ck_cells(const sq_disc *d, int owned, int64_t **cells, int64_t **rows, int64_t *n) {
  const int64_t ncell = d->mesh->ncell;
  int64_t k = 0;
  for (int64_t c = 0; c < ncell; ++c)
    k += d->elem_of[c] >= 0 && (!owned || !d->is_ghost[d->elem_of[c]]);
  *n = k;
  *cells = malloc(sizeof(int64_t) * (size_t)(k > 0 ? k : 1));
  *rows = malloc(sizeof(int64_t) * (size_t)(k > 0 ? k : 1));
  if (!*cells || !*rows)
    return -1;
  k = 0;
  for (int64_t c = 0; c < ncell; ++c)
    if (d->elem_of[c] >= 0 && (!owned || !d->is_ghost[d->elem_of[c]]))
      (*rows)[k] = sq_mesh_global_cell(d->mesh, c), (*cells)[k++] = c;
  return 0;
}

int sq_checkpoint_write(const char *path, const sq_disc *d, const sq_checkpoint_info *info) {
  return sq_checkpoint_write_fields(path, d, info, 0, NULL);
}

int sq_checkpoint_write_fields(const char *path, const sq_disc *d, const sq_checkpoint_info *info_in,
                               int nfield, const sq_checkpoint_field *fields) {
  sq_checkpoint_info info = *info_in;
  if (io_nranks() > 1) /* attributes are metadata: every rank must write the same values */
    MPI_Bcast(&info, (int)sizeof(info), MPI_BYTE, 0, MPI_COMM_WORLD);
  const int64_t ncell = sq_mesh_ncell_global(d->mesh);
  const size_t eb = sq_disc_elem_bytes(d);
  int64_t *cells = NULL, *cell_rows = NULL, n = 0;
  int st = ck_cells(d, 1, &cells, &cell_rows, &n);
  char *rows = malloc(eb * (size_t)(n > 0 ? n : 1));
  st = io_agree(st || !rows ? -1 : 0);
  if (st) {
    free(cells), free(cell_rows), free(rows);
    return io_error(SQ_ERR_MEMORY, __LINE__, "out of memory writing the checkpoint '%s'", path);
  }
  /* this rank's rows, by mesh cell */
  for (int64_t k = 0; k < n; ++k)
    memcpy(rows + (size_t)k * eb, (const char *)d->dofs + (size_t)d->elem_of[cells[k]] * eb, eb);
  const sq_rows mine = {.n = n, .id = cell_rows};
  char tmp[SQ_OUT_PATH + 8];
  snprintf(tmp, sizeof(tmp), "%s.tmp", path);
  h5_quiet q;
  h5_quiet_begin(&q);
  hid_t file = -1;
  IO_STEP(st, file = h5_file(tmp, 1, 0));
  const hsize_t dims[2] = {(hsize_t)ncell, (hsize_t)d->nbasis * 9};
  if (!st)
    st = h5_write_dataset(file, "dofs", d->opt.precision == SQ_F64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, 2,
                          dims, &mine, rows);
  ck_attr attr[CK_NATTR];
  ck_attrs(attr);
  for (int i = 0; i < CK_NATTR; ++i)
    IO_STEP(st, h5_attr_write(file, attr[i].name, attr[i].type, (const char *)&info + attr[i].offset));
  IO_STEP(st, h5_attr_string(file, "format", "starquake checkpoint 1"));
  char names[512];
  ck_field_names(nfield, fields, names, sizeof(names));
  IO_STEP(st, h5_attr_string(file, "fields", names));
  for (int k = 0; k < nfield && !st; ++k) {
    const int ncol = fields[k].ncol;
    double *frows = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1) * ncol);
    IO_STEP(st, frows ? 0 : -1);
    for (int64_t i = 0; !st && i < n; ++i)
      memcpy(frows + i * ncol, fields[k].data + d->elem_of[cells[i]] * ncol, sizeof(double) * ncol);
    const hsize_t fdims[2] = {(hsize_t)ncell, (hsize_t)ncol};
    if (!st)
      st = h5_write_dataset(file, fields[k].name, H5T_NATIVE_DOUBLE, 2, fdims, &mine, frows);
    free(frows);
  }
  IO_STEP(st, h5_close(&file));
  h5_quiet_end(&q);
  free(rows);
  free(cells);
  free(cell_rows);
  if (st) {
    const int ierr = io_error(SQ_ERR_IO, __LINE__, "cannot write the checkpoint '%s'", tmp);
    h5_close_quiet(&file);
    return ierr;
  }
  return commit_tmp(tmp, path);
}

/* The string attribute @p name of @p obj into @p out ("" when absent: checkpoints older than it). */
static int h5_attr_read_string(hid_t obj, const char *name, char *out, size_t size) {
  out[0] = '\0';
  if (H5Aexists(obj, name) <= 0)
    return 0;
  hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  hid_t type = attr >= 0 ? H5Aget_type(attr) : -1;
  const size_t len = type >= 0 ? H5Tget_size(type) : 0;
  int st = attr < 0 || type < 0 || len == 0 || len >= size ? -1 : 0;
  if (!st) {
    hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, len);
    st = H5Aread(attr, mem, out) < 0 ? -1 : 0;
    H5Tclose(mem);
    out[len] = '\0';
  }
  if (type >= 0)
    H5Tclose(type);
  if (attr >= 0)
    H5Aclose(attr);
  return st;
}

/* Read @p count doubles-or-floats per row of dataset @p name of the open @p file: the rows @p mine, into
 * @p rows; 0, -1 (missing or other size), -2 (read failed); agreed. */
static int ck_read_rows(hid_t file, const char *name, hid_t type, int64_t nrow, int64_t ncol,
                        const sq_rows *mine, void *rows) {
  hid_t set = -1, space = -1;
  hsize_t dims[2] = {0, 0};
  int st = 0;
  IO_STEP(st, set = H5Dopen2(file, name, H5P_DEFAULT));
  IO_STEP(st, space = H5Dget_space(set));
  IO_STEP(st, H5Sget_simple_extent_ndims(space) != 2 || H5Sget_simple_extent_dims(space, dims, NULL) < 0 ||
                      dims[0] != (hsize_t)nrow || dims[1] != (hsize_t)ncol
                  ? -1
                  : 0);
  if (!st && io_agree(h5_rows_transfer(set, type, mine, rows, 0)))
    st = -2;
  if (space >= 0)
    H5Sclose(space);
  if (set >= 0)
    H5Dclose(set);
  return st;
}

/* Read the per-element arrays @p fields of the open checkpoint @p file (which must list exactly them)
 * into the elements @p cells (ascending mesh cells; @p mine selects their rows). */
static int ck_fields_read(const char *path, hid_t file, sq_disc *d, const int64_t *cells, const sq_rows *mine,
                          int nfield, const sq_checkpoint_field *fields) {
  char want[512], have[512];
  ck_field_names(nfield, fields, want, sizeof(want));
  h5_quiet q;
  h5_quiet_begin(&q);
  int st = io_agree(h5_attr_read_string(file, "fields", have, sizeof(have)));
  h5_quiet_end(&q);
  if (st)
    return io_error(SQ_ERR_INPUT, __LINE__, "cannot read the attribute 'fields' of the checkpoint '%s'",
                    path);
  if (strcmp(want, have))
    return io_error(
        SQ_ERR_INPUT, __LINE__,
        "the checkpoint '%s' holds the per-element data [%s] but this run needs [%s]: a run with "
        "plasticity restarts only from a checkpoint written with plasticity, and a run without it "
        "only from one without",
        path, have, want);
  const int64_t ncell = sq_mesh_ncell_global(d->mesh);
  for (int k = 0; k < nfield; ++k) {
    const sq_checkpoint_field *f = &fields[k];
    double *rows = malloc(sizeof(double) * (size_t)(mine->n > 0 ? mine->n : 1) * f->ncol);
    if (io_agree(rows ? 0 : -1)) {
      free(rows);
      return io_error(SQ_ERR_MEMORY, __LINE__, "out of memory reading the checkpoint '%s'", path);
    }
    h5_quiet_begin(&q);
    st = ck_read_rows(file, f->name, H5T_NATIVE_DOUBLE, ncell, f->ncol, mine, rows);
    h5_quiet_end(&q);
    for (int64_t i = 0; !st && i < mine->n; ++i)
      memcpy(f->data + d->elem_of[cells[i]] * f->ncol, rows + i * f->ncol, sizeof(double) * f->ncol);
    free(rows);
    if (st)
      return io_error(SQ_ERR_INPUT, __LINE__, "cannot read /%s (%lld x %d) from the checkpoint '%s'", f->name,
                      (long long)ncell, f->ncol, path);
  }
  return SQ_SUCCESS;
}

int sq_checkpoint_read(const char *path, sq_disc *d, sq_checkpoint_info *info) {
  return sq_checkpoint_read_fields(path, d, info, 0, NULL);
}

int sq_checkpoint_read_fields(const char *path, sq_disc *d, sq_checkpoint_info *info, int nfield,
                              const sq_checkpoint_field *fields) {
  const int readable = access(path, R_OK) == 0 ? 0 : -1, why = errno;
  if (io_agree(readable))
    return io_error(SQ_ERR_IO, __LINE__, "cannot read the checkpoint '%s': %s", path,
                    readable ? strerror(why) : "it is not readable from every MPI rank");
  h5_quiet q;
  h5_quiet_begin(&q);
  hid_t file = h5_file(path, 0, H5F_ACC_RDONLY);
  memset(info, 0, sizeof(*info));
  ck_attr attr[CK_NATTR];
  ck_attrs(attr);
  int st = file < 0 ? -1 : 0;
  const char *missing = NULL;
  for (int i = 0; i < CK_NATTR && !st; ++i)
    if (h5_attr_read(file, attr[i].name, attr[i].type, (char *)info + attr[i].offset) < 0)
      missing = attr[i].name, st = -1;
  h5_quiet_end(&q);
  if (io_agree(st)) {
    const int ierr =
        missing ? io_error(SQ_ERR_INPUT, __LINE__,
                           "'%s' is not a starquake checkpoint (attribute '%s' missing)", path, missing)
                : io_error(SQ_ERR_INPUT, __LINE__, "'%s' is not an HDF5 file", path);
    h5_close_quiet(&file);
    return ierr;
  }
  if (info->ncell != sq_mesh_ncell_global(d->mesh) || info->order != d->opt.order ||
      info->precision != (int)d->opt.precision) {
    const int ierr = io_error(
        SQ_ERR_INPUT, __LINE__,
        "the checkpoint '%s' does not fit this run: it has %lld cells, order %d, %s precision; the run "
        "has %lld cells, order %d, %s precision",
        path, (long long)info->ncell, info->order, info->precision == SQ_F64 ? "double" : "single",
        (long long)sq_mesh_ncell_global(d->mesh), d->opt.order, d->opt.precision == SQ_F64 ? "double" : "single");
    h5_close_quiet(&file);
    return ierr;
  }
  /* the rows of every element of this rank, ghosts included: they are refreshed by the first halo
   * exchange anyway */
  const int64_t ncell = sq_mesh_ncell_global(d->mesh);
  const size_t eb = sq_disc_elem_bytes(d);
  int64_t *cells = NULL, *cell_rows = NULL, n = 0;
  st = ck_cells(d, 0, &cells, &cell_rows, &n);
  char *rows = malloc(eb * (size_t)(n > 0 ? n : 1));
  if (io_agree(st || !rows ? -1 : 0)) {
    free(cells), free(cell_rows), free(rows);
    h5_close_quiet(&file);
    return io_error(SQ_ERR_MEMORY, __LINE__, "out of memory reading the checkpoint '%s'", path);
  }
  const sq_rows mine = {.n = n, .id = cell_rows};
  int ierr = ck_fields_read(path, file, d, cells, &mine, nfield, fields);
  if (!ierr) {
    h5_quiet_begin(&q);
    st = ck_read_rows(file, "dofs", d->opt.precision == SQ_F64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, ncell,
                      (int64_t)d->nbasis * 9, &mine, rows);
    h5_quiet_end(&q);
    if (st)
      ierr = io_error(SQ_ERR_INPUT, __LINE__, "cannot read /dofs (%lld x %d) from the checkpoint '%s'",
                      (long long)ncell, d->nbasis * 9, path);
  }
  for (int64_t k = 0; !ierr && k < n; ++k)
    memcpy((char *)d->dofs + (size_t)d->elem_of[cells[k]] * eb, rows + (size_t)k * eb, eb);
  free(rows);
  free(cells);
  free(cell_rows);
  h5_close_quiet(&file);
  return ierr;
}
