/**
 * @file h5io.c  What the output writers share: MPI agreement on every collective step, HDF5 files and
 * row-selected dataset transfers through MPI-IO, text files cut back for a restart, and files of
 * distributed datasets (sq_h5_file_write, sq_h5_file_read).
 *
 * HDF5's own error stack printing is off while these functions run; failures become one message
 * naming the file and the dataset.  Under MPI every HDF5 file goes through MPI-IO: each rank selects
 * its rows (a union of hyperslabs, one per run of consecutive rows) and the transfers are collective.
 * Each collective step ends with an agreement on its status (sq_io_agree), so that a failure on one rank
 * turns every rank to the same error path instead of leaving the others waiting in HDF5.
 */
#include "output_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- MPI -------------------------------------------------------------------------------------- */

/* The files go through MPI-IO while MPI runs (the starquake program); unit tests without MPI_Init
 * write through HDF5's default driver. */
static int io_mpi(void) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  if (init) MPI_Finalized(&fin);
  return init && !fin;
}

int sq_io_rank(void) {
  int r = 0;
  if (io_mpi()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int sq_io_nranks(void) {
  int n = 1;
  if (io_mpi()) MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

/* The worst status over the ranks (0: success, < 0: a failure), so that every rank takes the same branch. */
int sq_io_agree(int st) {
  if (sq_io_nranks() > 1) MPI_Allreduce(MPI_IN_PLACE, &st, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return st;
}

/* Rank 0's status on every rank (after what rank 0 alone does, such as the XDMF text). */
int sq_io_root(int st) {
  if (sq_io_nranks() > 1) MPI_Bcast(&st, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return st;
}

int sq_error_once(int code, const char *file, int line, const char *fmt, ...) {
  if (sq_io_rank() == 0) {
    char msg[3 * SQ_OUT_PATH];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    sq_error(code, file, line, "%s", msg);
  }
  if (sq_io_nranks() > 1) MPI_Barrier(MPI_COMM_WORLD);
  return code;
}

void sq_output_hdf5_describe(char *out, size_t len) {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  snprintf(out, len, "HDF5 %u.%u.%u parallel (MPI-IO)", major, minor, release);
}

/* ---- HDF5 helpers ----------------------------------------------------------------------------- */

void sq_h5_quiet_begin(h5_quiet *q) {
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}
void sq_h5_quiet_end(const h5_quiet *q) { H5Eset_auto2(H5E_DEFAULT, q->func, q->data); }

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
hid_t sq_h5_file(const char *path, int create, unsigned flags) {
  const hid_t fapl = h5_fapl();
  hid_t file = -1;
  if (fapl >= 0) file = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5Fopen(path, flags, fapl);
  if (fapl >= 0) H5Pclose(fapl);
  return sq_io_agree(file < 0 ? -1 : 0) ? -1 : file;
}

/* Close @p *file (collective) and mark it closed; < 0 on failure. */
herr_t sq_h5_close(hid_t *file) {
  const herr_t st = *file >= 0 ? H5Fclose(*file) : 0;
  *file = -1;
  return st;
}

/* Close @p *file without HDF5's messages (after a failure every rank has already reported). */
void sq_h5_close_quiet(hid_t *file) {
  h5_quiet q;
  sq_h5_quiet_begin(&q);
  sq_h5_close(file);
  sq_h5_quiet_end(&q);
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

int sq_h5_attr_write(hid_t obj, const char *name, hid_t type, const void *value) {
  hid_t space = H5Screate(H5S_SCALAR);
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t st = a >= 0 ? H5Awrite(a, type, value) : -1;
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  return st < 0 ? -1 : 0;
}

int sq_h5_attr_read(hid_t obj, const char *name, hid_t type, void *value) {
  if (H5Aexists(obj, name) <= 0) return -1;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  herr_t st = a >= 0 ? H5Aread(a, type, value) : -1;
  if (a >= 0) H5Aclose(a);
  return st < 0 ? -1 : 0;
}

int sq_h5_attr_string(hid_t obj, const char *name, const char *value) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, strlen(value) + 1);
  int st = sq_h5_attr_write(obj, name, type, value);
  H5Tclose(type);
  return st;
}

/* Rows of a transfer held here: @p rows, or without them every row, on rank 0 for a write (replicated
 * data is written once) and on every rank for a read. */
static int64_t rows_here(const sq_rows *rows, int64_t nrow, int write) {
  return rows ? rows->n : (!write || sq_io_rank() == 0) ? nrow : 0;
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
static hid_t h5_runs(hid_t tmpl, int ndim, const hsize_t *start, const hsize_t *count, int dim, const h5_run *run,
                     int64_t lo, int64_t hi) {
  if (hi - lo > 64) {
    const int64_t mid = lo + (hi - lo) / 2;
    hid_t a = h5_runs(tmpl, ndim, start, count, dim, run, lo, mid);
    hid_t b = a >= 0 ? h5_runs(tmpl, ndim, start, count, dim, run, mid, hi) : -1;
    const int st = b < 0 || H5Smodify_select(a, H5S_SELECT_OR, b) < 0;
    if (b >= 0) H5Sclose(b);
    if (st && a >= 0) H5Sclose(a), a = -1;
    return a;
  }
  hid_t space = H5Scopy(tmpl);
  int st = space < 0 || H5Sselect_none(space) < 0;
  hsize_t s[3], c[3];
  for (int d = 0; d < ndim; ++d) s[d] = start[d], c[d] = count[d];
  for (int64_t k = lo; k < hi && !st; ++k) {
    s[dim] = run[k].first;
    c[dim] = run[k].len;
    st = H5Sselect_hyperslab(space, H5S_SELECT_OR, s, NULL, c, NULL) < 0;
  }
  if (st && space >= 0) H5Sclose(space), space = -1;
  return space;
}

/* Select the blocks @p run[0, n) of dimension @p dim (see h5_runs) in @p space; none when n is 0. */
static int h5_select_runs(hid_t space, int ndim, const hsize_t *start, const hsize_t *count, int dim, const h5_run *run,
                          int64_t n) {
  if (n == 0) return H5Sselect_none(space) < 0 ? -1 : 0;
  const hid_t sel = h5_runs(space, ndim, start, count, dim, run, 0, n);
  const int st = sel < 0 || H5Sselect_copy(space, sel) < 0 ? -1 : 0;
  if (sel >= 0) H5Sclose(sel);
  return st;
}

/*
 * Select in @p space (ndim dimensions, @p dims) the rows of a transfer (all of dimensions 1 and 2):
 * one block per run of consecutive rows.  Fails when the rows do not ascend or lie outside the dataset.
 */
static int h5_select_rows(hid_t space, int ndim, const hsize_t *dims, const sq_rows *rows, int write) {
  if (!rows) return rows_here(NULL, (int64_t)dims[0], write) > 0 ? H5Sselect_all(space) : H5Sselect_none(space);
  h5_run *run = malloc(sizeof(h5_run) * (size_t)(rows->n > 0 ? rows->n : 1));
  if (!run) return -1;
  int64_t nrun = 0, prev = -1;
  for (int64_t k = 0; k < rows->n;) {
    const int64_t first = rows->id ? rows->id[k] : rows->first + k;
    int64_t len = rows->id ? 1 : rows->n - k;
    while (rows->id && k + len < rows->n && rows->id[k + len] == first + len) ++len;
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
int sq_h5_rows_transfer(hid_t set, hid_t type, const sq_rows *rows, void *data, int write) {
  hid_t fspace = H5Dget_space(set), dxpl = h5_dxpl(), mspace = -1;
  hsize_t dims[3] = {0, 1, 1};
  const int ndim = fspace >= 0 ? H5Sget_simple_extent_ndims(fspace) : -1;
  int st = fspace < 0 || dxpl < 0 || ndim < 1 || ndim > 3 || H5Sget_simple_extent_dims(fspace, dims, NULL) < 0;
  if (!st) st = h5_select_rows(fspace, ndim, dims, rows, write) < 0;
  const int64_t n = st ? 0 : rows_here(rows, (int64_t)dims[0], write);
  hsize_t mdims[3] = {(hsize_t)(n > 0 ? n : 1), dims[1], dims[2]};
  if (!st) {
    mspace = H5Screate_simple(ndim, mdims, NULL);
    st = mspace < 0 || (n == 0 && H5Sselect_none(mspace) < 0);
  }
  /* every rank takes part in the collective transfer, also when its own selection failed */
  if (st && fspace >= 0 && mspace >= 0) H5Sselect_none(fspace), H5Sselect_none(mspace);
  herr_t io = -1;
  if (fspace >= 0 && mspace >= 0 && dxpl >= 0)
    io = write ? H5Dwrite(set, type, mspace, fspace, dxpl, data) : H5Dread(set, type, mspace, fspace, dxpl, data);
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  if (dxpl >= 0) H5Pclose(dxpl);
  return st || io < 0 ? -1 : 0;
}

/* Create dataset @p name (replacing one of that name) of @p ndim dims and write this rank's rows of it;
 * collective, and agreed: every rank returns the same status. */
int sq_h5_write_dataset(hid_t loc, const char *name, hid_t type, int ndim, const hsize_t *dims, const sq_rows *rows,
                        const void *data) {
  int st = 0;
  hid_t space = -1, set = -1;
  if (H5Lexists(loc, name, H5P_DEFAULT) > 0) IO_STEP(st, H5Ldelete(loc, name, H5P_DEFAULT));
  IO_STEP(st, space = H5Screate_simple(ndim, dims, NULL));
  IO_STEP(st, set = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  IO_STEP(st, sq_h5_rows_transfer(set, type, rows, (void *)data, 1));
  if (set >= 0) H5Dclose(set);
  if (space >= 0) H5Sclose(space);
  return st;
}

/*
 * Extend the extendible @p set (ndim 1 or 3) to @p at + @p count rows and write rows [at, at + count)
 * from @p data (count x dims[1] x dims[2]): every value on rank 0 when @p cols is NULL, else the
 * columns of dimension 1 that @p cols marks, on every rank.  Collective and agreed.
 */
int sq_h5_append(hid_t set, int ndim, int64_t at, int64_t count, const int *cols, const double *data) {
  hsize_t dims[3] = {0, 1, 1};
  hid_t space = -1, mem = -1, dxpl = -1;
  int st = 0;
  IO_STEP(st, space = H5Dget_space(set));
  IO_STEP(st, H5Sget_simple_extent_ndims(space) == ndim ? H5Sget_simple_extent_dims(space, dims, NULL) : -1);
  if (space >= 0) H5Sclose(space);
  space = -1;
  dims[0] = (hsize_t)(at + count);
  IO_STEP(st, H5Dset_extent(set, dims));
  IO_STEP(st, space = H5Dget_space(set));
  const hsize_t mdims[3] = {(hsize_t)count, dims[1], dims[2]};
  IO_STEP(st, mem = H5Screate_simple(ndim, mdims, NULL));
  IO_STEP(st, dxpl = h5_dxpl());
  int sel = st ? -1 : 0;
  if (!sel && !cols) {
    const int mine = sq_io_rank() == 0;
    sel = (mine ? H5Sselect_all(mem) : H5Sselect_none(mem)) < 0;
    const hsize_t start[3] = {(hsize_t)at, 0, 0};
    if (!sel)
      sel = mine ? H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, mdims, NULL) < 0 : H5Sselect_none(space) < 0;
  } else if (!sel) { /* the runs of marked columns, the same in the file and in memory */
    h5_run *run = malloc(sizeof(h5_run) * (size_t)(dims[1] > 0 ? dims[1] : 1));
    int64_t nrun = 0;
    for (hsize_t i = 0; run && i < dims[1];) {
      hsize_t len = 0;
      while (i + len < dims[1] && cols[i + len]) ++len;
      if (len) run[nrun++] = (h5_run){i, len};
      i += len ? len : 1;
    }
    const hsize_t fstart[3] = {(hsize_t)at, 0, 0}, mstart[3] = {0, 0, 0}, cnt[3] = {(hsize_t)count, 0, dims[2]};
    sel = !run || h5_select_runs(space, ndim, fstart, cnt, 1, run, nrun) < 0 ||
          h5_select_runs(mem, ndim, mstart, cnt, 1, run, nrun) < 0;
    free(run);
  }
  IO_STEP(st, sel ? -1 : 0);
  IO_STEP(st, H5Dwrite(set, H5T_NATIVE_DOUBLE, mem, space, dxpl, data));
  if (dxpl >= 0) H5Pclose(dxpl);
  if (mem >= 0) H5Sclose(mem);
  if (space >= 0) H5Sclose(space);
  return st;
}

/* ---- text helpers ----------------------------------------------------------------------------- */

int sq_text_truncate(const char *path, int64_t header, int64_t rows) {
  FILE *f = fopen(path, "r");
  if (!f) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot open '%s' to continue it: %s", path, strerror(errno));
  const int64_t want = header + rows;
  int64_t lines = 0, offset = 0;
  int c;
  while (lines < want && (c = fgetc(f)) != EOF) {
    ++offset;
    if (c == '\n') ++lines;
  }
  fclose(f);
  if (lines < want)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "'%s' holds %lld complete data rows, but the checkpoint counts %lld; was it changed after the "
                    "checkpoint was written?",
                    path, (long long)(lines > header ? lines - header : 0), (long long)rows);
  if (truncate(path, (off_t)offset))
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot truncate '%s': %s", path, strerror(errno));
  return SQ_SUCCESS;
}

/* ---- files of distributed datasets -------------------------------------------------------------- */

/* Make PATH.tmp durable (rank 0, after the collective close) and rename it to PATH; agreed. */
int sq_commit_tmp(const char *tmp, const char *path) {
  int ierr = SQ_SUCCESS;
  if (sq_io_rank() == 0) {
    FILE *f = fopen(tmp, "r+");
    if (f) {
      fflush(f);
      fsync(fileno(f));
      fclose(f);
    }
    if (rename(tmp, path))
      ierr = sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
  }
  return sq_io_root(ierr);
}

int sq_h5_file_write(const char *path, const char *what, int nset, const sq_h5_set *sets) {
  char tmp[SQ_OUT_PATH + 8];
  snprintf(tmp, sizeof(tmp), "%s.tmp", path);
  h5_quiet q;
  sq_h5_quiet_begin(&q);
  hid_t file = -1;
  int st = 0;
  IO_STEP(st, file = sq_h5_file(tmp, 1, 0));
  for (int k = 0; k < nset && !st; ++k) {
    const hsize_t dims[2] = {(hsize_t)sets[k].nrow, (hsize_t)sets[k].ncol};
    st = sq_h5_write_dataset(file, sets[k].name, sets[k].integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE,
                             sets[k].ncol > 0 ? 2 : 1, dims, sets[k].rows, sets[k].data);
  }
  IO_STEP(st, sq_h5_close(&file));
  sq_h5_quiet_end(&q);
  if (st) {
    const int ierr = io_error(SQ_ERR_IO, __LINE__, "cannot write %s '%s'", what, tmp);
    sq_h5_close_quiet(&file);
    return ierr;
  }
  return sq_commit_tmp(tmp, path);
}

int sq_h5_file_read(const char *path, const char *what, int nset, const sq_h5_set *sets) {
  h5_quiet q;
  sq_h5_quiet_begin(&q);
  hid_t file = -1;
  int st = 0;
  IO_STEP(st, file = sq_h5_file(path, 0, H5F_ACC_RDONLY));
  sq_h5_quiet_end(&q);
  if (st)
    return io_error(SQ_ERR_IO, __LINE__, "cannot open %s '%s' (missing, unreadable or not an HDF5 file)", what, path);
  int ierr = SQ_SUCCESS;
  for (int k = 0; k < nset && !ierr; ++k) {
    const sq_h5_set *s = &sets[k];
    sq_h5_quiet_begin(&q);
    hid_t set = -1, space = -1;
    hsize_t dims[2] = {0, 0};
    IO_STEP(st, set = H5Dopen2(file, s->name, H5P_DEFAULT));
    const int missing = st != 0;
    IO_STEP(st, space = H5Dget_space(set));
    const int ndim = st ? 0 : H5Sget_simple_extent_ndims(space);
    if (!st && (ndim == 1 || ndim == 2)) H5Sget_simple_extent_dims(space, dims, NULL);
    const int64_t have = ndim == 2 ? (int64_t)(dims[0] * dims[1]) : (int64_t)dims[0];
    const int64_t want = s->nrow * (s->ncol > 0 ? s->ncol : 1);
    /* the same file on every rank: the agreement only guards the collective read below */
    const int fits = !st && sq_io_agree(ndim == (s->ncol > 0 ? 2 : 1) && (int64_t)dims[0] == s->nrow &&
                                                (s->ncol == 0 || (int64_t)dims[1] == s->ncol)
                                            ? 0
                                            : -1) == 0;
    if (!st && fits)
      IO_STEP(st, sq_h5_rows_transfer(set, s->integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, s->rows, s->data, 0));
    if (space >= 0) H5Sclose(space);
    if (set >= 0) H5Dclose(set);
    sq_h5_quiet_end(&q);
    if (missing) ierr = io_error(SQ_ERR_INPUT, __LINE__, "%s '%s' has no dataset '%s'", what, path, s->name);
    else if (!st && !fits)
      ierr = io_error(SQ_ERR_INPUT, __LINE__,
                      "%s '%s': '%s' holds %lld values, this run needs %lld; restart with the mesh and "
                      "configuration that wrote it",
                      what, path, s->name, (long long)have, (long long)want);
    else if (st) ierr = io_error(SQ_ERR_IO, __LINE__, "cannot read '%s' from %s '%s'", s->name, what, path);
  }
  sq_h5_close_quiet(&file);
  return ierr;
}
