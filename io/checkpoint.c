/**
 * @file checkpoint.c  Checkpoints: the degrees of freedom of every element (one row per mesh cell, in
 * global cell order, so that any number of ranks can read what any number wrote), the run state as
 * attributes, and extra per-element arrays (plasticity).  Written to PATH.tmp and renamed when complete.
 */
#include "output_impl.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CK_I64(name, field)                                                                                            \
  { name, H5T_NATIVE_INT64, offsetof(sq_checkpoint_info, field) }
#define CK_F64(name, field)                                                                                            \
  { name, H5T_NATIVE_DOUBLE, offsetof(sq_checkpoint_info, field) }
#define CK_INT(name, field)                                                                                            \
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
  for (int64_t c = 0; c < ncell; ++c) k += d->elem_of[c] >= 0 && (!owned || !d->is_ghost[d->elem_of[c]]);
  *n = k;
  *cells = malloc(sizeof(int64_t) * (size_t)(k > 0 ? k : 1));
  *rows = malloc(sizeof(int64_t) * (size_t)(k > 0 ? k : 1));
  if (!*cells || !*rows) return -1;
  k = 0;
  for (int64_t c = 0; c < ncell; ++c)
    if (d->elem_of[c] >= 0 && (!owned || !d->is_ghost[d->elem_of[c]]))
      (*rows)[k] = sq_mesh_global_cell(d->mesh, c), (*cells)[k++] = c;
  return 0;
}

int sq_checkpoint_write(const char *path, const sq_disc *d, const sq_checkpoint_info *info) {
  return sq_checkpoint_write_fields(path, d, info, 0, NULL);
}

int sq_checkpoint_write_fields(const char *path, const sq_disc *d, const sq_checkpoint_info *info_in, int nfield,
                               const sq_checkpoint_field *fields) {
  sq_checkpoint_info info = *info_in;
  if (sq_io_nranks() > 1) /* attributes are metadata: every rank must write the same values */
    MPI_Bcast(&info, (int)sizeof(info), MPI_BYTE, 0, MPI_COMM_WORLD);
  const int64_t ncell = sq_mesh_ncell_global(d->mesh);
  const size_t eb = sq_disc_elem_bytes(d);
  int64_t *cells = NULL, *cell_rows = NULL, n = 0;
  int st = ck_cells(d, 1, &cells, &cell_rows, &n);
  char *rows = malloc(eb * (size_t)(n > 0 ? n : 1));
  st = sq_io_agree(st || !rows ? -1 : 0);
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
  sq_h5_quiet_begin(&q);
  hid_t file = -1;
  IO_STEP(st, file = sq_h5_file(tmp, 1, 0));
  const hsize_t dims[2] = {(hsize_t)ncell, (hsize_t)d->nbasis * 9};
  if (!st)
    st = sq_h5_write_dataset(file, "dofs", d->opt.precision == SQ_F64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, 2, dims,
                             &mine, rows);
  ck_attr attr[CK_NATTR];
  ck_attrs(attr);
  for (int i = 0; i < CK_NATTR; ++i)
    IO_STEP(st, sq_h5_attr_write(file, attr[i].name, attr[i].type, (const char *)&info + attr[i].offset));
  IO_STEP(st, sq_h5_attr_string(file, "format", "starquake checkpoint 1"));
  char names[512];
  ck_field_names(nfield, fields, names, sizeof(names));
  IO_STEP(st, sq_h5_attr_string(file, "fields", names));
  for (int k = 0; k < nfield && !st; ++k) {
    const int ncol = fields[k].ncol;
    double *frows = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1) * ncol);
    IO_STEP(st, frows ? 0 : -1);
    for (int64_t i = 0; !st && i < n; ++i)
      memcpy(frows + i * ncol, fields[k].data + d->elem_of[cells[i]] * ncol, sizeof(double) * ncol);
    const hsize_t fdims[2] = {(hsize_t)ncell, (hsize_t)ncol};
    if (!st) st = sq_h5_write_dataset(file, fields[k].name, H5T_NATIVE_DOUBLE, 2, fdims, &mine, frows);
    free(frows);
  }
  IO_STEP(st, sq_h5_close(&file));
  sq_h5_quiet_end(&q);
  free(rows);
  free(cells);
  free(cell_rows);
  if (st) {
    const int ierr = io_error(SQ_ERR_IO, __LINE__, "cannot write the checkpoint '%s'", tmp);
    sq_h5_close_quiet(&file);
    return ierr;
  }
  return sq_commit_tmp(tmp, path);
}

/* The string attribute @p name of @p obj into @p out ("" when absent: checkpoints older than it). */
static int h5_attr_read_string(hid_t obj, const char *name, char *out, size_t size) {
  out[0] = '\0';
  if (H5Aexists(obj, name) <= 0) return 0;
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
  if (type >= 0) H5Tclose(type);
  if (attr >= 0) H5Aclose(attr);
  return st;
}

/* Read @p count doubles-or-floats per row of dataset @p name of the open @p file: the rows @p mine, into
 * @p rows; 0, -1 (missing or other size), -2 (read failed); agreed. */
static int ck_read_rows(hid_t file, const char *name, hid_t type, int64_t nrow, int64_t ncol, const sq_rows *mine,
                        void *rows) {
  hid_t set = -1, space = -1;
  hsize_t dims[2] = {0, 0};
  int st = 0;
  IO_STEP(st, set = H5Dopen2(file, name, H5P_DEFAULT));
  IO_STEP(st, space = H5Dget_space(set));
  IO_STEP(st, H5Sget_simple_extent_ndims(space) != 2 || H5Sget_simple_extent_dims(space, dims, NULL) < 0 ||
                      dims[0] != (hsize_t)nrow || dims[1] != (hsize_t)ncol
                  ? -1
                  : 0);
  if (!st && sq_io_agree(sq_h5_rows_transfer(set, type, mine, rows, 0))) st = -2;
  if (space >= 0) H5Sclose(space);
  if (set >= 0) H5Dclose(set);
  return st;
}

/* Read the per-element arrays @p fields of the open checkpoint @p file (which must list exactly them)
 * into the elements @p cells (ascending mesh cells; @p mine selects their rows). */
static int ck_fields_read(const char *path, hid_t file, sq_disc *d, const int64_t *cells, const sq_rows *mine,
                          int nfield, const sq_checkpoint_field *fields) {
  char want[512], have[512];
  ck_field_names(nfield, fields, want, sizeof(want));
  h5_quiet q;
  sq_h5_quiet_begin(&q);
  int st = sq_io_agree(h5_attr_read_string(file, "fields", have, sizeof(have)));
  sq_h5_quiet_end(&q);
  if (st) return io_error(SQ_ERR_INPUT, __LINE__, "cannot read the attribute 'fields' of the checkpoint '%s'", path);
  if (strcmp(want, have))
    return io_error(SQ_ERR_INPUT, __LINE__,
                    "the checkpoint '%s' holds the per-element data [%s] but this run needs [%s]: a run with "
                    "plasticity (attenuation) restarts only from a checkpoint written with plasticity (attenuation), "
                    "and a run without it only from one without",
                    path, have, want);
  const int64_t ncell = sq_mesh_ncell_global(d->mesh);
  for (int k = 0; k < nfield; ++k) {
    const sq_checkpoint_field *f = &fields[k];
    double *rows = malloc(sizeof(double) * (size_t)(mine->n > 0 ? mine->n : 1) * f->ncol);
    if (sq_io_agree(rows ? 0 : -1)) {
      free(rows);
      return io_error(SQ_ERR_MEMORY, __LINE__, "out of memory reading the checkpoint '%s'", path);
    }
    sq_h5_quiet_begin(&q);
    st = ck_read_rows(file, f->name, H5T_NATIVE_DOUBLE, ncell, f->ncol, mine, rows);
    sq_h5_quiet_end(&q);
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
  if (sq_io_agree(readable))
    return io_error(SQ_ERR_IO, __LINE__, "cannot read the checkpoint '%s': %s", path,
                    readable ? strerror(why) : "it is not readable from every MPI rank");
  h5_quiet q;
  sq_h5_quiet_begin(&q);
  hid_t file = sq_h5_file(path, 0, H5F_ACC_RDONLY);
  memset(info, 0, sizeof(*info));
  ck_attr attr[CK_NATTR];
  ck_attrs(attr);
  int st = file < 0 ? -1 : 0;
  const char *missing = NULL;
  for (int i = 0; i < CK_NATTR && !st; ++i)
    if (sq_h5_attr_read(file, attr[i].name, attr[i].type, (char *)info + attr[i].offset) < 0)
      missing = attr[i].name, st = -1;
  sq_h5_quiet_end(&q);
  if (sq_io_agree(st)) {
    const int ierr = missing ? io_error(SQ_ERR_INPUT, __LINE__,
                                        "'%s' is not a starquake checkpoint (attribute '%s' missing)", path, missing)
                             : io_error(SQ_ERR_INPUT, __LINE__, "'%s' is not an HDF5 file", path);
    sq_h5_close_quiet(&file);
    return ierr;
  }
  if (info->ncell != sq_mesh_ncell_global(d->mesh) || info->order != d->opt.order ||
      info->precision != (int)d->opt.precision) {
    char what[512] = ""; /* each difference, named with its key */
    size_t len = 0;
    if (info->ncell != sq_mesh_ncell_global(d->mesh))
      len += (size_t)snprintf(what + len, sizeof(what) - len, "%s%lld cells, the run %lld (mesh)", len ? "; " : "",
                              (long long)info->ncell, (long long)sq_mesh_ncell_global(d->mesh));
    if (info->order != d->opt.order && len < sizeof(what))
      len += (size_t)snprintf(what + len, sizeof(what) - len, "%sorder %d, the run order %d (equations.order)",
                              len ? "; " : "", info->order, d->opt.order);
    if (info->precision != (int)d->opt.precision && len < sizeof(what))
      snprintf(what + len, sizeof(what) - len, "%s%s precision, the run %s (equations.precision)", len ? "; " : "",
               info->precision == SQ_F64 ? "double" : "single", d->opt.precision == SQ_F64 ? "double" : "single");
    const int ierr =
        io_error(SQ_ERR_INPUT, __LINE__, "the checkpoint '%s' does not fit this run: it has %s", path, what);
    sq_h5_close_quiet(&file);
    return ierr;
  }
  /* the rows of every element of this rank, ghosts included: they are refreshed by the first halo
   * exchange anyway */
  const int64_t ncell = sq_mesh_ncell_global(d->mesh);
  const size_t eb = sq_disc_elem_bytes(d);
  int64_t *cells = NULL, *cell_rows = NULL, n = 0;
  st = ck_cells(d, 0, &cells, &cell_rows, &n);
  char *rows = malloc(eb * (size_t)(n > 0 ? n : 1));
  if (sq_io_agree(st || !rows ? -1 : 0)) {
    free(cells), free(cell_rows), free(rows);
    sq_h5_close_quiet(&file);
    return io_error(SQ_ERR_MEMORY, __LINE__, "out of memory reading the checkpoint '%s'", path);
  }
  const sq_rows mine = {.n = n, .id = cell_rows};
  int ierr = ck_fields_read(path, file, d, cells, &mine, nfield, fields);
  if (!ierr) {
    sq_h5_quiet_begin(&q);
    st = ck_read_rows(file, "dofs", d->opt.precision == SQ_F64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, ncell,
                      (int64_t)d->nbasis * 9, &mine, rows);
    sq_h5_quiet_end(&q);
    if (st)
      ierr = io_error(SQ_ERR_INPUT, __LINE__, "cannot read /dofs (%lld x %d) from the checkpoint '%s'",
                      (long long)ncell, d->nbasis * 9, path);
  }
  for (int64_t k = 0; !ierr && k < n; ++k)
    memcpy((char *)d->dofs + (size_t)d->elem_of[cells[k]] * eb, rows + (size_t)k * eb, eb);
  free(rows);
  free(cells);
  free(cell_rows);
  sq_h5_close_quiet(&file);
  return ierr;
}
