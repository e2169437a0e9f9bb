/**
 * @file xdmf.c  Snapshot series: one HDF5 file (the mesh once, then one group per snapshot) and the
 * XDMF text that describes it to ParaView, rewritten by rank 0 after every snapshot.  A restart keeps
 * the snapshots the checkpoint counts and drops later ones.
 */
#include "output_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct sq_xdmf_writer {
  char xdmf[SQ_OUT_PATH], h5[SQ_OUT_PATH], h5base[SQ_OUT_PATH];
  int64_t nnode, ncell;
  int nvert;
  int64_t count, cap;
  double *time;
  int nfield;
  char field[SQ_XDMF_MAX_FIELDS][24];
  sq_xdmf_center center;
  int seissol;  /* SeisSol's layout: /mesh0/geometry, /mesh0/connect, /mesh0/NAME (snapshots x rows), /time */
  int *cols;    /* seissol: the rows this rank writes, marked (ncell or nnode) */
  double *full; /* seissol: one field's values at every row, this rank's filled in */
};

/* SeisSol's XDMF (seissolxdmf reads it): every snapshot's attribute is a HyperSlab, row k of /mesh0/NAME. */
static void xdmf_text_seissol(const sq_xdmf_writer *w, FILE *f) {
  const char *topo = w->nvert == 4 ? "Tetrahedron" : "Triangle";
  const int64_t nval = w->center == SQ_XDMF_CELL ? w->ncell : w->nnode;
  fprintf(f, "  <Grid Name=\"TimeSeries\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (int64_t k = 0; k < w->count; ++k) {
    fprintf(f, "   <Grid Name=\"step_%012lld\" GridType=\"Uniform\">\n", (long long)k);
    fprintf(f,
            "    <Topology TopologyType=\"%s\" NumberOfElements=\"%lld\">\n     <DataItem NumberType=\"Int\" "
            "Precision=\"8\" Format=\"HDF\" Dimensions=\"%lld %d\">%s:/mesh0/connect</DataItem>\n    </Topology>\n",
            topo, (long long)w->ncell, (long long)w->ncell, w->nvert, w->h5base);
    fprintf(f,
            "    <Geometry name=\"geo\" GeometryType=\"XYZ\" NumberOfElements=\"%lld\">\n     <DataItem "
            "NumberType=\"Float\" Precision=\"8\" Format=\"HDF\" Dimensions=\"%lld 3\">%s:/mesh0/geometry</DataItem>\n"
            "    </Geometry>\n",
            (long long)w->nnode, (long long)w->nnode, w->h5base);
    fprintf(f, "    <Time Value=\"%.17g\"/>\n", w->time[k]);
    for (int i = 0; i < w->nfield; ++i)
      fprintf(
          f,
          "    <Attribute Name=\"%s\" Center=\"%s\">\n     <DataItem ItemType=\"HyperSlab\" Dimensions=\"%lld\">\n"
          "      <DataItem NumberType=\"UInt\" Precision=\"4\" Format=\"XML\" Dimensions=\"3 2\">%lld 0 1 1 1 %lld"
          "</DataItem>\n      <DataItem NumberType=\"Float\" Precision=\"8\" Format=\"HDF\" Dimensions=\"%lld %lld\">"
          "%s:/mesh0/%s</DataItem>\n     </DataItem>\n    </Attribute>\n",
          w->field[i], w->center == SQ_XDMF_CELL ? "Cell" : "Node", (long long)nval, (long long)k, (long long)nval,
          (long long)w->count, (long long)nval, w->h5base, w->field[i]);
    fprintf(f, "   </Grid>\n");
  }
  fprintf(f, "  </Grid>\n");
}

/* The XDMF text (rank 0 alone writes it). */
static int xdmf_text(const sq_xdmf_writer *w) {
  char tmp[SQ_OUT_PATH + 8];
  snprintf(tmp, sizeof(tmp), "%s.tmp", w->xdmf);
  FILE *f = fopen(tmp, "w");
  if (!f) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", tmp, strerror(errno));
  const char *topo = w->nvert == 4 ? "Tetrahedron" : "Triangle";
  fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n "
             "<Domain>\n");
  if (w->seissol) xdmf_text_seissol(w, f);
  else fprintf(f, "  <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (int64_t k = 0; !w->seissol && k < w->count; ++k) {
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
              (long long)(w->center == SQ_XDMF_CELL ? w->ncell : w->nnode), w->h5base, (long long)k, w->field[i]);
    fprintf(f, "   </Grid>\n");
  }
  if (!w->seissol) fprintf(f, "  </Grid>\n");
  fprintf(f, " </Domain>\n</Xdmf>\n");
  const int bad = ferror(f);
  if (fclose(f) || bad || rename(tmp, w->xdmf))
    return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", w->xdmf, strerror(errno));
  return SQ_SUCCESS;
}

/* Rank 0 rewrites the XDMF text; every rank returns its status. */
static int xdmf_rewrite(const sq_xdmf_writer *w) { return sq_io_root(sq_io_rank() == 0 ? xdmf_text(w) : SQ_SUCCESS); }

/* Continue an existing series: keep snapshots < keep, drop later ones, recover their times and the
 * field list.  0, -1 (HDF5 failure) or -2 (fewer than keep snapshots); agreed. */
static int xdmf_continue(sq_xdmf_writer *w, int64_t keep) {
  hid_t file = -1;
  int st = 0;
  IO_STEP(st, file = sq_h5_file(w->h5, 0, H5F_ACC_RDWR));
  w->cap = keep > 16 ? keep : 16;
  w->time = calloc((size_t)w->cap, sizeof(double));
  IO_STEP(st, w->time ? 0 : -1);
  for (int64_t k = 0; !st; ++k) {
    char g[32];
    snprintf(g, sizeof(g), "step_%06lld", (long long)k);
    if (sq_io_agree(H5Lexists(file, g, H5P_DEFAULT) > 0 ? 0 : -1)) {
      if (k < keep) st = -2;
      break;
    }
    if (k >= keep) {
      IO_STEP(st, H5Ldelete(file, g, H5P_DEFAULT));
      continue;
    }
    hid_t grp = -1;
    IO_STEP(st, grp = H5Gopen2(file, g, H5P_DEFAULT));
    IO_STEP(st, sq_h5_attr_read(grp, "time", H5T_NATIVE_DOUBLE, &w->time[k]));
    if (!st && k == 0) { /* the field list of the series */
      H5G_info_t info;
      H5Gget_info(grp, &info);
      w->nfield = 0;
      for (hsize_t i = 0; i < info.nlinks && w->nfield < SQ_XDMF_MAX_FIELDS; ++i) {
        char fname[24];
        if (H5Lget_name_by_idx(grp, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, fname, sizeof(fname), H5P_DEFAULT) < 0 &&
            H5Lget_name_by_idx(grp, ".", H5_INDEX_NAME, H5_ITER_INC, i, fname, sizeof(fname), H5P_DEFAULT) < 0)
          continue;
        snprintf(w->field[w->nfield++], sizeof(w->field[0]), "%s", fname);
      }
      int center = 0;
      sq_h5_attr_read(grp, "center", H5T_NATIVE_INT, &center);
      w->center = center ? SQ_XDMF_NODE : SQ_XDMF_CELL;
    }
    if (grp >= 0) H5Gclose(grp);
  }
  w->count = st ? 0 : keep;
  IO_STEP(st, sq_h5_close(&file));
  if (st) sq_h5_close_quiet(&file);
  return st;
}

/* Continue a SeisSol-layout series: cut /time and every /mesh0/NAME to keep rows; 0, -1 or -2 (agreed). */
static int xdmf_continue_seissol(sq_xdmf_writer *w, int64_t keep) {
  hid_t file = -1, grp = -1, set = -1, space = -1;
  int st = 0, center = 0;
  hsize_t dims[2] = {0, 0};
  IO_STEP(st, file = sq_h5_file(w->h5, 0, H5F_ACC_RDWR));
  w->cap = keep > 16 ? keep : 16;
  w->time = calloc((size_t)w->cap, sizeof(double));
  IO_STEP(st, w->time ? 0 : -1);
  IO_STEP(st, set = H5Dopen2(file, "time", H5P_DEFAULT));
  IO_STEP(st, space = H5Dget_space(set));
  IO_STEP(st, H5Sget_simple_extent_dims(space, dims, NULL));
  if (space >= 0) H5Sclose(space), space = -1;
  if (!st && dims[0] < (hsize_t)keep) st = -2;
  if (!st && keep > 0) { /* every rank reads the times it keeps */
    hsize_t start = 0, cnt = (hsize_t)keep;
    hid_t fs = H5Dget_space(set), ms = H5Screate_simple(1, &cnt, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &cnt, NULL);
    IO_STEP(st, H5Dread(set, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, w->time));
    H5Sclose(fs), H5Sclose(ms);
  }
  IO_STEP(st, sq_h5_attr_read(set, "center", H5T_NATIVE_INT, &center));
  w->center = center ? SQ_XDMF_NODE : SQ_XDMF_CELL;
  dims[0] = (hsize_t)keep;
  IO_STEP(st, H5Dset_extent(set, dims));
  if (set >= 0) H5Dclose(set), set = -1;
  IO_STEP(st, grp = H5Gopen2(file, "mesh0", H5P_DEFAULT));
  H5G_info_t info;
  IO_STEP(st, H5Gget_info(grp, &info));
  w->nfield = 0;
  for (hsize_t i = 0; !st && i < info.nlinks; ++i) {
    char name[24];
    if (H5Lget_name_by_idx(grp, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, name, sizeof(name), H5P_DEFAULT) < 0 &&
        H5Lget_name_by_idx(grp, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof(name), H5P_DEFAULT) < 0)
      continue;
    if (!strcmp(name, "geometry") || !strcmp(name, "connect") || w->nfield == SQ_XDMF_MAX_FIELDS) continue;
    snprintf(w->field[w->nfield++], sizeof(w->field[0]), "%s", name);
    hsize_t fd[2] = {(hsize_t)keep, (hsize_t)(center ? w->nnode : w->ncell)};
    IO_STEP(st, set = H5Dopen2(grp, name, H5P_DEFAULT));
    IO_STEP(st, H5Dset_extent(set, fd));
    if (set >= 0) H5Dclose(set), set = -1;
  }
  if (grp >= 0) H5Gclose(grp);
  w->count = st ? 0 : keep;
  IO_STEP(st, sq_h5_close(&file));
  if (st) sq_h5_close_quiet(&file);
  return st;
}

/* Create the SeisSol layout's file: /mesh0/geometry, /mesh0/connect (link creation order kept) and /time. */
static int xdmf_create_seissol(sq_xdmf_writer *w, const double *node, const sq_rows *node_rows, const int64_t *topology,
                               const sq_rows *cell_rows) {
  hid_t file = -1, grp = -1, plist = -1, space = -1, set = -1;
  int st = 0;
  IO_STEP(st, file = sq_h5_file(w->h5, 1, 0));
  IO_STEP(st, plist = H5Pcreate(H5P_GROUP_CREATE));
  IO_STEP(st, H5Pset_link_creation_order(plist, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
  IO_STEP(st, grp = H5Gcreate2(file, "mesh0", H5P_DEFAULT, plist, H5P_DEFAULT));
  if (plist >= 0) H5Pclose(plist), plist = -1;
  const hsize_t gd[2] = {(hsize_t)w->nnode, 3}, td[2] = {(hsize_t)w->ncell, (hsize_t)w->nvert};
  if (!st) st = sq_h5_write_dataset(grp, "geometry", H5T_NATIVE_DOUBLE, 2, gd, node_rows, node);
  if (!st) st = sq_h5_write_dataset(grp, "connect", H5T_NATIVE_INT64, 2, td, cell_rows, topology);
  const hsize_t zero = 0, unlim = H5S_UNLIMITED, chunk = 64;
  IO_STEP(st, space = H5Screate_simple(1, &zero, &unlim));
  IO_STEP(st, plist = H5Pcreate(H5P_DATASET_CREATE));
  IO_STEP(st, H5Pset_chunk(plist, 1, &chunk));
  IO_STEP(st, set = H5Dcreate2(file, "time", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, plist, H5P_DEFAULT));
  if (set >= 0) H5Dclose(set);
  if (plist >= 0) H5Pclose(plist);
  if (space >= 0) H5Sclose(space);
  if (grp >= 0) H5Gclose(grp);
  IO_STEP(st, sq_h5_close(&file));
  if (st) sq_h5_close_quiet(&file);
  return st;
}

/* One snapshot in the SeisSol layout: row w->count of /time and of each /mesh0/NAME (created at the first). */
static int xdmf_write_seissol(sq_xdmf_writer *w, double time, int nfield, const char *const *names,
                              const double *const *values, sq_xdmf_center center, const sq_rows *rows) {
  const int64_t nval = center == SQ_XDMF_CELL ? w->ncell : w->nnode;
  if (!w->cols) {
    w->cols = calloc((size_t)(nval > 0 ? nval : 1), sizeof(int));
    w->full = calloc((size_t)(nval > 0 ? nval : 1), sizeof(double));
  }
  int st = sq_io_agree(w->cols && w->full ? 0 : -1);
  for (int64_t r = 0; !st && rows && r < rows->n; ++r) w->cols[rows->id ? rows->id[r] : rows->first + r] = 1;
  hid_t file = -1, grp = -1;
  IO_STEP(st, file = sq_h5_file(w->h5, 0, H5F_ACC_RDWR));
  IO_STEP(st, grp = H5Gopen2(file, "mesh0", H5P_DEFAULT));
  for (int i = 0; i < nfield && !st; ++i) {
    hid_t set = -1;
    if (H5Lexists(grp, names[i], H5P_DEFAULT) > 0) IO_STEP(st, set = H5Dopen2(grp, names[i], H5P_DEFAULT));
    else {
      const hsize_t d0[2] = {0, (hsize_t)nval}, dmax[2] = {H5S_UNLIMITED, (hsize_t)nval};
      const hsize_t chunk[2] = {1, (hsize_t)(nval > 0 ? (nval < 65536 ? nval : 65536) : 1)};
      hid_t space = H5Screate_simple(2, d0, dmax), plist = H5Pcreate(H5P_DATASET_CREATE);
      H5Pset_chunk(plist, 2, chunk);
      IO_STEP(st, set = H5Dcreate2(grp, names[i], H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, plist, H5P_DEFAULT));
      H5Pclose(plist), H5Sclose(space);
    }
    const double *v = values[i];
    if (rows) { /* this rank's rows, scattered to their places in the row of the snapshot */
      for (int64_t r = 0; r < rows->n; ++r) w->full[rows->id ? rows->id[r] : rows->first + r] = values[i][r];
      v = w->full;
    }
    if (!st) st = sq_h5_append(set, 2, w->count, 1, rows ? w->cols : NULL, v);
    if (set >= 0) H5Dclose(set);
  }
  if (grp >= 0) H5Gclose(grp);
  hid_t tset = -1;
  IO_STEP(st, tset = H5Dopen2(file, "time", H5P_DEFAULT));
  if (!st) st = sq_h5_append(tset, 1, w->count, 1, NULL, &time);
  const int c = center;
  IO_STEP(st, sq_h5_attr_write(tset, "center", H5T_NATIVE_INT, &c));
  if (tset >= 0) H5Dclose(tset);
  IO_STEP(st, sq_h5_close(&file));
  if (st) sq_h5_close_quiet(&file);
  return st;
}

int sq_xdmf_open(const char *dir, const char *prefix, const char *name, int64_t nnode, const double *node,
                 const sq_rows *node_rows, int64_t ncell, int nvert, const int64_t *topology, const sq_rows *cell_rows,
                 int64_t keep, sq_xdmf_writer **out) {
  return sq_xdmf_open_style(dir, prefix, name, nnode, node, node_rows, ncell, nvert, topology, cell_rows, 0, keep, out);
}

int sq_xdmf_open_style(const char *dir, const char *prefix, const char *name, int64_t nnode, const double *node,
                       const sq_rows *node_rows, int64_t ncell, int nvert, const int64_t *topology,
                       const sq_rows *cell_rows, int seissol, int64_t keep, sq_xdmf_writer **out) {
  sq_xdmf_writer *w;
  SQ_CALL(SQ_CALLOC(w, 1));
  *out = w;
  w->seissol = seissol;
  w->nnode = nnode;
  w->ncell = ncell;
  w->nvert = nvert;
  const char *dash = name[0] ? "-" : ""; /* "": PREFIX.xdmf, SeisSol's name of the wavefield series */
  snprintf(w->xdmf, sizeof(w->xdmf), "%s/%s%s%s.xdmf", dir, prefix, dash, name);
  snprintf(w->h5, sizeof(w->h5), "%s/%s%s%s.h5", dir, prefix, dash, name);
  snprintf(w->h5base, sizeof(w->h5base), "%s%s%s.h5", prefix, dash, name);
  h5_quiet q;
  sq_h5_quiet_begin(&q);
  int st = 0;
  if (seissol)
    st = keep < 0 ? xdmf_create_seissol(w, node, node_rows, topology, cell_rows) : xdmf_continue_seissol(w, keep);
  else if (keep < 0) {
    hid_t file = -1, grp = -1;
    IO_STEP(st, file = sq_h5_file(w->h5, 1, 0));
    IO_STEP(st, grp = H5Gcreate2(file, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    const hsize_t gd[2] = {(hsize_t)nnode, 3}, td[2] = {(hsize_t)ncell, (hsize_t)nvert};
    if (!st) st = sq_h5_write_dataset(grp, "geometry", H5T_NATIVE_DOUBLE, 2, gd, node_rows, node);
    if (!st) st = sq_h5_write_dataset(grp, "topology", H5T_NATIVE_INT64, 2, td, cell_rows, topology);
    if (grp >= 0) H5Gclose(grp);
    IO_STEP(st, sq_h5_close(&file));
    if (st) sq_h5_close_quiet(&file);
  } else {
    st = xdmf_continue(w, keep);
  }
  sq_h5_quiet_end(&q);
  if (st == -2)
    return io_error(SQ_ERR_INPUT, __LINE__, "'%s' holds fewer than the %lld snapshots the checkpoint counts", w->h5,
                    (long long)keep);
  if (st)
    return io_error(SQ_ERR_IO, __LINE__, "cannot %s the snapshot file '%s'", keep < 0 ? "create" : "continue", w->h5);
  if (keep >= 0) SQ_CALL(xdmf_rewrite(w));
  return SQ_SUCCESS;
}

int sq_xdmf_write(sq_xdmf_writer *w, double time, int nfield, const char *const *names, const double *const *values,
                  sq_xdmf_center center, const sq_rows *rows) {
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
  for (int i = 0; i < nfield; ++i) snprintf(w->field[i], sizeof(w->field[i]), "%s", names[i]);
  h5_quiet q;
  sq_h5_quiet_begin(&q);
  if (w->seissol) {
    const int st = xdmf_write_seissol(w, time, nfield, names, values, center, rows);
    sq_h5_quiet_end(&q);
    if (st) return io_error(SQ_ERR_IO, __LINE__, "cannot write snapshot %lld to '%s'", (long long)w->count, w->h5);
    w->time[w->count++] = time;
    return xdmf_rewrite(w);
  }
  hid_t file = -1, grp = -1, plist = -1;
  int st = 0;
  IO_STEP(st, file = sq_h5_file(w->h5, 0, H5F_ACC_RDWR));
  char g[32];
  snprintf(g, sizeof(g), "step_%06lld", (long long)w->count);
  if (!st && H5Lexists(file, g, H5P_DEFAULT) > 0) IO_STEP(st, H5Ldelete(file, g, H5P_DEFAULT));
  IO_STEP(st, plist = H5Pcreate(H5P_GROUP_CREATE));
  IO_STEP(st, H5Pset_link_creation_order(plist, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
  IO_STEP(st, grp = H5Gcreate2(file, g, H5P_DEFAULT, plist, H5P_DEFAULT));
  if (plist >= 0) H5Pclose(plist);
  const hsize_t dim = (hsize_t)(center == SQ_XDMF_CELL ? w->ncell : w->nnode);
  for (int i = 0; i < nfield && !st; ++i)
    st = sq_h5_write_dataset(grp, names[i], H5T_NATIVE_DOUBLE, 1, &dim, rows, values[i]);
  const int c = center;
  IO_STEP(st, sq_h5_attr_write(grp, "time", H5T_NATIVE_DOUBLE, &time));
  IO_STEP(st, sq_h5_attr_write(grp, "center", H5T_NATIVE_INT, &c));
  if (grp >= 0) H5Gclose(grp);
  IO_STEP(st, sq_h5_close(&file));
  sq_h5_quiet_end(&q);
  if (st) {
    const int ierr = io_error(SQ_ERR_IO, __LINE__, "cannot write snapshot %lld to '%s'", (long long)w->count, w->h5);
    sq_h5_close_quiet(&file);
    return ierr;
  }
  w->time[w->count++] = time;
  return xdmf_rewrite(w);
}

int64_t sq_xdmf_count(const sq_xdmf_writer *w) { return w ? w->count : 0; }

void sq_xdmf_close(sq_xdmf_writer *w) {
  if (!w) return;
  free(w->time);
  free(w->cols);
  free(w->full);
  SQ_FREE(w);
}
