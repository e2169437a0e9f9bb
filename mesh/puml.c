/**
 * @file puml.c  PUML HDF5 meshes (SeisSol's format, written by PUMGen): a range reader built on
 * hyperslabs (one MPI rank's share of the cells), the whole-mesh reader on top of it, and a writer.
 */
#include "sq_mesh_io.h"

#include <hdf5.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* PUML lists the faces of a cell as the vertex triples {0,1,2}, {0,1,3}, {1,2,3}, {0,2,3}; ours (sq_ref.h)
 * are {0,1,2}, {0,1,3}, {0,2,3}, {1,2,3}.  PUML face f is our face puml_to_ours[f] (an involution). */
static const int puml_to_ours[4] = {0, 1, 3, 2};

/* Rows of /geometry read per hyperslab when gathering the vertices of a range. */
#define PUML_GEOMETRY_BLOCK 65536

/* ------------------------------------------------------------------------------------------------ */
/* HDF5 errors: silence the library's printing, turn failures into our messages                     */
/* ------------------------------------------------------------------------------------------------ */

typedef struct h5_quiet {
  H5E_auto2_t func;
  void *data;
} h5_quiet;

/* HDF5 prints its error stack by default; we report failures ourselves, naming the dataset. */
static void h5_quiet_begin(h5_quiet *q) {
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void h5_quiet_end(const h5_quiet *q) { H5Eset_auto2(H5E_DEFAULT, q->func, q->data); }

/* Keeps the innermost (most specific) description of the error stack. */
static herr_t h5_innermost(unsigned n, const H5E_error2_t *err, void *data) {
  if (n == 0) snprintf((char *)data, 256, "%s", err->desc ? err->desc : "no description");
  return 0;
}

/* Take the innermost description of HDF5's error stack into @p detail (256 bytes) and clear the stack.
 * Call it right after the failing call: any later successful HDF5 call clears the stack. */
static void h5_take_detail(char *detail) {
  detail[0] = '\0';
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5_innermost, detail);
  H5Eclear2(H5E_DEFAULT);
}

/* Report "PUML file PATH: <what> (HDF5: <detail>)". */
static int h5_report(int code, const char *path, const char *detail, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int h5_report(int code, const char *path, const char *detail, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (detail[0]) return sq_error(code, __FILE__, __LINE__, "PUML file %s: %s (HDF5: %s)", path, what, detail);
  return sq_error(code, __FILE__, __LINE__, "PUML file %s: %s", path, what);
}

/* h5_report with the current error stack: call it right after the failing HDF5 call. */
static int h5_error(int code, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int h5_error(int code, const char *path, const char *fmt, ...) {
  char what[512], detail[256];
  h5_take_detail(detail);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return h5_report(code, path, detail, "%s", what);
}

/* ------------------------------------------------------------------------------------------------ */
/* Datasets                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/* An open dataset with its shape and element type. */
typedef struct h5_dset {
  const char *name;
  hid_t id;
  int rank;
  hsize_t dims[2];
  H5T_class_t cls;
  size_t size; /* bytes per element in the file */
} h5_dset;

static void h5_dset_close(h5_dset *d) {
  if (d->id >= 0) H5Dclose(d->id);
  d->id = -1;
}

static const char *class_name(H5T_class_t cls) {
  switch (cls) {
  case H5T_INTEGER: return "integer";
  case H5T_FLOAT: return "floating-point";
  case H5T_STRING: return "string";
  default: return "non-numeric";
  }
}

/*
 * Open dataset @p name (e.g. "/connect") and read its shape.  With @p required = 0 a missing dataset
 * is no error: d->id stays -1.  Rank must be 1 or 2.
 */
static int h5_dset_open(const char *path, hid_t file, const char *name, int required, h5_dset *d) {
  memset(d, 0, sizeof *d);
  d->name = name;
  d->id = -1;
  htri_t exists = H5Lexists(file, name, H5P_DEFAULT);
  if (exists < 0) return h5_error(SQ_ERR_IO, path, "cannot look up dataset %s", name);
  if (!exists) {
    if (!required) return SQ_SUCCESS;
    return h5_error(SQ_ERR_INPUT, path, "dataset %s is missing (a PUML mesh has /geometry, /connect and /boundary)",
                    name);
  }
  d->id = H5Dopen2(file, name, H5P_DEFAULT);
  if (d->id < 0) return h5_error(SQ_ERR_IO, path, "cannot open dataset %s", name);
  hid_t space = H5Dget_space(d->id);
  hid_t type = H5Dget_type(d->id);
  int ierr = SQ_SUCCESS;
  if (space < 0 || type < 0) {
    ierr = h5_error(SQ_ERR_IO, path, "cannot read the shape or type of dataset %s", name);
  } else {
    d->rank = H5Sget_simple_extent_ndims(space);
    d->cls = H5Tget_class(type);
    d->size = H5Tget_size(type);
    if (d->rank < 1 || d->rank > 2)
      ierr = h5_error(SQ_ERR_INPUT, path, "dataset %s has rank %d; PUML datasets have rank 1 or 2", name, d->rank);
    else if (H5Sget_simple_extent_dims(space, d->dims, NULL) < 0)
      ierr = h5_error(SQ_ERR_IO, path, "cannot read the dimensions of dataset %s", name);
  }
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  if (ierr) h5_dset_close(d);
  return ierr;
}

/* Check that @p d is @p rank-D of class @p cls with @p nrows rows (if >= 0) and @p ncols columns (rank 2). */
static int h5_dset_expect(const char *path, const h5_dset *d, H5T_class_t cls, int rank, int64_t nrows, int ncols) {
  char shape[64];
  if (d->rank == 1) snprintf(shape, sizeof shape, "%llu", (unsigned long long)d->dims[0]);
  else snprintf(shape, sizeof shape, "%llu x %llu", (unsigned long long)d->dims[0], (unsigned long long)d->dims[1]);
  if (d->cls != cls)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "PUML file %s: dataset %s holds %s data; expected %s", path,
                    d->name, class_name(d->cls), class_name(cls));
  if (d->rank != rank || (rank == 2 && d->dims[1] != (hsize_t)ncols) || (nrows >= 0 && d->dims[0] != (hsize_t)nrows)) {
    char want[64];
    if (rank == 1) snprintf(want, sizeof want, "%lld", (long long)nrows);
    else if (nrows >= 0) snprintf(want, sizeof want, "%lld x %d", (long long)nrows, ncols);
    else snprintf(want, sizeof want, "N x %d", ncols);
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "PUML file %s: dataset %s has shape %s; expected %s", path,
                    d->name, shape, want);
  }
  return SQ_SUCCESS;
}

/* Read rows [row0, row0 + nrows) of @p d (all columns) into @p buf as @p memtype. */
static int h5_read_rows(const char *path, const h5_dset *d, hid_t memtype, int64_t row0, int64_t nrows, void *buf) {
  if (nrows == 0) return SQ_SUCCESS;
  hsize_t start[2] = {(hsize_t)row0, 0};
  hsize_t count[2] = {(hsize_t)nrows, d->rank == 2 ? d->dims[1] : 1};
  hid_t fspace = H5Dget_space(d->id);
  hid_t mspace = H5Screate_simple(d->rank, count, NULL);
  herr_t status = -1;
  char detail[256] = "";
  if (fspace >= 0 && mspace >= 0 && H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0)
    status = H5Dread(d->id, memtype, mspace, fspace, H5P_DEFAULT, buf);
  if (status < 0) h5_take_detail(detail); /* before the closes below clear the error stack */
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  if (status < 0)
    return h5_report(SQ_ERR_IO, path, detail, "cannot read rows %lld..%lld of dataset %s", (long long)row0,
                     (long long)(row0 + nrows - 1), d->name);
  return SQ_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Boundary format and codes                                                                         */
/* ------------------------------------------------------------------------------------------------ */

/* The root attribute "boundary-format" (variable- or fixed-length string), or "" if absent. */
static int puml_read_format_attr(const char *path, hid_t file, char *out, size_t len) {
  out[0] = '\0';
  htri_t exists = H5Aexists(file, "boundary-format");
  if (exists < 0) return h5_error(SQ_ERR_IO, path, "cannot look up the attribute boundary-format");
  if (!exists) return SQ_SUCCESS;
  hid_t attr = H5Aopen(file, "boundary-format", H5P_DEFAULT);
  hid_t ftype = attr >= 0 ? H5Aget_type(attr) : -1;
  hid_t mtype = -1;
  int ierr = SQ_SUCCESS;
  if (attr < 0 || ftype < 0) {
    ierr = h5_error(SQ_ERR_IO, path, "cannot open the attribute boundary-format");
  } else if (H5Tget_class(ftype) != H5T_STRING) {
    ierr = h5_error(SQ_ERR_INPUT, path, "the attribute boundary-format is not a string");
  } else if (H5Tis_variable_str(ftype) > 0) {
    char *s = NULL;
    mtype = H5Tcopy(H5T_C_S1);
    if (mtype < 0 || H5Tset_size(mtype, H5T_VARIABLE) < 0 || H5Aread(attr, mtype, &s) < 0)
      ierr = h5_error(SQ_ERR_IO, path, "cannot read the attribute boundary-format");
    else snprintf(out, len, "%s", s ? s : "");
    if (s) H5free_memory(s);
  } else {
    size_t n = H5Tget_size(ftype);
    char buf[64] = {0};
    mtype = H5Tcopy(ftype);
    if (n >= sizeof buf) ierr = h5_error(SQ_ERR_INPUT, path, "the attribute boundary-format is %zu characters long", n);
    else if (mtype < 0 || H5Aread(attr, mtype, buf) < 0)
      ierr = h5_error(SQ_ERR_IO, path, "cannot read the attribute boundary-format");
    else snprintf(out, len, "%s", buf);
  }
  /* Fixed-length strings may be space-padded. */
  for (size_t k = strlen(out); k > 0 && (out[k - 1] == ' ' || out[k - 1] == '\0'); k--) out[k - 1] = '\0';
  if (mtype >= 0) H5Tclose(mtype);
  if (ftype >= 0) H5Tclose(ftype);
  if (attr >= 0) H5Aclose(attr);
  return ierr;
}

/* Decide the boundary layout from the attribute (if any) and the shape of /boundary; check they agree. */
static int puml_boundary_format(const char *path, const h5_dset *b, int64_t ncell, const char *attr, char *fmt,
                                size_t len) {
  const char *inferred = NULL;
  if (b->cls == H5T_INTEGER && b->rank == 1 && b->size == 4) inferred = "i32";
  else if (b->cls == H5T_INTEGER && b->rank == 1 && b->size == 8) inferred = "i64";
  else if (b->cls == H5T_INTEGER && b->rank == 2 && b->dims[1] == 4) inferred = "i32x4";
  char shape[96];
  if (b->rank == 1) snprintf(shape, sizeof shape, "%llu", (unsigned long long)b->dims[0]);
  else snprintf(shape, sizeof shape, "%llu x %llu", (unsigned long long)b->dims[0], (unsigned long long)b->dims[1]);
  if (attr[0]) {
    SQ_CHECK(!strcmp(attr, "i32") || !strcmp(attr, "i64") || !strcmp(attr, "i32x4"), SQ_ERR_INPUT,
             "PUML file %s: the attribute boundary-format is \"%s\"; known formats are \"i32\", \"i64\" and "
             "\"i32x4\"",
             path, attr);
    SQ_CHECK(inferred && !strcmp(inferred, attr), SQ_ERR_INPUT,
             "PUML file %s: dataset /boundary (%s %zu-byte %s values, shape %s) does not have the layout that the "
             "attribute boundary-format = \"%s\" names (i32: N 4-byte integers; i64: N 8-byte integers; "
             "i32x4: N x 4 4-byte integers)",
             path, b->rank == 1 ? "1-D" : "2-D", b->size, class_name(b->cls), shape, attr);
    snprintf(fmt, len, "%s", inferred); /* == attr */
  } else {
    SQ_CHECK(inferred, SQ_ERR_INPUT,
             "PUML file %s: dataset /boundary (%zu-byte %s values, shape %s) is in no known layout, and the "
             "file has no boundary-format attribute (expected N 4-byte integers, N 8-byte integers or N x 4 "
             "4-byte integers)",
             path, b->size, class_name(b->cls), shape);
    snprintf(fmt, len, "%s", inferred);
  }
  SQ_CHECK(b->dims[0] == (hsize_t)ncell, SQ_ERR_INPUT,
           "PUML file %s: dataset /boundary has %llu rows but /connect has %lld cells", path,
           (unsigned long long)b->dims[0], (long long)ncell);
  return SQ_SUCCESS;
}

static const char *puml_code_name(int64_t code) {
  switch (code) {
  case 2: return " (gravity-based free surface)";
  case 4: return " (Dirichlet)";
  case 7: return " (analytical)";
  default: return "";
  }
}

/* Raw code -> enum sq_bc; -1 for codes starquake does not support. */
static int puml_code_to_bc(int64_t code) {
  if (code == SQ_BC_REGULAR || code == SQ_BC_FREE || code == SQ_BC_RUPTURE || code == SQ_BC_ABSORB ||
      code == SQ_BC_PERIODIC)
    return (int)code;
  if (code > 64) return SQ_BC_RUPTURE; /* fault-tagged rupture face (SeisSol's fault tagging) */
  return -1;
}

/* Unpack /boundary rows into face_bc / face_tag (our face numbering). @p first is the global row of raw[0]. */
static int puml_decode_boundary(const char *path, const char *fmt, const void *raw, int64_t n, int64_t first,
                                int8_t *face_bc, int32_t *face_tag) {
  static const int puml_faces[4][3] = {{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {0, 2, 3}};
  for (int64_t c = 0; c < n; c++) {
    for (int f = 0; f < 4; f++) {
      int64_t code;
      if (!strcmp(fmt, "i32")) code = ((uint32_t)((const int32_t *)raw)[c] >> (8 * f)) & 0xffu;
      else if (!strcmp(fmt, "i64")) code = (int64_t)(((uint64_t)((const int64_t *)raw)[c] >> (16 * f)) & 0xffffu);
      else code = ((const int32_t *)raw)[4 * c + f];
      int bc = puml_code_to_bc(code);
      int ours = puml_to_ours[f];
      if (bc < 0)
        return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                        "PUML file %s: cell %lld (row of /connect), PUML face %d (local vertices %d,%d,%d; our face "
                        "%d), has boundary code %lld%s in /boundary, which starquake does not support; supported "
                        "codes are 0 regular, 1 free surface, 3 dynamic rupture, 5 absorbing, 6 periodic and codes "
                        "above 64 (fault-tagged dynamic rupture)",
                        path, (long long)(first + c), f, puml_faces[f][0], puml_faces[f][1], puml_faces[f][2], ours,
                        (long long)code, puml_code_name(code));
      face_bc[4 * c + ours] = (int8_t)bc;
      face_tag[4 * c + ours] = (int32_t)code;
    }
  }
  return SQ_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Reading                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

static int cmp_int64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Index of @p key in the ascending array @p a[n] (present by construction). */
static int64_t find_sorted(const int64_t *a, int64_t n, int64_t key) {
  int64_t lo = 0, hi = n;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (a[mid] <= key) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* Open @p path read-only; errors name the file. */
static int puml_open(const char *path, hid_t *file) {
  *file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (*file < 0) return h5_error(SQ_ERR_IO, path, "cannot open it as an HDF5 file (missing, unreadable or truncated?)");
  return SQ_SUCCESS;
}

/* Open /connect and /geometry and check their shapes. */
static int puml_open_main(const char *path, hid_t file, h5_dset *connect, h5_dset *geometry) {
  SQ_CALL(h5_dset_open(path, file, "/connect", 1, connect));
  SQ_CALL(h5_dset_expect(path, connect, H5T_INTEGER, 2, -1, 4));
  SQ_CALL(h5_dset_open(path, file, "/geometry", 1, geometry));
  SQ_CALL(h5_dset_expect(path, geometry, H5T_FLOAT, 2, -1, 3));
  return SQ_SUCCESS;
}

int sq_mesh_puml_size(const char *path, int64_t *ncell, int64_t *nvert) {
  SQ_CHECK(path && ncell && nvert, SQ_ERR_INTERNAL, "sq_mesh_puml_size: NULL argument");
  h5_quiet quiet;
  h5_quiet_begin(&quiet);
  hid_t file = -1;
  h5_dset connect = {.id = -1}, geometry = {.id = -1};
  int ierr = puml_open(path, &file);
  if (!ierr) ierr = puml_open_main(path, file, &connect, &geometry);
  if (!ierr) {
    *ncell = (int64_t)connect.dims[0];
    *nvert = (int64_t)geometry.dims[0];
  }
  h5_dset_close(&connect);
  h5_dset_close(&geometry);
  if (file >= 0) H5Fclose(file);
  h5_quiet_end(&quiet);
  return ierr;
}

void sq_puml_part_destroy(sq_puml_part *p) {
  if (!p) return;
  sq_mesh_destroy(p->mesh);
  SQ_FREE(p->vert_global);
  SQ_FREE(p->face_tag);
  sq_free_aligned(p);
}

/* The body of sq_mesh_read_puml_range once the file is open; fills @p p. */
static int puml_read_part(const char *path, hid_t file, int64_t begin, int64_t end, sq_puml_part *p) {
  h5_dset connect = {.id = -1}, geometry = {.id = -1}, group = {.id = -1}, boundary = {.id = -1};
  int64_t *ids = NULL, *gcell = NULL;
  void *raw = NULL;
  double *block = NULL;
  int ierr = puml_open_main(path, file, &connect, &geometry);
  if (ierr) goto done;
  p->ncell_global = (int64_t)connect.dims[0];
  p->nvert_global = (int64_t)geometry.dims[0];
  p->cell_begin = begin;
  p->cell_end = end;
  if (!(begin >= 0 && begin <= end && end <= p->ncell_global)) {
    ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "PUML file %s: cell range [%lld, %lld) is not within the %lld cells of /connect", path,
                    (long long)begin, (long long)end, (long long)p->ncell_global);
    goto done;
  }
  const int64_t n = end - begin;

  /* Connectivity (global vertex ids), checked against /geometry. */
  if ((ierr = SQ_CALLOC(gcell, 4 * n))) goto done;
  if ((ierr = h5_read_rows(path, &connect, H5T_NATIVE_INT64, begin, n, gcell))) goto done;
  for (int64_t k = 0; k < 4 * n; k++) {
    if (gcell[k] < 0 || gcell[k] >= p->nvert_global) {
      ierr = sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "PUML file %s: cell %lld (row of /connect) refers to vertex %lld, but /geometry has %lld "
                      "vertices (0..%lld)",
                      path, (long long)(begin + k / 4), (long long)gcell[k], (long long)p->nvert_global,
                      (long long)(p->nvert_global - 1));
      goto done;
    }
  }
  /* The vertices these cells use, ascending. */
  if ((ierr = SQ_CALLOC(ids, 4 * n))) goto done;
  memcpy(ids, gcell, (size_t)(4 * n) * sizeof *ids);
  qsort(ids, (size_t)(4 * n), sizeof *ids, cmp_int64);
  int64_t nloc = 0;
  for (int64_t k = 0; k < 4 * n; k++)
    if (nloc == 0 || ids[k] != ids[nloc - 1]) ids[nloc++] = ids[k];

  if ((ierr = sq_mesh_alloc(nloc, n, &p->mesh))) goto done;
  sq_mesh *m = p->mesh;
  snprintf(m->source, sizeof m->source, "%s", path);
  if ((ierr = SQ_CALLOC(p->vert_global, nloc))) goto done;
  if ((ierr = SQ_CALLOC(p->face_tag, 4 * n))) goto done;
  memcpy(p->vert_global, ids, (size_t)nloc * sizeof *ids);
  for (int64_t k = 0; k < 4 * n; k++) m->cell_vert[k] = find_sorted(ids, nloc, gcell[k]);

  /* Coordinates: blocks of rows starting at the next needed vertex, so unused stretches are skipped. */
  if (nloc > 0 && (ierr = SQ_CALLOC(block, 3 * PUML_GEOMETRY_BLOCK))) goto done;
  for (int64_t i = 0; i < nloc && !ierr;) {
    int64_t g0 = ids[i], g1 = g0 + PUML_GEOMETRY_BLOCK;
    if (g1 > p->nvert_global) g1 = p->nvert_global;
    if ((ierr = h5_read_rows(path, &geometry, H5T_NATIVE_DOUBLE, g0, g1 - g0, block))) goto done;
    for (; i < nloc && ids[i] < g1; i++) memcpy(&m->vert[3 * i], &block[3 * (ids[i] - g0)], 3 * sizeof(double));
  }

  /* Groups (optional). */
  if ((ierr = h5_dset_open(path, file, "/group", 0, &group))) goto done;
  if (group.id >= 0) {
    if ((ierr = h5_dset_expect(path, &group, H5T_INTEGER, 1, p->ncell_global, 1))) goto done;
    if ((ierr = h5_read_rows(path, &group, H5T_NATIVE_INT32, begin, n, m->group))) goto done;
  }

  /* Boundary codes. */
  char attr[64];
  if ((ierr = puml_read_format_attr(path, file, attr, sizeof attr))) goto done;
  if ((ierr = h5_dset_open(path, file, "/boundary", 1, &boundary))) goto done;
  if ((ierr =
           puml_boundary_format(path, &boundary, p->ncell_global, attr, p->boundary_format, sizeof p->boundary_format)))
    goto done;
  p->boundary_format_given = attr[0] != '\0';
  int i64 = !strcmp(p->boundary_format, "i64"), x4 = !strcmp(p->boundary_format, "i32x4");
  if (i64) ierr = sq_calloc_aligned(&raw, (size_t)n, sizeof(int64_t));
  else ierr = sq_calloc_aligned(&raw, (size_t)(x4 ? 4 * n : n), sizeof(int32_t));
  if (ierr) goto done;
  if ((ierr = h5_read_rows(path, &boundary, i64 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32, begin, n, raw))) goto done;
  ierr = puml_decode_boundary(path, p->boundary_format, raw, n, begin, m->face_bc, p->face_tag);

done:
  h5_dset_close(&connect);
  h5_dset_close(&geometry);
  h5_dset_close(&group);
  h5_dset_close(&boundary);
  SQ_FREE(ids);
  SQ_FREE(gcell);
  SQ_FREE(raw);
  SQ_FREE(block);
  return ierr;
}

int sq_mesh_read_puml_range(const char *path, int64_t begin, int64_t end, sq_puml_part **part) {
  SQ_CHECK(path && part, SQ_ERR_INTERNAL, "sq_mesh_read_puml_range: NULL argument");
  *part = NULL;
  sq_puml_part *p = NULL;
  SQ_CALL(SQ_CALLOC(p, 1));
  h5_quiet quiet;
  h5_quiet_begin(&quiet);
  hid_t file = -1;
  int ierr = puml_open(path, &file);
  if (!ierr) ierr = puml_read_part(path, file, begin, end, p);
  if (file >= 0 && H5Fclose(file) < 0 && !ierr) ierr = h5_error(SQ_ERR_IO, path, "cannot close the file");
  h5_quiet_end(&quiet);
  if (ierr) {
    sq_puml_part_destroy(p);
    return ierr;
  }
  *part = p;
  return SQ_SUCCESS;
}

int sq_mesh_read_puml(const char *path, sq_mesh **mesh) {
  SQ_CHECK(path && mesh, SQ_ERR_INTERNAL, "sq_mesh_read_puml: NULL argument");
  *mesh = NULL;
  int64_t ncell, nvert;
  SQ_CALL(sq_mesh_puml_size(path, &ncell, &nvert));
  sq_puml_part *p = NULL;
  SQ_CALL(sq_mesh_read_puml_range(path, 0, ncell, &p));
  sq_mesh *m = p->mesh;
  p->mesh = NULL;
  sq_puml_part_destroy(p);
  if (m->nvert < nvert && sq_verbosity >= 1)
    fprintf(stderr,
            "starquake: note: PUML file %s: %lld of the %lld vertices in /geometry belong to no cell and "
            "were dropped (vertex numbers shift)\n",
            path, (long long)(nvert - m->nvert), (long long)nvert);
  int ierr = sq_mesh_finalize(m);
  if (ierr) {
    sq_mesh_destroy(m);
    return ierr;
  }
  *mesh = m;
  return SQ_SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Writing                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/* Create dataset @p name of @p filetype and shape rows x cols (cols 0: 1-D) and write @p buf. */
static int h5_write_dataset(const char *path, hid_t file, const char *name, hid_t filetype, hid_t memtype, int64_t rows,
                            int cols, const void *buf) {
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
  hid_t space = H5Screate_simple(cols ? 2 : 1, dims, NULL);
  hid_t dset = space >= 0 ? H5Dcreate2(file, name, filetype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  herr_t status = dset >= 0 ? H5Dwrite(dset, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : -1;
  char detail[256] = "";
  if (status < 0) h5_take_detail(detail);
  if (dset >= 0 && H5Dclose(dset) < 0 && status >= 0) {
    status = -1;
    h5_take_detail(detail);
  }
  if (space >= 0) H5Sclose(space);
  if (status < 0) return h5_report(SQ_ERR_IO, path, detail, "cannot write dataset %s", name);
  return SQ_SUCCESS;
}

static int h5_write_string_attr(const char *path, hid_t file, const char *name, const char *value) {
  hid_t type = H5Tcopy(H5T_C_S1);
  hid_t space = H5Screate(H5S_SCALAR);
  herr_t status = -1;
  char detail[256] = "";
  if (type >= 0 && space >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0) {
    hid_t attr = H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0) {
      status = H5Awrite(attr, type, &value);
      if (H5Aclose(attr) < 0) status = -1;
    }
  }
  if (status < 0) h5_take_detail(detail);
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  if (status < 0) return h5_report(SQ_ERR_IO, path, detail, "cannot write the attribute %s", name);
  return SQ_SUCCESS;
}

int sq_mesh_write_puml_format(const char *path, const sq_mesh *m, const char *fmt) {
  SQ_CHECK(path && m && m->vert && m->cell_vert && m->group && m->face_bc && fmt, SQ_ERR_INTERNAL,
           "sq_mesh_write_puml: NULL argument or incomplete mesh");
  int i64 = !strcmp(fmt, "i64"), x4 = !strcmp(fmt, "i32x4");
  SQ_CHECK(i64 || x4 || !strcmp(fmt, "i32"), SQ_ERR_INPUT,
           "PUML file %s: unknown boundary format \"%s\" (use \"i32\", \"i64\" or \"i32x4\")", path, fmt);
  const int64_t n = m->ncell;
  for (int64_t cf = 0; cf < 4 * n; cf++)
    SQ_CHECK(m->face_bc[cf] >= 0, SQ_ERR_INPUT, "PUML file %s: face %d of cell %lld has negative tag %d", path,
             (int)(cf % 4), (long long)(cf / 4), m->face_bc[cf]);
  void *raw = NULL;
  if (i64) SQ_CALL(sq_calloc_aligned(&raw, (size_t)n, sizeof(int64_t)));
  else SQ_CALL(sq_calloc_aligned(&raw, (size_t)(x4 ? 4 * n : n), sizeof(int32_t)));
  for (int64_t c = 0; c < n; c++) {
    for (int f = 0; f < 4; f++) {
      uint64_t code = (uint64_t)m->face_bc[4 * c + puml_to_ours[f]];
      if (i64) ((int64_t *)raw)[c] = (int64_t)((uint64_t)((int64_t *)raw)[c] | code << (16 * f));
      else if (x4) ((int32_t *)raw)[4 * c + f] = (int32_t)code;
      else ((int32_t *)raw)[c] = (int32_t)((uint32_t)((int32_t *)raw)[c] | (uint32_t)code << (8 * f));
    }
  }
  h5_quiet quiet;
  h5_quiet_begin(&quiet);
  int ierr = SQ_SUCCESS;
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) ierr = h5_error(SQ_ERR_IO, path, "cannot create the file");
  if (!ierr) ierr = h5_write_dataset(path, file, "/geometry", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, m->nvert, 3, m->vert);
  if (!ierr) ierr = h5_write_dataset(path, file, "/connect", H5T_STD_U64LE, H5T_NATIVE_INT64, n, 4, m->cell_vert);
  if (!ierr) ierr = h5_write_dataset(path, file, "/group", H5T_STD_I32LE, H5T_NATIVE_INT32, n, 0, m->group);
  if (!ierr)
    ierr = h5_write_dataset(path, file, "/boundary", i64 ? H5T_STD_I64LE : H5T_STD_I32LE,
                            i64 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32, n, x4 ? 4 : 0, raw);
  if (!ierr) ierr = h5_write_string_attr(path, file, "boundary-format", fmt);
  if (file >= 0 && H5Fclose(file) < 0 && !ierr) ierr = h5_error(SQ_ERR_IO, path, "cannot close the file");
  h5_quiet_end(&quiet);
  SQ_FREE(raw);
  return ierr;
}

int sq_mesh_write_puml(const char *path, const sq_mesh *mesh) { return sq_mesh_write_puml_format(path, mesh, "i32"); }
