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
};

/* The XDMF text (rank 0 alone writes it). */
static int xdmf_text(const sq_xdmf_writer *w) {
  char tmp[SQ_OUT_PATH + 8];
  snprintf(tmp, sizeof(tmp), "%s.tmp", w->xdmf);
  FILE *f = fopen(tmp, "w");
  if (!f) return sq_error(SQ_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s", tmp, strerror(errno));
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
              (long long)(w->center == SQ_XDMF_CELL ? w->ncell : w->nnode), w->h5base, (long long)k, w->field[i]);
    fprintf(f, "   </Grid>\n");
  }
  fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
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

int sq_xdmf_open(const char *dir, const char *prefix, const char *name, int64_t nnode, const double *node,
                 const sq_rows *node_rows, int64_t ncell, int nvert, const int64_t *topology, const sq_rows *cell_rows,
                 int64_t keep, sq_xdmf_writer **out) {
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
  sq_h5_quiet_begin(&q);
  int st = 0;
  if (keep < 0) {
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
  SQ_FREE(w);
}
