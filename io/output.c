/**
 * @file output.c  Receiver files (text + HDF5), XDMF/HDF5 snapshot series and checkpoints.
 * HDF5's own error stack printing is off while these functions run; failures become one message
 * naming the file and the dataset.
 */
#include "sq_output.h"

#include <errno.h>
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sq_fields.h"

#define SQ_OUT_PATH 1400

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

/** Write a whole dataset of @p rank dims (created, replacing one of the same name). */
static int h5_write_dataset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims,
                            const void *data) {
  if (H5Lexists(loc, name, H5P_DEFAULT) > 0)
    H5Ldelete(loc, name, H5P_DEFAULT);
  hid_t space = H5Screate_simple(rank, dims, NULL);
  hid_t set = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t st = set >= 0 ? H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : -1;
  if (set >= 0)
    H5Dclose(set);
  H5Sclose(space);
  return st < 0 ? -1 : 0;
}

/** Append @p count rows (each of @p rowlen values of @p type) at row @p at of an extendible dataset. */
static int h5_append(hid_t set, hid_t type, int rank, int64_t at, int64_t count, const void *data) {
  hsize_t dims[3], start[3] = {0, 0, 0}, cnt[3];
  hid_t space = H5Dget_space(set);
  if (space < 0)
    return -1;
  H5Sget_simple_extent_dims(space, dims, NULL);
  H5Sclose(space);
  dims[0] = (hsize_t)(at + count);
  if (H5Dset_extent(set, dims) < 0)
    return -1;
  space = H5Dget_space(set);
  start[0] = (hsize_t)at;
  cnt[0] = (hsize_t)count;
  for (int r = 1; r < rank; ++r)
    cnt[r] = dims[r];
  hid_t mem = H5Screate_simple(rank, cnt, NULL);
  herr_t st = H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, cnt, NULL);
  if (st >= 0)
    st = H5Dwrite(set, type, mem, space, H5P_DEFAULT, data);
  H5Sclose(mem);
  H5Sclose(space);
  return st < 0 ? -1 : 0;
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
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  int st = file < 0 ? -1 : 0;
  if (!st) {
    const hsize_t pd[2] = {(hsize_t)n, 3};
    st = h5_write_dataset(file, "points", H5T_NATIVE_DOUBLE, 2, pd, x);
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
    hid_t set =
        H5Dcreate2(file, k == 0 ? "time" : "data", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, plist, H5P_DEFAULT);
    st = set < 0 ? -1 : 0;
    if (set >= 0)
      H5Dclose(set);
    H5Pclose(plist);
    H5Sclose(space);
  }
  if (!st)
    st = h5_attr_write(file, "interval", H5T_NATIVE_DOUBLE, &interval);
  if (!st)
    st = h5_attr_string(file, "variables", "s_xx s_yy s_zz s_xy s_yz s_xz v1 v2 v3");
  if (file >= 0 && H5Fclose(file) < 0)
    st = -1;
  h5_quiet_end(&q);
  if (st)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot create the receiver file '%s'", path);
  return SQ_SUCCESS;
}

static int receiver_h5_cut(const char *path, int n, int64_t keep) {
  h5_quiet q;
  h5_quiet_begin(&q);
  hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  int st = file < 0 ? -1 : 0, short_file = 0;
  for (int k = 0; k < 2 && !st; ++k) {
    hid_t set = H5Dopen2(file, k == 0 ? "time" : "data", H5P_DEFAULT);
    hsize_t dims[3] = {0, 0, 0};
    hid_t space = set >= 0 ? H5Dget_space(set) : -1;
    if (space < 0 || H5Sget_simple_extent_dims(space, dims, NULL) < 0 || (k == 1 && dims[1] != (hsize_t)n))
      st = -1;
    if (!st && dims[0] < (hsize_t)keep)
      short_file = 1, st = -1;
    dims[0] = (hsize_t)keep;
    if (!st && H5Dset_extent(set, dims) < 0)
      st = -1;
    if (space >= 0)
      H5Sclose(space);
    if (set >= 0)
      H5Dclose(set);
  }
  if (file >= 0 && H5Fclose(file) < 0)
    st = -1;
  h5_quiet_end(&q);
  if (short_file)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "'%s' holds fewer than the %lld samples the checkpoint counts", path, (long long)keep);
  if (st)
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__,
                    "cannot continue the receiver file '%s' (missing, unreadable, or not %d receivers)", path,
                    n);
  return SQ_SUCCESS;
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
  if (w->hdf5) {
    h5_quiet q;
    h5_quiet_begin(&q);
    double *times = malloc(sizeof(double) * (size_t)count);
    hid_t file = times ? H5Fopen(w->h5, H5F_ACC_RDWR, H5P_DEFAULT) : -1;
    int st = file < 0 ? -1 : 0;
    for (int64_t j = 0; times && j < count; ++j)
      times[j] = (double)(first + j) * w->interval;
    for (int k = 0; k < 2 && !st; ++k) {
      hid_t set = H5Dopen2(file, k == 0 ? "time" : "data", H5P_DEFAULT);
      st = set < 0
               ? -1
               : h5_append(set, H5T_NATIVE_DOUBLE, k == 0 ? 1 : 3, first, count, k == 0 ? times : samples);
      if (set >= 0)
        H5Dclose(set);
    }
    if (file >= 0 && H5Fclose(file) < 0)
      st = -1;
    free(times);
    h5_quiet_end(&q);
    SQ_CHECK(!st, SQ_ERR_IO, "cannot append receiver samples to '%s'", w->h5);
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

static int xdmf_rewrite(const sq_xdmf_writer *w) {
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

int sq_xdmf_open(const char *dir, const char *prefix, const char *name, int64_t nnode, const double *node,
                 int64_t ncell, int nvert, const int64_t *topology, int64_t keep, sq_xdmf_writer **out) {
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
    hid_t file = H5Fcreate(w->h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t grp = file >= 0 ? H5Gcreate2(file, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    const hsize_t gd[2] = {(hsize_t)nnode, 3}, td[2] = {(hsize_t)ncell, (hsize_t)nvert};
    st = grp < 0 ? -1 : 0;
    if (!st)
      st = h5_write_dataset(grp, "geometry", H5T_NATIVE_DOUBLE, 2, gd, node);
    if (!st)
      st = h5_write_dataset(grp, "topology", H5T_NATIVE_INT64, 2, td, topology);
    if (grp >= 0)
      H5Gclose(grp);
    if (file >= 0 && H5Fclose(file) < 0)
      st = -1;
  } else {
    /* continue: keep snapshots < keep, drop later ones, recover their times */
    hid_t file = H5Fopen(w->h5, H5F_ACC_RDWR, H5P_DEFAULT);
    st = file < 0 ? -1 : 0;
    w->cap = keep > 16 ? keep : 16;
    w->time = calloc((size_t)w->cap, sizeof(double));
    if (!w->time)
      st = -1;
    for (int64_t k = 0; !st; ++k) {
      char g[32];
      snprintf(g, sizeof(g), "step_%06lld", (long long)k);
      if (H5Lexists(file, g, H5P_DEFAULT) <= 0) {
        if (k < keep)
          st = -2;
        break;
      }
      if (k >= keep) {
        H5Ldelete(file, g, H5P_DEFAULT);
        continue;
      }
      hid_t grp = H5Gopen2(file, g, H5P_DEFAULT);
      if (grp < 0 || h5_attr_read(grp, "time", H5T_NATIVE_DOUBLE, &w->time[k]) < 0)
        st = -1;
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
    if (file >= 0 && H5Fclose(file) < 0 && !st)
      st = -1;
  }
  h5_quiet_end(&q);
  if (st == -2)
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "'%s' holds fewer than the %lld snapshots the checkpoint counts", w->h5, (long long)keep);
  SQ_CHECK(!st, SQ_ERR_IO, "cannot %s the snapshot file '%s'", keep < 0 ? "create" : "continue", w->h5);
  if (keep >= 0)
    SQ_CALL(xdmf_rewrite(w));
  return SQ_SUCCESS;
}

int sq_xdmf_write(sq_xdmf_writer *w, double time, int nfield, const char *const *names,
                  const double *const *values, sq_xdmf_center center) {
  SQ_CHECK(nfield >= 0 && nfield <= SQ_XDMF_MAX_FIELDS, SQ_ERR_INTERNAL, "at most %d fields per snapshot", SQ_XDMF_MAX_FIELDS);
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
  hid_t file = H5Fopen(w->h5, H5F_ACC_RDWR, H5P_DEFAULT);
  char g[32];
  snprintf(g, sizeof(g), "step_%06lld", (long long)w->count);
  if (file >= 0 && H5Lexists(file, g, H5P_DEFAULT) > 0)
    H5Ldelete(file, g, H5P_DEFAULT);
  hid_t plist = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_link_creation_order(plist, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  hid_t grp = file >= 0 ? H5Gcreate2(file, g, H5P_DEFAULT, plist, H5P_DEFAULT) : -1;
  H5Pclose(plist);
  int st = grp < 0 ? -1 : 0;
  const hsize_t dim = (hsize_t)(center == SQ_XDMF_CELL ? w->ncell : w->nnode);
  for (int i = 0; i < nfield && !st; ++i)
    st = h5_write_dataset(grp, names[i], H5T_NATIVE_DOUBLE, 1, &dim, values[i]);
  const int c = center;
  if (!st)
    st = h5_attr_write(grp, "time", H5T_NATIVE_DOUBLE, &time);
  if (!st)
    st = h5_attr_write(grp, "center", H5T_NATIVE_INT, &c);
  if (grp >= 0)
    H5Gclose(grp);
  if (file >= 0 && H5Fclose(file) < 0)
    st = -1;
  h5_quiet_end(&q);
  SQ_CHECK(!st, SQ_ERR_IO, "cannot write snapshot %lld to '%s'", (long long)w->count, w->h5);
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

/* Rows of a per-element array by mesh cell (zeros for cells other ranks own), into @p rows. */
static void ck_field_gather(const sq_disc *d, const sq_checkpoint_field *f, double *rows) {
  for (int64_t c = 0; c < d->mesh->ncell; ++c) {
    const int64_t e = d->elem_of[c];
    for (int j = 0; j < f->ncol; ++j) rows[c * f->ncol + j] = e >= 0 ? f->data[e * f->ncol + j] : 0.0;
  }
}

int sq_checkpoint_write(const char *path, const sq_disc *d, const sq_checkpoint_info *info) {
  return sq_checkpoint_write_fields(path, d, info, 0, NULL);
}

int sq_checkpoint_write_fields(const char *path, const sq_disc *d, const sq_checkpoint_info *info, int nfield,
                               const sq_checkpoint_field *fields) {
  const int64_t ncell = d->mesh->ncell;
  const size_t eb = sq_disc_elem_bytes(d);
  char *rows = malloc(eb * (size_t)(ncell > 0 ? ncell : 1));
  SQ_CHECK(rows, SQ_ERR_MEMORY, "out of memory writing the checkpoint '%s'", path);
  /* one rank holds every cell; MPI runs will write their owned rows as hyperslabs */
  for (int64_t c = 0; c < ncell; ++c)
    if (d->elem_of[c] >= 0)
      memcpy(rows + (size_t)c * eb, (const char *)d->dofs + (size_t)d->elem_of[c] * eb, eb);
    else
      memset(rows + (size_t)c * eb, 0, eb);
  char tmp[SQ_OUT_PATH + 8];
  snprintf(tmp, sizeof(tmp), "%s.tmp", path);
  h5_quiet q;
  h5_quiet_begin(&q);
  hid_t file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  int st = file < 0 ? -1 : 0;
  const hsize_t dims[2] = {(hsize_t)ncell, (hsize_t)d->nbasis * 9};
  if (!st)
    st = h5_write_dataset(file, "dofs", d->opt.precision == SQ_F64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, 2,
                          dims, rows);
  ck_attr attr[CK_NATTR];
  ck_attrs(attr);
  for (int i = 0; i < CK_NATTR && !st; ++i)
    st = h5_attr_write(file, attr[i].name, attr[i].type, (const char *)info + attr[i].offset);
  if (!st)
    st = h5_attr_string(file, "format", "starquake checkpoint 1");
  char names[512];
  ck_field_names(nfield, fields, names, sizeof(names));
  if (!st)
    st = h5_attr_string(file, "fields", names);
  for (int k = 0; k < nfield && !st; ++k) {
    double *frows = malloc(sizeof(double) * (size_t)(ncell > 0 ? ncell : 1) * fields[k].ncol);
    if (!frows) {
      st = -1;
      break;
    }
    ck_field_gather(d, &fields[k], frows);
    const hsize_t fdims[2] = {(hsize_t)ncell, (hsize_t)fields[k].ncol};
    st = h5_write_dataset(file, fields[k].name, H5T_NATIVE_DOUBLE, 2, fdims, frows);
    free(frows);
  }
  if (file >= 0 && H5Fclose(file) < 0)
    st = -1;
  h5_quiet_end(&q);
  free(rows);
  SQ_CHECK(!st, SQ_ERR_IO, "cannot write the checkpoint '%s'", tmp);
  /* make it durable before it replaces the previous checkpoint */
  FILE *f = fopen(tmp, "r+");
  if (f) {
    fflush(f);
    fsync(fileno(f));
    fclose(f);
  }
  if (rename(tmp, path))
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot rename '%s' to '%s': %s", tmp, path,
                    strerror(errno));
  return SQ_SUCCESS;
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

/* Read the per-element arrays @p fields of the open checkpoint @p file (which must list exactly them). */
static int ck_fields_read(const char *path, hid_t file, sq_disc *d, int nfield, const sq_checkpoint_field *fields) {
  char want[512], have[512];
  ck_field_names(nfield, fields, want, sizeof(want));
  h5_quiet q;
  h5_quiet_begin(&q);
  int st = h5_attr_read_string(file, "fields", have, sizeof(have));
  h5_quiet_end(&q);
  SQ_CHECK(!st, SQ_ERR_INPUT, "cannot read the attribute 'fields' of the checkpoint '%s'", path);
  SQ_CHECK(!strcmp(want, have), SQ_ERR_INPUT,
           "the checkpoint '%s' holds the per-element data [%s] but this run needs [%s]: a run with plasticity "
           "restarts only from a checkpoint written with plasticity, and a run without it only from one without",
           path, have, want);
  const int64_t ncell = d->mesh->ncell;
  for (int k = 0; k < nfield; ++k) {
    const sq_checkpoint_field *f = &fields[k];
    double *rows = malloc(sizeof(double) * (size_t)(ncell > 0 ? ncell : 1) * f->ncol);
    SQ_CHECK(rows, SQ_ERR_MEMORY, "out of memory reading the checkpoint '%s'", path);
    h5_quiet_begin(&q);
    hid_t set = H5Dopen2(file, f->name, H5P_DEFAULT);
    hid_t space = set >= 0 ? H5Dget_space(set) : -1;
    hsize_t dims[2] = {0, 0};
    st = space < 0 || H5Sget_simple_extent_ndims(space) != 2 || H5Sget_simple_extent_dims(space, dims, NULL) < 0 ||
         dims[0] != (hsize_t)ncell || dims[1] != (hsize_t)f->ncol;
    if (!st) st = H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0;
    if (space >= 0) H5Sclose(space);
    if (set >= 0) H5Dclose(set);
    h5_quiet_end(&q);
    if (!st)
      for (int64_t c = 0; c < ncell; ++c)
        if (d->elem_of[c] >= 0) memcpy(f->data + d->elem_of[c] * f->ncol, rows + c * f->ncol, sizeof(double) * f->ncol);
    free(rows);
    SQ_CHECK(!st, SQ_ERR_INPUT, "cannot read /%s (%lld x %d) from the checkpoint '%s'", f->name, (long long)ncell,
             f->ncol, path);
  }
  return SQ_SUCCESS;
}

int sq_checkpoint_read(const char *path, sq_disc *d, sq_checkpoint_info *info) {
  return sq_checkpoint_read_fields(path, d, info, 0, NULL);
}

int sq_checkpoint_read_fields(const char *path, sq_disc *d, sq_checkpoint_info *info, int nfield,
                              const sq_checkpoint_field *fields) {
  SQ_CHECK(access(path, R_OK) == 0, SQ_ERR_IO, "cannot read the checkpoint '%s': %s", path, strerror(errno));
  h5_quiet q;
  h5_quiet_begin(&q);
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  memset(info, 0, sizeof(*info));
  ck_attr attr[CK_NATTR];
  ck_attrs(attr);
  int st = file < 0 ? -1 : 0;
  const char *missing = NULL;
  for (int i = 0; i < CK_NATTR && !st; ++i)
    if (h5_attr_read(file, attr[i].name, attr[i].type, (char *)info + attr[i].offset) < 0)
      missing = attr[i].name, st = -1;
  h5_quiet_end(&q);
  if (st) {
    if (file >= 0)
      H5Fclose(file);
    if (missing)
      return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                      "'%s' is not a starquake checkpoint (attribute '%s' missing)", path, missing);
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__, "'%s' is not an HDF5 file", path);
  }
  int mism = info->ncell != d->mesh->ncell || info->order != d->opt.order ||
             info->precision != (int)d->opt.precision;
  if (mism) {
    H5Fclose(file);
    return sq_error(
        SQ_ERR_INPUT, __FILE__, __LINE__,
        "the checkpoint '%s' does not fit this run: it has %lld cells, order %d, %s precision; the run "
        "has %lld cells, order %d, %s precision",
        path, (long long)info->ncell, info->order, info->precision == SQ_F64 ? "double" : "single",
        (long long)d->mesh->ncell, d->opt.order, d->opt.precision == SQ_F64 ? "double" : "single");
  }
  const int fierr = ck_fields_read(path, file, d, nfield, fields);
  if (fierr) {
    H5Fclose(file);
    return fierr;
  }
  const int64_t ncell = d->mesh->ncell;
  const size_t eb = sq_disc_elem_bytes(d);
  char *rows = malloc(eb * (size_t)(ncell > 0 ? ncell : 1));
  h5_quiet_begin(&q);
  hid_t set = rows ? H5Dopen2(file, "dofs", H5P_DEFAULT) : -1;
  hid_t space = set >= 0 ? H5Dget_space(set) : -1;
  hsize_t dims[2] = {0, 0};
  st = space < 0 || H5Sget_simple_extent_ndims(space) != 2 ||
       H5Sget_simple_extent_dims(space, dims, NULL) < 0 || dims[0] != (hsize_t)ncell ||
       dims[1] != (hsize_t)d->nbasis * 9;
  if (!st)
    st = H5Dread(set, d->opt.precision == SQ_F64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL,
                 H5P_DEFAULT, rows) < 0;
  if (space >= 0)
    H5Sclose(space);
  if (set >= 0)
    H5Dclose(set);
  H5Fclose(file);
  h5_quiet_end(&q);
  if (st) {
    free(rows);
    return sq_error(SQ_ERR_INPUT, __FILE__, __LINE__,
                    "cannot read /dofs (%lld x %d) from the checkpoint '%s'", (long long)ncell, d->nbasis * 9,
                    path);
  }
  for (int64_t c = 0; c < ncell;
       ++c) /* ghosts included: they are refreshed by the first halo exchange anyway */
    if (d->elem_of[c] >= 0)
      memcpy((char *)d->dofs + (size_t)d->elem_of[c] * eb, rows + (size_t)c * eb, eb);
  free(rows);
  return SQ_SUCCESS;
}
